// ascendc_sim/hl_norm.h — the high-level RmsNorm, LayerNorm and DeepNorm (api-reference §4.4;
// vendor pages "RmsNorm", "LayerNorm", "DeepNorm" and their Tiling pages; facts only).
//
// Shapes come from the tiling (the host fills it with GetRmsNormTilingInfo /
// GetLayerNormNDTilingInfo): x and the output are [B, S, H] (H the padded last axis, H *
// sizeof(T) a multiple of 32 — else `ub_misaligned`), gamma and beta [H], LayerNorm's mean and
// variance [B, S]. A tiling that was never filled (hLength 0) is `field_out_of_range`.
//   RmsNorm:   y = x / sqrt(mean(x^2) + eps) * gamma
//   LayerNorm: mean = mean(x), var = mean((x - mean)^2) (population variance, the output
//              outputVariance without eps), y = (x - mean) / sqrt(var + eps) * gamma + beta
// The means divide by the original length (reciprocalOfHLength / lastDimValueBack of the
// tiling, 1 / originalHLength) and, in the simulator, reduce over the first originalHLength
// columns; padding columns get the same formula. UNCERTAIN: whether the NPU's reduction
// covers the padded columns too (identical when they hold zeros, for RmsNorm; LayerNorm's
// variance would differ) — the vendor asks for zero padding.
//
// Temporary space with sharedTmpBuffer (float elements): RmsNorm needs
// mainBsLength * H * c + mainBsLengthAlign floats (c = 2 for half: the cast copy), at least
// GetRmsNormMaxMinTmpSize's minimum; LayerNorm needs firstTmpStartPos + numberOfTmpBuf *
// oneTmpSize floats (half keeps mean/variance in float in front), at least
// GetLayerNormMaxMinTmpSize's minimum. Smaller is `ub_out_of_range`: the API would write past
// the buffer. The framework-allocated forms are not size-checked.
//
// Cost per pass of the tiling's rows (float lanes; half adds Casts in and out): RmsNorm: Mul
// (x^2), row ReduceSum, Muls (1/H), Adds (eps), Sqrt, Div (reciprocal), Brcb, Mul (x * rstd),
// Mul (gamma). LayerNorm: Muls (x/H), row ReduceSum (mean), Brcb, Sub, Mul (square), Muls,
// row ReduceSum (variance), Adds, Sqrt, Div, Brcb, Mul, Mul (gamma), Add (beta) — the
// two-pass algorithm of the vendor's LayerNorm page (sub the mean, square, scale, reduce).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace ascendc_sim::hl {

inline void norm_shape_check(uint32_t h, uint32_t oh, uint32_t rows, uint32_t esize, const char* tiling_name,
                             const char* helper, const char* api, const SrcLoc& loc) {
  if (h == 0 || rows == 0) {
    fail("field_out_of_range", api, loc,
         fmt("the %s is empty (hLength %u, %u rows): fill it on the host with %s", tiling_name, h, rows, helper),
         {{"hLength", double(h)}, {"rows", double(rows)}});
  }
  if (uint64_t(h) * esize % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("last axis hLength = %u elements (%u bytes) is not a multiple of 32 bytes: rows must be padded to 32 "
             "bytes (the real length is originalHLength)",
             h, h * esize),
         {{"hLength", double(h)}, {"row_bytes", double(h * esize)}});
  }
  if (oh == 0 || oh > h) {
    fail("field_out_of_range", api, loc, fmt("originalHLength %u is not in [1, hLength = %u]", oh, h),
         {{"originalHLength", double(oh)}, {"hLength", double(h)}});
  }
}

template <class T>
inline void rmsnorm_run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>* tmp, float eps,
                        const ::RmsNormTiling& t, const SrcLoc& loc) {
  const char* api = "RmsNorm";
  CoreContext& c = ctx(api);
  const uint32_t h = t.hLength, oh = t.originalHLength, rows = t.bLength * t.sLength;
  norm_shape_check(h, oh, rows, sizeof(T), "RmsNormTiling", "GetRmsNormTilingInfo", api, loc);
  const uint64_t n = uint64_t(rows) * h;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[4] = {Tile{src.ref(), "srcLocal", sizeof(T), n, false}, Tile{gamma.ref(), "gammaLocal", sizeof(T), h, false},
                 Tile{dst.ref(), "dstLocal", sizeof(T), n, true}, Tile{}};
  int no = 3;
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  const uint32_t per_pass = t.mainBsLength ? std::min(t.mainBsLength, rows) : rows;
  const uint32_t cf = sizeof(T) == 2 ? 2 : 1;
  if (tmp) {
    uint64_t need = 4ull * std::max<uint64_t>(uint64_t(cf) * h + 8,
                                              uint64_t(per_pass) * h * cf + (uint64_t(per_pass) + 7) / 8 * 8);
    if (tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetRmsNormMaxMinTmpSize / GetRmsNormTilingInfo", api, loc);
  }
  const double inv = t.reciprocalOfHLength != 0 ? double(t.reciprocalOfHLength) : 1.0 / oh;
  std::vector<double> g(h), x(h);
  std::vector<uint8_t> gi(h), xi(h);
  for (uint32_t j = 0; j < h; j++) g[j] = load1<T>(c, gamma.ref().addr + uint64_t(j) * sizeof(T), &gi[j]);
  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  for (uint32_t r = 0; r < rows; r++) {
    uint8_t ri = kInit;
    double ss = 0;
    for (uint32_t j = 0; j < h; j++) {
      x[j] = load1<T>(c, xs + (uint64_t(r) * h + j) * sizeof(T), &xi[j]);
      if (j < oh) {
        ri &= xi[j];
        ss += x[j] * x[j];
      }
    }
    const double rstd = 1.0 / std::sqrt(ss * inv + double(eps));
    for (uint32_t j = 0; j < h; j++) {
      uint8_t in = (ri == kInit && xi[j] == kInit && gi[j] == kInit) ? kInit : kUninit;
      store1<T>(c, ds + (uint64_t(r) * h + j) * sizeof(T), x[j] * rstd * g[j], in);
    }
  }
  for (uint32_t r0 = 0; r0 < rows; r0 += per_pass) {
    const uint64_t R = std::min(per_pass, rows - r0), body = R * ceil_div(h, 64), small = ceil_div(R, 64);
    charge_scalar(c, 32);  // tiling fields, row offsets and mask setup of the pass
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    charge(c, VecClass::Simple, body);  // x * x
    charge_row_reduce(c, R, h, false);
    charge(c, VecClass::Simple, small);     // * 1/H
    charge(c, VecClass::Simple, small);     // + eps
    charge(c, VecClass::Transcend, small);  // sqrt
    charge(c, VecClass::Div, small);        // 1 / x
    charge(c, VecClass::Brcb, ceil_div(R, 8));
    charge(c, VecClass::Simple, body);  // x * rstd
    charge(c, VecClass::Simple, body);  // * gamma
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
  }
}

template <class T>
inline void layernorm_run(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<T>& mean,
                          const AscendC::LocalTensor<T>& var, const AscendC::LocalTensor<T>& x,
                          const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<T>& beta,
                          const AscendC::LocalTensor<uint8_t>* tmp, float eps, const ::LayerNormTiling& t,
                          const SrcLoc& loc, const AscendC::LocalTensor<T>* gx = nullptr, double alpha = 1.0,
                          const char* api = "LayerNorm", bool per_row = false) {
  CoreContext& c = ctx(api);
  const uint32_t h = t.hLength, oh = t.originalHLength, rows = t.bLength * t.sLength;
  const bool deep = gx != nullptr;
  norm_shape_check(h, oh, rows, sizeof(T), deep ? "DeepNormTiling" : "LayerNormTiling",
                   deep ? "GetDeepNormTilingInfo" : "GetLayerNormNDTilingInfo", api, loc);
  if (t.oneTmpSize == 0) {
    fail("field_out_of_range", api, loc,
         deep ? "the DeepNormTiling has oneTmpSize 0 (GetDeepNormTilingInfo was given less temporary space than one "
                "row needs)"
              : "the LayerNormTiling has oneTmpSize 0 (GetLayerNormNDTilingInfo was given less temporary space than "
                "one row needs)",
         {{"oneTmpSize", 0}});
  }
  const uint64_t n = uint64_t(rows) * h;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[8] = {Tile{x.ref(), deep ? "srcLocal" : "inputX", sizeof(T), n, false},
                 Tile{gamma.ref(), deep ? "gammaLocal" : "gamma", sizeof(T), h, false},
                 Tile{beta.ref(), deep ? "betaLocal" : "beta", sizeof(T), h, false},
                 Tile{out.ref(), deep ? "dstLocal" : "output", sizeof(T), n, true},
                 Tile{mean.ref(), deep ? "meanLocal" : "outputMean", sizeof(T), rows, true},
                 Tile{var.ref(), deep ? "rstdLocal" : "outputVariance", sizeof(T), rows, true},
                 Tile{},
                 Tile{}};
  int no = 6;
  if (deep) ops[no++] = Tile{gx->ref(), "gxLocal", sizeof(T), n, false};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  const uint32_t per_pass = t.bsCurLength ? std::min(t.bsCurLength, rows) : rows;
  if (tmp) {
    const uint32_t nb = t.numberOfTmpBuf ? t.numberOfTmpBuf : 3;
    const uint64_t mv = (uint64_t(rows) * 4 + 31) / 32 * 32;
    const uint64_t min = nb * ((uint64_t(h) * 4 + 31) / 32 * 32) + 2 * mv;
    const uint64_t need = std::max<uint64_t>(min, 4ull * (t.firstTmpStartPos + uint64_t(nb) * t.oneTmpSize));
    if (tmp_bytes < need)
      tmp_too_small(tmp_bytes, need,
                    deep ? "GetDeepNormMaxMinTmpSize / GetDeepNormTilingInfo"
                         : "GetLayerNormMaxMinTmpSize / GetLayerNormNDTilingInfo",
                    api, loc);
  }
  const double inv = t.lastDimValueBack != 0 ? double(t.lastDimValueBack) : 1.0 / oh;
  std::vector<double> g(h), b(h), v(h);
  std::vector<uint8_t> gi(h), bi(h), vi(h);
  for (uint32_t j = 0; j < h; j++) {
    g[j] = load1<T>(c, gamma.ref().addr + uint64_t(j) * sizeof(T), &gi[j]);
    b[j] = load1<T>(c, beta.ref().addr + uint64_t(j) * sizeof(T), &bi[j]);
  }
  const uint64_t xs = x.ref().addr, os = out.ref().addr;
  for (uint32_t r = 0; r < rows; r++) {
    uint8_t ri = kInit;
    double s = 0;
    for (uint32_t j = 0; j < h; j++) {
      v[j] = load1<T>(c, xs + (uint64_t(r) * h + j) * sizeof(T), &vi[j]);
      if (deep) {  // DeepNorm: alpha * x + gx
        uint8_t gin;
        v[j] = alpha * v[j] + load1<T>(c, gx->ref().addr + (uint64_t(r) * h + j) * sizeof(T), &gin);
        vi[j] &= gin;
      }
      if (j < oh) {
        ri &= vi[j];
        s += v[j];
      }
    }
    const double mu = s * inv;
    double q = 0;
    for (uint32_t j = 0; j < oh; j++) q += (v[j] - mu) * (v[j] - mu);
    const double va = q * inv, rstd = 1.0 / std::sqrt(va + double(eps));
    for (uint32_t j = 0; j < h; j++) {
      uint8_t in = (ri == kInit && vi[j] == kInit && gi[j] == kInit && bi[j] == kInit) ? kInit : kUninit;
      store1<T>(c, os + (uint64_t(r) * h + j) * sizeof(T), (v[j] - mu) * rstd * g[j] + b[j], in);
    }
    store1<T>(c, mean.ref().addr + uint64_t(r) * sizeof(T), mu, ri);
    store1<T>(c, var.ref().addr + uint64_t(r) * sizeof(T), va, ri);
  }
  for (uint32_t r0 = 0; r0 < rows; r0 += per_pass) {
    const uint64_t R = std::min(per_pass, rows - r0), body = R * ceil_div(h, 64), small = ceil_div(R, 64);
    charge_scalar(c, 40);  // tiling fields, row offsets and mask setup of the pass
    if (sizeof(T) == 2) charge(c, VecClass::Cast, body);
    if (deep) {
      if (sizeof(T) == 2) charge(c, VecClass::Cast, body);  // gx to float
      charge(c, VecClass::Simple, body);                     // alpha * x
      charge(c, VecClass::Simple, body);                     // + gx
    }
    charge(c, VecClass::Simple, body);  // x / H
    charge_row_reduce(c, R, h, true);   // mean, broadcast
    if (per_row) {  // DeepNorm outside basic blocks: one Adds of -mean per row, after a V_S wait
      charge_scalar(c, uint32_t(2 + R));
      for (uint64_t r = 0; r < R; r++) charge(c, VecClass::Simple, ceil_div(h, 64));
    } else {
      charge(c, VecClass::Simple, body);  // x - mean
    }
    charge(c, VecClass::Simple, body);  // square
    charge(c, VecClass::Simple, body);  // / H
    charge_row_reduce(c, R, h, false);  // variance
    charge(c, VecClass::Simple, small);     // + eps
    charge(c, VecClass::Transcend, small);  // sqrt
    charge(c, VecClass::Div, small);        // 1 / x
    if (per_row) {  // one Muls by the row's rstd per row, after a V_S wait
      charge_scalar(c, uint32_t(2 + R));
      for (uint64_t r = 0; r < R; r++) charge(c, VecClass::Simple, ceil_div(h, 64));
    } else {
      charge(c, VecClass::Brcb, ceil_div(R, 8));
      charge(c, VecClass::Simple, body);  // * rstd
    }
    charge(c, VecClass::Simple, body);  // * gamma
    charge(c, VecClass::Simple, body);  // + beta
    if (sizeof(T) == 2) {
      charge(c, VecClass::Cast, body);
      charge(c, VecClass::Cast, 2 * small);  // mean, variance to half
    }
  }
}

template <class T>
inline void deepnorm_run(bool basic, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& mean,
                         const AscendC::LocalTensor<T>& rstd, const AscendC::LocalTensor<T>& src,
                         const AscendC::LocalTensor<T>& gx, const AscendC::LocalTensor<T>& beta,
                         const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>* tmp, T alpha,
                         T epsilon, const ::DeepNormTiling& tiling, const SrcLoc& loc) {
  static_assert(sizeof(::DeepNormTiling) == sizeof(::LayerNormTiling), "DeepNormTiling layout");
  ::LayerNormTiling t;
  std::memcpy(static_cast<void*>(&t), static_cast<const void*>(&tiling), sizeof t);  // same fields, same order
  const uint32_t rows = t.bLength * t.sLength;
  if (basic && t.hLength != 0 && (t.hLength % 64 != 0 || t.originalHLength % 64 != 0 || rows % 8 != 0)) {
    fail("field_out_of_range", "DeepNorm", loc,
         fmt("isBasicBlock with hLength %u, originalHLength %u, B * S = %u: a basic block needs multiples of 64, 64 "
             "and 8",
             t.hLength, t.originalHLength, rows),
         {{"hLength", double(t.hLength)}, {"rows", double(rows)}});
  }
  layernorm_run<T>(dst, mean, rstd, src, gamma, beta, tmp, to_f32(epsilon), t, loc, &gx, double(to_f32(alpha)),
                   "DeepNorm", !basic);
}

}  // namespace ascendc_sim::hl

namespace AscendC {

/// RmsNorm with sharedTmpBuffer: dst = src / sqrt(mean(src^2) + epsilon) * gamma per row.
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const RmsNormTiling& tiling,
                    ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "RmsNorm: element type must be half or float");
  ascendc_sim::hl::rmsnorm_run<T>(dstLocal, srcLocal, gammaLocal, &sharedTmpBuffer, ascendc_sim::to_f32(epsilon),
                                  tiling, loc);
}
/// RmsNorm with framework-allocated temporary space.
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const T epsilon, const RmsNormTiling& tiling, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "RmsNorm: element type must be half or float");
  ascendc_sim::hl::rmsnorm_run<T>(dstLocal, srcLocal, gammaLocal, nullptr, ascendc_sim::to_f32(epsilon), tiling, loc);
}

/// LayerNorm with sharedTmpBuffer: output, outputMean [B, S], outputVariance [B, S].
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                      const LocalTensor<T>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                      LayerNormTiling& tiling, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "LayerNorm: element type must be half or float");
  ascendc_sim::hl::layernorm_run<T>(output, outputMean, outputVariance, inputX, gamma, beta, &sharedTmpBuffer,
                                    ascendc_sim::to_f32(epsilon), tiling, loc);
}
/// LayerNorm with framework-allocated temporary space.
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                      const LocalTensor<T>& beta, const T epsilon, LayerNormTiling& tiling, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "LayerNorm: element type must be half or float");
  ascendc_sim::hl::layernorm_run<T>(output, outputMean, outputVariance, inputX, gamma, beta, nullptr,
                                    ascendc_sim::to_f32(epsilon), tiling, loc);
}


/// DeepNorm (vendor page "DeepNorm" and adv_api/normalization/deepnorm.h): LayerNorm of
/// alpha * src + gx — x' = alpha * srcLocal + gxLocal, mean = mean(x'), variance =
/// mean((x' - mean)^2), dst = (x' - mean) / sqrt(variance + epsilon) * gamma + beta; meanLocal
/// gets the mean and rstdLocal, despite its name, the variance (the vendor's parameter
/// description: "output localTensor for variance result"; its implementation stores the
/// variance there). LayerNorm's shape rules, checks, temporary-space rule (DeepNormTiling has
/// LayerNormTiling's fields) and cost, plus alpha * x + gx per pass; outside the basic-block
/// form the Atlas A2 implementation subtracts the mean and scales by rstd with one instruction
/// per row (the row's value read by the scalar unit after a V_S wait), charged so. isBasicBlock asks for
/// hLength and originalHLength multiples of 64 and B * S a multiple of 8 (the implementation
/// asserts it): otherwise `field_out_of_range`.
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
                     const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                     const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer, const T alpha,
                     const T epsilon, DeepNormTiling& tiling, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "DeepNorm: element type must be half or float");
  ascendc_sim::hl::deepnorm_run<T>(isBasicBlock, dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                   gammaLocal, &sharedTmpBuffer, alpha, epsilon, tiling, loc);
}
/// DeepNorm with framework-allocated temporary space.
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal, const LocalTensor<T>& rstdLocal,
                     const LocalTensor<T>& srcLocal, const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                     const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon, DeepNormTiling& tiling,
                     ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "DeepNorm: element type must be half or float");
  ascendc_sim::hl::deepnorm_run<T>(isBasicBlock, dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                   gammaLocal, nullptr, alpha, epsilon, tiling, loc);
}

}  // namespace AscendC
