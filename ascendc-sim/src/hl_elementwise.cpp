// Non-template parts of the element-wise high-level APIs (hl_elementwise.h).
#include "ascendc_sim/hl_elementwise.h"

namespace ascendc_sim::hl {

void tmp_buffer(const UbRef& tmp, uint32_t bytes, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  check_operand(c, tmp, tmp.addr, tmp.addr + bytes, 32, "sharedTmpBuffer", api, loc);
  if (bytes == 0) return;
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, tmp.addr, tmp.addr + bytes, true, api, loc);
}

void cost_sequence(const char* api, std::initializer_list<VecClass> seq, DType dt, uint64_t count) {
  CoreContext& c = ctx(api);
  uint32_t lanes = 256 / dtype_bytes(dt);
  uint32_t repeats = uint32_t((count + lanes - 1) / lanes);
  for (VecClass cls : seq) c.rec->vector(cls, dt, repeats, true);
}

}  // namespace ascendc_sim::hl
