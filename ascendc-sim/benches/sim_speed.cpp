// Simulation speed: how many elements per second of wall time the simulator processes.
//  1. fp16 element-wise add of 16 Mi elements on 48 simulated cores (tests/kernels/add_custom.cpp)
//  2. RMSNorm fp16 [2048, 4096] on 48 cores (tests/kernels/rms_norm.cpp)
// Built and run by benches/sim_speed.rs (`cargo bench -p ascendc-sim`). Prints one line per
// case: name, elements, best wall time of `reps` runs, elements/s, and the modelled NPU time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tikicpulib.h"

struct AddTiling {
  uint32_t totalLength;
  uint32_t tileLength;
};
struct RmsNormRowsTiling {
  uint32_t rows;
  uint32_t cols;
  float eps;
};
extern "C" void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling);
extern "C" void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RmsNormRowsTiling tiling);

template <class F>
static void bench(const char* name, double elements, int reps, F&& run) {
  double best = 1e30;
  ascendc_sim::LaunchResult last;
  for (int i = 0; i < reps; i++) {
    auto t0 = std::chrono::steady_clock::now();
    last = run();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  if (last.failed) {
    for (auto& d : last.diagnostics) std::fprintf(stderr, "%s\n", d.to_line().c_str());
    std::exit(1);
  }
  std::printf("%-28s %12.0f elements  %8.3f s  %10.3e elements/s  (modelled NPU time %.1f us)\n", name, elements, best,
              elements / best, last.report.total_us);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  {
    const uint32_t n = 16u << 20;
    auto* x = static_cast<half*>(AscendC::GmAlloc(n * 2));
    auto* y = static_cast<half*>(AscendC::GmAlloc(n * 2));
    auto* z = static_cast<half*>(AscendC::GmAlloc(n * 2));
    for (uint32_t i = 0; i < n; i++) {
      x[i] = half(float(i % 1000) * 0.001f);
      y[i] = half(1.0f);
    }
    bench("add fp16 16Mi x 48 cores", n, reps,
          [&] { return ascendc_sim::run_kernel_fn(add_custom, "add_custom", 48, x, y, z, AddTiling{n, 8192}); });
  }
  {
    const uint32_t rows = 2048, cols = 4096;
    auto* x = static_cast<half*>(AscendC::GmAlloc(size_t(rows) * cols * 2));
    auto* g = static_cast<half*>(AscendC::GmAlloc(cols * 2));
    auto* y = static_cast<half*>(AscendC::GmAlloc(size_t(rows) * cols * 2));
    for (size_t i = 0; i < size_t(rows) * cols; i++) x[i] = half(float(i % 251) * 0.01f - 1.0f);
    for (uint32_t i = 0; i < cols; i++) g[i] = half(1.0f);
    bench("rms_norm fp16 [2048,4096] x 48", double(rows) * cols, reps, [&] {
      return ascendc_sim::run_kernel_fn(rms_norm, "rms_norm", 48, x, g, y, RmsNormRowsTiling{rows, cols, 1e-6f});
    });
  }
  return 0;
}
