// Non-template parts of the quantization high-level APIs (hl_quant.h): AscendQuant and
// AscendDequant checks, evaluation and cost.
#include "ascendc_sim/hl_quant.h"

#include <cstring>
#include <vector>

#include "ascendc_sim/hl_elementwise.h"
#include "ascendc_sim/vec_cast.h"

namespace ascendc_sim::hl {

namespace {

using ull = unsigned long long;

/// The value of a half or float element at UB byte `off` as float, and its initialized bit.
float load_fp(const CoreContext& c, uint64_t off, uint32_t esize, uint8_t* init) {
  return esize == 2 ? float(load1<half>(c, off, init)) : float(load1<float>(c, off, init));
}
/// x rounded to half (nearest even), as float.
float to_half(double x) { return to_f32(cast::convert<half, double>(x, AscendC::RoundMode::CAST_RINT)); }

/// Writes the halves `h` (initialized bits `in`) over the first h.size() * 2 bytes of `t`:
/// AscendQuant's in-place cast of a float scale or offset tensor.
void overwrite_halves(CoreContext& c, const UbRef& t, const std::vector<float>& h, const std::vector<uint8_t>& in) {
  for (size_t j = 0; j < h.size(); j++) {
    const half v = from_f32<half>(h[j]);
    std::memcpy(c.ub + t.addr + 2 * j, &v, 2);
    std::memset(c.shadow + t.addr + 2 * j, in[j], 2);
  }
}

}  // namespace

void quant_run(const QuantCall& q, const SrcLoc& loc) {
  const char* api = "AscendQuant";
  CoreContext& c = ctx(api);
  const uint32_t count = q.count;
  if (count > q.src_size || count > q.dst_size) {
    fail("field_out_of_range", api, loc,
         fmt("calCount %u is more than the tensors hold (srcTensor %u, dstTensor %u elements)", count, q.src_size,
             q.dst_size),
         {{"count", double(count)}, {"src", double(q.src_size)}, {"dst", double(q.dst_size)}});
  }
  if (q.cfg_calc > q.src_size) {
    fail("field_out_of_range", api, loc,
         fmt("config.calcCount %u is more than srcTensor's %u elements", q.cfg_calc, q.src_size),
         {{"calcCount", double(q.cfg_calc)}, {"src", double(q.src_size)}});
  }
  if (q.has_tmp && q.work_local > q.tmp_bytes) {
    fail("ub_out_of_range", api, loc,
         fmt("config.workLocalSize %u bytes is more than sharedTmpBuffer's %u", q.work_local, q.tmp_bytes),
         {{"workLocalSize", double(q.work_local)}, {"tmp_bytes", double(q.tmp_bytes)}});
  }
  const uint32_t sc = q.per_channel ? q.scale_count : 0;
  if (q.per_channel) {
    if (sc == 0 || sc > q.scale_size) {
      fail("field_out_of_range", api, loc,
           fmt("scaleCount %u is outside [1, scaleTensor's %u elements]", sc, q.scale_size),
           {{"scaleCount", double(sc)}, {"scale", double(q.scale_size)}});
    }
    if (sc % 32 != 0) {
      fail("ub_misaligned", api, loc,
           fmt("scaleCount %u is not a multiple of 32: each row of the int8 output must be whole 32-byte blocks",
               sc),
           {{"scaleCount", double(sc)}});
    }
    if (count == 0 || count % sc != 0) {
      fail("field_out_of_range", api, loc,
           fmt("calCount %u is not a non-zero multiple of scaleCount %u (rows of scaleCount elements)", count, sc),
           {{"count", double(count)}, {"scaleCount", double(sc)}});
    }
    if (q.offset_tensor && (q.offset_count != sc || q.offset_count > q.offset_size)) {
      fail("field_out_of_range", api, loc,
           fmt("offsetCount %u must equal scaleCount %u and fit offsetTensor's %u elements", q.offset_count, sc,
               q.offset_size),
           {{"offsetCount", double(q.offset_count)}, {"scaleCount", double(sc)}, {"offset", double(q.offset_size)}});
    }
  }
  const uint32_t usable = q.work_local != 0 ? q.work_local : q.tmp_bytes;
  if (q.has_tmp && usable / 2 / 32 * 32 == 0) {
    fail("ub_out_of_range", api, loc,
         fmt("sharedTmpBuffer gives %u bytes; AscendQuant works through it in chunks of whole groups of 32 halves "
             "and needs at least 64 bytes (below that its loop never advances)",
             usable),
         {{"tmp_bytes", double(usable)}, {"needed_bytes", 64.0}});
  }
  const bool f32 = q.esize == 4;
  Tile ops[5];
  int no = 0;
  ops[no] = Tile{q.src, "srcTensor", q.esize, count, false};
  ops[no++].reuse_start = true;
  ops[no++] = Tile{q.dst, "dstTensor", 1, count, true};
  // float scale / offset tensors are cast to half in place: written, not only read.
  if (q.per_channel) ops[no++] = Tile{q.scale, "scaleTensor", q.esize, sc, f32};
  if (q.offset_tensor) ops[no++] = Tile{q.offset, "offsetTensor", q.esize, sc, f32};
  if (q.has_tmp) ops[no++] = Tile{q.tmp, "sharedTmpBuffer", 1, q.tmp_bytes, true, true};
  operands(c, ops, no, api, loc);

  // Per-channel parameters in half (cast from float first), with their initialized bits.
  std::vector<float> hs(sc), ho(q.offset_tensor ? sc : 0);
  std::vector<uint8_t> hsi(sc, kInit), hoi(ho.size(), kInit);
  for (uint32_t j = 0; j < sc; j++) {
    hs[j] = to_half(load_fp(c, q.scale.addr + uint64_t(j) * q.esize, q.esize, &hsi[j]));
    if (q.offset_tensor) ho[j] = to_half(load_fp(c, q.offset.addr + uint64_t(j) * q.esize, q.esize, &hoi[j]));
  }
  const float s_all = to_half(q.scale_v), o_all = to_half(q.offset_v);
  for (uint32_t i = 0; i < count; i++) {
    uint8_t init;
    const float x = to_half(load_fp(c, q.src.addr + uint64_t(i) * q.esize, q.esize, &init));
    const uint32_t j = sc ? i % sc : 0;
    const float s = sc ? hs[j] : s_all;
    const float o = q.offset_tensor ? ho[j] : o_all;
    if (sc) init &= hsi[j];
    if (q.offset_tensor) init &= hoi[j];
    const float p = to_half(double(x) * double(s));  // Muls / Mul in half
    const float r = to_half(double(p) + double(o));  // Adds / Add in half
    const int8_t v = cast::convert<int8_t, float>(r, AscendC::RoundMode::CAST_NONE);  // nearest even, saturating
    std::memcpy(c.ub + q.dst.addr + i, &v, 1);
    c.shadow[q.dst.addr + i] = init == kInit ? kInit : kUninit;
  }
  if (f32 && q.per_channel) {
    overwrite_halves(c, q.scale, hs, hsi);
    if (q.offset_tensor) overwrite_halves(c, q.offset, ho, hoi);
  }

  // Cost: the Atlas A2 sequence in half lanes; float data adds the Cast to half (and, per
  // channel, of the scale / offset tensors once).
  using V = VecClass;
  charge_scalar(c, 8);
  if (!q.per_channel) {
    if (f32) cost_sequence(api, {V::Cast}, DType::F32, count);
    cost_sequence(api, {V::Simple, V::Simple, V::Cast}, DType::F16, count);
    return;
  }
  if (f32) cost_sequence(api, {V::Cast}, DType::F32, sc);
  if (f32 && q.offset_tensor) cost_sequence(api, {V::Cast}, DType::F32, sc);
  for (uint32_t row = 0; row < count / sc; row++) {
    if (f32) cost_sequence(api, {V::Cast}, DType::F32, sc);
    cost_sequence(api, {V::Simple, V::Simple, V::Cast}, DType::F16, sc);
  }
}

void dequant_run(const DequantCall& q, const SrcLoc& loc) {
  const char* api = "AscendDequant";
  CoreContext& c = ctx(api);
  if (q.dst_t == DType::BF16 || q.scale_t == DType::BF16) check_bf16_soc(api, loc);
  AscendC::DequantParams p{};
  uint64_t count;
  if (q.has_params) {
    p = q.p;
    count = uint64_t(p.m) * p.n;
  } else {
    if (q.count == 0 || q.count > q.src_size) {
      fail("field_out_of_range", api, loc,
           fmt("calCount %u is outside [1, srcTensor's %u elements]", q.count, q.src_size),
           {{"count", double(q.count)}, {"src", double(q.src_size)}});
    }
    if (q.scale_size == 0 || q.src_size % q.scale_size != 0) {
      fail("field_out_of_range", api, loc,
           fmt("without DequantParams srcTensor's %u elements must be a multiple of deqScale's %u (rows of "
               "deqScale.GetSize() elements)",
               q.src_size, q.scale_size),
           {{"src", double(q.src_size)}, {"scale", double(q.scale_size)}});
    }
    if (q.scale_t == DType::U64 && q.scale_size % 8 != 0) {
      fail("field_out_of_range", api, loc,
           fmt("without DequantParams a uint64_t deqScale needs a multiple of 8 elements, not %u", q.scale_size),
           {{"scale", double(q.scale_size)}});
    }
    p = {q.src_size / q.scale_size, q.scale_size, q.scale_size};
    count = q.count;
  }
  if (p.n == 0 || p.n % 8 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("DequantParams.n %u int32 elements (%llu bytes) is not a non-zero multiple of 32 bytes", p.n,
             ull(uint64_t(p.n) * 4)),
         {{"n", double(p.n)}});
  }
  if (uint64_t(p.m) * p.n > q.src_size) {
    fail("field_out_of_range", api, loc,
         fmt("DequantParams m %u x n %u is more than srcTensor's %u elements", p.m, p.n, q.src_size),
         {{"m", double(p.m)}, {"n", double(p.n)}, {"src", double(q.src_size)}});
  }
  if (p.calCount == 0 || p.calCount > p.n) {
    fail("field_out_of_range", api, loc, fmt("DequantParams.calCount %u is outside [1, n = %u]", p.calCount, p.n),
         {{"calCount", double(p.calCount)}, {"n", double(p.n)}});
  }
  if (q.scale_tensor && p.calCount > q.scale_size) {
    fail("field_out_of_range", api, loc,
         fmt("calCount %u is more than deqScale's %u elements", p.calCount, q.scale_size),
         {{"calCount", double(p.calCount)}, {"scale", double(q.scale_size)}});
  }
  const uint32_t dsz = dtype_bytes(q.dst_t), epb = 32 / dsz;
  uint64_t pitch = ceil_div(p.n, epb) * epb;  // dst row pitch: n rounded up to 32 bytes of dstT
  if (uint64_t(p.m) * pitch > q.dst_size) {
    fail("field_out_of_range", api, loc,
         fmt("dstTensor holds %u elements; %u rows at a pitch of %llu (n rounded up to 32 bytes of the output type) "
             "need %llu",
             q.dst_size, p.m, ull(pitch), ull(uint64_t(p.m) * pitch)),
         {{"dst", double(q.dst_size)}, {"needed", double(uint64_t(p.m) * pitch)}});
  }
  // DEQUANT_WITH_SINGLE_ROW: {1, k * c, c} with c whole 32-byte blocks of dstT is {k, c, c}.
  if (q.single_row && p.m == 1 && p.calCount % epb == 0 && p.n % p.calCount == 0) {
    p.m = p.n / p.calCount;
    p.n = p.calCount;
    pitch = p.n;  // calCount is whole 32-byte blocks of dstT
  }
  const uint64_t need = 4 * (ceil_div(p.calCount, 8) * 8 + p.n);
  if (q.has_tmp && q.tmp_bytes < need) {
    fail("ub_out_of_range", api, loc,
         fmt("sharedTmpBuffer holds %u bytes; one pass needs %llu (float copies of calCount %u scales rounded up "
             "to 8 and of one row of n %u elements): below that the implementation writes past the buffer",
             q.tmp_bytes, ull(need), p.calCount, p.n),
         {{"tmp_bytes", double(q.tmp_bytes)}, {"needed_bytes", double(need)}});
  }
  const uint64_t dst_elems = count / p.n * pitch + count % p.n;
  const uint32_t ssz = dtype_bytes(q.scale_t);
  Tile ops[4];
  int no = 0;
  ops[no] = Tile{q.src, "srcTensor", 4, count, false};
  ops[no++].exclusive = true;
  ops[no++] = Tile{q.dst, "dstTensor", dsz, dst_elems, true};
  if (q.scale_tensor) ops[no++] = Tile{q.scale, "deqScale", ssz, p.calCount, false};
  if (q.has_tmp) ops[no++] = Tile{q.tmp, "sharedTmpBuffer", 1, q.tmp_bytes, true, true};
  operands(c, ops, no, api, loc);

  // The scales as float (uint64_t: the low 32 bits), with their initialized bits.
  std::vector<float> sc(p.calCount, q.scale_v);
  std::vector<uint8_t> sci(p.calCount, kInit);
  if (q.scale_tensor) {
    for (uint32_t j = 0; j < p.calCount; j++) {
      const uint64_t off = q.scale.addr + uint64_t(j) * ssz;
      if (q.scale_t == DType::BF16) {
        sc[j] = float(load1<bfloat16_t>(c, off, &sci[j]));
      } else {
        sc[j] = float(load1<float>(c, off, &sci[j]));  // float, or the low half of a uint64_t
      }
    }
  }
  for (uint64_t i = 0; i < count; i++) {
    const uint64_t r = i / p.n, col = i % p.n;
    const uint64_t so = q.src.addr + i * 4;
    int32_t v;
    std::memcpy(&v, c.ub + so, 4);
    uint8_t init = kInit;
    for (int b = 0; b < 4; b++) init &= c.shadow[so + b];
    float f = float(v);  // Cast int32 -> float
    if (col < p.calCount) {
      f = f * sc[col];  // Mul in float
      init &= sci[col];
    }
    const uint64_t d = q.dst.addr + (r * pitch + col) * dsz;
    if (q.dst_t == DType::F32) {
      std::memcpy(c.ub + d, &f, 4);
    } else if (q.dst_t == DType::F16) {
      const half h = from_f32<half>(f);  // CAST_NONE: nearest even
      std::memcpy(c.ub + d, &h, 2);
    } else {
      const bfloat16_t h = bfloat16_t(f);  // CAST_RINT
      std::memcpy(c.ub + d, &h, 2);
    }
    std::memset(c.shadow + d, init == kInit ? kInit : kUninit, dsz);
  }

  // Cost (Atlas A2, float lanes): the scales to float once (Adds, GatherMask, Cast or a
  // Duplicate of the scalar), then Cast int32 -> float, one Mul per row over calCount,
  // and the conversion to dstT (Adds for float, Cast otherwise).
  charge_scalar(c, 8);
  const uint64_t cal_reps = ceil_div(p.calCount, 64);
  VecClass scale_cls = !q.scale_tensor             ? VecClass::Duplicate
                       : q.scale_t == DType::F32   ? VecClass::Simple
                       : q.scale_t == DType::U64   ? VecClass::GatherMask
                                                   : VecClass::Cast;
  charge(c, scale_cls, q.scale_t == DType::U64 ? ceil_div(2ull * p.calCount, 64) : cal_reps);
  charge(c, VecClass::Cast, ceil_div(count, 64));
  charge(c, VecClass::Simple, ceil_div(count, p.n) * cal_reps);
  charge(c, q.dst_t == DType::F32 ? VecClass::Simple : VecClass::Cast, ceil_div(count, 64));
}

void antiquant_run(const AntiQuantCall& q, const SrcLoc& loc) {
  const char* api = "AscendAntiQuant";
  CoreContext& c = ctx(api);
  if (q.bf16) check_bf16_soc(api, loc);
  const uint32_t k = q.k;
  if (k == 0 || q.src_size % k != 0) {
    fail("field_out_of_range", api, loc,
         fmt("k %u does not divide srcTensor's %u elements (src is [k, N], or [N, k] with isTranspose)", k,
             q.src_size),
         {{"k", double(k)}, {"src", double(q.src_size)}});
  }
  const uint32_t n = q.src_size / k;
  if (q.transpose && k % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("with isTranspose, k %u int8 elements is not whole 32-byte blocks (the page: k must be 32-byte "
             "aligned)",
             k),
         {{"k", double(k)}});
  }
  if (q.dst_size < q.src_size) {
    fail("field_out_of_range", api, loc,
         fmt("dst holds %u elements, fewer than srcTensor's %u", q.dst_size, q.src_size),
         {{"dst", double(q.dst_size)}, {"src", double(q.src_size)}});
  }
  // Parameter groups: rows of N (no transpose) or columns per row of N (transpose) that the
  // offset / scale tensors hold; each serves k / groups source rows (columns).
  auto groups = [&](uint32_t along, uint32_t across, uint32_t size, const char* role) -> uint32_t {
    const uint32_t g = along != 0 ? along : size / n;
    // The other dimension, when given, is N (the width of [H, N], the height of [N, W]).
    if ((across != 0 && across != n) || g == 0 || k % g != 0 || uint64_t(g) * n > size) {
      fail("field_out_of_range", api, loc,
           fmt("%s: %u parameter %s (shape info %u x %u) must divide k = %u and, with N = %u, fit its %u elements",
               role, g, q.transpose ? "columns per row" : "rows", q.transpose ? across : along,
               q.transpose ? along : across, k, n, size),
           {{"groups", double(g)}, {"n", double(n)}, {"k", double(k)}, {"size", double(size)}});
    }
    return g;
  };
  uint32_t go = 0, gs = 0;
  if (q.tensors) {
    gs = q.transpose ? groups(q.shape.scaleWidth, q.shape.scaleHeight, q.scale_size, "scale")
                     : groups(q.shape.scaleHeight, q.shape.scaleWidth, q.scale_size, "scale");
    if (q.has_offset) {
      go = q.transpose ? groups(q.shape.offsetWidth, q.shape.offsetHeight, q.offset_size, "offset")
                       : groups(q.shape.offsetHeight, q.shape.offsetWidth, q.offset_size, "offset");
    }
  }
  Tile ops[5];
  int no = 0;
  ops[no] = Tile{q.src, "srcTensor", 1, q.src_size, false};
  ops[no++].exclusive = true;
  ops[no++] = Tile{q.dst, "dst", 2, q.src_size, true};
  if (q.tensors) ops[no++] = Tile{q.scale, "scale", 2, uint64_t(gs) * n, false};
  if (q.tensors && q.has_offset) ops[no++] = Tile{q.offset, "offset", 2, uint64_t(go) * n, false};
  if (q.has_tmp) ops[no++] = Tile{q.tmp, "sharedTmpBuffer", 1, q.tmp_bytes, true, true};
  operands(c, ops, no, api, loc);

  // The index of the parameter that source element e uses, for `g` groups.
  auto param = [&](uint64_t e, uint32_t g) -> uint64_t {
    if (!q.transpose) return (e / n) / (k / g) * n + e % n;  // row i of [k, N] -> parameter row i / (k / g)
    return (e / k) * g + (e % k) / (k / g);                    // row i, column j of [N, k] -> [i][j / (k / g)]
  };
  auto load_param = [&](const UbRef& t, uint64_t idx, uint8_t* in) {
    const uint64_t off = t.addr + idx * 2;
    return q.bf16 ? float(load1<bfloat16_t>(c, off, in)) : float(load1<half>(c, off, in));
  };
  for (uint64_t e = 0; e < q.src_size; e++) {
    int8_t v;
    std::memcpy(&v, c.ub + q.src.addr + e, 1);
    uint8_t init = c.shadow[q.src.addr + e] == kInit ? kInit : kUninit;
    float off = q.offset_v, sc = q.scale_v;
    if (q.tensors) {
      uint8_t in;
      sc = load_param(q.scale, param(e, gs), &in);
      init &= in;
      if (q.has_offset) {
        off = load_param(q.offset, param(e, go), &in);
        init &= in;
      }
    }
    const uint64_t d = q.dst.addr + e * 2;
    if (!q.bf16) {  // Cast int8 -> half (exact), Add / Adds and Mul / Muls in half
      float r = float(v);
      if (q.has_offset) r = to_half(double(r) + double(off));
      r = to_half(double(r) * double(sc));
      const half h = from_f32<half>(r);
      std::memcpy(c.ub + d, &h, 2);
    } else {  // Atlas A2 bfloat16 output: through float, Cast to bfloat16 with CAST_RINT
      float r = float(v);
      if (q.has_offset) r = r + off;
      r = r * sc;
      const bfloat16_t h = bfloat16_t(r);
      std::memcpy(c.ub + d, &h, 2);
    }
    std::memset(c.shadow + d, init == kInit ? kInit : kUninit, 2);
  }

  // Cost: Cast int8 -> half, then Add(s) and Mul(s) in half; bfloat16 output runs in float
  // (Cast half -> float, the parameters' Casts, Add, Mul, Cast to bfloat16).
  using V = VecClass;
  charge_scalar(c, 8);
  cost_sequence(api, {V::Cast}, DType::F16, q.src_size);
  if (!q.bf16) {
    if (q.has_offset) cost_sequence(api, {V::Simple}, DType::F16, q.src_size);
    cost_sequence(api, {V::Simple}, DType::F16, q.src_size);
    return;
  }
  cost_sequence(api, {V::Cast}, DType::F32, q.src_size);
  if (q.tensors) cost_sequence(api, {V::Cast}, DType::F32, uint64_t(gs + go) * n);
  if (q.has_offset) cost_sequence(api, {V::Simple}, DType::F32, q.src_size);
  cost_sequence(api, {V::Simple, V::Cast}, DType::F32, q.src_size);
}

}  // namespace ascendc_sim::hl
