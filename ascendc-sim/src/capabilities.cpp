// Per-SoC API availability (profile [capabilities], profile.h): DataCopyPad, bf16 data,
// Cast pairs. A kernel that calls what the selected SoC lacks gets
// "api_unsupported_on_soc" at its call (FC-07, FC-28).
#include "ascendc_sim/core.h"
#include "ascendc_sim/profile.h"

namespace ascendc_sim {

namespace {
const char* const kNames[12] = {"uint8_t", "int8_t", "uint16_t", "int16_t", "half", "bfloat16_t",
                                "uint32_t", "int32_t", "float", "uint64_t", "int64_t", "double"};
}  // namespace

void check_pad_soc(const char* api, const SrcLoc& loc) {
  const cost::Profile& p = cost::active_profile();
  if (p.caps.data_copy_pad) return;
  fail("api_unsupported_on_soc", api, loc,
       fmt("%s is not available on %s (profile %s: [capabilities] data_copy_pad = false); copy whole 32-byte "
           "blocks with DataCopy and handle the tail in the vector code instead",
           api, p.soc.c_str(), p.path.c_str()));
}

void check_bf16_soc(const char* api, const SrcLoc& loc) {
  const cost::Profile& p = cost::active_profile();
  if (p.caps.bf16) return;
  fail("api_unsupported_on_soc", api, loc,
       fmt("%s on bfloat16_t data: %s has no bf16 support (profile %s: [capabilities] bf16 = false); use half or "
           "float",
           api, p.soc.c_str(), p.path.c_str()));
}

void check_cast_soc(DType src, DType dst, const char* api, const SrcLoc& loc) {
  const cost::Profile& p = cost::active_profile();
  if ((p.caps.cast_to[int(src)] >> int(dst)) & 1u) return;
  fail("api_unsupported_on_soc", api, loc,
       fmt("Cast %s -> %s does not exist on %s (profile %s: [capabilities] cast_pairs = \"%s\"); cast through an "
           "intermediate type the SoC supports",
           kNames[int(src)], kNames[int(dst)], p.soc.c_str(), p.path.c_str(), p.caps.cast_pairs.c_str()));
}

}  // namespace ascendc_sim
