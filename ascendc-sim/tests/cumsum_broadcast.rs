//! The high-level CumSum and Broadcast (`tests/cumsum_broadcast.cpp`): correct kernels in
//! the ordinary Ascend C style on several shapes with tails, which must run clean and match
//! the host reference bit for bit; faulty ones (temporary buffer too small, wrong shapes,
//! misaligned rows, overlaps) whose diagnostic must point at the line marked
//! `// expect: <kind>`; the host helpers' sizes; unsupported types rejected at compile time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("cumsum_broadcast.cpp", "cumsum_broadcast", support::STRICT))
}

fn run(soc: &str, args: &[&str]) -> String {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", soc)
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running cumsum_broadcast");
    assert!(
        out.status.success(),
        "cumsum_broadcast exited with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Every case: name -> (values_ok, LaunchResult JSON).
fn results() -> &'static HashMap<String, (Value, Value)> {
    static R: OnceLock<HashMap<String, (Value, Value)>> = OnceLock::new();
    R.get_or_init(|| {
        run("Ascend910B1", &[])
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
    let exp = support::expectations("cumsum_broadcast.cpp");
    assert!(exp.len() >= 13, "{exp:?}");
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
            d["file"]
                .as_str()
                .unwrap()
                .ends_with("cumsum_broadcast.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        let api = d["api"].as_str().unwrap();
        assert!(
            api == "CumSum" || api == "Broadcast",
            "{case}: reported by {api}: {d}"
        );
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 21, "{names:?}");
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

/// The implementations work through the temporary buffer in passes: with the helper's
/// minimum they take more passes than with its maximum, never less time.
#[test]
fn a_smaller_temporary_buffer_is_not_modelled_faster() {
    for (min, max) in [
        ("cumsum_last_f32_min_ok", "cumsum_last_f32_max_ok"),
        ("brc_last_f32_ok", "brc_last_f32_max_ok"),
    ] {
        let (a, b) = (total_us(result(min)), total_us(result(max)));
        assert!(a > b, "{min} {a} us vs {max} {b} us");
    }
}

/// Broadcast [37, 1] -> [37, 16] is not modelled cheaper than its Brcb + Copy by hand in the
/// same kernel.
#[test]
fn broadcast_is_not_cheaper_than_by_hand() {
    let hl = total_us(result("brc_last_f32_max_ok"));
    let hand = total_us(result("brc_by_hand_ok"));
    assert!(hl >= hand, "Broadcast {hl} us vs by hand {hand} us");
}

/// GetCumSumMaxMinTmpSize and GetBroadCastMaxMinTmpSize: (max, min) bytes, worked out by
/// hand from the vendor's formulas (see tiling/hl_tiling_helpers.h).
#[test]
fn host_helpers_give_the_documented_sizes() {
    let host = |soc: &str| -> Value {
        let out = run(soc, &["host"]);
        serde_json::from_str(out.lines().next().unwrap()).unwrap()
    };
    let a2 = host("Ascend910B1");
    let expect = [
        // CumSum, last axis float [37, 24]: min 2 * 16 * 24 * 4, max with 48 rows.
        ("cum_last_f32_37x24", [9216, 3072]),
        // half [3, 48]: + 16 * 48 * 2 for the float copy; one group of 16 rows either way.
        ("cum_last_f16_3x48", [4608, 4608]),
        ("cum_first_f32_7x40", [0, 0]),
        ("cum_first_f16_5x16", [320, 320]),
        ("cum_misaligned", [0, 0]),
        ("cum_3d", [0, 0]),
        // Broadcast axis 1, float: 8 * 8 * 4; max (37 -> 40 rows) * 8 * 4.
        ("brc_last_f32_37x16", [1280, 256]),
        // half, rows of 20 (padded to 32): min 16 * 16 * 2 + 16 * 32 * 2, max 16 * 16 * 2 +
        // 9 * 32 * 2 — the maximum is below the minimum for fewer rows than a block.
        ("brc_last_f16_9x20", [1088, 1536]),
        // int8 through half: + (16 + 208) * 2 bytes of casts.
        ("brc_last_i8_6x33", [1280, 2496]),
        ("brc_last_f16_32x16", [1024, 512]),
        ("brc_first_f32_5x24", [32, 32]),
        ("brc_first_misaligned", [0, 0]),
        ("brc_scalar_f16", [0, 0]),
        ("brc_same_u8_8", [96, 96]),
        ("brc_wrong_shape", [0, 0]),
        ("brc_3d", [0, 0]),
    ];
    for (key, want) in expect {
        assert_eq!(a2[key], serde_json::json!(want), "{key}: {a2}");
    }
    // Atlas 300I/310P: its own axis-1 rule (rows a multiple of 16 halves).
    let p310 = host("Ascend310P1");
    assert_eq!(
        p310["brc_last_f16_32x16"],
        serde_json::json!([1056, 96]),
        "{p310}"
    );
    assert_eq!(
        p310["brc_last_f16_9x20"],
        serde_json::json!([0, 0]),
        "{p310}"
    );
    assert_eq!(p310["cum_last_f32_37x24"], a2["cum_last_f32_37x24"]);
}

/// The element types and template arguments the vendor rejects do not compile, with the
/// static_assert's message.
#[test]
fn unsupported_types_and_dims_do_not_compile() {
    let cases = [
        (
            "CumSum<int32_t>(d, r, s, t, {1, 8});",
            "int32_t",
            "CumSum: element type must be half or float",
        ),
        (
            "Broadcast<double, 2, 1>(d, s, ds, ss, t);",
            "double",
            "Broadcast: T must be",
        ),
        (
            "Broadcast<float, 3, 1>(d, s, ds, ss, t);",
            "float",
            "only dim = 1 or dim = 2",
        ),
        (
            "Broadcast<float, 2, 2>(d, s, ds, ss, t);",
            "float",
            "axis must be 0 or 1",
        ),
    ];
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cumsum_broadcast_reject");
    std::fs::create_dir_all(&dir).unwrap();
    #[allow(clippy::disallowed_methods)] // the simulator cannot use agenticcann_build::env
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    for (i, (call, ty, msg)) in cases.iter().enumerate() {
        let src = format!(
            "#include \"kernel_operator.h\"\nusing namespace AscendC;\n\
             __aicore__ void k() {{\n  TPipe pipe;\n  TBuf<TPosition::VECCALC> a, b;\n  \
             pipe.InitBuffer(a, 1024);\n  pipe.InitBuffer(b, 1024);\n  \
             LocalTensor<{ty}> s = a.Get<{ty}>(), d = b.Get<{ty}>(), r = b.Get<{ty}>();\n  \
             LocalTensor<uint8_t> t = b.Get<uint8_t>();\n  \
             const uint32_t ds[3] = {{4, 8, 1}}, ss[3] = {{4, 1, 1}};\n  (void)ds; (void)ss; (void)r;\n  {call}\n}}\n"
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
        assert!(!out.status.success(), "`{call}` compiled");
        assert!(err.contains(msg), "`{call}`: expected `{msg}` in\n{err}");
    }
}
