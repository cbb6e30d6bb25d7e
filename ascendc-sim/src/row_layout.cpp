// UB row pitch after DataCopyPad (FC-01, FC-03; B.6 of issue 13).
//
// DataCopyPad GM->UB puts every row at a 32-byte aligned UB address: a row of 40 bytes
// takes 64, and bytes 40..63 belong to no row. Code that then treats the tile as compact
// rows reads those round-up lanes as data. Each such copy records its layout
// (CoreContext::RowLayout); a contiguous copy back to GM that takes round-up lanes is an
// error (they land in GM between the rows, corrupting every row after the first), and a
// vector op that reads the tile with the compact length of several rows is a warning
// (it may be intended, e.g. an op over whole padded rows is not flagged).
#include <algorithm>
#include <iterator>

#include "ascendc_sim/core.h"

namespace ascendc_sim {

namespace {
using ull = unsigned long long;
using Layout = CoreContext::RowLayout;

uint32_t end_of(uint32_t base, const Layout& l) { return base + (l.rows - 1) * l.pitch + l.block; }

// The layouts overlapping [lo, hi), as iterators (map order).
template <class F>
void each_overlapping(CoreContext& c, uint64_t lo, uint64_t hi, F&& f) {
  auto& m = c.layouts;
  auto it = m.upper_bound(uint32_t(std::min<uint64_t>(lo, 0xFFFFFFFFull)));
  if (it != m.begin()) --it;
  while (it != m.end() && it->first < hi) {
    auto next = std::next(it);
    if (end_of(it->first, it->second) > lo) f(it);
    it = next;
  }
}
}  // namespace

void layout_erase(CoreContext& c, uint32_t lo, uint32_t hi) {
  if (c.layouts.empty()) return;
  each_overlapping(c, lo, hi, [&](auto it) { c.layouts.erase(it); });
}

void layout_record(CoreContext& c, uint32_t base, const Layout& l) {
  layout_erase(c, base, end_of(base, l));
  c.layouts.emplace(base, l);
}

void layout_check_copy_out(CoreContext& c, uint32_t lo, uint32_t hi, const char* api, const SrcLoc& loc) {
  if (c.layouts.empty() || hi <= lo) return;
  each_overlapping(c, lo, hi, [&](auto it) {
    const uint32_t base = it->first;
    const Layout& l = it->second;
    uint32_t r0 = lo > base ? (lo - base) / l.pitch : 0;
    uint32_t r1 = std::min(l.rows - 1, (hi - 1 - base) / l.pitch);
    for (uint32_t r = r0; r <= r1; r++) {
      uint32_t plo = base + r * l.pitch + l.data_end, phi = base + r * l.pitch + l.block;
      if (plo >= hi || phi <= lo) continue;
      fail("ub_row_pitch_mismatch", api, loc,
           fmt("copies UB bytes [%u, %u) to GM, but bytes [%u, %u) are the 32-byte round-up lanes of row %u of the "
               "tile DataCopyPad laid out at %s:%u (%u rows of %u bytes at a %u-byte pitch): a contiguous copy "
               "treats the rows as compact and writes those lanes into GM between the rows; write the rows back "
               "with DataCopyPad (blockCount = rows, blockLen = the row's bytes) or compact them first (FC-01)",
               lo, hi, std::max(lo, plo), std::min(hi, phi), r, l.loc.file_name(), l.loc.line(), l.rows,
               l.data_end - l.data_off, l.pitch),
           {{"ub_offset", double(std::max(lo, plo))}, {"row", double(r)}, {"pitch", double(l.pitch)}});
    }
  });
}

void layout_vector(CoreContext& c, const LayoutOpnd* ops, int nops, const char* api, const SrcLoc& loc) {
  if (c.layouts.empty()) return;
  // The layout a source reads from its first row on, for the destination to inherit.
  const Layout* carried = nullptr;
  uint32_t carried_esize = 0;
  for (int i = 0; i < nops; i++) {
    const LayoutOpnd& o = ops[i];
    if (o.write) continue;
    auto it = c.layouts.find(uint32_t(o.lo));
    if (it == c.layouts.end()) continue;
    const Layout& l = it->second;
    const uint64_t n = o.hi - o.lo, data = l.data_end - l.data_off;
    // Compact rows: the length of k >= 2 rows of data, not a whole number of pitches.
    if (l.data_off == 0 && data > 0 && n % data == 0 && n / data >= 2 && n / data <= l.rows && n % l.pitch != 0) {
      warn("ub_row_pitch_mismatch", api, loc,
           fmt("reads %llu UB bytes from the tile DataCopyPad laid out at %s:%u as %llu compact rows of %llu bytes, "
               "but the rows are %u bytes apart (each rounded up to 32 bytes): the op takes round-up lanes and "
               "misses the end of the last rows; use the padded pitch (%u rows x %u bytes) or per-row ops (FC-01)",
               ull(n), l.loc.file_name(), l.loc.line(), ull(n / data), ull(data), l.pitch, l.rows, l.pitch),
           {{"bytes", double(n)}, {"pitch", double(l.pitch)}, {"row_bytes", double(data)}});
    }
    if (!carried) {
      carried = &l;
      carried_esize = o.esize;
    }
  }
  for (int i = 0; i < nops; i++) {
    const LayoutOpnd& o = ops[i];
    if (!o.write) continue;
    if (carried && carried_esize && o.esize) {
      Layout l = *carried;
      // The destination's element size may differ (Cast): byte geometry scales with it.
      auto scale = [&](uint32_t v, bool& ok) {
        uint64_t s = uint64_t(v) * o.esize;
        ok = ok && s % carried_esize == 0;
        return uint32_t(s / carried_esize);
      };
      bool ok = true;
      l.pitch = scale(l.pitch, ok);
      l.block = scale(l.block, ok);
      l.data_off = scale(l.data_off, ok);
      l.data_end = scale(l.data_end, ok);
      if (ok && l.pitch % 32 == 0 && l.block % 32 == 0 && l.data_end < l.block) {
        layout_record(c, uint32_t(o.lo), l);
        continue;
      }
    }
    layout_erase(c, uint32_t(o.lo), uint32_t(std::min<uint64_t>(o.hi, 0xFFFFFFFFull)));
  }
}

}  // namespace ascendc_sim
