// ascendc_sim/vec_gather.h — Gather and GatherMask (api-reference §4.2; CANN Ascend C API
// reference "Gather", "GatherMask").
//
// Gather(dst, src, srcOffset, srcBaseAddr, count | mask, repeatTime, dstRepStride):
// dst[i] = the element of src at byte srcBaseAddr + srcOffset[i] (offsets are uint32 byte
// offsets from src's start and must stay element aligned and inside src); mask forms: one
// repeat fills lanes (256 / sizeof(T)) destination elements, dst repeats dstRepStride
// 32-byte blocks apart, offsets consumed contiguously. PIPE_V; throughput class Gather
// (5 elements/cycle, §4.2).
//
// GatherMask(dst, src0, src1Pattern, reduceMode, mask, GatherMaskParams, rsvdCnt): keeps
// the src0 elements whose pattern bit is 1, packed contiguously into dst; rsvdCnt = how
// many. src1Pattern is a built-in mode 1..7 (1: even elements, 2: odd, 3..6: the 1st..4th
// of every 4, 7: all) or a uint16 (16-bit T) / uint32 (32-bit T) tensor whose bit i is
// element i, consumed contiguously in a repeat and src1RepeatStride blocks apart between
// repeats. reduceMode false (normal): repeatTimes repeats of 256 bytes, mask unused;
// true (counter): `mask` elements in all, ceil(mask / lanes) repeats (the 910B
// configuration; repeatTimes is ignored, as the reference says it is on some products —
// UNCERTAIN which). src0 block b of repeat r starts at (r * src0RepeatStride + b *
// src0BlockStride) * 32 bytes. Throughput class GatherMask (16-bit 64, 32-bit 32 elements/
// cycle, §4.2).
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ascendc_sim/vec_compare.h"
#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {

/// GatherMask repeat parameters; strides in 32-byte blocks.
struct GatherMaskParams {
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 1;
  uint16_t src0RepeatStride = 8;
  uint8_t src1RepeatStride = 8;
};

/// Gatherb repeat parameters (strides in 32-byte blocks).
struct GatherRepeatParams {
  uint8_t dstBlkStride = 1;
  uint8_t dstRepStride = 8;
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;
inline constexpr GatherMaskMode defaultGahterMaskMode = defaultGatherMaskMode;  // the reference's old spelling

}  // namespace AscendC

namespace ascendc_sim::gather {

template <class T>
inline void gather_elems(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                         const AscendC::LocalTensor<uint32_t>& off, uint32_t base, const vec::Shape& sh,
                         uint32_t dst_rep, const char* api, const SrcLoc& loc) {
  static_assert(is_one_of_v<T, int16_t, uint16_t, int32_t, uint32_t, float, half, bfloat16_t>,
                "Gather: element type not supported on Ascend910B");
  CoreContext& c = ctx(api);
  const uint32_t lanes = 256 / sizeof(T);
  const uint64_t n = sh.counter ? sh.count : uint64_t(sh.repeats) * lanes;
  auto [sb, se] = check_tensor(c, src.ref(), "src", api, loc);
  (void)sb;
  if (src.addr_ % 32) check_operand(c, src.ref(), src.addr_, src.addr_, 32, "src", api, loc);
  if (n == 0) {
    check_tensor(c, dst.ref(), "dst", api, loc);
    c.rec->vector(VecClass::Gather, dtype_v<T>, 0, sh.counter);
    return;
  }
  // Offsets: one uint32 per destination lane (lanes per repeat, contiguous).
  const uint64_t noff = sh.counter ? n : uint64_t(sh.repeats) * lanes;
  check_operand(c, off.ref(), off.addr_, uint32_t(off.addr_ + noff * 4), 32, "srcOffset", api, loc);
  check_initialized(c, off.addr_, uint32_t(off.addr_ + noff * 4), "the offsets", api, loc);
  uint64_t dspan = sh.counter ? n * sizeof(T) : (uint64_t(sh.repeats - 1) * dst_rep * 32 + 256);
  check_operand(c, dst.ref(), dst.addr_, uint32_t(dst.addr_ + dspan), 32, "dst", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, off.addr_, uint32_t(off.addr_ + noff * 4), false, api, loc);
  hz_access(c, Pipe::V, stamp, src.addr_, se, false, api, loc);
  for (uint64_t i = 0; i < n; i++) {
    uint32_t r = uint32_t(i / lanes), l = uint32_t(i % lanes);
    if (!sh.counter && !((sh.mask[l / 64] >> (l % 64)) & 1u)) continue;
    uint32_t o;
    std::memcpy(&o, c.ub + off.addr_ + i * 4, 4);
    uint64_t byte = uint64_t(base) + o;
    if (byte % sizeof(T) != 0 || src.addr_ + byte + sizeof(T) > se) {
      fail("ub_out_of_range", api, loc,
           fmt("srcOffset[%llu] = %u (+ srcBaseAddr %u) names byte %llu of src, which is %s (src has %u bytes from "
               "its start)",
               static_cast<unsigned long long>(i), o, base, static_cast<unsigned long long>(byte),
               byte % sizeof(T) ? "not element aligned" : "outside its buffer", se - src.addr_),
           {{"index", double(i)}, {"offset", double(o)}, {"base", double(base)}});
    }
    uint64_t from = src.addr_ + byte;
    uint64_t to = sh.counter ? dst.addr_ + i * sizeof(T) : dst.addr_ + uint64_t(r) * dst_rep * 32 + l * sizeof(T);
    uint8_t init = vec::all_init(c.shadow + from, sizeof(T));
    std::memmove(c.ub + to, c.ub + from, sizeof(T));
    std::memset(c.shadow + to, init, sizeof(T));
    hz_access(c, Pipe::V, stamp, uint32_t(to), uint32_t(to + sizeof(T)), true, api, loc);
  }
  c.rec->vector(VecClass::Gather, dtype_v<T>, sh.repeats, sh.counter);
}

/// Bit `l` of the built-in GatherMask pattern `mode` (1..7).
inline bool builtin_bit(uint8_t mode, uint32_t l) {
  switch (mode) {
    case 1: return l % 2 == 0;
    case 2: return l % 2 == 1;
    case 3: case 4: case 5: case 6: return l % 4 == uint32_t(mode - 3);
    default: return true;
  }
}

template <class T, class U>
inline void gather_mask(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                        const AscendC::LocalTensor<U>* pattern, uint8_t mode, bool reduce_mode, uint32_t mask,
                        const AscendC::GatherMaskParams& p, uint64_t& rsvd, const SrcLoc& loc) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask: 16- and 32-bit element types only");
  const char* api = "GatherMask";
  CoreContext& c = ctx(api);
  const uint32_t lanes = 256 / sizeof(T), epb = 32 / sizeof(T);
  if (!pattern && (mode < 1 || mode > 7)) {
    fail("field_out_of_range", api, loc, fmt("built-in src1Pattern %u is outside [1, 7]", unsigned(mode)),
         {{"src1Pattern", double(mode)}});
  }
  uint32_t repeats = reduce_mode ? uint32_t((uint64_t(mask) + lanes - 1) / lanes) : p.repeatTimes;
  if (!reduce_mode) vec::check_repeat(p.repeatTimes, api, loc);
  uint64_t total = reduce_mode ? mask : uint64_t(repeats) * lanes;
  rsvd = 0;
  check_tensor(c, dst.ref(), "dst", api, loc);
  if (total == 0) {
    c.rec->vector(VecClass::GatherMask, dtype_v<T>, 0, reduce_mode);
    return;
  }
  // src0 span and the pattern bits.
  uint64_t last_elems = total - uint64_t(repeats - 1) * lanes;
  uint64_t s_hi = src0.addr_ + (uint64_t(repeats - 1) * p.src0RepeatStride +
                       uint64_t((last_elems + epb - 1) / epb - 1) * p.src0BlockStride) * 32 + 32;
  check_operand(c, src0.ref(), src0.addr_, uint32_t(s_hi), 32, "src0", api, loc);
  const uint32_t ubits = 8 * sizeof(U);
  uint64_t p_hi = 0;
  if (pattern) {
    p_hi = pattern->addr_ + uint64_t(repeats - 1) * p.src1RepeatStride * 32 + (std::min<uint64_t>(total, lanes) + 7) / 8;
    check_operand(c, pattern->ref(), pattern->addr_, uint32_t(p_hi), 32, "src1Pattern", api, loc);
    check_initialized(c, pattern->addr_, uint32_t(p_hi), "the gather pattern", api, loc);
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, src0.addr_, uint32_t(s_hi), false, api, loc);
  if (pattern) hz_access(c, Pipe::V, stamp, pattern->addr_, uint32_t(p_hi), false, api, loc);
  uint64_t kept = 0;
  for (uint32_t r = 0; r < repeats; r++) {
    uint32_t n = uint32_t(std::min<uint64_t>(lanes, total - uint64_t(r) * lanes));
    for (uint32_t l = 0; l < n; l++) {
      bool take;
      if (pattern) {
        U w;
        std::memcpy(&w, c.ub + pattern->addr_ + uint64_t(r) * p.src1RepeatStride * 32 + (l / ubits) * sizeof(U),
                    sizeof(U));
        take = (w >> (l % ubits)) & 1u;
      } else {
        take = builtin_bit(mode, l);
      }
      if (!take) continue;
      uint64_t from =
          src0.addr_ + (uint64_t(r) * p.src0RepeatStride + uint64_t(l / epb) * p.src0BlockStride) * 32 + (l % epb) * sizeof(T);
      uint64_t to = dst.addr_ + kept * sizeof(T);
      check_operand(c, dst.ref(), uint32_t(to), uint32_t(to + sizeof(T)), 32, "dst", api, loc);
      uint8_t init = vec::all_init(c.shadow + from, sizeof(T));
      std::memmove(c.ub + to, c.ub + from, sizeof(T));
      std::memset(c.shadow + to, init, sizeof(T));
      kept++;
    }
  }
  if (kept) hz_access(c, Pipe::V, stamp, dst.addr_, uint32_t(dst.addr_ + kept * sizeof(T)), true, api, loc);
  rsvd = kept;
  // The instruction ends in normal mask mode (reference: a counter-mode caller sets it again).
  c.counter_mode = false;
  c.rec->vector(VecClass::GatherMask, dtype_v<T>, repeats, reduce_mode);
}

}  // namespace ascendc_sim::gather

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count, ASCENDC_SIM_LOC) {
  ascendc_sim::gather::gather_elems(dst, src, srcOffset, srcBaseAddr,
                                    ascendc_sim::vec::count_shape(count, 256 / sizeof(T)), 8, "Gather", loc);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                   const uint16_t dstRepStride, ASCENDC_SIM_LOC) {
  auto& c = ascendc_sim::ctx("Gather");
  ascendc_sim::vec::Shape sh = ascendc_sim::vec::mask_shape(c, mask, repeatTime, 256 / sizeof(T), true, "Gather", loc);
  ascendc_sim::gather::gather_elems(dst, src, srcOffset, srcBaseAddr, sh, dstRepStride, "Gather", loc);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                   const uint16_t dstRepStride, ASCENDC_SIM_LOC) {
  auto& c = ascendc_sim::ctx("Gather");
  ascendc_sim::vec::Shape sh = ascendc_sim::vec::bits_shape(c, mask, repeatTime, 256 / sizeof(T), true, "Gather", loc);
  ascendc_sim::gather::gather_elems(dst, src, srcOffset, srcBaseAddr, sh, dstRepStride, "Gather", loc);
}

/// Gatherb: per repeat 8 whole 32-byte blocks; block b of repeat r comes from src0 at byte
/// offset offset[8 r + b] (multiple of 32, inside src0) and goes to dst + (r * dstRepStride
/// + b * dstBlkStride) * 32. 910B types uint16_t / uint32_t (reference). Priced as Gather.
template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
                    ascendc_sim::U8Arg repeatTime, const GatherRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>,
                "Gatherb: uint16_t and uint32_t on Ascend910B");
  using namespace ascendc_sim;
  const char* api = "Gatherb";
  CoreContext& c = ctx(api);
  uint32_t r = vec::check_repeat(repeatTime.raw, api, loc);
  auto [sb, se] = check_tensor(c, src0.ref(), "src0", api, loc);
  (void)sb;
  if (r == 0) {
    check_tensor(c, dst.ref(), "dst", api, loc);
    c.rec->vector(VecClass::Gather, dtype_v<T>, 0, false);
    return;
  }
  if (src0.addr_ % 32) check_operand(c, src0.ref(), src0.addr_, src0.addr_, 32, "src0", api, loc);
  check_operand(c, offset.ref(), offset.addr_, offset.addr_ + r * 8 * 4, 32, "offset", api, loc);
  check_initialized(c, offset.addr_, offset.addr_ + r * 8 * 4, "the offsets", api, loc);
  uint64_t dspan = (uint64_t(r - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * 32 + 32;
  check_operand(c, dst.ref(), dst.addr_, uint32_t(dst.addr_ + dspan), 32, "dst", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, offset.addr_, offset.addr_ + r * 8 * 4, false, api, loc);
  hz_access(c, Pipe::V, stamp, src0.addr_, se, false, api, loc);
  for (uint32_t i = 0; i < r * 8; i++) {
    uint32_t o;
    std::memcpy(&o, c.ub + offset.addr_ + i * 4, 4);
    if (o % 32 || uint64_t(src0.addr_) + o + 32 > se) {
      fail("ub_out_of_range", api, loc,
           fmt("offset[%u] = %u names src0 bytes [%u, %u), which are %s (src0 has %u bytes)", i, o, o, o + 32,
               o % 32 ? "not a 32-byte block" : "outside its buffer", se - src0.addr_),
           {{"index", double(i)}, {"offset", double(o)}});
    }
    uint64_t to = dst.addr_ + (uint64_t(i / 8) * p.dstRepStride + uint64_t(i % 8) * p.dstBlkStride) * 32;
    uint64_t from = src0.addr_ + o;
    std::memmove(c.ub + to, c.ub + from, 32);
    std::memmove(c.shadow + to, c.shadow + from, 32);
    hz_access(c, Pipe::V, stamp, uint32_t(to), uint32_t(to + 32), true, api, loc);
  }
  c.rec->vector(VecClass::Gather, dtype_v<T>, r, false);
}

/// User-defined pattern.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASCENDC_SIM_LOC) {
  static_assert(sizeof(U) == sizeof(T) && (std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t>),
                "GatherMask: src1Pattern is uint16_t for 16-bit and uint32_t for 32-bit element types");
  ascendc_sim::gather::gather_mask<T, U>(dst, src0, &src1Pattern, 0, reduceMode, mask, gatherMaskParams, rsvdCnt,
                                         loc);
}
/// Built-in pattern 1..7.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASCENDC_SIM_LOC) {
  ascendc_sim::gather::gather_mask<T, uint32_t>(dst, src0, nullptr, src1Pattern, reduceMode, mask, gatherMaskParams,
                                                rsvdCnt, loc);
}

}  // namespace AscendC
