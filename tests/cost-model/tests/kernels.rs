//! The cost model on real Ascend C kernels (tests/cost-model/kernels/*.cpp), run by the
//! simulator: the properties of issue 4, each on kernels whose outputs are checked
//! against a host reference first (a fast wrong kernel proves nothing).
//! Profile: Ascend910B1 (48 AIV cores), the default.

use cost_model_tests::{experiment, Report};

const CORES: u64 = 48;

fn add(n: u64, block_dim: u64, tile: u64, buffer_num: u64, tail_split: u64) -> Report {
    experiment("add", &[n, block_dim, tile, buffer_num, tail_split])
        .report()
        .clone()
}

fn exp_ln(n: u64, block_dim: u64, tile: u64, rounds: u64, tail_split: u64) -> Report {
    experiment("exp_ln", &[n, block_dim, tile, rounds, tail_split])
        .report()
        .clone()
}

fn assert_sane(r: &Report) {
    assert!(r.cost_accounting);
    assert!(
        r.total_us >= r.floor_us,
        "{} below its floor: {r:?}",
        r.kernel
    );
    assert!(r.roofline_fraction > 0.0 && r.roofline_fraction <= 1.0);
}

#[test]
fn double_buffering_is_faster_than_single_buffering() {
    for (n, block_dim) in [(1u64 << 20, 1u64), (1 << 22, CORES)] {
        let single = add(n, block_dim, 8192, 1, 0);
        let double = add(n, block_dim, 8192, 2, 0);
        assert_sane(&single);
        assert_sane(&double);
        let speedup = single.body_us() / double.body_us();
        println!(
            "add {n} on {block_dim}: single {:.2} us, double {:.2} us, x{speedup:.2}",
            single.total_us, double.total_us
        );
        // A memory-bound add gains 1.2x-2x from double buffering; three overlapped
        // stages cap the gain below 3x.
        assert!(speedup > 1.15 && speedup < 3.0, "speedup {speedup}");
        assert_eq!(double.bound, "MTE2");
    }
}

#[test]
fn double_buffered_add_runs_at_the_pace_of_its_busiest_pipe() {
    let r = add(1 << 20, 1, 8192, 2, 0);
    let busiest = r
        .pipe_busy_us
        .mte2
        .max(r.pipe_busy_us.v)
        .max(r.pipe_busy_us.mte3);
    let over = r.body_us() / busiest;
    println!(
        "body {:.2} us, busiest pipe {busiest:.2} us: {over:.3}",
        r.body_us()
    );
    assert!((1.0..1.1).contains(&over), "{over}");
}

#[test]
fn larger_tiles_are_faster_until_the_unified_buffer_is_full() {
    let n = 1u64 << 20;
    let mut times = Vec::new();
    for tile in [128u64, 512, 2048, 8192, 16384] {
        let r = add(n, 1, tile, 2, 0);
        println!("tile {tile:>5} elements: {:.2} us", r.total_us);
        times.push(r.total_us);
    }
    for w in times.windows(2) {
        assert!(w[1] < w[0] * 1.01, "a larger tile was slower: {times:?}");
    }
    assert!(times[0] > 4.0 * times[3], "{times:?}");
    // Three queues x 2 buffers x 32768 fp16 elements = 384 KiB: the UB (192 KiB) is full.
    let e = experiment("add", &[n, 1, 32768, 2, 0]);
    let launch = &e.results[0];
    assert!(launch.failed, "a tile beyond the UB must not run");
    let kinds: Vec<&str> = launch
        .diagnostics
        .iter()
        .filter_map(|d| d["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"ub_capacity_exceeded"), "{kinds:?}");
}

#[test]
fn thirty_two_byte_copies_are_far_slower_than_sixteen_kib_copies() {
    let n = 1u64 << 16; // 128 KiB of fp16 through UB and back
    let tiny = experiment("copy", &[n, 1, 16]).report().clone();
    let big = experiment("copy", &[n, 1, 8192]).report().clone();
    assert_eq!(tiny.gm_read_bytes, big.gm_read_bytes);
    let slow = tiny.body_us() / big.body_us();
    println!(
        "32-B copies {:.2} us, 16-KiB copies {:.2} us: x{slow:.1}",
        tiny.body_us(),
        big.body_us()
    );
    assert!(slow > 20.0, "{slow}");
}

#[test]
fn time_falls_with_cores_up_to_the_core_count_then_stays_flat() {
    // Vector-bound (16 Exp+Ln pairs per fp32 element, so it stays vector-bound even
    // when 48 cores share HBM): scales with cores until every AIV core is busy; more
    // blocks than cores run in waves.
    let n = 96 * 16 * 1024; // 96 x 16 tiles of 1024 elements
    let t1 = exp_ln(n, 1, 1024, 16, 0);
    assert_eq!(t1.bound, "V");
    let mut last = t1.body_us();
    for cores in [2u64, 4, 8, 16, 24, 48] {
        let r = exp_ln(n, cores, 1024, 16, 0);
        let eff = t1.body_us() / (r.body_us() * cores as f64);
        println!(
            "{cores:>2} cores: {:.2} us, parallel efficiency {eff:.3}",
            r.body_us()
        );
        assert!(eff > 0.85 && eff < 1.01, "{cores} cores: {eff}");
        assert!(r.body_us() < last);
        last = r.body_us();
    }
    for blocks in [96u64, 192] {
        let r = exp_ln(n, blocks, 1024, 16, 0);
        assert_eq!(r.cores_used as u64, CORES);
        let flat = r.body_us() / last;
        println!("{blocks} blocks: {:.2} us ({flat:.3} of 48)", r.body_us());
        // No faster than one block per core; a little slower, as every block pays its
        // own start and pipeline fill (first copy-in, last copy-out).
        assert!((0.97..1.2).contains(&flat), "{blocks} blocks: {flat}");
    }
}

#[test]
fn memory_bound_time_falls_until_hbm_is_saturated() {
    let n = 1u64 << 22;
    let mut prev = f64::INFINITY;
    let mut last = None;
    for cores in [1u64, 4, 16, 48] {
        let r = add(n, cores, 8192, 2, 0);
        assert_sane(&r);
        println!(
            "{cores:>2} cores: {:.2} us, {:.0} GB/s, roofline {:.2}",
            r.total_us, r.achieved_gbps, r.roofline_fraction
        );
        assert!(r.total_us < prev);
        prev = r.total_us;
        last = Some(r);
    }
    let all = last.unwrap();
    assert!(
        all.achieved_gbps > 0.6 * 1600.0 && all.achieved_gbps < 1600.0,
        "{}",
        all.achieved_gbps
    );
}

#[test]
fn a_tail_imbalanced_split_is_slower_than_a_balanced_one() {
    // 48 * 4 + 47 tiles: balanced gives 4 or 5 tiles per block; the naive tail split
    // gives the last block 4 + 47.
    let n = (CORES * 4 + 47) * 1024;
    let balanced = exp_ln(n, CORES, 1024, 8, 0);
    let skewed = exp_ln(n, CORES, 1024, 8, 1);
    println!(
        "balanced {:.2} us (imbalance {:.3}), tail {:.2} us (imbalance {:.3})",
        balanced.total_us, balanced.imbalance, skewed.total_us, skewed.imbalance
    );
    assert!(balanced.imbalance < 0.3);
    assert!(skewed.imbalance > 3.0);
    assert!(skewed.body_us() > 5.0 * balanced.body_us());
}

#[test]
fn fused_rmsnorm_is_several_times_faster_than_the_eager_chain() {
    let fused = experiment("rmsnorm_fused", &[2048, 4096, CORES]);
    let eager = experiment("rmsnorm_eager", &[2048, 4096, CORES]);
    let f = fused.report();
    assert_sane(f);
    let launches = eager.reports();
    assert_eq!(launches.len(), 6, "square, mean, add eps, rsqrt, mul, mul");
    for r in &launches {
        assert_sane(r);
        println!("  {:<16} {:>8.2} us ({})", r.kernel, r.total_us, r.bound);
    }
    let ratio = eager.total_us() / f.total_us;
    println!(
        "fused {:.2} us, eager chain {:.2} us: x{ratio:.2}",
        f.total_us,
        eager.total_us()
    );
    // Reported fused-vs-eager normalization speedups on 910B are roughly 3x-8x.
    assert!((3.0..8.0).contains(&ratio), "fused/eager ratio {ratio}");
    // The eager chain moves about 3.5x the fused kernel's bytes.
    let eager_bytes: u64 = launches
        .iter()
        .map(|r| r.gm_read_bytes + r.gm_write_bytes)
        .sum();
    let fused_bytes = f.gm_read_bytes + f.gm_write_bytes;
    assert!(eager_bytes > 3 * fused_bytes);
}

#[test]
fn time_grows_linearly_with_size_for_a_memory_bound_kernel() {
    let t: Vec<f64> = [1u64 << 22, 1 << 23, 1 << 24]
        .iter()
        .map(|&n| add(n, CORES, 8192, 2, 0).body_us())
        .collect();
    println!("{t:?}");
    for w in t.windows(2) {
        let r = w[1] / w[0];
        assert!(
            (1.85..2.15).contains(&r),
            "doubling the size changed the time by x{r}"
        );
    }
}

#[test]
fn a_scalar_getvalue_loop_is_far_slower_than_the_vector_form() {
    let v = experiment("abs_vector", &[1 << 16, 1, 4096])
        .report()
        .clone();
    let s = experiment("abs_scalar", &[1 << 16, 1, 4096])
        .report()
        .clone();
    println!(
        "vector {:.2} us, scalar loop {:.2} us",
        v.total_us, s.total_us
    );
    assert_eq!(s.scalar_ub_accesses, 2 << 16);
    assert_eq!(s.bound, "scalar");
    assert!(s.body_us() > 20.0 * v.body_us());
}

mod floor {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

        /// No kernel, shape, tiling or core count gets below bytes / peak HBM + launch
        /// overhead (the model would fail the launch with cost_model_error).
        #[test]
        fn no_kernel_beats_the_roofline(
            kind in 0u8..4,
            tiles in 1u64..64,
            tile_pow in 4u32..13,
            block_dim in 1u64..120,
            extra in 0u64..2,
        ) {
            let tile = 1u64 << tile_pow;
            let n = tiles * tile;
            let e = match kind {
                0 => experiment("add", &[n, block_dim, tile, 1 + extra, extra]),
                1 => experiment("copy", &[n, block_dim, tile]),
                2 => experiment("exp_ln", &[n, block_dim, tile.min(8192), 1 + extra, extra]),
                _ => experiment("abs_vector", &[n, block_dim, tile]),
            };
            prop_assert_eq!(&e.check, "ok");
            for l in &e.results {
                prop_assert!(!l.failed, "{:?}", l.diagnostics);
                let r = l.report.as_ref().unwrap();
                prop_assert!(r.total_us >= r.floor_us, "{:?}", r);
                prop_assert!(r.roofline_fraction <= 1.0);
            }
        }
    }
}

#[test]
fn events_around_launches_measure_the_modelled_time() {
    let e = experiment("events", &[256, 1024, CORES]);
    let modelled: f64 = e.total_us();
    let measured_us = e.event_ms.expect("aclrtEventElapsedTime") * 1e3;
    println!("events: {measured_us:.3} us, sum of reports {modelled:.3} us");
    // aclrtEventElapsedTime returns float milliseconds.
    assert!(
        (measured_us - modelled).abs() <= 1e-5 * modelled + 1e-3,
        "{measured_us} vs {modelled}"
    );
}
