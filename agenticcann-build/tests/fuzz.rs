//! Nothing panics on any input: property-based fuzzing of the reference parser, shape
//! inference, evaluator and manifest loader, plus the regression corpus in `tests/corpus/`
//! (every file there runs on every `cargo test`; add a file for every input that ever
//! broke something).

use std::collections::HashMap;
use std::path::Path;

use agenticcann_build::spec::reference::{
    evaluate, infer_shapes, ExprKind, Reference, ReferenceErrorKind,
};
use agenticcann_build::spec::{check_manifest_str, Dim, ShapeTemplate};
use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;

/// Runs a reference through everything that accepts one: parse, print/re-parse, shape
/// inference with inputs `x: [r, 3]`, `g: [3]`, attr `eps`, and evaluation.
fn exercise_reference(src: &str) {
    let Ok(r) = Reference::parse(src) else {
        // Errors render without panicking.
        let e = Reference::parse(src).unwrap_err();
        let _ = e.render(src);
        return;
    };
    // Printing gives text that parses to the same tree.
    let printed = r.to_canonical_source();
    let again = Reference::parse(&printed).unwrap_or_else(|e| {
        panic!(
            "printed form does not parse: {}\n{printed}",
            e.render(&printed)
        )
    });
    assert_eq!(again.to_canonical_source(), printed);

    let x = ShapeTemplate::new(vec![Dim::Named("r".into()), Dim::Fixed(3)]);
    let g = ShapeTemplate::new(vec![Dim::Fixed(3)]);
    let inferred = infer_shapes(&r, &[("x", &x), ("g", &g)], &["eps"]);
    if let Err(errors) = &inferred {
        for e in errors {
            let _ = e.render(src);
        }
    }
    let inputs = HashMap::from([
        (
            "x".to_string(),
            ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![-1.5, 0.0, 2.0, 1e30, -0.0, 3.0]).unwrap(),
        ),
        ("g".to_string(), ArrayD::from_elem(IxDyn(&[3]), 0.5)),
    ]);
    let attrs = HashMap::from([("eps".to_string(), 1e-6)]);
    let result = evaluate(&r, &inputs, &attrs);
    if let Ok(shapes) = inferred {
        // A reference that passes inference evaluates (except empty max/min, impossible
        // here) with the inferred shapes; the one data-dependent failure is a
        // `take_along_axis` index that is out of range or not an integer (an Eval error).
        let gathers = r.any_node(|e| matches!(e.kind, ExprKind::TakeAlongAxis { .. }));
        let values = match result {
            Ok(v) => v,
            Err(e) if gathers && e.kind == ReferenceErrorKind::Eval => return,
            Err(e) => panic!("{}", e.render(src)),
        };
        for (name, v) in &values {
            let t = &shapes[name];
            let concrete: Vec<usize> = t
                .dims
                .iter()
                .map(|d| match d {
                    Dim::Fixed(n) => *n,
                    Dim::Named(_) => 2,
                })
                .collect();
            assert_eq!(v.shape(), &concrete[..], "{name} in {src}");
        }
    }
}

fn exercise_manifest(text: &str) {
    let report = check_manifest_str(text, Some(text));
    for p in report.all_problems() {
        let _ = p.to_string();
    }
    if let Ok(Some(spec)) = report.into_spec() {
        for op in &spec.ops {
            let _ = op.key();
            let binding = op.smallest_shape().clone();
            let small = binding.values().all(|&v| v <= 64);
            if small {
                let inputs = op.generate_inputs(&binding, 1).unwrap();
                let _ = op.golden(&inputs);
            }
        }
    }
}

fn corpus(dir: &str) -> Vec<(String, String)> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            (
                p.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

#[test]
fn reference_corpus() {
    for (path, text) in corpus("reference") {
        eprintln!("{path}");
        exercise_reference(&text);
    }
}

#[test]
fn manifest_corpus() {
    for (path, text) in corpus("manifest") {
        eprintln!("{path}");
        exercise_manifest(&text);
    }
}

/// Token soup: sequences of the language's own tokens, which reach deeper into the parser
/// than random characters.
fn token_soup() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "x",
        "g",
        "eps",
        "y",
        "t",
        "z",
        "1",
        "0",
        "2.5",
        "1e-6",
        ".5",
        "+",
        "-",
        "*",
        "/",
        "**",
        "<",
        "<=",
        ">",
        ">=",
        "==",
        "!=",
        "=",
        "(",
        ")",
        ",",
        ";",
        "\n",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "tanh",
        "erf",
        "sigmoid",
        "abs",
        "neg",
        "max",
        "min",
        "clamp",
        "where",
        "cast",
        "sum",
        "mean",
        "axis",
        "keepdims",
        "true",
        "False",
        "f16",
        "i8",
        "bool",
        "#",
        " ",
        "[",
        "]",
        ":",
        "...",
        "-1",
        "concat",
        "iota",
        "argmax",
        "argmin",
        "take_along_axis",
        "inf",
    ]);
    prop::collection::vec(tokens, 0..40).prop_map(|v| v.join(" "))
}

/// Statements that are mostly well-formed: `y = <soup>` after a few valid statements.
fn near_valid() -> impl Strategy<Value = String> {
    (token_soup(), 0usize..3).prop_map(|(soup, n)| {
        let mut s = String::new();
        for i in 0..n {
            s.push_str(&format!("t{i} = x * {i}\n"));
        }
        s.push_str("y = ");
        s.push_str(&soup);
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn reference_any_text(s in any::<String>()) {
        exercise_reference(&s);
    }

    #[test]
    fn reference_token_soup(s in token_soup()) {
        exercise_reference(&s);
    }

    #[test]
    fn reference_near_valid(s in near_valid()) {
        exercise_reference(&s);
    }

    #[test]
    fn manifest_any_text(s in any::<String>()) {
        exercise_manifest(&s);
    }

    /// The valid fixture with a byte range deleted or a snippet inserted.
    #[test]
    fn manifest_mutations(
        start in 0usize..4000,
        len in 0usize..64,
        insert in prop::sample::select(vec!["", "\"", "'''", "[", "]", "{", "}", ",", "=", "nan", "-1", "f61", "x", "\n[package.metadata.agenticcann.ops.z]\n", "axis=", "0"]),
    ) {
        let base = include_str!("../../fixtures/valid/Cargo.toml");
        let mut bytes = base.as_bytes().to_vec();
        let start = start.min(bytes.len());
        let end = (start + len).min(bytes.len());
        bytes.splice(start..end, insert.bytes());
        exercise_manifest(&String::from_utf8_lossy(&bytes));
    }
}
