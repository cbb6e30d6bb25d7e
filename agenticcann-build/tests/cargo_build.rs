//! Real `cargo build`s of the fixture crate (tests/build-fixture, a member of this
//! workspace, built in this workspace's target folder): once the kernels are built, a
//! `cargo build` with nothing changed does not run the build script, and a re-run forced by
//! a newer kernel file with the same content compiles no kernel (every object is reused).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::SystemTime;

use common::*;

fn target_dir() -> PathBuf {
    // This test binary is <target>/<profile>/deps/<name>.
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

/// `cargo build -vv -p build-fixture --lib` in this workspace; the build scripts' output
/// (including agenticcann-build's `compiled …` / `up to date …` lines) is in the `-vv` log.
fn cargo_build() -> String {
    let cargo = agenticcann_build::env::var("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "-vv", "--offline", "-p", "build-fixture", "--lib"])
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "cargo build failed:\n{text}");
    text
}

fn count(out: &str, pat: &str) -> usize {
    out.lines().filter(|l| l.contains(pat)).count()
}

#[test]
fn second_cargo_build_recompiles_no_kernel() {
    // Whatever this first build has to do (maybe everything, maybe nothing).
    cargo_build();

    let again = cargo_build();
    assert_eq!(count(&again, "agenticcann-build:"), 0, "{again}");
    assert_eq!(count(&again, "Fresh build-fixture"), 1, "{again}");

    // A kernel file Cargo sees as newer (same bytes): the build script re-runs, but every
    // object's content fingerprint matches, so nothing compiles.
    let k = fixture_src()
        .join("kernels")
        .join(ADD_F16)
        .join("kernel.cpp");
    let f = std::fs::File::options().append(true).open(&k).unwrap();
    f.set_modified(SystemTime::now()).unwrap();
    drop(f);
    let rerun = cargo_build();
    assert_eq!(count(&rerun, "agenticcann-build: compiled"), 0, "{rerun}");
    assert_eq!(
        count(&rerun, "agenticcann-build: up to date agc_"),
        10,
        "{rerun}"
    );

    // Every environment variable the build read re-runs it when it changes.
    for var in [
        "CARGO_MANIFEST_DIR",
        "OUT_DIR",
        "DOCS_RS",
        "AGENTICCANN_CACHE_DIR",
        "AGENTICCANN_REMOTE",
        "AGENTICCANN_OFFLINE",
        "DEP_AGENTICCANN_BACKEND",
        "DEP_AGENTICCANN_SIM_INCLUDE",
        "TARGET",
        "HOST",
        "NUM_JOBS",
    ] {
        let line = format!("[build-fixture 0.0.0] cargo:rerun-if-env-changed={var}");
        let n = rerun.lines().filter(|l| l.trim_end() == line).count();
        assert_eq!(n, 1, "{var}:\n{rerun}");
    }

    let last = cargo_build();
    assert_eq!(count(&last, "agenticcann-build:"), 0, "{last}");
}
