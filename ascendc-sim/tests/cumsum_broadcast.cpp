// Kernels for the high-level CumSum and Broadcast (tests/cumsum_broadcast.rs): correct
// kernels in the ordinary Ascend C style (queues, DataCopy / DataCopyPad, the API with the
// tiling's shape and temporary size from the host helpers) on several shapes with tails,
// checked against a host reference, and faulty ones whose diagnostic must point at the line
// marked "expect: <kind>".
//
// Usage: cumsum_broadcast        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        cumsum_broadcast host   the host helpers' sizes, one JSON line
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

// The tiling the host writes to the third kernel argument (GM).
struct CumTiling {
  uint32_t outter;
  uint32_t inner;
  uint32_t tmpBytes;
};
struct BrcTiling {
  uint32_t dst0, dst1;  // dstShape (dst1 unused for dim 1)
  uint32_t src0, src1;  // srcShape
  uint32_t tmpBytes;
};

uint32_t align32(uint32_t bytes) { return (bytes + 31) / 32 * 32; }

// ---------------------------------------------------------------- CumSum kernels
inline constexpr CumSumConfig kLastNoRow = {true, false, false};
inline constexpr CumSumConfig kFirstRow = {false, false, true};
inline constexpr CumSumConfig kFirstNoRow = {false, false, false};

// y[0, n) = CumSum of x's [outter, inner] tile; with outputLastRow y[n, n + inner) = the
// last row output. kTmp: sharedTmpBuffer of the tiling's size, else framework-allocated.
template <typename T, const CumSumConfig& cfg, bool kTmp>
__aicore__ void cumsum_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GlobalTensor<uint32_t> tg;
  tg.SetGlobalBuffer((__gm__ uint32_t*)tiling);
  const uint32_t outter = tg.GetValue(0), inner = tg.GetValue(1), tmpBytes = tg.GetValue(2);
  const uint32_t n = outter * inner;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ, rowQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, n * sizeof(T));
  pipe.InitBuffer(outQ, 1, n * sizeof(T));
  pipe.InitBuffer(rowQ, 1, inner * sizeof(T));
  if (kTmp) pipe.InitBuffer(tmpBuf, tmpBytes);
  GlobalTensor<T> xg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> s = inQ.AllocTensor<T>();
  DataCopy(s, xg, n);
  inQ.EnQue(s);
  s = inQ.DeQue<T>();
  LocalTensor<T> d = outQ.AllocTensor<T>();
  LocalTensor<T> r = rowQ.AllocTensor<T>();
  if constexpr (kTmp) {
    LocalTensor<uint8_t> t = tmpBuf.Get<uint8_t>();
    CumSum<T, cfg>(d, r, s, t, {outter, inner});
  } else {
    CumSum<T, cfg>(d, r, s, {outter, inner});
  }
  inQ.FreeTensor(s);
  outQ.EnQue(d);
  rowQ.EnQue(r);
  d = outQ.DeQue<T>();
  DataCopy(yg, d, n);
  outQ.FreeTensor(d);
  r = rowQ.DeQue<T>();
  if (cfg.outputLastRow) DataCopy(yg[n], r, inner);
  rowQ.FreeTensor(r);
}

// The float last-axis scan in place (dst = src), no last row.
__aicore__ void cumsum_in_place_ok(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GlobalTensor<uint32_t> tg;
  tg.SetGlobalBuffer((__gm__ uint32_t*)tiling);
  const uint32_t outter = tg.GetValue(0), inner = tg.GetValue(1), tmpBytes = tg.GetValue(2);
  const uint32_t n = outter * inner;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TBuf<TPosition::VECCALC> tmpBuf, rowBuf;
  pipe.InitBuffer(inQ, 1, n * sizeof(float));
  pipe.InitBuffer(tmpBuf, tmpBytes);
  pipe.InitBuffer(rowBuf, 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = inQ.AllocTensor<float>();
  DataCopy(s, xg, n);
  inQ.EnQue(s);
  s = inQ.DeQue<float>();
  LocalTensor<float> r = rowBuf.Get<float>();
  LocalTensor<uint8_t> t = tmpBuf.Get<uint8_t>();
  CumSum<float, kLastNoRow>(s, r, s, t, {outter, inner});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, s, n);
  inQ.FreeTensor(s);
}

// sharedTmpBuffer 32 bytes below GetCumSumMaxMinTmpSize's minimum for [16, 32] floats
// (2 * 16 * 32 * 4 = 4096).
__aicore__ void cumsum_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, l, t;
  pipe.InitBuffer(a, 16 * 32 * sizeof(float));
  pipe.InitBuffer(b, 16 * 32 * sizeof(float));
  pipe.InitBuffer(l, 32 * sizeof(float));
  pipe.InitBuffer(t, 4096 - 32);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>(), r = l.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 16 * 32);
  CumSum<float>(d, r, s, tmp, {16, 32});  // expect: ub_out_of_range
}

// half along the first axis needs a float copy of the whole [8, 16] source: 8 * 16 * 4 =
// 512 bytes, given 256.
__aicore__ void cumsum_first_half_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, l, t;
  pipe.InitBuffer(a, 8 * 16 * sizeof(half));
  pipe.InitBuffer(b, 8 * 16 * sizeof(half));
  pipe.InitBuffer(l, 16 * sizeof(half));
  pipe.InitBuffer(t, 256);
  LocalTensor<half> s = a.Get<half>(), d = b.Get<half>(), r = l.Get<half>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, half(1.0f), 8 * 16);
  CumSum<half, kFirstRow>(d, r, s, tmp, {8, 16});  // expect: ub_out_of_range
}

// inner = 12 floats: 48 bytes, not whole 32-byte blocks.
__aicore__ void cumsum_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, l, t;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(b, 1024);
  pipe.InitBuffer(l, 64);
  pipe.InitBuffer(t, 8192);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>(), r = l.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 256);
  CumSum<float>(d, r, s, tmp, {4, 12});  // expect: ub_misaligned
}

// The wrong shape: [8, 32] floats on tiles of [4, 32].
__aicore__ void cumsum_shape_too_big(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, l, t;
  pipe.InitBuffer(a, 4 * 32 * sizeof(float));
  pipe.InitBuffer(b, 4 * 32 * sizeof(float));
  pipe.InitBuffer(l, 32 * sizeof(float));
  pipe.InitBuffer(t, 8192);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>(), r = l.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 4 * 32);
  CumSum<float>(d, r, s, tmp, {8, 32});  // expect: ub_out_of_range
}

// The last-row output 8 floats long for rows of 16.
__aicore__ void cumsum_last_row_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, l, t;
  pipe.InitBuffer(a, 4 * 16 * sizeof(float));
  pipe.InitBuffer(b, 4 * 16 * sizeof(float));
  pipe.InitBuffer(l, 8 * sizeof(float));
  pipe.InitBuffer(t, 8192);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>(), r = l.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 4 * 16);
  CumSum<float, kFirstRow>(d, r, s, tmp, {4, 16});  // expect: ub_out_of_range
}

// The last row written into the result's own second row.
__aicore__ void cumsum_last_row_overlap(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 4 * 16 * sizeof(float));
  pipe.InitBuffer(b, 4 * 16 * sizeof(float));
  pipe.InitBuffer(t, 8192);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<float> r = d[16];
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 4 * 16);
  CumSum<float>(d, r, s, tmp, {4, 16});  // expect: vector_overlap
}

// ---------------------------------------------------------------- Broadcast kernels
// y = Broadcast of x's [srcShape] tile to [dstShape] (packed rows), with DataCopyPad in and
// out (the element counts are not whole 32-byte blocks).
template <typename T, int32_t dim, int32_t axis, bool kTmp>
__aicore__ void brc_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GlobalTensor<uint32_t> tg;
  tg.SetGlobalBuffer((__gm__ uint32_t*)tiling);
  uint32_t dstShape[dim], srcShape[dim];
  dstShape[0] = tg.GetValue(0);
  srcShape[0] = tg.GetValue(2);
  if constexpr (dim == 2) {
    dstShape[1] = tg.GetValue(1);
    srcShape[1] = tg.GetValue(3);
  }
  const uint32_t tmpBytes = tg.GetValue(4);
  uint32_t srcSize = 1, dstSize = 1;
  for (int i = 0; i < dim; i++) {
    srcSize *= srcShape[i];
    dstSize *= dstShape[i];
  }
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, align32(srcSize * sizeof(T)));
  pipe.InitBuffer(outQ, 1, align32(dstSize * sizeof(T)));
  if (kTmp) pipe.InitBuffer(tmpBuf, tmpBytes);
  GlobalTensor<T> xg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> s = inQ.AllocTensor<T>();
  DataCopyPad(s, xg, DataCopyExtParams{1, uint32_t(srcSize * sizeof(T)), 0, 0, 0}, DataCopyPadExtParams<T>{});
  inQ.EnQue(s);
  s = inQ.DeQue<T>();
  LocalTensor<T> d = outQ.AllocTensor<T>();
  if constexpr (kTmp) {
    LocalTensor<uint8_t> t = tmpBuf.Get<uint8_t>();
    Broadcast<T, dim, axis>(d, s, dstShape, srcShape, t);
  } else {
    Broadcast<T, dim, axis>(d, s, dstShape, srcShape);
  }
  inQ.FreeTensor(s);
  outQ.EnQue(d);
  d = outQ.DeQue<T>();
  DataCopyPad(yg, d, DataCopyExtParams{1, uint32_t(dstSize * sizeof(T)), 0, 0, 0});
  outQ.FreeTensor(d);
}

// brc_kernel<float, 2, 1, true>'s [37, 1] -> [37, 16] written by hand with the instructions
// the Atlas A2 implementation issues (Brcb to one block per row, Copy of the block along the
// rows), in the same kernel shape: the high-level call must not be modelled cheaper.
__aicore__ void brc_by_hand_ok(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GlobalTensor<uint32_t> tg;
  tg.SetGlobalBuffer((__gm__ uint32_t*)tiling);
  const uint32_t m = tg.GetValue(0), k = tg.GetValue(1), tmpBytes = tg.GetValue(4);
  (void)tg.GetValue(2);
  (void)tg.GetValue(3);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, align32(m * sizeof(float)));
  pipe.InitBuffer(outQ, 1, align32(m * k * sizeof(float)));
  pipe.InitBuffer(tmpBuf, tmpBytes);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = inQ.AllocTensor<float>();
  DataCopyPad(s, xg, DataCopyExtParams{1, uint32_t(m * sizeof(float)), 0, 0, 0}, DataCopyPadExtParams<float>{});
  inQ.EnQue(s);
  s = inQ.DeQue<float>();
  LocalTensor<float> d = outQ.AllocTensor<float>();
  LocalTensor<float> blocks = tmpBuf.Get<float>();
  Brcb(blocks, s, uint8_t((m + 7) / 8), {1, 8});
  Copy(d, blocks, k, uint8_t(m), {1, 0, uint16_t(k / 8), 1});
  inQ.FreeTensor(s);
  outQ.EnQue(d);
  d = outQ.DeQue<float>();
  DataCopyPad(yg, d, DataCopyExtParams{1, uint32_t(m * k * sizeof(float)), 0, 0, 0});
  outQ.FreeTensor(d);
}

// The older spelling BroadCast, [4, 1] -> [4, 16] half.
__aicore__ void brc_old_name_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 32);
  pipe.InitBuffer(b, 4 * 16 * sizeof(half));
  pipe.InitBuffer(t, 512);
  GlobalTensor<half> xg, yg;
  xg.SetGlobalBuffer((__gm__ half*)x);
  yg.SetGlobalBuffer((__gm__ half*)y);
  LocalTensor<half> s = a.Get<half>(), d = b.Get<half>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  DataCopy(s, xg, 16);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  const uint32_t dstShape[2] = {4, 16}, srcShape[2] = {4, 1};
  BroadCast<half, 2, 1>(d, s, dstShape, srcShape, tmp);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, d, 64);
}

// [16, 1] -> [16, 20] floats: the minimum is 8 * 8 + 8 * 24 floats = 1024 bytes.
__aicore__ void brc_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 64);
  pipe.InitBuffer(b, 16 * 20 * sizeof(float));
  pipe.InitBuffer(t, 256);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 16);
  const uint32_t dstShape[2] = {16, 20}, srcShape[2] = {16, 1};
  Broadcast<float, 2, 1>(d, s, dstShape, srcShape, tmp);  // expect: ub_out_of_range
}

// [9, 1] -> [9, 20] half with the maxValue GetBroadCastMaxMinTmpSize gives (1088 bytes):
// below the 1536 bytes one pass needs (the helper's maximum is below its minimum here).
__aicore__ void brc_tmp_helper_max(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 32);
  pipe.InitBuffer(b, 9 * 20 * sizeof(half));
  pipe.InitBuffer(t, 1088);
  LocalTensor<half> s = a.Get<half>(), d = b.Get<half>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, half(1.0f), 16);
  const uint32_t dstShape[2] = {9, 20}, srcShape[2] = {9, 1};
  Broadcast<half, 2, 1>(d, s, dstShape, srcShape, tmp);  // expect: ub_out_of_range
}

// The wrong shape: [3, 1] cannot broadcast to [4, 8].
__aicore__ void brc_wrong_shape(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 32);
  pipe.InitBuffer(b, 4 * 8 * sizeof(float));
  pipe.InitBuffer(t, 1024);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 8);
  const uint32_t dstShape[2] = {4, 8}, srcShape[2] = {3, 1};
  Broadcast<float, 2, 1>(d, s, dstShape, srcShape, tmp);  // expect: field_out_of_range
}

// axis 1 given an axis-0 source [1, 8].
__aicore__ void brc_axis_mismatch(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 32);
  pipe.InitBuffer(b, 4 * 8 * sizeof(float));
  pipe.InitBuffer(t, 1024);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 8);
  const uint32_t dstShape[2] = {4, 8}, srcShape[2] = {1, 8};
  Broadcast<float, 2, 1>(d, s, dstShape, srcShape, tmp);  // expect: field_out_of_range
}

// axis 0 with rows of 12 floats (48 bytes).
__aicore__ void brc_first_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 64);
  pipe.InitBuffer(b, 4 * 12 * sizeof(float));
  pipe.InitBuffer(t, 1024);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 16);
  const uint32_t dstShape[2] = {4, 12}, srcShape[2] = {1, 12};
  Broadcast<float, 2, 0>(d, s, dstShape, srcShape, tmp);  // expect: ub_misaligned
}

// dst in place of src (the API check forbids reusing the source).
__aicore__ void brc_in_place(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, t;
  pipe.InitBuffer(a, 4 * 8 * sizeof(float));
  pipe.InitBuffer(t, 1024);
  LocalTensor<float> s = a.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 32);
  const uint32_t shape[2] = {4, 8};
  Broadcast<float, 2, 0>(s, s, shape, shape, tmp);  // expect: vector_overlap
}

// dst too small for the destination shape: [6, 1] -> [6, 16] floats into 64 floats.
__aicore__ void brc_dst_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 32);
  pipe.InitBuffer(b, 64 * sizeof(float));
  pipe.InitBuffer(t, 1024);
  LocalTensor<float> s = a.Get<float>(), d = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  Duplicate(s, 1.0f, 8);
  const uint32_t dstShape[2] = {6, 16}, srcShape[2] = {6, 1};
  Broadcast<float, 2, 1>(d, s, dstShape, srcShape, tmp);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- host side
// Input values: small multiples of 1/4 (exact in half), some negative.
float xval(uint32_t i) { return float(int(i * 7 % 41) - 20) * 0.25f; }

template <class T>
T to_t(float v) {
  if constexpr (std::is_same_v<T, half>) {
    return half(v);
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    return ToBfloat16(v);
  } else {
    return T(v);
  }
}

template <class T>
void fill(uint8_t* x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    T v = to_t<T>(xval(i));
    std::memcpy(x + i * sizeof(T), &v, sizeof(T));
  }
}

// The CumSum reference: float running sums along the axis, rounded once to T, -0 -> +0.
template <class T>
std::vector<T> cumsum_ref(const uint8_t* x, uint32_t outter, uint32_t inner, bool last_axis) {
  std::vector<T> out(size_t(outter) * inner);
  auto at = [&](uint32_t r, uint32_t j) {
    T v;
    std::memcpy(&v, x + (size_t(r) * inner + j) * sizeof(T), sizeof(T));
    return float(v);
  };
  if (last_axis) {
    for (uint32_t r = 0; r < outter; r++) {
      float acc = 0;
      for (uint32_t j = 0; j < inner; j++) {
        acc = j == 0 ? at(r, j) : acc + at(r, j);
        out[size_t(r) * inner + j] = T(acc + 0.0f);
      }
    }
  } else {
    for (uint32_t j = 0; j < inner; j++) {
      float acc = 0;
      for (uint32_t r = 0; r < outter; r++) {
        acc = r == 0 ? at(r, j) : acc + at(r, j);
        out[size_t(r) * inner + j] = T(acc + 0.0f);
      }
    }
  }
  return out;
}

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
  // Fills x and the tiling; null for the faulty kernels.
  void (*setup)(uint8_t* x, uint8_t* tiling);
  // Checks y against the reference; null: numbers not checked.
  bool (*check)(const uint8_t* x, const uint8_t* y, const uint8_t* tiling);
};

// CumSum cases: shape, type, axis, outputLastRow, and the temporary size (min or max of
// the helper).
template <class T, bool kLast, bool kMax>
void cum_setup(uint8_t* x, uint8_t* tiling, uint32_t outter, uint32_t inner) {
  fill<T>(x, outter * inner);
  uint32_t mx = 0, mn = 0;
  GetCumSumMaxMinTmpSize(ge::Shape({outter, inner}), sizeof(T), kLast, false, mx, mn);
  CumTiling t{outter, inner, std::max<uint32_t>(32, kMax ? mx : mn)};
  std::memcpy(tiling, &t, sizeof t);
}
template <class T, bool kLast, bool kRow>
bool cum_check(const uint8_t* x, const uint8_t* y, const uint8_t* tiling) {
  CumTiling t;
  std::memcpy(&t, tiling, sizeof t);
  const std::vector<T> ref = cumsum_ref<T>(x, t.outter, t.inner, kLast);
  const size_t n = ref.size();
  if (std::memcmp(y, ref.data(), n * sizeof(T)) != 0) return false;
  if (kRow && std::memcmp(y + n * sizeof(T), ref.data() + n - t.inner, t.inner * sizeof(T)) != 0) return false;
  // Nothing written past the outputs.
  const size_t end = (n + (kRow ? t.inner : 0)) * sizeof(T);
  for (size_t b = end; b < end + 64; b++)
    if (y[b] != 0) return false;
  return true;
}

// Broadcast cases.
template <class T, int dim, bool kMax>
void brc_setup(uint8_t* x, uint8_t* tiling, uint32_t d0, uint32_t d1, uint32_t s0, uint32_t s1) {
  BrcTiling t{d0, d1, s0, s1, 0};
  const uint32_t src_size = dim == 2 ? s0 * s1 : s0;
  fill<T>(x, src_size);
  std::vector<int64_t> ds{d0}, ss{s0};
  if (dim == 2) {
    ds.push_back(d1);
    ss.push_back(s1);
  }
  uint32_t mx = 0, mn = 0;
  platform_ascendc::PlatformAscendC p;
  GetBroadCastMaxMinTmpSize(p, ge::Shape(ss), ge::Shape(ds), sizeof(T), false, mx, mn);
  t.tmpBytes = std::max<uint32_t>(32, kMax ? std::max(mx, mn) : mn);
  std::memcpy(tiling, &t, sizeof t);
}
template <class T, int dim>
bool brc_check(const uint8_t* x, const uint8_t* y, const uint8_t* tiling) {
  BrcTiling t;
  std::memcpy(&t, tiling, sizeof t);
  const uint32_t m = dim == 2 ? t.dst0 : 1, k = dim == 2 ? t.dst1 : t.dst0;
  const uint32_t sm = dim == 2 ? t.src0 : 1, sk = dim == 2 ? t.src1 : t.src0;
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t j = 0; j < k; j++) {
      const uint32_t si = sm == 1 ? 0 : i, sj = sk == 1 ? 0 : j;
      if (std::memcmp(y + (size_t(i) * k + j) * sizeof(T), x + (size_t(si) * sk + sj) * sizeof(T), sizeof(T)) != 0)
        return false;
    }
  }
  const size_t end = size_t(m) * k * sizeof(T);
  for (size_t b = end; b < end + 64; b++)
    if (y[b] != 0) return false;
  return true;
}

#define CUM(NAME, T, CFG, TMP, LAST, ROW, MAX, OUT, IN)                                        \
  {NAME, cumsum_kernel<T, CFG, TMP>,                                                           \
   [](uint8_t* x, uint8_t* t) { cum_setup<T, LAST, MAX>(x, t, OUT, IN); }, cum_check<T, LAST, ROW>}
#define BRC(NAME, T, DIM, AXIS, TMP, MAX, D0, D1, S0, S1)                                      \
  {NAME, brc_kernel<T, DIM, AXIS, TMP>,                                                        \
   [](uint8_t* x, uint8_t* t) { brc_setup<T, DIM, MAX>(x, t, D0, D1, S0, S1); }, brc_check<T, DIM>}

const Case kCases[] = {
    // Last axis, float [37, 24] with the minimum (passes of 16, 16 and a tail of 5 rows) and
    // with the maximum (one pass); the default config writes the last row.
    CUM("cumsum_last_f32_min_ok", float, defaultCumSumConfig, true, true, true, false, 37, 24),
    CUM("cumsum_last_f32_max_ok", float, defaultCumSumConfig, true, true, true, true, 37, 24),
    // Last axis, half [3, 48]: float sums rounded once.
    CUM("cumsum_last_f16_ok", half, defaultCumSumConfig, true, true, true, false, 3, 48),
    // Last axis, half [20, 16] without a last row (a pass of 16 and a tail of 4).
    CUM("cumsum_last_f16_norow_ok", half, kLastNoRow, true, true, false, false, 20, 16),
    // First axis, float [7, 40] with a last row (float needs no temporary space).
    CUM("cumsum_first_f32_ok", float, kFirstRow, true, false, true, false, 7, 40),
    // First axis, half [5, 16] with the float copy the helper asks for.
    CUM("cumsum_first_f16_ok", half, kFirstRow, true, false, true, false, 5, 16),
    // First axis, half [9, 32], framework-allocated temporary space, no last row.
    CUM("cumsum_first_f16_framework_ok", half, kFirstNoRow, false, false, false, false, 9, 32),
    {"cumsum_in_place_ok", cumsum_in_place_ok,
     [](uint8_t* x, uint8_t* t) { cum_setup<float, true, false>(x, t, 4, 8); }, cum_check<float, true, false>},
    {"cumsum_tmp_too_small", cumsum_tmp_too_small, nullptr, nullptr},
    {"cumsum_first_half_tmp_too_small", cumsum_first_half_tmp_too_small, nullptr, nullptr},
    {"cumsum_misaligned", cumsum_misaligned, nullptr, nullptr},
    {"cumsum_shape_too_big", cumsum_shape_too_big, nullptr, nullptr},
    {"cumsum_last_row_too_small", cumsum_last_row_too_small, nullptr, nullptr},
    {"cumsum_last_row_overlap", cumsum_last_row_overlap, nullptr, nullptr},
    // Axis 1, float [37, 1] -> [37, 16] with the minimum (8 rows per pass, a tail of 5).
    BRC("brc_last_f32_ok", float, 2, 1, true, false, 37, 16, 37, 1),
    // Axis 1, float [37, 1] -> [37, 16] with the maximum (one pass).
    BRC("brc_last_f32_max_ok", float, 2, 1, true, true, 37, 16, 37, 1),
    {"brc_by_hand_ok", brc_by_hand_ok,
     [](uint8_t* x, uint8_t* t) { brc_setup<float, 2, true>(x, t, 37, 16, 37, 1); }, brc_check<float, 2>},
    // Axis 1, half [9, 1] -> [9, 20]: rows not whole blocks (Copy at the pitch + GatherMask).
    BRC("brc_last_f16_unaligned_ok", half, 2, 1, true, false, 9, 20, 9, 1),
    // Axis 1, int8 [6, 1] -> [6, 33] through half.
    BRC("brc_last_i8_ok", int8_t, 2, 1, true, false, 6, 33, 6, 1),
    // Axis 0, float [1, 24] -> [5, 24]; bfloat16 [1, 48] -> [11, 48]; int32 [1, 8] -> [3, 8].
    BRC("brc_first_f32_ok", float, 2, 0, true, false, 5, 24, 1, 24),
    BRC("brc_first_bf16_ok", bfloat16_t, 2, 0, true, false, 11, 48, 1, 48),
    BRC("brc_first_i32_framework_ok", int32_t, 2, 0, false, false, 3, 8, 1, 8),
    // A single element: half [1, 1] -> [3, 40]; dim 1: uint16 [1] -> [50].
    BRC("brc_scalar_f16_ok", half, 2, 1, true, false, 3, 40, 1, 1),
    BRC("brc_scalar_dim1_u16_ok", uint16_t, 1, 0, true, false, 50, 0, 1, 0),
    // The same shape (a copy): float [4, 7]; dim 1 uint8 [37] through half.
    BRC("brc_same_f32_ok", float, 2, 0, true, false, 4, 7, 4, 7),
    BRC("brc_same_dim1_u8_ok", uint8_t, 1, 0, true, false, 37, 0, 37, 0),
    // Framework-allocated, uint16 [5, 1] -> [5, 8].
    BRC("brc_last_u16_framework_ok", uint16_t, 2, 1, false, false, 5, 8, 5, 1),
    {"brc_old_name_ok", brc_old_name_ok, [](uint8_t* x, uint8_t*) { fill<half>(x, 16); },
     [](const uint8_t* x, const uint8_t* y, const uint8_t*) {
       for (uint32_t i = 0; i < 4; i++)
         for (uint32_t j = 0; j < 16; j++)
           if (std::memcmp(y + (i * 16 + j) * 2, x + i * 2, 2) != 0) return false;
       return true;
     }},
    {"brc_tmp_too_small", brc_tmp_too_small, nullptr, nullptr},
    {"brc_tmp_helper_max", brc_tmp_helper_max, nullptr, nullptr},
    {"brc_wrong_shape", brc_wrong_shape, nullptr, nullptr},
    {"brc_axis_mismatch", brc_axis_mismatch, nullptr, nullptr},
    {"brc_first_misaligned", brc_first_misaligned, nullptr, nullptr},
    {"brc_in_place", brc_in_place, nullptr, nullptr},
    {"brc_dst_too_small", brc_dst_too_small, nullptr, nullptr},
};

void print_sizes(const char* key, uint32_t mx, uint32_t mn, bool last) {
  std::printf("\"%s\":[%u,%u]%s", key, mx, mn, last ? "" : ",");
}

// The host helpers' (max, min) for the shapes the Rust test states by hand.
void host_checks() {
  uint32_t mx = 0, mn = 0;
  std::printf("{\"name\":\"host\",");
  GetCumSumMaxMinTmpSize(ge::Shape({37, 24}), 4, true, false, mx, mn);
  print_sizes("cum_last_f32_37x24", mx, mn, false);
  GetCumSumMaxMinTmpSize(ge::Shape({3, 48}), 2, true, false, mx, mn);
  print_sizes("cum_last_f16_3x48", mx, mn, false);
  GetCumSumMaxMinTmpSize(ge::Shape({7, 40}), 4, false, false, mx, mn);
  print_sizes("cum_first_f32_7x40", mx, mn, false);
  GetCumSumMaxMinTmpSize(ge::Shape({5, 16}), 2, false, false, mx, mn);
  print_sizes("cum_first_f16_5x16", mx, mn, false);
  GetCumSumMaxMinTmpSize(ge::Shape({4, 12}), 4, true, false, mx, mn);
  print_sizes("cum_misaligned", mx, mn, false);
  GetCumSumMaxMinTmpSize(ge::Shape({4, 8, 2}), 4, true, false, mx, mn);
  print_sizes("cum_3d", mx, mn, false);
  platform_ascendc::PlatformAscendC p;
  GetBroadCastMaxMinTmpSize(p, ge::Shape({37, 1}), ge::Shape({37, 16}), 4, false, mx, mn);
  print_sizes("brc_last_f32_37x16", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({9, 1}), ge::Shape({9, 20}), 2, false, mx, mn);
  print_sizes("brc_last_f16_9x20", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({6, 1}), ge::Shape({6, 33}), 1, false, mx, mn);
  print_sizes("brc_last_i8_6x33", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({32, 1}), ge::Shape({32, 16}), 2, false, mx, mn);
  print_sizes("brc_last_f16_32x16", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({1, 24}), ge::Shape({5, 24}), 4, false, mx, mn);
  print_sizes("brc_first_f32_5x24", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({1, 12}), ge::Shape({4, 12}), 4, false, mx, mn);
  print_sizes("brc_first_misaligned", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({1, 1}), ge::Shape({3, 40}), 2, false, mx, mn);
  print_sizes("brc_scalar_f16", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({8}), ge::Shape({8}), 1, false, mx, mn);
  print_sizes("brc_same_u8_8", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({3, 1}), ge::Shape({4, 8}), 4, false, mx, mn);
  print_sizes("brc_wrong_shape", mx, mn, false);
  GetBroadCastMaxMinTmpSize(p, ge::Shape({4, 1, 1}), ge::Shape({4, 2, 2}), 4, false, mx, mn);
  print_sizes("brc_3d", mx, mn, true);
  std::printf("}\n");
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 18;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  const char* only = argc > 1 ? argv[1] : nullptr;
  if (only && std::strcmp(only, "host") == 0) {
    host_checks();
    only = "none";
  }
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    std::memset(x, 0, kBytes);
    std::memset(y, 0, kBytes);
    std::memset(ws, 0, 4096);
    if (c.setup) c.setup(x, ws);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, ws);
    const char* ok = c.check ? (c.check(x, y, ws) ? "true" : "false") : "null";
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, ok, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(ws);
  return 0;
}
