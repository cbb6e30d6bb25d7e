//! The high-level Pad and UnPad (`tests/pad_unpad.cpp`): correct kernels in the ordinary
//! Ascend C style (both padding scenarios: an unaligned width padded left and right through the
//! temporary buffer, an aligned width with redundant columns overwritten, in place, more than
//! 255 rows; UnPad with and without sharedTmpBuffer) bit-exact against a host reference;
//! faulty ones (temporary buffer below the tiling's need, a tiling made below the minimum, a
//! padded width above or below the 32-byte round-up, left padding of an aligned width, no
//! tiling, a destination too small or overlapping, UnPad of misaligned rows, of nothing, of
//! more than 255 rows) whose diagnostic must point at the line marked `// expect: <kind>`;
//! the host helpers' sizes and tilings.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("pad_unpad.cpp", "pad_unpad", support::STRICT))
}

fn run(args: &[&str]) -> String {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running pad_unpad");
    assert!(
        out.status.success(),
        "pad_unpad exited with {:?}: {}",
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
    let exp = support::expectations("pad_unpad.cpp");
    assert!(exp.len() >= 11, "{exp:?}");
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
            d["file"].as_str().unwrap().ends_with("pad_unpad.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        let api = d["api"].as_str().unwrap();
        assert!(
            ["Pad", "UnPad"].contains(&api),
            "{case}: reported by {api}: {d}"
        );
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 10, "{names:?}");
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

/// GetPadMaxMinTmpSize, PadTilingFunc, GetUnPadMaxMinTmpSize and UnPadTilingFunc, worked out
/// by hand from the vendor's host rules (see tiling/hl_tiling_helpers.h).
#[test]
fn host_helpers_give_the_documented_sizes() {
    let out = run(&["host"]);
    let h: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let expect = [
        // [16, 15] half: 240 elements in 15 groups of 16, 32 bytes each, twice; min one group.
        ("pad_f16", serde_json::json!([15360, 1024])),
        ("pad_f32", serde_json::json!([5120, 1024])),
        ("pad_bad", serde_json::json!([0, 0])),
        // UnPad needs no temporary space on Atlas A2.
        ("unpad_a2", serde_json::json!([0, 0])),
        // [320, 63] half with 4096 bytes: 4 blocks, tmp2 at 1024 halves, 64-column fractals
        // (none whole, a tail of 63 aligned to 64), 315 Brcb fractals, no tail, 8 repeats each.
        ("pt", serde_json::json!([4, 1024, 64, 0, 63, 64, 315, 0, 8])),
        // [600, 16] float without temporary space: the aligned fields only.
        ("at", serde_json::json!([8, 2, 2, 90, 8168, 0])),
        // UnPad [16, 40] half with 2048 bytes: 2 blocks, 32-column fractals, 2 of them (the
        // last 8 wide), tmp2 at 512.
        ("ut", serde_json::json!([2, 32, 2, 8, 512])),
        ("un", serde_json::json!([16, 32, 0])),
    ];
    for (key, want) in expect {
        assert_eq!(h[key], want, "{key}: {h}");
    }
}

/// Types the vendor does not list do not compile.
#[test]
fn unsupported_types_do_not_compile() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pad_unpad_reject");
    std::fs::create_dir_all(&dir).unwrap();
    #[allow(clippy::disallowed_methods)] // the simulator cannot use agenticcann_build::env
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    for (i, ty) in ["int8_t", "bfloat16_t"].iter().enumerate() {
        let src = format!(
            "#include \"kernel_operator.h\"\nusing namespace AscendC;\n\
             __aicore__ void k() {{\n  TPipe pipe;\n  TBuf<TPosition::VECCALC> a;\n  \
             pipe.InitBuffer(a, 1024);\n  LocalTensor<{ty}> s = a.Get<{ty}>();\n  \
             PadParams p;\n  PadTiling t;\n  Pad(s, s, p, t);\n}}\n"
        );
        let path = dir.join(format!("reject{i}.cpp"));
        std::fs::write(&path, src).unwrap();
        let out = Command::new(&cxx)
            .args(["-std=c++20", "-fsyntax-only", "-I"])
            .arg(manifest().join("include"))
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "Pad<{ty}> compiled");
        assert!(err.contains("Pad/UnPad: T must be"), "Pad<{ty}>: {err}");
    }
}
