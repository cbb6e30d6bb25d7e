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

/// The headers are valid C11 and C++17 together, and the static size assertions (computed
/// from the manifest's fields) hold for the host compiler, padding included.
#[test]
fn headers_compile_as_c_and_cpp_with_matching_sizes() {
    let spec = spec();
    let m = manifests(&spec);
    let dir = tempfile::tempdir().unwrap();
    let entries: Vec<HeaderEntry> = spec
        .ops
        .iter()
        .zip(&m)
        .map(|(op, manifest)| HeaderEntry { op, manifest })
        .collect();
    std::fs::write(
        dir.path().join("agenticcann_ops.h"),
        ops_header("snap", &entries).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agenticcann_tiling.h"),
        tiling_header(&m[1], &spec.ops[1]),
    )
    .unwrap();
    let src = "#include \"agenticcann_tiling.h\"\n#include \"agenticcann_ops.h\"\n\
               int probe(void) { AgcTiling t; t.total = 1; return (int)sizeof(t) + AGC_NUM_DIMS; }\n";
    std::fs::write(dir.path().join("probe.c"), src).unwrap();
    for (compiler, args) in [
        ("cc", ["-std=c11", "-x", "c"]),
        ("c++", ["-std=c++17", "-x", "c++"]),
    ] {
        let out = std::process::Command::new(compiler)
            .args(args)
            .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror"])
            .arg(dir.path().join("probe.c"))
            .output()
            .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
        assert!(
            out.status.success(),
            "{compiler}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // And a struct whose declared layout the compiler does not produce fails to compile.
    let wrong = tiling_header(&m[1], &spec.ops[1]).replace("== 16", "== 12");
    std::fs::write(dir.path().join("agenticcann_tiling.h"), wrong).unwrap();
    let out = std::process::Command::new("cc")
        .args(["-std=c11", "-fsyntax-only", "-x", "c"])
        .arg(dir.path().join("probe.c"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("layout differs from the manifest"));
}
