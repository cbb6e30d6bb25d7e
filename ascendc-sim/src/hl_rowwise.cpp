// Non-template parts of the row-wise high-level APIs (hl_rowwise.h): operand checks, the
// hazard record and the cost of their instruction sequences.
#include "ascendc_sim/hl_rowwise.h"

#include <algorithm>

namespace ascendc_sim::hl {

namespace {
using ull = unsigned long long;
}

void operands(CoreContext& c, const Tile* ops, int n, const char* api, const SrcLoc& loc) {
  for (int i = 0; i < n; i++) {
    const Tile& o = ops[i];
    uint64_t hi = uint64_t(o.t.addr) + o.elems * o.esize;
    if (hi > 0xFFFFFFFFull) hi = 0xFFFFFFFFull;
    check_operand(c, o.t, o.t.addr, uint32_t(hi), 32, o.role, api, loc);
  }
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      const Tile& a = ops[i];
      const Tile& b = ops[j];
      if (!a.write && !b.write) continue;  // two sources may share bytes
      const uint64_t alo = a.t.addr, ahi = alo + a.elems * a.esize;
      const uint64_t blo = b.t.addr, bhi = blo + b.elems * b.esize;
      if (!(alo < bhi && blo < ahi)) continue;
      const bool exclusive = a.exclusive || b.exclusive;
      const bool in_place = !a.tmp && !b.tmp && !exclusive && a.write != b.write && alo == blo &&
                            ((ahi == bhi && a.esize == b.esize) || a.reuse_start || b.reuse_start);
      if (in_place) continue;
      fail("vector_overlap", api, loc,
           fmt("%s UB bytes [%llu, %llu) overlap %s bytes [%llu, %llu); %s", a.role, ull(alo), ull(ahi), b.role,
               ull(blo), ull(bhi),
               a.tmp || b.tmp ? "sharedTmpBuffer must not overlap a source or destination"
               : exclusive    ? "this API does not support any source/destination overlap, in place included"
                              : "only a destination exactly in place of a source is allowed"),
           {{"offset_a", double(alo)}, {"offset_b", double(blo)}});
    }
  }
  const uint32_t stamp = hz_issue(c, Pipe::V, loc);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      const Tile& o = ops[i];
      if (o.write != (pass == 1) || o.elems == 0) continue;
      uint64_t hi = std::min<uint64_t>(uint64_t(o.t.addr) + o.elems * o.esize, 0xFFFFFFFFull);
      hz_access(c, Pipe::V, stamp, o.t.addr, uint32_t(hi), o.write, api, loc);
    }
  }
}

void charge(CoreContext& c, VecClass cls, uint64_t repeats) {
  while (repeats > 0) {
    const uint32_t r = uint32_t(std::min<uint64_t>(repeats, 255));
    c.rec->vector(cls, DType::F32, r, true);
    repeats -= r;
  }
}

void charge_row_reduce(CoreContext& c, uint64_t rows, uint64_t cols, bool broadcast) {
  const uint64_t chunks = ceil_div(cols, 64);
  if (chunks > 1) charge(c, VecClass::Simple, rows * (chunks - 1));
  charge(c, VecClass::WholeReduce, rows);
  if (broadcast) charge(c, VecClass::Brcb, ceil_div(rows, 8));
}

void tmp_too_small(uint64_t have, uint64_t need, const char* helper, const char* api, const SrcLoc& loc) {
  fail("ub_out_of_range", api, loc,
       fmt("sharedTmpBuffer holds %llu bytes but this call needs %llu (the rows per pass of its tiling; at least "
           "what %s returns): the API would write past the buffer",
           ull(have), ull(need), helper),
       {{"tmp_bytes", double(have)}, {"needed_bytes", double(need)}});
}

}  // namespace ascendc_sim::hl
