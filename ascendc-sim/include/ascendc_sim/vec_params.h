// ascendc_sim/vec_params.h — repeat parameter structs of the vector API and the
// range-checked argument types (api-reference §4.1).
#pragma once

#include <cstdint>
#include <type_traits>

namespace AscendC {

/// Strides for binary instructions: block strides and repeat strides in 32-byte blocks.
struct BinaryRepeatParams {
  uint32_t blockNumber = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  BinaryRepeatParams() = default;
  BinaryRepeatParams(const uint8_t dstBlk, const uint8_t src0Blk, const uint8_t src1Blk, const uint8_t dstRep,
                     const uint8_t src0Rep, const uint8_t src1Rep)
      : dstBlkStride(dstBlk),
        src0BlkStride(src0Blk),
        src1BlkStride(src1Blk),
        dstRepStride(dstRep),
        src0RepStride(src0Rep),
        src1RepStride(src1Rep) {}
};

/// Strides for unary instructions (and scalar ones, Cast, Duplicate-like).
struct UnaryRepeatParams {
  uint32_t blockNumber = 8;
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
  UnaryRepeatParams() = default;
  UnaryRepeatParams(const uint16_t dstBlk, const uint16_t srcBlk, const uint8_t dstRep, const uint8_t srcRep)
      : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
  UnaryRepeatParams(const uint16_t dstBlk, const uint16_t srcBlk, const uint8_t dstRep, const uint8_t srcRep,
                    const bool half)
      : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep), halfBlock(half) {}
};

/// Brcb: destination strides only.
struct BrcbRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
  BrcbRepeatParams() = default;
  BrcbRepeatParams(const uint16_t dstBlk, const uint16_t dstRep) : dstBlkStride(dstBlk), dstRepStride(dstRep) {}
};

}  // namespace AscendC

namespace ascendc_sim {

/// A `uint8_t` API argument (repeatTime) that remembers the value the caller passed,
/// so that a count-derived value above 255 is reported instead of silently wrapping.
struct U8Arg {
  uint8_t v;
  int64_t raw;
  template <typename I>
    requires(std::is_integral_v<I> || std::is_enum_v<I>)
  U8Arg(I x) : v(uint8_t(x)), raw(static_cast<int64_t>(x)) {}
};

}  // namespace ascendc_sim
