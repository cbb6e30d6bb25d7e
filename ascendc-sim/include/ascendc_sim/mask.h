// ascendc_sim/mask.h — the vector mask registers and their modes (api-reference §4.1).
//
// Normal mode (default): a 128-bit lane mask per repeat; the contiguous form `mask` = n
// enables lanes [0, n) (16-bit types: n <= 128, 32-bit: n <= 64; larger values are
// clamped with a "mask_invalid" warning); the bitwise form is {low64, high64} (32-bit
// types use only mask[0]). Counter mode (SetMaskCount): the low 64 bits are the total
// element count over all repeats and repeatTime is ignored. The count form of every
// vector API sets counter mode itself and restores normal mode with a full mask.
#pragma once

#include <cstdint>

#include "ascendc_sim/core.h"

namespace AscendC {

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

/// Placeholder mask argument for the isSetMask = false forms.
inline constexpr uint64_t MASK_PLACEHOLDER = 0;
inline constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

inline void SetMaskCount() { ascendc_sim::ctx("SetMaskCount").counter_mode = true; }
inline void SetMaskNorm() { ascendc_sim::ctx("SetMaskNorm").counter_mode = false; }
inline void ResetMask() {
  auto& c = ascendc_sim::ctx("ResetMask");
  c.mask[0] = c.mask[1] = ~0ull;
}

/// Normal mode: lanes {maskLow, maskHigh}; counter mode: maskLow = element count.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  auto& c = ascendc_sim::ctx("SetVectorMask");
  c.mask[0] = maskLow;
  c.mask[1] = mode == MaskMode::COUNTER ? 0 : maskHigh;
}
/// Normal mode: the first `len` lanes; counter mode: `len` elements.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
  auto& c = ascendc_sim::ctx("SetVectorMask");
  if (mode == MaskMode::COUNTER || c.counter_mode) {
    c.mask[0] = uint64_t(uint32_t(len));
    c.mask[1] = 0;
    return;
  }
  uint32_t n = len < 0 ? 0 : uint32_t(len);
  c.mask[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
  c.mask[1] = n >= 128 ? ~0ull : n > 64 ? ((1ull << (n - 64)) - 1) : 0;
}

}  // namespace AscendC
