//! The cost model charges the wait at cross-core synchronisation (`tests/cross_core_cost.cpp`):
//! a core that waits at a SyncAll, IBWait, WaitPreBlock or GroupBarrier::Wait resumes no
//! earlier than the core it waits for reaches its side of it, so splitting work across cores
//! around a barrier is never modelled as a speedup it is not.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("cross_core_cost.cpp", "cross_core_cost", support::STRICT))
}

/// Runs the program (every case) with `AGENTICCANN_SIM_THREADS` = `threads` if given.
fn run(threads: Option<&str>) -> HashMap<String, (Value, Value)> {
    let mut cmd = Command::new(program());
    cmd.env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env_remove("AGENTICCANN_SIM_THREADS")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"));
    if let Some(t) = threads {
        cmd.env("AGENTICCANN_SIM_THREADS", t);
    }
    let out = cmd.output().expect("running cross_core_cost");
    assert!(
        out.status.success(),
        "cross_core_cost exited with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8 output")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}"));
            (
                v["name"].as_str().unwrap().to_string(),
                (v["values_ok"].clone(), v["result"].clone()),
            )
        })
        .collect()
}

fn results() -> &'static HashMap<String, (Value, Value)> {
    static R: OnceLock<HashMap<String, (Value, Value)>> = OnceLock::new();
    R.get_or_init(|| run(None))
}

fn result(name: &str) -> &'static Value {
    &results()
        .get(name)
        .unwrap_or_else(|| panic!("case {name} did not run"))
        .1
}

fn num(name: &str, field: &str) -> f64 {
    result(name)["report"][field]
        .as_f64()
        .unwrap_or_else(|| panic!("{name}: no {field} in {}", result(name)))
}

fn total(name: &str) -> f64 {
    num(name, "total_us")
}

/// The kernel body's time: total minus the launch overhead.
fn body(name: &str) -> f64 {
    total(name) - num(name, "launch_overhead_us")
}

/// `a >= b` up to rounding.
fn at_least(a: f64, b: f64) -> bool {
    a >= b * (1.0 - 1e-9)
}

#[test]
fn every_kernel_runs_clean_and_copies_right() {
    assert!(results().len() >= 15, "{:?}", results().keys());
    for (name, (values_ok, r)) in results() {
        assert_eq!(r["failed"], false, "{name} failed: {r}");
        assert!(diags(r).is_empty(), "{name} must run clean: {r}");
        assert_ne!(
            values_ok,
            &Value::Bool(false),
            "{name} copied wrong numbers"
        );
        assert!(total(name) > 0.0, "{name}: no modelled time: {r}");
    }
}

/// Core 0 loops before a SyncAll, then every core copies: no core ends before core 0 has
/// finished its loop, and the launch takes at least the loop plus the copies.
#[test]
fn syncall_waits_for_the_slowest_core() {
    let lp = body("loop_only");
    assert!(lp > 5.0, "the long loop should take several us: {lp}");
    for k in ["loop_sync_copy", "loop_soft_sync_copy"] {
        // Every core (not just core 0) ends after core 0's loop.
        let first_end = num(k, "core_min_us");
        assert!(
            at_least(first_end, num("loop_only", "core_max_us")),
            "{k}: a core ended at {first_end} us, before core 0 reached the barrier at {} us",
            num("loop_only", "core_max_us")
        );
        assert!(
            at_least(total(k), total("loop_only") + body("copy_all")),
            "{k} {} us < loop {} us + copies {} us",
            total(k),
            total("loop_only"),
            body("copy_all")
        );
        // The loop adds its full time to the barrier kernel without it.
        let added = total(k) - total("no_loop_sync_copy");
        assert!(
            added >= 0.99 * lp,
            "{k}: the loop added {added} us of its {lp} us"
        );
    }
}

/// The generator's pattern: core 0 computes, SyncAll, the other cores go on with what
/// depends on it. Modelled as the loop plus the copies, not as their overlap.
#[test]
fn work_split_around_a_barrier_is_not_a_fake_speedup() {
    let split = total("loop_sync_copy_others");
    let overlap = total("loop_copy_others_no_sync");
    assert!(
        at_least(split, total("loop_only") + body("copy_others")),
        "split {split} us < loop {} us + copies {} us",
        total("loop_only"),
        body("copy_others")
    );
    assert!(
        at_least(split, overlap + body("copy_others")),
        "split {split} us vs the same work without the barrier {overlap} us"
    );
}

/// The loop before or after the barrier: the same order of time.
#[test]
fn loop_before_or_after_the_barrier_costs_alike() {
    let pre = total("loop_sync_copy");
    let post = total("sync_loop_copy");
    let r = pre / post;
    assert!(
        (0.8..1.25).contains(&r),
        "before {pre} us vs after {post} us"
    );
}

/// The software SyncAll over the first 4 of 8 cores: cores 1..3 wait for core 0's loop,
/// cores 4..7 do not take part and end early.
#[test]
fn software_syncall_with_used_cores_waits_for_its_participants_only() {
    let lp_end = num("loop_only", "core_max_us");
    assert!(
        at_least(
            total("soft_used4"),
            total("loop_only") + body("copy_others")
        ),
        "soft_used4 {} us vs loop {} us",
        total("soft_used4"),
        total("loop_only")
    );
    assert!(
        num("soft_used4", "core_min_us") < 0.5 * lp_end,
        "cores outside usedCores waited: {}",
        result("soft_used4")
    );
}

/// IBWait resumes after the producer's IBSet: the waiter ends after the producer, later by
/// at least its copy.
#[test]
fn ibwait_resumes_after_the_producers_ibset() {
    let producer_end = num("ib_loop_only", "core_max_us");
    assert!(producer_end > 5.0, "{producer_end}");
    let r = result("ib_wait_copy");
    assert!(
        at_least(num("ib_wait_copy", "core_min_us"), producer_end),
        "{r}"
    );
    assert!(
        num("ib_wait_copy", "core_max_us") > producer_end + 0.5,
        "the waiter ends at {} us, the producer's IBSet at {producer_end} us",
        num("ib_wait_copy", "core_max_us")
    );
}

/// WaitPreBlock waits for the previous block's NotifyNextBlock; GroupBarrier::Wait for every
/// arrival.
#[test]
fn wait_pre_block_and_group_barrier_wait_for_the_slow_core() {
    let lp_end = num("pre_loop_only", "core_max_us");
    assert!(
        at_least(num("pre_chain_copy", "core_min_us"), lp_end),
        "{}",
        result("pre_chain_copy")
    );
    assert!(total("pre_chain_copy") > total("pre_loop_only") + 0.5);
    // The group: cores 0 and 1 arrive and end, so the slowest end is a waiter's, after the
    // loop.
    assert!(
        num("group_wait_copy", "core_max_us") > num("loop_only", "core_max_us") + 0.5,
        "{}",
        result("group_wait_copy")
    );
}

/// The same kernels give the same times, bit for bit, on every run and for any host thread
/// count.
#[test]
fn times_are_deterministic() {
    let base = results();
    for threads in [Some("1"), Some("2"), None] {
        let again = run(threads);
        for (name, (_, r)) in base {
            let a = &r["report"];
            let b = &again[name].1["report"];
            for f in ["total_us", "core_min_us", "core_max_us"] {
                assert_eq!(
                    a[f].as_f64().map(f64::to_bits),
                    b[f].as_f64().map(f64::to_bits),
                    "{name} {f} with threads {threads:?}: {} vs {}",
                    a[f],
                    b[f]
                );
            }
        }
    }
}
