//! `cargo agenticcann status`, `verify`, `push` and `fetch`: the crate's kernels as the build
//! sees them, re-judged, and moved to and from the remote store (issue 16, "the workflow
//! around it").
//!
//! Every command looks up each declared op's key the way a build does
//! ([`agenticcann_build::store::Store`]: the crate's kernels folder, the user cache, then —
//! for `fetch` only — the remote), so what they print is what `cargo build` would use.

use std::io::Write;
use std::path::{Path, PathBuf};

use agenticcann_build::env;
use agenticcann_build::judge::{evaluate_many, Candidate, EvalOptions};
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::lock::lock_path_of;
use agenticcann_build::store::{Entry, Lock, Source, Store};
use anyhow::{bail, Context, Result};

use crate::cli::{FetchArgs, MessageFormat, PushArgs, StatusArgs, VerifyArgs};
use crate::exit::{Status, Unavailable};
use crate::messages::{emit, StoreOp, VerifyOp};
use crate::select;

/// The store of the crate at `manifest`, configured from the environment as a build's is;
/// with `remote: false` no remote is used (nothing is downloaded).
pub(crate) fn store_of(manifest: &Path, spec: &Spec, remote: bool) -> Result<Store> {
    let lookup = |k: &str| {
        if !remote && k == "AGENTICCANN_REMOTE" {
            return None;
        }
        env::var(k)
    };
    let fallback = manifest
        .parent()
        .unwrap_or(Path::new("."))
        .join("target")
        .join("agenticcann")
        .join("store");
    Store::from_env(spec.kernels_dir(), &fallback, &lookup)
        .context("the store is not usable (AGENTICCANN_REMOTE, AGENTICCANN_CACHE_DIR)")
}

/// Where the entry of `op` is in the local roots (crate kernels, then user cache), without
/// loading or verifying it.
fn local_dir(store: &Store, op: &OpSpec) -> Option<(PathBuf, &'static str)> {
    let hex = op.key().to_hex();
    [
        (store.crate_kernels.join(&hex), "crate"),
        (store.user_cache.join(&hex), "cache"),
    ]
    .into_iter()
    .find(|(d, _)| d.exists())
}

/// The entry a `cargo build` of the crate synthesized for `op` on a store miss (the
/// offline proposer's kernel in an `OUT_DIR` store,
/// `<target>/[<triple>/]<profile>/build/<package>-<hash>/out/agenticcann/synth/<key>/`),
/// the most recently modified when several builds have one. `<target>` is
/// `$CARGO_TARGET_DIR`, else the nearest `target/` folder at or above the crate (the
/// crate's or its workspace's). `None` when no build made one.
fn built_offline(manifest: &Path, package: &str, op: &OpSpec) -> Option<PathBuf> {
    let target = env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            manifest
                .parent()?
                .ancestors()
                .map(|d| d.join("target"))
                .find(|t| t.is_dir())
        })?;
    let hex = op.key().to_hex();
    let prefix = format!("{package}-");
    let subdirs = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect()
    };
    // Profiles directly under target/, and under a target triple's folder.
    let mut profiles = Vec::new();
    for d in subdirs(&target) {
        profiles.extend(subdirs(&d));
        profiles.push(d);
    }
    profiles
        .iter()
        .flat_map(|p| subdirs(&p.join("build")))
        .filter(|b| {
            b.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .map(|b| b.join("out").join("agenticcann").join("synth").join(&hex))
        .filter(|e| e.join(agenticcann_build::store::MANIFEST_FILE).is_file())
        .max_by_key(|e| std::fs::metadata(e).and_then(|m| m.modified()).ok())
}

/// The entry's proposer as the manifest spells it (`hand`, `offline`, `llm`, `replay`).
pub(crate) fn proposer_name(e: &Entry) -> String {
    format!("{:?}", e.manifest.provenance.proposer).to_lowercase()
}

pub(crate) fn source_label(s: &Source) -> String {
    match s {
        Source::CrateKernels => "crate".into(),
        Source::UserCache => "cache".into(),
        Source::Remote(url) => format!("remote {url}"),
        Source::Synthesized => "synthesized".into(),
    }
}

/// The backend a build would choose, as far as the environment says (the runtime crate's
/// build script decides: `AGENTICCANN_BACKEND`, else CANN when a toolkit is found).
fn backend_note() -> String {
    match env::var("AGENTICCANN_BACKEND").as_deref() {
        Some("sim") => "sim (AGENTICCANN_BACKEND=sim)".into(),
        Some("cann") => "cann (AGENTICCANN_BACKEND=cann)".into(),
        other => {
            let toolkit = ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"]
                .into_iter()
                .find_map(|v| env::var(v).map(|p| format!("{v}={p}")));
            let how = other.map_or("auto".to_string(), |v| format!("AGENTICCANN_BACKEND={v}"));
            match toolkit {
                Some(t) => format!("{how}: cann if the toolkit at {t} is complete, else sim"),
                None => format!("{how}: sim unless a CANN toolkit is in a standard place"),
            }
        }
    }
}

/// The lock next to `manifest` (`None` when there is none).
fn lock_of(manifest: &Path) -> Result<Option<Lock>> {
    Lock::read(&lock_path_of(manifest)).context("cannot read agenticcann.lock")
}

/// The lock state of `op` whose entry (if any) has manifest digest `digest`.
fn pin_state(lock: Option<&Lock>, op: &OpSpec, digest: Option<&str>) -> String {
    match lock.and_then(|l| l.get(&op.name)) {
        None => "unpinned".into(),
        Some(p) if p.key != op.key() => format!("stale (pinned key {})", p.key),
        Some(p) => match digest {
            Some(d) if d == p.manifest.to_string() => "pinned".into(),
            Some(_) => "MISMATCH (the entry is not the pinned one)".into(),
            None => "pinned, entry missing".into(),
        },
    }
}

/// `status`: every declared op with its key, where its kernel comes from, its lock state and
/// the backend. Exit 0 when every op has a local entry that loads and matches its pin.
///
/// # Errors
/// The manifest or the lock cannot be read (exit 2).
pub fn status(args: &StatusArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let store = store_of(&manifest, &spec, false)?;
    let lock = lock_of(&manifest)?;
    let pending_root = crate::review::pending_root();
    let mut out = crate::exit::stdout();
    let mut ok = true;
    if args.message_format == MessageFormat::Human {
        writeln!(out, "backend: {}", backend_note())?;
        writeln!(out, "kernels: {}", store.crate_kernels.display())?;
        writeln!(out, "cache:   {}", store.user_cache.display())?;
        if let Some(n) = &store.remote_note {
            writeln!(out, "remote:  {n}")?;
        } else if let Ok(u) = env::var("AGENTICCANN_REMOTE").ok_or(()) {
            writeln!(out, "remote:  {u} (not asked; `fetch` uses it)")?;
        }
    }
    for op in &spec.ops {
        let key = op.key();
        // No store has it: the build's offline proposer may have made one in OUT_DIR (what
        // `cargo build` links then), shown as `synthesized`; it is not in the store, so the
        // op is still reported as missing one.
        let found = local_dir(&store, op)
            .or_else(|| built_offline(&manifest, &spec.package, op).map(|d| (d, "synthesized")));
        let (source, problem, entry) = match found {
            None => ("none".to_string(), None, None),
            Some((dir, src)) => match Entry::load_with_key(&dir, &key) {
                Ok(e) => (src.to_string(), None, Some(e)),
                Err(e) => (src.to_string(), Some(e.to_string()), None),
            },
        };
        let digest = entry.as_ref().map(|e| e.manifest_digest.to_string());
        let pin = pin_state(lock.as_ref(), op, digest.as_deref());
        let op_ok = entry.is_some()
            && source != "synthesized"
            && problem.is_none()
            && !pin.starts_with("MISMATCH");
        let pending = pending_root
            .as_deref()
            .and_then(|r| crate::review::pending_note(r, op, entry.as_ref()));
        ok &= op_ok;
        let msg = StoreOp {
            op: op.name.clone(),
            key: key.to_string(),
            source,
            entry: entry.as_ref().map(|e| e.dir.display().to_string()),
            proposer: entry.as_ref().map(proposer_name),
            lock: pin,
            problem,
            action: None,
            pending,
        };
        match args.message_format {
            MessageFormat::Json => emit(&mut out, &msg)?,
            MessageFormat::Human => {
                let from = match &msg.proposer {
                    Some(p) => format!("{} ({p})", msg.source),
                    None => msg.source.clone(),
                };
                write!(
                    out,
                    "{:<28} {}  {:<16} {}",
                    msg.op,
                    &msg.key[..16],
                    from,
                    msg.lock
                )?;
                if let Some(p) = &msg.pending {
                    write!(out, "  {}", crate::review::pending_text(p))?;
                }
                if let Some(p) = &msg.problem {
                    write!(out, "  error: {p}")?;
                }
                writeln!(out)?;
            }
        }
    }
    if args.message_format == MessageFormat::Human && !ok {
        writeln!(
            out,
            "some ops have no usable kernel in the store: `cargo build` synthesizes them with the offline proposer into OUT_DIR (`synthesized` above: what the last build linked) or fetches them; `cargo agenticcann synth --op OP --out kernels --lock` keeps one in the crate (see also `fetch`, `evolve`)"
        )?;
    }
    Ok(Status::of(ok))
}

/// An op's entry as `verify` loads it: the candidate and its entry, or why not.
type Loaded = Result<(Candidate, Entry), String>;

/// `verify`: re-judge the entry of every locked op (every op with `--all`); exit 1 when any
/// is not accepted or is missing.
///
/// # Errors
/// The manifest or lock cannot be read, `--op` names no op, or the judge cannot run (exit 2).
pub fn verify(args: &VerifyArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let store = store_of(&manifest, &spec, false)?;
    let lock = lock_of(&manifest)?;
    let ops: Vec<&OpSpec> = if !args.op.is_empty() {
        args.op
            .iter()
            .map(|n| spec.require_op(n))
            .collect::<Result<_, _>>()?
    } else if args.all {
        spec.ops.iter().collect()
    } else {
        let Some(lock) = &lock else {
            bail!(
                "{} has no agenticcann.lock: nothing is pinned (use --all to verify every op's entry, or --op NAME)",
                manifest.display()
            );
        };
        spec.ops
            .iter()
            .filter(|o| lock.get(&o.name).is_some())
            .collect()
    };
    let mut options = EvalOptions {
        seed: args.seed,
        ..EvalOptions::default()
    };
    if let Some(j) = args.jobs {
        options.jobs = j;
    }
    let loaded: Vec<(&OpSpec, Loaded)> = ops
        .iter()
        .map(|op| {
            let r = match local_dir(&store, op) {
                None => Err(format!(
                    "no entry for key {} in the crate or the user cache",
                    op.key()
                )),
                Some((dir, _)) => Candidate::load(&dir, op).map_err(|e| e.to_string()),
            };
            (*op, r)
        })
        .collect();
    let items: Vec<(&OpSpec, &Candidate)> = loaded
        .iter()
        .filter_map(|(op, r)| r.as_ref().ok().map(|(c, _)| (*op, c)))
        .collect();
    let mut evaluations = evaluate_many(&items, &options).into_iter();
    let mut out = crate::exit::stdout();
    let mut ok = true;
    for (op, r) in &loaded {
        let digest = r.as_ref().ok().map(|(_, e)| e.manifest_digest.to_string());
        let pin = pin_state(lock.as_ref(), op, digest.as_deref());
        let (accepted, problem, evaluation) = match r {
            Err(e) => (false, Some(e.clone()), None),
            Ok(_) => {
                let ev = evaluations
                    .next()
                    .expect("one evaluation per loaded entry")
                    .context("the judge cannot run")?;
                (ev.accepted(), None, Some(ev))
            }
        };
        let accepted = accepted && !pin.starts_with("MISMATCH");
        ok &= accepted;
        let msg = VerifyOp {
            op: op.name.clone(),
            key: op.key().to_string(),
            lock: pin,
            accepted,
            problem,
            evaluation: evaluation.as_ref(),
        };
        match args.message_format {
            MessageFormat::Json => emit(&mut out, &msg)?,
            MessageFormat::Human => {
                let verdict = if accepted { "accepted" } else { "NOT ACCEPTED" };
                writeln!(out, "{}: {verdict} ({})", msg.op, msg.lock)?;
                if let Some(p) = &msg.problem {
                    writeln!(out, "  error: {p}")?;
                }
                if let Some(ev) = &evaluation {
                    if !ev.accepted() || args.verbose {
                        write!(out, "{}", ev.render())?;
                    }
                }
            }
        }
    }
    Ok(Status::of(ok))
}

/// The remote of `store`, or an [`Unavailable`] error naming why there is none.
fn remote_of(store: &Store) -> Result<&agenticcann_build::store::Remote> {
    store.remote.as_ref().ok_or_else(|| {
        anyhow::Error::new(Unavailable(format!(
            "no remote store: {} (set AGENTICCANN_REMOTE to the cache's URL)",
            store.remote_note.as_deref().unwrap_or("not configured")
        )))
    })
}

/// `push`: upload the local entry of every op (or `--op`s) to the remote store.
///
/// # Errors
/// No remote is configured (exit 3), the manifest cannot be read (exit 2).
pub fn push(args: &PushArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let store = store_of(&manifest, &spec, true)?;
    let remote = remote_of(&store)?;
    let ops = selected(&spec, &args.op)?;
    let mut out = crate::exit::stdout();
    let mut ok = true;
    for op in ops {
        let key = op.key();
        let (source, entry, problem, action) = match local_dir(&store, op) {
            None => (
                "none".into(),
                None,
                Some("no local entry to push".to_string()),
                None,
            ),
            Some((dir, src)) => match Entry::load_with_key(&dir, &key) {
                Err(e) => (src.to_string(), None, Some(e.to_string()), None),
                Ok(e) => match remote.push(&e) {
                    Ok(()) => (src.to_string(), Some(e), None, Some("pushed".to_string())),
                    Err(err) => {
                        // A network failure is the network's, not the entry's.
                        (src.to_string(), Some(e), Some(err.to_string()), None)
                    }
                },
            },
        };
        ok &= problem.is_none();
        let msg = StoreOp {
            op: op.name.clone(),
            key: key.to_string(),
            source,
            entry: entry.as_ref().map(|e| e.dir.display().to_string()),
            proposer: entry.as_ref().map(proposer_name),
            lock: String::new(),
            problem,
            action,
            pending: None,
        };
        print_transfer(&mut out, args.message_format, &msg, remote.url())?;
    }
    Ok(Status::of(ok))
}

/// `fetch`: download the entry of every op (or `--op`s) that has no local one from the
/// remote store into the user cache (verified as a build verifies it).
///
/// # Errors
/// No remote is configured (exit 3), the manifest cannot be read (exit 2).
pub fn fetch(args: &FetchArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let store = store_of(&manifest, &spec, true)?;
    let url = remote_of(&store)?.url().to_string();
    let ops = selected(&spec, &args.op)?;
    let mut out = crate::exit::stdout();
    let mut ok = true;
    for op in ops {
        let key = op.key();
        let (source, entry, problem, action) = match store.lookup(&key) {
            Ok(Some(found)) => {
                let action = match &found.source {
                    Source::Remote(_) => "fetched",
                    _ => "present",
                };
                (
                    source_label(&found.source),
                    Some(found.entry),
                    None,
                    Some(action.to_string()),
                )
            }
            Ok(None) => (
                "none".into(),
                None,
                Some("not in the remote store".into()),
                None,
            ),
            Err(e) => ("none".into(), None, Some(e.to_string()), None),
        };
        ok &= problem.is_none();
        let msg = StoreOp {
            op: op.name.clone(),
            key: key.to_string(),
            source,
            entry: entry.as_ref().map(|e| e.dir.display().to_string()),
            proposer: entry.as_ref().map(proposer_name),
            lock: String::new(),
            problem,
            action,
            pending: None,
        };
        print_transfer(&mut out, args.message_format, &msg, &url)?;
    }
    Ok(Status::of(ok))
}

pub(crate) fn selected<'s>(spec: &'s Spec, names: &[String]) -> Result<Vec<&'s OpSpec>> {
    if names.is_empty() {
        return Ok(spec.ops.iter().collect());
    }
    Ok(names
        .iter()
        .map(|n| spec.require_op(n))
        .collect::<Result<_, _>>()?)
}

fn print_transfer(
    out: &mut impl Write,
    format: MessageFormat,
    msg: &StoreOp,
    url: &str,
) -> Result<()> {
    match format {
        MessageFormat::Json => emit(out, msg)?,
        MessageFormat::Human => match (&msg.action, &msg.problem) {
            (Some(a), _) => writeln!(out, "{}: {a} ({} {url})", msg.op, &msg.key[..16])?,
            (None, Some(p)) => writeln!(out, "{}: error: {p}", msg.op)?,
            (None, None) => writeln!(out, "{}: nothing to do", msg.op)?,
        },
    }
    Ok(())
}
