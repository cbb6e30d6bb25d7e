// ascendc_sim/local_mem.h — LocalMemAllocator: static-tensor programming without TPipe.
//
// Facts (CANN Ascend C API reference, "LocalMemAllocator"): `template <Hardware hard =
// Hardware::UB> class LocalMemAllocator` hands out LocalTensors one after another from the
// start of the physical memory: `Alloc<T, N>()`, `Alloc<pos, T, N>()`, `Alloc<T>(n)`,
// `Alloc<pos, T>(n)` (N, n in elements); `GetCurAddr()` is the next free byte address.
// Only one allocator per physical memory may exist in a kernel, and it must not be mixed
// with TPipe. The simulator rounds each tensor up to 32 bytes so the next one stays aligned
// (vector operands must start on 32-byte boundaries, api-reference §0.3); a tensor past the
// UB is `ub_capacity_exceeded`; a second allocator on a core is `pipe_ub_alias` (warning),
// as its tensors alias the first one's. An AIV core has only UB: other Hardware values do
// not compile.
#pragma once

#include <cstdint>

#include "ascendc_sim/core.h"
#include "ascendc_sim/tensor.h"

namespace AscendC {

/// Physical memories (CANN `Hardware` enum).
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };


template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
  static_assert(hard == Hardware::UB, "LocalMemAllocator: an AIV core has only the Unified Buffer (Hardware::UB)");

 public:
  explicit LocalMemAllocator(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    ascendc_sim::note_mem_allocator(ascendc_sim::ctx("LocalMemAllocator"), loc);
  }
  /// Next free UB byte address.
  uint32_t GetCurAddr() const { return cur_; }

  template <class T, uint32_t tileSize>
  LocalTensor<T> Alloc(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return take<T>(TPosition::VECCALC, tileSize, loc);
  }
  template <TPosition pos, class T, uint32_t tileSize>
  LocalTensor<T> Alloc(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return take<T>(pos, tileSize, loc);
  }
  template <class T>
  LocalTensor<T> Alloc(uint32_t tileSize, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return take<T>(TPosition::VECCALC, tileSize, loc);
  }
  template <TPosition pos, class T>
  LocalTensor<T> Alloc(uint32_t tileSize, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return take<T>(pos, tileSize, loc);
  }

 private:
  template <class T>
  LocalTensor<T> take(TPosition pos, uint32_t n, const ascendc_sim::SrcLoc& loc) {
    auto& c = ascendc_sim::ctx("LocalMemAllocator::Alloc");
    uint64_t bytes = ascendc_sim::bytes_for<T>(n);
    ascendc_sim::UbRef r = ascendc_sim::static_region(c, uint8_t(pos), cur_, bytes, "LocalMemAllocator::Alloc", loc);
    LocalTensor<T> t;
    t.addr_ = r.addr;
    t.size_ = n;
    t.buf_ = r.buf;
    t.gen_ = r.gen;
    t.pos_ = pos;
    cur_ = uint32_t((uint64_t(cur_) + bytes + 31) / 32 * 32);
    return t;
  }
  uint32_t cur_ = 0;
};

}  // namespace AscendC
