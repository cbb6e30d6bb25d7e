// ascendc_sim/vec_compare.h — Compare, CompareScalar (9.x: Compares) and Select
// (api-reference §4.2).
//
// Compare writes one bit per element (bit i%8 of byte i/8 = element i) into a uint8
// tensor. Count form: only whole 256-byte groups of the sources are compared (the
// documented behaviour); a count that does not fill its last group gets a
// "compare_count_truncated" warning and the remainder is not computed. Mask forms:
// repeat r writes its lanes' bits to bytes [r*lanes/8, (r+1)*lanes/8) of dst (inactive
// lanes give 0). Select: bit 1 takes src0, bit 0 takes src1 (tensor or scalar); with
// VSEL_CMPMASK_SPR every repeat uses the first `lanes` bits of selMask, with the tensor
// modes element i uses bit i. The shadow of a bit-mask byte holds one "initialized" bit
// per element, so a mask computed over a 256-byte rounded tile does not taint the lanes
// whose inputs were valid.
//
// The CMPMASK register (128 bits, CoreContext::cmpmask). Facts from the vendor pages
// "Compare（结果存入寄存器）", "GetCmpMask(ISASI)", "SetCmpMask(ISASI)" and "Select"
// (cannmirror/asc-devkit docs/api/context/, Atlas A2 column):
//  * Compare without dst, `Compare<T, isSetMask>(src0, src1, cmpMode, mask|mask[],
//    BinaryRepeatParams)`: half/float only; no repeat argument, exactly one repeat
//    (256 bytes); the result bits go to the register (bit l = lane l; lanes the mask
//    leaves off, and bits past 256/sizeof(T), are 0).
//  * GetCmpMask(dst): stores the register's 16 bytes to dst (start 16-byte aligned; the
//    page also asks for at least 128 bytes of dst space, which is not enforced here:
//    only the 16 bytes written are checked against the buffer).
//  * SetCmpMask(src): loads 16 bytes of src (16-byte aligned) into the register. Mode 0
//    reads it as the selection bits, mode 1 reads its first element as the scalar src1.
//  * Select without a mask argument works on the mask registers set by SetVectorMask:
//    `Select<T, SELMODE::VSEL_CMPMASK_SPR>(dst, src0, src1, repeatTime, params)` uses the
//    register's first 256/sizeof(T) bits in every repeat; `Select<T, U>(dst, selMask, src0,
//    repeatTime, params)` (mode 1) takes the scalar from the register and consumes selMask
//    bits continuously across repeats. Mode 2 with the register holding selMask's address
//    is not implemented (it does not compile).
// All of them run on PIPE_V (asc_get_cmp_mask / asc_set_cmp_mask pages: "流水类型 PIPE_V");
// GetCmpMask/SetCmpMask are priced as one repeat of a UB<->register copy.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ascendc_sim/vec_elementwise.h"

namespace AscendC {
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
}  // namespace AscendC

namespace ascendc_sim::vec {

template <class W>
inline bool cmp(W a, W b, AscendC::CMPMODE m) {
  switch (m) {
    case AscendC::CMPMODE::LT: return a < b;
    case AscendC::CMPMODE::GT: return a > b;
    case AscendC::CMPMODE::EQ: return a == b;
    case AscendC::CMPMODE::LE: return a <= b;
    case AscendC::CMPMODE::GE: return a >= b;
    default: return a != b;
  }
}

inline uint8_t all_init(const uint8_t* sh, uint32_t n) {
  uint8_t v = kInit;
  for (uint32_t i = 0; i < n; i++) v &= sh[i];
  return v;
}

/// Address of lane l of repeat r of operand o (UB byte offset).
inline uint64_t lane_off(const Opnd& o, uint32_t r, uint32_t l) {
  uint32_t epb = 32 / o.esize;
  return o.t.addr + (uint64_t(r) * o.rep + uint64_t(l / epb) * o.blk) * 32 + (l % epb) * o.esize;
}

/// Count-form compare of `count` elements; `s1` null = scalar `sc`.
template <class T>
inline void compare_count(const UbRef& dst, const UbRef& s0, const UbRef* s1, T sc, AscendC::CMPMODE mode,
                          uint64_t count, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  const uint64_t per = 256 / sizeof(T);
  const uint64_t n = count / per * per;
  if (n != count) {
    warn("compare_count_truncated", api, loc,
         fmt("count %llu is not a multiple of %llu elements (256 bytes): only the first %llu elements are compared, the "
             "last %llu are not",
             (unsigned long long)count, (unsigned long long)per, (unsigned long long)n,
             (unsigned long long)(count - n)),
         {{"count", double(count)}, {"compared", double(n)}});
  }
  if (n == 0) {
    check_tensor(c, dst, "dst", api, loc);
    check_tensor(c, s0, "src0", api, loc);
    if (s1) check_tensor(c, *s1, "src1", api, loc);
    c.rec->vector(VecClass::Compare, dtype_v<T>, 0, true);
    end_count_form(api);
    return;
  }
  const uint32_t bytes = uint32_t(n * sizeof(T));
  check_operand(c, s0, s0.addr, s0.addr + bytes, 32, "src0", api, loc);
  if (s1) check_operand(c, *s1, s1->addr, s1->addr + bytes, 32, "src1", api, loc);
  check_operand(c, dst, dst.addr, dst.addr + uint32_t(n / 8), 32, "dst", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, s0.addr, s0.addr + bytes, false, api, loc);
  if (s1) hz_access(c, Pipe::V, stamp, s1->addr, s1->addr + bytes, false, api, loc);
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + uint32_t(n / 8), true, api, loc);
  const T* a = reinterpret_cast<const T*>(c.ub + s0.addr);
  const T* b = s1 ? reinterpret_cast<const T*>(c.ub + s1->addr) : nullptr;
  const uint8_t* ash = c.shadow + s0.addr;
  const uint8_t* bsh = s1 ? c.shadow + s1->addr : nullptr;
  uint8_t* o = c.ub + dst.addr;
  uint8_t* osh = c.shadow + dst.addr;
  auto w1 = widen(sc);
  for (uint64_t j = 0; j < n / 8; j++) {
    uint8_t bits = 0;
    for (uint32_t k = 0; k < 8; k++) {
      uint64_t i = j * 8 + k;
      if (cmp(widen(a[i]), b ? widen(b[i]) : w1, mode)) bits |= uint8_t(1u << k);
    }
    o[j] = bits;
    uint8_t init = 0;  // bit mask outputs carry one shadow bit per element
    for (uint32_t k = 0; k < 8; k++) {
      uint64_t i = j * 8 + k;
      bool ok = all_init(ash + i * sizeof(T), sizeof(T)) == kInit && (!bsh || all_init(bsh + i * sizeof(T), sizeof(T)) == kInit);
      if (ok) init |= uint8_t(1u << k);
    }
    osh[j] = init;
  }
  c.rec->vector(VecClass::Compare, dtype_v<T>, uint32_t(n / per), true);
  end_count_form(api);
}

/// Mask-form compare: `ops` = {src0, src1 (unused when scalar)}.
template <class T>
inline void compare_mask(const UbRef& dst, Opnd* ops, bool scalar, T sc, AscendC::CMPMODE mode, const Shape& sh,
                         const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  int nops = scalar ? 1 : 2;
  bool any = prepare(c, sh, ops, nops, api, loc);
  const uint32_t bpr = sh.lanes / 8;  // dst bytes per repeat
  check_operand(c, dst, dst.addr, dst.addr + (any ? sh.repeats * bpr : 0), 32, "dst", api, loc);
  if (!any) {
    c.rec->vector(VecClass::Compare, dtype_v<T>, 0, false);
    return;
  }
  uint32_t stamp = c.hz.counter[int(Pipe::V)];
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + sh.repeats * bpr, true, api, loc);
  auto w1 = widen(sc);
  for (uint32_t r = 0; r < sh.repeats; r++) {
    uint8_t* o = c.ub + dst.addr + r * bpr;
    uint8_t* osh = c.shadow + dst.addr + r * bpr;
    for (uint32_t j = 0; j < bpr; j++) {
      o[j] = 0;
      osh[j] = kInit;
    }
    for (uint32_t l = 0; l < sh.lanes; l++) {
      bool act;
      if (sh.counter) {
        act = uint64_t(r) * sh.lanes + l < sh.count;
      } else {
        act = (sh.mask[l / 64] >> (l % 64)) & 1;
      }
      if (!act) continue;
      uint64_t a0 = lane_off(ops[0], r, l);
      T av, bv;
      std::memcpy(&av, c.ub + a0, sizeof(T));
      uint8_t init = all_init(c.shadow + a0, sizeof(T));
      if (!scalar) {
        uint64_t b0 = lane_off(ops[1], r, l);
        std::memcpy(&bv, c.ub + b0, sizeof(T));
        init &= all_init(c.shadow + b0, sizeof(T));
      }
      if (cmp(widen(av), scalar ? w1 : widen(bv), mode)) o[l / 8] |= uint8_t(1u << (l % 8));
      if (init != kInit) osh[l / 8] &= uint8_t(~(1u << (l % 8)));
    }
  }
  c.rec->vector(VecClass::Compare, dtype_v<T>, sh.repeats, false);
}

/// Select over `count` elements (count form) or a mask shape.
template <class T>
inline void select_impl(const UbRef& dst, const UbRef& sel, const UbRef& s0, const UbRef* s1, T sc,
                        AscendC::SELMODE mode, const Shape& sh, Opnd* ops, bool count_form, const char* api,
                        const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  (void)dst;  // addressed through ops[0] / ops[1]
  (void)s0;
  // ops: {dst, src0, src1?}
  int nops = s1 ? 3 : 2;
  bool any = prepare(c, sh, ops, nops, api, loc);
  const bool spr = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  uint64_t total_bits = sh.counter ? sh.count : uint64_t(sh.repeats) * sh.lanes;
  uint32_t sel_bytes = uint32_t(spr ? sh.lanes / 8 : (total_bits + 7) / 8);
  check_operand(c, sel, sel.addr, sel.addr + (any ? sel_bytes : 0), 32, "selMask", api, loc);
  if (any) {
    hz_access(c, Pipe::V, c.hz.counter[int(Pipe::V)], sel.addr, sel.addr + sel_bytes, false, api, loc);
    const uint8_t* sb = c.ub + sel.addr;
    const uint8_t* ssh = c.shadow + sel.addr;
    for (uint32_t r = 0; r < sh.repeats; r++) {
      for (uint32_t l = 0; l < sh.lanes; l++) {
        bool act = sh.counter ? uint64_t(r) * sh.lanes + l < sh.count : ((sh.mask[l / 64] >> (l % 64)) & 1);
        if (!act) continue;
        uint64_t bit = spr ? l : uint64_t(r) * sh.lanes + l;
        bool take0 = (sb[bit / 8] >> (bit % 8)) & 1;
        uint64_t d0 = lane_off(ops[0], r, l), a0 = lane_off(ops[1], r, l);
        uint8_t init = ((ssh[bit / 8] >> (bit % 8)) & 1) ? kInit : kUninit;
        if (take0 || !s1) {
          if (take0) {
            std::memmove(c.ub + d0, c.ub + a0, sizeof(T));
            init &= all_init(c.shadow + a0, sizeof(T));
          } else {
            std::memcpy(c.ub + d0, &sc, sizeof(T));
          }
        } else {
          uint64_t b0 = lane_off(ops[2], r, l);
          std::memmove(c.ub + d0, c.ub + b0, sizeof(T));
          init &= all_init(c.shadow + b0, sizeof(T));
        }
        std::memset(c.shadow + d0, init, sizeof(T));
      }
    }
  }
  c.rec->vector(VecClass::Select, dtype_v<T>, any ? sh.repeats : 0, count_form);
  if (count_form) end_count_form(api);
}

/// Compare into the CMPMASK register: one repeat, `ops` = {src0, src1}.
template <class T>
inline void compare_reg(Opnd* ops, AscendC::CMPMODE mode, const Shape& sh, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  bool any = prepare(c, sh, ops, 2, api, loc);
  uint64_t bits[2] = {0, 0}, init[2] = {~0ull, ~0ull};
  if (any) {
    for (uint32_t l = 0; l < sh.lanes; l++) {
      bool act = sh.counter ? l < sh.count : ((sh.mask[l / 64] >> (l % 64)) & 1);
      if (!act) continue;
      uint64_t a0 = lane_off(ops[0], 0, l), b0 = lane_off(ops[1], 0, l);
      T av, bv;
      std::memcpy(&av, c.ub + a0, sizeof(T));
      std::memcpy(&bv, c.ub + b0, sizeof(T));
      if (cmp(widen(av), widen(bv), mode)) bits[l / 64] |= 1ull << (l % 64);
      if ((all_init(c.shadow + a0, sizeof(T)) & all_init(c.shadow + b0, sizeof(T))) != kInit)
        init[l / 64] &= ~(1ull << (l % 64));
    }
  }
  c.cmpmask[0] = bits[0];
  c.cmpmask[1] = bits[1];
  c.cmpmask_init[0] = init[0];
  c.cmpmask_init[1] = init[1];
  c.rec->vector(VecClass::Compare, dtype_v<T>, any ? 1 : 0, false);
}

/// GetCmpMask: the register's 16 bytes to UB (shadow: one bit per register bit).
inline void cmpmask_store(CoreContext& c, const UbRef& dst, const SrcLoc& loc) {
  const char* api = "GetCmpMask";
  check_operand(c, dst, dst.addr, dst.addr + 16, 16, "dst", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, dst.addr, dst.addr + 16, true, api, loc);
  std::memcpy(c.ub + dst.addr, c.cmpmask, 16);
  std::memcpy(c.shadow + dst.addr, c.cmpmask_init, 16);
  c.rec->vector(VecClass::Copy, DType::U16, 1, false);
}

/// SetCmpMask: 16 bytes of UB to the register.
inline void cmpmask_load(CoreContext& c, const UbRef& src, const SrcLoc& loc) {
  const char* api = "SetCmpMask";
  check_operand(c, src, src.addr, src.addr + 16, 16, "src", api, loc);
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  hz_access(c, Pipe::V, stamp, src.addr, src.addr + 16, false, api, loc);
  std::memcpy(c.cmpmask, c.ub + src.addr, 16);
  // Shadow: a byte initialized gives its 8 bits (bit-mask bytes already hold bit shadows).
  std::memcpy(c.cmpmask_init, c.shadow + src.addr, 16);
  c.rec->vector(VecClass::Copy, DType::U16, 1, false);
}

/// Select mode 0 from the register: every repeat uses bits [0, lanes) of CMPMASK.
template <class T>
inline void select_reg(Opnd* ops, const Shape& sh, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  bool any = prepare(c, sh, ops, 3, api, loc);
  if (any) {
    for (uint32_t r = 0; r < sh.repeats; r++) {
      for (uint32_t l = 0; l < sh.lanes; l++) {
        bool act = sh.counter ? uint64_t(r) * sh.lanes + l < sh.count : ((sh.mask[l / 64] >> (l % 64)) & 1);
        if (!act) continue;
        bool take0 = (c.cmpmask[l / 64] >> (l % 64)) & 1;
        uint8_t init = ((c.cmpmask_init[l / 64] >> (l % 64)) & 1) ? kInit : kUninit;
        uint64_t d0 = lane_off(ops[0], r, l), s0 = lane_off(ops[take0 ? 1 : 2], r, l);
        std::memmove(c.ub + d0, c.ub + s0, sizeof(T));
        init &= all_init(c.shadow + s0, sizeof(T));
        std::memset(c.shadow + d0, init, sizeof(T));
      }
    }
  }
  c.rec->vector(VecClass::Select, dtype_v<T>, any ? sh.repeats : 0, false);
}

}  // namespace ascendc_sim::vec

#define ASCENDC_SIM_CMP_TYPES half, float, int32_t
namespace AscendC {

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "Compare: element type not supported on Ascend910B");
  static_assert(sizeof(U) == 1, "Compare: the destination is a uint8_t bit mask");
  auto r1 = src1.ref();
  ascendc_sim::vec::compare_count<T>(dst.ref(), src0.ref(), &r1, T{}, cmpMode, count, "Compare", loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint64_t mask, ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "Compare: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Compare");
  uint32_t r = check_repeat(repeatTime.raw, "Compare", loc);
  Opnd ops[2] = {od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  compare_mask<T>(dst.ref(), ops, false, T{}, cmpMode, mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Compare", loc),
                  "Compare", loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p,
                    ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "Compare: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Compare");
  uint32_t r = check_repeat(repeatTime.raw, "Compare", loc);
  Opnd ops[2] = {od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  compare_mask<T>(dst.ref(), ops, false, T{}, cmpMode, bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Compare", loc),
                  "Compare", loc);
}

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "CompareScalar: element type not supported on Ascend910B");
  static_assert(sizeof(U) == 1, "CompareScalar: the destination is a uint8_t bit mask");
  ascendc_sim::vec::compare_count<T>(dst.ref(), src0.ref(), nullptr, src1Scalar, cmpMode, count, "CompareScalar", loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint64_t mask, ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "CompareScalar: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("CompareScalar");
  uint32_t r = check_repeat(repeatTime.raw, "CompareScalar", loc);
  Opnd ops[1] = {od(src0.ref(), "src0", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};
  compare_mask<T>(dst.ref(), ops, true, src1Scalar, cmpMode,
                  mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "CompareScalar", loc), "CompareScalar", loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p,
                          ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, ASCENDC_SIM_CMP_TYPES>, "CompareScalar: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("CompareScalar");
  uint32_t r = check_repeat(repeatTime.raw, "CompareScalar", loc);
  Opnd ops[1] = {od(src0.ref(), "src0", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};
  compare_mask<T>(dst.ref(), ops, true, src1Scalar, cmpMode,
                  bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, "CompareScalar", loc), "CompareScalar", loc);
}
/// 9.x name of CompareScalar.
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count, ASCENDC_SIM_LOC) {
  CompareScalar(dst, src0, src1Scalar, cmpMode, count, loc);
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src0.ref(), "src0", sizeof(T), 1, 8, false),
                 od(src1.ref(), "src1", sizeof(T), 1, 8, false)};
  auto r1 = src1.ref();
  select_impl<T>(dst.ref(), selMask.ref(), src0.ref(), &r1, T{}, selMode, count_shape(count, 256 / sizeof(T)), ops, true,
                 "Select", loc);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1Scalar,
                   SELMODE selMode, uint32_t count, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src0.ref(), "src0", sizeof(T), 1, 8, false)};
  select_impl<T>(dst.ref(), selMask.ref(), src0.ref(), nullptr, src1Scalar, selMode, count_shape(count, 256 / sizeof(T)),
                 ops, true, "Select", loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, ascendc_sim::U8Arg repeatTime,
                   const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Select");
  uint32_t r = check_repeat(repeatTime.raw, "Select", loc);
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  auto r1 = src1.ref();
  select_impl<T>(dst.ref(), selMask.ref(), src0.ref(), &r1, T{}, selMode,
                 mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Select", loc), ops, false, "Select", loc);
}

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], ascendc_sim::U8Arg repeatTime,
                   const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Select");
  uint32_t r = check_repeat(repeatTime.raw, "Select", loc);
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  auto r1 = src1.ref();
  select_impl<T>(dst.ref(), selMask.ref(), src0.ref(), &r1, T{}, selMode,
                 bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Select", loc), ops, false, "Select", loc);
}

// ---- the CMPMASK register forms ----

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>,
                "Compare (result in the CMPMASK register): element type not supported on Ascend910B (half, float)");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Compare");
  Opnd ops[2] = {od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  compare_reg<T>(ops, cmpMode, mask_shape(c, mask, 1, 256 / sizeof(T), isSetMask, "Compare", loc), "Compare", loc);
}
template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>,
                "Compare (result in the CMPMASK register): element type not supported on Ascend910B (half, float)");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Compare");
  Opnd ops[2] = {od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  compare_reg<T>(ops, cmpMode, bits_shape(c, mask, 1, 256 / sizeof(T), isSetMask, "Compare", loc), "Compare", loc);
}

/// The CMPMASK register (16 bytes) to dst.
template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst, ASCENDC_SIM_LOC) {
  auto& c = ascendc_sim::ctx("GetCmpMask");
  ascendc_sim::vec::cmpmask_store(c, dst.ref(), loc);
}
/// 16 bytes of src to the CMPMASK register.
template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src, ASCENDC_SIM_LOC) {
  auto& c = ascendc_sim::ctx("SetCmpMask");
  ascendc_sim::vec::cmpmask_load(c, src.ref(), loc);
}

/// Select without a mask argument, selection bits from the CMPMASK register (mode 0).
template <typename T, SELMODE selMode>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  static_assert(selMode == SELMODE::VSEL_CMPMASK_SPR,
                "Select<T, selMode>(dst, src0, src1, repeat, params): only SELMODE::VSEL_CMPMASK_SPR is implemented in "
                "the simulator (mode 2 with the selMask address in the CMPMASK register is not)");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Select");
  uint32_t r = check_repeat(repeatTime.raw, "Select", loc);
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),
                 od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};
  select_reg<T>(ops, mask_shape(c, MASK_PLACEHOLDER, r, 256 / sizeof(T), false, "Select", loc), "Select", loc);
}
/// Select mode 1 without a mask argument: the scalar is the first element of the CMPMASK
/// register (set by SetCmpMask), selMask is consumed continuously.
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Select: element type not supported on Ascend910B");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Select");
  uint32_t r = check_repeat(repeatTime.raw, "Select", loc);
  Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false)};
  T sc;
  std::memcpy(&sc, c.cmpmask, sizeof(T));
  select_impl<T>(dst.ref(), selMask.ref(), src0.ref(), nullptr, sc, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                 mask_shape(c, MASK_PLACEHOLDER, r, 256 / sizeof(T), false, "Select", loc), ops, false, "Select", loc);
}

}  // namespace AscendC
