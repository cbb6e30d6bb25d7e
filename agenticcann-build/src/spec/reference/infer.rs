//! Name resolution and symbolic shape inference over [`ShapeTemplate`]s.
//!
//! Broadcasting follows numpy: shapes align at their last axis; two dimensions agree when
//! they are equal or one of them is the fixed size 1; the missing leading axes of the
//! shorter shape count as 1. Named dimensions are symbols: `rows` agrees only with `rows`
//! and with 1, never with a fixed size or another name, because a launch may bind them to
//! any size.

use std::collections::{BTreeMap, HashMap};

use super::ast::{is_reserved, Expr, ExprKind, Statement};
use super::error::{ReferenceError, ReferenceErrorKind, Span};
use super::Reference;
use crate::spec::shape::{Dim, ShapeTemplate};

/// What a name in scope is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Input,
    Attr,
    /// Assigned by the statement with this index.
    Statement(usize),
}

/// Resolves every name of `reference` and infers the shape of every statement's target.
///
/// `inputs` are the input tensors and their declared shapes; `attrs` the names of the
/// attrs, which are scalars (shape `[]`). Returns the shapes of inputs, attrs and every
/// assigned name.
///
/// # Errors
/// Every problem found, in source order: undefined names (including use before
/// assignment), targets that are inputs, attrs, reserved words or already assigned,
/// operands that do not broadcast, and reduction axes outside `-rank..rank`. A statement
/// with an error does not cause follow-up errors where its target is used.
pub fn infer_shapes(
    reference: &Reference,
    inputs: &[(&str, &ShapeTemplate)],
    attrs: &[&str],
) -> Result<BTreeMap<String, ShapeTemplate>, Vec<ReferenceError>> {
    let mut scope: HashMap<String, (Origin, Option<ShapeTemplate>)> = HashMap::new();
    for (name, shape) in inputs {
        scope.insert(name.to_string(), (Origin::Input, Some((*shape).clone())));
    }
    for name in attrs {
        scope.insert(
            name.to_string(),
            (Origin::Attr, Some(ShapeTemplate::default())),
        );
    }
    let targets: HashMap<&str, usize> = reference
        .statements
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (s.target.name.as_str(), i))
        .collect();
    let mut errors = Vec::new();
    for (index, st) in reference.statements.iter().enumerate() {
        let shape = match infer_expr(&st.value, &scope, &targets, index) {
            Ok(s) => s,
            Err(e) => {
                errors.push(e);
                None
            }
        };
        if let Err(e) = check_target(st, index, &scope, &reference.statements) {
            errors.push(e);
            continue;
        }
        scope.insert(st.target.name.clone(), (Origin::Statement(index), shape));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(scope
        .into_iter()
        .map(|(k, (_, s))| (k, s.expect("no errors, so every shape is known")))
        .collect())
}

fn check_target(
    st: &Statement,
    index: usize,
    scope: &HashMap<String, (Origin, Option<ShapeTemplate>)>,
    statements: &[Statement],
) -> Result<(), ReferenceError> {
    let name = &st.target.name;
    let dup =
        |msg: String| ReferenceError::new(ReferenceErrorKind::DuplicateName, st.target.span, msg);
    if is_reserved(name) {
        return Err(dup(format!(
            "`{name}` is a reserved word and cannot be assigned"
        )));
    }
    match scope.get(name) {
        Some((Origin::Input, _)) => Err(dup(format!(
            "`{name}` is an input and cannot be assigned; use a new name"
        ))),
        Some((Origin::Attr, _)) => Err(dup(format!(
            "`{name}` is an attr and cannot be assigned; use a new name"
        ))),
        Some((Origin::Statement(first), _)) if *first != index => Err(dup(format!(
            "`{name}` is assigned twice (first by `{}`); every name is assigned once",
            statements[*first]
        ))),
        _ => Ok(()),
    }
}

/// Infers the shape of `e`; `Ok(None)` when it depends on a statement that failed.
fn infer_expr(
    e: &Expr,
    scope: &HashMap<String, (Origin, Option<ShapeTemplate>)>,
    targets: &HashMap<&str, usize>,
    current: usize,
) -> Result<Option<ShapeTemplate>, ReferenceError> {
    let rec = |x: &Expr| infer_expr(x, scope, targets, current);
    Ok(match &e.kind {
        ExprKind::Number(_) => Some(ShapeTemplate::default()),
        ExprKind::Name(name) => match scope.get(name) {
            Some((_, shape)) => shape.clone(),
            None => return Err(undefined(name, e.span, targets, current)),
        },
        ExprKind::Neg(x) | ExprKind::Cast { operand: x, .. } => rec(x)?,
        ExprKind::Binary { lhs, rhs, .. } => {
            let (l, r) = (rec(lhs)?, rec(rhs)?);
            match (l, r) {
                (Some(l), Some(r)) => Some(broadcast(&[&l, &r], e.span)?),
                _ => None,
            }
        }
        ExprKind::Call { func, args } => {
            let mut shapes = Vec::with_capacity(args.len());
            for a in args {
                shapes.push(rec(a)?);
            }
            if shapes.iter().any(Option::is_none) {
                None
            } else {
                let shapes: Vec<ShapeTemplate> = shapes.into_iter().flatten().collect();
                let refs: Vec<&ShapeTemplate> = shapes.iter().collect();
                debug_assert_eq!(refs.len(), func.arity());
                Some(broadcast(&refs, e.span)?)
            }
        }
        ExprKind::Reduce {
            operand,
            axis,
            keepdims,
            op,
        } => match rec(operand)? {
            None => None,
            Some(shape) => {
                let rank = shape.rank();
                match axis {
                    None => Some(ShapeTemplate::new(if *keepdims {
                        vec![Dim::Fixed(1); rank]
                    } else {
                        vec![]
                    })),
                    Some(a) => {
                        let k = normalize_axis(*a, rank).ok_or_else(|| {
                            ReferenceError::new(
                                ReferenceErrorKind::Axis,
                                e.span,
                                if rank == 0 {
                                    format!(
                                        "`{}` over axis {a} of a scalar: a scalar has no axes",
                                        op.name()
                                    )
                                } else {
                                    format!(
                                        "axis {a} is out of range for `{}` of rank {rank} {shape} (valid: {}..={})",
                                        op.name(),
                                        -(rank as i64),
                                        rank as i64 - 1
                                    )
                                },
                            )
                        })?;
                        let mut dims = shape.dims;
                        if *keepdims {
                            dims[k] = Dim::Fixed(1);
                        } else {
                            dims.remove(k);
                        }
                        Some(ShapeTemplate::new(dims))
                    }
                }
            }
        },
    })
}

/// The shape of one expression given the shapes of the names it uses (as returned by
/// [`infer_shapes`]): for walking a reference node by node, e.g. to lower it.
///
/// # Errors
/// As [`infer_shapes`] for this expression: undefined names, operands that do not
/// broadcast, bad axes.
pub fn shape_of(
    expr: &Expr,
    names: &BTreeMap<String, ShapeTemplate>,
) -> Result<ShapeTemplate, ReferenceError> {
    let scope: HashMap<String, (Origin, Option<ShapeTemplate>)> = names
        .iter()
        .map(|(k, v)| (k.clone(), (Origin::Input, Some(v.clone()))))
        .collect();
    let shape = infer_expr(expr, &scope, &HashMap::new(), 0)?;
    Ok(shape.expect("every name in scope has a shape"))
}

/// The axis index `axis` names in a shape of rank `rank` (`-1` = last), if in range.
pub fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    if (-r..r).contains(&axis) {
        Some(if axis < 0 { axis + r } else { axis } as usize)
    } else {
        None
    }
}

fn undefined(
    name: &str,
    span: Span,
    targets: &HashMap<&str, usize>,
    current: usize,
) -> ReferenceError {
    let msg = if is_reserved(name) {
        format!("`{name}` is a function or reserved word, not a value; call it as `{name}(...)`")
    } else if targets.get(name).is_some_and(|&i| i >= current) {
        format!("`{name}` is used before it is assigned")
    } else {
        format!("undefined name `{name}`: not an input, an attr or an earlier assignment")
    };
    ReferenceError::new(ReferenceErrorKind::UndefinedName, span, msg)
}

/// The numpy broadcast of `shapes` over symbolic dimensions.
fn broadcast(shapes: &[&ShapeTemplate], span: Span) -> Result<ShapeTemplate, ReferenceError> {
    let rank = shapes.iter().map(|s| s.rank()).max().unwrap_or(0);
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        // i counts from the last axis.
        let mut out: Option<&Dim> = None;
        for s in shapes {
            if i >= s.rank() {
                continue;
            }
            let d = &s.dims[s.rank() - 1 - i];
            out = match out {
                None => Some(d),
                Some(prev) if prev == d => Some(prev),
                Some(Dim::Fixed(1)) => Some(d),
                Some(prev) if *d == Dim::Fixed(1) => Some(prev),
                Some(prev) => {
                    let shown: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
                    let why = match (prev, d) {
                        (Dim::Named(n), Dim::Fixed(k)) | (Dim::Fixed(k), Dim::Named(n)) => format!(
                            "dimension `{n}` is used with two different sizes, {n} and {k} (declare it as {k}, or give both the same name)"
                        ),
                        (Dim::Named(a), Dim::Named(b)) => format!(
                            "dimensions `{a}` and `{b}` meet on one axis but may be bound to different sizes (use one name)"
                        ),
                        _ => format!("sizes {prev} and {d} differ and neither is 1"),
                    };
                    return Err(ReferenceError::new(
                        ReferenceErrorKind::Shape,
                        span,
                        format!("shapes {} do not broadcast: {why}", shown.join(" and ")),
                    ));
                }
            };
        }
        dims.push(out.cloned().unwrap_or(Dim::Fixed(1)));
    }
    dims.reverse();
    Ok(ShapeTemplate::new(dims))
}
