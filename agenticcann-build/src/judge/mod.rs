//! The judge: every candidate kernel passes it before it is accepted (DESIGN §8, §9).
//!
//! [`evaluate`] runs one [`Candidate`] (a store entry's `kernel.cpp`, `tiling.cpp` and tiling
//! fields) through five stages, each callable on its own:
//!
//! | stage | call | what it does |
//! |---|---|---|
//! | prepare | [`Prepared::new`]`(op, &options)` | shape plan (declared + held-out + stress), seeded inputs, golden outputs, toolchain and SoC profile; shared by every candidate of the op |
//! | policy | [`check_policy`]`(&candidate) -> Vec<Diagnostic>` | the source policy on preprocessing tokens, before any compiler ([`policy`]) |
//! | compile | [`compile`]`(&prepared, &candidate) -> Result<Compiled>` | policy again, then the **same translation units and flags a build uses** ([`crate::toolchain::sim`]), linked with the run harness ([`compile`](mod@compile)); compiler errors classified |
//! | run | [`run`]`(&prepared, &compiled, &shapes) -> Result<RunReport>` | a sandboxed process ([`sandbox`]) on the chosen shapes; the harness protocol parsed into typed [`ShapeRun`]s ([`run`](mod@run)) |
//! | verify | [`verify`]`(&prepared, &shape_run) -> ShapeCheck` | harness findings, simulator diagnostics, input integrity, outputs against the golden ([`verify`](mod@verify)) |
//! | profile | [`profile`]`(&prepared, &shape_run, &mut check)` | the cost model's time per shape against the roofline ([`profile`](mod@profile)) |
//!
//! The result is an [`Evaluation`] ([`report`]): serde-serializable, with a concise
//! [`Evaluation::render`]. [`evaluate_many`] runs many at once.
//!
//! # Bad candidate or broken judge
//!
//! Every stage returns the candidate's problems as [`Diagnostic`]s (kinds from
//! [`crate::kinds::ALL`]; [`KINDS`] are the judge's own) and the judge's problems as a
//! [`JudgeError`] (no compiler, an unwritable cache, a broken harness, a reference that
//! cannot be evaluated): `Ok` with a rejected candidate and `Err` never mean the same thing.
//!
//! # Calling stages alone (the agent's tools, an evaluation cascade)
//!
//! ```no_run
//! use agenticcann_build::judge::{self, Candidate, EvalOptions};
//! # fn demo(op: &agenticcann_build::spec::OpSpec, candidate: &Candidate) -> Result<(), judge::JudgeError> {
//! // Once per op: only the declared shapes (no held-out or stress shapes).
//! let small = EvalOptions { held_out: false, stress: false, ..EvalOptions::default() };
//! let prepared = judge::Prepared::new(op, &small)?;
//!
//! // A `compile` tool: policy + compile, no run.
//! let policy = judge::check_policy(candidate);
//! let compiled = judge::compile(&prepared, candidate)?; // re-checks the policy
//! if !compiled.ok() {
//!     for d in policy.iter().chain(&compiled.diagnostics) { println!("{}", d.headline()); }
//!     return Ok(());
//! }
//!
//! // A `run_tests` tool: run the declared shapes, verify each.
//! let ran = judge::run(&prepared, &compiled, &prepared.declared())?;
//! for d in &ran.diagnostics { println!("{}", d.headline()); } // a crash, a limit
//! for shape in &ran.shapes {
//!     let mut check = judge::verify(&prepared, shape);
//!     judge::profile(&prepared, shape, &mut check);
//!     println!("{:?} {:?}", check.result.dims, check.result.status);
//! }
//! # Ok(()) }
//! ```
//!
//! `run` may be called several times on one [`Compiled`] (each call runs in a fresh
//! subfolder), e.g. the smallest declared shape first and the whole grid only when it
//! passes. A [`Prepared`] is reusable across candidates (same seed, same inputs); its
//! options (`use_pch`, limits, `reference_times`) apply to every stage.

mod candidate;
pub mod compile;
mod error;
mod evaluate;
pub mod policy;
pub mod profile;
pub mod reference;
pub mod report;
pub mod run;
pub mod sandbox;
mod stages;
pub mod verify;

pub use crate::toolchain::sim::{SimToolchain, SocProfile, SocProfileError, ToolchainError};
pub use candidate::{Candidate, CandidateError};
pub use compile::Compiled;
pub use error::JudgeError;
pub use evaluate::{evaluate, evaluate_many, evaluate_sources, EvalOptions};
pub use report::{
    Diagnostic, Evaluation, Isolation, Outcome, OutputMetrics, Severity, ShapeOrigin, ShapeProfile,
    ShapeResult, ShapeStatus, Stage, Timings, KINDS,
};
pub use run::{RunState, ShapeRun};
pub use stages::{
    check_policy, check_policy_sources, compile, profile, run, verify, Prepared, PreparedShape,
    RunReport, ShapeCheck,
};
