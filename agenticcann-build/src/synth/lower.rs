//! Lowering of a reference AST to the proposer's row IR.
//!
//! The iteration space is a *row view*: a domain shape `[lead..., C]` whose rows are indexed
//! by one linear row index over the leading dimensions. Every value of the program has a
//! [`Level`]: uniform over the whole launch (attrs, numbers, one-element inputs), one scalar
//! per row (`[R, 1]` operands and last-axis reductions), or a full row of `C` elements.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::spec::reference::subscript::{template_picks, Pick};
use crate::spec::reference::{BinaryOp, Expr, ExprKind, Func, ReduceOp, SubscriptItem};
use crate::spec::{Dim, Dtype, OpSpec, ShapeTemplate};

use super::SynthError;

/// How much a value varies over the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// The same for every element of the launch.
    Uniform,
    /// One value per row.
    RowScalar,
    /// One value per element.
    Row,
}

/// Unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Un {
    Neg,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Erf,
    Sigmoid,
    Abs,
}

/// Binary operations (comparisons give 1.0 / 0.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    Cmp(BinaryOp),
}

/// How an input tensor maps onto the rows of a domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// One element, the same for every row.
    Uniform,
    /// One element per row at this GM element offset (C++ expression of the row variable
    /// `ROW`).
    RowScalar(String),
    /// A `[C]` vector shared by every row.
    Vec,
    /// A full row at this GM element offset (C++ expression of `ROW`); `contiguous` when row
    /// `r` of the domain is row `r` of the tensor. Otherwise `run` (C++ expression, rows),
    /// when more than one, is the period of the mapping's contiguous runs: the product of
    /// the trailing leading axes the tensor shares with the domain, so rows `k·run ..
    /// (k+1)·run` of the domain are consecutive rows of the tensor (e.g. `gamma[heads, C]`
    /// against `[tokens, heads, C]`: runs of `heads` rows), one DataCopyPad each.
    Row {
        offset: String,
        contiguous: bool,
        run: Option<String>,
        /// For a [`View`]: the tensor's row pitch in elements (C++ expression), when it
        /// differs from the domain's row length; the copy-in then skips `pitch - C` elements
        /// between rows (a GM-side stride).
        pitch: Option<String>,
    },
}

/// A GM view of an input: columns `[first, first + count)` of every row of `parent`
/// (a last-axis slice `x[..., a:b]` with step 1). The kernel reads it through its own
/// `GlobalTensor` set `first` elements into the parent's buffer; its rows are `pitch`
/// (the parent's last dim) apart. In the row program it is an input named `name` of the
/// parent's dtype, shaped like the parent with last dim `count`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct View {
    /// The view's name in the kernel (`<parent>__c<first>_<count>`).
    pub name: String,
    /// The sliced input.
    pub parent: String,
    /// First column taken.
    pub first: usize,
}

/// One IR node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    Const(f64),
    Input {
        name: String,
        access: Access,
    },
    Un(Un, usize),
    Bin(Bin, usize, usize),
    Where(usize, usize, usize),
    /// Reduction over the domain's last axis (result: one scalar per row).
    RedLast(ReduceOp, usize),
    /// Reduction over a leading axis: a loop over `k` of a sub-program evaluated at the
    /// operand row `((ROW / inner) * count + k) * inner + ROW % inner`.
    RedMid {
        op: ReduceOp,
        sub: Box<Program>,
        /// Elements along the reduced axis (C++ expression).
        count: String,
        /// Product of the operand's leading dims after the reduced axis (C++ expression).
        inner: String,
    },
}

/// A node with its level.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub op: Op,
    pub level: Level,
}

/// A program over one domain.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Program {
    /// The domain's leading dims.
    pub lead: Vec<Dim>,
    /// The domain's last dim.
    pub cols: Dim,
    /// Nodes in topological order.
    pub nodes: Vec<Node>,
    /// The root (for sub-programs).
    pub root: usize,
}

/// The lowered op: the main program and its outputs.
#[derive(Clone, Debug)]
pub(crate) struct Lowered {
    pub prog: Program,
    /// (output name, dtype, node, level of the output in the domain).
    pub outputs: Vec<(String, Dtype, usize)>,
    /// Input dtypes by name.
    pub dtypes: HashMap<String, Dtype>,
    /// True when no node reduces and every row input is contiguous: element-flat split.
    pub flat: bool,
    /// The GM views of sliced inputs the program reads (their names are inputs of `prog`).
    pub views: Vec<View>,
    /// The column segments the outputs are written in (a last-axis concat), each a view of
    /// its output (`parent`) named in `outputs`; empty when outputs are written whole.
    pub out_views: Vec<View>,
}

impl Lowered {
    /// The row pitch (C++, elements) of output `name` when it is a segment view of a wider
    /// output, `None` for an output written whole.
    pub(crate) fn out_pitch(&self, op: &OpSpec, name: &str) -> Option<String> {
        let v = self.out_views.iter().find(|v| v.name == name)?;
        let o = op.output(&v.parent)?;
        o.decl.shape.dims.last().map(dim_code)
    }
}

/// The C++ spelling of a dim inside the kernel or the tiling function (`t.d_<name>` /
/// a literal).
pub(crate) fn dim_code(d: &Dim) -> String {
    match d {
        Dim::Fixed(n) => format!("{n}u"),
        Dim::Named(n) => format!("t.d_{n}"),
    }
}

/// Product of dims as a C++ expression (`1u` when empty).
pub(crate) fn prod_code(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .filter(|d| **d != Dim::Fixed(1))
        .map(dim_code)
        .collect();
    if parts.is_empty() {
        "1u".into()
    } else {
        format!("({})", parts.join(" * "))
    }
}

fn is_one(d: &Dim) -> bool {
    *d == Dim::Fixed(1)
}

/// [`broadcast`] for the eager decomposition.
pub(crate) fn broadcast_pub(a: &ShapeTemplate, b: &ShapeTemplate) -> ShapeTemplate {
    broadcast(a, b)
}

/// numpy broadcast of two shape templates (validated specs always broadcast).
fn broadcast(a: &ShapeTemplate, b: &ShapeTemplate) -> ShapeTemplate {
    let n = a.rank().max(b.rank());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = (i + a.rank()).checked_sub(n).map(|j| a.dims[j].clone());
        let db = (i + b.rank()).checked_sub(n).map(|j| b.dims[j].clone());
        out.push(match (da, db) {
            (Some(x), None) | (None, Some(x)) => x,
            (Some(x), Some(y)) => {
                if is_one(&x) {
                    y
                } else {
                    x
                }
            }
            (None, None) => Dim::Fixed(1),
        });
    }
    ShapeTemplate::new(out)
}

/// Leading dims padded with ones on the left to `rank` dims.
fn align(s: &ShapeTemplate, rank: usize) -> Vec<Dim> {
    let mut v = vec![Dim::Fixed(1); rank.saturating_sub(s.rank())];
    v.extend(s.dims.iter().cloned());
    v
}

struct Ctx<'a> {
    op: &'a OpSpec,
    /// Lower known patterns to cheaper forms (`SynthOptions::fast_math`).
    fast_math: bool,
    /// name → (expr of an intermediate statement)
    defs: HashMap<String, &'a Expr>,
    attrs: HashMap<String, f64>,
    /// The views created so far (shared by the main program and sub-programs).
    views: RefCell<Vec<View>>,
}

/// What a subscript of an input resolves to, for the proposer: the whole input, or a
/// step-1 range of columns of its last axis.
enum Slice {
    Whole,
    Cols { first: usize, count: usize },
}

impl<'a> Ctx<'a> {
    /// Resolves `input[items]`: only the last axis may be sliced, with step 1; every other
    /// axis is taken whole.
    fn slice_of(&self, input: &str, items: &[SubscriptItem]) -> Result<Slice, SynthError> {
        let Some(i) = self.op.input(input) else {
            return Err(self.unsupported(
                "a subscript of a computed value: the proposer lowers subscripts of inputs only (their slices are read as GM views)",
            ));
        };
        let shape = &i.decl.shape;
        let picks = template_picks(items, shape)
            .map_err(|m| self.unsupported(format!("subscript of input `{input}`: {m}")))?;
        let last = picks.len().saturating_sub(1);
        for (axis, p) in picks.iter().enumerate() {
            let written = items
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            match p {
                Pick::Whole => {}
                Pick::Index(_) => {
                    return Err(self.unsupported(format!(
                        "subscript `{input}[{written}]`: an integer index (axis {axis}) is not lowered by the offline proposer (it lowers step-1 slices of the last axis, `x[..., a:b]`)"
                    )))
                }
                Pick::Range { step, .. } if *step != 1 => {
                    return Err(self.unsupported(format!(
                        "subscript `{input}[{written}]`: a strided slice (step {step}) is not lowered by the offline proposer (it lowers step-1 slices of the last axis, `x[..., a:b]`)"
                    )))
                }
                Pick::Range { .. } if axis != last => {
                    return Err(self.unsupported(format!(
                        "subscript `{input}[{written}]`: a slice of axis {axis} is not lowered by the offline proposer (it lowers step-1 slices of the last axis only)"
                    )))
                }
                Pick::Range { .. } => {}
            }
        }
        Ok(match picks.get(last) {
            Some(Pick::Range { first, count, .. }) => Slice::Cols {
                first: *first,
                count: *count,
            },
            _ => Slice::Whole,
        })
    }

    fn unsupported(&self, what: impl Into<String>) -> SynthError {
        SynthError::Unsupported {
            op: self.op.name.clone(),
            reason: what.into(),
        }
    }

    /// Symbolic shape of an expression.
    fn shape(&self, e: &Expr) -> Result<ShapeTemplate, SynthError> {
        Ok(match &e.kind {
            ExprKind::Number(_) => ShapeTemplate::default(),
            ExprKind::Name(n) => {
                if let Some(i) = self.op.input(n) {
                    i.decl.shape.clone()
                } else if self.attrs.contains_key(n) {
                    ShapeTemplate::default()
                } else if let Some(d) = self.defs.get(n) {
                    self.shape(d)?
                } else {
                    return Err(self.unsupported(format!("unknown name `{n}`")));
                }
            }
            ExprKind::Neg(a) | ExprKind::Cast { operand: a, .. } => self.shape(a)?,
            ExprKind::Binary { lhs, rhs, .. } => broadcast(&self.shape(lhs)?, &self.shape(rhs)?),
            ExprKind::Call { args, .. } => {
                let mut s = ShapeTemplate::default();
                for a in args {
                    s = broadcast(&s, &self.shape(a)?);
                }
                s
            }
            ExprKind::Reduce {
                operand,
                axis,
                keepdims,
                ..
            } => {
                let s = self.shape(operand)?;
                let Some(axis) = axis else {
                    return Err(self.unsupported("a reduction over every axis"));
                };
                let a = normalize(*axis, s.rank())
                    .ok_or_else(|| self.unsupported("a reduction axis out of range"))?;
                let mut dims = s.dims.clone();
                if *keepdims {
                    dims[a] = Dim::Fixed(1);
                } else {
                    dims.remove(a);
                }
                ShapeTemplate::new(dims)
            }
            ExprKind::Subscript { operand, items } => {
                let s = self.shape(operand)?;
                let picks = template_picks(items, &s)
                    .map_err(|m| self.unsupported(format!("subscript: {m}")))?;
                crate::spec::reference::subscript::picked_shape(&picks, &s)
            }
            ExprKind::Concat { operands, axis } => {
                let mut shapes = Vec::new();
                for o in operands {
                    shapes.push(self.shape(o)?);
                }
                let first = shapes.first().cloned().unwrap_or_default();
                let a = normalize(*axis, first.rank())
                    .ok_or_else(|| self.unsupported("a concat axis out of range"))?;
                let mut total = 0usize;
                for sh in &shapes {
                    match sh.dims.get(a) {
                        Some(Dim::Fixed(n)) => total += n,
                        _ => {
                            return Err(
                                self.unsupported("a concat along a named (launch-bound) axis")
                            )
                        }
                    }
                }
                let mut dims = first.dims.clone();
                dims[a] = Dim::Fixed(total);
                ShapeTemplate::new(dims)
            }
            k @ (ExprKind::Iota { .. }
            | ExprKind::ArgReduce { .. }
            | ExprKind::TakeAlongAxis { .. }) => {
                return Err(self.unsupported(format!(
                    "{} is not lowered by the offline proposer yet",
                    k.indexing_construct().unwrap_or("an indexing construct")
                )))
            }
        })
    }

    /// When the reference concatenates along the last axis: (the outputs' last dim `D`,
    /// the segment width `g`), `g` the gcd of `D` and every concat operand's width, so each
    /// of the `D / g` segments of an output lies inside one operand of every concat.
    fn segments(&self) -> Result<Option<(usize, usize)>, SynthError> {
        let mut widths = Vec::new();
        let mut err = None;
        let mut reduces = false;
        self.op.reference.any_node(|e| {
            if matches!(e.kind, ExprKind::Reduce { .. }) {
                reduces = true;
            }
            let ExprKind::Concat { operands, axis } = &e.kind else {
                return false;
            };
            let rank = match self.shape(e) {
                Ok(s) => s.rank(),
                Err(x) => {
                    err = err.take().or(Some(x));
                    return false;
                }
            };
            if normalize(*axis, rank) != Some(rank.saturating_sub(1)) {
                err = err.take().or(Some(self.unsupported(format!(
                    "concat along axis {axis}: the proposer lowers concats along the last axis only"
                ))));
                return false;
            }
            for o in operands {
                match self.shape(o).map(|s| s.dims.last().cloned()) {
                    Ok(Some(Dim::Fixed(n))) => widths.push(n),
                    Ok(_) => {
                        err = err.take().or(Some(
                            self.unsupported("a concat operand without a fixed last axis"),
                        ))
                    }
                    Err(x) => err = err.take().or(Some(x)),
                }
            }
            false
        });
        if let Some(e) = err {
            return Err(e);
        }
        if widths.is_empty() {
            return Ok(None);
        }
        if reduces {
            return Err(self.unsupported(
                "a reduction in an op with a last-axis concat (its outputs are written in column segments, which do not hold whole rows)",
            ));
        }
        let mut d = None;
        for o in &self.op.outputs {
            match (o.decl.shape.dims.last(), d) {
                (Some(Dim::Fixed(n)), None) => d = Some(*n),
                (Some(Dim::Fixed(n)), Some(m)) if *n == m => {}
                _ => return Err(self.unsupported(
                    "a last-axis concat in an op whose outputs do not all have one fixed last dim",
                )),
            }
        }
        let d = d.unwrap_or(1);
        fn gcd(a: usize, b: usize) -> usize {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let g = widths.iter().fold(d, |acc, &w| gcd(acc, w)).max(1);
        if d / g > MAX_SEGMENTS {
            return Err(self.unsupported(format!(
                "a last-axis concat of widths {widths:?} into {d} columns needs {} segments of {g} columns (the proposer writes at most {MAX_SEGMENTS})",
                d / g
            )));
        }
        Ok(Some((d, g)))
    }
}

/// Most column segments a last-axis concat's output is written in.
const MAX_SEGMENTS: usize = 16;

/// `x` when `e` is `1 + exp(x)` or `exp(x) + 1`.
fn softplus_arg<'a>(e: &'a Expr) -> Option<&'a Expr> {
    let ExprKind::Binary {
        op: BinaryOp::Add,
        lhs,
        rhs,
    } = &e.kind
    else {
        return None;
    };
    let exp_arg = |x: &'a Expr| -> Option<&'a Expr> {
        match &x.kind {
            ExprKind::Call {
                func: Func::Exp,
                args,
            } => args.first(),
            _ => None,
        }
    };
    let one = |x: &Expr| matches!(x.kind, ExprKind::Number(v) if v == 1.0);
    if one(lhs) {
        exp_arg(rhs)
    } else if one(rhs) {
        exp_arg(lhs)
    } else {
        None
    }
}

fn normalize(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

/// Builds a program over the domain `lead ++ [cols]`.
struct Builder<'c, 'a> {
    ctx: &'c Ctx<'a>,
    lead: Vec<Dim>,
    cols: Dim,
    nodes: Vec<Node>,
    memo: HashMap<String, usize>,
    /// When the outputs are written in column segments (a last-axis `concat`): the columns
    /// `[first, first + width)` of the value being lowered that this program computes.
    window: Option<(usize, usize)>,
}

impl Builder<'_, '_> {
    fn push(&mut self, op: Op, level: Level) -> usize {
        if let Some(i) = self.nodes.iter().position(|n| n.op == op) {
            return i;
        }
        self.nodes.push(Node { op, level });
        self.nodes.len() - 1
    }

    fn level(&self, i: usize) -> Level {
        self.nodes[i].level
    }

    /// Classifies an input of shape `s` in this domain; `pitch` is a view's row pitch (its
    /// parent's last dim), which then is the unit of the row offsets.
    fn access(
        &self,
        name: &str,
        s: &ShapeTemplate,
        pitch: Option<&Dim>,
    ) -> Result<(Access, Level), SynthError> {
        let rank = self.lead.len() + 1;
        if s.rank() > rank {
            return Err(self
                .ctx
                .unsupported(format!("input `{name}` has more axes than the row domain")));
        }
        let dims = align(s, rank);
        let last = dims[rank - 1].clone();
        let in_lead = &dims[..rank - 1];
        let all_lead_one = in_lead.iter().all(is_one);
        let row_like = last == self.cols && !is_one(&self.cols);
        if !row_like && !is_one(&last) {
            // (a [C] vector in a domain of one row is that row, handled below)
            return Err(self.ctx.unsupported(format!(
                "input `{name}`: last axis {last} neither the row length {} nor 1",
                self.cols
            )));
        }
        if all_lead_one && !self.lead.iter().all(is_one) {
            return Ok(if row_like {
                (Access::Vec, Level::Row)
            } else {
                (Access::Uniform, Level::Uniform)
            });
        }
        if all_lead_one && !row_like {
            return Ok((Access::Uniform, Level::Uniform));
        }
        // Row offset: sum over leading axes of index_i * stride_i.
        let contiguous = in_lead.iter().zip(&self.lead).all(|(a, b)| a == b);
        let unit = match pitch {
            Some(p) => dim_code(p),
            None if row_like => dim_code(&self.cols),
            None => "1u".into(),
        };
        let offset = if contiguous {
            format!("(ROW) * {unit}")
        } else {
            let mut terms = Vec::new();
            for i in 0..in_lead.len() {
                if is_one(&in_lead[i]) {
                    continue;
                }
                if in_lead[i] != self.lead[i] {
                    return Err(self.ctx.unsupported(format!(
                        "input `{name}`: axis {i} ({}) does not broadcast against {}",
                        in_lead[i], self.lead[i]
                    )));
                }
                let inner = prod_code(&self.lead[i + 1..]);
                let stride = prod_code(&in_lead[i + 1..]);
                terms.push(format!(
                    "(((ROW) / {inner}) % {}) * {stride} * {unit}",
                    dim_code(&self.lead[i])
                ));
            }
            if terms.is_empty() {
                "0u".into()
            } else {
                terms.join(" + ")
            }
        };
        // Trailing leading axes the tensor shares with the domain: consecutive tensor rows.
        let shared = in_lead
            .iter()
            .zip(&self.lead)
            .rev()
            .take_while(|(a, b)| a == b)
            .count();
        let run_dims = &self.lead[self.lead.len() - shared..];
        let run = (!contiguous && !run_dims.iter().all(is_one)).then(|| prod_code(run_dims));
        Ok(if row_like {
            (
                Access::Row {
                    offset,
                    contiguous,
                    run,
                    pitch: pitch.map(dim_code),
                },
                Level::Row,
            )
        } else {
            (Access::RowScalar(offset), Level::RowScalar)
        })
    }

    /// Lowers `e`; inside a column segment ([`Builder::window`]) every operand with columns
    /// is re-sliced to the segment's columns: an input becomes a view of those columns, a
    /// slice a view shifted by its start, a `concat` the operand the segment falls in.
    /// Values without columns (scalars, `[…, 1]`) are the same in every segment.
    fn lower(&mut self, e: &Expr) -> Result<usize, SynthError> {
        let Some((a, w)) = self.window else {
            return self.lower_node(e);
        };
        if matches!(e.kind, ExprKind::Reduce { .. }) {
            return Err(self
                .ctx
                .unsupported("a reduction in an op whose outputs are written in concat segments"));
        }
        let s = self.ctx.shape(e)?;
        if s.dims.last().is_none_or(is_one) {
            self.window = None;
            let r = self.lower_node(e);
            self.window = Some((a, w));
            return r;
        }
        match &e.kind {
            ExprKind::Name(n) if !self.ctx.attrs.contains_key(n) => {
                let key = format!("{n}@{a}");
                if let Some(&i) = self.memo.get(&key) {
                    return Ok(i);
                }
                let i = if self.ctx.op.input(n).is_some() {
                    self.view(n, a, w)?
                } else if let Some(d) = self.ctx.defs.get(n) {
                    self.lower(d)?
                } else {
                    return Err(self.ctx.unsupported(format!("unknown name `{n}`")));
                };
                self.memo.insert(key, i);
                Ok(i)
            }
            ExprKind::Subscript { operand, items } => {
                let ExprKind::Name(n) = &operand.kind else {
                    return Err(self.ctx.unsupported(
                        "a subscript of a computed value: the proposer lowers subscripts of inputs only (their slices are read as GM views)",
                    ));
                };
                match self.ctx.slice_of(n, items)? {
                    Slice::Whole => self.view(n, a, w),
                    Slice::Cols { first, count } if a + w <= count => self.view(n, first + a, w),
                    Slice::Cols { .. } => Err(self
                        .ctx
                        .unsupported("a concat segment outside the slice it reads")),
                }
            }
            ExprKind::Concat { operands, .. } => {
                let mut off = 0usize;
                for o in operands {
                    let ow = match self.ctx.shape(o)?.dims.last() {
                        Some(Dim::Fixed(n)) => *n,
                        _ => {
                            return Err(self
                                .ctx
                                .unsupported("a concat operand whose last axis is not fixed"))
                        }
                    };
                    if a >= off && a + w <= off + ow {
                        self.window = Some((a - off, w));
                        let r = self.lower(o);
                        self.window = Some((a, w));
                        return r;
                    }
                    off += ow;
                }
                Err(self
                    .ctx
                    .unsupported("a concat segment that straddles two operands"))
            }
            _ => self.lower_node(e),
        }
    }

    fn lower_node(&mut self, e: &Expr) -> Result<usize, SynthError> {
        Ok(match &e.kind {
            ExprKind::Number(v) => self.push(Op::Const(*v), Level::Uniform),
            ExprKind::Name(n) => {
                if let Some(v) = self.ctx.attrs.get(n) {
                    self.push(Op::Const(*v), Level::Uniform)
                } else if let Some(&i) = self.memo.get(n) {
                    i
                } else if let Some(input) = self.ctx.op.input(n) {
                    let (access, level) = self.access(n, &input.decl.shape, None)?;
                    let i = self.push(
                        Op::Input {
                            name: n.clone(),
                            access,
                        },
                        level,
                    );
                    self.memo.insert(n.clone(), i);
                    i
                } else if let Some(d) = self.ctx.defs.get(n) {
                    let i = self.lower(d)?;
                    self.memo.insert(n.clone(), i);
                    i
                } else {
                    return Err(self.ctx.unsupported(format!("unknown name `{n}`")));
                }
            }
            ExprKind::Neg(a) => self.un(Un::Neg, a)?,
            ExprKind::Cast { operand, dtype } => {
                if !dtype.is_float() {
                    return Err(self.ctx.unsupported("cast to an integer dtype"));
                }
                self.lower(operand)?
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if *op == BinaryOp::Mul && self.ctx.fast_math {
                    if let Some(y) = self.mish(lhs, rhs)? {
                        return Ok(y);
                    }
                }
                let b = match op {
                    BinaryOp::Add => Bin::Add,
                    BinaryOp::Sub => Bin::Sub,
                    BinaryOp::Mul => Bin::Mul,
                    BinaryOp::Div => Bin::Div,
                    BinaryOp::Pow => Bin::Pow,
                    c => Bin::Cmp(*c),
                };
                let l = self.lower(lhs)?;
                let r = self.lower(rhs)?;
                self.bin(b, l, r)
            }
            ExprKind::Call { func, args } => match func {
                Func::Exp => self.un(Un::Exp, &args[0])?,
                Func::Log => match softplus_arg(&args[0]) {
                    // log(1 + exp(x)) overflows in fp32 for x > 88: lower the stable form
                    // max(x, 0) + log(1 + exp(-|x|)).
                    Some(x) => {
                        let x = self.lower(x)?;
                        let lx = self.level(x);
                        let ax = self.push(Op::Un(Un::Abs, x), lx);
                        let nax = self.push(Op::Un(Un::Neg, ax), lx);
                        let ex = self.push(Op::Un(Un::Exp, nax), lx);
                        let one = self.push(Op::Const(1.0), Level::Uniform);
                        let zero = self.push(Op::Const(0.0), Level::Uniform);
                        let s1 = self.bin(Bin::Add, ex, one);
                        let lg = self.push(Op::Un(Un::Log, s1), lx);
                        let m = self.bin(Bin::Max, x, zero);
                        let y = self.bin(Bin::Add, m, lg);
                        // The reference is evaluated in f64, where exp overflows past
                        // ln(f64::MAX): keep its +inf there.
                        let lim = self.push(Op::Const(f64::MAX.ln()), Level::Uniform);
                        let over = self.bin(Bin::Cmp(BinaryOp::Gt), x, lim);
                        let inf = self.push(Op::Const(f64::INFINITY), Level::Uniform);
                        let level = self.level(over).max(self.level(y));
                        self.push(Op::Where(over, inf, y), level)
                    }
                    None => self.un(Un::Log, &args[0])?,
                },
                Func::Sqrt => self.un(Un::Sqrt, &args[0])?,
                Func::Rsqrt => self.un(Un::Rsqrt, &args[0])?,
                Func::Tanh => self.un(Un::Tanh, &args[0])?,
                Func::Erf => self.un(Un::Erf, &args[0])?,
                Func::Sigmoid => self.un(Un::Sigmoid, &args[0])?,
                Func::Abs => self.un(Un::Abs, &args[0])?,
                Func::Max | Func::Min => {
                    let a = self.lower(&args[0])?;
                    let b = self.lower(&args[1])?;
                    self.bin(
                        if *func == Func::Max {
                            Bin::Max
                        } else {
                            Bin::Min
                        },
                        a,
                        b,
                    )
                }
                Func::Clamp => {
                    let x = self.lower(&args[0])?;
                    let lo = self.lower(&args[1])?;
                    let hi = self.lower(&args[2])?;
                    let m = self.bin(Bin::Max, x, lo);
                    self.bin(Bin::Min, m, hi)
                }
                Func::Where => {
                    let c = self.lower(&args[0])?;
                    let a = self.lower(&args[1])?;
                    let b = self.lower(&args[2])?;
                    let level = self.level(c).max(self.level(a)).max(self.level(b));
                    self.push(Op::Where(c, a, b), level)
                }
            },
            ExprKind::Reduce {
                op, operand, axis, ..
            } => {
                let s = self.ctx.shape(operand)?;
                let Some(axis) = axis else {
                    return Err(self.ctx.unsupported("a reduction over every axis"));
                };
                let a = normalize(*axis, s.rank())
                    .ok_or_else(|| self.ctx.unsupported("a reduction axis out of range"))?;
                if a + 1 == s.rank() {
                    let x = self.lower(operand)?;
                    match self.level(x) {
                        // Reducing a size-1 axis is the identity.
                        Level::Uniform | Level::RowScalar => x,
                        Level::Row => self.push(Op::RedLast(*op, x), Level::RowScalar),
                    }
                } else {
                    self.red_mid(*op, operand, &s, a)?
                }
            }
            ExprKind::Subscript { operand, items } => {
                let ExprKind::Name(n) = &operand.kind else {
                    return Err(self.ctx.unsupported(
                        "a subscript of a computed value: the proposer lowers subscripts of inputs only (their slices are read as GM views)",
                    ));
                };
                match self.ctx.slice_of(n, items)? {
                    Slice::Whole => self.lower(operand)?,
                    Slice::Cols { first, count } => self.view(n, first, count)?,
                }
            }
            k @ (ExprKind::Concat { .. }
            | ExprKind::Iota { .. }
            | ExprKind::ArgReduce { .. }
            | ExprKind::TakeAlongAxis { .. }) => {
                return Err(self.ctx.unsupported(format!(
                    "{} is not lowered by the offline proposer yet",
                    k.indexing_construct().unwrap_or("an indexing construct")
                )))
            }
        })
    }

    /// The node reading columns `[first, first + count)` of input `parent` (a GM view).
    fn view(&mut self, parent: &str, first: usize, count: usize) -> Result<usize, SynthError> {
        let input = self
            .ctx
            .op
            .input(parent)
            .ok_or_else(|| self.ctx.unsupported(format!("unknown input `{parent}`")))?;
        let full = &input.decl.shape;
        let Some(pitch) = full.dims.last().cloned() else {
            return Err(self
                .ctx
                .unsupported(format!("a subscript of the scalar input `{parent}`")));
        };
        if first == 0 && Dim::Fixed(count) == pitch {
            let window = self.window.take();
            let r = self.lower(&Expr {
                kind: ExprKind::Name(parent.to_string()),
                span: Default::default(),
            });
            self.window = window;
            return r;
        }
        let name = format!("{parent}__c{first}_{count}");
        if let Some(&i) = self.memo.get(&name) {
            return Ok(i);
        }
        let mut dims = full.dims.clone();
        *dims.last_mut().expect("rank >= 1") = Dim::Fixed(count);
        let (access, level) = self.access(&name, &ShapeTemplate::new(dims), Some(&pitch))?;
        {
            let mut views = self.ctx.views.borrow_mut();
            if !views.iter().any(|v| v.name == name) {
                views.push(View {
                    name: name.clone(),
                    parent: parent.to_string(),
                    first,
                });
            }
        }
        let i = self.push(
            Op::Input {
                name: name.clone(),
                access,
            },
            level,
        );
        self.memo.insert(name, i);
        Ok(i)
    }

    fn red_mid(
        &mut self,
        op: ReduceOp,
        operand: &Expr,
        s: &ShapeTemplate,
        a: usize,
    ) -> Result<usize, SynthError> {
        let n = s.rank();
        let s_lead = &s.dims[..n - 1];
        let s_last = s.dims[n - 1].clone();
        // The operand's leading dims without the reduced axis must be this domain's.
        let mut rest: Vec<Dim> = s_lead.to_vec();
        rest.remove(a);
        let strip = |v: &[Dim]| -> Vec<Dim> {
            let k = v.iter().take_while(|d| is_one(d)).count();
            v[k..].to_vec()
        };
        if strip(&rest) != strip(&self.lead) {
            return Err(self.ctx.unsupported(
                "a reduction over a leading axis whose result is not the output's row space",
            ));
        }
        let level = if s_last == self.cols && !is_one(&self.cols) {
            Level::Row
        } else if is_one(&s_last) {
            Level::RowScalar
        } else {
            return Err(self
                .ctx
                .unsupported("a leading-axis reduction over rows of another length"));
        };
        let mut sub = Builder {
            ctx: self.ctx,
            lead: s_lead.to_vec(),
            cols: s_last,
            nodes: Vec::new(),
            memo: HashMap::new(),
            window: None,
        };
        let root = sub.lower(operand)?;
        if sub
            .nodes
            .iter()
            .any(|n| matches!(n.op, Op::RedLast(..) | Op::RedMid { .. }))
        {
            return Err(self
                .ctx
                .unsupported("nested reductions inside a leading-axis reduction"));
        }
        let count = dim_code(&s_lead[a]);
        let inner = prod_code(&s_lead[a + 1..]);
        let sub = Program {
            lead: sub.lead,
            cols: sub.cols,
            nodes: sub.nodes,
            root,
        };
        let level = level.max(Level::RowScalar);
        self.nodes.push(Node {
            op: Op::RedMid {
                op,
                sub: Box::new(sub),
                count,
                inner,
            },
            level,
        });
        Ok(self.nodes.len() - 1)
    }

    /// Mish `x · tanh(log(1 + exp(x)))` (either operand order) in its one-exp form
    /// `x · n / (n + 2)`, `n = w (w + 2)`, `w = exp(min(x, 20))`: tanh(log(1 + w)) =
    /// ((1 + w)² − 1) / ((1 + w)² + 1); past x = 20 the ratio is 1 in fp32, and the clamp
    /// keeps `n` finite. None when `lhs · rhs` is not mish.
    fn mish(&mut self, lhs: &Expr, rhs: &Expr) -> Result<Option<usize>, SynthError> {
        let inner = |e: &'_ Expr| -> Option<Expr> {
            let ExprKind::Call {
                func: Func::Tanh,
                args,
            } = &e.kind
            else {
                return None;
            };
            let ExprKind::Call {
                func: Func::Log,
                args: largs,
            } = &args.first()?.kind
            else {
                return None;
            };
            softplus_arg(largs.first()?).cloned()
        };
        for (x, t) in [(lhs, rhs), (rhs, lhs)] {
            let Some(arg) = inner(t) else { continue };
            let xi = self.lower(x)?;
            let ai = self.lower(&arg)?;
            if xi != ai {
                continue;
            }
            let lx = self.level(xi);
            let twenty = self.push(Op::Const(20.0), Level::Uniform);
            let two = self.push(Op::Const(2.0), Level::Uniform);
            let m = self.bin(Bin::Min, xi, twenty);
            let wv = self.push(Op::Un(Un::Exp, m), lx);
            let w2 = self.bin(Bin::Add, wv, two);
            let n = self.bin(Bin::Mul, wv, w2);
            let n2 = self.bin(Bin::Add, n, two);
            let q = self.bin(Bin::Div, n, n2);
            return Ok(Some(self.bin(Bin::Mul, xi, q)));
        }
        Ok(None)
    }

    fn un(&mut self, u: Un, a: &Expr) -> Result<usize, SynthError> {
        let x = self.lower(a)?;
        Ok(self.push(Op::Un(u, x), self.level(x)))
    }

    fn bin(&mut self, b: Bin, l: usize, r: usize) -> usize {
        let level = self.level(l).max(self.level(r));
        self.push(Op::Bin(b, l, r), level)
    }
}

/// Lowers `op` to its row program.
pub(crate) fn lower(op: &OpSpec, fast_math: bool) -> Result<Lowered, SynthError> {
    let unsupported = |reason: String| SynthError::Unsupported {
        op: op.name.clone(),
        reason,
    };
    // Subscripts (last-axis slices of inputs, read as GM views) are lowered below; the
    // other indexing constructs are not.
    let mut construct = None;
    op.reference.any_node(|e| {
        if !matches!(e.kind, ExprKind::Subscript { .. } | ExprKind::Concat { .. }) {
            construct = construct.or(e.kind.indexing_construct());
        }
        false
    });
    if let Some(c) = construct {
        return Err(unsupported(format!(
            "the reference uses {c}, which the offline proposer does not lower yet (it lowers elementwise maps, broadcasts, reductions over rows, step-1 last-axis slices of inputs and last-axis concats of them)"
        )));
    }
    for o in &op.outputs {
        if !o.decl.dtype.is_float() {
            return Err(unsupported(format!(
                "output `{}` has dtype {}: the proposer handles f16, bf16 and f32",
                o.name,
                o.decl.dtype.as_str()
            )));
        }
    }
    let mut defs = HashMap::new();
    for s in &op.reference.statements {
        defs.insert(s.target.name.clone(), &s.value);
    }
    let ctx = Ctx {
        op,
        fast_math,
        defs,
        attrs: op.attr_values(),
        views: RefCell::new(Vec::new()),
    };
    // Domain: the broadcast of every output shape and of the shapes of the outputs'
    // expressions before any last-axis reduction; outputs of rank one less are per-row.
    let mut dom = ShapeTemplate::default();
    for o in &op.outputs {
        dom = broadcast(&dom, &o.decl.shape);
    }
    // Widen with inputs that broadcast to the outputs' rank with extra columns (row-wise
    // reductions to [R] or [R, 1]).
    let has_mid = op.reference.any_node(|e| {
        if let ExprKind::Reduce {
            axis: Some(a),
            operand,
            ..
        } = &e.kind
        {
            ctx.shape(operand)
                .ok()
                .and_then(|s| normalize(*a, s.rank()).map(|n| n + 1 != s.rank()))
                .unwrap_or(false)
        } else {
            false
        }
    });
    if !has_mid {
        let mut widest = dom.clone();
        // Inputs read whole widen the domain; sliced inputs widen it by their slices' shapes.
        let (whole, sliced) = leaf_shapes(&ctx, &op.reference.statements);
        for i in &op.inputs {
            if whole.contains(&i.name) {
                widest = broadcast_loose(&widest, &i.decl.shape);
            }
        }
        for s in &sliced {
            widest = broadcast_loose(&widest, s);
        }
        if widest != dom {
            // The outputs are per-row values of the inputs' domain.
            dom = widest;
        }
    }
    if dom.rank() == 0 {
        dom = ShapeTemplate::new(vec![Dim::Fixed(1)]);
    }
    // A last-axis concat: the domain is one column segment of the outputs.
    let segments = ctx.segments()?;
    if let Some((_, g)) = segments {
        let r = dom.rank();
        dom.dims[r - 1] = Dim::Fixed(g);
    }
    let lead = dom.dims[..dom.rank() - 1].to_vec();
    let cols = dom.dims[dom.rank() - 1].clone();
    let mut b = Builder {
        ctx: &ctx,
        lead,
        cols,
        nodes: Vec::new(),
        memo: HashMap::new(),
        window: None,
    };
    let mut outputs = Vec::new();
    let mut out_views: Vec<View> = Vec::new();
    for o in &op.outputs {
        let st = op
            .reference
            .statement(&o.name)
            .ok_or_else(|| unsupported(format!("output `{}` is not assigned", o.name)))?;
        match segments {
            None => {
                let i = b.lower(&st.value)?;
                outputs.push((o.name.clone(), o.decl.dtype, i));
            }
            Some((d, g)) => {
                // One output view per segment: columns [k·g, (k+1)·g) of every row.
                for k in 0..d / g {
                    b.window = Some((k * g, g));
                    let i = b.lower(&st.value)?;
                    b.window = None;
                    let name = format!("{}__c{}_{g}", o.name, k * g);
                    out_views.push(View {
                        name: name.clone(),
                        parent: o.name.clone(),
                        first: k * g,
                    });
                    outputs.push((name, o.decl.dtype, i));
                }
            }
        }
    }
    let dtypes = op
        .inputs
        .iter()
        .map(|i| (i.name.clone(), i.decl.dtype))
        .collect();
    let flat = b.nodes.iter().all(|n| match &n.op {
        Op::RedLast(..) | Op::RedMid { .. } => false,
        Op::Input { access, .. } => matches!(
            access,
            Access::Uniform
                | Access::Row {
                    contiguous: true,
                    pitch: None,
                    ..
                }
        ),
        _ => true,
    }) && outputs
        .iter()
        .all(|(_, _, i)| b.nodes[*i].level == Level::Row)
        && op
            .outputs
            .iter()
            .all(|o| o.decl.shape.rank() == b.lead.len() + 1)
        && out_views.is_empty();
    let views = ctx.views.borrow().clone();
    let mut dtypes: HashMap<String, Dtype> = dtypes;
    for v in &views {
        if let Some(&d) = dtypes.get(&v.parent) {
            dtypes.insert(v.name.clone(), d);
        }
    }
    Ok(Lowered {
        prog: Program {
            lead: b.lead,
            cols: b.cols,
            nodes: b.nodes,
            root: 0,
        },
        outputs,
        dtypes,
        flat,
        views,
        out_views,
    })
}

/// The inputs the reference reads whole (a name outside any subscript, through
/// intermediates), and the shapes of its subscripts of inputs.
fn leaf_shapes(
    ctx: &Ctx,
    statements: &[crate::spec::reference::Statement],
) -> (Vec<String>, Vec<ShapeTemplate>) {
    fn walk(ctx: &Ctx, e: &Expr, whole: &mut Vec<String>, sliced: &mut Vec<ShapeTemplate>) {
        match &e.kind {
            ExprKind::Name(n) => {
                if ctx.op.input(n).is_some() && !whole.contains(n) {
                    whole.push(n.clone());
                }
            }
            ExprKind::Subscript { operand, .. } if matches!(operand.kind, ExprKind::Name(_)) => {
                if let Ok(s) = ctx.shape(e) {
                    sliced.push(s);
                }
            }
            _ => {
                for c in e.children() {
                    walk(ctx, c, whole, sliced);
                }
            }
        }
    }
    let mut whole = Vec::new();
    let mut sliced = Vec::new();
    for st in statements {
        walk(ctx, &st.value, &mut whole, &mut sliced);
    }
    (whole, sliced)
}

/// Broadcast where the input may have more trailing extent than the outputs (an output
/// `[R]` from an input `[R, C]`): aligns the input's leading dims with the output.
fn broadcast_loose(dom: &ShapeTemplate, input: &ShapeTemplate) -> ShapeTemplate {
    if input.rank() == dom.rank() + 1 && input.dims[..dom.rank()] == dom.dims[..] {
        return input.clone();
    }
    if input.rank() == dom.rank()
        && dom.rank() > 0
        && is_one(&dom.dims[dom.rank() - 1])
        && input.dims[..dom.rank() - 1] == dom.dims[..dom.rank() - 1]
    {
        return input.clone();
    }
    broadcast(dom, input)
}
