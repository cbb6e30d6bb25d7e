// ascendc_sim/data_copy.h — DataCopy and DataCopyPad (api-reference §3).
//
// Units (exact, they are what kernels get wrong):
//  * DataCopy count form: `count` elements; the byte count is rounded DOWN to a multiple
//    of 32 as the hardware does, with a "datacopy_truncated" warning naming the numbers.
//  * DataCopyParams: blockCount bursts of blockLen 32-byte blocks; srcStride/dstStride are
//    gaps (end of one burst to start of the next) in 32-byte blocks, on GM and UB alike.
//  * DataCopyPad (DataCopyExtParams, or the legacy DataCopyParams): blockLen in BYTES;
//    the GM-side gap in bytes, the UB-side gap in 32-byte blocks. GM->UB places burst i at
//    dst + i * (roundup32(left*size + blockLen + right*size) + dstStride*32) (FC-01); with
//    isPad the left/right padding and the rest of the 32-byte block get paddingValue,
//    without it they stay uninitialized (poisoned) UB. UB->GM writes blockLen bytes per
//    burst. The GM address needs no alignment (FC-08); the UB address needs 32 bytes.
// GM->UB runs on MTE2, UB->GM on MTE3, UB->UB on V.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_sim/core.h"
#include "ascendc_sim/tensor.h"

namespace ascendc_sim {

/// A hardware parameter field of type `Field` (uint8_t, uint16_t, uint32_t) that keeps
/// the full value the kernel stored through a wider type (FC-09): reading it gives the
/// field's value as the NPU holds it (wrapped to `Field`, as the real struct's member
/// would), while the copy APIs check `wide()` and report a value that does not fit the
/// field ("field_out_of_range") instead of copying a silently wrapped length.
template <class Field>
struct WideField {
  uint64_t raw;  // the value as stored; negative values wrap to huge ones, as a cast would
  WideField() = default;
  template <class I, class = std::enable_if_t<std::is_integral_v<I> || std::is_enum_v<I>>>
  constexpr WideField(I v) : raw(uint64_t(int64_t(v))) {
    if constexpr (std::is_unsigned_v<I>) raw = uint64_t(v);
  }
  constexpr operator Field() const { return Field(raw); }
  constexpr uint64_t wide() const { return raw; }
  /// Largest value the hardware field holds.
  static constexpr uint64_t max() { return uint64_t(Field(~Field(0))); }
  template <class I>
  constexpr WideField& operator+=(I v) { raw += uint64_t(v); return *this; }
  template <class I>
  constexpr WideField& operator-=(I v) { raw -= uint64_t(v); return *this; }
  template <class I>
  constexpr WideField& operator*=(I v) { raw *= uint64_t(v); return *this; }
};

}  // namespace ascendc_sim

namespace AscendC {

/// DataCopy parameters (api-reference §3.1): the NPU's fields are uint16_t; here they are
/// WideFields so that a value above 65535 is reported where it is used.
struct DataCopyParams {
  ascendc_sim::WideField<uint16_t> blockCount = 1;
  ascendc_sim::WideField<uint16_t> blockLen = 0;
  union {
    ascendc_sim::WideField<uint16_t> srcGap = 0;
    ascendc_sim::WideField<uint16_t> srcStride;
  };
  union {
    ascendc_sim::WideField<uint16_t> dstGap = 0;
    ascendc_sim::WideField<uint16_t> dstStride;
  };
  DataCopyParams() = default;
  DataCopyParams(ascendc_sim::WideField<uint16_t> count, ascendc_sim::WideField<uint16_t> len,
                 ascendc_sim::WideField<uint16_t> srcStrideIn, ascendc_sim::WideField<uint16_t> dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

/// DataCopyPad parameters (api-reference §3.2): uint16_t blockCount, uint32_t lengths and
/// strides on the NPU, WideFields here.
struct DataCopyExtParams {
  ascendc_sim::WideField<uint16_t> blockCount = 1;
  ascendc_sim::WideField<uint32_t> blockLen = 0;
  ascendc_sim::WideField<uint32_t> srcStride = 0;
  ascendc_sim::WideField<uint32_t> dstStride = 0;
  uint32_t rsv = 0;
  DataCopyExtParams() = default;
  DataCopyExtParams(ascendc_sim::WideField<uint16_t> count, ascendc_sim::WideField<uint32_t> len,
                    ascendc_sim::WideField<uint32_t> srcStrideIn, ascendc_sim::WideField<uint32_t> dstStrideIn,
                    const uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  ascendc_sim::WideField<uint8_t> leftPadding = 0;
  ascendc_sim::WideField<uint8_t> rightPadding = 0;
  T paddingValue{};
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(const bool isPadIn, ascendc_sim::WideField<uint8_t> left, ascendc_sim::WideField<uint8_t> right,
                       T value)
      : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

/// Legacy padding parameters (paddingValue converted to the element type).
struct DataCopyPadParams {
  bool isPad = false;
  ascendc_sim::WideField<uint8_t> leftPadding = 0;
  ascendc_sim::WideField<uint8_t> rightPadding = 0;
  uint64_t paddingValue = 0;
  DataCopyPadParams() = default;
  DataCopyPadParams(const bool isPadIn, ascendc_sim::WideField<uint8_t> left, ascendc_sim::WideField<uint8_t> right,
                    const uint64_t value)
      : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

/// Slice description of one dimension for the SliceInfo form of DataCopy (vendor struct in
/// kernel_struct_data_copy.h, page "GM and UB Slice Data Transfer (DataCopy)",
/// atlasascendc_api_07_0105). Dimension 0 is the innermost (contiguous) one. All fields are
/// uint32_t there; the defaults are start 0, end 31, stride 0, burstLen 32, shapeValue 0.
///  * startIndex / endIndex: first and last element (dimension 0) or row (higher
///    dimensions) of the slice, both inclusive;
///  * stride: the gap between two slice pieces, in elements (dimension 0) or rows;
///  * burstLen: dimension 0: one piece's length in 32-byte blocks; higher dimensions: 1;
///  * shapeValue: the dimension's full length in elements (0 = take the tensor's ShapeInfo;
///    the simulator requires it given).
struct SliceInfo {
  SliceInfo() = default;
  SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn,
            const uint32_t burstLenIn, const uint32_t shapeValueIn = 0)
      : startIndex(startIndexIn), endIndex(endIndexIn), stride(strideIn), burstLen(burstLenIn),
        shapeValue(shapeValueIn) {}
  uint32_t startIndex = 0;
  uint32_t endIndex = 32 - 1;
  uint32_t stride = 0;
  uint32_t burstLen = 32;
  uint32_t shapeValue = 0;
};
/// Largest dimValue of the SliceInfo DataCopy (the vendor's slice sample sizes its arrays
/// with it: 8).
constexpr uint32_t K_MAX_DIM = 8;

}  // namespace AscendC

namespace ascendc_sim::dma {

/// Bursts of one DMA instruction.
struct Bursts {
  uint32_t count = 0;     // bursts
  uint64_t bytes = 0;     // bytes moved per burst
  uint64_t gm_pitch = 0;  // GM start-to-start distance, bytes
  uint64_t ub_pitch = 0;  // UB start-to-start distance, bytes (src side for UB->UB)
  uint64_t ub_pitch2 = 0; // UB->UB: dst start-to-start distance
};

/// DataCopyPad GM->UB padding.
struct Pad {
  bool is_pad = false;
  uint64_t left = 0, right = 0;  // elements (as the kernel passed them)
  uint32_t esize = 1;
  uint8_t value[8] = {};
};

/// Count form: `count` elements of `esize` bytes, truncated to whole 32-byte blocks.
void count_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t count, uint32_t esize, const SrcLoc& loc);
void count_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t count, uint32_t esize, const SrcLoc& loc);
void count_ub_to_ub(const UbRef& dst, const UbRef& src, uint64_t count, uint32_t esize, const SrcLoc& loc);
/// DataCopyParams forms (units of 32-byte blocks). The values are what the kernel stored
/// (WideField::wide()); each must fit its 16-bit field, blockCount is at most 4095.
void params_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t block_count, uint64_t block_len, uint64_t src_gap,
                     uint64_t dst_gap, const SrcLoc& loc);
void params_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t block_count, uint64_t block_len, uint64_t src_gap,
                     uint64_t dst_gap, const SrcLoc& loc);
void params_ub_to_ub(const UbRef& dst, const UbRef& src, uint64_t block_count, uint64_t block_len, uint64_t src_gap,
                     uint64_t dst_gap, const SrcLoc& loc);
/// DataCopyPad (blockLen in bytes; GM gap in bytes; UB gap in 32-byte blocks). `field_max`
/// is the largest blockLen or gap the parameter struct's fields hold (65535 for the
/// legacy DataCopyParams, 2^32 - 1 for DataCopyExtParams).
void pad_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t block_count, uint64_t block_len, uint64_t src_gap,
                  uint64_t dst_gap, uint64_t field_max, const Pad& pad, uint32_t esize, const SrcLoc& loc);
void pad_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t block_count, uint64_t block_len, uint64_t src_gap,
                  uint64_t dst_gap, uint64_t field_max, uint32_t esize, const SrcLoc& loc);

/// SliceInfo DataCopy (data_copy.cpp, slice_copy): GM->UB (`to_ub`) or UB->GM. `gm` is the
/// GM tensor's base, `gm_elems` its SetGlobalBuffer size (0 = not given); `dst`/`src` hold
/// `dims` slice descriptions as the kernel passed them.
struct SliceDim {
  uint64_t start, end, stride, burst, shape;
};
void slice_copy(bool to_ub, const UbRef& ub, uint8_t* gm, uint64_t gm_elems, const SliceDim* dst,
                const SliceDim* src, uint64_t dims, uint32_t esize, const SrcLoc& loc);
/// The first min(dims, K_MAX_DIM) SliceInfo entries as slice_copy's SliceDim (slice_copy
/// reports a dimValue outside [1, K_MAX_DIM]).
inline void slice_dims(const AscendC::SliceInfo info[], uint32_t dims, SliceDim out[]) {
  for (uint32_t i = 0; i < dims && i < AscendC::K_MAX_DIM; i++) {
    out[i] = {info[i].startIndex, info[i].endIndex, info[i].stride, info[i].burstLen, info[i].shapeValue};
  }
}

template <typename T>
inline Pad make_pad(bool is_pad, uint64_t left, uint64_t right, const T& value) {
  Pad p;
  p.is_pad = is_pad;
  p.left = left;
  p.right = right;
  p.esize = sizeof(T);
  std::memcpy(p.value, &value, sizeof(T));
  return p;
}

}  // namespace ascendc_sim::dma

namespace ascendc_sim::dma {
/// bfloat16_t data needs an SoC with bf16 (profile [capabilities] bf16).
template <typename T>
inline void check_dtype_soc(const char* api, const SrcLoc& loc) {
  static_assert(elem_bits<T> >= 8,
                "DataCopy/DataCopyPad of int4b_t is not implemented in the simulator: move the bytes as int8_t "
                "(ReinterpretCast<int8_t>()), as the vendor's cast_int4b_t example does");
  if constexpr (std::is_same_v<T, bfloat16_t>) check_bf16_soc(api, loc);
}
}  // namespace ascendc_sim::dma

namespace AscendC {

// ---- DataCopy, count form ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::count_gm_to_ub(dst.ref(), reinterpret_cast<const uint8_t*>(src.addr_), count, sizeof(T), loc);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::count_ub_to_gm(reinterpret_cast<uint8_t*>(dst.addr_), src.ref(), count, sizeof(T), loc);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::count_ub_to_ub(dst.ref(), src.ref(), count, sizeof(T), loc);
}

// ---- DataCopy, DataCopyParams form ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::params_gm_to_ub(dst.ref(), reinterpret_cast<const uint8_t*>(src.addr_), p.blockCount.wide(),
                                    p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), loc);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::params_ub_to_gm(reinterpret_cast<uint8_t*>(dst.addr_), src.ref(), p.blockCount.wide(),
                                    p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), loc);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::params_ub_to_ub(dst.ref(), src.ref(), p.blockCount.wide(), p.blockLen.wide(), p.srcStride.wide(),
                                    p.dstStride.wide(), loc);
}

// ---- DataCopy, SliceInfo form (GM <-> UB only; vendor page above) ----
// The vendor implements it in software as one DataCopy instruction per row of the
// higher dimensions: blockCount = the pieces of dimension 0, blockLen = burstLen, the GM gap
// stride * sizeof(T) bytes, the UB gap stride * sizeof(T) / 32 blocks; costed so here.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::SliceDim d[K_MAX_DIM], s[K_MAX_DIM];
  ascendc_sim::dma::slice_dims(dstSliceInfo, dimValue, d);
  ascendc_sim::dma::slice_dims(srcSliceInfo, dimValue, s);
  ascendc_sim::dma::slice_copy(true, dst.ref(), reinterpret_cast<uint8_t*>(src.addr_), src.size_, d, s, dimValue,
                               sizeof(T), loc);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
                     const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1,
                     ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopy", loc);
  ascendc_sim::dma::SliceDim d[K_MAX_DIM], s[K_MAX_DIM];
  ascendc_sim::dma::slice_dims(dstSliceInfo, dimValue, d);
  ascendc_sim::dma::slice_dims(srcSliceInfo, dimValue, s);
  ascendc_sim::dma::slice_copy(false, src.ref(), reinterpret_cast<uint8_t*>(dst.addr_), dst.size_, d, s, dimValue,
                               sizeof(T), loc);
}

// ---- SetPadValue ----
/// Sets DataCopyPad's pad-value register (GM -> VECIN/VECOUT copies; vendor page
/// "SetPadValue(ISASI)": T is the type the copy moves, pos VECIN, VECOUT or MAX = either).
/// It applies to every later GM->UB DataCopyPad of the core that requests left/right
/// padding without isPad; a copy with isPad overwrites the register with its own
/// paddingValue (see pad_gm_to_ub). A scalar register write: one scalar instruction.
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T paddingValue, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                "SetPadValue: pos must be TPosition::VECIN, VECOUT or MAX (the GM->UB DataCopyPad paths)");
  static_assert(sizeof(T) <= 8, "SetPadValue: the pad value is at most 8 bytes");
  auto& c = ascendc_sim::ctx("SetPadValue");
  ascendc_sim::dma::check_dtype_soc<T>("SetPadValue", loc);
  ascendc_sim::check_pad_soc("SetPadValue", loc);
  c.pad_reg_set = true;
  std::memset(c.pad_reg, 0, sizeof c.pad_reg);
  std::memcpy(c.pad_reg, &paddingValue, sizeof(T));
  c.rec->scalar(1);
}

// ---- DataCopyPad ----
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopyPad", loc);
  ascendc_sim::dma::pad_gm_to_ub(dst.ref(), reinterpret_cast<const uint8_t*>(src.addr_), p.blockCount.wide(),
                                 p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), p.srcStride.max(),
                                 ascendc_sim::dma::make_pad(pad.isPad, pad.leftPadding.wide(), pad.rightPadding.wide(),
                                                            pad.paddingValue),
                                 sizeof(T), loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                        ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopyPad", loc);
  ascendc_sim::dma::pad_ub_to_gm(reinterpret_cast<uint8_t*>(dst.addr_), src.ref(), p.blockCount.wide(),
                                 p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), p.srcStride.max(),
                                 sizeof(T), loc);
}
/// Legacy form: DataCopyParams with blockLen in bytes.
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopyPad", loc);
  T value{};
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    value = bfloat16_t(float(pad.paddingValue));
  } else {
    value = static_cast<T>(pad.paddingValue);
  }
  ascendc_sim::dma::pad_gm_to_ub(dst.ref(), reinterpret_cast<const uint8_t*>(src.addr_), p.blockCount.wide(),
                                 p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), p.srcStride.max(),
                                 ascendc_sim::dma::make_pad(pad.isPad, pad.leftPadding.wide(), pad.rightPadding.wide(),
                                                            value),
                                 sizeof(T), loc);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                        ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::dma::check_dtype_soc<T>("DataCopyPad", loc);
  ascendc_sim::dma::pad_ub_to_gm(reinterpret_cast<uint8_t*>(dst.addr_), src.ref(), p.blockCount.wide(),
                                 p.blockLen.wide(), p.srcStride.wide(), p.dstStride.wide(), p.srcStride.max(),
                                 sizeof(T), loc);
}

/// Data-cache maintenance (CANN: `DataCacheCleanAndInvalid<T, CacheLine, DcciDst>(tensor)`).
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
/// Scalar GM writes go through the data cache: this writes back the dirty line holding the
/// tensor's address (SINGLE_CACHE_LINE) or every dirty line (ENTIRE_DATA_CACHE). The
/// simulator's GM holds the new bytes at once; the cache only decides what another core or
/// this core's DMA may rely on (gm_dcache_stale). Costs its scalar issue. Template arguments
/// of any enum (or int) are accepted.
template <typename T, auto entireType = CacheLine::SINGLE_CACHE_LINE, auto dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& t) {
  auto& c = ascendc_sim::ctx("DataCacheCleanAndInvalid");
  ascendc_sim::dcache_clean(c, t.GetPhyAddr(), int(entireType) == int(CacheLine::ENTIRE_DATA_CACHE));
  c.rec->scalar(1);
}
template <typename T, auto entireType = CacheLine::SINGLE_CACHE_LINE, auto dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {
  ascendc_sim::ctx("DataCacheCleanAndInvalid").rec->scalar(1);
}

/// Memory kinds of DataSyncBarrier.
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
/// Waits until earlier memory accesses of the scalar unit complete (costed as a
/// PipeBarrier<PIPE_ALL>, the closest documented instruction).
template <MemDsbT arg0 = MemDsbT::ALL>
inline void DataSyncBarrier() {
  auto& c = ascendc_sim::ctx("DataSyncBarrier");
  ascendc_sim::sync_barrier(c, ascendc_sim::Pipe::S, true);
}

/// Scalar read of GM that bypasses the data cache (PIPE_S; bounds-checked as GetValue).
template <typename T>
inline T ReadGmByPassDCache(__gm__ T* addr, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  GlobalTensor<T> g;
  g.SetGlobalBuffer(addr);
  return g.GetValue(0, loc);
}
/// Scalar write of GM that bypasses the data cache (PIPE_S; bounds-checked as SetValue).
template <typename T>
inline void WriteGmByPassDCache(__gm__ T* addr, T value, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  GlobalTensor<T> g;
  g.SetGlobalBuffer(addr);
  g.SetValue(0, value, loc);
}

}  // namespace AscendC
