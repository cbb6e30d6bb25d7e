// ascendc_sim/tensor.h — TPosition, GlobalTensor<T> and LocalTensor<T> (api-reference §2.1–2.3).
//
// A GlobalTensor is a typed pointer into host-allocated "device" memory; every access
// through the API is checked against the host allocation registry (gm.h), never against
// the size the kernel declared in SetGlobalBuffer (FC-06).
// A LocalTensor names bytes of the current core's Unified Buffer: a UB byte offset, an
// element count, and the buffer (and its generation) it was handed out from, so that a
// use after FreeTensor is detected.
#pragma once

#include <cstdint>
#include <source_location>
#include <type_traits>

#include "ascendc_sim/core.h"
#include "ascendc_sim/types.h"

namespace AscendC {

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM,
  SPM,
  SHM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX
};
using QuePosition = TPosition;
using TTagType = int32_t;

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };

/// Shape information attached to tensors; recorded, not used by the simulator.
struct ShapeInfo {
  uint8_t shapeDim = 0;
  uint8_t originalShapeDim = 0;
  uint32_t shape[8] = {};
  uint32_t originalShape[8] = {};
  uint8_t dataFormat = 0;
};

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;
  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    addr_ = buffer;
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T* buffer) {
    addr_ = buffer;
    size_ = 0;
  }
  /// Scalar read on PIPE_S through the data cache.
  T GetValue(const uint64_t offset, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) const {
    auto& c = ascendc_sim::ctx("GlobalTensor::GetValue");
    ascendc_sim::check_gm(addr_ + offset, sizeof(T), false, "GlobalTensor::GetValue", loc);
    ascendc_sim::gm_scalar_read(c, addr_ + offset, sizeof(T), "GlobalTensor::GetValue", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::GM, false);
    T v;
    std::memcpy(&v, addr_ + offset, sizeof(T));
    return v;
  }
  /// Scalar write on PIPE_S through the data cache.
  void SetValue(const uint64_t offset, T value, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("GlobalTensor::SetValue");
    ascendc_sim::check_gm(addr_ + offset, sizeof(T), true, "GlobalTensor::SetValue", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::GM, true);
    std::memcpy(addr_ + offset, &value, sizeof(T));
    ascendc_sim::note_gm_write(c, addr_ + offset, sizeof(T), "GlobalTensor::SetValue", loc);
    ascendc_sim::dcache_note_write(c, addr_ + offset, sizeof(T), loc);
  }
  /// Reference to one element (bounds-checked against the host allocation).
  __gm__ T& operator()(const uint64_t offset, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) const {
    auto& c = ascendc_sim::ctx("GlobalTensor::operator()");
    ascendc_sim::check_gm(addr_ + offset, sizeof(T), false, "GlobalTensor::operator()", loc);
    ascendc_sim::gm_scalar_read(c, addr_ + offset, sizeof(T), "GlobalTensor::operator()", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::GM, false);
    return addr_[offset];
  }
  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor r = *this;
    r.addr_ = addr_ + offset;
    r.size_ = size_ > offset ? size_ - offset : 0;
    return r;
  }
  const __gm__ T* GetPhyAddr() const { return addr_; }
  __gm__ T* GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
  uint64_t GetSize() const { return size_; }
  void SetShapeInfo(const ShapeInfo& s) { shape_ = s; }
  ShapeInfo GetShapeInfo() const { return shape_; }
  void SetL2CacheHint(CacheMode) {}

  // Simulator state (public so that the API templates can reach it).
  T* addr_ = nullptr;
  uint64_t size_ = 0;
  ShapeInfo shape_{};
};

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;
  /// A tensor of `tileSize` elements at UB byte address `addr` (static-tensor
  /// programming without TPipe/TQue): no queue, no synchronisation — order the pipes with
  /// SetFlag/WaitFlag. `addr` must be 32-byte aligned and the tensor inside UB.
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
              ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("LocalTensor");
    ascendc_sim::UbRef r =
        ascendc_sim::static_region(c, uint8_t(pos), addr, ascendc_sim::bytes_for<T>(tileSize), "LocalTensor", loc);
    addr_ = r.addr;
    size_ = tileSize;
    buf_ = r.buf;
    gen_ = r.gen;
    pos_ = pos;
  }

  /// Scalar read of element `index` on PIPE_S. Reading never-written UB is an error.
  T GetValue(const uint32_t index, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) const {
    static_assert(ascendc_sim::elem_bits<T> >= 8, "GetValue: int4b_t elements are not scalar-addressable in the simulator");
    auto& c = ascendc_sim::ctx("LocalTensor::GetValue");
    uint32_t lo = elem(index);
    ascendc_sim::check_operand(c, ref(), lo, lo + sizeof(T), 1, "tensor",
                               "LocalTensor::GetValue", loc);
    ascendc_sim::check_initialized(c, lo, lo + sizeof(T), "element", "LocalTensor::GetValue", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::UB, false, ascendc_sim::hz_scalar(c, lo, lo + sizeof(T), false));
    T v;
    std::memcpy(&v, c.ub + lo, sizeof(T));
    return v;
  }
  /// Scalar write of element `index` on PIPE_S.
  template <typename S>
  void SetValue(const uint32_t index, const S value, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) const {
    static_assert(!std::is_same_v<T, bfloat16_t> || std::is_same_v<S, bfloat16_t>,
                  "SetValue on a bfloat16_t tensor needs a bfloat16_t value: scalar conversions to bf16 do not "
                  "compile for the NPU (FC-28); use AscendC::ToBfloat16");
    static_assert(ascendc_sim::elem_bits<T> >= 8, "SetValue: int4b_t elements are not scalar-addressable in the simulator");
    auto& c = ascendc_sim::ctx("LocalTensor::SetValue");
    uint32_t lo = elem(index);
    ascendc_sim::check_operand(c, ref(), lo, lo + sizeof(T), 1, "tensor", "LocalTensor::SetValue", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::UB, true, ascendc_sim::hz_scalar(c, lo, lo + sizeof(T), true));
    T v = static_cast<T>(value);
    std::memcpy(c.ub + lo, &v, sizeof(T));
    ascendc_sim::mark_init(c, lo, lo + sizeof(T));
  }
  /// Reference to element `offset` (treated as a scalar write: the bytes count as
  /// initialized from here on).
  __ubuf__ T& operator()(const uint32_t offset, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) const {
    static_assert(ascendc_sim::elem_bits<T> >= 8, "operator(): int4b_t elements are not scalar-addressable in the simulator");
    auto& c = ascendc_sim::ctx("LocalTensor::operator()");
    uint32_t lo = elem(offset);
    ascendc_sim::check_operand(c, ref(), lo, lo + sizeof(T), 1, "tensor", "LocalTensor::operator()", loc);
    c.rec->scalar_access(ascendc_sim::ScalarTarget::UB, true, ascendc_sim::hz_scalar(c, lo, lo + sizeof(T), true));
    ascendc_sim::mark_init(c, lo, lo + sizeof(T));
    return *reinterpret_cast<T*>(c.ub + lo);
  }
  /// Sub-tensor starting `offset` elements in. Vector APIs need it 32-byte aligned.
  LocalTensor operator[](const uint32_t offset) const {
    LocalTensor r = *this;
    r.addr_ = addr_ + uint32_t(ascendc_sim::bytes_for<T>(offset));  // int4b_t: an odd offset is mid-byte
    r.size_ = size_ > offset ? size_ - offset : 0;
    return r;
  }
  uint32_t GetSize() const { return size_; }
  /// Length in bytes.
  uint32_t GetLength() const { return uint32_t(ascendc_sim::bytes_for<T>(size_)); }
  void SetSize(const uint32_t size) { size_ = size; }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> r;
    r.addr_ = addr_;
    r.size_ = uint32_t(uint64_t(size_) * ascendc_sim::elem_bits<T> / ascendc_sim::elem_bits<U>);
    r.buf_ = buf_;
    r.gen_ = gen_;
    r.pos_ = pos_;
    r.tag_ = tag_;
    return r;
  }
  /// The element's host address (the simulated UB lives in host memory).
  uint64_t GetPhyAddr() const { return GetPhyAddr(0); }
  uint64_t GetPhyAddr(const uint32_t offset) const {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    return c ? uint64_t(reinterpret_cast<uintptr_t>(c->ub + addr_ + ascendc_sim::bytes_for<T>(offset))) : 0;
  }
  int32_t GetPosition() const { return int32_t(pos_); }
  void SetUserTag(const TTagType tag) { tag_ = tag; }
  TTagType GetUserTag() const { return tag_; }
  void SetShapeInfo(const ShapeInfo&) {}

  ascendc_sim::UbRef ref() const { return ascendc_sim::UbRef{addr_, buf_, gen_}; }
  /// UB byte offset of element `index`, saturated so that a huge index fails the range
  /// check instead of wrapping around.
  uint32_t elem(uint32_t index) const {
    uint64_t o = uint64_t(addr_) + uint64_t(index) * sizeof(T);
    return o > 0xFFFFFFF0ull ? 0xFFFFFFF0u : uint32_t(o);
  }

  // Simulator state.
  uint32_t addr_ = 0;  // byte offset in UB
  uint32_t size_ = 0;  // elements
  int32_t buf_ = -1;   // BufRec index; -1 = never allocated
  uint32_t gen_ = 0;
  TPosition pos_ = TPosition::VECCALC;
  TTagType tag_ = 0;
};

}  // namespace AscendC
