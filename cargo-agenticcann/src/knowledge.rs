//! `cargo agenticcann knowledge show|check`: a thin face over
//! [`agenticcann_evolve::knowledge`]; JSON: [`crate::messages::KnowledgeShow`],
//! [`crate::messages::KnowledgeCheck`], [`crate::messages::KnowledgeLoadFailed`].
//!
//! The knowledge base is the one compiled into `agenticcann-evolve`, unless
//! `--knowledge-dir` or `$AGENTICCANN_KNOWLEDGE_DIR` names a folder on disk
//! ([`KnowledgeSource::resolve`]). `check` judges every exemplar ([`JudgeExemplar`]) unless
//! `--structure-only`; `--record` ([`RecordExemplar`]) writes the records of accepted ones
//! into their manifests, which needs a folder on disk.

use std::io::Write;

use agenticcann_build::env::Env;
use agenticcann_build::spec::Pattern;
use agenticcann_evolve::knowledge::{
    self, CheckOptions, ExemplarStatus, JudgeExemplar, KnowledgeBase, KnowledgeSource, OmitReason,
    Phase, Prompt, RecordExemplar, Routing, StructureOnly,
};
use anyhow::{anyhow, bail, Context, Result};

use crate::cli::{KnowledgeCheckArgs, KnowledgeDir, KnowledgeShowArgs, MessageFormat};
use crate::exit::Status;
use crate::messages::{
    emit, BudgetInfo, ChunkInfo, ExemplarInfo, KnowledgeCheck, KnowledgeLoadFailed,
    KnowledgeProblem, KnowledgeShow, OmittedInfo, RoutingInfo, TruncatedRepair,
};
use crate::select;

fn source(dir: &KnowledgeDir) -> KnowledgeSource {
    KnowledgeSource::resolve(dir.knowledge_dir.as_deref(), &Env::process(false))
}

/// Runs `knowledge show`.
///
/// # Errors
/// Unknown phase, pattern, op or error kind; an unloadable knowledge base or workspace
/// (exit 2).
pub fn show(args: &KnowledgeShowArgs) -> Result<Status> {
    let phase: Phase = args.phase.parse()?;
    let (op_info, pattern, routing): (Option<(String, String, String)>, Pattern, Option<Routing>) =
        match (&args.op, &args.pattern) {
            (Some(name), _) => {
                let (package, manifest, op) =
                    select::find_op(&args.manifest, args.package.as_deref(), name)?;
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
    let kb = KnowledgeBase::open(&source(&args.dir)).map_err(|e| anyhow!("{e}"))?;
    let errors: Vec<&str> = args.errors.iter().map(String::as_str).collect();
    let prompt = knowledge::assemble(&kb, phase, pattern, &errors)?;
    let mut out = crate::exit::stdout();
    match args.message_format {
        MessageFormat::Json => emit(
            &mut out,
            &KnowledgeShow {
                op: op_info.as_ref().map(|o| o.0.clone()),
                package: op_info.as_ref().map(|o| o.1.clone()),
                manifest_path: op_info.as_ref().map(|o| o.2.clone()),
                pattern: pattern.as_str().to_string(),
                routing: routing.as_ref().map(|r| RoutingInfo {
                    rule: format!("{:?}", r.rule),
                    reason: r.reason.clone(),
                }),
                phase: phase.as_str().to_string(),
                tokenizer: knowledge::tokens::TOKENIZER.to_string(),
                tokens: prompt.tokens,
                worst_case_tokens: prompt.worst_case_tokens(),
                budget: prompt.budget,
                text: prompt.text.clone(),
                chunks: prompt
                    .chunks
                    .iter()
                    .map(|c| ChunkInfo {
                        id: c.id.clone(),
                        level: c.level.to_string(),
                        digest: c.digest.clone(),
                        tokens: c.tokens,
                    })
                    .collect(),
                omitted: prompt
                    .omitted
                    .iter()
                    .map(|o| OmittedInfo {
                        id: o.id.clone(),
                        reason: reason(o.reason).to_string(),
                    })
                    .collect(),
                unmatched_kinds: prompt.unmatched_kinds.clone(),
            },
        )?,
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
    Ok(Status::Ok)
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

/// Runs `knowledge check`: [`Status::Ok`] when everything holds (an unloadable knowledge
/// base is reported and rejected).
///
/// # Errors
/// `--record` without a knowledge folder on disk; I/O errors on stdout.
pub fn check(args: &KnowledgeCheckArgs) -> Result<Status> {
    let source = source(&args.dir);
    let record_root = match (&source, args.record) {
        (_, false) => None,
        (KnowledgeSource::Dir(d), true) => Some(d.clone()),
        (KnowledgeSource::Embedded, true) => bail!(
            "--record writes into the knowledge folder: give it with --knowledge-dir DIR \
             (the embedded knowledge base is read-only)"
        ),
    };
    let root = source.to_string();
    let mut out = crate::exit::stdout();
    let kb = match KnowledgeBase::open(&source) {
        Ok(kb) => kb,
        Err(e) => {
            match args.message_format {
                MessageFormat::Json => emit(
                    &mut out,
                    &KnowledgeLoadFailed {
                        ok: false,
                        root,
                        problems: e
                            .problems
                            .iter()
                            .map(|p| KnowledgeProblem {
                                path: p.path.display().to_string(),
                                message: p.message.clone(),
                            })
                            .collect(),
                    },
                )?,
                MessageFormat::Human => writeln!(out, "{e}")?,
            }
            return Ok(Status::Rejected);
        }
    };
    let options = CheckOptions {
        require_exemplars: args.require_exemplars,
    };
    let report = match (args.structure_only, record_root) {
        (true, _) => knowledge::check(&kb, &StructureOnly, options),
        (false, None) => knowledge::check(&kb, &JudgeExemplar::default(), options),
        (false, Some(root)) => knowledge::check(
            &kb,
            &RecordExemplar {
                judge: JudgeExemplar::default(),
                root,
            },
            options,
        ),
    };
    match args.message_format {
        MessageFormat::Json => emit(
            &mut out,
            &KnowledgeCheck {
                ok: report.is_ok(),
                root: root.clone(),
                chunks_per_level: report.chunks_per_level.to_vec(),
                budgets: report
                    .budgets
                    .iter()
                    .map(|b| BudgetInfo {
                        pattern: b.pattern.as_str().to_string(),
                        phase: b.phase.as_str().to_string(),
                        tokens: b.tokens,
                        worst_case: b.worst_case,
                        budget: b.budget,
                        ok: b.ok(),
                        over_budget: b.over_budget.clone(),
                    })
                    .collect(),
                truncated_repairs: report
                    .truncated_repairs
                    .iter()
                    .map(|(k, p, d)| TruncatedRepair {
                        kind: k.to_string(),
                        pattern: p.as_str().to_string(),
                        dropped: d.clone(),
                    })
                    .collect(),
                uncovered_kinds: report
                    .uncovered_kinds
                    .iter()
                    .map(|k| k.to_string())
                    .collect(),
                exemplars: report
                    .exemplars
                    .iter()
                    .map(|(p, s)| {
                        let (status, detail) = match s {
                            ExemplarStatus::Missing => ("missing", None),
                            ExemplarStatus::Verified(d) => ("verified", Some(d.clone())),
                            ExemplarStatus::Failed(d) => ("failed", Some(d.clone())),
                        };
                        ExemplarInfo {
                            pattern: p.as_str().to_string(),
                            status: status.to_string(),
                            detail,
                        }
                    })
                    .collect(),
            },
        )?,
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
                root,
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
    Ok(Status::of(report.is_ok()))
}
