//! The high-level WelfordUpdate (`tests/welford.cpp`): kernels in the ordinary Ascend C style
//! folding two to four blocks into running means and squared-deviation sums (float, half input
//! with isInplace and uncomputed columns, the framework form) against a double reference;
//! faulty ones (rnLength 2, abComputeLength 0, a misaligned abLength, a temporary buffer below
//! the minimum, outputs on the inputs without isInplace, a block longer than the tensors) whose
//! diagnostic must point at the line marked `// expect: <kind>`; the host helper's sizes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("welford.cpp", "welford", support::STRICT))
}

fn run(args: &[&str]) -> String {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running welford");
    assert!(
        out.status.success(),
        "welford exited with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Every case: name -> (values_ok, LaunchResult JSON).
fn results() -> &'static HashMap<String, (Value, Value)> {
    static R: OnceLock<HashMap<String, (Value, Value)>> = OnceLock::new();
    R.get_or_init(|| {
        run(&[])
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

fn total_us(r: &Value) -> f64 {
    r["report"]["total_us"]
        .as_f64()
        .unwrap_or_else(|| panic!("no modelled time in {r}"))
}

#[test]
fn faulty_kernels_report_their_kind_at_their_line() {
    let exp = support::expectations("welford.cpp");
    assert!(exp.len() >= 6, "{exp:?}");
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
            d["file"].as_str().unwrap().ends_with("welford.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        let api = d["api"].as_str().unwrap();
        assert!(api == "WelfordUpdate", "{case}: reported by {api}: {d}");
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let (values_ok, r) = &results()[name];
        assert_eq!(r["failed"], false, "{name} failed: {r}");
        assert!(diags(r).is_empty(), "{name} must run clean: {r}");
        assert_eq!(
            values_ok,
            &Value::Bool(true),
            "{name} computed wrong numbers"
        );
        assert!(total_us(r) > 0.0, "{name}: no modelled time: {r}");
    }
}

/// GetWelfordUpdateMaxMinTmpSize on Atlas A2: 256-byte float buffers (2 for float, 3 for a
/// half input, 1 with isReuseSource), once per 64 elements at most.
#[test]
fn host_helper_gives_the_documented_sizes() {
    let out = run(&["host"]);
    let h: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(h["f32"], serde_json::json!([512, 512]), "{h}");
    // half [1, 200]: 4 groups of 64 elements, 3 buffers each.
    assert_eq!(h["f16"], serde_json::json!([3072, 768]), "{h}");
    assert_eq!(h["reuse"], serde_json::json!([512, 256]), "{h}");
    assert_eq!(h["bad"], serde_json::json!([0, 0]), "{h}");
}
