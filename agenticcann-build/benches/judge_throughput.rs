//! Judge throughput: evaluations per minute of a typical normalization candidate (the honest
//! fp16 RMSNorm entry of tests/judge/, [rows, 1024], 2 declared + 5 held-out + 5 stress
//! shapes) — compile + run + verify + profile — with and without the cached precompiled
//! header of `kernel_operator.h`, at `--jobs` = available cores.
//!
//! `cargo bench -p agenticcann-build --bench judge_throughput` (BENCH_N = evaluations per
//! configuration, default 8). Target (issue 6): ≥ 30 per minute on 2 cores with the cached
//! header.

use std::path::{Path, PathBuf};
use std::time::Instant;

use agenticcann_build::judge::{evaluate, evaluate_many, Candidate, EvalOptions, Evaluation};
use agenticcann_build::spec::Spec;
use agenticcann_build::store::TilingField;

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/judge");
    let spec = Spec::from_manifest_path(&corpus.join("specs.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("rms_norm_f16").unwrap();
    let dir = corpus.join("honest/rms_norm_f16");
    let case: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let fields: Vec<TilingField> = case["fields"].clone().try_into().unwrap();
    let candidate = Candidate::new(
        std::fs::read_to_string(dir.join("kernel.cpp")).unwrap(),
        std::fs::read_to_string(dir.join("tiling.cpp")).unwrap(),
        fields,
    );
    let n: usize = agenticcann_build::env::var("BENCH_N")
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let cache = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tmp/judge");
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let base = EvalOptions {
        cache_dir: Some(cache),
        ..EvalOptions::default()
    };
    // Warm-up: builds the precompiled header and the harness object when missing.
    let t = Instant::now();
    let warm = evaluate(op, &candidate, &base).unwrap();
    assert!(warm.accepted(), "{}", warm.render());
    println!(
        "warm-up (PCH + harness when missing): {:.1} s",
        t.elapsed().as_secs_f64()
    );
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    for use_pch in [true, false] {
        let opts = EvalOptions {
            use_pch,
            jobs,
            ..base.clone()
        };
        let items: Vec<_> = (0..n).map(|_| (op, &candidate)).collect();
        let t = Instant::now();
        let evs: Vec<Evaluation> = evaluate_many(&items, &opts)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let wall = t.elapsed().as_secs_f64();
        assert!(evs.iter().all(Evaluation::accepted));
        let mean = |f: fn(&Evaluation) -> f64| evs.iter().map(f).sum::<f64>() / evs.len() as f64;
        println!(
            "{}: {n} evaluations in {wall:.1} s on {jobs} jobs = {:.1} evaluations/minute \
             (per evaluation: compile {:.0} ms, run {:.0} ms, golden {:.0} ms, total {:.0} ms; {} shapes)",
            if use_pch { "cached PCH" } else { "no PCH   " },
            n as f64 * 60.0 / wall,
            mean(|e| e.timings.compile_ms),
            mean(|e| e.timings.run_ms),
            mean(|e| e.timings.golden_ms),
            mean(|e| e.timings.total_ms),
            evs[0].shapes.len(),
        );
    }
}
