// src/cost/engine.h — the replay: per-core pipe timelines and shared HBM, over time.
//
// Input: one trace per block (trace.h), the profile tables and the number of physical
// cores. Blocks start on cores in index order; a block beyond the core count starts
// when a core frees (waves). Per block, the scalar unit walks the trace in order and
// issues each record to its pipe; each of V, MTE2, MTE3 runs its instructions in order,
// an instruction starting at max(its issue, the pipe free, the flags it waits for).
// DMA transfers share HBM bandwidth with every transfer in flight on any core at that
// moment (max-min fair share of peak x efficiency, each capped by its core's MTE
// bandwidth), so the replay is a discrete-event simulation in global time. It is
// single-threaded and processes simultaneous events in core order: the same traces
// always give the same result, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "tables.h"
#include "trace.h"

namespace ascendc_sim::cost {

/// What happened on one physical core (all blocks it ran). Times in ns from the
/// start of the launch (launch overhead not included).
struct CoreTimeline {
  double end_ns = 0;                   // when its last block finished (0 if it ran none)
  double busy_ns[kPipeCount] = {0, 0, 0, 0};  // per pipe, summed over its blocks
  uint32_t blocks = 0;                 // blocks it ran
};

struct ReplayResult {
  std::vector<CoreTimeline> cores;     // one per physical core used
  double end_ns = 0;                   // latest core end
  double hbm_bytes = 0;                // bytes charged to HBM (bursts included)
};

/// Replays `blocks` (trace of block i at index i) on `physical_cores` cores.
/// Throws std::logic_error if the traces cannot be replayed (a recorder bug).
ReplayResult replay(const Profile::Tables& t, uint32_t physical_cores,
                    const std::vector<const std::vector<Record>*>& blocks);

}  // namespace ascendc_sim::cost
