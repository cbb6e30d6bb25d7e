//! The high-level SoftmaxFlashV2, SoftmaxGrad and SoftmaxGradFront
//! (`tests/softmax_flash.cpp`): correct kernels in the ordinary Ascend C style, including the
//! online softmax of FlashAttention-2 over two to four column blocks checked against the
//! one-shot SoftMax of the whole rows, which must run clean with the right numbers; faulty
//! ones (temporary buffer below the helper's minimum, misaligned last axis, no tiling,
//! overlaps, outputs too small) whose diagnostic must point at the line marked
//! `// expect: <kind>`; the host helpers' sizes and tilings; unsupported types rejected at
//! compile time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::{diags, manifest};

fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("softmax_flash.cpp", "softmax_flash", support::STRICT))
}

fn run(args: &[&str]) -> String {
    let out = Command::new(program())
        .args(args)
        .env("AGENTICCANN_SOC", "Ascend910B1")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env("AGENTICCANN_SIM_PROFILE_DIR", manifest().join("profiles"))
        .output()
        .expect("running softmax_flash");
    assert!(
        out.status.success(),
        "softmax_flash exited with {:?}: {}",
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
    let exp = support::expectations("softmax_flash.cpp");
    assert!(exp.len() >= 9, "{exp:?}");
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
            d["file"].as_str().unwrap().ends_with("softmax_flash.cpp"),
            "{case}: {d}"
        );
        assert_eq!(d["severity"], "error", "{case}: {d}");
        assert_eq!(r["failed"], true, "{case}: {r}");
        let api = d["api"].as_str().unwrap();
        assert!(
            ["SoftmaxFlashV2", "SoftmaxGrad", "SoftmaxGradFront"].contains(&api),
            "{case}: reported by {api}: {d}"
        );
    }
}

#[test]
fn correct_kernels_run_clean_with_the_right_numbers() {
    let names: Vec<&String> = results().keys().filter(|n| n.ends_with("_ok")).collect();
    assert!(names.len() >= 14, "{names:?}");
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
/// minimum (one row per pass) the same kernel is not modelled faster than with its maximum.
#[test]
fn a_smaller_temporary_buffer_is_not_modelled_faster() {
    let (a, b) = (
        total_us(result("flash_f32_ok")),
        total_us(result("flash_f32_max_ok")),
    );
    assert!(a > b, "minimum {a} us vs maximum {b} us");
}

fn busy(name: &str) -> f64 {
    result(name)["report"]["pipe_busy_us"]["V"]
        .as_f64()
        .unwrap_or_else(|| panic!("{name}: no vector busy time"))
}

/// One SoftmaxFlashV2 update charges at least the vector work of the same update written by
/// hand with row-batched basic instructions, and the update costs more than no update on
/// the same blocks; SoftmaxGrad (Mul, ReduceSum, broadcast, Sub, Mul) more than its front.
#[test]
fn not_cheaper_than_by_hand() {
    let hl = busy("flash_update_hl_cost_ok");
    let hand = busy("flash_update_by_hand_ok");
    assert!(
        hl >= hand,
        "SoftmaxFlashV2 V busy {hl} us < by hand {hand} us"
    );
    let instrs = |n: &str| result(n)["report"]["vector_instrs"].as_u64().unwrap();
    assert!(instrs("flash_update_hl_cost_ok") >= instrs("flash_update_by_hand_ok"));
    let (grad, front) = (
        busy("grad_f32_framework_ok"),
        busy("gradfront_f32_framework_ok"),
    );
    assert!(
        grad > front,
        "SoftmaxGrad {grad} us vs SoftmaxGradFront {front} us"
    );
}

/// The helpers' sizes and tilings, worked out by hand from the Atlas A2 rules (see
/// tiling/hl_tiling_helpers.h and ascendc_sim/hl_softmax_ext.h).
#[test]
fn host_helpers_give_the_documented_sizes() {
    let out = run(&["host"]);
    let h: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let expect = [
        // float [8, 64]: epb + 64 = 72 floats a row; max 8 rows.
        ("fl_f32", serde_json::json!([2304, 288])),
        // half data, float sum: 2 * 8 + 64 + 64 = 144 floats a row.
        ("fl_f16_f32", serde_json::json!([4608, 576])),
        // half/half [16, 128]: 2 * 16 + 128 + 64 = 224 floats a row.
        ("fl_f16", serde_json::json!([14336, 896])),
        // basic block float [16, 128]: 8 + 64 a row, the minimum 8 rows.
        ("fl_basic", serde_json::json!([4608, 2304])),
        // isFlashOutputBrc, half data [32, 64]: 16 rows of 144 floats.
        ("fl_brc", serde_json::json!(9216)),
        ("fl_bad", serde_json::json!(0)),
        ("fl_bad_type", serde_json::json!(0)),
        // [37, 64] float with 10 rows of room: 8 rows per pass, 4 passes, 5 rows of tail.
        ("fl_split", serde_json::json!([8, 4, 5])),
        ("fl_kernel_same", serde_json::json!(true)),
        // basic block [64, 128] with room for all: 64 divides M and 64 * 128 < 64 * 256, one pass.
        ("fl_basic_split", serde_json::json!([64, 1])),
        // SoftmaxGrad float [8, 64]: 2 * 8 + 64 + 64 = 144 floats a row; isFront 8 + 64 + 64.
        ("gr_f32", serde_json::json!([4608, 576])),
        ("gr_front", serde_json::json!([4352, 544])),
        // half: 2 * 16 + 3 * 64 + 64 = 288 floats a row.
        ("gr_f16", serde_json::json!([9216, 1152])),
        ("gr_bad", serde_json::json!(0)),
        // [20, 64] float with 3 rows of room: 6 passes of 3 and a tail of 2.
        ("gr_split", serde_json::json!([3, 6, 2])),
        // IsBasicBlockInSoftMax: half K = 128 no tail -> true; K = 64 < 256 / 2 -> false.
        ("basic", serde_json::json!([true, false])),
    ];
    for (key, want) in expect {
        assert_eq!(h[key], want, "{key}: {h}");
    }
}

/// The element types and template arguments the simulator rejects do not compile, with the
/// static_assert's message.
#[test]
fn unsupported_types_and_forms_do_not_compile() {
    let cases = [
        (
            "SoftmaxFlashV2<int32_t>(i, i, i, i, i, i, i, t);",
            "element type must be half or float",
        ),
        (
            "SoftmaxFlashV2<float, true, false, false, true>(f, f, f, f, f, f, f, t);",
            "isDataFormatNZ = true",
        ),
        (
            "SoftmaxGrad<int32_t>(i, i, i, t);",
            "SoftmaxGrad: element type must be half or float",
        ),
        (
            "SoftmaxGradFront<float, false, true>(f, f, f, t);",
            "isDataFormatNZ = true",
        ),
    ];
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("softmax_flash_reject");
    std::fs::create_dir_all(&dir).unwrap();
    #[allow(clippy::disallowed_methods)] // the simulator cannot use agenticcann_build::env
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    for (i, (call, msg)) in cases.iter().enumerate() {
        let src = format!(
            "#include \"kernel_operator.h\"\nusing namespace AscendC;\n\
             __aicore__ void k() {{\n  TPipe pipe;\n  TBuf<TPosition::VECCALC> a;\n  \
             pipe.InitBuffer(a, 1024);\n  LocalTensor<float> f = a.Get<float>();\n  \
             LocalTensor<int32_t> i = a.Get<int32_t>();\n  SoftMaxTiling t;\n  (void)f; (void)i;\n  {call}\n}}\n"
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
