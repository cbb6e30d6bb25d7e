//! Compiles the simulator's test kernels (`ascendc-sim/tests/kernels/*.cpp`) and their
//! `aclrtlaunch_<kernel>` launchers with `-Wall -Wextra -Werror` against the simulator headers
//! that `agenticcann` exports (`DEP_AGENTICCANN_SIM_INCLUDE`), as a user crate's build script
//! does. On the CANN backend nothing is built and the tests are left out.

use std::path::PathBuf;

#[allow(clippy::disallowed_methods)] // The script's one environment reader.
fn env_var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn main() {
    println!("cargo:rustc-check-cfg=cfg(kernels_on_sim)");
    let manifest = PathBuf::from(env_var("CARGO_MANIFEST_DIR").expect("set by Cargo"));
    let kernels = manifest.join("../../ascendc-sim/tests/kernels");
    println!("cargo:rerun-if-changed={}", kernels.display());
    println!("cargo:rerun-if-changed=kernels");
    if env_var("DEP_AGENTICCANN_BACKEND").as_deref() != Some("sim") {
        return;
    }
    let Some(include) = env_var("DEP_AGENTICCANN_SIM_INCLUDE") else {
        eprintln!("error: agenticcann's backend is sim but it exported no sim_include");
        std::process::exit(1);
    };
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&kernels)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", kernels.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }
    sources.push(manifest.join("kernels/launchers.cpp"));
    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .opt_level(2)
        .include(&include)
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Werror")
        .files(&sources)
        .compile("sim_test_kernels");
    println!("cargo:rustc-cfg=kernels_on_sim");
}
