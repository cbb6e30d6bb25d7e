// ascendc_sim/sys_var.h — per-core system values (api-reference §1.2).
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

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

/// Resets the core's control registers (mask mode, atomic mode) to their defaults at the
/// start of a kernel (what the NPU's InitSocState does; every simulated core starts from
/// defaults, so it only restores them: normal mask mode, full mask, no DMA atomic).
inline void InitSocState() {
  auto& c = ascendc_sim::ctx("InitSocState");
  c.counter_mode = false;
  c.mask[0] = c.mask[1] = ~0ull;
  c.atomic = ascendc_sim::CoreContext::Atomic::None;
  c.rec->scalar(1);
}

/// AscendC::Std: the standard type traits under the names kernels use.
namespace Std {
using std::conditional;
using std::conditional_t;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::integral_constant;
using std::is_arithmetic;
using std::is_base_of;
using std::is_const;
using std::is_convertible;
using std::is_floating_point;
using std::is_integral;
using std::is_pointer;
using std::is_same;
using std::is_same_v;
using std::is_signed;
using std::is_unsigned;
using std::is_void;
using std::remove_const_t;
using std::remove_cv_t;
using std::remove_reference_t;
using std::true_type;
template <class T>
inline constexpr T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
inline constexpr T max(T a, T b) {
  return a < b ? b : a;
}
}  // namespace Std

/// Cross-launch pipelining hints (a kernel may start before the previous one ends, CANN
/// "WaitPreTaskEnd" / "SetNextTaskStart"): the simulator runs launches of a stream one
/// after another, so the previous task has always ended; each costs its scalar issue.
inline void WaitPreTaskEnd() { ascendc_sim::ctx("WaitPreTaskEnd").rec->scalar(1); }
inline void SetNextTaskStart() { ascendc_sim::ctx("SetNextTaskStart").rec->scalar(1); }

/// ceil(a / b) for integers (CANN `DivCeil`). b == 0 inside a kernel is
/// `field_out_of_range`; outside (host tiling code) it returns 0.
template <typename T, typename U>
inline constexpr auto DivCeil(T a, U b, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) -> decltype(a / b) {
  if (b == 0) {
    if (!std::is_constant_evaluated() && ascendc_sim::tl_ctx)
      ascendc_sim::fail("field_out_of_range", "DivCeil", loc, "DivCeil by zero", {{"divisor", 0}});
    return 0;
  }
  return (a + b - 1) / b;
}

using std::printf;
/// Kernel-side printf (prints on the host; core order is not defined).
template <typename... Args>
inline void PRINTF(const char* format, Args... args) {
  std::printf(format, args...);
}

}  // namespace AscendC

namespace ascendc_sim {
/// The 9.x builtin variables `block_idx` / `block_num`: read the current core's
/// GetBlockIdx() / GetBlockNum() when used as a number. Global objects, so a kernel's own
/// local variable of the same name shadows them as it would the builtin.
struct BlockIdxVar {
  operator int64_t() const { return AscendC::GetBlockIdx(); }
};
struct BlockNumVar {
  operator int64_t() const { return AscendC::GetBlockNum(); }
};
}  // namespace ascendc_sim

inline constexpr ascendc_sim::BlockIdxVar block_idx{};
inline constexpr ascendc_sim::BlockNumVar block_num{};
