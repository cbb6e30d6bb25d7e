//! The f64 evaluator against hand-computed values: every function and operator,
//! reductions with and without keepdims, numpy broadcasting, subscripts, `concat`, `iota`,
//! `argmax`/`argmin` and `take_along_axis`.

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

/// [[0, 1, 2, 3], [4, 5, 6, 7]]
fn m24() -> ArrayD<f64> {
    arr2(&[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]).into_dyn()
}

fn ev(src: &str, x: ArrayD<f64>) -> ArrayD<f64> {
    eval_with(src, &[("x", x)], &[])
}

fn eval_err(
    src: &str,
    inputs: &[(&str, ArrayD<f64>)],
) -> agenticcann_build::spec::reference::ReferenceError {
    let r = Reference::parse(src).unwrap();
    let inputs: HashMap<String, ArrayD<f64>> = inputs
        .iter()
        .map(|(n, a)| (n.to_string(), a.clone()))
        .collect();
    evaluate(&r, &inputs, &HashMap::new()).expect_err(src)
}

#[test]
fn subscripts_follow_numpy_basic_slicing() {
    let x = m24();
    let r = |s: &str| ev(&format!("y = x{s}"), x.clone());
    assert_eq!(r("[..., 0:2]"), arr2(&[[0.0, 1.0], [4.0, 5.0]]).into_dyn());
    assert_eq!(r("[:, 2:]"), arr2(&[[2.0, 3.0], [6.0, 7.0]]).into_dyn());
    assert_eq!(r("[..., ::2]"), arr2(&[[0.0, 2.0], [4.0, 6.0]]).into_dyn());
    assert_eq!(r("[..., 1::2]"), arr2(&[[1.0, 3.0], [5.0, 7.0]]).into_dyn());
    assert_eq!(
        r("[:, ::-1]"),
        arr2(&[[3.0, 2.0, 1.0, 0.0], [7.0, 6.0, 5.0, 4.0]]).into_dyn()
    );
    assert_eq!(
        r("[::-1, -1:0:-2]"),
        arr2(&[[7.0, 5.0], [3.0, 1.0]]).into_dyn()
    );
    assert_eq!(r("[:, -3:-1]"), arr2(&[[1.0, 2.0], [5.0, 6.0]]).into_dyn());
    assert_eq!(r("[1]"), arr1(&[4.0, 5.0, 6.0, 7.0]).into_dyn());
    assert_eq!(r("[..., -1]"), arr1(&[3.0, 7.0]).into_dyn());
    assert_eq!(r("[0, 2]"), arr0(2.0).into_dyn());
    assert_eq!(r("[...]"), x);
    assert_eq!(
        r("[-100:100, 1:100:2]"),
        arr2(&[[1.0, 3.0], [5.0, 7.0]]).into_dyn()
    );
    assert_eq!(r("[1:][0][1:3]"), arr1(&[5.0, 6.0]).into_dyn());
    // Out of range at evaluation: a Shape error with the subscript's span.
    let e = eval_err("y = x[:, 4]", &[("x", x.clone())]);
    assert_eq!(e.kind, ReferenceErrorKind::Shape);
    assert_eq!((e.span.start, e.span.end), (4, 11));
    assert!(e.message.contains("out of range"), "{}", e.message);
}

#[test]
fn concat_and_rotate_half() {
    let x = m24();
    assert_eq!(
        ev("y = concat(x[..., 2:], x[..., :2], axis=-1)", x.clone()),
        arr2(&[[2.0, 3.0, 0.0, 1.0], [6.0, 7.0, 4.0, 5.0]]).into_dyn()
    );
    assert_eq!(
        ev("y = concat(x, x[:1] * 10, axis=0)", x.clone()),
        arr2(&[
            [0.0, 1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0, 7.0],
            [0.0, 10.0, 20.0, 30.0]
        ])
        .into_dyn()
    );
    // Llama's rotate_half: concat(-x2, x1); RoPE y = x cos + rotate_half(x) sin.
    let y = eval_with(
        "r = concat(-x[..., 2:], x[..., :2], axis=-1)\ny = x * c + r * s",
        &[
            ("x", m24()),
            ("c", arr1(&[1.0, 0.0, 1.0, 0.0]).into_dyn()),
            ("s", arr1(&[0.0, 1.0, 0.0, 1.0]).into_dyn()),
        ],
        &[],
    );
    // Columns 0 and 2 keep x; column 1 is -x[3], column 3 is x[1].
    assert_eq!(
        y,
        arr2(&[[0.0, -3.0, 2.0, 1.0], [4.0, -7.0, 6.0, 5.0]]).into_dyn()
    );
    let e = eval_err(
        "y = concat(x, z, axis=0)",
        &[("x", x), ("z", arr1(&[1.0]).into_dyn())],
    );
    assert_eq!(e.kind, ReferenceErrorKind::Shape);
}

#[test]
fn swiglu_over_a_packed_gate_up_tensor() {
    // [R=1, 2*I=4]: gate = [0, 1], up = [2, 3]; y = silu(gate) * up.
    let y = ev(
        "y = x[..., :2] * sigmoid(x[..., :2]) * x[..., 2:]",
        arr2(&[[0.0, 1.0, 2.0, 3.0]]).into_dyn(),
    );
    let silu1 = 1.0 / (1.0 + (-1.0f64).exp());
    assert_eq!(y[[0, 0]], 0.0);
    assert!((y[[0, 1]] - 3.0 * silu1).abs() < 1e-15);
}

#[test]
fn iota_and_the_causal_mask() {
    let s = ArrayD::<f64>::zeros(IxDyn(&[2, 3]));
    assert_eq!(
        ev("y = iota(x, axis=-1)", s.clone()),
        arr2(&[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]).into_dyn()
    );
    assert_eq!(
        ev("y = iota(x, axis=0)", s),
        arr2(&[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]).into_dyn()
    );
    let s = arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]).into_dyn();
    let ni = f64::NEG_INFINITY;
    assert_eq!(
        ev("y = where(iota(x, axis=-1) > iota(x, axis=-2), -inf, x)", s),
        arr2(&[[1.0, ni, ni], [4.0, 5.0, ni], [7.0, 8.0, 9.0]]).into_dyn()
    );
}

#[test]
fn argmax_and_argmin_take_the_first_index() {
    let x = arr2(&[[1.0, 5.0, 5.0, -2.0], [3.0, 3.0, 0.0, 0.0]]).into_dyn();
    let r = |s: &str| ev(&format!("y = {s}"), x.clone());
    assert_eq!(r("argmax(x, axis=-1)"), arr1(&[1.0, 0.0]).into_dyn());
    assert_eq!(r("argmin(x, axis=1)"), arr1(&[3.0, 2.0]).into_dyn());
    assert_eq!(
        r("argmax(x, axis=0)"),
        arr1(&[1.0, 0.0, 0.0, 1.0]).into_dyn()
    );
    assert_eq!(
        r("argmin(x, axis=0, keepdims=true)"),
        arr2(&[[0.0, 1.0, 1.0, 0.0]]).into_dyn()
    );
    // Flat row-major index over every axis.
    assert_eq!(r("argmax(x)"), arr0(1.0).into_dyn());
    assert_eq!(r("argmin(x)"), arr0(3.0).into_dyn());
    assert_eq!(r("argmin(x, keepdims=true)"), arr2(&[[3.0]]).into_dyn());
    // NaN is the extreme (the first NaN wins), as numpy.
    let n = arr1(&[1.0, f64::NAN, 9.0, f64::NAN]).into_dyn();
    assert_eq!(ev("y = argmax(x, axis=0)", n.clone()), arr0(1.0).into_dyn());
    assert_eq!(ev("y = argmin(x, axis=0)", n), arr0(1.0).into_dyn());
    // Zero elements have no argmax.
    let e = eval_err(
        "y = argmax(x, axis=-1)",
        &[("x", ArrayD::zeros(IxDyn(&[2, 0])))],
    );
    assert_eq!(e.kind, ReferenceErrorKind::Eval);
    // Indices are exact integers far beyond f16's range.
    let mut big = ArrayD::<f64>::zeros(IxDyn(&[1, 151936]));
    big[[0, 151935]] = 1.0;
    assert_eq!(
        ev("y = argmax(x, axis=-1)", big),
        arr1(&[151935.0]).into_dyn()
    );
}

#[test]
fn take_along_axis_gathers_like_numpy() {
    let x = m24();
    let idx = arr2(&[[3.0], [1.0]]).into_dyn();
    let y = eval_with(
        "y = take_along_axis(x, i, axis=1)",
        &[("x", x.clone()), ("i", idx)],
        &[],
    );
    assert_eq!(y, arr2(&[[3.0], [5.0]]).into_dyn());
    // Several indices per row, negative ones from the end.
    let idx = arr2(&[[0.0, -1.0, 0.0], [2.0, 2.0, -4.0]]).into_dyn();
    let y = eval_with(
        "y = take_along_axis(x, i, axis=-1)",
        &[("x", x.clone()), ("i", idx)],
        &[],
    );
    assert_eq!(y, arr2(&[[0.0, 3.0, 0.0], [6.0, 6.0, 4.0]]).into_dyn());
    // Along axis 0; indices broadcast over the other axis.
    let idx = arr2(&[[1.0], [0.0], [1.0]]).into_dyn();
    let y = eval_with(
        "y = take_along_axis(x, i, axis=0)",
        &[("x", x.clone()), ("i", idx)],
        &[],
    );
    assert_eq!(
        y,
        arr2(&[
            [4.0, 5.0, 6.0, 7.0],
            [0.0, 1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0, 7.0]
        ])
        .into_dyn()
    );
    // Cross-entropy by label: logsumexp(x) - x[label].
    let lab = arr2(&[[2.0], [0.0]]).into_dyn();
    let y = eval_with(
        "m = max(x, axis=-1, keepdims=true)\nl = log(sum(exp(x - m), axis=-1, keepdims=true)) + m\ny = l - take_along_axis(x, lab, axis=-1)",
        &[("x", x.clone()), ("lab", lab)],
        &[],
    );
    let lse = |r: [f64; 4]| r.iter().map(|v| v.exp()).sum::<f64>().ln();
    assert!((y[[0, 0]] - (lse([0.0, 1.0, 2.0, 3.0]) - 2.0)).abs() < 1e-12);
    assert!((y[[1, 0]] - (lse([4.0, 5.0, 6.0, 7.0]) - 4.0)).abs() < 1e-12);
    // Gather of argmax: the row maxima.
    assert_eq!(
        ev(
            "y = take_along_axis(x, argmax(x, axis=1, keepdims=true), axis=1)",
            x.clone()
        ),
        arr2(&[[3.0], [7.0]]).into_dyn()
    );
    // Out of range and non-integer indices are errors at the indices.
    for bad in [4.0, -5.0, 0.5] {
        let e = eval_err(
            "y = take_along_axis(x, i, axis=1)",
            &[("x", x.clone()), ("i", arr2(&[[0.0], [bad]]).into_dyn())],
        );
        assert_eq!(e.kind, ReferenceErrorKind::Eval, "{bad}");
        assert_eq!((e.span.start, e.span.end), (23, 24), "{bad}");
    }
}
