//! The f64 evaluator: the golden model that kernels are verified against.
//!
//! Every value is an `ndarray::ArrayD<f64>`; scalars (literals, attrs) are rank-0 arrays.
//! Elementwise operations broadcast like numpy. Transcendental functions come from the
//! `libm` crate (a port of musl's libm, pure Rust), so golden values are bit-identical on
//! every platform. Sums accumulate sequentially in f64 along the reduced axis, in index
//! order.

use std::collections::HashMap;

use ndarray::{ArrayD, Axis, IxDyn, Zip};

use ndarray::{Slice, SliceInfoElem};

use super::ast::{ArgOp, BinaryOp, Expr, ExprKind, Func, ReduceOp};
use super::error::{ReferenceError, ReferenceErrorKind, Span};
use super::infer::normalize_axis;
use super::subscript::{picks, Pick};
use super::Reference;
use crate::spec::dtype::cast_to_dtype;

/// Evaluates `reference` on concrete `inputs` (by name) and scalar `attrs`, in f64.
///
/// Returns the value of every assigned name (outputs and intermediates). Inputs should
/// already hold values representable in their dtype (see
/// [`generate_inputs`](crate::spec::init::generate_inputs)); outputs are not rounded: apply
/// [`cast_to_dtype`] for the declared output dtype.
///
/// # Errors
/// A [`ReferenceError`] with the span of the failing expression when a name is missing,
/// shapes do not broadcast, an axis is out of range, a subscript does not fit, `max`/`min`/
/// `argmax`/`argmin` reduce over zero elements, or a `take_along_axis` index is not an
/// integer in `-n..n`. References validated by [`infer_shapes`](super::infer_shapes) and
/// [`value_classes`](super::value_classes) against the inputs' declared shapes and dtypes
/// only fail here on the last two.
pub fn evaluate(
    reference: &Reference,
    inputs: &HashMap<String, ArrayD<f64>>,
    attrs: &HashMap<String, f64>,
) -> Result<HashMap<String, ArrayD<f64>>, ReferenceError> {
    let mut env = Env {
        inputs,
        attrs,
        assigned: HashMap::new(),
    };
    for st in &reference.statements {
        let v = env.eval(&st.value)?;
        env.assigned.insert(st.target.name.clone(), v);
    }
    Ok(env.assigned)
}

struct Env<'a> {
    inputs: &'a HashMap<String, ArrayD<f64>>,
    attrs: &'a HashMap<String, f64>,
    assigned: HashMap<String, ArrayD<f64>>,
}

fn scalar(v: f64) -> ArrayD<f64> {
    ArrayD::from_elem(IxDyn(&[]), v)
}

impl Env<'_> {
    fn eval(&self, e: &Expr) -> Result<ArrayD<f64>, ReferenceError> {
        Ok(match &e.kind {
            ExprKind::Number(v) => scalar(*v),
            ExprKind::Name(n) => {
                if let Some(v) = self.assigned.get(n).or_else(|| self.inputs.get(n)) {
                    v.clone()
                } else if let Some(v) = self.attrs.get(n) {
                    scalar(*v)
                } else {
                    return Err(ReferenceError::new(
                        ReferenceErrorKind::Eval,
                        e.span,
                        format!(
                            "no value for `{n}`: not an input, an attr or an earlier assignment"
                        ),
                    ));
                }
            }
            ExprKind::Neg(x) => self.eval(x)?.mapv_into(|v| -v),
            ExprKind::Cast { operand, dtype } => {
                let d = *dtype;
                self.eval(operand)?.mapv_into(|v| cast_to_dtype(v, d))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
                let f = binary_fn(*op);
                zip2(&a, &b, e.span, f)?
            }
            ExprKind::Call { func, args } => {
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match (func, vals.as_slice()) {
                    (Func::Max, [a, b]) => zip2(a, b, e.span, nan_max)?,
                    (Func::Min, [a, b]) => zip2(a, b, e.span, nan_min)?,
                    (Func::Clamp, [x, lo, hi]) => {
                        zip3(x, lo, hi, e.span, |x, lo, hi| nan_min(nan_max(x, lo), hi))?
                    }
                    (Func::Where, [c, a, b]) => {
                        zip3(c, a, b, e.span, |c, a, b| if c != 0.0 { a } else { b })?
                    }
                    (f, [x]) if f.arity() == 1 => {
                        let g = unary_fn(*f);
                        x.mapv(g)
                    }
                    _ => {
                        return Err(ReferenceError::new(
                            ReferenceErrorKind::Arity,
                            e.span,
                            format!("`{}` takes {} arguments", func.name(), func.arity()),
                        ))
                    }
                }
            }
            ExprKind::Reduce {
                op,
                operand,
                axis,
                keepdims,
            } => reduce(self.eval(operand)?, *op, *axis, *keepdims, e.span)?,
            ExprKind::ArgReduce {
                op,
                operand,
                axis,
                keepdims,
            } => arg_reduce(&self.eval(operand)?, *op, *axis, *keepdims, e.span)?,
            ExprKind::Subscript { operand, items } => {
                let x = self.eval(operand)?;
                let p = picks(items, x.shape()).map_err(|m| {
                    ReferenceError::new(
                        ReferenceErrorKind::Shape,
                        e.span,
                        format!("subscript of a value shaped {:?}: {m}", x.shape()),
                    )
                })?;
                subscript(&x, &p)
            }
            ExprKind::Concat { operands, axis } => {
                let vals = operands
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let k = eval_axis(*axis, vals[0].ndim(), "concat", e.span)?;
                let views: Vec<_> = vals.iter().map(|v| v.view()).collect();
                ndarray::concatenate(Axis(k), &views).map_err(|_| {
                    let shapes: Vec<String> = vals.iter().map(|v| format!("{:?}", v.shape())).collect();
                    ReferenceError::new(
                        ReferenceErrorKind::Shape,
                        e.span,
                        format!(
                            "`concat` along axis {k} of shapes {} needs one rank and equal sizes on every other axis",
                            shapes.join(", ")
                        ),
                    )
                })?
            }
            ExprKind::Iota { operand, axis } => {
                let x = self.eval(operand)?;
                let k = eval_axis(*axis, x.ndim(), "iota", e.span)?;
                ArrayD::from_shape_fn(x.raw_dim(), |idx| idx[k] as f64)
            }
            ExprKind::TakeAlongAxis {
                operand,
                indices,
                axis,
            } => {
                let x = self.eval(operand)?;
                let idx = self.eval(indices)?;
                take_along_axis(&x, &idx, *axis, e.span, indices.span)?
            }
        })
    }
}

/// The axis index of `axis` in rank `rank`, or an [`ReferenceErrorKind::Axis`] error.
fn eval_axis(axis: i64, rank: usize, what: &str, span: Span) -> Result<usize, ReferenceError> {
    normalize_axis(axis, rank).ok_or_else(|| {
        ReferenceError::new(
            ReferenceErrorKind::Axis,
            span,
            format!("axis {axis} is out of range for `{what}` of rank {rank}"),
        )
    })
}

/// `x` with one [`Pick`] per axis applied: a strided view, copied; index picks drop their
/// axis.
fn subscript(x: &ArrayD<f64>, picks: &[Pick]) -> ArrayD<f64> {
    let elems: Vec<SliceInfoElem> = picks
        .iter()
        .map(|p| match *p {
            Pick::Whole => SliceInfoElem::from(Slice::from(..)),
            Pick::Index(i) => SliceInfoElem::Index(i as isize),
            Pick::Range { first, count, step } => {
                let last = p.source(count - 1);
                // ndarray takes [start, end) and, for a negative step, walks it from the end.
                let (lo, hi) = if step > 0 {
                    (first, last)
                } else {
                    (last, first)
                };
                SliceInfoElem::from(Slice::new(
                    lo as isize,
                    Some(hi as isize + 1),
                    step as isize,
                ))
            }
        })
        .collect();
    x.slice(elems.as_slice()).to_owned()
}

/// The index of the first maximum (minimum) of `x` along `axis` (flat, row-major, over every
/// axis when `None`); NaN is the extreme, as in numpy.
fn arg_reduce(
    x: &ArrayD<f64>,
    op: ArgOp,
    axis: Option<i64>,
    keepdims: bool,
    span: Span,
) -> Result<ArrayD<f64>, ReferenceError> {
    let better = |v: f64, best: f64| match op {
        _ if best.is_nan() => false,
        _ if v.is_nan() => true,
        ArgOp::Max => v > best,
        ArgOp::Min => v < best,
    };
    let find = |values: &mut dyn Iterator<Item = f64>| -> Option<f64> {
        let mut best: Option<(usize, f64)> = None;
        for (i, v) in values.enumerate() {
            match best {
                Some((_, b)) if !better(v, b) => {}
                _ => best = Some((i, v)),
            }
        }
        best.map(|(i, _)| i as f64)
    };
    let empty = || {
        ReferenceError::new(
            ReferenceErrorKind::Eval,
            span,
            format!("`{}` over zero elements has no value", op.name()),
        )
    };
    match axis {
        None => {
            let i = find(&mut x.iter().copied()).ok_or_else(empty)?;
            let shape = if keepdims { vec![1; x.ndim()] } else { vec![] };
            Ok(ArrayD::from_elem(IxDyn(&shape), i))
        }
        Some(a) => {
            let k = eval_axis(a, x.ndim(), op.name(), span)?;
            if x.shape()[k] == 0 {
                return Err(empty());
            }
            let r = x.map_axis(Axis(k), |lane| {
                find(&mut lane.iter().copied()).unwrap_or(f64::NAN)
            });
            Ok(if keepdims { r.insert_axis(Axis(k)) } else { r })
        }
    }
}

/// numpy's `take_along_axis`: `x` and `idx` of one rank broadcast on every axis but `axis`,
/// which has `idx`'s size; each index must be an integer in `-n..n` (`n`: `x`'s size there).
fn take_along_axis(
    x: &ArrayD<f64>,
    idx: &ArrayD<f64>,
    axis: i64,
    span: Span,
    idx_span: Span,
) -> Result<ArrayD<f64>, ReferenceError> {
    let k = eval_axis(axis, x.ndim(), "take_along_axis", span)?;
    let bad_shape = || {
        ReferenceError::new(
            ReferenceErrorKind::Shape,
            span,
            format!(
                "`take_along_axis` of shape {:?} with indices {:?}: one rank, broadcasting on every axis but {k}",
                x.shape(),
                idx.shape()
            ),
        )
    };
    if idx.ndim() != x.ndim() {
        return Err(bad_shape());
    }
    let (mut xs, mut is) = (x.shape().to_vec(), idx.shape().to_vec());
    xs[k] = 1;
    is[k] = 1;
    let mut out = broadcast_shapes(&[&xs, &is]).ok_or_else(bad_shape)?;
    let n = x.shape()[k];
    out[k] = n;
    let xb = x.broadcast(IxDyn(&out)).ok_or_else(bad_shape)?;
    out[k] = idx.shape()[k];
    let ib = idx.broadcast(IxDyn(&out)).ok_or_else(bad_shape)?;
    // Check every index first, so the gather below cannot go out of bounds.
    for &v in ib.iter() {
        if v != v.trunc() || v < -(n as f64) || v >= n as f64 {
            return Err(ReferenceError::new(
                ReferenceErrorKind::Eval,
                idx_span,
                format!(
                    "`take_along_axis` index {v} is not an integer in {}..{n} (axis {k} has size {n})",
                    -(n as i64)
                ),
            ));
        }
    }
    Ok(ArrayD::from_shape_fn(IxDyn(&out), |pos| {
        let v = ib[&pos];
        let j = if v < 0.0 { v + n as f64 } else { v } as usize;
        let mut src = pos;
        src[k] = j;
        xb[&src]
    }))
}

/// The scalar function of a one-argument [`Func`] (for the others, which take 2 or 3
/// arguments, a function that returns NaN).
pub fn unary_fn(f: Func) -> fn(f64) -> f64 {
    match f {
        Func::Exp => libm::exp,
        Func::Log => libm::log,
        Func::Sqrt => libm::sqrt,
        Func::Rsqrt => |x| 1.0 / libm::sqrt(x),
        Func::Tanh => libm::tanh,
        Func::Erf => libm::erf,
        Func::Sigmoid => sigmoid,
        Func::Abs => f64::abs,
        // Not unary; callers handle these by arity.
        Func::Max | Func::Min | Func::Clamp | Func::Where => |_| f64::NAN,
    }
}

/// The scalar function of a [`BinaryOp`]; comparisons give 1.0 or 0.0.
pub fn binary_fn(op: BinaryOp) -> fn(f64, f64) -> f64 {
    fn b(v: bool) -> f64 {
        if v {
            1.0
        } else {
            0.0
        }
    }
    match op {
        BinaryOp::Add => |a, c| a + c,
        BinaryOp::Sub => |a, c| a - c,
        BinaryOp::Mul => |a, c| a * c,
        BinaryOp::Div => |a, c| a / c,
        BinaryOp::Pow => libm::pow,
        BinaryOp::Lt => |a, c| b(a < c),
        BinaryOp::Le => |a, c| b(a <= c),
        BinaryOp::Gt => |a, c| b(a > c),
        BinaryOp::Ge => |a, c| b(a >= c),
        BinaryOp::Eq => |a, c| b(a == c),
        BinaryOp::Ne => |a, c| b(a != c),
    }
}

/// 1 / (1 + e^-x), computed without overflow for large |x|.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + libm::exp(-x))
    } else {
        let e = libm::exp(x);
        e / (1.0 + e)
    }
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The numpy broadcast of concrete shapes, or `None` when they do not broadcast.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (i, &d) in s.iter().rev().enumerate() {
            let o = &mut out[rank - 1 - i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return None;
            }
        }
    }
    Some(out)
}

fn shape_error(span: Span, shapes: &[&[usize]]) -> ReferenceError {
    let shown: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
    ReferenceError::new(
        ReferenceErrorKind::Shape,
        span,
        format!("shapes {} do not broadcast", shown.join(" and ")),
    )
}

fn zip2(
    a: &ArrayD<f64>,
    b: &ArrayD<f64>,
    span: Span,
    f: impl Fn(f64, f64) -> f64,
) -> Result<ArrayD<f64>, ReferenceError> {
    let shape = broadcast_shapes(&[a.shape(), b.shape()])
        .ok_or_else(|| shape_error(span, &[a.shape(), b.shape()]))?;
    let dim = IxDyn(&shape);
    let (va, vb) = (
        a.broadcast(dim.clone()).expect("broadcastable"),
        b.broadcast(dim).expect("broadcastable"),
    );
    Ok(Zip::from(&va).and(&vb).map_collect(|&x, &y| f(x, y)))
}

fn zip3(
    a: &ArrayD<f64>,
    b: &ArrayD<f64>,
    c: &ArrayD<f64>,
    span: Span,
    f: impl Fn(f64, f64, f64) -> f64,
) -> Result<ArrayD<f64>, ReferenceError> {
    let shapes = [a.shape(), b.shape(), c.shape()];
    let shape = broadcast_shapes(&shapes).ok_or_else(|| shape_error(span, &shapes))?;
    let dim = IxDyn(&shape);
    let (va, vb, vc) = (
        a.broadcast(dim.clone()).expect("broadcastable"),
        b.broadcast(dim.clone()).expect("broadcastable"),
        c.broadcast(dim).expect("broadcastable"),
    );
    Ok(Zip::from(&va)
        .and(&vb)
        .and(&vc)
        .map_collect(|&x, &y, &z| f(x, y, z)))
}

fn fold(op: ReduceOp, values: impl Iterator<Item = f64>) -> Option<f64> {
    match op {
        ReduceOp::Sum => Some(values.fold(0.0, |s, v| s + v)),
        ReduceOp::Mean => {
            let (s, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
            Some(s / n as f64)
        }
        ReduceOp::Max => values.reduce(nan_max),
        ReduceOp::Min => values.reduce(nan_min),
    }
}

fn reduce(
    x: ArrayD<f64>,
    op: ReduceOp,
    axis: Option<i64>,
    keepdims: bool,
    span: Span,
) -> Result<ArrayD<f64>, ReferenceError> {
    let empty = || {
        ReferenceError::new(
            ReferenceErrorKind::Eval,
            span,
            format!("`{}` over zero elements has no value", op.name()),
        )
    };
    match axis {
        None => {
            let v = fold(op, x.iter().copied()).ok_or_else(empty)?;
            let shape = if keepdims { vec![1; x.ndim()] } else { vec![] };
            Ok(ArrayD::from_elem(IxDyn(&shape), v))
        }
        Some(a) => {
            let k = normalize_axis(a, x.ndim()).ok_or_else(|| {
                ReferenceError::new(
                    ReferenceErrorKind::Axis,
                    span,
                    format!("axis {a} is out of range for rank {}", x.ndim()),
                )
            })?;
            if x.shape()[k] == 0 && matches!(op, ReduceOp::Max | ReduceOp::Min) {
                return Err(empty());
            }
            let r = x.map_axis(Axis(k), |lane| {
                fold(op, lane.iter().copied()).unwrap_or(f64::NAN)
            });
            Ok(if keepdims { r.insert_axis(Axis(k)) } else { r })
        }
    }
}
