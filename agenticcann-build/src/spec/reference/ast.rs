//! The typed syntax tree of a reference: statements of elementwise expressions, calls,
//! casts and reductions, each node with its source [`Span`].
//!
//! Trees built by [`Reference::parse`](super::Reference::parse) are at most
//! [`MAX_DEPTH`](super::MAX_DEPTH) levels deep, so recursive walks are safe.

use std::fmt;

use super::error::Span;
use crate::spec::dtype::Dtype;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// One statement `target = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The assigned name: an output or an intermediate.
    pub target: Ident,
    /// The assigned expression.
    pub value: Expr,
    /// The whole statement.
    pub span: Span,
}

/// An expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the node computes.
    pub kind: ExprKind,
    /// The source text it was parsed from.
    pub span: Span,
}

/// The kinds of expression. Every operation is elementwise with numpy broadcasting, except
/// [`ExprKind::Reduce`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A numeric literal (`2`, `0.5`, `1e-6`); integers and floats alike are f64 values.
    Number(f64),
    /// A reference to an input, an attr (a scalar) or an earlier statement's target.
    Name(String),
    /// Unary minus: `-x` and `neg(x)`.
    Neg(Box<Expr>),
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// A call of an elementwise function; `args.len() == func.arity()`.
    Call {
        /// The function.
        func: Func,
        /// The positional arguments.
        args: Vec<Expr>,
    },
    /// `cast(x, dtype)`: rounds every element to `dtype` as
    /// [`cast_to_dtype`](crate::spec::cast_to_dtype) does; the value stays f64.
    Cast {
        /// The value to round.
        operand: Box<Expr>,
        /// The dtype to round to.
        dtype: Dtype,
    },
    /// A reduction `sum/mean/max/min(x, axis=a, keepdims=k)`.
    Reduce {
        /// Which reduction.
        op: ReduceOp,
        /// The reduced value.
        operand: Box<Expr>,
        /// The axis as written (negative counts from the end); `None` reduces every axis.
        axis: Option<i64>,
        /// Keep the reduced axis with size 1 (`keepdims=true`); default false.
        keepdims: bool,
    },
    /// A numpy subscript `x[…]`: basic slicing (`a:b:s`), integer indices (which drop their
    /// axis) and at most one `...`. Items apply to the leading axes after `...` is expanded;
    /// axes without an item are taken whole.
    Subscript {
        /// The subscripted value.
        operand: Box<Expr>,
        /// The items between the brackets, as written.
        items: Vec<SubscriptItem>,
    },
    /// `concat(a, b, …, axis=k)`: the operands joined along axis `k` (numpy `concatenate`;
    /// equal ranks, equal sizes on every other axis, no broadcasting).
    Concat {
        /// Two or more operands, in order.
        operands: Vec<Expr>,
        /// The axis as written (negative counts from the end).
        axis: i64,
    },
    /// `iota(x, axis=k)`: shaped like `x`, each element its index along axis `k` (0, 1, …);
    /// an integer value. `x`'s values are not read.
    Iota {
        /// The value whose shape the result takes.
        operand: Box<Expr>,
        /// The axis as written (negative counts from the end).
        axis: i64,
    },
    /// `argmax(x, axis=k, keepdims=b)` / `argmin(…)`: the index of the first maximum
    /// (minimum) along the axis; NaN counts as the extreme, as in numpy. An integer value.
    ArgReduce {
        /// Which one.
        op: ArgOp,
        /// The searched value.
        operand: Box<Expr>,
        /// The axis as written; `None` gives the flat (row-major) index over every axis.
        axis: Option<i64>,
        /// Keep the reduced axis with size 1; default false.
        keepdims: bool,
    },
    /// `take_along_axis(x, idx, axis=k)` (numpy's): `out[…, j, …] = x[…, idx[…, j, …], …]`
    /// along axis `k`; `x` and `idx` have one rank and broadcast on every other axis; `idx`
    /// must be an integer value, negative indices count from the end.
    TakeAlongAxis {
        /// The gathered value.
        operand: Box<Expr>,
        /// The indices along `axis`.
        indices: Box<Expr>,
        /// The axis as written (negative counts from the end).
        axis: i64,
    },
}

/// One item of a [`ExprKind::Subscript`], as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubscriptItem {
    /// `...`: as many whole axes as needed so the items cover every axis.
    Ellipsis,
    /// `i`: the element at index `i` (negative counts from the end); the axis is dropped.
    Index(i64),
    /// `start:stop:step` with numpy's rules (negative bounds count from the end, bounds
    /// clip to the axis, omitted bounds run to the end in the step's direction; step ≠ 0,
    /// default 1).
    Slice {
        /// First index, if written.
        start: Option<i64>,
        /// One past the last index (in the step's direction), if written.
        stop: Option<i64>,
        /// The step, if written.
        step: Option<i64>,
    },
}

/// `argmax` or `argmin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// `argmax`
    Max,
    /// `argmin`
    Min,
}

impl ArgOp {
    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::Max => "argmax",
            ArgOp::Min => "argmin",
        }
    }
}

impl ExprKind {
    /// The name of a construct that is not elementwise-with-broadcasting or a reduction
    /// (`subscript`, `concat`, `iota`, `argmax`, `argmin`, `take_along_axis`): the shape
    /// and indexing constructs, which consumers that only handle elementwise maps and
    /// reductions (the offline proposer, the eager decomposition) name when they refuse.
    pub fn indexing_construct(&self) -> Option<&'static str> {
        match self {
            ExprKind::Subscript { .. } => Some("subscript `x[…]`"),
            ExprKind::Concat { .. } => Some("concat"),
            ExprKind::Iota { .. } => Some("iota"),
            ExprKind::ArgReduce { op, .. } => Some(op.name()),
            ExprKind::TakeAlongAxis { .. } => Some("take_along_axis"),
            _ => None,
        }
    }
}

/// Binary operators, in the language's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (true division)
    Div,
    /// `**` (power; right-associative, binds tighter than unary minus on its left)
    Pow,
    /// `<`, 1.0 when true else 0.0 (likewise for every comparison)
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl BinaryOp {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "**",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
        }
    }

    /// True for the six comparisons.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }

    /// Binding strength: comparisons 1, `+ -` 2, `* /` 3, `**` 5 (unary minus is 4).
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Add | BinaryOp::Sub => 2,
            BinaryOp::Mul | BinaryOp::Div => 3,
            BinaryOp::Pow => 5,
            _ => 1,
        }
    }
}

/// Elementwise functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    /// `exp(x)`
    Exp,
    /// `log(x)`, natural logarithm
    Log,
    /// `sqrt(x)`
    Sqrt,
    /// `rsqrt(x)` = 1 / sqrt(x)
    Rsqrt,
    /// `tanh(x)`
    Tanh,
    /// `erf(x)`, the Gauss error function
    Erf,
    /// `sigmoid(x)` = 1 / (1 + exp(-x))
    Sigmoid,
    /// `abs(x)`
    Abs,
    /// `max(a, b)`, elementwise; NaN if either is NaN (`max(x)` is a reduction)
    Max,
    /// `min(a, b)`, elementwise; NaN if either is NaN (`min(x)` is a reduction)
    Min,
    /// `clamp(x, lo, hi)` = min(max(x, lo), hi)
    Clamp,
    /// `where(cond, a, b)`: a where cond ≠ 0 (NaN counts as true), else b
    Where,
}

impl Func {
    /// Every function.
    pub const ALL: [Func; 12] = [
        Func::Exp,
        Func::Log,
        Func::Sqrt,
        Func::Rsqrt,
        Func::Tanh,
        Func::Erf,
        Func::Sigmoid,
        Func::Abs,
        Func::Max,
        Func::Min,
        Func::Clamp,
        Func::Where,
    ];

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Sqrt => "sqrt",
            Func::Rsqrt => "rsqrt",
            Func::Tanh => "tanh",
            Func::Erf => "erf",
            Func::Sigmoid => "sigmoid",
            Func::Abs => "abs",
            Func::Max => "max",
            Func::Min => "min",
            Func::Clamp => "clamp",
            Func::Where => "where",
        }
    }

    /// Number of positional arguments.
    pub fn arity(self) -> usize {
        match self {
            Func::Max | Func::Min => 2,
            Func::Clamp | Func::Where => 3,
            _ => 1,
        }
    }
}

/// Reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `sum`
    Sum,
    /// `mean` (sum / count; NaN over zero elements)
    Mean,
    /// `max` (NaN if any element is NaN; an error over zero elements)
    Max,
    /// `min` (NaN if any element is NaN; an error over zero elements)
    Min,
}

impl ReduceOp {
    /// The reduction's name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        }
    }
}

/// Words that cannot name inputs, outputs, attrs or intermediates: function and reduction
/// names, `neg`, `cast`, the shape and indexing functions, the dtype names, the boolean
/// literals and `inf`.
pub const RESERVED: [&str; 31] = [
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "tanh",
    "erf",
    "sigmoid",
    "abs",
    "max",
    "min",
    "clamp",
    "where",
    "neg",
    "cast",
    "sum",
    "mean",
    "concat",
    "iota",
    "argmax",
    "argmin",
    "take_along_axis",
    "f16",
    "bf16",
    "f32",
    "i32",
    "i8",
    "u8",
    "bool",
    "true",
    "false",
    "inf",
];

/// True when `name` is in [`RESERVED`] (or is `True`/`False`).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name) || name == "True" || name == "False"
}

impl Expr {
    /// Calls `f` on this node and every node below it, parents before children, operands
    /// left to right.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// The direct operands, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Number(_) | ExprKind::Name(_) => vec![],
            ExprKind::Neg(e) => vec![e],
            ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Cast { operand, .. }
            | ExprKind::Reduce { operand, .. }
            | ExprKind::Subscript { operand, .. }
            | ExprKind::Iota { operand, .. }
            | ExprKind::ArgReduce { operand, .. } => vec![operand],
            ExprKind::Concat { operands, .. } => operands.iter().collect(),
            ExprKind::TakeAlongAxis {
                operand, indices, ..
            } => vec![operand, indices],
        }
    }

    /// Binding strength when printed: atoms and calls 6, `**` 5, unary minus 4, then as
    /// [`BinaryOp::precedence`].
    fn precedence(&self) -> u8 {
        match &self.kind {
            ExprKind::Binary { op, .. } => op.precedence(),
            ExprKind::Neg(_) => 4,
            // A negative literal prints with a leading minus.
            ExprKind::Number(n) if n.is_sign_negative() => 4,
            _ => 6,
        }
    }
}

/// Prints the expression in the language's syntax with the fewest parentheses that keep its
/// structure: parsing the text gives the same tree (spans aside). Numbers print in Rust's
/// shortest round-trip form.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Number(n) => write_number(f, *n),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Neg(e) => {
                f.write_str("-")?;
                // `-x ** 2` parses as -(x**2); `- -x` needs a space or parentheses.
                write_operand(f, e, 4)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                if *op == BinaryOp::Pow {
                    // Right-associative; its left operand must bind tighter than unary minus.
                    write_operand(f, lhs, 6)?;
                    write!(f, " ** ")?;
                    write_operand(f, rhs, 4)
                } else if op.is_comparison() {
                    // Non-associative.
                    write_operand(f, lhs, p + 1)?;
                    write!(f, " {} ", op.symbol())?;
                    write_operand(f, rhs, p + 1)
                } else {
                    write_operand(f, lhs, p)?;
                    write!(f, " {} ", op.symbol())?;
                    write_operand(f, rhs, p + 1)
                }
            }
            ExprKind::Call { func, args } => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            ExprKind::Cast { operand, dtype } => write!(f, "cast({operand}, {dtype})"),
            ExprKind::Reduce {
                op,
                operand,
                axis,
                keepdims,
            } => write_reduction(f, op.name(), operand, *axis, *keepdims),
            ExprKind::Subscript { operand, items } => {
                write_operand(f, operand, 6)?;
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            ExprKind::Concat { operands, axis } => {
                f.write_str("concat(")?;
                for a in operands {
                    write!(f, "{a}, ")?;
                }
                write!(f, "axis={axis})")
            }
            ExprKind::Iota { operand, axis } => write!(f, "iota({operand}, axis={axis})"),
            ExprKind::ArgReduce {
                op,
                operand,
                axis,
                keepdims,
            } => write_reduction(f, op.name(), operand, *axis, *keepdims),
            ExprKind::TakeAlongAxis {
                operand,
                indices,
                axis,
            } => write!(f, "take_along_axis({operand}, {indices}, axis={axis})"),
        }
    }
}

/// Prints an item as it is written: `...`, `3`, `-1`, `:`, `1:`, `::2`, `a:b:s`.
impl fmt::Display for SubscriptItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubscriptItem::Ellipsis => f.write_str("..."),
            SubscriptItem::Index(i) => write!(f, "{i}"),
            SubscriptItem::Slice { start, stop, step } => {
                if let Some(a) = start {
                    write!(f, "{a}")?;
                }
                f.write_str(":")?;
                if let Some(b) = stop {
                    write!(f, "{b}")?;
                }
                if let Some(s) = step {
                    write!(f, ":{s}")?;
                }
                Ok(())
            }
        }
    }
}

fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if e.precedence() < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// A reduction call as written, `name(x, axis=a, keepdims=true)`, with the defaults (every
/// axis, keepdims false) left out: shared by the value reductions and `argmax`/`argmin`.
fn write_reduction(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    operand: &Expr,
    axis: Option<i64>,
    keepdims: bool,
) -> fmt::Result {
    write!(f, "{name}({operand}")?;
    if let Some(a) = axis {
        write!(f, ", axis={a}")?;
    }
    if keepdims {
        f.write_str(", keepdims=true")?;
    }
    f.write_str(")")
}

fn write_number(f: &mut fmt::Formatter<'_>, n: f64) -> fmt::Result {
    if n.is_finite() && n == n.trunc() && n.abs() < 1e15 && !(n == 0.0 && n.is_sign_negative()) {
        write!(f, "{}", n as i64)
    } else {
        write!(f, "{n:?}")
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.target.name, self.value)
    }
}
