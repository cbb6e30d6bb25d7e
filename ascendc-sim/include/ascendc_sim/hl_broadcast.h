// ascendc_sim/hl_broadcast.h — the high-level Broadcast (vendor page "Broadcast" /
// "BroadCast", atlasascendc_api_07_0853 of CANN 8.x, header adv_api/pad/broadcast.h, its
// Atlas A2 implementation broadcast_common_impl.h / broadcast_v220_impl.h /
// broadcast_common_utils.h and its API check broadcast_check_aicore.h; facts only, in our
// own words).
//
// Semantics (numpy-style, dim 1 or 2): srcLocal holds a [srcShape] tensor, dstLocal gets the
// [dstShape] tensor, both packed (no row padding: dst row i starts at element i * dstShape[1]).
// Every srcShape[i] is dstShape[i] or 1. Cases, as the implementation splits them:
//  * the same element count: a copy of dstSize elements;
//  * a single source element: Duplicate of it over dstSize elements;
//  * axis = 1, [m, 1] -> [m, k]: every row repeats its element (Brcb to one 32-byte block per
//    row, Copy of the blocks along the row; k not a whole number of 32-byte blocks: Copy at
//    the padded pitch into sharedTmpBuffer, then GatherMask packs the rows into dst);
//  * axis = 0, [1, k] -> [m, k]: every row is the source row (Or with a zero block); k must be
//    whole 32-byte blocks (the implementation asserts "non-alignment is not supported").
// 1-byte types go through half: the source is cast into sharedTmpBuffer, broadcast there and
// cast back (exact for int8/uint8). The values are copied bit for bit.
//
// Checks: srcShape[i] in {1, dstShape[i]} and dstShape[i] >= 1 (`field_out_of_range`);
// a [m, 1] source with axis 0 or a [1, k] source with axis 1 (the implementation would read
// the wrong elements: `field_out_of_range`); axis 0 with k * sizeof(T) not whole 32-byte
// blocks (`ub_misaligned`); the footprints (srcSize, dstSize elements) inside their tensors
// (`ub_out_of_range`); any src/dst overlap, in place included (the API check forbids reusing
// the source; `vector_overlap`), and sharedTmpBuffer overlapping either; sharedTmpBuffer
// below what one pass uses (`ub_out_of_range`): axis 1 epb * epb elements of T (epb = 32 /
// sizeof(T), the Brcb blocks of epb rows) plus, for k not block-aligned, epb padded rows;
// axis 0 one 32-byte zero block; 1-byte types add the two half copies (source and result,
// each rounded up to 16 halves) and use epb of half. The framework-allocated form is not
// size-checked. Types (compile time, the API check's list): uint8_t int8_t uint16_t
// int16_t half bfloat16_t uint32_t int32_t float; dim 1 or 2, axis 0 or 1.
//
// Cost (the Atlas A2 sequence): a counted Copy or Duplicate of dstSize elements (the scalar
// case adds its GetValue); axis 1, per pass of epb * (tmp / minimum) rows: Brcb (one repeat
// per 8 rows), Copy (each row's padded length), GatherMask when k is not block-aligned;
// axis 0: a Duplicate of the zero block and the Or copies (per 8 rows one instruction of
// k / epb repeats, or one instruction per row for rows of 255 blocks or more); 1-byte types
// add the two Casts.
#pragma once

#include <cstdint>

#include "ascendc_sim/hl_rowwise.h"
#include "ascendc_sim/vec_elementwise.h"

namespace ascendc_sim::hl {

/// Broadcast of `esize`-byte elements (the non-template body; `tmp` null for the
/// framework-allocated form).
void broadcast_run(const char* api, uint32_t esize, const UbRef& dst, const UbRef& src, const UbRef* tmp,
                   uint64_t tmp_bytes, int dim, int axis, const uint32_t* dstShape, const uint32_t* srcShape,
                   const SrcLoc& loc);

}  // namespace ascendc_sim::hl

namespace AscendC {
#define ASCENDC_SIM_BROADCAST_CHECKS(NAME)                                                                         \
  static_assert(ascendc_sim::is_one_of_v<T, uint8_t, int8_t, uint16_t, int16_t, half, bfloat16_t, uint32_t,        \
                                         int32_t, float>,                                                          \
                NAME ": T must be uint8_t/int8_t/uint16_t/int16_t/half/bfloat16_t/uint32_t/int32_t/float");        \
  static_assert(dim == 1 || dim == 2, NAME ": only dim = 1 or dim = 2 is supported");                              \
  static_assert(axis == 0 || axis == 1, NAME ": axis must be 0 or 1")

/// Broadcast with the temporary space from sharedTmpBuffer (at least
/// GetBroadCastMaxMinTmpSize's minimum; more lets the axis-1 form do more rows per pass).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], LocalTensor<uint8_t>& sharedTmpBuffer, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_BROADCAST_CHECKS("Broadcast");
  const ascendc_sim::UbRef t = sharedTmpBuffer.ref();
  ascendc_sim::hl::broadcast_run("Broadcast", sizeof(T), dstLocal.ref(), srcLocal.ref(), &t,
                                 sharedTmpBuffer.GetSize(), dim, axis, dstShape, srcShape, loc);
}
/// Broadcast with framework-allocated temporary space.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], ASCENDC_SIM_LOC) {
  ASCENDC_SIM_BROADCAST_CHECKS("Broadcast");
  ascendc_sim::hl::broadcast_run("Broadcast", sizeof(T), dstLocal.ref(), srcLocal.ref(), nullptr, 0, dim, axis,
                                 dstShape, srcShape, loc);
}
/// The CANN 8.0 spelling (page "BroadCast"), the same API.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], LocalTensor<uint8_t>& sharedTmpBuffer, ASCENDC_SIM_LOC) {
  ASCENDC_SIM_BROADCAST_CHECKS("BroadCast");
  const ascendc_sim::UbRef t = sharedTmpBuffer.ref();
  ascendc_sim::hl::broadcast_run("BroadCast", sizeof(T), dstLocal.ref(), srcLocal.ref(), &t,
                                 sharedTmpBuffer.GetSize(), dim, axis, dstShape, srcShape, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], ASCENDC_SIM_LOC) {
  ASCENDC_SIM_BROADCAST_CHECKS("BroadCast");
  ascendc_sim::hl::broadcast_run("BroadCast", sizeof(T), dstLocal.ref(), srcLocal.ref(), nullptr, 0, dim, axis,
                                 dstShape, srcShape, loc);
}
#undef ASCENDC_SIM_BROADCAST_CHECKS
}  // namespace AscendC
