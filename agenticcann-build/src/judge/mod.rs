//! The judge: every candidate kernel passes it before it is accepted (DESIGN §8, §9).
//!
//! [`evaluate`] runs one [`Candidate`] (a store entry's `kernel.cpp`, `tiling.cpp` and tiling
//! fields) through five stages, each its own module:
//! 1. [`policy`]: the source policy, on preprocessing tokens, before any compiler;
//! 2. [`compile`]: the kernel and tiling sources against the simulator (cached precompiled
//!    header), linked with the generic run [`harness`](compile::ensure_harness); compiler
//!    errors classified;
//! 3. [`run`] in a [`sandbox`]: a separate process with limits and no network where the
//!    platform allows;
//! 4. [`verify`]: fresh inputs, poisoned outputs, declared + held-out + stress shapes,
//!    magnitude-aware comparison with the f64 reference, input integrity;
//! 5. [`profile`]: the cost model's time per shape, checked against the roofline.
//!
//! The result is an [`Evaluation`] ([`report`]): serde-serializable, with a concise
//! [`Evaluation::render`]. [`evaluate_many`] runs many at once.

mod candidate;
pub mod compile;
mod evaluate;
pub mod policy;
pub mod profile;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod toolchain;
pub mod verify;

pub use candidate::{Candidate, CandidateError};
pub use evaluate::{evaluate, evaluate_many, evaluate_sources, EvalOptions, JudgeError};
pub use report::{
    Diagnostic, Evaluation, Isolation, Outcome, OutputMetrics, Severity, ShapeOrigin, ShapeProfile,
    ShapeResult, ShapeStatus, Stage, Timings, KINDS,
};
pub use toolchain::{SimToolchain, SocProfile, ToolchainError};
