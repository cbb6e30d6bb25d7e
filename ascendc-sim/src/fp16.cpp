// The fp16 -> fp32 table of ascendc_sim::fp16::to_float (types.h), built at compile time.
#include <array>
#include <bit>
#include <cstdint>

#include "ascendc_sim/types.h"

namespace ascendc_sim::fp16 {

namespace {
constexpr float exact(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {
    // Subnormal: normalize the mantissa.
    int e = -1;
    do {
      e++;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    bits = sign | (uint32_t(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}
constexpr std::array<float, 65536> make() {
  std::array<float, 65536> t{};
  for (uint32_t i = 0; i < 65536; i++) t[i] = exact(uint16_t(i));
  return t;
}
}  // namespace

alignas(64) constexpr std::array<float, 65536> kToFloat = make();

}  // namespace ascendc_sim::fp16
