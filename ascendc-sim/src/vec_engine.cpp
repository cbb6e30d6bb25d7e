// Argument checks, mask decoding and operand validation of vector instructions
// (vec_engine.h; api-reference §4.1).
#include "ascendc_sim/vec_engine.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace ascendc_sim::vec {

namespace {
using ull = unsigned long long;

uint64_t lane_bits(uint64_t n, int word) {
  uint64_t lo = word == 0 ? 0 : 64;
  if (n <= lo) return 0;
  uint64_t k = n - lo;
  return k >= 64 ? ~0ull : ((1ull << k) - 1);
}

bool active_any(const Shape& sh) {
  if (sh.counter) return sh.count > 0;
  return sh.repeats > 0 && (sh.mask[0] | sh.mask[1]) != 0;
}

// Active lane bitmap of repeat r (two words).
void repeat_bits(const Shape& sh, uint32_t r, uint64_t out[2]) {
  if (sh.counter) {
    uint64_t done = uint64_t(r) * sh.lanes;
    uint64_t left = sh.count > done ? sh.count - done : 0;
    uint64_t n = std::min<uint64_t>(left, sh.lanes);
    out[0] = lane_bits(n, 0);
    out[1] = lane_bits(n, 1);
  } else {
    out[0] = sh.mask[0];
    out[1] = sh.mask[1];
  }
}

uint64_t lane_addr(const Opnd& o, uint32_t r, uint32_t l) {
  uint32_t epb = 32 / o.esize;
  return o.t.addr + (uint64_t(r) * o.rep + uint64_t(l / epb) * o.blk) * 32 + (l % epb) * o.esize;
}

// Whether operand `o` has any active lane in block `b` of a repeat whose lane bits are `bits`.
bool block_active(const Shape& sh, const Opnd& o, const uint64_t bits[2], uint32_t b) {
  const uint32_t epb = 32 / o.esize;
  for (uint32_t l = b * epb; l < (b + 1) * epb && l < sh.lanes; l++)
    if ((bits[l / 64] >> (l % 64)) & 1) return true;
  return false;
}

// api-reference §4.1 (CANN "通用说明和约束"): the destination of repeat N must not be a
// source of a later repeat — the NPU pipelines the repeats, so whether the later repeat
// reads the old or the new bytes is not defined. Exempt: exact in-place (same address and
// strides), and a destination over src1 when src1's or dst's repeat stride is 0 (the
// vendor's exception for Add/Sub/Mul/Max/Min/AddRelu/SubRelu accumulations). Only the strided
// (non-flat) forms come here; `span_lo`/`span_hi` bound each operand's bytes.
void check_repeat_overlap(const Shape& sh, const Opnd* ops, int nops, const uint64_t* span_lo,
                          const uint64_t* span_hi, const char* api, const SrcLoc& loc) {
  for (int i = 0; i < nops; i++) {
    const Opnd& d = ops[i];
    if (!d.write) continue;
    for (int j = 0; j < nops; j++) {
      const Opnd& s = ops[j];
      if (s.write || span_hi[j] <= span_lo[i] || span_hi[i] <= span_lo[j]) continue;
      if (s.t.addr == d.t.addr && s.blk == d.blk && s.rep == d.rep && s.esize == d.esize) continue;
      if (std::strcmp(s.role, "src1") == 0 && (s.rep == 0 || d.rep == 0)) continue;
      // Last repeat reading each 32-byte row of the source.
      std::unordered_map<uint64_t, uint32_t> last;
      for (uint32_t r = 0; r < sh.repeats; r++) {
        uint64_t bits[2];
        repeat_bits(sh, r, bits);
        for (uint32_t b = 0; b < 8; b++)
          if (block_active(sh, s, bits, b)) last[(s.t.addr + (uint64_t(r) * s.rep + uint64_t(b) * s.blk) * 32) / 32] = r;
      }
      for (uint32_t r = 0; r + 1 < sh.repeats; r++) {
        uint64_t bits[2];
        repeat_bits(sh, r, bits);
        for (uint32_t b = 0; b < 8; b++) {
          if (!block_active(sh, d, bits, b)) continue;
          uint64_t a = d.t.addr + (uint64_t(r) * d.rep + uint64_t(b) * d.blk) * 32;
          auto it = last.find(a / 32);
          if (it == last.end() || it->second <= r) continue;
          fail("vector_overlap", api, loc,
               fmt("%s block %u of repeat %u (UB bytes [%llu, %llu)) is read as %s by repeat %u: the destination of a "
                   "repeat must not be a source of a later one (only an exact in-place operand is allowed)",
                   d.role, b, r, ull(a), ull(a + 32), s.role, it->second),
               {{"dst_offset", double(a)}, {"repeat", double(r)}, {"later_repeat", double(it->second)}});
        }
      }
    }
  }
}

bool contiguous(const Shape& sh, const Opnd& o) { return o.blk == 1 && uint64_t(o.rep) * 32 == uint64_t(sh.lanes) * o.esize; }
}  // namespace

uint64_t check_count(int64_t count, const char* api, const SrcLoc& loc) {
  if (count < 0) {
    fail("field_out_of_range", api, loc,
         fmt("count %lld is negative (an unsigned length that wrapped when converted to int32_t?)", (long long)count),
         {{"count", double(count)}});
  }
  return uint64_t(count);
}

uint32_t check_repeat(int64_t repeat, const char* api, const SrcLoc& loc) {
  if (repeat < 0 || repeat > 255) {
    fail("repeat_out_of_range", api, loc,
         fmt("repeatTime %lld is outside [0, 255] (the field is 8 bits: the NPU would run %lld repeats); split the work "
             "into calls of at most 255 repeats or use the count form",
             (long long)repeat, (long long)(uint8_t(repeat))),
         {{"repeatTime", double(repeat)}, {"max", 255}});
  }
  return uint32_t(repeat);
}

uint32_t check_field(int64_t value, int64_t max, const char* field, const char* api, const SrcLoc& loc) {
  if (value < 0 || value > max) {
    fail("field_out_of_range", api, loc, fmt("%s %lld is outside [0, %lld]", field, (long long)value, (long long)max),
         {{field, double(value)}, {"max", double(max)}});
  }
  return uint32_t(value);
}

Shape mask_shape(CoreContext& c, uint64_t mask, uint32_t repeats, uint32_t lanes, bool is_set_mask, const char* api,
                 const SrcLoc& loc) {
  Shape s;
  s.lanes = lanes;
  s.repeats = repeats;
  if (c.counter_mode) {
    uint64_t n = is_set_mask ? mask : c.mask[0];
    if (is_set_mask) {
      c.mask[0] = mask;
      c.mask[1] = 0;
    }
    s.counter = true;
    s.count = n;
    s.repeats = uint32_t((n + lanes - 1) / lanes);
    return s;
  }
  if (is_set_mask) {
    uint64_t m = mask;
    if (m > lanes) {
      warn("mask_invalid", api, loc,
           fmt("contiguous mask %llu exceeds the %u lanes of one repeat for this element type; the NPU clamps it to %u",
               ull(m), lanes, lanes),
           {{"mask", double(m)}, {"lanes", double(lanes)}});
      m = lanes;
    }
    c.mask[0] = lane_bits(m, 0);
    c.mask[1] = lane_bits(m, 1);
  }
  s.mask[0] = c.mask[0];
  s.mask[1] = lanes > 64 ? c.mask[1] : 0;
  if (lanes < 64) s.mask[0] &= (1ull << lanes) - 1;
  return s;
}

Shape bits_shape(CoreContext& c, const uint64_t* mask, uint32_t repeats, uint32_t lanes, bool is_set_mask,
                 const char* api, const SrcLoc& loc) {
  if (c.counter_mode) return mask_shape(c, is_set_mask ? mask[0] : c.mask[0], repeats, lanes, true, api, loc);
  Shape s;
  s.lanes = lanes;
  s.repeats = repeats;
  if (is_set_mask) {
    c.mask[0] = mask[0];
    // 32-bit types take a one-element mask array: mask[1] is not read.
    c.mask[1] = lanes > 64 ? mask[1] : 0;
  }
  s.mask[0] = c.mask[0];
  s.mask[1] = lanes > 64 ? c.mask[1] : 0;
  if (lanes < 64) s.mask[0] &= (1ull << lanes) - 1;
  return s;
}

bool flat(const Shape& sh, const Opnd* ops, int nops, uint64_t* n) {
  for (int i = 0; i < nops; i++)
    if (!contiguous(sh, ops[i])) return false;
  if (sh.counter) {
    *n = sh.count;
    return true;
  }
  bool full = sh.lanes == 128 ? (sh.mask[0] == ~0ull && sh.mask[1] == ~0ull)
                              : sh.lanes == 64 ? sh.mask[0] == ~0ull : sh.mask[0] == (1ull << sh.lanes) - 1;
  if (!full) return false;
  *n = uint64_t(sh.repeats) * sh.lanes;
  return true;
}

bool prepare(CoreContext& c, const Shape& sh, Opnd* ops, int nops, const char* api, const SrcLoc& loc) {
  bool any = active_any(sh);
  uint64_t n = 0;
  bool is_flat = any && flat(sh, ops, nops, &n);
  LayoutOpnd spans[8];
  uint64_t span_lo[8] = {}, span_hi[8] = {};
  const bool layouts = any && !c.layouts.empty() && nops <= 8;
  for (int i = 0; i < nops; i++) {
    Opnd& o = ops[i];
    if (!any) {
      check_tensor(c, o.t, o.role, api, loc);
      continue;
    }
    uint64_t lo = o.t.addr, hi = o.t.addr;
    if (is_flat) {
      hi = o.t.addr + n * o.esize;
    } else {
      lo = ~0ull;
      hi = 0;
      uint32_t rs[3] = {0, sh.repeats >= 2 ? sh.repeats - 2 : 0, sh.repeats - 1};
      for (uint32_t k = 0; k < 3; k++) {
        uint64_t bits[2];
        repeat_bits(sh, rs[k], bits);
        for (uint32_t l = 0; l < sh.lanes; l++) {
          if (!((bits[l / 64] >> (l % 64)) & 1)) continue;
          uint64_t a = lane_addr(o, rs[k], l);
          lo = std::min(lo, a);
          hi = std::max(hi, a + o.esize);
        }
      }
      if (lo > hi) lo = hi = o.t.addr;
    }
    if (hi > 0xFFFFFFFFull) hi = 0xFFFFFFFFull;
    check_operand(c, o.t, uint32_t(std::min<uint64_t>(lo, o.t.addr)), uint32_t(hi), o.align, o.role, api, loc);
    if (layouts) spans[i] = LayoutOpnd{std::min<uint64_t>(lo, o.t.addr), hi, o.esize, o.write};
    if (i < 8) {
      span_lo[i] = std::min<uint64_t>(lo, o.t.addr);
      span_hi[i] = hi;
    }
  }
  if (!any) return false;
  if (layouts) layout_vector(c, spans, nops, api, loc);  // UB row pitch (row_layout.cpp)
  if (is_flat) {
    // api-reference §4.1: a destination may coincide exactly with a source (in place), but
    // must not partially overlap one — the NPU reads and writes a repeat at a time, so the
    // result would depend on the hardware's order.
    for (int i = 0; i < nops; i++) {
      if (!ops[i].write) continue;
      uint64_t dlo = ops[i].t.addr, dhi = dlo + n * ops[i].esize;
      for (int j = 0; j < nops; j++) {
        if (ops[j].write) continue;
        uint64_t slo = ops[j].t.addr, shi = slo + n * ops[j].esize;
        bool exact = slo == dlo && ops[j].esize == ops[i].esize;
        if (!exact && slo < dhi && dlo < shi) {
          fail("vector_overlap", api, loc,
               fmt("%s UB bytes [%llu, %llu) partially overlap %s bytes [%llu, %llu); only an exact in-place overlap "
                   "is allowed",
                   ops[i].role, ull(dlo), ull(dhi), ops[j].role, ull(slo), ull(shi)),
               {{"dst_offset", double(dlo)}, {"src_offset", double(slo)}});
        }
      }
    }
  }
  if (!is_flat && nops <= 8 && sh.repeats > 1) check_repeat_overlap(sh, ops, nops, span_lo, span_hi, api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  for (int pass = 0; pass < 2; pass++) {  // reads first, then writes
    for (int i = 0; i < nops; i++) {
      const Opnd& o = ops[i];
      if (o.write != (pass == 1)) continue;
      if (is_flat) {
        hz_access(c, Pipe::V, stamp, o.t.addr, uint32_t(o.t.addr + n * o.esize), o.write, api, loc);
        continue;
      }
      const uint32_t cl = sh.lanes / 8;
      for (uint32_t r = 0; r < sh.repeats; r++) {
        uint64_t bits[2];
        repeat_bits(sh, r, bits);
        if (!(bits[0] | bits[1])) break;
        for (uint32_t b = 0; b < 8; b++) {
          uint32_t l0 = b * cl;
          uint64_t chunk = (bits[l0 / 64] >> (l0 % 64)) & (cl >= 64 ? ~0ull : ((1ull << cl) - 1));
          if (!chunk) continue;
          uint64_t a = lane_addr(o, r, l0);
          hz_access(c, Pipe::V, stamp, uint32_t(a), uint32_t(a + uint64_t(cl) * o.esize), o.write, api, loc);
        }
      }
    }
  }
  return true;
}

double bank_cycles(const Shape& sh, const Opnd* ops, int nops) {
  if (!active_any(sh)) return 0.0;
  uint64_t bits[2];
  repeat_bits(sh, 0, bits);  // later repeats shift every block alike: the same groups collide
  uint32_t worst = 1;
  for (int i = 0; i < nops; i++) {
    const Opnd& o = ops[i];
    if (o.blk == 1) continue;  // consecutive blocks lie in consecutive groups
    const uint32_t epb = 32 / o.esize;
    uint64_t rows[8];
    uint32_t n = 0;
    for (uint32_t b = 0; b < 8; b++) {
      bool active = false;
      for (uint32_t l = b * epb; l < (b + 1) * epb && l < sh.lanes; l++) {
        if ((bits[l / 64] >> (l % 64)) & 1) {
          active = true;
          break;
        }
      }
      if (!active) continue;
      uint64_t row = (o.t.addr + uint64_t(b) * o.blk * 32) / 32;
      bool seen = false;
      for (uint32_t k = 0; k < n; k++) seen = seen || rows[k] == row;
      if (!seen) rows[n++] = row;
    }
    for (uint32_t k = 0; k < n; k++) {
      uint32_t same = 0;
      for (uint32_t j = 0; j < n; j++) same += (rows[j] % 16) == (rows[k] % 16);
      worst = std::max(worst, same);
    }
  }
  return double(worst);
}

}  // namespace ascendc_sim::vec
