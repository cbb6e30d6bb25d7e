//! Builds the simulator runtime: every `.cpp` under `src/` (recursively, so the cost model
//! in `src/cost/` and the AscendCL subset in `src/acl/` are included) into the static
//! library `libascendc_sim.a` in `OUT_DIR`, as C++20 at `-O2` whatever the Cargo profile
//! (simulation speed matters in every test).
//!
//! It does not link the library into anything itself: the `agenticcann` crate links it when
//! it chooses the simulator backend. Direct dependents get, through `links = "ascendc_sim"`:
//! `DEP_ASCENDC_SIM_INCLUDE` (headers: `kernel_operator.h`, `tikicpulib.h`, `acl/`),
//! `DEP_ASCENDC_SIM_LIB_DIR` (the folder holding `libascendc_sim.a`) and
//! `DEP_ASCENDC_SIM_PROFILES` (the shipped SoC profiles).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn collect_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => panic!("ascendc-sim build: cannot read {}: {e}", dir.display()),
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            collect_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "cpp") {
            out.push(p);
        } else if p.extension().is_some_and(|e| e == "h") {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}

fn watch_tree(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                watch_tree(&p);
            } else {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
}

/// A variable Cargo sets for this script (the simulator cannot use `agenticcann_build::env`,
/// which depends on it).
#[allow(clippy::disallowed_methods)] // The script's one environment reader.
fn cargo_env(name: &str) -> String {
    env::var(name).unwrap_or_else(|_| panic!("{name} is set by Cargo"))
}

fn main() {
    let manifest = PathBuf::from(cargo_env("CARGO_MANIFEST_DIR"));
    let include = manifest.join("include");
    let src = manifest.join("src");
    let profiles = manifest.join("profiles");
    let out_dir = PathBuf::from(cargo_env("OUT_DIR"));

    println!("cargo:rerun-if-changed={}", src.display());
    let mut sources = Vec::new();
    collect_sources(&src, &mut sources);
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }
    watch_tree(&include);
    watch_tree(&profiles);

    // A missing compiler is the usual first-build failure: name the fix, not just cc's error.
    let compiler = cc::Build::new().cpp(true).get_compiler();
    if let Err(e) = std::process::Command::new(compiler.path())
        .arg("--version")
        .output()
    {
        if e.kind() == std::io::ErrorKind::NotFound {
            panic!(
                "ascendc-sim build: the C++ compiler `{}` was not found; install one with \
                 `sudo apt-get install g++` (Debian/Ubuntu; g++ >= 12 or clang >= 16 for C++20), \
                 or set CXX to a C++20 compiler",
                compiler.path().display()
            );
        }
    }

    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .opt_level(2)
        .include(&include)
        .include(&src)
        .define(
            "ASCENDC_SIM_PROFILE_DIR",
            format!("\"{}\"", profiles.display()).as_str(),
        )
        .files(&sources)
        .cargo_metadata(false)
        .compile("ascendc_sim");

    println!("cargo:include={}", include.display());
    println!("cargo:lib_dir={}", out_dir.display());
    println!("cargo:profiles={}", profiles.display());
}
