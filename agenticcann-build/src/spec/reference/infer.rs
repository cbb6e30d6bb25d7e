//! Name resolution and symbolic shape inference over [`ShapeTemplate`]s.
//!
//! Broadcasting follows numpy: shapes align at their last axis; two dimensions agree when
//! they are equal or one of them is the fixed size 1; the missing leading axes of the
//! shorter shape count as 1. Named dimensions are symbols: `rows` agrees only with `rows`
//! and with 1, never with a fixed size or another name, because a launch may bind them to
//! any size.

use std::collections::{BTreeMap, HashMap};

use super::ast::{is_reserved, BinaryOp, Expr, ExprKind, Func, ReduceOp, Statement};
use super::error::{ReferenceError, ReferenceErrorKind, Span};
use super::subscript::{picked_shape, template_picks};
use super::Reference;
use crate::spec::dtype::Dtype;
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
/// operands that do not broadcast, reduction axes outside `-rank..rank`, subscripts that do
/// not fit their operand (see [`template_picks`]), `concat` operands whose ranks or other
/// axes differ or whose concatenated axis is named, and `take_along_axis` operands of two
/// ranks or that do not broadcast. A statement
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
        ExprKind::Call { func, args } => match operand_shapes(args, rec)? {
            None => None,
            Some(shapes) => {
                let refs: Vec<&ShapeTemplate> = shapes.iter().collect();
                debug_assert_eq!(refs.len(), func.arity());
                Some(broadcast(&refs, e.span)?)
            }
        },
        ExprKind::Reduce {
            operand,
            axis,
            keepdims,
            op,
        } => reduced_operand(rec(operand)?, *axis, *keepdims, op.name(), e.span)?,
        ExprKind::ArgReduce {
            operand,
            axis,
            keepdims,
            op,
        } => reduced_operand(rec(operand)?, *axis, *keepdims, op.name(), e.span)?,
        ExprKind::Iota { operand, axis } => match rec(operand)? {
            None => None,
            Some(shape) => {
                axis_of(*axis, &shape, "iota", e.span)?;
                Some(shape)
            }
        },
        ExprKind::Subscript { operand, items } => match rec(operand)? {
            None => None,
            Some(shape) => {
                let picks = template_picks(items, &shape).map_err(|m| {
                    let explicit = items
                        .iter()
                        .filter(|i| **i != super::ast::SubscriptItem::Ellipsis)
                        .count();
                    let kind = if explicit > shape.rank() {
                        ReferenceErrorKind::Axis
                    } else {
                        ReferenceErrorKind::Shape
                    };
                    ReferenceError::new(
                        kind,
                        e.span,
                        format!("subscript of a value shaped {shape}: {m}"),
                    )
                })?;
                Some(picked_shape(&picks, &shape))
            }
        },
        ExprKind::Concat { operands, axis } => match operand_shapes(operands, rec)? {
            None => None,
            Some(shapes) => Some(concat_shape(&shapes, *axis, e.span)?),
        },
        ExprKind::TakeAlongAxis {
            operand,
            indices,
            axis,
        } => match (rec(operand)?, rec(indices)?) {
            (Some(x), Some(idx)) => Some(take_shape(&x, &idx, *axis, e.span)?),
            _ => None,
        },
    })
}

/// The shapes of `operands` in order, each inferred by `infer` (every operand is inferred, so
/// the first error wins); `Ok(None)` when any of them depends on a statement that failed.
fn operand_shapes(
    operands: &[Expr],
    infer: impl Fn(&Expr) -> Result<Option<ShapeTemplate>, ReferenceError>,
) -> Result<Option<Vec<ShapeTemplate>>, ReferenceError> {
    let mut shapes = Vec::with_capacity(operands.len());
    for a in operands {
        shapes.push(infer(a)?);
    }
    Ok(shapes.into_iter().collect())
}

/// The shape a reduction or index reduction named `what` gives from its operand's shape;
/// `Ok(None)` when the operand's shape is unknown (it depends on a statement that failed).
fn reduced_operand(
    operand: Option<ShapeTemplate>,
    axis: Option<i64>,
    keepdims: bool,
    what: &str,
    span: Span,
) -> Result<Option<ShapeTemplate>, ReferenceError> {
    operand
        .map(|shape| reduced(shape, axis, keepdims, what, span))
        .transpose()
}

/// The axis index `axis` names in `shape`, or an [`ReferenceErrorKind::Axis`] error for
/// `what` at `span`.
fn axis_of(
    axis: i64,
    shape: &ShapeTemplate,
    what: &str,
    span: Span,
) -> Result<usize, ReferenceError> {
    let rank = shape.rank();
    normalize_axis(axis, rank).ok_or_else(|| {
        ReferenceError::new(
            ReferenceErrorKind::Axis,
            span,
            if rank == 0 {
                format!("`{what}` over axis {axis} of a scalar: a scalar has no axes")
            } else {
                format!(
                    "axis {axis} is out of range for `{what}` of rank {rank} {shape} (valid: {}..={})",
                    -(rank as i64),
                    rank as i64 - 1
                )
            },
        )
    })
}

/// The shape of a reduction (or `argmax`/`argmin`) of `shape` over `axis`.
fn reduced(
    shape: ShapeTemplate,
    axis: Option<i64>,
    keepdims: bool,
    what: &str,
    span: Span,
) -> Result<ShapeTemplate, ReferenceError> {
    let rank = shape.rank();
    Ok(match axis {
        None => ShapeTemplate::new(if keepdims {
            vec![Dim::Fixed(1); rank]
        } else {
            vec![]
        }),
        Some(a) => {
            let k = axis_of(a, &shape, what, span)?;
            let mut dims = shape.dims;
            if keepdims {
                dims[k] = Dim::Fixed(1);
            } else {
                dims.remove(k);
            }
            ShapeTemplate::new(dims)
        }
    })
}

fn concat_shape(
    shapes: &[ShapeTemplate],
    axis: i64,
    span: Span,
) -> Result<ShapeTemplate, ReferenceError> {
    let first = &shapes[0];
    let k = axis_of(axis, first, "concat", span)?;
    let shown = || {
        shapes
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut total = 0usize;
    for s in shapes {
        if s.rank() != first.rank() {
            return Err(ReferenceError::new(
                ReferenceErrorKind::Shape,
                span,
                format!("`concat` operands must have one rank, got {}", shown()),
            ));
        }
        for (i, (a, b)) in s.dims.iter().zip(&first.dims).enumerate() {
            if i != k && a != b {
                return Err(ReferenceError::new(
                    ReferenceErrorKind::Shape,
                    span,
                    format!(
                        "`concat` along axis {k} needs equal sizes on every other axis (it does not broadcast), but axis {i} is {b} and {a} in {}",
                        shown()
                    ),
                ));
            }
        }
    }
    for s in shapes {
        match &s.dims[k] {
            Dim::Fixed(n) => total += n,
            Dim::Named(n) => {
                return Err(ReferenceError::new(
                    ReferenceErrorKind::Shape,
                    span,
                    format!(
                        "`concat` along axis {k}, the named dimension `{n}`: the result's size would not be a declared dimension; concatenate along an axis of fixed size"
                    ),
                ))
            }
        }
    }
    let mut dims = first.dims.clone();
    dims[k] = Dim::Fixed(total);
    Ok(ShapeTemplate::new(dims))
}

fn take_shape(
    x: &ShapeTemplate,
    idx: &ShapeTemplate,
    axis: i64,
    span: Span,
) -> Result<ShapeTemplate, ReferenceError> {
    let k = axis_of(axis, x, "take_along_axis", span)?;
    if idx.rank() != x.rank() {
        return Err(ReferenceError::new(
            ReferenceErrorKind::Shape,
            span,
            format!(
                "`take_along_axis` needs indices of the operand's rank {}, but the operand is {x} and the indices {idx}",
                x.rank()
            ),
        ));
    }
    // Every axis but `k` broadcasts; axis `k` has the indices' size.
    let mut xs = x.clone();
    let mut is = idx.clone();
    xs.dims[k] = Dim::Fixed(1);
    is.dims[k] = Dim::Fixed(1);
    let mut out = broadcast(&[&xs, &is], span)?;
    out.dims[k] = idx.dims[k].clone();
    Ok(out)
}

/// What kind of number an expression holds: [`value_classes`] computes it so that index
/// arguments can be checked. Every value is still an f64 in the evaluator; integer values
/// are exact there (below 2^53).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueClass {
    /// 0 or 1: comparisons, `bool` inputs and casts.
    Bool,
    /// Integers: integer inputs and attrs, integral literals, `iota`, `argmax`, `argmin`,
    /// casts to `i32`/`i8`/`u8`, and `+ - * **`, `sum`, `max`, `min`, `abs` of integers.
    Int,
    /// Anything else (`/`, `mean`, transcendental functions, any float operand).
    Float,
}

impl ValueClass {
    /// The class of values of `dtype`.
    pub fn of_dtype(dtype: Dtype) -> ValueClass {
        if dtype.is_float() {
            ValueClass::Float
        } else if dtype.is_int() {
            ValueClass::Int
        } else {
            ValueClass::Bool
        }
    }

    /// The class of a result computed from operands of classes `self` and `other`.
    fn join(self, other: ValueClass) -> ValueClass {
        use ValueClass::*;
        match (self, other) {
            (Float, _) | (_, Float) => Float,
            (Bool, Bool) => Bool,
            _ => Int,
        }
    }

    /// Arithmetic on booleans gives integers.
    fn arith(self) -> ValueClass {
        self.join(ValueClass::Int)
    }

    /// How the class reads in an error message.
    fn describe(self) -> &'static str {
        match self {
            ValueClass::Bool => "a boolean (0/1) value",
            ValueClass::Int => "an integer value",
            ValueClass::Float => "a float value",
        }
    }
}

/// The [`ValueClass`] of every name of `reference` (inputs by their dtype, attrs by their
/// value's class, every statement's target), and the check that indices are integers.
///
/// Names the reference reads that are neither inputs, attrs nor earlier targets count as
/// floats ([`infer_shapes`] reports them).
///
/// # Errors
/// Every [`ReferenceErrorKind::Dtype`] error in source order: the indices of
/// `take_along_axis` are not an integer value.
pub fn value_classes(
    reference: &Reference,
    inputs: &[(&str, Dtype)],
    attrs: &[(&str, ValueClass)],
) -> Result<BTreeMap<String, ValueClass>, Vec<ReferenceError>> {
    let mut names: HashMap<String, ValueClass> = inputs
        .iter()
        .map(|(n, d)| (n.to_string(), ValueClass::of_dtype(*d)))
        .chain(attrs.iter().map(|(n, c)| (n.to_string(), *c)))
        .collect();
    let mut errors = Vec::new();
    for st in &reference.statements {
        let c = class_of(&st.value, &names, &mut errors);
        names.insert(st.target.name.clone(), c);
    }
    if errors.is_empty() {
        Ok(names.into_iter().collect())
    } else {
        Err(errors)
    }
}

fn class_of(
    e: &Expr,
    names: &HashMap<String, ValueClass>,
    errors: &mut Vec<ReferenceError>,
) -> ValueClass {
    use ValueClass::*;
    let mut rec = |x: &Expr| class_of(x, names, errors);
    match &e.kind {
        ExprKind::Number(v) => {
            if v.is_finite() && *v == v.trunc() {
                Int
            } else {
                Float
            }
        }
        ExprKind::Name(n) => names.get(n).copied().unwrap_or(Float),
        ExprKind::Neg(x) => rec(x).arith(),
        ExprKind::Binary { op, lhs, rhs } => {
            let (l, r) = (rec(lhs), rec(rhs));
            match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Pow => l.join(r).arith(),
                BinaryOp::Div => Float,
                _ => Bool,
            }
        }
        ExprKind::Call { func, args } => {
            let classes: Vec<ValueClass> = args.iter().map(&mut rec).collect();
            match func {
                Func::Abs => classes[0].arith(),
                Func::Max | Func::Min | Func::Clamp => classes
                    .into_iter()
                    .reduce(ValueClass::join)
                    .unwrap_or(Float),
                // The condition does not take part.
                Func::Where => classes[1].join(classes[2]),
                _ => Float,
            }
        }
        ExprKind::Cast { operand, dtype } => {
            rec(operand);
            ValueClass::of_dtype(*dtype)
        }
        ExprKind::Reduce { op, operand, .. } => {
            let c = rec(operand);
            match op {
                ReduceOp::Mean => Float,
                ReduceOp::Sum => c.arith(),
                ReduceOp::Max | ReduceOp::Min => c,
            }
        }
        ExprKind::Subscript { operand, .. } => rec(operand),
        ExprKind::Concat { operands, .. } => operands
            .iter()
            .map(&mut rec)
            .reduce(ValueClass::join)
            .unwrap_or(Float),
        ExprKind::Iota { operand, .. } | ExprKind::ArgReduce { operand, .. } => {
            rec(operand);
            Int
        }
        ExprKind::TakeAlongAxis {
            operand, indices, ..
        } => {
            let c = rec(operand);
            let ic = rec(indices);
            if ic != Int {
                errors.push(ReferenceError::new(
                    ReferenceErrorKind::Dtype,
                    indices.span,
                    format!(
                        "the indices of `take_along_axis` must be an integer value (an integer input, `iota`, `argmax`/`argmin` or `cast(…, i32)`), but `{indices}` is {}",
                        ic.describe()
                    ),
                ));
            }
            c
        }
    }
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
