// harness.cpp — host side of the cost model's kernel-level tests.
//
// One C entry point, cm_run(experiment, params, n, out, cap): allocates GM with
// AscendC::GmAlloc, fills the inputs with a fixed pseudo-random pattern, launches the
// experiment's kernel(s) synchronously with ascendc_sim::run_kernel_fn, checks the
// outputs against a host reference, and writes
//   {"check":"ok"|"<what was wrong>","results":[LaunchResult JSON, ...]}
// to `out`. Returns the JSON length, or -(needed bytes) when `cap` is too small, or -1
// for an unknown experiment. Not thread-safe (the Rust side serialises calls).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_sim/kernel_launch.h"
#include "tikicpulib.h"
#include "../kernels/tiling.h"

extern "C" {
void add_f16(GM_ADDR x, GM_ADDR y, GM_ADDR z, ElemTiling tiling);
void copy_f16(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void exp_ln_chain(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void abs_vector(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
void abs_scalar(GM_ADDR x, GM_ADDR y, ElemTiling tiling);
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
  std::string check = "ok";
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
  o.results.push_back(ascendc_sim::run_kernel_fn(add_f16, "add_f16", bd, x.p, y.p, z.p, t));
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
  o.results.push_back(ascendc_sim::run_kernel_fn(copy_f16, "copy_f16", bd, x.p, y.p, t));
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
  o.results.push_back(ascendc_sim::run_kernel_fn(exp_ln_chain, "exp_ln_chain", bd, x.p, y.p, t));
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
  o.results.push_back(ascendc_sim::run_kernel_fn(scalar ? abs_scalar : abs_vector, scalar ? "abs_scalar" : "abs_vector",
                                                 bd, x.p, y.p, t));
  for (uint32_t i = 0; i < n; i++) {
    float v = float(x.as<half>()[i]);
    if (float(y.as<half>()[i]) != std::fabs(v)) {
      o.expect(false, "abs: y[" + std::to_string(i) + "] wrong");
      break;
    }
  }
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
  else return -1;
  std::string json = "{\"check\":" + json_string(o.check) + ",\"results\":[";
  for (size_t i = 0; i < o.results.size(); i++) json += (i ? "," : "") + o.results[i].to_json();
  json += "]}";
  if (json.size() + 1 > cap) return -int64_t(json.size() + 1);
  std::memcpy(out, json.c_str(), json.size() + 1);
  return int64_t(json.size());
}
