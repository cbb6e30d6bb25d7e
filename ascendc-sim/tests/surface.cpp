// Kernels for issue 14's API surface (tests/surface.rs): per API a correct kernel in the
// ordinary Ascend C style (runs clean; main checks its numbers) and a faulty one whose
// diagnostic must point at the line marked "expect: <kind>".
//
// Usage: surface        every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
#include "securec.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 256;  // floats per tile

float xval(uint32_t i) { return float(i % 97) * 0.25f; }

// ---------------------------------------------------------------- events
// y = 2x with flags whose ids come from the pipe's pool and the EVENT_ID constants.
__aicore__ void events_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, kN);
  TEventID e = pipe.AllocEventID<HardEvent::MTE2_V>();
  SetFlag<HardEvent::MTE2_V>(e);
  WaitFlag<HardEvent::MTE2_V>(e);
  pipe.ReleaseEventID<HardEvent::MTE2_V>(e);
  Muls(t, t, 2.0f, kN);
  event_t v = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
  SetFlag<HardEvent::V_MTE3>(v);
  WaitFlag<HardEvent::V_MTE3>(v);
  DataCopy(yg, t, kN);
  SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
  WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
}

__aicore__ void events_exhausted(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  for (int i = 0; i < 6; i++) (void)pipe.AllocEventID<HardEvent::V_MTE3>();
  (void)pipe.AllocEventID<HardEvent::V_MTE3>();  // expect: event_id_misuse
}

__aicore__ void events_release_unallocated(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TEventID e = pipe.AllocEventID<HardEvent::S_V>();
  pipe.ReleaseEventID<HardEvent::S_V>(e);
  pipe.ReleaseEventID<HardEvent::S_V>(e);  // expect: event_id_misuse
}

// ---------------------------------------------------------------- TPipe::Destroy
// A first pipe copies y = x + 1 out; a second pipe reuses the same UB for y[kN..] = 3x.
template <bool kBarrier>
void two_pipes(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qin;
    TQue<TPosition::VECOUT, 1> qout;
    pipe.InitBuffer(qin, 1, kN * sizeof(float));
    pipe.InitBuffer(qout, 1, kN * sizeof(float));
    LocalTensor<float> a = qin.AllocTensor<float>();
    DataCopy(a, xg, kN);
    qin.EnQue(a);
    a = qin.DeQue<float>();
    LocalTensor<float> o = qout.AllocTensor<float>();
    Adds(o, a, 1.0f, kN);
    qin.FreeTensor(a);
    qout.EnQue(o);
    o = qout.DeQue<float>();
    DataCopy(yg, o, kN);
    qout.FreeTensor(o);
    if (kBarrier) {
      pipe.Destroy();
    } else {
      pipe.DestroyWithoutPipeAll();
    }
  }
  TPipe pipe2;
  TQue<TPosition::VECIN, 1> qin2;
  TQue<TPosition::VECOUT, 1> qout2;
  pipe2.InitBuffer(qout2, 1, kN * sizeof(float));  // the UB bytes the first pipe's qin had
  pipe2.InitBuffer(qin2, 1, kN * sizeof(float));   // ... and its qout (still read by MTE3)
  LocalTensor<float> a = qin2.AllocTensor<float>();
  DataCopy(a, xg, kN);  // expect: ub_unsynchronized_access in destroy_without_pipe_all
  qin2.EnQue(a);
  a = qin2.DeQue<float>();
  LocalTensor<float> o = qout2.AllocTensor<float>();
  Muls(o, a, 3.0f, kN);
  qin2.FreeTensor(a);
  qout2.EnQue(o);
  o = qout2.DeQue<float>();
  DataCopy(yg[kN], o, kN);
  qout2.FreeTensor(o);
}
__aicore__ void destroy_then_second_pipe_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) { two_pipes<true>(x, y); }
__aicore__ void destroy_without_pipe_all(GM_ADDR x, GM_ADDR y, GM_ADDR) { two_pipes<false>(x, y); }

// ---------------------------------------------------------------- LocalMemAllocator, LocalTensor(pos, addr, len)
// y = x * x + x with tensors from the allocator and flags between the pipes.
__aicore__ void allocator_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  LocalMemAllocator<Hardware::UB> ub;
  LocalTensor<float> a = ub.Alloc<float, kN>();
  LocalTensor<float> b = ub.Alloc<TPosition::VECOUT, float>(kN);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  DataCopy(a, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Mul(b, a, a, kN);
  Add(b, b, a, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, b, kN);
}

__aicore__ void allocator_overflow(GM_ADDR, GM_ADDR, GM_ADDR) {
  LocalMemAllocator<Hardware::UB> ub;
  LocalTensor<float> a = ub.Alloc<float>(40000);
  LocalTensor<float> b = ub.Alloc<float>(20000);  // expect: ub_capacity_exceeded
  (void)a;
  (void)b;
}

// y = |x - 10| with tensors built on fixed UB addresses.
__aicore__ void static_tensor_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  LocalTensor<float> a(TPosition::VECIN, 0, kN);
  LocalTensor<float> b(TPosition::VECOUT, kN * sizeof(float), kN);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  DataCopy(a, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(b, a, -10.0f, kN);
  Abs(b, b, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, b, kN);
}

__aicore__ void static_tensor_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  LocalTensor<float> a(TPosition::VECCALC, 16, 8);  // expect: ub_misaligned
  (void)a;
}

// A static-tensor kernel that forgets the MTE2 -> V flag is still checked.
__aicore__ void static_tensor_unsynced(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  LocalTensor<float> a(TPosition::VECIN, 0, kN);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  DataCopy(a, xg, kN);
  Muls(a, a, 2.0f, kN);  // expect: ub_unsynchronized_access
}

// ---------------------------------------------------------------- TBuf AllocTensor/FreeTensor
__aicore__ void tbuf_alloc_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.AllocTensor<float>();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(t, t, -1.0f, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kN);
  b.FreeTensor(t);
}

__aicore__ void tbuf_free_foreign(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b1, b2;
  pipe.InitBuffer(b1, 256);
  pipe.InitBuffer(b2, 256);
  LocalTensor<float> t = b1.AllocTensor<float>();
  b2.FreeTensor(t);  // expect: queue_foreign_tensor
}

// ---------------------------------------------------------------- asserts
__aicore__ void assert_ok(GM_ADDR, GM_ADDR, GM_ADDR) {
  int64_t n = GetBlockNum();
  assert(n == 1);
  assert(n == 1, "n is %d\n", int(n));
  ascendc_assert(n > 0, "positive");
  ASSERT(n < 2);
  ASCENDC_ASSERT(n == 1, { KERNEL_LOG(KERNEL_ERROR, "n = %d", int(n)); });
}

__aicore__ void assert_fails(GM_ADDR, GM_ADDR, GM_ADDR) {
  int32_t len = 7;
  assert(len % 8 == 0, "len %d is not a multiple of 8", len);  // expect: kernel_assert_failed
}

__aicore__ void ascendc_assert_fails(GM_ADDR, GM_ADDR, GM_ADDR) {
  uint32_t tiles = 0;
  ascendc_assert(tiles != 0);  // expect: kernel_assert_failed
}

__aicore__ void ascendc_assert_macro_fails(GM_ADDR, GM_ADDR, GM_ADDR) {
  int32_t k = -1;
  ASCENDC_ASSERT(k >= 0, { KERNEL_LOG(KERNEL_ERROR, "k = %d", k); });  // expect: kernel_assert_failed
}

// ---------------------------------------------------------------- block_idx / block_num, InitSocState, DivCeil
// 4 cores: y[8 * block_idx + j] = block_num * 10 + block_idx (scalar writes).
__aicore__ void builtins_ok(GM_ADDR, GM_ADDR y, GM_ADDR) {
  InitSocState();
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y + 8 * block_idx);
  uint32_t per = DivCeil(29u, 4u);  // 8
  for (uint32_t j = 0; j < per; j++) yg.SetValue(j, float(block_num * 10 + block_idx));
}

// ---------------------------------------------------------------- SyncAll
// 4 cores: each writes 2x of its tile into a GM scratch (ws), SyncAll, then core 0 adds
// the four tiles: y[i] = sum_c 2 x[c * kN + i].
template <bool kSoft>
void sync_sum(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b, acc, sync;
  pipe.InitBuffer(b, kN * sizeof(float));
  pipe.InitBuffer(acc, kN * sizeof(float));
  pipe.InitBuffer(sync, 8 * 32);
  GlobalTensor<float> xg, yg, scratch;
  GlobalTensor<int32_t> flags;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x + me * kN);
  yg.SetGlobalBuffer((__gm__ float*)y);
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(t, t, 2.0f, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(scratch[me * kN], t, kN);
  if (kSoft) {
    SyncAll(flags, sync.Get<int32_t>());
  } else {
    SyncAll();
  }
  if (me != 0) return;
  LocalTensor<float> a = acc.Get<float>();
  Duplicate(a, 0.0f, kN);
  for (int64_t c = 0; c < GetBlockNum(); c++) {
    if (c > 0) {
      SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
    }
    DataCopy(t, scratch[c * kN], kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Add(a, a, t, kN);
  }
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, a, kN);
}
__aicore__ void syncall_ok(GM_ADDR x, GM_ADDR y, GM_ADDR ws) { sync_sum<false>(x, y, ws); }
__aicore__ void syncall_soft_ok(GM_ADDR x, GM_ADDR y, GM_ADDR ws) { sync_sum<true>(x, y, ws); }

// 4 cores accumulate x-tiles into y[0, kN) with SetAtomicAdd; after SyncAll core 0 copies the
// sums to y[kN, 2 kN): the read must see all four contributions.
__aicore__ void syncall_atomic_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x + me * kN);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  SetAtomicAdd<float>();
  DataCopy(yg, t, kN);
  SetAtomicNone();
  SyncAll();
  if (me != 0) return;
  DataCopy(t, yg, kN);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg[kN], t, kN);
}

// sync_sum without the SyncAll: core 0 reads the other cores' scratch tiles while they may
// still be in flight. The host threads may run cores 1..3 first, so the sum can come out
// right; the read is a race all the same (gm_read_race, checked after the launch).
__aicore__ void syncall_missing(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg, scratch;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x + me * kN);
  yg.SetGlobalBuffer((__gm__ float*)y);
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  LocalTensor<float> t = b.Get<float>();
  if (me != 0) {
    DataCopy(t, xg, kN);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(scratch[me * kN], t, kN);
    return;
  }
  DataCopy(t, scratch[kN], kN);  // expect: gm_read_race
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kN);
}

// The scalar form: core 1 reads core 0's flag word with GetValue, no barrier between.
__aicore__ void syncall_missing_scalar(GM_ADDR, GM_ADDR y, GM_ADDR ws) {
  GlobalTensor<float> scratch, yg;
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  yg.SetGlobalBuffer((__gm__ float*)y);
  if (GetBlockIdx() == 0) {
    scratch.SetValue(0, 1.0f);
    return;
  }
  float v = scratch.GetValue(0);  // expect: gm_read_race
  yg.SetValue(0, v);
}

// A read ordered before another core's write by the SyncAll is no race: core 0 reads
// scratch tile 1 first, core 1 overwrites it after the barrier.
__aicore__ void syncall_read_then_write_ok(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg, scratch;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x + me * kN);
  yg.SetGlobalBuffer((__gm__ float*)y + me * kN);
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  LocalTensor<float> t = b.Get<float>();
  if (me == 0) DataCopy(t, scratch[kN], kN);
  SyncAll();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kN);
  if (me == 1) DataCopy(scratch[kN], t, kN);
}

// Core 0 writes 8 floats of the scratch with GlobalTensor::SetValue, SyncAll, core 1 copies
// them in. Without kClean the values stay in core 0's data cache: the NPU's GM keeps the old
// bytes (the simulator's GM is coherent, so the copy would read the new ones).
template <bool kClean>
void dcache_pass(GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 8 * sizeof(float));
  GlobalTensor<float> scratch, yg;
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  yg.SetGlobalBuffer((__gm__ float*)y);
  if (GetBlockIdx() == 0) {
    for (int i = 0; i < 8; i++) scratch.SetValue(i, float(i) + 0.5f);
    if (kClean) DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(scratch);
  }
  SyncAll();
  if (GetBlockIdx() != 1) return;
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, scratch, 8);  // expect: gm_dcache_stale in dcache_not_written_back
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, 8);
}
__aicore__ void dcache_not_written_back(GM_ADDR, GM_ADDR y, GM_ADDR ws) { dcache_pass<false>(y, ws); }
__aicore__ void dcache_written_back_ok(GM_ADDR, GM_ADDR y, GM_ADDR ws) { dcache_pass<true>(y, ws); }

// One core: SetValue, then its own DMA copy of the same bytes (DMA reads GM, not the cache).
__aicore__ void dcache_own_dma_read(GM_ADDR, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 8 * sizeof(float));
  GlobalTensor<float> scratch, yg;
  scratch.SetGlobalBuffer((__gm__ float*)(ws + 4096));
  yg.SetGlobalBuffer((__gm__ float*)y);
  scratch.SetValue(3, 1.0f);
  PipeBarrier<PIPE_ALL>();
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, scratch, 8);  // expect: gm_dcache_stale
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, 8);
}

// Core 1 skips the barrier: every other core waits forever.
__aicore__ void syncall_deadlock(GM_ADDR, GM_ADDR, GM_ADDR) {
  if (GetBlockIdx() == 1) return;
  SyncAll();  // expect: cross_core_deadlock
}

// 64 blocks on a 48-core SoC.
__aicore__ void syncall_block_dim_exceeded(GM_ADDR, GM_ADDR, GM_ADDR) {
  SyncAll();  // expect: cross_core_block_dim_exceeded
}

// The cost of the barrier alone: 2 cores that do nothing but SyncAll, and 2 that do nothing.
__aicore__ void syncall_only(GM_ADDR, GM_ADDR, GM_ADDR) { SyncAll(); }
__aicore__ void empty_kernel(GM_ADDR, GM_ADDR, GM_ADDR) {}

// ---------------------------------------------------------------- IBSet / IBWait
// Core 0 writes y[0, kN) = x + 5 and raises its flag; core 1 waits, reads it back and
// writes y[kN, 2 kN) = 2 (x + 5); both write y[2 kN, 3 kN) (core 0 first: ordered, no race).
__aicore__ void ib_ok(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b, sync;
  pipe.InitBuffer(b, kN * sizeof(float));
  pipe.InitBuffer(sync, 32);
  GlobalTensor<float> xg, yg;
  GlobalTensor<int32_t> flags;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  LocalTensor<float> t = b.Get<float>();
  LocalTensor<int32_t> s = sync.Get<int32_t>();
  if (GetBlockIdx() == 0) {
    DataCopy(t, xg, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Adds(t, t, 5.0f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yg, t, kN);
    DataCopy(yg[2 * kN], t, kN);
    IBSet(flags, s, 0, 0);
  } else {
    IBWait(flags, s, 0, 0);
    DataCopy(t, yg, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(t, t, 2.0f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yg[kN], t, kN);
    DataCopy(yg[2 * kN], t, kN);
  }
}

// Core 1 waits for an event core 0 never raises.
__aicore__ void ib_wait_deadlock(GM_ADDR, GM_ADDR, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sync;
  pipe.InitBuffer(sync, 32);
  GlobalTensor<int32_t> flags;
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  if (GetBlockIdx() == 0) {
    IBSet(flags, sync.Get<int32_t>(), 0, 0);
  } else {
    IBWait(flags, sync.Get<int32_t>(), 0, 1);  // expect: cross_core_deadlock
  }
}

// ---------------------------------------------------------------- WaitPreBlock / NotifyNextBlock
// 3 cores, in block order: y[0] += block_idx + 1 (scalar read-modify-write of one GM float).
__aicore__ void pre_block_ok(GM_ADDR, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sync;
  pipe.InitBuffer(sync, 32 * 8);
  GlobalTensor<float> yg;
  GlobalTensor<int32_t> flags;
  yg.SetGlobalBuffer((__gm__ float*)y);
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  LocalTensor<int32_t> s = sync.Get<int32_t>();
  InitDetermineComputeWorkspace(flags, s);
  WaitPreBlock(flags, s);
  float v = yg.GetValue(0);
  yg.SetValue(0, v + float(GetBlockIdx() + 1));
  // The SetValue changed this core's data cache only: write the line back before the next
  // block reads it (CANN "DataCacheCleanAndInvalid"; gm_dcache_stale otherwise).
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yg);
  NotifyNextBlock(flags, s);
}

// ---------------------------------------------------------------- gm_write_duplicate
// 2 cores write the same bytes (x) to y[0, kN): deterministic, a warning.
__aicore__ void gm_duplicate(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kN);  // expect: gm_write_duplicate
}

// The same with core-dependent bytes: an error.
__aicore__ void gm_race_different(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * kN);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, kN);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kN);  // expect: gm_write_race
}

// ---------------------------------------------------------------- 9.x reductions (mask before repeat)
// o[0, 16): ReduceDataBlock<SUM> block sums of x[0, 128); o[16, 48): ReducePairElem pair
// sums of x[0, 64); o[48, 50): ReduceRepeat<SUM> of the two repeats; o[50] ReduceRepeat<MAX>.
__aicore__ void reduce9_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, 128 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  DataCopy(s, xg, 128);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Duplicate(o, 0.0f, 64);
  ReduceDataBlock<ReduceType::SUM, float>(o, s, 64, 2, 1, 1, 8);
  uint64_t full[2] = {~0ull, 0};
  ReducePairElem<ReduceType::SUM, float>(o[16], s, full, 1, 1, 1, 8);
  ReduceRepeat<ReduceType::SUM, float>(o[48], s, 64, 2, 1, 1, 8);
  ReduceRepeat<ReduceType::MAX, float, float, true>(o[50], s, 64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);
}

// The classic BlockReduceSum order (repeatTime, mask) given to the 9.x name: mask 2,
// 64 repeats over a 2-repeat tile.
__aicore__ void reduce9_classic_order(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, 128 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  DataCopy(s, xg, 128);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  ReduceDataBlock<ReduceType::SUM, float>(o, s, 2, 64, 1, 1, 8);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- Gather / GatherMask
// y[0, 64) = x[63 - i] (Gather with byte offsets 252 - 4i); y[64, 96) = even x (GatherMask
// pattern 1); y[96] = the kept count.
__aicore__ void gather_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, gb, offb;
  pipe.InitBuffer(ib, 64 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  pipe.InitBuffer(gb, 64 * sizeof(float));
  pipe.InitBuffer(offb, 64 * sizeof(int32_t));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>(), g = gb.Get<float>();
  LocalTensor<int32_t> idx = offb.Get<int32_t>();
  DataCopy(s, xg, 64);
  CreateVecIndex(idx, int32_t(0), 64);
  Muls(idx, idx, int32_t(-4), 64);
  Adds(idx, idx, int32_t(252), 64);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Gather(o, s, idx.ReinterpretCast<uint32_t>(), 0, 64);
  uint64_t kept = 0;
  Duplicate(g, 0.0f, 64);
  GatherMask(g, s, uint8_t(1), false, 0, {1, 1, 8, 0}, kept);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);
  DataCopy(yg[64], g, 32);
  SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
  yg.SetValue(96, float(kept));
}

// Gatherb: y blocks 0..7 = x blocks 7..0 (uint32 view); WaitPreTaskEnd/SetNextTaskStart.
__aicore__ void gatherb_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  WaitPreTaskEnd();
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, offb;
  pipe.InitBuffer(ib, 256);
  pipe.InitBuffer(ob, 256);
  pipe.InitBuffer(offb, 32);
  GlobalTensor<uint32_t> xg, yg;
  xg.SetGlobalBuffer((__gm__ uint32_t*)x);
  yg.SetGlobalBuffer((__gm__ uint32_t*)y);
  LocalTensor<uint32_t> s = ib.Get<uint32_t>(), o = ob.Get<uint32_t>();
  LocalTensor<int32_t> off = offb.Get<int32_t>();
  DataCopy(s, xg, 64);
  CreateVecIndex(off, int32_t(0), 8);
  Muls(off, off, int32_t(-32), 8);
  Adds(off, off, int32_t(224), 8);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Gatherb(o, s, off.ReinterpretCast<uint32_t>(), 1, {1, 8});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);
  SetNextTaskStart();
}

__aicore__ void gatherb_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, offb;
  pipe.InitBuffer(ib, 256);
  pipe.InitBuffer(ob, 256);
  pipe.InitBuffer(offb, 32);
  LocalTensor<uint32_t> s = ib.Get<uint32_t>(), o = ob.Get<uint32_t>();
  LocalTensor<int32_t> off = offb.Get<int32_t>();
  Duplicate(s, uint32_t(7), 64);
  CreateVecIndex(off, int32_t(0), 8);
  Muls(off, off, int32_t(16), 8);  // half-block offsets
  Gatherb(o, s, off.ReinterpretCast<uint32_t>(), 1, {1, 8});  // expect: ub_out_of_range
}

__aicore__ void gather_out_of_range(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, offb;
  pipe.InitBuffer(ib, 64 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  pipe.InitBuffer(offb, 64 * sizeof(int32_t));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  LocalTensor<int32_t> idx = offb.Get<int32_t>();
  DataCopy(s, xg, 64);
  CreateVecIndex(idx, int32_t(64), 64);
  Muls(idx, idx, int32_t(4), 64);  // byte offsets 256.. past the 256-byte source
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Gather(o, s, idx.ReinterpretCast<uint32_t>(), 0, 64);  // expect: ub_out_of_range
}

__aicore__ void gather_mask_bad_pattern(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, 256);
  pipe.InitBuffer(ob, 256);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  Duplicate(s, 1.0f, 64);
  uint64_t kept = 0;
  GatherMask(o, s, uint8_t(9), false, 0, {1, 1, 8, 0}, kept);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- Log
// y = ln(x + 1), y[kN..] = log2(x + 1) with the tensor-length form.
__aicore__ void log_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  DataCopy(s, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(s, s, 1.0f, kN);
  Log(o, s, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Log2(o, s);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[kN], o, kN);
}

// ---------------------------------------------------------------- Swish (high level)
// y[0, 256) = swish(x) with beta 1.5 in float; y[256, 456) = swish(x) with beta 0.75 in half
// over 200 elements (a partial last repeat), cast back to float.
__aicore__ void swish_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, hb, hob;
  pipe.InitBuffer(ib, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  pipe.InitBuffer(hb, kN * sizeof(half));
  pipe.InitBuffer(hob, kN * sizeof(half));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), ho = hob.Get<half>();
  DataCopy(s, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Swish(o, s, kN, 1.5f);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Cast(h, s, RoundMode::CAST_NONE, kN);
  Duplicate(ho, half(0.0f), kN);
  Swish<half>(ho, h, 200, half(0.75f));
  Cast(o, ho, RoundMode::CAST_NONE, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
  DataCopy(yg[kN], o, kN);
}

// In place: the vendor's sequence overwrites dst before its Div reads src again.
__aicore__ void swish_in_place(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib;
  pipe.InitBuffer(ib, kN * sizeof(float));
  LocalTensor<float> s = ib.Get<float>();
  Duplicate(s, 1.0f, kN);
  Swish(s, s, kN, 1.0f);  // expect: vector_overlap
}

// dataSize 512 on tensors of 256 floats.
__aicore__ void swish_count_too_big(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  Duplicate(s, 1.0f, kN);
  Swish(o, s, 2 * kN, 1.0f);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- Silu (high level)
// y[0, 256) = silu(x - 12) in float; y[256, 456) = silu(x - 12) in half over 200 elements (a
// partial last repeat; the rest of the half tile stays 0), cast back to float.
__aicore__ void silu_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob, hb, hob;
  pipe.InitBuffer(ib, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  pipe.InitBuffer(hb, kN * sizeof(half));
  pipe.InitBuffer(hob, kN * sizeof(half));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), ho = hob.Get<half>();
  DataCopy(s, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(s, s, -12.0f, kN);
  Silu(o, s, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Cast(h, s, RoundMode::CAST_NONE, kN);
  Duplicate(ho, half(0.0f), kN);
  Silu<half, false>(ho, h, 200);
  Cast(o, ho, RoundMode::CAST_NONE, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
  DataCopy(yg[kN], o, kN);
}

// dst eight floats past src: the footprints overlap (the page forbids any overlap).
__aicore__ void silu_overlap(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib;
  pipe.InitBuffer(ib, 2 * kN * sizeof(float));
  LocalTensor<float> s = ib.Get<float>();
  Duplicate(s, 1.0f, 2 * kN);
  Silu(s[8], s, 128);  // expect: vector_overlap
}

// dataSize 300 on a half source of 256.
__aicore__ void silu_count_too_big(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, kN * sizeof(half));
  pipe.InitBuffer(ob, 2 * kN * sizeof(half));
  LocalTensor<half> s = ib.Get<half>(), o = ob.Get<half>();
  Duplicate(s, half(1.0f), kN);
  Silu(o, s, 300);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- AscendQuant (high level)
// a = x[0, 256) - 12 (float, multiples of 0.25 in [-12, 12]). y bytes:
//   [0, 256)     per tensor, float: int8(a * 11 + 0.5) (saturates past +-127, ties to even)
//   [256, 512)   per tensor, half, framework temp space, 200 elements (the rest stays 0)
//   [512, 768)   per channel, half: scale tensor s[j] = x[256 + j] / 8, offset tensor
//                o[j] = x[320 + j] - 6, 64 channels, 4 rows
//   [768, 1024)  per channel, float, scalar offset -3, scale s[j], with sharedTmpBuffer
//   [1024, 1280) the float scale tensor after that call (its first 64 halves: cast in place)
__aicore__ void quant_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, hb, sb, ofb, shb, ohb, db, tb;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(ofb, 64 * sizeof(float));
  pipe.InitBuffer(hb, kN * sizeof(half));
  pipe.InitBuffer(sb, 64 * sizeof(float));
  pipe.InitBuffer(shb, 64 * sizeof(half));
  pipe.InitBuffer(ohb, 64 * sizeof(half));
  pipe.InitBuffer(db, 4 * kN);
  pipe.InitBuffer(tb, 256);
  GlobalTensor<float> xg;
  GlobalTensor<int8_t> yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ int8_t*)y);
  LocalTensor<float> a = ab.Get<float>(), sf = sb.Get<float>(), of = ofb.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), sh = shb.Get<half>(), oh = ohb.Get<half>();
  LocalTensor<int8_t> d = db.Get<int8_t>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  DataCopy(a, xg, kN);
  DataCopy(sf, xg[256], 64);
  DataCopy(of, xg[320], 64);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(a, a, -12.0f, kN);
  Cast(h, a, RoundMode::CAST_NONE, kN);
  Duplicate(d.ReinterpretCast<half>(), half(0.0f), 2 * kN);
  AscendQuant<float>(d, a, tmp, 11.0f, 0.5f, kN);
  AscendQuant<half>(d[kN], h, 11.0f, 0.5f, 200);
  Muls(sf, sf, 0.125f, 64);
  Cast(sh, sf, RoundMode::CAST_NONE, 64);
  Adds(of, of, -6.0f, 64);
  Cast(oh, of, RoundMode::CAST_NONE, 64);
  AscendQuant(d[2 * kN], h, sh, oh, 64, 64, kN);
  AscendQuant<float>(d[3 * kN], a, tmp, sf, -3.0f, 64, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, d, 4 * kN);
  DataCopy(yg[4 * kN], sf.ReinterpretCast<int8_t>(), 256);
}

// calCount 300 on a 256-float source.
__aicore__ void quant_count_too_big(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, db;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(db, 2 * kN);
  LocalTensor<float> a = ab.Get<float>();
  LocalTensor<int8_t> d = db.Get<int8_t>();
  Duplicate(a, 1.0f, kN);
  AscendQuant(d, a, 1.0f, 0.0f, 300);  // expect: field_out_of_range
}

// Per channel with 48 scales: each int8 row would not be whole 32-byte blocks.
__aicore__ void quant_scale_count_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, sb, db;
  pipe.InitBuffer(ab, kN * sizeof(half));
  pipe.InitBuffer(sb, 64 * sizeof(half));
  pipe.InitBuffer(db, kN);
  LocalTensor<half> a = ab.Get<half>(), sc = sb.Get<half>();
  LocalTensor<int8_t> d = db.Get<int8_t>();
  Duplicate(a, half(1.0f), kN);
  Duplicate(sc, half(2.0f), 64);
  AscendQuant(d, a, sc, half(0.0f), 48, 192);  // expect: ub_misaligned
}

// A 32-byte sharedTmpBuffer holds 16 halves, less than one chunk of 32.
__aicore__ void quant_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, db, tb;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(db, kN);
  pipe.InitBuffer(tb, 32);
  LocalTensor<float> a = ab.Get<float>();
  LocalTensor<int8_t> d = db.Get<int8_t>();
  LocalTensor<uint8_t> t = tb.Get<uint8_t>();
  Duplicate(a, 1.0f, kN);
  AscendQuant<float>(d, a, t, 1.0f, 0.0f, kN);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- AscendDequant (high level)
// q = int32(x * 4 - 50) over 64 elements (integers in [-50, 46]); scales s[j] = x[256 + j] / 4.
// y floats:
//   [0, 64)      {4, 16, 12}, float scale tensor: cols < 12 q * s[c], cols 12..15 float(q)
//   [64, 96)     half out of a uint64_t scale (low 32 bits s[c], high bits junk), {4, 8, 8}:
//                the 4 x 16 half tile (pitch 16; cols 8..15 stay 0) as 32 floats' bytes
//   [128, 160)   scalar 0.5, {1, 32, 8}, DEQUANT_WITH_SINGLE_ROW: read as {4, 8, 8}, all scaled
//   [160, 192)   the same with DEQUANT_WITH_MULTI_ROW: only the first 8 scaled
//   [192, 256)   calCount form, 40 of 64 elements, rows of 16 = deqScale's size (rest 0)
__aicore__ void dequant_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, qb, sb, ub, ob, hb, tb;
  pipe.InitBuffer(fb, 64 * sizeof(float));
  pipe.InitBuffer(qb, 64 * sizeof(int32_t));
  pipe.InitBuffer(sb, 16 * sizeof(float));
  pipe.InitBuffer(ub, 8 * sizeof(uint64_t));
  pipe.InitBuffer(ob, 4 * 64 * sizeof(float));
  pipe.InitBuffer(hb, 64 * sizeof(half));
  pipe.InitBuffer(tb, 1024);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> f = fb.Get<float>(), sc = sb.Get<float>(), o = ob.Get<float>();
  LocalTensor<int32_t> q = qb.Get<int32_t>();
  LocalTensor<uint64_t> u = ub.Get<uint64_t>();
  LocalTensor<half> h = hb.Get<half>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  DataCopy(f, xg, 64);
  DataCopy(sc, xg[256], 16);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(f, f, 4.0f, 64);
  Adds(f, f, -50.0f, 64);
  Cast(q, f, RoundMode::CAST_RINT, 64);
  Muls(sc, sc, 0.25f, 16);
  Duplicate(o, 0.0f, 4 * 64);
  Duplicate(h, half(0.0f), 64);
  AscendDequant(o, q, sc, tmp, {4, 16, 12});
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  for (uint32_t j = 0; j < 8; j++) {
    float s = sc.GetValue(j);
    uint32_t bits;
    std::memcpy(&bits, &s, 4);
    u.SetValue(j, (uint64_t(0x12345678u) << 32) | bits);
  }
  SetFlag<HardEvent::S_V>(EVENT_ID0);
  WaitFlag<HardEvent::S_V>(EVENT_ID0);
  AscendDequant(h, q, u, tmp, {4, 8, 8});
  AscendDequant(o[128], q, 0.5f, {1, 32, 8});
  AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(o[160], q, 0.5f, tmp, {1, 32, 8});
  AscendDequant(o[192], q, sc, tmp, 40u);
  Copy(o[64], h.ReinterpretCast<float>(), 32, 1, {1, 1, 8, 8});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 256);
}

// dst written over its own int32 source (the page: no overlap, in place included).
__aicore__ void dequant_in_place(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, sb;
  pipe.InitBuffer(qb, 64 * sizeof(int32_t));
  pipe.InitBuffer(sb, 16 * sizeof(float));
  LocalTensor<int32_t> q = qb.Get<int32_t>();
  LocalTensor<float> sc = sb.Get<float>();
  Duplicate(q, int32_t(3), 64);
  Duplicate(sc, 2.0f, 16);
  AscendDequant(q.ReinterpretCast<float>(), q, sc, {4, 16, 16});  // expect: vector_overlap
}

// calCount 20 on rows of 16.
__aicore__ void dequant_calcount_beyond_n(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, sb, ob;
  pipe.InitBuffer(qb, 64 * sizeof(int32_t));
  pipe.InitBuffer(sb, 32 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  LocalTensor<int32_t> q = qb.Get<int32_t>();
  LocalTensor<float> sc = sb.Get<float>(), o = ob.Get<float>();
  Duplicate(q, int32_t(3), 64);
  Duplicate(sc, 2.0f, 32);
  AscendDequant(o, q, sc, {4, 16, 20});  // expect: field_out_of_range
}

// Rows of 12 int32 are 48 bytes, not whole 32-byte blocks.
__aicore__ void dequant_n_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, ob;
  pipe.InitBuffer(qb, 64 * sizeof(int32_t));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  LocalTensor<int32_t> q = qb.Get<int32_t>();
  LocalTensor<float> o = ob.Get<float>();
  Duplicate(q, int32_t(3), 64);
  AscendDequant(o, q, 2.0f, {4, 12, 12});  // expect: ub_misaligned
}

// {4, 16, 12} needs 4 * (16 + 16) = 128 temporary bytes; 96 are given.
__aicore__ void dequant_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, sb, ob, tb;
  pipe.InitBuffer(qb, 64 * sizeof(int32_t));
  pipe.InitBuffer(sb, 16 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  pipe.InitBuffer(tb, 96);
  LocalTensor<int32_t> q = qb.Get<int32_t>();
  LocalTensor<float> sc = sb.Get<float>(), o = ob.Get<float>();
  LocalTensor<uint8_t> t = tb.Get<uint8_t>();
  Duplicate(q, int32_t(3), 64);
  Duplicate(sc, 2.0f, 16);
  AscendDequant(o, q, sc, t, {4, 16, 12});  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- AscendAntiQuant (high level)
// q = int8(x * 4 - 50) over 256 elements (integers in [-50, 46]). y bytes:
//   [0, 512)      half, src [k = 4, N = 64], offset / scale tensors [2, 64] (from their sizes):
//                 rows 0-1 use parameter row 0, rows 2-3 row 1; o = x[256 + e] - 12, s = x[384 + e] / 16
//   [512, 1024)   bfloat16, isTranspose: src [N = 4, k = 64], offset / scale [4, 2] (shapeInfo;
//                 the tensors hold 16): columns 0-31 use parameter column 0, 32-63 column 1
//   [1024, 1536)  half, per tensor: 0.25 * (q + 1.5), framework temporary space
//   [1536, 2048)  half, per tensor without offset: 3 * q
__aicore__ void antiquant_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, hb, qb, pb, ob, sb, bob, bsb, db, tb;
  pipe.InitBuffer(fb, kN * sizeof(float));
  pipe.InitBuffer(hb, kN * sizeof(half));
  pipe.InitBuffer(qb, kN);
  pipe.InitBuffer(pb, 256 * sizeof(float));
  pipe.InitBuffer(ob, 128 * sizeof(half));
  pipe.InitBuffer(sb, 128 * sizeof(half));
  pipe.InitBuffer(bob, 16 * sizeof(bfloat16_t));
  pipe.InitBuffer(bsb, 16 * sizeof(bfloat16_t));
  pipe.InitBuffer(db, 4 * kN * sizeof(half));
  pipe.InitBuffer(tb, 4096);
  GlobalTensor<float> xg;
  GlobalTensor<half> yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ half*)y);
  LocalTensor<float> f = fb.Get<float>(), pf = pb.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), o = ob.Get<half>(), sc = sb.Get<half>(), d = db.Get<half>();
  LocalTensor<bfloat16_t> bo = bob.Get<bfloat16_t>(), bs = bsb.Get<bfloat16_t>();
  LocalTensor<int8_t> q = qb.Get<int8_t>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  DataCopy(f, xg, kN);
  DataCopy(pf, xg[256], 256);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(f, f, 4.0f, kN);
  Adds(f, f, -50.0f, kN);
  Cast(h, f, RoundMode::CAST_NONE, kN);
  Cast(q, h, RoundMode::CAST_RINT, kN);
  Adds(pf, pf, -12.0f, 128);
  Muls(pf[128], pf[128], 0.0625f, 128);
  Cast(o, pf, RoundMode::CAST_NONE, 128);
  Cast(sc, pf[128], RoundMode::CAST_NONE, 128);
  Cast(bo, pf, RoundMode::CAST_RINT, 16);
  Cast(bs, pf[128], RoundMode::CAST_RINT, 16);
  AscendAntiQuant<int8_t, half, false>(d, q, o, sc, tmp, 4);
  AscendAntiQuant<int8_t, bfloat16_t, true>(d[kN].ReinterpretCast<bfloat16_t>(), q, bo, bs, tmp, 64, {4, 2, 4, 2});
  AscendAntiQuant<int8_t, half, false>(d[2 * kN], q, half(1.5f), half(0.25f), 4);
  AscendAntiQuant<int8_t, half, false>(d[3 * kN], q, half(3.0f), tmp, 4);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, d, 4 * kN);
}

// k = 3 does not divide the 256 source elements.
__aicore__ void antiquant_k_not_divisor(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, db;
  pipe.InitBuffer(qb, kN);
  pipe.InitBuffer(db, kN * sizeof(half));
  LocalTensor<int8_t> q = qb.Get<int8_t>();
  LocalTensor<half> d = db.Get<half>();
  Duplicate(q.ReinterpretCast<half>(), half(0.0f), kN / 2);
  AscendAntiQuant<int8_t, half, false>(d, q, half(0.0f), half(1.0f), 3);  // expect: field_out_of_range
}

// isTranspose with k = 16 int8 elements: not a 32-byte row.
__aicore__ void antiquant_transpose_k_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, db;
  pipe.InitBuffer(qb, kN);
  pipe.InitBuffer(db, kN * sizeof(half));
  LocalTensor<int8_t> q = qb.Get<int8_t>();
  LocalTensor<half> d = db.Get<half>();
  Duplicate(q.ReinterpretCast<half>(), half(0.0f), kN / 2);
  AscendAntiQuant<int8_t, half, true>(d, q, half(0.0f), half(1.0f), 16);  // expect: ub_misaligned
}

// dst over its own source: the int8 source is the upper half of dst's bytes (the page: no overlap).
__aicore__ void antiquant_overlap(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, kN * sizeof(half));
  LocalTensor<half> d = b.Get<half>();
  Duplicate(d, half(0.0f), kN);
  AscendAntiQuant<int8_t, half, false>(d, d[128].ReinterpretCast<int8_t>(), half(0.0f), half(1.0f), 4);  // expect: vector_overlap
}

// A scale tensor of 32 halves for rows of N = 64.
__aicore__ void antiquant_scale_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> qb, db, sb;
  pipe.InitBuffer(qb, kN);
  pipe.InitBuffer(db, kN * sizeof(half));
  pipe.InitBuffer(sb, 32 * sizeof(half));
  LocalTensor<int8_t> q = qb.Get<int8_t>();
  LocalTensor<half> d = db.Get<half>(), sc = sb.Get<half>();
  Duplicate(q.ReinterpretCast<half>(), half(0.0f), kN / 2);
  Duplicate(sc, half(1.0f), 32);
  AscendAntiQuant<int8_t, half, false>(d, q, sc, sc, 4);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- SwiGLU / GeGLU (high level)
// a = x[0, 256), b = x[256, 512) - 6. y[0, 256) = a * swish(b) (beta 1, float, counted
// form); y[256, 512) = a * gelu(b) (float, tensor-length form); y[512, 768) = the half
// SwiGLU (beta 0.5) through a sharedTmpBuffer; y[768, 1024) = the half GeGLU over 200
// elements (no 32-byte multiple), the rest left at 0.
__aicore__ void glu_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb, ob, h0b, h1b, hob, tb;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(bb, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  pipe.InitBuffer(h0b, kN * sizeof(half));
  pipe.InitBuffer(h1b, kN * sizeof(half));
  pipe.InitBuffer(hob, kN * sizeof(half));
  pipe.InitBuffer(tb, 3 * sizeof(float) * kN);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), o = ob.Get<float>();
  LocalTensor<half> h0 = h0b.Get<half>(), h1 = h1b.Get<half>(), ho = hob.Get<half>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  DataCopy(a, xg, kN);
  DataCopy(b, xg[kN], kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(b, b, -6.0f, kN);
  SwiGLU(o, a, b, 1.0f, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  GeGLU(o, a, b);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[kN], o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Cast(h0, a, RoundMode::CAST_NONE, kN);
  Cast(h1, b, RoundMode::CAST_NONE, kN);
  SwiGLU<half>(ho, h0, h1, 0.5f, tmp, kN);
  Cast(o, ho, RoundMode::CAST_NONE, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[2 * kN], o, kN);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Duplicate(ho, half(0.0f), kN);
  GeGLU<half>(ho, h0, h1, tmp, 200);
  Cast(o, ho, RoundMode::CAST_NONE, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[3 * kN], o, kN);
}

// SwiGLU's count must be whole 32-byte blocks: 100 floats are 400 bytes.
__aicore__ void swiglu_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, ob;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  LocalTensor<float> a = ab.Get<float>(), o = ob.Get<float>();
  Duplicate(a, 1.0f, kN);
  SwiGLU(o, a, a, 1.0f, 100);  // expect: ub_misaligned
}

// float GeGLU writes dst before its last Mul reads src0 again: in place over src0 is wrong.
__aicore__ void geglu_in_place(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(bb, kN * sizeof(float));
  LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>();
  Duplicate(a, 1.0f, kN);
  Duplicate(b, 1.0f, kN);
  GeGLU(a, a, b, kN);  // expect: vector_overlap
}

// half SwiGLU needs 3 floats of sharedTmpBuffer per element of a 32-byte block (192 bytes).
__aicore__ void swiglu_tmp_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> hb, ob, tb;
  pipe.InitBuffer(hb, kN * sizeof(half));
  pipe.InitBuffer(ob, kN * sizeof(half));
  pipe.InitBuffer(tb, 64);
  LocalTensor<half> h = hb.Get<half>(), o = ob.Get<half>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  Duplicate(h, half(1.0f), kN);
  SwiGLU<half>(o, h, h, 1.0f, tmp, kN);  // expect: ub_out_of_range
}

// The two sources must be of one size.
__aicore__ void glu_sizes_differ(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb, ob;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(bb, kN / 2 * sizeof(float));
  pipe.InitBuffer(ob, kN * sizeof(float));
  LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>(), o = ob.Get<float>();
  Duplicate(a, 1.0f, kN);
  Duplicate(b, 1.0f, kN / 2);
  GeGLU(o, a, b, kN / 2);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- ReduceMax/Min/Sum/Mean (patterns)
// s = x[0, 72) as a float [3, 20] source at the padded pitch 24; h = x[0, 96) cast to half,
// a [3, 20] source at pitch 32. Results, 32 floats apart in y: ReduceMax AR, ReduceMin AR
// (sharedTmpBuffer), ReduceSum RA (sharedTmpBuffer), ReduceMean RA, ReduceMean AR, and the
// half ReduceMax RA cast back to float.
__aicore__ void reduce_pattern_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, hb, ob, hob, tb;
  pipe.InitBuffer(sb, 96 * sizeof(float));
  pipe.InitBuffer(hb, 96 * sizeof(half));
  pipe.InitBuffer(ob, 32 * sizeof(float));
  pipe.InitBuffer(hob, 32 * sizeof(half));
  pipe.InitBuffer(tb, 1024);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> src = sb.Get<float>(), o = ob.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), ho = hob.Get<half>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  DataCopy(src, xg, 96);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  const uint32_t shape[2] = {3, 20};
  for (uint32_t k = 0; k < 5; k++) {
    Duplicate(o, 0.0f, 32);
    if (k == 0) ReduceMax<float, Pattern::Reduce::AR>(o, src, shape, true);
    if (k == 1) ReduceMin<float, Pattern::Reduce::AR>(o, src, tmp, shape, true);
    if (k == 2) ReduceSum<float, Pattern::Reduce::RA>(o, src, tmp, shape, true);
    if (k == 3) ReduceMean<float, Pattern::Reduce::RA>(o, src, shape, true);
    if (k == 4) ReduceMean<float, Pattern::Reduce::AR, false>(o, src, tmp, shape, true);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yg[32 * k], o, 32);
    SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  }
  Cast(h, src, RoundMode::CAST_NONE, 96);
  Duplicate(ho, half(0.0f), 32);
  ReduceMax<half, Pattern::Reduce::RA>(ho, h, tmp, shape, true);
  Cast(o, ho, RoundMode::CAST_NONE, 32);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[160], o, 32);
}

// dst 8 floats into the source: only exactly in place is allowed.
__aicore__ void reduce_pattern_overlap(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb;
  pipe.InitBuffer(sb, 96 * sizeof(float));
  LocalTensor<float> src = sb.Get<float>();
  Duplicate(src, 1.0f, 96);
  const uint32_t shape[2] = {3, 20};
  ReduceSum<float, Pattern::Reduce::AR>(src[8], src, shape, true);  // expect: vector_overlap
}

// Four rows of pitch 24 are 96 floats; the source holds 72.
__aicore__ void reduce_pattern_src_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ob;
  pipe.InitBuffer(sb, 72 * sizeof(float));
  pipe.InitBuffer(ob, 32 * sizeof(float));
  LocalTensor<float> src = sb.Get<float>(), o = ob.Get<float>();
  Duplicate(src, 1.0f, 72);
  const uint32_t shape[2] = {4, 20};
  ReduceMax<float, Pattern::Reduce::AR>(o, src, shape, true);  // expect: ub_out_of_range
}

// An empty dimension.
__aicore__ void reduce_pattern_empty(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ob;
  pipe.InitBuffer(sb, 72 * sizeof(float));
  pipe.InitBuffer(ob, 32 * sizeof(float));
  LocalTensor<float> src = sb.Get<float>(), o = ob.Get<float>();
  Duplicate(src, 1.0f, 72);
  const uint32_t shape[2] = {0, 20};
  ReduceMin<float, Pattern::Reduce::RA>(o, src, shape, true);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- ListTensorDesc
// ws holds a list of two 1-D tensors of 64 floats (x[0, 64) and x[64, 128)); the kernel
// copies tensor i to y[64 i, 64 i + 64) and writes the count and the shapes to y[128..131).
__aicore__ void list_ok(GM_ADDR, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 64 * sizeof(float));
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  ListTensorDesc list(reinterpret_cast<__gm__ void*>(ws), 56, 2);
  LocalTensor<float> t = b.Get<float>();
  uint64_t shape[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < list.GetSize(); i++) {
    TensorDesc<float> desc;
    desc.SetShapeAddr(shape);
    list.GetDesc(desc, i);
    if (i > 0) {
      SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
    DataCopy(t, desc.GetDataObj(), 64);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(yg[64 * i], t, 64);
    SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
    yg.SetValue(129 + i, float(desc.GetShape(0) + desc.GetIndex()));
  }
  yg.SetValue(128, float(list.GetSize()));
}

__aicore__ void list_bad_index(GM_ADDR, GM_ADDR, GM_ADDR ws) {
  ListTensorDesc list(reinterpret_cast<__gm__ void*>(ws));
  (void)list.GetDataPtr<float>(2);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- Copy, cache bypass, bf16 constants
// y[8 b + e] = x[16 b + e] for b < 8 (Copy with srcStride 2 blocks); y[64] = x[3] + 1 read and
// written with the DCache-bypassing scalar accessors.
__aicore__ void copy_bypass_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, ob;
  pipe.InitBuffer(ib, 128 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = ib.Get<float>(), o = ob.Get<float>();
  DataCopy(s, xg, 128);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Copy(o, s, 64, 1, {1, 2, 8, 16});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);
  DataCopyPadExtParams<bfloat16_t> pad = {false, 0, 0, 0};  // an integer constant for a bf16 field compiles
  (void)pad;
  float v = ReadGmByPassDCache((__gm__ float*)x + 3);
  WriteGmByPassDCache((__gm__ float*)y + 64, v + 1.0f);
  DataSyncBarrier<MemDsbT::ALL>();
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yg);
}

__aicore__ void copy_repeat_too_big(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib;
  pipe.InitBuffer(ib, 256);
  LocalTensor<float> s = ib.Get<float>();
  Duplicate(s, 0.0f, 64);
  Copy(s, s, 64, 300, {1, 1, 8, 8});  // expect: repeat_out_of_range
}

__aicore__ void bypass_out_of_bounds(GM_ADDR x, GM_ADDR, GM_ADDR) {
  (void)ReadGmByPassDCache((__gm__ float*)x + (1 << 20));  // expect: gm_out_of_bounds
}

// ---------------------------------------------------------------- CMPMASK register: Compare, GetCmpMask, SetCmpMask, Select
// y[0, 64) = x < 10 ? x : 100 (Compare into the register, Select mode 0 from it);
// y[64, 72) = the register's 16 bytes (GetCmpMask) and 16 zero bytes, as raw float bits;
// y[128, 256) = x > 10 ? x : 7 (Select mode 1, the scalar 7 loaded with SetCmpMask).
__aicore__ void cmpmask_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, cb, ob, mb, sb, selb;
  pipe.InitBuffer(xb, 128 * sizeof(float));
  pipe.InitBuffer(cb, 128 * sizeof(float));
  pipe.InitBuffer(ob, 128 * sizeof(float));
  pipe.InitBuffer(mb, 128);
  pipe.InitBuffer(sb, 32);
  pipe.InitBuffer(selb, 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xs = xb.Get<float>(), cs = cb.Get<float>(), o = ob.Get<float>(), sc = sb.Get<float>();
  LocalTensor<uint8_t> m = mb.Get<uint8_t>(), sel = selb.Get<uint8_t>();
  DataCopy(xs, xg, 128);
  Duplicate(cs, 10.0f, 64);
  Duplicate(cs[64], 100.0f, 64);
  Duplicate(mb.Get<float>(), 0.0f, 32);
  Duplicate(sc, 7.0f, 8);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  BinaryRepeatParams rp = {1, 1, 1, 8, 8, 8};
  Compare(xs, cs, CMPMODE::LT, 64, rp);
  GetCmpMask(m);
  SetVectorMask<float>(64);
  Select<float, SELMODE::VSEL_CMPMASK_SPR>(o, xs, cs[64], 1, rp);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);
  DataCopy(yg[64], mb.Get<float>(), 8);
  Compare(sel, xs, cs, CMPMODE::GT, 64, 2, {1, 1, 1, 8, 8, 0});  // both repeats against cs[0, 64) = 10
  SetCmpMask(sc);
  SetVectorMask<float>(64);
  SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
  Select(o, sel, xs, 2, rp);
  ResetMask();
  SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
  DataCopy(yg[128], o, 128);
}

// GetCmpMask into a tensor 8 bytes into its buffer: the store needs 16-byte alignment.
__aicore__ void cmpmask_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, mb;
  pipe.InitBuffer(xb, 64 * sizeof(float));
  pipe.InitBuffer(mb, 256);
  LocalTensor<float> xs = xb.Get<float>();
  Duplicate(xs, 1.0f, 64);
  Compare(xs, xs, CMPMODE::EQ, 64, {1, 1, 1, 8, 8, 8});
  GetCmpMask(mb.Get<uint8_t>()[8]);  // expect: ub_misaligned
}

// Select mode 0 reads the register: values from a Compare over uninitialized UB taint it.
__aicore__ void cmpmask_uninit(GM_ADDR, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, ob;
  pipe.InitBuffer(xb, 64 * sizeof(float));
  pipe.InitBuffer(ob, 64 * sizeof(float));
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> xs = xb.Get<float>(), o = ob.Get<float>();
  Duplicate(o, 1.0f, 64);
  Compare(xs, o, CMPMODE::LT, 64, {1, 1, 1, 8, 8, 8});  // xs never written
  Select<float, SELMODE::VSEL_CMPMASK_SPR>(o, o, o, 1, {1, 1, 1, 8, 8, 8});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 64);  // expect: ub_uninitialized_read
}

// ---------------------------------------------------------------- SetPadValue
// 4 rows of 31 floats, each padded on the right to 32: y[0, 128) with SetPadValue(37) and
// isPad = false; y[128, 256) with isPad = true and paddingValue -1 (it loads the register);
// y[256, 384) isPad = false again: the register now holds -1.
__aicore__ void pad_value_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECIN> b;
  pipe.InitBuffer(b, 384 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopyExtParams cp{4, 31 * sizeof(float), 0, 0, 0};
  SetPadValue(37.0f);
  DataCopyPad(t, xg, cp, {false, 0, 1, 0.0f});
  DataCopyPad(t[128], xg, cp, {true, 0, 1, -1.0f});
  DataCopyPad(t[256], xg, cp, {false, 0, 1, 5.0f});  // isPad false: its value is not used
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, 384);
}

// Without SetPadValue (and no earlier isPad copy) the pad lane is undefined: copying the
// padded rows out reads it.
__aicore__ void pad_value_unset(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECIN> b;
  pipe.InitBuffer(b, 128 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = b.Get<float>();
  DataCopyPad(t, xg, {4, 31 * sizeof(float), 0, 0, 0}, {false, 0, 1, 0.0f});
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, 128);  // expect: ub_uninitialized_read
}

// ---------------------------------------------------------------- TBufPool / TPipe::InitBufPool
// Two stages on the same UB bytes: pool1 runs y[0, kN) = x + 1 through VECIN/VECOUT queues,
// is Reset, then pool2 (sharing pool1's bytes) runs y[kN, 2 kN) = 3 x with a sub-pool's TBuf
// and one of its own.
__aicore__ void tbufpool_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBufPool<TPosition::VECCALC> pool1, pool2;
  TBufPool<TPosition::VECCALC, 2> sub;
  pipe.InitBufPool(pool1, 2 * kN * sizeof(float));
  pipe.InitBufPool(pool2, 2 * kN * sizeof(float), pool1);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  TQue<TPosition::VECIN, 1> qin;
  TQue<TPosition::VECOUT, 1> qout;
  pool1.InitBuffer(qin, 1, kN * sizeof(float));
  pool1.InitBuffer(qout, 1, kN * sizeof(float));
  LocalTensor<float> a = qin.AllocTensor<float>();
  DataCopy(a, xg, kN);
  qin.EnQue(a);
  a = qin.DeQue<float>();
  LocalTensor<float> o = qout.AllocTensor<float>();
  Adds(o, a, 1.0f, kN);
  qin.FreeTensor(a);
  qout.EnQue(o);
  o = qout.DeQue<float>();
  DataCopy(yg, o, kN);
  qout.FreeTensor(o);
  pool1.Reset();
  TBuf<TPosition::VECCALC> tin, tout;
  pool2.InitBufPool(sub, kN * sizeof(float));
  sub.InitBuffer(tin, kN * sizeof(float));
  pool2.InitBuffer(tout, kN * sizeof(float));
  LocalTensor<float> s = tin.Get<float>(), r = tout.Get<float>();
  DataCopy(s, xg, kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(r, s, 3.0f, kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[kN], r, kN);
  pool2.Reset();
}

// Two 1 KiB buffers from a 1 KiB pool.
__aicore__ void tbufpool_overflow(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBufPool<TPosition::VECIN> pool;
  pipe.InitBufPool(pool, 1024);
  TQue<TPosition::VECIN, 2> q;
  pool.InitBuffer(q, 2, 1024);  // expect: ub_capacity_exceeded
}

// A pool of one buffer id asked for two buffers.
__aicore__ void tbufpool_ids_exceeded(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBufPool<TPosition::VECCALC, 1> pool;
  pipe.InitBufPool(pool, 4096);
  TBuf<TPosition::VECCALC> a, b;
  pool.InitBuffer(a, 256);
  pool.InitBuffer(b, 256);  // expect: pipe_buffers_exceeded
}

// Reset while a tensor of the pool's queue is still allocated.
__aicore__ void tbufpool_reset_live(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBufPool<TPosition::VECIN> pool;
  pipe.InitBufPool(pool, 1024);
  TQue<TPosition::VECIN, 1> q;
  pool.InitBuffer(q, 1, 512);
  LocalTensor<float> t = q.AllocTensor<float>();
  pool.Reset();  // expect: pipe_reset_live_tensors
  q.FreeTensor(t);
}

// Switching to a pool that shares the bytes without Reset of the first: pool1's TBuf is
// still live where pool2's copy lands.
__aicore__ void tbufpool_no_reset(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBufPool<TPosition::VECCALC> pool1, pool2;
  pipe.InitBufPool(pool1, 1024);
  pipe.InitBufPool(pool2, 1024, pool1);
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  TBuf<TPosition::VECCALC> t1, t2;
  pool1.InitBuffer(t1, 1024);
  DataCopy(t1.Get<float>(), xg, 256);
  pool2.InitBuffer(t2, 1024);
  DataCopy(t2.Get<float>(), xg, 256);  // expect: ub_overlap_in_flight
}

// ---------------------------------------------------------------- Sort32 / MrgSort
// y[0, 256): the 128 (score, index) structures of x[0, 128) with indices 0..127, sorted
// descending: Sort32 sorts 4 groups of 32, MrgSort merges the 4 lists. y[256, 320): Sort32 of
// the first 32 scores as half (half score, 2 reserved bytes, index).
__aicore__ void sort_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ib, wb, ob, hb, hob;
  pipe.InitBuffer(sb, 128 * sizeof(float));
  pipe.InitBuffer(ib, 128 * sizeof(uint32_t));
  pipe.InitBuffer(wb, 256 * sizeof(float));
  pipe.InitBuffer(ob, 256 * sizeof(float));
  pipe.InitBuffer(hb, 128 * sizeof(half));
  pipe.InitBuffer(hob, 64 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = sb.Get<float>(), w = wb.Get<float>(), o = ob.Get<float>();
  LocalTensor<int32_t> idx = ib.Get<int32_t>();
  LocalTensor<half> h = hb.Get<half>();
  LocalTensor<half> ho = hob.Get<half>();
  DataCopy(s, xg, 128);
  CreateVecIndex(idx, int32_t(0), 128);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Sort32(w, s, idx.ReinterpretCast<uint32_t>(), 4);
  uint16_t lens[4] = {32, 32, 32, 32};
  MrgSort4Info info(lens, false, 15, 1);
  MrgSortSrcList<float> list(w[0], w[64], w[128], w[192]);
  MrgSort(o, list, info);
  Cast(h, s, RoundMode::CAST_NONE, 128);
  Sort32(ho, h, idx.ReinterpretCast<uint32_t>(), 1);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 256);
  DataCopy(yg[256], hob.Get<float>(), 64);
}

// 256 scores: Sort32 of 8 groups, then MrgSort with repeatTimes 2 (four equal lists stored
// back to back): y[0, 256) and y[256, 512) are the sorted structures of x[0, 128) and
// x[128, 256) (the vendor example's layout).
__aicore__ void mrgsort_repeat_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ib, wb, ob;
  pipe.InitBuffer(sb, 256 * sizeof(float));
  pipe.InitBuffer(ib, 256 * sizeof(uint32_t));
  pipe.InitBuffer(wb, 512 * sizeof(float));
  pipe.InitBuffer(ob, 512 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> s = sb.Get<float>(), w = wb.Get<float>(), o = ob.Get<float>();
  LocalTensor<int32_t> idx32 = ib.Get<int32_t>();
  LocalTensor<uint32_t> idx = idx32.ReinterpretCast<uint32_t>();
  DataCopy(s, xg, 256);
  CreateVecIndex(idx32, int32_t(0), 256);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Sort32<float>(w, s, idx, 8);
  MrgSort4Info info;
  for (int i = 0; i < 4; i++) info.elementLengths[i] = 32;
  info.ifExhaustedSuspension = false;
  info.validBit = 0b1111;
  info.repeatTimes = 2;
  MrgSortSrcList<float> list;
  list.src1 = w[0];
  list.src2 = w[64];
  list.src3 = w[128];
  list.src4 = w[192];
  MrgSort<float>(o, list, info);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, o, 512);
}

// The cost of Sort32 alone: 255 repeats of 32 structures at 2 per cycle.
__aicore__ void sort32_cost(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ib, wb;
  pipe.InitBuffer(sb, 255 * 32 * sizeof(float));
  pipe.InitBuffer(ib, 255 * 32 * sizeof(uint32_t));
  pipe.InitBuffer(wb, 255 * 32 * 8);
  LocalTensor<float> s = sb.Get<float>(), w = wb.Get<float>();
  LocalTensor<uint32_t> idx = ib.Get<uint32_t>();
  Duplicate(s, 1.0f, 255 * 32);
  Duplicate(idx, uint32_t(0), 255 * 32);
  Sort32(w, s, idx, 255);
}

// validBit 5 is no list count.
__aicore__ void mrgsort_bad_valid_bit(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> wb, ob;
  pipe.InitBuffer(wb, 256 * sizeof(float));
  pipe.InitBuffer(ob, 256 * sizeof(float));
  LocalTensor<float> w = wb.Get<float>(), o = ob.Get<float>();
  Duplicate(w, 0.0f, 256);
  uint16_t lens[4] = {32, 32, 32, 32};
  MrgSortSrcList<float> list(w[0], w[64], w[128], w[192]);
  MrgSort(o, list, MrgSort4Info(lens, false, 5, 1));  // expect: field_out_of_range
}

// Sort32 of 4 groups into a destination of 2 groups' structures.
__aicore__ void sort32_dst_too_small(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, ib, wb;
  pipe.InitBuffer(sb, 128 * sizeof(float));
  pipe.InitBuffer(ib, 128 * sizeof(uint32_t));
  pipe.InitBuffer(wb, 128 * sizeof(float));
  LocalTensor<float> s = sb.Get<float>(), w = wb.Get<float>();
  LocalTensor<uint32_t> idx = ib.Get<uint32_t>();
  Duplicate(s, 1.0f, 128);
  Duplicate(idx, uint32_t(0), 128);
  Sort32(w, s, idx, 4);  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- Transpose / TransDataTo5HD
// As half: y[0, 256) = the 16x16 transpose of x[0, 256); y[256, 768) = TransDataTo5HD of
// x[0, 512) read as C = 16 planes of H x W = 2 x 16 (NCHW) into (H W, C0 = 16).
__aicore__ void transpose_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, hb, tb, ob;
  pipe.InitBuffer(fb, 512 * sizeof(float));
  pipe.InitBuffer(hb, 512 * sizeof(half));
  pipe.InitBuffer(tb, 256 * sizeof(half));
  pipe.InitBuffer(ob, 512 * sizeof(half));
  GlobalTensor<float> xg;
  GlobalTensor<half> yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ half*)y);
  LocalTensor<float> f = fb.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), t = tb.Get<half>(), o = ob.Get<half>();
  DataCopy(f, xg, 512);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Cast(h, f, RoundMode::CAST_NONE, 512);
  Transpose(t, h);
  uint64_t dsts[16], srcs[16];
  for (int i = 0; i < 16; i++) {
    dsts[i] = o[16 * i].GetPhyAddr();
    srcs[i] = h[32 * i].GetPhyAddr();
  }
  TransDataTo5HDParams p(false, false, 2, 16, 1);
  TransDataTo5HD<half>(dsts, srcs, p);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, t, 256);
  DataCopy(yg[256], o, 512);
}

__aicore__ void transpose_misaligned(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> hb, tb;
  pipe.InitBuffer(hb, 512 * sizeof(half));
  pipe.InitBuffer(tb, 256 * sizeof(half));
  LocalTensor<half> h = hb.Get<half>(), t = tb.Get<half>();
  Duplicate(h, half(1.0f), 512);
  Transpose(t, h[8]);  // expect: ub_misaligned
}

// An address list entry that is no UB address.
__aicore__ void to5hd_bad_address(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> hb, ob;
  pipe.InitBuffer(hb, 512 * sizeof(half));
  pipe.InitBuffer(ob, 512 * sizeof(half));
  LocalTensor<half> h = hb.Get<half>(), o = ob.Get<half>();
  uint64_t dsts[16], srcs[16];
  for (int i = 0; i < 16; i++) {
    dsts[i] = o[16 * i].GetPhyAddr();
    srcs[i] = h[32 * i].GetPhyAddr();
  }
  srcs[3] = 32 * 3;  // a UB offset, not the GetPhyAddr value
  TransDataTo5HD<half>(dsts, srcs, {false, false, 2, 16, 1});  // expect: ub_out_of_range
}

// ---------------------------------------------------------------- int4b_t
// h = half(x - 12) for x[0, 128); y[0, 16) (as bytes) = h cast to int4b_t with CAST_RINT,
// packed two per byte; y[16, 80) (as half) = those int4 values cast back to half; y[80] =
// GetSize of the int4b_t view of a 64-byte int8_t tensor; y[96, 112) = the mask-form cast
// with CAST_CEIL (the vendor example's parameters).
__aicore__ void int4_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, hb, qb, q2b, bb;
  pipe.InitBuffer(fb, 128 * sizeof(float));
  pipe.InitBuffer(hb, 128 * sizeof(half));
  pipe.InitBuffer(qb, 64);
  pipe.InitBuffer(q2b, 64);
  pipe.InitBuffer(bb, 128 * sizeof(half));
  GlobalTensor<float> xg, yg;
  GlobalTensor<int8_t> yb;
  GlobalTensor<half> yh;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  yb.SetGlobalBuffer((__gm__ int8_t*)y);
  yh.SetGlobalBuffer((__gm__ half*)y);
  LocalTensor<float> f = fb.Get<float>();
  LocalTensor<half> h = hb.Get<half>(), back = bb.Get<half>();
  LocalTensor<int8_t> q8 = qb.Get<int8_t>(), q28 = q2b.Get<int8_t>();
  LocalTensor<int4b_t> q4 = q8.ReinterpretCast<int4b_t>(), q24 = q28.ReinterpretCast<int4b_t>();
  DataCopy(f, xg, 128);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(f, f, -12.0f, 128);
  Cast(h, f, RoundMode::CAST_NONE, 128);
  Cast(q4, h, RoundMode::CAST_RINT, 128);
  Cast(back, q4, RoundMode::CAST_NONE, 128);
  Cast<int4b_t, half>(q24, h, RoundMode::CAST_CEIL, 128, 1, {1, 1, 2, 8});
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yb, q8, 64);
  DataCopy(yh[32], back, 128);
  DataCopy(yb[384], q28, 64);
  SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
  WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
  yg.SetValue(80, float(q4.GetSize()));
}

// A Cast to int4b_t of an odd count of elements.
__aicore__ void int4_odd_count(GM_ADDR, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> hb, qb;
  pipe.InitBuffer(hb, 128 * sizeof(half));
  pipe.InitBuffer(qb, 64);
  LocalTensor<half> h = hb.Get<half>();
  LocalTensor<int4b_t> q4 = qb.Get<int8_t>().ReinterpretCast<int4b_t>();
  Duplicate(h, half(1.0f), 128);
  Cast(q4, h, RoundMode::CAST_RINT, 127);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- GroupBarrier
// 4 cores: cores 0 and 1 (the arrive group) write 2 x of their tile to a GM scratch and
// Arrive; cores 2 and 3 (the wait group) Wait, then write y[(core - 2) kN + i] = the sum of
// both scratch tiles + (core - 2).
__aicore__ void group_ok(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb;
  pipe.InitBuffer(ab, kN * sizeof(float));
  pipe.InitBuffer(bb, kN * sizeof(float));
  GroupBarrier<PipeMode::MTE3_MODE> bar(ws, 2, 2);
  GlobalTensor<float> xg, yg, scratch;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  scratch.SetGlobalBuffer((__gm__ float*)(ws + bar.GetWorkspaceLen()));
  LocalTensor<float> a = ab.Get<float>(), b = bb.Get<float>();
  if (me < 2) {
    DataCopy(a, xg[me * kN], kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(a, a, 2.0f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(scratch[me * kN], a, kN);
    bar.Arrive(uint32_t(me));
    return;
  }
  bar.Wait(uint32_t(me - 2));
  DataCopy(a, scratch, kN);
  DataCopy(b, scratch[kN], kN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Add(a, a, b, kN);
  Adds(a, a, float(me - 2), kN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg[(me - 2) * kN], a, kN);
}

// 3 cores, arriveSize 2: core 1 never arrives, core 2 waits forever.
__aicore__ void group_deadlock(GM_ADDR, GM_ADDR, GM_ADDR ws) {
  GroupBarrier<PipeMode::MTE3_MODE> bar(ws, 2, 1);
  if (GetBlockIdx() == 0) bar.Arrive(0);
  if (GetBlockIdx() == 2) bar.Wait(0);  // expect: cross_core_deadlock
}

// arriveIndex 2 of an arrive group of 2.
__aicore__ void group_bad_index(GM_ADDR, GM_ADDR, GM_ADDR ws) {
  GroupBarrier<PipeMode::MTE3_MODE> bar(ws, 2, 2);
  bar.Arrive(2);  // expect: field_out_of_range
}

// ---------------------------------------------------------------- DataCopy with SliceInfo
// The vendor page's example: x viewed as float [3, 87]; rows 0 and 2, columns 16..39 and
// 47..70 (two pieces of 3 blocks, 7-element gaps) land compact in UB as [2, 48] and go out
// to y [2, 48] with the same (gap-free) slice.
__aicore__ void slice_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 96 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x, 3 * 87);
  yg.SetGlobalBuffer((__gm__ float*)y, 2 * 48);
  SliceInfo srcInfo[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
  SliceInfo dstInfo[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(t, xg, dstInfo, srcInfo, 2);
  q.EnQue(t);
  t = q.DeQue<float>();
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, dstInfo, dstInfo, 2);
  q.FreeTensor(t);
}

// The same copy written by hand: per selected row one DataCopyPad with a 28-byte GM gap in,
// one DataCopy out. The slice form issues the same instructions: it must cost the same.
__aicore__ void slice_by_hand(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 96 * sizeof(float));
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x, 3 * 87);
  yg.SetGlobalBuffer((__gm__ float*)y, 2 * 48);
  LocalTensor<float> t = q.AllocTensor<float>();
  for (uint32_t r = 0; r < 2; r++) {
    DataCopyPad(t[r * 48], xg[r * 2 * 87 + 16], {2, 24 * sizeof(float), 7 * sizeof(float), 0, 0}, {false, 0, 0, 0.0f});
  }
  q.EnQue(t);
  t = q.DeQue<float>();
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  for (uint32_t r = 0; r < 2; r++) DataCopy(yg[r * 48], t[r * 48], {2, 3, 0, 0});
  q.FreeTensor(t);
}

// Three dimensions of half: x viewed as half [4, 5, 64]; dim 0 pieces 0..15 and 32..47
// (one block each, 16-element gap), dim 1 rows 1 and 3, dim 2 planes 0 and 3, into UB
// [2, 2, 32]; out to y viewed as half [3, 2, 40]: pieces at 2..17 and 23..38 (a 5-element,
// 10-byte GM gap), rows 0 and 1, planes 0 and 2.
__aicore__ void slice_half_3d_ok(GM_ADDR x, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 128 * sizeof(half));
  GlobalTensor<half> xg, yg;
  xg.SetGlobalBuffer((__gm__ half*)x);
  yg.SetGlobalBuffer((__gm__ half*)y, 3 * 2 * 40);
  SliceInfo in[] = {{0, 47, 16, 1, 64}, {1, 3, 1, 1, 5}, {0, 3, 2, 1, 4}};
  SliceInfo ub[] = {{0, 31, 0, 1, 32}, {0, 1, 0, 1, 2}, {0, 1, 0, 1, 2}};
  SliceInfo out[] = {{2, 38, 5, 1, 40}, {0, 1, 0, 1, 2}, {0, 2, 1, 1, 3}};
  LocalTensor<half> t = b.Get<half>();
  DataCopy(t, xg, ub, in, 3);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, out, ub, 3);
}

// The GlobalTensor holds 200 floats; the slice reaches element 244.
__aicore__ void slice_gm_out_of_bounds(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 96 * sizeof(float));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x, 200);
  SliceInfo srcInfo[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
  SliceInfo dstInfo[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, dstInfo, srcInfo, 2);  // expect: gm_out_of_bounds
}

// The UB buffer holds 64 floats; the slice needs 96.
__aicore__ void slice_ub_too_small(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 64 * sizeof(float));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  SliceInfo srcInfo[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
  SliceInfo dstInfo[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, dstInfo, srcInfo, 2);  // expect: ub_out_of_range
}

// endIndex 69: 54 elements are not whole pieces of 24 with 7-element gaps.
__aicore__ void slice_bad_end(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 96 * sizeof(float));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  SliceInfo srcInfo[] = {{16, 69, 7, 3, 87}, {0, 2, 1, 1, 3}};
  SliceInfo dstInfo[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, dstInfo, srcInfo, 2);  // expect: field_out_of_range
}

// A UB-side gap of 3 floats (12 bytes) puts the second piece off its 32-byte boundary.
__aicore__ void slice_ub_stride_misaligned(GM_ADDR x, GM_ADDR, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 128 * sizeof(float));
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  SliceInfo srcInfo[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
  SliceInfo dstInfo[] = {{0, 50, 3, 3, 51}, {0, 1, 0, 1, 2}};
  LocalTensor<float> t = b.Get<float>();
  DataCopy(t, xg, dstInfo, srcInfo, 2);  // expect: ub_misaligned
}

using Check = bool (*)(const float* y);
bool near(float a, float b) { return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::fabs(b)); }
bool check_events(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], 2 * xval(i))) return false;
  return true;
}
bool check_two_pipes(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], xval(i) + 1) || !near(y[kN + i], 3 * xval(i))) return false;
  return true;
}
bool check_allocator(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], xval(i) * xval(i) + xval(i))) return false;
  return true;
}
bool check_static(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], std::fabs(xval(i) - 10))) return false;
  return true;
}
bool check_tbuf(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], -xval(i))) return false;
  return true;
}
bool check_builtins(const float* y) {
  for (uint32_t c = 0; c < 4; c++)
    for (uint32_t j = 0; j < 8; j++)
      if (!near(y[8 * c + j], float(40 + c))) return false;
  return true;
}
bool check_sync_sum(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    float s = 0;
    for (uint32_t c = 0; c < 4; c++) s += 2 * xval(c * kN + i);
    if (!near(y[i], s)) return false;
  }
  return true;
}
bool check_atomic(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    float s = 0;
    for (uint32_t c = 0; c < 4; c++) s += xval(c * kN + i);
    if (!near(y[i], s) || !near(y[kN + i], s)) return false;
  }
  return true;
}
bool check_ib(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    float a = xval(i) + 5;
    if (!near(y[i], a) || !near(y[kN + i], 2 * a) || !near(y[2 * kN + i], 2 * a)) return false;
  }
  return true;
}
bool check_pre_block(const float* y) { return near(y[0], 1 + 2 + 3); }
bool check_copy_bypass(const float* y) {
  for (uint32_t b = 0; b < 8; b++)
    for (uint32_t e = 0; e < 8; e++)
      if (!near(y[8 * b + e], xval(16 * b + e))) return false;
  return near(y[64], xval(3) + 1);
}
bool check_list(const float* y) {
  for (uint32_t i = 0; i < 128; i++)
    if (!near(y[i], xval(i))) return false;
  return near(y[128], 2) && near(y[129], 64) && near(y[130], 65);
}
bool check_reduce9(const float* y) {
  for (uint32_t b = 0; b < 16; b++) {
    float s = 0;
    for (uint32_t e = 0; e < 8; e++) s += xval(b * 8 + e);
    if (!near(y[b], s)) return false;
  }
  for (uint32_t p = 0; p < 32; p++)
    if (!near(y[16 + p], xval(2 * p) + xval(2 * p + 1))) return false;
  for (uint32_t r = 0; r < 2; r++) {
    float s = 0;
    for (uint32_t e = 0; e < 64; e++) s += xval(r * 64 + e);
    if (!near(y[48 + r], s)) return false;
  }
  float m = 0;
  for (uint32_t e = 0; e < 64; e++) m = std::max(m, xval(e));
  return near(y[50], m);
}
bool check_gather(const float* y) {
  for (uint32_t i = 0; i < 64; i++)
    if (!near(y[i], xval(63 - i))) return false;
  for (uint32_t i = 0; i < 32; i++)
    if (!near(y[64 + i], xval(2 * i))) return false;
  return near(y[96], 32);
}
bool check_gatherb(const float* y) {
  for (uint32_t b = 0; b < 8; b++)
    for (uint32_t e = 0; e < 8; e++)
      if (!near(y[8 * b + e], xval(8 * (7 - b) + e)))
        return false;
  return true;
}
bool check_log(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], std::log(xval(i) + 1)) || !near(y[kN + i], std::log2(xval(i) + 1))) return false;
  return true;
}

bool check_swish(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    const double x = xval(i);
    if (!near(y[i], float(x / (1 + std::exp(-1.5 * x))))) return false;
    const double ref = i < 200 ? x / (1 + std::exp(-0.75 * x)) : 0.0;
    if (std::fabs(y[kN + i] - ref) > 2e-3 * std::max(1.0, std::fabs(ref))) return false;
  }
  return true;
}

bool check_silu(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    const double x = double(xval(i)) - 12.0;
    if (!near(y[i], float(x / (1 + std::exp(-x))))) return false;
    const double ref = i < 200 ? x / (1 + std::exp(-x)) : 0.0;
    if (std::fabs(y[kN + i] - ref) > 2e-3 * std::max(1.0, std::fabs(ref))) return false;
  }
  return true;
}

// AscendQuant's Atlas A2 arithmetic, written with the host's _Float16: every step rounded
// to half, then to int8 with ties to even, saturating.
int8_t quant_ref(float x, float scale, float offset) {
  const _Float16 h = _Float16(x), s = _Float16(scale), o = _Float16(offset);
  const _Float16 p = _Float16(double(h) * double(s));
  const _Float16 r = _Float16(double(p) + double(o));
  const double v = std::nearbyint(double(r));
  return int8_t(std::max(-128.0, std::min(127.0, v)));
}
bool check_quant(const float* yf) {
  const auto* y = reinterpret_cast<const int8_t*>(yf);
  int saturated = 0, ties = 0;
  for (uint32_t i = 0; i < kN; i++) {
    const float a = xval(i) - 12.0f;
    const float sj = xval(256 + i % 64) * 0.125f, oj = xval(320 + i % 64) - 6.0f;
    if (y[i] != quant_ref(a, 11.0f, 0.5f)) return false;
    if (y[kN + i] != (i < 200 ? quant_ref(a, 11.0f, 0.5f) : 0)) return false;
    if (y[2 * kN + i] != quant_ref(a, sj, oj)) return false;
    if (y[3 * kN + i] != quant_ref(a, sj, -3.0f)) return false;
    saturated += std::fabs(a * 11.0f + 0.5f) > 127.5f;
    ties += std::fmod(std::fabs(a * 11.0f + 0.5f), 1.0f) == 0.5f;
  }
  // The float scale tensor was cast to half in place: its first 64 halves are the scales.
  const auto* sh = reinterpret_cast<const _Float16*>(y + 4 * kN);
  for (uint32_t j = 0; j < 64; j++)
    if (sh[j] != _Float16(xval(256 + j) * 0.125f)) return false;
  return saturated > 0 && ties > 0;  // the data reach both saturation and ties
}

bool check_dequant(const float* y) {
  auto q = [](uint32_t i) { return float(int32_t(std::nearbyint(xval(i) * 4.0f - 50.0f))); };
  auto s = [](uint32_t j) { return xval(256 + j) * 0.25f; };
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t c = 0; c < 16; c++)
      if (y[r * 16 + c] != (c < 12 ? q(r * 16 + c) * s(c) : q(r * 16 + c))) return false;
  const auto* h = reinterpret_cast<const _Float16*>(y + 64);
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t c = 0; c < 16; c++)
      if (h[r * 16 + c] != (c < 8 ? _Float16(q(r * 8 + c) * s(c)) : _Float16(0.0f))) return false;
  for (uint32_t i = 0; i < 32; i++) {
    if (y[128 + i] != q(i) * 0.5f) return false;
    if (y[160 + i] != (i < 8 ? q(i) * 0.5f : q(i))) return false;
  }
  for (uint32_t i = 0; i < 64; i++)
    if (y[192 + i] != (i < 40 ? q(i) * s(i % 16) : 0.0f)) return false;
  return true;
}

// float -> bfloat16 bits, nearest even (host reference).
uint16_t bf16_bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
bool check_antiquant(const float* yf) {
  const auto* y = reinterpret_cast<const _Float16*>(yf);
  auto q = [](uint32_t e) { return int8_t(std::nearbyint(xval(e) * 4.0f - 50.0f)); };
  auto o = [](uint32_t p) { return _Float16(xval(256 + p) - 12.0f); };
  auto s = [](uint32_t p) { return _Float16(xval(384 + p) * 0.0625f); };
  for (uint32_t e = 0; e < kN; e++) {
    const uint32_t p = (e / 64) / 2 * 64 + e % 64;  // [k = 4, N = 64], 2 parameter rows
    const _Float16 a = _Float16(double(q(e)) + double(o(p)));
    if (y[e] != _Float16(double(a) * double(s(p)))) return false;
    const uint32_t pt = (e / 64) * 2 + (e % 64) / 32;  // [N = 4, k = 64], 2 parameter columns
    const uint16_t ob_bits = bf16_bits(xval(256 + pt) - 12.0f), sb_bits = bf16_bits(xval(384 + pt) * 0.0625f);
    uint32_t ou = uint32_t(ob_bits) << 16, su = uint32_t(sb_bits) << 16;
    float obf, sbf;
    std::memcpy(&obf, &ou, 4);
    std::memcpy(&sbf, &su, 4);
    const uint16_t want = bf16_bits((float(q(e)) + obf) * sbf);
    uint16_t got;
    std::memcpy(&got, &y[kN + e], 2);
    if (got != want) return false;
    if (y[2 * kN + e] != _Float16(double(_Float16(double(q(e)) + 1.5)) * 0.25)) return false;
    if (y[3 * kN + e] != _Float16(double(q(e)) * 3.0)) return false;
  }
  return true;
}

bool check_glu(const float* y) {
  for (uint32_t i = 0; i < kN; i++) {
    const double a = xval(i), b = double(xval(kN + i)) - 6.0;
    const double sw = a * (b / (1 + std::exp(-b)));
    const double ge = a * (b / (1 + std::exp(-0.0713548162726 * b * (b * b + 22.363860002236))));
    if (!near(y[i], float(sw)) || !near(y[kN + i], float(ge))) return false;
    const double sh = a * (b / (1 + std::exp(-0.5 * b)));
    if (std::fabs(y[2 * kN + i] - sh) > 2e-3 * std::max(1.0, std::fabs(sh))) return false;
    const double gh = i < 200 ? ge : 0.0;
    if (std::fabs(y[3 * kN + i] - gh) > 2e-3 * std::max(1.0, std::fabs(gh))) return false;
  }
  return true;
}

bool check_reduce_pattern(const float* y) {
  auto v = [](uint32_t r, uint32_t c) { return double(xval(r * 24 + c)); };
  for (uint32_t r = 0; r < 3; r++) {
    double mx = v(r, 0), mn = v(r, 0), sum = 0;
    for (uint32_t c = 0; c < 20; c++) {
      mx = std::max(mx, v(r, c));
      mn = std::min(mn, v(r, c));
      sum += v(r, c);
    }
    if (!near(y[r], float(mx)) || !near(y[32 + r], float(mn)) || !near(y[128 + r], float(sum / 20))) return false;
  }
  for (uint32_t r = 3; r < 32; r++)
    if (y[r] != 0.0f || y[32 + r] != 0.0f || y[128 + r] != 0.0f) return false;
  for (uint32_t c = 0; c < 20; c++) {
    double sum = 0, hmax = -1e30;
    for (uint32_t r = 0; r < 3; r++) {
      sum += v(r, c);
      hmax = std::max(hmax, double(xval(r * 32 + c)));
    }
    if (!near(y[64 + c], float(sum)) || !near(y[96 + c], float(sum / 3))) return false;
    if (std::fabs(y[160 + c] - hmax) > 2e-3 * std::max(1.0, hmax)) return false;
  }
  for (uint32_t c = 20; c < 32; c++)
    if (y[64 + c] != 0.0f || y[96 + c] != 0.0f || y[160 + c] != 0.0f) return false;
  return true;
}

bool check_cmpmask(const float* y) {
  for (uint32_t i = 0; i < 64; i++)
    if (!near(y[i], xval(i) < 10 ? xval(i) : 100.0f)) return false;
  uint8_t bytes[32];
  std::memcpy(bytes, y + 64, 32);
  for (uint32_t i = 0; i < 128; i++) {
    bool bit = (bytes[i / 8] >> (i % 8)) & 1;
    if (bit != (i < 64 && xval(i) < 10)) return false;
  }
  for (uint32_t i = 16; i < 32; i++)
    if (bytes[i] != 0) return false;
  for (uint32_t i = 0; i < 128; i++)
    if (!near(y[128 + i], xval(i) > 10 ? xval(i) : 7.0f)) return false;
  return true;
}

bool check_pad_value(const float* y) {
  const float pads[3] = {37.0f, -1.0f, -1.0f};
  for (uint32_t p = 0; p < 3; p++)
    for (uint32_t r = 0; r < 4; r++)
      for (uint32_t j = 0; j < 32; j++)
        if (!near(y[128 * p + 32 * r + j], j < 31 ? xval(31 * r + j) : pads[p])) return false;
  return true;
}

bool check_tbufpool(const float* y) {
  for (uint32_t i = 0; i < kN; i++)
    if (!near(y[i], xval(i) + 1) || !near(y[kN + i], 3 * xval(i))) return false;
  return true;
}

// Descending stable order of the first n scores; structures as (score bits, index).
bool check_sorted_structs(const uint8_t* y, uint32_t n, bool half_scores, uint32_t first = 0) {
  std::vector<uint32_t> ord(n);
  for (uint32_t i = 0; i < n; i++) ord[i] = first + i;
  std::stable_sort(ord.begin(), ord.end(), [](uint32_t a, uint32_t b) { return xval(a) > xval(b); });
  for (uint32_t k = 0; k < n; k++) {
    const uint8_t* e = y + 8 * k;
    uint32_t idx;
    std::memcpy(&idx, e + 4, 4);
    float sc;
    if (half_scores) {
      half h;
      std::memcpy(&h, e, 2);
      sc = float(h);
      if (e[2] != 0 || e[3] != 0) return false;
    } else {
      std::memcpy(&sc, e, 4);
    }
    if (idx != ord[k] || sc != xval(ord[k])) return false;
  }
  return true;
}
bool check_mrgsort_repeat(const float* y) {
  return check_sorted_structs(reinterpret_cast<const uint8_t*>(y), 128, false, 0) &&
         check_sorted_structs(reinterpret_cast<const uint8_t*>(y + 256), 128, false, 128);
}
bool check_sort(const float* y) {
  return check_sorted_structs(reinterpret_cast<const uint8_t*>(y), 128, false) &&
         check_sorted_structs(reinterpret_cast<const uint8_t*>(y + 256), 32, true);
}

bool check_transpose(const float* y) {
  const half* h = reinterpret_cast<const half*>(y);
  for (uint32_t i = 0; i < 16; i++)
    for (uint32_t j = 0; j < 16; j++)
      if (float(h[j * 16 + i]) != xval(i * 16 + j)) return false;
  for (uint32_t hw = 0; hw < 32; hw++)
    for (uint32_t c = 0; c < 16; c++)
      if (float(h[256 + hw * 16 + c]) != xval(c * 32 + hw)) return false;
  return true;
}

int int4_of(float v, bool ceil_mode) {
  float r = ceil_mode ? std::ceil(v) : std::nearbyint(v);
  return int(std::max(-8.0f, std::min(7.0f, r)));
}
bool check_int4(const float* y) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(y);
  const half* h = reinterpret_cast<const half*>(y);
  for (uint32_t k = 0; k < 64; k++) {
    int lo = int4_of(xval(2 * k) - 12, false), hi = int4_of(xval(2 * k + 1) - 12, false);
    if (b[k] != uint8_t((lo & 0xF) | ((hi & 0xF) << 4))) return false;
    int clo = int4_of(xval(2 * k) - 12, true), chi = int4_of(xval(2 * k + 1) - 12, true);
    if (b[384 + k] != uint8_t((clo & 0xF) | ((chi & 0xF) << 4))) return false;
  }
  for (uint32_t i = 0; i < 128; i++)
    if (float(h[32 + i]) != float(int4_of(xval(i) - 12, false))) return false;
  return y[80] == 128.0f;
}

bool check_slice(const float* y) {
  for (uint32_t r = 0; r < 2; r++) {
    for (uint32_t j = 0; j < 48; j++) {
      uint32_t col = j < 24 ? 16 + j : 47 + (j - 24);
      if (y[r * 48 + j] != xval(2 * r * 87 + col)) return false;
    }
  }
  return y[96] == 0.0f;
}
// Data movement only: the half bit patterns must arrive unchanged; every other y element
// stays 0.
bool check_slice_half(const float* yf) {
  const auto* y = reinterpret_cast<const uint16_t*>(yf);
  std::vector<float> xs(4 * 5 * 64 / 2 + 1);
  for (uint32_t i = 0; i < xs.size(); i++) xs[i] = xval(i);
  const auto* x = reinterpret_cast<const uint16_t*>(xs.data());
  std::vector<uint16_t> want(3 * 2 * 40 + 16, 0);
  const uint32_t planes_in[2] = {0, 3}, rows_in[2] = {1, 3}, planes_out[2] = {0, 2}, rows_out[2] = {0, 1};
  const uint32_t col_in[2] = {0, 32}, col_out[2] = {2, 23};
  for (uint32_t p = 0; p < 2; p++)
    for (uint32_t r = 0; r < 2; r++)
      for (uint32_t k = 0; k < 2; k++)
        for (uint32_t e = 0; e < 16; e++)
          want[(planes_out[p] * 2 + rows_out[r]) * 40 + col_out[k] + e] =
              x[(planes_in[p] * 5 + rows_in[r]) * 64 + col_in[k] + e];
  for (uint32_t i = 0; i < want.size(); i++)
    if (y[i] != want[i]) return false;
  return true;
}
bool check_group(const float* y) {
  for (uint32_t w = 0; w < 2; w++)
    for (uint32_t i = 0; i < kN; i++)
      if (!near(y[w * kN + i], 2 * xval(i) + 2 * xval(kN + i) + float(w))) return false;
  return true;
}

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
  uint32_t block_dim;
  Check check;
};

const Case kCases[] = {
    {"events_ok", events_ok, 1, check_events},
    {"events_exhausted", events_exhausted, 1, nullptr},
    {"events_release_unallocated", events_release_unallocated, 1, nullptr},
    {"destroy_then_second_pipe_ok", destroy_then_second_pipe_ok, 1, check_two_pipes},
    {"destroy_without_pipe_all", destroy_without_pipe_all, 1, nullptr},
    {"allocator_ok", allocator_ok, 1, check_allocator},
    {"allocator_overflow", allocator_overflow, 1, nullptr},
    {"static_tensor_ok", static_tensor_ok, 1, check_static},
    {"static_tensor_misaligned", static_tensor_misaligned, 1, nullptr},
    {"static_tensor_unsynced", static_tensor_unsynced, 1, nullptr},
    {"tbuf_alloc_ok", tbuf_alloc_ok, 1, check_tbuf},
    {"tbuf_free_foreign", tbuf_free_foreign, 1, nullptr},
    {"assert_ok", assert_ok, 1, nullptr},
    {"assert_fails", assert_fails, 1, nullptr},
    {"ascendc_assert_fails", ascendc_assert_fails, 1, nullptr},
    {"ascendc_assert_macro_fails", ascendc_assert_macro_fails, 1, nullptr},
    {"builtins_ok", builtins_ok, 4, check_builtins},
    {"syncall_ok", syncall_ok, 4, check_sync_sum},
    {"syncall_soft_ok", syncall_soft_ok, 4, check_sync_sum},
    {"syncall_atomic_ok", syncall_atomic_ok, 4, check_atomic},
    {"syncall_deadlock", syncall_deadlock, 4, nullptr},
    {"syncall_missing", syncall_missing, 4, nullptr},
    {"dcache_not_written_back", dcache_not_written_back, 2, nullptr},
    {"dcache_written_back_ok", dcache_written_back_ok, 2, nullptr},
    {"dcache_own_dma_read", dcache_own_dma_read, 1, nullptr},
    {"syncall_missing_scalar", syncall_missing_scalar, 2, nullptr},
    {"syncall_read_then_write_ok", syncall_read_then_write_ok, 2, nullptr},
    {"syncall_block_dim_exceeded", syncall_block_dim_exceeded, 64, nullptr},
    {"syncall_only", syncall_only, 2, nullptr},
    {"empty_kernel", empty_kernel, 2, nullptr},
    {"ib_ok", ib_ok, 2, check_ib},
    {"ib_wait_deadlock", ib_wait_deadlock, 2, nullptr},
    {"pre_block_ok", pre_block_ok, 3, check_pre_block},
    {"reduce9_ok", reduce9_ok, 1, check_reduce9},
    {"reduce9_classic_order", reduce9_classic_order, 1, nullptr},
    {"gather_ok", gather_ok, 1, check_gather},
    {"gatherb_ok", gatherb_ok, 1, check_gatherb},
    {"gatherb_misaligned", gatherb_misaligned, 1, nullptr},
    {"gather_out_of_range", gather_out_of_range, 1, nullptr},
    {"gather_mask_bad_pattern", gather_mask_bad_pattern, 1, nullptr},
    {"log_ok", log_ok, 1, check_log},
    {"swish_ok", swish_ok, 1, check_swish},
    {"swish_in_place", swish_in_place, 1, nullptr},
    {"swish_count_too_big", swish_count_too_big, 1, nullptr},
    {"silu_ok", silu_ok, 1, check_silu},
    {"silu_overlap", silu_overlap, 1, nullptr},
    {"silu_count_too_big", silu_count_too_big, 1, nullptr},
    {"quant_ok", quant_ok, 1, check_quant},
    {"quant_count_too_big", quant_count_too_big, 1, nullptr},
    {"quant_scale_count_misaligned", quant_scale_count_misaligned, 1, nullptr},
    {"quant_tmp_too_small", quant_tmp_too_small, 1, nullptr},
    {"dequant_ok", dequant_ok, 1, check_dequant},
    {"dequant_in_place", dequant_in_place, 1, nullptr},
    {"dequant_calcount_beyond_n", dequant_calcount_beyond_n, 1, nullptr},
    {"dequant_n_misaligned", dequant_n_misaligned, 1, nullptr},
    {"dequant_tmp_too_small", dequant_tmp_too_small, 1, nullptr},
    {"antiquant_ok", antiquant_ok, 1, check_antiquant},
    {"antiquant_k_not_divisor", antiquant_k_not_divisor, 1, nullptr},
    {"antiquant_transpose_k_misaligned", antiquant_transpose_k_misaligned, 1, nullptr},
    {"antiquant_overlap", antiquant_overlap, 1, nullptr},
    {"antiquant_scale_too_small", antiquant_scale_too_small, 1, nullptr},
    {"glu_ok", glu_ok, 1, check_glu},
    {"reduce_pattern_ok", reduce_pattern_ok, 1, check_reduce_pattern},
    {"reduce_pattern_overlap", reduce_pattern_overlap, 1, nullptr},
    {"reduce_pattern_src_too_small", reduce_pattern_src_too_small, 1, nullptr},
    {"reduce_pattern_empty", reduce_pattern_empty, 1, nullptr},
    {"swiglu_misaligned", swiglu_misaligned, 1, nullptr},
    {"geglu_in_place", geglu_in_place, 1, nullptr},
    {"swiglu_tmp_too_small", swiglu_tmp_too_small, 1, nullptr},
    {"glu_sizes_differ", glu_sizes_differ, 1, nullptr},
    {"list_ok", list_ok, 1, check_list},
    {"list_bad_index", list_bad_index, 1, nullptr},
    {"copy_bypass_ok", copy_bypass_ok, 1, check_copy_bypass},
    {"copy_repeat_too_big", copy_repeat_too_big, 1, nullptr},
    {"bypass_out_of_bounds", bypass_out_of_bounds, 1, nullptr},
    {"cmpmask_ok", cmpmask_ok, 1, check_cmpmask},
    {"cmpmask_misaligned", cmpmask_misaligned, 1, nullptr},
    {"cmpmask_uninit", cmpmask_uninit, 1, nullptr},
    {"pad_value_ok", pad_value_ok, 1, check_pad_value},
    {"pad_value_unset", pad_value_unset, 1, nullptr},
    {"tbufpool_ok", tbufpool_ok, 1, check_tbufpool},
    {"tbufpool_overflow", tbufpool_overflow, 1, nullptr},
    {"tbufpool_ids_exceeded", tbufpool_ids_exceeded, 1, nullptr},
    {"tbufpool_no_reset", tbufpool_no_reset, 1, nullptr},
    {"tbufpool_reset_live", tbufpool_reset_live, 1, nullptr},
    {"sort_ok", sort_ok, 1, check_sort},
    {"mrgsort_repeat_ok", mrgsort_repeat_ok, 1, check_mrgsort_repeat},
    {"sort32_cost", sort32_cost, 1, nullptr},
    {"mrgsort_bad_valid_bit", mrgsort_bad_valid_bit, 1, nullptr},
    {"sort32_dst_too_small", sort32_dst_too_small, 1, nullptr},
    {"transpose_ok", transpose_ok, 1, check_transpose},
    {"transpose_misaligned", transpose_misaligned, 1, nullptr},
    {"to5hd_bad_address", to5hd_bad_address, 1, nullptr},
    {"int4_ok", int4_ok, 1, check_int4},
    {"int4_odd_count", int4_odd_count, 1, nullptr},
    {"group_ok", group_ok, 4, check_group},
    {"group_deadlock", group_deadlock, 3, nullptr},
    {"group_bad_index", group_bad_index, 1, nullptr},
    {"slice_ok", slice_ok, 1, check_slice},
    {"slice_by_hand", slice_by_hand, 1, check_slice},
    {"slice_half_3d_ok", slice_half_3d_ok, 1, check_slice_half},
    {"slice_gm_out_of_bounds", slice_gm_out_of_bounds, 1, nullptr},
    {"slice_ub_too_small", slice_ub_too_small, 1, nullptr},
    {"slice_bad_end", slice_bad_end, 1, nullptr},
    {"slice_ub_stride_misaligned", slice_ub_stride_misaligned, 1, nullptr},
    {"gm_duplicate", gm_duplicate, 2, nullptr},
    {"gm_race_different", gm_race_different, 2, nullptr},
};

}  // namespace

// A custom-op tiling-data class and the plain struct a kernel reads it as.
BEGIN_TILING_DATA_DEF(SurfaceTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint16_t, tileNum);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 3, split);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SurfaceOp, SurfaceTiling)
struct SurfaceTilingKernel {
  uint32_t totalLength;
  uint16_t tileNum;
  uint32_t split[3];
};

// The list of x[0, 64) and x[64, 128) (ListTensorDesc layout, 1-D, 64 elements each).
void fill_list(uint8_t* ws, uint8_t* x) {
  uint64_t w[7] = {40, 1, 64, 1 | (1ull << 32), 64, uint64_t(uintptr_t(x)), uint64_t(uintptr_t(x + 64 * 4))};
  std::memcpy(ws, w, sizeof w);
}

// Host-side APIs: platform_ascendc (from the SoC profile), securec, the flagged events and
// a cross-stream wait. One JSON line.
void host_checks(uint8_t* x, uint8_t* y) {
  auto* p = platform_ascendc::PlatformAscendCManager::GetInstance();
  uint64_t ub = 0;
  p->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  // A tiling's own platform object: 32 KiB then 8 KiB reserved (the last call counts).
  platform_ascendc::PlatformAscendC own;
  own.ReserveLocalMemory(platform_ascendc::ReservedSize::RESERVED_SIZE_32K);
  own.ReserveLocalMemory(platform_ascendc::ReservedSize::RESERVED_SIZE_8K);
  uint64_t ub_reserved = 0;
  own.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub_reserved);
  char buf[8];
  int cpy_ok = memcpy_s(buf, sizeof buf, "abcdefg", 8);
  int cpy_big = memcpy_s(buf, 4, "abcdefg", 8);
  int set_ok = memset_s(buf, sizeof buf, 'z', 8);
  int set_big = memset_s(buf, 4, 'z', 8);
  // Stream A runs a kernel; B waits for A's event, so B's clock reaches A's.
  aclrtStream a = nullptr, b = nullptr;
  aclrtEvent ea = nullptr, b0 = nullptr, b1 = nullptr;
  int rc = 0;
  rc |= aclrtSetDevice(0);
  rc |= aclrtCreateStream(&a);
  rc |= aclrtCreateStream(&b);
  rc |= aclrtCreateEventExWithFlag(&ea, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  rc |= aclrtCreateEventExWithFlag(&b0, ACL_EVENT_TIME_LINE);
  rc |= aclrtCreateEventWithFlag(&b1, ACL_EVENT_TIME_LINE);
  int bad_flag = aclrtCreateEventExWithFlag(&b1, 0x1000);
  rc |= aclrtRecordEvent(b0, b);
  rc |= int(ascendc_sim::launch(events_ok, "events_ok", 1, a, x, y, y));
  rc |= aclrtRecordEvent(ea, a);
  rc |= aclrtStreamWaitEvent(b, ea);
  rc |= aclrtRecordEvent(b1, b);
  rc |= aclrtSynchronizeStream(a);
  rc |= aclrtSynchronizeStream(b);
  SurfaceTiling t;
  t.set_totalLength(4096);
  t.set_tileNum(8);
  const uint32_t split[3] = {1, 2, 3};
  t.set_split(split);
  unsigned char tb[64];
  SurfaceTilingKernel k{};
  bool saved = t.SaveToBuffer(tb, sizeof tb);
  std::memcpy(&k, tb, sizeof k);
  bool tiling_ok = saved && t.GetDataSize() == sizeof k && k.totalLength == 4096 && k.tileNum == 8 &&
                   k.split[2] == 3 && !t.SaveToBuffer(tb, 4) && ge::Shape({2, 3, 4}).GetShapeSize() == 24;
  float waited_ms = -1;
  rc |= aclrtEventElapsedTime(&waited_ms, b0, b1);
  std::printf("{\"name\":\"host\",\"aiv\":%u,\"aic\":%u,\"core_num\":%u,\"ub\":%llu,\"ub_after_reserve\":%llu,\"soc_910b\":%s,"
              "\"memcpy_ok\":%d,\"memcpy_too_big\":%d,\"memset_ok\":%d,\"memset_too_big\":%d,\"acl_rc\":%d,"
              "\"bad_flag\":%d,\"waited_ms\":%.9g,\"tiling_ok\":%s}\n",
              p->GetCoreNumAiv(), p->GetCoreNumAic(), p->GetCoreNum(), static_cast<unsigned long long>(ub),
              static_cast<unsigned long long>(ub_reserved), p->GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B ? "true" : "false", cpy_ok, cpy_big,
              set_ok, set_big, rc, bad_flag, double(waited_ms), tiling_ok ? "true" : "false");
  aclrtDestroyEvent(ea);
  aclrtDestroyEvent(b0);
  aclrtDestroyEvent(b1);
  aclrtDestroyStream(a);
  aclrtDestroyStream(b);
}

int main(int argc, char** argv) {
  constexpr size_t kBytes = 1 << 20;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  for (size_t i = 0; i < kBytes / 4; i++) reinterpret_cast<float*>(x)[i] = xval(uint32_t(i));
  const char* only = argc > 1 ? argv[1] : nullptr;
  if (only && std::strcmp(only, "host") == 0) {
    host_checks(x, y);
    only = "none";
  }
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    std::memset(y, 0, kBytes);
    std::memset(ws, 0, kBytes);
    if (std::strncmp(c.name, "list_", 5) == 0) fill_list(ws, x);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, c.block_dim, x, y, ws);
    const char* ok = c.check ? (c.check(reinterpret_cast<const float*>(y)) ? "true" : "false") : "null";
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, ok, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(ws);
  return 0;
}
