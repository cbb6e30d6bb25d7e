//! The high-level SoftMax, SimpleSoftMax, RmsNorm and LayerNorm APIs and their host tiling
//! helpers (`tests/highlevel.cpp`): correct kernels on several shapes, half and float, with
//! and without sharedTmpBuffer, must run clean and match a double reference (the program
//! checks the numbers); faulty ones (temporary buffer below what the tiling uses, a
//! misaligned last axis, a tiling never filled, sharedTmpBuffer overlapping the source) must
//! report their kind at the line marked `// expect: <kind>`; the host helpers give the
//! documented sizes; SoftMax is not modelled cheaper than the same softmax by hand.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

/// Builds tests/highlevel.cpp once; returns the program.
fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("highlevel.cpp", "highlevel", support::STRICT))
}

/// (case, kind, line) from the markers of tests/highlevel.cpp.
fn expectations() -> Vec<(String, String, u64)> {
    support::expectations("highlevel.cpp")
}

fn run(arg: Option<&str>) -> Vec<Value> {
    let mut cmd = Command::new(program());
    if let Some(a) = arg {
        cmd.arg(a);
    }
    let out = cmd
        .env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running highlevel");
    assert!(
        out.status.success(),
        "highlevel exited with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}")))
        .collect()
}

/// Every case: name -> (values_ok, LaunchResult JSON).
fn results() -> &'static HashMap<String, (Value, Value)> {
    static R: OnceLock<HashMap<String, (Value, Value)>> = OnceLock::new();
    R.get_or_init(|| {
        run(None)
            .into_iter()
            .map(|v| {
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
    assert!(exp.len() >= 8, "{exp:?}");
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
            d["file"].as_str().unwrap().ends_with("highlevel.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        assert!(!d["message"].as_str().unwrap().is_empty());
    }
    // The too-small diagnostics name the sizes and the helper that gives them.
    for case in [
        "softmax_tmp_too_small",
        "logsoftmax_tmp_too_small",
        "sum_tmp_too_small",
        "rmsnorm_tmp_too_small",
        "layernorm_tmp_too_small",
    ] {
        let d = &diags(result(case))[0];
        let msg = d["message"].as_str().unwrap();
        assert!(msg.contains("sharedTmpBuffer holds"), "{msg}");
        assert!(msg.contains("Tmp"), "{msg}");
        assert!(
            d["numbers"]["needed_bytes"].as_f64().unwrap()
                > d["numbers"]["tmp_bytes"].as_f64().unwrap(),
            "{d}"
        );
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 15, "{names:?}");
    for name in names
        .iter()
        .copied()
        .chain(["softmax_by_hand".to_string(), "softmax_hl_cost".to_string()].iter())
    {
        let (values_ok, r) = &results()[name.as_str()];
        assert_eq!(r["failed"], false, "{name} failed: {r}");
        assert!(diags(r).is_empty(), "{name} must run clean: {r}");
        assert_eq!(
            values_ok,
            &Value::Bool(true),
            "{name} computed wrong numbers"
        );
        assert!(
            r["report"]["total_us"].as_f64().unwrap() > 0.0,
            "{name}: no modelled time"
        );
    }
}

fn busy(name: &str, pipe: &str) -> f64 {
    result(name)["report"]["pipe_busy_us"][pipe]
        .as_f64()
        .unwrap_or_else(|| panic!("{name}: no busy time for {pipe}"))
}

/// SoftMax and RmsNorm charge at least the vector work of the same computation written by hand with
/// row-batched basic instructions, and more passes (a smaller temporary buffer) cost more.
#[test]
fn softmax_and_rmsnorm_are_not_cheaper_than_by_hand() {
    let hl = busy("softmax_hl_cost", "V");
    let hand = busy("softmax_by_hand", "V");
    assert!(hl >= hand, "SoftMax V busy {hl} us < by hand {hand} us");
    let instrs = |n: &str| result(n)["report"]["vector_instrs"].as_u64().unwrap();
    assert!(instrs("softmax_hl_cost") >= instrs("softmax_by_hand"));
    let hl = busy("rmsnorm_hl_cost_ok", "V");
    let hand = busy("rmsnorm_by_hand", "V");
    assert!(hl >= hand, "RmsNorm V busy {hl} us < by hand {hand} us");
    // The same [8, 64] softmax with one row per pass (the minimum temporary space) issues 8
    // passes of instructions; with the largest space, one.
    // LogSoftMax is SoftMax plus a Log: never cheaper on the same shape and tiling.
    let log = busy("logsoftmax_f32_ok", "V");
    let plain = busy("softmax_f32_ok", "V");
    assert!(log > plain, "LogSoftMax {log} us vs SoftMax {plain} us");
    // Sum over rows of 4000 floats issues two levels of RepeatReduceSum per row (63 + 1
    // repeats): more than 5 rows of 61 (one repeat each).
    assert!(busy("sum_f32_long_ok", "V") > busy("sum_f32_ok", "V"));
    let one_row = busy("softmax_f32_ok", "V");
    let all_rows = busy("softmax_f32_onepass_ok", "V");
    assert!(
        one_row > all_rows,
        "8 passes {one_row} us vs 1 pass {all_rows} us"
    );
}

/// The host helpers: the documented size formulas, the tiling fields and the byte layout
/// shared by the optiling classes and the kernel structs.
#[test]
fn host_tiling_helpers() {
    let mut out = run(Some("host"));
    let h = out.remove(2);
    let l = out.remove(1);
    let s = out.remove(0);
    assert_eq!(s["name"], "host_sum", "{s}");
    // Sum: ceil(n / per-repeat) partial sums rounded up to 32 bytes; max = min.
    assert_eq!(s["s1"], serde_json::json!([32, 32]), "n 3 half: {s}");
    assert_eq!(s["s2"], serde_json::json!([256, 256]), "n 4096 float: {s}");
    assert_eq!(s["s3"], serde_json::json!([160, 160]), "n 10000 half: {s}");
    assert_eq!(s["s0"], serde_json::json!([0, 0]), "n 0: {s}");
    assert_eq!(l["name"], "host_log", "{l}");
    // LogSoftMax follows SoftMax's rules: [16, 128] half one row 4 (16 + 128 + 64) = 832
    // bytes, all rows 16x; 1000 bytes for [8, 64] float hold one row; the [128, 256] basic
    // block halves to 32 rows; a misaligned last axis gives 0.
    assert_eq!(l["lsm_h_min"], 832, "{l}");
    assert_eq!(l["lsm_h_max"], 13312, "{l}");
    assert_eq!(l["lsm_split"], 1, "{l}");
    assert_eq!(l["lsm_range"], 8, "{l}");
    assert_eq!(l["lsm_big_split"], 32, "{l}");
    assert_eq!(l["lsm_bad"], 0, "{l}");
    // A custom op's tiling-data class with a SoftMaxTiling field reaches the kernel struct.
    assert_eq!(h["custom_ok"], true, "{h}");
    // SoftMax [8, 64] float: one row needs 4 (8 + 64 + 64) = 544 bytes; all rows 8x.
    assert_eq!(h["sm_min"], 544, "{h}");
    assert_eq!(h["sm_max"], 4352, "{h}");
    assert_eq!(h["sm_bad_min"], 0, "misaligned last axis: {h}");
    // 1000 bytes hold one row: 8 passes of 1 row.
    assert_eq!(h["sm_split"], 1, "{h}");
    assert_eq!(h["sm_range"], 8, "{h}");
    assert_eq!(h["sm_tail"], 0, "{h}");
    assert_eq!(h["sm_reduce_k"], 8, "{h}");
    // [128, 256] basic block with the largest space: halved below 64 * 256 elements.
    assert_eq!(h["sm_big_split"], 32, "{h}");
    assert_eq!(
        h["sm_bytes"], true,
        "optiling::SoftMaxTiling bytes differ from the kernel struct: {h}"
    );
    // RmsNorm [1, 8, 64]: float min 4 (64 + 8), max 4 (512 + 8); half doubles the rows.
    assert_eq!(h["rms_ok"], true);
    assert_eq!(h["rms_min"], 288, "{h}");
    assert_eq!(h["rms_max"], 2080, "{h}");
    assert_eq!(h["rms_h_min"], 544, "{h}");
    assert_eq!(h["rms_h_max"], 4160, "{h}");
    // [2, 8, 64] (original 60) with 2000 bytes: 7 rows per pass, 2 passes, 2 rows of tail.
    assert_eq!(h["rms_tiling_ok"], true);
    assert_eq!(h["rms_bs"], 7, "{h}");
    assert_eq!(h["rms_align"], 8, "{h}");
    assert_eq!(h["rms_loop"], 2, "{h}");
    assert_eq!(h["rms_tail"], 2, "{h}");
    assert!(
        (h["rms_recip"].as_f64().unwrap() - 1.0 / 60.0).abs() < 1e-7,
        "{h}"
    );
    assert_eq!(h["rms_bad"], false, "misaligned H must be refused: {h}");
    assert_eq!(
        h["rms_small"], false,
        "a buffer below the minimum must be refused: {h}"
    );
    // LayerNorm [1, 8, 64] float: 3 buffers of one row (3 x 256) + mean/variance 2 x 32.
    assert_eq!(h["ln_min"], 832, "{h}");
    assert_eq!(h["ln_max"], 6208, "{h}");
    assert_eq!(h["ln_one"], 64, "{h}");
    assert_eq!(h["ln_loop"], 8, "{h}");
    assert_eq!(h["ln_bufs"], 3, "{h}");
    // Half [2, 4, 32, 30]: mean and variance in float in front (2 x 8 floats).
    assert_eq!(h["ln_h_first"], 16, "{h}");
    assert_eq!(h["ln_h_orig"], 30, "{h}");
    assert!(
        (h["ln_h_back"].as_f64().unwrap() - 1.0 / 30.0).abs() < 1e-7,
        "{h}"
    );
}
