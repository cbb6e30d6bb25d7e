//! Builds the kernels of the ops declared in `Cargo.toml` (`[package.metadata.agenticcann]`)
//! from the committed store `kernels/` and generates their safe wrappers
//! (`$OUT_DIR/agenticcann_ops.rs`, brought in by `agenticcann::include_ops!()` in
//! `src/kernels/mod.rs`). Only with the `kernels` feature.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "kernels")]
    agenticcann_build::Builder::from_env().build();
}
