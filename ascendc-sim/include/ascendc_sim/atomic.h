// ascendc_sim/atomic.h — DMA atomics: SetAtomicAdd / SetAtomicMax / SetAtomicMin /
// SetAtomicNone (9.x: DisableDmaAtomic). While set, UB->GM DataCopy/DataCopyPad combine
// with GM (GM = GM op UB, in the element type) instead of overwriting it, as multi-core
// reductions use them. The simulator applies the combined writes when the launch ends, core
// by core in order (deterministic), and at every completed SyncAll for the cores that
// reached it (cross_core.h), so a read after the barrier sees the combined values; without
// a SyncAll a kernel must not read back GM it accumulated into.
// Types: float, half, bfloat16_t, int32_t, int16_t, int8_t.
#pragma once

#include <cstring>

#include "ascendc_sim/core.h"
#include "ascendc_sim/tensor.h"
#include "ascendc_sim/types.h"

namespace ascendc_sim {
template <typename T>
inline void set_atomic(CoreContext::Atomic op, const char* api) {
  static_assert(is_one_of_v<T, float, half, bfloat16_t, int32_t, int16_t, int8_t>,
                "DMA atomics support float, half, bfloat16_t, int32_t, int16_t, int8_t");
  CoreContext& c = ctx(api);
  c.atomic = op;
  c.atomic_dtype = dtype_v<T>;
}
}  // namespace ascendc_sim

namespace AscendC {
template <typename T>
inline void SetAtomicAdd() {
  ascendc_sim::set_atomic<T>(ascendc_sim::CoreContext::Atomic::Add, "SetAtomicAdd");
}
template <typename T>
inline void SetAtomicMax() {
  ascendc_sim::set_atomic<T>(ascendc_sim::CoreContext::Atomic::Max, "SetAtomicMax");
}
template <typename T>
inline void SetAtomicMin() {
  ascendc_sim::set_atomic<T>(ascendc_sim::CoreContext::Atomic::Min, "SetAtomicMin");
}
inline void SetAtomicNone() { ascendc_sim::ctx("SetAtomicNone").atomic = ascendc_sim::CoreContext::Atomic::None; }
inline void DisableDmaAtomic() { SetAtomicNone(); }

/// Fills `size` elements of GM with `value` (what kernels do before accumulating into GM
/// with SetAtomicAdd). Bounds-checked against the host allocation; costed as one MTE3 copy.
template <typename T>
inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value,
                             ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  auto& c = ascendc_sim::ctx("InitGlobalMemory");
  if (size == 0) return;
  ascendc_sim::check_gm(gmWorkspaceAddr.addr_, size * sizeof(T), true, "InitGlobalMemory", loc);
  for (uint64_t i = 0; i < size; i++) std::memcpy(gmWorkspaceAddr.addr_ + i, &value, sizeof(T));
  ascendc_sim::note_gm_write(c, gmWorkspaceAddr.addr_, size * sizeof(T), "InitGlobalMemory", loc);
  c.rec->dma(ascendc_sim::Pipe::MTE3, uint64_t(reinterpret_cast<uintptr_t>(gmWorkspaceAddr.addr_)), 1, size * sizeof(T),
             size * sizeof(T));
}

/// Tensor dumps of CANN's debug tooling: accepted, nothing is printed.
template <typename T>
inline void DumpTensor(const LocalTensor<T>&, uint32_t, uint32_t) {}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>&, uint32_t, uint32_t) {}
}  // namespace AscendC
