//! A crate that uses agenticcann as a user would: ops declared in `Cargo.toml`, kernels in
//! `kernels/`, and the generated safe wrappers brought in here.

agenticcann::include_ops!();
