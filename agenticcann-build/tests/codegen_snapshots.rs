//! Expectation tests of codegen (insta snapshots): spec + manifest in, generated C headers
//! and Rust wrappers out. Review changes with `cargo insta review`.

use agenticcann_build::codegen::{
    ops_header, ops_module, tiling_header, HeaderEntry, WrapperMode, WrapperOp,
};
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::{Digest, FieldType, Manifest, Proposer, Provenance, TilingField};

const MANIFEST: &str = r#"
[package]
name = "snap"
version = "0.1.0"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.rms_norm]
inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 1 }, { rows = 7 }]

[package.metadata.agenticcann.ops.embed]
inputs = { word = "f32[batch, seq, hidden]", pos = "f32[seq, hidden]", type = "bool[batch, seq, 1]" }
outputs = { y = "f32[batch, seq, hidden]" }
reference = "y = word + pos * type"
shapes = [{ batch = 2, seq = 3, hidden = 8 }]
"#;

fn spec() -> Spec {
    Spec::from_manifest_str(MANIFEST, None).unwrap().unwrap()
}

fn manifest_for(op: &OpSpec, fields: Vec<TilingField>) -> Manifest {
    Manifest::new(
        op.key(),
        Some(&op.name),
        Digest::of(b"kernel"),
        Digest::of(b"tiling"),
        fields,
        Provenance::new(Proposer::Hand),
    )
}

fn field(name: &str, ty: FieldType) -> TilingField {
    TilingField {
        name: name.to_string(),
        ty,
    }
}

fn manifests(spec: &Spec) -> Vec<Manifest> {
    vec![
        manifest_for(
            &spec.ops[0],
            vec![
                field("rows_per_core", FieldType::U32),
                field("tile_rows", FieldType::U32),
                field("eps", FieldType::F32),
            ],
        ),
        manifest_for(
            &spec.ops[1],
            vec![
                field("total", FieldType::U64),
                field("tile", FieldType::U32),
            ],
        ),
    ]
}

#[test]
fn tiling_header_of_an_entry() {
    let spec = spec();
    let m = manifests(&spec);
    insta::assert_snapshot!("tiling_header_rms_norm", tiling_header(&m[0], &spec.ops[0]));
    insta::assert_snapshot!("tiling_header_embed", tiling_header(&m[1], &spec.ops[1]));
}

#[test]
fn ops_header_of_a_crate() {
    let spec = spec();
    let m = manifests(&spec);
    let entries: Vec<HeaderEntry> = spec
        .ops
        .iter()
        .zip(&m)
        .map(|(op, manifest)| HeaderEntry { op, manifest })
        .collect();
    insta::assert_snapshot!("ops_header", ops_header("snap", &entries).unwrap());
}

#[test]
fn rust_wrappers() {
    let spec = spec();
    let ops: Vec<WrapperOp> = spec
        .ops
        .iter()
        .map(|op| WrapperOp {
            op,
            key: op.key(),
            source: format!("kernels/{}", op.key()),
        })
        .collect();
    insta::assert_snapshot!(
        "ops_module_launch",
        ops_module("snap", "Ascend910B1", &ops, WrapperMode::Launch)
    );
    insta::assert_snapshot!(
        "ops_module_docs_stub",
        ops_module("snap", "Ascend910B1", &ops, WrapperMode::DocsStub)
    );
}
