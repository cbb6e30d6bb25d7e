//! References of the operators a transformer needs, declared as specs, evaluated on small
//! seeded inputs and compared with values computed independently here (plain loops over
//! rows, std's f64 functions, a Taylor series for erf).

use std::collections::HashMap;

use agenticcann_build::spec::{OpSpec, Spec};
use ndarray::ArrayD;

const ROWS: usize = 3;
const H: usize = 8;

fn op(body: &str) -> OpSpec {
    let manifest = format!(
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n[package.metadata.agenticcann.ops.op]\n{body}"
    );
    let spec = Spec::from_manifest_str(&manifest, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("has metadata");
    spec.ops.into_iter().next().expect("one op")
}

/// Seeded inputs and the op's f64 outputs for rows = ROWS.
fn run(op: &OpSpec, seed: u64) -> (HashMap<String, ArrayD<f64>>, HashMap<String, ArrayD<f64>>) {
    let binding = HashMap::from([("rows".to_string(), ROWS)]);
    let inputs = op.generate_inputs(&binding, seed).unwrap();
    let outputs = op.evaluate(&inputs).unwrap();
    (inputs, outputs)
}

fn rows(a: &ArrayD<f64>) -> Vec<Vec<f64>> {
    assert_eq!(a.shape(), &[ROWS, H]);
    (0..ROWS)
        .map(|r| (0..H).map(|c| a[[r, c]]).collect())
        .collect()
}

fn vec1(a: &ArrayD<f64>) -> Vec<f64> {
    assert_eq!(a.shape(), &[H]);
    a.iter().copied().collect()
}

#[track_caller]
fn assert_close(got: &ArrayD<f64>, expected: &[Vec<f64>]) {
    assert_eq!(got.shape(), &[expected.len(), expected[0].len()]);
    for (r, row) in expected.iter().enumerate() {
        for (c, &e) in row.iter().enumerate() {
            let g = got[[r, c]];
            assert!(
                (g - e).abs() <= 1e-12 * e.abs().max(1.0),
                "[{r},{c}]: got {g}, expected {e}"
            );
        }
    }
}

/// erf by its Maclaurin series (converges for the |x| < 3 used here), independent of libm.
fn erf_series(x: f64) -> f64 {
    let mut sum = 0.0;
    let mut term = x; // (-1)^n x^(2n+1) / n!
    for n in 0..200 {
        sum += term / (2 * n + 1) as f64;
        term *= -x * x / (n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn erf_series_is_accurate() {
    assert!((erf_series(0.5) - 0.5204998778130465).abs() < 1e-15);
    assert!((erf_series(-2.0) + 0.9953222650189527).abs() < 1e-14);
}

#[test]
fn rms_norm() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]", gamma = "f32[8]" }
outputs = { y = "f32[rows, 8]" }
attrs = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes = [{ rows = 3 }]
"#);
    let (i, o) = run(&op, 1);
    let g = vec1(&i["gamma"]);
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| {
            let ms = x.iter().map(|v| v * v).sum::<f64>() / H as f64;
            let inv = 1.0 / (ms + 1e-6).sqrt();
            x.iter().zip(&g).map(|(v, g)| v * inv * g).collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
}

#[test]
fn layer_norm_with_gamma_and_beta() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]", gamma = "f32[8]", beta = "f32[8]" }
outputs = { y = "f32[rows, 8]" }
attrs = { eps = 1e-5 }
reference = '''
mu  = mean(x, axis=-1, keepdims=true)
d   = x - mu
var = mean(d * d, axis=-1, keepdims=true)
y   = d * rsqrt(var + eps) * gamma + beta
'''
shapes = [{ rows = 3 }]
init = { gamma = "uniform(0.5, 1.5)", beta = "normal(0, 0.1)" }
"#);
    let (i, o) = run(&op, 2);
    let (g, b) = (vec1(&i["gamma"]), vec1(&i["beta"]));
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| {
            let mu = x.iter().sum::<f64>() / H as f64;
            let var = x.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / H as f64;
            let inv = 1.0 / (var + 1e-5).sqrt();
            (0..H).map(|c| (x[c] - mu) * inv * g[c] + b[c]).collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
    assert!(g.iter().all(|v| (0.5..=1.5).contains(v)));
}

#[test]
fn softmax_max_subtracted() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]" }
outputs = { y = "f32[rows, 8]" }
reference = '''
m = max(x, axis=-1, keepdims=true)
e = exp(x - m)
y = e / sum(e, axis=-1, keepdims=true)
'''
shapes = [{ rows = 3 }]
init = { x = "normal(0, 4)" }
"#);
    let (i, o) = run(&op, 3);
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| {
            let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
            let s: f64 = e.iter().sum();
            e.iter().map(|v| v / s).collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
    for r in rows(&o["y"]) {
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    }
    // Max subtraction keeps large logits finite.
    let big = HashMap::from([(
        "x".to_string(),
        ndarray::arr2(&[[1000.0, 1001.0]]).into_dyn(),
    )]);
    let r = agenticcann_build::spec::evaluate(&op.reference, &big, &HashMap::new()).unwrap();
    let y = &r["y"];
    assert!((y[[0, 1]] - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-15);
}

#[test]
fn gelu_erf_form() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]" }
outputs = { y = "f32[rows, 8]" }
reference = "y = 0.5 * x * (1 + erf(x / sqrt(2)))"
shapes = [{ rows = 3 }]
init = { x = "uniform(-3, 3)" }
"#);
    let (i, o) = run(&op, 4);
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| {
            x.iter()
                .map(|v| 0.5 * v * (1.0 + erf_series(v / 2f64.sqrt())))
                .collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
}

#[test]
fn gelu_tanh_form() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]" }
outputs = { y = "f32[rows, 8]" }
attrs = { c = 0.7978845608028654, k = 0.044715 }
reference = "y = 0.5 * x * (1 + tanh(c * (x + k * x ** 3)))"
shapes = [{ rows = 3 }]
init = { x = "uniform(-4, 4)" }
"#);
    let (i, o) = run(&op, 5);
    let c = (2.0 / std::f64::consts::PI).sqrt();
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| {
            x.iter()
                .map(|v| 0.5 * v * (1.0 + (c * (v + 0.044715 * v * v * v)).tanh()))
                .collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
}

#[test]
fn silu() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]" }
outputs = { y = "f32[rows, 8]" }
reference = "y = x * sigmoid(x)"
shapes = [{ rows = 3 }]
init = { x = "normal(0, 3)" }
"#);
    let (i, o) = run(&op, 6);
    let expected: Vec<Vec<f64>> = rows(&i["x"])
        .iter()
        .map(|x| x.iter().map(|v| v / (1.0 + (-v).exp())).collect())
        .collect();
    assert_close(&o["y"], &expected);
}

#[test]
fn swiglu() {
    let op = op(r#"
inputs = { gate = "f32[rows, 8]", up = "f32[rows, 8]" }
outputs = { y = "f32[rows, 8]" }
reference = "y = gate * sigmoid(gate) * up"
shapes = [{ rows = 3 }]
"#);
    let (i, o) = run(&op, 7);
    let (g, u) = (rows(&i["gate"]), rows(&i["up"]));
    let expected: Vec<Vec<f64>> = (0..ROWS)
        .map(|r| {
            (0..H)
                .map(|c| g[r][c] / (1.0 + (-g[r][c]).exp()) * u[r][c])
                .collect()
        })
        .collect();
    assert_close(&o["y"], &expected);
}

#[test]
fn add_rms_norm_two_outputs() {
    let op = op(r#"
inputs = { x = "f32[rows, 8]", residual = "f32[rows, 8]", gamma = "f32[8]" }
outputs = { h = "f32[rows, 8]", y = "f32[rows, 8]" }
attrs = { eps = 1e-6 }
reference = '''
h = x + residual
y = h * rsqrt(mean(h * h, axis=-1, keepdims=true) + eps) * gamma
'''
shapes = [{ rows = 3 }]
"#);
    let (i, o) = run(&op, 8);
    let (x, res, g) = (rows(&i["x"]), rows(&i["residual"]), vec1(&i["gamma"]));
    let h: Vec<Vec<f64>> = (0..ROWS)
        .map(|r| (0..H).map(|c| x[r][c] + res[r][c]).collect())
        .collect();
    let y: Vec<Vec<f64>> = h
        .iter()
        .map(|h| {
            let ms = h.iter().map(|v| v * v).sum::<f64>() / H as f64;
            let inv = 1.0 / (ms + 1e-6).sqrt();
            h.iter().zip(&g).map(|(v, g)| v * inv * g).collect()
        })
        .collect();
    assert_close(&o["h"], &h);
    assert_close(&o["y"], &y);
}

#[test]
fn golden_outputs_are_rounded_to_the_output_dtype() {
    let op = op(r#"
inputs = { x = "f16[rows, 8]" }
outputs = { y = "f16[rows, 8]" }
reference = "y = x / 3"
shapes = [{ rows = 3 }]
"#);
    let binding = HashMap::from([("rows".to_string(), ROWS)]);
    let inputs = op.generate_inputs(&binding, 9).unwrap();
    // Inputs are exactly representable in f16.
    assert!(inputs["x"]
        .iter()
        .all(|&v| half::f16::from_f64(v).to_f64() == v));
    let golden = op.golden(&inputs).unwrap();
    for (g, x) in golden["y"].iter().zip(inputs["x"].iter()) {
        assert_eq!(*g, half::f16::from_f32((x / 3.0) as f32).to_f64());
    }
}
