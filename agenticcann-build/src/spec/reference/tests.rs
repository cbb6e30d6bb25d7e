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
