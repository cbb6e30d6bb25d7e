//! Operator suite `reduction`: specs only (see Cargo.toml); nothing to build.
