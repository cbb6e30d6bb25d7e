//! Shared by the tests that build a program from one of `tests/*.cpp` against this crate's
//! `libascendc_sim.a`, run it, and read one JSON line per case: the crate folder, the build,
//! the `// expect: <kind> [in <case>]` markers and a result's diagnostics.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The warnings every program here is built with.
pub const STRICT: &[&str] = &["-Wall", "-Wextra", "-Werror"];

/// This crate's folder.
pub fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds `tests/<source>` (`-std=c++20 -O1` and `warnings`) into the test target folder as
/// `program`; returns its path. Panics (the test fails) when it does not build.
pub fn build(source: &str, program: &str, warnings: &[&str]) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(program);
    // The simulator cannot use agenticcann_build::env (which depends on it).
    #[allow(clippy::disallowed_methods)]
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let lib = Path::new(env!("OUT_DIR")).join("libascendc_sim.a");
    let status = Command::new(&cxx)
        .args(["-std=c++20", "-O1"])
        .args(warnings)
        .arg("-I")
        .arg(manifest().join("include"))
        .arg(manifest().join("tests").join(source))
        .arg(&lib)
        .args(["-lpthread", "-o"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    assert!(status.success(), "building tests/{source} failed");
    out
}

/// (case, kind, line) from the `// expect: <kind> [in <case>]` markers of `tests/<source>`;
/// without `in`, the case is the `__aicore__ void` function the marker is in.
pub fn expectations(source: &str) -> Vec<(String, String, u64)> {
    let src = std::fs::read_to_string(manifest().join("tests").join(source)).unwrap();
    let mut current = String::new();
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        if let Some(rest) = line.trim_start().strip_prefix("__aicore__ void ") {
            current = rest.split('(').next().unwrap().to_string();
        }
        if let Some(pos) = line.find("// expect: ") {
            let spec = line[pos + "// expect: ".len()..].trim();
            let (kind, case) = match spec.split_once(" in ") {
                Some((k, c)) => (k.trim(), c.trim().to_string()),
                None => (spec, current.clone()),
            };
            out.push((case, kind.to_string(), i as u64 + 1));
        }
    }
    out
}

/// A LaunchResult's diagnostics.
pub fn diags(r: &Value) -> &Vec<Value> {
    r["diagnostics"].as_array().expect("diagnostics array")
}
