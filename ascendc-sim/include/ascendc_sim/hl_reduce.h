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

#include <cstdint>

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

}  // namespace ascendc_sim::hl

namespace AscendC {
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
