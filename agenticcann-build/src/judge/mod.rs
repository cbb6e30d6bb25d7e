//! The judge: every candidate kernel passes it before it is accepted (DESIGN §8, §9).
//!
//! `policy` → `compile` → `run` (a separate, limited process) → `verify` → `profile`.

pub mod compile;
pub mod policy;
pub mod report;
pub mod sandbox;
pub mod toolchain;
pub mod verify;

pub use report::{
    Diagnostic, Evaluation, Isolation, Outcome, OutputMetrics, Severity, ShapeOrigin, ShapeProfile,
    ShapeResult, ShapeStatus, Stage, Timings,
};
