// ascendc_sim/vec_misc.h — Brcb and CreateVecIndex (api-reference §4.2).
//
// Brcb: each repeat takes 8 consecutive source elements and fills one 32-byte block of
// the destination with each (block b of repeat r at dst + (r*dstRepStride + b*dstBlkStride)*32).
#pragma once

#include <cstdint>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {

template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, ascendc_sim::U8Arg repeatTime,
                 const BrcbRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb: 16- and 32-bit element types only");
  using namespace ascendc_sim;
  const char* api = "Brcb";
  auto& c = ctx(api);
  uint32_t r = vec::check_repeat(repeatTime.raw, api, loc);
  if (r == 0) {
    check_tensor(c, dst.ref(), "dst", api, loc);
    check_tensor(c, src0.ref(), "src0", api, loc);
    c.rec->vector(VecClass::Brcb, dtype_v<T>, 0, false);
    return;
  }
  const uint32_t epb = 32 / sizeof(T);
  uint64_t dspan = (uint64_t(r - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * 32 + 32;
  check_operand(c, src0.ref(), src0.addr_, src0.addr_ + r * 8 * sizeof(T), 32, "src0", api, loc);
  check_operand(c, dst.ref(), dst.addr_, uint32_t(dst.addr_ + dspan), 32, "dst", api, loc);
  // api-reference §4.1 (CANN "通用说明和约束"): a destination may not partially overlap a
  // source. Brcb's 8 source elements of repeat i are read while earlier repeats' blocks are
  // written, so a written block over the source makes the result depend on the hardware's order.
  {
    const uint64_t slo = src0.addr_, shi = slo + uint64_t(r) * 8 * sizeof(T);
    for (uint32_t i = 0; i < r; i++) {
      for (uint32_t b = 0; b < 8; b++) {
        uint64_t off = dst.addr_ + (uint64_t(i) * p.dstRepStride + uint64_t(b) * p.dstBlkStride) * 32;
        if (off < shi && slo < off + 32) {
          fail("vector_overlap", api, loc,
               fmt("dst block %u of repeat %u (UB bytes [%llu, %llu)) overlaps the src0 elements [%llu, %llu) Brcb "
                   "reads; broadcast into a buffer apart from its source",
                   b, i, (unsigned long long)off, (unsigned long long)(off + 32), (unsigned long long)slo,
                   (unsigned long long)shi),
               {{"dst_offset", double(off)}, {"src_offset", double(slo)}});
        }
      }
    }
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, src0.addr_, src0.addr_ + r * 8 * sizeof(T), false, api, loc);
  for (uint32_t i = 0; i < r; i++) {
    for (uint32_t b = 0; b < 8; b++) {
      uint64_t off = dst.addr_ + (uint64_t(i) * p.dstRepStride + uint64_t(b) * p.dstBlkStride) * 32;
      uint64_t s = src0.addr_ + (uint64_t(i) * 8 + b) * sizeof(T);
      hz_access(c, Pipe::V, stamp, uint32_t(off), uint32_t(off + 32), true, api, loc);
      uint8_t init = vec::all_init(c.shadow + s, sizeof(T));
      T v;
      std::memcpy(&v, c.ub + s, sizeof(T));
      for (uint32_t e = 0; e < epb; e++) std::memcpy(c.ub + off + e * sizeof(T), &v, sizeof(T));
      std::memset(c.shadow + off, init, 32);
    }
  }
  // The 8 destination blocks of a repeat, dstBlkStride apart, share UB bank groups as any
  // vector operand's blocks do (vec::bank_cycles).
  vec::Shape bsh;
  bsh.lanes = 8 * (32 / sizeof(T));
  bsh.repeats = r;
  bsh.mask[0] = ~0ull;
  bsh.mask[1] = ~0ull;
  vec::Opnd bop{dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true};
  c.rec->vector(VecClass::Brcb, dtype_v<T>, r, false, vec::bank_cycles(bsh, &bop, 1));
}

/// dst[i] = firstValue + i for i < count.
template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint32_t count, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float, int16_t, int32_t>, "CreateVecIndex: unsupported type");
  using namespace ascendc_sim::vec;
  struct K {
    T f;
    void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
      T* o = reinterpret_cast<T*>(d[0]);
      for (uint64_t i = 0; i < n; i++) o[i] = narrow<T>(widen(f) + wide_t<T>(i));
    }
  };
  Opnd ops[1] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true)};
  run("CreateVecIndex", ascendc_sim::VecClass::Duplicate, ascendc_sim::dtype_v<T>, count_shape(count, 256 / sizeof(T)),
      ops, true, loc, K{firstValue});
  end_count_form("CreateVecIndex");
}

}  // namespace AscendC

namespace AscendC {

/// Copy's strides (CANN `CopyRepeatParams`): block strides and repeat strides of dst/src,
/// in 32-byte blocks.
struct CopyRepeatParams {
  uint16_t dstStride = 1;
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;
  uint16_t srcRepeatSize = 8;
};

}  // namespace AscendC

namespace ascendc_sim::vec {
template <class T>
struct CopyK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    if (d[0] != d[1]) std::memmove(d[0], d[1], n * sizeof(T));
  }
};
}  // namespace ascendc_sim::vec

namespace AscendC {

/// UB -> UB vector copy on PIPE_V (CANN `Copy`): per repeat 256 bytes under the mask, block
/// b of repeat r at base + (r * RepeatSize + b * Stride) * 32; bit-exact; priced as the
/// UB->UB DataCopy class (profile `copy_*`).
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                 ascendc_sim::U8Arg repeatTime, const CopyRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy: 16- and 32-bit element types only");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Copy");
  uint32_t r = check_repeat(repeatTime.raw, "Copy", loc);
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstStride, p.dstRepeatSize, true),
                 od(src.ref(), "src", sizeof(T), p.srcStride, p.srcRepeatSize, false)};
  run("Copy", ascendc_sim::VecClass::Copy, ascendc_sim::dtype_v<T>,
      mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Copy", loc), ops, false, loc, CopyK<T>{});
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                 ascendc_sim::U8Arg repeatTime, const CopyRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy: 16- and 32-bit element types only");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Copy");
  uint32_t r = check_repeat(repeatTime.raw, "Copy", loc);
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstStride, p.dstRepeatSize, true),
                 od(src.ref(), "src", sizeof(T), p.srcStride, p.srcRepeatSize, false)};
  run("Copy", ascendc_sim::VecClass::Copy, ascendc_sim::dtype_v<T>,
      bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Copy", loc), ops, false, loc, CopyK<T>{});
}

}  // namespace AscendC
