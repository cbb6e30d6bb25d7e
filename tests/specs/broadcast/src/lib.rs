//! Operator suite `broadcast`: specs only (see Cargo.toml); nothing to build.
