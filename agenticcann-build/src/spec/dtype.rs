//! Element types of operator tensors and the rounding from the f64 golden model to them.

use std::fmt;
use std::str::FromStr;

/// The element type of an operator input or output.
///
/// Spelled in manifests as `f16`, `bf16`, `f32`, `i32`, `i8`, `u8`, `bool`; the Rust types the
/// generated wrappers use are `half::f16`, `half::bf16`, `f32`, `i32`, `i8`, `u8` and `bool`
/// (one byte, 0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits; max finite 65504.
    F16,
    /// bfloat16: 1 sign, 8 exponent, 7 mantissa bits (the upper half of an f32).
    Bf16,
    /// IEEE 754 binary32.
    F32,
    /// Two's complement 32-bit integer.
    I32,
    /// Two's complement 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Boolean stored in one byte (0 or 1).
    Bool,
}

impl Dtype {
    /// Every dtype, in the order the manifest documentation lists them.
    pub const ALL: [Dtype; 7] = [
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::I32,
        Dtype::I8,
        Dtype::U8,
        Dtype::Bool,
    ];

    /// The manifest spelling (`"f16"`, `"bf16"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::I32 => "i32",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::Bool => "bool",
        }
    }

    /// Size of one element in bytes (GM and UB layouts are dense).
    pub fn size_bytes(self) -> usize {
        match self {
            Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
        }
    }

    /// True for `f16`, `bf16` and `f32`.
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::Bf16 | Dtype::F32)
    }

    /// True for `i32`, `i8` and `u8`.
    pub fn is_int(self) -> bool {
        matches!(self, Dtype::I32 | Dtype::I8 | Dtype::U8)
    }

    /// The Rust type a generated wrapper uses for this dtype, as a path (`"half::f16"`, `"i32"`).
    pub fn rust_type(self) -> &'static str {
        match self {
            Dtype::F16 => "half::f16",
            Dtype::Bf16 => "half::bf16",
            Dtype::F32 => "f32",
            Dtype::I32 => "i32",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::Bool => "bool",
        }
    }

    /// The inclusive range of an integer dtype as f64 (`None` for floats and bool).
    pub fn int_range(self) -> Option<(f64, f64)> {
        match self {
            Dtype::I32 => Some((i32::MIN as f64, i32::MAX as f64)),
            Dtype::I8 => Some((i8::MIN as f64, i8::MAX as f64)),
            Dtype::U8 => Some((0.0, u8::MAX as f64)),
            _ => None,
        }
    }

    /// The largest finite value of a float dtype (`None` for non-floats).
    pub fn max_finite(self) -> Option<f64> {
        match self {
            Dtype::F16 => Some(65504.0),
            Dtype::Bf16 => Some(half::bf16::MAX.to_f64()),
            Dtype::F32 => Some(f32::MAX as f64),
            _ => None,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Dtype::from_str`]: the text is not one of the seven dtype names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown dtype `{0}` (expected one of f16, bf16, f32, i32, i8, u8, bool)")]
pub struct UnknownDtype(pub String);

impl FromStr for Dtype {
    type Err = UnknownDtype;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dtype::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownDtype(s.to_string()))
    }
}

/// Rounds an f64 value of the golden model to the nearest value of `dtype`, returned as f64.
///
/// The rules, which the judge applies to reference outputs before comparing them with a
/// kernel's, and which input generation applies so that inputs are exactly representable:
///
/// - `f16`, `bf16`: round to nearest, ties to even, directly from f64 (no double rounding
///   through f32); values beyond the largest finite value round to ±inf following IEEE 754
///   (a value at or above max + ½ulp becomes inf); subnormals are kept; NaN stays NaN.
///   The result is built with the `half` crate's types.
/// - `f32`: Rust's `as f32`, which is IEEE round-to-nearest-even.
/// - `i32`, `i8`, `u8`: round half to even (`f64::round_ties_even`, like `rint` and Ascend
///   C's `CAST_RINT`), then saturate to the type's range; NaN becomes 0.
/// - `bool`: 0 (and -0) is false → 0.0; anything else, NaN included, is true → 1.0 (C and
///   numpy truthiness).
pub fn cast_to_dtype(value: f64, dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F16 => {
            let r = round_to_precision(value, 11, -14, 65504.0);
            half::f16::from_f64_const(r).to_f64()
        }
        Dtype::Bf16 => {
            let r = round_to_precision(value, 8, -126, half::bf16::MAX.to_f64());
            half::bf16::from_f64_const(r).to_f64()
        }
        Dtype::F32 => value as f32 as f64,
        Dtype::I32 | Dtype::I8 | Dtype::U8 => {
            if value.is_nan() {
                return 0.0;
            }
            let (lo, hi) = dtype.int_range().expect("integer dtype has a range");
            value.round_ties_even().clamp(lo, hi)
        }
        Dtype::Bool => {
            if value == 0.0 {
                0.0
            } else {
                1.0
            }
        }
    }
}

/// Applies [`cast_to_dtype`] to every element of an array in place.
pub fn cast_array_to_dtype(array: &mut ndarray::ArrayD<f64>, dtype: Dtype) {
    array.mapv_inplace(|v| cast_to_dtype(v, dtype));
}

/// Rounds `value` to a binary float format with `precision` significand bits (hidden bit
/// included), minimum normal exponent `emin`, and largest finite value `max`, with
/// round-to-nearest-even, gradual underflow and overflow to infinity. Exact: every step is a
/// scaling by a power of two or an integer rounding.
fn round_to_precision(value: f64, precision: i32, emin: i32, max: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let biased = ((value.to_bits() >> 52) & 0x7ff) as i32;
    // f64 subnormals (|v| < 2^-1022) are far below every target's range: exponent = emin.
    let exponent = if biased == 0 {
        emin
    } else {
        (biased - 1023).max(emin)
    };
    let ulp = pow2(exponent - (precision - 1));
    let rounded = (value / ulp).round_ties_even() * ulp;
    if rounded.abs() > max {
        f64::INFINITY.copysign(value)
    } else {
        rounded
    }
}

/// 2^e as f64, exact for -1074 <= e <= 1023.
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes() {
        for d in Dtype::ALL {
            assert_eq!(d.as_str().parse::<Dtype>().unwrap(), d);
        }
        assert_eq!(Dtype::F16.size_bytes(), 2);
        assert_eq!(Dtype::Bf16.size_bytes(), 2);
        assert_eq!(Dtype::F32.size_bytes(), 4);
        assert_eq!(Dtype::I32.size_bytes(), 4);
        assert_eq!(Dtype::I8.size_bytes(), 1);
        assert_eq!(Dtype::U8.size_bytes(), 1);
        assert_eq!(Dtype::Bool.size_bytes(), 1);
        let err = "f61".parse::<Dtype>().unwrap_err();
        assert!(err.to_string().contains("unknown dtype `f61`"));
        assert!("F16".parse::<Dtype>().is_err());
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties to even → 1.
        assert_eq!(cast_to_dtype(1.0 + pow2(-11), Dtype::F16), 1.0);
        // 1 + 3·2^-11 is halfway between 1+2^-10 and 1+2^-9: ties to even → 1 + 2^-9.
        assert_eq!(
            cast_to_dtype(1.0 + 3.0 * pow2(-11), Dtype::F16),
            1.0 + pow2(-9)
        );
        // Just above the tie, by a bit that only f64 holds (below f32 precision): rounds up.
        // A conversion through f32 or one that drops the low mantissa word gets this wrong.
        assert_eq!(
            cast_to_dtype(1.0 + pow2(-11) + pow2(-40), Dtype::F16),
            1.0 + pow2(-10)
        );
        // Overflow: 65504 + 16 (half an ulp) rounds to inf; just below stays at max.
        assert_eq!(cast_to_dtype(65520.0, Dtype::F16), f64::INFINITY);
        assert_eq!(cast_to_dtype(65519.99, Dtype::F16), 65504.0);
        assert_eq!(cast_to_dtype(-1e6, Dtype::F16), f64::NEG_INFINITY);
        // Subnormals: the smallest f16 subnormal is 2^-24; half of it ties to 0 (even).
        assert_eq!(cast_to_dtype(pow2(-24), Dtype::F16), pow2(-24));
        assert_eq!(cast_to_dtype(pow2(-25), Dtype::F16), 0.0);
        assert_eq!(cast_to_dtype(pow2(-25) * 1.5, Dtype::F16), pow2(-24));
        assert!(cast_to_dtype(f64::NAN, Dtype::F16).is_nan());
        assert_eq!(
            cast_to_dtype(0.1, Dtype::F16),
            half::f16::from_f32(0.1).to_f64()
        );
    }

    #[test]
    fn bf16_and_f32_round_to_nearest_even() {
        assert_eq!(cast_to_dtype(1.0 + pow2(-8), Dtype::Bf16), 1.0);
        assert_eq!(
            cast_to_dtype(1.0 + 3.0 * pow2(-8), Dtype::Bf16),
            1.0 + pow2(-6)
        );
        assert_eq!(
            cast_to_dtype(1.0 + pow2(-8) + pow2(-50), Dtype::Bf16),
            1.0 + pow2(-7)
        );
        assert_eq!(
            cast_to_dtype(3.0e38, Dtype::Bf16),
            half::bf16::from_f32(3.0e38).to_f64()
        );
        assert_eq!(cast_to_dtype(1e39, Dtype::Bf16), f64::INFINITY);
        assert_eq!(cast_to_dtype(0.1, Dtype::F32), 0.1f32 as f64);
    }

    #[test]
    fn ints_round_half_even_and_saturate() {
        assert_eq!(cast_to_dtype(2.5, Dtype::I32), 2.0);
        assert_eq!(cast_to_dtype(3.5, Dtype::I32), 4.0);
        assert_eq!(cast_to_dtype(-2.5, Dtype::I8), -2.0);
        assert_eq!(cast_to_dtype(-2.6, Dtype::I8), -3.0);
        assert_eq!(cast_to_dtype(1000.0, Dtype::I8), 127.0);
        assert_eq!(cast_to_dtype(-1000.0, Dtype::I8), -128.0);
        assert_eq!(cast_to_dtype(-3.0, Dtype::U8), 0.0);
        assert_eq!(cast_to_dtype(300.0, Dtype::U8), 255.0);
        assert_eq!(cast_to_dtype(f64::INFINITY, Dtype::I32), i32::MAX as f64);
        assert_eq!(cast_to_dtype(f64::NAN, Dtype::I32), 0.0);
        assert_eq!(cast_to_dtype(0.0, Dtype::Bool), 0.0);
        assert_eq!(cast_to_dtype(-0.0, Dtype::Bool), 0.0);
        assert_eq!(cast_to_dtype(0.3, Dtype::Bool), 1.0);
        assert_eq!(cast_to_dtype(f64::NAN, Dtype::Bool), 1.0);
    }
}
