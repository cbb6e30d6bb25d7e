// ascendc_sim/vec_transpose.h — Transpose (16x16 form) and TransDataTo5HD (16-bit types).
//
// Facts (vendor pages "Transpose" and "TransDataTo5HD", cannmirror/asc-devkit
// docs/api/context/; TransDataTo5HDParams as in kernel_struct_transpose.h; Atlas A2):
//  * Transpose(dst, src): one 16 x 16 matrix of uint16_t/int16_t/half (512 bytes), dst(j, i)
//    = src(i, j); both 32-byte aligned.
//  * TransDataTo5HD(dstList[16], srcList[16], params), with LocalTensor lists, uint64_t
//    address lists (GetPhyAddr values) or uint64_t tensors holding the addresses: for 16-bit
//    types each repeat reads one 32-byte block (16 elements) at each of the 16 source
//    addresses and writes block k of the result to dst address k: element e of that block
//    is element k of the block at source address e. Repeat r uses the addresses plus
//    r * srcRepStride / dstRepStride blocks; with repeatTimes = 1 the page says the first
//    (only) repeat already adds the strides once (set them to 0 to start at the lists).
//    repeatTimes in [0, 255]; every address 32-byte aligned.
// Cost: 128 elements per cycle for 16-bit data (the A2 throughput table), the rate of the
// simple class: a 16 x 16 block is two 256-byte repeats.
// Not implemented (they do not compile): the enhanced Transpose with TransposeParamsExt
// (NCHW <-> NHWC, TRANSPOSE_ND2ND_B16 with a temp buffer) and TransDataTo5HD for 8-bit
// (srcHighHalf / dstHighHalf) and 32-bit types, whose block rules the pages give only as
// figures.
#pragma once

#include <cstdint>
#include <cstring>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {

inline constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
  constexpr TransDataTo5HDParams() = default;
  constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                 const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
      : dstHighHalf(dstHighHalfIn),
        srcHighHalf(srcHighHalfIn),
        repeatTimes(repeatTimesIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  bool dstHighHalf = false;
  bool srcHighHalf = false;
  uint8_t repeatTimes = 1;
  uint16_t dstRepStride = 0;
  uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace ascendc_sim::transpose {

template <class T>
inline void transpose16(const UbRef& dst, const UbRef& src, const SrcLoc& loc) {
  const char* api = "Transpose";
  CoreContext& c = ctx(api);
  check_operand(c, dst, dst.addr, dst.addr + 512, 32, "dst", api, loc);
  check_operand(c, src, src.addr, src.addr + 512, 32, "src", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, src.addr, src.addr + 512, false, api, loc);
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + 512, true, api, loc);
  uint8_t tmp[512], tsh[512];
  for (uint32_t i = 0; i < 16; i++)
    for (uint32_t j = 0; j < 16; j++) {
      std::memcpy(tmp + (j * 16 + i) * 2, c.ub + src.addr + (i * 16 + j) * 2, 2);
      std::memcpy(tsh + (j * 16 + i) * 2, c.shadow + src.addr + (i * 16 + j) * 2, 2);
    }
  std::memcpy(c.ub + dst.addr, tmp, 512);
  std::memcpy(c.shadow + dst.addr, tsh, 512);
  c.rec->vector(VecClass::Simple, dtype_v<T>, 2, false);
}

/// The UbRef of a UB address given as a host pointer value (GetPhyAddr): the live buffer
/// that holds [addr, addr + 32). Outside UB or outside every live buffer: `ub_out_of_range`.
inline UbRef ref_of_address(CoreContext& c, uint64_t host, const char* role, uint32_t i, const char* api,
                            const SrcLoc& loc) {
  const uint64_t base = uint64_t(reinterpret_cast<uintptr_t>(c.ub));
  if (host < base || host - base + 32 > c.ub_bytes) {
    fail("ub_out_of_range", api, loc,
         fmt("%s[%u] = 0x%llx is not a Unified Buffer address (use LocalTensor::GetPhyAddr())", role, i,
             static_cast<unsigned long long>(host)),
         {{"index", double(i)}});
  }
  const uint32_t off = uint32_t(host - base);
  for (size_t bi = 0; bi < c.bufs.size(); bi++) {
    const BufRec& b = c.bufs[bi];
    bool live = b.is_static || b.state == BufState::TBuf || b.state == BufState::Occupied ||
                b.state == BufState::Enque || b.state == BufState::Deque;
    if (live && off >= b.start && off < b.start + b.len) return UbRef{off, int32_t(bi), b.gen};
  }
  fail("tensor_not_allocated", api, loc,
       fmt("%s[%u] points at UB byte %u, which no allocated buffer holds", role, i, off), {{"ub_offset", double(off)}});
}

template <class T>
inline void to5hd(const UbRef* dst, const UbRef* src, const AscendC::TransDataTo5HDParams& p, const SrcLoc& loc) {
  const char* api = "TransDataTo5HD";
  CoreContext& c = ctx(api);
  const uint32_t reps = p.repeatTimes;
  const uint64_t dstep = uint64_t(p.dstRepStride) * 32, sstep = uint64_t(p.srcRepStride) * 32;
  auto off = [&](uint32_t r, uint64_t step) { return (reps == 1 ? 1 : r) * step; };
  for (uint32_t i = 0; i < 16 && reps > 0; i++) {
    uint64_t shi = src[i].addr + off(reps - 1, sstep) + 32, dhi = dst[i].addr + off(reps - 1, dstep) + 32;
    check_operand(c, src[i], uint32_t(std::min<uint64_t>(src[i].addr + off(0, sstep), 0xFFFFFFFFull)),
                  uint32_t(std::min<uint64_t>(shi, 0xFFFFFFFFull)), 32, "srcList", api, loc);
    check_operand(c, dst[i], uint32_t(std::min<uint64_t>(dst[i].addr + off(0, dstep), 0xFFFFFFFFull)),
                  uint32_t(std::min<uint64_t>(dhi, 0xFFFFFFFFull)), 32, "dstList", api, loc);
  }
  if (reps == 0) {
    c.rec->vector(VecClass::Simple, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  for (uint32_t r = 0; r < reps; r++) {
    uint8_t tmp[512], tsh[512];
    for (uint32_t e = 0; e < 16; e++) {
      uint32_t s = uint32_t(src[e].addr + off(r, sstep));
      hz_access(c, Pipe::V, stamp, s, s + 32, false, api, loc);
      for (uint32_t k = 0; k < 16; k++) {
        std::memcpy(tmp + (k * 16 + e) * 2, c.ub + s + k * 2, 2);
        std::memcpy(tsh + (k * 16 + e) * 2, c.shadow + s + k * 2, 2);
      }
    }
    for (uint32_t k = 0; k < 16; k++) {
      uint32_t d = uint32_t(dst[k].addr + off(r, dstep));
      hz_access(c, Pipe::V, stamp, d, d + 32, true, api, loc);
      std::memcpy(c.ub + d, tmp + k * 32, 32);
      std::memcpy(c.shadow + d, tsh + k * 32, 32);
    }
  }
  c.rec->vector(VecClass::Simple, dtype_v<T>, 2 * reps, false);
}

template <class T>
constexpr bool is_b16_v = ascendc_sim::is_one_of_v<T, uint16_t, int16_t, half>;

}  // namespace ascendc_sim::transpose

namespace AscendC {

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::transpose::is_b16_v<T>,
                "Transpose(dst, src): the 16x16 form takes uint16_t, int16_t or half on Ascend910B");
  ascendc_sim::transpose::transpose16<T>(dst.ref(), src.ref(), loc);
}

template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::transpose::is_b16_v<T>,
                "TransDataTo5HD: the simulator implements the 16-bit types (uint16_t, int16_t, half) only");
  ascendc_sim::UbRef d[16], s[16];
  for (int i = 0; i < 16; i++) {
    d[i] = dstList[i].ref();
    s[i] = srcList[i].ref();
  }
  ascendc_sim::transpose::to5hd<T>(d, s, nchwconvParams, loc);
}

template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::transpose::is_b16_v<T>,
                "TransDataTo5HD: the simulator implements the 16-bit types (uint16_t, int16_t, half) only");
  auto& c = ascendc_sim::ctx("TransDataTo5HD");
  ascendc_sim::UbRef d[16], s[16];
  for (uint32_t i = 0; i < 16; i++) {
    d[i] = ascendc_sim::transpose::ref_of_address(c, dstList[i], "dstList", i, "TransDataTo5HD", loc);
    s[i] = ascendc_sim::transpose::ref_of_address(c, srcList[i], "srcList", i, "TransDataTo5HD", loc);
  }
  ascendc_sim::transpose::to5hd<T>(d, s, nchwconvParams, loc);
}

/// The address lists held in uint64_t tensors (16 addresses each, read by the vector unit).
template <typename T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                           const TransDataTo5HDParams& nchwconvParams, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::transpose::is_b16_v<T>,
                "TransDataTo5HD: the simulator implements the 16-bit types (uint16_t, int16_t, half) only");
  auto& c = ascendc_sim::ctx("TransDataTo5HD");
  const char* api = "TransDataTo5HD";
  ascendc_sim::check_operand(c, dst.ref(), dst.ref().addr, dst.ref().addr + 128, 32, "dst", api, loc);
  ascendc_sim::check_operand(c, src.ref(), src.ref().addr, src.ref().addr + 128, 32, "src", api, loc);
  ascendc_sim::check_initialized(c, dst.ref().addr, dst.ref().addr + 128, "the dst address list", api, loc);
  ascendc_sim::check_initialized(c, src.ref().addr, src.ref().addr + 128, "the src address list", api, loc);
  uint64_t da[16], sa[16];
  std::memcpy(da, c.ub + dst.ref().addr, 128);
  std::memcpy(sa, c.ub + src.ref().addr, 128);
  TransDataTo5HD<T>(da, sa, nchwconvParams, loc);
}

}  // namespace AscendC
