//! Verification tolerances and the op classes their defaults depend on.

use super::dtype::Dtype;
use super::reference::Reference;

/// How far a kernel's output may be from the golden output: an element passes when
/// `|out - golden| <= atol + rtol * |golden|` (numpy's `isclose`), compared in f64 after the
/// golden value is rounded to the output dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance, in units of the output's values.
    pub atol: f64,
    /// Relative tolerance, a fraction of |golden|.
    pub rtol: f64,
}

/// What kind of computation an op is, for default tolerances: reductions accumulate
/// rounding error over a whole axis, elementwise ops do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// No reduction: every output element depends on one element of each (broadcast) input.
    Elementwise,
    /// At least one reduction (`sum`, `mean`, `max`, `min`): plain reductions, norms,
    /// softmax.
    Reduction,
}

impl OpClass {
    /// The class of a reference: [`OpClass::Reduction`] when any statement reduces.
    pub fn of(reference: &Reference) -> OpClass {
        if reference.has_reduction() {
            OpClass::Reduction
        } else {
            OpClass::Elementwise
        }
    }
}

impl Tolerance {
    /// The default for an output of `dtype` in an op of `class`:
    ///
    /// | dtype | atol | rtol |
    /// |---|---|---|
    /// | f16 | 1e-3 | 1e-3 |
    /// | bf16 | 1e-2 | 5e-3 |
    /// | f32, elementwise | 1e-5 | 1e-5 |
    /// | f32, reduction/norm/softmax | 1e-4 | 1e-4 |
    /// | i32, i8, u8, bool | 0 | 0 (exact) |
    pub fn default_for(dtype: Dtype, class: OpClass) -> Tolerance {
        let (atol, rtol) = match (dtype, class) {
            (Dtype::F16, _) => (1e-3, 1e-3),
            (Dtype::Bf16, _) => (1e-2, 5e-3),
            (Dtype::F32, OpClass::Elementwise) => (1e-5, 1e-5),
            (Dtype::F32, OpClass::Reduction) => (1e-4, 1e-4),
            (Dtype::I32 | Dtype::I8 | Dtype::U8 | Dtype::Bool, _) => (0.0, 0.0),
        };
        Tolerance { atol, rtol }
    }

    /// True when `out` is within tolerance of `golden`; NaN matches only NaN, and an
    /// infinity only the same infinity.
    pub fn accepts(&self, out: f64, golden: f64) -> bool {
        if golden.is_nan() || out.is_nan() {
            return golden.is_nan() && out.is_nan();
        }
        if golden.is_infinite() || out.is_infinite() {
            return golden == out;
        }
        (out - golden).abs() <= self.atol + self.rtol * golden.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_issue() {
        let t = Tolerance::default_for(Dtype::F16, OpClass::Elementwise);
        assert_eq!((t.atol, t.rtol), (1e-3, 1e-3));
        let t = Tolerance::default_for(Dtype::Bf16, OpClass::Reduction);
        assert_eq!((t.atol, t.rtol), (1e-2, 5e-3));
        let t = Tolerance::default_for(Dtype::F32, OpClass::Elementwise);
        assert_eq!((t.atol, t.rtol), (1e-5, 1e-5));
        let t = Tolerance::default_for(Dtype::F32, OpClass::Reduction);
        assert_eq!((t.atol, t.rtol), (1e-4, 1e-4));
        assert!(t.accepts(1.0001, 1.0));
        assert!(!t.accepts(1.001, 1.0));
        assert!(t.accepts(f64::NAN, f64::NAN));
        assert!(!t.accepts(0.0, f64::NAN));
        assert!(!t.accepts(f64::INFINITY, 1e300));
    }
}
