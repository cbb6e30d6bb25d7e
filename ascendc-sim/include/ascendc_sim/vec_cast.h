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

/// Cast between half and int4b_t (vendor Cast page and throughput table: int4b_t -> half
/// and half -> int4b_t on A2, 128 elements per cycle). A repeat has 128 lanes (the half
/// operand's 256 bytes); the int4b_t operand's lane l of repeat r is nibble l % 2 of byte
/// (l % 64) / 2 of block l / 64: base + (r * repStride + (l / 64) * blkStride) * 32 +
/// (l % 64) / 2 (the cast_int4b_t example's dstRepStride 2 = one repeat's 64 bytes). Element
/// 2k is the low nibble of byte k (UNCERTAIN: the pages do not say which nibble comes
/// first). half -> int4b_t rounds in `m` and saturates to [-8, 7] (NaN -> 0); the count
/// form needs an even count when dst is int4b_t (asc_half2int4 page).
struct I4Opnd {
  UbRef t;
  const char* role;
  bool int4;
  uint32_t blk, rep;
};
inline uint64_t i4_lane_byte(const I4Opnd& o, uint32_t r, uint32_t l) {
  if (o.int4) return o.t.addr + (uint64_t(r) * o.rep + uint64_t(l / 64) * o.blk) * 32 + (l % 64) / 2;
  return o.t.addr + (uint64_t(r) * o.rep + uint64_t(l / 16) * o.blk) * 32 + (l % 16) * 2;
}
inline void cast_int4(const I4Opnd& dst, const I4Opnd& src, RoundMode m, const vec::Shape& sh, bool count_form,
                      const SrcLoc& loc) {
  const char* api = "Cast";
  CoreContext& c = ctx(api);
  if (count_form && dst.int4 && sh.count % 2 != 0) {
    fail("field_out_of_range", api, loc,
         fmt("count %llu is odd: a Cast to int4b_t writes whole bytes, two elements each; the count must be even",
             static_cast<unsigned long long>(sh.count)),
         {{"count", double(sh.count)}});
  }
  auto active = [&](uint32_t r, uint32_t l) {
    return sh.counter ? uint64_t(r) * sh.lanes + l < sh.count : bool((sh.mask[l / 64] >> (l % 64)) & 1);
  };
  // Footprints: from the first to the last byte any active lane touches.
  uint64_t lo[2] = {~0ull, ~0ull}, hi[2] = {0, 0};
  const I4Opnd* ops[2] = {&dst, &src};
  bool any = false;
  for (uint32_t r = 0; r < sh.repeats; r++)
    for (uint32_t l = 0; l < sh.lanes; l++) {
      if (!active(r, l)) continue;
      any = true;
      for (int i = 0; i < 2; i++) {
        uint64_t b = i4_lane_byte(*ops[i], r, l);
        lo[i] = std::min(lo[i], b);
        hi[i] = std::max(hi[i], b + (ops[i]->int4 ? 1 : 2));
      }
    }
  for (int i = 0; i < 2; i++) {
    if (!any) {
      check_tensor(c, ops[i]->t, ops[i]->role, api, loc);
      continue;
    }
    check_operand(c, ops[i]->t, uint32_t(std::min<uint64_t>(lo[i], 0xFFFFFFFFull)),
                  uint32_t(std::min<uint64_t>(hi[i], 0xFFFFFFFFull)), 32, ops[i]->role, api, loc);
  }
  if (any) {
    uint32_t stamp = hz_issue(c, Pipe::V, loc);
    hz_access(c, Pipe::V, stamp, uint32_t(lo[1]), uint32_t(hi[1]), false, api, loc);
    hz_access(c, Pipe::V, stamp, uint32_t(lo[0]), uint32_t(hi[0]), true, api, loc);
    for (uint32_t r = 0; r < sh.repeats; r++)
      for (uint32_t l = 0; l < sh.lanes; l++) {
        if (!active(r, l)) continue;
        uint64_t sb = i4_lane_byte(src, r, l), db = i4_lane_byte(dst, r, l);
        if (dst.int4) {
          half v;
          std::memcpy(&v, c.ub + sb, 2);
          double x = double(to_f32(v));
          int q = std::isnan(x) ? 0 : int(std::max(-8.0, std::min(7.0, round_int(x, m))));
          uint8_t nib = uint8_t(q) & 0xF, sh4 = (l % 2) ? 4 : 0;
          c.ub[db] = uint8_t((c.ub[db] & ~(0xF << sh4)) | (nib << sh4));
          // A byte is initialized when both its nibbles are: with the partner lane inactive
          // the byte keeps the other nibble's state (its old shadow).
          bool ok = (c.shadow[sb] & c.shadow[sb + 1]) == kInit;
          bool partner = (l % 2) == 0 ? (l + 1 < sh.lanes && active(r, l + 1)) : active(r, l - 1);
          if (partner && (l % 2) == 0) {
            c.shadow[db] = ok ? kInit : kUninit;
          } else if (!ok) {
            c.shadow[db] = kUninit;
          }
        } else {
          uint8_t byte = c.ub[sb];
          int v = (l % 2) ? (int8_t(byte) >> 4) : (int8_t(uint8_t(byte << 4)) >> 4);
          half h = from_f32<half>(float(v));
          std::memcpy(c.ub + db, &h, 2);
          std::memset(c.shadow + db, c.shadow[sb], 2);
        }
      }
  }
  c.rec->vector(VecClass::Cast, DType::F16, any ? sh.repeats : 0, count_form);
}

}  // namespace ascendc_sim::cast

namespace AscendC {

// ---- int4b_t <-> half ----
template <typename T, typename U>
  requires(std::is_same_v<T, int4b_t> || std::is_same_v<U, int4b_t>)
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count,
                 ASCENDC_SIM_LOC) {
  static_assert((std::is_same_v<T, int4b_t> && std::is_same_v<U, half>) ||
                    (std::is_same_v<T, half> && std::is_same_v<U, int4b_t>),
                "Cast: int4b_t converts only to and from half on Ascend910B");
  using namespace ascendc_sim;
  cast::I4Opnd d{dst.ref(), "dst", std::is_same_v<T, int4b_t>, 1, std::is_same_v<T, int4b_t> ? 2u : 8u};
  cast::I4Opnd s{src.ref(), "src", std::is_same_v<U, int4b_t>, 1, std::is_same_v<U, int4b_t> ? 2u : 8u};
  cast::cast_int4(d, s, roundMode, vec::count_shape(count, 128), true, loc);
  vec::end_count_form("Cast");
}
template <typename T, typename U, bool isSetMask = true>
  requires(std::is_same_v<T, int4b_t> || std::is_same_v<U, int4b_t>)
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, uint64_t mask,
                 ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert((std::is_same_v<T, int4b_t> && std::is_same_v<U, half>) ||
                    (std::is_same_v<T, half> && std::is_same_v<U, int4b_t>),
                "Cast: int4b_t converts only to and from half on Ascend910B");
  using namespace ascendc_sim;
  auto& c = ctx("Cast");
  uint32_t r = vec::check_repeat(repeatTime.raw, "Cast", loc);
  cast::I4Opnd d{dst.ref(), "dst", std::is_same_v<T, int4b_t>, p.dstBlkStride, p.dstRepStride};
  cast::I4Opnd s{src.ref(), "src", std::is_same_v<U, int4b_t>, p.srcBlkStride, p.srcRepStride};
  cast::cast_int4(d, s, roundMode, vec::mask_shape(c, mask, r, 128, isSetMask, "Cast", loc), false, loc);
}
template <typename T, typename U, bool isSetMask = true>
  requires(std::is_same_v<T, int4b_t> || std::is_same_v<U, int4b_t>)
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert((std::is_same_v<T, int4b_t> && std::is_same_v<U, half>) ||
                    (std::is_same_v<T, half> && std::is_same_v<U, int4b_t>),
                "Cast: int4b_t converts only to and from half on Ascend910B");
  using namespace ascendc_sim;
  auto& c = ctx("Cast");
  uint32_t r = vec::check_repeat(repeatTime.raw, "Cast", loc);
  cast::I4Opnd d{dst.ref(), "dst", std::is_same_v<T, int4b_t>, p.dstBlkStride, p.dstRepStride};
  cast::I4Opnd s{src.ref(), "src", std::is_same_v<U, int4b_t>, p.srcBlkStride, p.srcRepStride};
  cast::cast_int4(d, s, roundMode, vec::bits_shape(c, mask, r, 128, isSetMask, "Cast", loc), false, loc);
}

template <typename T, typename U>
  requires(!std::is_same_v<T, int4b_t> && !std::is_same_v<U, int4b_t>)
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
  requires(!std::is_same_v<T, int4b_t> && !std::is_same_v<U, int4b_t>)
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
  requires(!std::is_same_v<T, int4b_t> && !std::is_same_v<U, int4b_t>)
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
