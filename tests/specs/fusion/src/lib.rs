//! Operator suite `fusion`: specs only (see Cargo.toml); nothing to build.
