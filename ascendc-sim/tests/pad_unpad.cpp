// Kernels for the high-level Pad and UnPad (tests/pad_unpad.rs): correct kernels in the
// ordinary Ascend C style (queues, DataCopyPad in and out, the tiling from PadTilingFunc /
// UnPadTilingFunc and the temporary size from GetPadMaxMinTmpSize) checked bit for bit against
// a host reference, and faulty ones whose diagnostic must point at the line marked
// "expect: <kind>".
//
// Usage: pad_unpad        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        pad_unpad host   the host helpers' results, one JSON line
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

struct PadCase {
  uint32_t h, w, oriW;  // source [h, w]; Pad: the valid columns; UnPad: unused
  uint32_t left, right;
  int32_t value;
  uint32_t tmpBytes;  // sharedTmpBuffer; 0 = framework-allocated
  PadTiling pt;
  UnPadTiling ut;
};

/// The padded row length of a case (Pad) or the kept one (UnPad).
uint32_t pad_pitch(const PadCase& c, uint32_t esize) {
  return c.w * esize % 32 == 0 ? c.w : c.left + c.w + c.right;
}

// x = the source [h, w] (compact), y = the result.
template <class T, bool kTmp, bool kInPlace = false>
__aicore__ void pad_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(PadCase, td, tiling);
  const uint32_t pitch = pad_pitch(td, sizeof(T));
  const uint32_t nsrc = td.h * td.w, ndst = td.h * pitch;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, (nsrc * sizeof(T) + 31) / 32 * 32);
  pipe.InitBuffer(outQ, 1, ndst * sizeof(T));
  if (kTmp) pipe.InitBuffer(tmpBuf, td.tmpBytes);
  GlobalTensor<T> xg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> s = inQ.AllocTensor<T>();
  DataCopyPad(s, xg, DataCopyExtParams{1, uint32_t(nsrc * sizeof(T)), 0, 0, 0}, DataCopyPadExtParams<T>{false, 0, 0, 0});
  inQ.EnQue(s);
  s = inQ.DeQue<T>();
  PadParams params{uint16_t(td.left), uint16_t(td.right), td.value};
  if constexpr (kInPlace) {
    Pad(s, s, params, td.pt);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yg, s, ndst);
    inQ.FreeTensor(s);
    return;
  }
  LocalTensor<T> d = outQ.AllocTensor<T>();
  if constexpr (kTmp) {
    Pad(d, s, params, tmpBuf.Get<uint8_t>(), td.pt);
  } else {
    Pad(d, s, params, td.pt);
  }
  inQ.FreeTensor(s);
  outQ.EnQue(d);
  d = outQ.DeQue<T>();
  DataCopy(yg, d, ndst);
  outQ.FreeTensor(d);
}

template <class T, bool kTmp>
__aicore__ void unpad_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(PadCase, td, tiling);
  const uint32_t ow = td.w - td.right, nsrc = td.h * td.w, ndst = td.h * ow;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, nsrc * sizeof(T));
  pipe.InitBuffer(outQ, 1, (ndst * sizeof(T) + 31) / 32 * 32);
  pipe.InitBuffer(tmpBuf, 1024);
  GlobalTensor<T> xg, yg;
  xg.SetGlobalBuffer((__gm__ T*)x);
  yg.SetGlobalBuffer((__gm__ T*)y);
  LocalTensor<T> s = inQ.AllocTensor<T>();
  DataCopy(s, xg, nsrc);
  inQ.EnQue(s);
  s = inQ.DeQue<T>();
  LocalTensor<T> d = outQ.AllocTensor<T>();
  UnPadParams params{uint16_t(td.left), uint16_t(td.right)};
  if constexpr (kTmp) {
    LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
    UnPad(d, s, params, tmp, td.ut);
  } else {
    UnPad(d, s, params, td.ut);
  }
  inQ.FreeTensor(s);
  outQ.EnQue(d);
  d = outQ.DeQue<T>();
  DataCopyPad(yg, d, DataCopyExtParams{1, uint32_t(ndst * sizeof(T)), 0, 0, 0});
  outQ.FreeTensor(d);
}

__aicore__ void pad_f16_right_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<half, true>(x, y, t); }
__aicore__ void pad_f32_left_right_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<float, true>(x, y, t); }
__aicore__ void pad_f16_wide_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<half, true>(x, y, t); }
__aicore__ void pad_u32_framework_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<uint32_t, false>(x, y, t); }
__aicore__ void pad_i32_aligned_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<int32_t, false>(x, y, t); }
__aicore__ void pad_u16_aligned_in_place_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) {
  pad_kernel<uint16_t, false, true>(x, y, t);
}
__aicore__ void pad_f32_aligned_tall_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { pad_kernel<float, true>(x, y, t); }
__aicore__ void unpad_f16_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { unpad_kernel<half, false>(x, y, t); }
__aicore__ void unpad_f32_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { unpad_kernel<float, true>(x, y, t); }
__aicore__ void unpad_i16_left_ignored_ok(GM_ADDR x, GM_ADDR y, GM_ADDR t) { unpad_kernel<int16_t, false>(x, y, t); }

// Faulty kernels: the source and destination as TBufs, the tiling from the host.
#define PAD_FAULTY_SETUP(T, SRC_BYTES, DST_BYTES)            \
  GET_TILING_DATA_WITH_STRUCT(PadCase, td, tiling);          \
  TPipe pipe;                                                \
  TBuf<TPosition::VECCALC> a, b, tb;                         \
  pipe.InitBuffer(a, SRC_BYTES);                             \
  pipe.InitBuffer(b, DST_BYTES);                             \
  pipe.InitBuffer(tb, td.tmpBytes ? td.tmpBytes : 32);       \
  LocalTensor<T> s = a.Get<T>(), d = b.Get<T>();             \
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();              \
  (void)tmp;                                                 \
  Duplicate(s, T(1), SRC_BYTES / sizeof(T));                 \
  PadParams params{uint16_t(td.left), uint16_t(td.right), td.value}

// half [16, 15] with the tiling made for 2048 bytes of temporary space, given 1024.
__aicore__ void pad_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 512, 512);
  Pad(d, s, params, tmp, td.pt);  // expect: ub_out_of_range
}
// The tiling made for 512 bytes (below the minimum): no temporary blocks.
__aicore__ void pad_tiling_below_minimum(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 512, 512);
  Pad(d, s, params, tmp, td.pt);  // expect: field_out_of_range
}
// half [4, 15] padded 1 left and 1 right: 17 columns, above the 16 of the round-up.
__aicore__ void pad_too_wide(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 128, 256);
  Pad(d, s, params, tmp, td.pt);  // expect: field_out_of_range
}
// float [4, 5] padded 1 right: rows of 6 floats (24 bytes) would not start on 32-byte boundaries.
__aicore__ void pad_rows_misaligned(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(float, 96, 256);
  Pad(d, s, params, tmp, td.pt);  // expect: ub_misaligned
}
// An aligned width [4, 16] floats with leftPad 1.
__aicore__ void pad_aligned_left(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(float, 256, 256);
  Pad(d, s, params, td.pt);  // expect: field_out_of_range
}
// A PadTiling never filled.
__aicore__ void pad_no_tiling(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 512, 512);
  PadTiling empty{};
  Pad(d, s, params, tmp, empty);  // expect: field_out_of_range
}
// half [16, 15] -> [16, 16] into a destination of 8 rows.
__aicore__ void pad_dst_too_small(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 512, 256);
  Pad(d, s, params, tmp, td.pt);  // expect: ub_out_of_range
}
// The destination starting one row into the source.
__aicore__ void pad_dst_overlaps_src(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 1024, 32);
  LocalTensor<half> d2 = s[16];
  (void)d;
  Pad(d2, s, params, tmp, td.pt);  // expect: vector_overlap
}
// UnPad of rows of 12 floats (48 bytes).
__aicore__ void unpad_misaligned(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(float, 256, 256);
  UnPadParams up{0, 2};
  UnPad(d, s, up, td.ut);  // expect: ub_misaligned
}
// UnPad removing nothing (rightPad 0).
__aicore__ void unpad_right_zero(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 512, 512);
  UnPadParams up{0, 0};
  UnPad(d, s, up, tmp, td.ut);  // expect: field_out_of_range
}
// UnPad of 256 rows: one GatherMask repeat a row, at most 255.
__aicore__ void unpad_too_many_rows(GM_ADDR, GM_ADDR, GM_ADDR tiling) {
  PAD_FAULTY_SETUP(half, 256 * 32, 256 * 32);
  UnPadParams up{0, 1};
  UnPad(d, s, up, td.ut);  // expect: repeat_out_of_range
}

// ---------------------------------------------------------------- host side
enum class Api { Pad, UnPad };

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
  Api api;
  uint32_t esize;
  uint32_t h, w, oriW, left, right;
  int32_t value;
  int tmp;              // 0 framework, 1 the minimum, 2 the maximum, 3 half the tiling's need, 4 tiling from 512 B
  bool faulty = false;  // numbers not checked
};

const Case kCases[] = {
    // Scenario 1: half [16, 15] -> [16, 16], the minimum (one fractal of 16 columns).
    {"pad_f16_right_ok", pad_f16_right_ok, Api::Pad, 2, 16, 15, 15, 0, 1, 7, 1},
    // float [5, 13] padded 2 left and 1 right -> [5, 16], the maximum.
    {"pad_f32_left_right_ok", pad_f32_left_right_ok, Api::Pad, 4, 5, 13, 13, 2, 1, -3, 2},
    // half [3, 50] padded 6 left and 8 right -> [3, 64], the minimum (fractals of 16 columns).
    {"pad_f16_wide_ok", pad_f16_wide_ok, Api::Pad, 2, 3, 50, 50, 6, 8, 2, 1},
    // uint32 [7, 5] padded 3 right, framework-allocated.
    {"pad_u32_framework_ok", pad_u32_framework_ok, Api::Pad, 4, 7, 5, 5, 0, 3, 9, 0},
    // Scenario 2: int32 [6, 16] with 13 valid columns, 2 padded with -7 (column 15 keeps its value).
    {"pad_i32_aligned_ok", pad_i32_aligned_ok, Api::Pad, 4, 6, 16, 13, 0, 2, -7, 0},
    // uint16 [4, 32] with 30 valid columns, both padded, in place.
    {"pad_u16_aligned_in_place_ok", pad_u16_aligned_in_place_ok, Api::Pad, 2, 4, 32, 30, 0, 2, 65535, 0},
    // float [300, 8] with 5 valid columns: more than 255 rows (two masked Duplicates).
    {"pad_f32_aligned_tall_ok", pad_f32_aligned_tall_ok, Api::Pad, 4, 300, 8, 5, 0, 3, 4, 1},
    // UnPad half [16, 16] -> [16, 15]; float [9, 16] -> [9, 11] with sharedTmpBuffer.
    {"unpad_f16_ok", unpad_f16_ok, Api::UnPad, 2, 16, 16, 0, 0, 1, 0, 0},
    {"unpad_f32_ok", unpad_f32_ok, Api::UnPad, 4, 9, 16, 0, 0, 5, 0, 0},
    // int16 [3, 32] with leftPad 1 (not effective: ignored) and rightPad 3 -> [3, 29].
    {"unpad_i16_left_ignored_ok", unpad_i16_left_ignored_ok, Api::UnPad, 2, 3, 32, 0, 1, 3, 0, 0},
    {"pad_tmp_too_small", pad_tmp_too_small, Api::Pad, 2, 16, 15, 15, 0, 1, 0, 3, true},
    {"pad_tiling_below_minimum", pad_tiling_below_minimum, Api::Pad, 2, 16, 15, 15, 0, 1, 0, 4, true},
    {"pad_too_wide", pad_too_wide, Api::Pad, 2, 4, 15, 15, 1, 1, 0, 1, true},
    {"pad_rows_misaligned", pad_rows_misaligned, Api::Pad, 4, 4, 5, 5, 0, 1, 0, 1, true},
    {"pad_aligned_left", pad_aligned_left, Api::Pad, 4, 4, 16, 14, 1, 1, 0, 0, true},
    {"pad_no_tiling", pad_no_tiling, Api::Pad, 2, 16, 15, 15, 0, 1, 0, 1, true},
    {"pad_dst_too_small", pad_dst_too_small, Api::Pad, 2, 16, 15, 15, 0, 1, 0, 1, true},
    {"pad_dst_overlaps_src", pad_dst_overlaps_src, Api::Pad, 2, 16, 15, 15, 0, 1, 0, 1, true},
    {"unpad_misaligned", unpad_misaligned, Api::UnPad, 4, 4, 12, 0, 0, 2, 0, 0, true},
    {"unpad_right_zero", unpad_right_zero, Api::UnPad, 2, 16, 16, 0, 0, 0, 0, 0, true},
    {"unpad_too_many_rows", unpad_too_many_rows, Api::UnPad, 2, 256, 16, 0, 0, 1, 0, 0, true},
};

void setup(const Case& c, uint8_t* x, uint8_t* tiling) {
  PadCase t{};
  t.h = c.h;
  t.w = c.w;
  t.oriW = c.oriW;
  t.left = c.left;
  t.right = c.right;
  t.value = c.value;
  for (uint32_t i = 0; i < c.h * c.w; i++) {  // distinct bit patterns per element
    const uint32_t v = (i * 2654435761u) >> 7;
    std::memcpy(x + i * c.esize, &v, c.esize);
    if (c.esize == 2) {  // keep halves finite: a value in [-1024, 1024)
      half hv = half(float(int(v % 2048) - 1024) * 0.5f);
      std::memcpy(x + i * 2, &hv, 2);
    } else if (c.esize == 4 && (std::strstr(c.name, "f32") != nullptr)) {
      float fv = float(int(v % 4096) - 2048) * 0.25f;
      std::memcpy(x + i * 4, &fv, 4);
    }
  }
  ge::Shape src({int64_t(c.h), int64_t(c.w)}), ori({int64_t(c.h), int64_t(c.oriW ? c.oriW : c.w)});
  if (c.api == Api::Pad) {
    uint32_t mx = 0, mn = 0;
    GetPadMaxMinTmpSize(src, c.esize, mx, mn);
    uint32_t ws = c.tmp == 2 ? mx : c.tmp == 3 ? 2 * mn : c.tmp == 4 ? 512 : mn;
    PadTilingFunc(src, ori, ws, c.esize, t.pt);
    t.tmpBytes = c.tmp == 0 ? 0 : c.tmp == 3 ? mn : ws;
  } else {
    uint32_t mx = 0, mn = 0;
    platform_ascendc::PlatformAscendC p;
    GetUnPadMaxMinTmpSize(p, src, c.esize, mx, mn);
    UnPadTilingFunc(src, mx, c.esize, t.ut);
    t.tmpBytes = mx;
  }
  std::memcpy(tiling, &t, sizeof t);
}

template <class T>
bool check_pad(const Case& c, const uint8_t* x, const uint8_t* y) {
  const bool aligned = c.w * sizeof(T) % 32 == 0;
  const uint32_t pitch = aligned ? c.w : c.left + c.w + c.right;
  const T pv = static_cast<T>(c.value);
  for (uint32_t r = 0; r < c.h; r++) {
    for (uint32_t j = 0; j < pitch; j++) {
      T want;
      if (aligned) {
        if (j >= c.oriW && j < c.oriW + c.right) want = pv;
        else std::memcpy(&want, x + (uint64_t(r) * c.w + j) * sizeof(T), sizeof(T));
      } else {
        if (j < c.left || j >= c.left + c.w) want = pv;
        else std::memcpy(&want, x + (uint64_t(r) * c.w + j - c.left) * sizeof(T), sizeof(T));
      }
      if (std::memcmp(&want, y + (uint64_t(r) * pitch + j) * sizeof(T), sizeof(T)) != 0) return false;
    }
  }
  const uint64_t end = uint64_t(c.h) * pitch * sizeof(T);
  for (uint64_t b = end; b < end + 64; b++)
    if (y[b] != 0) return false;
  return true;
}
bool check_unpad(const Case& c, const uint8_t* x, const uint8_t* y) {
  const uint32_t ow = c.w - c.right;
  for (uint32_t r = 0; r < c.h; r++)
    if (std::memcmp(y + uint64_t(r) * ow * c.esize, x + uint64_t(r) * c.w * c.esize, uint64_t(ow) * c.esize) != 0)
      return false;
  const uint64_t end = uint64_t(c.h) * ow * c.esize;
  for (uint64_t b = end; b < end + 64; b++)
    if (y[b] != 0) return false;
  return true;
}

const char* check(const Case& c, const uint8_t* x, const uint8_t* y) {
  if (c.faulty) return "null";
  bool ok;
  if (c.api == Api::UnPad) ok = check_unpad(c, x, y);
  else if (std::strstr(c.name, "f16")) ok = check_pad<half>(c, x, y);
  else if (std::strstr(c.name, "f32")) ok = check_pad<float>(c, x, y);
  else if (std::strstr(c.name, "u32")) ok = check_pad<uint32_t>(c, x, y);
  else if (std::strstr(c.name, "i32")) ok = check_pad<int32_t>(c, x, y);
  else ok = check_pad<uint16_t>(c, x, y);
  return ok ? "true" : "false";
}

void host_checks() {
  uint32_t pmx = 0, pmn = 0, p2mx = 0, p2mn = 0, bmx = 7, bmn = 7, umx = 7, umn = 7, u3mx = 0, u3mn = 0;
  GetPadMaxMinTmpSize(ge::Shape({16, 15}), 2, pmx, pmn);
  GetPadMaxMinTmpSize(ge::Shape({5, 13}), 4, p2mx, p2mn);
  GetPadMaxMinTmpSize(ge::Shape({4, 8, 2}), 4, bmx, bmn);
  platform_ascendc::PlatformAscendC p;
  GetUnPadMaxMinTmpSize(p, ge::Shape({16, 16}), 2, umx, umn);
  optiling::PadTiling pt;
  PadTilingFunc(ge::Shape({320, 63}), ge::Shape({320, 63}), 4096, 2, pt);
  ::PadTiling at{};
  PadTilingFunc(ge::Shape({600, 16}), ge::Shape({600, 13}), 0, 4, at);
  optiling::UnPadTiling ut;
  UnPadTilingFunc(ge::Shape({16, 40}), 2048, 2, ut);
  ::UnPadTiling un{};
  UnPadTilingFunc(ge::Shape({16, 32}), 0, 4, un);
  (void)u3mx;
  (void)u3mn;
  std::printf(
      "{\"name\":\"host\",\"pad_f16\":[%u,%u],\"pad_f32\":[%u,%u],\"pad_bad\":[%u,%u],\"unpad_a2\":[%u,%u],"
      "\"pt\":[%u,%u,%u,%u,%u,%u,%u,%u,%u],\"at\":[%u,%u,%u,%u,%u,%u],\"ut\":[%u,%u,%u,%u,%u],\"un\":[%u,%u,%u]}\n",
      pmx, pmn, p2mx, p2mn, bmx, bmn, umx, umn, pt.tmpBuffer1BlockNum, pt.tmpBuffer2Offset, pt.widthTiling,
      pt.widthFractal, pt.widthFractalTail, pt.widthFractalTailAlingned, pt.brcbFractal, pt.brcbFractalTail,
      pt.brcbTilingRepeatTimesTail, at.widthWithoutLastBlock, at.blocksPerRow, at.heightFractal, at.heightFractalTail,
      at.tailBlockOffset, at.tmpBuffer1BlockNum, ut.tmpBuffer1BlockNum, ut.widthTiling, ut.widthFractal,
      ut.widthFractalTail, ut.tmpBuffer2Offset, un.srcHeight, un.srcWidth, un.widthTiling);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 18;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
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
    std::memset(tiling, 0, 4096);
    setup(c, x, tiling);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, tiling);
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, check(c, x, y), r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(tiling);
  return 0;
}
