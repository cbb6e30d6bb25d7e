// Kernels for the high-level WelfordUpdate (tests/welford.rs): correct kernels in the ordinary
// Ascend C style that fold n blocks of a row into running means and squared-deviation sums
// (nRec = 1 / i on call i), checked against a double reference, and faulty ones whose
// diagnostic must point at the line marked "expect: <kind>".
//
// Usage: welford        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        welford host   the host helper's sizes, one JSON line
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

struct WfCase {
  uint32_t ab, comp, blocks;  // block length, computed columns, number of blocks
  uint32_t tmpBytes;          // 0 = framework-allocated
};

constexpr WelfordUpdateConfig kInplace = {true};

// x = blocks of [1, ab] T one after the other; y = mean [ab] | M [ab] (U).
// kInplace: outputs on the inputs (isInplace), columns [comp, ab) preset to 5 and 3.
template <class T, class U, bool kTmp, bool kIn = false>
__aicore__ void welford_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(WfCase, td, tiling);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TBuf<TPosition::VECCALC> m0, v0, m1, v1, tb;
  pipe.InitBuffer(inQ, 2, td.ab * sizeof(T));
  pipe.InitBuffer(m0, td.ab * sizeof(U));
  pipe.InitBuffer(v0, td.ab * sizeof(U));
  pipe.InitBuffer(m1, td.ab * sizeof(U));
  pipe.InitBuffer(v1, td.ab * sizeof(U));
  pipe.InitBuffer(tb, td.tmpBytes ? td.tmpBytes : 32);
  GlobalTensor<T> xg;
  GlobalTensor<U> yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ U*)y);
  LocalTensor<U> mean[2] = {m0.Get<U>(), m1.Get<U>()}, var[2] = {v0.Get<U>(), v1.Get<U>()};
  for (int k = 0; k < 2; k++) {  // the first call reads zeros; columns never computed stay 0
    Duplicate(mean[k], U(0), td.ab);
    Duplicate(var[k], U(0), td.ab);
  }
  if (kIn && td.comp < td.ab) {
    Duplicate(mean[0][td.comp], U(5), td.ab - td.comp);
    Duplicate(var[0][td.comp], U(3), td.ab - td.comp);
  }
  uint32_t cur = 0;
  for (uint32_t i = 0; i < td.blocks; i++) {
    LocalTensor<T> xs = inQ.AllocTensor<T>();
    DataCopy(xs, xg[i * td.ab], td.ab);
    inQ.EnQue(xs);
    xs = inQ.DeQue<T>();
    const WelfordUpdateParam para = {1, td.ab, td.comp, 1.0f / float(i + 1)};
    const uint32_t nxt = kIn ? cur : 1 - cur;
    if constexpr (kTmp) {
      if constexpr (kIn) {
        WelfordUpdate<T, U, false, kInplace>(mean[nxt], var[nxt], mean[cur], var[cur], xs, tb.Get<uint8_t>(), para);
      } else {
        WelfordUpdate<T, U>(mean[nxt], var[nxt], mean[cur], var[cur], xs, tb.Get<uint8_t>(), para);
      }
    } else {
      WelfordUpdate<T, U>(mean[nxt], var[nxt], mean[cur], var[cur], xs, para);
    }
    inQ.FreeTensor(xs);
    cur = nxt;
  }
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, mean[cur], td.ab);
  DataCopy(yg[td.ab], var[cur], td.ab);
}
__aicore__ void welford_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { welford_kernel<float, float, true>(x, y, t); }
__aicore__ void welford_f16_inplace_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) {
  welford_kernel<half, float, true, true>(x, y, t);
}
__aicore__ void welford_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) {
  welford_kernel<float, float, false>(x, y, t);
}

#define WF_FAULTY(T, U, AB)                                            \
  TPipe pipe;                                                          \
  TBuf<TPosition::VECCALC> xb, mb, vb, ob, wb, tb;                     \
  pipe.InitBuffer(xb, (AB) * sizeof(T));                               \
  pipe.InitBuffer(mb, (AB) * sizeof(U));                               \
  pipe.InitBuffer(vb, (AB) * sizeof(U));                               \
  pipe.InitBuffer(ob, (AB) * sizeof(U));                               \
  pipe.InitBuffer(wb, (AB) * sizeof(U));                               \
  pipe.InitBuffer(tb, 1024);                                           \
  LocalTensor<T> xs = xb.Get<T>();                                     \
  LocalTensor<U> mi = mb.Get<U>(), vi = vb.Get<U>(), mo = ob.Get<U>(), vo = wb.Get<U>(); \
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();                        \
  (void)tmp;                                                           \
  Duplicate(xs, T(1), AB);                                             \
  Duplicate(mi, U(0), AB);                                             \
  Duplicate(vi, U(0), AB)

__aicore__ void welford_rn_two(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(float, float, 64);
  WelfordUpdate<float, float>(mo, vo, mi, vi, xs, tmp, {2, 64, 64, 1.0f});  // expect: field_out_of_range
}
__aicore__ void welford_compute_zero(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(float, float, 64);
  WelfordUpdate<float, float>(mo, vo, mi, vi, xs, {1, 64, 0, 1.0f});  // expect: field_out_of_range
}
// half blocks of 24 (48 bytes).
__aicore__ void welford_ab_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(half, float, 32);
  WelfordUpdate<half, float>(mo, vo, mi, vi, xs, tmp, {1, 24, 24, 1.0f});  // expect: ub_misaligned
}
// 256 bytes of temporary space where float needs two 256-byte buffers.
__aicore__ void welford_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(float, float, 64);
  WelfordUpdate<float, float>(mo, vo, mi, vi, xs, tmp[768], {1, 64, 64, 1.0f});  // expect: ub_out_of_range
}
// The outputs on the inputs without isInplace.
__aicore__ void welford_in_place_without_config(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(float, float, 64);
  (void)mo;
  (void)vo;
  WelfordUpdate<float, float>(mi, vi, mi, vi, xs, tmp, {1, 64, 64, 1.0f});  // expect: vector_overlap
}
// A block longer than the tensors.
__aicore__ void welford_ab_too_long(GM_ADDR, GM_ADDR, GM_ADDR) {
  WF_FAULTY(float, float, 64);
  WelfordUpdate<float, float>(mo, vo, mi, vi, xs, tmp, {1, 128, 128, 1.0f});  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- host side
double xv(uint32_t i) { return std::sin(double(i) * 0.61) * 2.0 + double(i % 5) * 0.5; }

template <class T>
void put(uint8_t* base, uint64_t i, double v) {
  T t = ascendc_sim::from_f32<T>(float(v));
  std::memcpy(base + i * sizeof(T), &t, sizeof(T));
}
template <class T>
double get(const uint8_t* base, uint64_t i) {
  T t;
  std::memcpy(&t, base + i * sizeof(T), sizeof(T));
  return double(ascendc_sim::to_f32(t));
}
bool close(double a, double ref, double tol) { return std::fabs(a - ref) <= tol * std::max(1.0, std::fabs(ref)); }

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
  uint32_t esize, ab, comp, blocks;
  int tmp;  // 0 framework, 1 minimum, 2 maximum
  bool inplace = false;
  bool faulty = false;
};

const Case kCases[] = {
    {"welford_f32_ok", welford_f32_ok, 4, 64, 64, 3, 1},
    {"welford_f16_inplace_ok", welford_f16_inplace_ok, 2, 48, 40, 4, 2, true},
    {"welford_f32_framework_ok", welford_f32_framework_ok, 4, 128, 100, 2, 0},
    {"welford_rn_two", welford_rn_two, 4, 0, 0, 0, 0, false, true},
    {"welford_compute_zero", welford_compute_zero, 4, 0, 0, 0, 0, false, true},
    {"welford_ab_misaligned", welford_ab_misaligned, 2, 0, 0, 0, 0, false, true},
    {"welford_tmp_too_small", welford_tmp_too_small, 4, 0, 0, 0, 0, false, true},
    {"welford_in_place_without_config", welford_in_place_without_config, 4, 0, 0, 0, 0, false, true},
    {"welford_ab_too_long", welford_ab_too_long, 4, 0, 0, 0, 0, false, true},
};

void setup(const Case& c, uint8_t* x, uint8_t* tiling) {
  WfCase t{c.ab, c.comp, c.blocks, 0};
  for (uint32_t i = 0; i < c.ab * c.blocks; i++) {
    if (c.esize == 2) put<half>(x, i, xv(i));
    else put<float>(x, i, xv(i));
  }
  uint32_t mx = 0, mn = 0;
  GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, int64_t(c.ab ? c.ab : 64)}), c.esize, 4, false, c.inplace, mx, mn);
  t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 2 ? mx : mn;
  std::memcpy(tiling, &t, sizeof t);
}

template <class T>
bool check(const Case& c, const uint8_t* x, const uint8_t* y) {
  for (uint32_t j = 0; j < c.ab; j++) {
    const double gm = get<float>(y, j), gv = get<float>(y, c.ab + j);
    if (j >= c.comp) {
      // Not computed: with isInplace the inputs' preset values, otherwise never written (the
      // zeros the kernel put there).
      if (c.inplace ? (gm != 5.0 || gv != 3.0) : (gm != 0.0 || gv != 0.0)) return false;
      continue;
    }
    double s = 0;
    for (uint32_t i = 0; i < c.blocks; i++) s += get<T>(x, uint64_t(i) * c.ab + j);
    const double mu = s / c.blocks;
    double q = 0;
    for (uint32_t i = 0; i < c.blocks; i++) q += std::pow(get<T>(x, uint64_t(i) * c.ab + j) - mu, 2);
    if (!close(gm, mu, 2e-6) || !close(gv, q, 2e-5)) return false;
  }
  return true;
}

void host_checks() {
  uint32_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 7, h = 7;
  GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, 64}), 4, 4, false, false, a, b);
  GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, 200}), 2, 4, false, true, c, d);
  GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, 128}), 4, 4, true, false, e, f);
  GetWelfordUpdateMaxMinTmpSize(ge::Shape({1, 8, 64}), 4, 4, false, false, g, h);
  std::printf("{\"name\":\"host\",\"f32\":[%u,%u],\"f16\":[%u,%u],\"reuse\":[%u,%u],\"bad\":[%u,%u]}\n", a, b, c, d, e,
              f, g, h);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 16;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(256));
  const char* only = argc > 1 ? argv[1] : nullptr;
  if (only && std::strcmp(only, "host") == 0) {
    host_checks();
    only = "none";
  }
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    std::memset(x, 0, kBytes);
    std::memset(y, 0, kBytes);
    std::memset(tiling, 0, 256);
    setup(c, x, tiling);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, tiling);
    const char* ok = c.faulty ? "null" : ((c.esize == 2 ? check<half>(c, x, y) : check<float>(c, x, y)) ? "true" : "false");
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, ok, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(tiling);
  return 0;
}
