// ascendc_sim/launch.h — host side of a kernel launch on the simulator.
//
// A launch runs `body` once per core, each core with its own GetBlockIdx(), Unified
// Buffer, queues, flags and cost recorder. Cores may run on several host threads;
// results and the report are deterministic. Streams (src/acl/) queue launches
// asynchronously; run_kernel is the synchronous core of both stream launches and
// ICPU_RUN_KF.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_sim/diag.h"
#include "ascendc_sim/report.h"

namespace ascendc_sim {

/// The outcome of one launch.
struct LaunchResult {
  std::string kernel;
  uint32_t block_dim = 0;
  bool failed = false;                   // an error diagnostic stopped at least one core
  std::vector<Diagnostic> diagnostics;   // errors and warnings, sorted by core then order
  cost::LaunchReport report;             // valid when !failed

  std::string to_json() const;
};

/// Runs `body` on `block_dim` simulated cores and waits for all of them. A block_dim
/// of 0 or above the profile's max_block_dim is a launch error diagnostic
/// ("block_dim_invalid"), and `body` does not run.
LaunchResult run_kernel(const std::string& kernel_name, uint32_t block_dim,
                        const std::function<void()>& body);

/// Queues a launch on `stream` (an aclrtStream; nullptr = the default stream) and
/// returns at once, as a kernel launch on the NPU does. Returns an aclError code:
/// 0 on success, an error when the stream is invalid. Implemented in src/acl/.
int launch_async(void* stream, const std::string& kernel_name, uint32_t block_dim,
                 std::function<void()> body);

}  // namespace ascendc_sim
