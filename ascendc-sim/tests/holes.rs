//! The holes of issue 13 (`tests/holes.cpp`): per class a faulty kernel whose diagnostic
//! must point at the line marked `// expect: <kind>`, a correct kernel in the ordinary
//! Ascend C style that must run clean, and the A.1 property: for any variant of a tile
//! loop the checker accepts, removing or replacing a synchronisation never makes the
//! modelled time smaller than the honestly synchronised kernel's.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::Value;

mod support;

use support::{diags, manifest};

/// Builds tests/holes.cpp once; returns the program.
fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("holes.cpp", "holes", support::STRICT))
}

/// (case, kind, line) from the markers of tests/holes.cpp.
fn expectations() -> Vec<(String, String, u64)> {
    support::expectations("holes.cpp")
}

/// Runs the program with `args` on SoC `soc`; returns (case name -> LaunchResult JSON).
fn run(args: &[&str], soc: &str) -> HashMap<String, Value> {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", soc)
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running holes");
    assert!(
        out.status.success(),
        "holes {args:?} exited with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8 output")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}"));
            (v["name"].as_str().unwrap().to_string(), v["result"].clone())
        })
        .collect()
}

fn fixed() -> &'static HashMap<String, Value> {
    static R: OnceLock<HashMap<String, Value>> = OnceLock::new();
    R.get_or_init(|| run(&[], "Ascend910B1"))
}

fn total_us(r: &Value) -> f64 {
    r["report"]["total_us"]
        .as_f64()
        .unwrap_or_else(|| panic!("no modelled time in {r}"))
}

fn assert_clean(name: &str, r: &Value) {
    assert_eq!(r["failed"], false, "{name} failed: {r}");
    assert!(diags(r).is_empty(), "{name} must run clean: {r}");
}

/// Every marked faulty kernel reports its kind at its line; errors stop the launch.
fn check_markers(res: &HashMap<String, Value>, soc_cases: bool) {
    let exp: Vec<_> = expectations()
        .into_iter()
        .filter(|(case, _, _)| case.starts_with("b4_") == soc_cases)
        .collect();
    assert!(!exp.is_empty());
    for (case, kind, line) in exp {
        let r = res
            .get(&case)
            .unwrap_or_else(|| panic!("case {case} did not run"));
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
            d["file"].as_str().unwrap().ends_with("holes.cpp"),
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
fn faulty_kernels_report_their_kind_at_their_line() {
    check_markers(fixed(), false);
}

#[test]
fn correct_kernels_in_the_ordinary_style_run_clean() {
    let res = fixed();
    for name in [
        "a1_flags_honest",
        "a1_getvalue_as_sync",
        "a1_double_buffered",
        "a1_queue_getvalue_ok",
        "a2_wait_mte2_s_ok",
        "a3_gm_raw_flag_ok",
        "a3_gm_other_bytes_ok",
        "a3_gm_scalar_flag_ok",
        "b5_params_ok",
        "b6_padded_rows_ok",
        "b7_write_then_read_ok",
    ] {
        assert_clean(name, &res[name]);
    }
}

/// A.1: a scalar read used as the MTE2->V synchronisation is accepted (auto-sync orders
/// it), so it must cost the wait: never faster than the flag-synced or the
/// double-buffered kernel.
#[test]
fn scalar_read_as_sync_is_not_a_fake_speedup() {
    let res = fixed();
    let faulty = total_us(&res["a1_getvalue_as_sync"]);
    let honest = total_us(&res["a1_flags_honest"]);
    let double = total_us(&res["a1_double_buffered"]);
    assert!(
        faulty >= honest,
        "GetValue-synced {faulty} us < flag-synced {honest} us"
    );
    assert!(
        faulty >= double,
        "GetValue-synced {faulty} us < double-buffered {double} us"
    );
}

/// A.3: a synchronised read-back of GM this core wrote pays the MTE3 completion wait.
#[test]
fn synchronised_gm_read_back_pays_the_wait() {
    let res = fixed();
    let synced = total_us(&res["a3_gm_raw_flag_ok"]);
    let other = total_us(&res["a3_gm_other_bytes_ok"]);
    assert!(
        synced > other,
        "MTE3_MTE2 wait not charged: {synced} <= {other}"
    );
}

/// B.6: a reduction that reads padded rows as compact is a warning, not an error.
#[test]
fn compact_read_of_padded_rows_is_a_warning() {
    let r = &fixed()["b6_compact_reduce"];
    let d = &diags(r)[0];
    assert_eq!(d["kind"], "ub_row_pitch_mismatch", "{r}");
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["numbers"]["pitch"], 64.0);
    assert_eq!(d["numbers"]["row_bytes"], 40.0);
}

/// B.7: the output's poison cannot be probed, by DMA or by a scalar read.
#[test]
fn output_poison_cannot_be_read() {
    let res = fixed();
    for case in ["b7_output_read_first", "b7_output_scalar_probe"] {
        assert_eq!(
            diags(&res[case])[0]["kind"],
            "gm_output_read_before_write",
            "{case}"
        );
    }
}

/// B.4: on 310P, DataCopyPad, bf16 and f16->i8 casts are diagnosed at their call; the
/// aligned f16/f32 kernel passes. On 910B every SoC case runs clean.
#[test]
fn soc_capabilities_are_checked_at_the_call() {
    let p310 = run(&["soc"], "Ascend310P1");
    check_markers(&p310, true);
    assert_clean("b4_aligned_ok on 310P", &p310["b4_aligned_ok"]);
    let msg = diags(&p310["b4_datacopypad"])[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("Ascend310P1") && msg.contains("data_copy_pad"),
        "{msg}"
    );
    let b910 = run(&["soc"], "Ascend910B1");
    for (name, r) in &b910 {
        assert_clean(&format!("{name} on 910B"), r);
    }
}

// ---- A.1 property -------------------------------------------------------------------

const VARIANTS: [&str; 6] = ["flag", "none", "barrier", "get", "set", "waits"];

fn family(block_dim: u32, tiles: u32, n: u32, v: [&str; 4]) -> Value {
    let (b, t, n) = (block_dim.to_string(), tiles.to_string(), n.to_string());
    let mut args = vec!["sync", b.as_str(), t.as_str(), n.as_str()];
    args.extend(v);
    run(&args, "Ascend910B1").remove("family").unwrap()
}

#[test]
fn missing_syncs_are_rejected_and_scalar_waits_accepted() {
    // Without the MTE2->V or V->MTE3 order the kernel is rejected ...
    for v in [
        ["flag", "none", "flag", "flag"],
        ["flag", "flag", "none", "flag"],
        ["flag", "flag", "flag", "none"],
        ["none", "flag", "flag", "flag"],
    ] {
        let r = family(1, 3, 256, v);
        assert_eq!(r["failed"], true, "{v:?} accepted: {r}");
        assert_eq!(diags(&r)[0]["kind"], "ub_unsynchronized_access");
    }
    // ... while a wait on the scalar pipe (A.2) or a scalar access that orders the bytes
    // (A.1) is accepted.
    for v in [
        ["waits", "waits", "waits", "waits"],
        ["get", "get", "get", "set"],
        ["barrier", "barrier", "barrier", "barrier"],
    ] {
        let r = family(1, 3, 256, v);
        assert_clean(&format!("{v:?}"), &r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn replacing_a_sync_never_beats_the_honest_kernel(
        block_dim in 1u32..=3,
        tiles in 1u32..=5,
        blocks in 1u32..=64,
        v in proptest::array::uniform4(0usize..VARIANTS.len()),
    ) {
        let n = blocks * 8; // floats: whole 32-byte blocks
        let honest = family(block_dim, tiles, n, ["flag"; 4]);
        prop_assert_eq!(&honest["failed"], false, "honest kernel rejected: {}", honest);
        let variant = [VARIANTS[v[0]], VARIANTS[v[1]], VARIANTS[v[2]], VARIANTS[v[3]]];
        let r = family(block_dim, tiles, n, variant);
        if r["failed"] == false {
            let (t, h) = (total_us(&r), total_us(&honest));
            prop_assert!(t >= h, "{:?} accepted and modelled {} us < honest {} us", variant, t, h);
        }
    }
}

/// A GM read-back with no MTE3 -> MTE2 / S synchronisation names the copy that wrote the
/// bytes: the one `DataCopy(yg, a, kTile);` of tests/holes.cpp (kept with the pending GM
/// range, not in a per-instruction list).
#[test]
fn gm_read_back_names_the_copy_that_wrote() {
    let src = std::fs::read_to_string(support::manifest().join("tests/holes.cpp")).unwrap();
    let line = src
        .lines()
        .position(|l| l.trim() == "DataCopy(yg, a, kTile);")
        .expect("the MTE3 copy of two_pass")
        + 1;
    for case in ["a3_gm_raw_unsynced", "a3_gm_scalar_raw"] {
        let d = diags(&fixed()[case])
            .iter()
            .find(|d| d["kind"] == "gm_unsynchronized_access")
            .unwrap_or_else(|| panic!("{case}: no diagnostic"))
            .clone();
        let msg = d["message"].as_str().unwrap();
        assert!(
            msg.contains("MTE3 copy at ") && msg.contains(&format!("holes.cpp:{line}")),
            "{case}: {msg}"
        );
    }
}
