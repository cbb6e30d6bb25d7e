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

void glu_checks(const char* api, const UbRef& dst, const UbRef& src0, const UbRef& src1, uint32_t dst_size,
                uint32_t src0_size, uint32_t src1_size, uint32_t count, uint32_t esize, bool aligned_count,
                bool has_tmp, uint32_t tmp_bytes, uint32_t tmp_per_elem, const SrcLoc& loc) {
  if (src0_size != src1_size) {
    fail("field_out_of_range", api, loc,
         fmt("srcTensor0 holds %u elements and srcTensor1 %u: %s needs two sources of one size", src0_size,
             src1_size, api),
         {{"src0", double(src0_size)}, {"src1", double(src1_size)}});
  }
  if (count > src0_size || count > dst_size) {
    fail("field_out_of_range", api, loc,
         fmt("calCount %u is more than the tensors hold (src %u, dst %u elements)", count, src0_size, dst_size),
         {{"count", double(count)}, {"src", double(src0_size)}, {"dst", double(dst_size)}});
  }
  if (aligned_count && (count == 0 || uint64_t(count) * esize % 32 != 0)) {
    fail("ub_misaligned", api, loc,
         fmt("calCount %u elements (%llu bytes) is not a non-zero multiple of 32 bytes, which %s requires", count,
             (unsigned long long)(uint64_t(count) * esize), api),
         {{"count", double(count)}});
  }
  const uint64_t bytes = uint64_t(count) * esize;
  if (esize == 4) {
    no_overlap(dst, src0, bytes, api, loc);
    no_overlap(dst, src1, bytes, api, loc);
  } else if (has_tmp) {
    const uint64_t need = uint64_t(tmp_per_elem) * (32 / esize);
    if (tmp_bytes < need) {
      fail("ub_out_of_range", api, loc,
           fmt("sharedTmpBuffer holds %u bytes; half %s needs at least %llu (%u bytes of float temporaries for each "
               "element of a 32-byte block): below that its rounds write past the buffer",
               tmp_bytes, api, (unsigned long long)need, tmp_per_elem),
           {{"have", double(tmp_bytes)}, {"need", double(need)}});
    }
  }
}

}  // namespace ascendc_sim::hl
