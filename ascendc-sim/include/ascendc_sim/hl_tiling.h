// ascendc_sim/hl_tiling.h — the kernel-side tiling structs of the high-level SoftMax,
// RmsNorm and LayerNorm APIs (CANN `kernel_tiling/kernel_tiling.h`), and SoftMaxShapeInfo.
//
// Plain structs at global scope (as the vendor's generated kernel_tiling.h declares them),
// also reachable as `AscendC::X` and `AscendC::tiling::X`. The host fills them with the
// helpers of `tiling/tiling_api.h` (the `optiling::X` tiling-data classes have the same
// fields in the same order, so `SaveToBuffer` writes exactly these bytes).
//
// Field lists and order (facts, not code, from the vendor's API pages "SoftMax Tiling使用说明"
// atlasascendc_api_07_0761, "RmsNorm Tiling" and "LayerNorm Tiling" atlasascendc_api_07_0801):
// every field is uint32_t except RmsNormTiling::reciprocalOfHLength and
// LayerNormTiling::lastDimValueBack (float).
#pragma once

#include <cstdint>

// The sixteen uint32_t fields SoftMaxTiling and LogSoftMaxTiling share, in their order, as an
// X-macro: F(name) per field (the kernel structs here and the optiling classes of
// tiling/hl_tiling_helpers.h expand it).
#define ASCENDC_SIM_SOFTMAX_TILING_FIELDS(F) \
  F(srcM) \
  F(srcK) \
  F(srcSize) \
  F(outMaxM) \
  F(outMaxK) \
  F(outMaxSize) \
  F(splitM) \
  F(splitK) \
  F(splitSize) \
  F(reduceM) \
  F(reduceK) \
  F(reduceSize) \
  F(rangeM) \
  F(tailM) \
  F(tailSplitSize) \
  F(tailReduceSize)
#define ASCENDC_SIM_U32_FIELD(name) uint32_t name = 0;

struct SoftMaxTiling {
  ASCENDC_SIM_SOFTMAX_TILING_FIELDS(ASCENDC_SIM_U32_FIELD)
};

/// LogSoftMax's kernel tiling struct: the same sixteen uint32_t fields in the same order as
/// SoftMaxTiling (vendor logsoftmax_tilingdata.h, page "LogSoftMax Tiling"
/// atlasascendc_api_07_0769), a type of its own.
struct LogSoftMaxTiling {
  ASCENDC_SIM_SOFTMAX_TILING_FIELDS(ASCENDC_SIM_U32_FIELD)
};

/// Pad's kernel tiling struct (vendor pad_tilingdata.h, page "Pad Tiling"
/// atlasascendc_api_07_0850): 26 uint32_t fields in this order.
#define ASCENDC_SIM_PAD_TILING_FIELDS(F) \
  F(srcHeight) \
  F(srcWidth) \
  F(srcOriWidth) \
  F(widthWithoutLastBlock) \
  F(blocksPerRow) \
  F(heightTiling) \
  F(heightFractal) \
  F(heightFractalTail) \
  F(mainLoopOffset) \
  F(tailBlockOffset) \
  F(tmpBuffer1BlockNum) \
  F(tmpBuffer1RowNum) \
  F(tmpBuffer2Offset) \
  F(widthTiling) \
  F(widthFractal) \
  F(widthFractalTail) \
  F(widthFractalTailAlingned) \
  F(brcbTiling) \
  F(brcbFractal) \
  F(brcbFractalTail) \
  F(maxRepeatTimes) \
  F(brcbTilingRepeatTimes) \
  F(brcbTilingRepeatTimesTail) \
  F(brcbFractalTailRepeatTimes) \
  F(brcbFractalTailRepeatTimesTail) \
  F(reserved)
/// UnPad's kernel tiling struct: 8 uint32_t fields in this order (same source).
#define ASCENDC_SIM_UNPAD_TILING_FIELDS(F) \
  F(srcHeight) \
  F(srcWidth) \
  F(tmpBuffer1BlockNum) \
  F(tmpBuffer1RowNum) \
  F(tmpBuffer2Offset) \
  F(widthTiling) \
  F(widthFractal) \
  F(widthFractalTail)

struct PadTiling {
  ASCENDC_SIM_PAD_TILING_FIELDS(ASCENDC_SIM_U32_FIELD)
};
struct UnPadTiling {
  ASCENDC_SIM_UNPAD_TILING_FIELDS(ASCENDC_SIM_U32_FIELD)
};

struct RmsNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  float reciprocalOfHLength = 0;
  uint32_t mainBshLength = 0;
  uint32_t mainBsLength = 0;
  uint32_t mainBsLengthAlign = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailPos = 0;
  uint32_t tailBshLength = 0;
  uint32_t tailBsLength = 0;
};

struct LayerNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t meanTmpTensorPos = 0;
  uint32_t meanTmpTensorSize = 0;
  uint32_t varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0;
  uint32_t thirdTmpStartPos = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  float lastDimValueBack = 0;
};

/// DeepNorm's kernel tiling struct: the same fields in the same order as LayerNormTiling
/// (vendor deepnorm_tilingdata.h, page "DeepNorm Tiling"), a type of its own.
struct DeepNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t meanTmpTensorPos = 0;
  uint32_t meanTmpTensorSize = 0;
  uint32_t varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0;
  uint32_t thirdTmpStartPos = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  float lastDimValueBack = 0;
};

namespace ascendc_sim::hl {
// The per-row temporary space (float elements) of SoftmaxFlashV2 and SoftmaxGrad on Atlas A2,
// shared by the kernel APIs (hl_softmax_ext.h) and the host helpers (tiling/hl_tiling_helpers.h);
// the rules are explained in hl_softmax_ext.h.
/// Floats of SoftmaxFlashV2's temporary space per row on Atlas A2 (see the header comment).
constexpr uint32_t flashv2_row_floats(uint32_t t_size, uint32_t u_size, uint32_t k, bool basic) {
  const uint32_t epb = 32 / u_size;
  if (basic) {
    const uint32_t extra = k == 1024 ? 128 : 64;
    return t_size == 2 ? epb + k + extra : epb + extra;
  }
  return t_size == 2 ? 2 * epb + k + 64 : epb + 64;
}
/// Floats of SoftmaxGrad's temporary space per row on Atlas A2.
constexpr uint32_t grad_row_floats(uint32_t t_size, uint32_t k, bool front) {
  const uint32_t epb = 32 / t_size;
  if (t_size == 2) return 2 * epb + 3 * k + 64;
  return front ? epb + k + 64 : 2 * epb + k + 64;
}

}  // namespace ascendc_sim::hl

namespace AscendC {
using ::DeepNormTiling;
using ::LayerNormTiling;
using ::LogSoftMaxTiling;
using ::PadTiling;
using ::UnPadTiling;
using ::RmsNormTiling;
using ::SoftMaxTiling;
namespace tiling {
using ::DeepNormTiling;
using ::LayerNormTiling;
using ::LogSoftMaxTiling;
using ::PadTiling;
using ::UnPadTiling;
using ::RmsNormTiling;
using ::SoftMaxTiling;
}  // namespace tiling

/// The shape a SoftMax-family call works on (vendor SoftMax page): srcM = product of the
/// non-last axes, srcK = last axis (32-byte aligned), oriSrcM / oriSrcK = the unpadded
/// lengths. All zero (`{}`, the default argument) means "take the shape from the tiling".
struct SoftMaxShapeInfo {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
};

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };

/// SoftMax template configuration (vendor softmax_utils.h: isCheckTiling, oriSrcM, oriSrcK,
/// mode). The simulator always takes the shape from SoftMaxShapeInfo when it is given (what
/// isCheckTiling = true does) and supports only SOFTMAX_NORMAL (a static_assert otherwise).
struct SoftmaxConfig {
  constexpr SoftmaxConfig(const bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
  constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
  constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn,
                          const SoftmaxMode modeIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
  SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};
}  // namespace AscendC
