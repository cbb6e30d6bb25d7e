//! Exact semantics (fp16/bf16 conversions, Cast round modes, masks and strides, fp16
//! accumulation, DataCopy truncation, DataCopyPad placement, Compare groups, reductions):
//! `tests/semantics.cpp` checks them value by value inside simulated kernels.

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn semantics_checks_pass() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("semantics");
    // The simulator cannot use agenticcann_build::env (which depends on it).
    #[allow(clippy::disallowed_methods)]
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let status = Command::new(&cxx)
        .args(["-std=c++20", "-O1", "-Wall", "-Werror", "-I"])
        .arg(root.join("include"))
        .arg(root.join("tests/semantics.cpp"))
        .arg(Path::new(env!("OUT_DIR")).join("libascendc_sim.a"))
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    assert!(status.success(), "building tests/semantics.cpp failed");
    let out = Command::new(&exe).output().expect("running semantics");
    let text = String::from_utf8_lossy(&out.stdout);
    let failed: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.lines().filter(|l| l.starts_with("ok ")).count() >= 15,
        "{text}"
    );
}
