//! `cargo agenticcann knowledge show|check`: a thin face over
//! [`agenticcann_evolve::knowledge`].
//!
//! JSON of `show` (one object): `op` (null with --pattern), `package`, `manifest_path`,
//! `pattern`, `routing` {`rule`, `reason`} (null with --pattern), `phase`, `tokenizer`,
//! `tokens`, `worst_case_tokens`, `budget`, `text`, `chunks` [{`id`, `level`, `digest`,
//! `tokens`}], `omitted` [{`id`, `reason`}], `unmatched_kinds`.
//!
//! `check` judges every exemplar ([`JudgeExemplar`]) unless `--structure-only`; `--record`
//! writes the records of accepted ones into their manifests.
//!
//! JSON of `check` (one object): `ok`, `root`, `chunks_per_level`, `budgets` [{`pattern`,
//! `phase`, `tokens`, `worst_case`, `budget`, `ok`, `over_budget`}], `truncated_repairs`
//! [{`kind`, `pattern`, `dropped`}], `uncovered_kinds`, `exemplars` [{`pattern`, `status`,
//! `detail`}], or on a load failure `ok: false` and `problems` [{`path`, `message`}].

use std::io::Write;
use std::process::ExitCode;

use agenticcann_build::spec::{check_manifest_path, OpSpec, Pattern};
use agenticcann_evolve::knowledge::{
    self, CheckOptions, Exemplar, ExemplarJudge, ExemplarStatus, JudgeExemplar, KnowledgeBase,
    OmitReason, Phase, Prompt, Routing, StructureOnly,
};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

use crate::cli::{KnowledgeCheckArgs, KnowledgeDir, KnowledgeShowArgs, MessageFormat};
use crate::select;

fn load(dir: &KnowledgeDir) -> Result<KnowledgeBase> {
    let root = dir
        .knowledge_dir
        .clone()
        .unwrap_or_else(KnowledgeBase::default_root);
    KnowledgeBase::load(&root).map_err(|e| anyhow!("{e}"))
}

/// The op named `name` in the workspace of `args`: (package, manifest path, op).
fn find_op(args: &KnowledgeShowArgs, name: &str) -> Result<(String, String, OpSpec)> {
    let meta = select::metadata(&args.manifest)?;
    let members: Vec<_> = meta
        .packages
        .iter()
        .filter(|p| meta.workspace_members.contains(&p.id))
        .filter(|p| args.package.as_deref().is_none_or(|n| p.name.as_str() == n))
        .collect();
    if let Some(n) = &args.package {
        if members.is_empty() {
            bail!("package `{n}` not found in the workspace");
        }
    }
    let mut found = Vec::new();
    let mut all_ops = Vec::new();
    for p in members {
        let report = check_manifest_path(p.manifest_path.as_std_path());
        for o in report.ops {
            all_ops.push(o.name.clone());
            if o.name == name {
                match o.result {
                    Ok(op) => found.push((p.name.to_string(), p.manifest_path.to_string(), op)),
                    Err(problems) => {
                        let lines: Vec<String> =
                            problems.iter().map(|p| format!("  {p}")).collect();
                        bail!(
                            "op `{name}` of package `{}` is invalid:\n{}",
                            p.name,
                            lines.join("\n")
                        );
                    }
                }
            }
        }
    }
    match found.len() {
        1 => Ok(found.pop().expect("one")),
        0 => {
            all_ops.sort();
            bail!(
                "no op `{name}` in the selected packages (ops: {})",
                if all_ops.is_empty() {
                    "none".to_string()
                } else {
                    all_ops.join(", ")
                }
            )
        }
        _ => {
            let pkgs: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
            bail!(
                "op `{name}` is declared by several packages ({}); choose one with -p",
                pkgs.join(", ")
            )
        }
    }
}

/// Runs `knowledge show`.
///
/// # Errors
/// Unknown phase, pattern, op or error kind; an unloadable knowledge base or workspace
/// (exit 2).
pub fn show(args: &KnowledgeShowArgs) -> Result<ExitCode> {
    let phase: Phase = args.phase.parse()?;
    let (op_info, pattern, routing): (Option<(String, String, String)>, Pattern, Option<Routing>) =
        match (&args.op, &args.pattern) {
            (Some(name), _) => {
                let (package, manifest, op) = find_op(args, name)?;
                let routing = knowledge::explain(&op);
                (
                    Some((op.name.clone(), package, manifest)),
                    routing.pattern,
                    Some(routing),
                )
            }
            (None, Some(p)) => (None, p.parse()?, None),
            (None, None) => bail!("give --op NAME or --pattern PATTERN"),
        };
    let kb = load(&args.dir)?;
    let errors: Vec<&str> = args.errors.iter().map(String::as_str).collect();
    let prompt = knowledge::assemble(&kb, phase, pattern, &errors)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.message_format {
        MessageFormat::Json => {
            let v = json!({
                "op": op_info.as_ref().map(|o| &o.0),
                "package": op_info.as_ref().map(|o| &o.1),
                "manifest_path": op_info.as_ref().map(|o| &o.2),
                "pattern": pattern.as_str(),
                "routing": routing.as_ref().map(|r| json!({"rule": format!("{:?}", r.rule), "reason": r.reason})),
                "phase": phase.as_str(),
                "tokenizer": knowledge::tokens::TOKENIZER,
                "tokens": prompt.tokens,
                "worst_case_tokens": prompt.worst_case_tokens(),
                "budget": prompt.budget,
                "text": prompt.text,
                "chunks": prompt.chunks.iter().map(|c| json!({
                    "id": c.id, "level": c.level.to_string(), "digest": c.digest, "tokens": c.tokens,
                })).collect::<Vec<_>>(),
                "omitted": prompt.omitted.iter().map(|o| json!({"id": o.id, "reason": reason(o.reason)})).collect::<Vec<_>>(),
                "unmatched_kinds": prompt.unmatched_kinds,
            });
            writeln!(out, "{v}")?;
        }
        MessageFormat::Human => {
            writeln!(out, "{}", prompt.text)?;
            writeln!(out, "\n--- accounting ---")?;
            if let (Some((op, package, _)), Some(r)) = (&op_info, &routing) {
                writeln!(out, "op:      {op} (package {package})")?;
                writeln!(out, "pattern: {} ({})", r.pattern, r.reason)?;
            } else {
                writeln!(out, "pattern: {pattern}")?;
            }
            print_accounting(&mut out, &prompt)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn reason(r: OmitReason) -> &'static str {
    match r {
        OmitReason::NotWritten => "not_written",
        OmitReason::OverBudget => "over_budget",
    }
}

fn print_accounting(out: &mut impl Write, p: &Prompt) -> Result<()> {
    writeln!(
        out,
        "phase:   {} — {} tokens ({}), budget {}{}",
        p.phase,
        p.tokens,
        knowledge::tokens::TOKENIZER,
        p.budget,
        if p.worst_case_tokens() != p.tokens {
            format!(
                ", {} with the missing exemplar's reserve",
                p.worst_case_tokens()
            )
        } else {
            String::new()
        }
    )?;
    writeln!(out, "chunks:")?;
    for c in &p.chunks {
        writeln!(
            out,
            "  {:<26} {:>4} tokens  sha256 {}",
            c.id, c.tokens, c.digest
        )?;
    }
    for o in &p.omitted {
        let why = match o.reason {
            OmitReason::NotWritten => format!(
                "not written yet (reserve {} tokens)",
                knowledge::SKELETON_MAX_TOKENS
            ),
            OmitReason::OverBudget => "left out: over the budget (readable by id)".to_string(),
        };
        writeln!(out, "omitted: {} — {why}", o.id)?;
    }
    for k in &p.unmatched_kinds {
        writeln!(out, "no rule for error kind `{k}`")?;
    }
    Ok(())
}

/// Runs `knowledge check`; exit 0 when everything holds, 1 otherwise.
///
/// # Errors
/// Only I/O errors on stdout; an unloadable knowledge base is reported and exits 1.
pub fn check(args: &KnowledgeCheckArgs) -> Result<ExitCode> {
    let root = args
        .dir
        .knowledge_dir
        .clone()
        .unwrap_or_else(KnowledgeBase::default_root);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let kb = match KnowledgeBase::load(&root) {
        Ok(kb) => kb,
        Err(e) => {
            match args.message_format {
                MessageFormat::Json => {
                    let problems: Vec<Value> = e
                        .problems
                        .iter()
                        .map(
                            |p| json!({"path": p.path.display().to_string(), "message": p.message}),
                        )
                        .collect();
                    writeln!(
                        out,
                        "{}",
                        json!({"ok": false, "root": root.display().to_string(), "problems": problems})
                    )?;
                }
                MessageFormat::Human => writeln!(out, "{e}")?,
            }
            return Ok(ExitCode::from(1));
        }
    };
    let options = CheckOptions {
        require_exemplars: args.require_exemplars,
    };
    let report = if args.structure_only {
        knowledge::check(&kb, &StructureOnly, options)
    } else {
        let judge = Recording {
            judge: JudgeExemplar::default(),
            root: args.record.then(|| root.clone()),
        };
        knowledge::check(&kb, &judge, options)
    };
    match args.message_format {
        MessageFormat::Json => {
            let v = json!({
                "ok": report.is_ok(),
                "root": root.display().to_string(),
                "chunks_per_level": report.chunks_per_level,
                "budgets": report.budgets.iter().map(|b| json!({
                    "pattern": b.pattern.as_str(), "phase": b.phase.as_str(), "tokens": b.tokens,
                    "worst_case": b.worst_case, "budget": b.budget, "ok": b.ok(), "over_budget": b.over_budget,
                })).collect::<Vec<_>>(),
                "truncated_repairs": report.truncated_repairs.iter().map(|(k, p, d)| json!({
                    "kind": k, "pattern": p.as_str(), "dropped": d,
                })).collect::<Vec<_>>(),
                "uncovered_kinds": report.uncovered_kinds,
                "exemplars": report.exemplars.iter().map(|(p, s)| {
                    let (status, detail) = match s {
                        ExemplarStatus::Missing => ("missing", None),
                        ExemplarStatus::Verified(d) => ("verified", Some(d)),
                        ExemplarStatus::Failed(d) => ("failed", Some(d)),
                    };
                    json!({"pattern": p.as_str(), "status": status, "detail": detail})
                }).collect::<Vec<_>>(),
            });
            writeln!(out, "{v}")?;
        }
        MessageFormat::Human => {
            let levels: Vec<String> = report
                .chunks_per_level
                .iter()
                .enumerate()
                .map(|(i, n)| format!("L{i} {n}"))
                .collect();
            writeln!(
                out,
                "knowledge base {}: {} chunks ({})",
                root.display(),
                kb.chunks.len(),
                levels.join(", ")
            )?;
            writeln!(
                out,
                "tokens ({}; worst case with missing exemplars' reserve / budget):",
                knowledge::tokens::TOKENIZER
            )?;
            write!(out, "  {:<14}", "pattern")?;
            for ph in Phase::ALL {
                write!(out, "{:>16}", ph.as_str())?;
            }
            writeln!(out)?;
            for p in Pattern::ALL {
                write!(out, "  {:<14}", p.as_str())?;
                for ph in Phase::ALL {
                    let b = report
                        .budgets
                        .iter()
                        .find(|b| b.pattern == p && b.phase == ph)
                        .context("a budget row per pattern and phase")?;
                    let cell = format!(
                        "{}{} /{}",
                        b.worst_case,
                        if b.ok() { "" } else { "!" },
                        b.budget
                    );
                    write!(out, "{cell:>16}")?;
                }
                writeln!(out)?;
            }
            for b in report.budgets.iter().filter(|b| !b.ok()) {
                writeln!(
                    out,
                    "error: {} {} prompt is {} tokens, over its budget of {}",
                    b.pattern, b.phase, b.worst_case, b.budget
                )?;
            }
            for (k, p, d) in &report.truncated_repairs {
                writeln!(
                    out,
                    "error: repair prompt for `{k}` ({p}) drops {} to fit its budget",
                    d.join(", ")
                )?;
            }
            if !report.uncovered_kinds.is_empty() {
                writeln!(
                    out,
                    "note: no L2 rule names {}",
                    report.uncovered_kinds.join(", ")
                )?;
            }
            for (p, s) in &report.exemplars {
                match s {
                    ExemplarStatus::Missing => writeln!(
                        out,
                        "{}: exemplar L5.{p}: not written yet",
                        if args.require_exemplars {
                            "error"
                        } else {
                            "warning"
                        }
                    )?,
                    ExemplarStatus::Verified(d) => writeln!(out, "exemplar L5.{p}: {d}")?,
                    ExemplarStatus::Failed(d) => writeln!(out, "error: exemplar L5.{p}: {d}")?,
                }
            }
            writeln!(out, "{}", if report.is_ok() { "ok" } else { "FAILED" })?;
        }
    }
    out.flush()?;
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The judge for `knowledge check`, writing the records of accepted exemplars into their
/// manifests when `root` is set (`--record`).
struct Recording {
    judge: JudgeExemplar,
    root: Option<std::path::PathBuf>,
}

impl ExemplarJudge for Recording {
    fn judge(&self, exemplar: &Exemplar) -> std::result::Result<String, String> {
        let ev = self
            .judge
            .evaluate(exemplar)
            .map_err(|e| format!("{e} (--structure-only checks the structure alone)"))?;
        let summary = JudgeExemplar::summary(&ev)?;
        let Some(root) = &self.root else {
            return Ok(summary);
        };
        let path = root.join(&exemplar.dir).join("entry/manifest.toml");
        let text = exemplar
            .file("manifest")
            .map(|f| f.text.as_str())
            .ok_or("no manifest")?;
        let mut manifest =
            agenticcann_build::store::Manifest::from_toml_str(text, &path.display().to_string())
                .map_err(|e| e.to_string())?;
        manifest.verification = ev.verification_record();
        manifest.performance = ev.performance_record();
        agenticcann_build::store::write_file_atomic(&path, manifest.to_toml_string().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("{summary} (records written to {})", path.display()))
    }
}
