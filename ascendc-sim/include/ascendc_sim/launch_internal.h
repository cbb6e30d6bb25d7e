// ascendc_sim/launch_internal.h — state the launch machinery shares with the APIs.
// Not part of the kernel-facing surface.
#pragma once

#include <cstdint>
#include <vector>

#include "ascendc_sim/core.h"

namespace ascendc_sim {
namespace gm {
struct Snapshot;
}
/// The GM registry snapshot of the launch this thread is running a core of.
extern thread_local const gm::Snapshot* tl_gm_snapshot;
/// Tiling key for the next launches (ICPU_SET_TILING_KEY / set_tiling_key).
void set_tiling_key(uint64_t key);
uint64_t tiling_key();
/// Combines DMA atomic writes into GM in order (launch.cpp; at the end of a launch, and at
/// every SyncAll for the cores that reached it).
void apply_atomic_writes_of(std::vector<CoreContext::AtomicWrite>& writes);
/// Cross-core state of a launch (src/cross_core.cpp).
bool cross_core_used();
CrossCore* cross_core_new(uint32_t block_dim, bool all_live);
void cross_core_delete(CrossCore* x);
void cross_core_start(CoreContext& c, CrossCore* x);
void cross_core_finish(CoreContext& c);
}  // namespace ascendc_sim
