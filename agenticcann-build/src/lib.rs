//! `agenticcann-build`: everything a build needs, reused by the `cargo agenticcann` CLI (the
//! knowledge base, the operator suite and the evolution engine live in `agenticcann-evolve`,
//! which is not a build dependency).
//!
//! - [`spec`]: the `[package.metadata.agenticcann]` schema, typed and validated
//!   ([`spec::Spec`], [`spec::OpSpec`]), and the reference language that defines each op
//!   ([`spec::reference`]: parser, shape inference, the integer-index check, f64 evaluator;
//!   elementwise maps, reductions, numpy subscripts, `concat`, `iota`, `argmax`/`argmin`,
//!   `take_along_axis`), with dtype casting and
//!   seeded input generation for verification.
//! - [`key`]: content keys ([`key::Key`]) over a canonical encoding of an op.
//! - [`codegen`]: the generated C headers of the tiling ABI (`agenticcann_tiling.h` per entry,
//!   `agenticcann_ops.h` per crate), bindgen FFI and the safe `ops` wrapper module.
//! - [`store`]: kernel store entries (verified against their digests; written from a
//!   [`store::Draft`] with their provenance), the user cache, the HTTP remote and
//!   `agenticcann.lock` ([`store::lock::pin`]).
//! - [`judge`]: every candidate kernel's gate, as stages callable one by one
//!   ([`judge::Prepared::new`], [`judge::check_policy`], [`judge::compile`], [`judge::run`],
//!   [`judge::verify`], [`judge::profile`]) or chained by [`judge::evaluate`]; the judge's
//!   own failures are a typed [`judge::JudgeError`], never a verdict.
//! - [`kinds`]: every diagnostic kind (simulator, compiler classifier, policy, judge) in one
//!   registry, [`kinds::ALL`].
//! - [`Builder`]: the build-script face, shaped like `cc::Build`; [`toolchain`] (`sim`, the one
//!   simulator toolchain the judge shares; `cann`) and [`env`](mod@env) (the one environment
//!   reader: every read in a build script announces its `rerun-if-env-changed`, every boolean
//!   goes through one parser).
//!
//! # Using it from a crate
//!
//! `Cargo.toml` (the crate must depend on `agenticcann` directly: its build script tells
//! this one the backend and where the simulator's headers are):
//!
//! ```toml
//! [dependencies]
//! agenticcann = "0.1"
//! half = "2"
//!
//! [build-dependencies]
//! agenticcann-build = "0.1"
//!
//! [package.metadata.agenticcann]
//! soc = "Ascend910B1"
//! kernels = "kernels"          # store folder: kernels/<key>/{manifest.toml,kernel.cpp,tiling.cpp}
//!
//! [package.metadata.agenticcann.ops.rms_norm]
//! inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
//! outputs = { y = "f16[rows, 4096]" }
//! attrs   = { eps = 1e-6 }
//! reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
//! shapes  = [{ rows = 1 }, { rows = 7 }, { rows = 2048 }]
//! ```
//!
//! `build.rs`:
//!
//! ```ignore
//! fn main() {
//!     agenticcann_build::Builder::from_env().build();
//! }
//! ```
//!
//! `src/main.rs`:
//!
//! ```ignore
//! agenticcann::include_ops!(); // `mod ops`, from $OUT_DIR/agenticcann_ops.rs
//!
//! fn main() -> Result<(), agenticcann::Error> {
//!     let rows = 7;
//!     let host_x = vec![half::f16::from_f32(0.5); rows * 4096];
//!     let host_gamma = vec![half::f16::ONE; 4096];
//!     let dev = agenticcann::Device::new(0)?;
//!     let stream = dev.stream()?;
//!     let x = agenticcann::DeviceBuffer::from_slice(&stream, &host_x)?;
//!     let gamma = agenticcann::DeviceBuffer::from_slice(&stream, &host_gamma)?;
//!     let mut y = agenticcann::DeviceBuffer::<half::f16>::zeros(&stream, rows * 4096)?;
//!     ops::rms_norm(&stream, &x, &gamma, &mut y, rows)?;
//!     let out: Vec<half::f16> = y.to_vec(&stream)?; // synchronizes
//!     assert_eq!(out.len(), rows * 4096);
//!     Ok(())
//! }
//! ```
//!
//! Each op becomes `ops::<op>(&Stream, &DeviceBuffer<T> per input (manifest order),
//! &mut DeviceBuffer<T> per output, named dimensions as usize (order of first appearance))
//! -> Result<(), agenticcann::Error>`; see [`codegen::ops_module`] for what it checks.
//! `tests/build-fixture` in this repository is a complete example.
//!
//! # Environment variables
//!
//! Read by [`Builder`] (each through [`env::Env`], which prints
//! `cargo:rerun-if-env-changed`):
//!
//! - `CARGO_MANIFEST_DIR`, `OUT_DIR`, `TARGET`, `HOST`, `NUM_JOBS` — set by Cargo.
//! - `DEP_AGENTICCANN_BACKEND` (`sim`/`cann`), `DEP_AGENTICCANN_SIM_INCLUDE`,
//!   `DEP_AGENTICCANN_TOOLKIT` — set by Cargo from `agenticcann`'s build script, which
//!   reads `AGENTICCANN_BACKEND=cann|sim|auto` and discovers the CANN toolkit
//!   (`ASCEND_TOOLKIT_HOME`, `ASCEND_HOME_PATH`, standard paths). Kernels are built for the
//!   backend the runtime links.
//! - `AGENTICCANN_CACHE_DIR` — the user cache (store root); default `agenticcann/store`
//!   in the platform cache dir (on Linux `$XDG_CACHE_HOME`, else `$HOME/.cache`; both read
//!   only when `AGENTICCANN_CACHE_DIR` is unset). When set, entries (64-hex folders) live
//!   directly in it and the judge keeps its compile cache (PCH, harness) in its `judge/`
//!   subfolder, a name no key can take; by default the two are `agenticcann/store` and
//!   `agenticcann/judge` side by side.
//! - `AGENTICCANN_REMOTE` — `http(s)://host[:port][/prefix]` of a Bazel-HTTP-cache remote
//!   store; entries fetched from it are verified and written into the user cache.
//! - `AGENTICCANN_OFFLINE` — any value but `0`/`false`/`no`/`off`: never contact the remote.
//! - `AGENTICCANN_NO_SYNTH` — any value but `0`/`false`/`no`/`off`: a store miss is an error
//!   instead of a kernel synthesized by the offline proposer ([`synth`]), verified by the judge
//!   and cached in `OUT_DIR/agenticcann/synth/` with a `cargo:warning` per op
//!   (`Builder::synth_on_miss` overrides it).
//! - `DOCS_RS` — generate documentation stubs only; look nothing up, compile nothing.
//! - `AGENTICCANN_CXX`, else `CXX`, else `g++` — the simulator backend's C++20 compiler, the
//!   one the judge uses too ([`toolchain::sim::SimToolchain`]). A compiler that does not exist
//!   is a toolchain error naming [`toolchain::INSTALL_CXX`]. The flags are fixed
//!   ([`toolchain::sim::FLAGS`], `-O2`; `CXXFLAGS` is not read) so that the judge judges the
//!   object the crate links; `Builder::flag` adds flags to both.
//! - `AGENTICCANN_SIM_LIB_DIR`, `AGENTICCANN_SIM_PROFILES` — the simulator's library and SoC
//!   profiles for judging a store miss (default: the paths baked in at build time).
//!
//! Booleans (`AGENTICCANN_OFFLINE`, `AGENTICCANN_NO_SYNTH`) are parsed by
//! [`env::parse_flag`]: `0`, `false`, `no`, `off` and empty are false, anything else true.
//! The `cmake` crate reads its own variables on the CANN backend.
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

mod builder;
pub mod codegen;
pub mod env;
pub mod judge;
pub mod key;
pub mod kinds;
pub mod spec;
pub mod store;
pub mod synth;
pub mod toolchain;

pub use builder::{miss_message, BuildReport, Builder, BuiltOp, Error, ErrorKind, Miss};
