// Kernels for the high-level SoftmaxFlashV2, SoftmaxGrad and SoftmaxGradFront
// (tests/softmax_flash.rs): correct kernels in the ordinary Ascend C style (queues, DataCopy
// with strides, the tiling and temporary size from the host helpers) checked against a double
// reference computed from the stored inputs, and faulty ones whose diagnostic must point at
// the line marked "expect: <kind>".
//
// The flash kernels run the online softmax of FlashAttention-2 over nb column blocks of each
// row (SoftmaxFlashV2 without update on block 0, with update and max/sum in place on the
// others) and, in the same kernel, the one-shot SoftMax of the whole rows: the host checks
// that the blocks rescaled by the later blocks' expMax and divided by the final sum give the
// one-shot softmax.
//
// Usage: softmax_flash        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        softmax_flash host   the host helpers' results, one JSON line
#include <algorithm>
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

struct FlashTiling {
  uint32_t m, kb, nb;   // rows, columns per block, blocks (a row has kb * nb columns)
  uint32_t tmpBytes;    // SoftmaxFlashV2 sharedTmpBuffer; 0 = framework-allocated
  uint32_t smTmpBytes;  // SoftMax's sharedTmpBuffer
  SoftMaxTiling fl;     // SoftmaxFlashV2 on [m, kb]
  SoftMaxTiling sm;     // SoftMax on [m, kb * nb]
};

// y (bytes): P = nb blocks of [m, kb] T (dst of each block) | E = nb blocks of m * 32 bytes
// (expMax of each block, block 0 unused) | sum, max (m * 32 bytes each, U) | S = [m, kb * nb]
// T (the one-shot SoftMax).
struct FlashLayout {
  uint64_t p, e, sum, max, s, end;
};
template <class T>
constexpr FlashLayout flash_layout(uint32_t m, uint32_t kb, uint32_t nb) {
  FlashLayout l{};
  l.p = 0;
  l.e = l.p + uint64_t(nb) * m * kb * sizeof(T);
  l.sum = l.e + uint64_t(nb) * m * 32;
  l.max = l.sum + uint64_t(m) * 32;
  l.s = l.max + uint64_t(m) * 32;
  l.end = l.s + uint64_t(m) * kb * nb * sizeof(T);
  return l;
}

template <class T, class U, bool kTmp, bool kBasic = false>
__aicore__ void flash_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(FlashTiling, td, tiling);
  const uint32_t m = td.m, kb = td.kb, nb = td.nb, k = kb * nb, blk = m * kb;
  const FlashLayout lay = flash_layout<T>(m, kb, nb);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ, fullQ;
  TQue<TPosition::VECOUT, 1> outQ, emQ, smQ;
  TBuf<TPosition::VECCALC> sumBuf, maxBuf, tmpBuf, smTmpBuf, smSumBuf, smMaxBuf;
  pipe.InitBuffer(inQ, 1, blk * sizeof(T));
  pipe.InitBuffer(outQ, 1, blk * sizeof(T));
  pipe.InitBuffer(emQ, 1, m * 32);
  pipe.InitBuffer(fullQ, 1, m * k * sizeof(T));
  pipe.InitBuffer(smQ, 1, m * k * sizeof(T));
  pipe.InitBuffer(sumBuf, m * 32);
  pipe.InitBuffer(maxBuf, m * 32);
  pipe.InitBuffer(smSumBuf, m * 32);
  pipe.InitBuffer(smMaxBuf, m * 32);
  if (kTmp) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  pipe.InitBuffer(smTmpBuf, td.smTmpBytes);
  GlobalTensor<T> xg, pg, eg, sg;
  GlobalTensor<U> sumg, maxg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  pg.SetGlobalBuffer((__gm__ T*)(y + lay.p));
  eg.SetGlobalBuffer((__gm__ T*)(y + lay.e));
  sumg.SetGlobalBuffer((__gm__ U*)(y + lay.sum));
  maxg.SetGlobalBuffer((__gm__ U*)(y + lay.max));
  sg.SetGlobalBuffer((__gm__ T*)(y + lay.s));

  LocalTensor<U> sum = sumBuf.Get<U>(), mx = maxBuf.Get<U>();
  const SoftMaxShapeInfo shape = {m, kb, m, kb};
  const uint32_t emLen = m * 32 / sizeof(T);
  for (uint32_t b = 0; b < nb; b++) {
    LocalTensor<T> in = inQ.AllocTensor<T>();
    DataCopyParams cp;
    cp.blockCount = uint16_t(m);
    cp.blockLen = uint16_t(kb * sizeof(T) / 32);
    cp.srcStride = uint16_t((k - kb) * sizeof(T) / 32);
    DataCopy(in, xg[b * kb], cp);  // block b of every row
    inQ.EnQue(in);
    in = inQ.DeQue<T>();
    LocalTensor<T> out = outQ.AllocTensor<T>();
    LocalTensor<T> em = emQ.AllocTensor<T>();
    if constexpr (kTmp) {
      LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
      if (b == 0) {
        SoftmaxFlashV2<T, false, false, kBasic>(out, sum, mx, in, em, sum, mx, tmp, td.fl, shape);
      } else {
        SoftmaxFlashV2<T, true, false, kBasic>(out, sum, mx, in, em, sum, mx, tmp, td.fl, shape);
      }
    } else {
      if (b == 0) {
        SoftmaxFlashV2<T, false>(out, sum, mx, in, em, sum, mx, td.fl, shape);
      } else {
        SoftmaxFlashV2<T, true>(out, sum, mx, in, em, sum, mx, td.fl, shape);
      }
    }
    inQ.FreeTensor(in);
    outQ.EnQue(out);
    emQ.EnQue(em);
    out = outQ.DeQue<T>();
    DataCopy(pg[b * blk], out, blk);
    outQ.FreeTensor(out);
    em = emQ.DeQue<T>();
    if (b > 0) DataCopy(eg[b * emLen], em, emLen);
    emQ.FreeTensor(em);
  }

  // The one-shot SoftMax of the whole rows.
  LocalTensor<T> full = fullQ.AllocTensor<T>();
  DataCopy(full, xg, m * k);
  fullQ.EnQue(full);
  full = fullQ.DeQue<T>();
  LocalTensor<T> so = smQ.AllocTensor<T>();
  LocalTensor<U> ss = smSumBuf.Get<U>(), sx = smMaxBuf.Get<U>();
  SoftMax<T>(so, ss, sx, full, smTmpBuf.Get<uint8_t>(), td.sm, {m, k, m, k});
  fullQ.FreeTensor(full);
  smQ.EnQue(so);
  so = smQ.DeQue<T>();
  DataCopy(sg, so, m * k);
  smQ.FreeTensor(so);

  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(sumg, sum, m * 32 / sizeof(U));
  DataCopy(maxg, mx, m * 32 / sizeof(U));
}

__aicore__ void flash_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { flash_kernel<float, float, true>(x, y, w, t); }
__aicore__ void flash_f32_max_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_kernel<float, float, true>(x, y, w, t);
}
__aicore__ void flash_f32_tail_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_kernel<float, float, true>(x, y, w, t);
}
__aicore__ void flash_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { flash_kernel<half, half, true>(x, y, w, t); }
__aicore__ void flash_f16_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_kernel<half, float, true>(x, y, w, t);
}
__aicore__ void flash_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_kernel<float, float, false>(x, y, w, t);
}
__aicore__ void flash_f32_basic_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_kernel<float, float, true, true>(x, y, w, t);
}

// The update with the minimum temporary space of GetSoftMaxFlashV2MinTmpSize for [8, 64]
// half data with float sum/max (4 * (2 * 8 + 64 + 64) = 576 bytes), given 544.
__aicore__ void flash_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, e, t;
  pipe.InitBuffer(a, 8 * 64 * 2);
  pipe.InitBuffer(b, 8 * 64 * 2);
  pipe.InitBuffer(s, 8 * 32);
  pipe.InitBuffer(m, 8 * 32);
  pipe.InitBuffer(e, 8 * 32);
  pipe.InitBuffer(t, 544);
  LocalTensor<half> src = a.Get<half>(), dst = b.Get<half>(), em = e.Get<half>();
  LocalTensor<float> sum = s.Get<float>(), mx = m.Get<float>();
  Duplicate(src, half(1.0f), 8 * 64);
  Duplicate(sum, 1.0f, 64);
  Duplicate(mx, 0.0f, 64);
  SoftMaxTiling tiling{};  // not for this shape: the API re-tiles from the buffer
  SoftmaxFlashV2<half, true>(dst, sum, mx, src, em, sum, mx, t.Get<uint8_t>(), tiling,  // expect: ub_out_of_range
                             {8, 64, 8, 64});
}

// A last axis of 12 floats (48 bytes).
__aicore__ void flash_misaligned_k(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, e;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(b, 1024);
  pipe.InitBuffer(s, 256);
  pipe.InitBuffer(m, 256);
  pipe.InitBuffer(e, 256);
  LocalTensor<float> src = a.Get<float>(), dst = b.Get<float>(), sum = s.Get<float>(), mx = m.Get<float>(),
                     em = e.Get<float>();
  Duplicate(src, 1.0f, 96);
  SoftMaxTiling tiling{};
  SoftmaxFlashV2<float>(dst, sum, mx, src, em, sum, mx, tiling, {8, 12, 8, 12});  // expect: ub_misaligned
}

// A SoftMaxTiling never filled and no shape info.
__aicore__ void flash_no_tiling(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(b, 1024);
  LocalTensor<float> src = a.Get<float>(), dst = b.Get<float>();
  Duplicate(src, 1.0f, 256);
  SoftMaxTiling empty{};
  SoftmaxFlashV2<float, true>(dst, dst, dst, src, dst, dst, dst, empty);  // expect: field_out_of_range
}

// expMaxTensor written over the second half of dstTensor.
__aicore__ void flash_expmax_overlaps_dst(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m;
  pipe.InitBuffer(a, 8 * 64 * 4);
  pipe.InitBuffer(b, 8 * 64 * 4);
  pipe.InitBuffer(s, 8 * 32);
  pipe.InitBuffer(m, 8 * 32);
  LocalTensor<float> src = a.Get<float>(), dst = b.Get<float>(), sum = s.Get<float>(), mx = m.Get<float>();
  Duplicate(src, 1.0f, 8 * 64);
  Duplicate(sum, 1.0f, 64);
  Duplicate(mx, 0.0f, 64);
  LocalTensor<float> em = dst[256];
  SoftMaxTiling tiling{};
  SoftmaxFlashV2<float, true>(dst, sum, mx, src, em, sum, mx, tiling, {8, 64, 8, 64});  // expect: vector_overlap
}

// The sum tensor holds 4 rows of blocks for 8 rows.
__aicore__ void flash_sum_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, s, m, e;
  pipe.InitBuffer(a, 8 * 64 * 4);
  pipe.InitBuffer(b, 8 * 64 * 4);
  pipe.InitBuffer(s, 4 * 32);
  pipe.InitBuffer(m, 8 * 32);
  pipe.InitBuffer(e, 8 * 32);
  LocalTensor<float> src = a.Get<float>(), dst = b.Get<float>(), sum = s.Get<float>(), mx = m.Get<float>(),
                     em = e.Get<float>();
  Duplicate(src, 1.0f, 8 * 64);
  SoftMaxTiling tiling{};
  SoftmaxFlashV2<float>(dst, sum, mx, src, em, sum, mx, tiling, {8, 64, 8, 64});  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- cost: the update vs by hand
// One SoftmaxFlashV2 update of a [m, 64] float block with inMax = 0.5 and inSum = 2 in every
// lane, and the same update written with row-batched basic instructions (WholeReduceMax, Brcb,
// Max, Sub, Exp, WholeReduceSum, Mul, Add): the API must not model cheaper.
// y = [dst (m x 64) | expMax (m x 8) | sum (m x 8) | max (m x 8)].
struct UpdateTiling {
  uint32_t m, tmpBytes;
  SoftMaxTiling fl;
};
template <bool kByHand>
__aicore__ void flash_update_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(UpdateTiling, td, tiling);
  const uint32_t m = td.m, n = m * 64, nb = m * 8;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> sumB, maxB, emB, tmpB, redB, brcB, brc2B, tB;
  pipe.InitBuffer(inQ, 1, n * 4);
  pipe.InitBuffer(outQ, 1, n * 4);
  pipe.InitBuffer(sumB, nb * 4);
  pipe.InitBuffer(maxB, nb * 4);
  pipe.InitBuffer(emB, nb * 4);
  pipe.InitBuffer(tmpB, td.tmpBytes);
  pipe.InitBuffer(redB, m * 4 < 32 ? 32 : m * 4);
  pipe.InitBuffer(brcB, nb * 4);
  pipe.InitBuffer(brc2B, nb * 4);
  pipe.InitBuffer(tB, nb * 4);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> in = inQ.AllocTensor<float>();
  DataCopy(in, xg, n);
  inQ.EnQue(in);
  in = inQ.DeQue<float>();
  LocalTensor<float> out = outQ.AllocTensor<float>();
  LocalTensor<float> sum = sumB.Get<float>(), mx = maxB.Get<float>(), em = emB.Get<float>();
  Duplicate(mx, 0.5f, nb);
  Duplicate(sum, 2.0f, nb);
  if constexpr (kByHand) {
    LocalTensor<float> r = redB.Get<float>(), bc = brcB.Get<float>(), bc2 = brc2B.Get<float>(), t = tB.Get<float>();
    const uint8_t rows = uint8_t(m);
    WholeReduceMax(r, in, 64, rows, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    Brcb(bc, r, uint8_t((m + 7) / 8), {1, 8});
    Max(bc, bc, mx, nb);          // the new max
    Sub(t, mx, bc, nb);           // inMax - max
    Exp(em, t, nb);               // expMax
    Sub(out, in, bc, 64, rows, {1, 1, 0, 8, 8, 1});
    Exp(out, out, n);
    WholeReduceSum(r, out, 64, rows, 1, 1, 8);
    Brcb(bc2, r, uint8_t((m + 7) / 8), {1, 8});
    Mul(t, em, sum, nb);  // expMax * inSum
    Add(sum, t, bc2, nb);
    Adds(mx, bc, 0.0f, nb);
  } else {
    SoftmaxFlashV2<float, true>(out, sum, mx, in, em, sum, mx, tmpB.Get<uint8_t>(), td.fl, {m, 64, m, 64});
  }
  outQ.EnQue(out);
  inQ.FreeTensor(in);
  out = outQ.DeQue<float>();
  DataCopy(yg, out, n);
  outQ.FreeTensor(out);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
  DataCopy(yg[n], em, nb);
  DataCopy(yg[n + nb], sum, nb);
  DataCopy(yg[n + 2 * nb], mx, nb);
}
__aicore__ void flash_update_hl_cost_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_update_kernel<false>(x, y, w, t);
}
__aicore__ void flash_update_by_hand_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  flash_update_kernel<true>(x, y, w, t);
}

// ---------------------------------------------------------------- SoftmaxGrad / SoftmaxGradFront
struct GradTiling {
  uint32_t m, k, oriK;
  uint32_t tmpBytes;  // 0 = framework-allocated
  SoftMaxTiling g;
};

// x = the softmax output (src), w = grad, y = dst ([m, k], or [m, epb] for the front forms).
// kMode: 0 SoftmaxGrad, 1 SoftmaxGrad with isFront, 2 SoftmaxGradFront.
template <class T, int kMode, bool kTmp>
__aicore__ void grad_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(GradTiling, td, tiling);
  const uint32_t n = td.m * td.k, nd = kMode == 0 ? n : td.m * 32 / sizeof(T);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> srcQ, gradQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(srcQ, 1, n * sizeof(T));
  pipe.InitBuffer(gradQ, 1, n * sizeof(T));
  pipe.InitBuffer(outQ, 1, nd * sizeof(T));
  if (kTmp) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, gg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  gg.SetGlobalBuffer((__gm__ T*)w);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> s = srcQ.AllocTensor<T>();
  LocalTensor<T> g = gradQ.AllocTensor<T>();
  DataCopy(s, xg, n);
  DataCopy(g, gg, n);
  srcQ.EnQue(s);
  gradQ.EnQue(g);
  s = srcQ.DeQue<T>();
  g = gradQ.DeQue<T>();
  LocalTensor<T> d = outQ.AllocTensor<T>();
  const SoftMaxShapeInfo shape = {td.m, td.k, td.m, td.oriK};
  if constexpr (kMode == 2) {
    if constexpr (kTmp) {
      SoftmaxGradFront<T>(d, g, s, tmpBuf.Get<uint8_t>(), td.g, shape);
    } else {
      SoftmaxGradFront<T>(d, g, s, td.g, shape);
    }
  } else {
    if constexpr (kTmp) {
      SoftmaxGrad<T>(d, g, s, tmpBuf.Get<uint8_t>(), td.g, kMode == 1, shape);
    } else {
      SoftmaxGrad<T>(d, g, s, td.g, kMode == 1, shape);
    }
  }
  srcQ.FreeTensor(s);
  gradQ.FreeTensor(g);
  outQ.EnQue(d);
  d = outQ.DeQue<T>();
  DataCopy(yg, d, nd);
  outQ.FreeTensor(d);
}
__aicore__ void grad_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { grad_kernel<float, 0, true>(x, y, w, t); }
__aicore__ void grad_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { grad_kernel<half, 0, true>(x, y, w, t); }
__aicore__ void grad_f32_padded_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  grad_kernel<float, 0, true>(x, y, w, t);
}
__aicore__ void grad_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  grad_kernel<float, 0, false>(x, y, w, t);
}
__aicore__ void grad_isfront_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  grad_kernel<float, 1, true>(x, y, w, t);
}
__aicore__ void gradfront_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) { grad_kernel<half, 2, true>(x, y, w, t); }
__aicore__ void gradfront_f32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
  grad_kernel<float, 2, false>(x, y, w, t);
}

// half [8, 64]: GetSoftMaxGradMinTmpSize = 4 * (2 * 16 + 3 * 64 + 64) = 1152 bytes, given 1120.
__aicore__ void grad_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, c, t;
  pipe.InitBuffer(a, 8 * 64 * 2);
  pipe.InitBuffer(b, 8 * 64 * 2);
  pipe.InitBuffer(c, 8 * 64 * 2);
  pipe.InitBuffer(t, 1120);
  LocalTensor<half> src = a.Get<half>(), grad = b.Get<half>(), dst = c.Get<half>();
  Duplicate(src, half(0.5f), 8 * 64);
  Duplicate(grad, half(1.0f), 8 * 64);
  SoftMaxTiling tiling{};
  SoftmaxGrad<half>(dst, grad, src, t.Get<uint8_t>(), tiling, false, {8, 64, 8, 64});  // expect: ub_out_of_range
}

// A last axis of 20 halves (40 bytes).
__aicore__ void grad_misaligned_k(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, c;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(b, 1024);
  pipe.InitBuffer(c, 1024);
  LocalTensor<half> src = a.Get<half>(), grad = b.Get<half>(), dst = c.Get<half>();
  Duplicate(src, half(0.5f), 160);
  Duplicate(grad, half(1.0f), 160);
  SoftMaxTiling tiling{};
  SoftmaxGradFront<half>(dst, grad, src, tiling, {8, 20, 8, 20});  // expect: ub_misaligned
}

// SoftmaxGradFront's dst holds 4 blocks for 8 rows.
__aicore__ void gradfront_dst_too_small(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, c;
  pipe.InitBuffer(a, 8 * 64 * 4);
  pipe.InitBuffer(b, 8 * 64 * 4);
  pipe.InitBuffer(c, 4 * 32);
  LocalTensor<float> src = a.Get<float>(), grad = b.Get<float>(), dst = c.Get<float>();
  Duplicate(src, 0.5f, 8 * 64);
  Duplicate(grad, 1.0f, 8 * 64);
  SoftMaxTiling tiling{};
  SoftmaxGradFront<float>(dst, grad, src, tiling, {8, 64, 8, 64});  // expect: ub_out_of_range
}

// sharedTmpBuffer taken from gradTensor's own buffer.
__aicore__ void grad_tmp_overlaps_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, c;
  pipe.InitBuffer(a, 8 * 64 * 4);
  pipe.InitBuffer(b, 8 * 64 * 4 + 8192);
  pipe.InitBuffer(c, 8 * 64 * 4);
  LocalTensor<float> src = a.Get<float>(), grad = b.Get<float>(), dst = c.Get<float>();
  Duplicate(src, 0.5f, 8 * 64);
  Duplicate(grad, 1.0f, 8 * 64);
  LocalTensor<uint8_t> tmp = b.Get<uint8_t>();
  SoftMaxTiling tiling{};
  SoftmaxGrad<float>(dst, grad, src, tmp, tiling, false, {8, 64, 8, 64});  // expect: vector_overlap
}

// ---------------------------------------------------------------- host side
double xv(uint32_t i) { return std::sin(double(i) * 0.37) * 3.0 + double(i % 7) * 0.25; }
double gv(uint32_t i) { return std::cos(double(i) * 0.21) * 0.5; }

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

enum class Api { Flash, Grad, GradFront, Update, None };

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
  Api api;
  uint32_t esize, sum_esize;  // data type size, sum/max type size (Flash)
  uint32_t m, k, nb;          // Flash: [m, k] blocks, nb of them; Grad: [m, k], nb = oriK
  uint32_t tmp_rows;          // sharedTmpBuffer = that many rows of the minimum; 0 framework; 999 the maximum
  bool basic = false;
  bool front = false;  // Grad: SoftmaxGrad with isFront
};

const Case kCases[] = {
    // float, 2 blocks of [16, 64], one row per pass (the minimum).
    {"flash_f32_ok", flash_f32_ok, Api::Flash, 4, 4, 16, 64, 2, 1},
    // the same with the maximum: one pass.
    {"flash_f32_max_ok", flash_f32_max_ok, Api::Flash, 4, 4, 16, 64, 2, 999},
    // float, 3 blocks of [20, 32] with room for 10 rows: passes of 8 and a tail of 4.
    {"flash_f32_tail_ok", flash_f32_tail_ok, Api::Flash, 4, 4, 20, 32, 3, 10},
    // half data and sum/max, 2 blocks of [16, 64].
    {"flash_f16_ok", flash_f16_ok, Api::Flash, 2, 2, 16, 64, 2, 999},
    // half data with float sum/max (half expMax), 3 blocks of [8, 128], 2 rows per pass.
    {"flash_f16_f32_ok", flash_f16_f32_ok, Api::Flash, 2, 4, 8, 128, 3, 2},
    // framework-allocated temporary space, 4 blocks of [8, 32].
    {"flash_f32_framework_ok", flash_f32_framework_ok, Api::Flash, 4, 4, 8, 32, 4, 0},
    // isBasicBlock: [16, 64] blocks, tiling and minimum of the basic-block form.
    {"flash_f32_basic_ok", flash_f32_basic_ok, Api::Flash, 4, 4, 16, 64, 2, 1, true},
    // One update of [32, 64] by the API (the maximum temporary space) and by hand.
    {"flash_update_hl_cost_ok", flash_update_hl_cost_ok, Api::Update, 4, 4, 32, 64, 1, 999},
    {"flash_update_by_hand_ok", flash_update_by_hand_ok, Api::Update, 4, 4, 32, 64, 1, 999},
    {"flash_tmp_too_small", flash_tmp_too_small, Api::None, 4, 4, 0, 0, 0, 0},
    {"flash_misaligned_k", flash_misaligned_k, Api::None, 4, 4, 0, 0, 0, 0},
    {"flash_no_tiling", flash_no_tiling, Api::None, 4, 4, 0, 0, 0, 0},
    {"flash_expmax_overlaps_dst", flash_expmax_overlaps_dst, Api::None, 4, 4, 0, 0, 0, 0},
    {"flash_sum_too_small", flash_sum_too_small, Api::None, 4, 4, 0, 0, 0, 0},
    // SoftmaxGrad float [20, 64] with 3 rows per pass (6 passes and a tail of 2).
    {"grad_f32_ok", grad_f32_ok, Api::Grad, 4, 0, 20, 64, 64, 3},
    // half [16, 128], the maximum.
    {"grad_f16_ok", grad_f16_ok, Api::Grad, 2, 0, 16, 128, 128, 999},
    // float [8, 32] with 29 real columns (the reduction covers them only).
    {"grad_f32_padded_ok", grad_f32_padded_ok, Api::Grad, 4, 0, 8, 32, 29, 1},
    {"grad_f32_framework_ok", grad_f32_framework_ok, Api::Grad, 4, 0, 8, 64, 64, 0},
    // SoftmaxGrad with isFront: the row sums [8, 8].
    {"grad_isfront_f32_ok", grad_isfront_f32_ok, Api::Grad, 4, 0, 8, 64, 64, 1, false, true},
    // SoftmaxGradFront half [16, 64] -> [16, 16].
    {"gradfront_f16_ok", gradfront_f16_ok, Api::GradFront, 2, 0, 16, 64, 64, 2},
    {"gradfront_f32_framework_ok", gradfront_f32_framework_ok, Api::GradFront, 4, 0, 8, 128, 128, 0},
    {"grad_tmp_too_small", grad_tmp_too_small, Api::None, 2, 0, 0, 0, 0, 0},
    {"grad_misaligned_k", grad_misaligned_k, Api::None, 2, 0, 0, 0, 0, 0},
    {"gradfront_dst_too_small", gradfront_dst_too_small, Api::None, 4, 0, 0, 0, 0, 0},
    {"grad_tmp_overlaps_grad", grad_tmp_overlaps_grad, Api::None, 4, 0, 0, 0, 0, 0},
};

uint32_t tmp_bytes(uint32_t rows, uint32_t mn, uint32_t mx) { return rows == 999 ? mx : rows * mn; }

void setup_flash(const Case& c, uint8_t* x, uint8_t* tiling) {
  FlashTiling t{};
  t.m = c.m;
  t.kb = c.k;
  t.nb = c.nb;
  const uint32_t k = c.k * c.nb;
  for (uint32_t i = 0; i < c.m * k; i++) {
    if (c.esize == 2) put<half>(x, i, xv(i));
    else put<float>(x, i, xv(i));
  }
  ge::Shape blk({int64_t(c.m), int64_t(c.k)}), full({int64_t(c.m), int64_t(k)});
  const uint32_t mn = GetSoftMaxFlashV2MinTmpSize(blk, c.esize, c.sum_esize, true, c.basic);
  const uint32_t mx = GetSoftMaxFlashV2MaxTmpSize(blk, c.esize, c.sum_esize, true, c.basic);
  // (the basic-block minimum already counts 8 rows)
  t.tmpBytes = c.tmp_rows == 0 ? 0 : tmp_bytes(c.tmp_rows, mn, mx);
  SoftMaxFlashV2TilingFunc(blk, c.esize, c.sum_esize, t.tmpBytes ? t.tmpBytes : mx, t.fl, true, c.basic);
  t.smTmpBytes = GetSoftMaxMaxTmpSize(full, c.sum_esize, false);
  SoftMaxTilingFunc(full, c.sum_esize, t.smTmpBytes, t.sm);
  std::memcpy(tiling, &t, sizeof t);
}

template <class T, class U>
bool check_flash(const Case& c, const uint8_t* x, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 6e-3 : 2e-5;
  const uint32_t m = c.m, kb = c.k, nb = c.nb, k = kb * nb;
  const FlashLayout lay = flash_layout<T>(m, kb, nb);
  const uint32_t epu = 32 / sizeof(U), ept = 32 / sizeof(T);
  for (uint32_t r = 0; r < m; r++) {
    double mfull = -1e300, sfull = 0;
    for (uint32_t j = 0; j < k; j++) mfull = std::max(mfull, get<T>(x, uint64_t(r) * k + j));
    for (uint32_t j = 0; j < k; j++) sfull += std::exp(get<T>(x, uint64_t(r) * k + j) - mfull);
    // The final max and sum, in every lane.
    for (uint32_t l = 0; l < epu; l++) {
      if (get<U>(y + lay.max, uint64_t(r) * epu + l) != mfull) return false;
      if (!close(get<U>(y + lay.sum, uint64_t(r) * epu + l), sfull, tol)) return false;
    }
    // expMax of block b = exp(running max before b - running max after b).
    double run = -1e300;
    std::vector<double> em(nb, 1.0);
    for (uint32_t b = 0; b < nb; b++) {
      double bm = -1e300;
      for (uint32_t j = 0; j < kb; j++) bm = std::max(bm, get<T>(x, uint64_t(r) * k + b * kb + j));
      const double nm = std::max(run, bm);
      if (b > 0) {
        em[b] = std::exp(run - nm);
        for (uint32_t l = 0; l < ept; l++)
          if (!close(get<T>(y + lay.e, uint64_t(b) * m * ept + uint64_t(r) * ept + l), em[b], tol)) return false;
      }
      run = nm;
    }
    // Block b rescaled by the later blocks' expMax, over the final sum = the one-shot softmax.
    const double sum = get<U>(y + lay.sum, uint64_t(r) * epu);
    for (uint32_t b = 0; b < nb; b++) {
      double scale = 1;
      for (uint32_t b2 = b + 1; b2 < nb; b2++) scale *= get<T>(y + lay.e, uint64_t(b2) * m * ept + uint64_t(r) * ept);
      for (uint32_t j = 0; j < kb; j++) {
        const double p = get<T>(y + lay.p, uint64_t(b) * m * kb + uint64_t(r) * kb + j);
        const double xj = get<T>(x, uint64_t(r) * k + b * kb + j);
        const double ref = std::exp(xj - mfull) / sfull;
        const double sm = get<T>(y + lay.s, uint64_t(r) * k + b * kb + j);
        if (!close(p * scale / sum, ref, 2 * tol) || !close(p * scale / sum, sm, 2 * tol)) return false;
      }
    }
  }
  return true;
}

void setup_update(const Case& c, uint8_t* x, uint8_t* tiling) {
  UpdateTiling t{};
  t.m = c.m;
  for (uint32_t i = 0; i < c.m * 64; i++) put<float>(x, i, xv(i) * 0.25);  // some rows below inMax = 0.5
  ge::Shape s({int64_t(c.m), 64});
  t.tmpBytes = GetSoftMaxFlashV2MaxTmpSize(s, 4, 4, true);
  SoftMaxFlashV2TilingFunc(s, 4, 4, t.tmpBytes, t.fl, true);
  std::memcpy(tiling, &t, sizeof t);
}
bool check_update(const Case& c, const uint8_t* x, const uint8_t* y) {
  const uint32_t m = c.m, n = m * 64, nb = m * 8;
  for (uint32_t r = 0; r < m; r++) {
    double mx = 0.5, rs = 0;
    for (uint32_t j = 0; j < 64; j++) mx = std::max(mx, get<float>(x, uint64_t(r) * 64 + j));
    const double em = std::exp(0.5 - mx);
    for (uint32_t j = 0; j < 64; j++) {
      const double e = std::exp(get<float>(x, uint64_t(r) * 64 + j) - mx);
      rs += e;
      if (!close(get<float>(y, uint64_t(r) * 64 + j), e, 2e-6)) return false;
    }
    for (uint32_t l = 0; l < 8; l++) {
      if (!close(get<float>(y, n + uint64_t(r) * 8 + l), em, 2e-6)) return false;
      if (!close(get<float>(y, n + nb + uint64_t(r) * 8 + l), em * 2 + rs, 2e-6)) return false;
      if (get<float>(y, n + 2 * nb + uint64_t(r) * 8 + l) != mx) return false;
    }
  }
  return true;
}

void setup_grad(const Case& c, uint8_t* x, uint8_t* w, uint8_t* tiling) {
  GradTiling t{};
  t.m = c.m;
  t.k = c.k;
  t.oriK = c.nb;
  for (uint32_t i = 0; i < c.m * c.k; i++) {
    const bool pad = i % c.k >= c.nb;
    if (c.esize == 2) {
      put<half>(x, i, pad ? 0.0 : 0.05 + 0.01 * double(i % 11));
      put<half>(w, i, pad ? 0.0 : gv(i));
    } else {
      put<float>(x, i, pad ? 0.0 : 0.05 + 0.01 * double(i % 11));
      put<float>(w, i, pad ? 0.0 : gv(i));
    }
  }
  const bool front = c.front || c.api == Api::GradFront;
  ge::Shape s({int64_t(c.m), int64_t(c.k)});
  const uint32_t mn = GetSoftMaxGradMinTmpSize(s, c.esize, front, false);
  const uint32_t mx = GetSoftMaxGradMaxTmpSize(s, c.esize, front, false);
  t.tmpBytes = c.tmp_rows == 0 ? 0 : tmp_bytes(c.tmp_rows, mn, mx);
  SoftMaxGradTilingFunc(s, c.esize, t.tmpBytes ? t.tmpBytes : mx, t.g, front);
  std::memcpy(tiling, &t, sizeof t);
}

template <class T>
bool check_grad(const Case& c, const uint8_t* x, const uint8_t* w, const uint8_t* y) {
  const double tol = sizeof(T) == 2 ? 4e-3 : 1e-5;
  const bool front = c.front || c.api == Api::GradFront;
  const uint32_t epb = 32 / sizeof(T);
  for (uint32_t r = 0; r < c.m; r++) {
    double s = 0;
    for (uint32_t j = 0; j < c.nb; j++) s += get<T>(w, uint64_t(r) * c.k + j) * get<T>(x, uint64_t(r) * c.k + j);
    if (front) {
      for (uint32_t l = 0; l < epb; l++)
        if (!close(get<T>(y, uint64_t(r) * epb + l), s, tol)) return false;
      continue;
    }
    for (uint32_t j = 0; j < c.k; j++) {
      const double g = get<T>(w, uint64_t(r) * c.k + j), xs = get<T>(x, uint64_t(r) * c.k + j);
      if (!close(get<T>(y, uint64_t(r) * c.k + j), (g - s) * xs, tol)) return false;
    }
  }
  // Nothing written past the output.
  const uint64_t end = (front ? uint64_t(c.m) * epb : uint64_t(c.m) * c.k) * sizeof(T);
  for (uint64_t b = end; b < end + 64; b++)
    if (y[b] != 0) return false;
  return true;
}

const char* check(const Case& c, const uint8_t* x, const uint8_t* w, const uint8_t* y) {
  if (std::strstr(c.name, "_ok") == nullptr) return "null";
  bool ok = false;
  if (c.api == Api::Update) {
    ok = check_update(c, x, y);
  } else if (c.api == Api::Flash) {
    if (c.esize == 4) ok = check_flash<float, float>(c, x, y);
    else if (c.sum_esize == 2) ok = check_flash<half, half>(c, x, y);
    else ok = check_flash<half, float>(c, x, y);
  } else {
    ok = c.esize == 4 ? check_grad<float>(c, x, w, y) : check_grad<half>(c, x, w, y);
  }
  return ok ? "true" : "false";
}

// The host helpers for shapes the Rust test states by hand.
void host_checks() {
  const ge::Shape f8x64({8, 64}), h16x128({16, 128}), bad({8, 12}), h32x64({32, 64}), t37({37, 64}), g20({20, 64});
  optiling::SoftMaxTiling ft;
  SoftMaxFlashV2TilingFunc(t37, 4, 4, 10 * 288, ft, true);
  constexpr SoftMaxTiling kt = SoftMaxFlashV2TilingFunc(SoftMaxShapeInfo{37, 64, 37, 64}, 4, 4, 10 * 288, true);
  uint8_t saved[sizeof(::SoftMaxTiling)] = {};
  const bool same = ft.SaveToBuffer(saved, sizeof saved) && std::memcmp(saved, &kt, sizeof saved) == 0;
  ::SoftMaxTiling bt{};
  SoftMaxFlashV2TilingFunc(ge::Shape({64, 128}), 4, 4, 1 << 20, bt, true, true);
  ::SoftMaxTiling gt{};
  SoftMaxGradTilingFunc(g20, 4, 3 * 576, gt, false);
  optiling::SoftMaxTiling basic16;
  SoftMaxTilingFunc(h16x128, 2, GetSoftMaxMaxTmpSize(h16x128, 2, false), basic16);
  optiling::SoftMaxTiling small8;
  SoftMaxTilingFunc(f8x64, 2, GetSoftMaxMaxTmpSize(f8x64, 2, false), small8);
  std::printf(
      "{\"name\":\"host\",\"fl_f32\":[%u,%u],\"fl_f16_f32\":[%u,%u],\"fl_f16\":[%u,%u],\"fl_basic\":[%u,%u],"
      "\"fl_brc\":%u,\"fl_bad\":%u,\"fl_bad_type\":%u,\"fl_split\":[%u,%u,%u],\"fl_kernel_same\":%s,"
      "\"fl_basic_split\":[%u,%u],\"gr_f32\":[%u,%u],\"gr_front\":[%u,%u],\"gr_f16\":[%u,%u],\"gr_bad\":%u,"
      "\"gr_split\":[%u,%u,%u],\"basic\":[%s,%s]}\n",
      GetSoftMaxFlashV2MaxTmpSize(f8x64, 4, 4, true), GetSoftMaxFlashV2MinTmpSize(f8x64, 4, 4, true),
      GetSoftMaxFlashV2MaxTmpSize(f8x64, 2, 4, true), GetSoftMaxFlashV2MinTmpSize(f8x64, 2, 4, true),
      GetSoftMaxFlashV2MaxTmpSize(h16x128, 2, 2, false), GetSoftMaxFlashV2MinTmpSize(h16x128, 2, 2, false),
      GetSoftMaxFlashV2MaxTmpSize(h16x128, 4, 4, true, true), GetSoftMaxFlashV2MinTmpSize(h16x128, 4, 4, true, true),
      GetSoftMaxFlashV2MinTmpSize(h32x64, 2, 4, true, false, true), GetSoftMaxFlashV2MinTmpSize(bad, 4, 4, true),
      GetSoftMaxFlashV2MinTmpSize(f8x64, 4, 8, true), ft.splitM, ft.rangeM, ft.tailM, same ? "true" : "false",
      bt.splitM, bt.rangeM, GetSoftMaxGradMaxTmpSize(f8x64, 4, false, false),
      GetSoftMaxGradMinTmpSize(f8x64, 4, false, false), GetSoftMaxGradMaxTmpSize(f8x64, 4, true, false),
      GetSoftMaxGradMinTmpSize(f8x64, 4, true, false), GetSoftMaxGradMaxTmpSize(f8x64, 2, false, false),
      GetSoftMaxGradMinTmpSize(f8x64, 2, false, false), GetSoftMaxGradMinTmpSize(bad, 4, false, false), gt.splitM,
      gt.rangeM, gt.tailM, IsBasicBlockInSoftMax(basic16, 2) ? "true" : "false",
      IsBasicBlockInSoftMax(small8, 2) ? "true" : "false");
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 20;
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
    if (c.api == Api::Flash) setup_flash(c, x, tiling);
    if (c.api == Api::Update) setup_update(c, x, tiling);
    if (c.api == Api::Grad || c.api == Api::GradFront) setup_grad(c, x, w, tiling);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, w, tiling);
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, check(c, x, w, y),
                r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(w);
  AscendC::GmFree(tiling);
  return 0;
}
