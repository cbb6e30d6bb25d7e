//! Loading `[package.metadata.agenticcann]`: typed values, defaults, and one test per class
//! of invalid spec, each checking the package, op, field and reason.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agenticcann_build::spec::{
    check_manifest_path, check_manifest_str, AttrValue, BindError, Dim, Dtype, Init, OpClass,
    Pattern, Problem, Spec, Tolerance,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn manifest(meta: &str) -> String {
    format!("[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n{meta}")
}

/// The problems of the single op of `meta`.
fn op_problems(meta: &str) -> Vec<Problem> {
    let r = check_manifest_str(&manifest(meta), None);
    assert!(r.problems.is_empty(), "package problems: {:?}", r.problems);
    assert_eq!(r.ops.len(), 1);
    r.ops[0].result.clone().expect_err("the op is invalid")
}

#[track_caller]
fn has(problems: &[Problem], field: &str, needle: &str) {
    assert!(
        problems
            .iter()
            .any(|p| p.field == field && p.message.contains(needle) && p.package == "p"),
        "no problem on `{field}` containing `{needle}` in:\n{}",
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const RMS: &str = r#"
[package.metadata.agenticcann.ops.rms_norm]
inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 1 }, { rows = 7 }, { rows = 2048 }]
"#;

#[test]
fn parses_the_design_example() {
    let spec = Spec::from_manifest_str(&manifest(RMS), None)
        .unwrap()
        .unwrap();
    assert_eq!(spec.package, "p");
    assert_eq!(spec.soc.name(), "Ascend910B1");
    assert_eq!(spec.soc.arch().as_str(), "dav-c220-vec");
    assert_eq!(spec.kernels, PathBuf::from("kernels"));
    let op = &spec.ops[0];
    assert_eq!(op.name, "rms_norm");
    // Manifest order is kept for the wrapper; kernel order is sorted.
    let names: Vec<&str> = op.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["x", "gamma"]);
    let params: Vec<&str> = op.kernel_params().iter().map(|p| p.name).collect();
    assert_eq!(params, ["gamma", "x", "y"]);
    assert_eq!(op.inputs[0].decl.dtype, Dtype::F16);
    assert_eq!(
        op.inputs[0].decl.shape.dims,
        vec![Dim::Named("rows".into()), Dim::Fixed(4096)]
    );
    assert_eq!(op.named_dims(), ["rows"]);
    assert_eq!(op.attrs[0].value, AttrValue::Float(1e-6));
    assert_eq!(op.shapes.len(), 3);
    assert_eq!(op.smallest_shape()["rows"], 1);
    assert_eq!(op.class, OpClass::Reduction);
    assert_eq!(
        op.outputs[0].tolerance,
        Tolerance {
            atol: 1e-3,
            rtol: 1e-3
        }
    );
    assert_eq!(op.inputs[0].init, Init::Uniform { lo: -1.0, hi: 1.0 });
    assert_eq!(op.pattern_guess(), (Pattern::Normalization, true));
    let shapes = op.tensor_shapes(op.smallest_shape()).unwrap();
    assert_eq!(shapes["x"], vec![1, 4096]);
    assert_eq!(shapes["gamma"], vec![4096]);
}

#[test]
fn a_package_without_metadata_has_no_spec() {
    let m = "[package]\nname = \"p\"\nversion = \"0.1.0\"\n";
    assert_eq!(Spec::from_manifest_str(m, None).unwrap(), None);
}

#[test]
fn default_tolerances_per_dtype_and_class() {
    let m = manifest(
        r#"
[package.metadata.agenticcann.ops.ew]
inputs = { x = "f32[4]", h = "f16[4]", b = "bf16[4]" }
outputs = { y = "f32[4]", yh = "f16[4]", yb = "bf16[4]", yi = "i32[4]" }
reference = "y = x * 2; yh = h * 2; yb = b * 2; yi = cast(x, i32)"
[package.metadata.agenticcann.ops.red]
inputs = { x = "f32[4]" }
outputs = { y = "f32[]" }
reference = "y = sum(x)"
"#,
    );
    let spec = Spec::from_manifest_str(&m, None).unwrap().unwrap();
    let ew = spec.op("ew").unwrap();
    assert_eq!(ew.class, OpClass::Elementwise);
    let tol = |n: &str| ew.output(n).unwrap().tolerance;
    assert_eq!(
        tol("y"),
        Tolerance {
            atol: 1e-5,
            rtol: 1e-5
        }
    );
    assert_eq!(
        tol("yh"),
        Tolerance {
            atol: 1e-3,
            rtol: 1e-3
        }
    );
    assert_eq!(
        tol("yb"),
        Tolerance {
            atol: 1e-2,
            rtol: 5e-3
        }
    );
    assert_eq!(
        tol("yi"),
        Tolerance {
            atol: 0.0,
            rtol: 0.0
        }
    );
    let red = spec.op("red").unwrap();
    assert_eq!(red.class, OpClass::Reduction);
    assert_eq!(
        red.outputs[0].tolerance,
        Tolerance {
            atol: 1e-4,
            rtol: 1e-4
        }
    );
    assert_eq!(red.pattern_guess().0, Pattern::Reduction);
    // No named dimension: one empty binding.
    assert_eq!(red.shapes, vec![HashMap::new()]);
}

#[test]
fn workspace_defaults_apply_under_package_and_op_values() {
    let root = fixtures().join("workspace-defaults");
    let a = Spec::from_manifest_path(&root.join("a/Cargo.toml"))
        .unwrap()
        .unwrap();
    assert_eq!(a.soc.name(), "Ascend910B2");
    assert_eq!(a.kernels, PathBuf::from("store"));
    assert_eq!(a.kernels_dir(), root.join("a/store"));
    assert_eq!(a.workspace_manifest_path, Some(root.join("Cargo.toml")));
    let op = &a.ops[0];
    assert_eq!(
        op.outputs[0].tolerance,
        Tolerance {
            atol: 5e-3,
            rtol: 4e-3
        }
    );
    assert_eq!(
        op.inputs[0].init,
        Init::Normal {
            mu: 0.0,
            sigma: 0.5
        }
    );

    let b = Spec::from_manifest_path(&root.join("b/Cargo.toml"))
        .unwrap()
        .unwrap();
    assert_eq!(b.soc.name(), "Ascend310P3");
    assert_eq!(b.soc.arch().as_str(), "dav-m200-vec");
    let scale = b.op("scale").unwrap();
    // Package rtol over workspace rtol; workspace atol still applies.
    assert_eq!(
        scale.outputs[0].tolerance,
        Tolerance {
            atol: 5e-3,
            rtol: 1e-2
        }
    );
    let strict = b.op("scale_strict").unwrap();
    assert_eq!(
        strict.outputs[0].tolerance,
        Tolerance {
            atol: 1e-4,
            rtol: 1e-4
        }
    );
    assert_eq!(strict.inputs[0].init, Init::Uniform { lo: -2.0, hi: 2.0 });
    // Same op, different arch: different keys. Same op, same arch: same key.
    assert_ne!(a.ops[0].key(), scale.key());
    assert_eq!(scale.key(), strict.key());

    let c = Spec::from_manifest_path(&root.join("c/Cargo.toml")).unwrap();
    assert!(c.is_none());
}

#[test]
fn valid_fixture_loads() {
    let spec = Spec::from_manifest_path(&fixtures().join("valid/Cargo.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap();
    let names: Vec<&str> = spec.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "rms_norm",
            "layer_norm",
            "softmax",
            "gelu",
            "gelu_tanh",
            "silu",
            "swiglu",
            "add_rms_norm",
            "relu_mask"
        ]
    );
    let guess = |n: &str| spec.op(n).unwrap().pattern_guess().0;
    assert_eq!(guess("softmax"), Pattern::Softmax);
    assert_eq!(guess("gelu"), Pattern::Elementwise);
    assert_eq!(guess("rms_norm"), Pattern::Normalization);
    assert_eq!(guess("add_rms_norm"), Pattern::Fusion);
    let softmax = spec.op("softmax").unwrap();
    assert_eq!(
        softmax.outputs[0].tolerance,
        Tolerance {
            atol: 2e-3,
            rtol: 1e-3
        }
    );
    // Every op evaluates on its smallest shape.
    for op in &spec.ops {
        let inputs = op.generate_inputs(op.smallest_shape(), 0).unwrap();
        let out = op.golden(&inputs).unwrap();
        let shapes = op.tensor_shapes(op.smallest_shape()).unwrap();
        for o in &op.outputs {
            assert_eq!(out[&o.name].shape(), &shapes[&o.name][..], "{}", op.name);
            assert!(out[&o.name].iter().all(|v| v.is_finite()), "{}", op.name);
        }
    }
}

#[test]
fn every_class_of_invalid_spec_in_the_fixture() {
    let r = check_manifest_path(&fixtures().join("invalid/Cargo.toml"));
    assert_eq!(r.package, "fixture-invalid");
    assert!(r.problems.is_empty());
    let get = |op: &str| -> Vec<Problem> {
        r.ops
            .iter()
            .find(|o| o.name == op)
            .unwrap_or_else(|| panic!("no op {op}"))
            .result
            .clone()
            .err()
            .unwrap_or_default()
    };
    assert!(get("good").is_empty());
    let expect = [
        ("unknown_dtype", "inputs.x", "unknown dtype `f61`"),
        ("undefined_name", "reference", "undefined name `z`"),
        (
            "unknown_function",
            "reference",
            "unknown function `softplus`",
        ),
        (
            "wrong_arity",
            "reference",
            "`clamp` takes 3 arguments, got 2",
        ),
        ("bad_axis", "reference", "axis 2 is out of range"),
        (
            "output_shape_mismatch",
            "reference",
            "computes `y` with shape [rows, 1]",
        ),
        (
            "duplicate_name",
            "outputs.x",
            "duplicate name `x`: already an input",
        ),
        ("nonfinite_attr", "attrs.eps", "must be finite"),
        (
            "dim_conflict",
            "reference",
            "`n` is used with two different sizes",
        ),
        (
            "parse_error",
            "reference",
            "expected an expression, found `)`",
        ),
        ("missing_shapes", "shapes", "named dimensions (cols, rows)"),
        ("unknown_field", "refrence", "unknown field `refrence`"),
        ("unknown_field", "reference", "missing"),
        (
            "bad_init",
            "init.x",
            "draws real numbers but the input is i32",
        ),
    ];
    for (op, field, needle) in expect {
        let ps = get(op);
        assert!(
            ps.iter().any(|p| p.field == field
                && p.message.contains(needle)
                && p.op.as_deref() == Some(op)
                && p.package == "fixture-invalid"),
            "{op}: no problem on `{field}` containing `{needle}`:\n{}",
            ps.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // Reference errors carry line, column and a caret snippet.
    let p = &get("parse_error")[0];
    assert_eq!(p.location, Some((2, 13)));
    assert_eq!(
        p.snippet.as_deref(),
        Some("  |\n2 | y = t * (2 +)\n  |             ^")
    );
    let shown = p.to_string();
    assert!(
        shown.contains("package `fixture-invalid`, op `parse_error`, field `reference`"),
        "{shown}"
    );
    assert!(shown.contains("--> reference line 2, column 13"), "{shown}");
    // into_spec gathers everything into one error.
    let err = r.into_spec().unwrap_err();
    assert!(err.problems.len() >= expect.len());
    assert!(err.to_string().starts_with("invalid agenticcann spec in "));
}

#[test]
fn unknown_and_missing_soc() {
    let r = check_manifest_path(&fixtures().join("invalid-soc/Cargo.toml"));
    let ps = r.ops[0].result.clone().unwrap_err();
    assert_eq!(ps[0].field, "soc");
    assert!(ps[0].message.contains("unknown SoC `Ascend999Z`"));
    assert!(
        ps[0].message.contains("the package's `soc`"),
        "{}",
        ps[0].message
    );
    let m = "[package]\nname = \"p\"\n[package.metadata.agenticcann]\nkernels = \"k\"\n";
    let r = check_manifest_str(m, None);
    assert_eq!(r.problems[0].field, "soc");
    assert!(r.problems[0].message.contains("missing"));
}

#[test]
fn package_level_problems() {
    let m = "[package]\nname = \"p\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\nkernel = \"k\"\nkernels = \"/abs\"\ntolerance = { f61 = { atol = 1 }, f16 = { atol = -1 } }\ninit = { f16 = \"int(0, 1e9)\", i8 = \"normal(0,1)\" }\nops = 3\n";
    let r = check_manifest_str(m, None);
    let fields: Vec<&str> = r.problems.iter().map(|p| p.field.as_str()).collect();
    for f in [
        "kernel",
        "kernels",
        "tolerance.f61",
        "tolerance.f16.atol",
        "init.f16",
        "init.i8",
        "ops",
    ] {
        assert!(fields.contains(&f), "{f} not in {fields:?}");
    }
    assert!(r
        .problems
        .iter()
        .all(|p| p.op.is_none() && p.package == "p"));
    let r = check_manifest_str("[package\n", None);
    assert!(r.problems[0].message.contains("invalid TOML"));
    let ws = "[workspace]\n[workspace.metadata.agenticcann]\nsoc = \"Ascend910B1\"\nops = {}\n";
    let r = check_manifest_str(
        &format!("[package]\nname = \"p\"\n{RMS}").replace(
            "[package.metadata.agenticcann.ops.rms_norm]",
            "[package.metadata.agenticcann.ops.rms_norm]",
        ),
        Some(ws),
    );
    assert!(r
        .problems
        .iter()
        .any(|p| p.field == "workspace.metadata.agenticcann.ops"));
    assert!(r.ops[0].result.is_ok(), "{:?}", r.ops[0].result);
}

#[test]
fn tensor_declaration_and_name_problems() {
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.o]
inputs = { "my x" = "f32[4]", exp = "f32[4]", a = 3, b = "f32[0]", c = "f32[4" }
outputs = {}
reference = "y = 1"
"#,
    );
    has(&ps, "inputs.my x", "not a valid name");
    has(&ps, "inputs.exp", "reserved word");
    has(&ps, "inputs.a", "expected a string");
    has(&ps, "inputs.b", "at least 1");
    has(&ps, "inputs.c", "missing closing `]`");
    has(&ps, "outputs", "at least one output");
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.o]
inputs = { x = "f32[4]" }
outputs = { y = "f32[4]", z = "f32[4]" }
attrs = { y = 1, s = "str", big = inf }
reference = "y = x; y = x * 2"
"#,
    );
    has(&ps, "attrs.y", "duplicate name `y`: already an output");
    has(&ps, "attrs.s", "expected a number or boolean");
    has(&ps, "attrs.big", "must be finite");
}

#[test]
fn reference_problems_after_valid_declarations() {
    let base = |reference: &str| {
        op_problems(&format!(
            "[package.metadata.agenticcann.ops.o]\ninputs = {{ x = \"f32[n, 4]\" }}\noutputs = {{ y = \"f32[n, 4]\", z = \"f32[n]\" }}\nattrs = {{ eps = 1e-6 }}\nshapes = [{{ n = 2 }}]\nreference = '''{reference}'''\n"
        ))
    };
    let ps = base("y = x\nz = sum(x, axis=1)\ny = x * 2");
    has(&ps, "reference", "`y` is assigned twice");
    let ps = base("y = x");
    has(&ps, "reference", "output `z` is never assigned");
    let ps = base("eps = 2\ny = x\nz = sum(x, axis=-1)");
    has(&ps, "reference", "`eps` is an attr");
    let ps = base("y = x\nz = sum(x, axis=-1, keepdims=true)");
    has(
        &ps,
        "reference",
        "computes `z` with shape [n, 1], but outputs.z declares f32[n]",
    );
    let ps = op_problems("[package.metadata.agenticcann.ops.o]\ninputs = { x = \"f32[4]\" }\noutputs = { y = \"f32[4]\" }\nreference = 3\n");
    has(&ps, "reference", "expected a string");
}

#[test]
fn shapes_problems() {
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.o]
inputs = { x = "f32[rows, cols]" }
outputs = { y = "f32[rows, cols]" }
reference = "y = x"
shapes = [{ rows = 0, cols = 2 }, { rows = 1 }, { rows = 1, cols = 1, depth = 3 }, { rows = "a", cols = 1 }, 5, { rows = 1048576, cols = 2097152 }]
"#,
    );
    has(&ps, "shapes[0].rows", "at least 1");
    has(&ps, "shapes[1]", "dimension `cols` has no size");
    has(
        &ps,
        "shapes[2].depth",
        "not a named dimension of this op (it has cols, rows)",
    );
    has(&ps, "shapes[3].rows", "expected an integer");
    has(&ps, "shapes[4]", "expected a table");
    has(&ps, "shapes[5]", "more than 1099511627776");
    let ps = op_problems(
        "[package.metadata.agenticcann.ops.o]\ninputs = { x = \"f32[n]\" }\noutputs = { y = \"f32[n]\" }\nreference = \"y = x\"\nshapes = []\n",
    );
    has(&ps, "shapes", "empty");
    let ps = op_problems(
        "[package.metadata.agenticcann.ops.o]\ninputs = { x = \"f32[2]\" }\noutputs = { y = \"f32[2]\" }\nreference = \"y = x\"\nshapes = [{ n = 3 }]\n",
    );
    has(&ps, "shapes[0].n", "this op has none");
}

#[test]
fn tolerance_init_and_pattern_problems() {
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.o]
inputs = { x = "f16[4]", b = "bool[4]" }
outputs = { y = "f16[4]" }
reference = "y = where(b, x, 0)"
tolerance = { atol = "big", rtol = 1e-3, extra = 1 }
init = { x = "uniform(0, 1e6)", b = "bernoulli(2)", q = "normal(0, 1)" }
pattern = "convolution"
"#,
    );
    has(&ps, "tolerance.atol", "expected a number");
    has(&ps, "tolerance.extra", "unknown field");
    has(&ps, "init.x", "beyond the largest finite f16");
    has(&ps, "init.b", "p must be in [0, 1]");
    has(&ps, "init.q", "not an input");
    has(&ps, "pattern", "unknown pattern `convolution`");
}

/// A declaration that does not parse (a dtype typo) is the one problem reported: the
/// `init` entry for that input and the shape key of its only dimension are not reported
/// again as unknown. An `init` entry for a name that was never declared still is.
#[test]
fn a_bad_declaration_does_not_cascade_into_unknown_names() {
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.rms_norm]
inputs  = { x = "f16[rows, hidden]", gamma = "f61[gamma_len]" }
outputs = { y = "f16[rows, hidden]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 2, hidden = 8, gamma_len = 8 }]
init = { gamma = "normal(1, 0.1)", beta = "normal(0, 1)" }
"#,
    );
    has(&ps, "inputs.gamma", "f61");
    has(&ps, "init.beta", "`beta` is not an input");
    let fields: Vec<&str> = ps.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["inputs.gamma", "init.beta"], "{ps:#?}");
    // With every declaration sound, an unknown shape key is still reported.
    let ps = op_problems(
        r#"[package.metadata.agenticcann.ops.o]
inputs  = { x = "f16[n]" }
outputs = { y = "f16[n]" }
reference = "y = x"
shapes  = [{ n = 2, m = 3 }]
init = { z = "normal(0, 1)" }
"#,
    );
    has(&ps, "shapes[0].m", "not a named dimension");
    has(&ps, "init.z", "not an input");
}

#[test]
fn binding_named_dimensions_from_concrete_shapes() {
    let spec = Spec::from_manifest_str(&manifest(RMS), None)
        .unwrap()
        .unwrap();
    let op = &spec.ops[0];
    let b = op
        .bind_dims(&[("x", &[5, 4096]), ("gamma", &[4096]), ("y", &[5, 4096])])
        .unwrap();
    assert_eq!(b.get("rows"), Some(5));
    let e = op
        .bind_dims(&[("x", &[5, 4096]), ("y", &[6, 4096])])
        .unwrap_err();
    assert_eq!(
        e,
        BindError::Conflict {
            dim: "rows".into(),
            first: ("x".into(), 5),
            second: ("y".into(), 6)
        }
    );
    assert!(matches!(
        op.bind_dims(&[("gamma", &[4095])]),
        Err(BindError::Fixed { .. })
    ));
    assert!(matches!(
        op.bind_dims(&[("w", &[1])]),
        Err(BindError::UnknownTensor { .. })
    ));
    assert!(matches!(
        op.tensor_shapes(&HashMap::new()),
        Err(BindError::Unbound { .. })
    ));
}

/// A binding whose tensors would not fit in memory is a clear error naming the tensor and
/// its element count, before anything is allocated — also when the product overflows.
#[test]
fn bindings_over_the_evaluator_cap_are_too_large() {
    use agenticcann_build::spec::MAX_EVAL_ELEMENTS;
    let spec = Spec::from_manifest_str(&manifest(RMS), None)
        .unwrap()
        .unwrap();
    let op = &spec.ops[0];
    let rows = (MAX_EVAL_ELEMENTS / 4096 + 1) as usize;
    let binding = HashMap::from([("rows".to_string(), rows)]);
    let e = op.generate_inputs(&binding, 1).unwrap_err();
    assert_eq!(
        e,
        BindError::TooLarge {
            tensor: "x".into(),
            elements: rows as u64 * 4096,
            limit: MAX_EVAL_ELEMENTS
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("`x`") && msg.contains(&(rows as u64 * 4096).to_string()),
        "{msg}"
    );
    let huge = HashMap::from([("rows".to_string(), usize::MAX)]);
    assert!(matches!(
        op.tensor_shapes(&huge),
        Err(BindError::TooLarge {
            elements: u64::MAX,
            ..
        })
    ));
    // At the cap itself the shapes bind.
    let at = HashMap::from([("rows".to_string(), (MAX_EVAL_ELEMENTS / 4096) as usize)]);
    assert!(op.tensor_shapes(&at).is_ok());
}

/// Benchmark ops the indexing constructs make expressible: slices of a packed tensor,
/// rotate-half, interleaved lanes, a causal mask, argmax to an integer output, cross-entropy
/// by label.
const INDEXING: &str = r#"
[package.metadata.agenticcann.ops.swiglu_packed]
inputs  = { x = "bf16[rows, 256]" }
outputs = { y = "bf16[rows, 128]" }
reference = "g = x[..., :128]\nu = x[..., 128:]\ny = g * sigmoid(g) * u"
shapes  = [{ rows = 3 }]

[package.metadata.agenticcann.ops.rope_half]
inputs  = { x = "f16[t, 8, 128]", c = "f16[t, 1, 128]", s = "f16[t, 1, 128]" }
outputs = { y = "f16[t, 8, 128]" }
reference = "y = x * c + concat(-x[..., 64:], x[..., :64], axis=-1) * s"
shapes  = [{ t = 2 }]

[package.metadata.agenticcann.ops.even_odd]
inputs  = { x = "f32[rows, 64]" }
outputs = { y = "f32[rows, 32]" }
reference = "y = x[..., ::2] * x[..., 1::2]"
shapes  = [{ rows = 2 }]

[package.metadata.agenticcann.ops.causal]
inputs  = { s = "f16[b, 4, 16, 16]" }
outputs = { y = "f16[b, 4, 16, 16]" }
reference = "y = where(iota(s, axis=-1) > iota(s, axis=-2), -inf, s)"
shapes  = [{ b = 1 }]

[package.metadata.agenticcann.ops.greedy]
inputs  = { logits = "f32[rows, 32000]" }
outputs = { token = "i32[rows]" }
reference = "token = argmax(logits, axis=-1)"
shapes  = [{ rows = 1 }]

[package.metadata.agenticcann.ops.cross_entropy]
inputs  = { x = "f32[rows, 32000]", label = "i32[rows, 1]" }
outputs = { loss = "f32[rows, 1]" }
reference = '''
m = max(x, axis=-1, keepdims=true)
lse = log(sum(exp(x - m), axis=-1, keepdims=true)) + m
loss = lse - take_along_axis(x, label, axis=-1)
'''
shapes  = [{ rows = 4 }]
"#;

#[test]
fn indexing_constructs_validate_in_manifests() {
    let spec = Spec::from_manifest_str(&manifest(INDEXING), None)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap();
    assert_eq!(spec.ops.len(), 6);
    let greedy = spec.ops.iter().find(|o| o.name == "greedy").unwrap();
    assert_eq!(greedy.outputs[0].decl.dtype, Dtype::I32);
    assert_eq!(greedy.pattern_guess(), (Pattern::Reduction, true));
    let guess = |n: &str| {
        spec.ops
            .iter()
            .find(|o| o.name == n)
            .unwrap()
            .pattern_guess()
            .0
    };
    assert_eq!(guess("even_odd"), Pattern::Broadcast);
    assert_eq!(guess("causal"), Pattern::Elementwise);
    // An integer output is compared exactly.
    assert_eq!(
        greedy.outputs[0].tolerance,
        Tolerance {
            atol: 0.0,
            rtol: 0.0
        }
    );
    // Golden values on generated inputs: argmax is the index of the row maximum, exactly.
    let inputs = greedy.generate_inputs(greedy.smallest_shape(), 3).unwrap();
    let out = greedy.golden(&inputs).unwrap();
    let logits = &inputs["logits"];
    let token = &out["token"];
    for (r, row) in logits.outer_iter().enumerate() {
        let t = token[[r]] as usize;
        assert_eq!(token[[r]], t as f64);
        assert!(row.iter().all(|&v| v <= row[t]));
        assert!(
            row.iter().take(t).all(|&v| v < row[t]),
            "first index on ties"
        );
    }
    // The causal mask is -inf strictly above the diagonal and `s` elsewhere.
    let causal = spec.ops.iter().find(|o| o.name == "causal").unwrap();
    let inputs = causal.generate_inputs(causal.smallest_shape(), 3).unwrap();
    let y = &causal.golden(&inputs).unwrap()["y"];
    let s = &inputs["s"];
    for ((idx, &v), &sv) in y.indexed_iter().zip(s.iter()) {
        let (i, j) = (idx[2], idx[3]);
        if j > i {
            assert_eq!(v, f64::NEG_INFINITY);
        } else {
            assert_eq!(v, sv);
        }
    }
}

#[test]
fn indexing_problems_have_locations() {
    let base = |inputs: &str, outputs: &str, reference: &str| {
        op_problems(&format!(
            "[package.metadata.agenticcann.ops.o]\ninputs = {{ {inputs} }}\noutputs = {{ {outputs} }}\nattrs = {{ k = 2, f = 2.0 }}\nshapes = [{{ n = 2 }}]\nreference = '''{reference}'''\n"
        ))
    };
    let x = "x = \"f32[n, 8]\", p = \"f32[n, 1]\", lab = \"i32[n, 1]\"";
    // Float indices: a dtype problem at the indices.
    let ps = base(x, "y = \"f32[n, 1]\"", "y = take_along_axis(x, p, axis=-1)");
    has(
        &ps,
        "reference",
        "indices of `take_along_axis` must be an integer value",
    );
    assert_eq!(ps[0].location, Some((1, 24)));
    let ps = base(
        x,
        "y = \"f32[n, 1]\"",
        "t = lab * f\ny = take_along_axis(x, t, axis=-1)",
    );
    has(&ps, "reference", "`t` is a float value");
    assert_eq!(ps[0].location, Some((2, 24)));
    // An integer attr may index.
    let spec = Spec::from_manifest_str(
        &manifest(&format!(
            "[package.metadata.agenticcann.ops.o]\ninputs = {{ {x} }}\noutputs = {{ y = \"f32[n, 1]\" }}\nattrs = {{ k = 2 }}\nshapes = [{{ n = 2 }}]\nreference = \"y = take_along_axis(x, lab + k, axis=-1)\"\n"
        )),
        None,
    );
    assert!(spec.is_ok(), "{:?}", spec.err());
    // Shape problems.
    let ps = base(x, "y = \"f32[n, 8]\"", "y = x[1:, :]");
    has(&ps, "reference", "the named dimension `n`");
    assert_eq!(ps[0].location, Some((1, 5)));
    let ps = base(x, "y = \"f32[n, 4]\"", "y = x[..., 0:3]");
    has(
        &ps,
        "reference",
        "computes `y` with shape [n, 3], but outputs.y declares f32[n, 4]",
    );
    let ps = base(x, "y = \"i32[n]\"", "y = argmax(x, axis=2)");
    has(&ps, "reference", "axis 2 is out of range for `argmax`");
    let ps = base(x, "y = \"f32[n, 9]\"", "y = concat(x, p, axis=0)");
    has(&ps, "reference", "axis 1 is 8 and 1");
    // Syntax problems carry line and column too.
    let ps = base(x, "y = \"f32[n, 8]\"", "t = x\ny = t[..., ::0]");
    has(&ps, "reference", "step cannot be zero");
    assert_eq!(ps[0].location, Some((2, 14)));
}
