//! `cargo agenticcann bench` as a binary: the usage errors that stop it before anything is
//! judged (the benchmark itself is tested on a small subset in agenticcann-evolve's
//! `tests/bench.rs`).

use snapbox::cmd::{cargo_bin, Command};

fn bench() -> Command {
    Command::new(cargo_bin!("cargo-agenticcann")).args(["agenticcann", "bench"])
}

#[test]
fn llm_proposer_is_not_available_yet() {
    for p in ["llm", "both"] {
        let out = bench().args(["--proposer", p]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--proposer {p}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not available"), "{err}");
        assert!(err.contains("--proposer offline"), "{err}");
    }
}

#[test]
fn bad_filters_are_usage_errors() {
    let out = bench().args(["--filter", "(unclosed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --filter"));
    let out = bench()
        .args(["--filter", "^no_such_op_anywhere$"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no op of"));
}

#[test]
fn a_suite_folder_that_is_not_a_suite_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("nonsense")).unwrap();
    let out = bench().arg("--suite").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a pattern folder"), "{err}");
}
