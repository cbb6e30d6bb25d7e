//! `knowledge check`: budgets on every pattern and phase, coverage of diagnostic kinds, and
//! exemplars through an [`ExemplarJudge`]. Loading ([`KnowledgeBase::load`]) has already
//! validated front matter, ids, levels, patterns and kinds.

use agenticcann_build::kinds;
use agenticcann_build::spec::Pattern;

use super::assemble::{assemble, OmitReason, Phase};
use super::base::KnowledgeBase;
use super::chunk::Level;
use super::exemplar::ExemplarJudge;

/// Options of [`check`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Fail when a pattern has no L5 exemplar (off until every exemplar is written).
    pub require_exemplars: bool,
}

/// One prompt's budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetRow {
    /// The pattern.
    pub pattern: Pattern,
    /// The phase.
    pub phase: Phase,
    /// For repair: the diagnostic kinds assembled for (every kind any L2 chunk prevents, all
    /// at once, the largest repair prompt); empty otherwise.
    pub diagnostics: Vec<&'static str>,
    /// Tokens of the prompt as assembled now.
    pub tokens: usize,
    /// Tokens once the pattern's exemplar exists (reserve included).
    pub worst_case: usize,
    /// The phase's budget.
    pub budget: usize,
    /// Chunks dropped to stay within the budget (repair only).
    pub over_budget: Vec<String>,
}

impl BudgetRow {
    /// Within budget.
    pub fn ok(&self) -> bool {
        self.worst_case <= self.budget
    }
}

/// An exemplar's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExemplarStatus {
    /// Not written yet.
    Missing,
    /// The judge passed it, with its summary.
    Verified(String),
    /// The judge failed it, with the reason.
    Failed(String),
}

/// The outcome of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Chunks per level (L0–L5).
    pub chunks_per_level: [usize; 6],
    /// Every pattern × phase.
    pub budgets: Vec<BudgetRow>,
    /// Single-kind repair prompts that had to drop a chunk: (kind, pattern, dropped ids).
    /// Must be empty: one diagnostic always gets every rule written for it.
    pub truncated_repairs: Vec<(&'static str, Pattern, Vec<String>)>,
    /// Diagnostic kinds no L2 chunk names (informational: repair prompts for them carry
    /// only the exemplar).
    pub uncovered_kinds: Vec<&'static str>,
    /// Every pattern's exemplar.
    pub exemplars: Vec<(Pattern, ExemplarStatus)>,
    /// The options used.
    pub options: CheckOptions,
}

impl CheckReport {
    /// True when every budget holds, no single-kind repair prompt is truncated, no exemplar
    /// failed, and (with `require_exemplars`) none is missing.
    pub fn is_ok(&self) -> bool {
        self.budgets.iter().all(BudgetRow::ok)
            && self.truncated_repairs.is_empty()
            && self.exemplars.iter().all(|(_, s)| match s {
                ExemplarStatus::Verified(_) => true,
                ExemplarStatus::Missing => !self.options.require_exemplars,
                ExemplarStatus::Failed(_) => false,
            })
    }
}

/// Checks `kb`: assembles every pattern × phase prompt (repair with every covered kind at
/// once, and with each kind alone), and judges every exemplar with `judge`.
pub fn check(kb: &KnowledgeBase, judge: &dyn ExemplarJudge, options: CheckOptions) -> CheckReport {
    let mut chunks_per_level = [0usize; 6];
    for c in &kb.chunks {
        chunks_per_level[usize::from(c.level.number())] += 1;
    }
    let covered: Vec<&'static str> = kinds::ALL
        .iter()
        .map(|k| k.name)
        .filter(|k| {
            kb.chunks
                .iter()
                .any(|c| c.level == Level::L2 && c.prevents(k))
        })
        .collect();
    let uncovered_kinds = kinds::ALL
        .iter()
        .map(|k| k.name)
        .filter(|k| !covered.contains(k))
        .collect();
    let mut budgets = Vec::new();
    let mut truncated_repairs = Vec::new();
    for pattern in Pattern::ALL {
        for phase in Phase::ALL {
            let diagnostics: Vec<&'static str> = if phase == Phase::Repair {
                covered.clone()
            } else {
                Vec::new()
            };
            let prompt =
                assemble(kb, phase, pattern, &diagnostics).expect("kinds come from kinds::ALL");
            budgets.push(BudgetRow {
                pattern,
                phase,
                tokens: prompt.tokens,
                worst_case: prompt.worst_case_tokens(),
                budget: prompt.budget,
                over_budget: prompt
                    .omitted
                    .iter()
                    .filter(|o| o.reason == OmitReason::OverBudget)
                    .map(|o| o.id.clone())
                    .collect(),
                diagnostics,
            });
        }
        for kind in &covered {
            let prompt = assemble(kb, Phase::Repair, pattern, &[kind]).expect("known kind");
            let dropped: Vec<String> = prompt
                .omitted
                .iter()
                .filter(|o| o.reason == OmitReason::OverBudget)
                .map(|o| o.id.clone())
                .collect();
            if !dropped.is_empty() {
                truncated_repairs.push((*kind, pattern, dropped));
            }
        }
    }
    let exemplars = Pattern::ALL
        .into_iter()
        .map(|p| {
            let status = match kb.exemplar(p) {
                None => ExemplarStatus::Missing,
                Some(ex) => match judge.judge(ex) {
                    Ok(s) => ExemplarStatus::Verified(s),
                    Err(e) => ExemplarStatus::Failed(e),
                },
            };
            (p, status)
        })
        .collect();
    CheckReport {
        chunks_per_level,
        budgets,
        truncated_repairs,
        uncovered_kinds,
        exemplars,
        options,
    }
}
