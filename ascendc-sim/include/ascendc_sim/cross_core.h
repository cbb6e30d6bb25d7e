// ascendc_sim/cross_core.h — synchronisation between the cores of one launch: SyncAll,
// IBSet/IBWait, InitDetermineComputeWorkspace/WaitPreBlock/NotifyNextBlock.
//
// Facts (CANN Ascend C API reference, "SyncAll", "IBSet", "IBWait"; api-reference §2.6):
// - SyncAll(): every AIV core of the launch waits until all have arrived (hardware form);
//   SyncAll(gmWorkspace, ubWorkspace, usedCores = 0): the software form over an int32 GM
//   workspace of at least cores x 32 bytes (zero-initialized by the host or by every core)
//   and a UB workspace of at least cores x 32 bytes; usedCores = 0 means every core.
// - IBSet(gm, ub, blockIdx, eventID) raises the flag of (blockIdx, eventID): blockIdx is
//   the producer's (the core that calls IBSet) logical index; IBWait(gm, ub, blockIdx,
//   eventID) waits for it. GM workspace >= (blockNum x eventID_max + blockIdx_max + 1) x
//   32 bytes, UB workspace >= 32 bytes.
// - All of them assume every block of the launch is resident at once: blockDim must not
//   exceed the AIV core count, or the NPU hangs.
//
// On the simulator a launch of a program that uses any of these runs every block on its
// own host thread (blockDim <= the profile's aiv_cores); a cross-core call with a larger
// blockDim is `cross_core_block_dim_exceeded`. A wait no core can ever satisfy (all
// unfinished cores are waiting, none can proceed) is `cross_core_deadlock` on every
// waiting core, with every core's position — never a hang. The k-th IBWait of a core on
// (blockIdx, eventID) waits for the k-th IBSet of it. WaitPreBlock/NotifyNextBlock
// serialise the blocks in index order per round: block i's k-th WaitPreBlock waits for
// block i-1's k-th NotifyNextBlock (block 0's, from round 2 on, for block n-1's).
// The synchronisation orders GM: writes of different cores to the same bytes with a
// SyncAll or a flag between are no race; DMA atomics (SetAtomicAdd ...) of the cores are
// combined at every SyncAll, so reads after it see the sums.
//
// Cost: the PIPE_ALL barrier around each call plus the flag traffic as 32-byte DMA (write
// the own flag, read the flags), priced like DataCopy, and the wait. The calls record
// cross-core points (CoreRecorder::xsignal / xwait) that the replay (src/cost/engine.cpp)
// joins in global time: a core raises its channel once its pipes are drained and its
// flag is written, and a waiting core's scalar unit stops before the flag read until what
// it waits for has been raised, resuming at the latest of those times:
// - SyncAll (both forms; the software form over the first usedCores blocks, 0 = all):
//   every participant of a round resumes at the latest participant's arrival;
// - IBWait: the k-th IBWait on (blockIdx, eventID) resumes no earlier than the k-th
//   IBSet of it (if several cores raise the same flag: the k-th earliest of the
//   raises the replay has reached when the waiter gets there, an approximation);
// - WaitPreBlock: no earlier than the previous block's matching NotifyNextBlock;
// - GroupBarrier::Wait: no earlier than the k-th Arrive of every arrive index.
// So work one core does before a barrier delays every core that waits there: splitting
// work around a barrier is not modelled as an overlap it is not. The functional side
// reports a wait no core can satisfy as cross_core_deadlock first; a replay that still
// cannot satisfy one fails with the cost model's "replay stalled" error, never a hang.
//
// GroupBarrier<PipeMode::MTE3_MODE>(groupWorkspace, arriveSize, waitSize) (vendor pages
// "GroupBarrier构造函数", "Arrive", "Wait", "GetWorkspaceLen"; Atlas A2 only): the cores of the
// wait group (Wait(waitIndex), waitIndex < waitSize) block until every core of the arrive
// group (Arrive(arriveIndex), arriveIndex < arriveSize) has arrived; in a loop the k-th Wait
// waits for the k-th Arrive of each index (at most 1048575 rounds). The GM workspace must be
// 512-byte aligned and zeroed by the user; GetWorkspaceLen() is taken as max(arriveSize,
// waitSize) x 512 bytes (the page's example: 3 arrivers, 6 waiters, 6 x 512 bytes; which of
// the two sizes counts is UNCERTAIN, the larger is the safe reading). Only MTE3_MODE is
// documented as supported. Not modelled: the 1600 bytes at the end of UB the page says the
// barrier occupies.
#pragma once

#include <cstdint>

#include "ascendc_sim/core.h"
#include "ascendc_sim/tensor.h"

namespace ascendc_sim {

/// Marks the program as using cross-core synchronisation (launches run every block live).
bool register_cross_core();
/// Instantiated by every cross-core API: its initialisation at program start registers.
template <int N>
struct CrossCoreUse {
  static inline const bool on = register_cross_core();
};

enum class XcOp : uint8_t { SyncAll, IBSet, IBWait, WaitPre, NotifyNext, InitDetermine, GroupWait };
/// The cross-core operation `op` on the current core (src/cross_core.cpp). `gm` / `ub`: the
/// workspaces (nullptr / buf -1 for the hardware SyncAll); `a`, `b`: usedCores, or
/// blockIdx and eventID.
void cross_core_op(XcOp op, const void* gm, const UbRef* ub, uint32_t ub_bytes, int32_t a, int32_t b,
                   const char* api, const SrcLoc& loc);
/// GroupBarrier::Arrive (`arrive`) or ::Wait of index `index` on the barrier whose GM
/// workspace is `gm`.
void cross_core_group(bool arrive, const void* gm, uint32_t index, uint32_t arrive_size, uint32_t wait_size,
                      const char* api, const SrcLoc& loc);

}  // namespace ascendc_sim

namespace AscendC {

template <bool isAIVOnly = true>
inline void SyncAll(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  static_assert(isAIVOnly, "SyncAll<false> synchronises cube and vector cores; the simulator runs AIV-only kernels");
  if (ascendc_sim::CrossCoreUse<0>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::SyncAll, nullptr, nullptr, 0, 0, 0, "SyncAll", loc);
}
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  static_assert(isAIVOnly, "the software SyncAll supports AIV-only kernels (isAIVOnly = true)");
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<0>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::SyncAll, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), usedCores,
                               0, "SyncAll", loc);
}
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<0>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::IBSet, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), blockIdx,
                               eventID, "IBSet", loc);
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<0>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::IBWait, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), blockIdx,
                               eventID, "IBWait", loc);
}
/// Prepares the GM workspace of WaitPreBlock/NotifyNextBlock (bounds-checked; the
/// simulator keeps the order state itself).
template <int N = 0>
inline void InitDetermineComputeWorkspace(const GlobalTensor<int32_t>& gmWorkspace,
                                          const LocalTensor<int32_t>& ubWorkspace,
                                          ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<N>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::InitDetermine, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), 0, 0,
                               "InitDetermineComputeWorkspace", loc);
}
template <int N = 0>
inline void WaitPreBlock(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                         ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<N>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::WaitPre, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), 0, 0,
                               "WaitPreBlock", loc);
}
template <int N = 0>
inline void NotifyNextBlock(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                            ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  ascendc_sim::UbRef r = ubWorkspace.ref();
  if (ascendc_sim::CrossCoreUse<N>::on)
    ascendc_sim::cross_core_op(ascendc_sim::XcOp::NotifyNext, gmWorkspace.addr_, &r, ubWorkspace.GetLength(), 0, 0,
                               "NotifyNextBlock", loc);
}

enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

template <PipeMode pipeMode>
class GroupBarrier {
  static_assert(pipeMode == PipeMode::MTE3_MODE, "GroupBarrier: only PipeMode::MTE3_MODE is supported");

 public:
  GroupBarrier(GM_ADDR groupWorkspace, uint32_t arriveSizeIn, uint32_t waitSizeIn)
      : ws_(groupWorkspace), arrive_(arriveSizeIn), wait_(waitSizeIn) {}
  /// This core (arrive group member `arriveIndex`) has finished what the waiters depend on.
  void Arrive(uint32_t arriveIndex, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    if (ascendc_sim::CrossCoreUse<0>::on)
      ascendc_sim::cross_core_group(true, ws_, arriveIndex, arrive_, wait_, "GroupBarrier::Arrive", loc);
  }
  /// Blocks until every member of the arrive group has arrived (once more).
  void Wait(uint32_t waitIndex, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    if (ascendc_sim::CrossCoreUse<0>::on)
      ascendc_sim::cross_core_group(false, ws_, waitIndex, arrive_, wait_, "GroupBarrier::Wait", loc);
  }
  /// GM bytes the barrier's messages take.
  uint64_t GetWorkspaceLen() const { return uint64_t(arrive_ > wait_ ? arrive_ : wait_) * 512; }

 private:
  GM_ADDR ws_;
  uint32_t arrive_, wait_;
};

}  // namespace AscendC
