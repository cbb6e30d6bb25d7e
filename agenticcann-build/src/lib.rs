//! `agenticcann-build`: everything a build needs, reused by the `cargo agenticcann` CLI.
//!
//! - [`spec`]: the `[package.metadata.agenticcann]` schema, typed and validated
//!   ([`spec::Spec`], [`spec::OpSpec`]), and the reference language that defines each op
//!   ([`spec::reference`]: parser, shape inference, f64 evaluator), with dtype casting and
//!   seeded input generation for verification.
//! - [`key`]: content keys ([`key::Key`]) over a canonical encoding of an op.
//! - [`kinds`]: every diagnostic kind (simulator, compiler, judge) in one list.
//! - [`knowledge`]: the knowledge base, the pattern router and phase-specific prompts.
//! - [`suite`]: the operator suite of `tests/specs/`, labelled by pattern.
//! - [`codegen`]: the generated C headers of the tiling ABI (`agenticcann_tiling.h` per entry,
//!   `agenticcann_ops.h` per crate), bindgen FFI and the safe `ops` wrapper module.
//! - [`store`]: kernel store entries (verified against their digests), the user cache, the
//!   HTTP remote and `agenticcann.lock`.
//!
//! ```
//! use agenticcann_build::spec::Spec;
//!
//! let manifest = r#"
//! [package]
//! name = "demo"
//! version = "0.1.0"
//!
//! [package.metadata.agenticcann]
//! soc = "Ascend910B1"
//!
//! [package.metadata.agenticcann.ops.rms_norm]
//! inputs  = { x = "f16[rows, 8]", gamma = "f16[8]" }
//! outputs = { y = "f16[rows, 8]" }
//! attrs   = { eps = 1e-6 }
//! reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
//! shapes  = [{ rows = 3 }]
//! "#;
//! let spec = Spec::from_manifest_str(manifest, None).unwrap().unwrap();
//! let op = &spec.ops[0];
//! let inputs = op.generate_inputs(op.smallest_shape(), 42).unwrap();
//! let golden = op.golden(&inputs).unwrap();
//! assert_eq!(golden["y"].shape(), &[3, 8]);
//! assert_eq!(op.key().to_string().len(), 64);
//! ```

pub mod codegen;
pub mod judge;
pub mod key;
pub mod kinds;
pub mod knowledge;
pub mod spec;
pub mod store;
pub mod suite;
