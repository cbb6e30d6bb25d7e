// ascendc_sim/hl_quant.h — the high-level quantization APIs AscendQuant (half/float -> int8),
// AscendDequant (int32 -> half/bfloat16/float) and AscendAntiQuant (int8 -> half/bfloat16)
// (vendor pages "AscendQuant", "AscendDequant", "AscendAntiQuant", headers
// adv_api/quantization/ascend_quant.h, ascend_dequant.h, ascend_antiquant.h and their Atlas A2
// implementations; facts only, in our own words).
//
// AscendQuant: dst[i] = int8(src[i] * scale + offset). Per tensor: scale and offset are
// float scalars. Per channel: scale (and offset, a scalar or a tensor) has scaleCount
// elements, reused for every row of scaleCount source elements (calCount / scaleCount rows).
// The Atlas A2 implementation runs in half: float sources, scales and offsets are cast to
// half first (round to nearest even), then Muls/Mul by the scale, Adds/Add of the offset
// (each rounded to half) and a Cast half -> int8 (round to nearest even, saturating). The
// simulator rounds at each of those steps (not once from an exact value): the steps decide
// int8 results and ties.
// Surprise (the implementation's own comment "source vector of scale is reused"): for float
// data the per-channel forms cast scaleTensor (and offsetTensor) to half *in place* — after
// the call their first scaleCount * 2 bytes hold halves, so a second call with the same
// tensors reads garbage. The simulator writes those halves too.
//
// AscendDequant: srcTensor holds m rows of n int32 elements (n * 4 bytes whole 32-byte
// blocks); dst row r (at the pitch n rounded up to 32 bytes of dstT) gets, for the first
// calCount columns, float(src) * deqScale[c] (a tensor) or * deqScale (a scalar), rounded
// once to dstT (half: CAST_NONE, bfloat16: CAST_RINT, both nearest even). The columns
// [calCount, n) get float(src) converted to dstT unscaled (the implementation casts whole
// rows and multiplies only the first calCount; the page calls them indeterminate); the pitch
// padding [n, roundup) is not written. DEQUANT_WITH_SINGLE_ROW (the default mode) turns
// {1, n, calCount} with calCount whole 32-byte blocks of dstT and n % calCount == 0 into
// {n / calCount, calCount, calCount}. The calCount / no-count forms take n = calCount =
// deqScale.GetSize() (srcTensor.GetSize() a multiple of it) and dequantize calCount (or
// all) source elements. A uint64_t deqScale (the half-output form) uses each element's low
// 32 bits as a float.
//
// AscendAntiQuant: dst = scale * (src + offset) (without offset: scale * src), per tensor
// (scalars) or per channel (offset / scale tensors: [H, N] for src [k, N], row i using
// parameter row i / (k / H); with isTranspose [N, W] for src [N, k], column j using parameter
// column j / (k / W)). half output: Cast to half, Add and Mul each rounded to half; bfloat16
// output (Atlas A2): through float, Cast to bfloat16 with CAST_RINT. H / W come from
// shapeInfo or, when it is zero, from the parameter tensors' sizes (the simulator does not
// record a LocalTensor's ShapeInfo, where the vendor reads them). UNCERTAIN: the Atlas A2
// half implementation's fast path (non-transposed) appears to apply parameter row 0 to every
// row; the simulator follows the page's formula. int4b_t sources, the 950-only forms and the
// temporary buffer's size (GetAscendAntiQuantMaxMinTmpSize's formula is not published) are
// not modelled / checked.
//
// Checks (the implementations' asserts and the pages' constraints): counts within the
// tensors and the parameters' relations (`field_out_of_range`), AscendQuant's per-channel
// scaleCount a multiple of 32 and AscendDequant's n a multiple of 8 (32-byte rows of int32:
// `ub_misaligned`), a sharedTmpBuffer below what one pass needs (`ub_out_of_range`;
// AscendQuant: 64 bytes = 32 halves, AscendDequant: 4 * (calCount rounded up to 8 + n)
// bytes), operand overlaps (`vector_overlap`: AscendQuant allows dst to start at src,
// AscendDequant allows no overlap at all). The framework-allocated forms are not
// size-checked. Costed as the implementations' instruction sequences.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
/// AscendQuant's compile-time configuration (vendor ascend_quant_utils.h, Atlas A2 form):
/// non-zero calcCount / scaleCount / offsetCount replace the call's counts, a non-zero
/// workLocalSize (bytes) the usable part of sharedTmpBuffer.
struct AscendQuantConfig {
  constexpr AscendQuantConfig(uint32_t calcCount_, uint32_t offsetCount_, uint32_t scaleCount_,
                              uint32_t workLocalSize_)
      : calcCount(calcCount_), offsetCount(offsetCount_), scaleCount(scaleCount_), workLocalSize(workLocalSize_) {}
  uint32_t calcCount = 0;
  uint32_t offsetCount = 0;
  uint32_t scaleCount = 0;
  uint32_t workLocalSize = 0;
};
inline constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

/// How AscendDequant reads DequantParams {1, n, calCount} (vendor kernel_struct enum).
enum class DeQuantMode : uint8_t {
  DEQUANT_WITH_SINGLE_ROW = 0,  // {1, k * c, c} is processed as {k, c, c}
  DEQUANT_WITH_MULTI_ROW,       // {1, n, calCount} stays one row
};
/// Shape of an AscendDequant source: m rows of n int32 elements (n * 4 bytes a multiple of
/// 32); the first calCount of each row are scaled.
struct DequantParams {
  uint32_t m;
  uint32_t n;
  uint32_t calCount;
};
/// Heights and widths of AscendAntiQuant's offset and scale tensors (0: taken from the
/// tensors, see AscendAntiQuant).
struct AntiQuantShapeInfo {
  uint32_t offsetHeight{0};
  uint32_t offsetWidth{0};
  uint32_t scaleHeight{0};
  uint32_t scaleWidth{0};
};
}  // namespace AscendC

namespace ascendc_sim::hl {

/// The operands AscendQuant and AscendAntiQuant both take: destination, source, the optional
/// scale / offset tensors and sharedTmpBuffer (a missing one: `UbRef{0, -1, 0}`, size 0).
struct QuantOperands {
  UbRef dst, src, scale, offset, tmp;
  bool has_tmp;                                                     // sharedTmpBuffer given
  uint32_t dst_size, src_size, scale_size, offset_size, tmp_bytes;  // elements (tmp: bytes)
};

/// One AscendQuant call with the overload's defaults and the config applied.
struct QuantCall : QuantOperands {
  uint32_t esize;          // source (and scale/offset tensor) element bytes: 2 half, 4 float
  bool per_channel;        // scale is a tensor
  bool offset_tensor;      // offset is a tensor
  uint32_t count, scale_count, offset_count;
  float scale_v, offset_v;  // scalars (offset_v: also the per-channel scalar offset)
  uint32_t work_local;      // config.workLocalSize (0: the whole sharedTmpBuffer)
  uint32_t cfg_calc;        // config.calcCount (0: none)
};
/// Checks, evaluates and costs one AscendQuant call.
void quant_run(const QuantCall& q, const SrcLoc& loc);

/// One AscendDequant call.
struct DequantCall {
  UbRef dst, src, scale, tmp;
  DType dst_t;          // F16, BF16 or F32
  DType scale_t;        // U64, F32 or BF16
  bool scale_tensor;    // deqScale is a tensor (else scale_v)
  bool has_params;      // the DequantParams forms (else calCount / whole-tensor forms)
  bool single_row;      // DeQuantMode::DEQUANT_WITH_SINGLE_ROW
  bool has_tmp;
  uint32_t dst_size, src_size, scale_size, tmp_bytes;
  AscendC::DequantParams p;  // has_params
  uint32_t count;            // !has_params: source elements to dequantize
  float scale_v;
};
/// Checks, evaluates and costs one AscendDequant call.
void dequant_run(const DequantCall& q, const SrcLoc& loc);

/// One AscendAntiQuant call.
struct AntiQuantCall : QuantOperands {
  bool bf16;            // output bfloat16_t (else half)
  bool transpose;       // isTranspose: src is [N, K] (else [K, N])
  bool tensors;         // offset / scale are tensors (else offset_v / scale_v)
  bool has_offset;
  uint32_t k;
  AscendC::AntiQuantShapeInfo shape;
  float offset_v, scale_v;
};
/// Checks, evaluates and costs one AscendAntiQuant call.
void antiquant_run(const AntiQuantCall& q, const SrcLoc& loc);

template <class T>
inline UbRef ref_or_none(const AscendC::LocalTensor<T>* t) {
  return t ? t->ref() : UbRef{0, -1, 0};
}

/// Records the shared operands of a quantization call (`scale`, `offset`, `tmp` may be null).
template <class D, class S, class P>
inline void set_quant_operands(QuantOperands& q, const AscendC::LocalTensor<D>& dst,
                               const AscendC::LocalTensor<S>& src, const AscendC::LocalTensor<P>* scale,
                               const AscendC::LocalTensor<P>* offset, const AscendC::LocalTensor<uint8_t>* tmp) {
  q.dst = dst.ref();
  q.src = src.ref();
  q.scale = ref_or_none(scale);
  q.offset = ref_or_none(offset);
  q.tmp = ref_or_none(tmp);
  q.has_tmp = tmp != nullptr;
  q.dst_size = dst.GetSize();
  q.src_size = src.GetSize();
  q.scale_size = scale ? scale->GetSize() : 0;
  q.offset_size = offset ? offset->GetSize() : 0;
  q.tmp_bytes = tmp ? tmp->GetSize() : 0;
}

template <class T, const AscendC::AscendQuantConfig& config>
inline void quant(const AscendC::LocalTensor<int8_t>& dst, const AscendC::LocalTensor<T>& src,
                  const AscendC::LocalTensor<uint8_t>* tmp, const AscendC::LocalTensor<T>* scale,
                  const AscendC::LocalTensor<T>* offset, float scale_v, float offset_v, uint32_t scale_count,
                  uint32_t offset_count, uint32_t count, const SrcLoc& loc) {
  static_assert(is_one_of_v<T, half, float>, "AscendQuant: source type must be half or float");
  QuantCall q{};
  set_quant_operands(q, dst, src, scale, offset, tmp);
  q.esize = sizeof(T);
  q.per_channel = scale != nullptr;
  q.offset_tensor = offset != nullptr;
  q.count = count;
  q.scale_count = scale_count;
  q.offset_count = offset_count;
  q.scale_v = scale_v;
  q.offset_v = offset_v;
  q.work_local = config.workLocalSize;
  q.cfg_calc = config.calcCount;
  // The static path: both counts from the config replace the call's (per channel: scale
  // and calc counts; per tensor: calc count with a workLocalSize).
  if (q.per_channel && config.scaleCount != 0 && config.calcCount != 0) {
    q.scale_count = config.scaleCount;
    q.offset_count = config.offsetCount != 0 ? config.offsetCount : config.scaleCount;
    q.count = config.calcCount;
  } else if (!q.per_channel && config.workLocalSize != 0 && config.calcCount != 0) {
    q.count = config.calcCount;
  }
  quant_run(q, loc);
}

template <class D, class S>
constexpr bool dequant_pair_ok(bool tensor) {
  using std::is_same_v;
  if (tensor) {
    return (is_same_v<S, uint64_t> && is_same_v<D, half>) || (is_same_v<S, float> && is_same_v<D, float>) ||
           (is_same_v<S, bfloat16_t> && is_same_v<D, float>) ||
           (is_same_v<S, bfloat16_t> && is_same_v<D, bfloat16_t>) || (is_same_v<S, float> && is_same_v<D, bfloat16_t>);
  }
  return (is_same_v<S, bfloat16_t> && is_same_v<D, bfloat16_t>) || (is_same_v<S, bfloat16_t> && is_same_v<D, float>) ||
         (is_same_v<S, float> && is_same_v<D, float>) || (is_same_v<S, float> && is_same_v<D, bfloat16_t>);
}

template <class D, class S, AscendC::DeQuantMode mode>
inline void dequant(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<int32_t>& src,
                    const AscendC::LocalTensor<S>* scale, float scale_v, const AscendC::LocalTensor<uint8_t>* tmp,
                    const AscendC::DequantParams* p, uint32_t count, const SrcLoc& loc) {
  DequantCall q{};
  q.dst = dst.ref();
  q.src = src.ref();
  q.scale = ref_or_none(scale);
  q.tmp = ref_or_none(tmp);
  q.dst_t = dtype_v<D>;
  q.scale_t = dtype_v<S>;
  q.scale_tensor = scale != nullptr;
  q.has_params = p != nullptr;
  q.single_row = mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW;
  q.has_tmp = tmp != nullptr;
  q.dst_size = dst.GetSize();
  q.src_size = src.GetSize();
  q.scale_size = scale ? scale->GetSize() : 0;
  q.tmp_bytes = tmp ? tmp->GetSize() : 0;
  if (p) q.p = *p;
  q.count = count;
  q.scale_v = scale_v;
  dequant_run(q, loc);
}

template <class I, class O, bool transpose>
inline void antiquant(const AscendC::LocalTensor<O>& dst, const AscendC::LocalTensor<I>& src,
                      const AscendC::LocalTensor<O>* offset, const AscendC::LocalTensor<O>* scale, float offset_v,
                      float scale_v, bool has_offset, const AscendC::LocalTensor<uint8_t>* tmp, uint32_t k,
                      const AscendC::AntiQuantShapeInfo& shape, const SrcLoc& loc) {
  static_assert(std::is_same_v<I, int8_t>,
                "AscendAntiQuant: the simulator models int8_t sources (int4b_t is not implemented)");
  static_assert(is_one_of_v<O, half, bfloat16_t>, "AscendAntiQuant: output type must be half or bfloat16_t");
  AntiQuantCall q{};
  set_quant_operands(q, dst, src, scale, offset, tmp);
  q.bf16 = std::is_same_v<O, bfloat16_t>;
  q.transpose = transpose;
  q.tensors = scale != nullptr;
  q.has_offset = has_offset;
  q.k = k;
  q.shape = shape;
  q.offset_v = offset_v;
  q.scale_v = scale_v;
  antiquant_run(q, loc);
}

}  // namespace ascendc_sim::hl

namespace AscendC {

// ---- AscendQuant, per tensor (float scale and offset) ----
/// AscendQuant per tensor: dst[i] = int8(src[i] * scale + offset), i < calCount; half or
/// float source; with sharedTmpBuffer (at least 64 bytes).
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, nullptr, nullptr, scale, offset, 0, 0,
                                    calCount, loc);
}
/// AscendQuant per tensor, framework-allocated temporary space.
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, nullptr, nullptr, scale, offset, 0, 0, calCount,
                                    loc);
}
/// AscendQuant per tensor over the whole source (srcTensor.GetSize() elements).
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale, const float offset,
                        ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, nullptr, nullptr, scale, offset, 0, 0,
                                    srcTensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, nullptr, nullptr, scale, offset, 0, 0,
                                    srcTensor.GetSize(), loc);
}

// ---- AscendQuant, per channel: scale tensor, scalar offset ----
/// AscendQuant per channel: dst[r * scaleCount + j] = int8(src[...] * scaleTensor[j] + offset)
/// over calCount elements (a non-zero multiple of scaleCount; scaleCount a multiple of 32).
/// float data: scaleTensor's first scaleCount halves are overwritten (cast in place).
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor, const T offset,
                        const uint32_t scaleCount, const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, &scaleTensor, nullptr, 0.0f,
                                    ascendc_sim::to_f32(offset), scaleCount, 0, calCount, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const T offset, const uint32_t scaleCount,
                        const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, &scaleTensor, nullptr, 0.0f,
                                    ascendc_sim::to_f32(offset), scaleCount, 0, calCount, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor, const T offset,
                        ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, &scaleTensor, nullptr, 0.0f,
                                    ascendc_sim::to_f32(offset), scaleTensor.GetSize(), 0, srcTensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const T offset, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, &scaleTensor, nullptr, 0.0f,
                                    ascendc_sim::to_f32(offset), scaleTensor.GetSize(), 0, srcTensor.GetSize(), loc);
}

// ---- AscendQuant, per channel: scale and offset tensors ----
/// AscendQuant per channel with an offset tensor (offsetCount == scaleCount). float data:
/// scaleTensor and offsetTensor are cast to half in place.
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                        const LocalTensor<T>& offsetTensor, const uint32_t scaleCount, const uint32_t offsetCount,
                        const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, &scaleTensor, &offsetTensor, 0.0f, 0.0f,
                                    scaleCount, offsetCount, calCount, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor,
                        const uint32_t scaleCount, const uint32_t offsetCount, const uint32_t calCount,
                        ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, &scaleTensor, &offsetTensor, 0.0f, 0.0f,
                                    scaleCount, offsetCount, calCount, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const LocalTensor<T>& scaleTensor,
                        const LocalTensor<T>& offsetTensor, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, &sharedTmpBuffer, &scaleTensor, &offsetTensor, 0.0f, 0.0f,
                                    scaleTensor.GetSize(), offsetTensor.GetSize(), srcTensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<T>& scaleTensor, const LocalTensor<T>& offsetTensor, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::quant<T, config>(dstTensor, srcTensor, nullptr, &scaleTensor, &offsetTensor, 0.0f, 0.0f,
                                    scaleTensor.GetSize(), offsetTensor.GetSize(), srcTensor.GetSize(), loc);
}

// ---- AscendDequant, deqScale a tensor ----
/// AscendDequant with a per-column scale tensor over DequantParams {m, n, calCount}. dstT /
/// scaleT pairs (Atlas A2): half/uint64_t (low 32 bits a float), float/float,
/// float/bfloat16_t, bfloat16_t/bfloat16_t, bfloat16_t/float.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, &sharedTmpBuffer, &params, 0,
                                               loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, DequantParams params, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, nullptr, &params, 0, loc);
}
/// The calCount forms (the vendor no longer recommends them): n = calCount = deqScale's
/// size, srcTensor.GetSize() a multiple of it, the first calCount source elements done.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const uint32_t calCount, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, &sharedTmpBuffer, nullptr,
                                               calCount, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const uint32_t calCount, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, nullptr, nullptr, calCount,
                                               loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, &sharedTmpBuffer, nullptr,
                                               srcTensor.GetSize(), loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(true),
                "AscendDequant: this dstTensor / deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, 0.0f, nullptr, nullptr,
                                               srcTensor.GetSize(), loc);
}

// ---- AscendDequant, deqScale a scalar (float or bfloat16_t; dst float or bfloat16_t) ----
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params,
                          ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(false),
                "AscendDequant: this dstTensor / scalar deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, ascendc_sim::to_f32(deqScale),
                                               &sharedTmpBuffer, &params, 0, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, DequantParams params, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::hl::dequant_pair_ok<dstT, scaleT>(false),
                "AscendDequant: this dstTensor / scalar deqScale type pair is not supported on Ascend910B");
  ascendc_sim::hl::dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, ascendc_sim::to_f32(deqScale),
                                               nullptr, &params, 0, loc);
}

// ---- AscendAntiQuant (int8_t -> half / bfloat16_t) ----
/// AscendAntiQuant per channel: dst = scale * (src + offset). isTranspose false: src is
/// [k, N] (N = src.GetSize() / k) and offset/scale are [H, N], row i using parameter row
/// i / (k / H); true: src is [N, k] (k a multiple of 32) and offset/scale are [N, W], column j
/// using parameter column j / (k / W). H / W come from shapeInfo, or, when it is 0, from the
/// tensors' sizes (the simulator does not record a LocalTensor's ShapeInfo).
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(dst, src, &offset, &scale, 0.0f, 0.0f, true,
                                                                         &sharedTmpBuffer, k, shapeInfo, loc);
}
/// Per channel without offset: dst = scale * src.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                            const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(dst, src, nullptr, &scale, 0.0f, 0.0f, false,
                                                                         &sharedTmpBuffer, k, shapeInfo, loc);
}
/// Per channel, framework-allocated temporary space.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(dst, src, &offset, &scale, 0.0f, 0.0f, true,
                                                                         nullptr, k, shapeInfo, loc);
}
/// Per tensor: dst = scale * (src + offset) with scalars.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType offset, const OutputDataType scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(
      dst, src, nullptr, nullptr, ascendc_sim::to_f32(offset), ascendc_sim::to_f32(scale), true, &sharedTmpBuffer, k,
      shapeInfo, loc);
}
/// Per tensor without offset: dst = scale * src.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(
      dst, src, nullptr, nullptr, 0.0f, ascendc_sim::to_f32(scale), false, &sharedTmpBuffer, k, shapeInfo, loc);
}
/// Per tensor, framework-allocated temporary space.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const OutputDataType offset, const OutputDataType scale, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::antiquant<InputDataType, OutputDataType, isTranspose>(
      dst, src, nullptr, nullptr, ascendc_sim::to_f32(offset), ascendc_sim::to_f32(scale), true, nullptr, k, shapeInfo,
      loc);
}

}  // namespace AscendC
