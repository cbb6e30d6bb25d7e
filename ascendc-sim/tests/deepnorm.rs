//! The high-level DeepNorm (`tests/deepnorm.cpp`): correct kernels in the ordinary Ascend C
//! style (float and half, several passes, padded rows with the framework-allocated form, the
//! basic-block form) against a double reference of LayerNorm(alpha * x + gx); faulty ones
//! (temporary buffer below the tiling's need, no tiling, a basic block of 4 rows, gx over dst)
//! whose diagnostic must point at the line marked `// expect: <kind>`; the host helpers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("deepnorm.cpp", "deepnorm", support::STRICT))
}

fn run(args: &[&str]) -> String {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running deepnorm");
    assert!(
        out.status.success(),
        "deepnorm exited with {:?}: {}",
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
    let exp = support::expectations("deepnorm.cpp");
    assert!(exp.len() >= 4, "{exp:?}");
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
            d["file"].as_str().unwrap().ends_with("deepnorm.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        let api = d["api"].as_str().unwrap();
        assert!(api == "DeepNorm", "{case}: reported by {api}: {d}");
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 5, "{names:?}");
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

/// GetDeepNormMaxMinTmpSize and GetDeepNormTilingInfo, worked out by hand from the vendor's
/// host rules (see tiling/hl_tiling_helpers.h).
#[test]
fn host_helpers_give_the_documented_sizes() {
    let out = run(&["host"]);
    let h: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let expect = [
        // float [2, 4, 64]: 3 * align32(512 * 4) + 2 * align32(8 * 4); min 3 * 256 + 64.
        ("f32", serde_json::json!([true, 6208, 832])),
        ("f16", serde_json::json!([6272, 512])),
        // isReuseSource with float: two buffers.
        ("reuse", serde_json::json!([4160, 576])),
        // isBasicBlock with B * S = 4.
        ("basic_bad", serde_json::json!(false)),
        // the minimum for [2, 4, 64] with H 60: 208 floats, 3 buffers of one row, 8 rounds, 1/60.
        ("t", serde_json::json!([true, 64, 8, 3, 60, 1.0f32 / 60.0])),
        // half [1, 16, 32] with 4096 bytes: mean/variance in float in front (2 * 16), 320 floats each.
        ("th", serde_json::json!([true, 32, 320, 16])),
        ("small", serde_json::json!(false)),
        ("oriw", serde_json::json!(false)),
        ("wide", serde_json::json!(false)),
        // basic block [1, 16, 64]: 576 floats a buffer rounded down to 8 rows of 64.
        ("bt", serde_json::json!([true, 512])),
    ];
    for (key, want) in expect {
        if key == "t" {
            let got = h[key].as_array().unwrap();
            let w = want.as_array().unwrap();
            assert_eq!(&got[..5], &w[..5], "{key}: {h}");
            let (a, b) = (got[5].as_f64().unwrap(), w[5].as_f64().unwrap());
            assert!((a - b).abs() < 1e-7, "{key}: {h}");
            continue;
        }
        assert_eq!(h[key], want, "{key}: {h}");
    }
}
