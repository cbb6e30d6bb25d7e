// ascendc_sim/sys_var.h — per-core system values (api-reference §1.2).
#pragma once

#include <cstdint>
#include <cstdio>

#include "ascendc_sim/core.h"

namespace AscendC {

/// Data-block and repeat geometry constants kernels use (api-reference §0, §4.1).
inline constexpr uint32_t ONE_BLK_SIZE = 32;           // bytes per DataBlock
inline constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;  // bytes per repeat
inline constexpr uint32_t DEFAULT_BLK_NUM = 8;         // DataBlocks per repeat
inline constexpr uint32_t MAX_REPEAT_TIMES = 255;
inline constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
inline constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;

/// Index of this core in the launch, in [0, GetBlockNum()).
inline int64_t GetBlockIdx() { return ascendc_sim::ctx("GetBlockIdx").block_idx; }
/// blockDim of the launch.
inline int64_t GetBlockNum() { return ascendc_sim::ctx("GetBlockNum").block_num; }
/// AIV-only kernels: one vector core per block, so sub-block 0 of 1.
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline constexpr int64_t GetDataBlockSizeInBytes() { return 32; }
/// Unified Buffer bytes of the simulated core (the profile's ub_bytes).
inline int64_t GetUBSizeInBytes() { return ascendc_sim::ctx("GetUBSizeInBytes").ub_bytes; }
/// A cycle counter is not modelled per instruction; returns 0.
inline int64_t GetSystemCycle() { return 0; }

using std::printf;
/// Kernel-side printf (prints on the host; core order is not defined).
template <typename... Args>
inline void PRINTF(const char* format, Args... args) {
  std::printf(format, args...);
}

}  // namespace AscendC
