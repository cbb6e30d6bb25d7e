//! Issue 14's API surface (`tests/surface.cpp`): per API a correct kernel in the ordinary
//! Ascend C style, which must run clean and compute the right numbers (checked by the
//! program against a host reference), and a faulty one whose diagnostic must point at the
//! line marked `// expect: <kind>`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

/// Builds tests/surface.cpp once; returns the program.
fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("surface.cpp", "surface", support::STRICT))
}

/// (case, kind, line) from the markers of tests/surface.cpp.
fn expectations() -> Vec<(String, String, u64)> {
    support::expectations("surface.cpp")
}

/// Every case: name -> (values_ok, LaunchResult JSON).
fn results() -> &'static HashMap<String, (Value, Value)> {
    static R: OnceLock<HashMap<String, (Value, Value)>> = OnceLock::new();
    R.get_or_init(|| {
        let out = Command::new(program())
            .env("AGENTICCANN_SOC", "Ascend910B1")
            .env_remove("AGENTICCANN_SIM_PROFILE")
            .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
            .output()
            .expect("running surface");
        assert!(
            out.status.success(),
            "surface exited with {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("utf-8 output")
            .lines()
            .map(|l| {
                let v: Value =
                    serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}"));
                (
                    v["name"].as_str().unwrap().to_string(),
                    (v["values_ok"].clone(), v["result"].clone()),
                )
            })
            .collect()
    })
}

fn result(name: &str) -> &'static Value {
    &results()
        .get(name)
        .unwrap_or_else(|| panic!("case {name} did not run"))
        .1
}

#[test]
fn faulty_kernels_report_their_kind_at_their_line() {
    let exp = expectations();
    assert!(exp.len() >= 15, "{exp:?}");
    for (case, kind, line) in exp {
        let r = result(&case);
        let d = diags(r)
            .iter()
            .find(|d| d["kind"] == kind.as_str())
            .unwrap_or_else(|| panic!("{case}: no `{kind}` diagnostic in {r}"));
        assert_eq!(
            d["line"].as_u64(),
            Some(line),
            "{case}: `{kind}` at the wrong line: {d}"
        );
        assert!(
            d["file"].as_str().unwrap().ends_with("surface.cpp"),
            "{case}: {d}"
        );
        let error = d["severity"] == "error";
        assert_eq!(
            r["failed"].as_bool(),
            Some(error),
            "{case}: failed flag vs severity: {r}"
        );
        assert!(!d["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    for name in [
        "events_ok",
        "destroy_then_second_pipe_ok",
        "allocator_ok",
        "static_tensor_ok",
        "tbuf_alloc_ok",
        "assert_ok",
        "builtins_ok",
        "syncall_ok",
        "syncall_soft_ok",
        "syncall_atomic_ok",
        "syncall_read_then_write_ok",
        "dcache_written_back_ok",
        "ib_ok",
        "pre_block_ok",
        "reduce9_ok",
        "gather_ok",
        "log_ok",
        "list_ok",
        "copy_bypass_ok",
        "gatherb_ok",
        "cmpmask_ok",
        "pad_value_ok",
        "tbufpool_ok",
        "sort_ok",
        "transpose_ok",
        "int4_ok",
        "group_ok",
        "mrgsort_repeat_ok",
        "slice_ok",
        "slice_by_hand",
        "slice_half_3d_ok",
        "swish_ok",
        "silu_ok",
        "quant_ok",
        "dequant_ok",
        "antiquant_ok",
        "glu_ok",
        "reduce_pattern_ok",
    ] {
        let (values_ok, r) = &results()[name];
        assert_eq!(r["failed"], false, "{name} failed: {r}");
        assert!(diags(r).is_empty(), "{name} must run clean: {r}");
        assert_ne!(
            values_ok,
            &Value::Bool(false),
            "{name} computed wrong numbers"
        );
        assert!(total_us(r) > 0.0, "{name}: no modelled time: {r}");
    }
    // Every correct kernel with data has its numbers checked.
    for name in [
        "events_ok",
        "syncall_atomic_ok",
        "ib_ok",
        "pre_block_ok",
        "builtins_ok",
        "reduce9_ok",
        "gather_ok",
        "log_ok",
        "list_ok",
        "copy_bypass_ok",
        "gatherb_ok",
        "cmpmask_ok",
        "pad_value_ok",
        "tbufpool_ok",
        "sort_ok",
        "transpose_ok",
        "int4_ok",
        "group_ok",
        "mrgsort_repeat_ok",
        "slice_ok",
        "slice_by_hand",
        "slice_half_3d_ok",
        "swish_ok",
        "silu_ok",
        "quant_ok",
        "dequant_ok",
        "antiquant_ok",
        "glu_ok",
        "reduce_pattern_ok",
    ] {
        assert_eq!(results()[name].0, Value::Bool(true), "{name}");
    }
}

fn total_us(r: &Value) -> f64 {
    r["report"]["total_us"]
        .as_f64()
        .unwrap_or_else(|| panic!("no modelled time in {r}"))
}

/// A deadlock names every core's position; the blocks still waiting are listed once with
/// the number of cores that hit it.
#[test]
fn a_deadlock_names_the_positions_of_the_cores() {
    let r = result("syncall_deadlock");
    let d = &diags(r)[0];
    assert_eq!(d["kind"], "cross_core_deadlock");
    let msg = d["message"].as_str().unwrap();
    assert!(msg.contains("core 1 has ended"), "{msg}");
    assert!(msg.contains("core 2 waits in SyncAll at"), "{msg}");
    assert_eq!(d["numbers"]["waiting_cores"], 3.0, "{d}");
    assert_eq!(d["numbers"]["cores"], 3.0, "{d}");
}

/// Identical bytes written by two cores: a warning, the launch succeeds; different bytes
/// are still an error.
#[test]
fn identical_gm_writes_are_a_warning_not_a_race() {
    let dup = result("gm_duplicate");
    assert_eq!(dup["failed"], false, "{dup}");
    assert_eq!(diags(dup).len(), 1, "{dup}");
    assert_eq!(diags(dup)[0]["severity"], "warning");
    let race = result("gm_race_different");
    assert_eq!(diags(race)[0]["kind"], "gm_write_race");
}

/// SyncAll is charged: at least its flag traffic (a 32-byte write and read of GM, whose
/// latencies the profile gives) over an empty kernel.
#[test]
fn cross_core_sync_is_costed() {
    let sync = total_us(result("syncall_only"));
    let empty = total_us(result("empty_kernel"));
    assert!(
        sync > empty + 0.5,
        "SyncAll kernel {sync} us vs empty {empty} us"
    );
    assert_clean_of(result("syncall_only"));
}

fn assert_clean_of(r: &Value) {
    assert_eq!(r["failed"], false, "{r}");
    assert!(diags(r).is_empty(), "{r}");
}

/// The host side: platform_ascendc answers from the SoC profile, securec bounds its
/// copies, flagged events work and a stream waiting for another stream's event takes its
/// modelled time.
fn host(soc: &str) -> Value {
    let out = Command::new(program())
        .arg("host")
        .env("AGENTICCANN_SOC", soc)
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running surface host");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    serde_json::from_str(text.lines().next().expect("one line")).unwrap()
}

#[test]
fn host_side_platform_securec_and_events() {
    let b = host("Ascend910B1");
    assert_eq!(b["aiv"], 48, "{b}");
    assert_eq!(b["aic"], 24, "{b}");
    assert_eq!(b["core_num"], 48, "{b}");
    assert_eq!(b["ub"], 196608, "{b}");
    assert_eq!(
        b["ub_after_reserve"],
        196608 - 8 * 1024,
        "ReserveLocalMemory: the last call's 8 KiB, not 32 + 8: {b}"
    );
    assert_eq!(b["soc_910b"], true);
    assert_eq!(b["memcpy_ok"], 0);
    assert_eq!(b["memset_ok"], 0);
    assert_ne!(
        b["memcpy_too_big"], 0,
        "memcpy_s past destMax must fail: {b}"
    );
    assert_ne!(
        b["memset_too_big"], 0,
        "memset_s past destMax must fail: {b}"
    );
    assert_eq!(b["acl_rc"], 0, "{b}");
    assert_ne!(
        b["bad_flag"], 0,
        "an unknown event flag must be rejected: {b}"
    );
    assert_eq!(
        b["tiling_ok"], true,
        "tiling-data class bytes differ from the kernel struct: {b}"
    );
    // B's record after the wait is at least A's kernel time after B's first record.
    let kernel_ms = total_us(result("events_ok")) / 1000.0;
    let waited = b["waited_ms"].as_f64().unwrap();
    assert!(
        (waited - kernel_ms).abs() < 1e-6,
        "waited {waited} ms vs kernel {kernel_ms} ms"
    );
    let p = host("Ascend310P1");
    assert_eq!(p["aiv"], 8, "{p}");
    assert_eq!(p["ub"], 262144, "{p}");
    assert_eq!(p["soc_910b"], false);
}

/// Sort32 is priced at the A2 table's 2 structures per cycle: 255 repeats of 32 keep PIPE_V
/// busy for at least 255 * 16 cycles at the profile's clock (1850 MHz), the two Duplicates
/// adding a few hundred cycles.
#[test]
fn sort32_is_priced_at_two_elements_per_cycle() {
    let r = result("sort32_cost");
    assert_clean_of(r);
    let v = r["report"]["pipe_busy_us"]["V"].as_f64().expect("V busy");
    let sort_us = 255.0 * 16.0 / 1850.0;
    assert!(
        v >= sort_us && v < sort_us + 1.0,
        "PIPE_V busy {v} us, Sort32 alone {sort_us} us"
    );
}

#[test]
fn slice_datacopy_costs_what_the_same_copies_by_hand_cost() {
    let (slice, hand) = (
        total_us(result("slice_ok")),
        total_us(result("slice_by_hand")),
    );
    assert!(
        (slice - hand).abs() <= 0.02 * hand,
        "SliceInfo DataCopy {slice} us vs the same instructions by hand {hand} us"
    );
}
