// Host harness in the CANN CPU-debug style (tikicpulib.h): GmAlloc, SetKernelMode,
// ICPU_RUN_KF, GmFree. Built by tests/plain_gxx.rs with the one documented compiler line:
//   g++ -std=c++20 -I ascendc-sim/include ascendc-sim/tests/kernels/add_custom.cpp \
//       ascendc-sim/tests/harness/add_main.cpp ascendc-sim/src/*.cpp ascendc-sim/src/*/*.cpp -lpthread
// Exit status 0 when every element matches fp16(x + y).
#include <cstdio>
#include <cstdlib>

#include "tikicpulib.h"

struct AddTiling {
  uint32_t totalLength;
  uint32_t tileLength;
};
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling);

int main(int argc, char** argv) {
  uint32_t n = argc > 1 ? uint32_t(std::atoi(argv[1])) : 4097;
  uint32_t blocks = argc > 2 ? uint32_t(std::atoi(argv[2])) : 7;
  size_t bytes = n * sizeof(half);
  auto* x = static_cast<half*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<half*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<half*>(AscendC::GmAlloc(bytes));
  for (uint32_t i = 0; i < n; i++) {
    x[i] = static_cast<half>(float(i % 97) * 0.25f);
    y[i] = static_cast<half>(1.0f - float(i % 13) * 0.125f);
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(add_custom, blocks, x, y, z, AddTiling{n, 1024});
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    half want = static_cast<half>(float(x[i]) + float(y[i]));
    if (z[i] != want && bad++ < 5) std::printf("z[%u] = %g, want %g\n", i, double(z[i]), double(want));
  }
  ascendc_sim::LaunchResult r = ascendc_sim::last_icpu_result();
  std::printf("%u mismatches; %s\n", bad, r.report.to_text().c_str());
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  return bad == 0 ? 0 : 1;
}
