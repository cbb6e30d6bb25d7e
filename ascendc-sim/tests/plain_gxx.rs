//! The "plain compiler line" of the crate README works: a kernel and a CANN-style host
//! harness (tikicpulib.h, ICPU_RUN_KF) build with one g++ command over the headers and the
//! runtime sources — no Cargo, no CMake — and the program computes the right result.

use std::path::{Path, PathBuf};
use std::process::Command;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "cpp") {
            out.push(p);
        }
    }
}

#[test]
fn kernel_and_harness_build_with_one_gxx_line_and_run() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("add_plain_gxx");
    let mut srcs = Vec::new();
    sources(&root.join("src"), &mut srcs);
    // The simulator cannot use agenticcann_build::env (which depends on it).
    #[allow(clippy::disallowed_methods)]
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    // The README line, run from the workspace root (relative paths, as a user types it).
    let status = Command::new(&cxx)
        .current_dir(root.parent().unwrap())
        .args(["-std=c++20", "-I", "ascendc-sim/include"])
        .arg("ascendc-sim/tests/kernels/add_custom.cpp")
        .arg("ascendc-sim/tests/harness/add_main.cpp")
        .args(
            srcs.iter()
                .map(|p| p.strip_prefix(root.parent().unwrap()).unwrap()),
        )
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    assert!(status.success(), "the one-line build failed");
    for (n, blocks) in [("4097", "7"), ("1", "3"), ("48", "48")] {
        let out = Command::new(&exe)
            .current_dir(root.parent().unwrap())
            .args([n, blocks])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "n={n} blocks={blocks}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.starts_with("0 mismatches"), "{text}");
        assert!(text.contains("kernel add_custom on Ascend910B1"), "{text}");
    }
}
