//! Strided vector operands pay for UB bank-group conflicts (`tests/bank_conflicts.cpp`):
//! Atlas A2's vector unit reads or writes one 32-byte row per bank group per cycle, and the
//! group of a row is (address / 32) mod 16 (CANN Ascend C best practices, "Avoiding Bank
//! Conflicts in the Unified Buffer": a dataBlockStride of 16 puts a repeat's 8 blocks in one
//! group, 8 cycles; 8 puts them in two, 4 cycles). A kernel cannot make a strided layout look
//! as cheap as a contiguous one.

use std::collections::HashMap;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn results() -> &'static HashMap<String, Value> {
    static R: OnceLock<HashMap<String, Value>> = OnceLock::new();
    R.get_or_init(|| {
        let exe = support::build("bank_conflicts.cpp", "bank_conflicts", support::STRICT);
        let out = Command::new(exe)
            .env("AGENTICCANN_SOC", "Ascend910B1")
            .env_remove("AGENTICCANN_SIM_PROFILE")
            .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
            .output()
            .expect("running bank_conflicts");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["name"].as_str().unwrap().to_string(), v["result"].clone())
            })
            .collect()
    })
}

/// The vector pipe's busy time of a case, in µs; the case must run clean.
fn v_busy(name: &str) -> f64 {
    let r = &results()[name];
    assert_eq!(r["failed"], false, "{name}: {r}");
    assert!(diags(r).is_empty(), "{name} must run clean: {r}");
    r["report"]["pipe_busy_us"]["V"].as_f64().unwrap()
}

fn ratio(strided: &str, plain: &str) -> f64 {
    v_busy(strided) / v_busy(plain)
}

/// The expected ratio of V busy times: 100 instructions of 32 repeats at `k` vs `base`
/// cycles per repeat (start-up 12 cycles each), both after the same Duplicate of 8192
/// floats (12 + 128 cycles).
fn expected(k: f64, base: f64) -> f64 {
    let dup = 12.0 + 128.0;
    (100.0 * (12.0 + 32.0 * k) + dup) / (100.0 * (12.0 + 32.0 * base) + dup)
}

#[test]
fn block_stride_16_costs_8_cycles_per_repeat() {
    for case in ["adds_dst16", "adds_src16", "adds_src32"] {
        let r = ratio(case, "adds_plain");
        assert!((r - expected(8.0, 1.0)).abs() < 1e-6, "{case}: {r}");
    }
}

#[test]
fn block_stride_8_costs_4_cycles_per_repeat() {
    let r = ratio("adds_src8", "adds_plain");
    assert!((r - expected(4.0, 1.0)).abs() < 1e-6, "{r}");
}

#[test]
fn strides_that_spread_over_the_groups_cost_nothing_extra() {
    // Stride 2: blocks in 8 distinct groups; stride 0: one row read 8 times (not charged).
    for case in ["adds_src2", "adds_src0"] {
        assert!((ratio(case, "adds_plain") - 1.0).abs() < 1e-9, "{case}");
    }
}

#[test]
fn brcb_and_reductions_pay_for_their_strided_blocks_too() {
    let r = ratio("brcb_dst16", "brcb_plain");
    assert!((r - expected(8.0, 1.0)).abs() < 1e-6, "{r}");
    // WholeReduceSum of float takes 7 cycles per repeat already: a stride of 16 (8 cycles) adds 1.
    let r = ratio("whole_src16", "whole_plain");
    assert!((r - expected(8.0, 7.0)).abs() < 1e-6, "{r}");
}
