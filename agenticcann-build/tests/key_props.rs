//! Property tests of content keys: the same meaning written differently gives the same key
//! (reformatting, reordered tables, renamed op, intermediates and named dimensions, split or
//! inlined statements, dead code, number spelling, keyword order, negative axes, `neg`,
//! another SoC of the same arch); any change of dtype, shape, attr value, reference meaning
//! or target arch gives another key.

use agenticcann_build::key::{canonical_encoding, Key};
use agenticcann_build::spec::{OpSpec, Spec};
use proptest::prelude::*;

/// An expression over inputs of shape [n, H] or [H] and scalar attrs; every node's shape
/// broadcasts to [n, H].
#[derive(Clone, Debug)]
enum E {
    In(usize),
    Attr(usize),
    Lit(usize),
    Bin(usize, Box<E>, Box<E>),
    Un(usize, Box<E>),
    Neg(Box<E>),
    Max(Box<E>, Box<E>),
    Where(Box<E>, Box<E>, Box<E>),
    /// A reduction over the last axis with keepdims (shape [n, 1] or [1]).
    Red(usize, Box<E>),
}

const BIN: [&str; 4] = ["+", "-", "*", "/"];
const UN: [&str; 5] = ["exp", "tanh", "sigmoid", "abs", "erf"];
const RED: [&str; 4] = ["sum", "mean", "max", "min"];
/// Literals and alternative spellings of each.
const LITS: [&[&str]; 4] = [
    &["2", "2.0", "2e0", "20e-1", "2."],
    &["0.5", ".5", "5e-1", "0.50"],
    &["1e-6", "0.000001", "1E-6", "1e-06"],
    &["3", "3.0", "3e0"],
];

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        (0usize..3).prop_map(E::In),
        (0usize..2).prop_map(E::Attr),
        (0usize..LITS.len()).prop_map(E::Lit),
    ];
    leaf.prop_recursive(5, 24, 3, |inner| {
        prop_oneof![
            (0..BIN.len(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| E::Bin(
                o,
                Box::new(a),
                Box::new(b)
            )),
            (0..UN.len(), inner.clone()).prop_map(|(f, a)| E::Un(f, Box::new(a))),
            inner.clone().prop_map(|a| E::Neg(Box::new(a))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Max(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| E::Where(
                Box::new(a),
                Box::new(b),
                Box::new(c)
            )),
            (0..RED.len(), inner).prop_map(|(r, a)| E::Red(r, Box::new(a))),
        ]
    })
}

/// What an op means (everything the key must see).
#[derive(Clone, Debug)]
struct Desc {
    /// dtype index per input; input 0 is [n, H], the others [n, H] or [H].
    dtypes: Vec<usize>,
    row_vector: Vec<bool>,
    hidden: usize,
    attrs: Vec<f64>,
    out_dtype: usize,
    expr: E,
    soc: &'static str,
}

const DTYPES: [&str; 3] = ["f16", "bf16", "f32"];

fn desc() -> impl Strategy<Value = Desc> {
    (
        prop::collection::vec(0usize..3, 3),
        prop::collection::vec(any::<bool>(), 3),
        prop_oneof![Just(4usize), Just(8)],
        prop::collection::vec(-4.0f64..4.0, 2),
        0usize..3,
        expr(),
    )
        .prop_map(
            |(dtypes, row_vector, hidden, attrs, out_dtype, expr)| Desc {
                dtypes,
                row_vector,
                hidden,
                attrs,
                out_dtype,
                expr,
                soc: "Ascend910B1",
            },
        )
}

/// How an op is written (everything the key must not see).
struct Style {
    /// Rank of each input (2 for [n, H], 1 for [H]).
    input_ranks: Vec<usize>,
    rng: u64,
    op_name: String,
    dim: String,
    counter: usize,
    statements: Vec<String>,
}

impl Style {
    fn new(seed: u64, input_ranks: Vec<usize>) -> Style {
        let mut s = Style {
            input_ranks,
            rng: seed | 1,
            op_name: String::new(),
            dim: String::new(),
            counter: 0,
            statements: Vec::new(),
        };
        s.op_name = format!("op_{}", s.next() % 1000);
        s.dim = ["n", "rows", "tokens", "batch_x_seq"][s.next() as usize % 4].to_string();
        s
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11
    }

    fn coin(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.next() as usize % options.len()]
    }

    fn space(&mut self) -> &'static str {
        ["", " ", "  ", "\t"][self.next() as usize % 4]
    }

    fn rank(&self, e: &E) -> usize {
        match e {
            E::In(i) => self.input_ranks[*i],
            E::Attr(_) | E::Lit(_) => 0,
            E::Bin(_, a, b) | E::Max(a, b) => self.rank(a).max(self.rank(b)),
            E::Un(_, a) | E::Neg(a) => self.rank(a),
            E::Where(a, b, c) => self.rank(a).max(self.rank(b)).max(self.rank(c)),
            // A scalar operand is multiplied by in0 first (see `render`).
            E::Red(_, a) => match self.rank(a) {
                0 => 2,
                r => r,
            },
        }
    }

    /// Renders `e`, sometimes moving it into an intermediate statement.
    fn render(&mut self, e: &E) -> String {
        let text = match e {
            E::In(i) => format!("in{i}"),
            E::Attr(i) => format!("a{i}"),
            E::Lit(i) => self.pick(LITS[*i]).to_string(),
            E::Bin(o, a, b) => {
                let (a, b) = (self.render(a), self.render(b));
                let sp = self.space();
                format!("({a}){sp}{}{sp}({b})", BIN[*o])
            }
            E::Un(f, a) => {
                let a = self.render(a);
                format!("{}({a})", UN[*f])
            }
            E::Neg(a) => {
                let a = self.render(a);
                if self.coin(50) {
                    format!("-({a})")
                } else {
                    format!("neg({a})")
                }
            }
            E::Max(a, b) => {
                let (a, b) = (self.render(a), self.render(b));
                format!("max({a},{}{b})", self.space())
            }
            E::Where(c, a, b) => {
                let (c, a, b) = (self.render(c), self.render(a), self.render(b));
                format!("where(({c}) > 0, {a}, {b})")
            }
            E::Red(r, a) => {
                let rank = self.rank(a);
                let mut a = self.render(a);
                if rank == 0 {
                    // A scalar has no axis to reduce: make the operand a matrix. This depends
                    // on the description only, so every style does it.
                    a = format!("({a}) * in0");
                }
                let last = (if rank == 0 { 1 } else { rank - 1 }).to_string();
                let axis = if self.coin(50) {
                    "-1".to_string()
                } else {
                    last
                };
                let keep = self.pick(&["true", "True"]);
                let kw = if self.coin(50) {
                    format!("axis={axis}, keepdims={keep}")
                } else {
                    format!("keepdims={keep}, axis={axis}")
                };
                format!("{}({a}, {kw})", RED[*r])
            }
        };
        if matches!(e, E::In(_) | E::Attr(_) | E::Lit(_)) || !self.coin(30) {
            if self.coin(10) {
                return format!("({text})");
            }
            return text;
        }
        self.counter += 1;
        let name = format!("t{}_{}", self.next() % 100, self.counter);
        let (s1, s2) = (self.space(), self.space());
        self.statements.push(format!("{name}{s1} ={s2}{text}"));
        if self.coin(20) {
            // Dead code never reaches an output.
            self.statements
                .push(format!("dead_{} = {name} * 7", self.counter));
        }
        name
    }
}

/// The manifest of `d` written in style `seed`.
fn manifest(d: &Desc, seed: u64) -> String {
    let ranks = (0..3)
        .map(|i| if i > 0 && d.row_vector[i] { 1 } else { 2 })
        .collect();
    let mut st = Style::new(seed, ranks);
    let n = st.dim.clone();
    let body = st.render(&d.expr);
    let mut statements = std::mem::take(&mut st.statements);
    statements.push(format!("y = in0 * ({body})"));
    let mut reference = String::new();
    for s in statements {
        if st.coin(20) {
            reference.push_str("# a comment\n");
        }
        reference.push_str(&s);
        reference.push_str(if st.coin(30) { " ; " } else { "\n" });
    }
    let mut inputs: Vec<String> = (0..3)
        .map(|i| {
            let shape = if i > 0 && d.row_vector[i] {
                format!("[{}]", d.hidden)
            } else {
                format!("[{n},{}{}]", st.space(), d.hidden)
            };
            format!("in{i} = \"{}{shape}\"", DTYPES[d.dtypes[i]])
        })
        .collect();
    let mut attrs: Vec<String> = d
        .attrs
        .iter()
        .enumerate()
        .map(|(i, v)| format!("a{i} = {v:?}"))
        .collect();
    // Reordered tables.
    if st.coin(50) {
        inputs.reverse();
    }
    if st.coin(50) {
        inputs.rotate_left(1);
    }
    if st.coin(50) {
        attrs.reverse();
    }
    let mut fields = vec![
        format!("inputs = {{ {} }}", inputs.join(", ")),
        format!(
            "outputs = {{ y = \"{}[{n}, {}]\" }}",
            DTYPES[d.out_dtype], d.hidden
        ),
        format!("attrs = {{ {} }}", attrs.join(", ")),
        format!("reference = '''\n{reference}'''"),
        format!("shapes = [{{ {n} = 3 }}]"),
    ];
    if st.coin(50) {
        fields.reverse();
    }
    // Verification settings are not part of the key.
    if st.coin(50) {
        fields.push("tolerance = { atol = 0.5 }".into());
    }
    if st.coin(50) {
        fields.push("init = { in0 = \"normal(0, 0.25)\" }".into());
    }
    format!(
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.agenticcann]\nsoc = \"{}\"\n\n[package.metadata.agenticcann.ops.{}]\n{}\n",
        d.soc,
        st.op_name,
        fields.join("\n")
    )
}

fn load(m: &str) -> OpSpec {
    let spec = Spec::from_manifest_str(m, None)
        .unwrap_or_else(|e| panic!("{e}\n--- manifest ---\n{m}"))
        .expect("metadata");
    spec.ops.into_iter().next().expect("one op")
}

fn key(d: &Desc, seed: u64) -> (Key, String) {
    let op = load(&manifest(d, seed));
    (op.key(), canonical_encoding(&op))
}

/// A description that differs from `d` in meaning, by the mutation `kind`.
fn mutate(d: &Desc, kind: usize) -> Desc {
    let mut m = d.clone();
    match kind {
        0 => m.dtypes[0] = (m.dtypes[0] + 1) % 3,
        1 => m.hidden = if m.hidden == 4 { 8 } else { 4 },
        2 => m.attrs[0] = f64::from_bits(m.attrs[0].to_bits() + 1),
        3 => m.expr = E::Bin(0, Box::new(m.expr.clone()), Box::new(E::Lit(0))),
        4 => m.soc = "Ascend310P1",
        5 => m.out_dtype = (m.out_dtype + 1) % 3,
        _ => m.row_vector[1] = !m.row_vector[1],
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn same_meaning_same_key(d in desc(), s1 in any::<u64>(), s2 in any::<u64>()) {
        let (k1, c1) = key(&d, s1);
        let (k2, c2) = key(&d, s2);
        prop_assert_eq!(k1, k2, "\n{}\n---\n{}\n--- manifests ---\n{}\n---\n{}", c1, c2, manifest(&d, s1), manifest(&d, s2));
        // Another SoC of the same arch shares the key.
        let mut b4 = d.clone();
        b4.soc = "Ascend910B4";
        prop_assert_eq!(key(&b4, s1).0, k1);
    }

    #[test]
    fn other_meaning_other_key(d in desc(), kind in 0usize..7, s1 in any::<u64>(), s2 in any::<u64>()) {
        let m = mutate(&d, kind);
        let (k1, _) = key(&d, s1);
        let (k2, c2) = key(&m, s2);
        // Attr values are keyed even when the reference ignores them: they are part of the
        // op's declared interface.
        prop_assert_ne!(k1, k2, "mutation {} left the key unchanged:\n{}", kind, c2);
    }
}

#[test]
fn key_is_stable_for_the_design_example() {
    // The key of DESIGN §3's rms_norm. A change here changes every stored key: bump
    // KEY_FORMAT_VERSION and say so.
    let m = r#"
[package]
name = "k"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.rms_norm]
inputs  = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 1 }]
"#;
    let op = load(m);
    assert_eq!(
        canonical_encoding(&op),
        "agenticcann-key/1\narch dav-c220-vec\ninput gamma f16[4096]\ninput x f16[$0,4096]\noutput y f16[$0,4096]\nattr eps f64:3eb0c6f7a0b5ed8d\n%0 = input x\n%1 = mul %0 %0\n%2 = mean axis=1 keepdims=1 %1\n%3 = attr eps\n%4 = add %2 %3\n%5 = rsqrt %4\n%6 = mul %0 %5\n%7 = input gamma\n%8 = mul %6 %7\nresult y %8\n"
    );
    let k = op.key();
    assert_eq!(k.to_string().parse::<Key>().unwrap(), k);
    assert_eq!(k, Key::of(&op));
}

#[test]
fn specific_equivalences_and_differences() {
    let base = |reference: &str, extra: &str| {
        load(&format!(
            "[package]\nname = \"k\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n[package.metadata.agenticcann.ops.o]\ninputs = {{ x = \"f32[r, 4]\" }}\noutputs = {{ y = \"f32[r, 4]\" }}\nshapes = [{{ r = 1 }}]\n{extra}reference = '''{reference}'''\n"
        ))
        .key()
    };
    let k = base("y = x - max(x, axis=-1, keepdims=true)", "");
    assert_eq!(k, base("y = x - max(x, axis=1, keepdims=true)", ""));
    assert_eq!(k, base("m = max(x, keepdims=true, axis=1)\ny = x - m", ""));
    assert_eq!(
        k,
        base(
            "unused = exp(x)\nm = max(x, axis=-1, keepdims=true)\ny = (x) - (m)",
            ""
        )
    );
    assert_ne!(k, base("y = x - min(x, axis=-1, keepdims=true)", ""));
    assert_ne!(k, base("y = max(x, axis=-1, keepdims=true) - x", ""));
    assert_eq!(base("y = x * 2", ""), base("y = x * 2.0", ""));
    assert_eq!(base("y = -x", ""), base("y = neg(x)", ""));
    assert_ne!(
        base("y = x * 2", ""),
        base("y = x * 2.0000000000000004", "")
    );
    assert_ne!(base("y = x + 0", ""), base("y = x + -0.0", ""));
    // Attr type and value are keyed exactly.
    assert_ne!(
        base("y = x * s", "attrs = { s = 1 }\n"),
        base("y = x * s", "attrs = { s = 1.0 }\n")
    );
    assert_ne!(
        base("y = x * s", "attrs = { s = 0.1 }\n"),
        base("y = x * s", "attrs = { s = 0.1000000000000001 }\n")
    );
    // Casting is meaning.
    assert_ne!(base("y = x", ""), base("y = cast(x, f16)", ""));
}

#[test]
fn long_statement_chains_do_not_overflow_the_stack() {
    // The DAG is as deep as the chain; numbering it must not recurse per level.
    let mut reference = String::from("t0 = x\n");
    for i in 1..5000 {
        reference.push_str(&format!("t{i} = t{} * 1.5 + x\n", i - 1));
    }
    reference.push_str("y = t4999\n");
    let m = format!(
        "[package]\nname = \"k\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n[package.metadata.agenticcann.ops.o]\ninputs = {{ x = \"f32[4]\" }}\noutputs = {{ y = \"f32[4]\" }}\nreference = '''{reference}'''\n"
    );
    let op = load(&m);
    let enc = canonical_encoding(&op);
    assert_eq!(enc.matches(" = mul ").count(), 4999);
    let _ = op.key();
}

#[test]
fn subscripts_are_keyed_by_what_they_select() {
    let base = |reference: &str, y: &str| {
        load(&format!(
            "[package]\nname = \"k\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n[package.metadata.agenticcann.ops.o]\ninputs = {{ x = \"f32[r, 8]\", i = \"i32[r, 1]\" }}\noutputs = {{ y = \"{y}\" }}\nshapes = [{{ r = 1 }}]\nreference = '''{reference}'''\n"
        ))
        .key()
    };
    let half = "f32[r, 4]";
    let k = base("y = x[..., :4] * x[..., 4:]", half);
    for same in [
        "y = x[:, 0:4] * x[:, 4:8]",
        "y = x[:, :-4:1] * x[..., -4:]",
        "y = x[..., -100:4][...] * x[0:, 4:100]",
        "g = x[:, :4]\nu = x[..., 4::1]\ny = g * u",
    ] {
        assert_eq!(k, base(same, half), "{same}");
    }
    assert_ne!(k, base("y = x[..., 4:] * x[..., :4]", half));
    assert_ne!(k, base("y = x[..., ::2] * x[..., 1::2]", half));
    // Taking everything is the operand itself.
    let full = "f32[r, 8]";
    assert_eq!(base("y = x * 2", full), base("y = x[...] * 2", full));
    assert_eq!(base("y = x * 2", full), base("y = x[:, 0:8:1] * 2", full));
    assert_ne!(base("y = x * 2", full), base("y = x[:, ::-1] * 2", full));
    // One element: the step does not matter.
    let one = "f32[r, 1]";
    assert_eq!(base("y = x[:, 3:4]", one), base("y = x[:, -5:-4:7]", one));
    assert_ne!(base("y = x[:, 3:4]", one), base("y = x[:, 4:5]", one));
    // The other new constructs normalize their axes.
    let k = base("y = concat(x[..., 4:], x[..., :4], axis=-1)", full);
    assert_eq!(k, base("y = concat(x[:, 4:], x[:, 0:4], axis=1)", full));
    assert_ne!(k, base("y = concat(x[..., :4], x[..., 4:], axis=1)", full));
    let k = base("y = where(iota(x, axis=-1) > 3, x, 0)", full);
    assert_eq!(k, base("y = where(iota(x, axis=1) > 3, x, 0)", full));
    assert_ne!(k, base("y = where(iota(x, axis=0) > 3, x, 0)", full));
    let k = base("y = argmax(x, axis=-1, keepdims=true)", "i32[r, 1]");
    assert_eq!(k, base("y = argmax(x, keepdims=True, axis=1)", "i32[r, 1]"));
    assert_ne!(
        k,
        base("y = argmin(x, axis=-1, keepdims=true)", "i32[r, 1]")
    );
    let k = base("y = take_along_axis(x, i, axis=-1)", one);
    assert_eq!(k, base("y = take_along_axis(x, i, axis=1)", one));
    assert_ne!(k, base("y = take_along_axis(x, i + 1, axis=1)", one));
}

#[test]
fn encoding_of_the_new_constructs() {
    let m = r#"
[package]
name = "k"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.ce]
inputs  = { x = "f32[rows, 8]", lab = "i32[rows, 1]" }
outputs = { y = "f32[rows, 1]", a = "i32[rows]" }
reference = '''
y = take_along_axis(concat(x[..., 1::2], x[..., 0:1], axis=-1), lab, axis=-1)
a = argmax(x * iota(x, axis=0), axis=-1)
'''
shapes  = [{ rows = 1 }]
"#;
    let op = load(m);
    assert_eq!(
        canonical_encoding(&op),
        "agenticcann-key/1\narch dav-c220-vec\ninput lab i32[$0,1]\ninput x f32[$0,8]\noutput a i32[$0]\noutput y f32[$0,1]\n\
%0 = input x\n%1 = iota axis=0 %0\n%2 = mul %0 %1\n%3 = argmax axis=1 keepdims=0 %2\n\
%4 = subscript [:,1+4*2] %0\n%5 = subscript [:,0+1*1] %0\n%6 = concat axis=1 %4 %5\n%7 = input lab\n\
%8 = take_along_axis axis=1 %6 %7\nresult a %3\nresult y %8\n"
    );
}
