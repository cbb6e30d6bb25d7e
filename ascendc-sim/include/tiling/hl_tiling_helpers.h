// tiling/hl_tiling_helpers.h — host tiling helpers of the high-level SoftMax (and LogSoftMax,
// SoftmaxFlashV2, SoftmaxGrad), RmsNorm, LayerNorm, DeepNorm, WelfordUpdate, Sum, CumSum, Broadcast and Pad/UnPad APIs (included by tiling/tiling_api.h; also reachable as
// tiling/activation/softmax_tiling.h, tiling/normalization/rmsnorm_tiling.h and
// tiling/normalization/layernorm_tiling.h).
//
// `optiling::SoftMaxTiling` / `RmsNormTiling` / `LayerNormTiling` are tiling-data classes
// (BEGIN_TILING_DATA_DEF) with the kernel structs' fields in the same order
// (ascendc_sim/hl_tiling.h), so `SaveToBuffer` / TILING_DATA_FIELD_DEF_STRUCT carry them to
// the kernel unchanged; the helpers fill either form.
//
// Size rules (bytes; the temporary space is counted in float elements of 4 bytes, as the
// vendor's implementation keeps intermediates in float). The published formulas were read
// from the vendor's public host tiling sources for Atlas A2 (facts only; written anew):
//  * SoftMax (dataTypeSize = size of the sum/max type, epb = 32 / dataTypeSize, shape
//    [.., K] seen as [M, K]): min = 4 (epb + K + 64), max = 4 M (epb + K + 64).
//    SoftMaxTilingFunc: rows per pass splitM = min(ws / 4 / (epb + K + 64), M), rounded down to
//    a multiple of 8 when it is above 8 and below M; for "basic blocks" (M % 8 == 0,
//    K % 64 == 0) splitM is further lowered to a divisor of M (in steps of 8) and halved
//    while splitM K >= 64 * 256 (the 255-repeat limit). rangeM = M / splitM, tailM = M % splitM.
//  * LogSoftMax (Atlas A2; vendor logsoftmax_tiling.cpp, page "LogSoftMax Tiling"
//    atlasascendc_api_07_0769): the same min, max and splitM rules as SoftMax with
//    epb = 32 / dataTypeSize of the (single) data type.
//  * RmsNorm (shape [B, S, H], H * typeSize a multiple of 32; c = 2 for half, 1 for float):
//    min = 4 (c H + 8), max = 4 (c B S H + align(B S, 32 / typeSize)).
//    GetRmsNormTilingInfo: rows per pass bs = the largest n (>= 1) with
//    n c H + align8(n) <= stackBufferByteSize / 4, at most B S and 255; mainBsLengthAlign =
//    align8(bs); loopRound = B S H / (bs H); the rest is the tail. False for a bad shape
//    (not 3-D, B/S differ from the original shape, H < original H, H * typeSize not a
//    multiple of 32) or a buffer below the minimum.
//  * LayerNorm (shape [B, S, H] or [B, S, H, originalH]): n = 2 buffers for float with
//    isReuseSource, else 3; min = n align32(4 H) + 2 align32(4 B S),
//    max = n align32(4 B S H) + 2 align32(4 B S). GetLayerNormNDTilingInfo: half keeps mean and
//    variance in float at the start of the buffer (2 align8(B S) floats, none for float);
//    oneTmpSize = ((ws / 4 - that) / n) rounded down to whole rows (at most B S H); rows per
//    pass = oneTmpSize / H; lastDimValueBack = 1 / originalH.
// Bad arguments (empty shape, a type size other than 2 or 4, a misaligned last axis) make
// the size helpers return 0 and leave the tiling zeroed (the vendor's helpers log and
// return 0 / leave it unset); the kernel APIs then report the zero tiling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ascendc_sim/hl_tiling.h"
#include "tiling/tiling_api.h"

// One optiling field per kernel-struct field (the X-macro of ascendc_sim/hl_tiling.h).
#define ASCENDC_SIM_OPTILING_U32_FIELD(name) TILING_DATA_FIELD_DEF(uint32_t, name);

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
ASCENDC_SIM_SOFTMAX_TILING_FIELDS(ASCENDC_SIM_OPTILING_U32_FIELD)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LogSoftMaxTiling)
ASCENDC_SIM_SOFTMAX_TILING_FIELDS(ASCENDC_SIM_OPTILING_U32_FIELD)
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(PadTiling)
ASCENDC_SIM_PAD_TILING_FIELDS(ASCENDC_SIM_OPTILING_U32_FIELD)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(UnPadTiling)
ASCENDC_SIM_UNPAD_TILING_FIELDS(ASCENDC_SIM_OPTILING_U32_FIELD)
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(RmsNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(float, reciprocalOfHLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBshLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLengthAlign);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, tailBshLength);
TILING_DATA_FIELD_DEF(uint32_t, tailBsLength);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LayerNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, inputXSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpBufSize);
TILING_DATA_FIELD_DEF(uint32_t, oneTmpSize);
TILING_DATA_FIELD_DEF(uint32_t, firstTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, secondTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, thirdTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, meanVarRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailPos);
TILING_DATA_FIELD_DEF(uint32_t, bshCurLength);
TILING_DATA_FIELD_DEF(uint32_t, bsCurLength);
TILING_DATA_FIELD_DEF(float, lastDimValueBack);
END_TILING_DATA_DEF;
// DeepNorm's tiling class: LayerNormTiling's fields (vendor deepnorm_tilingdata.h).
BEGIN_TILING_DATA_DEF(DeepNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, inputXSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, meanTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorPos);
TILING_DATA_FIELD_DEF(uint32_t, varianceTmpTensorSize);
TILING_DATA_FIELD_DEF(uint32_t, tmpBufSize);
TILING_DATA_FIELD_DEF(uint32_t, oneTmpSize);
TILING_DATA_FIELD_DEF(uint32_t, firstTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, secondTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, thirdTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, meanVarRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailPos);
TILING_DATA_FIELD_DEF(uint32_t, bshCurLength);
TILING_DATA_FIELD_DEF(uint32_t, bsCurLength);
TILING_DATA_FIELD_DEF(float, lastDimValueBack);
END_TILING_DATA_DEF;
}  // namespace optiling

static_assert(sizeof(optiling::SoftMaxTiling) == sizeof(::SoftMaxTiling), "SoftMaxTiling layout");
static_assert(sizeof(optiling::LogSoftMaxTiling) == sizeof(::LogSoftMaxTiling), "LogSoftMaxTiling layout");
static_assert(sizeof(optiling::PadTiling) == sizeof(::PadTiling), "PadTiling layout");
static_assert(sizeof(optiling::UnPadTiling) == sizeof(::UnPadTiling), "UnPadTiling layout");
static_assert(sizeof(optiling::RmsNormTiling) == sizeof(::RmsNormTiling), "RmsNormTiling layout");
static_assert(sizeof(optiling::DeepNormTiling) == sizeof(::DeepNormTiling), "DeepNormTiling layout");
static_assert(sizeof(optiling::LayerNormTiling) == sizeof(::LayerNormTiling), "LayerNormTiling layout");

namespace ascendc_sim::hl_host {
inline uint32_t align_up(uint64_t v, uint32_t unit) { return uint32_t((v + unit - 1) / unit * unit); }
/// [M, K] of a SoftMax source shape (K = last axis, M = product of the others); false when
/// the shape is empty or has a zero dimension.
inline bool mk(const ge::Shape& s, uint32_t* m, uint32_t* k) {
  std::vector<int64_t> d = s.GetDims();
  if (d.empty()) return false;
  uint64_t n = 1;
  for (int64_t x : d) {
    if (x <= 0) return false;
    n *= uint64_t(x);
  }
  *k = uint32_t(d.back());
  *m = uint32_t(n / uint64_t(d.back()));
  return true;
}
inline bool softmax_ok(const ge::Shape& s, uint32_t type_size, uint32_t* m, uint32_t* k) {
  if (type_size != 2 && type_size != 4) return false;
  if (!mk(s, m, k)) return false;
  return uint64_t(*k) * type_size % 32 == 0;
}
/// Floats one SoftMax row needs in the temporary space: epb + K + 64.
inline uint32_t softmax_row_floats(uint32_t k, uint32_t type_size) { return 32 / type_size + k + 64; }
template <class Tiling>
inline void softmax_fill(const ge::Shape& s, uint32_t type_size, uint32_t ws, Tiling& t) {
  uint32_t m = 0, k = 0;
  if (!softmax_ok(s, type_size, &m, &k)) return;
  const uint32_t epb = 32 / type_size;
  uint32_t base = std::min(ws / 4 / softmax_row_floats(k, type_size), m);
  if (base < m && base > 8) base = base / 8 * 8;
  if (base > 8 && m % 8 == 0 && k % 64 == 0) {  // basic blocks
    base = base / 8 * 8;
    while (m % base != 0) base -= 8;
    while (uint64_t(base) * k >= 64u * 256u) base /= 2;
  }
  t.srcM = m;
  t.srcK = k;
  t.srcSize = m * k;
  t.outMaxM = m;
  t.outMaxK = epb;
  t.outMaxSize = m * epb;
  t.splitM = base;
  t.splitK = k;
  t.splitSize = base * k;
  t.reduceM = base;
  t.reduceK = epb;
  t.reduceSize = base * epb;
  t.rangeM = base ? m / base : 0;
  t.tailM = base ? m % base : 0;
  t.tailSplitSize = t.tailM * k;
  t.tailReduceSize = t.tailM * epb;
}
/// RmsNorm [B, S, H]; false when not 3-D or a dimension is not positive.
inline bool bsh(const ge::Shape& s, uint32_t* b, uint32_t* sl, uint32_t* h) {
  std::vector<int64_t> d = s.GetDims();
  if (d.size() != 3 || d[0] <= 0 || d[1] <= 0 || d[2] <= 0) return false;
  *b = uint32_t(d[0]);
  *sl = uint32_t(d[1]);
  *h = uint32_t(d[2]);
  return true;
}
inline uint32_t rms_min(uint32_t h, uint32_t type_size) { return 4 * ((type_size == 2 ? 2 : 1) * h + 8); }
template <class Tiling>
inline bool rms_fill(const ge::Shape& src, const ge::Shape& ori, uint32_t ws, uint32_t type_size, Tiling& t) {
  uint32_t b = 0, s = 0, h = 0, ob = 0, os = 0, oh = 0;
  if (type_size != 2 && type_size != 4) return false;
  if (!bsh(src, &b, &s, &h) || !bsh(ori, &ob, &os, &oh)) return false;
  if (b != ob || s != os || h < oh || uint64_t(h) * type_size % 32 != 0) return false;
  if (ws < rms_min(h, type_size)) return false;
  const uint32_t c = type_size == 2 ? 2 : 1;
  const uint32_t floats = ws / 4;
  uint32_t rows = 1;
  while (uint64_t(rows + 1) * h * c + align_up(rows + 1, 8) <= floats) rows++;
  rows = std::min(rows, b * s);
  rows = std::min(rows, 255u);
  const uint32_t total = b * s * h, main = rows * h;
  t.bLength = b;
  t.sLength = s;
  t.hLength = h;
  t.originalHLength = oh;
  t.reciprocalOfHLength = 1.0f / float(oh);
  t.mainBshLength = main;
  t.mainBsLength = rows;
  t.mainBsLengthAlign = align_up(rows, 8);
  t.loopRound = total / main;
  t.tailBshLength = total % main;
  t.inputTailPos = total - t.tailBshLength;
  t.tailBsLength = t.tailBshLength / h;
  return true;
}
/// LayerNorm [B, S, H] or [B, S, H, originalH].
inline bool bshh(const ge::Shape& s, uint32_t* b, uint32_t* sl, uint32_t* h, uint32_t* oh) {
  std::vector<int64_t> d = s.GetDims();
  if (d.size() != 3 && d.size() != 4) return false;
  for (int64_t x : d)
    if (x <= 0) return false;
  *b = uint32_t(d[0]);
  *sl = uint32_t(d[1]);
  *h = uint32_t(d[2]);
  *oh = d.size() == 4 ? uint32_t(d[3]) : *h;
  return *oh <= *h;
}
inline uint32_t ln_bufs(uint32_t type_size, bool reuse) { return reuse && type_size == 4 ? 2 : 3; }
template <class Tiling>
inline void ln_fill(const ge::Shape& src, uint32_t ws, uint32_t type_size, bool reuse, Tiling& t) {
  uint32_t b = 0, s = 0, h = 0, oh = 0;
  if (type_size != 2 && type_size != 4) return;
  if (!bshh(src, &b, &s, &h, &oh) || uint64_t(h) * type_size % 32 != 0) return;
  const uint32_t n = ln_bufs(type_size, reuse);
  const uint32_t total = b * s * h, mv = b * s;
  const uint32_t mv_floats = align_up(mv, 8);
  const uint32_t mv_total = type_size == 4 ? 0 : 2 * mv_floats;
  const uint32_t floats = ws / 4;
  if (floats <= mv_total) return;
  uint32_t one = (floats - mv_total) / n / h * h;
  one = std::min(one, total);
  if (one == 0) return;
  t.bLength = b;
  t.sLength = s;
  t.hLength = h;
  t.originalHLength = oh;
  t.inputXSize = total;
  t.meanVarSize = mv;
  t.numberOfTmpBuf = n;
  t.meanTmpTensorPos = 0;
  t.meanTmpTensorSize = mv_floats;
  t.varianceTmpTensorPos = mv_floats;
  t.varianceTmpTensorSize = mv_floats;
  t.tmpBufSize = floats;
  t.oneTmpSize = one;
  t.firstTmpStartPos = mv_total;
  t.secondTmpStartPos = mv_total + one;
  t.thirdTmpStartPos = mv_total + 2 * one;
  t.loopRound = total / one;
  t.inputRoundSize = one;
  t.inputTailSize = total % one;
  t.inputTailPos = total - t.inputTailSize;
  t.meanVarRoundSize = one / h;
  t.meanVarTailSize = t.inputTailSize / h;
  t.meanVarTailPos = mv - t.meanVarTailSize;
  t.bshCurLength = one;
  t.bsCurLength = one / h;
  t.lastDimValueBack = 1.0f / float(oh);
}
}  // namespace ascendc_sim::hl_host

namespace AscendC {
// ---------------------------------------------------------------- SoftMax / SimpleSoftMax
/// Largest temporary space SoftMax / SimpleSoftMax can use (bytes): 4 M (epb + K + 64).
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
  (void)isReuseSource;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::softmax_ok(srcShape, dataTypeSize, &m, &k)) return 0;
  return 4 * m * ascendc_sim::hl_host::softmax_row_floats(k, dataTypeSize);
}
/// Smallest temporary space SoftMax / SimpleSoftMax can work with (bytes): one row, 4 (epb + K + 64).
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
  (void)isReuseSource;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::softmax_ok(srcShape, dataTypeSize, &m, &k)) return 0;
  return 4 * ascendc_sim::hl_host::softmax_row_floats(k, dataTypeSize);
}
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              optiling::SoftMaxTiling& softmaxTiling) {
  ascendc_sim::hl_host::softmax_fill(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              ::SoftMaxTiling& softmaxTiling) {
  ascendc_sim::hl_host::softmax_fill(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

// ---------------------------------------------------------------- LogSoftMax
/// Largest temporary space LogSoftMax can use (bytes): 4 M (epb + K + 64), as SoftMax.
inline uint32_t GetLogSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                        const bool isReuseSource) {
  return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}
/// Smallest temporary space LogSoftMax works with (bytes): one row, 4 (epb + K + 64).
inline uint32_t GetLogSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                        const bool isReuseSource) {
  return GetSoftMaxMinTmpSize(srcShape, dataTypeSize, isReuseSource);
}
inline void LogSoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize, optiling::LogSoftMaxTiling& softmaxTiling) {
  ascendc_sim::hl_host::softmax_fill(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}
inline void LogSoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize, ::LogSoftMaxTiling& softmaxTiling) {
  ascendc_sim::hl_host::softmax_fill(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

}  // namespace AscendC

// ---------------------------------------------------------------- SoftmaxFlashV2
// Atlas A2 rules of the vendor's host source softmax_tiling.cpp (facts only; the kernel-side
// per-row rule is ascendc_sim::hl::flashv2_row_floats): epb = 32 / dataTypeSize2 (sum/max
// type); per row, half data 2 epb + K + 64 floats, float data epb + 64; with isBasicBlock and
// K % 64 == 0 ("basic block") half epb + K + 64, float epb + 64 (64 more when K = 1024).
// isUpdate changes nothing on Atlas A2. Bad arguments (empty shape, type sizes other than 2 or
// 4, K * dataTypeSize1 not a multiple of 32) give 0 / leave the tiling zeroed.
namespace ascendc_sim::hl_host {
inline bool flashv2_ok(const ge::Shape& s, uint32_t ts1, uint32_t ts2, uint32_t* m, uint32_t* k) {
  if (ts2 != 2 && ts2 != 4) return false;
  return softmax_ok(s, ts1, m, k);
}
template <class Tiling>
inline void flashv2_fill(const ge::Shape& s, uint32_t ts1, uint32_t ts2, uint32_t ws, bool basic_req, bool out_brc,
                         Tiling& t) {
  uint32_t m = 0, k = 0;
  if (!flashv2_ok(s, ts1, ts2, &m, &k)) return;
  const uint32_t epb = 32 / ts2;
  const bool basic = basic_req && k % 64 == 0 && m % 8 == 0;
  uint32_t base = ws / 4 / ascendc_sim::hl::flashv2_row_floats(ts1, ts2, k, basic);
  if (basic) {
    base = std::min(base, m);
    if (base > 8) {  // the basic-block adjustment: a divisor of M in steps of 8, below 255 repeats
      base = base / 8 * 8;
      while (m % base != 0) base -= 8;
      while (uint64_t(base) * k >= 64u * 256u) base /= 2;
    }
  }
  const uint32_t tile = out_brc && ts1 == 2 ? 16 : 8;
  base = std::min(base, m);
  if (base < m && base > tile) base = base / tile * tile;
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
}
/// SoftmaxGrad: floats per row (half 2 epb + 3 K + 64; float epb + K + 64 with isFront, else
/// 2 epb + K + 64), epb = 32 / dataTypeSize.
template <class Tiling>
inline void grad_fill(const ge::Shape& s, uint32_t ts, uint32_t ws, bool front, Tiling& t) {
  uint32_t m = 0, k = 0;
  if (!softmax_ok(s, ts, &m, &k)) return;
  const uint32_t epb = 32 / ts;
  uint32_t base = std::min(ws / 4 / ascendc_sim::hl::grad_row_floats(ts, k, front), m);
  if (base < m && base > 8) base = base / 8 * 8;
  if (base > 8 && m % 8 == 0 && k % 64 == 0) {  // basic blocks, as SoftMax
    base = base / 8 * 8;
    while (m % base != 0) base -= 8;
    while (uint64_t(base) * k >= 64u * 256u) base /= 2;
  }
  t.srcM = m;
  t.srcK = k;
  t.srcSize = m * k;
  t.outMaxM = m;
  t.outMaxK = epb;
  t.outMaxSize = m * epb;
  t.splitM = base;
  t.splitK = k;
  t.splitSize = base * k;
  t.reduceM = base;
  t.reduceK = epb;
  t.reduceSize = base * epb;
  t.rangeM = base ? m / base : 0;
  t.tailM = base ? m % base : 0;
  t.tailSplitSize = t.tailM * k;
  t.tailReduceSize = t.tailM * epb;
}
}  // namespace ascendc_sim::hl_host

namespace AscendC {
/// Largest temporary space SoftmaxFlashV2 can use (bytes): M rows (the basic-block form: M
/// halved while M K >= 64 * 256, the 255-repeat limit).
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  (void)isUpdate;
  (void)isFlashOutputBrc;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::flashv2_ok(srcShape, dataTypeSize1, dataTypeSize2, &m, &k)) return 0;
  const bool basic = isBasicBlock && k % 64 == 0 && m % 8 == 0;
  if (basic)
    while (uint64_t(m) * k >= 64u * 256u) m /= 2;
  return 4 * m * ascendc_sim::hl::flashv2_row_floats(dataTypeSize1, dataTypeSize2, k, basic);
}
/// Smallest temporary space SoftmaxFlashV2 works with (bytes): one row (8 rows in the
/// basic-block form); with isFlashOutputBrc times min(32 / dataTypeSize1, M) rows (the
/// basic-block form: that many rows instead of 8).
inline uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  (void)isUpdate;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::flashv2_ok(srcShape, dataTypeSize1, dataTypeSize2, &m, &k)) return 0;
  const bool basic = isBasicBlock && k % 64 == 0;
  const uint32_t row = ascendc_sim::hl::flashv2_row_floats(dataTypeSize1, dataTypeSize2, k, basic);
  uint32_t rows = basic ? 8 : 1;
  if (isFlashOutputBrc) rows = std::min(32 / dataTypeSize1, m);
  return 4 * rows * row;
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  (void)isUpdate;
  ascendc_sim::hl_host::flashv2_fill(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, isBasicBlock,
                                     isFlashOutputBrc, softmaxFlashTiling);
}
inline void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     ::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
  (void)isUpdate;
  ascendc_sim::hl_host::flashv2_fill(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, isBasicBlock,
                                     isFlashOutputBrc, softmaxFlashTiling);
}

// ---------------------------------------------------------------- SoftmaxGrad / SoftmaxGradFront
/// Largest temporary space SoftmaxGrad (isFront: SoftmaxGradFront) can use (bytes): M rows.
inline uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
  (void)isReuseSource;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::softmax_ok(srcShape, dataTypeSize, &m, &k)) return 0;
  return 4 * m * ascendc_sim::hl::grad_row_floats(dataTypeSize, k, isFront);
}
/// Smallest temporary space SoftmaxGrad works with (bytes): one row.
inline uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
  (void)isReuseSource;
  uint32_t m = 0, k = 0;
  if (!ascendc_sim::hl_host::softmax_ok(srcShape, dataTypeSize, &m, &k)) return 0;
  return 4 * ascendc_sim::hl::grad_row_floats(dataTypeSize, k, isFront);
}
inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
  ascendc_sim::hl_host::grad_fill(srcShape, dataTypeSize, localWorkSpaceSize, isFront, softmaxGradTiling);
}
inline void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, ::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
  ascendc_sim::hl_host::grad_fill(srcShape, dataTypeSize, localWorkSpaceSize, isFront, softmaxGradTiling);
}
/// Whether a SoftMax-family tiling is a "basic block" (vendor IsBasicBlockInSoftMax): no tail
/// rows and 256 / dataTypeSize <= K < 2048 with K % 64 == 0.
inline bool IsBasicBlockInSoftMax(const optiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
  if (dataTypeSize == 0) return false;
  const uint32_t k = tiling.get_srcK();
  return tiling.get_tailM() == 0 && k >= 256 / dataTypeSize && k < 2048 && k % 64 == 0;
}
inline bool IsBasicBlockInSoftMax(const ::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
  if (dataTypeSize == 0) return false;
  return tiling.tailM == 0 && tiling.srcK >= 256 / dataTypeSize && tiling.srcK < 2048 && tiling.srcK % 64 == 0;
}
}  // namespace AscendC

namespace AscendC {
// ---------------------------------------------------------------- Sum
/// Temporary space of the high-level Sum for rows of n elements (vendor page
/// "GetSumMaxMinTmpSize", atlasascendc_api_07_0827, and its Atlas A2 host source): the
/// first level's partial sums, ceil(n / (256 / typeSize)), rounded up to 32 bytes; the
/// maximum equals the minimum. n = 0 or a type size other than 2 or 4 leaves both 0.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxSize, uint32_t& minSize) {
  (void)isReuseSource;
  maxSize = minSize = 0;
  if (n == 0 || (typeSize != 2 && typeSize != 4)) return;
  const uint32_t epr = 256 / typeSize, epb = 32 / typeSize;
  const uint32_t reps = (n + epr - 1) / epr;
  maxSize = minSize = (reps + epb - 1) / epb * epb * typeSize;
}

// ---------------------------------------------------------------- CumSum
/// Temporary space of the high-level CumSum for a 2-D [outter, inner] source (vendor page
/// "GetCumSumMaxMinTmpSize", atlasascendc_api_07_0606, and its host source
/// cumsum_tiling.cpp; facts only). Along the last axis the kernel transposes 16 rows at a
/// time twice: min = 2 * 16 * inner * typeSize (+ 16 * inner * 2 for half, the float copy of
/// the additions), max = the same for all rows rounded up to 16. Along the first axis half
/// needs a float copy of the whole source (max = min = outter * inner * 4), float nothing.
/// A shape that is not 2-D, a type size other than 2 or 4, or inner * typeSize not a
/// non-zero multiple of 32 leaves both 0 (the vendor's helper logs and returns).
inline void GetCumSumMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isLastAxis,
                                   const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
  (void)isReuseSource;
  maxValue = minValue = 0;
  if (srcShape.GetDimNum() != 2 || (typeSize != 2 && typeSize != 4)) return;
  const int64_t outter = srcShape.GetDim(0), inner = srcShape.GetDim(1);
  if (outter <= 0 || inner <= 0 || inner * typeSize % 32 != 0) return;
  if (!isLastAxis) {
    if (typeSize == 2) maxValue = minValue = uint32_t(outter * inner * 4);
    return;
  }
  const uint64_t ao = uint64_t(outter + 15) / 16 * 16;
  const uint64_t cast_min = typeSize == 2 ? uint64_t(inner) * 16 * 2 : 0;
  const uint64_t cast_max = typeSize == 2 ? uint64_t(inner) * ao * 2 : 0;
  minValue = uint32_t(cast_min + uint64_t(16) * inner * typeSize * 2);
  maxValue = uint32_t(cast_max + ao * inner * typeSize * 2);
}

// ---------------------------------------------------------------- Broadcast
/// Temporary space of the high-level Broadcast (vendor page "GetBroadCastMaxMinTmpSize" and
/// its host source broadcast_tiling.cpp; facts only). 1-byte
/// types are worked on as half: add (srcSize and dstSize, each rounded up to 16) * 2 bytes
/// and count typeSize as 2 below. epb = 32 / typeSize.
///  * srcSize = dstSize or srcSize = 1: 0 (1-byte types: the cast copies + 32);
///  * axis 0 ([1, k] -> [m, k], k whole 32-byte blocks): 32 (the zero block);
///  * axis 1 ([m, 1] -> [m, k]) on Atlas A2/A3: k a multiple of epb: min = epb * epb * typeSize,
///    max = (m rounded up to 8) * epb * typeSize; otherwise both add the padded rows,
///    epb * kAlign * typeSize (min) and m * kAlign * typeSize (max), kAlign = k rounded up to epb;
///  * axis 1 on Atlas 300I/310P (the platform's SoC Ascend310P): m a multiple of epb,
///    min = 32 + epb * ceil(k / 8) * typeSize, max = 32 + m * k * typeSize.
/// Shapes of other ranks than 1 or 2, of different ranks, that cannot broadcast, with a zero
/// size, a type size other than 1, 2 or 4, or an axis-0 k not block-aligned leave both 0.
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                                      const ge::Shape& srcShape, const ge::Shape& dstShape, uint32_t typeSize,
                                      const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
  (void)isReuseSource;
  maxValue = minValue = 0;
  const size_t rank = dstShape.GetDimNum();
  if ((rank != 1 && rank != 2) || srcShape.GetDimNum() != rank) return;
  if (typeSize != 1 && typeSize != 2 && typeSize != 4) return;
  for (size_t i = 0; i < rank; i++) {
    if (dstShape.GetDim(i) <= 0 || (srcShape.GetDim(i) != dstShape.GetDim(i) && srcShape.GetDim(i) != 1)) return;
  }
  const uint64_t src_size = uint64_t(srcShape.GetShapeSize()), dst_size = uint64_t(dstShape.GetShapeSize());
  uint64_t cast = 0;
  if (typeSize == 1) {
    cast = ((src_size + 15) / 16 * 16 + (dst_size + 15) / 16 * 16) * 2;
    typeSize = 2;
  }
  if (src_size == dst_size || src_size == 1) {
    if (cast != 0) maxValue = minValue = uint32_t(cast + 32);
    return;
  }
  const uint64_t m = uint64_t(dstShape.GetDim(0)), k = uint64_t(dstShape.GetDim(1));
  const uint64_t epb = 32 / typeSize;
  if (srcShape.GetDim(1) != 1) {  // axis 0
    if (k % epb != 0) return;
    maxValue = minValue = uint32_t(32 + cast);
    return;
  }
  if (ascendcPlatform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND310P) {
    if (m % epb != 0) return;
    minValue = uint32_t(32 + cast + epb * ((k + 7) / 8) * typeSize);
    maxValue = uint32_t(32 + cast + m * k * typeSize);
    return;
  }
  const uint64_t m8 = (m + 7) / 8 * 8;
  if (k % epb == 0) {
    minValue = uint32_t(epb * epb * typeSize + cast);
    maxValue = uint32_t(m8 * epb * typeSize + cast);
  } else {
    const uint64_t k_align = (k + epb - 1) / epb * epb;
    minValue = uint32_t(epb * epb * typeSize + epb * k_align * typeSize + cast);
    maxValue = uint32_t(m8 * epb * typeSize + m * k_align * typeSize + cast);
  }
}

}  // namespace AscendC

// ---------------------------------------------------------------- Pad / UnPad
// The vendor's host source pad_tiling_impl.cpp (facts only; written anew). Shapes are 2-D
// [height, width], typeSize 2 or 4; other arguments leave the outputs 0 / the tiling zeroed
// (the vendor logs). The arithmetic is uint32_t as there (e.g. widthWithoutLastBlock wraps for
// a width below one block: it is only used for aligned widths).
namespace ascendc_sim::hl_host {
inline bool hw(const ge::Shape& s, uint32_t ts, uint32_t* h, uint32_t* w) {
  if (s.GetDimNum() != 2 || (ts != 2 && ts != 4) || s.GetDim(0) <= 0 || s.GetDim(1) <= 0) return false;
  *h = uint32_t(s.GetDim(0));
  *w = uint32_t(s.GetDim(1));
  return true;
}
/// 16 (the TransDataTo5HD address list) blocks of 32 bytes, twice: min = 1024 bytes; max =
/// the elements rounded up to 16, times 32 bytes, twice.
inline void pad_sizes(uint32_t h, uint32_t w, uint32_t& maxValue, uint32_t& minValue) {
  maxValue = ((h * w - 1) / 16 + 1) * 16 * 32 * 2;
  minValue = 16 * 32 * 2;
}
template <class Tiling>
inline void pad_fill(const ge::Shape& src, const ge::Shape& ori, uint32_t ws, uint32_t ts, Tiling& t) {
  uint32_t h = 0, w = 0, oh = 0, ow = 0;
  if (!hw(src, ts, &h, &w) || !hw(ori, ts, &oh, &ow) || uint64_t(oh) * ow > uint64_t(h) * w) return;
  const uint32_t epb = 32 / ts;
  t.srcHeight = h;
  t.srcWidth = w;
  t.srcOriWidth = ow;
  t.widthWithoutLastBlock = w - epb;
  t.blocksPerRow = w * ts / 32;
  t.heightTiling = 255;
  t.heightFractal = h / 255;
  t.heightFractalTail = h % 255;
  t.mainLoopOffset = 255 * w;
  t.tailBlockOffset = t.heightFractal * 255 * w + t.widthWithoutLastBlock;
  if (ws == 0) return;  // no temporary space: the aligned case only
  const uint32_t base = 16 * 32 / ts;  // elements of one 16-block unit
  const uint32_t blocks = ws / ts / base / 2;
  if (blocks == 0) return;  // below the minimum (the vendor would divide by zero below)
  t.tmpBuffer1BlockNum = blocks;
  t.tmpBuffer1RowNum = 16 * blocks;
  t.tmpBuffer2Offset = blocks * base;
  const uint32_t wt = 16 * blocks;
  t.widthTiling = wt;
  t.widthFractal = w / wt;
  t.widthFractalTail = w % wt;
  t.widthFractalTailAlingned = ((t.widthFractalTail - 1) / epb + 1) * epb;
  t.brcbTiling = wt;
  t.brcbFractal = h * w / wt;
  t.brcbFractalTail = h * w % wt;
  t.maxRepeatTimes = 254;  // 255 * 8 elements are not 32-byte aligned
  t.brcbTilingRepeatTimes = wt / 8 / 254;
  t.brcbTilingRepeatTimesTail = wt / 8 % 254;
  t.brcbFractalTailRepeatTimes = t.brcbFractalTail / 8 / 254;
  t.brcbFractalTailRepeatTimesTail = t.brcbFractalTail / 8 % 254;
}
template <class Tiling>
inline void unpad_fill(const ge::Shape& src, uint32_t ws, uint32_t ts, Tiling& t) {
  uint32_t h = 0, w = 0;
  if (!hw(src, ts, &h, &w)) return;
  t.srcHeight = h;
  t.srcWidth = w;
  if (ws == 0) return;  // Atlas A2 needs none
  const uint32_t base = 16 * 32 / ts;
  const uint32_t blocks = ws / ts / base / 2;
  if (blocks == 0) return;
  t.tmpBuffer1BlockNum = blocks;
  t.tmpBuffer1RowNum = 16 * blocks;
  t.tmpBuffer2Offset = blocks * base;
  const uint32_t wt = 16 * blocks;
  t.widthTiling = wt;
  t.widthFractal = w / wt;
  t.widthFractalTail = w % wt;
  if (t.widthFractalTail != 0) {
    t.widthFractal += 1;
  } else {
    t.widthFractalTail = wt;
  }
}
}  // namespace ascendc_sim::hl_host

namespace AscendC {
/// Pad's temporary space (bytes; vendor page "Pad Tiling").
inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                uint32_t& minValue) {
  uint32_t h = 0, w = 0;
  maxValue = minValue = 0;
  if (!ascendc_sim::hl_host::hw(srcShape, typeSize, &h, &w)) return;
  ascendc_sim::hl_host::pad_sizes(h, w, maxValue, minValue);
}
inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, optiling::PadTiling& tiling) {
  ascendc_sim::hl_host::pad_fill(srcShape, oriSrcShape, stackBufferSize, typeSize, tiling);
}
inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, ::PadTiling& tiling) {
  ascendc_sim::hl_host::pad_fill(srcShape, oriSrcShape, stackBufferSize, typeSize, tiling);
}
/// UnPad's temporary space: 0 on Atlas A2 (Ascend910B); elsewhere Pad's formula.
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const ge::Shape& srcShape,
                                  const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
  uint32_t h = 0, w = 0;
  maxValue = minValue = 0;
  if (!ascendc_sim::hl_host::hw(srcShape, typeSize, &h, &w)) return;
  if (ascendcPlatform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B) return;
  ascendc_sim::hl_host::pad_sizes(h, w, maxValue, minValue);
}
inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            optiling::UnPadTiling& tiling) {
  ascendc_sim::hl_host::unpad_fill(srcShape, stackBufferSize, typeSize, tiling);
}
inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            ::UnPadTiling& tiling) {
  ascendc_sim::hl_host::unpad_fill(srcShape, stackBufferSize, typeSize, tiling);
}

// ---------------------------------------------------------------- RmsNorm
inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                    uint32_t& minValue, const bool isBasicBlock = false) {
  uint32_t b = 0, s = 0, h = 0;
  if (typeSize != 2 && typeSize != 4) return false;
  if (!ascendc_sim::hl_host::bsh(srcShape, &b, &s, &h)) return false;
  if (isBasicBlock && (h % 64 != 0 || b * s % 8 != 0 || h >= 2048)) return false;
  const uint32_t c = typeSize == 2 ? 2 : 1;
  maxValue = 4 * (c * b * s * h + ascendc_sim::hl_host::align_up(uint64_t(b) * s, 32 / typeSize));
  minValue = ascendc_sim::hl_host::rms_min(h, typeSize);
  return true;
}
inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                 optiling::RmsNormTiling& tiling, const bool isBasicBlock = false) {
  (void)isBasicBlock;
  return ascendc_sim::hl_host::rms_fill(srcShape, originSrcShape, stackBufferByteSize, typeSize, tiling);
}
inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize, ::RmsNormTiling& tiling,
                                 const bool isBasicBlock = false) {
  (void)isBasicBlock;
  return ascendc_sim::hl_host::rms_fill(srcShape, originSrcShape, stackBufferByteSize, typeSize, tiling);
}

// ---------------------------------------------------------------- LayerNorm
inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
  uint32_t b = 0, s = 0, h = 0, oh = 0;
  maxValue = minValue = 0;
  if (typeSize != 2 && typeSize != 4) return;
  if (!ascendc_sim::hl_host::bshh(srcShape, &b, &s, &h, &oh)) return;
  const uint32_t n = ascendc_sim::hl_host::ln_bufs(typeSize, isReuseSource);
  const uint32_t mv = ascendc_sim::hl_host::align_up(uint64_t(b) * s * 4, 32);
  maxValue = n * ascendc_sim::hl_host::align_up(uint64_t(b) * s * h * 4, 32) + 2 * mv;
  minValue = n * ascendc_sim::hl_host::align_up(uint64_t(h) * 4, 32) + 2 * mv;
}
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                     const bool isReuseSource, optiling::LayerNormTiling& tiling) {
  ascendc_sim::hl_host::ln_fill(srcShape, stackBufferSize, typeSize, isReuseSource, tiling);
}
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                     const bool isReuseSource, ::LayerNormTiling& tiling) {
  ascendc_sim::hl_host::ln_fill(srcShape, stackBufferSize, typeSize, isReuseSource, tiling);
}
/// The older spelling the vendor keeps (deprecated there).
inline void GetLayerNormNDTillingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      optiling::LayerNormTiling& tilling) {
  ascendc_sim::hl_host::ln_fill(srcShape, stackBufferSize, typeSize, isReuseSource, tilling);
}
inline void GetLayerNormNDTillingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource, ::LayerNormTiling& tilling) {
  ascendc_sim::hl_host::ln_fill(srcShape, stackBufferSize, typeSize, isReuseSource, tilling);
}
}  // namespace AscendC

namespace ascendc_sim::hl_host {
/// DeepNorm [B, S, H] (vendor deepnorm_tiling_impl.cpp; facts only): the sizes are LayerNorm's
/// (n = 2 buffers for float with isReuseSource, else 3; min n align32(4 H) + 2 align32(4 B S),
/// max n align32(4 B S H) + 2 align32(4 B S)); false for a shape that is not 3-D with positive
/// dimensions, a type size other than 2 or 4, or isBasicBlock without H % 64 == 0 and
/// B S % 8 == 0.
inline bool dn_sizes(const ge::Shape& s, uint32_t ts, bool reuse, bool basic, uint32_t& mx, uint32_t& mn) {
  uint32_t b = 0, sl = 0, h = 0;
  if ((ts != 2 && ts != 4) || !bsh(s, &b, &sl, &h)) return false;
  if (basic && !(h % 64 == 0 && uint64_t(b) * sl % 8 == 0)) return false;
  const uint32_t n = ln_bufs(ts, reuse);
  const uint32_t bs = align_up(uint64_t(b) * sl * 4, 32);
  mx = n * align_up(uint64_t(b) * sl * h * 4, 32) + 2 * bs;
  mn = n * align_up(uint64_t(h) * 4, 32) + 2 * bs;
  return true;
}
/// GetDeepNormTilingInfo: false for the checks of the vendor's helper (B and S of the two
/// shapes differ, H not 32-byte aligned, originalH outside (0, H], isBasicBlock with
/// originalH != H, H above 255 * 8, a buffer below the minimum or no room for one row);
/// otherwise LayerNorm's fields, oneTmpSize rounded down to 8 rows with isBasicBlock.
template <class Tiling>
inline bool dn_fill(const ge::Shape& src, const ge::Shape& ori, uint32_t ws, uint32_t ts, bool reuse, bool basic,
                    Tiling& t) {
  uint32_t mx = 0, mn = 0, b = 0, s = 0, h = 0, ob = 0, os = 0, oh = 0;
  if (!dn_sizes(src, ts, reuse, basic, mx, mn) || ws < mn) return false;
  if (!bsh(src, &b, &s, &h) || !bsh(ori, &ob, &os, &oh)) return false;
  if (b != ob || s != os || uint64_t(h) * ts % 32 != 0 || oh == 0 || oh > h || (basic && oh != h) || h > 255 * 8)
    return false;
  const uint32_t total = b * s * h, mv = b * s, n = ln_bufs(ts, reuse);
  const uint32_t mv_floats = align_up(mv, 8), mv_total = ts == 4 ? 0 : 2 * mv_floats, floats = ws / 4;
  uint32_t one = (floats - mv_total) / n / h * h;
  one = std::min(one, total);
  if (basic && one / (8 * h) > 0) one = one / (8 * h) * (8 * h);
  if (one == 0) return false;
  t.bLength = b;
  t.sLength = s;
  t.hLength = h;
  t.originalHLength = oh;
  t.inputXSize = total;
  t.meanVarSize = mv;
  t.numberOfTmpBuf = n;
  t.meanTmpTensorPos = 0;
  t.meanTmpTensorSize = mv_floats;
  t.varianceTmpTensorPos = mv_floats;
  t.varianceTmpTensorSize = mv_floats;
  t.tmpBufSize = floats;
  t.oneTmpSize = one;
  t.firstTmpStartPos = mv_total;
  t.secondTmpStartPos = mv_total + one;
  t.thirdTmpStartPos = mv_total + 2 * one;
  t.loopRound = total / one;
  t.inputRoundSize = one;
  t.inputTailSize = total % one;
  t.inputTailPos = total - t.inputTailSize;
  t.meanVarRoundSize = one / h;
  t.meanVarTailSize = t.inputTailSize / h;
  t.meanVarTailPos = mv - t.meanVarTailSize;
  t.bshCurLength = one;
  t.bsCurLength = one / h;
  t.lastDimValueBack = 1.0f / float(oh);
  return true;
}
}  // namespace ascendc_sim::hl_host

namespace AscendC {
inline bool GetDeepNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                     const bool isBasicBlock, uint32_t& maxValue, uint32_t& minValue) {
  return ascendc_sim::hl_host::dn_sizes(srcShape, typeSize, isReuseSource, isBasicBlock, maxValue, minValue);
}
inline bool GetDeepNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t typeSize, const bool isReuseSource,
                                  const bool isBasicBlock, optiling::DeepNormTiling& tiling) {
  return ascendc_sim::hl_host::dn_fill(srcShape, originSrcShape, stackBufferSize, typeSize, isReuseSource,
                                       isBasicBlock, tiling);
}
inline bool GetDeepNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t typeSize, const bool isReuseSource,
                                  const bool isBasicBlock, ::DeepNormTiling& tiling) {
  return ascendc_sim::hl_host::dn_fill(srcShape, originSrcShape, stackBufferSize, typeSize, isReuseSource,
                                       isBasicBlock, tiling);
}
}  // namespace AscendC

namespace AscendC {
/// WelfordUpdate's temporary space on Atlas A2 (vendor page "WelfordUpdate Tiling" and its host
/// source): 256-byte float buffers — 3 for a half input, 1 with isReuseSource, else 2 — at least
/// once (min) and once per 64 elements of the [rnLength, abLength] shape (max). A shape that is
/// not 2-D leaves both 0. isInplace and typeSizeU change nothing.
inline void GetWelfordUpdateMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSizeT,
                                          const uint32_t typeSizeU, const bool isReuseSource, const bool isInplace,
                                          uint32_t& maxValue, uint32_t& minValue) {
  (void)typeSizeU;
  (void)isInplace;
  maxValue = minValue = 0;
  if (srcShape.GetDimNum() != 2 || srcShape.GetDim(0) <= 0 || srcShape.GetDim(1) <= 0) return;
  const uint64_t n = uint64_t(srcShape.GetDim(0)) * uint64_t(srcShape.GetDim(1));
  minValue = (typeSizeT == 2 ? 3u : isReuseSource ? 1u : 2u) * 256u;
  maxValue = uint32_t((n + 63) / 64 * minValue);
}
}  // namespace AscendC

// Host tiling functions are often called unqualified inside `namespace optiling`.
namespace optiling {
using AscendC::GetLayerNormMaxMinTmpSize;
using AscendC::GetLayerNormNDTilingInfo;
using AscendC::GetLayerNormNDTillingInfo;
using AscendC::GetLogSoftMaxMaxTmpSize;
using AscendC::GetLogSoftMaxMinTmpSize;
using AscendC::LogSoftMaxTilingFunc;
using AscendC::GetRmsNormMaxMinTmpSize;
using AscendC::GetRmsNormTilingInfo;
using AscendC::GetSoftMaxMaxTmpSize;
using AscendC::GetSoftMaxMinTmpSize;
using AscendC::GetSumMaxMinTmpSize;
using AscendC::GetCumSumMaxMinTmpSize;
using AscendC::GetBroadCastMaxMinTmpSize;
using AscendC::SoftMaxTilingFunc;
using AscendC::GetSoftMaxFlashV2MaxTmpSize;
using AscendC::GetSoftMaxFlashV2MinTmpSize;
using AscendC::SoftMaxFlashV2TilingFunc;
using AscendC::GetSoftMaxGradMaxTmpSize;
using AscendC::GetSoftMaxGradMinTmpSize;
using AscendC::SoftMaxGradTilingFunc;
using AscendC::IsBasicBlockInSoftMax;
using AscendC::GetPadMaxMinTmpSize;
using AscendC::GetDeepNormMaxMinTmpSize;
using AscendC::GetDeepNormTilingInfo;
using AscendC::GetWelfordUpdateMaxMinTmpSize;
using AscendC::PadTilingFunc;
using AscendC::GetUnPadMaxMinTmpSize;
using AscendC::UnPadTilingFunc;
}  // namespace optiling
