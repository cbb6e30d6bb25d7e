//! `cargo agenticcann synth`: the offline proposer's kernel (or the eager baseline) for one
//! op, judged, with its cost-model times; optionally written to a store folder.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use agenticcann_build::judge::{evaluate, Candidate, EvalOptions, Evaluation, ShapeOrigin};
use agenticcann_build::store::{Digest, Entry, KERNEL_FILE, TILING_FILE};
use agenticcann_build::synth::{
    eager, eager_time, propose, replace_entry, write_entry, SynthOptions,
};
use anyhow::{Context, Result};

use crate::cli::{MessageFormat, SynthArgs};
use crate::select;

fn declared_times(ev: &Evaluation) -> Vec<(BTreeMap<String, u64>, f64)> {
    ev.shapes
        .iter()
        .filter(|s| s.origin == ShapeOrigin::Declared)
        .filter_map(|s| s.profile.as_ref().map(|p| (s.dims.clone(), p.time_us)))
        .collect()
}

fn dims_text(d: &BTreeMap<String, u64>) -> String {
    let v: Vec<String> = d.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if v.is_empty() {
        "(no named dims)".into()
    } else {
        v.join(",")
    }
}

/// Runs `synth`; 0 when accepted, 1 when not.
///
/// # Errors
/// Unreadable manifest, unknown op, an op the proposer cannot lower, or a judge that cannot
/// run (exit 2).
pub fn run(args: &SynthArgs) -> Result<ExitCode> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let op = select::op_of(&spec, &manifest, &args.op)?;
    let options = SynthOptions::default();
    let eval = EvalOptions {
        seed: args.seed,
        ..EvalOptions::default()
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.eager {
        let kernels = eager(op, &options)?;
        let mut total: Vec<(BTreeMap<String, u64>, f64)> = Vec::new();
        let mut all_ok = true;
        let mut evs = Vec::new();
        for k in &kernels {
            let ev = evaluate(&k.op, &k.candidate, &eval).context("the judge cannot run")?;
            let times = declared_times(&ev);
            if total.is_empty() {
                total = op
                    .shapes
                    .iter()
                    .map(|b| (b.iter().map(|(k, v)| (k.clone(), *v as u64)).collect(), 0.0))
                    .collect();
            }
            for (i, t) in total.iter_mut().enumerate() {
                let x = if times.len() == 1 {
                    times.first()
                } else {
                    times.get(i)
                };
                if let Some((_, us)) = x {
                    t.1 += us;
                }
            }
            all_ok &= ev.accepted();
            if ev.accepted() {
                if let Some(dir) = &args.out {
                    write_entry(dir, &k.op, &k.candidate, Some(&ev))?;
                }
            }
            if args.message_format == MessageFormat::Human {
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
            evs.push(ev);
        }
        match args.message_format {
            MessageFormat::Human => {
                writeln!(
                    out,
                    "eager baseline of `{}`: {} kernels",
                    op.name,
                    kernels.len()
                )?;
                for (d, us) in &total {
                    writeln!(out, "  {}: {us:.2} us", dims_text(d))?;
                }
            }
            MessageFormat::Json => writeln!(
                out,
                "{}",
                serde_json::json!({
                    "op": op.name, "key": op.key().to_hex(), "mode": "eager", "accepted": all_ok,
                    "kernels": kernels.len(),
                    "time_us": total.iter().map(|(d, us)| serde_json::json!({"dims": d, "us": us})).collect::<Vec<_>>(),
                    "evaluations": evs,
                })
            )?,
        }
        return Ok(if all_ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    // With --lock, a lock that cannot be updated stops the run before anything is judged.
    if args.lock {
        crate::pin::check(&manifest)?;
    }
    let candidate = propose(op, &options)?;
    let ev = evaluate(op, &candidate, &eval).context("the judge cannot run")?;
    let mut entry_dir = None;
    // Why an accepted kernel was not written (an occupied entry), and the pin's outcome.
    let mut kept: Option<String> = None;
    let mut pinned: Option<Result<std::path::PathBuf>> = None;
    if ev.accepted() {
        if let Some(dir) = &args.out {
            let entry = if args.replace {
                replace_entry(dir, op, &candidate, Some(&ev))?
            } else {
                write_entry(dir, op, &candidate, Some(&ev))?
            };
            if holds(&entry, &candidate) {
                if args.lock {
                    crate::pin::warn_outside_store(&manifest, &spec.kernels, &entry.dir);
                    pinned = Some(crate::pin::pin(
                        &manifest,
                        &op.name,
                        op.key(),
                        entry.manifest_digest,
                    ));
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
    }
    let lock_shown = match &pinned {
        Some(Ok(p)) => Some(p.display().to_string()),
        _ => None,
    };
    let times = declared_times(&ev);
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
    match args.message_format {
        MessageFormat::Human => {
            write!(out, "{}", ev.render())?;
            if let Some(d) = &entry_dir {
                writeln!(out, "wrote {}", d.display())?;
            }
            if let Some(l) = &lock_shown {
                writeln!(out, "pinned `{}` in {l}", op.name)?;
            }
            for (i, (d, us)) in times.iter().enumerate() {
                let mut line = format!("  {}: {us:.2} us", dims_text(d));
                if let Some(e) = &eager_times {
                    if let Some((_, eu)) = e.shapes.get(i) {
                        line.push_str(&format!(
                            ", eager {eu:.2} us over {} kernels: {:.2}x vs eager",
                            e.kernels,
                            eu / us
                        ));
                    }
                }
                writeln!(out, "{line}")?;
            }
        }
        MessageFormat::Json => writeln!(
            out,
            "{}",
            serde_json::json!({
                "op": op.name, "key": op.key().to_hex(), "mode": "fused", "accepted": ev.accepted(),
                "entry": entry_dir.map(|d| d.display().to_string()),
                "lock": lock_shown,
                "time_us": times.iter().map(|(d, us)| serde_json::json!({"dims": d, "us": us})).collect::<Vec<_>>(),
                "eager_time_us": eager_times.as_ref().map(|e| e.shapes.iter().map(|(d, us)| serde_json::json!({"dims": d, "us": us})).collect::<Vec<_>>()),
                "vs_eager": eager_times.as_ref().map(|e| e.shapes.iter().zip(&times).map(|((_, eu), (_, us))| eu / us).collect::<Vec<_>>()),
                "evaluation": ev,
            })
        )?,
    }
    out.flush()?;
    if let Some(Err(e)) = pinned {
        return Err(e.context("the kernel was accepted and written, but not pinned"));
    }
    if let Some(k) = kept {
        eprintln!("error: {k}");
        return Ok(ExitCode::from(1));
    }
    Ok(if ev.accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Whether `entry` holds exactly `candidate`'s kernel and tiling files.
fn holds(entry: &Entry, candidate: &Candidate) -> bool {
    let is = |name: &str, text: &str| {
        entry.manifest.files.get(name) == Some(&Digest::of(text.as_bytes()))
    };
    is(KERNEL_FILE, &candidate.kernel) && is(TILING_FILE, &candidate.tiling)
}
