//! Phase-differentiated prompt assembly (DESIGN §7).
//!
//! | phase | levels | budget |
//! |---|---|---|
//! | [`Phase::Init`] | L0–L4 chunks of the pattern, then its L5 exemplar section | 800 |
//! | [`Phase::Mutation`] | L2–L4 chunks of the pattern | 400 |
//! | [`Phase::Repair`] | L2 chunks whose `error_kinds` match the diagnostics, then the pattern's L5 exemplar section | 600 |
//! | [`Phase::Tuning`] | L3 chunks of the pattern | 100 |
//!
//! Budgets are in `cl100k_base` tokens of the whole prompt text ([`super::tokens`]).
//!
//! **L5 in a prompt.** A complete exemplar kernel alone is over 800 tokens, so prompts carry
//! the exemplar's *skeleton* chunk (`knowledge/L5/<pattern>/skeleton.md`) followed by one
//! pointer line naming the full files, which the agent reads with its "read a knowledge
//! chunk" tool ([`super::KnowledgeBase::read`]). The section is at most
//! [`SKELETON_MAX_TOKENS`] tokens (enforced when loading). While a pattern has no exemplar,
//! Init and Repair prompts list it in [`Prompt::omitted`] and [`Prompt::worst_case_tokens`]
//! adds that reserve, so the budget tests cover the prompts as they will be once every
//! exemplar exists.
//!
//! **Repair selection, order and truncation.** For each diagnostic, the L2 chunks that name
//! its kind and apply to the pattern; when none applies to the pattern, those of other
//! patterns (a fusion may need a softmax rule). Chunks come in the order of the first
//! diagnostic each matches (the first diagnostic is usually the root cause), then in
//! knowledge-base order. A chunk that would push the prompt (with the exemplar reserve) over
//! the budget is left out and listed in [`Prompt::omitted`] as over budget; the agent can
//! still read it by id.

use std::fmt;
use std::str::FromStr;

use agenticcann_build::kinds;
use agenticcann_build::spec::Pattern;

use super::base::KnowledgeBase;
use super::chunk::{Chunk, Level};
use super::exemplar::{pointer_line, SKELETON_MAX_TOKENS};
use super::tokens;

/// A phase of the evolution loop, each with its own slice of the knowledge base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// First generation: write a kernel from the spec (L0–L5).
    Init,
    /// Single-pass mutation of a parent kernel (L2–L4).
    Mutation,
    /// Fix a candidate that failed with diagnostics (L5 + matching L2).
    Repair,
    /// Change tiling parameters of a working kernel (L3).
    Tuning,
}

impl Phase {
    /// Every phase.
    pub const ALL: [Phase; 4] = [Phase::Init, Phase::Mutation, Phase::Repair, Phase::Tuning];

    /// `init`, `mutation`, `repair`, `tuning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Init => "init",
            Phase::Mutation => "mutation",
            Phase::Repair => "repair",
            Phase::Tuning => "tuning",
        }
    }

    /// The token budget of the phase's prompt (`cl100k_base`): 800, 400, 600, 100.
    pub fn budget(self) -> usize {
        match self {
            Phase::Init => 800,
            Phase::Mutation => 400,
            Phase::Repair => 600,
            Phase::Tuning => 100,
        }
    }

    /// True when the phase's prompt carries the pattern's L5 exemplar section.
    pub fn uses_exemplar(self) -> bool {
        matches!(self, Phase::Init | Phase::Repair)
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Phase::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown phase `{0}` (expected one of init, mutation, repair, tuning)")]
pub struct UnknownPhase(pub String);

impl FromStr for Phase {
    type Err = UnknownPhase;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Phase::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPhase(s.to_string()))
    }
}

/// A chunk a prompt used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkUse {
    /// The chunk id.
    pub id: String,
    /// Its level.
    pub level: Level,
    /// sha256 of the chunk file, lowercase hex (what a store manifest records).
    pub digest: String,
    /// Tokens of the chunk's body alone.
    pub tokens: usize,
}

/// Why a chunk the phase calls for is not in the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmitReason {
    /// The pattern's L5 exemplar is not written yet; its section's token reserve
    /// ([`SKELETON_MAX_TOKENS`]) counts in [`Prompt::worst_case_tokens`].
    NotWritten,
    /// Including it would exceed the phase's budget (repair only).
    OverBudget,
}

/// A chunk left out of a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Omitted {
    /// The id (`L5.<pattern>` for a missing exemplar).
    pub id: String,
    /// Why.
    pub reason: OmitReason,
}

/// An assembled prompt and its accounting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// The phase.
    pub phase: Phase,
    /// The pattern.
    pub pattern: Pattern,
    /// The text handed to the model.
    pub text: String,
    /// `cl100k_base` tokens of [`text`](Self::text).
    pub tokens: usize,
    /// The phase's budget ([`Phase::budget`]).
    pub budget: usize,
    /// The chunks used, in text order.
    pub chunks: Vec<ChunkUse>,
    /// Chunks the phase calls for that are not in the text.
    pub omitted: Vec<Omitted>,
    /// Repair: diagnostic kinds no L2 chunk covers (reported, not an error).
    pub unmatched_kinds: Vec<String>,
}

impl Prompt {
    /// [`tokens`](Self::tokens) plus [`SKELETON_MAX_TOKENS`] when the pattern's exemplar is
    /// not written yet: an upper bound of this prompt once it is.
    pub fn worst_case_tokens(&self) -> usize {
        let reserve = if self
            .omitted
            .iter()
            .any(|o| o.reason == OmitReason::NotWritten)
        {
            SKELETON_MAX_TOKENS
        } else {
            0
        };
        self.tokens + reserve
    }

    /// The chunks used as a store manifest records them (`provenance.knowledge`).
    pub fn refs(&self) -> Vec<agenticcann_build::store::KnowledgeRef> {
        self.chunks
            .iter()
            .map(|c| agenticcann_build::store::KnowledgeRef {
                id: c.id.clone(),
                digest: c.digest.clone(),
            })
            .collect()
    }

    /// True when [`worst_case_tokens`](Self::worst_case_tokens) is within the budget.
    pub fn within_budget(&self) -> bool {
        self.worst_case_tokens() <= self.budget
    }
}

/// Errors of [`assemble`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    /// A diagnostic kind that is not in [`kinds::ALL`].
    #[error("unknown diagnostic kind `{kind}` (known kinds: {known})")]
    UnknownKind {
        /// The kind as given.
        kind: String,
        /// Every known kind, comma-separated.
        known: String,
    },
}

/// Assembles the prompt of `phase` for `pattern` from `kb`; `diagnostics` are the kinds a
/// candidate failed with (used by [`Phase::Repair`], ignored otherwise), most important
/// first.
///
/// # Errors
/// [`AssembleError::UnknownKind`] for a diagnostic kind that is not in [`kinds::ALL`].
pub fn assemble(
    kb: &KnowledgeBase,
    phase: Phase,
    pattern: Pattern,
    diagnostics: &[&str],
) -> Result<Prompt, AssembleError> {
    for d in diagnostics {
        if kinds::lookup(d).is_none() {
            return Err(AssembleError::UnknownKind {
                kind: d.to_string(),
                known: kinds::ALL
                    .iter()
                    .map(|k| k.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut sections: Vec<Section> = Vec::new();
    let mut omitted = Vec::new();
    let mut unmatched_kinds = Vec::new();
    let levels: &[Level] = match phase {
        Phase::Init => &[Level::L0, Level::L1, Level::L2, Level::L3, Level::L4],
        Phase::Mutation => &[Level::L2, Level::L3, Level::L4],
        Phase::Tuning => &[Level::L3],
        Phase::Repair => &[],
    };
    for &level in levels {
        let chunks: Vec<&Chunk> = kb.chunks_for(level, pattern).collect();
        if !chunks.is_empty() {
            sections.push(Section::level(level, chunks));
        }
    }
    let exemplar = kb.exemplar(pattern);
    if phase == Phase::Repair {
        let mut matched: Vec<&Chunk> = Vec::new();
        for d in diagnostics {
            let rules: Vec<&Chunk> = kb
                .chunks
                .iter()
                .filter(|c| c.level == Level::L2 && c.prevents(d))
                .collect();
            let own: Vec<&Chunk> = rules
                .iter()
                .copied()
                .filter(|c| c.patterns.contains(pattern))
                .collect();
            if rules.is_empty() && !unmatched_kinds.iter().any(|u| u == d) {
                unmatched_kinds.push(d.to_string());
            }
            for c in if own.is_empty() { rules } else { own } {
                if !matched.iter().any(|m| m.id == c.id) {
                    matched.push(c);
                }
            }
        }
        let reserve = if exemplar.is_none() {
            SKELETON_MAX_TOKENS
        } else {
            0
        };
        let mut rules: Vec<&Chunk> = Vec::new();
        for c in matched {
            let mut trial = rules.clone();
            trial.push(c);
            let mut s = vec![Section::level(Level::L2, trial.clone())];
            if let Some(ex) = exemplar {
                s.push(Section::exemplar(&ex.skeleton, pattern));
            }
            if tokens::count(&render(&s)) + reserve <= phase.budget() {
                rules = trial;
            } else {
                omitted.push(Omitted {
                    id: c.id.clone(),
                    reason: OmitReason::OverBudget,
                });
            }
        }
        if !rules.is_empty() {
            sections.push(Section::level(Level::L2, rules));
        }
    }
    if phase.uses_exemplar() {
        match exemplar {
            Some(ex) => sections.push(Section::exemplar(&ex.skeleton, pattern)),
            None => omitted.push(Omitted {
                id: format!("L5.{pattern}"),
                reason: OmitReason::NotWritten,
            }),
        }
    }
    let text = render(&sections);
    let chunks = sections
        .iter()
        .flat_map(|s| &s.chunks)
        .map(|c| ChunkUse {
            id: c.id.clone(),
            level: c.level,
            digest: c.digest.clone(),
            tokens: tokens::count(&c.body),
        })
        .collect();
    Ok(Prompt {
        phase,
        pattern,
        tokens: tokens::count(&text),
        budget: phase.budget(),
        text,
        chunks,
        omitted,
        unmatched_kinds,
    })
}

/// The exemplar section exactly as a prompt carries it (used to enforce
/// [`SKELETON_MAX_TOKENS`] when loading).
pub(crate) fn exemplar_section(skeleton: &Chunk, pattern: Pattern) -> String {
    render(&[Section::exemplar(skeleton, pattern)])
}

struct Section<'a> {
    heading: &'static str,
    chunks: Vec<&'a Chunk>,
    trailer: Option<String>,
}

impl<'a> Section<'a> {
    fn level(level: Level, chunks: Vec<&'a Chunk>) -> Self {
        Section {
            heading: level.heading(),
            chunks,
            trailer: None,
        }
    }

    fn exemplar(skeleton: &'a Chunk, pattern: Pattern) -> Self {
        Section {
            heading: Level::L5.heading(),
            chunks: vec![skeleton],
            trailer: Some(pointer_line(pattern)),
        }
    }
}

/// `# Heading\nbody\nbody\n\n# Heading\n…`
fn render(sections: &[Section<'_>]) -> String {
    let mut out = String::new();
    for s in sections {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(s.heading);
        for c in &s.chunks {
            out.push('\n');
            out.push_str(&c.body);
        }
        if let Some(t) = &s.trailer {
            out.push('\n');
            out.push_str(t);
        }
    }
    out
}
