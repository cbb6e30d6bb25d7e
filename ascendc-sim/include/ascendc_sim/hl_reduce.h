// ascendc_sim/hl_reduce.h — the high-level Sum (vendor page "Sum", atlasascendc_api_07_0824,
// and its header adv_api/reduce/sum.h; facts only).
//
// Semantics: srcTensor holds `outter` rows of `inner` elements (inner = n rounded up to 32
// bytes); dst[r] = the sum of the first n elements of row r, for r < outter. dst must hold
// outter results rounded up to 32 bytes; the round-up lanes are left as they were (the page:
// "not filled"). half or float. Evaluated in double and rounded once (the NPU adds pairwise
// in a binary tree in T; the results agree within the high-level-API tolerance).
//
// Checks (the page's constraints): inner * sizeof(T) a non-zero multiple of 32
// (`ub_misaligned`), 1 <= n <= inner (`field_out_of_range`), the operands' footprints
// (outter * inner source elements, the aligned outter destination elements) inside their
// buffers, sharedTmpBuffer at least what GetSumMaxMinTmpSize gives for n
// (`ub_out_of_range`), no overlap between src, dst and sharedTmpBuffer (`vector_overlap`).
// The framework-allocated form (no sharedTmpBuffer) is not size-checked.
//
// Cost (the vendor's implementation for Atlas A2): counter-mode RepeatReduceSum per row,
// first over the n elements (ceil(n / per-repeat) repeats), then over the partial sums
// until one value is left — one instruction per level and row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
/// Shape of a Sum source (vendor struct SumParams).
struct SumParams {
  uint32_t outter = 1;  // rows
  uint32_t inner;       // elements per row after padding to 32 bytes
  uint32_t n;           // real elements per row
};
}  // namespace AscendC

namespace ascendc_sim::hl {

/// Bytes of temporary space Sum needs for rows of n elements of `esize` bytes (the partial
/// sums of the first level, rounded up to 32 bytes).
inline uint32_t sum_tmp_bytes(uint32_t n, uint32_t esize) {
  const uint32_t epr = 256 / esize, epb = 32 / esize;
  const uint32_t reps = (n + epr - 1) / epr;
  return (reps + epb - 1) / epb * epb * esize;
}

template <class T>
inline void sum_run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::LocalTensor<uint8_t>* tmp, const AscendC::SumParams& p, const SrcLoc& loc) {
  const char* api = "Sum";
  CoreContext& c = ctx(api);
  if (p.inner == 0 || uint64_t(p.inner) * sizeof(T) % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("SumParams.inner %u elements (%llu bytes) is not a non-zero multiple of 32 bytes: inner is n rounded "
             "up to 32 bytes",
             p.inner, (unsigned long long)(uint64_t(p.inner) * sizeof(T))),
         {{"inner", double(p.inner)}});
  }
  if (p.n < 1 || p.n > p.inner) {
    fail("field_out_of_range", api, loc, fmt("SumParams.n %u is outside [1, inner = %u]", p.n, p.inner),
         {{"n", double(p.n)}, {"inner", double(p.inner)}});
  }
  const uint64_t epb = 32 / sizeof(T);
  const uint64_t n_src = uint64_t(p.outter) * p.inner, n_dst = ceil_div(p.outter, epb) * epb;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[3];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n_src, false};
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n_dst, true};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp) {
    const uint64_t need = sum_tmp_bytes(p.n, sizeof(T));
    if (tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetSumMaxMinTmpSize", api, loc);
  }
  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  for (uint32_t r = 0; r < p.outter; r++) {
    double s = 0;
    uint8_t init = kInit;
    for (uint32_t j = 0; j < p.n; j++) {
      uint8_t in;
      s += load1<T>(c, xs + (uint64_t(r) * p.inner + j) * sizeof(T), &in);
      init &= in;
    }
    store1<T>(c, ds + uint64_t(r) * sizeof(T), s, init == kInit ? kInit : kUninit);
  }
  // Cost: per row one RepeatReduceSum per level of the tree of repeats.
  const uint64_t epr = 256 / sizeof(T);
  charge_scalar(c, 8);
  for (uint32_t r = 0; r < p.outter; r++) {
    uint64_t left = p.n;
    do {
      const uint64_t reps = ceil_div(left, epr);
      charge(c, VecClass::WholeReduce, reps);
      left = reps;
    } while (left > 1);
  }
}

/// What a pattern reduction computes.
enum class PatternReduce { Max, Min, Sum, Mean };

/// ReduceMax / ReduceMin / ReduceSum / ReduceMean with pattern AR (`ar`: each of `first` rows
/// reduced over its `last` elements into dst[r]) or RA (each of `last` columns reduced over
/// the `first` rows into dst[j]). The source rows sit at the padded pitch
/// padLast = last rounded up to 32 bytes (the Atlas A2 implementation computes padLast from
/// srcShape[1] whatever srcInnerPad says). Evaluated in double, rounded once.
template <class T>
inline void pattern_reduce_run(const char* api, PatternReduce op, bool ar, const AscendC::LocalTensor<T>& dst,
                               const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                               const uint32_t srcShape[], const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  const uint32_t first = srcShape[0], last = srcShape[1];
  if (first == 0 || last == 0) {
    fail("field_out_of_range", api, loc,
         fmt("srcShape {%u, %u}: both dimensions must be at least 1", first, last),
         {{"first", double(first)}, {"last", double(last)}});
  }
  const uint64_t epb = 32 / sizeof(T), epr = 256 / sizeof(T);
  const uint64_t pad = ceil_div(last, epb) * epb;
  const uint64_t n_src = uint64_t(first) * pad;
  const uint64_t n_out = ar ? first : last;
  const uint64_t n_dst = ar ? ceil_div(first, epb) * epb : pad;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[3];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n_src, false};
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n_dst, true};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  const uint64_t len = ar ? last : first;
  for (uint64_t o = 0; o < n_out; o++) {
    double acc = 0;
    uint8_t init = kInit;
    for (uint64_t k = 0; k < len; k++) {
      const uint64_t e = ar ? o * pad + k : k * pad + o;
      uint8_t in;
      const double v = load1<T>(c, xs + e * sizeof(T), &in);
      init &= in;
      if (k == 0) {
        acc = v;
      } else if (op == PatternReduce::Max) {
        acc = std::max(acc, v);
      } else if (op == PatternReduce::Min) {
        acc = std::min(acc, v);
      } else {
        acc += v;
      }
    }
    if (op == PatternReduce::Mean) acc /= double(len);
    store1<T>(c, ds + o * sizeof(T), acc, init == kInit ? kInit : kUninit);
  }
  // Cost: AR folds each row's blocks with vector ops to one repeat and reduces it (the
  // row-wise machinery's model); RA halves the rows in a binary tree, first - 1 row
  // operations of padLast elements; Mean adds one Muls over the results.
  charge_scalar(c, 8);
  if (ar) {
    charge_row_reduce(c, first, pad * sizeof(T) / 4, false);
  } else if (first > 1) {
    charge(c, VecClass::Simple, uint64_t(first - 1) * ceil_div(pad, epr));
  }
  if (op == PatternReduce::Mean) charge(c, VecClass::Simple, ceil_div(n_out, epr));
}

}  // namespace ascendc_sim::hl

namespace AscendC {
/// The reduction patterns of the high-level Reduce* APIs (vendor adv_api/reduce/reduce.h):
/// `AR` reduces the last axis of a [first, last] source, `RA` the first.
namespace Pattern::Reduce {
struct AR {};
struct RA {};
}  // namespace Pattern::Reduce

#define ASCENDC_SIM_PATTERN_REDUCE(NAME, OP, ...)                                                                 \
  template <class T, class pattern, bool isReuseSource = false>                                                   \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                              \
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad,      \
                   ASCENDC_SIM_LOC) {                                                                             \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Atlas A2");    \
    static_assert(ascendc_sim::is_one_of_v<pattern, Pattern::Reduce::AR, Pattern::Reduce::RA>,                    \
                  #NAME ": only the AR and RA patterns are supported");                                           \
    (void)srcInnerPad;                                                                                            \
    ascendc_sim::hl::pattern_reduce_run<T>(#NAME, ascendc_sim::hl::PatternReduce::OP,                             \
                                           std::is_same_v<pattern, Pattern::Reduce::AR>, dstTensor, srcTensor,    \
                                           &sharedTmpBuffer, srcShape, loc);                                      \
  }                                                                                                               \
  template <class T, class pattern, bool isReuseSource = false>                                                   \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],   \
                   bool srcInnerPad, ASCENDC_SIM_LOC) {                                                           \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Atlas A2");    \
    static_assert(ascendc_sim::is_one_of_v<pattern, Pattern::Reduce::AR, Pattern::Reduce::RA>,                    \
                  #NAME ": only the AR and RA patterns are supported");                                           \
    (void)srcInnerPad;                                                                                            \
    ascendc_sim::hl::pattern_reduce_run<T>(#NAME, ascendc_sim::hl::PatternReduce::OP,                             \
                                           std::is_same_v<pattern, Pattern::Reduce::AR>, dstTensor, srcTensor,    \
                                           nullptr, srcShape, loc);                                               \
  }

/// ReduceMax / ReduceMin (half, float), ReduceSum (float), ReduceMean (half, float) over the
/// AR or RA pattern of a [srcShape[0], srcShape[1]] source whose rows sit at the last axis
/// rounded up to 32 bytes (vendor adv_api/reduce/reduce.h and the Atlas A2 implementation;
/// facts only). dst holds srcShape[0] (AR) or srcShape[1] (RA) results; its footprint is
/// checked to the 32-byte round-up. The sharedTmpBuffer's size is not checked (the host
/// helpers' formula, Get*MaxMinTmpSize, is not published); it must not overlap the operands.
ASCENDC_SIM_PATTERN_REDUCE(ReduceMax, Max, half, float)
ASCENDC_SIM_PATTERN_REDUCE(ReduceMin, Min, half, float)
ASCENDC_SIM_PATTERN_REDUCE(ReduceSum, Sum, float)
ASCENDC_SIM_PATTERN_REDUCE(ReduceMean, Mean, half, float)
#undef ASCENDC_SIM_PATTERN_REDUCE

/// Sum with the temporary space from sharedTmpBuffer.
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Sum: element type must be half or float");
  static_assert(reduceDim == -1, "Sum: only the last dimension (reduceDim = -1) is supported");
  ascendc_sim::hl::sum_run<T>(dstTensor, srcTensor, &sharedTmpBuffer, sumParams, loc);
}
/// Sum with framework-allocated temporary space.
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams,
                ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Sum: element type must be half or float");
  static_assert(reduceDim == -1, "Sum: only the last dimension (reduceDim = -1) is supported");
  ascendc_sim::hl::sum_run<T>(dstTensor, srcTensor, nullptr, sumParams, loc);
}
}  // namespace AscendC
