//! Benchmark: what cost accounting adds to simulation wall time.
//!
//! `cargo bench -p cost-model-tests --bench cost_overhead` runs real Ascend C kernels
//! (tests/cost-model/kernels) on the simulator with AGENTICCANN_SIM_COST=on and =off and
//! prints the host wall time of the launches (best of 3, outputs checked), the
//! overhead of the cost model, and simulated elements per second. It then times the
//! replay alone on large synthetic traces (tiny DMAs on every core, the model's worst
//! case per byte). Numbers, not assertions: targets are judged by a person.

use std::io::Write;
use std::process::{Command, Stdio};

use cost_model_tests::{experiment, Pipeline, PROFILE_DIR, TRACE_DRIVER};

/// Best host wall time of the launches with cost accounting on and off (runs
/// interleaved, so both see the same machine load), and the modelled time.
fn best_walls(name: &str, params: &[u64]) -> (f64, f64, f64) {
    let mut best = [f64::INFINITY; 2];
    let mut modelled = 0.0;
    for _ in 0..5 {
        for (i, cost) in ["on", "off"].iter().enumerate() {
            std::env::set_var("AGENTICCANN_SIM_COST", cost);
            let e = experiment(name, params);
            assert_eq!(e.check, "ok", "{name}: wrong output");
            best[i] = best[i].min(e.wall_s.iter().sum());
            if i == 0 {
                modelled = e
                    .results
                    .iter()
                    .filter_map(|r| r.report.as_ref())
                    .map(|r| r.total_us)
                    .sum();
            }
        }
    }
    std::env::remove_var("AGENTICCANN_SIM_COST");
    (best[0], best[1], modelled)
}

fn main() {
    println!("cost accounting overhead on real kernels (Ascend910B1 profile, host wall time of the launches, best of 5)");
    println!(
        "{:<34} {:>12} {:>12} {:>9} {:>14} {:>12}",
        "kernel", "cost on", "cost off", "overhead", "elements/s", "modelled"
    );
    let cases: [(&str, &str, Vec<u64>, u64); 6] = [
        (
            "add f16 16M, 48 cores, tile 8K",
            "add",
            vec![1 << 24, 48, 8192, 2, 0],
            1 << 24,
        ),
        (
            "add f16 16M, 48 cores, tile 512",
            "add",
            vec![1 << 24, 48, 512, 2, 0],
            1 << 24,
        ),
        (
            "rmsnorm fused [2048,4096] f16",
            "rmsnorm_fused",
            vec![2048, 4096, 48],
            2048 * 4096,
        ),
        (
            "rmsnorm eager chain (6 kernels)",
            "rmsnorm_eager",
            vec![2048, 4096, 48],
            2048 * 4096,
        ),
        (
            "exp/ln x16 f32 1.5M, 48 cores",
            "exp_ln",
            vec![96 * 16 * 1024, 48, 1024, 16, 0],
            96 * 16 * 1024,
        ),
        (
            "abs f16 64K scalar GetValue loop",
            "abs_scalar",
            vec![1 << 16, 1, 4096],
            1 << 16,
        ),
    ];
    for (label, name, params, elements) in &cases {
        let (on, off, modelled) = best_walls(name, params);
        println!(
            "{label:<34} {:>10.1}ms {:>10.1}ms {:>8.1}% {:>14.3e} {:>10.1}us",
            on * 1e3,
            off * 1e3,
            (on / off - 1.0) * 100.0,
            *elements as f64 / on,
            modelled
        );
    }

    println!();
    println!("cost model alone on synthetic traces (trace_driver --time: recording hooks, then finish())");
    for (label, p) in [
        (
            "48 blocks x 2048 tiles of 16 KiB",
            Pipeline::add_f16(48, 2048, 16384, 2),
        ),
        (
            "48 blocks x 2048 tiles of 256 B",
            Pipeline::add_f16(48, 2048, 256, 2),
        ),
        (
            "4800 blocks x 20 tiles of 4 KiB (100 waves)",
            Pipeline::add_f16(4800, 20, 4096, 2),
        ),
    ] {
        let script = p.script("bench");
        let mut child = Command::new(TRACE_DRIVER)
            .arg("--time")
            .env("AGENTICCANN_SIM_PROFILE_DIR", PROFILE_DIR)
            .env_remove("AGENTICCANN_SIM_PROFILE")
            .env_remove("AGENTICCANN_SOC")
            .env_remove("AGENTICCANN_SIM_COST")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("trace_driver");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let field = |k: &str| -> f64 {
            err.split_whitespace()
                .find_map(|w| w.strip_prefix(k))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no {k} in {err}"))
        };
        let (record, finish) = (field("record_ms="), field("finish_ms="));
        let dmas = p.tiles.iter().map(|&t| t as u64 * 3).sum::<u64>();
        println!(
            "{label:<44} record {record:>7.1} ms  replay {finish:>7.1} ms  ({dmas} DMAs: {:.2} us per DMA)",
            (record + finish) * 1e3 / dmas as f64
        );
    }
}
