//! Compute patterns (DESIGN §7): the declared `pattern` field, and a first guess from the
//! reference's shape of computation when none is declared.

use std::fmt;
use std::str::FromStr;

use super::reference::{ExprKind, Func, ReduceOp, Reference};
use super::shape::ShapeTemplate;

/// A compute pattern the knowledge base groups exemplars and tiling strategies by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Same-shape inputs and output, one element in, one out.
    Elementwise,
    /// Elementwise with inputs of different shapes broadcast together.
    Broadcast,
    /// Reductions whose results are the outputs.
    Reduction,
    /// A reduction broadcast back over its input and combined with it, with a square root
    /// (RMSNorm, LayerNorm).
    Normalization,
    /// exp of max-subtracted values divided by their sum.
    Softmax,
    /// Several outputs, or several of the above chained.
    Fusion,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 6] = [
        Pattern::Elementwise,
        Pattern::Broadcast,
        Pattern::Reduction,
        Pattern::Normalization,
        Pattern::Softmax,
        Pattern::Fusion,
    ];

    /// The pattern's name in manifests and `knowledge/patterns.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Elementwise => "elementwise",
            Pattern::Broadcast => "broadcast",
            Pattern::Reduction => "reduction",
            Pattern::Normalization => "normalization",
            Pattern::Softmax => "softmax",
            Pattern::Fusion => "fusion",
        }
    }

    /// A first guess from the reference, the declared shapes of the inputs and outputs
    /// (`outputs` in any order). This is a heuristic for reports; the pattern router of
    /// `knowledge` decides for real.
    ///
    /// - no reduction (`argmax`/`argmin` count as one): `elementwise` when every input has
    ///   the shape of the first output, else `broadcast`;
    /// - `exp` with both a `max` and a `sum` reduction: `softmax`;
    /// - a reduction with `sqrt`/`rsqrt` and more than one output: `fusion`; with one output:
    ///   `normalization`;
    /// - otherwise one output: `reduction`; several: `fusion`.
    pub fn guess(
        reference: &Reference,
        inputs: &[&ShapeTemplate],
        outputs: &[&ShapeTemplate],
    ) -> Pattern {
        let mut reduces = Vec::new();
        let (mut exp, mut root, mut arg) = (false, false, false);
        reference.any_node(|e| {
            match &e.kind {
                ExprKind::Reduce { op, .. } => reduces.push(*op),
                ExprKind::ArgReduce { .. } => arg = true,
                ExprKind::Call {
                    func: Func::Exp, ..
                } => exp = true,
                ExprKind::Call {
                    func: Func::Sqrt | Func::Rsqrt,
                    ..
                } => root = true,
                _ => {}
            }
            false
        });
        if reduces.is_empty() && !arg {
            let first = outputs.first();
            return if inputs.iter().all(|s| Some(s) == first) {
                Pattern::Elementwise
            } else {
                Pattern::Broadcast
            };
        }
        if exp && reduces.contains(&ReduceOp::Max) && reduces.contains(&ReduceOp::Sum) {
            return Pattern::Softmax;
        }
        match (root, outputs.len()) {
            (true, 1) => Pattern::Normalization,
            (false, 1) => Pattern::Reduction,
            _ => Pattern::Fusion,
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Pattern::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pattern `{0}` (expected one of elementwise, broadcast, reduction, normalization, softmax, fusion)")]
pub struct UnknownPattern(pub String);

impl FromStr for Pattern {
    type Err = UnknownPattern;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Pattern::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPattern(s.to_string()))
    }
}
