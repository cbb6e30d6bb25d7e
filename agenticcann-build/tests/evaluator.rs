//! The f64 evaluator against hand-computed values: every function and operator,
//! reductions with and without keepdims, numpy broadcasting.

use std::collections::HashMap;

use agenticcann_build::spec::reference::{evaluate, Reference, ReferenceErrorKind};
use ndarray::{arr0, arr1, arr2, ArrayD, IxDyn};

fn eval_with(src: &str, inputs: &[(&str, ArrayD<f64>)], attrs: &[(&str, f64)]) -> ArrayD<f64> {
    let r = Reference::parse(src).unwrap_or_else(|e| panic!("{}", e.render(src)));
    let inputs: HashMap<String, ArrayD<f64>> = inputs
        .iter()
        .map(|(n, a)| (n.to_string(), a.clone()))
        .collect();
    let attrs: HashMap<String, f64> = attrs.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let mut out = evaluate(&r, &inputs, &attrs).unwrap_or_else(|e| panic!("{}", e.render(src)));
    out.remove("y").expect("the test reference assigns y")
}

/// Evaluates `y = <expr>` with no inputs: a scalar.
fn s(expr: &str) -> f64 {
    let v = eval_with(&format!("y = {expr}"), &[], &[]);
    assert_eq!(v.ndim(), 0, "{expr}");
    v[IxDyn(&[])]
}

fn close(a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    a == b || (a - b).abs() <= 1e-15 * b.abs().max(1e-300)
}

#[track_caller]
fn check(expr: &str, expected: f64) {
    let got = s(expr);
    assert!(
        close(got, expected),
        "{expr} = {got:e}, expected {expected:e}"
    );
}

#[test]
fn arithmetic_and_power() {
    check("1 + 2 * 3", 7.0);
    check("(1 + 2) * 3", 9.0);
    check("7 - 2 - 1", 4.0);
    check("1 / 8", 0.125);
    check("1 / 0", f64::INFINITY);
    check("-1 / 0", f64::NEG_INFINITY);
    check("0 / 0", f64::NAN);
    check("2 ** 10", 1024.0);
    check("2 ** 3 ** 2", 512.0); // right-associative
    check("-2 ** 2", -4.0); // unary minus binds looser than **
    check("(-2) ** 2", 4.0);
    check("4 ** 0.5", 2.0);
    check("2 ** -1", 0.5);
    check("neg(3)", -3.0);
    check("--3", 3.0);
}

#[test]
fn comparisons_give_one_or_zero() {
    check("1 < 2", 1.0);
    check("2 < 2", 0.0);
    check("2 <= 2", 1.0);
    check("3 > 2", 1.0);
    check("2 >= 3", 0.0);
    check("2 == 2", 1.0);
    check("2 != 2", 0.0);
    check("(0/0) == (0/0)", 0.0);
    check("(0/0) != (0/0)", 1.0);
}

#[test]
fn exp_log_sqrt_rsqrt() {
    check("exp(0)", 1.0);
    check("exp(1)", std::f64::consts::E);
    check("exp(-1)", 0.36787944117144233);
    check("exp(710)", f64::INFINITY);
    check("exp(-746)", 0.0);
    check("log(1)", 0.0);
    check("log(exp(1))", 1.0);
    check("log(10)", std::f64::consts::LN_10);
    check("log(0)", f64::NEG_INFINITY);
    check("log(-1)", f64::NAN);
    check("sqrt(4)", 2.0);
    check("sqrt(2)", std::f64::consts::SQRT_2);
    check("sqrt(-1)", f64::NAN);
    check("rsqrt(4)", 0.5);
    check("rsqrt(0.25)", 2.0);
    check("rsqrt(0)", f64::INFINITY);
}

#[test]
fn tanh_erf_sigmoid_including_large_magnitudes() {
    check("tanh(0)", 0.0);
    check("tanh(0.5)", 0.46211715726000974);
    check("tanh(-1)", -0.7615941559557649);
    // Saturation: no overflow to NaN from exp(2x) at large |x|.
    check("tanh(20)", 1.0);
    check("tanh(-20)", -1.0);
    check("tanh(800)", 1.0);
    check("tanh(-1e300)", -1.0);
    check("erf(0)", 0.0);
    check("erf(0.5)", 0.5204998778130465);
    check("erf(1)", 0.8427007929497149);
    check("erf(-2)", -0.9953222650189527);
    check("erf(3)", 0.9999779095030014);
    check("erf(6)", 1.0);
    check("erf(-30)", -1.0);
    check("erf(1e300)", 1.0);
    check("sigmoid(0)", 0.5);
    check("sigmoid(2)", 0.8807970779778823);
    check("sigmoid(-2)", 0.11920292202211755);
    check("sigmoid(800)", 1.0);
    check("sigmoid(-800)", 0.0); // not NaN from inf/inf
    check("sigmoid(-40)", 4.248354255291589e-18);
}

#[test]
fn abs_max_min_clamp_where_cast() {
    check("abs(-3.5)", 3.5);
    check("abs(2)", 2.0);
    check("max(1, 2)", 2.0);
    check("max(-1, -2)", -1.0);
    check("max(0/0, 1)", f64::NAN);
    check("min(1, 2)", 1.0);
    check("min(1, 0/0)", f64::NAN);
    check("clamp(5, 0, 3)", 3.0);
    check("clamp(-1, 0, 3)", 0.0);
    check("clamp(2, 0, 3)", 2.0);
    check("where(1 > 0, 10, 20)", 10.0);
    check("where(0, 10, 20)", 20.0);
    check("where(0/0, 10, 20)", 10.0);
    check("cast(0.1, f16)", 0.0999755859375);
    check("cast(0.1, bf16)", 0.10009765625);
    check("cast(0.1, f32)", 0.1f32 as f64);
    check("cast(2.5, i32)", 2.0);
    check("cast(300, u8)", 255.0);
    check("cast(-0.5, bool)", 1.0);
    check("cast(70000, f16)", f64::INFINITY);
}

#[test]
fn elementwise_functions_map_arrays() {
    let x = arr1(&[-1.0, 0.0, 2.0]).into_dyn();
    let y = eval_with("y = where(x > 0, x, 0.1 * x) + abs(x)", &[("x", x)], &[]);
    assert_eq!(y, arr1(&[-0.1 + 1.0, 0.0, 4.0]).into_dyn());
}

fn m23() -> ArrayD<f64> {
    arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).into_dyn()
}

#[test]
fn reductions_with_and_without_keepdims() {
    let x = || vec![("x", m23())];
    let r = |src: &str| eval_with(&format!("y = {src}"), &x(), &[]);
    assert_eq!(r("sum(x, axis=-1)"), arr1(&[6.0, 15.0]).into_dyn());
    assert_eq!(
        r("sum(x, axis=1, keepdims=true)"),
        arr2(&[[6.0], [15.0]]).into_dyn()
    );
    assert_eq!(r("sum(x, axis=0)"), arr1(&[5.0, 7.0, 9.0]).into_dyn());
    assert_eq!(
        r("sum(x, axis=-2, keepdims=true)"),
        arr2(&[[5.0, 7.0, 9.0]]).into_dyn()
    );
    assert_eq!(r("sum(x)"), arr0(21.0).into_dyn());
    assert_eq!(r("sum(x, keepdims=true)"), arr2(&[[21.0]]).into_dyn());
    assert_eq!(r("mean(x, axis=0)"), arr1(&[2.5, 3.5, 4.5]).into_dyn());
    assert_eq!(
        r("mean(x, axis=-1, keepdims=true)"),
        arr2(&[[2.0], [5.0]]).into_dyn()
    );
    assert_eq!(r("mean(x)"), arr0(3.5).into_dyn());
    assert_eq!(r("max(x, axis=1)"), arr1(&[3.0, 6.0]).into_dyn());
    assert_eq!(
        r("max(x, axis=0, keepdims=true)"),
        arr2(&[[4.0, 5.0, 6.0]]).into_dyn()
    );
    assert_eq!(r("max(x)"), arr0(6.0).into_dyn());
    assert_eq!(r("min(x, axis=-1)"), arr1(&[1.0, 4.0]).into_dyn());
    assert_eq!(r("min(x, keepdims=true)"), arr2(&[[1.0]]).into_dyn());
    // A NaN anywhere in a max lane makes the lane NaN.
    let nan = arr2(&[[1.0, f64::NAN], [2.0, 3.0]]).into_dyn();
    let v = eval_with("y = max(x, axis=-1)", &[("x", nan)], &[]);
    assert!(v[[0]].is_nan());
    assert_eq!(v[[1]], 3.0);
    // Zero elements: sum 0, mean NaN, max is an error.
    let empty = ArrayD::<f64>::zeros(IxDyn(&[2, 0]));
    let v = eval_with("y = sum(x, axis=-1)", &[("x", empty.clone())], &[]);
    assert_eq!(v, arr1(&[0.0, 0.0]).into_dyn());
    let v = eval_with("y = mean(x, axis=-1)", &[("x", empty.clone())], &[]);
    assert!(v.iter().all(|v| v.is_nan()));
    let r = Reference::parse("y = max(x, axis=-1)").unwrap();
    let inputs = HashMap::from([("x".to_string(), empty)]);
    let e = evaluate(&r, &inputs, &HashMap::new()).unwrap_err();
    assert_eq!(e.kind, ReferenceErrorKind::Eval);
}

#[test]
fn broadcasting_row_vectors_and_column_vectors() {
    let x = m23(); // [R=2, H=3]
    let h = arr1(&[10.0, 20.0, 30.0]).into_dyn(); // [H]
    let r1 = arr2(&[[100.0], [200.0]]).into_dyn(); // [R, 1]
    let y = eval_with("y = x + h", &[("x", x.clone()), ("h", h.clone())], &[]);
    assert_eq!(
        y,
        arr2(&[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]).into_dyn()
    );
    let y = eval_with("y = h + x", &[("x", x.clone()), ("h", h.clone())], &[]);
    assert_eq!(
        y,
        arr2(&[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]).into_dyn()
    );
    let y = eval_with("y = x * r", &[("x", x.clone()), ("r", r1.clone())], &[]);
    assert_eq!(
        y,
        arr2(&[[100.0, 200.0, 300.0], [800.0, 1000.0, 1200.0]]).into_dyn()
    );
    // [R,1] against [H] gives [R,H]; scalars and attrs broadcast everywhere.
    let y = eval_with("y = r + h + a", &[("r", r1), ("h", h)], &[("a", 0.5)]);
    assert_eq!(
        y,
        arr2(&[[110.5, 120.5, 130.5], [210.5, 220.5, 230.5]]).into_dyn()
    );
    // Three-operand broadcasting in where and clamp.
    let y = eval_with(
        "y = clamp(x, lo, 4)",
        &[("x", x.clone()), ("lo", arr2(&[[2.0], [5.0]]).into_dyn())],
        &[],
    );
    // Row 1 has lo (5) > hi (4): min(max(x, lo), hi) = hi, as numpy.clip.
    assert_eq!(y, arr2(&[[2.0, 2.0, 3.0], [4.0, 4.0, 4.0]]).into_dyn());
    // Shapes that do not broadcast are an error with the span of the operation.
    let r = Reference::parse("y = x + z").unwrap();
    let inputs = HashMap::from([
        ("x".to_string(), m23()),
        ("z".to_string(), arr1(&[1.0, 2.0]).into_dyn()),
    ]);
    let e = evaluate(&r, &inputs, &HashMap::new()).unwrap_err();
    assert_eq!(e.kind, ReferenceErrorKind::Shape);
    assert_eq!((e.span.start, e.span.end), (4, 9));
}

#[test]
fn intermediates_and_attrs() {
    let x = arr1(&[1.0, 2.0]).into_dyn();
    let y = eval_with(
        "t = x * k\nu = t + 1; y = u * u",
        &[("x", x)],
        &[("k", 3.0)],
    );
    assert_eq!(y, arr1(&[16.0, 49.0]).into_dyn());
}
