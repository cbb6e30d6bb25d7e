//! Eager recipes (`eager = { source, recipe, vendor }`): validation with line/column errors,
//! the key's independence of them, the eager decomposition launching exactly the recipe's
//! operations with intermediates in the recipe's dtypes, and the vendor-fused model — byte
//! counts computed by hand.

use std::collections::HashMap;
use std::path::PathBuf;

use agenticcann_build::judge::{EvalOptions, SocProfile};
use agenticcann_build::spec::{check_manifest_str, Dtype, OpSpec, Problem, Spec};
use agenticcann_build::synth::{
    eager_bytes, eager_plan, eager_time, op_bytes, vendor_fused_time, SynthOptions,
};

fn manifest(ops: &str) -> String {
    format!("[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n{ops}")
}

fn load(ops: &str) -> Vec<OpSpec> {
    Spec::from_manifest_str(&manifest(ops), None)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap()
        .ops
}

fn problems(ops: &str) -> Vec<Problem> {
    let r = check_manifest_str(&manifest(ops), None);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    r.ops[0].result.clone().expect_err("the op is invalid")
}

#[track_caller]
fn has(ps: &[Problem], field: &str, needle: &str) -> Problem {
    ps.iter()
        .find(|p| p.field == field && p.message.contains(needle))
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "no problem on `{field}` containing `{needle}` in:\n{}",
                ps.iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
}

const RMS: &str = r#"
[package.metadata.agenticcann.ops.rms_norm]
inputs  = { x = "f16[rows, hidden]", gamma = "f16[hidden]" }
outputs = { y = "f16[rows, hidden]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 7, hidden = 64 }]
init    = { gamma = "uniform(0.5, 1.5)" }
"#;

const HF_RECIPE: &str = r#"eager = { source = "Llama (HF transformers LlamaRMSNorm)", vendor = "aclnnRmsNorm", recipe = '''
xf = cast(x, f32)
v  = mean(xf ** 2, axis=-1, keepdims=true)
h  = xf * rsqrt(v + eps)
y  = gamma * cast(h, f16)
''' }
"#;

fn hf_rms() -> OpSpec {
    load(&format!("{RMS}{HF_RECIPE}")).remove(0)
}

fn profile() -> SocProfile {
    SocProfile {
        aiv_cores: 48,
        ub_bytes: 196608,
        max_block_dim: 65535,
        hbm_peak_gbps: 1600.0,
        launch_overhead_us: 5.0,
    }
}

fn bind(rows: usize, hidden: usize) -> HashMap<String, usize> {
    HashMap::from([("rows".to_string(), rows), ("hidden".to_string(), hidden)])
}

#[test]
fn recipe_is_parsed_and_not_part_of_the_key() {
    let with = hf_rms();
    let without = load(RMS).remove(0);
    let e = with.eager.as_ref().unwrap();
    assert_eq!(e.source, "Llama (HF transformers LlamaRMSNorm)");
    assert_eq!(e.vendor.as_deref(), Some("aclnnRmsNorm"));
    assert_eq!(e.recipe.as_ref().unwrap().statements.len(), 4);
    assert!(without.eager.is_none());
    assert_eq!(
        with.key(),
        without.key(),
        "the recipe must not change the key"
    );
}

#[test]
fn recipe_syntax_error_has_line_and_column() {
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", recipe = '''\nxf = cast(x, f32)\ny = gamma * ) xf\n''' }}\n"
    ));
    let p = has(&ps, "eager.recipe", "");
    // The recipe's text starts after the newline that follows `'''`, so `)` is at 2:13.
    assert_eq!(p.location, Some((2, 13)), "{p}");
    assert!(p.snippet.as_deref().unwrap().contains("^"), "{p}");
}

#[test]
fn recipe_names_shapes_and_dtypes_are_checked() {
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", recipe = \"y = x * zz\" }}\n"
    ));
    let p = has(&ps, "eager.recipe", "zz");
    assert_eq!(p.location, Some((1, 9)));
    // The recipe ends in f32 but y is f16.
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", recipe = \"y = cast(x, f32) * gamma\" }}\n"
    ));
    has(
        &ps,
        "eager.recipe",
        "computes `y` in f32, but outputs.y is f16",
    );
    // Wrong shape.
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", recipe = \"y = mean(x, axis=-1, keepdims=true)\" }}\n"
    ));
    has(&ps, "eager.recipe", "with shape");
    // A missing output.
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", recipe = \"t = x * 2\" }}\n"
    ));
    has(&ps, "eager.recipe", "never assigned");
    // Gather indices must be integers in a recipe too; an integer attr may index.
    let gather = |recipe: &str| {
        format!(
            "[package.metadata.agenticcann.ops.g]\ninputs = {{ x = \"f32[rows, 8]\", i = \"i32[rows, 1]\" }}\noutputs = {{ y = \"f32[rows, 1]\" }}\nattrs = {{ k = 1, f = 1.0 }}\nreference = \"y = take_along_axis(x, i, axis=-1)\"\nshapes = [{{ rows = 2 }}]\neager = {{ source = \"s\", recipe = \"{recipe}\" }}\n"
        )
    };
    let ps = problems(&gather("y = take_along_axis(x, i * f, axis=-1)"));
    let p = has(&ps, "eager.recipe", "must be an integer value");
    assert_eq!(p.location, Some((1, 24)));
    assert_eq!(
        load(&gather("y = take_along_axis(x, i + k - 1, axis=-1)")).len(),
        1
    );
}

#[test]
fn eager_table_fields_are_checked() {
    has(
        &problems(&format!("{RMS}eager = {{ recipe = \"y = x * gamma\" }}\n")),
        "eager.source",
        "missing",
    );
    has(
        &problems(&format!("{RMS}eager = {{ source = \"s\" }}\n")),
        "eager",
        "give `recipe`",
    );
    has(
        &problems(&format!(
            "{RMS}eager = {{ source = \"s\", vendor = \"acl nn\" }}\n"
        )),
        "eager.vendor",
        "not a kernel name",
    );
    has(
        &problems(&format!(
            "{RMS}eager = {{ source = \"s\", vendor = \"v\", kernels = 3 }}\n"
        )),
        "eager.kernels",
        "unknown field",
    );
    has(
        &problems(&format!("{RMS}eager = 3\n")),
        "eager",
        "expected a table",
    );
}

#[test]
fn hf_rms_norm_launches_eight_kernels_with_fp32_temporaries() {
    let op = hf_rms();
    let ks = eager_plan(&op).unwrap();
    let summary: Vec<(String, Vec<Dtype>, Dtype)> = ks
        .iter()
        .map(|k| {
            assert!(k.vendor.is_none());
            let mut ins: Vec<(String, Dtype)> =
                k.op.inputs
                    .iter()
                    .map(|i| (i.name.clone(), i.decl.dtype))
                    .collect();
            ins.sort();
            (
                k.op.reference.to_canonical_source(),
                ins.into_iter().map(|(_, d)| d).collect(),
                k.op.outputs[0].decl.dtype,
            )
        })
        .collect();
    use Dtype::{F16, F32};
    let want: Vec<(&str, Vec<Dtype>, Dtype)> = vec![
        ("y = cast(a, f32)", vec![F16], F32),
        ("y = a ** 2", vec![F32], F32),
        ("y = mean(a, axis=-1, keepdims=true)", vec![F32], F32),
        ("y = a + 0.000001", vec![F32], F32),
        ("y = rsqrt(a)", vec![F32], F32),
        ("y = a * b", vec![F32, F32], F32),
        ("y = cast(a, f16)", vec![F32], F16),
        ("y = a * b", vec![F16, F16], F16),
    ];
    assert_eq!(summary.len(), 8, "{summary:?}");
    for (got, want) in summary.iter().zip(&want) {
        assert_eq!(got.1, want.1, "{got:?}");
        assert_eq!(got.2, want.2, "{got:?}");
    }
    assert_eq!(summary[0].0, want[0].0);
    assert_eq!(summary[6].0, want[6].0);
    // Bytes by hand, [R, H] = [2048, 4096]:
    //   cast   2RH + 4RH      pow   4RH + 4RH      mean  4RH + 4R
    //   +eps   4R + 4R        rsqrt 4R + 4R        mul   4RH + 4R + 4RH
    //   cast   4RH + 2RH      mul   2H + 2RH + 2RH
    // = 36·RH + 24·R + 2·H = 36·8388608 + 49152 + 8192 = 302047232.
    assert_eq!(eager_bytes(&ks, &bind(2048, 4096)).unwrap(), 302_047_232);
    // Fused: x read, gamma read, y written = 4·RH + 2·H = 33562624; 9.0× fewer.
    assert_eq!(op_bytes(&op, &bind(2048, 4096)).unwrap(), 33_562_624);
}

#[test]
fn without_a_recipe_the_reference_is_decomposed_in_the_output_dtype() {
    let op = load(RMS).remove(0);
    let ks = eager_plan(&op).unwrap();
    // x*x, mean, +eps, rsqrt, x*r, *gamma.
    assert_eq!(ks.len(), 6);
    assert!(ks.iter().all(|k| k.op.outputs[0].decl.dtype == Dtype::F16));
    // 2RH+2RH (x*x) + 2RH+2R (mean) + 2R+2R + 2R+2R + 2RH+2R+2RH (x*r) + 2RH+2H+2RH (*gamma)
    // = 16·RH + 12·R + 2·H at [7, 64]: 7168 + 84 + 128 = 7380.
    assert_eq!(eager_bytes(&ks, &bind(7, 64)).unwrap(), 7380);
}

#[test]
fn vendor_fused_model_is_one_launch_at_the_roofline() {
    let ops = load(
        r#"
[package.metadata.agenticcann.ops.layer_norm]
inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]", beta = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs   = { eps = 1e-5 }
reference = """
mu = mean(x, axis=-1, keepdims=true)
d = x - mu
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
"""
shapes  = [{ rows = 2048 }]
eager = { source = "BERT/GPT-2 (torch.nn.functional.layer_norm)", vendor = "aclnnLayerNorm" }
"#,
    );
    let b = HashMap::from([("rows".to_string(), 2048)]);
    let v = vendor_fused_time(&ops[0], &b, &profile()).unwrap().unwrap();
    assert_eq!(v.vendor, "aclnnLayerNorm");
    // x + y: 2 · 2048·4096·2 bytes; gamma + beta: 2 · 4096·2 bytes.
    assert_eq!(v.bytes, 33_554_432 + 16_384);
    // 33570816 B / 1600 GB/s = 20.98176 us, + 5 us launch.
    assert!((v.time_us - 25.98176).abs() < 1e-9, "{}", v.time_us);
    // At one row, launch overhead dominates: (16384 + 16384) B → 0.02048 us + 5 us.
    let one = HashMap::from([("rows".to_string(), 1)]);
    let v1 = vendor_fused_time(&ops[0], &one, &profile())
        .unwrap()
        .unwrap();
    assert!((v1.time_us - 5.02048).abs() < 1e-9, "{}", v1.time_us);
    // No vendor: no model.
    assert!(vendor_fused_time(&load(RMS)[0], &bind(1, 64), &profile())
        .unwrap()
        .is_none());
}

/// The HF recipe judged on the simulator: eight accepted launches, each paying the launch
/// overhead, moving at least the hand-computed bytes.
#[test]
fn hf_rms_norm_eager_baseline_runs_on_the_simulator() {
    let op = hf_rms();
    let eval = EvalOptions {
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge")),
        held_out: false,
        stress: false,
        ..EvalOptions::default()
    };
    let t = eager_time(&op, &SynthOptions::default(), &eval).unwrap();
    assert_eq!(t.kernels, 8);
    let (_, us) = &t.shapes[0];
    assert!(*us >= 8.0 * 5.0, "8 launches of ≥ 5 us each, got {us}");
    // [7, 64]: 36·448 + 24·7 + 2·64 = 16424 bytes at least.
    assert!(t.bytes[0] >= 16_424, "{}", t.bytes[0]);
}

/// HF Llama eager attention: `scores + causal_mask`, `softmax(dim=-1, dtype=float32)` (a cast
/// and one vendor softmax), `.to(f16)`: four launches, the softmax at its roofline.
#[test]
fn vendor_calls_inside_a_recipe_are_one_launch_each() {
    let ops = load(
        r#"
[package.metadata.agenticcann.ops.attn_softmax]
inputs  = { scores = "f16[heads, q, kv]", mask = "f16[1, q, kv]" }
outputs = { y = "f16[heads, q, kv]" }
reference = """
s = scores + mask
e = exp(s - max(s, axis=-1, keepdims=true))
y = e / sum(e, axis=-1, keepdims=true)
"""
shapes  = [{ heads = 2, q = 4, kv = 64 }]
eager = { source = "Llama (HF eager_attention_forward)", calls = { p = "aclnnSoftmax" }, recipe = """
s = scores + mask
sf = cast(s, f32)
p = exp(sf - max(sf, axis=-1, keepdims=true)) / sum(exp(sf - max(sf, axis=-1, keepdims=true)), axis=-1, keepdims=true)
y = cast(p, f16)
""" }
"#,
    );
    let plan = eager_plan(&ops[0]).unwrap();
    let vendors: Vec<Option<&str>> = plan.iter().map(|s| s.vendor.as_deref()).collect();
    assert_eq!(vendors, vec![None, None, Some("aclnnSoftmax"), None]);
    let sm = &plan[2].op;
    assert_eq!(sm.inputs.len(), 1);
    assert_eq!(sm.inputs[0].decl.dtype, Dtype::F32);
    assert_eq!(sm.outputs[0].decl.dtype, Dtype::F32);
    // [2, 4, 64] = 512 elements: add 2+2·(256/512)+2 → 512·2 + 256·2 + 512·2 = 2560;
    // cast 512·(2+4) = 3072; softmax 512·(4+4) = 4096; cast 512·(4+2) = 3072.
    let b = HashMap::from([
        ("heads".to_string(), 2),
        ("q".to_string(), 4),
        ("kv".to_string(), 64),
    ]);
    assert_eq!(op_bytes(sm, &b).unwrap(), 4096);
    assert_eq!(eager_bytes(&plan, &b).unwrap(), 2560 + 3072 + 4096 + 3072);
    // `calls` must name a statement of the recipe, and needs a recipe.
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", vendor = \"v\", calls = {{ p = \"k\" }} }}\n"
    ));
    has(&ps, "eager.calls", "give one");
    let ps = problems(&format!(
        "{RMS}eager = {{ source = \"s\", calls = {{ q = \"k\" }}, recipe = \"y = x * gamma\" }}\n"
    ));
    has(&ps, "eager.calls.q", "not assigned by the recipe");
}

#[test]
fn indexing_constructs_are_unsupported_by_name_not_lowered_wrongly() {
    use agenticcann_build::synth::{propose, SynthError};
    let ops = load(
        r#"
[package.metadata.agenticcann.ops.swiglu_packed]
inputs  = { x = "f16[rows, 256]" }
outputs = { y = "f16[rows, 128]" }
reference = "y = x[..., :128] * sigmoid(x[..., :128]) * x[..., 128:]"
shapes  = [{ rows = 3 }]

[package.metadata.agenticcann.ops.causal]
inputs  = { s = "f16[rows, 16]" }
outputs = { y = "f16[rows, 16]" }
reference = "y = where(iota(s, axis=-1) > 3, -inf, s)"
shapes  = [{ rows = 16 }]

[package.metadata.agenticcann.ops.greedy]
inputs  = { x = "f32[rows, 64]" }
outputs = { t = "i32[rows]" }
reference = "t = argmax(x, axis=-1)"
shapes  = [{ rows = 1 }]

[package.metadata.agenticcann.ops.gather]
inputs  = { x = "f32[rows, 64]", i = "i32[rows, 1]" }
outputs = { y = "f32[rows, 1]" }
reference = "y = take_along_axis(x, i, axis=-1) * 2"
shapes  = [{ rows = 1 }]

[package.metadata.agenticcann.ops.rot]
inputs  = { x = "f32[rows, 64]" }
outputs = { y = "f32[rows, 64]" }
reference = "y = concat(x[..., 32:], x[..., :32], axis=-1) + 1"
shapes  = [{ rows = 1 }]
"#,
    );
    // Step-1 last-axis slices and last-axis concats of them are lowered (issue 18): the
    // proposer emits GM views, the decomposition keeps slices as views (no launch) and runs
    // a concat as one launch.
    for (op, launches) in [(&ops[0], 3), (&ops[4], 2)] {
        let c =
            propose(op, &SynthOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", op.name));
        assert!(c.kernel.contains("g_x__c"), "{}: no view", op.name);
        let plan = eager_plan(op).unwrap_or_else(|e| panic!("{}: {e}", op.name));
        assert_eq!(plan.len(), launches, "{}", op.name);
    }
    let names = ["iota", "argmax", "take_along_axis"];
    for (op, construct) in ops[1..4].iter().zip(names) {
        match propose(op, &SynthOptions::default()) {
            Err(SynthError::Unsupported { reason, .. }) => {
                assert!(reason.contains(construct), "{}: {reason}", op.name)
            }
            other => panic!(
                "{}: expected Unsupported, got {:?}",
                op.name,
                other.map(|_| ())
            ),
        }
        match eager_plan(op) {
            Err(SynthError::Unsupported { reason, .. }) => {
                assert!(
                    reason.contains("eager decomposition") && reason.contains(construct),
                    "{}: {reason}",
                    op.name
                )
            }
            other => panic!(
                "{}: expected Unsupported, got {:?}",
                op.name,
                other.map(|_| ())
            ),
        }
    }
}
