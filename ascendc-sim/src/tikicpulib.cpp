// GmAlloc / GmFree / SetKernelMode and the ICPU_RUN_KF epilogue (tikicpulib.h).
#include "tikicpulib.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ascendc_sim/gm.h"

namespace AscendC {

void* GmAlloc(size_t size) {
  // 512-B aligned like aclrtMalloc (src/acl/memory.cpp): the cost model's burst
  // accounting depends on GM addresses modulo the burst size (<= 512 B).
  size_t bytes = (std::max<size_t>(size, 1) + 511) / 512 * 512;
  void* p = std::aligned_alloc(512, bytes);
  if (!p) return nullptr;
  std::memset(p, 0, bytes);
  ascendc_sim::gm::register_allocation(p, size, ascendc_sim::gm::Origin::GmAlloc);
  return p;
}

void GmFree(void* ptr) {
  if (!ptr) return;
  if (!ascendc_sim::gm::unregister_allocation(ptr)) {
    std::fprintf(stderr, "error[gm_free_invalid] GmFree(%p): not a pointer returned by GmAlloc (or freed twice)\n", ptr);
    return;
  }
  std::free(ptr);
}

void SetKernelMode(KernelMode) {}

}  // namespace AscendC

namespace ascendc_sim {

namespace {
std::mutex g_mu;
bool g_exit_on_error = true;
LaunchResult g_last;
}  // namespace

void set_icpu_exit_on_error(bool e) {
  std::lock_guard<std::mutex> g(g_mu);
  g_exit_on_error = e;
}

LaunchResult last_icpu_result() {
  std::lock_guard<std::mutex> g(g_mu);
  return g_last;
}

bool icpu_finish(const LaunchResult& r) {
  for (const auto& d : r.diagnostics) std::fprintf(stderr, "%s\n", d.to_line().c_str());
  const char* rep = std::getenv("AGENTICCANN_SIM_REPORT");
  if (!r.failed && rep && std::strcmp(rep, "1") == 0) std::fprintf(stderr, "%s\n", r.report.to_text().c_str());
  bool exit_now;
  {
    std::lock_guard<std::mutex> g(g_mu);
    g_last = r;
    exit_now = g_exit_on_error;
  }
  if (r.failed) {
    std::fprintf(stderr, "ICPU_RUN_KF: kernel %s failed\n", r.kernel.c_str());
    std::fflush(stderr);
    if (exit_now) std::exit(1);
  }
  return r.failed;
}

}  // namespace ascendc_sim
