//! Operator suite `elementwise`: specs only (see Cargo.toml); nothing to build.
