//! The engine only `cargo agenticcann` needs (not every user's build script): knowledge
//! assembly by phase, the OpenAI-compatible LLM client with recording and replay, the
//! generation-1 agent, and the stage-adaptive evolution loop (`../shared/DESIGN.md` §2, §7–§8).
//!
//! `agenticcann-build` keeps what `build.rs` needs (spec, key, store, codegen, toolchain,
//! judge, synth); everything here builds on it.
//!
//! - [`agent`]: the generation-1 agent: the task, the judge's stages and the knowledge base
//!   as tools, budgets, knowledge modes, an external coding agent in place of the model.
//! - [`knowledge`]: the knowledge base (`knowledge/` of the repository, embedded in this
//!   crate), the pattern router and phase-specific prompts within token budgets.
//! - [`llm`]: the OpenAI-compatible chat client (tools, retries, settings, tool protocols,
//!   token accounting) and the recorder/replayer of every exchange.
//! - [`suite`]: the operator suite of `tests/specs/`, labelled by pattern.
//! - [`bench`]: the benchmark over `tests/bench/suite/` (`cargo agenticcann bench`).

pub mod agent;
pub mod bench;
pub mod chart;
pub mod knowledge;
pub mod llm;
pub mod pending;
pub mod search;
pub mod suite;
