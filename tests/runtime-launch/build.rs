//! Compiles the test kernels and their launchers against the simulator, taking the header
//! folder from agenticcann's link metadata (`DEP_AGENTICCANN_SIM_INCLUDE`), as a user
//! crate's build script does. On the CANN backend nothing is compiled and the launch tests
//! are left out (they need the simulator's diagnostics and cost model).

#[allow(clippy::disallowed_methods)] // The script's one environment reader.
fn env_var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn main() {
    println!("cargo:rustc-check-cfg=cfg(kernels_on_sim)");
    println!("cargo:rerun-if-changed=kernels");
    if env_var("DEP_AGENTICCANN_BACKEND").as_deref() != Some("sim") {
        return;
    }
    let Some(include) = env_var("DEP_AGENTICCANN_SIM_INCLUDE") else {
        eprintln!("error: agenticcann's backend is sim but it exported no sim_include");
        std::process::exit(1);
    };
    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .include(&include)
        .include("kernels")
        .flag("-Wall")
        .flag("-Werror")
        .files([
            "kernels/copy_f32.cpp",
            "kernels/ub_overflow.cpp",
            "kernels/launchers.cpp",
        ])
        .compile("runtime_launch_kernels");
    println!("cargo:rustc-cfg=kernels_on_sim");
}
