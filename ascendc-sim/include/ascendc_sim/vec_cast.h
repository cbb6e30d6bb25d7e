// ascendc_sim/vec_cast.h — Cast between element types with every RoundMode (api-reference §4.2).
//
// RoundMode applies where precision is lost: to the mantissa when the target is a float
// type (CAST_RINT on float->half keeps 0.3 ~ 0.3; it does not round to an integer, FC-28),
// to the integer when the target is an integer type, and — for float->float of the same
// type — rounds the value to an integral float. CAST_NONE rounds like CAST_RINT when
// needed. CAST_ODD = round to odd (von Neumann). Integer targets saturate; NaN -> 0.
// The (source, destination) pairs 910B supports are a compile-time table: any other
// pair is a static_assert, as the NPU compiler rejects it (FC-28). The selected SoC's
// own pairs (profile [capabilities] cast_pairs, e.g. no f16->i8 on 310P) are checked at
// the call: "api_unsupported_on_soc".
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
}

namespace ascendc_sim::cast {

using AscendC::RoundMode;

/// Legal Cast pairs on Ascend910B (dav-c220), from the per-instruction table.
template <class D, class S>
constexpr bool legal() {
  using std::is_same_v;
  if constexpr (is_same_v<S, half>)
    return is_one_of_v<D, int8_t, uint8_t, int16_t, int32_t, float>;
  else if constexpr (is_same_v<S, float>)
    return is_one_of_v<D, half, int16_t, bfloat16_t, int32_t, float, int64_t>;
  else if constexpr (is_same_v<S, bfloat16_t>)
    return is_one_of_v<D, int32_t, float>;
  else if constexpr (is_same_v<S, int32_t>)
    return is_one_of_v<D, int16_t, half, float, int64_t>;
  else if constexpr (is_same_v<S, int16_t>)
    return is_one_of_v<D, half, float>;
  else if constexpr (is_same_v<S, int8_t> || is_same_v<S, uint8_t>)
    return is_same_v<D, half>;
  else if constexpr (is_same_v<S, int64_t>)
    return is_one_of_v<D, int32_t, float>;
  else
    return false;
}

inline double round_int(double q, RoundMode m) {
  switch (m) {
    case RoundMode::CAST_FLOOR: return std::floor(q);
    case RoundMode::CAST_CEIL: return std::ceil(q);
    case RoundMode::CAST_ROUND: return std::round(q);
    case RoundMode::CAST_TRUNC: return std::trunc(q);
    case RoundMode::CAST_ODD: {
      double f = std::floor(q);
      if (f == q) return q;
      return std::fmod(f, 2.0) != 0.0 ? f : f + 1.0;
    }
    default: return std::nearbyint(q);  // RINT / NONE: nearest, ties to even
  }
}

/// Rounds x to a binary format with `p` significand bits, minimum normal exponent
/// `emin` and largest finite value `maxv`, in mode m.
inline double round_to_format(double x, int p, int emin, double maxv, RoundMode m) {
  if (x == 0.0 || std::isnan(x) || std::isinf(x)) return x;
  int e;
  std::frexp(x, &e);
  int exp = std::max(e - 1, emin);
  double ulp = std::ldexp(1.0, exp - (p - 1));
  double y = round_int(x / ulp, m) * ulp;
  if (std::fabs(y) > maxv) {
    bool pos = y > 0;
    bool to_inf = m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT || m == RoundMode::CAST_ROUND ||
                  (m == RoundMode::CAST_CEIL && pos) || (m == RoundMode::CAST_FLOOR && !pos);
    double inf = std::numeric_limits<double>::infinity();
    return to_inf ? (pos ? inf : -inf) : (pos ? maxv : -maxv);
  }
  return y;
}

template <class S>
inline double to_double(S v) {
  if constexpr (std::is_same_v<S, bfloat16_t>) {
    return double(v.to_float());
  } else {
    return double(v);
  }
}

/// One element: S -> D in mode m.
template <class D, class S>
inline D convert(S v, RoundMode m) {
  double x = to_double(v);
  if constexpr (std::is_same_v<D, half>) {
    return static_cast<half>(round_to_format(x, 11, -14, 65504.0, m));
  } else if constexpr (std::is_same_v<D, bfloat16_t>) {
    double y = round_to_format(x, 8, -126, 3.3895313892515355e38, m);
    return bfloat16_t(float(y));  // exact: y is representable
  } else if constexpr (std::is_same_v<D, float>) {
    if constexpr (std::is_same_v<S, float>) {
      if (m == RoundMode::CAST_NONE || std::isnan(x) || std::isinf(x)) return v;
      return float(round_int(x, m));
    } else {
      return float(round_to_format(x, 24, -126, double(FLT_MAX), m));
    }
  } else {
    static_assert(std::is_integral_v<D>);
    if (std::isnan(x)) return D(0);
    double r = std::is_integral_v<S> ? x : round_int(x, m);
    constexpr double lo = double(std::numeric_limits<D>::min()), hi = double(std::numeric_limits<D>::max());
    if (r <= lo) return std::numeric_limits<D>::min();
    if (r >= hi) return std::numeric_limits<D>::max();
    return D(r);
  }
}

/// True when S -> D is exact for every value (no rounding mode matters).
template <class D, class S>
constexpr bool exact() {
  if constexpr (std::is_same_v<S, half>) return std::is_same_v<D, float>;
  if constexpr (std::is_same_v<S, bfloat16_t>) return std::is_same_v<D, float>;
  if constexpr (std::is_same_v<S, int16_t>) return std::is_same_v<D, float>;
  if constexpr (std::is_same_v<S, int8_t> || std::is_same_v<S, uint8_t>) return std::is_same_v<D, half>;
  if constexpr (std::is_same_v<S, int32_t>) return std::is_same_v<D, int64_t>;
  return false;
}

template <class D, class S>
struct CastK {
  RoundMode m;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    D* o = reinterpret_cast<D*>(d[0]);
    const S* a = reinterpret_cast<const S*>(d[1]);
    if constexpr (exact<D, S>()) {
      for (uint64_t i = 0; i < n; i++) {
        if constexpr (std::is_same_v<S, bfloat16_t> || std::is_same_v<S, half>) {
          o[i] = D(to_f32(a[i]));
        } else if constexpr (std::is_same_v<D, half>) {
          o[i] = from_f32<half>(float(a[i]));
        } else {
          o[i] = D(a[i]);
        }
      }
    } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, half>) {
      if (m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT) {
        for (uint64_t i = 0; i < n; i++) o[i] = from_f32<half>(a[i]);
      } else {
        for (uint64_t i = 0; i < n; i++) o[i] = convert<D, S>(a[i], m);
      }
    } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, bfloat16_t>) {
      if (m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT) {
        for (uint64_t i = 0; i < n; i++) o[i] = bfloat16_t(a[i]);
      } else {
        for (uint64_t i = 0; i < n; i++) o[i] = convert<D, S>(a[i], m);
      }
    } else {
      for (uint64_t i = 0; i < n; i++) o[i] = convert<D, S>(a[i], m);
    }
  }
};

}  // namespace ascendc_sim::cast

namespace AscendC {

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count,
                 ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::cast::legal<T, U>(), "Cast: this (source, destination) type pair is not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  ascendc_sim::check_cast_soc(ascendc_sim::dtype_v<U>, ascendc_sim::dtype_v<T>, "Cast", loc);
  constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  constexpr uint32_t lanes = 256 / w;
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), 1, lanes * sizeof(T) / 32, true),
                 od(src.ref(), "src", sizeof(U), 1, lanes * sizeof(U) / 32, false)};
  using Wide = std::conditional_t<(sizeof(T) >= sizeof(U)), T, U>;
  run("Cast", ascendc_sim::VecClass::Cast, ascendc_sim::dtype_v<Wide>, count_shape(count, lanes), ops, true, loc,
      ascendc_sim::cast::CastK<T, U>{roundMode});
  end_count_form("Cast");
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, uint64_t mask,
                 ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::cast::legal<T, U>(), "Cast: this (source, destination) type pair is not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  ascendc_sim::check_cast_soc(ascendc_sim::dtype_v<U>, ascendc_sim::dtype_v<T>, "Cast", loc);
  constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  auto& c = ascendc_sim::ctx("Cast");
  uint32_t r = check_repeat(repeatTime.raw, "Cast", loc);
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src.ref(), "src", sizeof(U), p.srcBlkStride, p.srcRepStride, false)};
  using Wide = std::conditional_t<(sizeof(T) >= sizeof(U)), T, U>;
  run("Cast", ascendc_sim::VecClass::Cast, ascendc_sim::dtype_v<Wide>,
      mask_shape(c, mask, r, 256 / w, isSetMask, "Cast", loc), ops, false, loc, ascendc_sim::cast::CastK<T, U>{roundMode});
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::cast::legal<T, U>(), "Cast: this (source, destination) type pair is not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  ascendc_sim::check_cast_soc(ascendc_sim::dtype_v<U>, ascendc_sim::dtype_v<T>, "Cast", loc);
  constexpr uint32_t w = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  auto& c = ascendc_sim::ctx("Cast");
  uint32_t r = check_repeat(repeatTime.raw, "Cast", loc);
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src.ref(), "src", sizeof(U), p.srcBlkStride, p.srcRepStride, false)};
  using Wide = std::conditional_t<(sizeof(T) >= sizeof(U)), T, U>;
  run("Cast", ascendc_sim::VecClass::Cast, ascendc_sim::dtype_v<Wide>,
      bits_shape(c, mask, r, 256 / w, isSetMask, "Cast", loc), ops, false, loc, ascendc_sim::cast::CastK<T, U>{roundMode});
}

}  // namespace AscendC
