use super::*;
use crate::spec::shape::{Dim, ShapeTemplate};

fn parse(s: &str) -> Reference {
    Reference::parse(s).unwrap_or_else(|e| panic!("{}", e.render(s)))
}

fn err(s: &str) -> ReferenceError {
    Reference::parse(s).expect_err(s)
}

fn expr(s: &str) -> String {
    parse(&format!("y = {s}")).statements[0].value.to_string()
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(expr("a + b * c"), "a + b * c");
    assert_eq!(expr("(a + b) * c"), "(a + b) * c");
    assert_eq!(expr("a - (b - c)"), "a - (b - c)");
    assert_eq!(expr("a - b - c"), "a - b - c");
    assert_eq!(expr("-x ** 2"), "-x ** 2");
    let r = parse("y = -x ** 2");
    assert!(matches!(r.statements[0].value.kind, ExprKind::Neg(_)));
    let r = parse("y = 2 ** 3 ** 2");
    let ExprKind::Binary { rhs, .. } = &r.statements[0].value.kind else {
        panic!()
    };
    assert!(matches!(
        rhs.kind,
        ExprKind::Binary {
            op: BinaryOp::Pow,
            ..
        }
    ));
    assert_eq!(expr("(-x) ** 2"), "(-x) ** 2");
    assert_eq!(expr("x ** -1"), "x ** -1");
    assert_eq!(expr("a < b + 1"), "a < b + 1");
    assert_eq!(expr("neg(x)"), "-x");
    assert_eq!(
        expr("max(x, axis=-1, keepdims=True)"),
        "max(x, axis=-1, keepdims=true)"
    );
    assert_eq!(expr("sum(x, keepdims=false)"), "sum(x)");
    assert_eq!(expr("cast(x, bf16)"), "cast(x, bf16)");
    assert_eq!(expr("1e-6 + 0.5 + 2."), "1e-6 + 0.5 + 2");
}

#[test]
fn statements_comments_and_continuations() {
    let r = parse(
        "# rms norm\n\n ms = mean(x * x,\n   axis=-1, keepdims=true) ; y = x * rsqrt(ms + eps)\n",
    );
    assert_eq!(r.statements.len(), 2);
    assert_eq!(r.statements[0].target.name, "ms");
    assert_eq!(
        r.to_canonical_source(),
        "ms = mean(x * x, axis=-1, keepdims=true)\ny = x * rsqrt(ms + eps)"
    );
    assert!(r.has_reduction());
    // Spans index into the source.
    let t = &r.statements[1].target;
    assert_eq!(&r.source[t.span.start..t.span.end], "y");
}

#[test]
fn syntax_errors_have_positions() {
    let e = err("y = x * (2 +)");
    assert_eq!(e.kind, ReferenceErrorKind::Syntax);
    assert_eq!(e.span.line_col("y = x * (2 +)"), (1, 13));
    assert!(
        e.message.contains("expected an expression, found `)`"),
        "{}",
        e.message
    );
    let e = err("t = x\ny = t +* 2");
    assert_eq!(e.span.line_col("t = x\ny = t +* 2"), (2, 8));
    assert!(err("y = (x").message.contains("`)`"));
    assert!(err("y = x y").message.contains("new line or `;`"));
    assert!(err("= x").message.contains("name = expression"));
    assert!(err("y = a < b < c").message.contains("chained"));
    assert!(err("").message.contains("no statement"));
    assert!(err("# only a comment").message.contains("no statement"));
}

#[test]
fn call_errors() {
    let e = err("y = softplus(x)");
    assert_eq!(e.kind, ReferenceErrorKind::UnknownFunction);
    assert_eq!(e.span, Span::new(4, 12));
    assert_eq!(err("y = exp(x, x)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = clamp(x, 1)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = where(x)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = sum(x, x)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = sum()").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = max()").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = max(a, b, axis=0)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = sum(x, axes=0)").kind, ReferenceErrorKind::Arity);
    assert_eq!(
        err("y = sum(x, axis=0, axis=1)").kind,
        ReferenceErrorKind::Arity
    );
    assert_eq!(err("y = sum(x, axis=0.5)").kind, ReferenceErrorKind::Axis);
    assert_eq!(
        err("y = sum(x, keepdims=1)").kind,
        ReferenceErrorKind::Arity
    );
    assert_eq!(err("y = exp(x, axis=1)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = cast(x, f61)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = cast(x, 2)").kind, ReferenceErrorKind::Arity);
    assert_eq!(err("y = sum(axis=0, x)").kind, ReferenceErrorKind::Syntax);
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("y = {}x{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&deep).message.contains("nested too deeply"));
    let minus = format!("y = {}x", "-".repeat(10_000));
    assert!(err(&minus).message.contains("nested too deeply"));
    let chain = format!("y = x{}", " + x".repeat(10_000));
    assert!(err(&chain).message.contains("nested too deeply"));
    let pow = format!("y = x{}", " ** x".repeat(10_000));
    assert!(err(&pow).message.contains("nested too deeply"));
    let calls = format!("y = {}x{}", "exp(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&calls).message.contains("nested too deeply"));
    // Just inside the limit parses.
    parse(&format!(
        "y = {}x{}",
        "(".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    ));
}

fn t(dims: &[&str]) -> ShapeTemplate {
    ShapeTemplate::new(
        dims.iter()
            .map(|d| match d.parse::<usize>() {
                Ok(n) => Dim::Fixed(n),
                Err(_) => Dim::Named(d.to_string()),
            })
            .collect(),
    )
}

fn infer(
    src: &str,
    inputs: &[(&str, ShapeTemplate)],
    attrs: &[&str],
) -> Result<std::collections::BTreeMap<String, ShapeTemplate>, Vec<ReferenceError>> {
    let r = parse(src);
    let ins: Vec<(&str, &ShapeTemplate)> = inputs.iter().map(|(n, s)| (*n, s)).collect();
    infer_shapes(&r, &ins, attrs)
}

#[test]
fn infers_broadcast_and_reduction_shapes() {
    let x = t(&["rows", "4096"]);
    let g = t(&["4096"]);
    let s = infer(
        "ms = mean(x * x, axis=-1, keepdims=true)\nall = sum(x)\nk = max(x, keepdims=true)\nr = sum(x, axis=0)\ny = x * rsqrt(ms + eps) * g",
        &[("x", x.clone()), ("g", g)],
        &["eps"],
    )
    .unwrap();
    assert_eq!(s["ms"], t(&["rows", "1"]));
    assert_eq!(s["all"], t(&[]));
    assert_eq!(s["k"], t(&["1", "1"]));
    assert_eq!(s["r"], t(&["4096"]));
    assert_eq!(s["y"], x);
    assert_eq!(s["eps"], t(&[]));
    // Any sub-expression's shape, from the names' shapes.
    let r = parse("y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * g");
    let ExprKind::Binary { lhs, .. } = &r.statements[0].value.kind else {
        panic!()
    };
    let ExprKind::Binary { rhs: rsqrt, .. } = &lhs.kind else {
        panic!()
    };
    assert_eq!(shape_of(rsqrt, &s).unwrap(), t(&["rows", "1"]));
    assert_eq!(shape_of(&r.statements[0].value, &s).unwrap(), x);
    // [R,1] against [R,H] and [H] against [R,H].
    let s = infer(
        "y = a + b + c",
        &[
            ("a", t(&["r", "1"])),
            ("b", t(&["r", "h"])),
            ("c", t(&["h"])),
        ],
        &[],
    )
    .unwrap();
    assert_eq!(s["y"], t(&["r", "h"]));
}

#[test]
fn name_and_shape_errors() {
    let x = t(&["n", "8"]);
    let kinds = |src: &str, attrs: &[&str]| -> Vec<ReferenceErrorKind> {
        infer(src, &[("x", x.clone())], attrs)
            .unwrap_err()
            .into_iter()
            .map(|e| e.kind)
            .collect()
    };
    assert_eq!(
        kinds("y = x + z", &[]),
        vec![ReferenceErrorKind::UndefinedName]
    );
    assert_eq!(
        kinds("y = t\nt = x", &[]),
        vec![ReferenceErrorKind::UndefinedName]
    );
    assert_eq!(
        kinds("y = exp", &[]),
        vec![ReferenceErrorKind::UndefinedName]
    );
    assert_eq!(
        kinds("x = x * 2", &[]),
        vec![ReferenceErrorKind::DuplicateName]
    );
    assert_eq!(
        kinds("eps = x", &["eps"]),
        vec![ReferenceErrorKind::DuplicateName]
    );
    assert_eq!(
        kinds("y = x\ny = x * 2", &[]),
        vec![ReferenceErrorKind::DuplicateName]
    );
    assert_eq!(
        kinds("sum = x", &[]),
        vec![ReferenceErrorKind::DuplicateName]
    );
    assert_eq!(
        kinds("y = sum(x, axis=2)", &[]),
        vec![ReferenceErrorKind::Axis]
    );
    assert_eq!(
        kinds("y = sum(x, axis=-3)", &[]),
        vec![ReferenceErrorKind::Axis]
    );
    assert_eq!(
        kinds("y = sum(eps, axis=0)", &["eps"]),
        vec![ReferenceErrorKind::Axis]
    );
    assert_eq!(
        kinds("y = x + sum(x, axis=-1)", &[]),
        vec![ReferenceErrorKind::Shape]
    );
    // A failed statement does not cascade; independent errors are all reported.
    assert_eq!(
        kinds("t = x + z\ny = t * 2\nw = q", &[]),
        vec![
            ReferenceErrorKind::UndefinedName,
            ReferenceErrorKind::UndefinedName
        ]
    );
    let e = infer("y = a + b", &[("a", t(&["n"])), ("b", t(&["m"]))], &[]).unwrap_err();
    assert!(e[0].message.contains("`n` and `m`"), "{}", e[0].message);
    let e = infer("y = a + b", &[("a", t(&["n"])), ("b", t(&["4"]))], &[]).unwrap_err();
    assert!(
        e[0].message
            .contains("`n` is used with two different sizes, n and 4"),
        "{}",
        e[0].message
    );
    assert_eq!(e[0].span, Span::new(4, 9));
}

#[test]
fn subscripts_and_indexing_functions_parse_and_print_back() {
    assert_eq!(expr("x[..., 0:64]"), "x[..., 0:64]");
    assert_eq!(expr("x[ :, ::2 ]"), "x[:, ::2]");
    assert_eq!(expr("x[..., -1:]"), "x[..., -1:]");
    assert_eq!(expr("x[1:-1:-3, 2]"), "x[1:-1:-3, 2]");
    assert_eq!(expr("(a + b)[0]"), "(a + b)[0]");
    assert_eq!(expr("-x[0] ** 2"), "-x[0] ** 2");
    assert_eq!(expr("x[0][1:]"), "x[0][1:]");
    assert_eq!(
        expr("concat(x[..., 64:], -x[..., :64], axis=-1)"),
        "concat(x[..., 64:], -x[..., :64], axis=-1)"
    );
    assert_eq!(expr("iota(s, axis=-1)"), "iota(s, axis=-1)");
    assert_eq!(
        expr("argmax(x, axis=-1, keepdims=True)"),
        "argmax(x, axis=-1, keepdims=true)"
    );
    assert_eq!(expr("argmin(x)"), "argmin(x)");
    assert_eq!(
        expr("take_along_axis(x, i, axis=1)"),
        "take_along_axis(x, i, axis=1)"
    );
    assert_eq!(expr("where(a > b, -inf, s)"), "where(a > b, -inf, s)");
    // Newlines inside brackets continue the expression.
    let r = parse("y = x[...,\n  0:2]\nz = y");
    assert_eq!(r.statements.len(), 2);
    // Printing and parsing again gives the same tree.
    for src in [
        "y = concat(x[..., 1::2], x[..., ::-2], axis=0) * iota(x, axis=0)",
        "y = take_along_axis(x, argmax(x, axis=1, keepdims=true), axis=1)",
        "y = where(iota(s, axis=-1) > iota(s, axis=-2), -inf, s)",
    ] {
        let a = parse(src);
        let b = parse(&a.to_canonical_source());
        assert_eq!(a.to_canonical_source(), b.to_canonical_source());
        let strip = |r: &Reference| {
            format!(
                "{:?}",
                r.statements
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
            )
        };
        assert_eq!(strip(&a), strip(&b));
    }
    assert!(matches!(
        parse("y = inf").statements[0].value.kind,
        ExprKind::Number(v) if v == f64::INFINITY
    ));
}

#[test]
fn subscript_and_indexing_syntax_errors_have_positions() {
    let cases: [(&str, ReferenceErrorKind, (usize, usize), &str); 12] = [
        (
            "y = x[]",
            ReferenceErrorKind::Syntax,
            (1, 6),
            "empty subscript",
        ),
        (
            "y = x[..., ...]",
            ReferenceErrorKind::Syntax,
            (1, 12),
            "at most one `...`",
        ),
        (
            "y = x[::0]",
            ReferenceErrorKind::Syntax,
            (1, 9),
            "step cannot be zero",
        ),
        (
            "y = x[0.5]",
            ReferenceErrorKind::Syntax,
            (1, 7),
            "must be an integer",
        ),
        (
            "t = 1\ny = x[a:]",
            ReferenceErrorKind::Syntax,
            (2, 7),
            "integer literal",
        ),
        ("y = x[0:1", ReferenceErrorKind::Syntax, (1, 10), "`]`"),
        (
            "y = concat(x, axis=0)",
            ReferenceErrorKind::Arity,
            (1, 5),
            "two or more",
        ),
        (
            "y = concat(x, x)",
            ReferenceErrorKind::Arity,
            (1, 5),
            "needs `axis=`",
        ),
        (
            "y = iota(x, axis=0, keepdims=true)",
            ReferenceErrorKind::Arity,
            (1, 21),
            "`axis=` only",
        ),
        (
            "y = take_along_axis(x, axis=0)",
            ReferenceErrorKind::Arity,
            (1, 5),
            "2 arguments",
        ),
        (
            "y = argmax(x, y, axis=0)",
            ReferenceErrorKind::Arity,
            (1, 5),
            "one positional",
        ),
        (
            "y = iota(x, axis=0.5)",
            ReferenceErrorKind::Axis,
            (1, 18),
            "integer",
        ),
    ];
    for (src, kind, at, needle) in cases {
        let e = err(src);
        assert_eq!(e.kind, kind, "{src}: {}", e.message);
        assert_eq!(e.span.line_col(src), at, "{src}: {}", e.message);
        assert!(e.message.contains(needle), "{src}: {}", e.message);
    }
}

#[test]
fn infers_subscript_concat_iota_arg_and_gather_shapes() {
    let x = t(&["rows", "256"]);
    let s4 = t(&["b", "h", "s", "s"]);
    let lab = t(&["rows", "1"]);
    let v = infer(
        "g = x[..., :128]\nu = x[:, 128:]\nodd = x[..., 1::2]\nrev = x[:, ::-1]\nc = x[:, 5]\n\
         h = concat(u, g, axis=-1)\nh3 = concat(g, g, odd, axis=1)\n\
         m = where(iota(s4, axis=-1) > iota(s4, axis=-2), -inf, s4)\n\
         a = argmax(x, axis=-1)\nak = argmin(x, axis=1, keepdims=true)\naf = argmax(x)\n\
         p = take_along_axis(x, lab, axis=-1)\npw = take_along_axis(x, ak, axis=1)",
        &[("x", x.clone()), ("s4", s4.clone()), ("lab", lab)],
        &[],
    )
    .unwrap();
    assert_eq!(v["g"], t(&["rows", "128"]));
    assert_eq!(v["u"], t(&["rows", "128"]));
    assert_eq!(v["odd"], t(&["rows", "128"]));
    assert_eq!(v["rev"], x);
    assert_eq!(v["c"], t(&["rows"]));
    assert_eq!(v["h"], x);
    assert_eq!(v["h3"], t(&["rows", "384"]));
    assert_eq!(v["m"], s4);
    assert_eq!(v["a"], t(&["rows"]));
    assert_eq!(v["ak"], t(&["rows", "1"]));
    assert_eq!(v["af"], t(&[]));
    assert_eq!(v["p"], t(&["rows", "1"]));
    assert_eq!(v["pw"], t(&["rows", "1"]));
    // take_along_axis broadcasts the other axes.
    let v = infer(
        "y = take_along_axis(w, i, axis=1)",
        &[("w", t(&["1", "8"])), ("i", t(&["rows", "3"]))],
        &[],
    )
    .unwrap();
    assert_eq!(v["y"], t(&["rows", "3"]));
}

#[test]
fn indexing_shape_errors_name_the_problem() {
    let x = t(&["rows", "256"]);
    let cases: [(&str, ReferenceErrorKind, &str); 10] = [
        (
            "y = x[0:2, :]",
            ReferenceErrorKind::Shape,
            "named dimension `rows`",
        ),
        (
            "y = x[0]",
            ReferenceErrorKind::Shape,
            "named dimension `rows`",
        ),
        ("y = x[:, 256]", ReferenceErrorKind::Shape, "out of range"),
        (
            "y = x[:, 10:5]",
            ReferenceErrorKind::Shape,
            "selects no element",
        ),
        ("y = x[:, :, 0]", ReferenceErrorKind::Axis, "rank 2"),
        (
            "y = concat(x, x, axis=0)",
            ReferenceErrorKind::Shape,
            "named dimension `rows`",
        ),
        (
            "y = concat(x, x[..., :8], axis=0)",
            ReferenceErrorKind::Shape,
            "every other axis",
        ),
        (
            "y = concat(x, x, axis=2)",
            ReferenceErrorKind::Axis,
            "out of range",
        ),
        (
            "y = take_along_axis(x, argmax(x, axis=1), axis=1)",
            ReferenceErrorKind::Shape,
            "rank",
        ),
        ("y = iota(3, axis=0)", ReferenceErrorKind::Axis, "scalar"),
    ];
    for (src, kind, needle) in cases {
        let e = infer(src, &[("x", x.clone())], &[]).expect_err(src);
        assert_eq!(e.len(), 1, "{src}");
        assert_eq!(e[0].kind, kind, "{src}: {}", e[0].message);
        assert!(e[0].message.contains(needle), "{src}: {}", e[0].message);
        // The span is the failing expression (from `x`/the call after `y = `).
        assert_eq!(e[0].span.start, 4, "{src}");
    }
}

#[test]
fn value_classes_and_the_index_dtype_check() {
    use crate::spec::dtype::Dtype;
    let r = parse(
        "a = argmax(x, axis=1, keepdims=true)\nb = iota(x, axis=0) + 1\nc = x > 0\nd = cast(x, i32)\n\
         e = lab * 2\nf = mean(lab, axis=0)\ng = b / 2\nh = take_along_axis(x, a, axis=1)\n\
         k = take_along_axis(x, lab + n, axis=1)\nm = sum(c, axis=0)",
    );
    let v = value_classes(
        &r,
        &[("x", Dtype::F16), ("lab", Dtype::I32)],
        &[("n", ValueClass::Int)],
    )
    .unwrap();
    use ValueClass::*;
    for (name, class) in [
        ("a", Int),
        ("b", Int),
        ("c", Bool),
        ("d", Int),
        ("e", Int),
        ("f", Float),
        ("g", Float),
        ("h", Float),
        ("k", Float),
        ("m", Int),
        ("x", Float),
    ] {
        assert_eq!(v[name], class, "{name}");
    }
    // Float or boolean indices are a Dtype error at the indices.
    let src = "p = x * 2\ny = take_along_axis(x, p, axis=1)\nz = take_along_axis(x, x > 0, axis=1)\nw = take_along_axis(x, lab, axis=1)";
    let r = parse(src);
    let e = value_classes(&r, &[("x", Dtype::F32), ("lab", Dtype::I8)], &[]).unwrap_err();
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|e| e.kind == ReferenceErrorKind::Dtype));
    assert_eq!(e[0].span.line_col(src), (2, 24));
    assert!(
        e[0].message.contains("`p` is a float value"),
        "{}",
        e[0].message
    );
    assert!(e[1].message.contains("boolean"), "{}", e[1].message);
    // A float attr is a float even when integral.
    let r = parse("y = take_along_axis(x, k, axis=0)");
    assert!(value_classes(&r, &[("x", Dtype::F32)], &[("k", ValueClass::Float)]).is_err());
    assert!(value_classes(&r, &[("x", Dtype::F32)], &[("k", ValueClass::Int)]).is_ok());
}
