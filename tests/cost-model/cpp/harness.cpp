// harness.cpp — host side of the cost model's kernel-level tests.
//
// One C entry point, cm_run(experiment, params, n, out, cap): allocates GM with
// AscendC::GmAlloc, fills the inputs with a fixed pseudo-random pattern, launches the
// experiment's kernel(s) synchronously with ascendc_sim::run_kernel_fn, checks the
// outputs against a host reference, and writes
//   {"check":"ok"|"<what was wrong>","wall_s":[host seconds per launch],
//    "results":[LaunchResult JSON, ...]}
// to `out`. Returns the JSON length, or -(needed bytes) when `cap` is too small, or -1
// for an unknown experiment. Not thread-safe (the Rust side serialises calls).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ascendc_sim/kernel_launch.h"
#include "tikicpulib.h"
#include "../kernels/tiling.h"

extern "C" {
void add_f16(GM_ADDR x, GM_ADDR y, GM_ADDR z, ElemTiling tiling);
void copy_f16(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void exp_ln_chain(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void abs_vector(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void abs_scalar(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void rmsnorm_fused(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RowTiling tiling);
void eager_square(GM_ADDR x, GM_ADDR y, RowTiling t);
void eager_row_mean(GM_ADDR sq, GM_ADDR ms, RowTiling t);
void eager_adds(GM_ADDR x, GM_ADDR y, RowTiling t);
void eager_rsqrt(GM_ADDR x, GM_ADDR y, RowTiling t);
void eager_mul_rows(GM_ADDR x, GM_ADDR r, GM_ADDR y, RowTiling t);
void eager_mul_gamma(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RowTiling t);
}

namespace {

using ascendc_sim::LaunchResult;

/// GM buffer owned by the harness.
struct Gm {
  uint8_t* p = nullptr;
  size_t bytes = 0;
  explicit Gm(size_t n) : p(static_cast<uint8_t*>(AscendC::GmAlloc(n))), bytes(n) {}
  ~Gm() { AscendC::GmFree(p); }
  Gm(const Gm&) = delete;
  Gm& operator=(const Gm&) = delete;
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(p);
  }
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/// Deterministic values in [-2, 2).
float pattern(uint64_t seed, uint64_t i) { return float(mix(seed * 0x9e3779b97f4a7c15ull + i) % 4096) / 1024.0f - 2.0f; }

template <class T>
void fill(Gm& g, uint64_t seed) {
  T* v = g.as<T>();
  for (size_t i = 0; i < g.bytes / sizeof(T); i++) v[i] = T(pattern(seed, i));
}

struct Outcome {
  std::vector<LaunchResult> results;
  std::vector<double> wall_s;  // host wall time of each launch (simulation + cost model)
  double event_ms = -1;        // aclrtEventElapsedTime around the launches, when measured
  std::string check = "ok";
  template <class... A>
  void launch(A&&... a) {
    auto t0 = std::chrono::steady_clock::now();
    results.push_back(ascendc_sim::run_kernel_fn(std::forward<A>(a)...));
    wall_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  void expect(bool ok, const std::string& what) {
    if (!ok && check == "ok") check = what;
  }
};

uint32_t arg(const uint64_t* p, size_t n, size_t i, uint32_t fallback) { return i < n ? uint32_t(p[i]) : fallback; }

Outcome run_add(const uint64_t* p, size_t np) {
  uint32_t n = arg(p, np, 0, 1 << 20), bd = arg(p, np, 1, 48), tile = arg(p, np, 2, 8192);
  uint32_t bufs = arg(p, np, 3, 2), tail = arg(p, np, 4, 0);
  Gm x(size_t(n) * 2), y(size_t(n) * 2), z(size_t(n) * 2);
  fill<half>(x, 1);
  fill<half>(y, 2);
  ElemTiling t{n, tile, tail, 0, bufs};
  Outcome o;
  o.launch(add_f16, "add_f16", bd, x.p, y.p, z.p, t);
  for (uint32_t i = 0; i < n; i++) {
    half want = half(float(x.as<half>()[i]) + float(y.as<half>()[i]));
    if (z.as<half>()[i] != want) {
      o.expect(false, "add: z[" + std::to_string(i) + "] wrong");
      break;
    }
  }
  return o;
}

Outcome run_copy(const uint64_t* p, size_t np) {
  uint32_t n = arg(p, np, 0, 1 << 20), bd = arg(p, np, 1, 1), tile = arg(p, np, 2, 8192);
  Gm x(size_t(n) * 2), y(size_t(n) * 2);
  fill<half>(x, 3);
  ElemTiling t{n, tile, 0, 0, 2};
  Outcome o;
  o.launch(copy_f16, "copy_f16", bd, x.p, y.p, t);
  o.expect(std::memcmp(x.p, y.p, x.bytes) == 0, "copy: output differs from input");
  return o;
}

Outcome run_exp_ln(const uint64_t* p, size_t np) {
  uint32_t n = arg(p, np, 0, 1 << 20), bd = arg(p, np, 1, 48), tile = arg(p, np, 2, 4096);
  uint32_t rounds = arg(p, np, 3, 4), tail = arg(p, np, 4, 0);
  Gm x(size_t(n) * 4), y(size_t(n) * 4);
  fill<float>(x, 4);
  ElemTiling t{n, tile, tail, rounds, 2};
  Outcome o;
  o.launch(exp_ln_chain, "exp_ln_chain", bd, x.p, y.p, t);
  for (uint32_t i = 0; i < n; i++) {
    if (std::fabs(y.as<float>()[i] - x.as<float>()[i]) > 1e-3f) {
      o.expect(false, "exp_ln_chain: y[" + std::to_string(i) + "] wrong");
      break;
    }
  }
  return o;
}

Outcome run_abs(bool scalar, const uint64_t* p, size_t np) {
  uint32_t n = arg(p, np, 0, 1 << 16), bd = arg(p, np, 1, 1), tile = arg(p, np, 2, 4096);
  Gm x(size_t(n) * 2), y(size_t(n) * 2);
  fill<half>(x, 5);
  ElemTiling t{n, tile, 0, 0, 2};
  Outcome o;
  o.launch(scalar ? abs_scalar : abs_vector, scalar ? "abs_scalar" : "abs_vector",
                                                 bd, x.p, y.p, t);
  for (uint32_t i = 0; i < n; i++) {
    float v = float(x.as<half>()[i]);
    if (float(y.as<half>()[i]) != std::fabs(v)) {
      o.expect(false, "abs: y[" + std::to_string(i) + "] wrong");
      break;
    }
  }
  return o;
}

// y = x * rsqrt(mean(x^2) + eps) * gamma in f64, compared with a relative tolerance
// suited to fp16 storage of the result (and, for the eager chain, of intermediates).
void check_rmsnorm(Outcome& o, Gm& x, Gm& gamma, Gm& y, uint32_t rows, uint32_t cols, float eps, double rtol) {
  const half* xv = x.as<half>();
  const half* gv = gamma.as<half>();
  const half* yv = y.as<half>();
  for (uint32_t r = 0; r < rows; r++) {
    double ss = 0;
    for (uint32_t c = 0; c < cols; c++) ss += double(xv[size_t(r) * cols + c]) * double(xv[size_t(r) * cols + c]);
    double rstd = 1.0 / std::sqrt(ss / cols + eps);
    for (uint32_t c = 0; c < cols; c++) {
      double want = double(xv[size_t(r) * cols + c]) * rstd * double(gv[c]);
      double got = double(yv[size_t(r) * cols + c]);
      if (std::fabs(got - want) > rtol * (std::fabs(want) + 1e-2)) {
        o.expect(false, "rmsnorm: y[" + std::to_string(r) + "," + std::to_string(c) + "] = " + std::to_string(got) +
                            ", want " + std::to_string(want));
        return;
      }
    }
  }
}

Outcome run_rmsnorm(bool fused, const uint64_t* p, size_t np) {
  uint32_t rows = arg(p, np, 0, 2048), cols = arg(p, np, 1, 4096), bd = arg(p, np, 2, 48);
  size_t n = size_t(rows) * cols;
  float eps = 1e-6f;
  RowTiling t{rows, cols, eps, 1.0f / float(cols)};
  Gm x(n * 2), gamma(size_t(cols) * 2), y(n * 2);
  fill<half>(x, 6);
  fill<half>(gamma, 7);
  Outcome o;
  if (fused) {
    o.launch(rmsnorm_fused, "rmsnorm_fused", bd, x.p, gamma.p, y.p, t);
  } else {
    Gm sq(n * 2), ms(size_t(rows) * 2), ms2(size_t(rows) * 2), r(size_t(rows) * 2), tmp(n * 2);
    o.launch(eager_square, "eager_square", bd, x.p, sq.p, t);
    o.launch(eager_row_mean, "eager_row_mean", bd, sq.p, ms.p, t);
    o.launch(eager_adds, "eager_adds", 1, ms.p, ms2.p, t);
    o.launch(eager_rsqrt, "eager_rsqrt", 1, ms2.p, r.p, t);
    o.launch(eager_mul_rows, "eager_mul_rows", bd, x.p, r.p, tmp.p, t);
    o.launch(eager_mul_gamma, "eager_mul_gamma", bd, tmp.p, gamma.p, y.p, t);
  }
  check_rmsnorm(o, x, gamma, y, rows, cols, eps, fused ? 1e-2 : 3e-2);
  return o;
}

// The eager RMSNorm chain launched asynchronously on an AscendCL stream between two
// events, as host code times kernels on an NPU; then the same launches synchronously
// for their reports. aclrtEventElapsedTime must equal the sum of the modelled times.
Outcome run_events(const uint64_t* p, size_t np) {
  uint32_t rows = arg(p, np, 0, 256), cols = arg(p, np, 1, 1024), bd = arg(p, np, 2, 48);
  size_t n = size_t(rows) * cols;
  RowTiling t{rows, cols, 1e-6f, 1.0f / float(cols)};
  Gm x(n * 2), gamma(size_t(cols) * 2), y(n * 2), sq(n * 2), ms(size_t(rows) * 2), ms2(size_t(rows) * 2),
      r(size_t(rows) * 2), tmp(n * 2);
  fill<half>(x, 6);
  fill<half>(gamma, 7);
  Outcome o;
  aclrtStream s = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  auto ok = [&](aclError e, const char* what) {
    o.expect(e == ACL_SUCCESS, std::string(what) + " failed with " + std::to_string(e));
    return e == ACL_SUCCESS;
  };
  if (!ok(aclrtSetDevice(0), "aclrtSetDevice") || !ok(aclrtCreateStream(&s), "aclrtCreateStream") ||
      !ok(aclrtCreateEvent(&start), "aclrtCreateEvent") || !ok(aclrtCreateEvent(&end), "aclrtCreateEvent")) {
    return o;
  }
  ok(aclrtRecordEvent(start, s), "aclrtRecordEvent");
  ok(ACLRT_LAUNCH_KERNEL(eager_square)(bd, s, x.p, sq.p, t), "launch eager_square");
  ok(ACLRT_LAUNCH_KERNEL(eager_row_mean)(bd, s, sq.p, ms.p, t), "launch eager_row_mean");
  ok(ACLRT_LAUNCH_KERNEL(eager_adds)(1, s, ms.p, ms2.p, t), "launch eager_adds");
  ok(ACLRT_LAUNCH_KERNEL(eager_rsqrt)(1, s, ms2.p, r.p, t), "launch eager_rsqrt");
  ok(ACLRT_LAUNCH_KERNEL(eager_mul_rows)(bd, s, x.p, r.p, tmp.p, t), "launch eager_mul_rows");
  ok(ACLRT_LAUNCH_KERNEL(eager_mul_gamma)(bd, s, tmp.p, gamma.p, y.p, t), "launch eager_mul_gamma");
  ok(aclrtRecordEvent(end, s), "aclrtRecordEvent");
  ok(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
  float ms_elapsed = 0;
  if (ok(aclrtEventElapsedTime(&ms_elapsed, start, end), "aclrtEventElapsedTime")) o.event_ms = ms_elapsed;
  aclrtDestroyEvent(start);
  aclrtDestroyEvent(end);
  aclrtDestroyStream(s);
  check_rmsnorm(o, x, gamma, y, rows, cols, 1e-6f, 3e-2);
  o.launch(eager_square, "eager_square", bd, x.p, sq.p, t);
  o.launch(eager_row_mean, "eager_row_mean", bd, sq.p, ms.p, t);
  o.launch(eager_adds, "eager_adds", 1, ms.p, ms2.p, t);
  o.launch(eager_rsqrt, "eager_rsqrt", 1, ms2.p, r.p, t);
  o.launch(eager_mul_rows, "eager_mul_rows", bd, x.p, r.p, tmp.p, t);
  o.launch(eager_mul_gamma, "eager_mul_gamma", bd, tmp.p, gamma.p, y.p, t);
  return o;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

}  // namespace

extern "C" int64_t cm_run(const char* experiment, const uint64_t* params, size_t nparams, char* out, size_t cap) {
  std::string e = experiment ? experiment : "";
  Outcome o;
  if (e == "add") o = run_add(params, nparams);
  else if (e == "copy") o = run_copy(params, nparams);
  else if (e == "exp_ln") o = run_exp_ln(params, nparams);
  else if (e == "abs_vector") o = run_abs(false, params, nparams);
  else if (e == "abs_scalar") o = run_abs(true, params, nparams);
  else if (e == "rmsnorm_fused") o = run_rmsnorm(true, params, nparams);
  else if (e == "rmsnorm_eager") o = run_rmsnorm(false, params, nparams);
  else if (e == "events") o = run_events(params, nparams);
  else return -1;
  std::string json = "{\"check\":" + json_string(o.check) + ",\"event_ms\":";
  json += o.event_ms >= 0 ? std::to_string(o.event_ms) : std::string("null");
  json += ",\"wall_s\":[";
  for (size_t i = 0; i < o.wall_s.size(); i++) json += (i ? "," : "") + std::to_string(o.wall_s[i]);
  json += "],\"results\":[";
  for (size_t i = 0; i < o.results.size(); i++) json += (i ? "," : "") + o.results[i].to_json();
  json += "]}";
  if (json.size() + 1 > cap) return -int64_t(json.size() + 1);
  std::memcpy(out, json.c_str(), json.size() + 1);
  return int64_t(json.size());
}
