//! Build script of `agenticcann`: decides the backend once for the whole build and links it.
//!
//! * `AGENTICCANN_BACKEND=cann|sim|auto` (default auto). Auto picks CANN when a toolkit
//!   is found (`ASCEND_TOOLKIT_HOME`, `ASCEND_HOME_PATH`, then the standard install
//!   paths, validated by probing `acl/acl.h` and `libascendcl.so`) and says which backend
//!   it chose in one `cargo:warning`.
//! * sim: links the `ascendc_sim` static library that the `ascendc-sim` build script
//!   produced (`DEP_ASCENDC_SIM_LIB_DIR`), plus the C++ runtime and pthread.
//! * cann: links `ascendcl` and `runtime` from the toolkit's `lib64` (the vendor's
//!   documented link line for host code that launches kernels, api-reference §6.5).
//! * `DOCS_RS`: links nothing (docs only).
//!
//! Metadata for dependents' build scripts (`links = "agenticcann"`), read there as
//! `DEP_AGENTICCANN_<KEY>`: `backend` (`sim`/`cann`), `sim_include` (the simulator's
//! header folder, for compiling kernels against it), `sim_profiles` (its SoC profile
//! folder), `toolkit` (the CANN root; empty on sim).

#[allow(dead_code)]
#[path = "build/discovery.rs"]
mod discovery;

use discovery::{Decision, Requested};

/// Every environment read goes through here, so Cargo re-runs the script when it changes
/// (this crate cannot use `agenticcann_build::env`, which depends on it).
#[allow(clippy::disallowed_methods)] // The script's one environment reader.
fn env_var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/discovery.rs");
    println!("cargo:rustc-check-cfg=cfg(agenticcann_backend, values(\"sim\", \"cann\"))");

    let sim_include = env_var("DEP_ASCENDC_SIM_INCLUDE");
    let sim_profiles = env_var("DEP_ASCENDC_SIM_PROFILES");
    let sim_lib_dir = env_var("DEP_ASCENDC_SIM_LIB_DIR");
    println!("cargo:sim_include={}", sim_include.as_deref().unwrap_or(""));
    println!(
        "cargo:sim_profiles={}",
        sim_profiles.as_deref().unwrap_or("")
    );

    if env_var("DOCS_RS").is_some() {
        // docs.rs: no toolkit, no C++ build products; document the simulator API too.
        println!("cargo:rustc-cfg=agenticcann_backend=\"sim\"");
        println!("cargo:backend=sim");
        println!("cargo:toolkit=");
        return;
    }

    let requested =
        Requested::parse(env_var("AGENTICCANN_BACKEND").as_deref()).unwrap_or_else(|e| fail(&e));
    let target_arch = env_var("CARGO_CFG_TARGET_ARCH").unwrap_or_else(|| "x86_64".into());
    let home = env_var("HOME");
    let standard = discovery::standard_roots(home.as_deref());
    let (decision, note) = discovery::decide(requested, &env_var, &target_arch, &standard)
        .unwrap_or_else(|e| fail(&e));
    if let Some(note) = note {
        println!("cargo:warning={note}");
    }

    match decision {
        Decision::Sim => {
            let lib_dir = sim_lib_dir.unwrap_or_else(|| {
                fail(
                    "backend sim, but the ascendc-sim build script exported no lib_dir \
                     (DEP_ASCENDC_SIM_LIB_DIR is unset): ascendc-sim must print \
                     cargo:lib_dir=<folder of libascendc_sim.a>",
                )
            });
            println!("cargo:rustc-cfg=agenticcann_backend=\"sim\"");
            println!("cargo:rustc-link-search=native={lib_dir}");
            println!("cargo:rustc-link-lib=static=ascendc_sim");
            println!("cargo:rustc-link-lib=dylib=stdc++");
            println!("cargo:rustc-link-lib=dylib=pthread");
            println!("cargo:backend=sim");
            println!("cargo:toolkit=");
        }
        Decision::Cann(tk) => {
            println!("cargo:rustc-cfg=agenticcann_backend=\"cann\"");
            println!("cargo:rustc-link-search=native={}", tk.lib_dir.display());
            println!("cargo:rustc-link-lib=dylib=ascendcl");
            println!("cargo:rustc-link-lib=dylib=runtime");
            println!(
                "cargo:rerun-if-changed={}",
                tk.include_dir.join("acl/acl.h").display()
            );
            println!("cargo:backend=cann");
            println!("cargo:toolkit={}", tk.root.display());
        }
    }
}
