// ascendc_sim/vec_sort.h — Sort32 and MrgSort (the "排序组合" instructions).
//
// Facts (vendor pages "Sort32" and "MrgSort", cannmirror/asc-devkit docs/api/context/, and
// the MrgSort4Info / MrgSortSrcList definitions of kernel_struct_proposal.h; Atlas A2):
//  * Layout: one (score, index) structure is 8 bytes whatever the score type: float score
//    in bytes [0, 4), half score in bytes [0, 2) with bytes [2, 4) reserved (written 0
//    here), the uint32 index in bytes [4, 8).
//  * Sort32<T>(dst, src0 scores, src1 uint32 indices, repeatTime): each repeat sorts 32
//    scores in descending order, ties keep source order (the lower position first); the
//    next repeat takes the next 32 scores/indices and writes the next 32 * 8 bytes of dst.
//    repeatTime in [0, 255]; half and float; all operands 32-byte aligned.
//  * MrgSort<T>(dst, MrgSortSrcList{src1..src4}, MrgSort4Info{elementLengths[4],
//    ifExhaustedSuspension, validBit, repeatTimes}): merges 2 (validBit 3), 3 (7) or 4 (15)
//    already sorted lists of elementLengths[i] structures (each <= 4095) into dst, descending;
//    equal scores: the earlier list first. ifExhaustedSuspension stops the merge as soon as
//    one list runs out. repeatTimes (1..255) applies only with four lists of equal length
//    stored back to back and no suspension: repeat r reads and writes 4 * length structures
//    further on; otherwise it is ignored (a "field_out_of_range" warning says so). Sources
//    8-byte aligned, dst 32-byte aligned.
// Cost: 2 elements per cycle for both (the A2 throughput table), VecClass::Sort.
// Not implemented: the region-proposal forms (MrgSort4, RpSort16, ProposalConcat/Extract)
// and GetMrgSortResult.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {

inline constexpr int32_t MRG_SORT_ELEMENT_LEN = 4;

/// MrgSort parameters (field order and defaults as the vendor's struct).
struct MrgSort4Info {
  MrgSort4Info() {}
  MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
               const uint16_t validBitIn, const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(uint8_t(repeatTimesIn)) {
    for (int32_t i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint8_t repeatTimes = 1;
};

/// The (up to) four sorted lists MrgSort merges.
template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() {}
  MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                 const LocalTensor<T>& src4In)
      : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
  LocalTensor<T> src1;
  LocalTensor<T> src2;
  LocalTensor<T> src3;
  LocalTensor<T> src4;
};

}  // namespace AscendC

namespace ascendc_sim::sort {

/// One 8-byte (score, index) structure's score as float.
/// NaN sorts as -inf here (the pages do not say where NaN goes; this keeps the order a
/// strict weak ordering).
template <class T>
inline float score_at(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  float f = to_f32(v);
  return f != f ? -std::numeric_limits<float>::infinity() : f;
}

inline bool overlaps(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1) { return a0 < b1 && b0 < a1; }

template <class T>
inline void sort32(const UbRef& dst, const UbRef& src0, const UbRef& src1, int64_t repeat, const SrcLoc& loc) {
  const char* api = "Sort32";
  CoreContext& c = ctx(api);
  uint32_t r = vec::check_repeat(repeat, api, loc);
  const uint32_t n = r * 32;
  check_operand(c, dst, dst.addr, dst.addr + n * 8, 32, "dst", api, loc);
  check_operand(c, src0, src0.addr, src0.addr + n * uint32_t(sizeof(T)), 32, "src0", api, loc);
  check_operand(c, src1, src1.addr, src1.addr + n * 4, 32, "src1", api, loc);
  if (n == 0) {
    c.rec->vector(VecClass::Sort, dtype_v<T>, 0, false);
    return;
  }
  // The general operand rule (通用说明和约束): a destination may not partly overlap a source.
  if (overlaps(dst.addr, dst.addr + n * 8, src0.addr, src0.addr + n * uint32_t(sizeof(T))) ||
      overlaps(dst.addr, dst.addr + n * 8, src1.addr, src1.addr + n * 4)) {
    fail("vector_overlap", api, loc,
         fmt("dst UB bytes [%u, %u) overlap a source (src0 at %u, src1 at %u); Sort32 needs a separate destination",
             dst.addr, dst.addr + n * 8, src0.addr, src1.addr),
         {{"dst", double(dst.addr)}, {"src0", double(src0.addr)}, {"src1", double(src1.addr)}});
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, src0.addr, src0.addr + n * uint32_t(sizeof(T)), false, api, loc);
  hz_access(c, Pipe::V, stamp, src1.addr, src1.addr + n * 4, false, api, loc);
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + n * 8, true, api, loc);
  uint32_t order[32];
  for (uint32_t g = 0; g < r; g++) {
    const uint8_t* sc = c.ub + src0.addr + g * 32 * sizeof(T);
    const uint8_t* ix = c.ub + src1.addr + g * 32 * 4;
    const uint8_t* scs = c.shadow + src0.addr + g * 32 * sizeof(T);
    const uint8_t* ixs = c.shadow + src1.addr + g * 32 * 4;
    for (uint32_t i = 0; i < 32; i++) order[i] = i;
    std::stable_sort(order, order + 32, [&](uint32_t a, uint32_t b) {
      return score_at<T>(sc + a * sizeof(T)) > score_at<T>(sc + b * sizeof(T));
    });
    uint8_t* o = c.ub + dst.addr + g * 32 * 8;
    uint8_t* os = c.shadow + dst.addr + g * 32 * 8;
    for (uint32_t k = 0; k < 32; k++) {
      uint32_t i = order[k];
      std::memset(o + k * 8, 0, 8);
      std::memcpy(o + k * 8, sc + i * sizeof(T), sizeof(T));
      std::memcpy(o + k * 8 + 4, ix + i * 4, 4);
      uint8_t init = vec::all_init(scs + i * sizeof(T), sizeof(T)) & vec::all_init(ixs + i * 4, 4);
      std::memset(os + k * 8, init, 8);
    }
  }
  c.rec->vector(VecClass::Sort, dtype_v<T>, r, false);
}

template <class T>
inline void mrgsort(const UbRef& dst, const UbRef* srcs, const AscendC::MrgSort4Info& p, const SrcLoc& loc) {
  const char* api = "MrgSort";
  CoreContext& c = ctx(api);
  uint32_t lists = 0;
  switch (p.validBit) {
    case 3: lists = 2; break;
    case 7: lists = 3; break;
    case 15: lists = 4; break;
    default:
      fail("field_out_of_range", api, loc,
           fmt("validBit %u is not one of 3 (two lists), 7 (three) or 15 (four)", unsigned(p.validBit)),
           {{"validBit", double(p.validBit)}});
  }
  uint32_t total = 0;
  for (uint32_t i = 0; i < lists; i++) {
    vec::check_field(p.elementLengths[i], 4095, "elementLengths", api, loc);
    total += p.elementLengths[i];
  }
  vec::check_field(p.repeatTimes, 255, "repeatTimes", api, loc);
  uint32_t reps = p.repeatTimes == 0 ? 1 : p.repeatTimes;
  if (reps > 1) {
    bool ok = lists == 4 && !p.ifExhaustedSuspension;
    for (uint32_t i = 1; ok && i < 4; i++) {
      ok = p.elementLengths[i] == p.elementLengths[0] &&
           srcs[i].addr == srcs[i - 1].addr + uint32_t(p.elementLengths[0]) * 8;
    }
    if (!ok) {
      warn("field_out_of_range", api, loc,
           fmt("repeatTimes %u is ignored (one repeat runs): it applies only to four lists (validBit 15) of equal "
               "length stored back to back with ifExhaustedSuspension false",
               unsigned(p.repeatTimes)),
           {{"repeatTimes", double(p.repeatTimes)}});
      reps = 1;
    }
  }
  const uint32_t span = total * 8;  // bytes of one repeat's lists (and of its output)
  check_operand(c, dst, dst.addr, dst.addr + reps * span, 32, "dst", api, loc);
  static const char* roles[4] = {"src1", "src2", "src3", "src4"};
  for (uint32_t i = 0; i < lists; i++) {
    uint32_t hi = srcs[i].addr + (reps - 1) * span + p.elementLengths[i] * 8u;
    check_operand(c, srcs[i], srcs[i].addr, hi, 8, roles[i], api, loc);
  }
  if (total == 0) {
    c.rec->vector(VecClass::Sort, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  for (uint32_t i = 0; i < lists; i++) {
    uint32_t lo = srcs[i].addr;
    hz_access(c, Pipe::V, stamp, lo, lo + (reps - 1) * span + p.elementLengths[i] * 8u, false, api, loc);
  }
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + reps * span, true, api, loc);
  std::vector<uint8_t> out(span), outs(span);
  uint64_t written = 0;
  for (uint32_t r = 0; r < reps; r++) {
    uint32_t pos[4] = {0, 0, 0, 0};
    uint32_t k = 0;
    while (k < total) {
      int best = -1;
      float bs = 0;
      for (uint32_t i = 0; i < lists; i++) {
        if (pos[i] >= p.elementLengths[i]) continue;
        float s = score_at<T>(c.ub + srcs[i].addr + r * span + pos[i] * 8);
        if (best < 0 || s > bs) {
          best = int(i);
          bs = s;
        }
      }
      const uint32_t from = srcs[best].addr + r * span + pos[best] * 8;
      std::memcpy(out.data() + k * 8, c.ub + from, 8);
      std::memcpy(outs.data() + k * 8, c.shadow + from, 8);
      pos[best]++;
      k++;
      if (p.ifExhaustedSuspension && pos[best] == p.elementLengths[best]) break;
    }
    std::memcpy(c.ub + dst.addr + r * span, out.data(), k * 8);
    std::memcpy(c.shadow + dst.addr + r * span, outs.data(), k * 8);
    written += k;
  }
  c.rec->vector(VecClass::Sort, dtype_v<T>, uint32_t((written + 31) / 32), false);
}

}  // namespace ascendc_sim::sort

namespace AscendC {

template <typename T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Sort32: element type not supported on Ascend910B (half, float)");
  ascendc_sim::sort::sort32<T>(dst.ref(), src0.ref(), src1.ref(), repeatTime, loc);
}

template <typename T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
                    ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "MrgSort: element type not supported on Ascend910B (half, float)");
  const ascendc_sim::UbRef srcs[4] = {src.src1.ref(), src.src2.ref(), src.src3.ref(), src.src4.ref()};
  ascendc_sim::sort::mrgsort<T>(dst.ref(), srcs, params, loc);
}

}  // namespace AscendC
