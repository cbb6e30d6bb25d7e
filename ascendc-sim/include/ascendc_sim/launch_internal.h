// ascendc_sim/launch_internal.h — state the launch machinery shares with the APIs.
// Not part of the kernel-facing surface.
#pragma once

#include <cstdint>

namespace ascendc_sim {
namespace gm {
struct Snapshot;
}
/// The GM registry snapshot of the launch this thread is running a core of.
extern thread_local const gm::Snapshot* tl_gm_snapshot;
/// Tiling key for the next launches (ICPU_SET_TILING_KEY / set_tiling_key).
void set_tiling_key(uint64_t key);
uint64_t tiling_key();
}  // namespace ascendc_sim
