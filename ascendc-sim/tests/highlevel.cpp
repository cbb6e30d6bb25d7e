// Kernels for the high-level SoftMax, SimpleSoftMax, RmsNorm and LayerNorm APIs and their host
// tiling helpers (tests/highlevel.rs): per API correct kernels in the ordinary Ascend C style
// on several shapes, half and float (main checks their numbers against a double reference
// computed from the stored inputs), and faulty ones whose diagnostic must point at the line
// marked "expect: <kind>".
//
// Usage: highlevel        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        highlevel host   one JSON line of host tiling-helper results
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

// A custom operator's tiling-data class holding a SoftMaxTiling (the vendor's "SoftMax Tiling"
// usage: TILING_DATA_FIELD_DEF_STRUCT on the host, the plain struct in the kernel).
namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SoftmaxCustom, SoftmaxCustomTilingData)
}  // namespace optiling
struct SoftmaxCustomKernelTiling {
  uint32_t totalLength;
  SoftMaxTiling softmaxTilingData;
};

namespace {

/// The tiling a case passes to its kernel (through GM, read with GET_TILING_DATA_WITH_STRUCT).
struct HlTiling {
  uint32_t m, k, oriK;  // SoftMax shape; for the norms m = rows (B * S), k = H
  uint32_t tmpBytes;    // sharedTmpBuffer size; 0 = the framework-allocated form
  uint32_t simple;      // SoftMax kernel: also run SimpleSoftMax from the sum/max it produced
  float eps;
  SoftMaxTiling sm;
  LogSoftMaxTiling lsm;
  RmsNormTiling rms;
  LayerNormTiling ln;
};

// ---------------------------------------------------------------- SoftMax / SimpleSoftMax
// y = [dst (m x k) | sum (m x epb) | max (m x epb)]; T data, U sum/max.
// kLog: LogSoftMax instead (sum/max of the data type, sharedTmpBuffer only).
template <class T, class U, bool kLog = false>
__aicore__ void softmax_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * td.k, epb = 32 / sizeof(U);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ, sumQ, maxQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, n * sizeof(T));
  pipe.InitBuffer(outQ, 1, n * sizeof(T));
  pipe.InitBuffer(sumQ, 1, td.m * 32);
  pipe.InitBuffer(maxQ, 1, td.m * 32);
  if (td.tmpBytes) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, yg;
  GlobalTensor<U> sg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  sg.SetGlobalBuffer((__gm__ U*)(y + n * sizeof(T)));

  LocalTensor<T> in = inQ.AllocTensor<T>();
  DataCopy(in, xg, n);
  inQ.EnQue(in);
  in = inQ.DeQue<T>();
  LocalTensor<T> out = outQ.AllocTensor<T>();
  LocalTensor<U> sum = sumQ.AllocTensor<U>();
  LocalTensor<U> max = maxQ.AllocTensor<U>();
  SoftMaxShapeInfo shape = {td.m, td.k, td.m, td.oriK};
  if constexpr (kLog) {
    LogSoftMax<T>(out, sum, max, in, tmpBuf.Get<uint8_t>(), td.lsm, shape);
  } else if (td.tmpBytes) {
    SoftMax<T>(out, sum, max, in, tmpBuf.Get<uint8_t>(), td.sm, shape);
    if (td.simple) SimpleSoftMax<T>(out, sum, max, in, tmpBuf.Get<uint8_t>(), td.sm, shape);
  } else {
    SoftMax<T>(out, sum, max, in, td.sm, shape);
    if (td.simple) SimpleSoftMax<T>(out, sum, max, in, td.sm, shape);
  }
  outQ.EnQue(out);
  sumQ.EnQue(sum);
  maxQ.EnQue(max);
  inQ.FreeTensor(in);
  out = outQ.DeQue<T>();
  sum = sumQ.DeQue<U>();
  max = maxQ.DeQue<U>();
  DataCopy(yg, out, n);
  DataCopy(sg, sum, td.m * epb);
  DataCopy(sg[td.m * epb], max, td.m * epb);
  outQ.FreeTensor(out);
  sumQ.FreeTensor(sum);
  maxQ.FreeTensor(max);
}
__aicore__ void softmax_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { softmax_kernel<float, float>(x, y, w, t); }
__aicore__ void softmax_f32_onepass_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float>(x, y, w, t);
}
__aicore__ void softmax_f32_wide_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float>(x, y, w, t);
}
__aicore__ void softmax_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float>(x, y, w, t);
}
__aicore__ void softmax_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { softmax_kernel<half, half>(x, y, w, t); }
__aicore__ void softmax_f16_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<half, float>(x, y, w, t);
}
__aicore__ void softmax_padded_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float>(x, y, w, t);
}
__aicore__ void simple_softmax_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float>(x, y, w, t);
}

// LogSoftMax: [8, 64] float with the minimum temporary space (one row per pass), [16, 128]
// half with the maximum, [4, 200] float with the maximum (one pass).
__aicore__ void logsoftmax_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float, true>(x, y, w, t);
}
__aicore__ void logsoftmax_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<half, half, true>(x, y, w, t);
}
__aicore__ void logsoftmax_f32_wide_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  softmax_kernel<float, float, true>(x, y, w, t);
}

// The tiling was computed for the largest temporary space but the kernel gives the smallest.
__aicore__ void logsoftmax_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, tmp;
  pipe.InitBuffer(a, td.m * td.k * 4);
  pipe.InitBuffer(b, td.m * td.k * 4);
  pipe.InitBuffer(s, td.m * 32);
  pipe.InitBuffer(m, td.m * 32);
  pipe.InitBuffer(tmp, td.tmpBytes);
  LocalTensor<float> src = a.Get<float>();
  Duplicate(src, 1.0f, td.m * td.k);
  LogSoftMax<float>(b.Get<float>(), s.Get<float>(), m.Get<float>(), src, tmp.Get<uint8_t>(), td.lsm);  // expect: ub_out_of_range
}

// A last axis of 12 halves (24 bytes) is not 32-byte aligned.
__aicore__ void logsoftmax_misaligned_k(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, tmp;
  pipe.InitBuffer(a, 8 * 16 * 2);
  pipe.InitBuffer(b, 8 * 16 * 2);
  pipe.InitBuffer(s, 8 * 32);
  pipe.InitBuffer(m, 8 * 32);
  pipe.InitBuffer(tmp, 4096);
  Duplicate(a.Get<half>(), half(1.0f), 8 * 16);
  SoftMaxShapeInfo shape = {8, 12, 8, 12};
  LogSoftMax<half>(b.Get<half>(), s.Get<half>(), m.Get<half>(), a.Get<half>(), tmp.Get<uint8_t>(), td.lsm,  // expect: ub_misaligned
                   shape);
}

// In place (dst = src, isReuseSource), TBufs ordered with flags.
__aicore__ void softmax_inplace_ok(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * td.k;
  TPipe pipe;
  TBuf<TPosition::VECCALC> data, sumB, maxB, tmpB;
  pipe.InitBuffer(data, n * 4);
  pipe.InitBuffer(sumB, td.m * 32);
  pipe.InitBuffer(maxB, td.m * 32);
  pipe.InitBuffer(tmpB, td.tmpBytes);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> d = data.Get<float>();
  LocalTensor<float> sum = sumB.Get<float>();
  LocalTensor<float> max = maxB.Get<float>();
  DataCopy(d, xg, n);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  SoftMax<float, true>(d, sum, max, d, tmpB.Get<uint8_t>(), td.sm, {td.m, td.k, td.m, td.k});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, d, n);
  DataCopy(yg[n], sum, td.m * 8);
  DataCopy(yg[n + td.m * 8], max, td.m * 8);
}

// The tiling was computed for the largest temporary space but the kernel gives the smallest.
__aicore__ void softmax_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, tmp;
  pipe.InitBuffer(a, td.m * td.k * 4);
  pipe.InitBuffer(b, td.m * td.k * 4);
  pipe.InitBuffer(s, td.m * 32);
  pipe.InitBuffer(m, td.m * 32);
  pipe.InitBuffer(tmp, td.tmpBytes);
  LocalTensor<float> src = a.Get<float>();
  Duplicate(src, 1.0f, td.m * td.k);
  SoftMax<float>(b.Get<float>(), s.Get<float>(), m.Get<float>(), src, tmp.Get<uint8_t>(), td.sm);  // expect: ub_out_of_range
}

// A last axis of 10 floats (40 bytes) is not 32-byte aligned.
__aicore__ void softmax_misaligned_k(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 8 * 16 * 4);
  pipe.InitBuffer(b, 8 * 16 * 4);
  SoftMaxShapeInfo shape = {8, 10, 8, 10};
  SoftMax<float>(b.Get<float>(), a.Get<float>(), td.sm, shape);  // expect: ub_misaligned
}

// sharedTmpBuffer taken from the source's own buffer.
__aicore__ void softmax_tmp_overlaps_src(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 8192);
  pipe.InitBuffer(b, td.m * td.k * 4);
  LocalTensor<float> src = a.Get<float>();
  Duplicate(src, 0.5f, td.m * td.k);
  LocalTensor<uint8_t> tmp = a.Get<uint8_t>();
  SoftMax<float>(b.Get<float>(), src, tmp, td.sm);  // expect: vector_overlap
}

// A SoftMaxTiling never filled on the host, and no shape info.
__aicore__ void softmax_no_tiling(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(b, 1024);
  SoftMaxTiling empty;
  SoftMax<float>(b.Get<float>(), a.Get<float>(), empty);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- RmsNorm
// ws = gamma (H); y = rmsnorm(x) (rows x H).
template <class T>
__aicore__ void rmsnorm_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * td.k;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ, gQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, n * sizeof(T));
  pipe.InitBuffer(gQ, 1, td.k * sizeof(T));
  pipe.InitBuffer(outQ, 1, n * sizeof(T));
  if (td.tmpBytes) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, gg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  gg.SetGlobalBuffer((__gm__ T*)ws);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> in = inQ.AllocTensor<T>();
  LocalTensor<T> g = gQ.AllocTensor<T>();
  DataCopy(in, xg, n);
  DataCopy(g, gg, td.k);
  inQ.EnQue(in);
  gQ.EnQue(g);
  in = inQ.DeQue<T>();
  g = gQ.DeQue<T>();
  LocalTensor<T> out = outQ.AllocTensor<T>();
  const T eps = T(td.eps);
  if (td.tmpBytes) {
    RmsNorm<T>(out, in, g, tmpBuf.Get<uint8_t>(), eps, td.rms);
  } else {
    RmsNorm<T>(out, in, g, eps, td.rms);
  }
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  gQ.FreeTensor(g);
  out = outQ.DeQue<T>();
  DataCopy(yg, out, n);
  outQ.FreeTensor(out);
}
__aicore__ void rmsnorm_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { rmsnorm_kernel<float>(x, y, w, t); }
__aicore__ void rmsnorm_f32_passes_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { rmsnorm_kernel<float>(x, y, w, t); }
__aicore__ void rmsnorm_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { rmsnorm_kernel<half>(x, y, w, t); }
__aicore__ void rmsnorm_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  rmsnorm_kernel<float>(x, y, w, t);
}

__aicore__ void rmsnorm_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, g, b, tmp;
  pipe.InitBuffer(a, td.m * td.k * 4);
  pipe.InitBuffer(g, td.k * 4);
  pipe.InitBuffer(b, td.m * td.k * 4);
  pipe.InitBuffer(tmp, td.tmpBytes);
  RmsNorm<float>(b.Get<float>(), a.Get<float>(), g.Get<float>(), tmp.Get<uint8_t>(), 1e-5f, td.rms);  // expect: ub_out_of_range
}

__aicore__ void rmsnorm_no_tiling(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, g, b;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(g, 256);
  pipe.InitBuffer(b, 1024);
  RmsNormTiling empty;
  RmsNorm<float>(b.Get<float>(), a.Get<float>(), g.Get<float>(), 1e-5f, empty);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- LayerNorm
// ws = [gamma (H) | beta (H)]; y = [out (rows x H) | mean (rows) | variance (rows)].
template <class T>
__aicore__ void layernorm_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * td.k;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ, gQ, bQ;
  TQue<TPosition::VECOUT, 1> outQ, meanQ, varQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, n * sizeof(T));
  pipe.InitBuffer(gQ, 1, td.k * sizeof(T));
  pipe.InitBuffer(bQ, 1, td.k * sizeof(T));
  pipe.InitBuffer(outQ, 1, n * sizeof(T));
  pipe.InitBuffer(meanQ, 1, td.m * sizeof(T));
  pipe.InitBuffer(varQ, 1, td.m * sizeof(T));
  if (td.tmpBytes) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, gg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  gg.SetGlobalBuffer((__gm__ T*)ws);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> in = inQ.AllocTensor<T>();
  LocalTensor<T> g = gQ.AllocTensor<T>();
  LocalTensor<T> b = bQ.AllocTensor<T>();
  DataCopy(in, xg, n);
  DataCopy(g, gg, td.k);
  DataCopy(b, gg[td.k], td.k);
  inQ.EnQue(in);
  gQ.EnQue(g);
  bQ.EnQue(b);
  in = inQ.DeQue<T>();
  g = gQ.DeQue<T>();
  b = bQ.DeQue<T>();
  LocalTensor<T> out = outQ.AllocTensor<T>();
  LocalTensor<T> mean = meanQ.AllocTensor<T>();
  LocalTensor<T> var = varQ.AllocTensor<T>();
  const T eps = T(td.eps);
  if (td.tmpBytes) {
    LayerNorm<T>(out, mean, var, in, g, b, tmpBuf.Get<uint8_t>(), eps, td.ln);
  } else {
    LayerNorm<T>(out, mean, var, in, g, b, eps, td.ln);
  }
  outQ.EnQue(out);
  meanQ.EnQue(mean);
  varQ.EnQue(var);
  inQ.FreeTensor(in);
  gQ.FreeTensor(g);
  bQ.FreeTensor(b);
  out = outQ.DeQue<T>();
  mean = meanQ.DeQue<T>();
  var = varQ.DeQue<T>();
  DataCopy(yg, out, n);
  DataCopy(yg[n], mean, td.m);
  DataCopy(yg[n + td.m], var, td.m);
  outQ.FreeTensor(out);
  meanQ.FreeTensor(mean);
  varQ.FreeTensor(var);
}
__aicore__ void layernorm_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { layernorm_kernel<float>(x, y, w, t); }
__aicore__ void layernorm_f32_passes_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  layernorm_kernel<float>(x, y, w, t);
}
__aicore__ void layernorm_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { layernorm_kernel<half>(x, y, w, t); }
__aicore__ void layernorm_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  layernorm_kernel<float>(x, y, w, t);
}

__aicore__ void layernorm_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, g, b, o, mv, tmp;
  pipe.InitBuffer(a, td.m * td.k * 4);
  pipe.InitBuffer(g, td.k * 4);
  pipe.InitBuffer(b, td.k * 4);
  pipe.InitBuffer(o, td.m * td.k * 4);
  pipe.InitBuffer(mv, 2 * td.m * 4);
  pipe.InitBuffer(tmp, td.tmpBytes);
  LocalTensor<float> mean = mv.Get<float>();
  LocalTensor<float> var = mean[td.m];
  LayerNorm<float>(o.Get<float>(), mean, var, a.Get<float>(), g.Get<float>(), b.Get<float>(), tmp.Get<uint8_t>(),  // expect: ub_out_of_range
                   1e-5f, td.ln);
}

// A hand-edited tiling whose last axis (12 floats, 48 bytes) is not 32-byte aligned.
__aicore__ void layernorm_misaligned_h(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, g, b, o, mv;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(g, 256);
  pipe.InitBuffer(b, 256);
  pipe.InitBuffer(o, 1024);
  pipe.InitBuffer(mv, 256);
  LocalTensor<float> mean = mv.Get<float>();
  LocalTensor<float> var = mean[32];
  td.ln.hLength = 12;
  LayerNorm<float>(o.Get<float>(), mean, var, a.Get<float>(), g.Get<float>(), b.Get<float>(), 1e-5f, td.ln);  // expect: ub_misaligned
}

// ---------------------------------------------------------------- cost: SoftMax vs by hand
// The same [m, 64] float softmax written with basic instructions over all rows at once
// (WholeReduce, Brcb, Sub/Div with a broadcast operand, Exp): SoftMax must not model cheaper.
__aicore__ void softmax_by_hand(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * 64;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> red, brc;
  pipe.InitBuffer(inQ, 1, n * 4);
  pipe.InitBuffer(outQ, 1, n * 4);
  pipe.InitBuffer(red, td.m * 4 < 32 ? 32 : td.m * 4);
  pipe.InitBuffer(brc, td.m * 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> in = inQ.AllocTensor<float>();
  DataCopy(in, xg, n);
  inQ.EnQue(in);
  in = inQ.DeQue<float>();
  LocalTensor<float> out = outQ.AllocTensor<float>();
  LocalTensor<float> r = red.Get<float>();
  LocalTensor<float> bc = brc.Get<float>();
  const uint8_t rows = uint8_t(td.m);
  WholeReduceMax(r, in, 64, rows, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  Brcb(bc, r, uint8_t((td.m + 7) / 8), {1, 8});
  Sub(out, in, bc, 64, rows, {1, 1, 0, 8, 8, 1});
  Exp(out, out, n);
  WholeReduceSum(r, out, 64, rows, 1, 1, 8);
  Brcb(bc, r, uint8_t((td.m + 7) / 8), {1, 8});
  Div(out, out, bc, 64, rows, {1, 1, 0, 8, 8, 1});
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  out = outQ.DeQue<float>();
  DataCopy(yg, out, n);
  outQ.FreeTensor(out);
}
// The same data through SoftMax (no sum/max outputs, sharedTmpBuffer of the tiling's size).
__aicore__ void softmax_hl_cost(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * 64;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmp;
  pipe.InitBuffer(inQ, 1, n * 4);
  pipe.InitBuffer(outQ, 1, n * 4);
  pipe.InitBuffer(tmp, td.tmpBytes);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> in = inQ.AllocTensor<float>();
  DataCopy(in, xg, n);
  inQ.EnQue(in);
  in = inQ.DeQue<float>();
  LocalTensor<float> out = outQ.AllocTensor<float>();
  SoftMax<float>(out, in, tmp.Get<uint8_t>(), td.sm);
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  out = outQ.DeQue<float>();
  DataCopy(yg, out, n);
  outQ.FreeTensor(out);
}

// The same [m, 64] float RmsNorm by hand, all rows per instruction (Mul, WholeReduceSum, Muls,
// Adds, Rsqrt, Brcb, Mul by the broadcast, Mul by gamma): RmsNorm must not model cheaper.
__aicore__ void rmsnorm_by_hand(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t n = td.m * 64;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ, gQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> sqB, red, brc;
  pipe.InitBuffer(inQ, 1, n * 4);
  pipe.InitBuffer(gQ, 1, 64 * 4);
  pipe.InitBuffer(outQ, 1, n * 4);
  pipe.InitBuffer(sqB, n * 4);
  pipe.InitBuffer(red, td.m * 4 < 32 ? 32 : td.m * 4);
  pipe.InitBuffer(brc, td.m * 32);
  GlobalTensor<float> xg, gg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  gg.SetGlobalBuffer((__gm__ float*)ws);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> in = inQ.AllocTensor<float>();
  LocalTensor<float> g = gQ.AllocTensor<float>();
  DataCopy(in, xg, n);
  DataCopy(g, gg, 64);
  inQ.EnQue(in);
  gQ.EnQue(g);
  in = inQ.DeQue<float>();
  g = gQ.DeQue<float>();
  LocalTensor<float> out = outQ.AllocTensor<float>();
  LocalTensor<float> sq = sqB.Get<float>();
  LocalTensor<float> r = red.Get<float>();
  LocalTensor<float> bc = brc.Get<float>();
  const uint8_t rows = uint8_t(td.m);
  Mul(sq, in, in, n);
  WholeReduceSum(r, sq, 64, rows, 1, 1, 8);
  Muls(r, r, 1.0f / 64, td.m);
  Adds(r, r, td.eps, td.m);
  Rsqrt(r, r, td.m);
  Brcb(bc, r, uint8_t((td.m + 7) / 8), {1, 8});
  Mul(out, in, bc, 64, rows, {1, 1, 0, 8, 8, 1});
  Mul(out, out, g, 64, rows, {1, 1, 1, 8, 8, 0});
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  gQ.FreeTensor(g);
  out = outQ.DeQue<float>();
  DataCopy(yg, out, n);
  outQ.FreeTensor(out);
}
__aicore__ void rmsnorm_hl_cost_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { rmsnorm_kernel<float>(x, y, w, t); }

// ---------------------------------------------------------------- Sum
// y = dst (outter results, rounded up to 32 bytes and zeroed first); m = outter, k = inner,
// oriK = n.
template <class T>
__aicore__ void sum_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  const uint32_t total = td.m * td.k, epb = 32 / sizeof(T), outLen = (td.m + epb - 1) / epb * epb;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, total * sizeof(T));
  pipe.InitBuffer(outQ, 1, outLen * sizeof(T));
  if (td.tmpBytes) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> in = inQ.AllocTensor<T>();
  DataCopy(in, xg, total);
  inQ.EnQue(in);
  in = inQ.DeQue<T>();
  LocalTensor<T> out = outQ.AllocTensor<T>();
  Duplicate(out, T(0.0f), outLen);
  SumParams params;
  params.outter = td.m;
  params.inner = td.k;
  params.n = td.oriK;
  if (td.tmpBytes) {
    Sum(out, in, tmpBuf.Get<uint8_t>(), params);
  } else {
    Sum(out, in, params);
  }
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  out = outQ.DeQue<T>();
  DataCopy(yg, out, outLen);
  outQ.FreeTensor(out);
}
__aicore__ void sum_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { sum_kernel<float>(x, y, w, t); }
__aicore__ void sum_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { sum_kernel<half>(x, y, w, t); }
__aicore__ void sum_f32_long_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { sum_kernel<float>(x, y, w, t); }
__aicore__ void sum_f16_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { sum_kernel<half>(x, y, w, t); }

// Rows of 4096 floats need 256 bytes of partial sums; the buffer has 224.
__aicore__ void sum_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(HlTiling, td, tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, tmp;
  pipe.InitBuffer(a, td.m * td.k * 4);
  pipe.InitBuffer(b, 32);
  pipe.InitBuffer(tmp, td.tmpBytes);
  LocalTensor<float> src = a.Get<float>();
  Duplicate(src, 1.0f, td.m * td.k);
  Sum(b.Get<float>(), src, tmp.Get<uint8_t>(), {td.m, td.k, td.oriK});  // expect: ub_out_of_range
}

// inner = 12 floats (48 bytes) is not n rounded up to 32 bytes.
__aicore__ void sum_misaligned_inner(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, tmp;
  pipe.InitBuffer(a, 2 * 16 * 4);
  pipe.InitBuffer(b, 32);
  pipe.InitBuffer(tmp, 32);
  Duplicate(a.Get<float>(), 1.0f, 32);
  Sum(b.Get<float>(), a.Get<float>(), tmp.Get<uint8_t>(), {2, 12, 12});  // expect: ub_misaligned
}

// n = 9 is larger than inner = 8.
__aicore__ void sum_n_above_inner(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, tmp;
  pipe.InitBuffer(a, 2 * 8 * 4);
  pipe.InitBuffer(b, 32);
  pipe.InitBuffer(tmp, 32);
  Duplicate(a.Get<float>(), 1.0f, 16);
  Sum(b.Get<float>(), a.Get<float>(), tmp.Get<uint8_t>(), {2, 8, 9});  // expect: field_out_of_range
}

// ---------------------------------------------------------------- host side
double xv(uint32_t i) { return std::sin(double(i) * 0.37) * 3.0 + double(i % 7) * 0.25; }
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

enum class Api { SoftMax, LogSoftMax, Sum, RmsNorm, LayerNorm, None };

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
  Api api;
  uint32_t esize, sum_esize;  // data type size, SoftMax sum/max type size
  uint32_t m, k, ori_k;       // SoftMax [m, k]; norms rows = m (B = 1, S = m), H = k
  int tmp;                    // 0 framework, 1 minimum, 2 maximum, 3 tiling for max but buffer = min
  bool simple;
};

const Case kCases[] = {
    {"softmax_f32_ok", softmax_f32_ok, Api::SoftMax, 4, 4, 8, 64, 64, 1, false},
    {"softmax_f32_onepass_ok", softmax_f32_onepass_ok, Api::SoftMax, 4, 4, 8, 64, 64, 2, false},
    {"softmax_f32_wide_ok", softmax_f32_wide_ok, Api::SoftMax, 4, 4, 16, 200, 200, 2, false},
    {"softmax_f32_framework_ok", softmax_f32_framework_ok, Api::SoftMax, 4, 4, 4, 128, 128, 0, false},
    {"softmax_f16_ok", softmax_f16_ok, Api::SoftMax, 2, 2, 8, 64, 64, 2, false},
    {"softmax_f16_f32_ok", softmax_f16_f32_ok, Api::SoftMax, 2, 4, 16, 48, 48, 1, false},
    {"softmax_padded_ok", softmax_padded_ok, Api::SoftMax, 4, 4, 8, 16, 13, 2, false},
    {"softmax_inplace_ok", softmax_inplace_ok, Api::SoftMax, 4, 4, 8, 32, 32, 2, false},
    {"simple_softmax_ok", simple_softmax_ok, Api::SoftMax, 4, 4, 8, 64, 64, 2, true},
    {"softmax_tmp_too_small", softmax_tmp_too_small, Api::SoftMax, 4, 4, 16, 64, 64, 3, false},
    {"softmax_misaligned_k", softmax_misaligned_k, Api::SoftMax, 4, 4, 8, 16, 16, 0, false},
    {"softmax_tmp_overlaps_src", softmax_tmp_overlaps_src, Api::SoftMax, 4, 4, 8, 64, 64, 0, false},
    {"softmax_no_tiling", softmax_no_tiling, Api::None, 4, 4, 0, 0, 0, 0, false},
    {"sum_f32_ok", sum_f32_ok, Api::Sum, 4, 0, 5, 64, 61, 1, false},
    {"sum_f16_ok", sum_f16_ok, Api::Sum, 2, 0, 3, 16, 3, 1, false},
    {"sum_f32_long_ok", sum_f32_long_ok, Api::Sum, 4, 0, 2, 4096, 4000, 1, false},
    {"sum_f16_framework_ok", sum_f16_framework_ok, Api::Sum, 2, 0, 17, 256, 250, 0, false},
    {"sum_tmp_too_small", sum_tmp_too_small, Api::Sum, 4, 0, 2, 4096, 4096, 3, false},
    {"sum_misaligned_inner", sum_misaligned_inner, Api::None, 4, 0, 0, 0, 0, 0, false},
    {"sum_n_above_inner", sum_n_above_inner, Api::None, 4, 0, 0, 0, 0, 0, false},
    {"logsoftmax_f32_ok", logsoftmax_f32_ok, Api::LogSoftMax, 4, 4, 8, 64, 64, 1, false},
    {"logsoftmax_f16_ok", logsoftmax_f16_ok, Api::LogSoftMax, 2, 2, 16, 128, 128, 2, false},
    {"logsoftmax_f32_wide_ok", logsoftmax_f32_wide_ok, Api::LogSoftMax, 4, 4, 4, 200, 200, 2, false},
    {"logsoftmax_tmp_too_small", logsoftmax_tmp_too_small, Api::LogSoftMax, 4, 4, 16, 64, 64, 3, false},
    {"logsoftmax_misaligned_k", logsoftmax_misaligned_k, Api::LogSoftMax, 2, 2, 8, 16, 16, 2, false},
    {"rmsnorm_f32_ok", rmsnorm_f32_ok, Api::RmsNorm, 4, 0, 8, 64, 64, 2, false},
    {"rmsnorm_f32_passes_ok", rmsnorm_f32_passes_ok, Api::RmsNorm, 4, 0, 24, 96, 96, 1, false},
    {"rmsnorm_f16_ok", rmsnorm_f16_ok, Api::RmsNorm, 2, 0, 16, 128, 128, 2, false},
    {"rmsnorm_f32_framework_ok", rmsnorm_f32_framework_ok, Api::RmsNorm, 4, 0, 8, 32, 32, 0, false},
    {"rmsnorm_tmp_too_small", rmsnorm_tmp_too_small, Api::RmsNorm, 4, 0, 8, 64, 64, 3, false},
    {"rmsnorm_no_tiling", rmsnorm_no_tiling, Api::None, 4, 0, 0, 0, 0, 0, false},
    {"layernorm_f32_ok", layernorm_f32_ok, Api::LayerNorm, 4, 0, 8, 64, 64, 2, false},
    {"layernorm_f32_passes_ok", layernorm_f32_passes_ok, Api::LayerNorm, 4, 0, 16, 80, 80, 1, false},
    {"layernorm_f16_ok", layernorm_f16_ok, Api::LayerNorm, 2, 0, 16, 64, 64, 2, false},
    {"layernorm_f32_framework_ok", layernorm_f32_framework_ok, Api::LayerNorm, 4, 0, 8, 32, 32, 0, false},
    {"layernorm_tmp_too_small", layernorm_tmp_too_small, Api::LayerNorm, 4, 0, 8, 64, 64, 3, false},
    {"layernorm_misaligned_h", layernorm_misaligned_h, Api::LayerNorm, 4, 0, 8, 16, 12, 0, false},
    {"softmax_by_hand", softmax_by_hand, Api::SoftMax, 4, 4, 32, 64, 64, 2, false},
    {"rmsnorm_by_hand", rmsnorm_by_hand, Api::RmsNorm, 4, 0, 32, 64, 64, 2, false},
    {"rmsnorm_hl_cost_ok", rmsnorm_hl_cost_ok, Api::RmsNorm, 4, 0, 32, 64, 64, 2, false},
    {"softmax_hl_cost", softmax_hl_cost, Api::SoftMax, 4, 4, 32, 64, 64, 2, false},
};

/// The tiling of a case, computed with the host helpers.
HlTiling make_tiling(const Case& c) {
  HlTiling t{};
  t.m = c.m;
  t.k = c.k;
  t.oriK = c.ori_k;
  t.simple = c.simple ? 1 : 0;
  t.eps = 1e-5f;
  if (c.api == Api::SoftMax) {
    ge::Shape s({int64_t(c.m), int64_t(c.k)});
    uint32_t mn = GetSoftMaxMinTmpSize(s, c.sum_esize, false), mx = GetSoftMaxMaxTmpSize(s, c.sum_esize, false);
    uint32_t ws = c.tmp == 1 ? mn : mx;
    SoftMaxTilingFunc(s, c.sum_esize, ws == 0 ? 4096 : ws, t.sm);
    t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn : ws;
  } else if (c.api == Api::LogSoftMax) {
    ge::Shape s({int64_t(c.m), int64_t(c.k)});
    uint32_t mn = GetLogSoftMaxMinTmpSize(s, c.esize, false), mx = GetLogSoftMaxMaxTmpSize(s, c.esize, false);
    uint32_t ws = c.tmp == 1 ? mn : mx;
    LogSoftMaxTilingFunc(s, c.esize, ws, t.lsm);
    t.tmpBytes = c.tmp == 3 ? mn : ws;
  } else if (c.api == Api::Sum) {
    uint32_t mx = 0, mn = 0;
    GetSumMaxMinTmpSize(c.ori_k, c.esize, false, mx, mn);
    t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn - 32 : mn;
  } else if (c.api == Api::RmsNorm) {
    ge::Shape s({1, int64_t(c.m), int64_t(c.k)});
    uint32_t mx = 0, mn = 0;
    GetRmsNormMaxMinTmpSize(s, c.esize, mx, mn);
    uint32_t ws = c.tmp == 1 ? mn : mx;
    GetRmsNormTilingInfo(s, s, ws, c.esize, t.rms);
    t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn : ws;
  } else if (c.api == Api::LayerNorm) {
    ge::Shape s({1, int64_t(c.m), int64_t(c.k), int64_t(c.ori_k)});
    uint32_t mx = 0, mn = 0;
    GetLayerNormMaxMinTmpSize(s, c.esize, false, mx, mn);
    uint32_t ws = c.tmp == 1 ? mn : mx;
    GetLayerNormNDTilingInfo(s, ws, c.esize, false, t.ln);
    t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn : ws;
  }
  return t;
}

template <class T>
void fill(const Case& c, uint8_t* x, uint8_t* ws) {
  for (uint32_t r = 0; r < c.m; r++)
    for (uint32_t j = 0; j < c.k; j++) put<T>(x, uint64_t(r) * c.k + j, j < c.ori_k ? xv(r * c.k + j) : 0.0);
  for (uint32_t j = 0; j < c.k; j++) {
    put<T>(ws, j, gv(j));
    put<T>(ws, c.k + j, bv(j));
  }
}

template <class T, class U>
bool check_softmax(const Case& c, const uint8_t* x, const uint8_t* y, bool log_out = false) {
  const double tol = sizeof(T) == 2 ? 2e-3 : 1e-5;
  const uint32_t epb = 32 / sizeof(U);
  const uint64_t n = uint64_t(c.m) * c.k;
  const uint8_t* sb = y + n * sizeof(T);
  for (uint32_t r = 0; r < c.m; r++) {
    double mx = -1e300, sm = 0;
    for (uint32_t j = 0; j < c.ori_k; j++) mx = std::max(mx, get<T>(x, uint64_t(r) * c.k + j));
    for (uint32_t j = 0; j < c.ori_k; j++) sm += std::exp(get<T>(x, uint64_t(r) * c.k + j) - mx);
    for (uint32_t j = 0; j < c.k; j++) {
      const double xj = get<T>(x, uint64_t(r) * c.k + j);
      const double ref = log_out ? std::log(std::exp(xj - mx) / sm) : std::exp(xj - mx) / sm;
      if (!close(get<T>(y, uint64_t(r) * c.k + j), ref, tol)) return false;
    }
    for (uint32_t l = 0; l < epb; l++) {
      if (!close(get<U>(sb, uint64_t(r) * epb + l), sm, sizeof(U) == 2 ? 2e-3 : 1e-6)) return false;
      if (!close(get<U>(sb, uint64_t(c.m + r) * epb + l), mx, 0)) return false;
    }
  }
  return true;
}
template <class T>
bool check_sum(const Case& c, const uint8_t* x, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 2e-3 : 1e-6;
  const uint32_t epb = 32 / sizeof(T), out_len = (c.m + epb - 1) / epb * epb;
  for (uint32_t r = 0; r < c.m; r++) {
    double s = 0;
    for (uint32_t j = 0; j < c.ori_k; j++) s += get<T>(x, uint64_t(r) * c.k + j);
    if (!close(get<T>(y, r), s, tol)) return false;
  }
  for (uint32_t r = c.m; r < out_len; r++)
    if (get<T>(y, r) != 0.0) return false;  // the round-up lanes keep what was there
  return true;
}
template <class T>
bool check_rmsnorm(const Case& c, const uint8_t* x, const uint8_t* ws, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 2e-3 : 1e-5;
  for (uint32_t r = 0; r < c.m; r++) {
    double ss = 0;
    for (uint32_t j = 0; j < c.ori_k; j++) ss += std::pow(get<T>(x, uint64_t(r) * c.k + j), 2);
    const double rstd = 1 / std::sqrt(ss / c.ori_k + 1e-5);
    for (uint32_t j = 0; j < c.k; j++) {
      double ref = get<T>(x, uint64_t(r) * c.k + j) * rstd * get<T>(ws, j);
      if (!close(get<T>(y, uint64_t(r) * c.k + j), ref, tol)) return false;
    }
  }
  return true;
}
template <class T>
bool check_layernorm(const Case& c, const uint8_t* x, const uint8_t* ws, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 3e-3 : 1e-5;
  const uint64_t n = uint64_t(c.m) * c.k;
  for (uint32_t r = 0; r < c.m; r++) {
    double s = 0, q = 0;
    for (uint32_t j = 0; j < c.ori_k; j++) s += get<T>(x, uint64_t(r) * c.k + j);
    const double mu = s / c.ori_k;
    for (uint32_t j = 0; j < c.ori_k; j++) q += std::pow(get<T>(x, uint64_t(r) * c.k + j) - mu, 2);
    const double var = q / c.ori_k, rstd = 1 / std::sqrt(var + 1e-5);
    if (!close(get<T>(y, n + r), mu, tol) || !close(get<T>(y, n + c.m + r), var, tol)) return false;
    for (uint32_t j = 0; j < c.k; j++) {
      double ref = (get<T>(x, uint64_t(r) * c.k + j) - mu) * rstd * get<T>(ws, j) + get<T>(ws, c.k + j);
      if (!close(get<T>(y, uint64_t(r) * c.k + j), ref, tol)) return false;
    }
  }
  return true;
}

/// null when the case has no numbers to check (faulty kernels, the by-hand cost kernel).
const char* check(const Case& c, const uint8_t* x, const uint8_t* ws, const uint8_t* y) {
  const bool cost_pair = std::strcmp(c.name, "softmax_hl_cost") == 0 || std::strcmp(c.name, "softmax_by_hand") == 0;
  if (std::strstr(c.name, "_ok") == nullptr && !cost_pair && std::strcmp(c.name, "rmsnorm_by_hand") != 0) return "null";
  bool ok = false;
  if (cost_pair) {  // dst only
    ok = true;
    for (uint32_t r = 0; r < c.m && ok; r++) {
      double mx = -1e300, sm = 0;
      for (uint32_t j = 0; j < c.k; j++) mx = std::max(mx, get<float>(x, uint64_t(r) * c.k + j));
      for (uint32_t j = 0; j < c.k; j++) sm += std::exp(get<float>(x, uint64_t(r) * c.k + j) - mx);
      for (uint32_t j = 0; j < c.k; j++) {
        const double ref = std::exp(get<float>(x, uint64_t(r) * c.k + j) - mx) / sm;
        ok = ok && close(get<float>(y, uint64_t(r) * c.k + j), ref, 1e-5);
      }
    }
  } else if (c.api == Api::SoftMax) {
    if (c.esize == 4) ok = check_softmax<float, float>(c, x, y);
    else if (c.sum_esize == 2) ok = check_softmax<half, half>(c, x, y);
    else ok = check_softmax<half, float>(c, x, y);
  } else if (c.api == Api::Sum) {
    ok = c.esize == 4 ? check_sum<float>(c, x, y) : check_sum<half>(c, x, y);
  } else if (c.api == Api::LogSoftMax) {
    ok = c.esize == 4 ? check_softmax<float, float>(c, x, y, true) : check_softmax<half, half>(c, x, y, true);
  } else if (c.api == Api::RmsNorm) {
    ok = c.esize == 4 ? check_rmsnorm<float>(c, x, ws, y) : check_rmsnorm<half>(c, x, ws, y);
  } else if (c.api == Api::LayerNorm) {
    ok = c.esize == 4 ? check_layernorm<float>(c, x, ws, y) : check_layernorm<half>(c, x, ws, y);
  }
  return ok ? "true" : "false";
}

/// The host helpers' sizes and tilings for a few shapes (tests/highlevel.rs checks them).
void host_checks() {
  ge::Shape sm({8, 64}), sm_bad({8, 10}), sm_big({128, 256});
  optiling::SoftMaxTiling smt;
  SoftMaxTilingFunc(sm, 4, 1000, smt);
  ::SoftMaxTiling smk;
  AscendC::SoftMaxTilingFunc(sm_big, 4, GetSoftMaxMaxTmpSize(sm_big, 4, false), smk);
  uint8_t saved[sizeof(::SoftMaxTiling)] = {};
  optiling::SoftMaxTiling smo;
  SoftMaxTilingFunc(sm_big, 4, GetSoftMaxMaxTmpSize(sm_big, 4, false), smo);
  const bool sm_bytes = smo.SaveToBuffer(saved, sizeof saved) && std::memcmp(saved, &smk, sizeof saved) == 0;
  uint32_t rmax = 0, rmin = 0, hmax = 0, hmin = 0;
  const bool rok = GetRmsNormMaxMinTmpSize(ge::Shape({1, 8, 64}), 4, rmax, rmin);
  GetRmsNormMaxMinTmpSize(ge::Shape({1, 8, 64}), 2, hmax, hmin);
  optiling::RmsNormTiling rt;
  const bool rtok = GetRmsNormTilingInfo(ge::Shape({2, 8, 64}), ge::Shape({2, 8, 60}), 2000, 4, rt);
  ::RmsNormTiling rbad;
  const bool rbad_ok = GetRmsNormTilingInfo(ge::Shape({1, 8, 10}), ge::Shape({1, 8, 10}), 4096, 4, rbad);
  const bool rsmall_ok = GetRmsNormTilingInfo(ge::Shape({1, 8, 64}), ge::Shape({1, 8, 64}), rmin - 4, 4, rbad);
  uint32_t lmax = 0, lmin = 0;
  GetLayerNormMaxMinTmpSize(ge::Shape({1, 8, 64}), 4, false, lmax, lmin);
  optiling::LayerNormTiling lt;
  GetLayerNormNDTilingInfo(ge::Shape({1, 8, 64}), lmin, 4, false, lt);
  ::LayerNormTiling lth;
  GetLayerNormNDTillingInfo(ge::Shape({2, 4, 32, 30}), 4096, 2, false, lth);
  optiling::SoftmaxCustomTilingData custom;
  custom.set_totalLength(320 * 64);
  SoftMaxTilingFunc(ge::Shape({320, 64}), 2, 8192, custom.softmaxTilingData);
  SoftmaxCustomKernelTiling kernel_side{};
  uint8_t custom_buf[sizeof(SoftmaxCustomKernelTiling)] = {};
  const bool custom_saved = custom.SaveToBuffer(custom_buf, sizeof custom_buf);
  std::memcpy(&kernel_side, custom_buf, sizeof kernel_side);
  const bool custom_ok = custom_saved && kernel_side.totalLength == 320 * 64 &&
                         kernel_side.softmaxTilingData.srcM == 320 && kernel_side.softmaxTilingData.srcK == 64 &&
                         kernel_side.softmaxTilingData.splitM == custom.softmaxTilingData.splitM &&
                         kernel_side.softmaxTilingData.splitM > 0;
  optiling::LogSoftMaxTiling lsmt;
  LogSoftMaxTilingFunc(sm, 4, 1000, lsmt);
  ::LogSoftMaxTiling lsmk;
  AscendC::LogSoftMaxTilingFunc(sm_big, 4, GetLogSoftMaxMaxTmpSize(sm_big, 4, false), lsmk);
  uint32_t s1x = 0, s1n = 0, s2x = 0, s2n = 0, s3x = 0, s3n = 0, s0x = 7, s0n = 7;
  GetSumMaxMinTmpSize(3, 2, false, s1x, s1n);
  GetSumMaxMinTmpSize(4096, 4, false, s2x, s2n);
  GetSumMaxMinTmpSize(10000, 2, false, s3x, s3n);
  GetSumMaxMinTmpSize(0, 4, false, s0x, s0n);
  std::printf("{\"name\":\"host_sum\",\"s1\":[%u,%u],\"s2\":[%u,%u],\"s3\":[%u,%u],\"s0\":[%u,%u]}\n", s1x, s1n,
              s2x, s2n, s3x, s3n, s0x, s0n);
  std::printf("{\"name\":\"host_log\",\"lsm_h_min\":%u,\"lsm_h_max\":%u,\"lsm_split\":%u,\"lsm_range\":%u,"
              "\"lsm_big_split\":%u,\"lsm_bad\":%u}\n",
              GetLogSoftMaxMinTmpSize(ge::Shape({16, 128}), 2, false), GetLogSoftMaxMaxTmpSize(ge::Shape({16, 128}), 2, false),
              lsmt.splitM, lsmt.rangeM, lsmk.splitM, GetLogSoftMaxMinTmpSize(ge::Shape({8, 12}), 2, false));
  std::printf(
      "{\"name\":\"host\",\"custom_ok\":%s,\"sm_min\":%u,\"sm_max\":%u,\"sm_bad_min\":%u,\"sm_split\":%u,\"sm_range\":%u,"
      "\"sm_tail\":%u,\"sm_reduce_k\":%u,\"sm_big_split\":%u,\"sm_bytes\":%s,"
      "\"rms_ok\":%s,\"rms_max\":%u,\"rms_min\":%u,\"rms_h_max\":%u,\"rms_h_min\":%u,\"rms_tiling_ok\":%s,"
      "\"rms_bs\":%u,\"rms_align\":%u,\"rms_loop\":%u,\"rms_tail\":%u,\"rms_recip\":%.9g,\"rms_bad\":%s,"
      "\"rms_small\":%s,\"ln_max\":%u,\"ln_min\":%u,\"ln_one\":%u,\"ln_loop\":%u,\"ln_bufs\":%u,"
      "\"ln_h_first\":%u,\"ln_h_orig\":%u,\"ln_h_back\":%.9g}\n",
      custom_ok ? "true" : "false", GetSoftMaxMinTmpSize(sm, 4, false), GetSoftMaxMaxTmpSize(sm, 4, false), GetSoftMaxMinTmpSize(sm_bad, 4, false),
      smt.splitM, smt.rangeM, smt.tailM, smt.reduceK, smk.splitM, sm_bytes ? "true" : "false",
      rok ? "true" : "false", rmax, rmin, hmax, hmin, rtok ? "true" : "false", rt.mainBsLength,
      rt.mainBsLengthAlign, rt.loopRound, rt.tailBsLength, double(rt.reciprocalOfHLength),
      rbad_ok ? "true" : "false", rsmall_ok ? "true" : "false", lmax, lmin, lt.oneTmpSize, lt.loopRound,
      lt.numberOfTmpBuf, lth.firstTmpStartPos, lth.originalHLength, double(lth.lastDimValueBack));
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 20;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(HlTiling)));
  const char* only = argc > 1 ? argv[1] : nullptr;
  if (only && std::strcmp(only, "host") == 0) {
    host_checks();
    only = "none";
  }
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    std::memset(y, 0, kBytes);
    std::memset(ws, 0, kBytes);
    if (c.esize == 2) {
      fill<half>(c, x, ws);
    } else {
      fill<float>(c, x, ws);
    }
    HlTiling t = make_tiling(c);
    std::memcpy(tiling, &t, sizeof t);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, ws, tiling);
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, check(c, x, ws, y),
                r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(ws);
  AscendC::GmFree(tiling);
  return 0;
}
