// DataCopy / DataCopyPad (data_copy.h; api-reference §3, field cases FC-01, FC-04, FC-08).
#include <algorithm>
#include <cstring>

#include "ascendc_sim/data_copy.h"
#include "ascendc_sim/pipe.h"

namespace ascendc_sim::dma {

namespace {
using ull = unsigned long long;

DType dtype_for_size(uint32_t es) {
  return es == 1 ? DType::U8 : es == 2 ? DType::U16 : es == 4 ? DType::U32 : DType::U64;
}

void check_block_count(uint64_t n, const char* api, const SrcLoc& loc) {
  if (n > 4095) {
    fail("field_out_of_range", api, loc,
         n > 0xFFFF ? fmt("blockCount %llu does not fit its 16-bit field (the NPU would see %llu) and is outside "
                          "[0, 4095]",
                          ull(n), ull(n & 0xFFFF))
                    : fmt("blockCount %llu is outside [0, 4095]", ull(n)),
         {{"blockCount", double(n)}, {"max", 4095}});
  }
}

// A parameter stored through a wider type must fit its hardware field (FC-09): the NPU
// keeps only the low bits, so 65600 blocks would copy 64.
void check_field(uint64_t v, uint64_t max, const char* field, const char* api, const SrcLoc& loc) {
  if (v <= max) return;
  const unsigned bits = max == 0xFF ? 8 : max == 0xFFFF ? 16 : 32;
  if (v > (uint64_t(1) << 63)) {
    fail("field_out_of_range", api, loc,
         fmt("%s is negative (%lld); the field is an unsigned %u-bit integer", field, (long long)v, bits),
         {{field, double(int64_t(v))}, {"max", double(max)}});
  }
  fail("field_out_of_range", api, loc,
       fmt("%s %llu does not fit its %u-bit field (largest %llu): the NPU would use %llu", field, ull(v), bits,
           ull(max), ull(v & max)),
       {{field, double(v)}, {"max", double(max)}});
}

void check_params(uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap, const char* api, const SrcLoc& loc) {
  check_block_count(n, api, loc);
  check_field(len, 0xFFFF, "blockLen", api, loc);
  check_field(src_gap, 0xFFFF, "srcStride", api, loc);
  check_field(dst_gap, 0xFFFF, "dstStride", api, loc);
}

// GM -> UB bursts. `block_ub` bytes of UB per burst starting at dst + i*ub_pitch; the data
// (`bytes` per burst) lands at `data_off` inside it; the rest is padding.
void gm_to_ub(CoreContext& c, const UbRef& dst, const uint8_t* gm, uint32_t count, uint64_t bytes, uint64_t gm_pitch,
              uint64_t ub_pitch, uint64_t block_ub, uint64_t data_off, const Pad* pad, const char* api,
              const SrcLoc& loc) {
  uint64_t ub_span = uint64_t(count - 1) * ub_pitch + block_ub;
  uint64_t gm_span = uint64_t(count - 1) * gm_pitch + bytes;
  check_operand(c, dst, dst.addr, uint32_t(std::min<uint64_t>(dst.addr + ub_span, 0xFFFFFFFFull)), 32, "dst", api, loc);
  ascendc_sim::qs::check_in_flight_overlap(c, dst, dst.addr, uint32_t(dst.addr + ub_span), api, loc);
  check_gm(gm, gm_span, false, api, loc);
  if (gm_pitch == bytes) {
    gm_dma_read(c, Pipe::MTE2, gm, gm_span, api, loc);
  } else {
    for (uint32_t i = 0; i < count; i++) gm_dma_read(c, Pipe::MTE2, gm + i * gm_pitch, bytes, api, loc);
  }
  uint32_t stamp = hz_issue(c, Pipe::MTE2, loc);
  // Row layout (B.6): rows whose data (with requested padding) ends before the 32-byte
  // round-up leave lanes that belong to no row.
  const uint64_t data_end = pad ? data_off + bytes + pad->right * pad->esize : bytes;
  if (pad && data_end < block_ub) {
    layout_record(c, dst.addr,
                  CoreContext::RowLayout{count, uint32_t(ub_pitch), uint32_t(block_ub), uint32_t(data_off),
                                         uint32_t(data_end), loc});
  } else {
    layout_erase(c, dst.addr, uint32_t(dst.addr + ub_span));
  }
  for (uint32_t i = 0; i < count; i++) {
    uint32_t b = dst.addr + uint32_t(i * ub_pitch);
    hz_access(c, Pipe::MTE2, stamp, b, b + uint32_t(block_ub), true, api, loc);
    std::memcpy(c.ub + b + data_off, gm + i * gm_pitch, bytes);
    std::memset(c.shadow + b + data_off, kInit, bytes);
    if (block_ub == bytes) continue;
    // Padding: [b, b + data_off) and [b + data_off + bytes, b + block_ub).
    uint64_t ranges[2][2] = {{0, data_off}, {data_off + bytes, block_ub}};
    for (auto& r : ranges) {
      if (r[1] <= r[0]) continue;
      if (pad && pad->is_pad) {
        for (uint64_t o = r[0]; o < r[1]; o += pad->esize) std::memcpy(c.ub + b + o, pad->value, pad->esize);
        std::memset(c.shadow + b + r[0], kInit, r[1] - r[0]);
      } else {
        std::memset(c.ub + b + r[0], kUbPoison, r[1] - r[0]);
        std::memset(c.shadow + b + r[0], kUninit, r[1] - r[0]);
      }
    }
  }
  c.rec->dma(Pipe::MTE2, uint64_t(reinterpret_cast<uintptr_t>(gm)), count, bytes, gm_pitch);
}

// UB -> GM bursts of `bytes` each, UB burst i at src + i*ub_pitch.
void ub_to_gm(CoreContext& c, uint8_t* gm, const UbRef& src, uint32_t count, uint64_t bytes, uint64_t gm_pitch,
              uint64_t ub_pitch, const char* api, const SrcLoc& loc) {
  uint64_t ub_span = uint64_t(count - 1) * ub_pitch + bytes;
  uint64_t gm_span = uint64_t(count - 1) * gm_pitch + bytes;
  check_operand(c, src, src.addr, uint32_t(std::min<uint64_t>(src.addr + ub_span, 0xFFFFFFFFull)), 32, "src", api, loc);
  check_gm(gm, gm_span, true, api, loc);
  uint32_t stamp = hz_issue(c, Pipe::MTE3, loc);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t b = src.addr + uint32_t(i * ub_pitch);
    layout_check_copy_out(c, b, b + uint32_t(bytes), api, loc);
    check_initialized(c, b, b + uint32_t(bytes), "the copy to GM", api, loc);
    hz_access(c, Pipe::MTE3, stamp, b, b + uint32_t(bytes), false, api, loc);
  }
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t* from = c.ub + src.addr + i * ub_pitch;
    hz_gm_write(c, stamp, gm + i * gm_pitch, bytes, loc);
    if (c.atomic != CoreContext::Atomic::None) {
      c.atomic_writes.push_back({gm + i * gm_pitch, std::vector<uint8_t>(from, from + bytes), c.atomic, c.atomic_dtype});
      gm_note_output_write(c, gm + i * gm_pitch, bytes);
      continue;
    }
    std::memcpy(gm + i * gm_pitch, from, bytes);
    note_gm_write(c, gm + i * gm_pitch, bytes, api, loc);
  }
  c.rec->dma(Pipe::MTE3, uint64_t(reinterpret_cast<uintptr_t>(gm)), count, bytes, gm_pitch);
}

void ub_to_ub(CoreContext& c, const UbRef& dst, const UbRef& src, uint32_t count, uint64_t bytes,
              uint64_t src_pitch, uint64_t dst_pitch, uint32_t esize, const char* api, const SrcLoc& loc) {
  check_operand(c, src, src.addr, uint32_t(src.addr + (count - 1) * src_pitch + bytes), 32, "src", api, loc);
  check_operand(c, dst, dst.addr, uint32_t(dst.addr + (count - 1) * dst_pitch + bytes), 32, "dst", api, loc);
  if (!c.layouts.empty()) {
    LayoutOpnd lo[2] = {{src.addr, src.addr + (count - 1) * src_pitch + bytes, esize, false},
                        {dst.addr, dst.addr + (count - 1) * dst_pitch + bytes, esize, true}};
    if (count == 1) layout_vector(c, lo, 2, api, loc);
    else layout_erase(c, dst.addr, uint32_t(lo[1].hi));
  }
  uint32_t stamp = hz_issue(c, Pipe::V, loc);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t s = src.addr + uint32_t(i * src_pitch), d = dst.addr + uint32_t(i * dst_pitch);
    hz_access(c, Pipe::V, stamp, s, s + uint32_t(bytes), false, api, loc);
    hz_access(c, Pipe::V, stamp, d, d + uint32_t(bytes), true, api, loc);
    std::memmove(c.ub + d, c.ub + s, bytes);
    std::memmove(c.shadow + d, c.shadow + s, bytes);
  }
  uint64_t total = uint64_t(count) * bytes;
  c.rec->vector(VecClass::Copy, dtype_for_size(esize), uint32_t((total + 255) / 256), false);
}

uint64_t truncated(uint64_t count, uint32_t esize, const char* api, const SrcLoc& loc) {
  uint64_t bytes = count * esize;
  uint64_t copied = bytes / 32 * 32;
  if (copied != bytes) {
    warn("datacopy_truncated", api, loc,
         fmt("count %llu x %u bytes = %llu bytes is not a multiple of 32: the NPU copies only %llu bytes and drops the "
             "last %llu (%llu elements); use DataCopyPad for unaligned lengths",
             ull(count), esize, ull(bytes), ull(copied), ull(bytes - copied), ull((bytes - copied) / esize)),
         {{"count", double(count)}, {"bytes", double(bytes)}, {"copied_bytes", double(copied)}});
  }
  return copied;
}
}  // namespace

void count_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t count, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  uint64_t bytes = truncated(count, esize, api, loc);
  if (bytes == 0) {
    check_tensor(c, dst, "dst", api, loc);
    return;
  }
  gm_to_ub(c, dst, gm, 1, bytes, bytes, bytes, bytes, 0, nullptr, api, loc);
}

void count_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t count, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  uint64_t bytes = truncated(count, esize, api, loc);
  if (bytes == 0) {
    check_tensor(c, src, "src", api, loc);
    return;
  }
  ub_to_gm(c, gm, src, 1, bytes, bytes, bytes, api, loc);
}

void count_ub_to_ub(const UbRef& dst, const UbRef& src, uint64_t count, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  uint64_t bytes = truncated(count, esize, api, loc);
  if (bytes == 0) return;
  ub_to_ub(c, dst, src, 1, bytes, bytes, bytes, esize, api, loc);
}

void params_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap,
                     const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  check_params(n, len, src_gap, dst_gap, api, loc);
  if (n == 0 || len == 0) return;
  uint64_t bytes = uint64_t(len) * 32;
  gm_to_ub(c, dst, gm, uint32_t(n), bytes, bytes + uint64_t(src_gap) * 32, bytes + uint64_t(dst_gap) * 32, bytes, 0, nullptr, api,
           loc);
}

void params_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap,
                     const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  check_params(n, len, src_gap, dst_gap, api, loc);
  if (n == 0 || len == 0) return;
  uint64_t bytes = uint64_t(len) * 32;
  ub_to_gm(c, gm, src, uint32_t(n), bytes, bytes + uint64_t(dst_gap) * 32, bytes + uint64_t(src_gap) * 32, api, loc);
}

void params_ub_to_ub(const UbRef& dst, const UbRef& src, uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap,
                     const SrcLoc& loc) {
  const char* api = "DataCopy";
  CoreContext& c = ctx(api);
  check_params(n, len, src_gap, dst_gap, api, loc);
  if (n == 0 || len == 0) return;
  uint64_t bytes = uint64_t(len) * 32;
  ub_to_ub(c, dst, src, uint32_t(n), bytes, bytes + uint64_t(src_gap) * 32, bytes + uint64_t(dst_gap) * 32, 1, api, loc);
}

namespace {
void check_pad_params(uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap, uint64_t field_max,
                      uint32_t esize, const char* api, const SrcLoc& loc) {
  check_field(n, 0xFFFF, "blockCount", api, loc);
  check_block_count(n, api, loc);
  check_field(len, field_max, "blockLen", api, loc);
  check_field(src_gap, field_max, "srcStride", api, loc);
  check_field(dst_gap, field_max, "dstStride", api, loc);
  if (len > 2097151) {
    fail("field_out_of_range", api, loc, fmt("blockLen %llu bytes is outside [0, 2097151]", ull(len)),
         {{"blockLen", double(len)}, {"max", 2097151}});
  }
  if (len % esize != 0) {
    fail("field_out_of_range", api, loc,
         fmt("blockLen %llu bytes is not a multiple of the element size %u (DataCopyPad blockLen is in bytes)",
             ull(len), esize),
         {{"blockLen", double(len)}, {"element_bytes", double(esize)}});
  }
}
}  // namespace

void pad_gm_to_ub(const UbRef& dst, const uint8_t* gm, uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap,
                  uint64_t field_max, const Pad& pad, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopyPad";
  CoreContext& c = ctx(api);
  check_pad_soc(api, loc);
  check_pad_params(n, len, src_gap, dst_gap, field_max, esize, api, loc);
  check_field(pad.left, 0xFF, "leftPadding", api, loc);
  check_field(pad.right, 0xFF, "rightPadding", api, loc);
  if (pad.left * esize > 32 || pad.right * esize > 32) {
    fail("field_out_of_range", api, loc,
         fmt("padding of %llu left / %llu right elements exceeds 32 bytes", ull(pad.left), ull(pad.right)),
         {{"leftPadding", double(pad.left)}, {"rightPadding", double(pad.right)}});
  }
  if (n == 0 || len == 0) return;
  // The pad value lives in a register (SetPadValue). A copy with isPad loads its
  // paddingValue into it first (the vendor's GM->UB DataCopyPad implementation does so only
  // when isPad is set), so the value stays for later copies; a copy without isPad that asks
  // for left/right padding pads with whatever the register holds (SetPadValue page example:
  // isPad = false, rightPadding = 1, SetPadValue(37) gives 37 in the pad lane). Never set,
  // the register is undefined: the pad lanes stay poisoned. With no padding requested the
  // round-up lanes are the documented "copies of the first element": poisoned as well.
  Pad eff = pad;
  if (pad.is_pad) {
    c.pad_reg_set = true;
    std::memcpy(c.pad_reg, pad.value, sizeof c.pad_reg);
  } else if (c.pad_reg_set && (pad.left > 0 || pad.right > 0)) {
    eff.is_pad = true;
    std::memcpy(eff.value, c.pad_reg, sizeof eff.value);
  }
  uint64_t data_off = uint64_t(pad.left) * esize;
  uint64_t block_ub = (data_off + len + uint64_t(pad.right) * esize + 31) / 32 * 32;
  gm_to_ub(c, dst, gm, uint32_t(n), len, len + src_gap, block_ub + dst_gap * 32, block_ub, data_off, &eff, api, loc);
}

void pad_ub_to_gm(uint8_t* gm, const UbRef& src, uint64_t n, uint64_t len, uint64_t src_gap, uint64_t dst_gap,
                  uint64_t field_max, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopyPad";
  CoreContext& c = ctx(api);
  check_pad_soc(api, loc);
  check_pad_params(n, len, src_gap, dst_gap, field_max, esize, api, loc);
  if (n == 0 || len == 0) return;
  uint64_t ub_pitch = (len + 31) / 32 * 32 + src_gap * 32;
  ub_to_gm(c, gm, src, uint32_t(n), len, len + dst_gap, ub_pitch, api, loc);
}


// ---- DataCopy with SliceInfo (vendor page "GM and UB Slice Data Transfer (DataCopy)",
// atlasascendc_api_07_0105; the constraints below are that page's). The vendor builds it in
// software from DataCopy instructions: dimension 0's pieces are the bursts of one
// instruction (count from the source's slice, blockLen = burstLen, gaps from each side's
// stride), and every combination of the higher dimensions' selected rows is one more
// instruction at its own offsets (dimension 1 varying fastest). The GM gap may be any
// number of bytes (a gap that is not whole 32-byte blocks uses the byte-gap form of the
// instruction); the UB gap is counted in whole 32-byte blocks.
namespace {
[[noreturn]] void slice_fail(const char* side, uint64_t dim, const SrcLoc& loc, const std::string& what,
                             Numbers numbers = {}) {
  fail("field_out_of_range", "DataCopy (SliceInfo)", loc, fmt("%sSliceInfo[%llu]: %s", side, ull(dim), what.c_str()),
       numbers);
}

// Pieces of dimension 0 (`elems` elements each) or rows of a higher dimension (elems 1):
// endIndex - startIndex + 1 must be (N - 1) * stride + N * elems for a whole N >= 1.
// The page writes startIndex < endIndex; a one-row slice (startIndex == endIndex, e.g. a
// single row of a higher dimension) follows from the same formulas and is accepted.
uint64_t slice_pieces(const SliceDim& d, uint64_t elems, const char* side, uint64_t dim, const SrcLoc& loc) {
  if (d.shape == 0) {
    slice_fail(side, dim, loc,
               "shapeValue is 0: the vendor then takes the shapes from the tensors' ShapeInfo, which the "
               "simulator does not model; give every dimension's length in shapeValue");
  }
  if (d.start > d.end || d.end > d.shape) {
    slice_fail(side, dim, loc,
               fmt("startIndex %llu, endIndex %llu, shapeValue %llu: the slice must satisfy startIndex <= endIndex "
                   "<= shapeValue",
                   ull(d.start), ull(d.end), ull(d.shape)),
               {{"startIndex", double(d.start)}, {"endIndex", double(d.end)}, {"shapeValue", double(d.shape)}});
  }
  const uint64_t span = d.end - d.start + 1;
  const uint64_t n = (span + d.stride) / (elems + d.stride);
  if (n == 0 || n * elems + (n - 1) * d.stride != span) {
    slice_fail(side, dim, loc,
               fmt("endIndex - startIndex + 1 = %llu elements is not a whole number of pieces of %llu elements "
                   "with %llu-element gaps ((N - 1) * stride + N * %s must equal it)",
                   ull(span), ull(elems), ull(d.stride), dim == 0 ? "burstLen * 32 / sizeof(T)" : "1"),
               {{"span", double(span)}, {"piece", double(elems)}, {"stride", double(d.stride)}});
  }
  return n;
}
}  // namespace

void slice_copy(bool to_ub, const UbRef& ub, uint8_t* gm, uint64_t gm_elems, const SliceDim* dst, const SliceDim* src,
                uint64_t dims, uint32_t esize, const SrcLoc& loc) {
  const char* api = "DataCopy (SliceInfo)";
  CoreContext& c = ctx(api);
  if (dims == 0 || dims > 8) {
    fail("field_out_of_range", api, loc, fmt("dimValue %llu is outside [1, 8]", ull(dims)),
         {{"dimValue", double(dims)}, {"max", 8}});
  }
  const SliceDim* gm_s = to_ub ? src : dst;
  const SliceDim* ub_s = to_ub ? dst : src;
  const char* gm_side = to_ub ? "src" : "dst";
  const char* ub_side = to_ub ? "dst" : "src";
  // burstLen: dimension 0's piece in 32-byte blocks, the same on both sides; 1 above.
  for (uint64_t i = 0; i < dims; i++) {
    if (src[i].burst != dst[i].burst) {
      slice_fail("src", i, loc,
                 fmt("burstLen %llu differs from dstSliceInfo[%llu].burstLen %llu (they must be equal)",
                     ull(src[i].burst), ull(i), ull(dst[i].burst)),
                 {{"src_burstLen", double(src[i].burst)}, {"dst_burstLen", double(dst[i].burst)}});
    }
    if (i > 0 && src[i].burst != 1) {
      slice_fail("src", i, loc, fmt("burstLen %llu: above dimension 0 it must be 1", ull(src[i].burst)),
                 {{"burstLen", double(src[i].burst)}});
    }
  }
  if (src[0].burst == 0) slice_fail("src", 0, loc, "burstLen is 0");
  check_field(src[0].burst, 0xFFFF, "burstLen", api, loc);
  const uint64_t piece = src[0].burst * 32 / esize;
  uint64_t n0 = slice_pieces(src[0], piece, "src", 0, loc);
  uint64_t n0d = slice_pieces(dst[0], piece, "dst", 0, loc);
  if (n0 != n0d) {
    slice_fail("dst", 0, loc,
               fmt("selects %llu pieces per row but srcSliceInfo[0] selects %llu (both sides must hold the same "
                   "pieces)",
                   ull(n0d), ull(n0)),
               {{"dst_pieces", double(n0d)}, {"src_pieces", double(n0)}});
  }
  check_block_count(n0, api, loc);
  // Rows of the higher dimensions, element offsets of each side's first selected element
  // and pitches (elements between consecutive rows of a dimension).
  uint64_t rows_src = 1, rows_dst = 1;
  uint64_t count[8] = {}, pitch_s[8] = {}, pitch_d[8] = {};
  uint64_t base_s = 0, base_d = 0, ps = 1, pd = 1;
  for (uint64_t i = 0; i < dims; i++) {
    pitch_s[i] = ps;
    pitch_d[i] = pd;
    if (i > 0) {
      uint64_t ns = slice_pieces(src[i], 1, "src", i, loc);
      uint64_t nd = slice_pieces(dst[i], 1, "dst", i, loc);
      count[i] = ns;
      rows_src *= ns;
      rows_dst *= nd;
    }
    base_s += src[i].start * ps;
    base_d += dst[i].start * pd;
    ps *= src[i].shape;
    pd *= dst[i].shape;
  }
  if (rows_src != rows_dst) {
    slice_fail("dst", 1, loc,
               fmt("the higher dimensions select %llu rows but the source's select %llu (both sides must hold the "
                   "same rows)",
                   ull(rows_dst), ull(rows_src)),
               {{"dst_rows", double(rows_dst)}, {"src_rows", double(rows_src)}});
  }
  // The UB gap is whole 32-byte blocks: a UB-side stride that is not would put the pieces
  // off their 32-byte boundaries (the vendor's code rounds the gap down).
  const uint64_t ub_gap_bytes = ub_s[0].stride * esize;
  if (ub_gap_bytes % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("%sSliceInfo[0].stride %llu elements = %llu bytes is not whole 32-byte blocks: every piece in UB must "
             "start on a 32-byte boundary",
             ub_side, ull(ub_s[0].stride), ull(ub_gap_bytes)),
         {{"stride", double(ub_s[0].stride)}, {"bytes", double(ub_gap_bytes)}});
  }
  check_field(ub_gap_bytes / 32, 0xFFFF, "UB-side stride (blocks)", api, loc);
  const uint64_t gm_gap_bytes = gm_s[0].stride * esize;
  check_field(gm_gap_bytes % 32 == 0 ? gm_gap_bytes / 32 : gm_gap_bytes,
              gm_gap_bytes % 32 == 0 ? 0xFFFF : 0xFFFFFFFFull, "GM-side stride", api, loc);
  const uint64_t bytes = src[0].burst * 32;
  const uint64_t row_elems = (n0 - 1) * (piece + gm_s[0].stride) + piece;
  // Every row's offsets (elements from each side's base), dimension 1 fastest.
  const uint64_t* gm_pitch = to_ub ? pitch_s : pitch_d;
  const uint64_t* ub_pitch = to_ub ? pitch_d : pitch_s;
  const uint64_t gm_base = to_ub ? base_s : base_d, ub_base = to_ub ? base_d : base_s;
  uint64_t idx[8] = {};
  // The whole footprint first (one diagnostic for the copy, before any byte moves).
  uint64_t gm_hi = 0, ub_hi = 0;
  for (uint64_t i = 1; i < dims; i++) {
    gm_hi += (count[i] - 1) * (1 + gm_s[i].stride) * gm_pitch[i];
    ub_hi += (count[i] - 1) * (1 + ub_s[i].stride) * ub_pitch[i];
  }
  gm_hi += gm_base + row_elems;
  ub_hi += ub_base + (n0 - 1) * (piece + ub_s[0].stride) + piece;
  if (gm_elems != 0 && gm_hi > gm_elems) {
    fail("gm_out_of_bounds", api, loc,
         fmt("the %s slice reaches element %llu of a GlobalTensor of %llu elements (SetGlobalBuffer size)", gm_side,
             ull(gm_hi - 1), ull(gm_elems)),
         {{"last_element", double(gm_hi - 1)}, {"tensor_elements", double(gm_elems)}});
  }
  check_gm(gm, gm_hi * esize, !to_ub, api, loc);
  check_operand(c, ub, uint32_t(std::min<uint64_t>(ub.addr + ub_base * esize, 0xFFFFFFFFull)),
                uint32_t(std::min<uint64_t>(ub.addr + ub_hi * esize, 0xFFFFFFFFull)), 32, ub_side, api, loc);
  for (uint64_t r = 0; r < rows_src; r++) {
    uint64_t go = gm_base, uo = ub_base;
    for (uint64_t i = 1; i < dims; i++) {
      go += idx[i] * (1 + gm_s[i].stride) * gm_pitch[i];
      uo += idx[i] * (1 + ub_s[i].stride) * ub_pitch[i];
    }
    UbRef at{uint32_t(ub.addr + uo * esize), ub.buf, ub.gen};
    if (to_ub) {
      gm_to_ub(c, at, gm + go * esize, uint32_t(n0), bytes, bytes + gm_gap_bytes, bytes + ub_gap_bytes, bytes, 0,
               nullptr, api, loc);
    } else {
      ub_to_gm(c, gm + go * esize, at, uint32_t(n0), bytes, bytes + gm_gap_bytes, bytes + ub_gap_bytes, api, loc);
    }
    for (uint64_t i = 1; i < dims; i++) {
      if (++idx[i] < count[i]) break;
      idx[i] = 0;
    }
  }
}
}  // namespace ascendc_sim::dma
