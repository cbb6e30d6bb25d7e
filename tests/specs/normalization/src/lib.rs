//! Operator suite `normalization`: specs only (see Cargo.toml); nothing to build.
