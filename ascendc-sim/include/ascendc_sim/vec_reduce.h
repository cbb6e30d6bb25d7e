// ascendc_sim/vec_reduce.h — reductions (api-reference §4.3): ReduceSum/Max/Min (count
// and mask forms, with the work-buffer size check), WholeReduceSum/Max/Min,
// BlockReduceSum/Max/Min, PairReduceSum, RepeatReduceSum and the 9.x names
// ReduceRepeat / ReduceDataBlock / ReducePairElem.
//
// Numerics: reductions accumulate in the instruction's element type — every partial
// result is rounded to it (fp16 sums lose precision exactly as on the NPU, FC-15). Within
// a repeat (or a 32-byte block for BlockReduce*) the active lanes are combined as a binary
// tree of adjacent pairs, inactive lanes being the identity; ReduceSum/Max/Min then reduce
// the per-repeat partials again the same way, in groups of one repeat, until one value
// is left (the partials are written to the work buffer). Max/Min return the index of the
// first extreme element. The exact tree shape of the hardware is not published; this is
// the simulator's documented choice.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
/// 9.x: the reduction of ReduceRepeat / ReduceDataBlock.
enum class ReduceType : uint8_t { SUM = 0, MAX, MIN };
}  // namespace AscendC

namespace ascendc_sim::vec {

enum class RK : uint8_t { Sum, Max, Min };

template <class T>
inline float rnd(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else {
    return to_f32(from_f32<T>(x));
  }
}
inline float identity(RK k) {
  return k == RK::Sum ? 0.0f : k == RK::Max ? -std::numeric_limits<float>::infinity()
                                             : std::numeric_limits<float>::infinity();
}

/// Binary tree of adjacent pairs over v[0, width) (width a power of two); idx follows
/// the chosen element for Max/Min. Result in v[0], idx[0].
template <class T>
inline void tree(float* v, uint32_t* idx, uint32_t width, RK k) {
  while (width > 1) {
    uint32_t h = width / 2;
    for (uint32_t i = 0; i < h; i++) {
      float a = v[2 * i], b = v[2 * i + 1];
      uint32_t ia = idx[2 * i], ib = idx[2 * i + 1];
      if (k == RK::Sum) {
        v[i] = rnd<T>(a + b);
        idx[i] = ia;
      } else if (k == RK::Max) {
        bool tb = b > a;
        v[i] = tb ? b : a;
        idx[i] = tb ? ib : ia;
      } else {
        bool tb = b < a;
        v[i] = tb ? b : a;
        idx[i] = tb ? ib : ia;
      }
    }
    width = h;
  }
}

inline bool lane_active(const Shape& sh, uint32_t r, uint32_t l) {
  return sh.counter ? uint64_t(r) * sh.lanes + l < sh.count : ((sh.mask[l / 64] >> (l % 64)) & 1);
}

template <class T>
inline void put(CoreContext& c, uint64_t off, float v, uint8_t init) {
  T x = from_f32<T>(v);
  std::memcpy(c.ub + off, &x, sizeof(T));
  std::memset(c.shadow + off, init, sizeof(T));
}
template <class T>
inline void put_index(CoreContext& c, uint64_t off, uint32_t idx, uint32_t bytes, uint8_t init) {
  if (bytes == 2) {
    uint16_t v = uint16_t(idx);
    std::memcpy(c.ub + off, &v, 2);
  } else {
    std::memcpy(c.ub + off, &idx, 4);
  }
  std::memset(c.shadow + off, init, bytes);
}

/// Reduces the active lanes of repeat r of `o` (lanes [l0, l0 + n)) into one value.
template <class T>
inline float reduce_lanes(CoreContext& c, const Opnd& o, const Shape& sh, uint32_t r, uint32_t l0, uint32_t n, RK k,
                          uint32_t* out_idx, uint8_t* init, bool* any) {
  float v[128];
  uint32_t idx[128];
  uint8_t in = kInit;
  bool a = false;
  for (uint32_t l = 0; l < n; l++) {
    idx[l] = l0 + l;
    if (!lane_active(sh, r, l0 + l)) {
      v[l] = identity(k);
      continue;
    }
    a = true;
    uint64_t off = lane_off(o, r, l0 + l);
    T x;
    std::memcpy(&x, c.ub + off, sizeof(T));
    v[l] = to_f32(x);
    in &= all_init(c.shadow + off, sizeof(T));
  }
  tree<T>(v, idx, n, k);
  *out_idx = idx[0];
  *init = in;
  *any = a;
  return v[0];
}

/// WholeReduce*: one result per repeat at dst + r * dstRepStride * slot.
template <class T>
inline void whole_reduce(const UbRef& dst, Opnd& src, const Shape& sh, int32_t dst_rep, RK k,
                         AscendC::ReduceOrder order, bool with_index, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  check_field(dst_rep, 65535, "dstRepStride", api, loc);
  bool any = prepare(c, sh, &src, 1, api, loc);
  using O = AscendC::ReduceOrder;
  uint32_t slot = !with_index ? sizeof(T) : order == O::ORDER_ONLY_VALUE ? sizeof(T)
                                            : order == O::ORDER_ONLY_INDEX ? 4 : 2 * sizeof(T);
  uint64_t span = any ? uint64_t(sh.repeats - 1) * uint32_t(dst_rep) * slot + slot : 0;
  check_operand(c, dst, dst.addr, uint32_t(dst.addr + span), sizeof(T), "dst", api, loc);
  if (!any) {
    c.rec->vector(VecClass::WholeReduce, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = c.hz.counter[int(Pipe::V)];
  for (uint32_t r = 0; r < sh.repeats; r++) {
    uint32_t idx;
    uint8_t init;
    bool a;
    float v = reduce_lanes<T>(c, src, sh, r, 0, sh.lanes, k, &idx, &init, &a);
    if (!a) continue;
    uint64_t off = dst.addr + uint64_t(r) * uint32_t(dst_rep) * slot;
    hz_access(c, Pipe::V, stamp, uint32_t(off), uint32_t(off + slot), true, api, loc);
    if (!with_index || order == O::ORDER_ONLY_VALUE) {
      put<T>(c, off, v, init);
    } else if (order == O::ORDER_ONLY_INDEX) {
      put_index<T>(c, off, idx, 4, init);
    } else if (order == O::ORDER_VALUE_INDEX) {
      put<T>(c, off, v, init);
      put_index<T>(c, off + sizeof(T), idx, sizeof(T), init);
    } else {
      put_index<T>(c, off, idx, sizeof(T), init);
      put<T>(c, off + sizeof(T), v, init);
    }
  }
  c.rec->vector(VecClass::WholeReduce, dtype_v<T>, sh.repeats, false, bank_cycles(sh, &src, 1));
}

/// BlockReduce*: 8 results per repeat (one per 32-byte block), dstRepStride in units of 8 elements.
template <class T>
inline void block_reduce(const UbRef& dst, Opnd& src, const Shape& sh, int32_t dst_rep, RK k, const char* api,
                         const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  check_field(dst_rep, 65535, "dstRepStride", api, loc);
  bool any = prepare(c, sh, &src, 1, api, loc);
  const uint32_t unit = 8 * sizeof(T);
  uint64_t span = any ? uint64_t(sh.repeats - 1) * uint32_t(dst_rep) * unit + unit : 0;
  check_operand(c, dst, dst.addr, uint32_t(dst.addr + span), sizeof(T), "dst", api, loc);
  if (!any) {
    c.rec->vector(VecClass::BlockReduce, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = c.hz.counter[int(Pipe::V)];
  const uint32_t epb = sh.lanes / 8;
  for (uint32_t r = 0; r < sh.repeats; r++) {
    for (uint32_t b = 0; b < 8; b++) {
      uint32_t idx;
      uint8_t init;
      bool a;
      float v = reduce_lanes<T>(c, src, sh, r, b * epb, epb, k, &idx, &init, &a);
      if (!a) continue;
      uint64_t off = dst.addr + uint64_t(r) * uint32_t(dst_rep) * unit + b * sizeof(T);
      hz_access(c, Pipe::V, stamp, uint32_t(off), uint32_t(off + sizeof(T)), true, api, loc);
      put<T>(c, off, v, init);
    }
  }
  c.rec->vector(VecClass::BlockReduce, dtype_v<T>, sh.repeats, false, bank_cycles(sh, &src, 1));
}

/// PairReduceSum: lanes/2 results per repeat, dstRepStride in units of lanes/2 elements.
template <class T>
inline void pair_reduce(const UbRef& dst, Opnd& src, const Shape& sh, int32_t dst_rep, const char* api,
                        const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  check_field(dst_rep, 65535, "dstRepStride", api, loc);
  bool any = prepare(c, sh, &src, 1, api, loc);
  const uint32_t unit = sh.lanes / 2 * sizeof(T);
  uint64_t span = any ? uint64_t(sh.repeats - 1) * uint32_t(dst_rep) * unit + unit : 0;
  check_operand(c, dst, dst.addr, uint32_t(dst.addr + span), 32, "dst", api, loc);
  if (!any) {
    c.rec->vector(VecClass::PairReduce, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = c.hz.counter[int(Pipe::V)];
  for (uint32_t r = 0; r < sh.repeats; r++) {
    for (uint32_t j = 0; j < sh.lanes / 2; j++) {
      uint32_t idx;
      uint8_t init;
      bool a;
      float v = reduce_lanes<T>(c, src, sh, r, 2 * j, 2, RK::Sum, &idx, &init, &a);
      if (!a) continue;
      uint64_t off = dst.addr + uint64_t(r) * uint32_t(dst_rep) * unit + j * sizeof(T);
      hz_access(c, Pipe::V, stamp, uint32_t(off), uint32_t(off + sizeof(T)), true, api, loc);
      put<T>(c, off, v, init);
    }
  }
  c.rec->vector(VecClass::PairReduce, dtype_v<T>, sh.repeats, false, bank_cycles(sh, &src, 1));
}

/// ReduceSum/Max/Min over the active lanes of every repeat of `sh` into dst[0] (and the
/// index into dst[1] with cal_index). `first_repeats` sizes the work buffer.
template <class T>
inline void reduce_all(const UbRef& dst, Opnd& src, const UbRef& work, uint32_t work_elems, const Shape& sh,
                       uint64_t first_repeats, RK k, bool cal_index, bool count_form, const char* api,
                       const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  const uint32_t epb = 32 / sizeof(T);
  uint64_t fm = first_repeats == 0 ? 1 : first_repeats;
  uint64_t need = (fm + epb - 1) / epb * epb;
  if (work_elems < need) {
    fail("reduce_work_buffer_too_small", api, loc,
         fmt("the work buffer holds %u elements; this reduction over %u repeats needs at least %llu (DivCeil(%llu, %u) "
             "* %u)",
             work_elems, sh.repeats, (unsigned long long)need, (unsigned long long)fm, epb, epb),
         {{"work_elements", double(work_elems)}, {"required_elements", double(need)}});
  }
  bool any = prepare(c, sh, &src, 1, api, loc);
  check_operand(c, work, work.addr, work.addr + uint32_t(need * sizeof(T)), 32, "sharedTmpBuffer", api, loc);
  uint32_t out_elems = cal_index ? 2 : 1;
  check_operand(c, dst, dst.addr, dst.addr + out_elems * sizeof(T), 32, "dst", api, loc);
  if (!any) {
    c.rec->vector(VecClass::WholeReduce, dtype_v<T>, 0, count_form);
    if (count_form) end_count_form(api);
    return;
  }
  uint32_t stamp = c.hz.counter[int(Pipe::V)];
  std::vector<float> part(sh.repeats);
  std::vector<uint32_t> pidx(sh.repeats);
  uint8_t init_all = kInit;
  uint64_t flat_n = 0;
  if (flat(sh, &src, 1, &flat_n)) {
    // Contiguous source, every lane of every repeat active except the tail: read directly.
    const T* x = reinterpret_cast<const T*>(c.ub + src.t.addr);
    float v[128];
    uint32_t ix[128];
    for (uint32_t r = 0; r < sh.repeats; r++) {
      uint64_t base = uint64_t(r) * sh.lanes;
      for (uint32_t l = 0; l < sh.lanes; l++) {
        ix[l] = l;
        v[l] = base + l < flat_n ? to_f32(x[base + l]) : identity(k);
      }
      tree<T>(v, ix, sh.lanes, k);
      part[r] = v[0];
      pidx[r] = uint32_t(base) + ix[0];
    }
    const uint8_t* s8 = c.shadow + src.t.addr;
    uint64_t bytes = flat_n * sizeof(T), j = 0;
    for (; j + 8 <= bytes; j += 8) {
      uint64_t w;
      std::memcpy(&w, s8 + j, 8);
      if (w != ~0ull) break;
    }
    for (; j < bytes; j++) init_all &= s8[j];
  } else {
    for (uint32_t r = 0; r < sh.repeats; r++) {
      uint32_t idx;
      uint8_t init;
      bool a;
      part[r] = reduce_lanes<T>(c, src, sh, r, 0, sh.lanes, k, &idx, &init, &a);
      pidx[r] = r * sh.lanes + idx;
      init_all &= init;
    }
  }
  // The first-level partials land in the work buffer, as the hardware sequence does.
  uint64_t wn = std::min<uint64_t>(need, sh.repeats);
  hz_access(c, Pipe::V, stamp, work.addr, work.addr + uint32_t(wn * sizeof(T)), true, api, loc);
  for (uint64_t i = 0; i < wn; i++) put<T>(c, work.addr + i * sizeof(T), part[i], init_all);
  uint32_t passes = sh.repeats;
  std::vector<float> v = part;
  std::vector<uint32_t> vi = pidx;
  while (v.size() > 1) {
    std::vector<float> nv;
    std::vector<uint32_t> ni;
    for (size_t g = 0; g < v.size(); g += sh.lanes) {
      float buf[128];
      uint32_t ib[128];
      for (uint32_t l = 0; l < sh.lanes; l++) {
        buf[l] = g + l < v.size() ? v[g + l] : identity(k);
        ib[l] = g + l < v.size() ? vi[g + l] : 0;
      }
      tree<T>(buf, ib, sh.lanes, k);
      nv.push_back(buf[0]);
      ni.push_back(ib[0]);
      passes++;
    }
    v.swap(nv);
    vi.swap(ni);
  }
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + out_elems * sizeof(T), true, api, loc);
  put<T>(c, dst.addr, v[0], init_all);
  if (cal_index) {
    uint32_t bits = vi[0];
    if constexpr (sizeof(T) == 2) {
      uint16_t b = uint16_t(bits);
      std::memcpy(c.ub + dst.addr + 2, &b, 2);
    } else {
      std::memcpy(c.ub + dst.addr + 4, &bits, 4);
    }
    std::memset(c.shadow + dst.addr + sizeof(T), init_all, sizeof(T));
  }
  c.acc_val = v[0];
  c.reduce_max_min[0] = v[0];
  c.reduce_max_min[1] = vi[0];
  c.rec->vector(VecClass::WholeReduce, dtype_v<T>, passes, count_form);
  if (count_form) end_count_form(api);
}

}  // namespace ascendc_sim::vec

#define ASCENDC_SIM_REDUCE_TYPES half, float
#define ASCENDC_SIM_REDUCE_CHECK(NAME) \
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_REDUCE_TYPES>, #NAME ": element type not supported on Ascend910B")

// ReduceSum / ReduceMax / ReduceMin: count form and both mask forms.
#define ASCENDC_SIM_REDUCE_ALL(NAME, KIND, INDEX_PARAM, INDEX_ARG)                                                   \
  template <typename T, bool isSetMask = true>                                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                   const int32_t count INDEX_PARAM, ASCENDC_SIM_LOC) {                                               \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    uint64_t n = check_count(count, #NAME, loc);                                                                     \
    const uint32_t lanes = 256 / sizeof(T);                                                                          \
    Opnd s = od(src.ref(), "src", sizeof(T), 1, 8, false);                                                           \
    reduce_all<T>(dst.ref(), s, sharedTmpBuffer.ref(), sharedTmpBuffer.GetSize(), count_shape(n, lanes),             \
                  n / lanes, RK::KIND, INDEX_ARG, true, #NAME, loc);                                                 \
  }                                                                                                                  \
  template <typename T>                                                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                   const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,              \
                   ASCENDC_SIM_LOC) {                                                                                \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_field(repeatTime, 0x7fffffff, "repeatTime", #NAME, loc);                                      \
    uint32_t rs = check_field(srcRepStride, 65535, "srcRepStride", #NAME, loc);                                      \
    Opnd s = od(src.ref(), "src", sizeof(T), 1, rs, false);                                                          \
    reduce_all<T>(dst.ref(), s, sharedTmpBuffer.ref(), sharedTmpBuffer.GetSize(),                                    \
                  mask_shape(c, uint64_t(uint32_t(mask)), r, 256 / sizeof(T), true, #NAME, loc), r, RK::KIND,         \
                  INDEX_ARG, false, #NAME, loc);                                                                     \
  }                                                                                                                  \
  template <typename T>                                                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                   const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,           \
                   ASCENDC_SIM_LOC) {                                                                                \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_field(repeatTime, 0x7fffffff, "repeatTime", #NAME, loc);                                      \
    uint32_t rs = check_field(srcRepStride, 65535, "srcRepStride", #NAME, loc);                                      \
    Opnd s = od(src.ref(), "src", sizeof(T), 1, rs, false);                                                          \
    reduce_all<T>(dst.ref(), s, sharedTmpBuffer.ref(), sharedTmpBuffer.GetSize(),                                    \
                  bits_shape(c, mask, r, 256 / sizeof(T), true, #NAME, loc), r, RK::KIND, INDEX_ARG, false, #NAME,    \
                  loc);                                                                                              \
  }

#define ASCENDC_SIM_COMMA ,
// WholeReduceSum / Max / Min (mask, repeatTime order).
#define ASCENDC_SIM_WHOLE(NAME, KIND, WITH_INDEX, ORDER_PARAM, ORDER_ARG)                                           \
  template <typename T, bool isSetMask = true>                                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                        \
                   const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                   const int32_t srcRepStride ORDER_PARAM, ASCENDC_SIM_LOC) {                                        \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_repeat(repeatTime, #NAME, loc);                                                               \
    Opnd s = od(src.ref(), "src", sizeof(T), check_field(srcBlkStride, 65535, "srcBlkStride", #NAME, loc),          \
                check_field(srcRepStride, 255, "srcRepStride", #NAME, loc), false);                                  \
    whole_reduce<T>(dst.ref(), s, mask_shape(c, uint64_t(uint32_t(mask)), r, 256 / sizeof(T), isSetMask, #NAME, loc), \
                    dstRepStride, RK::KIND, ORDER_ARG, WITH_INDEX, #NAME, loc);                                       \
  }                                                                                                                  \
  template <typename T, bool isSetMask = true>                                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                   const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                   const int32_t srcRepStride ORDER_PARAM, ASCENDC_SIM_LOC) {                                        \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_repeat(repeatTime, #NAME, loc);                                                               \
    Opnd s = od(src.ref(), "src", sizeof(T), check_field(srcBlkStride, 65535, "srcBlkStride", #NAME, loc),          \
                check_field(srcRepStride, 255, "srcRepStride", #NAME, loc), false);                                  \
    whole_reduce<T>(dst.ref(), s, bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), dstRepStride,      \
                    RK::KIND, ORDER_ARG, WITH_INDEX, #NAME, loc);                                                     \
  }

// BlockReduce* / PairReduceSum (repeatTime, mask order).
#define ASCENDC_SIM_BLOCKWISE(NAME, IMPL)                                                                            \
  template <typename T, bool isSetMask = true>                                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                       \
                   const int32_t srcRepStride, ASCENDC_SIM_LOC) {                                                    \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_repeat(repeatTime, #NAME, loc);                                                               \
    Opnd s = od(src.ref(), "src", sizeof(T), check_field(srcBlkStride, 65535, "srcBlkStride", #NAME, loc),          \
                check_field(srcRepStride, 255, "srcRepStride", #NAME, loc), false);                                  \
    IMPL(dst.ref(), s, mask_shape(c, uint64_t(uint32_t(mask)), r, 256 / sizeof(T), isSetMask, #NAME, loc),          \
         dstRepStride, #NAME, loc);                                                                                  \
  }                                                                                                                  \
  template <typename T, bool isSetMask = true>                                                                       \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                    \
                   const int32_t srcRepStride, ASCENDC_SIM_LOC) {                                                    \
    ASCENDC_SIM_REDUCE_CHECK(NAME);                                                                                   \
    using namespace ascendc_sim::vec;                                                                                \
    auto& c = ascendc_sim::ctx(#NAME);                                                                               \
    uint32_t r = check_repeat(repeatTime, #NAME, loc);                                                               \
    Opnd s = od(src.ref(), "src", sizeof(T), check_field(srcBlkStride, 65535, "srcBlkStride", #NAME, loc),          \
                check_field(srcRepStride, 255, "srcRepStride", #NAME, loc), false);                                  \
    IMPL(dst.ref(), s, bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), dstRepStride, #NAME, loc);   \
  }

namespace ascendc_sim::vec {
template <class T>
inline void block_sum(const UbRef& d, Opnd& s, const Shape& sh, int32_t rep, const char* api, const SrcLoc& loc) {
  block_reduce<T>(d, s, sh, rep, RK::Sum, api, loc);
}
template <class T>
inline void block_max(const UbRef& d, Opnd& s, const Shape& sh, int32_t rep, const char* api, const SrcLoc& loc) {
  block_reduce<T>(d, s, sh, rep, RK::Max, api, loc);
}
template <class T>
inline void block_min(const UbRef& d, Opnd& s, const Shape& sh, int32_t rep, const char* api, const SrcLoc& loc) {
  block_reduce<T>(d, s, sh, rep, RK::Min, api, loc);
}
}  // namespace ascendc_sim::vec

namespace AscendC {

ASCENDC_SIM_REDUCE_ALL(ReduceSum, Sum, , false)
ASCENDC_SIM_REDUCE_ALL(ReduceMax, Max, ASCENDC_SIM_COMMA bool calIndex = 0, calIndex)
ASCENDC_SIM_REDUCE_ALL(ReduceMin, Min, ASCENDC_SIM_COMMA bool calIndex = 0, calIndex)

ASCENDC_SIM_WHOLE(WholeReduceSum, Sum, false, , ReduceOrder::ORDER_ONLY_VALUE)
ASCENDC_SIM_WHOLE(WholeReduceMax, Max, true, ASCENDC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASCENDC_SIM_WHOLE(WholeReduceMin, Min, true, ASCENDC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)

ASCENDC_SIM_BLOCKWISE(BlockReduceSum, block_sum<T>)
ASCENDC_SIM_BLOCKWISE(BlockReduceMax, block_max<T>)
ASCENDC_SIM_BLOCKWISE(BlockReduceMin, block_min<T>)
ASCENDC_SIM_BLOCKWISE(PairReduceSum, pair_reduce<T>)

/// RepeatReduceSum: one sum per repeat; dstRepStride in result elements (dstBlkStride unused).
template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride, ASCENDC_SIM_LOC) {
  (void)dstBlkStride;
  WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);
}

// ---- 9.x names (API version 9.1: api-reference §4.0) ----
// Signatures from the asc-devkit 9.x interface (kernel_operator_vec_reduce_intf.h, docs
// ReduceRepeat.md / ReduceDataBlock.md / ReducePairElem.md): `template <ReduceType
// reduceType, typename T, typename U, bool isSetMask = true>`, U (the source type) deduced;
// all three take (mask, repeatTime) in that order — unlike the classic BlockReduce* /
// PairReduceSum (repeatTime, mask). On 910B the source type must equal the destination
// type; repeatTime <= 255.
#define ASCENDC_SIM_SAME_TYPE(NAME) \
  static_assert(std::is_same_v<T, U>, #NAME ": source and destination types must match on Ascend910B")

/// ReduceRepeat<SUM|MAX|MIN> = WholeReduceSum / WholeReduceMax / WholeReduceMin.
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                         ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReduceRepeat);
  if constexpr (type == ReduceType::SUM) {
    (void)order;
    WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else if constexpr (type == ReduceType::MAX) {
    WholeReduceMax<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, loc);
  } else {
    WholeReduceMin<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, loc);
  }
}
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                         ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReduceRepeat);
  if constexpr (type == ReduceType::SUM) {
    (void)order;
    WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else if constexpr (type == ReduceType::MAX) {
    WholeReduceMax<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, loc);
  } else {
    WholeReduceMin<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, loc);
  }
}
/// ReduceDataBlock<SUM|MAX|MIN> = BlockReduceSum / BlockReduceMax / BlockReduceMin, with
/// the mask before repeatTime.
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReduceDataBlock);
  if constexpr (type == ReduceType::SUM) {
    BlockReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else if constexpr (type == ReduceType::MAX) {
    BlockReduceMax<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else {
    BlockReduceMin<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  }
}
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReduceDataBlock);
  if constexpr (type == ReduceType::SUM) {
    BlockReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else if constexpr (type == ReduceType::MAX) {
    BlockReduceMax<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  } else {
    BlockReduceMin<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
  }
}
/// ReducePairElem<SUM> = PairReduceSum, with the mask before repeatTime (only SUM exists).
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReducePairElem);
  static_assert(type == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");
  PairReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
}
template <ReduceType type, typename T, typename U, bool isSetMask = true>
inline void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SAME_TYPE(ReducePairElem);
  static_assert(type == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");
  PairReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, loc);
}


/// Value of the last ReduceSum on this core.
template <typename T>
inline T GetAccVal() {
  return ascendc_sim::from_f32<T>(float(ascendc_sim::ctx("GetAccVal").acc_val));
}
/// Value and index of the last ReduceMax/ReduceMin on this core.
template <typename T>
inline void GetReduceMaxMinCount(T& value, T& index) {
  auto& c = ascendc_sim::ctx("GetReduceMaxMinCount");
  value = ascendc_sim::from_f32<T>(float(c.reduce_max_min[0]));
  index = ascendc_sim::from_f32<T>(float(c.reduce_max_min[1]));
}

/// 9.x name of GetAccVal.
template <typename T>
inline T GetReduceRepeatSumSpr() {
  return GetAccVal<T>();
}
template <typename T>
inline void GetReduceRepeatMaxMinSpr(T& value, T& index) {
  GetReduceMaxMinCount<T>(value, index);
}

}  // namespace AscendC
