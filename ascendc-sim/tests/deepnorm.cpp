// Kernels for the high-level DeepNorm (tests/deepnorm.rs): correct kernels in the ordinary
// Ascend C style (queues, the tiling from GetDeepNormTilingInfo and the temporary size from
// GetDeepNormMaxMinTmpSize) checked against a double reference, and faulty ones whose
// diagnostic must point at the line marked "expect: <kind>".
//
// Usage: deepnorm        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        deepnorm host   the host helpers' results, one JSON line
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

struct DnCase {
  uint32_t rows, h, oriH;
  uint32_t tmpBytes;  // 0 = framework-allocated
  float alpha, eps;
  DeepNormTiling dn;
};

// x = src [rows, h], w = gx [rows, h] | gamma [h] | beta [h]; y = dst | mean [rows] | variance [rows].
template <class T, bool kTmp, bool kBasic = false>
__aicore__ void deepnorm_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(DnCase, td, tiling);
  const uint32_t n = td.rows * td.h, mv = (td.rows * sizeof(T) + 31) / 32 * 32 / sizeof(T);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> xQ, gxQ, gbQ;
  TQue<TPosition::VECOUT, 1> outQ, mQ, vQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(xQ, 1, n * sizeof(T));
  pipe.InitBuffer(gxQ, 1, n * sizeof(T));
  pipe.InitBuffer(gbQ, 1, 2 * td.h * sizeof(T));
  pipe.InitBuffer(outQ, 1, n * sizeof(T));
  pipe.InitBuffer(mQ, 1, mv * sizeof(T));
  pipe.InitBuffer(vQ, 1, mv * sizeof(T));
  if (kTmp) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, wg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  wg.SetGlobalBuffer((__gm__ T*)w);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> xs = xQ.AllocTensor<T>(), gx = gxQ.AllocTensor<T>(), gb = gbQ.AllocTensor<T>();
  DataCopy(xs, xg, n);
  DataCopy(gx, wg, n);
  DataCopy(gb, wg[n], 2 * td.h);
  xQ.EnQue(xs);
  gxQ.EnQue(gx);
  gbQ.EnQue(gb);
  xs = xQ.DeQue<T>();
  gx = gxQ.DeQue<T>();
  gb = gbQ.DeQue<T>();
  LocalTensor<T> out = outQ.AllocTensor<T>(), mean = mQ.AllocTensor<T>(), var = vQ.AllocTensor<T>();
  const T alpha = T(td.alpha), eps = T(td.eps);
  if constexpr (kTmp) {
    DeepNorm<T, false, kBasic>(out, mean, var, xs, gx, gb[td.h], gb, tmpBuf.Get<uint8_t>(), alpha, eps, td.dn);
  } else {
    DeepNorm<T, false, kBasic>(out, mean, var, xs, gx, gb[td.h], gb, alpha, eps, td.dn);
  }
  xQ.FreeTensor(xs);
  gxQ.FreeTensor(gx);
  gbQ.FreeTensor(gb);
  outQ.EnQue(out);
  mQ.EnQue(mean);
  vQ.EnQue(var);
  out = outQ.DeQue<T>();
  mean = mQ.DeQue<T>();
  var = vQ.DeQue<T>();
  DataCopy(yg, out, n);
  DataCopyPad(yg[n], mean, DataCopyExtParams{1, uint32_t(td.rows * sizeof(T)), 0, 0, 0});
  DataCopyPad(yg[n + td.rows], var, DataCopyExtParams{1, uint32_t(td.rows * sizeof(T)), 0, 0, 0});
  outQ.FreeTensor(out);
  mQ.FreeTensor(mean);
  vQ.FreeTensor(var);
}
__aicore__ void deepnorm_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { deepnorm_kernel<float, true>(x, y, w, t); }
__aicore__ void deepnorm_f32_max_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  deepnorm_kernel<float, true>(x, y, w, t);
}
__aicore__ void deepnorm_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { deepnorm_kernel<half, true>(x, y, w, t); }
__aicore__ void deepnorm_f32_padded_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  deepnorm_kernel<float, false>(x, y, w, t);
}
__aicore__ void deepnorm_f32_basic_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  deepnorm_kernel<float, true, true>(x, y, w, t);
}

#define DN_FAULTY(T, ROWS, H)                                            \
  GET_TILING_DATA_WITH_STRUCT(DnCase, td, tiling);                       \
  TPipe pipe;                                                            \
  TBuf<TPosition::VECCALC> a, g, o, m, v, gb, tb;                        \
  pipe.InitBuffer(a, (ROWS) * (H) * sizeof(T));                          \
  pipe.InitBuffer(g, (ROWS) * (H) * sizeof(T));                          \
  pipe.InitBuffer(o, (ROWS) * (H) * sizeof(T));                          \
  pipe.InitBuffer(m, 64);                                                \
  pipe.InitBuffer(v, 64);                                                \
  pipe.InitBuffer(gb, 2 * (H) * sizeof(T));                              \
  pipe.InitBuffer(tb, td.tmpBytes ? td.tmpBytes : 32);                   \
  LocalTensor<T> xs = a.Get<T>(), gx = g.Get<T>(), out = o.Get<T>();     \
  LocalTensor<T> mean = m.Get<T>(), var = v.Get<T>(), gam = gb.Get<T>(); \
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();                          \
  Duplicate(xs, T(1), (ROWS) * (H));                                     \
  Duplicate(gx, T(1), (ROWS) * (H));                                     \
  Duplicate(gam, T(1), 2 * (H))

// [8, 64] float, the tiling for the minimum, the buffer 32 bytes smaller.
__aicore__ void deepnorm_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  DN_FAULTY(float, 8, 64);
  DeepNorm<float>(out, mean, var, xs, gx, gam[64], gam, tmp, 1.0f, 1e-5f, td.dn);  // expect: ub_out_of_range
}
// A tiling never filled.
__aicore__ void deepnorm_no_tiling(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  DN_FAULTY(float, 8, 64);
  DeepNormTiling empty{};
  DeepNorm<float>(out, mean, var, xs, gx, gam[64], gam, tmp, 1.0f, 1e-5f, empty);  // expect: field_out_of_range
}
// isBasicBlock with B * S = 4 rows.
__aicore__ void deepnorm_basic_rows(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  DN_FAULTY(float, 4, 64);
  DeepNorm<float, false, true>(out, mean, var, xs, gx, gam[64], gam, tmp, 1.0f, 1e-5f,  // expect: field_out_of_range
                               td.dn);
}
// gxLocal starting half-way into dstLocal (both inside one larger buffer).
__aicore__ void deepnorm_gx_overlaps_dst(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  DN_FAULTY(float, 8, 64);
  TBuf<TPosition::VECCALC> big;
  pipe.InitBuffer(big, 2 * 8 * 64 * sizeof(float));
  LocalTensor<float> both = big.Get<float>();
  Duplicate(both, 1.0f, 2 * 8 * 64);
  (void)gx;
  (void)out;
  DeepNorm<float>(both, mean, var, xs, both[256], gam[64], gam, tmp, 1.0f, 1e-5f, td.dn);  // expect: vector_overlap
}

// ---------------------------------------------------------------- host side
double xv(uint32_t i) { return std::sin(double(i) * 0.37) * 3.0 + double(i % 7) * 0.25; }
double gxv(uint32_t i) { return std::cos(double(i) * 0.11) * 0.5; }
double gv(uint32_t j) { return 0.5 + double(j % 5) * 0.125; }
double bv(uint32_t j) { return double(j % 3) * 0.25 - 0.25; }

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
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
  uint32_t esize, rows, h, oriH;
  int tmp;  // 0 framework (tiling for the maximum), 1 minimum, 2 maximum, 3 minimum - 32 bytes
  bool basic = false;
  bool faulty = false;
  float alpha = 1.5f;
};

const Case kCases[] = {
    {"deepnorm_f32_ok", deepnorm_f32_ok, 4, 8, 64, 64, 1},
    {"deepnorm_f32_max_ok", deepnorm_f32_max_ok, 4, 8, 64, 64, 2},
    {"deepnorm_f16_ok", deepnorm_f16_ok, 2, 16, 32, 32, 1},
    {"deepnorm_f32_padded_framework_ok", deepnorm_f32_padded_framework_ok, 4, 6, 64, 60, 0},
    {"deepnorm_f32_basic_ok", deepnorm_f32_basic_ok, 4, 16, 64, 64, 2, true},
    {"deepnorm_tmp_too_small", deepnorm_tmp_too_small, 4, 8, 64, 64, 3, false, true},
    {"deepnorm_no_tiling", deepnorm_no_tiling, 4, 8, 64, 64, 1, false, true},
    {"deepnorm_basic_rows", deepnorm_basic_rows, 4, 4, 64, 64, 1, false, true},
    {"deepnorm_gx_overlaps_dst", deepnorm_gx_overlaps_dst, 4, 8, 64, 64, 1, false, true},
};

template <class T>
void fill(const Case& c, uint8_t* x, uint8_t* w) {
  const uint32_t n = c.rows * c.h;
  for (uint32_t i = 0; i < n; i++) {
    const bool pad = i % c.h >= c.oriH;
    put<T>(x, i, pad ? 0.0 : xv(i));
    put<T>(w, i, pad ? 0.0 : gxv(i));
  }
  for (uint32_t j = 0; j < c.h; j++) {
    put<T>(w, n + j, gv(j));      // gamma
    put<T>(w, n + c.h + j, bv(j));  // beta
  }
}

template <class T>
bool check(const Case& c, const uint8_t* x, const uint8_t* w, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 4e-3 : 2e-5;
  const uint32_t n = c.rows * c.h;
  const double alpha = double(ascendc_sim::to_f32(T(c.alpha)));
  for (uint32_t r = 0; r < c.rows; r++) {
    std::vector<double> v(c.h);
    double s = 0;
    for (uint32_t j = 0; j < c.h; j++) {
      v[j] = alpha * get<T>(x, uint64_t(r) * c.h + j) + get<T>(w, uint64_t(r) * c.h + j);
      if (j < c.oriH) s += v[j];
    }
    const double mu = s / c.oriH;
    double q = 0;
    for (uint32_t j = 0; j < c.oriH; j++) q += (v[j] - mu) * (v[j] - mu);
    const double var = q / c.oriH, rstd = 1 / std::sqrt(var + double(ascendc_sim::to_f32(T(1e-5f))));
    if (!close(get<T>(y, n + r), mu, tol) || !close(get<T>(y, n + c.rows + r), var, tol)) return false;
    for (uint32_t j = 0; j < c.h; j++) {
      const double ref = (v[j] - mu) * rstd * get<T>(w, n + j) + get<T>(w, n + c.h + j);
      if (!close(get<T>(y, uint64_t(r) * c.h + j), ref, 2 * tol)) return false;
    }
  }
  return true;
}

void setup(const Case& c, uint8_t* x, uint8_t* w, uint8_t* tiling) {
  DnCase t{};
  t.rows = c.rows;
  t.h = c.h;
  t.oriH = c.oriH;
  t.alpha = c.alpha;
  t.eps = 1e-5f;
  if (c.esize == 2) fill<half>(c, x, w);
  else fill<float>(c, x, w);
  ge::Shape s({1, int64_t(c.rows), int64_t(c.h)}), o({1, int64_t(c.rows), int64_t(c.oriH)});
  uint32_t mx = 0, mn = 0;
  GetDeepNormMaxMinTmpSize(s, c.esize, false, c.basic, mx, mn);
  const uint32_t ws = c.tmp == 2 || c.tmp == 0 ? mx : mn;
  GetDeepNormTilingInfo(s, o, ws, c.esize, false, c.basic, t.dn);
  t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn - 32 : ws;
  std::memcpy(tiling, &t, sizeof t);
}

void host_checks() {
  uint32_t fx = 0, fn = 0, hx = 0, hn = 0, rx = 0, rn = 0, bx = 7, bn = 7;
  const bool f_ok = GetDeepNormMaxMinTmpSize(ge::Shape({2, 4, 64}), 4, false, false, fx, fn);
  GetDeepNormMaxMinTmpSize(ge::Shape({1, 16, 32}), 2, false, false, hx, hn);
  GetDeepNormMaxMinTmpSize(ge::Shape({2, 4, 64}), 4, true, false, rx, rn);
  const bool basic_bad = GetDeepNormMaxMinTmpSize(ge::Shape({1, 4, 64}), 4, false, true, bx, bn);
  optiling::DeepNormTiling t;
  const bool t_ok = GetDeepNormTilingInfo(ge::Shape({2, 4, 64}), ge::Shape({2, 4, 60}), fn, 4, false, false, t);
  ::DeepNormTiling th{};
  const bool th_ok = GetDeepNormTilingInfo(ge::Shape({1, 16, 32}), ge::Shape({1, 16, 32}), 4096, 2, false, false, th);
  ::DeepNormTiling bad{};
  const bool small_ok = GetDeepNormTilingInfo(ge::Shape({2, 4, 64}), ge::Shape({2, 4, 64}), fn - 4, 4, false, false, bad);
  const bool oriw_ok = GetDeepNormTilingInfo(ge::Shape({2, 4, 64}), ge::Shape({2, 4, 65}), fx, 4, false, false, bad);
  const bool wide_ok = GetDeepNormTilingInfo(ge::Shape({1, 1, 2048}), ge::Shape({1, 1, 2048}), 1 << 20, 4, false, false, bad);
  ::DeepNormTiling bt{};
  const bool bt_ok = GetDeepNormTilingInfo(ge::Shape({1, 16, 64}), ge::Shape({1, 16, 64}), 9 * 64 * 4 * 3 + 128, 4, false,
                                           true, bt);
  std::printf(
      "{\"name\":\"host\",\"f32\":[%s,%u,%u],\"f16\":[%u,%u],\"reuse\":[%u,%u],\"basic_bad\":%s,"
      "\"t\":[%s,%u,%u,%u,%u,%.9g],\"th\":[%s,%u,%u,%u],\"small\":%s,\"oriw\":%s,\"wide\":%s,\"bt\":[%s,%u]}\n",
      f_ok ? "true" : "false", fx, fn, hx, hn, rx, rn, basic_bad ? "true" : "false", t_ok ? "true" : "false",
      t.oneTmpSize, t.loopRound, t.numberOfTmpBuf, t.originalHLength, double(t.lastDimValueBack),
      th_ok ? "true" : "false", th.firstTmpStartPos, th.oneTmpSize, th.meanTmpTensorSize, small_ok ? "true" : "false",
      oriw_ok ? "true" : "false", wide_ok ? "true" : "false", bt_ok ? "true" : "false", bt.oneTmpSize);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 18;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* w = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  const char* only = argc > 1 ? argv[1] : nullptr;
  if (only && std::strcmp(only, "host") == 0) {
    host_checks();
    only = "none";
  }
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    std::memset(x, 0, kBytes);
    std::memset(y, 0, kBytes);
    std::memset(w, 0, kBytes);
    std::memset(tiling, 0, 4096);
    setup(c, x, w, tiling);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, w, tiling);
    const char* ok = c.faulty ? "null" : ((c.esize == 2 ? check<half>(c, x, w, y) : check<float>(c, x, w, y)) ? "true" : "false");
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, ok, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(w);
  AscendC::GmFree(tiling);
  return 0;
}
