// ascendc_sim/hl_cumsum.h — the high-level CumSum (vendor page "CumSum",
// atlasascendc_api_07_0604/0605 of CANN 8.x, header adv_api/math/cumsum.h with
// cumsum_utils.h, and its Atlas A2 implementation cumsum_common_impl.h; facts only, written
// in our own words).
//
// Semantics: srcTensor holds `outter` rows of `inner` elements (CumSumInfo; inner * sizeof(T)
// a non-zero multiple of 32 bytes, rows packed at that pitch). With config.isLastAxis
// (the default) every row is scanned along its columns, dst[i][j] = src[i][0] + ... +
// src[i][j]; without it every column is scanned down the rows, dst[i][j] = src[0][j] + ...
// + src[i][j]. With config.outputLastRow (true in the vendor's defaultCumSumConfig),
// lastRowTensor[j] = dst[outter - 1][j] for j < inner. half or float.
//
// Arithmetic, as the Atlas A2 implementation does it: the running sum is kept in float and
// added one element at a time along the scanned axis (each addition rounded to float);
// half data is widened exactly, summed in float and rounded once to half at the end. The
// implementation writes its results with an `Adds 0` (a -0 comes out as +0), except half
// along the first axis (a Cast); the simulator does the same, so results are bit-exact with
// that sequence.
//
// Checks (the page's constraints and the implementation's asserts): inner * sizeof(T) a
// non-zero multiple of 32 (`ub_misaligned`); outter >= 1 (`field_out_of_range`);
// outter * inner within srcTensor and dstTensor and, with outputLastRow, inner within
// lastRowTensor (`ub_out_of_range`); dst may be exactly in place of src, any other overlap,
// and sharedTmpBuffer overlapping an operand, is `vector_overlap`; sharedTmpBuffer below
// what one pass needs (`ub_out_of_range`): along the last axis 16 rows transposed twice,
// 2 * 16 * inner * sizeof(T) bytes, plus 16 * inner * 2 bytes for half (the float copy of
// the additions); along the first axis outter * inner * 4 bytes for half (the float copy)
// and nothing for float — the minimum GetCumSumMaxMinTmpSize returns. The
// framework-allocated form is not size-checked. config.isReuseSource is reserved (no
// effect); `algorithm` (Ascend 950 only) is accepted and ignored.
//
// Cost (the Atlas A2 sequence): along the last axis, per pass of 16 * (tmp / minimum) rows
// (one pass in the framework form), a TransDataTo5HD of the pass into the buffer, (half: a
// Cast to float), inner - 1 Adds of one transposed row each, (half: a Cast back), the
// transpose back and an Adds into dst; along the first axis one Add per row (half: a Cast
// to float before and back after); outputLastRow adds one Adds of a row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
/// The accumulation algorithm (vendor cumsum_utils.h). Only Ascend 950 uses it; the
/// simulator accepts it and always adds line by line, as Atlas A2 does.
enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };

/// CumSum's compile-time configuration (vendor struct CumSumConfig).
struct CumSumConfig {
  bool isLastAxis{true};      // true: scan each row along its columns; false: scan down the rows
  bool isReuseSource{false};  // reserved
  bool outputLastRow{false};  // also write the last row of the result to lastRowTensor
  CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};

/// Shape of a CumSum source (vendor struct CumSumInfo): outter rows of inner elements.
struct CumSumInfo {
  uint32_t outter{0};
  uint32_t inner{0};  // inner * sizeof(T) a multiple of 32 bytes
};

/// The default configuration of the vendor header: last axis, and the last row output.
inline constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
}  // namespace AscendC

namespace ascendc_sim::hl {

/// Bytes of sharedTmpBuffer one CumSum pass needs (GetCumSumMaxMinTmpSize's minimum).
inline uint64_t cumsum_tmp_bytes(uint32_t outter, uint32_t inner, uint32_t esize, bool last_axis) {
  if (last_axis) return (esize == 2 ? uint64_t(inner) * 16 * 2 : 0) + uint64_t(16) * inner * esize * 2;
  return esize == 2 ? uint64_t(outter) * inner * 4 : 0;
}

template <class T>
inline void cumsum_run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& last_row,
                       const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                       const AscendC::CumSumInfo& info, bool last_axis, bool output_last_row, const SrcLoc& loc) {
  const char* api = "CumSum";
  CoreContext& c = ctx(api);
  const uint32_t outter = info.outter, inner = info.inner;
  if (inner == 0 || uint64_t(inner) * sizeof(T) % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("CumSumInfo.inner %u elements (%llu bytes) is not a non-zero multiple of 32 bytes: the rows must be "
             "padded to whole 32-byte blocks",
             inner, (unsigned long long)(uint64_t(inner) * sizeof(T))),
         {{"inner", double(inner)}});
  }
  if (outter == 0) {
    fail("field_out_of_range", api, loc, "CumSumInfo.outter is 0: the source needs at least one row",
         {{"outter", 0.0}});
  }
  const uint64_t n = uint64_t(outter) * inner;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[4];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n, false};
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n, true};
  if (output_last_row) ops[no++] = Tile{last_row.ref(), "lastRowTensor", sizeof(T), inner, true};
  if (tmp) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  const uint64_t need = cumsum_tmp_bytes(outter, inner, sizeof(T), last_axis);
  if (tmp && tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetCumSumMaxMinTmpSize", api, loc);

  // Values: the whole source first (dst may be src itself).
  const uint64_t xs = src.ref().addr, ds = dst.ref().addr;
  std::vector<float> x(n);
  std::vector<uint8_t> xin(n);
  for (uint64_t e = 0; e < n; e++) x[e] = float(load1<T>(c, xs + e * sizeof(T), &xin[e]));
  std::vector<float> y(n);
  std::vector<uint8_t> yin(n);
  if (last_axis) {
    for (uint64_t r = 0; r < outter; r++) {
      float acc = 0;
      uint8_t in = kInit;
      for (uint64_t j = 0; j < inner; j++) {
        const uint64_t e = r * inner + j;
        acc = j == 0 ? x[e] : acc + x[e];
        in &= xin[e];
        y[e] = acc;
        yin[e] = in == kInit ? kInit : kUninit;
      }
    }
  } else {
    for (uint64_t j = 0; j < inner; j++) {
      float acc = 0;
      uint8_t in = kInit;
      for (uint64_t r = 0; r < outter; r++) {
        const uint64_t e = r * inner + j;
        acc = r == 0 ? x[e] : acc + x[e];
        in &= xin[e];
        y[e] = acc;
        yin[e] = in == kInit ? kInit : kUninit;
      }
    }
  }
  // The final Adds 0 (all but half along the first axis) turns -0 into +0.
  const bool adds_zero = last_axis || sizeof(T) == 4;
  for (uint64_t e = 0; e < n; e++) {
    T v = from_f32<T>(y[e]);
    if (adds_zero) v = from_f32<T>(to_f32(v) + 0.0f);
    std::memcpy(c.ub + ds + e * sizeof(T), &v, sizeof(T));
    std::memset(c.shadow + ds + e * sizeof(T), yin[e], sizeof(T));
  }
  if (output_last_row) {
    const uint64_t ls = last_row.ref().addr, from = ds + (n - inner) * sizeof(T);
    for (uint64_t j = 0; j < inner; j++) {
      T v;
      std::memcpy(&v, c.ub + from + j * sizeof(T), sizeof(T));
      v = from_f32<T>(to_f32(v) + 0.0f);
      std::memcpy(c.ub + ls + j * sizeof(T), &v, sizeof(T));
      std::memcpy(c.shadow + ls + j * sizeof(T), c.shadow + from + j * sizeof(T), sizeof(T));
    }
  }

  // Cost: the Atlas A2 instruction sequence.
  const uint64_t es = sizeof(T);
  charge_scalar(c, 8);
  if (last_axis) {
    uint64_t per_pass = tmp ? (tmp_bytes / need) * 16 : ceil_div(outter, 16) * 16;
    if (per_pass == 0) per_pass = 16;
    for (uint64_t done = 0; done < outter; done += per_pass) {
      const uint64_t rows = std::min<uint64_t>(per_pass, outter - done);
      const uint64_t ao = ceil_div(rows, 16) * 16;
      charge(c, VecClass::Simple, ceil_div(ao * inner * es, 256));  // TransDataTo5HD in
      if (es == 2) charge(c, VecClass::Cast, ceil_div(ao * inner, 64));
      for (uint64_t j = 1; j < inner; j++) charge(c, VecClass::Simple, ceil_div(ao, 64));
      if (es == 2) charge(c, VecClass::Cast, ceil_div(ao * inner, 64));
      charge(c, VecClass::Simple, ceil_div(ao * inner * es, 256));  // TransDataTo5HD back
      charge(c, VecClass::Simple, ceil_div(rows * inner * es, 256));  // Adds into dst
    }
  } else if (es == 2) {
    charge(c, VecClass::Cast, ceil_div(n, 64));
    for (uint64_t r = 1; r < outter; r++) charge(c, VecClass::Simple, ceil_div(inner, 64));
    charge(c, VecClass::Cast, ceil_div(n, 64));
  } else {
    for (uint64_t r = 0; r < outter; r++) charge(c, VecClass::Simple, ceil_div(inner * es, 256));
  }
  if (output_last_row) charge(c, VecClass::Simple, ceil_div(inner * es, 256));
}

}  // namespace ascendc_sim::hl

namespace AscendC {
/// CumSum with the temporary space from sharedTmpBuffer (at least GetCumSumMaxMinTmpSize's
/// minimum; more lets the last-axis form scan more rows per pass).
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                   LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "CumSum: element type must be half or float");
  ascendc_sim::hl::cumsum_run<T>(dstTensor, lastRowTensor, srcTensor, &sharedTmpBuffer, cumSumInfo, config.isLastAxis,
                                 config.outputLastRow, loc);
}
/// CumSum with framework-allocated temporary space.
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                   const CumSumInfo& cumSumInfo, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "CumSum: element type must be half or float");
  ascendc_sim::hl::cumsum_run<T>(dstTensor, lastRowTensor, srcTensor, nullptr, cumSumInfo, config.isLastAxis,
                                 config.outputLastRow, loc);
}
}  // namespace AscendC
