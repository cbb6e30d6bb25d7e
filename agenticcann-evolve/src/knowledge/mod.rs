//! The knowledge base (DESIGN §7): loading and validating `knowledge/`, routing an op to its
//! compute pattern, and assembling phase-specific prompts within token budgets.
//!
//! ```no_run
//! use agenticcann_evolve::knowledge::{assemble, route, KnowledgeBase, Phase};
//! # fn demo(op: &agenticcann_build::spec::OpSpec) -> Result<(), Box<dyn std::error::Error>> {
//! let kb = KnowledgeBase::load(&KnowledgeBase::default_root())?;
//! let pattern = route(op);
//! let prompt = assemble(&kb, Phase::Repair, pattern, &["ub_misaligned"])?;
//! println!("{} tokens: {:?}", prompt.tokens, prompt.chunks.iter().map(|c| &c.id).collect::<Vec<_>>());
//! # Ok(()) }
//! ```
//!
//! Modules, one job each: [`chunk`] (one file's front matter and body), [`patterns`]
//! (`patterns.toml`), [`exemplar`] (the L5 format), [`base`] (loading the folder),
//! [`mod@route`] (the router), [`tokens`] (counting), [`mod@assemble`] (prompts), [`mod@check`]
//! (budgets and exemplars for `cargo agenticcann knowledge check`).

pub mod assemble;
pub mod base;
pub mod check;
pub mod chunk;
pub mod exemplar;
pub mod patterns;
pub mod route;
pub mod tokens;

pub use assemble::{
    assemble, AssembleError, ChunkUse, OmitReason, Omitted, Phase, Prompt, UnknownPhase,
};
pub use base::{KnowledgeBase, LoadError, Problem, DIR_ENV};
pub use check::{check, BudgetRow, CheckOptions, CheckReport, ExemplarStatus};
pub use chunk::{Chunk, Level, Patterns};
pub use exemplar::{
    Exemplar, ExemplarFile, ExemplarJudge, JudgeExemplar, StructureOnly, SKELETON_MAX_TOKENS,
};
pub use patterns::PatternDef;
pub use route::{explain, route, route_reference, Routing, Rule};
