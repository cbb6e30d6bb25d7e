//! `cargo agenticcann judge`: the judge on entry folders, for people and machines
//! ([`crate::messages::JudgeEntry`]).

use std::io::Write;
use std::time::Duration;

use agenticcann_build::judge::{evaluate_many, Candidate, EvalOptions};
use agenticcann_build::store::{lock, Entry};
use anyhow::{bail, Context, Result};

use crate::cli::{JudgeArgs, MessageFormat};
use crate::exit::Status;
use crate::messages::{emit, JudgeEntry};
use crate::select;

/// Runs `judge`: [`Status::Ok`] when every candidate is accepted.
///
/// # Errors
/// The manifest cannot be read or has no op of that name; no folder given holds an entry
/// (`manifest.toml`); the judge cannot run (exit 2).
pub fn run(args: &JudgeArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let op = spec.require_op(&args.op)?;
    if args.lock && args.dirs.len() != 1 {
        bail!(
            "--lock pins one entry, but {} folders were given",
            args.dirs.len()
        );
    }
    if args.update {
        check_updatable(&args.dirs, op)?;
    }
    // A lock that cannot be updated stops the run before the judge does any work.
    if args.lock {
        lock::check_pinnable(&manifest).context("cannot update the lock")?;
    }
    let mut options = EvalOptions {
        seed: args.seed,
        keep_scratch: args.keep_scratch,
        derive_reference: !args.no_reference,
        ..EvalOptions::default()
    };
    options.run_limits.wall = Duration::from_secs(args.timeout);
    if let Some(j) = args.jobs {
        options.jobs = j;
    }
    // Entries that cannot be read are reported in place; the others are judged together.
    // With --update the files are taken as they are now (digests not checked); the entry is
    // rewritten only once they are accepted.
    let loaded: Vec<Result<(Candidate, Option<Entry>), String>> = args
        .dirs
        .iter()
        .map(|d| {
            if args.update {
                Candidate::load_edited(d, op).map(|c| (c, None))
            } else {
                Candidate::load(d, op).map(|(c, e)| (c, Some(e)))
            }
            .map_err(|e| e.to_string())
        })
        .collect();
    let items: Vec<_> = loaded
        .iter()
        .filter_map(|c| c.as_ref().ok())
        .map(|(c, _)| (op, c))
        .collect();
    let mut evaluations = evaluate_many(&items, &options).into_iter();
    let mut out = crate::exit::stdout();
    let mut accepted = 0usize;
    let mut pinned = None;
    for (dir, c) in args.dirs.iter().zip(&loaded) {
        let dir_text = dir.display().to_string();
        let result = match c {
            Err(e) => Err(e.clone()),
            Ok(_) => match evaluations.next().expect("one evaluation per candidate") {
                Ok(ev) => Ok(ev),
                // The judge itself cannot run: no verdict for anyone.
                Err(e) => return Err(anyhow::Error::new(e).context("the judge cannot run")),
            },
        };
        match args.message_format {
            MessageFormat::Human => match &result {
                Ok(ev) => {
                    writeln!(out, "{dir_text}:")?;
                    write!(out, "{}", ev.render())?;
                }
                Err(e) => writeln!(out, "{dir_text}: error: {e}")?,
            },
            MessageFormat::Json => emit(
                &mut out,
                &JudgeEntry {
                    dir: dir_text,
                    evaluation: result.as_ref().ok(),
                    error: result.as_ref().err().cloned(),
                },
            )?,
        }
        if let (Ok(ev), Ok((candidate, entry))) = (&result, c) {
            if ev.accepted() {
                accepted += 1;
                let entry = match entry {
                    Some(e) => e.clone(),
                    None => {
                        let e = rewrite(dir, op, candidate, ev)?;
                        crate::stderr!(
                            "rewrote {} (manifest sha256 {})",
                            e.dir.display(),
                            e.manifest_digest
                        );
                        e
                    }
                };
                if args.lock {
                    // The manifest judged (loaded and digest-checked before the run, or just
                    // rewritten from what was judged) is the one pinned.
                    pinned = Some(entry);
                }
            }
        }
    }
    out.flush()?;
    let n = args.dirs.len();
    // Not one folder given is an entry at all (a missing folder, a typo: no manifest.toml):
    // nothing was judged, so this is a usage error (exit 2), not a verdict. An entry that is
    // there but refused (another op's key, files that do not match their digests) is a
    // candidate that is not accepted (exit 1), as are unreadable folders beside judged ones.
    if items.is_empty() && args.dirs.iter().all(|d| !d.join("manifest.toml").is_file()) {
        bail!(
            "{} read as an entry of `{}` (see above): nothing was judged",
            if n == 1 {
                "the folder given cannot be".to_string()
            } else {
                format!("none of the {n} folders given can be")
            },
            op.name
        );
    }
    crate::stderr!(
        "judged {n} candidate{} for `{}`: {accepted} accepted, {} not",
        if n == 1 { "" } else { "s" },
        op.name,
        n - accepted
    );
    if let Some(entry) = pinned {
        warn_outside_store(&manifest, &spec.kernels, &entry.dir);
        let lock = lock::pin(&manifest, &op.name, op.key(), entry.manifest_digest)
            .context("cannot update the lock")?;
        crate::stderr!("pinned `{}` in {}", op.name, lock.display());
    } else if args.lock {
        crate::stderr!(
            "not accepted: {} left unchanged",
            lock::lock_path_of(&manifest).display()
        );
    }
    if args.update && accepted < n {
        crate::stderr!("not accepted: the entry was not rewritten");
    }
    Ok(Status::of(accepted == n))
}

/// `--update`: exactly one folder, named by the op's key (the entry is rewritten in place,
/// under the folder it is in).
fn check_updatable(
    dirs: &[std::path::PathBuf],
    op: &agenticcann_build::spec::OpSpec,
) -> Result<()> {
    let [dir] = dirs else {
        bail!(
            "--update rewrites one entry, but {} folders were given",
            dirs.len()
        );
    };
    let hex = op.key().to_hex();
    if dir.file_name().and_then(|n| n.to_str()) != Some(hex.as_str()) {
        bail!(
            "--update rewrites an entry folder named by the op's key ({hex}), but {} is not",
            dir.display()
        );
    }
    Ok(())
}

/// Rewrites the entry folder `dir` (named by the op's key) from the accepted `candidate`:
/// new digests, the evaluation's records, provenance `hand` (a person changed it).
fn rewrite(
    dir: &std::path::Path,
    op: &agenticcann_build::spec::OpSpec,
    candidate: &Candidate,
    ev: &agenticcann_build::judge::Evaluation,
) -> Result<Entry> {
    let root = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let draft = agenticcann_build::store::Draft {
        op,
        candidate,
        provenance: agenticcann_build::store::Provenance::new(
            agenticcann_build::store::Proposer::Hand,
        ),
        evaluation: Some(ev),
    };
    agenticcann_build::store::replace_entry(root, &draft)
        .with_context(|| format!("cannot rewrite {}", dir.display()))
}

/// Prints a warning when the pinned `entry` is not in the crate's kernels folder, where the
/// build looks first ([`lock::in_crate_kernels`]).
pub fn warn_outside_store(
    manifest: &std::path::Path,
    kernels: &std::path::Path,
    entry: &std::path::Path,
) {
    if !lock::in_crate_kernels(manifest, kernels, entry) {
        let store = manifest
            .parent()
            .unwrap_or_else(|| std::path::Path::new("."))
            .join(kernels);
        crate::stderr!(
            "warning: {} is not in the crate's kernels folder {}; the build looks there, in the \
             user cache and in the remote, so it will not find this entry unless you copy it there",
            entry.display(),
            store.display()
        );
    }
}
