//! all-MiniLM-L6-v2 sentence embeddings in Rust, with every vector operation behind
//! [`ops::VectorOps`] so that generated Ascend C kernels (declared in this crate's
//! `Cargo.toml`) run them; matrix products run on the host ([`matmul`], ndarray +
//! matrixmultiply).
//!
//! Modules, in data-flow order: [`fetch`] (find or download the model), [`tokenize`],
//! [`weights`] (config + safetensors), [`model`] (the encoder), [`ops`] (the vector-op
//! trait, its host reference and the cost log), `kernels` (feature `kernels`: the trait on
//! generated kernels, fused and eager), [`pipeline`] (model directory → embedder),
//! [`similarity`], [`cli`]. [`reference64`] is an independent f64 implementation for tests.

pub mod cli;
pub mod fetch;
#[cfg(feature = "kernels")]
pub mod kernels;
pub mod matmul;
pub mod model;
pub mod ops;
pub mod pipeline;
pub mod reference64;
pub mod similarity;
pub mod tokenize;
pub mod weights;
