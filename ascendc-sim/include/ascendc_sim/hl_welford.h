// ascendc_sim/hl_welford.h — the high-level WelfordUpdate (api-reference §4.4; vendor pages
// "WelfordUpdate" atlasascendc_api_07_0812 and "WelfordUpdate Tiling" atlasascendc_api_07_0813,
// the header adv_api/normalization/layernorm_utils.h for the structs; facts only, written anew).
//
// The online mean / variance step of Welford's algorithm, column by column: the reduce axis
// is cut into n blocks of [1, abLength], and call i (nRec = 1 / i) folds block x_i in:
//   delta = x - inMean,  outMean = inMean + nRec * delta,  outVar = inVar + delta * (x - outMean)
// (outVar is the running sum of squared deviations, "M_i"; WelfordFinalize turns it into a
// variance). The first call takes zero mean and variance tensors. Only the first
// abComputeLength columns are computed; with WelfordUpdateConfig::isInplace the outputs'
// remaining columns [abComputeLength, abLength) get the inputs' values (the outputs "reuse the
// inputs"), without it they are not written (UNCERTAIN: the page does not say what they hold).
// Numerics: evaluated per element in double from the stored inputs, rounded once to U (the
// implementation computes in float).
//
// Checks (the page's constraints): rnLength != 1, abComputeLength 0 or above abLength
// (`field_out_of_range`); abLength not a multiple of 32 / sizeof(T) (`ub_misaligned`); tensors
// shorter than abLength (`ub_out_of_range`); any overlap between a source and a destination
// (`vector_overlap`; the page: "address overlap between source and destination is not
// supported") — except, with isInplace, outputMean exactly on inputMean and outputVariance
// exactly on inputVariance; a sharedTmpBuffer overlapping an operand (`vector_overlap`) or
// below GetWelfordUpdateMaxMinTmpSize's minimum (`ub_out_of_range`: 256 bytes for each of the
// implementation's float buffers, 3 for half x, 1 with isReuseSource, else 2).
//
// Cost: per pass of tmp / minimum 64-float chunks (all with the framework form): a Cast of x
// for half, Sub, Muls (nRec), Add, Sub, Mul, Add; with isInplace the copy of the rest.
// Not implemented: WelfordFinalize and GetWelfordFinalizeMaxMinTmpSize.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ascendc_sim/hl_rowwise.h"

namespace AscendC {
/// WelfordUpdate's configuration (vendor layernorm_utils.h): isInplace = the outputs' columns
/// beyond abComputeLength keep the inputs' values.
struct WelfordUpdateConfig {
  constexpr WelfordUpdateConfig(const bool isInplaceIn) : isInplace(isInplaceIn) {}
  bool isInplace = false;
};
inline constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};
/// WelfordUpdate's parameters: rnLength (reserved, 1), abLength (the block length),
/// abComputeLength (columns computed), nRec (1 / i for the i-th call).
struct WelfordUpdateParam {
  uint32_t rnLength;
  uint32_t abLength;
  uint32_t abComputeLength;
  float nRec;
};
}  // namespace AscendC

namespace ascendc_sim::hl {

template <class T, class U>
inline void welford_update_run(bool inplace, bool reuse, const AscendC::LocalTensor<U>& out_mean,
                               const AscendC::LocalTensor<U>& out_var, const AscendC::LocalTensor<U>& in_mean,
                               const AscendC::LocalTensor<U>& in_var, const AscendC::LocalTensor<T>& x,
                               const AscendC::LocalTensor<uint8_t>* tmp, const AscendC::WelfordUpdateParam& p,
                               const SrcLoc& loc) {
  const char* api = "WelfordUpdate";
  CoreContext& c = ctx(api);
  if (p.rnLength != 1) {
    fail("field_out_of_range", api, loc, fmt("para.rnLength is %u: only 1 is supported", p.rnLength),
         {{"rnLength", double(p.rnLength)}});
  }
  if (p.abComputeLength == 0 || p.abComputeLength > p.abLength) {
    fail("field_out_of_range", api, loc,
         fmt("para.abComputeLength %u is not in [1, abLength = %u]", p.abComputeLength, p.abLength),
         {{"abComputeLength", double(p.abComputeLength)}, {"abLength", double(p.abLength)}});
  }
  if (p.abLength % (32 / sizeof(T)) != 0) {
    fail("ub_misaligned", api, loc,
         fmt("para.abLength %u is not a multiple of %u (32 bytes of the input type)", p.abLength,
             uint32_t(32 / sizeof(T))),
         {{"abLength", double(p.abLength)}});
  }
  const uint64_t n = p.abLength;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  // Sources are exclusive (no destination may touch them) unless the in-place pair is allowed.
  Tile ops[6] = {Tile{x.ref(), "inputX", sizeof(T), n, false, false, false, true},
                 Tile{in_mean.ref(), "inputMean", sizeof(U), n, false, false, false, !inplace},
                 Tile{in_var.ref(), "inputVariance", sizeof(U), n, false, false, false, !inplace},
                 Tile{out_mean.ref(), "outputMean", sizeof(U), n, true},
                 Tile{out_var.ref(), "outputVariance", sizeof(U), n, true},
                 Tile{}};
  int no = 5;
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (inplace) {  // only exactly in place of its own input
    const bool mean_other = out_mean.ref().addr == in_var.ref().addr, var_other = out_var.ref().addr == in_mean.ref().addr;
    if (mean_other || var_other) {
      fail("vector_overlap", api, loc, "an output sits on the other input (outputMean on inputVariance or the reverse)",
           {});
    }
  }
  const uint32_t bufs = sizeof(T) == 2 ? 3 : reuse ? 1 : 2;
  const uint64_t min_bytes = uint64_t(bufs) * 256;
  if (tmp && tmp_bytes < min_bytes)
    tmp_too_small(tmp_bytes, min_bytes, "GetWelfordUpdateMaxMinTmpSize", api, loc);

  const double rec = double(p.nRec);
  for (uint32_t j = 0; j < p.abLength; j++) {
    uint8_t mi, vi, xi;
    const double m = load1<U>(c, in_mean.ref().addr + uint64_t(j) * sizeof(U), &mi);
    const double v = load1<U>(c, in_var.ref().addr + uint64_t(j) * sizeof(U), &vi);
    if (j >= p.abComputeLength) {
      if (inplace) {
        store1<U>(c, out_mean.ref().addr + uint64_t(j) * sizeof(U), m, mi);
        store1<U>(c, out_var.ref().addr + uint64_t(j) * sizeof(U), v, vi);
      }
      continue;
    }
    const double xv = load1<T>(c, x.ref().addr + uint64_t(j) * sizeof(T), &xi);
    const double d = xv - m, nm = m + rec * d, nv = v + d * (xv - nm);
    const uint8_t in = (mi == kInit && vi == kInit && xi == kInit) ? kInit : kUninit;
    store1<U>(c, out_mean.ref().addr + uint64_t(j) * sizeof(U), nm, in);
    store1<U>(c, out_var.ref().addr + uint64_t(j) * sizeof(U), nv, in);
  }

  const uint64_t chunks = ceil_div(p.abComputeLength, 64);
  const uint64_t per_pass = tmp ? std::max<uint64_t>(1, tmp_bytes / min_bytes) : chunks;
  for (uint64_t c0 = 0; c0 < chunks; c0 += per_pass) {
    const uint64_t reps = std::min(per_pass, chunks - c0);
    charge_scalar(c, 16);
    if (sizeof(T) == 2) charge(c, VecClass::Cast, reps);
    charge(c, VecClass::Simple, reps);  // x - mean
    charge(c, VecClass::Simple, reps);  // * nRec
    charge(c, VecClass::Simple, reps);  // + mean
    charge(c, VecClass::Simple, reps);  // x - new mean
    charge(c, VecClass::Simple, reps);  // * delta
    charge(c, VecClass::Simple, reps);  // + variance
    if (sizeof(U) == 2) {
      charge(c, VecClass::Cast, reps);
      charge(c, VecClass::Cast, reps);
    }
  }
  if (inplace && p.abComputeLength < p.abLength) charge(c, VecClass::Copy, 2 * ceil_div((p.abLength - p.abComputeLength) * sizeof(U), 256));
}

}  // namespace ascendc_sim::hl

namespace AscendC {
#define ASCENDC_SIM_WELFORD_CHECK(T, U)                                                                    \
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "WelfordUpdate: T must be half or float");      \
  static_assert(ascendc_sim::is_one_of_v<U, half, float>, "WelfordUpdate: U must be half or float")

/// WelfordUpdate with sharedTmpBuffer.
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
inline void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                          const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                          const LocalTensor<T>& inputX, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const WelfordUpdateParam& para, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_WELFORD_CHECK(T, U);
  ascendc_sim::hl::welford_update_run<T, U>(config.isInplace, isReuseSource, outputMean, outputVariance, inputMean,
                                            inputVariance, inputX, &sharedTmpBuffer, para, loc);
}
/// WelfordUpdate with framework-allocated temporary space (not size-checked).
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
inline void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                          const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                          const LocalTensor<T>& inputX, const WelfordUpdateParam& para, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_WELFORD_CHECK(T, U);
  ascendc_sim::hl::welford_update_run<T, U>(config.isInplace, isReuseSource, outputMean, outputVariance, inputMean,
                                            inputVariance, inputX, nullptr, para, loc);
}
#undef ASCENDC_SIM_WELFORD_CHECK
}  // namespace AscendC
