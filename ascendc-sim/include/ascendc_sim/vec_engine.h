// ascendc_sim/vec_engine.h — how one vector instruction walks its operands.
//
// One repeat processes 256 bytes of the widest operand: `lanes` = 256 / widest element
// size (128 for 16-bit, 64 for 32-bit types). Lane l of repeat r of an operand with
// element size s, block stride B and repeat stride R (both in 32-byte blocks) is at
//   base + (r*R + (l / (32/s)) * B) * 32 + (l % (32/s)) * s
// (api-reference §4.1). Active lanes come from the mask (normal mode) or the remaining
// element count (counter mode). Inactive lanes of the destination keep their old value.
//
// Per call (never per element) the engine checks every operand (allocated, not freed,
// 32-byte aligned, footprint inside its buffer), records the UB accesses for hazard
// detection, propagates the shadow "initialized" bits (destination lane initialized iff
// every source lane it reads was) and reports the instruction to the cost recorder.
// Contiguous operands with a full mask or counter mode take a flat fast path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ascendc_sim/core.h"
#include "ascendc_sim/types.h"

namespace ascendc_sim::vec {

/// One operand of a vector instruction.
struct Opnd {
  UbRef t{};
  const char* role = "src";
  uint32_t esize = 2;
  uint32_t blk = 1;  // block stride, 32-byte blocks
  uint32_t rep = 8;  // repeat stride, 32-byte blocks
  bool write = false;
  uint32_t align = 32;  // required start alignment, bytes
};

/// Iteration space of one instruction.
struct Shape {
  uint32_t lanes = 128;  // lanes per repeat
  uint32_t repeats = 0;
  bool counter = false;
  uint64_t count = 0;          // counter mode: elements
  uint64_t mask[2] = {0, 0};   // normal mode: lane bits
};

/// Count form: counter mode over `count` elements.
inline Shape count_shape(uint64_t count, uint32_t lanes) {
  Shape s;
  s.lanes = lanes;
  s.counter = true;
  s.count = count;
  s.repeats = uint32_t((count + lanes - 1) / lanes);
  return s;
}

/// Checks a count argument: negative is an error ("field_out_of_range").
uint64_t check_count(int64_t count, const char* api, const SrcLoc& loc);
/// Checks a repeatTime argument against [0, 255] ("repeat_out_of_range").
uint32_t check_repeat(int64_t repeat, const char* api, const SrcLoc& loc);
/// Checks a stride argument against [0, max] ("field_out_of_range").
uint32_t check_field(int64_t value, int64_t max, const char* field, const char* api, const SrcLoc& loc);

/// Mask forms. `is_set_mask`: the API sets the mask registers from its argument; else
/// it uses them as they are (SetVectorMask). Counter mode turns the mask into a count.
Shape mask_shape(CoreContext& c, uint64_t mask, uint32_t repeats, uint32_t lanes, bool is_set_mask, const char* api,
                 const SrcLoc& loc);
Shape bits_shape(CoreContext& c, const uint64_t* mask, uint32_t repeats, uint32_t lanes, bool is_set_mask,
                 const char* api, const SrcLoc& loc);

/// Validates operands, records hazards; returns false when nothing runs (0 repeats/mask).
bool prepare(CoreContext& c, const Shape& sh, Opnd* ops, int nops, const char* api, const SrcLoc& loc);

/// Cycles one repeat of the instruction needs for its UB accesses (at least 1): the most
/// distinct 32-byte rows one operand touches in a single UB bank group. Atlas A2 (arch
/// 220x) UB: 16 bank groups, the group of a row is (address / 32) mod 16; the vector unit
/// reads (and writes) one row per bank group per cycle, so a repeat whose 8 blocks of one
/// operand fall in one group takes 8 cycles (CANN Ascend C best practices, "Avoiding Bank
/// Conflicts in the Unified Buffer", atlas_ascendc_best_practices_10_0025: dataBlockStride
/// 16 -> 8 cycles per repeat, 8 -> 4). The same row read by several blocks (stride 0) counts
/// once, and conflicts between different operands are not charged (not modelled).
double bank_cycles(const Shape& sh, const Opnd* ops, int nops);
/// True when every operand is contiguous and the mask covers all lanes: the instruction
/// is a flat loop over `n` elements.
bool flat(const Shape& sh, const Opnd* ops, int nops, uint64_t* n);

/// Shadow propagation for `n` lanes: dst (ops[0]) lane initialized iff all source lanes are.
inline void shadow_elementwise(uint8_t* const* sh, const Opnd* ops, int nops, uint64_t n) {
  if (nops == 1) {
    std::memset(sh[0], kInit, n * ops[0].esize);
    return;
  }
  bool same = true;
  for (int i = 1; i < nops; i++) same = same && ops[i].esize == ops[0].esize;
  if (same) {
    const uint64_t bytes = n * ops[0].esize;
    uint8_t* d = sh[0];
    if (nops == 2) {
      if (d != sh[1]) std::memmove(d, sh[1], bytes);
      return;
    }
    const uint8_t* a = sh[1];
    const uint8_t* b = sh[2];
    const uint8_t* e = nops == 4 ? sh[3] : sh[2];
    uint64_t j = 0;
    for (; j + 8 <= bytes; j += 8) {  // word at a time; same-index aliasing (in place) is fine
      uint64_t x, y, z;
      std::memcpy(&x, a + j, 8);
      std::memcpy(&y, b + j, 8);
      std::memcpy(&z, e + j, 8);
      x &= y & z;
      std::memcpy(d + j, &x, 8);
    }
    for (; j < bytes; j++) d[j] = a[j] & b[j] & e[j];
    return;
  }
  if (nops == 2) {  // Cast-like: element sizes differ; an element is initialized iff all its bytes are
    const uint32_t ds = ops[0].esize, ss = ops[1].esize;
    uint8_t* d = sh[0];
    const uint8_t* a = sh[1];
    if (ss == 4 && ds == 2) {  // the common narrowing casts: fixed sizes, no library calls
      for (uint64_t l = 0; l < n; l++) {
        uint32_t w;
        std::memcpy(&w, a + l * 4, 4);
        uint16_t o = w == 0xFFFFFFFFu ? 0xFFFFu : 0;
        std::memcpy(d + l * 2, &o, 2);
      }
      return;
    }
    if (ss == 2 && ds == 4) {
      for (uint64_t l = 0; l < n; l++) {
        uint16_t w;
        std::memcpy(&w, a + l * 2, 2);
        uint32_t o = w == 0xFFFFu ? 0xFFFFFFFFu : 0;
        std::memcpy(d + l * 4, &o, 4);
      }
      return;
    }
    for (uint64_t l = 0; l < n; l++) {
      bool ok;
      if (ss == 2) {
        uint16_t w;
        std::memcpy(&w, a + l * 2, 2);
        ok = w == 0xFFFFu;
      } else if (ss == 4) {
        uint32_t w;
        std::memcpy(&w, a + l * 4, 4);
        ok = w == 0xFFFFFFFFu;
      } else if (ss == 1) {
        ok = a[l] == kInit;
      } else {
        uint64_t w;
        std::memcpy(&w, a + l * 8, 8);
        ok = w == ~0ull;
      }
      std::memset(d + l * ds, ok ? kInit : kUninit, ds);
    }
    return;
  }
  for (uint64_t l = 0; l < n; l++) {
    uint8_t v = kInit;
    for (int i = 1; i < nops; i++) {
      const uint8_t* s = sh[i] + l * ops[i].esize;
      for (uint32_t j = 0; j < ops[i].esize; j++) v &= s[j];
    }
    std::memset(sh[0] + l * ops[0].esize, v, ops[0].esize);
  }
}

/// Runs kernel `k(uint8_t* const* data, uint8_t* const* shadow, uint64_t n)` over the
/// active lanes, `n` contiguous lanes at a time (pointers per operand, ops[0] = dst).
/// With `elementwise_shadow`, the engine propagates the shadow itself after each call.
template <class K>
inline void for_each_run(CoreContext& c, const Shape& sh, Opnd* ops, int nops, K&& k, bool elementwise_shadow) {
  uint8_t* data[4];
  uint8_t* shad[4];
  uint64_t n = 0;
  if (flat(sh, ops, nops, &n)) {
    for (int i = 0; i < nops; i++) {
      data[i] = c.ub + ops[i].t.addr;
      shad[i] = c.shadow + ops[i].t.addr;
    }
    k(data, shad, n);
    if (elementwise_shadow) shadow_elementwise(shad, ops, nops, n);
    return;
  }
  const uint32_t cl = sh.lanes / 8;  // lanes per chunk: one block of the widest operand
  for (uint32_t r = 0; r < sh.repeats; r++) {
    for (uint32_t b = 0; b < 8; b++) {
      const uint32_t lane0 = b * cl;
      uint64_t bits;
      if (sh.counter) {
        uint64_t done = uint64_t(r) * sh.lanes + lane0;
        if (done >= sh.count) return;
        uint64_t left = sh.count - done;
        uint32_t act = left >= cl ? cl : uint32_t(left);
        bits = act >= 64 ? ~0ull : ((1ull << act) - 1);
      } else {
        uint32_t w = lane0 / 64, off = lane0 % 64;
        bits = sh.mask[w] >> off;
        if (cl < 64) bits &= (1ull << cl) - 1;
      }
      if (!bits) continue;
      for (int i = 0; i < nops; i++) {
        const Opnd& o = ops[i];
        uint32_t epb = 32 / o.esize;
        uint64_t off = o.t.addr + (uint64_t(r) * o.rep + uint64_t(lane0 / epb) * o.blk) * 32 + (lane0 % epb) * o.esize;
        data[i] = c.ub + off;
        shad[i] = c.shadow + off;
      }
      const uint64_t full = cl >= 64 ? ~0ull : ((1ull << cl) - 1);
      if (bits == full) {
        k(data, shad, cl);
        if (elementwise_shadow) shadow_elementwise(shad, ops, nops, cl);
      } else {
        uint8_t* d1[4];
        uint8_t* s1[4];
        while (bits) {
          int l = __builtin_ctzll(bits);
          bits &= bits - 1;
          for (int i = 0; i < nops; i++) {
            d1[i] = data[i] + uint32_t(l) * ops[i].esize;
            s1[i] = shad[i] + uint32_t(l) * ops[i].esize;
          }
          k(d1, s1, 1);
          if (elementwise_shadow) shadow_elementwise(s1, ops, nops, 1);
        }
      }
    }
  }
}

/// Lanes per repeat for element sizes (256 bytes of the widest).
constexpr uint32_t lanes_for(uint32_t widest_esize) { return 256 / widest_esize; }

}  // namespace ascendc_sim::vec
