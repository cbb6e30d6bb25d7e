//! Operator suite `softmax`: specs only (see Cargo.toml); nothing to build.
