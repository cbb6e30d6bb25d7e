//! Builds `trace_driver`, a small executable that replays synthetic hook scripts through
//! the cost model. It is compiled from `cpp/trace_driver.cpp` and
//! `ascendc-sim/src/cost/*.cpp` only, with the compiler `cc` would use, so the timeline
//! engine is tested without the kernel-side simulator. The path reaches the tests as
//! `env!("COST_TRACE_DRIVER")`.
//!
//! It also compiles the test kernels (`kernels/*.cpp`, ordinary Ascend C) and the host
//! harness (`cpp/harness.cpp`) against the simulator's headers into a static library
//! linked with `libascendc_sim.a`, which ascendc-sim's build script provides
//! (`DEP_ASCENDC_SIM_INCLUDE`, `DEP_ASCENDC_SIM_LIB_DIR`).
//!
//! It also compiles the test kernels (`kernels/*.cpp`, ordinary Ascend C) and the host
//! harness (`cpp/harness.cpp`) against the simulator's headers into a static library
//! linked with `libascendc_sim.a`, which ascendc-sim's build script provides
//! (`DEP_ASCENDC_SIM_INCLUDE`, `DEP_ASCENDC_SIM_LIB_DIR`).
use std::path::{Path, PathBuf};
use std::process::Command;

/// A variable Cargo sets for this script (it cannot use `agenticcann_build::env`).
#[allow(clippy::disallowed_methods)] // The script's one environment reader.
fn cargo_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("Cargo sets {name}"))
}

fn main() {
    let manifest = PathBuf::from(cargo_env("CARGO_MANIFEST_DIR"));
    let sim = manifest
        .join("../../ascendc-sim")
        .canonicalize()
        .expect("ascendc-sim next to tests/");
    let out = PathBuf::from(cargo_env("OUT_DIR"));
    let cost_src = sim.join("src/cost");

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&cost_src)
        .expect("ascendc-sim/src/cost")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    sources.push(manifest.join("cpp/trace_driver.cpp"));

    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed={}", cost_src.display());
    println!(
        "cargo:rerun-if-changed={}",
        sim.join("include/ascendc_sim").display()
    );
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }

    let exe = out.join("trace_driver");
    let compiler = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .get_compiler();
    let mut cmd: Command = compiler.to_command();
    cmd.args(["-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", sim.join("include").display()))
        .args(&sources)
        .arg("-o")
        .arg(&exe)
        .arg("-lpthread");
    run(cmd, &exe);
    println!("cargo:rustc-env=COST_TRACE_DRIVER={}", exe.display());
    println!(
        "cargo:rustc-env=COST_PROFILE_DIR={}",
        sim.join("profiles").display()
    );

    build_kernels(&manifest);
}

fn build_kernels(manifest: &Path) {
    let include = cargo_env("DEP_ASCENDC_SIM_INCLUDE");
    let lib_dir = cargo_env("DEP_ASCENDC_SIM_LIB_DIR");
    let mut files: Vec<PathBuf> = std::fs::read_dir(manifest.join("kernels"))
        .expect("tests/cost-model/kernels")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    files.push(manifest.join("cpp/harness.cpp"));
    println!("cargo:rerun-if-changed=kernels");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .opt_level(2)
        .include(&include)
        .include(manifest.join("kernels"))
        .flag("-Wall")
        .flag("-Werror")
        .files(&files)
        .compile("cost_kernels");
    println!("cargo:rustc-link-search=native={lib_dir}");
    println!("cargo:rustc-link-lib=static=ascendc_sim");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
}

fn run(mut cmd: Command, exe: &Path) {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler ({cmd:?}): {e}"));
    if !output.status.success() {
        panic!(
            "building {} failed ({:?}):\n{}{}",
            exe.display(),
            cmd,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
