// ascendc_sim/hl_pad.h — the high-level Pad and UnPad (api-reference §4.4; vendor pages "Pad"
// atlasascendc_api_07_0849, "Pad Tiling" atlasascendc_api_07_0850, "UnPad" and "UnPad
// Tiling", the header adv_api/pad/pad.h and the Atlas A2 (v220) implementation; facts only,
// written anew). T: int16_t, uint16_t, half, int32_t, uint32_t, float.
//
// Pad works on a [height, width] source (the tiling's srcHeight / srcWidth, filled by
// PadTilingFunc) and pads the width direction up to 32 bytes:
//  * width not 32-byte aligned ("scenario 1"): the source rows are compact (pitch width);
//    dst row r (pitch leftPad + width + rightPad) = leftPad × padValue, the source row,
//    rightPad × padValue. The page: "the total width after pad does not exceed the width
//    rounded up to 32 bytes", and the destination rows must start on 32-byte boundaries,
//    so leftPad + width + rightPad must be exactly that round-up: above it is
//    `field_out_of_range`, below it `ub_misaligned`. The implementation works through
//    sharedTmpBuffer (Brcb into one half, TransDataTo5HD in the other): the tiling's
//    tmpBuffer1BlockNum (stackBufferSize / 1024, GetPadMaxMinTmpSize's minimum is 1024
//    bytes) must be at least 1 (`field_out_of_range`: the tiling was made for a buffer below
//    the minimum, or never) and the buffer must hold tmpBuffer1BlockNum × 1024 bytes
//    (`ub_out_of_range`).
//  * width 32-byte aligned with redundant columns [srcOriWidth, width) ("scenario 2"): dst =
//    the source ([height, width], in place allowed), then columns [srcOriWidth,
//    srcOriWidth + rightPad) of every row set to padValue. Only right padding is supported
//    (leftPad != 0 is `field_out_of_range`), the padded columns must lie in the redundant
//    ones of the last 32-byte block (srcOriWidth + rightPad <= width, width - srcOriWidth
//    <= 32 / sizeof(T); else `field_out_of_range`: the implementation's lane mask covers the
//    last block only). No temporary space is used.
// padValue is an int32_t converted to T (static_cast), so fractional pad values cannot be
// expressed (the vendor's PadParams has an int32_t padValue).
//
// UnPad (Atlas A2): the source [height, width] with width 32-byte aligned (else
// `ub_misaligned`); dst = the first width - rightPad columns of every row, packed
// (pitch width - rightPad), the implementation's single GatherMask over height repeats
// (height > 255 is `repeat_out_of_range`). The page: rightPad in (0, 32 bytes), leftPad
// below 32 bytes and "currently not effective" (it is ignored; out of range is
// `field_out_of_range`). No temporary space on Atlas A2 (GetUnPadMaxMinTmpSize gives 0 on
// Ascend910B); sharedTmpBuffer is accepted and not used.
//
// Both copy bits exactly (shadow bits follow the bytes; pad lanes are initialized). A zero
// srcHeight or srcWidth (a tiling never filled) is `field_out_of_range`. Cost: scenario 2 a
// UB->UB copy of the tile and one masked Duplicate per 255 rows; scenario 1 per row and
// width fractal (16 × tmpBuffer1BlockNum columns) the Brcb of the source into tmp1, a copy
// into tmp2, a TransDataTo5HD of tmpBuffer1BlockNum repeats and the copy of the first lines
// to dst, plus the pad Duplicates; UnPad one GatherMask of height repeats.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_sim/hl_rowwise.h"

namespace AscendC {
/// Pad's parameters (vendor struct PadParams): columns of padding left and right, the value.
struct PadParams {
  PadParams() = default;
  PadParams(const uint16_t leftPadIn, const uint16_t rightPadIn, const int32_t padValueIn)
      : leftPad(leftPadIn), rightPad(rightPadIn), padValue(padValueIn) {}
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
  int32_t padValue = 0;
};
/// UnPad's parameters (vendor struct UnPadParams): columns removed left (not effective) and right.
struct UnPadParams {
  UnPadParams() = default;
  UnPadParams(const uint16_t leftPadIn, const uint16_t rightPadIn) : leftPad(leftPadIn), rightPad(rightPadIn) {}
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
};
}  // namespace AscendC

namespace ascendc_sim::hl {

template <class T>
constexpr bool pad_type_ok = is_one_of_v<T, int16_t, uint16_t, half, int32_t, uint32_t, float>;

inline void copy_bytes(CoreContext& c, uint64_t dst, uint64_t src, uint64_t n) {
  std::memmove(c.ub + dst, c.ub + src, n);
  std::memmove(c.shadow + dst, c.shadow + src, n);
}
template <class T>
inline void fill_value(CoreContext& c, uint64_t dst, uint64_t count, T v) {
  for (uint64_t i = 0; i < count; i++) std::memcpy(c.ub + dst + i * sizeof(T), &v, sizeof(T));
  std::memset(c.shadow + dst, kInit, count * sizeof(T));
}

template <class T>
inline void pad_run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::PadParams& p, const AscendC::LocalTensor<uint8_t>* tmp, const ::PadTiling& t,
                    const SrcLoc& loc) {
  const char* api = "Pad";
  CoreContext& c = ctx(api);
  constexpr uint32_t epb = 32 / sizeof(T);
  const uint32_t h = t.srcHeight, w = t.srcWidth, ow = t.srcOriWidth;
  if (h == 0 || w == 0) {
    fail("field_out_of_range", api, loc,
         fmt("PadTiling has srcHeight %u, srcWidth %u: fill it on the host with PadTilingFunc", h, w),
         {{"srcHeight", double(h)}, {"srcWidth", double(w)}});
  }
  const bool aligned = uint64_t(w) * sizeof(T) % 32 == 0;
  const uint64_t pitch = aligned ? w : uint64_t(p.leftPad) + w + p.rightPad;
  if (aligned) {
    if (p.leftPad != 0) {
      fail("field_out_of_range", api, loc,
           fmt("leftPad %u on a 32-byte aligned width %u: only right padding is supported there", p.leftPad, w),
           {{"leftPad", double(p.leftPad)}, {"srcWidth", double(w)}});
    }
    if (ow > w || w - ow > epb || uint64_t(ow) + p.rightPad > w) {
      fail("field_out_of_range", api, loc,
           fmt("srcOriWidth %u, rightPad %u on width %u: the padded columns must be redundant ones of the last "
               "32-byte block (srcOriWidth + rightPad <= width, width - srcOriWidth <= %u)",
               ow, p.rightPad, w, epb),
           {{"srcOriWidth", double(ow)}, {"rightPad", double(p.rightPad)}, {"srcWidth", double(w)}});
    }
  } else {
    const uint64_t round = (uint64_t(w) + epb - 1) / epb * epb;
    if (pitch > round) {
      fail("field_out_of_range", api, loc,
           fmt("leftPad %u + width %u + rightPad %u = %llu is above the width rounded up to 32 bytes (%llu)",
               p.leftPad, w, p.rightPad, (unsigned long long)pitch, (unsigned long long)round),
           {{"padded_width", double(pitch)}, {"rounded_width", double(round)}});
    }
    if (pitch < round) {
      fail("ub_misaligned", api, loc,
           fmt("padded rows of %llu elements (%llu bytes) do not start on 32-byte boundaries: leftPad + width + "
               "rightPad must be the width rounded up to 32 bytes (%llu)",
               (unsigned long long)pitch, (unsigned long long)(pitch * sizeof(T)), (unsigned long long)round),
           {{"padded_width", double(pitch)}, {"rounded_width", double(round)}});
    }
    if (t.tmpBuffer1BlockNum == 0) {
      fail("field_out_of_range", api, loc,
           "PadTiling tmpBuffer1BlockNum is 0: the width is not 32-byte aligned and the tiling was made for a "
           "temporary buffer below GetPadMaxMinTmpSize's minimum (1024 bytes), or without one",
           {{"tmpBuffer1BlockNum", 0.0}});
    }
  }
  const uint64_t n_src = uint64_t(h) * w, n_dst = uint64_t(h) * pitch;
  const uint64_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  Tile ops[3];
  int no = 0;
  ops[no++] = Tile{src.ref(), "srcTensor", sizeof(T), n_src, false};
  ops[no++] = Tile{dst.ref(), "dstTensor", sizeof(T), n_dst, true};
  if (tmp && !aligned) ops[no++] = Tile{tmp->ref(), "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp && !aligned) {
    const uint64_t need = uint64_t(t.tmpBuffer1BlockNum) * 1024;
    if (tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetPadMaxMinTmpSize / PadTilingFunc", api, loc);
  }

  const T pv = static_cast<T>(p.padValue);
  const uint64_t sa = src.ref().addr, da = dst.ref().addr;
  if (aligned) {
    copy_bytes(c, da, sa, n_src * sizeof(T));
    for (uint32_t r = 0; r < h; r++) fill_value<T>(c, da + (uint64_t(r) * w + ow) * sizeof(T), p.rightPad, pv);
  } else {
    // (operands() rejected any dst/src overlap: dst is larger than src, so never exactly in place.)
    for (uint32_t r = 0; r < h; r++) {
      const uint64_t row = da + uint64_t(r) * pitch * sizeof(T);
      fill_value<T>(c, row, p.leftPad, pv);
      copy_bytes(c, row + uint64_t(p.leftPad) * sizeof(T), sa + uint64_t(r) * w * sizeof(T), uint64_t(w) * sizeof(T));
      fill_value<T>(c, row + (uint64_t(p.leftPad) + w) * sizeof(T), p.rightPad, pv);
    }
  }

  charge_scalar(c, 32);
  if (aligned) {
    charge(c, VecClass::Copy, ceil_div(n_src * sizeof(T), 256));
    charge(c, VecClass::Duplicate, std::max<uint64_t>(1, h));
    return;
  }
  const uint64_t blk = t.tmpBuffer1BlockNum, wt = 16 * blk;
  const uint64_t fractals = w / wt + 1;
  charge(c, VecClass::Brcb, ceil_div(n_src, 8));  // the source broadcast into tmp1, 8 elements a repeat
  for (uint32_t r = 0; r < h; r++) {
    charge_scalar(c, 8 * uint32_t(fractals));
    if (p.leftPad) charge(c, VecClass::Duplicate, p.leftPad);
    if (p.rightPad) charge(c, VecClass::Duplicate, p.rightPad);
    for (uint64_t i = 0; i < fractals; i++) {
      charge(c, VecClass::Copy, ceil_div(wt * 32, 256));  // tmp1 -> tmp2
      c.rec->vector(VecClass::Simple, dtype_v<T>, uint32_t(2 * blk), false);  // TransDataTo5HD in place
      charge(c, VecClass::Copy, ceil_div(blk * 32, 256) + 1);              // the first lines to dst
    }
  }
}

template <class T>
inline void unpad_run(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      const AscendC::UnPadParams& p, const AscendC::LocalTensor<uint8_t>* tmp, const ::UnPadTiling& t,
                      const SrcLoc& loc) {
  const char* api = "UnPad";
  CoreContext& c = ctx(api);
  const uint32_t h = t.srcHeight, w = t.srcWidth;
  if (h == 0 || w == 0) {
    fail("field_out_of_range", api, loc,
         fmt("UnPadTiling has srcHeight %u, srcWidth %u: fill it on the host with UnPadTilingFunc", h, w),
         {{"srcHeight", double(h)}, {"srcWidth", double(w)}});
  }
  if (uint64_t(w) * sizeof(T) % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("srcWidth %u elements (%u bytes) is not a multiple of 32 bytes: UnPad reads 32-byte aligned rows", w,
             uint32_t(w * sizeof(T))),
         {{"srcWidth", double(w)}});
  }
  if (p.rightPad == 0 || uint64_t(p.rightPad) * sizeof(T) >= 32 || uint64_t(p.leftPad) * sizeof(T) >= 32 ||
      p.rightPad >= w) {
    fail("field_out_of_range", api, loc,
         fmt("rightPad %u, leftPad %u: rightPad must be above 0 and below 32 bytes (%u elements), leftPad below 32 "
             "bytes",
             p.rightPad, p.leftPad, uint32_t(32 / sizeof(T))),
         {{"rightPad", double(p.rightPad)}, {"leftPad", double(p.leftPad)}});
  }
  if (h > 255) {
    fail("repeat_out_of_range", api, loc,
         fmt("srcHeight %u: UnPad is one GatherMask of one repeat per row, at most 255", h), {{"srcHeight", double(h)}});
  }
  (void)tmp;  // Atlas A2: no temporary space
  const uint32_t ow = w - p.rightPad;
  Tile ops[2] = {Tile{src.ref(), "srcTensor", sizeof(T), uint64_t(h) * w, false},
                 Tile{dst.ref(), "dstTensor", sizeof(T), uint64_t(h) * ow, true}};
  operands(c, ops, 2, api, loc);
  const uint64_t sa = src.ref().addr, da = dst.ref().addr;
  for (uint32_t r = 0; r < h; r++)
    copy_bytes(c, da + uint64_t(r) * ow * sizeof(T), sa + uint64_t(r) * w * sizeof(T), uint64_t(ow) * sizeof(T));
  charge_scalar(c, 16);
  charge(c, VecClass::GatherMask, h);
}

}  // namespace ascendc_sim::hl

namespace AscendC {
#define ASCENDC_SIM_PAD_CHECK(T)                                                                              \
  static_assert(ascendc_sim::hl::pad_type_ok<T>,                                                              \
                "Pad/UnPad: T must be int16_t, uint16_t, half, int32_t, uint32_t or float")

/// Pad with sharedTmpBuffer (vendor pad.h).
template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
                const LocalTensor<uint8_t>& sharedTmpBuffer, PadTiling& tiling, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_PAD_CHECK(T);
  ascendc_sim::hl::pad_run<T>(dstTensor, srcTensor, padParams, &sharedTmpBuffer, tiling, loc);
}
/// Pad, framework-allocated temporary space (not size-checked).
template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
                PadTiling& tiling, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_PAD_CHECK(T);
  ascendc_sim::hl::pad_run<T>(dstTensor, srcTensor, padParams, nullptr, tiling, loc);
}
/// UnPad with sharedTmpBuffer (unused on Atlas A2).
template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
                  LocalTensor<uint8_t>& sharedTmpBuffer, UnPadTiling& tiling, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_PAD_CHECK(T);
  ascendc_sim::hl::unpad_run<T>(dstTensor, srcTensor, unPadParams, &sharedTmpBuffer, tiling, loc);
}
/// UnPad, framework-allocated temporary space.
template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
                  UnPadTiling& tiling, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_PAD_CHECK(T);
  ascendc_sim::hl::unpad_run<T>(dstTensor, srcTensor, unPadParams, nullptr, tiling, loc);
}
#undef ASCENDC_SIM_PAD_CHECK
}  // namespace AscendC
