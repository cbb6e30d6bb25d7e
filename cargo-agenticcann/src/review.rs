//! `cargo agenticcann review`, `accept` and `reject`: the pending results `evolve` leaves in
//! the user cache ([`agenticcann_evolve::pending`]), shown against the kernel a build uses
//! now, written into the crate (`kernels/<key>/`, `agenticcann.lock`) or dropped; and the
//! `pending` column of `status`.

use std::io::Write;
use std::path::{Path, PathBuf};

use agenticcann_build::env;
use agenticcann_build::key::Key;
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::{Entry, Store};
use agenticcann_evolve::pending::{self, Comparison, FileDiff, Pending};
use anyhow::{Context, Result};

use crate::cli::{AcceptArgs, DecideArgs, MessageFormat, ReviewArgs};
use crate::exit::Status;
use crate::messages::{emit, DecideOp, PendingNote, ReviewCurrent, ReviewOp};
use crate::select;
use crate::store::{proposer_name, selected, source_label, store_of};

/// The pending root from the environment (`None`: no user cache folder is known).
pub fn pending_root() -> Option<PathBuf> {
    pending::pending_root(&env::var)
}

fn require_root() -> Result<PathBuf> {
    pending_root().context(
        "no user cache folder to find pending results in: set AGENTICCANN_CACHE_DIR (or HOME)",
    )
}

/// `status`'s note on the pending result of `op` in `root`, compared with `current` (the
/// entry the build uses now); `None` when there is none.
pub fn pending_note(root: &Path, op: &OpSpec, current: Option<&Entry>) -> Option<PendingNote> {
    let dir = root.join(op.key().to_hex());
    match pending::find(root, &op.key().to_hex()) {
        Ok(None) => None,
        Err(e) => Some(PendingNote {
            dir: dir.display().to_string(),
            generation: None,
            speedup: None,
            basis: None,
            problem: Some(e.to_string()),
        }),
        Ok(Some(p)) => {
            let c = pending::compare(current, &p);
            let (speedup, basis) = match (c.vs_current, c.vs_baseline) {
                (Some(s), _) => (Some(s), Some("current".to_string())),
                (None, Some(s)) => (Some(s), Some("offline seed".to_string())),
                (None, None) => (None, None),
            };
            Some(PendingNote {
                dir: p.dir.display().to_string(),
                generation: Some(p.meta.generation),
                speedup,
                basis,
                problem: None,
            })
        }
    }
}

/// The `pending` column of `status` for people.
pub fn pending_text(n: &PendingNote) -> String {
    match (&n.problem, n.speedup, &n.basis) {
        (Some(_), _, _) => "pending: BROKEN (see `cargo agenticcann review`)".into(),
        (None, Some(s), Some(b)) => format!("pending {s:.2}x vs {b}"),
        _ => "pending (no times to compare)".into(),
    }
}

/// The ops of `names` (all declared ops when empty) and whether they were named.
fn chosen<'s>(spec: &'s Spec, names: &[String]) -> Result<(Vec<&'s OpSpec>, bool)> {
    let mut ops = selected(spec, names)?;
    let mut seen = Vec::new();
    ops.retain(|o| {
        let new = !seen.contains(&o.name);
        seen.push(o.name.clone());
        new
    });
    Ok((ops, !names.is_empty()))
}

/// `review`: each op's pending result against the current kernel.
///
/// # Errors
/// The manifest cannot be read, an OP is not declared, no user cache folder is known, or the
/// store is not usable (exit 2).
pub fn review(args: &ReviewArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let (ops, named) = chosen(&spec, &args.ops)?;
    let store = store_of(&manifest, &spec, false)?;
    let root = require_root()?;
    let mut out = crate::exit::stdout();
    let mut ok = true;
    for op in ops {
        let key = op.key();
        let mut msg = ReviewOp {
            op: op.name.clone(),
            key: key.to_hex(),
            pending: None,
            problem: None,
            current: None,
            diff: Vec::new(),
            comparison: None,
            verification: None,
            provenance: None,
            meta: None,
        };
        let found = pending::find(&root, &key.to_hex());
        let p = match &found {
            Ok(Some(p)) => p,
            Ok(None) => {
                ok &= !named;
                match args.message_format {
                    MessageFormat::Json => emit(&mut out, &msg)?,
                    MessageFormat::Human => writeln!(out, "{}: no pending result", op.name)?,
                }
                continue;
            }
            Err(e) => {
                ok = false;
                msg.problem = Some(e.to_string());
                match args.message_format {
                    MessageFormat::Json => emit(&mut out, &msg)?,
                    MessageFormat::Human => {
                        writeln!(out, "{}: the pending result cannot be read: {e}", op.name)?
                    }
                }
                continue;
            }
        };
        let (current_entry, current) = current_of(&store, &key);
        msg.pending = Some(p.dir.display().to_string());
        msg.current = Some(current);
        match pending::diff(current_entry.as_ref(), &p.entry) {
            Ok(d) => msg.diff = d,
            Err(e) => {
                ok = false;
                msg.problem = Some(e.to_string());
            }
        }
        msg.comparison = Some(pending::compare(current_entry.as_ref(), p));
        msg.verification = p.entry.manifest.verification.as_ref();
        msg.provenance = Some(&p.entry.manifest.provenance);
        msg.meta = Some(&p.meta);
        match args.message_format {
            MessageFormat::Json => emit(&mut out, &msg)?,
            MessageFormat::Human => render(&mut out, &msg, p, &decide_hint(&args.manifest))?,
        }
    }
    Ok(Status::of(ok))
}

/// The entry a build would use for `key` (crate kernels, then user cache; no remote).
fn current_of(store: &Store, key: &Key) -> (Option<Entry>, ReviewCurrent) {
    match store.lookup(key) {
        Ok(Some(f)) => {
            let c = ReviewCurrent {
                source: source_label(&f.source),
                entry: Some(f.entry.dir.display().to_string()),
                proposer: Some(proposer_name(&f.entry)),
                problem: None,
            };
            (Some(f.entry), c)
        }
        Ok(None) => (
            None,
            ReviewCurrent {
                source: "none".into(),
                entry: None,
                proposer: None,
                problem: None,
            },
        ),
        Err(e) => (
            None,
            ReviewCurrent {
                source: "none".into(),
                entry: None,
                proposer: None,
                problem: Some(e.to_string()),
            },
        ),
    }
}

fn times(us: Option<f64>) -> String {
    us.map_or("-".into(), |t| format!("{t:.2} us"))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or(String::new(), |r| format!(" ({r:.2}x)"))
}

/// ` --manifest-path M` when the review named a manifest, so the printed accept / reject
/// commands act on the same crate from any folder.
fn decide_hint(m: &clap_cargo::Manifest) -> String {
    match &m.manifest_path {
        Some(p) => format!(" --manifest-path {}", p.display()),
        None => String::new(),
    }
}

fn render(out: &mut impl Write, msg: &ReviewOp<'_>, p: &Pending, hint: &str) -> Result<()> {
    let m = &p.meta;
    writeln!(out, "== {} (key {}) ==", msg.op, &msg.key[..16])?;
    writeln!(
        out,
        "pending: {} (generation {}, created {}, run {})",
        p.dir.display(),
        m.generation,
        m.created,
        m.run_dir
    )?;
    if let Some(c) = &msg.current {
        match (&c.entry, &c.problem) {
            (Some(e), _) => writeln!(
                out,
                "current: {} ({}) {e}",
                c.source,
                c.proposer.as_deref().unwrap_or("?")
            )?,
            (None, Some(problem)) => writeln!(out, "current: none usable: {problem}")?,
            (None, None) => writeln!(out, "current: none")?,
        }
    }
    if let Some(problem) = &msg.problem {
        writeln!(out, "error: {problem}")?;
    }
    for FileDiff { file, unified } in &msg.diff {
        if unified.is_empty() {
            writeln!(out, "{file}: identical")?;
        } else {
            write!(out, "{unified}")?;
            if !unified.ends_with('\n') {
                writeln!(out)?;
            }
        }
    }
    match msg.verification {
        Some(v) => {
            let seed = v.seed.map_or(String::new(), |s| format!(", seed {s}"));
            writeln!(
                out,
                "verification: {} {}{seed}, {} shape(s)",
                v.backend,
                v.soc,
                v.shapes.len()
            )?;
            for s in &v.shapes {
                writeln!(
                    out,
                    "  {:<24} max abs err {}  max rel err {}",
                    pending::dims_text(&s.dims),
                    s.max_abs_err.map_or("-".into(), |e| format!("{e:.2e}")),
                    s.max_rel_err.map_or("-".into(), |e| format!("{e:.2e}"))
                )?;
            }
        }
        None => writeln!(out, "verification: no record")?,
    }
    if let Some(c) = &msg.comparison {
        render_profile(out, p, c)?;
    }
    let prov = &p.entry.manifest.provenance;
    let proposer = format!("{:?}", prov.proposer).to_lowercase();
    let mut line = format!("provenance: {proposer}");
    if let Some(model) = prov.model.as_ref().or(m.model.as_ref()) {
        line.push_str(&format!(", model {model}"));
    }
    line.push_str(&format!(
        ", generation {}",
        prov.generation.unwrap_or(m.generation)
    ));
    if let Some(parent) = prov.parent.as_ref().or(m.parent.as_ref()) {
        line.push_str(&format!(", parent {parent}"));
    }
    if let Some(t) = &prov.tokens {
        line.push_str(&format!(
            ", tokens init {} mutation {} repair {} tuning {}",
            t.init, t.mutation, t.repair, t.tuning
        ));
    }
    writeln!(out, "{line}")?;
    if !prov.knowledge.is_empty() {
        let chunks: Vec<String> = prov
            .knowledge
            .iter()
            .map(|k| format!("{} ({})", k.id, k.digest.get(..12).unwrap_or(&k.digest)))
            .collect();
        writeln!(out, "knowledge: {}", chunks.join(", "))?;
    }
    writeln!(
        out,
        "accept with `cargo agenticcann accept{hint} {}`, drop with `cargo agenticcann reject{hint} {}`",
        msg.op, msg.op
    )?;
    Ok(())
}

fn render_profile(out: &mut impl Write, p: &Pending, c: &Comparison) -> Result<()> {
    let backend = p
        .entry
        .manifest
        .performance
        .as_ref()
        .map_or("metadata".to_string(), |r| {
            format!("{} {}", r.backend, r.soc)
        });
    writeln!(out, "profile ({backend}):")?;
    for s in &c.shapes {
        writeln!(
            out,
            "  {:<24} {:>10}  roofline {}  bound {:<5}  current {}{}  offline seed {}{}",
            s.dims,
            times(Some(s.time_us)),
            s.roofline_fraction
                .map_or("-".into(), |r| format!("{r:.2}")),
            s.bound.as_deref().unwrap_or("-"),
            times(s.current_us),
            ratio(s.vs_current),
            times(s.baseline_us),
            ratio(s.vs_baseline),
        )?;
    }
    let part = |r: Option<f64>, what: &str| match r {
        Some(r) => format!("{r:.2}x vs {what}"),
        None => format!("no {what} times"),
    };
    writeln!(
        out,
        "speedup: {}, {} (geometric mean over the declared shapes)",
        part(c.vs_current, "current"),
        part(c.vs_baseline, "offline seed")
    )?;
    Ok(())
}

/// What `accept` / `reject` do with one pending result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decision {
    Accept(pending::Replace),
    Reject,
}

/// `accept`: write the pending results of the ops into the crate.
///
/// # Errors
/// As [`review`] (exit 2).
pub fn accept(args: &AcceptArgs) -> Result<Status> {
    decide(
        &args.decide,
        Decision::Accept(pending::Replace::from_flag(args.replace)),
    )
}

/// `reject`: drop the pending results of the ops.
///
/// # Errors
/// As [`review`] (exit 2).
pub fn reject(args: &DecideArgs) -> Result<Status> {
    decide(args, Decision::Reject)
}

fn decide(args: &DecideArgs, decision: Decision) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let (ops, named) = chosen(&spec, &args.ops)?;
    let root = require_root()?;
    let mut out = crate::exit::stdout();
    let mut ok = true;
    let mut acted = 0usize;
    let mut done: Vec<Key> = Vec::new();
    for op in ops {
        let key = op.key();
        if done.contains(&key) {
            // Another declared op with the same key: already handled (and pinned).
            continue;
        }
        let mut msg = DecideOp {
            op: op.name.clone(),
            key: key.to_hex(),
            action: "none".into(),
            entry: None,
            lock: None,
            dropped: None,
            problem: None,
        };
        match pending::find(&root, &key.to_hex()) {
            Ok(None) => {
                if !named {
                    continue;
                }
                ok = false;
                msg.problem = Some(format!(
                    "no pending result (looked in {})",
                    root.join(key.to_hex()).display()
                ));
            }
            // A result that no longer loads can still be dropped (rejecting reads nothing
            // from it); it cannot be accepted.
            Err(e) if decision == Decision::Reject => {
                match pending::reject_key(&root, &key.to_hex()) {
                    Ok(dropped) => {
                        acted += 1;
                        done.push(key);
                        msg.action = "rejected".into();
                        msg.dropped = dropped.map(|d| d.display().to_string());
                        if args.message_format == MessageFormat::Human {
                            crate::stderr!(
                                "warning: {}: the pending result was not valid ({e}); removed it",
                                op.name
                            );
                        }
                    }
                    Err(e) => {
                        ok = false;
                        msg.problem = Some(e.to_string());
                    }
                }
            }
            Err(e) => {
                ok = false;
                msg.problem = Some(format!(
                    "{e}; drop it with `cargo agenticcann reject {}`",
                    op.name
                ));
            }
            Ok(Some(p)) => {
                let result = match decision {
                    Decision::Accept(replace) => {
                        pending::accept_into(&p, &spec, &manifest, replace).map(|a| {
                            msg.action = "accepted".into();
                            msg.entry = Some(a.entry.display().to_string());
                            let pins: Vec<String> = a
                                .pins
                                .iter()
                                .map(|pin| {
                                    format!(
                                        "{}: {} = {} manifest {}",
                                        a.lock.display(),
                                        pin.name,
                                        pin.key,
                                        pin.manifest
                                    )
                                })
                                .collect();
                            msg.lock = Some(pins.join("\n"));
                        })
                    }
                    Decision::Reject => pending::reject(&p).map(|()| {
                        msg.action = "rejected".into();
                    }),
                };
                match result {
                    Ok(()) => {
                        acted += 1;
                        done.push(key);
                        msg.dropped = Some(p.dir.display().to_string());
                    }
                    Err(e) => {
                        ok = false;
                        msg.problem = Some(match e {
                            // Changed since it was written or reviewed: it cannot be accepted.
                            pending::PendingError::Entry { .. }
                            | pending::PendingError::ManifestChanged { .. }
                            | pending::PendingError::Incomplete { .. } => {
                                format!("{e}; drop it with `cargo agenticcann reject {}`", op.name)
                            }
                            e => e.to_string(),
                        });
                    }
                }
            }
        }
        match args.message_format {
            MessageFormat::Json => emit(&mut out, &msg)?,
            MessageFormat::Human => render_decision(&mut out, &msg)?,
        }
    }
    if args.message_format == MessageFormat::Human && !named && acted == 0 && ok {
        writeln!(
            out,
            "no pending results for the ops of {} (in {})",
            manifest.display(),
            root.display()
        )?;
    }
    Ok(Status::of(ok))
}

fn render_decision(out: &mut impl Write, msg: &DecideOp) -> Result<()> {
    match (msg.action.as_str(), &msg.problem) {
        ("accepted", _) => {
            writeln!(
                out,
                "{}: accepted: wrote {}",
                msg.op,
                msg.entry.as_deref().unwrap_or("?")
            )?;
            for line in msg.lock.as_deref().unwrap_or("").lines() {
                writeln!(out, "  pinned {line}")?;
            }
            writeln!(
                out,
                "  removed pending {}",
                msg.dropped.as_deref().unwrap_or("?")
            )?;
        }
        ("rejected", _) => writeln!(
            out,
            "{}: rejected: removed pending {} (nothing written into the crate)",
            msg.op,
            msg.dropped.as_deref().unwrap_or("?")
        )?,
        (_, Some(p)) => writeln!(out, "{}: not done: {p}", msg.op)?,
        (_, None) => writeln!(out, "{}: nothing to do", msg.op)?,
    }
    Ok(())
}
