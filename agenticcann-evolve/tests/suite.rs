//! The operator suite (`tests/specs/`): every spec is valid, evaluates, routes to its label,
//! and together they cover the operators, dtypes and shapes issue 7 asks for.

use std::collections::{BTreeMap, BTreeSet};

use agenticcann_build::spec::{Dim, Dtype, Pattern};
use agenticcann_evolve::knowledge::{explain, route, route_reference, Rule};
use agenticcann_evolve::suite::{self, SuiteOp};

fn ops() -> Vec<SuiteOp> {
    suite::load(&suite::default_dir()).unwrap_or_else(|e| panic!("{e}"))
}

/// Ops whose structure alone routes elsewhere, so they declare their label: (op, what the
/// reference alone routes to, why).
const DECLARED: [(&str, Pattern, &str); 3] = [
    (
        "add_rms_norm_bf16",
        Pattern::Fusion,
        "two outputs; the issue lists Add+RMSNorm as a normalization",
    ),
    (
        "swiglu_bf16",
        Pattern::Elementwise,
        "no slicing in the reference language: halves come as two inputs",
    ),
    ("geglu_f16", Pattern::Elementwise, "as swiglu_bf16"),
];

#[test]
fn every_spec_routes_as_labelled() {
    let ops = ops();
    assert!(ops.len() >= 32, "{} ops", ops.len());
    let mut per_label: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &ops {
        *per_label.entry(s.label.as_str()).or_default() += 1;
        let routing = explain(&s.op);
        assert_eq!(route(&s.op), s.label, "{}: {routing}", s.op.name);
        let structural = route_reference(&s.op);
        match DECLARED.iter().find(|d| d.0 == s.op.name) {
            Some((_, alone, why)) => {
                assert_eq!(
                    routing.rule,
                    Rule::Declared,
                    "{} must declare its pattern ({why})",
                    s.op.name
                );
                assert_eq!(structural.pattern, *alone, "{}: {structural}", s.op.name);
            }
            None => {
                assert_eq!(
                    s.op.pattern, None,
                    "{} declares a pattern the router finds anyway",
                    s.op.name
                );
                assert_eq!(structural.pattern, s.label, "{}: {structural}", s.op.name);
            }
        }
    }
    for p in Pattern::ALL {
        let min = match p {
            Pattern::Elementwise => 11,
            Pattern::Broadcast => 3,
            Pattern::Reduction => 5,
            Pattern::Normalization => 5,
            Pattern::Softmax => 4,
            Pattern::Fusion => 4,
        };
        assert!(
            per_label.get(p.as_str()).copied().unwrap_or(0) >= min,
            "{p}: {per_label:?}"
        );
    }
}

#[test]
fn the_suite_covers_the_requested_operators() {
    let names: BTreeSet<String> = ops()
        .into_iter()
        .map(|s| format!("{}/{}", s.label, s.op.name))
        .collect();
    let requested = [
        "elementwise/relu_f16",
        "elementwise/gelu_tanh_bf16",
        "elementwise/gelu_erf_f32",
        "elementwise/silu_f16",
        "elementwise/sigmoid_f32",
        "elementwise/softplus_f16",
        "elementwise/hardtanh_bf16",
        "elementwise/exp_f16_h46",
        "elementwise/add_f16",
        "elementwise/mul_bf16",
        "elementwise/div_f32",
        "broadcast/bias_add_f16",
        "broadcast/row_scale_bf16",
        "broadcast/masked_where_f16",
        "reduction/row_sum_f32",
        "reduction/row_max_f16_n513",
        "reduction/row_mean_bf16",
        "reduction/l2_norm_f16",
        "reduction/logsumexp_f32",
        "normalization/rms_norm_f16",
        "normalization/layer_norm_f16",
        "normalization/layer_norm_nobias_bf16",
        "normalization/add_rms_norm_bf16",
        "normalization/qk_norm_bf16",
        "softmax/softmax_f32_vocab32000",
        "softmax/softmax_f16_vocab151936",
        "softmax/log_softmax_bf16",
        "softmax/scaled_masked_softmax_f16",
        "fusion/swiglu_bf16",
        "fusion/geglu_f16",
        "fusion/bias_gelu_f16",
        "fusion/add_layer_norm_f32",
    ];
    for r in requested {
        assert!(names.contains(r), "missing {r}");
    }
}

#[test]
fn the_suite_has_the_requested_dtypes_and_shapes() {
    let ops = ops();
    let mut dtypes = BTreeSet::new();
    let mut fixed = BTreeSet::new();
    let mut bound = BTreeSet::new();
    for s in &ops {
        for i in &s.op.inputs {
            dtypes.insert(i.decl.dtype);
            for d in &i.decl.shape.dims {
                if let Dim::Fixed(n) = d {
                    fixed.insert((*n, i.decl.dtype));
                }
            }
        }
        for b in &s.op.shapes {
            bound.extend(b.values().copied());
        }
    }
    for d in [Dtype::F16, Dtype::Bf16, Dtype::F32] {
        assert!(dtypes.contains(&d), "no {d} op");
    }
    for h in [2048, 4096, 5120, 8192, 32000, 151936] {
        assert!(fixed.iter().any(|(n, _)| *n == h), "no dimension {h}");
    }
    assert!(fixed.contains(&(46, Dtype::F16)), "no H = 46 in f16");
    assert!(
        fixed.iter().any(|(n, _)| *n == 513) || bound.contains(&513),
        "no N = 513"
    );
    assert!(fixed.contains(&(128, Dtype::Bf16)), "no head dim 128");
    for r in [1, 7, 128, 2048, 13243] {
        assert!(bound.contains(&r), "no bound size {r}");
    }
    // Rows longer than the 192 KiB UB.
    assert!(ops.iter().any(|s| s.label == Pattern::Softmax
        && s.op.inputs[0].decl.shape.dims.last() == Some(&Dim::Fixed(151936))
        && s.op.inputs[0].decl.dtype == Dtype::F16));
}

#[test]
fn every_spec_evaluates_on_its_smallest_shape() {
    for s in ops() {
        let binding = s.op.smallest_shape();
        let inputs = s.op.generate_inputs(binding, 7).unwrap();
        let golden =
            s.op.golden(&inputs)
                .unwrap_or_else(|e| panic!("{}: {e}", s.op.name));
        for o in &s.op.outputs {
            let out = &golden[&o.name];
            assert!(
                out.iter().all(|v| v.is_finite()),
                "{}.{}: non-finite golden value",
                s.op.name,
                o.name
            );
        }
    }
}

#[test]
fn a_broken_suite_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rows")).unwrap();
    std::fs::create_dir(dir.path().join("softmax")).unwrap();
    std::fs::write(
        dir.path().join("softmax/Cargo.toml"),
        "[package]\nname = \"s\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let e = suite::load(dir.path()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("rows: not a pattern folder"), "{text}");
    assert!(
        text.contains("softmax/Cargo.toml: no [package.metadata.agenticcann]"),
        "{text}"
    );
    assert!(text.contains("elementwise/Cargo.toml"), "{text}");
}
