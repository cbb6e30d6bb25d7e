//! `cargo agenticcann bench`: the benchmark suite through the offline proposer, judged, with
//! the table of [`agenticcann_evolve::bench`] as Markdown, JSON and SVG charts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agenticcann_evolve::bench::{self, BenchOptions, Meta};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::cli::MessageFormat;
use crate::exit::Status;

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

Exit status: 0 when every op that ran is feasible and none is suspect, 1 otherwise (the \
report is written either way), 2 for usage errors (bad --filter, unreadable suite, a judge \
that cannot run, --proposer llm or both: the LLM proposer is not available until `cargo \
agenticcann evolve` lands).";

/// Which proposer generates the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Proposer {
    /// The offline proposer (`agenticcann_build::synth`).
    Offline,
    /// An LLM through `cargo agenticcann evolve` (not available yet).
    Llm,
    /// Both, side by side (not available yet).
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
    if args.proposer != Proposer::Offline {
        bail!(
            "--proposer {}: the LLM proposer is not available in this build (it runs through \
             `cargo agenticcann evolve`, which has not landed yet); run with --proposer offline",
            if args.proposer == Proposer::Llm {
                "llm"
            } else {
                "both"
            }
        );
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
    let mut opts = BenchOptions::default();
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
    // The source tree's commit as the run starts (not as each report is written).
    let start = Meta::collect(&soc, "offline", &command, 0.0);
    let meta_at = |wall_s: f64| Meta {
        date_utc: bench::utc_now(),
        wall_s,
        ..start.clone()
    };
    let t0 = Instant::now();
    let n = suite.len();
    let mut done: Vec<bench::OpResult> = Vec::new();
    let mut write_error: Option<anyhow::Error> = None;
    let results = bench::run(&suite, &opts, &soc.profile, &mut |r| {
        eprintln!(
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
        if let (Some(out), true, None) = (&args.out, done.len() < n, &write_error) {
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
    let report = bench::summarize(results, meta_at(t0.elapsed().as_secs_f64()));
    let ok = report.ops.iter().all(|o| o.counted());
    match &args.out {
        Some(out) => {
            write_all(out, &report)?;
            let stdout = std::io::stdout();
            let mut o = stdout.lock();
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
            let stdout = std::io::stdout();
            let mut o = stdout.lock();
            match args.message_format {
                MessageFormat::Human => write!(o, "{}", bench::markdown(&report))?,
                MessageFormat::Json => crate::messages::emit(&mut o, &report)?,
            }
        }
    }
    Ok(Status::of(ok))
}
