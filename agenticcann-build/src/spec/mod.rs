//! Operator specs: the `[package.metadata.agenticcann]` schema (DESIGN §3), typed and
//! validated, with the reference language that defines each op.
//!
//! ```toml
//! [package.metadata.agenticcann]
//! soc = "Ascend910B1"            # required here or in [workspace.metadata.agenticcann]
//! kernels = "kernels"            # crate-relative store folder (default "kernels")
//! tolerance = { f16 = { atol = 2e-3, rtol = 2e-3 } }   # per-dtype defaults for all ops
//! init = { f16 = "normal(0, 1)" }                      # per-dtype default distributions
//!
//! [package.metadata.agenticcann.ops.rms_norm]
//! inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
//! outputs = { y = "f16[rows, 4096]" }
//! attrs   = { eps = 1e-6 }                             # floats, integers, booleans
//! reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
//! shapes  = [{ rows = 1 }, { rows = 7 }, { rows = 2048 }]
//! tolerance = { atol = 1e-3, rtol = 1e-3 }             # optional, all outputs of the op
//! init = { gamma = "uniform(0.5, 1.5)" }               # optional, per input
//! pattern = "normalization"                            # optional
//! eager = { source = "…", recipe = "…", vendor = "…" } # optional: the baseline (see [`eager`])
//! ```
//!
//! `[workspace.metadata.agenticcann]` takes `soc`, `kernels`, `tolerance` and `init` as
//! defaults for every member; package values override workspace values, op values override
//! both, then the built-in defaults apply ([`Tolerance::default_for`], [`Init::default_for`]).
//!
//! Load with [`Spec::from_manifest_path`] (build scripts: reads `Cargo.toml` with `toml`,
//! never runs `cargo metadata`) or [`check_manifest_path`] for a per-op report.

mod attr;
mod dtype;
pub mod eager;
mod error;
pub mod init;
mod manifest;
mod op;
mod pattern;
pub mod reference;
mod shape;
mod soc;
mod tolerance;
mod validate;

pub use attr::AttrValue;
pub use dtype::{cast_array_to_dtype, cast_to_dtype, Dtype, UnknownDtype};
pub use eager::EagerRecipe;
pub use error::{Problem, SpecError};
pub use init::{generate_inputs, Init};
pub use manifest::{
    check_manifest_path, check_manifest_str, find_workspace_root, ManifestReport, OpReport,
};
pub use op::{
    Attr, Input, KernelParam, OpSpec, Output, ParamRole, Spec, UnknownOp, MAX_ELEMENTS,
    MAX_EVAL_ELEMENTS,
};
pub use pattern::{Pattern, UnknownPattern};
pub use reference::{evaluate, infer_shapes, Expr, ExprKind, Reference, ReferenceError};
pub use shape::{
    is_identifier, BindError, Dim, DimBinding, ShapeTemplate, TensorDecl, TensorDeclError,
};
pub use soc::{Arch, Soc, UnknownSoc};
pub use tolerance::{OpClass, Tolerance};
