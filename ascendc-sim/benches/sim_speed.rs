//! Simulation-speed benchmark (`cargo bench -p ascendc-sim`): builds `benches/sim_speed.cpp`
//! with two test kernels (fp16 add of 16 Mi elements on 48 cores; RMSNorm fp16 [2048, 4096]
//! on 48 cores) against this crate's `libascendc_sim.a` at `-O2`, runs it and prints the
//! elements simulated per second of wall time. Extra arguments: the repetition count.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = Path::new(env!("OUT_DIR")).join("sim_speed_bench");
    // The simulator cannot use agenticcann_build::env (which depends on it).
    #[allow(clippy::disallowed_methods)]
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let status = Command::new(&cxx)
        .args(["-std=c++20", "-O2", "-I"])
        .arg(root.join("include"))
        .arg(root.join("benches/sim_speed.cpp"))
        .arg(root.join("tests/kernels/add_custom.cpp"))
        .arg(root.join("tests/kernels/rms_norm.cpp"))
        .arg(Path::new(env!("OUT_DIR")).join("libascendc_sim.a"))
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    assert!(status.success(), "building the benchmark failed");
    let reps = std::env::args()
        .skip(1)
        .find(|a| a.parse::<u32>().is_ok())
        .unwrap_or_else(|| "3".to_string());
    let status = Command::new(&exe)
        .arg(reps)
        .status()
        .expect("running the benchmark");
    assert!(status.success());
}
