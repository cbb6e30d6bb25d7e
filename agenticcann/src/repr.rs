//! Element types that may live in device memory.

use std::fmt;

/// The element types kernels use, named as in operator specs (`f16`, `bf16`, `f32`,
/// `i32`, `i8`, `u8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE binary16 (`half::f16`, Ascend C `half`).
    F16,
    /// bfloat16 (`half::bf16`, Ascend C `bfloat16_t`).
    BF16,
    /// IEEE binary32.
    F32,
    /// 32-bit signed integer.
    I32,
    /// 8-bit signed integer.
    I8,
    /// 8-bit unsigned integer.
    U8,
}

impl DType {
    /// The spec name: `"f16"`, `"bf16"`, `"f32"`, `"i32"`, `"i8"`, `"u8"`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::I32 => "i32",
            DType::I8 => "i8",
            DType::U8 => "u8",
        }
    }

    /// Size of one element in bytes.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::I8 | DType::U8 => 1,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A type whose values can be copied to and from device memory byte for byte.
///
/// # Safety
///
/// Implementors must be plain data: `Copy`, no padding, no pointers, the same layout on
/// host and device, and **every bit pattern must be a valid value**, because bytes read
/// back from device memory are whatever a kernel (or nobody) wrote there.
/// `size_of::<Self>()` must equal `Self::DTYPE.size_bytes()`.
///
/// `bool` is deliberately not `DeviceRepr`: a byte other than 0 or 1 read back from the
/// device would be an invalid `bool`. Use `u8` buffers holding 0/1 for spec `bool`
/// tensors.
pub unsafe trait DeviceRepr: Copy + Send + Sync + 'static {
    /// The element type's spec name and size.
    const DTYPE: DType;
}

// SAFETY (all impls below): primitive numeric types and the `half` crate's
// `#[repr(transparent)]` wrappers over `u16`; all have no padding, and every bit pattern
// is a valid value (NaN payloads included). Sizes match DType::size_bytes (checked by the
// test below).
unsafe impl DeviceRepr for half::f16 {
    const DTYPE: DType = DType::F16;
}
unsafe impl DeviceRepr for half::bf16 {
    const DTYPE: DType = DType::BF16;
}
unsafe impl DeviceRepr for f32 {
    const DTYPE: DType = DType::F32;
}
unsafe impl DeviceRepr for i32 {
    const DTYPE: DType = DType::I32;
}
unsafe impl DeviceRepr for i8 {
    const DTYPE: DType = DType::I8;
}
unsafe impl DeviceRepr for u8 {
    const DTYPE: DType = DType::U8;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size_matches<T: DeviceRepr>() {
        assert_eq!(
            std::mem::size_of::<T>(),
            T::DTYPE.size_bytes(),
            "{}",
            T::DTYPE
        );
    }

    #[test]
    fn sizes_match_dtypes() {
        size_matches::<half::f16>();
        size_matches::<half::bf16>();
        size_matches::<f32>();
        size_matches::<i32>();
        size_matches::<i8>();
        size_matches::<u8>();
    }
}
