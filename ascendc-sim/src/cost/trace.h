// src/cost/trace.h — the compact per-core trace the recorder writes and the replay reads.
//
// A core's hooks arrive in issue order. The recorder turns them into Records and merges
// neighbours that the replay would treat identically:
//   - consecutive instructions on the same pipe (V, MTE2 or MTE3) with no sync record
//     between them become one Exec record (count, total work, and the numbers the
//     replay needs to stay exact when the scalar unit, not the pipe, is the bottleneck);
//   - consecutive scalar work and GetValue/SetValue become one Scalar record when the
//     later one needs no pipe drained that the earlier one had not drained already.
// So a scalar loop of millions of GetValue costs one record, and a tile loop costs a
// handful of records per tile. The launch caps the total number of records (see
// LaunchCost; AGENTICCANN_SIM_TRACE_LIMIT) and fails with a clear message beyond it.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "ascendc_sim/cost.h"
#include "tables.h"

namespace ascendc_sim::cost {

// XSignal / XWait: cross-core synchronisation points (CoreRecorder::xsignal / xwait).
// Nothing merges into or across them: the recorder merges only Scalar into Scalar and
// Exec into Exec, and these are neither.
enum class RecKind : uint8_t { Scalar, Exec, Signal, Wait, Barrier, BarrierAll, XSignal, XWait };

/// Bit of a pipe in Record::drain.
constexpr uint8_t pipe_bit(Pipe p) { return uint8_t(1u << unsigned(p)); }

/// One trace record. All times in nanoseconds on the profile's clock.
struct Record {
  RecKind kind = RecKind::Scalar;
  Pipe pipe = Pipe::S;   // Exec: V, MTE2 or MTE3; Signal/Wait/Barrier: the pipe named
  uint8_t drain = 0;     // Scalar: pipes that must be idle before it runs (pipe_bit)
  uint32_t count = 0;    // instructions (or transfers) merged into this record;
                         // XWait: raises of the channel it waits for
  uint64_t key = 0;      // Signal/Wait: SyncKey::value; XSignal/XWait: the channel
  double s_total = 0;    // scalar-unit time spent on this record (issue + scalar work)
  double s_first = 0;    // Exec: scalar time up to the end of the first instruction's issue
  double work = 0;       // Exec V: vector pipe time; Exec MTE: bytes charged to HBM
  double reach = 0;      // Exec: max over merged instr i of (issue end of i + work from i
                         // on, uncontended), relative to the record's scalar start
};

/// Per-core counters that exist whether or not timing is on.
struct CoreCounters {
  uint64_t gm_read_bytes = 0;
  uint64_t gm_write_bytes = 0;
  uint64_t scalar_gm = 0;
  uint64_t scalar_ub = 0;
  uint64_t vector_instrs = 0;
  uint64_t dma_transfers = 0;
};

/// Shared by the recorders of one launch.
struct TraceBudget {
  std::atomic<uint64_t> records{0};
  uint64_t limit = 0;
};

}  // namespace ascendc_sim::cost

namespace ascendc_sim::cost {

struct CoreRecorder::Impl {
  const Profile::Tables* t = nullptr;  // null: recorder not attached to a launch
  bool timing = true;                  // false: AGENTICCANN_SIM_COST=off, counters only
  TraceBudget* budget = nullptr;
  bool overflowed = false;
  /// Records this core's trace needs: counted past an overflow too (the last record is
  /// kept, so merging goes on as without a limit). It depends on the core's own hooks
  /// only, so the overflow report is the same for any host thread count or core order.
  uint64_t needed = 0;
  std::vector<Record> records;
  CoreCounters counters;

  bool push(const Record& r);
  void exec(Pipe pipe, double issue_ns, double work, double uncontended_ns);
  void scalar(double ns, uint8_t drain);
};

}  // namespace ascendc_sim::cost
