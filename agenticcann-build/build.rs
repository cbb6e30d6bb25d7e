//! Bakes the simulator's locations into the crate for the judge
//! (`agenticcann_build::judge::SimToolchain::from_env`): `ascendc-sim` is a direct
//! dependency with `links = "ascendc_sim"`, so Cargo gives this script its metadata as
//! `DEP_ASCENDC_SIM_INCLUDE` (headers), `DEP_ASCENDC_SIM_LIB_DIR` (the folder holding
//! `libascendc_sim.a`) and `DEP_ASCENDC_SIM_PROFILES` (SoC profiles). They are forwarded
//! with `cargo:rustc-env` as `AGENTICCANN_BUILD_SIM_INCLUDE`, `…_SIM_LIB_DIR` and
//! `…_SIM_PROFILES`. These are paths inside Cargo's build directories: an installed
//! `cargo-agenticcann` needs them to still exist, or the run-time overrides
//! `AGENTICCANN_SIM_INCLUDE`, `AGENTICCANN_SIM_LIB_DIR`, `AGENTICCANN_SIM_PROFILES`.

#[allow(clippy::disallowed_methods)] // Cargo's link metadata; the crate's env module is not built yet.
fn main() {
    for (dep, baked) in [
        ("DEP_ASCENDC_SIM_INCLUDE", "AGENTICCANN_BUILD_SIM_INCLUDE"),
        ("DEP_ASCENDC_SIM_LIB_DIR", "AGENTICCANN_BUILD_SIM_LIB_DIR"),
        ("DEP_ASCENDC_SIM_PROFILES", "AGENTICCANN_BUILD_SIM_PROFILES"),
    ] {
        println!("cargo:rerun-if-env-changed={dep}");
        if let Ok(v) = std::env::var(dep) {
            println!("cargo:rustc-env={baked}={v}");
        }
    }
}
