// Non-template parts of the element-wise high-level APIs (hl_elementwise.h).
#include "ascendc_sim/hl_elementwise.h"

#include <algorithm>

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

void no_overlap(const UbRef& dst, const UbRef& src, uint64_t bytes, const char* api, const SrcLoc& loc) {
  if (bytes == 0) return;
  // Footprints first: a count beyond a tensor is its own fault (ub_out_of_range).
  CoreContext& c = ctx(api);
  const uint64_t cap = 0xFFFFFFFFull;
  check_operand(c, dst, dst.addr, uint32_t(std::min<uint64_t>(dst.addr + bytes, cap)), 32, "dst", api, loc);
  check_operand(c, src, src.addr, uint32_t(std::min<uint64_t>(src.addr + bytes, cap)), 32, "src", api, loc);
  const uint64_t dlo = dst.addr, slo = src.addr;
  if (dlo < slo + bytes && slo < dlo + bytes) {
    fail("vector_overlap", api, loc,
         fmt("dst UB bytes [%llu, %llu) overlap src [%llu, %llu): %s does not support src/dst overlap, in place "
             "included (its sequence overwrites dst before reading src again)",
             (unsigned long long)dlo, (unsigned long long)(dlo + bytes), (unsigned long long)slo,
             (unsigned long long)(slo + bytes), api),
         {{"dst", double(dlo)}, {"src", double(slo)}, {"bytes", double(bytes)}});
  }
}

}  // namespace ascendc_sim::hl
