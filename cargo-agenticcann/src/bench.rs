//! `cargo agenticcann bench`: the benchmark suite through the offline proposer (or an
//! `evolve` search with a model per op), judged, with
//! the table of [`agenticcann_evolve::bench`] as Markdown, JSON and SVG charts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agenticcann_build::judge::EvalOptions;
use agenticcann_evolve::agent::{AgentConfig, Budgets};
use agenticcann_evolve::bench::{self, BenchOptions, Meta};
use agenticcann_evolve::knowledge::{KnowledgeBase, KnowledgeSource};
use agenticcann_evolve::llm::settings::{resolve, Flags, Metadata};
use agenticcann_evolve::llm::{open_resumable, LlmError};
use agenticcann_evolve::search::SearchConfig;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::cli::MessageFormat;
use crate::exit::{Status, Unavailable};

pub const LONG_ABOUT: &str = "\
Run every op of the benchmark suite (default: tests/bench/suite of the source tree \
cargo-agenticcann was built from; one package per pattern) through the proposer, judge each \
kernel (policy, compile, run and verify on declared, held-out and stress shapes, cost-model \
profile), time its baselines, and report per op and per pattern: feasibility, time per shape, \
speedup vs the op's eager recipe (the launches its source model's framework code runs, with \
intermediates in the recipe's dtypes) and vs the vendor-fused model (one launch at the op's \
memory roofline), speedup vs the first feasible candidate, fraction of the HBM roofline, \
fast_p for p = 0, 1, 1.5, 2, geometric means per pattern and wall time. A kernel whose time \
beats the roofline or fails the judge's plausibility checks is reported as suspect and not \
counted. The report records the date, machine, commit, build, SoC profile and its sha256.

With --out DIR, writes DIR/RESULTS.md, DIR/results.json and the charts DIR/speedup.svg, \
DIR/roofline.svg and DIR/feasibility.svg (each atomically). Without it, prints the Markdown \
(or, with --message-format json, the JSON report) on stdout. Progress goes to stderr.

The committed results are regenerated with a release build:
  cargo run --release -p cargo-agenticcann -- agenticcann bench --out tests/bench

--proposer llm runs an `evolve` search per op instead (the model as in evolve: --base-url, \
--model, --tool-protocol, else AGENTICCANN_LLM_BASE_URL / AGENTICCANN_LLM_MODEL, the key from \
AGENTICCANN_LLM_API_KEY, DEEPSEEK_API_KEY or OPENAI_API_KEY), under the budget stated by \
--generations, --max-steps, --token-budget and --time-budget per op, recorded in --run-dir; \
the model's kernels alone unless --with-offline lets the offline seed and tiling search join. \
The report adds, per op, where the kernel came from, candidates, tokens by phase and why the \
search stopped. --proposer both runs the offline proposer too and adds the LLM kernel's \
speedup over it (with --out, the offline report goes to DIR/offline/).

Exit status: 0 when every op that ran is feasible and none is suspect, 1 otherwise (the \
report is written either way), 2 for usage errors (bad --filter, unreadable suite, a judge \
that cannot run), 3 when the model endpoint is unavailable (no key for a remote endpoint).";

/// Which proposer generates the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Proposer {
    /// The offline proposer (`agenticcann_build::synth`).
    Offline,
    /// An `evolve` search with a model per op.
    Llm,
    /// Both: the LLM report with each kernel's speedup over the offline proposer's.
    Both,
}

/// `cargo agenticcann bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Only ops whose name matches this regular expression.
    #[arg(long, value_name = "RE")]
    pub filter: Option<String>,

    /// The proposer(s) to run.
    #[arg(long, value_enum, value_name = "P", default_value_t = Proposer::Offline)]
    pub proposer: Proposer,

    /// The suite folder [default: tests/bench/suite of this source tree].
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,

    /// Write RESULTS.md, results.json and the SVG charts into this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Output format of stdout (without --out).
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Seed of the inputs (default: a fresh one per evaluation).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Wall-clock limit of each kernel's run, seconds.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,

    /// Judge the offline proposer's single default proposal per op instead of searching its
    /// variants for the fastest accepted one (what `build.rs` ships).
    #[arg(long)]
    pub no_search: bool,

    /// The model flags of `evolve` (with --proposer llm or both).
    #[command(flatten)]
    pub llm: LlmBenchArgs,
}

/// The search each op gets with `--proposer llm|both`: the model and the stated budget.
#[derive(Debug, Args)]
pub struct LlmBenchArgs {
    /// The model name [default: $AGENTICCANN_LLM_MODEL, else deepseek-chat].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// The OpenAI-compatible endpoint [default: $AGENTICCANN_LLM_BASE_URL, else
    /// https://api.deepseek.com].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// How tools reach the model [default: auto].
    #[arg(long, value_enum, value_name = "PROTOCOL")]
    pub tool_protocol: Option<crate::evolve::ProtocolArg>,

    /// The knowledge the agent gets.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = crate::evolve::KnowledgeArg::Full)]
    pub knowledge: crate::evolve::KnowledgeArg,

    /// Generations per op (1 = the generation-1 agent alone).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub generations: u32,

    /// Agent steps per op (model turns).
    #[arg(long, value_name = "N", default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: u32,

    /// Tokens per op (prompt + completion).
    #[arg(long, value_name = "N")]
    pub token_budget: Option<u64>,

    /// Wall time per op, seconds.
    #[arg(long, value_name = "SECS")]
    pub time_budget: Option<f64>,

    /// Let the offline proposer's seed and the offline tiling search join each op's
    /// population (off by default, so the LLM column is what the model wrote).
    #[arg(long)]
    pub with_offline: bool,

    /// The run folder of the searches (the recording of every exchange; running the same
    /// command on it again resumes) [default: target/agenticcann/bench/<unix time>].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
}

fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut f = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    // Files for a repository: readable by everyone (a temporary file starts at 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = f
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    f.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Writes the report's five files into `out`, each atomically.
fn write_all(out: &Path, report: &bench::Report) -> Result<()> {
    // Every chart is drawn before any file is written, so a chart error leaves no half set.
    let charts = [
        ("speedup.svg", bench::speedup_svg(report)?),
        ("roofline.svg", bench::roofline_svg(report)?),
        ("feasibility.svg", bench::feasibility_svg(report)?),
    ];
    write_atomic(&out.join("RESULTS.md"), &bench::markdown(report))?;
    write_atomic(&out.join("results.json"), &bench::json(report))?;
    for (name, svg) in &charts {
        write_atomic(&out.join(name), svg)?;
    }
    Ok(())
}

/// Runs `bench`.
///
/// # Errors
/// Usage errors and a judge that cannot run (exit 2).
pub fn run(args: &BenchArgs) -> Result<Status> {
    if let Some(t) = args.llm.time_budget {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-budget must be a positive number of seconds, not {t}");
        }
    }
    let filter = match &args.filter {
        Some(f) => Some(regex::Regex::new(f).with_context(|| format!("bad --filter `{f}`"))?),
        None => None,
    };
    let dir = args.suite.clone().unwrap_or_else(bench::default_suite_dir);
    let suite = agenticcann_evolve::suite::load(&dir)?;
    let suite: Vec<_> = suite
        .into_iter()
        .filter(|s| filter.as_ref().is_none_or(|re| re.is_match(&s.op.name)))
        .collect();
    if suite.is_empty() {
        bail!(
            "no op of {} matches --filter `{}`",
            dir.display(),
            args.filter.as_deref().unwrap_or("")
        );
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    }
    let mut opts = BenchOptions {
        search: !args.no_search,
        ..BenchOptions::default()
    };
    opts.eval.seed = args.seed;
    opts.eager_eval.seed = args.seed;
    opts.eval.run_limits.wall = Duration::from_secs(args.timeout);
    opts.eager_eval.run_limits.wall = Duration::from_secs(args.timeout);
    let soc = bench::soc_of(&suite, &opts).context("the judge cannot run")?;
    let mut command = "cargo agenticcann bench".to_string();
    if let Some(f) = &args.filter {
        command.push_str(&format!(" --filter '{f}'"));
    }
    if let Some(s) = &args.suite {
        command.push_str(&format!(" --suite {}", s.display()));
    }
    if let Some(o) = &args.out {
        command.push_str(&format!(" --out {}", o.display()));
    }
    if args.no_search {
        command.push_str(" --no-search");
    }
    match args.proposer {
        Proposer::Offline => {}
        Proposer::Llm => command.push_str(" --proposer llm"),
        Proposer::Both => command.push_str(" --proposer both"),
    }
    if args.proposer == Proposer::Offline {
        return run_one(args, &suite, &opts, &soc, &command, None, None);
    }
    // The model, before anything runs: a missing key stops here (exit 3).
    let l = &args.llm;
    let flags = Flags {
        base_url: l.base_url.clone(),
        model: l.model.clone(),
        tool_protocol: l.tool_protocol.map(Into::into),
    };
    let settings = match resolve(
        &flags,
        &|n| agenticcann_build::env::var(n),
        &Metadata::default(),
    ) {
        Ok(s) => s,
        Err(e @ LlmError::MissingApiKey { .. }) => {
            return Err(anyhow::Error::new(Unavailable(e.to_string())))
        }
        Err(e) => bail!("{e}"),
    };
    let run_dir = l.run_dir.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from("target/agenticcann/bench").join(secs.to_string())
    });
    std::fs::create_dir_all(&run_dir)
        .with_context(|| format!("cannot create the run folder {}", run_dir.display()))?;
    let (model, _) =
        open_resumable(&settings, &run_dir.join("llm")).map_err(|e| anyhow::anyhow!("{e}"))?;
    let env = agenticcann_build::env::Env::process(false);
    let kb = KnowledgeBase::open(&KnowledgeSource::resolve(None, &env))
        .context("cannot load the knowledge base")?;
    let mut agent = AgentConfig::new(settings.model.clone());
    agent.knowledge = l.knowledge.into();
    agent.budgets = Budgets {
        max_steps: l.max_steps,
        tokens: l.token_budget,
        time: l.time_budget.map(Duration::from_secs_f64),
    };
    agent.eval = EvalOptions {
        seed: args.seed,
        ..EvalOptions::default()
    };
    agent.sampling_seed = args.seed;
    agent.run_dir = Some(run_dir.clone());
    let mut search = SearchConfig::new(agent, &run_dir);
    search.generations = l.generations;
    search.token_budget = l.token_budget;
    search.time_budget = l.time_budget.map(Duration::from_secs_f64);
    search.offline_seed = l.with_offline;
    search.tiling_search = l.with_offline;
    let budget = format!(
        "{} generation(s), {} steps{}{}{} per op",
        l.generations,
        l.max_steps,
        l.token_budget
            .map_or(String::new(), |t| format!(", {t} tokens")),
        l.time_budget.map_or(String::new(), |t| format!(", {t} s")),
        if l.with_offline {
            ", offline seed and tiling search included"
        } else {
            ", the model's kernels alone"
        }
    );
    let proposer = format!(
        "llm: evolve with {} at {} ({budget})",
        settings.model, settings.base_url
    );
    let source = bench::KernelSource::Search {
        model: model.as_ref(),
        kb: &kb,
        config: &search,
    };
    let offline = if args.proposer == Proposer::Both {
        let out = args.out.as_ref().map(|o| o.join("offline"));
        if let Some(o) = &out {
            std::fs::create_dir_all(o).with_context(|| format!("cannot create {}", o.display()))?;
        }
        crate::stderr!("the offline proposer first (--proposer both)");
        Some(run_results(args, &suite, &opts, &soc, &command, None, out.as_deref())?.0)
    } else {
        None
    };
    run_one(
        args,
        &suite,
        &opts,
        &soc,
        &command,
        Some((&source, proposer.as_str())),
        offline.as_deref(),
    )
}

/// One pass of the suite with `llm` (the search and its proposer label) or the offline
/// proposer, written to `args.out` / printed; `offline` is an earlier offline pass to
/// compare against (`--proposer both`).
fn run_one(
    args: &BenchArgs,
    suite: &[agenticcann_evolve::suite::SuiteOp],
    opts: &BenchOptions,
    soc: &bench::SocInfo,
    command: &str,
    llm: Option<(&bench::KernelSource<'_>, &str)>,
    offline: Option<&[bench::OpResult]>,
) -> Result<Status> {
    let (mut results, meta) =
        run_results(args, suite, opts, soc, command, llm, args.out.as_deref())?;
    if let Some(off) = offline {
        for r in &mut results {
            r.speedup_offline = off
                .iter()
                .find(|o| o.name == r.name)
                .and_then(|o| bench::speedup_over(o, r));
        }
    }
    let report = bench::summarize(results, meta);
    let ok = report.ops.iter().all(|o| o.counted());
    match &args.out {
        Some(out) => {
            write_all(out, &report)?;
            let mut o = crate::exit::stdout();
            for p in &report.patterns {
                writeln!(
                    o,
                    "{:<14} {:>2} / {:<2} feasible",
                    p.pattern, p.feasible, p.ops
                )?;
            }
            writeln!(o, "wrote {}", out.join("RESULTS.md").display())?;
        }
        None => {
            let mut o = crate::exit::stdout();
            match args.message_format {
                MessageFormat::Human => write!(o, "{}", bench::markdown(&report))?,
                MessageFormat::Json => crate::messages::emit(&mut o, &report)?,
            }
        }
    }
    Ok(Status::of(ok))
}

/// Runs the suite once (partial reports into `out` after every op) and returns the results
/// with the final metadata.
fn run_results(
    args: &BenchArgs,
    suite: &[agenticcann_evolve::suite::SuiteOp],
    opts: &BenchOptions,
    soc: &bench::SocInfo,
    command: &str,
    llm: Option<(&bench::KernelSource<'_>, &str)>,
    out: Option<&Path>,
) -> Result<(Vec<bench::OpResult>, Meta)> {
    let (source, proposer) = match llm {
        Some((s, p)) => (s, p),
        None => (&bench::KernelSource::Offline, "offline"),
    };
    // The source tree's commit as the run starts (not as each report is written).
    let start = Meta::collect(soc, proposer, command, 0.0);
    let meta_at = |wall_s: f64| Meta {
        date_utc: bench::utc_now(),
        wall_s,
        ..start.clone()
    };
    let t0 = Instant::now();
    let n = suite.len();
    let mut done: Vec<bench::OpResult> = Vec::new();
    let mut write_error: Option<anyhow::Error> = None;
    let results = bench::run_with(suite, opts, &soc.profile, source, &mut |r| {
        crate::stderr!(
            "[{}/{n}] {} ({}): {}{}{} — {:.0} s",
            done.len() + 1,
            r.name,
            r.pattern,
            r.status.label(),
            r.speedup_eager
                .map_or(String::new(), |s| format!(", {s:.2}x vs eager")),
            r.speedup_vendor
                .map_or(String::new(), |s| format!(", {s:.2}x vs vendor")),
            r.wall_s
        );
        done.push(r.clone());
        // A partial report after every op, so a stopped run still leaves its table.
        if let (Some(out), true, None) = (out, done.len() < n, &write_error) {
            let mut meta = meta_at(t0.elapsed().as_secs_f64());
            meta.partial = Some(format!(
                "{} of {n} ops done when this was written; the remaining ops ({}) have not run",
                done.len(),
                suite[done.len()..]
                    .iter()
                    .map(|s| s.op.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            let report = bench::summarize(done.clone(), meta);
            if let Err(e) = write_all(out, &report) {
                write_error = Some(e);
            }
        }
    })
    .context("the judge cannot run")?;
    if let Some(e) = write_error {
        return Err(e);
    }
    // The offline pass of `both` is written whole where its partial reports went.
    if let (Some(o), true) = (out, args.out.as_deref() != out) {
        let report = bench::summarize(results.clone(), meta_at(t0.elapsed().as_secs_f64()));
        write_all(o, &report)?;
    }
    Ok((results, meta_at(t0.elapsed().as_secs_f64())))
}
