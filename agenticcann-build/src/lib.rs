//! `agenticcann-build`: everything a build needs, reused by the `cargo agenticcann` CLI.
