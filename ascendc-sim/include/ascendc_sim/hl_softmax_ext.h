// ascendc_sim/hl_softmax_ext.h — the high-level SoftmaxFlashV2, SoftmaxGrad and
// SoftmaxGradFront (api-reference §4.4; vendor pages "SoftmaxFlashV2"
// atlasascendc_api_07_0758, "SoftmaxGrad" atlasascendc_api_07_0757, "SoftmaxGradFront"
// atlasascendc_api_07_0759, their headers adv_api/activation/softmaxflashv2.h and
// softmaxgrad.h, and the Atlas A2 (v220) implementation; facts only, written anew).
//
// Layout (ND; the source [.., K] seen as [M, K], the shape from SoftMaxShapeInfo when it is
// not all zero, else the tiling's srcM / srcK, as SoftMax — hl_softmax.h): every per-row
// tensor (sum, max, expMax, SoftmaxGradFront's output) is [M, 32 / sizeof(type)], one 32-byte
// block per row holding the row's value in every lane. In SoftmaxFlashV2's form with half data
// and float sum/max, expMaxTensor is half: [M, 16].
//
// SoftmaxFlashV2 (FlashAttention-2's online softmax; x = src, per row r, reductions over the
// first oriSrcK columns):
//   isUpdate = false: max = rowmax(x), dst = exp(x - max), sum = rowsum(dst); expMax, inSum
//                     and inMax are neither read nor written.
//   isUpdate = true:  max = max(inMax, rowmax(x)), dst = exp(x - max),
//                     expMax = exp(inMax - max), sum = expMax * inSum + rowsum(dst).
//   dst is NOT divided by the sum (the caller rescales its accumulator by expMax and divides
//   at the end). inMax/inSum may be the very tensors max/sum (exact in place, the usual
//   flash-attention loop). Numerics: the Atlas A2 implementation computes in float (half
//   inputs cast up, outputs cast down); the simulator evaluates each output in double from the
//   stored inputs, with the row sum taken over the float-rounded exponentials, and rounds once
//   to the output type (the sources do not publish the order of the float reduction tree).
//
// SoftmaxGrad (grad, src = the softmax output y): sum = rowsum(grad * src);
//   isFront = false: dst = (grad - sum) * src, [M, K];  isFront = true: dst = sum, [M, epb].
// SoftmaxGradFront: dst = rowsum(grad * src), [M, epb]. half is computed in float on the NPU;
// here in double, rounded once.
//
// Temporary space (float elements, Atlas A2; the same rules as the host helpers of
// tiling/hl_tiling_helpers.h, epb = 32 / sizeof of the sum/max type):
//   SoftmaxFlashV2: half data 2 epb + K + 64 per row, float data epb + 64 per row; with
//   isBasicBlock and K % 64 == 0, M % 8 == 0: half epb + K + 64, float epb + 64 (+ 64 more
//   when K = 1024).
//   SoftmaxGrad: half 2 epb + 3 K + 64 per row; float epb + K + 64 (isFront / GradFront) or
//   2 epb + K + 64.
// With sharedTmpBuffer it must hold that for the rows per pass the tiling gives (splitM when
// the tiling is for this [M, K]; else, as the vendor re-tiles from the buffer's size, what
// the buffer holds, at least one row), else `ub_out_of_range`. The framework-allocated forms
// are not size-checked (the simulator cannot see what the framework reserved).
//
// Checks as SoftMax: no shape (`field_out_of_range`), K * sizeof(T) not a multiple of 32
// (`ub_misaligned`), oriSrcK > K (`field_out_of_range`), operands outside their buffers
// (`ub_out_of_range`), partial overlaps and a sharedTmpBuffer overlapping an operand
// (`vector_overlap`).
//
// Cost per pass of splitM rows (float lanes), the steps of the implementation: half data adds
// a Cast in and out; ReduceMax (fold + WholeReduce + Brcb); with isUpdate a Max, Sub and Exp on
// the [R, epb] blocks; Sub and Exp over the rows; ReduceSum (fold + WholeReduce + Brcb); the
// copy of the max blocks to maxTensor; with isUpdate a Mul and Add on the blocks. SoftmaxGrad:
// Mul, ReduceSum (+ Brcb), then (not isFront) the [R, K] broadcast of the sum, Sub and Mul;
// half adds Casts of both inputs and of the output. Each step is its own instruction (no
// merging of two steps into one instruction of twice the repeats).
//
// Not supported (static_assert): isDataFormatNZ = true, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC.
// SoftmaxConfig's oriSrcM / oriSrcK and isReuseSource change nothing here (the shape comes
// from SoftMaxShapeInfo).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/hl_softmax.h"

namespace ascendc_sim::hl {

// flashv2_row_floats / grad_row_floats (the per-row temporary floats) are in hl_tiling.h,
// shared with the host helpers.

/// Rows per pass: the tiling's splitM when it is for this [M, K]; else what the temporary
/// buffer holds (rounded down to 8 above 8 rows, at least 1), all rows when framework-allocated.
inline uint32_t rows_per_pass(const SmShape& s, uint32_t row_floats, const ::SoftMaxTiling& t, bool has_tmp,
                              uint64_t tmp_bytes) {
  if (t.srcK == s.k && t.srcM == s.m && t.splitM > 0) return std::min(t.splitM, s.m);
  if (!has_tmp) return s.m;
  uint64_t r = tmp_bytes / 4 / row_floats;
  if (r < s.m && r > 8) r = r / 8 * 8;
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(r, s.m)));
}

template <class U>
inline void store_block(CoreContext& c, uint64_t addr, double v, uint8_t init) {
  for (uint32_t l = 0; l < 32 / sizeof(U); l++) store1<U>(c, addr + l * sizeof(U), v, init);
}

/// SoftmaxFlashV2 on T data with U sum/max (T = U, or half data with float sum/max).
template <class T, class U>
inline void flashv2_run(bool update, bool basic_tpl, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<U>& sum, const AscendC::LocalTensor<U>& max,
                        const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<T>& exp_max,
                        const AscendC::LocalTensor<U>& in_sum, const AscendC::LocalTensor<U>& in_max,
                        const AscendC::LocalTensor<uint8_t>* tmp, const ::SoftMaxTiling& tiling,
                        const AscendC::SoftMaxShapeInfo& si, const SrcLoc& loc) {
  const char* api = "SoftmaxFlashV2";
  CoreContext& c = ctx(api);
  const SmShape s = softmax_shape(sizeof(T), tiling, si, api, loc);
  const bool basic = basic_tpl && s.k % 64 == 0 && s.m % 8 == 0;
  const uint32_t row_floats = flashv2_row_floats(sizeof(T), sizeof(U), s.k, basic);
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  const uint32_t rows = rows_per_pass(s, row_floats, tiling, tmp != nullptr, tmp_bytes);
  const uint64_t n = uint64_t(s.m) * s.k, nu = uint64_t(s.m) * (32 / sizeof(U)), nt = uint64_t(s.m) * (32 / sizeof(T));
  Tile ops[8];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n, false};
  if (update) {
    ops[no++] = Tile{in_sum.ref(), "inExpSumTensor", sizeof(U), nu, false};
    ops[no++] = Tile{in_max.ref(), "inMaxTensor", sizeof(U), nu, false};
  }
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n, true};
  ops[no++] = Tile{sum.ref(), "expSumTensor", sizeof(U), nu, true};
  ops[no++] = Tile{max.ref(), "maxTensor", sizeof(U), nu, true};
  if (update) ops[no++] = Tile{exp_max.ref(), "expMaxTensor", sizeof(T), nt, true};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp) {
    const uint64_t need = 4ull * rows * row_floats;
    if (tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetSoftMaxFlashV2MinTmpSize / SoftMaxFlashV2TilingFunc", api, loc);
  }

  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  std::vector<double> e(s.k);
  std::vector<uint8_t> ei(s.k);
  for (uint32_t r = 0; r < s.m; r++) {
    uint8_t init = kInit;
    for (uint32_t j = 0; j < s.k; j++) {
      e[j] = load1<T>(c, xs + (uint64_t(r) * s.k + j) * sizeof(T), &ei[j]);
      if (j < s.ori_k) init &= ei[j];
    }
    double mx = e[0];
    for (uint32_t j = 1; j < s.ori_k; j++) mx = std::max(mx, e[j]);
    double im = 0, is = 0;
    if (update) {
      uint8_t a, b;
      im = load1<U>(c, in_max.ref().addr + uint64_t(r) * 32, &a);
      is = load1<U>(c, in_sum.ref().addr + uint64_t(r) * 32, &b);
      init &= a & b;
      mx = std::max(mx, im);
    }
    double rs = 0;
    for (uint32_t j = 0; j < s.ori_k; j++) rs += double(float(std::exp(e[j] - mx)));
    for (uint32_t j = 0; j < s.k; j++) {
      const uint8_t in = (init == kInit && ei[j] == kInit) ? kInit : kUninit;
      store1<T>(c, ds + (uint64_t(r) * s.k + j) * sizeof(T), std::exp(e[j] - mx), in);
    }
    double sm = rs;
    if (update) {
      const double em = std::exp(im - mx);
      sm = em * is + rs;
      store_block<T>(c, exp_max.ref().addr + uint64_t(r) * 32, em, init);
    }
    store_block<U>(c, sum.ref().addr + uint64_t(r) * 32, sm, init);
    store_block<U>(c, max.ref().addr + uint64_t(r) * 32, mx, init);
  }

  for (uint32_t r0 = 0; r0 < s.m; r0 += rows) {
    const uint64_t R = std::min<uint32_t>(rows, s.m - r0);
    const uint64_t body = R * ceil_div(s.k, 64), blk = ceil_div(R * (32 / sizeof(U)), 64);
    charge_scalar(c, 32);
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    if (update && sizeof(U) == 2) {  // inMax, inSum up to float
      charge(c, VecClass::Cast, blk);
      charge(c, VecClass::Cast, blk);
    }
    charge_row_reduce(c, R, s.k, true);                                 // ReduceMax
    if (update) {
      charge(c, VecClass::Simple, blk);  // Max with inMax
      charge(c, VecClass::Simple, blk);  // inMax - max
      charge(c, VecClass::Transcend, blk);   // expMax
    }
    charge(c, VecClass::Simple, body);     // x - max
    charge(c, VecClass::Transcend, body);  // Exp
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    charge_row_reduce(c, R, s.k, true);  // ReduceSum
    charge(c, VecClass::Copy, blk);  // the max blocks to maxTensor
    if (update) {
      charge(c, VecClass::Simple, blk);  // expMax * inSum
      charge(c, VecClass::Simple, blk);  // + rowsum
    }
    if (sizeof(U) == 2) {  // sum, max down to half
      charge(c, VecClass::Cast, blk);
      charge(c, VecClass::Cast, blk);
    }
    if (update && sizeof(T) == 2) charge(c, VecClass::Cast, ceil_div(R * 16, 64));  // expMax down to half
  }
}

/// SoftmaxGrad (front_out = false: dst [M, K]; true: dst = the row sums [M, epb]) and
/// SoftmaxGradFront (front_out = true). `front_tmp` selects the temporary-space rule.
template <class T>
inline void grad_run(const char* api, bool front_out, const AscendC::LocalTensor<T>& dst,
                     const AscendC::LocalTensor<T>& grad, const AscendC::LocalTensor<T>& src,
                     const AscendC::LocalTensor<uint8_t>* tmp, const ::SoftMaxTiling& tiling,
                     const AscendC::SoftMaxShapeInfo& si, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  const SmShape s = softmax_shape(sizeof(T), tiling, si, api, loc);
  constexpr uint32_t epb = 32 / sizeof(T);
  const uint32_t row_floats = grad_row_floats(sizeof(T), s.k, front_out);
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  const uint32_t rows = rows_per_pass(s, row_floats, tiling, tmp != nullptr, tmp_bytes);
  const uint64_t n = uint64_t(s.m) * s.k, nd = front_out ? uint64_t(s.m) * epb : n;
  Tile ops[4];
  int no = 0;
  ops[no++] = Tile{grad.ref(), "gradTensor", sizeof(T), n, false};
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n, false};
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), nd, true};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp) {
    const uint64_t need = 4ull * rows * row_floats;
    if (tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetSoftMaxGradMinTmpSize / SoftMaxGradTilingFunc", api, loc);
  }

  const uint64_t gs = grad.ref().addr, xs = src.ref().addr, ds = dst.ref().addr;
  std::vector<double> g(s.k), x(s.k);
  std::vector<uint8_t> gi(s.k), xi(s.k);
  for (uint32_t r = 0; r < s.m; r++) {
    uint8_t init = kInit;
    double sm = 0;
    for (uint32_t j = 0; j < s.k; j++) {
      g[j] = load1<T>(c, gs + (uint64_t(r) * s.k + j) * sizeof(T), &gi[j]);
      x[j] = load1<T>(c, xs + (uint64_t(r) * s.k + j) * sizeof(T), &xi[j]);
      if (j < s.ori_k) {
        init &= gi[j] & xi[j];
        sm += g[j] * x[j];
      }
    }
    if (front_out) {
      store_block<T>(c, ds + uint64_t(r) * 32, sm, init);
      continue;
    }
    for (uint32_t j = 0; j < s.k; j++) {
      const uint8_t in = (init == kInit && gi[j] == kInit && xi[j] == kInit) ? kInit : kUninit;
      store1<T>(c, ds + (uint64_t(r) * s.k + j) * sizeof(T), (g[j] - sm) * x[j], in);
    }
  }

  for (uint32_t r0 = 0; r0 < s.m; r0 += rows) {
    const uint64_t R = std::min<uint32_t>(rows, s.m - r0);
    const uint64_t body = R * ceil_div(s.k, 64);
    charge_scalar(c, 32);
    if (sizeof(T) == 2) {  // grad, src up to float
      charge(c, VecClass::Cast, body);
      charge(c, VecClass::Cast, body);
    }
    charge(c, VecClass::Simple, body);                         // grad * src
    charge_row_reduce(c, R, s.k, true);                        // ReduceSum + Brcb
    if (front_out) {
      if (sizeof(T) == 2) charge(c, VecClass::Cast, ceil_div(R * epb, 64));
      continue;
    }
    charge(c, VecClass::Copy, body);       // the [R, epb] sums broadcast to [R, K]
    charge(c, VecClass::Simple, body);  // grad - sum
    charge(c, VecClass::Simple, body);  // * src
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
  }
}

}  // namespace ascendc_sim::hl

namespace AscendC {

#define ASCENDC_SIM_FLASHV2_CHECK(T, NZ, CFG)                                                                  \
  static_assert(ascendc_sim::hl::softmax_type_ok<T>, "SoftmaxFlashV2: element type must be half or float");   \
  static_assert(!(NZ), "SoftmaxFlashV2: isDataFormatNZ = true (NZ format) is not implemented in the simulator"); \
  static_assert((CFG).mode == SoftmaxMode::SOFTMAX_NORMAL,                                                     \
                "SoftmaxFlashV2: SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC is not implemented in the simulator")

/// Kernel-side SoftmaxFlashV2 tiling (vendor softmaxflashv2.h: `localWorkSpaceSize` in bytes):
/// rows per pass = the temporary floats over the per-row need (see the header comment),
/// rounded down to a multiple of 8 (16 for half data with isFlashOutputBrc) when between that
/// and M. isDataFormatNZ is not modelled (the ND rule is used).
constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1,
                                                 const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                 const bool isUpdate = false, const bool isBasicBlock = false,
                                                 const bool isDataFormatNZ = false,
                                                 const bool isFlashOutputBrc = false) {
  (void)isUpdate;
  (void)isDataFormatNZ;
  SoftMaxTiling t{};
  const uint32_t m = shapeInfo.srcM, k = shapeInfo.srcK;
  if (m == 0 || k == 0 || (dataTypeSize1 != 2 && dataTypeSize1 != 4) || (dataTypeSize2 != 2 && dataTypeSize2 != 4))
    return t;
  const uint32_t epb = 32 / dataTypeSize2;
  const bool basic = isBasicBlock && k % 64 == 0 && m % 8 == 0;
  uint32_t base = localWorkSpaceSize / 4 / ascendc_sim::hl::flashv2_row_floats(dataTypeSize1, dataTypeSize2, k, basic);
  if (basic && base > 8) {
    base = std::min(base, m) / 8 * 8;
    while (m % base != 0) base -= 8;
    while (base * k >= 64u * 256u) base /= 2;
  }
  const uint32_t tile = isFlashOutputBrc && dataTypeSize1 == 2 ? 16 : 8;
  if (base < m && base > tile) base = base / tile * tile;
  base = std::min(base, m);
  t.srcM = m;
  t.srcK = k;
  t.srcSize = m * k;
  t.outMaxM = m;
  t.outMaxK = epb;
  t.outMaxSize = m * epb;
  t.reduceM = base;
  t.reduceK = epb;
  t.reduceSize = base * epb;
  t.splitM = base;
  t.splitK = k;
  t.splitSize = base * k;
  t.rangeM = base ? m / base : 0;
  t.tailM = base ? m % base : 0;
  t.tailSplitSize = t.tailM * k;
  t.tailReduceSize = t.tailM * epb;
  return t;
}

/// SoftmaxFlashV2, framework-allocated temporary space (T data and sum/max).
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_FLASHV2_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::flashv2_run<T, T>(isUpdate, isBasicBlock, dstTensor, expSumTensor, maxTensor, srcTensor,
                                     expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling, softmaxShapeInfo,
                                     loc);
}
/// SoftmaxFlashV2 on half data with float sum/max (expMaxTensor half), framework-allocated.
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_FLASHV2_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::flashv2_run<half, float>(isUpdate, isBasicBlock, dstTensor, expSumTensor, maxTensor, srcTensor,
                                            expMaxTensor, inExpSumTensor, inMaxTensor, nullptr, tiling,
                                            softmaxShapeInfo, loc);
}
/// SoftmaxFlashV2 with sharedTmpBuffer (T data and sum/max).
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                           ASCENDC_SIM_LOC) {
  ASCENDC_SIM_FLASHV2_CHECK(T, isDataFormatNZ, config);
  ascendc_sim::hl::flashv2_run<T, T>(isUpdate, isBasicBlock, dstTensor, expSumTensor, maxTensor, srcTensor,
                                     expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer, tiling,
                                     softmaxShapeInfo, loc);
}
/// SoftmaxFlashV2 on half data with float sum/max, sharedTmpBuffer.
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                           ASCENDC_SIM_LOC) {
  ASCENDC_SIM_FLASHV2_CHECK(half, isDataFormatNZ, config);
  ascendc_sim::hl::flashv2_run<half, float>(isUpdate, isBasicBlock, dstTensor, expSumTensor, maxTensor, srcTensor,
                                            expMaxTensor, inExpSumTensor, inMaxTensor, &sharedTmpBuffer, tiling,
                                            softmaxShapeInfo, loc);
}
#undef ASCENDC_SIM_FLASHV2_CHECK

#define ASCENDC_SIM_GRAD_CHECK(T, NZ)                                                                    \
  static_assert(ascendc_sim::hl::softmax_type_ok<T>, "SoftmaxGrad: element type must be half or float"); \
  static_assert(!(NZ), "SoftmaxGrad: isDataFormatNZ = true (NZ format) is not implemented in the simulator")

/// SoftmaxGrad, framework-allocated temporary space: dst = (grad - rowsum(grad * src)) * src,
/// or with isFront the row sums ([M, epb]).
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_GRAD_CHECK(T, isDataFormatNZ);
  ascendc_sim::hl::grad_run<T>("SoftmaxGrad", isFront, dstTensor, gradTensor, srcTensor, nullptr, tiling,
                               softmaxShapeInfo, loc);
}
/// SoftmaxGrad with sharedTmpBuffer.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                        const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                        const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_GRAD_CHECK(T, isDataFormatNZ);
  ascendc_sim::hl::grad_run<T>("SoftmaxGrad", isFront, dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling,
                               softmaxShapeInfo, loc);
}
/// SoftmaxGradFront: dst = rowsum(grad * src) as [M, epb] blocks, framework-allocated.
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                             const SoftMaxShapeInfo& softmaxShapeInfo = {}, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_GRAD_CHECK(T, isDataFormatNZ);
  ascendc_sim::hl::grad_run<T>("SoftmaxGradFront", true, dstTensor, gradTensor, srcTensor, nullptr, tiling,
                               softmaxShapeInfo, loc);
}
/// SoftmaxGradFront with sharedTmpBuffer.
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                             const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                             ASCENDC_SIM_LOC) {
  ASCENDC_SIM_GRAD_CHECK(T, isDataFormatNZ);
  ascendc_sim::hl::grad_run<T>("SoftmaxGradFront", true, dstTensor, gradTensor, srcTensor, &sharedTmpBuffer,
                               tiling, softmaxShapeInfo, loc);
}
#undef ASCENDC_SIM_GRAD_CHECK

}  // namespace AscendC
