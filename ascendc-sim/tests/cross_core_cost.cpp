// Kernels for the cost of waiting at cross-core synchronisation (tests/cross_core_cost.rs):
// one core does a long vector loop before a SyncAll / IBSet / NotifyNextBlock /
// GroupBarrier::Arrive, the others wait there and then do a short copy. The modelled
// time must include the wait: no core that waits may end before the slow one has
// reached the synchronisation point. Every kernel is correct (run clean); the copies are
// checked against the host reference.
//
// Usage: cross_core_cost          every case, one JSON line each:
//        {"name":...,"values_ok":true|false|null,"result":<LaunchResult JSON>}
//        cross_core_cost <name>   that case only
#include <cstdio>
#include <cstring>
#include <vector>

#include "ascendc_sim/capi.h"
#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kTile = 1024;   // floats each core copies
constexpr uint32_t kLoop = 2000;   // vector instructions of the long loop
constexpr uint32_t kLong = 4096;   // floats each of them works on

// The long loop: kLoop Adds of kLong floats in UB, no DMA.
__aicore__ inline void long_loop(TBuf<TPosition::VECCALC>& buf) {
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 1.0f, kLong);
  for (uint32_t i = 0; i < kLoop; i++) Adds(a, a, 1.0f, kLong);
  PipeBarrier<PIPE_V>();
}

// y[core kTile, +kTile) = x[core kTile, +kTile).
__aicore__ inline void short_copy(TBuf<TPosition::VECCALC>& buf, GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> xg, yg;
  int64_t me = GetBlockIdx();
  xg.SetGlobalBuffer((__gm__ float*)x + me * kTile);
  yg.SetGlobalBuffer((__gm__ float*)y + me * kTile);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, xg, kTile);
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(yg, t, kTile);
}

enum class Sync { None, Hard, Soft };
enum class Copy { None, All, Others };

// Core 0 runs the long loop (before the barrier when kPre, after it when !kPre, not at all
// when !kLoopOn); `kSync` the barrier; `kCopy` which cores copy after it.
template <bool kLoopOn, bool kPre, Sync kSync, Copy kCopy>
__aicore__ void shape(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> big, tile, sync;
  pipe.InitBuffer(big, kLong * sizeof(float));
  pipe.InitBuffer(tile, kTile * sizeof(float));
  pipe.InitBuffer(sync, 8 * 32);
  int64_t me = GetBlockIdx();
  if (kLoopOn && kPre && me == 0) long_loop(big);
  if (kSync == Sync::Hard) SyncAll();
  if (kSync == Sync::Soft) {
    GlobalTensor<int32_t> flags;
    flags.SetGlobalBuffer((__gm__ int32_t*)ws);
    SyncAll(flags, sync.Get<int32_t>());
  }
  if (kLoopOn && !kPre && me == 0) long_loop(big);
  if (kCopy == Copy::All || (kCopy == Copy::Others && me != 0)) short_copy(tile, x, y);
}

// SyncAll over the first 4 of 8 cores (software form, usedCores = 4): core 0 loops first,
// cores 1..3 copy after the barrier; cores 4..7 take no part and copy at once.
__aicore__ void soft_used4(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> big, tile, sync;
  pipe.InitBuffer(big, kLong * sizeof(float));
  pipe.InitBuffer(tile, kTile * sizeof(float));
  pipe.InitBuffer(sync, 8 * 32);
  int64_t me = GetBlockIdx();
  if (me == 0) long_loop(big);
  if (me < 4) {
    GlobalTensor<int32_t> flags;
    flags.SetGlobalBuffer((__gm__ int32_t*)ws);
    SyncAll(flags, sync.Get<int32_t>(), 4);
  }
  if (me != 0) short_copy(tile, x, y);
}

// IBSet / IBWait on 2 cores: core 0 loops, then raises (0, 0); core 1 (when kWait) waits for
// it and copies.
template <bool kWait>
__aicore__ void ib(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> big, tile, sync;
  pipe.InitBuffer(big, kLong * sizeof(float));
  pipe.InitBuffer(tile, kTile * sizeof(float));
  pipe.InitBuffer(sync, 32);
  GlobalTensor<int32_t> flags;
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  LocalTensor<int32_t> s = sync.Get<int32_t>();
  if (GetBlockIdx() == 0) {
    long_loop(big);
    IBSet(flags, s, 0, 0);
  } else if (kWait) {
    IBWait(flags, s, 0, 0);
    short_copy(tile, x, y);
  }
}

// WaitPreBlock / NotifyNextBlock on 3 cores: block 0 loops inside its turn; blocks 1 and 2
// (when kChain) copy inside theirs, so they wait for it.
template <bool kChain>
__aicore__ void pre_block(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> big, tile, sync;
  pipe.InitBuffer(big, kLong * sizeof(float));
  pipe.InitBuffer(tile, kTile * sizeof(float));
  pipe.InitBuffer(sync, 8 * 32);
  GlobalTensor<int32_t> flags;
  flags.SetGlobalBuffer((__gm__ int32_t*)ws);
  LocalTensor<int32_t> s = sync.Get<int32_t>();
  if (!kChain) {
    if (GetBlockIdx() == 0) long_loop(big);
    return;
  }
  InitDetermineComputeWorkspace(flags, s);
  WaitPreBlock(flags, s);
  if (GetBlockIdx() == 0) long_loop(big);
  else short_copy(tile, x, y);
  NotifyNextBlock(flags, s);
}

// GroupBarrier on 4 cores: cores 0 and 1 arrive (core 0 after the loop), cores 2 and 3 wait
// and copy.
__aicore__ void group_wait(GM_ADDR x, GM_ADDR y, GM_ADDR ws) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> big, tile;
  pipe.InitBuffer(big, kLong * sizeof(float));
  pipe.InitBuffer(tile, kTile * sizeof(float));
  GroupBarrier<PipeMode::MTE3_MODE> bar(ws, 2, 2);
  int64_t me = GetBlockIdx();
  if (me < 2) {
    if (me == 0) long_loop(big);
    bar.Arrive(uint32_t(me));
    return;
  }
  bar.Wait(uint32_t(me - 2));
  short_copy(tile, x, y);
}

// ---------------------------------------------------------------- the cases
struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
  uint32_t block_dim;
  // Which cores' tiles are copied (bit per core); 0: nothing checked.
  uint32_t copied;
};

constexpr uint32_t kAll8 = 0xFF, kOthers8 = 0xFE;

const Case kCases[] = {
    // 8 cores: core 0's loop alone; the copies alone; both around a SyncAll.
    {"loop_only", shape<true, true, Sync::None, Copy::None>, 8, 0},
    {"copy_all", shape<false, true, Sync::None, Copy::All>, 8, kAll8},
    {"copy_others", shape<false, true, Sync::None, Copy::Others>, 8, kOthers8},
    {"no_loop_sync_copy", shape<false, true, Sync::Hard, Copy::All>, 8, kAll8},
    {"loop_sync_copy", shape<true, true, Sync::Hard, Copy::All>, 8, kAll8},
    {"sync_loop_copy", shape<true, false, Sync::Hard, Copy::All>, 8, kAll8},
    {"loop_sync_copy_others", shape<true, true, Sync::Hard, Copy::Others>, 8, kOthers8},
    {"loop_copy_others_no_sync", shape<true, true, Sync::None, Copy::Others>, 8, kOthers8},
    {"loop_soft_sync_copy", shape<true, true, Sync::Soft, Copy::All>, 8, kAll8},
    {"soft_used4", soft_used4, 8, kOthers8},
    // 2 cores: core 0 loops and raises a flag; core 1 does nothing, or waits for it and copies.
    {"ib_loop_only", ib<false>, 2, 0},
    {"ib_wait_copy", ib<true>, 2, 0x2},
    // 3 cores in block order.
    {"pre_loop_only", pre_block<false>, 3, 0},
    {"pre_chain_copy", pre_block<true>, 3, 0x6},
    // 4 cores, 2 arrive, 2 wait.
    {"group_wait_copy", group_wait, 4, 0xC},
};

}  // namespace

int main(int argc, char** argv) {
  constexpr size_t kBytes = 8 * kTile * sizeof(float);
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(kBytes));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  const char* only = argc > 1 ? argv[1] : nullptr;
  for (const Case& c : kCases) {
    if (only && std::strcmp(only, c.name) != 0) continue;
    auto* xf = reinterpret_cast<float*>(x);
    for (uint32_t i = 0; i < 8 * kTile; i++) xf[i] = float(i % 977) * 0.5f + 1.0f;
    std::memset(y, 0, kBytes);
    std::memset(ws, 0, 4096);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, c.block_dim, x, y, ws);
    const char* ok = "null";
    if (c.copied) {
      bool good = true;
      const auto* yf = reinterpret_cast<const float*>(y);
      for (uint32_t core = 0; core < 8; core++) {
        for (uint32_t i = 0; i < kTile; i++) {
          float want = (c.copied >> core) & 1 ? xf[core * kTile + i] : 0.0f;
          if (yf[core * kTile + i] != want) good = false;
        }
      }
      ok = good ? "true" : "false";
    }
    std::printf("{\"name\":\"%s\",\"values_ok\":%s,\"result\":%s}\n", c.name, ok, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(ws);
  return 0;
}
