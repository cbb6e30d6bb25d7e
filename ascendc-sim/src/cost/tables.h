// src/cost/tables.h — the cost model's parameters, as loaded from a profile file.
//
// Profile::Tables is declared in profile.h and defined here; only src/cost/ sees it.
// Units are in the names: _ns nanoseconds, _cycles AIV core clock cycles, _gbps
// GB/s (1e9 bytes per second, which is also bytes per nanosecond), _bytes bytes.
// The meaning and source of every value is in the shipped profile files
// (ascendc-sim/profiles/*.toml); profile.cpp validates ranges.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ascendc_sim/cost.h"
#include "ascendc_sim/profile.h"

namespace ascendc_sim::cost {

inline constexpr int kVecClassCount = int(VecClass::Count_);

/// Index of an element width in the per-class tables: 1, 2, 4, 8 bytes -> 0..3.
constexpr int width_index(uint32_t bytes) {
  return bytes <= 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
}

struct Profile::Tables {
  // [soc]
  double clock_ghz = 0;  // AIV clock: cycles per nanosecond

  // [launch]
  double launch_overhead_us = 0;  // fixed cost of one kernel launch
  double block_start_ns = 0;      // cost of starting one block on a core

  // [hbm]
  double hbm_peak_gbps = 0;   // peak HBM bandwidth of the SoC (the roofline)
  double hbm_efficiency = 0;  // fraction of the peak all DMA engines together sustain

  // [dma]
  double mte_core_gbps[2] = {0, 0};     // per-core cap, [0] = MTE2 (GM->UB), [1] = MTE3
  double mte_startup_ns[2] = {0, 0};    // fixed pipe occupancy per transfer
  double mte_latency_ns[2] = {0, 0};    // data lands this long after the pipe is done
  uint32_t burst_bytes = 0;             // GM access granularity
  double dma_issue_cycles = 0;          // scalar cycles to issue one DataCopy

  // [vector]
  double vec_issue_cycles = 0;    // scalar cycles to issue one vector instruction
  double vec_startup_cycles = 0;  // vector pipe cycles per instruction before repeats
  double mask_setup_cycles = 0;   // scalar cycles of a count-form call's mask set-up
  /// Elements per cycle, by class and element width (width_index); every entry is
  /// filled (missing widths derived at load time, see profile.cpp).
  std::array<std::array<double, 4>, kVecClassCount> elements_per_cycle{};

  // [scalar]
  double scalar_cpi = 0;       // cycles per plain scalar instruction
  double sync_cycles = 0;      // scalar cycles to issue a flag set/wait (queue hand-off)
  double barrier_cycles = 0;   // scalar cycles to issue a PipeBarrier
  double ub_read_cycles = 0;   // LocalTensor::GetValue incl. its implied sync
  double ub_write_cycles = 0;  // LocalTensor::SetValue incl. its implied sync
  double gm_read_cycles = 0;   // GlobalTensor::GetValue through the DCache (average)
  double gm_write_cycles = 0;  // GlobalTensor::SetValue through the DCache (average)

  /// Vector pipe cycles of one repeat of class `cls` on elements of `dtype`.
  double cycles_per_repeat(VecClass cls, DType dtype) const;
  /// Cycles to nanoseconds on this SoC's clock.
  double ns(double cycles) const { return cycles / clock_ghz; }
};

/// Name of a vector class as written in profile keys, e.g. "simple", "whole_reduce".
const char* vec_class_key(VecClass cls);

/// The tables of `p`; throws std::logic_error when `p` was not loaded by load_profile.
const Profile::Tables& tables_of(const Profile& p);

}  // namespace ascendc_sim::cost
