// ascendc_sim/hl_softmax.h — the high-level SoftMax and SimpleSoftMax (api-reference §4.4,
// vendor pages "SoftMax" atlasascendc_api_07_0753 and "SimpleSoftMax"; facts only).
//
// Semantics (ND format): the source [.., K] is seen as [M, K] and each row r becomes
//   max_r = max_j x_rj,  sum_r = sum_j exp(x_rj - max_r),  dst_rj = exp(x_rj - max_r) / sum_r
// (SimpleSoftMax takes max_r and sum_r as inputs and computes dst only). sumTensor and
// maxTensor are [M, epb]: one 32-byte block per row holding the row's value in every lane
// (epb = 32 / sizeof of their type; 8 floats or 16 halves). The overload with half data
// and float sum/max keeps those in float.
//
// Shape: SoftMaxShapeInfo {srcM, srcK, oriSrcM, oriSrcK} when given (not all zero), else the
// tiling's srcM / srcK. K * sizeof(T) must be a multiple of 32 ("srcK: last axis, must be
// 32-byte aligned"): a misaligned last axis is `ub_misaligned` (rows would start off a
// 32-byte boundary). With oriSrcK < srcK the reductions cover the first oriSrcK columns and
// dst's padding columns get the same formula (the vendor: padded data "takes part in part of
// the computation" and its dst positions are overwritten) — UNCERTAIN which steps the
// padding enters on the NPU; padded rows (oriSrcM < srcM) are computed like the others.
// No shape at all (tiling and shape info zero) is `field_out_of_range`.
//
// Temporary space: with sharedTmpBuffer the buffer must hold what the tiling uses,
// 4 * splitM * (epb + K + 64) bytes (GetSoftMaxMinTmpSize's one row when the tiling is for
// another K), else `ub_out_of_range` (the API would write past it). The framework-allocated
// forms (no sharedTmpBuffer) are not size-checked: the simulator cannot see what the
// framework reserved.
//
// Cost per pass of splitM rows (float lanes; half data adds a Cast in and out): ReduceMax
// (fold + WholeReduce + Brcb), Sub, Exp, ReduceSum (fold + WholeReduce + Brcb), Div — the
// steps of the vendor's algorithm description ("reducemax, broadcast, sub, exp, reducesum,
// broadcast, div", all on Vector). SimpleSoftMax: Sub, Exp, Div.
//
// Not supported: isDataFormatNZ = true and SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC
// (static_assert), isBasicBlock only selects the vendor's fast path and changes nothing here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace ascendc_sim::hl {

struct SmShape {
  uint32_t m, k, ori_k;
};

inline SmShape softmax_shape(uint32_t esize, const ::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& si,
                             const char* api, const SrcLoc& loc) {
  SmShape s{tiling.srcM, tiling.srcK, tiling.srcK};
  if (si.srcM != 0 || si.srcK != 0) s = SmShape{si.srcM, si.srcK, si.oriSrcK ? si.oriSrcK : si.srcK};
  if (s.m == 0 || s.k == 0) {
    fail("field_out_of_range", api, loc,
         fmt("no shape: SoftMaxShapeInfo is empty and the SoftMaxTiling has srcM %u, srcK %u (fill it on the host "
             "with SoftMaxTilingFunc)",
             tiling.srcM, tiling.srcK),
         {{"srcM", double(s.m)}, {"srcK", double(s.k)}});
  }
  if (uint64_t(s.k) * esize % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("last axis srcK = %u elements (%u bytes) is not a multiple of 32 bytes: rows must be padded to 32 bytes "
             "(give the real length as SoftMaxShapeInfo::oriSrcK)",
             s.k, s.k * esize),
         {{"srcK", double(s.k)}, {"row_bytes", double(s.k * esize)}});
  }
  if (s.ori_k > s.k) {
    fail("field_out_of_range", api, loc, fmt("oriSrcK %u is larger than srcK %u", s.ori_k, s.k),
         {{"oriSrcK", double(s.ori_k)}, {"srcK", double(s.k)}});
  }
  return s;
}

/// Rows per pass: the tiling's splitM when it is for this K, else what the temporary
/// buffer holds (all rows for the framework-allocated form).
inline uint32_t softmax_rows_per_pass(const SmShape& s, uint32_t epb, const ::SoftMaxTiling& t, bool has_tmp,
                                      uint64_t tmp_bytes) {
  if (t.srcK == s.k && t.splitM > 0) return std::min(t.splitM, s.m);
  if (!has_tmp) return s.m;
  uint64_t r = tmp_bytes / 4 / (epb + s.k + 64);
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(r, s.m)));
}

/// SoftMax (simple = false) or SimpleSoftMax (simple = true) on T data with U sum/max.
template <class T, class U>
inline void softmax_run(const char* api, bool simple, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<U>* sum, const AscendC::LocalTensor<U>* max,
                        const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                        const ::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& si, const SrcLoc& loc,
                        bool log_out = false) {
  CoreContext& c = ctx(api);
  const SmShape s = softmax_shape(sizeof(T), tiling, si, api, loc);
  const uint32_t epb = 32 / sizeof(U);
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  const uint32_t rows = softmax_rows_per_pass(s, epb, tiling, tmp != nullptr, tmp_bytes);
  const uint64_t n = uint64_t(s.m) * s.k, nr = uint64_t(s.m) * epb;
  Tile ops[5];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n, false};
  if (simple) {
    ops[no++] = Tile{sum->ref(), "inSumTensor", sizeof(U), nr, false};
    ops[no++] = Tile{max->ref(), "inMaxTensor", sizeof(U), nr, false};
  }
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n, true};
  if (!simple && sum) {
    ops[no++] = Tile{sum->ref(), "sumTensor", sizeof(U), nr, true};
    ops[no++] = Tile{max->ref(), "maxTensor", sizeof(U), nr, true};
  }
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp) {
    uint64_t need = 4ull * rows * (epb + s.k + 64);
    if (tmp_bytes < need) {
      tmp_too_small(tmp_bytes, need,
                    log_out ? "GetLogSoftMaxMinTmpSize / LogSoftMaxTilingFunc" : "GetSoftMaxMinTmpSize / SoftMaxTilingFunc",
                    api, loc);
    }
  }

  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  std::vector<double> e(s.k);
  std::vector<uint8_t> ei(s.k);
  for (uint32_t r = 0; r < s.m; r++) {
    uint8_t row_init = kInit;
    for (uint32_t j = 0; j < s.k; j++) {
      e[j] = load1<T>(c, xs + (uint64_t(r) * s.k + j) * sizeof(T), &ei[j]);
      if (j < s.ori_k) row_init &= ei[j];
    }
    double mx, sm;
    uint8_t red_init = row_init;
    if (simple) {
      uint8_t a, b;
      sm = load1<U>(c, sum->ref().addr + uint64_t(r) * 32, &a);
      mx = load1<U>(c, max->ref().addr + uint64_t(r) * 32, &b);
      red_init = a & b;
    } else {
      mx = e[0];
      for (uint32_t j = 1; j < s.ori_k; j++) mx = std::max(mx, e[j]);
      sm = 0;
      for (uint32_t j = 0; j < s.ori_k; j++) sm += std::exp(e[j] - mx);
    }
    for (uint32_t j = 0; j < s.k; j++) {
      uint8_t in = (red_init == kInit && ei[j] == kInit) ? kInit : kUninit;
      const double y = log_out ? (e[j] - mx) - std::log(sm) : std::exp(e[j] - mx) / sm;
      store1<T>(c, ds + (uint64_t(r) * s.k + j) * sizeof(T), y, in);
    }
    if (!simple && sum) {
      for (uint32_t l = 0; l < epb; l++) {
        store1<U>(c, sum->ref().addr + uint64_t(r) * 32 + l * sizeof(U), sm, red_init);
        store1<U>(c, max->ref().addr + uint64_t(r) * 32 + l * sizeof(U), mx, red_init);
      }
    }
  }

  // Cost: one pass per splitM rows (the tail pass included).
  for (uint32_t r0 = 0; r0 < s.m; r0 += rows) {
    const uint64_t R = std::min<uint32_t>(rows, s.m - r0);
    const uint64_t body = R * ceil_div(s.k, 64);
    charge_scalar(c, 32);  // tiling fields, row offsets and mask setup of the pass
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    if (!simple) charge_row_reduce(c, R, s.k, true);
    charge(c, VecClass::Simple, body);     // Sub max
    charge(c, VecClass::Transcend, body);  // Exp
    if (!simple) charge_row_reduce(c, R, s.k, true);
    charge(c, VecClass::Div, body);  // Div sum
    if (log_out) charge(c, VecClass::Transcend, body);  // Log of the quotient
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    if (!simple && sum && sizeof(U) == 2) charge(c, VecClass::Cast, 2 * ceil_div(R * epb, 64));
  }
}

template <class T>
constexpr bool softmax_type_ok = is_one_of_v<T, half, float>;

}  // namespace ascendc_sim::hl

namespace AscendC {

#define ASCENDC_SIM_SOFTMAX_CHECK(T, NZ, CFG)                                                                  \
  static_assert(ascendc_sim::hl::softmax_type_ok<T>, "SoftMax: element type must be half or float");          \
  static_assert(!(NZ), "SoftMax: isDataFormatNZ = true (NZ format) is not implemented in the simulator");     \
  static_assert((CFG).mode == SoftmaxMode::SOFTMAX_NORMAL,                                                     \
                "SoftMax: SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC is not implemented in the simulator")

/// SoftMax with sum and max outputs, framework-allocated temporary space.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<T, T>("SoftMax", false, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr, tiling,
                                     softmaxShapeInfo, loc);
}
/// SoftMax with sum and max outputs, temporary space from sharedTmpBuffer.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<T, T>("SoftMax", false, dstTensor, &sumTensor, &maxTensor, srcTensor,
                                     &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
/// SoftMax on half data with float sum and max, framework-allocated temporary space.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<half, float>("SoftMax", false, dstTensor, &sumTensor, &maxTensor, srcTensor, nullptr,
                                            tiling, softmaxShapeInfo, loc);
}
/// SoftMax on half data with float sum and max, temporary space from sharedTmpBuffer.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<half, float>("SoftMax", false, dstTensor, &sumTensor, &maxTensor, srcTensor,
                                            &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
/// SoftMax without sum and max outputs, framework-allocated temporary space.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, false, config);
  ascendc_sim::hl::softmax_run<T, T>("SoftMax", false, dstTensor, nullptr, nullptr, srcTensor, nullptr, tiling,
                                     softmaxShapeInfo, loc);
}
/// SoftMax without sum and max outputs, temporary space from sharedTmpBuffer.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, false, config);
  ascendc_sim::hl::softmax_run<T, T>("SoftMax", false, dstTensor, nullptr, nullptr, srcTensor, &sharedTmpBuffer,
                                     tiling, softmaxShapeInfo, loc);
}

/// SimpleSoftMax: dst = exp(src - inMax) / inSum with the row max and sum given ([M, epb]
/// blocks, as SoftMax writes them), framework-allocated temporary space.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                          const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                          const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                          ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<T, T>("SimpleSoftMax", true, dstTensor, &inSumTensor, &inMaxTensor, srcTensor, nullptr,
                                     tiling, softmaxShapeInfo, loc);
}
/// SimpleSoftMax with sharedTmpBuffer.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                          const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<T, T>("SimpleSoftMax", true, dstTensor, &inSumTensor, &inMaxTensor, srcTensor,
                                     &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}
/// SimpleSoftMax on half data with float sum and max.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                          const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                          ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<half, float>("SimpleSoftMax", true, dstTensor, &inSumTensor, &inMaxTensor, srcTensor,
                                            nullptr, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_SOFTMAX_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::softmax_run<half, float>("SimpleSoftMax", true, dstTensor, &inSumTensor, &inMaxTensor, srcTensor,
                                            &sharedTmpBuffer, tiling, softmaxShapeInfo, loc);
}

/// LogSoftMax (vendor page "LogSoftMax" and its header adv_api/activation/logsoftmax.h):
/// dst = log(exp(src - max) / sum) per row, with the row max and sum written to maxTensor
/// and sumTensor ([M, epb] blocks, as SoftMax); half or float, sum/max of the data type,
/// temporary space from sharedTmpBuffer only (the vendor declares no other form). Evaluated
/// in double as (x - max) - ln(sum), rounded once; costed as SoftMax's steps plus a Log over
/// the rows (the vendor's description: max, sum of exp(x - max), log of the quotient).
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                       const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                       const LogSoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                       ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::softmax_type_ok<T>, "LogSoftMax: element type must be half or float");
  static_assert(!isDataFormatNZ, "LogSoftMax: isDataFormatNZ = true (NZ format) is not implemented in the simulator");
  static_assert(sizeof(LogSoftMaxTiling) == sizeof(SoftMaxTiling), "LogSoftMaxTiling layout");
  SoftMaxTiling t;
  std::memcpy(static_cast<void*>(&t), static_cast<const void*>(&tiling), sizeof t);  // same fields, same order
  ascendc_sim::hl::softmax_run<T, T>("LogSoftMax", false, dst, &sumTensor, &maxTensor, src, &sharedTmpBuffer, t,
                                     softmaxShapeInfo, loc, true);
}

#undef ASCENDC_SIM_SOFTMAX_CHECK
}  // namespace AscendC
