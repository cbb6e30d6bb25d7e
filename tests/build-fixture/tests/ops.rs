//! Every op of the fixture crate runs on the simulator through the generated wrappers and
//! matches the reference evaluator (the spec library's golden model), on every declared
//! shape plus tails the kernels were not written for; argument errors are the documented
//! ones.

use std::collections::HashMap;
use std::path::Path;

use agenticcann::{DeviceBuffer, DeviceRepr, Error, Stream};
use agenticcann_build::spec::{OpSpec, Spec};
use build_fixture::ops;
use half::f16;
use ndarray::ArrayD;

fn spec() -> Spec {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    Spec::from_manifest_path(&p).unwrap().unwrap()
}

fn stream() -> Stream {
    agenticcann::Device::new(0).unwrap().stream().unwrap()
}

trait Elem: DeviceRepr {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}
impl Elem for f16 {
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}
impl Elem for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

fn upload<T: Elem>(s: &Stream, a: &ArrayD<f64>) -> DeviceBuffer<T> {
    let host: Vec<T> = a.iter().map(|&v| T::from_f64(v)).collect();
    DeviceBuffer::from_slice(s, &host).unwrap()
}

/// Output buffer pre-filled with NaN, so unwritten elements cannot pass.
fn poisoned<T: Elem>(s: &Stream, len: usize) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(s, &vec![T::from_f64(f64::NAN); len]).unwrap()
}

fn compare<T: Elem>(
    op: &OpSpec,
    out: &str,
    got: &[T],
    golden: &ArrayD<f64>,
    dims: &HashMap<String, usize>,
) {
    let tol = &op.output(out).unwrap().tolerance;
    assert_eq!(got.len(), golden.len(), "{} {dims:?}", op.name);
    for (i, (g, want)) in got.iter().zip(golden.iter()).enumerate() {
        let g = g.to_f64();
        assert!(
            tol.accepts(g, *want),
            "{} {dims:?}: {out}[{i}] = {g}, reference {want} (atol {}, rtol {})",
            op.name,
            tol.atol,
            tol.rtol
        );
    }
}

/// The launches since the last call must all be clean: no failure, no diagnostic.
fn assert_clean(s: &Stream, what: &str) -> usize {
    let launches = s.take_launches().unwrap();
    for l in &launches {
        assert!(!l.failed && l.diagnostics.is_empty(), "{what}: {l}");
    }
    launches.len()
}

fn shapes(op: &OpSpec, extra: &[&[(&str, usize)]]) -> Vec<HashMap<String, usize>> {
    let mut all = op.shapes.clone();
    for e in extra {
        all.push(e.iter().map(|(k, v)| (k.to_string(), *v)).collect());
    }
    all
}

fn run_add<T: Elem>(name: &str, extra: &[&[(&str, usize)]]) {
    let spec = spec();
    let op = spec.op(name).unwrap();
    let s = stream();
    for dims in shapes(op, extra) {
        let inputs = op.generate_inputs(&dims, 11).unwrap();
        let golden = op.golden(&inputs).unwrap();
        let x = upload::<T>(&s, &inputs["x"]);
        let y = upload::<T>(&s, &inputs["y"]);
        let mut z = poisoned::<T>(&s, golden["z"].len());
        let n = dims["n"];
        let call = match name {
            "add_f16" => ops::add_f16(&s, &x, &y, &mut z, n),
            _ => ops::add_f32(&s, &x, &y, &mut z, n),
        };
        call.unwrap();
        compare(op, "z", &z.to_vec(&s).unwrap(), &golden["z"], &dims);
        assert_eq!(assert_clean(&s, name), 1);
    }
}

#[test]
fn add_f16_matches_the_reference() {
    // 48 cores x 256 + 7: a remainder spread over the first cores; 16Ki + 1: a second tile.
    run_add::<f16>(
        "add_f16",
        &[
            &[("n", 31)],
            &[("n", 48 * 256 + 7)],
            &[("n", 16385 * 48 + 1)],
        ],
    );
}

#[test]
fn add_f32_matches_the_reference() {
    // Both add kernels define `class KernelAdd` with different element types: a wrong
    // answer here would mean the wrapper sources did not keep them apart.
    run_add::<f32>("add_f32", &[&[("n", 8)], &[("n", 100_003)]]);
}

#[test]
fn rms_norm_matches_the_reference() {
    let spec = spec();
    let op = spec.op("rms_norm").unwrap();
    let s = stream();
    for dims in shapes(
        op,
        &[
            &[("rows", 49), ("cols", 33)],
            &[("rows", 2), ("cols", 8000)],
        ],
    ) {
        let inputs = op.generate_inputs(&dims, 5).unwrap();
        let golden = op.golden(&inputs).unwrap();
        let x = upload::<f16>(&s, &inputs["x"]);
        let gamma = upload::<f16>(&s, &inputs["gamma"]);
        let mut y = poisoned::<f16>(&s, golden["y"].len());
        ops::rms_norm(&s, &x, &gamma, &mut y, dims["rows"], dims["cols"]).unwrap();
        compare(op, "y", &y.to_vec(&s).unwrap(), &golden["y"], &dims);
        assert_eq!(assert_clean(&s, "rms_norm"), 1);
    }
}

#[test]
fn softmax_matches_the_reference() {
    let spec = spec();
    let op = spec.op("softmax").unwrap();
    let s = stream();
    for dims in shapes(
        op,
        &[&[("rows", 1), ("cols", 1)], &[("rows", 97), ("cols", 65)]],
    ) {
        let inputs = op.generate_inputs(&dims, 9).unwrap();
        let golden = op.golden(&inputs).unwrap();
        let x = upload::<f32>(&s, &inputs["x"]);
        let mut y = poisoned::<f32>(&s, golden["y"].len());
        ops::softmax(&s, &x, &mut y, dims["rows"], dims["cols"]).unwrap();
        compare(op, "y", &y.to_vec(&s).unwrap(), &golden["y"], &dims);
        assert_eq!(assert_clean(&s, "softmax"), 1);
    }
}

fn invalid(e: Error) -> (String, String, String, String) {
    match e {
        Error::InvalidArgument {
            op,
            arg,
            expected,
            actual,
        } => (op, arg, expected, actual),
        other => panic!("expected InvalidArgument, got {other}"),
    }
}

#[test]
fn wrong_dtype_length_and_dimensions_are_rejected_before_launch() {
    let s = stream();
    let x = DeviceBuffer::<f16>::zeros(&s, 7 * 64).unwrap();
    let gamma = DeviceBuffer::<f16>::zeros(&s, 64).unwrap();
    let mut y = DeviceBuffer::<f16>::zeros(&s, 7 * 64).unwrap();

    // dtype: an f32 gamma for an f16 op.
    let gamma32 = DeviceBuffer::<f32>::zeros(&s, 64).unwrap();
    let e = ops::rms_norm(&s, &x, &gamma32, &mut y, 7, 64).unwrap_err();
    assert_eq!(e.to_string(), "rms_norm: argument `gamma`: expected a buffer of f16 elements, got a buffer of f32 elements");

    // length: y one row short.
    let mut short = DeviceBuffer::<f16>::zeros(&s, 6 * 64).unwrap();
    let (op, arg, expected, actual) =
        invalid(ops::rms_norm(&s, &x, &gamma, &mut short, 7, 64).unwrap_err());
    assert_eq!((op.as_str(), arg.as_str()), ("rms_norm", "y"));
    assert_eq!(
        expected,
        "448 elements (f16[rows, cols] with rows=7, cols=64)"
    );
    assert_eq!(actual, "384 elements");

    // dimensions that do not match the buffers: the first tensor that disagrees is named.
    let (_, arg, expected, _) = invalid(ops::rms_norm(&s, &x, &gamma, &mut y, 8, 56).unwrap_err());
    assert_eq!(arg, "gamma");
    assert_eq!(expected, "56 elements (f16[cols] with cols=56)");

    // limits: a tensor of 2^32 elements cannot be described to a uint32_t-indexed kernel.
    let one = DeviceBuffer::<f32>::zeros(&s, 1).unwrap();
    let mut out = DeviceBuffer::<f32>::zeros(&s, 1).unwrap();
    let (_, arg, expected, _) =
        invalid(ops::add_f32(&s, &one, &one, &mut out, 1 << 32).unwrap_err());
    assert_eq!(arg, "x");
    assert!(
        expected.starts_with("at most 4294967295 elements"),
        "{expected}"
    );

    // Nothing was launched by any of these.
    assert_eq!(s.take_launches().unwrap().len(), 0);
}

#[test]
fn zero_size_returns_without_launching() {
    let s = stream();
    let x = DeviceBuffer::<f32>::zeros(&s, 0).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&s, 0).unwrap();
    ops::softmax(&s, &x, &mut y, 0, 16).unwrap();
    ops::add_f32(&s, &x, &x, &mut y, 0).unwrap();
    assert_eq!(s.take_launches().unwrap().len(), 0);
}

#[test]
fn tiling_refusal_is_an_error_naming_the_op_and_dims() {
    let s = stream();
    // One row of 100000 fp16 columns plus its fp32 copies does not fit in 192 KiB of UB.
    let x = DeviceBuffer::<f16>::zeros(&s, 100_000).unwrap();
    let gamma = DeviceBuffer::<f16>::zeros(&s, 100_000).unwrap();
    let mut y = DeviceBuffer::<f16>::zeros(&s, 100_000).unwrap();
    let e = ops::rms_norm(&s, &x, &gamma, &mut y, 1, 100_000).unwrap_err();
    assert!(matches!(e, Error::Tiling { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("rms_norm: tiling of kernel `agc_95ea08cc1c93d469`"),
        "{text}"
    );
    assert!(text.contains("rows=1, cols=100000"), "{text}");
    assert_eq!(s.take_launches().unwrap().len(), 0);
}

#[test]
fn stage_copy_passes_a_workspace_the_kernel_can_use() {
    let spec = spec();
    let op = spec.op("stage_copy").unwrap();
    let s = stream();
    for dims in shapes(op, &[&[("n", 48 * 1024 + 5)]]) {
        let inputs = op.generate_inputs(&dims, 3).unwrap();
        let golden = op.golden(&inputs).unwrap();
        let x = upload::<f32>(&s, &inputs["x"]);
        let mut y = poisoned::<f32>(&s, golden["y"].len());
        ops::stage_copy(&s, &x, &mut y, dims["n"]).unwrap();
        compare(op, "y", &y.to_vec(&s).unwrap(), &golden["y"], &dims);
        // The simulator checks every GM access against live allocations: the workspace
        // the wrapper allocated was big enough and alive during the launch.
        assert_eq!(assert_clean(&s, "stage_copy"), 1);
    }
}
