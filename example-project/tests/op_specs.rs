//! The op specs in this crate's `Cargo.toml` and the `VectorOps` trait (through its `Op`
//! catalogue) describe the same operators: names, dtypes, inputs and outputs in calling
//! order with their shapes, attrs with the values the Rust code uses, and shape bindings
//! that bind exactly each op's named dimensions.

use std::collections::BTreeSet;

use example_project::ops::{Dtype, Op};
use toml::{Table, Value};

fn metadata() -> Table {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let manifest: Table = text.parse().expect("Cargo.toml parses");
    manifest["package"]["metadata"]["agenticcann"]
        .as_table()
        .expect("[package.metadata.agenticcann]")
        .clone()
}

fn shape_string(dtype: Dtype, shape: &[&str]) -> String {
    format!("{}[{}]", dtype.name(), shape.join(", "))
}

#[test]
fn target_and_store() {
    let m = metadata();
    assert_eq!(m["soc"].as_str(), Some("Ascend910B1"));
    assert_eq!(m["kernels"].as_str(), Some("kernels"));
}

/// The eager-baseline primitives `src/kernels/eager.rs` launches (declared as
/// `eager_<name>_<dtype>`).
const EAGER: [&str; 13] = [
    "add",
    "add_bcast",
    "layer_norm",
    "scale",
    "add_mask",
    "softmax",
    "gelu",
    "mul_col",
    "sum_mid",
    "clamp_min_count",
    "div_col",
    "row_norm",
    "clamp_min_norm",
];

fn eager_names() -> impl Iterator<Item = String> {
    EAGER
        .iter()
        .flat_map(|p| ["f32", "f16"].map(|d| format!("eager_{p}_{d}")))
}

#[test]
fn every_op_is_declared_in_f32_and_f16_and_nothing_else() {
    let m = metadata();
    let declared: BTreeSet<String> = m["ops"].as_table().unwrap().keys().cloned().collect();
    let expected: BTreeSet<String> = Op::ALL
        .iter()
        .flat_map(|op| [op.spec_name(Dtype::F32), op.spec_name(Dtype::F16)])
        .chain(eager_names())
        .collect();
    assert_eq!(declared, expected);
}

#[test]
fn eager_primitives_differ_only_in_dtype_and_bind_their_dims() {
    let m = metadata();
    for p in EAGER {
        let a = &m["ops"][&format!("eager_{p}_f32")];
        let b = &m["ops"][&format!("eager_{p}_f16")];
        assert_eq!(
            a.to_string().replace("\"f32[", "\"f16["),
            b.to_string(),
            "{p}"
        );
        let spec = a.as_table().unwrap();
        let mut dims: BTreeSet<String> = BTreeSet::new();
        for field in ["inputs", "outputs"] {
            for (_, v) in spec[field].as_table().unwrap() {
                let s = v.as_str().unwrap();
                let inner = &s[s.find('[').unwrap() + 1..s.len() - 1];
                for d in inner.split(',').map(str::trim) {
                    if d.parse::<usize>().is_err() {
                        dims.insert(d.to_string());
                    }
                }
            }
        }
        for s in spec["shapes"].as_array().unwrap() {
            let bound: BTreeSet<String> = s.as_table().unwrap().keys().cloned().collect();
            assert_eq!(bound, dims, "eager_{p}: shape binding {s}");
        }
    }
}

#[test]
fn specs_match_the_trait_argument_for_argument() {
    let m = metadata();
    for op in Op::ALL {
        for dtype in [Dtype::F32, Dtype::F16] {
            let name = op.spec_name(dtype);
            let spec = m["ops"][&name].as_table().unwrap();
            for (field, args) in [("inputs", op.inputs()), ("outputs", op.outputs())] {
                let declared: Vec<(String, String)> = spec[field]
                    .as_table()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect();
                let want: Vec<(String, String)> = args
                    .iter()
                    .map(|a| (a.name.to_string(), shape_string(dtype, a.shape)))
                    .collect();
                assert_eq!(declared, want, "{name}.{field}");
            }

            let attrs: Vec<(String, f64)> = spec
                .get("attrs")
                .and_then(Value::as_table)
                .map(|t| {
                    t.iter()
                        .map(|(k, v)| (k.clone(), v.as_float().unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            let want: Vec<(String, f64)> = op
                .attrs()
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect();
            assert_eq!(attrs, want, "{name}.attrs");

            let reference = spec["reference"].as_str().unwrap();
            let last = reference.trim().lines().last().unwrap();
            let out = op.outputs()[0].name;
            assert!(
                last.trim_start().starts_with(&format!("{out} = ")),
                "{name}: the reference must end by assigning `{out}`"
            );
            for a in op.inputs() {
                assert!(
                    reference.contains(a.name),
                    "{name}: input `{}` unused",
                    a.name
                );
            }

            let dims: BTreeSet<&str> = op.dims().into_iter().collect();
            let shapes = spec["shapes"].as_array().unwrap();
            assert!(!shapes.is_empty(), "{name}: no shapes");
            for s in shapes {
                let bound: BTreeSet<&str> =
                    s.as_table().unwrap().keys().map(String::as_str).collect();
                assert_eq!(bound, dims, "{name}: shape binding {s}");
            }
        }
    }
}

#[test]
fn f32_and_f16_variants_differ_only_in_dtype() {
    let m = metadata();
    for op in Op::ALL {
        let a = m["ops"][&op.spec_name(Dtype::F32)].to_string();
        let b = m["ops"][&op.spec_name(Dtype::F16)].to_string();
        assert_eq!(a.replace("\"f32[", "\"f16["), b, "{op}");
    }
}
