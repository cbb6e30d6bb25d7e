//! The reference language: numpy-like statements over an op's inputs and attrs that define
//! what the op computes. It is the golden model kernels are verified against, the input of
//! the pattern router, and (normalized) part of the op's [`Key`](crate::key::Key).
//!
//! ```text
//! # RMSNorm
//! ms = mean(x * x, axis=-1, keepdims=true)
//! y  = x * rsqrt(ms + eps) * gamma
//! ```
//!
//! - Statements `name = expression`, separated by newlines or `;`; `#` comments; newlines
//!   inside parentheses continue the expression. Every name is assigned once; outputs must
//!   be assigned, other targets are intermediates.
//! - Operators `+ - * / **`, unary `-`, comparisons `< <= > >= == !=` (1.0 or 0.0).
//!   Precedence: comparisons < `+ -` < `* /` < unary `-` < `**` (so `-x**2` is `-(x**2)`).
//! - Elementwise functions: `exp log sqrt rsqrt tanh erf sigmoid abs neg`, `max(a, b)`,
//!   `min(a, b)`, `clamp(x, lo, hi)`, `where(cond, a, b)`, `cast(x, f16)` (round to a dtype).
//! - Reductions `sum mean max min` of one argument with `axis=` (an integer, negative counts
//!   from the end; omitted = all axes) and `keepdims=true|false` (default false).
//! - Subscripts (numpy basic slicing, see [`subscript`]): `x[..., a:b]`, `x[..., a:b:s]`,
//!   `x[1:, ::-1]`, `x[..., 0]` — integer literals, negative ones counting from the end,
//!   omitted bounds, at most one `...`, an integer index drops its axis. A named dimension
//!   (bound at launch) can only be taken whole; fixed axes can be sliced freely. Empty
//!   slices are an error.
//! - `concat(a, b, …, axis=k)`: two or more operands of one rank, equal on every other axis,
//!   joined along a fixed-size axis `k` (required).
//! - `iota(x, axis=k)`: shaped like `x`, the index along axis `k` (an integer value), e.g. a
//!   causal mask `where(iota(s, axis=-1) > iota(s, axis=-2), -inf, s)`.
//! - `argmax(x, axis=k, keepdims=b)`, `argmin(…)`: the first index of the extreme (NaN
//!   counts as the extreme, as in numpy; omitted axis = flat row-major index), an integer
//!   value; declare its output `i32` (integer outputs are compared exactly).
//! - `take_along_axis(x, idx, axis=k)` (numpy's gather): `idx` has `x`'s rank, broadcasts on
//!   every other axis, and must be an integer value (an integer input or attr, `iota`,
//!   `argmax`/`argmin`, `cast(…, i32)`); negative indices count from the end.
//! - numpy broadcasting; attrs are scalars; numbers are f64 (`inf` is +infinity); integer
//!   values (indices) are exact.
//!
//! [`Reference::parse`] checks syntax, function names and arity; [`infer_shapes`] resolves
//! names and infers shapes; [`value_classes`] checks that indices are integers;
//! [`evaluate`] computes in f64. The offline proposer lowers step-1 slices of an input's
//! last axis (GM views) and last-axis `concat`s of elementwise expressions over them (column
//! segments); the eager decomposition keeps slices as views and runs a concat as one launch.
//! Other subscripts, `iota`, `argmax`/`argmin` and `take_along_axis` are not lowered yet:
//! both return `Unsupported` naming the construct ([`ExprKind::indexing_construct`]).

mod ast;
mod error;
mod eval;
mod infer;
mod lexer;
mod parser;
pub mod subscript;

pub use ast::{
    is_reserved, ArgOp, BinaryOp, Expr, ExprKind, Func, Ident, ReduceOp, Statement, SubscriptItem,
    RESERVED,
};
pub use error::{ReferenceError, ReferenceErrorKind, Span};
pub use eval::{binary_fn, broadcast_shapes, evaluate, unary_fn};
pub use infer::{infer_shapes, normalize_axis, shape_of, value_classes, ValueClass};

/// The deepest expression tree [`Reference::parse`] accepts (nesting of parentheses, calls
/// and unary minus, and length of operator chains). Walks over parsed trees may recurse.
pub const MAX_DEPTH: usize = 96;

/// A parsed reference: its source and statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The text as written in the manifest; every [`Span`] indexes into it.
    pub source: String,
    /// The statements in source order.
    pub statements: Vec<Statement>,
}

impl Reference {
    /// Parses `source`.
    ///
    /// # Errors
    /// The first syntax error: unexpected character or token, malformed or non-finite
    /// number, unbalanced parenthesis or bracket, chained comparison, nesting deeper than
    /// [`MAX_DEPTH`], an empty program, an empty subscript, a second `...`, a non-integer
    /// subscript item, a zero slice step; unknown function; wrong number of arguments;
    /// unknown, repeated or missing (`axis=` of `concat`, `iota`, `take_along_axis`) keyword
    /// argument; `cast` without a dtype name.
    pub fn parse(source: &str) -> Result<Reference, ReferenceError> {
        let tokens = lexer::lex(source)?;
        let statements = parser::Parser::new(tokens).program()?;
        if statements.is_empty() {
            return Err(ReferenceError::new(
                ReferenceErrorKind::Syntax,
                Span::new(0, source.len()),
                "the reference has no statement; write e.g. `y = x * 2`",
            ));
        }
        Ok(Reference {
            source: source.to_string(),
            statements,
        })
    }

    /// The statement that assigns `name`, if any.
    pub fn statement(&self, name: &str) -> Option<&Statement> {
        self.statements.iter().find(|s| s.target.name == name)
    }

    /// True when any statement contains a reduction (`sum`, `mean`, `max(x)`, `min(x)`;
    /// not `argmax`/`argmin`, which are [`ExprKind::ArgReduce`]).
    pub fn has_reduction(&self) -> bool {
        self.any_node(|e| matches!(e.kind, ExprKind::Reduce { .. }))
    }

    /// True when any node of any statement satisfies `pred`.
    pub fn any_node(&self, mut pred: impl FnMut(&Expr) -> bool) -> bool {
        let mut found = false;
        for s in &self.statements {
            s.value.walk(&mut |e| found |= pred(e));
        }
        found
    }

    /// Every name read by some statement (inputs, attrs and intermediates).
    pub fn names_read(&self) -> std::collections::BTreeSet<&str> {
        let mut out = std::collections::BTreeSet::new();
        for s in &self.statements {
            s.value.walk(&mut |e| {
                if let ExprKind::Name(n) = &e.kind {
                    out.insert(n.as_str());
                }
            });
        }
        out
    }

    /// The statements printed back in canonical syntax, one per line (see `Display` for
    /// [`Expr`]).
    pub fn to_canonical_source(&self) -> String {
        let lines: Vec<String> = self.statements.iter().map(|s| s.to_string()).collect();
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests;
