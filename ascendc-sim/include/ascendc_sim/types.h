// ascendc_sim/types.h — scalar types, qualifiers and dtype traits of the simulated AIV core.
//
// In the CPU simulator, as in CANN's CPU twin-debug mode (api-reference §1.1), the
// execution-space and memory qualifiers are defined empty. `half` is the compiler's
// `_Float16` (IEEE binary16, round-to-nearest-even conversions). `bfloat16_t` is an
// exact software type: RNE conversion from float, and no implicit scalar conversions,
// because a scalar bf16<->fp32 conversion does not compile for the NPU (field case
// FC-28): use AscendC::ToFloat / AscendC::ToBfloat16.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_sim/cost.h"

#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __vector__
#define __vector__
#endif
#ifndef __cube__
#define __cube__
#endif
#ifndef __inline__
#define __inline__ inline
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif
// The simulated target: Ascend 910B (arch 2201, dav-c220-vec). Kernels test these.
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef ASCENDC_SIM
#define ASCENDC_SIM 1
#endif

/// IEEE binary16; arithmetic on scalars follows the host compiler.
using half = _Float16;

/// bfloat16 (1 sign, 8 exponent, 7 mantissa bits). Construct with AscendC::ToBfloat16
/// (or the explicit constructor); read with AscendC::ToFloat.
struct bfloat16_t {
  uint16_t bits_;
  bfloat16_t() = default;
  /// Round-to-nearest-even from float (NaN stays a quiet NaN).
  explicit constexpr bfloat16_t(float f) : bits_(from_float(f)) {}
  /// From an integer (e.g. the constant 0 in `DataCopyPadExtParams<bfloat16_t> p = {false,
  /// 0, 0, 0};`, which the NPU toolchain accepts, issue 14). Conversions from float stay
  /// explicit and bf16 -> float needs AscendC::ToFloat (FC-28).
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  constexpr bfloat16_t(I v) : bits_(from_float(float(v))) {}
  static constexpr bfloat16_t from_bits(uint16_t b) {
    bfloat16_t r{};
    r.bits_ = b;
    return r;
  }
  static constexpr uint16_t from_float(float f) {
    uint32_t u = __builtin_bit_cast(uint32_t, f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);  // quiet NaN
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return uint16_t(u >> 16);
  }
  constexpr float to_float() const { return __builtin_bit_cast(float, uint32_t(bits_) << 16); }
  friend constexpr bool operator==(bfloat16_t a, bfloat16_t b) { return a.to_float() == b.to_float(); }
};
static_assert(sizeof(bfloat16_t) == 2);

namespace AscendC {
using ::bfloat16_t;
using ::half;
/// bf16 -> float (exact).
inline constexpr float ToFloat(const bfloat16_t& v) { return v.to_float(); }
/// float -> bf16 (round to nearest even).
inline constexpr bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }
/// A 4-bit signed integer element (range [-8, 7]). Tensors pack two per byte; a tensor of
/// int4b_t counts its size in 4-bit elements (GetSize) and is usually made by
/// ReinterpretCast of an int8_t tensor (vendor cast_int4b_t example: "host side does not
/// support int4b_t yet, allocate int8_t and ReinterpretCast"). Only Cast to and from half
/// computes on it (the Cast pairs of the A2 throughput table).
struct int4b_t {
  uint8_t storage;
};
}  // namespace AscendC

namespace ascendc_sim {
/// Bits of one element of T (4 for int4b_t).
template <typename T>
inline constexpr uint32_t elem_bits = uint32_t(8 * sizeof(T));
template <>
inline constexpr uint32_t elem_bits<AscendC::int4b_t> = 4;
/// Bytes that `n` elements of T occupy (rounded up).
template <typename T>
constexpr uint64_t bytes_for(uint64_t n) {
  return (n * elem_bits<T> + 7) / 8;
}
/// Whole elements of T in `bytes` bytes.
template <typename T>
constexpr uint64_t elems_in(uint64_t bytes) {
  return bytes * 8 / elem_bits<T>;
}
}  // namespace ascendc_sim

namespace ascendc_sim {

/// Fast, exact fp16 <-> fp32 conversions for the vector lanes. Without F16C (plain x86-64
/// flags), the compiler's `_Float16` casts are library calls costing ~50 ns; these are a
/// table lookup (fp16 -> fp32, exact) and a branch-light round-to-nearest-even (fp32 ->
/// fp16, the same result as the cast: inf on overflow, subnormals, quiet NaN).
namespace fp16 {
extern const std::array<float, 65536> kToFloat;  // src/fp16.cpp, constant-initialized
inline float to_float(half h) {
#if defined(__F16C__) || defined(__aarch64__)
  return static_cast<float>(h);
#else
  return kToFloat[__builtin_bit_cast(uint16_t, h)];
#endif
}
inline half from_float(float f) {
#if defined(__F16C__) || defined(__aarch64__)
  return static_cast<half>(f);
#else
  uint32_t x = __builtin_bit_cast(uint32_t, f);
  uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  uint32_t o;
  if (x >= 0x47800000u) {  // |f| >= 65536, inf or NaN
    o = x > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (x < 0x38800000u) {  // below the smallest normal half: let the FPU round
    float t = __builtin_bit_cast(float, x) + 0.5f;
    o = __builtin_bit_cast(uint32_t, t) - 0x3f000000u;
  } else {
    uint32_t odd = (x >> 13) & 1u;
    x += 0xc8000fffu;  // rebias the exponent (15 - 127) << 23, plus the rounding bias
    x += odd;
    o = x >> 13;
  }
  return __builtin_bit_cast(half, uint16_t(o | sign));
#endif
}
}  // namespace fp16

/// DType of a C++ element type (cost.h). Unsupported types are a compile error.
template <typename T>
struct dtype_of;
#define ASCENDC_SIM_DTYPE(T, D) \
  template <>                   \
  struct dtype_of<T> {          \
    static constexpr DType value = DType::D; \
  }
ASCENDC_SIM_DTYPE(uint8_t, U8);
ASCENDC_SIM_DTYPE(int8_t, I8);
ASCENDC_SIM_DTYPE(uint16_t, U16);
ASCENDC_SIM_DTYPE(int16_t, I16);
ASCENDC_SIM_DTYPE(half, F16);
ASCENDC_SIM_DTYPE(bfloat16_t, BF16);
ASCENDC_SIM_DTYPE(uint32_t, U32);
ASCENDC_SIM_DTYPE(int32_t, I32);
ASCENDC_SIM_DTYPE(float, F32);
ASCENDC_SIM_DTYPE(uint64_t, U64);
ASCENDC_SIM_DTYPE(int64_t, I64);
ASCENDC_SIM_DTYPE(double, F64);
#undef ASCENDC_SIM_DTYPE
// `char`, `bool` and `signed char` variants the kernels sometimes use for masks.
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::U8;
};

template <typename T>
inline constexpr DType dtype_v = dtype_of<std::remove_cv_t<T>>::value;

template <typename T>
inline constexpr bool is_float_v =
    std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, bfloat16_t> ||
    std::is_same_v<T, double>;

template <typename T, typename... Us>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Us> || ...);

/// Scalar value of element type T as float (float types) or as int64 (integer types).
template <typename T>
inline float to_f32(T v) {
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    return v.to_float();
  } else if constexpr (std::is_same_v<T, half>) {
    return fp16::to_float(v);
  } else {
    return static_cast<float>(v);
  }
}
/// Round a float to element type T (RNE for half/bf16; a C++ conversion otherwise).
template <typename T>
inline T from_f32(float v) {
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    return bfloat16_t(v);
  } else if constexpr (std::is_same_v<T, half>) {
    return fp16::from_float(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace ascendc_sim
