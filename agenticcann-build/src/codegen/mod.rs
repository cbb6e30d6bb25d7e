//! Codegen (DESIGN §5 step 4): the C headers of the tiling ABI, the Rust FFI through bindgen,
//! and the safe wrapper module `ops`.
//!
//! - [`tiling_header`]: `agenticcann_tiling.h` of one store entry (docs/store-format.md §6).
//! - [`ops_header`]: `agenticcann_ops.h` of a crate: every entry's tiling struct, tiling
//!   function and launcher; the input of [`bindgen_ops_header`].
//! - [`ops_module`]: `agenticcann_ops.rs`, one safe function per op.
//! - [`names`]: the key-derived symbol names all of them share.

mod ffi;
mod header;
pub mod names;
mod wrappers;

pub use ffi::bindgen_ops_header;
pub use header::{
    launcher_params, ops_header, tiling_header, tiling_header_for, tiling_struct_size, HeaderEntry,
};
pub use wrappers::{ops_module, wrapper_dims, WrapperMode, WrapperOp, MAX_TENSOR_ELEMENTS};
