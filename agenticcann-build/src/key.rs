//! Content keys: what identifies an op's kernel in the store (DESIGN §4).
//!
//! A [`Key`] is the blake3 hash of an op's canonical encoding ([`canonical_encoding`]), a
//! line-oriented text that holds, and only holds:
//!
//! 1. the format version ([`KEY_FORMAT_VERSION`]);
//! 2. the target arch (`dav-c220-vec`, …), not the SoC: SoCs of one arch share kernels;
//! 3. inputs, then outputs, each sorted by name, with dtype and shape; named dimensions are
//!    renamed `$0, $1, …` in order of first appearance over that sorted order (the order
//!    of [`OpSpec::named_dims`]), so renaming `rows` to `n` keeps the key;
//! 4. attrs sorted by name, with type and exact value (an f64's bit pattern);
//! 5. the reference as a hash-consed expression DAG reached from the outputs (sorted by
//!    name), numbered in post-order.
//!
//! Left out, so they cannot change a key: the op's name, intermediate names, whitespace,
//! comments, parentheses, statement order and splitting (`t = x*x; y = t+1` ≡
//! `y = x*x + 1`), dead statements, how numbers are spelled (`1e-6` ≡ `0.000001`, `2` ≡
//! `2.0`), keyword order and defaults (`keepdims=false`), negative axes (`axis=-1` ≡ the
//! last axis's index, likewise for `concat`, `iota`, `argmax`/`argmin` and
//! `take_along_axis`), `neg(x)` ≡ `-x`, how a subscript is spelled (it is resolved against its
//! operand's shape to one canonical pick per axis: `x[..., :64]` ≡ `x[:, 0:64:1]` ≡
//! `x[:, :-64]` for a 128-wide `x`, and a subscript that takes everything, `x[...]` or
//! `x[:, 0:128]`, is `x` itself), the order of entries in the `inputs`, `outputs` and
//! `attrs` tables, paths, `shapes`, `tolerance`, `init` and `pattern` (verification
//! settings: the store's manifest records what an entry was verified with).
//!
//! Not normalized: algebra (`a*b` and `b*a` are different keys), names of inputs, outputs
//! and attrs (they are the kernel's parameters).
//!
//! **Input order.** The order of inputs in the manifest is not part of the key: TOML
//! tables are unordered, and reordering `inputs = { x = …, gamma = … }` must not fork the
//! store. Kernels therefore take their GM parameters in the key's own order, inputs then
//! outputs sorted by name ([`OpSpec::kernel_params`]); the generated safe wrapper keeps the
//! manifest order for its Rust arguments and reorders when it launches.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::str::FromStr;

use std::collections::BTreeMap;

use crate::spec::reference::subscript::{template_picks, Pick};
use crate::spec::reference::{
    infer_shapes, normalize_axis, shape_of, ArgOp, BinaryOp, Expr, ExprKind, Func, ReduceOp,
};
use crate::spec::{AttrValue, Dim, OpSpec, ShapeTemplate};

/// The version of the canonical encoding. Bump it whenever the encoding changes meaning;
/// every key changes with it.
pub const KEY_FORMAT_VERSION: u32 = 1;

/// A 32-byte blake3 content key, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key([u8; 32]);

impl Key {
    /// The key of `op`: blake3 of [`canonical_encoding`].
    pub fn of(op: &OpSpec) -> Key {
        Key(*blake3::hash(canonical_encoding(op).as_bytes()).as_bytes())
    }

    /// The key with these raw bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Key {
        Key(bytes)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64-hex-digit form (same as `Display`).
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({self})")
    }
}

/// The error of [`Key::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a key: expected 64 hex digits")]
pub struct KeyParseError(pub String);

impl FromStr for Key {
    type Err = KeyParseError;
    /// Parses 64 hex digits (either case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || KeyParseError(s.chars().take(80).collect());
        let b = s.as_bytes();
        if b.len() != 64 {
            return Err(err());
        }
        let mut out = [0u8; 32];
        for (i, pair) in b.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16).ok_or_else(err)?;
            let lo = (pair[1] as char).to_digit(16).ok_or_else(err)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Ok(Key(out))
    }
}

impl serde::Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A node of the reference DAG: the operation and its operands' node ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Number(u64),
    Input(String),
    /// A name that resolves to nothing: only in hand-built, unvalidated specs.
    Free(String),
    Attr(String),
    Neg(usize),
    Binary(BinaryOp, usize, usize),
    Call(Func, Vec<usize>),
    Cast(&'static str, usize),
    /// Op, normalized axis (`None` = all), keepdims, operand.
    Reduce(ReduceOp, Option<usize>, bool, usize),
    /// Canonical picks (one per axis, not all whole), operand.
    Subscript(Vec<Pick>, usize),
    /// A subscript whose operand's shape is unknown (an unvalidated spec): the items as
    /// written, operand.
    SubscriptRaw(String, usize),
    /// Normalized axis (`None`: out of range), operands.
    Concat(Option<usize>, Vec<usize>),
    /// Normalized axis, operand.
    Iota(Option<usize>, usize),
    /// Op, normalized axis (`None` = all), keepdims, operand.
    ArgReduce(ArgOp, Option<usize>, bool, usize),
    /// Normalized axis, operand, indices.
    Take(Option<usize>, usize, usize),
}

impl Node {
    fn children(&self) -> Vec<usize> {
        match self {
            Node::Number(_) | Node::Input(_) | Node::Attr(_) | Node::Free(_) => vec![],
            Node::Neg(a)
            | Node::Cast(_, a)
            | Node::Reduce(_, _, _, a)
            | Node::Subscript(_, a)
            | Node::SubscriptRaw(_, a)
            | Node::Iota(_, a)
            | Node::ArgReduce(_, _, _, a) => vec![*a],
            Node::Binary(_, a, b) | Node::Take(_, a, b) => vec![*a, *b],
            Node::Call(_, args) | Node::Concat(_, args) => args.clone(),
        }
    }
}

/// Hash-consing builder of the DAG, tracking each node's rank for axis normalization.
struct Dag<'a> {
    nodes: Vec<Node>,
    ranks: Vec<usize>,
    ids: HashMap<Node, usize>,
    names: HashMap<&'a str, usize>,
    /// The shapes of the op's names, when the reference has a subscript and its shapes
    /// infer: what subscripts are resolved against.
    shapes: Option<BTreeMap<String, ShapeTemplate>>,
}

impl<'a> Dag<'a> {
    fn add(&mut self, node: Node, rank: usize) -> usize {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(node.clone());
        self.ranks.push(rank);
        self.ids.insert(node, id);
        id
    }

    /// Recursion depth is bounded by the parser's `MAX_DEPTH`: names resolve to ids of
    /// earlier statements instead of being walked again.
    fn expr(&mut self, e: &'a Expr) -> usize {
        match &e.kind {
            ExprKind::Number(v) => self.add(Node::Number(v.to_bits()), 0),
            ExprKind::Name(n) => match self.names.get(n.as_str()) {
                Some(&id) => id,
                None => self.add(Node::Free(n.clone()), 0),
            },
            ExprKind::Neg(x) => {
                let a = self.expr(x);
                let r = self.ranks[a];
                self.add(Node::Neg(a), r)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs), self.expr(rhs));
                let r = self.ranks[a].max(self.ranks[b]);
                self.add(Node::Binary(*op, a, b), r)
            }
            ExprKind::Call { func, args } => {
                let ids: Vec<usize> = args.iter().map(|a| self.expr(a)).collect();
                let r = ids.iter().map(|&i| self.ranks[i]).max().unwrap_or(0);
                self.add(Node::Call(*func, ids), r)
            }
            ExprKind::Cast { operand, dtype } => {
                let a = self.expr(operand);
                let r = self.ranks[a];
                self.add(Node::Cast(dtype.as_str(), a), r)
            }
            ExprKind::Reduce {
                op,
                operand,
                axis,
                keepdims,
            } => {
                let a = self.expr(operand);
                let (axis, r) = reduced(self.ranks[a], *axis, *keepdims);
                self.add(Node::Reduce(*op, axis, *keepdims, a), r)
            }
            ExprKind::ArgReduce {
                op,
                operand,
                axis,
                keepdims,
            } => {
                let a = self.expr(operand);
                let (axis, r) = reduced(self.ranks[a], *axis, *keepdims);
                self.add(Node::ArgReduce(*op, axis, *keepdims, a), r)
            }
            ExprKind::Subscript { operand, items } => {
                let a = self.expr(operand);
                let picks = self
                    .shapes
                    .as_ref()
                    .and_then(|m| shape_of(operand, m).ok())
                    .and_then(|shape| template_picks(items, &shape).ok());
                match picks {
                    Some(p) if p.iter().all(|p| *p == Pick::Whole) => a,
                    Some(p) => {
                        let r = p.iter().filter(|p| !matches!(p, Pick::Index(_))).count();
                        self.add(Node::Subscript(p, a), r)
                    }
                    None => {
                        let dropped = items
                            .iter()
                            .filter(|i| {
                                matches!(i, crate::spec::reference::SubscriptItem::Index(_))
                            })
                            .count();
                        let text: Vec<String> = items.iter().map(|i| i.to_string()).collect();
                        let r = self.ranks[a].saturating_sub(dropped);
                        self.add(Node::SubscriptRaw(text.join(","), a), r)
                    }
                }
            }
            ExprKind::Concat { operands, axis } => {
                let ids: Vec<usize> = operands.iter().map(|a| self.expr(a)).collect();
                let r = ids.iter().map(|&i| self.ranks[i]).max().unwrap_or(0);
                let axis = normalize_axis(*axis, r);
                self.add(Node::Concat(axis, ids), r)
            }
            ExprKind::Iota { operand, axis } => {
                let a = self.expr(operand);
                let r = self.ranks[a];
                self.add(Node::Iota(normalize_axis(*axis, r), a), r)
            }
            ExprKind::TakeAlongAxis {
                operand,
                indices,
                axis,
            } => {
                let (a, b) = (self.expr(operand), self.expr(indices));
                let r = self.ranks[a].max(self.ranks[b]);
                self.add(Node::Take(normalize_axis(*axis, r), a, b), r)
            }
        }
    }
}

/// How a canonical pick reads in the encoding: `:`, an index, `first+count*step`.
/// A reduction over `axis` (as written; `None` reduces every axis) of a rank-`rank`
/// operand: the normalized axis and the result's rank.
fn reduced(rank: usize, axis: Option<i64>, keepdims: bool) -> (Option<usize>, usize) {
    let axis = axis.and_then(|x| normalize_axis(x, rank));
    let r = match (axis, keepdims) {
        (_, true) => rank,
        (None, false) => 0,
        (Some(_), false) => rank.saturating_sub(1),
    };
    (axis, r)
}

fn pick_text(p: &Pick) -> String {
    match p {
        Pick::Whole => ":".to_string(),
        Pick::Index(i) => i.to_string(),
        Pick::Range { first, count, step } => format!("{first}+{count}*{step}"),
    }
}

fn axis_text(axis: Option<usize>) -> String {
    axis.map_or("all".to_string(), |k| k.to_string())
}

fn write_shape(out: &mut String, shape: &ShapeTemplate, dims: &[String]) {
    out.push('[');
    for (i, d) in shape.dims.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match d {
            Dim::Fixed(n) => write!(out, "{n}").expect("write to String"),
            Dim::Named(n) => match dims.iter().position(|x| x == n) {
                Some(pos) => write!(out, "${pos}").expect("write to String"),
                None => write!(out, "${n}").expect("write to String"),
            },
        }
    }
    out.push(']');
}

/// The canonical text whose blake3 hash is the op's [`Key`] (see the module docs for what
/// it holds). Stable for a given [`KEY_FORMAT_VERSION`]; useful to see why two keys differ.
pub fn canonical_encoding(op: &OpSpec) -> String {
    let mut out = String::new();
    let w = &mut out;
    writeln!(w, "agenticcann-key/{KEY_FORMAT_VERSION}").expect("write to String");
    writeln!(w, "arch {}", op.arch().as_str()).expect("write to String");
    let dims = op.named_dims();
    for p in op.kernel_params() {
        let role = match p.role {
            crate::spec::ParamRole::Input => "input",
            crate::spec::ParamRole::Output => "output",
        };
        write!(w, "{role} {} {}", p.name, p.decl.dtype).expect("write to String");
        write_shape(w, &p.decl.shape, &dims);
        w.push('\n');
    }
    let mut attrs: Vec<_> = op.attrs.iter().collect();
    attrs.sort_by(|a, b| a.name.cmp(&b.name));
    for a in attrs {
        let v = match a.value {
            AttrValue::Float(x) => format!("f64:{:016x}", x.to_bits()),
            AttrValue::Int(i) => format!("i64:{i}"),
            AttrValue::Bool(b) => format!("bool:{b}"),
        };
        writeln!(w, "attr {} {v}", a.name).expect("write to String");
    }

    // Build the DAG statement by statement.
    // Subscripts are resolved against their operands' shapes; references without one do not
    // infer shapes here.
    let shapes = op
        .reference
        .any_node(|e| matches!(e.kind, ExprKind::Subscript { .. }))
        .then(|| {
            let ins: Vec<(&str, &ShapeTemplate)> = op
                .inputs
                .iter()
                .map(|i| (i.name.as_str(), &i.decl.shape))
                .collect();
            let attrs: Vec<&str> = op.attrs.iter().map(|a| a.name.as_str()).collect();
            infer_shapes(&op.reference, &ins, &attrs).ok()
        })
        .flatten();
    let mut dag = Dag {
        nodes: Vec::new(),
        ranks: Vec::new(),
        ids: HashMap::new(),
        names: HashMap::new(),
        shapes,
    };
    for i in &op.inputs {
        let id = dag.add(Node::Input(i.name.clone()), i.decl.shape.rank());
        dag.names.insert(&i.name, id);
    }
    for a in &op.attrs {
        let id = dag.add(Node::Attr(a.name.clone()), 0);
        dag.names.insert(&a.name, id);
    }
    for st in &op.reference.statements {
        let id = dag.expr(&st.value);
        dag.names.insert(&st.target.name, id);
    }

    // Number the nodes reachable from the outputs in post-order, outputs by name, operands
    // left to right (iteratively: the DAG can be deeper than any one statement).
    let mut outputs: Vec<&str> = op.outputs.iter().map(|o| o.name.as_str()).collect();
    outputs.sort_unstable();
    let mut canon: Vec<Option<usize>> = vec![None; dag.nodes.len()];
    let mut next = 0usize;
    let mut lines = String::new();
    for name in &outputs {
        let Some(&root) = dag.names.get(name) else {
            continue;
        };
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some((node, child)) = stack.pop() {
            if canon[node].is_some() {
                continue;
            }
            let children = dag.nodes[node].children();
            if child < children.len() {
                stack.push((node, child + 1));
                if canon[children[child]].is_none() {
                    stack.push((children[child], 0));
                }
                continue;
            }
            canon[node] = Some(next);
            let c = |i: usize| canon[i].expect("operands numbered first");
            let text = match &dag.nodes[node] {
                Node::Number(bits) => format!("num {bits:016x}"),
                Node::Input(n) => format!("input {n}"),
                Node::Free(n) => format!("free {n}"),
                Node::Attr(n) => format!("attr {n}"),
                Node::Neg(a) => format!("neg %{}", c(*a)),
                Node::Binary(op, a, b) => format!("{} %{} %{}", binary_name(*op), c(*a), c(*b)),
                Node::Call(f, args) => {
                    let a: Vec<String> = args.iter().map(|&i| format!("%{}", c(i))).collect();
                    format!("{} {}", f.name(), a.join(" "))
                }
                Node::Cast(d, a) => format!("cast {d} %{}", c(*a)),
                Node::Reduce(op, axis, keep, a) => format!(
                    "{} axis={} keepdims={} %{}",
                    op.name(),
                    axis.map_or("all".to_string(), |k| k.to_string()),
                    u8::from(*keep),
                    c(*a)
                ),
                Node::Subscript(picks, a) => {
                    let p: Vec<String> = picks.iter().map(pick_text).collect();
                    format!("subscript [{}] %{}", p.join(","), c(*a))
                }
                Node::SubscriptRaw(items, a) => {
                    format!("subscript-as-written [{items}] %{}", c(*a))
                }
                Node::Concat(axis, args) => {
                    let a: Vec<String> = args.iter().map(|&i| format!("%{}", c(i))).collect();
                    format!("concat axis={} {}", axis_text(*axis), a.join(" "))
                }
                Node::Iota(axis, a) => format!("iota axis={} %{}", axis_text(*axis), c(*a)),
                Node::ArgReduce(op, axis, keep, a) => format!(
                    "{} axis={} keepdims={} %{}",
                    op.name(),
                    axis_text(*axis),
                    u8::from(*keep),
                    c(*a)
                ),
                Node::Take(axis, a, b) => format!(
                    "take_along_axis axis={} %{} %{}",
                    axis_text(*axis),
                    c(*a),
                    c(*b)
                ),
            };
            writeln!(lines, "%{next} = {text}").expect("write to String");
            next += 1;
        }
    }
    out.push_str(&lines);
    for name in &outputs {
        if let Some(id) = dag.names.get(name).and_then(|&i| canon[i]) {
            writeln!(out, "result {name} %{id}").expect("write to String");
        }
    }
    out
}

fn binary_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::Pow => "pow",
        BinaryOp::Lt => "lt",
        BinaryOp::Le => "le",
        BinaryOp::Gt => "gt",
        BinaryOp::Ge => "ge",
        BinaryOp::Eq => "eq",
        BinaryOp::Ne => "ne",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_as_hex_string() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Entry {
            key: Key,
        }
        let e = Entry {
            key: Key::from_bytes([7; 32]),
        };
        let text = toml::to_string(&e).unwrap();
        assert_eq!(text, format!("key = \"{}\"\n", "07".repeat(32)));
        assert_eq!(toml::from_str::<Entry>(&text).unwrap(), e);
        assert!(toml::from_str::<Entry>("key = \"zz\"").is_err());
    }

    #[test]
    fn hex_round_trip_and_errors() {
        let k = Key::from_bytes([0xab; 32]);
        let s = k.to_string();
        assert_eq!(s.len(), 64);
        assert_eq!(s.parse::<Key>().unwrap(), k);
        assert_eq!(s.to_uppercase().parse::<Key>().unwrap(), k);
        for bad in [
            "",
            "ab",
            &"g".repeat(64),
            &"a".repeat(63),
            &"a".repeat(65),
            &"é".repeat(32),
        ] {
            assert!(bad.parse::<Key>().is_err(), "{bad}");
        }
    }
}
