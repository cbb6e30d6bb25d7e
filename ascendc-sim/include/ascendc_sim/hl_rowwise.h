// ascendc_sim/hl_rowwise.h — the machinery shared by the row-wise high-level APIs
// (hl_softmax.h: SoftMax, SimpleSoftMax, LogSoftMax; hl_softmax_ext.h: SoftmaxFlashV2, SoftmaxGrad,
// SoftmaxGradFront; hl_norm.h: RmsNorm, LayerNorm; hl_reduce.h: Sum;
// hl_cumsum.h: CumSum; hl_broadcast.h: Broadcast; hl_pad.h: Pad, UnPad;
// hl_quant.h: AscendQuant, AscendDequant, AscendAntiQuant).
//
// Like the element-wise high-level APIs (hl_elementwise.h) these are evaluated, not
// replayed: each output element is computed in double from the inputs and rounded once to
// its type (the vendor's implementation computes in float for half and float inputs; the
// results agree within the documented high-level-API tolerances, not bit for bit; the
// quantization APIs of hl_quant.h instead round at each step their implementation rounds,
// which decides int8 results and ties). What the
// NPU would spend is reported as the basic-instruction sequence the vendor's implementation
// issues per pass over the rows the tiling gives (hl::charge), never less than the same
// work written by hand.
//
// Checks, per call: every operand allocated, not freed, 32-byte aligned and its footprint
// inside its buffer; no partial overlap between a destination and a source (exact in place
// is allowed, as the vendor allows dst to reuse src; a Tile's `reuse_start` also allows a
// narrower destination starting at it, `exclusive` forbids any overlap); sharedTmpBuffer overlapping an
// operand is `vector_overlap` (the vendor pages: "sharedTmpBuffer must not overlap the
// source or destination"); the whole call is one PIPE_V instruction for the hazard checker.
// Shadow bits: an output element is initialized iff every input element it depends on was.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ascendc_sim/core.h"
#include "ascendc_sim/hl_tiling.h"
#include "ascendc_sim/tensor.h"
#include "ascendc_sim/types.h"

namespace ascendc_sim::hl {

/// One operand of a row-wise high-level API call: `elems` elements of `esize` bytes.
struct Tile {
  UbRef t;
  const char* role;
  uint32_t esize;
  uint64_t elems;
  bool write;
  bool tmp = false;  // the sharedTmpBuffer
  /// A destination of another element size may start exactly at this source (the API
  /// reads each chunk before writing its narrower result over it: AscendQuant's "source
  /// and destination can be reused").
  bool reuse_start = false;
  /// No destination may overlap this source at all, exact in place included (AscendDequant:
  /// "address overlap between source and destination is not supported").
  bool exclusive = false;
};

/// Validates the operands and records the call as one V instruction (reads, then writes).
void operands(CoreContext& c, const Tile* ops, int n, const char* api, const SrcLoc& loc);
/// Charges `repeats` repeats of class `cls` on float lanes, split into instructions of at
/// most 255 repeats (the repeat field's limit), each setting its own mask (count form).
void charge(CoreContext& c, VecClass cls, uint64_t repeats);
/// Scalar issue of a high-level API pass (address arithmetic, mask setup).
inline void charge_scalar(CoreContext& c, uint32_t instrs) { c.rec->scalar(instrs); }
/// A row reduction of `rows` rows of `cols` floats the way the vendor's implementation does
/// it: fold the 64-lane chunks of a row with element-wise ops (rows * (chunks - 1) repeats),
/// one WholeReduce repeat per row, and a Brcb broadcast of the results to 32-byte blocks.
void charge_row_reduce(CoreContext& c, uint64_t rows, uint64_t cols, bool broadcast);
/// `sharedTmpBuffer` of `have` bytes below the `need` bytes the call's tiling uses:
/// `ub_out_of_range` (the API would write past the buffer), naming the helper that gives
/// the size.
[[noreturn]] void tmp_too_small(uint64_t have, uint64_t need, const char* helper, const char* api,
                                const SrcLoc& loc);

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

template <class T>
inline double load1(const CoreContext& c, uint64_t off, uint8_t* init) {
  T v;
  std::memcpy(&v, c.ub + off, sizeof(T));
  uint8_t in = kInit;
  for (uint32_t j = 0; j < sizeof(T); j++) in &= c.shadow[off + j];
  *init = in == kInit ? kInit : kUninit;
  return double(to_f32(v));
}
template <class T>
inline void store1(CoreContext& c, uint64_t off, double v, uint8_t init) {
  T x = from_f32<T>(float(v));
  std::memcpy(c.ub + off, &x, sizeof(T));
  std::memset(c.shadow + off, init, sizeof(T));
}

}  // namespace ascendc_sim::hl
