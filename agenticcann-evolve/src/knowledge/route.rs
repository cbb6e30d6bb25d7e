//! The pattern router: which compute pattern an op is, from its reference AST and declared
//! shapes. A spec's `pattern` field overrides it.
//!
//! Rules, first match wins (the same order as `knowledge/patterns.toml`):
//!
//! 1. **declared** — the spec's `pattern` field.
//! 2. **fusion** — several outputs.
//! 3. **reduction** — the output has fewer elements than an input: its non-1 dimensions are a
//!    strict sub-multiset of the input's (`[rows]` or `[rows, 1]` from `[rows, 4096]`).
//! 4. **softmax** — a last-axis row sum of `exp(… − row max …)`: `exp` of values minus a
//!    last-axis `max` reduction, summed over the last axis (softmax, log_softmax, scaled
//!    and masked softmax; the output keeps the row shape because of rule 3).
//! 5. **normalization** — every reduction is over the last axis of an operand with the
//!    output's shape (the row statistic is broadcast back over the same rows), and no
//!    activation (`exp log tanh erf sigmoid`) follows; otherwise **fusion** (a reduction
//!    chained with another pattern).
//! 6. No reduction: **elementwise** when every input has the output's shape; else a
//!    **broadcast** (an input of lower rank or with size-1 axes), or **fusion** when the
//!    broadcast is chained with an activation (`exp log tanh erf sigmoid`).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use agenticcann_build::spec::reference::{
    infer_shapes, normalize_axis, shape_of, BinaryOp, Expr, ExprKind, Func, ReduceOp,
};
use agenticcann_build::spec::{Dim, OpSpec, Pattern, ShapeTemplate};

/// Which rule decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The spec's `pattern` field.
    Declared,
    /// More than one output.
    SeveralOutputs,
    /// The output has fewer elements than an input.
    FewerElements,
    /// Row max, shifted exp, row sum.
    SoftmaxStructure,
    /// Last-axis reductions broadcast back over the rows.
    RowStatistics,
    /// Reductions chained with another pattern (not last-axis, or followed by an activation).
    ReductionChain,
    /// A broadcast chained with an activation.
    BroadcastChain,
    /// Inputs of lower rank or with size-1 axes.
    BroadcastInputs,
    /// Every input has the output's shape.
    SameShapes,
}

/// The router's decision and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routing {
    /// The pattern.
    pub pattern: Pattern,
    /// The rule that decided.
    pub rule: Rule,
    /// The reason in words, naming the tensors or functions involved.
    pub reason: String,
}

impl fmt::Display for Routing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.pattern, self.reason)
    }
}

/// The op's pattern: its declared `pattern`, else [`route_reference`].
pub fn route(op: &OpSpec) -> Pattern {
    explain(op).pattern
}

/// [`route`] with the rule and reason.
pub fn explain(op: &OpSpec) -> Routing {
    match op.pattern {
        Some(p) => Routing {
            pattern: p,
            rule: Rule::Declared,
            reason: "declared by the spec's `pattern` field".to_string(),
        },
        None => route_reference(op),
    }
}

/// The pattern from the reference and shapes alone, ignoring a declared `pattern`.
pub fn route_reference(op: &OpSpec) -> Routing {
    let r = |pattern, rule, reason: String| Routing {
        pattern,
        rule,
        reason,
    };
    if op.outputs.len() > 1 {
        let names: Vec<String> = op.outputs.iter().map(|o| format!("`{}`", o.name)).collect();
        return r(
            Pattern::Fusion,
            Rule::SeveralOutputs,
            format!("{} outputs ({})", op.outputs.len(), names.join(", ")),
        );
    }
    let Some(out) = op.outputs.first() else {
        return r(
            Pattern::Fusion,
            Rule::SeveralOutputs,
            "no output".to_string(),
        );
    };
    let oshape = &out.decl.shape;
    let inputs: Vec<(&str, &ShapeTemplate)> = op
        .inputs
        .iter()
        .map(|i| (i.name.as_str(), &i.decl.shape))
        .collect();
    let attrs: Vec<&str> = op.attrs.iter().map(|a| a.name.as_str()).collect();
    let names = match infer_shapes(&op.reference, &inputs, &attrs) {
        Ok(n) => n,
        // Only for hand-built, unvalidated specs.
        Err(_) => {
            return r(
                Pattern::Fusion,
                Rule::ReductionChain,
                "the reference does not type-check".to_string(),
            )
        }
    };
    let activation = first_activation(op);
    let reduces = reductions(op, &names);
    if reduces.is_empty() {
        let broadcast: Vec<String> = op
            .inputs
            .iter()
            .filter(|i| &i.decl.shape != oshape)
            .map(|i| format!("`{}` {}", i.name, i.decl.shape))
            .collect();
        if broadcast.is_empty() {
            return r(
                Pattern::Elementwise,
                Rule::SameShapes,
                format!("no reduction; every input has the output's shape {oshape}"),
            );
        }
        return match activation {
            Some(f) => r(
                Pattern::Fusion,
                Rule::BroadcastChain,
                format!(
                    "{} broadcast to {oshape}, chained with the activation `{}`",
                    broadcast.join(", "),
                    f.name()
                ),
            ),
            None => r(
                Pattern::Broadcast,
                Rule::BroadcastInputs,
                format!(
                    "no reduction; {} broadcast to the output's {oshape}",
                    broadcast.join(", ")
                ),
            ),
        };
    }
    if let Some(i) = op
        .inputs
        .iter()
        .find(|i| strictly_fewer(oshape, &i.decl.shape))
    {
        return r(
            Pattern::Reduction,
            Rule::FewerElements,
            format!(
                "output `{}` {oshape} has fewer elements than input `{}` {}",
                out.name, i.name, i.decl.shape
            ),
        );
    }
    if softmax_structure(op, &names) {
        return r(
            Pattern::Softmax,
            Rule::SoftmaxStructure,
            "exp of values minus their row max, summed over the row".to_string(),
        );
    }
    let not_rows: Vec<&Reduction> = reduces
        .iter()
        .filter(|x| !x.last_axis || &x.operand_shape != oshape)
        .collect();
    if let Some(x) = not_rows.first() {
        return r(
            Pattern::Fusion,
            Rule::ReductionChain,
            format!(
                "`{}` over {} is not a last-axis statistic of rows shaped like the output",
                x.op.name(),
                x.operand_shape
            ),
        );
    }
    if let Some(f) = activation {
        return r(
            Pattern::Fusion,
            Rule::ReductionChain,
            format!("row statistics chained with the activation `{}`", f.name()),
        );
    }
    let ops: Vec<&str> = reduces.iter().map(|x| x.op.name()).collect();
    r(
        Pattern::Normalization,
        Rule::RowStatistics,
        format!(
            "last-axis {} broadcast back over rows shaped {oshape}",
            ops.join(", ")
        ),
    )
}

/// One reduction node.
struct Reduction {
    op: ReduceOp,
    last_axis: bool,
    operand_shape: ShapeTemplate,
}

fn reductions(op: &OpSpec, names: &BTreeMap<String, ShapeTemplate>) -> Vec<Reduction> {
    let mut out = Vec::new();
    for s in &op.reference.statements {
        s.value.walk(&mut |e| {
            if let ExprKind::Reduce {
                op: rop,
                operand,
                axis,
                ..
            } = &e.kind
            {
                let shape = shape_of(operand, names).unwrap_or_default();
                out.push(Reduction {
                    op: *rop,
                    last_axis: is_last_axis(*axis, shape.rank()),
                    operand_shape: shape,
                });
            }
        });
    }
    out
}

fn is_last_axis(axis: Option<i64>, rank: usize) -> bool {
    match axis {
        None => rank <= 1,
        Some(a) => normalize_axis(a, rank).is_some_and(|i| i + 1 == rank),
    }
}

/// The first `exp log tanh erf sigmoid` call, in source order.
fn first_activation(op: &OpSpec) -> Option<Func> {
    let mut found = None;
    op.reference.any_node(|e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            if found.is_none()
                && matches!(
                    func,
                    Func::Exp | Func::Log | Func::Tanh | Func::Erf | Func::Sigmoid
                )
            {
                found = Some(*func);
            }
        }
        false
    });
    found
}

/// True when the non-1 dimensions of `a` are a strict sub-multiset of those of `b`.
fn strictly_fewer(a: &ShapeTemplate, b: &ShapeTemplate) -> bool {
    let mut rest: Vec<&Dim> = b.dims.iter().filter(|d| **d != Dim::Fixed(1)).collect();
    for d in a.dims.iter().filter(|d| **d != Dim::Fixed(1)) {
        match rest.iter().position(|x| *x == d) {
            Some(i) => {
                rest.remove(i);
            }
            None => return false,
        }
    }
    !rest.is_empty()
}

const ROW_MAX: u8 = 1;
const SHIFT: u8 = 2;
const SHIFTED_EXP: u8 = 4;
const SOFTMAX_SUM: u8 = 8;

/// True when some last-axis `sum` reduces `exp(… - <last-axis max> …)`. One bottom-up pass:
/// each statement's facts are computed once and looked up where its name is used.
fn softmax_structure(op: &OpSpec, names: &BTreeMap<String, ShapeTemplate>) -> bool {
    let mut facts: HashMap<&str, u8> = HashMap::new();
    let mut any = 0u8;
    for s in &op.reference.statements {
        let f = expr_facts(&s.value, &facts, names);
        any |= f;
        facts.insert(s.target.name.as_str(), f);
    }
    any & SOFTMAX_SUM != 0
}

fn expr_facts(e: &Expr, facts: &HashMap<&str, u8>, names: &BTreeMap<String, ShapeTemplate>) -> u8 {
    let each: Vec<u8> = e
        .children()
        .iter()
        .map(|c| expr_facts(c, facts, names))
        .collect();
    let children = each.iter().fold(0, |acc, f| acc | f);
    match &e.kind {
        ExprKind::Name(n) => facts.get(n.as_str()).copied().unwrap_or(0),
        // children = [lhs, rhs]
        ExprKind::Binary {
            op: BinaryOp::Sub, ..
        } if each[1] & ROW_MAX != 0 => children | SHIFT,
        ExprKind::Call {
            func: Func::Exp, ..
        } if children & SHIFT != 0 => children | SHIFTED_EXP,
        ExprKind::Reduce {
            op, operand, axis, ..
        } => {
            let rank = shape_of(operand, names).map(|s| s.rank()).unwrap_or(0);
            let last = is_last_axis(*axis, rank);
            match op {
                ReduceOp::Max if last => children | ROW_MAX,
                ReduceOp::Sum if last && children & SHIFTED_EXP != 0 => children | SOFTMAX_SUM,
                _ => children,
            }
        }
        _ => children,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenticcann_build::spec::Spec;

    /// The op `t` declared by the TOML fragment `op` (inside `[package.metadata.agenticcann.ops.t]`).
    fn op(fragment: &str) -> OpSpec {
        let manifest = format!(
            "[package]\nname = \"t\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n\
             [package.metadata.agenticcann.ops.t]\n{fragment}"
        );
        let spec = Spec::from_manifest_str(&manifest, None).unwrap().unwrap();
        spec.ops.into_iter().next().unwrap()
    }

    fn routed(fragment: &str) -> (Pattern, Rule) {
        let r = explain(&op(fragment));
        (r.pattern, r.rule)
    }

    #[test]
    fn elementwise_and_broadcast() {
        assert_eq!(
            routed("inputs = { x = \"f16[n]\" }\noutputs = { y = \"f16[n]\" }\nreference = \"y = tanh(x) * 2\"\nshapes = [{ n = 4 }]"),
            (Pattern::Elementwise, Rule::SameShapes)
        );
        // A size-1 axis and a lower rank both broadcast.
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\", s = \"f32[r, 1]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = x * s\"\nshapes = [{ r = 2 }]"),
            (Pattern::Broadcast, Rule::BroadcastInputs)
        );
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\", b = \"f32[8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = max(x + b, 0)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Broadcast, Rule::BroadcastInputs)
        );
        // A broadcast chained with an activation is a fusion.
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\", b = \"f32[8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = sigmoid(x + b)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Fusion, Rule::BroadcastChain)
        );
    }

    #[test]
    fn reductions() {
        // Over the last axis, keepdims or not, and over a leading axis.
        for reference in ["y = sum(x, axis=-1)", "y = min(x, axis=1)"] {
            assert_eq!(
                routed(&format!("inputs = {{ x = \"f32[r, 8]\" }}\noutputs = {{ y = \"f32[r]\" }}\nreference = \"{reference}\"\nshapes = [{{ r = 2 }}]")),
                (Pattern::Reduction, Rule::FewerElements)
            );
        }
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[8]\" }\nreference = \"y = mean(x, axis=0)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Reduction, Rule::FewerElements)
        );
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[]\" }\nreference = \"y = sum(x)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Reduction, Rule::FewerElements)
        );
    }

    #[test]
    fn softmax_forms() {
        let softmax = "m = max(x, axis=-1, keepdims=true)\ne = exp(x - m)\ny = e / sum(e, axis=-1, keepdims=true)";
        assert_eq!(
            routed(&format!("inputs = {{ x = \"f32[r, 8]\" }}\noutputs = {{ y = \"f32[r, 8]\" }}\nreference = '''\n{softmax}\n'''\nshapes = [{{ r = 2 }}]")),
            (Pattern::Softmax, Rule::SoftmaxStructure)
        );
        // Rank 1 with an all-axes max and sum; written as one expression.
        assert_eq!(
            routed("inputs = { x = \"f32[n]\" }\noutputs = { y = \"f32[n]\" }\nreference = \"y = exp(x - max(x)) / sum(exp(x - max(x)))\"\nshapes = [{ n = 8 }]"),
            (Pattern::Softmax, Rule::SoftmaxStructure)
        );
        // Over the leading axis it is not a row softmax.
        let (p, _) = routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = exp(x - max(x, axis=0, keepdims=true)) / sum(exp(x - max(x, axis=0, keepdims=true)), axis=0, keepdims=true)\"\nshapes = [{ r = 2 }]");
        assert_eq!(p, Pattern::Fusion);
        // exp without the max subtraction is not softmax: a row statistic with an activation.
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = exp(x) / sum(exp(x), axis=-1, keepdims=true)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Fusion, Rule::ReductionChain)
        );
    }

    #[test]
    fn normalization_and_its_fusions() {
        let rms = "inputs = { x = \"f32[r, 8]\", g = \"f32[8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + 1e-6) * g\"\nshapes = [{ r = 2 }]";
        assert_eq!(routed(rms), (Pattern::Normalization, Rule::RowStatistics));
        // Centering by a column mean is a reduction over another axis fed back: fusion.
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = x - mean(x, axis=0, keepdims=true)\"\nshapes = [{ r = 2 }]"),
            (Pattern::Fusion, Rule::ReductionChain)
        );
        // A norm followed by an activation.
        assert_eq!(
            routed("inputs = { x = \"f32[r, 8]\" }\noutputs = { y = \"f32[r, 8]\" }\nreference = \"y = tanh(x * rsqrt(mean(x * x, axis=-1, keepdims=true) + 1e-6))\"\nshapes = [{ r = 2 }]"),
            (Pattern::Fusion, Rule::ReductionChain)
        );
        // Several outputs, and the declared pattern wins over the structure.
        let two = "inputs = { x = \"f32[r, 8]\" }\noutputs = { h = \"f32[r, 8]\", y = \"f32[r, 8]\" }\nreference = \"h = x * 2; y = h * rsqrt(mean(h * h, axis=-1, keepdims=true) + 1e-6)\"\nshapes = [{ r = 2 }]";
        assert_eq!(routed(two), (Pattern::Fusion, Rule::SeveralOutputs));
        let declared = op(&format!("{two}\npattern = \"normalization\""));
        assert_eq!(explain(&declared).rule, Rule::Declared);
        assert_eq!(route(&declared), Pattern::Normalization);
        assert_eq!(route_reference(&declared).pattern, Pattern::Fusion);
    }

    #[test]
    fn strictly_fewer_compares_dimension_multisets() {
        let t = |dims: &[&str]| {
            ShapeTemplate::new(
                dims.iter()
                    .map(|d| {
                        d.parse::<usize>()
                            .map(Dim::Fixed)
                            .unwrap_or_else(|_| Dim::Named(d.to_string()))
                    })
                    .collect(),
            )
        };
        assert!(strictly_fewer(&t(&["r", "1"]), &t(&["r", "8"])));
        assert!(strictly_fewer(&t(&[]), &t(&["8"])));
        assert!(!strictly_fewer(&t(&["r", "8"]), &t(&["r", "8"])));
        assert!(!strictly_fewer(&t(&["8"]), &t(&["r", "4"])));
        assert!(!strictly_fewer(&t(&["1"]), &t(&["1", "1"])));
    }
}
