// The high-level Broadcast (hl_broadcast.h): checks, the bit-for-bit copy and the cost of the
// Atlas A2 instruction sequence.
#include "ascendc_sim/hl_broadcast.h"

#include <algorithm>
#include <cstring>

namespace ascendc_sim::hl {

namespace {
using ull = unsigned long long;

uint64_t align_up(uint64_t v, uint64_t a) { return ceil_div(v, a) * a; }

/// The bytes of sharedTmpBuffer a call uses.
struct BrcPlan {
  uint64_t cast_bytes = 0;  // the half copies of a 1-byte source and result
  uint64_t pass_bytes = 0;  // what one pass of the broadcast itself needs
};
}  // namespace

void broadcast_run(const char* api, uint32_t esize, const UbRef& dst, const UbRef& src, const UbRef* tmp,
                   uint64_t tmp_bytes, int dim, int axis, const uint32_t* dstShape, const uint32_t* srcShape,
                   const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  if (dstShape == nullptr || srcShape == nullptr) {
    fail("field_out_of_range", api, loc, "dstShape / srcShape is a null pointer");
  }
  uint64_t src_size = 1, dst_size = 1;
  for (int i = 0; i < dim; i++) {
    if (dstShape[i] == 0 || (srcShape[i] != dstShape[i] && srcShape[i] != 1)) {
      fail("field_out_of_range", api, loc,
           fmt("srcShape[%d] = %u cannot broadcast to dstShape[%d] = %u: each source dimension must equal the "
               "destination's or be 1, and no dimension may be 0",
               i, srcShape[i], i, dstShape[i]),
           {{"dim_index", double(i)}, {"src_dim", double(srcShape[i])}, {"dst_dim", double(dstShape[i])}});
    }
    src_size *= srcShape[i];
    dst_size *= dstShape[i];
  }
  enum class Kind { Same, Scalar, Last, First } kind = Kind::Same;
  if (src_size == dst_size) {
    kind = Kind::Same;
  } else if (src_size == 1) {
    kind = Kind::Scalar;
  } else {
    // dim 2 with exactly one broadcast dimension.
    const bool last = srcShape[1] == 1;
    if ((axis == 1) != last) {
      fail("field_out_of_range", api, loc,
           fmt("axis %d does not match the shapes: srcShape {%u, %u} -> dstShape {%u, %u} broadcasts dimension %d "
               "(axis 1 takes [m, 1] -> [m, k], axis 0 takes [1, k] -> [m, k])",
               axis, srcShape[0], srcShape[1], dstShape[0], dstShape[1], last ? 1 : 0),
           {{"axis", double(axis)}});
    }
    kind = last ? Kind::Last : Kind::First;
  }
  // 1-byte types are worked on as half.
  const uint64_t we = esize == 1 ? 2 : esize;
  const uint64_t epb = 32 / we;
  const uint64_t m = dim == 2 ? dstShape[0] : 1, k = dim == 2 ? dstShape[1] : dstShape[0];
  if (kind == Kind::First && k * esize % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("axis-0 Broadcast [1, %llu] -> [%llu, %llu]: the row of %llu bytes is not whole 32-byte blocks (the "
             "implementation does not support unaligned rows here)",
             ull(k), ull(m), ull(k), ull(k * esize)),
         {{"k", double(k)}});
  }
  BrcPlan plan;
  if (esize == 1) plan.cast_bytes = (align_up(src_size, 16) + align_up(dst_size, 16)) * 2;
  const uint64_t k_align = align_up(k, epb);
  const bool k_aligned = k % epb == 0;
  const uint64_t min_elems = epb * epb + (k_aligned ? 0 : epb * k_align);
  if (kind == Kind::First) plan.pass_bytes = 32;
  if (kind == Kind::Last) plan.pass_bytes = min_elems * we;
  const uint64_t need = plan.cast_bytes + plan.pass_bytes;

  Tile ops[3];
  int no = 0;
  ops[no++] = Tile{src, "srcLocal", esize, src_size, false, false, false, true};
  ops[no++] = Tile{dst, "dstLocal", esize, dst_size, true};
  if (tmp) ops[no++] = Tile{*tmp, "sharedTmpBuffer", 1, tmp_bytes, true, true};
  operands(c, ops, no, api, loc);
  if (tmp && tmp_bytes < need) tmp_too_small(tmp_bytes, need, "GetBroadCastMaxMinTmpSize", api, loc);

  // Values: bit-for-bit copies of the source elements, with their shadow bits.
  for (uint64_t i = 0; i < m; i++) {
    for (uint64_t j = 0; j < k; j++) {
      const uint64_t e = i * k + j;
      uint64_t s = e;
      if (kind == Kind::Scalar) s = 0;
      if (kind == Kind::Last) s = i;
      if (kind == Kind::First) s = j;
      std::memcpy(c.ub + dst.addr + e * esize, c.ub + src.addr + s * esize, esize);
      std::memcpy(c.shadow + dst.addr + e * esize, c.shadow + src.addr + s * esize, esize);
    }
  }

  // Cost: the Atlas A2 sequence.
  charge_scalar(c, 8);
  if (esize == 1) charge(c, VecClass::Cast, ceil_div(src_size * 2, 256));
  switch (kind) {
    case Kind::Same:
      charge(c, VecClass::Copy, ceil_div(dst_size * we, 256));
      break;
    case Kind::Scalar:
      charge_scalar(c, 2);  // the V_S / S_V flags and the GetValue of the element
      charge(c, VecClass::Duplicate, ceil_div(dst_size * we, 256));
      break;
    case Kind::Last: {
      uint64_t per_pass = m;
      if (tmp) per_pass = (tmp_bytes - plan.cast_bytes) / we / min_elems * epb;
      if (per_pass == 0) per_pass = epb;
      const uint64_t row_reps = ceil_div(k_align * we, 256);
      for (uint64_t done = 0; done < m; done += per_pass) {
        const uint64_t rows = std::min(per_pass, m - done);
        charge(c, VecClass::Brcb, ceil_div(rows, 8));
        charge(c, VecClass::Copy, rows * row_reps);
        if (!k_aligned) charge(c, VecClass::GatherMask, rows * row_reps);
      }
      break;
    }
    case Kind::First:
      charge(c, VecClass::Duplicate, 1);  // the zero block
      if (k >= 255 * epb) {
        for (uint64_t i = 0; i < m; i++) charge(c, VecClass::Simple, ceil_div(k * we, 256));
      } else {
        for (uint64_t i = 0; i < m; i += 8) charge(c, VecClass::Simple, k / epb);
      }
      break;
  }
  if (esize == 1) charge(c, VecClass::Cast, ceil_div(dst_size * 2, 256));
}

}  // namespace ascendc_sim::hl
