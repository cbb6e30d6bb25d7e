// tikicpulib.h — the CPU-debug harness of CANN (api-reference §7), on the simulator.
//
//   uint8_t* x = (uint8_t*)AscendC::GmAlloc(bytes);   // registered as device memory
//   AscendC::SetKernelMode(KernelMode::AIV_MODE);
//   ICPU_SET_TILING_KEY(1);                            // optional, for TILING_KEY_IS
//   ICPU_RUN_KF(add_custom, blockDim, x, y, z);        // synchronous
//   AscendC::GmFree(x);
//
// ICPU_RUN_KF runs all cores and prints every diagnostic to stderr, one line each.
// When a core failed it prints "ICPU_RUN_KF: kernel <name> failed" and exits the process
// with status 1, as the CANN harness aborts; call ascendc_sim::set_icpu_exit_on_error(false)
// to return instead and read ascendc_sim::last_icpu_result(). Set AGENTICCANN_SIM_REPORT=1
// to print the cost report after each run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ascendc_sim/kernel_launch.h"
#include "ascendc_sim/launch_internal.h"
#include "ascendc_sim/types.h"

namespace AscendC {
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };
/// Allocates `size` bytes of simulated GM (64-byte aligned, zero-filled), registered as
/// device memory so kernel accesses are bounds-checked against it.
void* GmAlloc(size_t size);
/// Frees a GmAlloc block; a pointer GmAlloc did not return is reported on stderr.
void GmFree(void* ptr);
/// Recorded only: the simulator runs vector (AIV) kernels.
void SetKernelMode(KernelMode mode);
}  // namespace AscendC
using AscendC::KernelMode;

namespace ascendc_sim {
/// Prints the result's diagnostics (and the report with AGENTICCANN_SIM_REPORT=1); on
/// failure exits with status 1 unless disabled. Returns result.failed.
bool icpu_finish(const LaunchResult& result);
void set_icpu_exit_on_error(bool exit_on_error);
/// The result of the last ICPU_RUN_KF on any thread.
LaunchResult last_icpu_result();

template <class... P, class... A>
inline bool icpu_run(void (*fn)(P...), const char* name, uint32_t block_dim, A&&... args) {
  return icpu_finish(run_kernel_fn(fn, name, block_dim, std::forward<A>(args)...));
}
}  // namespace ascendc_sim

#define ICPU_RUN_KF(func, blockDim, ...) \
  ((void)::ascendc_sim::icpu_run(&func, #func, (blockDim)__VA_OPT__(, ) __VA_ARGS__))
#define ICPU_SET_TILING_KEY(key) (::ascendc_sim::set_tiling_key(static_cast<uint64_t>(key)))
