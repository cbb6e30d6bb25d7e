// ascendc_sim/atomic.h — DMA atomics: SetAtomicAdd / SetAtomicMax / SetAtomicMin /
// SetAtomicNone (9.x: DisableDmaAtomic). While set, UB->GM DataCopy/DataCopyPad combine
// with GM (GM = GM op UB, in the element type) instead of overwriting it, as multi-core
// reductions use them. The simulator applies the combined writes when the launch ends, core
// by core in order (deterministic); a kernel must not read back, within the same launch,
// GM it accumulated into (on the NPU other cores' contributions are not ordered either).
// Types: float, half, bfloat16_t, int32_t, int16_t, int8_t.
#pragma once

#include "ascendc_sim/core.h"
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
}  // namespace AscendC
