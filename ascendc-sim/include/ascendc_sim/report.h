// ascendc_sim/report.h — what the cost model says about one kernel launch.
#pragma once

#include <cstdint>
#include <string>

#include "ascendc_sim/cost.h"

namespace ascendc_sim::cost {

/// What bounds a launch: the pipe whose busy time (on the slowest core) is closest
/// to the kernel time, or the launch overhead when the kernel body is negligible.
enum class Bound : uint8_t { MTE2, V, MTE3, Scalar, Launch };

/// Name of a bound as printed and serialized: "MTE2", "V", "MTE3", "scalar", "launch".
const char* bound_name(Bound b);

/// The cost model's account of one launch. Times in microseconds (µs), bytes in
/// bytes, bandwidth in GB/s (1e9 bytes per second).
struct LaunchReport {
  std::string kernel;            // kernel function name
  std::string soc;               // profile name, e.g. "Ascend910B1"
  uint32_t block_dim = 0;        // blocks launched
  uint32_t physical_cores = 0;   // AIV cores of the SoC
  double total_us = 0;           // modelled kernel time: slowest core + launch overhead
  double launch_overhead_us = 0; // fixed per-launch cost from the profile
  double floor_us = 0;           // physical floor: GM bytes / peak HBM bandwidth + launch
  /// Busy time per pipe on the slowest core, indexed by Pipe (S, V, MTE2, MTE3).
  double pipe_busy_us[kPipeCount] = {0, 0, 0, 0};
  /// pipe_busy_us / (total_us - launch_overhead_us), per pipe, in [0, 1].
  double pipe_utilisation[kPipeCount] = {0, 0, 0, 0};
  uint64_t gm_read_bytes = 0;    // bytes moved GM->UB (MTE2) over all cores
  uint64_t gm_write_bytes = 0;   // bytes moved UB->GM (MTE3) over all cores
  uint64_t scalar_gm_accesses = 0; // GetValue/SetValue on GM over all cores
  uint64_t scalar_ub_accesses = 0; // GetValue/SetValue on UB over all cores
  double achieved_gbps = 0;      // (read + write bytes) / (total_us - launch overhead)
  double roofline_fraction = 0;  // floor_us / total_us, in (0, 1]
  Bound bound = Bound::Launch;
  double core_min_us = 0;        // fastest core's finish time (without launch overhead)
  double core_max_us = 0;        // slowest core's finish time (without launch overhead)
  double imbalance = 0;          // core_max_us / mean core time - 1 (0 = balanced)
  // Added by the cost model (cost branch); same conventions as above.
  bool cost_accounting = true;   // false: AGENTICCANN_SIM_COST=off — only the byte and
                                 // access counts are filled, every time is 0
  uint64_t hbm_bytes = 0;        // bytes charged to HBM: GM bytes rounded out to whole
                                 // bursts (>= gm_read_bytes + gm_write_bytes)
  uint64_t dma_transfers = 0;    // DataCopy/DataCopyPad transfers over all cores
  uint64_t vector_instrs = 0;    // vector instructions over all cores
  uint32_t cores_used = 0;       // physical cores that ran at least one block

  /// One JSON object (stable field names, the ones above).
  std::string to_json() const;
  /// A short human-readable block (several lines) for terminals and logs.
  std::string to_text() const;
};

}  // namespace ascendc_sim::cost
