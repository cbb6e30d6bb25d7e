// Kernels for the holes of issue 13 (tests/holes.rs): for each class a faulty kernel,
// whose diagnostic must point at the line marked "expect: <kind>", and a correct kernel
// in the ordinary Ascend C style that must run clean. Also the sync family of the A.1
// property test: one copy-in / compute / copy-out tile loop whose four synchronisation
// points can each be a flag (the honest kernel), nothing, a PIPE_ALL barrier, a scalar
// GetValue or SetValue, or a flag wait on the scalar pipe.
//
// Markers: "expect: <kind>" names the enclosing kernel's case, "expect: <kind> in <case>"
// another (for kernels shared by several cases through a template).
//
// Usage: holes                      every fixed case, one JSON line each
//        holes soc                  the SoC capability cases (run under AGENTICCANN_SOC)
//        holes sync B T N v0 v1 v2 v3   one family kernel: blockDim B, T tiles of N floats
//                                        per core, v* in {flag,none,barrier,get,set,waits}
// Each line: {"name":...,"result":<LaunchResult JSON>}.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kTile = 1024;  // floats per tile in the fixed A cases

// ---------------------------------------------------------------- A.1
// Single-buffered TBuf kernel y = 2x + 1 over `tiles` tiles, honestly synced with flags.
__aicore__ void a1_flags_honest(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, yb;
  pipe.InitBuffer(xb, kTile * sizeof(float));
  pipe.InitBuffer(yb, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xl = xb.Get<float>(), yl = yb.Get<float>();
  for (uint32_t i = 0; i < 4; i++) {
    if (i > 0) {
      SetFlag<HardEvent::V_MTE2>(0);
      WaitFlag<HardEvent::V_MTE2>(0);
    }
    DataCopy(xl, xg[i * kTile], kTile);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    if (i > 0) {
      SetFlag<HardEvent::MTE3_V>(0);
      WaitFlag<HardEvent::MTE3_V>(0);
    }
    Muls(yl, xl, 2.0f, kTile);
    Adds(yl, yl, 1.0f, kTile);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(yg[i * kTile], yl, kTile);
  }
}

// The same kernel with the MTE2->V flag replaced by a scalar read of the copied tile:
// the checker accepts it (auto-sync orders the scalar read after the copy), so the cost
// model must charge the wait for the copy.
__aicore__ void a1_getvalue_as_sync(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, yb;
  pipe.InitBuffer(xb, kTile * sizeof(float));
  pipe.InitBuffer(yb, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xl = xb.Get<float>(), yl = yb.Get<float>();
  float sink = 0;
  for (uint32_t i = 0; i < 4; i++) {
    if (i > 0) {
      SetFlag<HardEvent::V_MTE2>(0);
      WaitFlag<HardEvent::V_MTE2>(0);
    }
    DataCopy(xl, xg[i * kTile], kTile);
    sink += xl.GetValue(0);
    if (i > 0) {
      SetFlag<HardEvent::MTE3_V>(0);
      WaitFlag<HardEvent::MTE3_V>(0);
    }
    Muls(yl, xl, 2.0f, kTile);
    Adds(yl, yl, 1.0f, kTile);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(yg[i * kTile], yl, kTile);
  }
  (void)sink;
}

// The ordinary double-buffered queue kernel (TQue depth 2): the honest fast version.
__aicore__ void a1_double_buffered(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 2> qout;
  pipe.InitBuffer(qin, 2, kTile * sizeof(float));
  pipe.InitBuffer(qout, 2, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  for (uint32_t i = 0; i < 4; i++) {
    LocalTensor<float> xl = qin.AllocTensor<float>();
    DataCopy(xl, xg[i * kTile], kTile);
    qin.EnQue(xl);
    xl = qin.DeQue<float>();
    LocalTensor<float> yl = qout.AllocTensor<float>();
    Muls(yl, xl, 2.0f, kTile);
    Adds(yl, yl, 1.0f, kTile);
    qout.EnQue(yl);
    qin.FreeTensor(xl);
    yl = qout.DeQue<float>();
    DataCopy(yg[i * kTile], yl, kTile);
    qout.FreeTensor(yl);
  }
}

// A queue kernel that reads a reduction result with GetValue after a DeQue (the
// ordinary style): clean, and the scalar read waits for the vector pipe only.
__aicore__ void a1_queue_getvalue_ok(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TBuf<TPosition::VECCALC> work, red;
  pipe.InitBuffer(qin, 1, kTile * sizeof(float));
  pipe.InitBuffer(work, kTile * sizeof(float));
  pipe.InitBuffer(red, 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xl = qin.AllocTensor<float>();
  DataCopy(xl, xg, kTile);
  qin.EnQue(xl);
  xl = qin.DeQue<float>();
  float first = xl.GetValue(0);
  LocalTensor<float> r = red.Get<float>();
  ReduceSum(r, xl, work.Get<float>(), kTile);
  float s = r.GetValue(0);
  yg.SetValue(0, s + first);
  qin.FreeTensor(xl);
}

// ---------------------------------------------------------------- A.2
// Copy-in ordered before the vector op by a flag whose destination is the scalar pipe.
__aicore__ void a2_wait_mte2_s_ok(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb;
  pipe.InitBuffer(xb, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xl = xb.Get<float>();
  DataCopy(xl, xg, kTile);
  SetFlag<HardEvent::MTE2_S>(0);
  WaitFlag<HardEvent::MTE2_S>(0);
  Adds(xl, xl, 1.0f, kTile);
  SetFlag<HardEvent::V_S>(1);
  WaitFlag<HardEvent::V_S>(1);
  DataCopy(yg, xl, kTile);
}

// The same without the wait: the vector op reads the copy-in unsynchronised.
__aicore__ void a2_no_wait(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb;
  pipe.InitBuffer(xb, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xl = xb.Get<float>();
  DataCopy(xl, xg, kTile);
  Adds(xl, xl, 1.0f, kTile);  // expect: ub_unsynchronized_access
  SetFlag<HardEvent::V_MTE3>(1);
  WaitFlag<HardEvent::V_MTE3>(1);
  DataCopy(yg, xl, kTile);
}

// ---------------------------------------------------------------- A.3
// Two-pass kernel: pass 1 parks partial results in y, pass 2 reads them back.
template <int kMode>  // 0: no sync, 1: MTE3_MTE2 flag, 2: reads other bytes, 3: scalar read, 4: MTE3_S + scalar
__aicore__ void two_pass(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb;
  pipe.InitBuffer(ab, kTile * sizeof(float));
  pipe.InitBuffer(bb, kTile * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>();
  DataCopy(a, xg, kTile);
  SetFlag<HardEvent::MTE2_V>(0);
  WaitFlag<HardEvent::MTE2_V>(0);
  Muls(a, a, 2.0f, kTile);
  SetFlag<HardEvent::V_MTE3>(0);
  WaitFlag<HardEvent::V_MTE3>(0);
  DataCopy(yg, a, kTile);
  if constexpr (kMode == 0) {
    DataCopy(b, yg, kTile);  // expect: gm_unsynchronized_access in a3_gm_raw_unsynced
  } else if constexpr (kMode == 1) {
    SetFlag<HardEvent::MTE3_MTE2>(0);
    WaitFlag<HardEvent::MTE3_MTE2>(0);
    DataCopy(b, yg, kTile);
  } else if constexpr (kMode == 2) {
    DataCopy(b, xg[kTile], kTile);
  } else if constexpr (kMode == 3) {
    float v = yg.GetValue(7);  // expect: gm_unsynchronized_access in a3_gm_scalar_raw
    (void)v;
    return;
  } else {
    SetFlag<HardEvent::MTE3_S>(0);
    WaitFlag<HardEvent::MTE3_S>(0);
    float v = yg.GetValue(7);
    (void)v;
    return;
  }
  SetFlag<HardEvent::MTE2_V>(1);
  WaitFlag<HardEvent::MTE2_V>(1);
  Adds(b, b, 1.0f, kTile);
  SetFlag<HardEvent::V_MTE3>(1);
  WaitFlag<HardEvent::V_MTE3>(1);
  DataCopy(yg[kTile], b, kTile);
}
__aicore__ void a3_gm_raw_unsynced(GM_ADDR x, GM_ADDR y) { two_pass<0>(x, y); }
__aicore__ void a3_gm_raw_flag_ok(GM_ADDR x, GM_ADDR y) { two_pass<1>(x, y); }
__aicore__ void a3_gm_other_bytes_ok(GM_ADDR x, GM_ADDR y) { two_pass<2>(x, y); }
__aicore__ void a3_gm_scalar_raw(GM_ADDR x, GM_ADDR y) { two_pass<3>(x, y); }
__aicore__ void a3_gm_scalar_flag_ok(GM_ADDR x, GM_ADDR y) { two_pass<4>(x, y); }

// ---------------------------------------------------------------- B.5
// DataCopyParams fields are 16 bits on the NPU; a wider value must not wrap silently.
__aicore__ void b5_params_wrap(GM_ADDR x, GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 2048);
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  uint32_t blocks = 65536 + 64;  // wraps to 64 blocks in a uint16_t field
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyParams p;
  p.blockCount = 1;
  p.blockLen = blocks;
  DataCopy(t, xg, p);  // expect: field_out_of_range
  q.FreeTensor(t);
}

__aicore__ void b5_ext_count_wrap(GM_ADDR x, GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 4096);
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  uint32_t rows = 65536 + 2;  // wraps to 2 rows in the uint16_t blockCount
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyPad(t, xg, DataCopyExtParams(rows, 64, 0, 0, 0), DataCopyPadExtParams<float>{false, 0, 0, 0.0f});  // expect: field_out_of_range
  q.FreeTensor(t);
}

__aicore__ void b5_params_ok(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 4096);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  uint32_t blocks = 16, rows = 4;
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyParams p;
  p.blockCount = rows;
  p.blockLen = blocks;
  DataCopy(t, xg, p);
  SetFlag<HardEvent::MTE2_MTE3>(0);
  WaitFlag<HardEvent::MTE2_MTE3>(0);
  DataCopy(yg, t, DataCopyParams(rows, blocks, 0, 0));
  q.FreeTensor(t);
}

// ---------------------------------------------------------------- B.6
// Rows of 10 floats (40 bytes) land in UB at a 64-byte pitch (FC-01/FC-03).
constexpr uint32_t kRows = 4, kCols = 10, kPitch = 16;  // kPitch in floats
template <bool kCompactOut>
__aicore__ void pitch_kernel(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TQue<TPosition::VECOUT, 1> qout;
  pipe.InitBuffer(qin, 1, kRows * kPitch * sizeof(float));
  pipe.InitBuffer(qout, 1, kRows * kPitch * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> a = qin.AllocTensor<float>();
  DataCopyPad(a, xg, DataCopyExtParams{kRows, kCols * sizeof(float), 0, 0, 0},
              DataCopyPadExtParams<float>{true, 0, 0, 0.0f});
  qin.EnQue(a);
  a = qin.DeQue<float>();
  LocalTensor<float> b = qout.AllocTensor<float>();
  Adds(b, a, 1.0f, kRows * kPitch);
  qout.EnQue(b);
  qin.FreeTensor(a);
  b = qout.DeQue<float>();
  if constexpr (kCompactOut) {
    DataCopy(yg, b, kRows * kCols);  // expect: ub_row_pitch_mismatch in b6_compact_copy_out
  } else {
    DataCopyPad(yg, b, DataCopyExtParams{kRows, kCols * sizeof(float), 0, 0, 0});
  }
  qout.FreeTensor(b);
}
__aicore__ void b6_compact_copy_out(GM_ADDR x, GM_ADDR y) { pitch_kernel<true>(x, y); }
__aicore__ void b6_padded_rows_ok(GM_ADDR x, GM_ADDR y) { pitch_kernel<false>(x, y); }

// A reduction over the padded tile as if its rows were compact: the sum takes pad lanes
// and misses the end of the last rows. A warning (it may be intended).
__aicore__ void b6_compact_reduce(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TBuf<TPosition::VECCALC> work, red;
  pipe.InitBuffer(qin, 1, kRows * kPitch * sizeof(float));
  pipe.InitBuffer(work, kRows * kPitch * sizeof(float));
  pipe.InitBuffer(red, 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> a = qin.AllocTensor<float>();
  DataCopyPad(a, xg, DataCopyExtParams{kRows, kCols * sizeof(float), 0, 0, 0},
              DataCopyPadExtParams<float>{true, 0, 0, 0.0f});
  qin.EnQue(a);
  a = qin.DeQue<float>();
  LocalTensor<float> r = red.Get<float>();
  ReduceSum(r, a, work.Get<float>(), kRows * kCols);  // expect: ub_row_pitch_mismatch
  yg.SetValue(0, r.GetValue(0));
  qin.FreeTensor(a);
}

// ---------------------------------------------------------------- B.7
// y is declared an output (ascendc_sim_gm_set_output): its bytes are the caller's fill.
__aicore__ void b7_output_read_first(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab;
  pipe.InitBuffer(ab, 256);
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  (void)x;
  LocalTensor<float> a = ab.Get<float>();
  DataCopy(a, yg, 64);  // expect: gm_output_read_before_write
}

__aicore__ void b7_output_scalar_probe(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  (void)x;
  float v = yg.GetValue(3);  // expect: gm_output_read_before_write
  if (v != v) yg.SetValue(0, 0.0f);
}

// Writes the output first, then reads its own bytes back (ordered by a flag): clean.
__aicore__ void b7_write_then_read_ok(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab;
  pipe.InitBuffer(ab, 256);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> a = ab.Get<float>();
  DataCopy(a, xg, 64);
  SetFlag<HardEvent::MTE2_MTE3>(0);
  WaitFlag<HardEvent::MTE2_MTE3>(0);
  DataCopy(yg, a, 64);
  SetFlag<HardEvent::MTE3_MTE2>(0);
  WaitFlag<HardEvent::MTE3_MTE2>(0);
  DataCopy(a, yg, 64);
}

// ---------------------------------------------------------------- B.4 (per SoC)
__aicore__ void b4_datacopypad(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyPad(t, xg, DataCopyExtParams{1, 10 * sizeof(float), 0, 0, 0},  // expect: api_unsupported_on_soc
              DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
  SetFlag<HardEvent::MTE2_MTE3>(0);
  WaitFlag<HardEvent::MTE2_MTE3>(0);
  DataCopyPad(yg, t, DataCopyExtParams{1, 10 * sizeof(float), 0, 0, 0});
  q.FreeTensor(t);
}

__aicore__ void b4_aligned_ok(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TQue<TPosition::VECOUT, 1> qout;
  pipe.InitBuffer(qin, 1, 256 * sizeof(half));
  pipe.InitBuffer(qout, 1, 256 * sizeof(float));
  GlobalTensor<half> xg;
  GlobalTensor<float> yg;
  xg.SetGlobalBuffer((__gm__ half*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<half> a = qin.AllocTensor<half>();
  DataCopy(a, xg, 256);
  qin.EnQue(a);
  a = qin.DeQue<half>();
  LocalTensor<float> b = qout.AllocTensor<float>();
  Cast(b, a, RoundMode::CAST_NONE, 256);
  Muls(b, b, 0.5f, 256);
  qout.EnQue(b);
  qin.FreeTensor(a);
  b = qout.DeQue<float>();
  DataCopy(yg, b, 256);
  qout.FreeTensor(b);
}

template <class D, class S>
__aicore__ void cast_kernel(GM_ADDR x, GM_ADDR y, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, db;
  pipe.InitBuffer(sb, 256 * sizeof(S));
  pipe.InitBuffer(db, 256 * sizeof(D));
  (void)x;
  (void)y;
  LocalTensor<S> s = sb.Get<S>();
  LocalTensor<D> d = db.Get<D>();
  Duplicate(s.template ReinterpretCast<int16_t>(), int16_t(0), int32_t(256 * sizeof(S) / 2));
  PipeBarrier<PIPE_V>();
  Cast(d, s, RoundMode::CAST_RINT, 256, loc);
}
__aicore__ void b4_cast_f16_s8(GM_ADDR x, GM_ADDR y) {
  cast_kernel<int8_t, half>(x, y);  // expect: api_unsupported_on_soc
}
__aicore__ void b4_cast_f32_bf16(GM_ADDR x, GM_ADDR y) {
  cast_kernel<bfloat16_t, float>(x, y);  // expect: api_unsupported_on_soc
}
__aicore__ void b4_bf16_copy(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  GlobalTensor<bfloat16_t> xg, yg;
  xg.SetGlobalBuffer((__gm__ bfloat16_t*)x);
  yg.SetGlobalBuffer((__gm__ bfloat16_t*)y);
  LocalTensor<bfloat16_t> t = q.AllocTensor<bfloat16_t>();
  DataCopy(t, xg, 256);  // expect: api_unsupported_on_soc
  SetFlag<HardEvent::MTE2_MTE3>(0);
  WaitFlag<HardEvent::MTE2_MTE3>(0);
  DataCopy(yg, t, 256);
  q.FreeTensor(t);
}

// ---------------------------------------------------------------- A.1 family
enum class Sync { Flag, None, Barrier, Get, Set, WaitS };

Sync parse_sync(const char* s) {
  std::string v = s;
  if (v == "flag") return Sync::Flag;
  if (v == "none") return Sync::None;
  if (v == "barrier") return Sync::Barrier;
  if (v == "get") return Sync::Get;
  if (v == "set") return Sync::Set;
  if (v == "waits") return Sync::WaitS;
  std::fprintf(stderr, "unknown sync variant %s\n", s);
  std::exit(2);
}

struct Family {
  uint32_t tiles = 1, n = 64;
  Sync v[4] = {Sync::Flag, Sync::Flag, Sync::Flag, Sync::Flag};
};
Family g_family;

// Sync point k between `src` and `dst` pipes; `t` is the tile whose element a scalar
// access touches (x for points 0/1, y for 2/3).
template <HardEvent kFlag, HardEvent kWaitS>
void sync_point(Sync v, const LocalTensor<float>& t, float& sink) {
  switch (v) {
    case Sync::Flag:
      SetFlag<kFlag>(0);
      WaitFlag<kFlag>(0);
      break;
    case Sync::None:
      break;
    case Sync::Barrier:
      PipeBarrier<PIPE_ALL>();
      break;
    case Sync::Get:
      sink += t.GetValue(0);
      break;
    case Sync::Set:
      t.SetValue(0, 1.0f);
      break;
    case Sync::WaitS:
      SetFlag<kWaitS>(1);
      WaitFlag<kWaitS>(1);
      break;
  }
}

__aicore__ void family_kernel(GM_ADDR x, GM_ADDR y) {
  const Family& f = g_family;
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, yb;
  pipe.InitBuffer(xb, f.n * sizeof(float));
  pipe.InitBuffer(yb, f.n * sizeof(float));
  GlobalTensor<float> xg, yg;
  uint64_t base = uint64_t(GetBlockIdx()) * f.tiles * f.n;
  xg.SetGlobalBuffer((__gm__ float*)x + base);
  yg.SetGlobalBuffer((__gm__ float*)y + base);
  LocalTensor<float> xl = xb.Get<float>(), yl = yb.Get<float>();
  float sink = 0;
  for (uint32_t i = 0; i < f.tiles; i++) {
    if (i > 0) sync_point<HardEvent::V_MTE2, HardEvent::V_S>(f.v[0], xl, sink);    // WAR on x
    DataCopy(xl, xg[i * f.n], f.n);
    sync_point<HardEvent::MTE2_V, HardEvent::MTE2_S>(f.v[1], xl, sink);            // RAW on x
    if (i > 0) sync_point<HardEvent::MTE3_V, HardEvent::MTE3_S>(f.v[3], yl, sink);  // WAR on y
    Muls(yl, xl, 2.0f, f.n);
    Adds(yl, yl, 1.0f, f.n);
    sync_point<HardEvent::V_MTE3, HardEvent::V_S>(f.v[2], yl, sink);               // RAW on y
    DataCopy(yg[i * f.n], yl, f.n);
  }
  (void)sink;
}

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR);
  bool y_is_output;
};

const Case kCases[] = {
    {"a1_flags_honest", a1_flags_honest, false},
    {"a1_getvalue_as_sync", a1_getvalue_as_sync, false},
    {"a1_double_buffered", a1_double_buffered, false},
    {"a1_queue_getvalue_ok", a1_queue_getvalue_ok, false},
    {"a2_wait_mte2_s_ok", a2_wait_mte2_s_ok, false},
    {"a2_no_wait", a2_no_wait, false},
    {"a3_gm_raw_unsynced", a3_gm_raw_unsynced, false},
    {"a3_gm_raw_flag_ok", a3_gm_raw_flag_ok, false},
    {"a3_gm_other_bytes_ok", a3_gm_other_bytes_ok, false},
    {"a3_gm_scalar_raw", a3_gm_scalar_raw, false},
    {"a3_gm_scalar_flag_ok", a3_gm_scalar_flag_ok, false},
    {"b5_params_wrap", b5_params_wrap, false},
    {"b5_ext_count_wrap", b5_ext_count_wrap, false},
    {"b5_params_ok", b5_params_ok, false},
    {"b6_compact_copy_out", b6_compact_copy_out, false},
    {"b6_padded_rows_ok", b6_padded_rows_ok, false},
    {"b6_compact_reduce", b6_compact_reduce, false},
    {"b7_output_read_first", b7_output_read_first, true},
    {"b7_output_scalar_probe", b7_output_scalar_probe, true},
    {"b7_write_then_read_ok", b7_write_then_read_ok, true},
};

const Case kSocCases[] = {
    {"b4_datacopypad", b4_datacopypad, false},
    {"b4_aligned_ok", b4_aligned_ok, false},
    {"b4_cast_f16_s8", b4_cast_f16_s8, false},
    {"b4_cast_f32_bf16", b4_cast_f32_bf16, false},
    {"b4_bf16_copy", b4_bf16_copy, false},
};

void print(const char* name, const ascendc_sim::LaunchResult& r) {
  std::printf("{\"name\":\"%s\",\"result\":%s}\n", name, r.to_json().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // 1 MiB each of x and y (enough for every case and the family's largest variant).
  constexpr size_t kBytes = 1 << 20;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  for (size_t i = 0; i < kBytes / 4; i++) reinterpret_cast<float*>(x)[i] = float(i % 97) * 0.25f;
  std::memset(y, 0, kBytes);
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "sync") {
    if (argc != 9) {
      std::fprintf(stderr, "usage: holes sync B T N v0 v1 v2 v3\n");
      return 2;
    }
    uint32_t block_dim = uint32_t(std::atoi(argv[2]));
    g_family.tiles = uint32_t(std::atoi(argv[3]));
    g_family.n = uint32_t(std::atoi(argv[4]));
    if (uint64_t(block_dim) * g_family.tiles * g_family.n * 4 > kBytes) {
      std::fprintf(stderr, "family variant too large\n");
      return 2;
    }
    for (int k = 0; k < 4; k++) g_family.v[k] = parse_sync(argv[5 + k]);
    print("family", ascendc_sim::run_kernel_fn(family_kernel, "family", block_dim, x, y));
  } else {
    const bool soc = mode == "soc";
    for (const Case& c : soc ? std::vector<Case>(std::begin(kSocCases), std::end(kSocCases))
                             : std::vector<Case>(std::begin(kCases), std::end(kCases))) {
      ascendc_sim_gm_set_output(y, c.y_is_output ? 1 : 0);
      print(c.name, ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y));
    }
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return 0;
}
