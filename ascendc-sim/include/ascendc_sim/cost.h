// ascendc_sim/cost.h — the boundary between simulated kernel code and the cost model.
//
// Every Ascend C API the simulator implements reports what it did to the recorder of
// the core that runs it, in program order (the order the core's scalar unit issues
// instructions). The cost model turns those records into per-pipe timelines
// (S, V, MTE2, MTE3), a kernel time and a LaunchReport. It never sees data, only
// what the hardware would spend time on.
//
// Ownership: the kernel-side API (tensor.h, data_copy.h, vec_*.h, pipe.h) calls these
// hooks; src/cost/ implements them. Parameters (clocks, bandwidths, latencies, vector
// throughput per instruction class and dtype) live in the per-SoC profile files under
// ascendc-sim/profiles/, never in code.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ascendc_sim {

/// The four pipes of an AIV core (api-reference §2.6: AIV has only S, V, MTE2, MTE3).
enum class Pipe : uint8_t { S = 0, V = 1, MTE2 = 2, MTE3 = 3 };
inline constexpr int kPipeCount = 4;

/// Element types the vector unit and the DMA know about.
enum class DType : uint8_t { U8, I8, U16, I16, F16, BF16, U32, I32, F32, U64, I64, F64 };

/// Size of one element of `d` in bytes.
constexpr uint32_t dtype_bytes(DType d) {
  switch (d) {
    case DType::U8: case DType::I8: return 1;
    case DType::U16: case DType::I16: case DType::F16: case DType::BF16: return 2;
    case DType::U32: case DType::I32: case DType::F32: return 4;
    default: return 8;
  }
}

/// Vector instruction classes with distinct throughput on 910B (api-reference §4.2,
/// "Vector指令理论性能汇总"). The profile gives elements/cycle per class and dtype.
enum class VecClass : uint8_t {
  Simple,       // Add Sub Mul Max Min Adds Muls Maxs Mins Abs Relu LeakyRelu Not And Or
                // Reciprocal Rsqrt AddRelu SubRelu Axpy FusedMulAdd ShiftLeft/Right
  Transcend,    // Exp Ln Sqrt
  Div,          // Div
  MulAddDst,    // MulAddDst
  Cast,         // Cast (throughput by the wider of the two types)
  Duplicate,    // Duplicate, CreateVecIndex
  Brcb,         // Brcb
  Compare,      // Compare, CompareScalar / Compares
  Select,       // Select
  WholeReduce,  // WholeReduceSum/Max/Min, ReduceRepeat, RepeatReduceSum
  BlockReduce,  // BlockReduceSum/Max/Min, ReduceDataBlock
  PairReduce,   // PairReduceSum, ReducePairElem
  GatherMask,   // GatherMask
  Gather,       // Gather
  Copy,         // UB->UB DataCopy on PIPE_V
  Sort,         // Sort32, MrgSort: one "repeat" = 32 (score, index) structures
  Count_        // number of classes; not a class
};

/// Memory a scalar GetValue/SetValue touches.
enum class ScalarTarget : uint8_t { GM, UB };

/// A cross-pipe synchronisation token. Queue hand-offs use one token per
/// (queue buffer, event); user SetFlag/WaitFlag use (src pipe, dst pipe, event id).
struct SyncKey {
  uint64_t value;
  friend bool operator==(SyncKey a, SyncKey b) { return a.value == b.value; }
};

/// Key for a user flag `SetFlag<HardEvent::SRC_DST>(id)` / `WaitFlag`.
constexpr SyncKey flag_key(Pipe src, Pipe dst, int32_t event_id) {
  return SyncKey{(1ull << 63) | (uint64_t(src) << 16) | (uint64_t(dst) << 8) |
                 uint64_t(uint8_t(event_id))};
}

/// Key for a queue buffer's hand-off event. `queue_id` is unique per TQue object
/// within a core, `slot` the buffer index inside it, `event` 0 = EnQue->DeQue,
/// 1 = FreeTensor->AllocTensor.
constexpr SyncKey queue_key(uint32_t queue_id, uint32_t slot, uint32_t event) {
  return SyncKey{(uint64_t(queue_id) << 24) | (uint64_t(slot) << 4) | uint64_t(event)};
}

namespace cost {

struct Profile;      // parsed per-SoC profile (src/cost/profile.*)
struct LaunchReport; // result of one launch (report.h)

/// Records what one simulated core does, in issue order. Not thread-safe: one core,
/// one thread at a time. Created by LaunchCost::core().
class CoreRecorder {
 public:
  /// A vector instruction on PIPE_V. `repeats`: repeat count actually executed (for
  /// count-form calls: ceil(count / lanes per repeat)); `count_form`: the call set
  /// up the mask itself (SetMaskCount/SetVectorMask/ResetMask), which costs extra
  /// scalar issue. `dtype`: the type that decides lanes per repeat (for Cast the
  /// wider of source and destination).
  void vector(VecClass cls, DType dtype, uint32_t repeats, bool count_form);
  /// The same, with each repeat taking at least `bank_cycles_per_repeat` cycles: the UB
  /// bank-group accesses of one repeat (vec::bank_cycles) when its blocks share a bank group.
  void vector(VecClass cls, DType dtype, uint32_t repeats, bool count_form, double bank_cycles_per_repeat);

  /// A DMA transfer on MTE2 (GM->UB) or MTE3 (UB->GM): `block_count` bursts of
  /// `block_bytes` bytes each (bytes actually moved to or from GM), starting at GM
  /// byte address `gm_addr`, consecutive bursts `gm_stride_bytes` apart (start to start).
  /// Only `gm_addr` modulo the profile's burst size (at most 512 B) matters; the host
  /// allocators (aclrtMalloc, GmAlloc) align every allocation to 512 B, as the NPU's
  /// do, so the model does not depend on where the host put a buffer.
  void dma(Pipe pipe, uint64_t gm_addr, uint32_t block_count, uint64_t block_bytes,
           uint64_t gm_stride_bytes);

  /// Scalar work on PIPE_S: `instrs` plain scalar instructions (API call overheads,
  /// address arithmetic the API implies).
  void scalar(uint32_t instrs);

  /// One scalar GetValue/SetValue on GM or UB. Implies the synchronisation the
  /// compiler's auto-sync inserts: a UB access waits until PIPE_V and every pipe in
  /// `wait_pipes` (bits 1 << Pipe, from hz_scalar: pipes whose write or read of the
  /// same bytes is not yet known complete, e.g. MTE2 for data copied into a TBuf with
  /// no flag) have finished everything issued so far; a GM access goes through the
  /// data cache.
  void scalar_access(ScalarTarget target, bool write, uint8_t wait_pipes = 0);

  /// `pipe` sets the flag `key` once all its earlier instructions are done.
  void signal(Pipe pipe, SyncKey key);
  /// `pipe` waits for the last `signal` of `key`; later instructions on `pipe` start
  /// after it.
  void wait(Pipe pipe, SyncKey key);
  /// PipeBarrier<pipe>: later instructions on `pipe` start after all earlier ones on
  /// `pipe` complete. `all = true` is PIPE_ALL: every pipe waits for every pipe.
  void barrier(Pipe pipe, bool all);

  /// Cross-core synchronisation (src/cross_core.cpp records these; the replay in
  /// src/cost/engine.cpp joins the blocks on them). `chan` names a channel of the launch
  /// (a SyncAll round, an IBSet flag, a NotifyNextBlock of one block, an arrive index of
  /// a GroupBarrier), the same number on every block that takes part.
  /// This block raises `chan` when its scalar unit reaches this point (the caller has
  /// drained the pipes with PIPE_ALL and written its flag before).
  void xsignal(uint64_t chan);
  /// The scalar unit stops here until `chan` has been raised `need` times (by any block
  /// of the launch) and resumes no earlier than the need-th earliest raise. `need` = 0
  /// does not wait.
  void xwait(uint64_t chan, uint32_t need);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  CoreRecorder();
  ~CoreRecorder();
  CoreRecorder(CoreRecorder&&) noexcept;
  CoreRecorder& operator=(CoreRecorder&&) noexcept;
};

/// Cost accounting for one kernel launch of `block_dim` cores on the active profile.
class LaunchCost {
 public:
  LaunchCost(const Profile& profile, uint32_t block_dim);
  ~LaunchCost();
  /// The recorder of core `block_idx` (0 <= block_idx < block_dim).
  CoreRecorder& core(uint32_t block_idx);
  /// Computes the kernel's modelled time once every core has finished. Deterministic:
  /// the same records give the same report whatever the host thread count or order.
  LaunchReport finish(const std::string& kernel_name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The active profile: `AGENTICCANN_SIM_PROFILE` (path to a TOML file) if set, else
/// the shipped profile named by `AGENTICCANN_SOC` (default Ascend910B1).
const Profile& active_profile();

}  // namespace cost
}  // namespace ascendc_sim
