//! `cargo agenticcann synth`: the offline proposer's kernel (or the eager baseline) for one
//! op, judged, with its cost-model times; optionally written to a store folder
//! ([`crate::messages::SynthFused`], [`crate::messages::SynthEager`]).

use std::io::Write;
use std::path::PathBuf;

use agenticcann_build::judge::{evaluate, EvalOptions};
use agenticcann_build::store::{self, lock, KERNEL_FILE};
use agenticcann_build::synth::{eager_baseline, eager_time, SynthOptions, Synthesized};
use anyhow::{Context, Result};

use crate::cli::{MessageFormat, SynthArgs};
use crate::exit::Status;
use crate::messages::{emit, ShapeTime, SynthEager, SynthFused, SynthMode};
use crate::select;
use agenticcann_evolve::pending::dims_text;

/// Runs `synth`: [`Status::Ok`] when the kernel (every eager kernel) is accepted and, with
/// `--out`, written.
///
/// # Errors
/// Unreadable manifest, unknown op, an op the proposer cannot lower, or a judge that cannot
/// run (exit 2).
pub fn run(args: &SynthArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let op = spec.require_op(&args.op)?;
    let options = SynthOptions::default();
    let eval = EvalOptions {
        seed: args.seed,
        ..EvalOptions::default()
    };
    if args.eager {
        return run_eager(args, &manifest, &spec.kernels, op, &options, &eval);
    }
    // With --lock, a lock that cannot be updated stops the run before anything is judged.
    if args.lock {
        lock::check_pinnable(&manifest).context("cannot update the lock")?;
    }
    // The fastest accepted variant (issue 17); when none is accepted, the default
    // proposal with the judge's report.
    let s = match agenticcann_build::synth::search(op, &options, &eval) {
        Ok(found) => found.best,
        Err(agenticcann_build::synth::SynthError::Rejected { .. }) => {
            let candidate = agenticcann_build::synth::propose(op, &options)?;
            let evaluation = evaluate(op, &candidate, &eval).context("the judge cannot run")?;
            Synthesized {
                candidate,
                evaluation,
            }
        }
        Err(agenticcann_build::synth::SynthError::Judge(e)) => {
            return Err(anyhow::Error::new(e).context("the judge cannot run"))
        }
        Err(e) => return Err(e.into()),
    };
    let ev = &s.evaluation;
    let mut entry_dir: Option<PathBuf> = None;
    // Why an accepted kernel was not written (an occupied entry), and the pin's outcome.
    let mut kept: Option<String> = None;
    let mut pinned: Option<Result<PathBuf>> = None;
    if let (true, Some(dir)) = (ev.accepted(), &args.out) {
        let entry = if args.replace {
            store::replace_entry(dir, &s.draft(op))?
        } else {
            store::write_entry(dir, &s.draft(op))?
        };
        if entry.holds(&s.candidate) {
            wake_build(&manifest, &spec.kernels, &entry.dir)?;
            if args.lock {
                crate::judge::warn_outside_store(&manifest, &spec.kernels, &entry.dir);
                pinned = Some(
                    lock::pin(&manifest, &op.name, op.key(), entry.manifest_digest)
                        .context("cannot update the lock"),
                );
            }
            entry_dir = Some(entry.dir);
        } else {
            kept = Some(format!(
                "{} already holds a different kernel for key {} (kernel.cpp sha256 {}): \
                 nothing was written{}; pass --replace to replace it, or judge the one in \
                 place with `cargo agenticcann judge --op {} {}`",
                entry.dir.display(),
                op.key(),
                entry
                    .manifest
                    .files
                    .get(KERNEL_FILE)
                    .map(|d| d.to_hex())
                    .unwrap_or_default(),
                if args.lock { " or pinned" } else { "" },
                op.name,
                entry.dir.display()
            ));
        }
    }
    let lock_shown = match &pinned {
        Some(Ok(p)) => Some(p.display().to_string()),
        _ => None,
    };
    let times = ShapeTime::declared(ev);
    let eager_times = if ev.accepted() && !args.no_eager_ratio {
        let fast = EvalOptions {
            held_out: false,
            stress: false,
            ..eval.clone()
        };
        Some(eager_time(op, &options, &fast)?)
    } else {
        None
    };
    let mut out = crate::exit::stdout();
    match args.message_format {
        MessageFormat::Human => {
            write!(out, "{}", ev.render())?;
            if let Some(d) = &entry_dir {
                writeln!(out, "wrote {}", d.display())?;
            }
            if let Some(l) = &lock_shown {
                writeln!(out, "pinned `{}` in {l}", op.name)?;
            }
            for (i, t) in times.iter().enumerate() {
                let mut line = format!("  {}: {:.2} us", dims_text(&t.dims), t.us);
                if let Some(e) = &eager_times {
                    if let Some((_, eu)) = e.shapes.get(i) {
                        line.push_str(&format!(
                            ", eager {eu:.2} us over {} kernels: {:.2}x vs eager",
                            e.kernels,
                            eu / t.us
                        ));
                    }
                }
                writeln!(out, "{line}")?;
            }
        }
        MessageFormat::Json => emit(
            &mut out,
            &SynthFused {
                op: op.name.clone(),
                key: op.key().to_hex(),
                mode: SynthMode::Fused,
                accepted: ev.accepted(),
                entry: entry_dir.map(|d| d.display().to_string()),
                lock: lock_shown,
                eager_time_us: eager_times
                    .as_ref()
                    .map(|e| ShapeTime::from_pairs(&e.shapes)),
                vs_eager: eager_times.as_ref().map(|e| {
                    e.shapes
                        .iter()
                        .zip(&times)
                        .map(|((_, eu), t)| eu / t.us)
                        .collect()
                }),
                time_us: times,
                evaluation: ev,
            },
        )?,
    }
    out.flush()?;
    if let Some(Err(e)) = pinned {
        return Err(e.context("the kernel was accepted and written, but not pinned"));
    }
    if let Some(k) = kept {
        crate::stderr!("error: {k}");
        return Ok(Status::Rejected);
    }
    Ok(Status::of(ev.accepted()))
}

/// After an entry was written into the crate's kernels folder, bumps the crate's Cargo.toml
/// ([`store::touch_manifest`]) so the next build re-runs its build script and finds the
/// entry even when the folder did not exist at the last build (a build registers the
/// folder only when it exists). An entry written elsewhere changes nothing.
fn wake_build(
    manifest: &std::path::Path,
    kernels: &std::path::Path,
    entry: &std::path::Path,
) -> Result<()> {
    if agenticcann_build::store::lock::in_crate_kernels(manifest, kernels, entry) {
        store::touch_manifest(manifest)?;
    }
    Ok(())
}

/// `synth --eager`: every primitive kernel judged ([`eager_baseline`]), the accepted ones
/// written with `--out`.
fn run_eager(
    args: &SynthArgs,
    manifest: &std::path::Path,
    kernels: &std::path::Path,
    op: &agenticcann_build::spec::OpSpec,
    options: &SynthOptions,
    eval: &EvalOptions,
) -> Result<Status> {
    let baseline = eager_baseline(op, options, eval).context("the judge cannot run")?;
    if let Some(dir) = &args.out {
        for draft in baseline
            .drafts()
            .filter(|d| d.evaluation.is_some_and(|e| e.accepted()))
        {
            let entry = store::write_entry(dir, &draft)?;
            wake_build(manifest, kernels, &entry.dir)?;
        }
    }
    let mut out = crate::exit::stdout();
    match args.message_format {
        MessageFormat::Human => {
            for (k, ev) in &baseline.kernels {
                writeln!(
                    out,
                    "{} = {}: {}",
                    k.op.name,
                    k.op.reference.to_canonical_source(),
                    if ev.accepted() {
                        "accepted"
                    } else {
                        "NOT accepted"
                    }
                )?;
                if !ev.accepted() {
                    write!(out, "{}", ev.render())?;
                }
            }
            writeln!(
                out,
                "eager baseline of `{}`: {} kernels",
                op.name,
                baseline.kernels.len()
            )?;
            for (d, us) in &baseline.time_us {
                writeln!(out, "  {}: {us:.2} us", dims_text(d))?;
            }
        }
        MessageFormat::Json => emit(
            &mut out,
            &SynthEager {
                op: op.name.clone(),
                key: op.key().to_hex(),
                mode: SynthMode::Eager,
                accepted: baseline.accepted(),
                kernels: baseline.kernels.len(),
                time_us: ShapeTime::from_pairs(&baseline.time_us),
                evaluations: baseline.kernels.iter().map(|(_, ev)| ev).collect(),
            },
        )?,
    }
    out.flush()?;
    Ok(Status::of(baseline.accepted()))
}
