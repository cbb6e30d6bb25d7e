//! `agenticcann`: the safe runtime Rust inference crates link to launch Ascend C kernels.
