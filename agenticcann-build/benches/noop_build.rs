//! The no-op build overhead of agenticcann-build: the time `Builder::try_build` takes in a
//! build script that Cargo re-runs while nothing agenticcann-build depends on changed (spec
//! parsed, keys computed, every entry file hashed and verified, headers and wrappers
//! regenerated and compared, object fingerprints checked, nothing compiled or written).
//!
//! Run: `cargo bench -p agenticcann-build --bench noop_build` (prints milliseconds).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

fn main() {
    let f = common::Fixture::new(&[]);
    let t0 = Instant::now();
    let first = f.builder().try_build().expect("first build");
    let cold = t0.elapsed();
    assert_eq!(first.compiled.len(), 10);

    let mut times: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let r = f.builder().try_build().expect("no-op build");
            assert!(r.compiled.is_empty());
            t.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("agenticcann-build, fixture crate (5 ops, 10 translation units), simulator backend");
    println!(
        "  cold build (compile 10 units, bindgen):   {:>8.1} ms",
        ms(cold)
    );
    println!(
        "  no-op build overhead: median {:.2} ms, min {:.2} ms, max {:.2} ms (30 runs)",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1])
    );
}
