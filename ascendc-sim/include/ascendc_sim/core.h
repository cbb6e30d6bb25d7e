// ascendc_sim/core.h — the state of one simulated AIV core and how APIs report errors.
//
// run_kernel (launch.h) gives every simulated core a CoreContext and makes it current
// on the host thread that runs the core (`thread_local`). The context owns the core's
// Unified Buffer (profile ub_bytes, 192 KiB on 910B) with one shadow byte per UB byte
// ("initialized"), the TPipe/TQue/TBuf bookkeeping, the mask registers, the flag state,
// the hazard tracker, the cost recorder and the diagnostics found so far.
//
// APIs report a broken rule with fail() (records an error Diagnostic, throws
// KernelAbort; run_kernel catches it) or warn() (records a warning, goes on).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ascendc_sim/cost.h"
#include "ascendc_sim/diag.h"

namespace ascendc_sim {

struct CrossCore;  // src/cross_core.cpp

using SrcLoc = std::source_location;

/// Named numbers attached to a diagnostic, e.g. {{"bytes", 40}, {"capacity", 196608}}.
using Numbers = std::initializer_list<std::pair<const char*, double>>;

/// The UB byte pattern of never-written memory: 0xFF is a NaN for f16, bf16 and f32.
inline constexpr uint8_t kUbPoison = 0xFF;
/// Shadow byte values.
inline constexpr uint8_t kInit = 0xFF, kUninit = 0x00;

/// Buffer states of the queue state machine (api-reference §2.5). TBUF = a TBuf region.
enum class BufState : uint8_t { Free, Occupied, Enque, Deque, TBuf, Dead };

/// One buffer carved from UB by TPipe::InitBuffer.
struct BufRec {
  uint32_t start = 0;  // byte offset in UB
  uint32_t len = 0;    // bytes (multiple of 32)
  uint32_t gen = 0;    // bumped by FreeTensor and pipe Reset/Destroy: stale tensors differ
  BufState state = BufState::Free;
  int32_t queue = -1;  // owning queue id
  uint32_t slot = 0;   // index inside the queue
  uint8_t position = 0;  // TPosition of the tensors it hands out
  SrcLoc alloc_loc;      // last AllocTensor
  bool is_static = false;  // a fixed-address region (LocalTensor(pos, addr, len), LocalMemAllocator)
  int32_t pool = -1;       // TBufPool the buffer was carved from (CoreContext::pools), -1 = the pipe
};

/// A TQue/TQueBind/TBuf after InitBuffer.
struct QueueRec {
  int32_t pipe = -1;
  uint8_t src_pos = 0, dst_pos = 0;
  int32_t depth = 0;
  bool is_tbuf = false;
  Pipe producer = Pipe::V, consumer = Pipe::V;
  std::vector<uint32_t> bufs;  // indices into CoreContext::bufs
  std::deque<uint32_t> fifo;   // slots enqueued, oldest first
  uint32_t next = 0;           // next slot AllocTensor tries
  SrcLoc init_loc;
  bool live = true;
  int32_t pool = -1;  // TBufPool the queue's buffers come from, -1 = the pipe
};

/// A TBufPool after InitBufPool: UB bytes [start, start + len) of its pipe. A shared pool
/// (InitBufPool(pool, len, shareBuf)) starts where its share does. Buffers and sub-pools
/// are carved from `cur` on; `ids` buffer ids (bufIDSize) may be handed out.
struct PoolRec {
  int32_t pipe = -1;
  int32_t parent = -1;  // enclosing pool, -1 = carved from the pipe
  uint32_t start = 0, len = 0, cur = 0;
  uint32_t ids = 0, ids_used = 0;
  bool reset = false;  // Reset and not used since: its buffers are not in flight
  bool live = true;
  SrcLoc loc;
};

struct PipeRec {
  uint32_t cur = 0;      // next free UB byte
  uint32_t buffers = 0;  // buffers handed out (limit 64)
  bool live = true;
  SrcLoc loc;
};

/// Per-32-byte-block record of the last accesses, for cross-pipe hazards (FC-23). Host
/// memory is bounded by the UB size and the GM ranges pending, not by the instructions
/// issued: each recorded access keeps its own call site (a per-instruction list grew by 8
/// bytes per instruction without end under a kernel loop that never ends, until the run's
/// address-space limit turned into std::bad_alloc before the wall-clock timeout).
struct Hazards {
  static constexpr int kP = kPipeCount;
  uint32_t counter[kP] = {0, 0, 0, 0};  // instructions issued per pipe
  uint32_t vc[kP][kP] = {};             // vc[p][q]: p knows q's instructions <= this are done
  std::vector<uint8_t> writer;          // pipe of the last write, 0xFF = none/ordered
  std::vector<uint32_t> wstamp;         // its counter value
  std::vector<uint32_t> rstamp[kP];     // last read per pipe (0 = none)
  std::vector<SrcLoc> wloc;             // call site of the last write (valid with writer)
  std::vector<SrcLoc> rloc[kP];         // call site of the last read per pipe (valid with rstamp)
  std::unordered_map<uint64_t, std::vector<uint32_t>> tokens;  // SyncKey -> clock
  /// GM bytes written by this core's MTE3 copies whose completion some reader may not
  /// know yet: start address -> {end, MTE3 stamp}. Disjoint ranges; a later write over
  /// a range replaces it. A range every GM reader (MTE2, S) knows of is dropped.
  struct GmSpan {
    uintptr_t hi;
    uint32_t stamp;
    SrcLoc loc;  // the copy's call site
  };
  std::map<uintptr_t, GmSpan> gm_pending;
};

struct CoreContext {
  uint64_t serial = 0;        // unique per core run; objects created on another run are stale
  void* current_tpipe = nullptr;  // GetTPipePtr()
  int32_t block_idx = 0;
  uint32_t block_num = 1;
  uint8_t* ub = nullptr;      // ub_bytes, 64-byte aligned
  uint8_t* shadow = nullptr;  // one byte per UB byte: kInit / kUninit
  uint32_t ub_bytes = 0;
  uint32_t ub_high = 0;       // highest UB byte any buffer reached (bytes above it were never touched)
  cost::CoreRecorder* rec = nullptr;
  uint64_t tiling_key = 0;

  std::vector<Diagnostic> diags;
  bool aborting = false;

  // Vector mask registers (api-reference §4.1).
  bool counter_mode = false;
  uint64_t mask[2] = {~0ull, ~0ull};
  uint64_t cmpmask[2] = {0, 0};  // CMPMASK register (Compare without dst; Select mode 0)
  uint64_t cmpmask_init[2] = {0, 0};  // its shadow: bit i set = bit i derives from initialized data
  // DataCopyPad's pad-value register (SetPadValue; DataCopyPad with isPad writes it too).
  bool pad_reg_set = false;
  uint8_t pad_reg[8] = {};
  double acc_val = 0;            // GetAccVal
  double reduce_max_min[2] = {0, 0};

  std::vector<BufRec> bufs;
  std::vector<QueueRec> queues;
  std::vector<PipeRec> pipes;
  std::vector<PoolRec> pools;
  uint32_t live_per_position[32] = {};
  // Fixed-address regions (LocalTensor(pos, addr, len), LocalMemAllocator): their queue
  // record and (addr << 32 | bytes) -> BufRec index.
  int32_t static_queue = -1;
  std::unordered_map<uint64_t, uint32_t> static_bufs;
  bool mem_allocator_live = false;  // a LocalMemAllocator<Hardware::UB> exists on the core

  // User flags: SyncKey value -> number of SetFlag not yet waited (+ where set).
  std::unordered_map<uint64_t, std::deque<SrcLoc>> flags;
  uint8_t event_ids_used[64] = {};  // per HardEvent: bit i = id i taken by AllocEventID
  // Keys signalled at least once (so a wait on a never-signalled key is not recorded).
  std::unordered_map<uint64_t, bool> signalled;

  Hazards hz;

  /// GM byte ranges this core wrote (DMA UB->GM, scalar SetValue), adjacent ranges from the
  /// same call site merged; checked across cores after the launch ("gm_write_race").
  struct GmWrite {
    uintptr_t lo, hi;
    SrcLoc loc;
    const char* api;
    std::vector<uint8_t> data;  // the bytes written (when has_data)
    bool has_data;
    uint32_t epoch;  // the core's cross-core epoch at the write (cross_core.h)
    std::shared_ptr<const std::vector<uint32_t>> vc;  // what the core knew of the others then
  };
  std::vector<GmWrite> gm_writes;
  uint64_t gm_data_bytes = 0;  // bytes kept in gm_writes[].data

  /// GM byte ranges this core read (MTE2 copy-in, scalar GetValue), with the cross-core
  /// epoch and knowledge at the read; checked after the launch against the other cores'
  /// writes ("gm_read_race": a read of bytes another core writes with no SyncAll, IBSet/
  /// IBWait or NotifyNextBlock/WaitPreBlock between). Adjacent or overlapping reads from
  /// the same call site and epoch are merged, a repeat of a recent one is dropped.
  struct GmRead {
    uintptr_t lo, hi;
    SrcLoc loc;
    const char* api;
    uint32_t epoch;
    std::shared_ptr<const std::vector<uint32_t>> vc;
  };
  std::vector<GmRead> gm_reads;

  /// The core's data cache for scalar GM writes (CANN Ascend C API reference,
  /// "DataCacheCleanAndInvalid"; programming guide "Scalar读写数据": a SetValue changes only
  /// the 64-byte cache line and marks it dirty, GM keeps the old bytes until the line is
  /// cleaned; DMA copies do not go through the cache). `dcache_dirty`: line address -> its
  /// entry in `dcache_log`, which keeps every dirtied line with the epoch it was dirtied in
  /// and the epoch a DataCacheCleanAndInvalid wrote it back in (kNever: never).
  struct DirtyLine {
    uintptr_t line;
    uint32_t dirtied, cleaned;
    uint64_t bytes;  // bit i: byte line + i was written
    SrcLoc loc;
  };
  std::map<uintptr_t, uint32_t> dcache_dirty;
  std::vector<DirtyLine> dcache_log;

  /// Cross-core synchronisation (SyncAll, IBSet/IBWait, WaitPreBlock/NotifyNextBlock;
  /// src/cross_core.cpp): the launch's shared state, this core's epoch (bumped at every
  /// release) and its vector clock (entry k: the last epoch of core k this core has
  /// acquired; writes of core k in epochs <= it happen before this core's later writes).
  struct CrossCore* xc = nullptr;
  uint32_t xc_epoch = 1;
  std::shared_ptr<const std::vector<uint32_t>> xc_vc;
  std::map<uint64_t, uint32_t> xc_waits_done;  // IBWait: (blockIdx, eventID) -> waits done
  /// Bytes of write-before-read (output) allocations this core wrote in this launch:
  /// disjoint [start, end) ranges, adjacent ones merged (gm_note_output_write).
  std::map<uintptr_t, uintptr_t> output_written;

  /// Row layouts DataCopyPad GM->UB produced (B.6 of issue 13): `rows` rows starting at
  /// UB byte `base`, `pitch` bytes apart; in each row bytes [0, data_end) hold the data
  /// (with any requested left/right padding) and [data_end, block) are the 32-byte
  /// round-up lanes that are no element of any row. Keyed by base; an MTE2 copy over a
  /// layout ends it, a vector op reading it from its start carries it to its result.
  struct RowLayout {
    uint32_t rows, pitch, block, data_off, data_end;
    SrcLoc loc;
  };
  std::map<uint32_t, RowLayout> layouts;

  /// DMA atomic mode (SetAtomicAdd/Max/Min ... SetAtomicNone): UB->GM copies combine with
  /// GM instead of overwriting it. The combined writes are applied after every core has
  /// finished, in core order, so the result does not depend on the host thread schedule.
  enum class Atomic : uint8_t { None, Add, Max, Min };
  Atomic atomic = Atomic::None;
  DType atomic_dtype = DType::F32;
  struct AtomicWrite {
    uint8_t* gm;
    std::vector<uint8_t> data;
    Atomic op;
    DType dtype;
  };
  std::vector<AtomicWrite> atomic_writes;
};

/// Records bytes of an output allocation the core wrote (gm.cpp; no-op for other GM).
void gm_note_output_write(CoreContext& c, const void* p, uint64_t bytes);
/// Reports "gm_output_read_before_write" when [p, p + bytes) lies in an output allocation
/// (gm::set_write_before_read) and the current core has not written all of it yet.
void gm_check_output_read(CoreContext& c, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc);
/// The checks of a GM read on `pipe` (MTE2 copy-in, S GetValue): read-after-write on
/// this core (hz_gm_read) and output read before write.
void gm_dma_read(CoreContext& c, Pipe pipe, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc);
inline void gm_scalar_read(CoreContext& c, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  gm_dma_read(c, Pipe::S, p, bytes, api, loc);
}

/// Bytes of GM writes a core keeps for the same-bytes test of gm_write_duplicate; writes
/// beyond it count as different data (gm_write_race when they overlap another core's).
inline constexpr uint64_t kGmWriteDataCap = 8ull << 20;  // per core: at most 384 MiB over 48 cores

/// How many earlier entries of gm_writes drop_repeated_gm_write compares the last one with.
inline constexpr size_t kGmWriteRepeatWindow = 8;

/// The last entry of gm_writes is finished (a new one follows): when it covers the same
/// bytes as one of the kGmWriteRepeatWindow entries before it, from the same call site,
/// epoch and knowledge of the other cores, that earlier entry is dropped (the last one holds
/// the later bytes; the race check does not depend on the order). A loop that writes the
/// same tiles again (or never ends) then keeps one entry per tile, not one per pass.
inline void drop_repeated_gm_write(CoreContext& c) {
  auto& v = c.gm_writes;
  if (v.size() < 2) return;
  const CoreContext::GmWrite& last = v.back();
  const size_t first = v.size() - 1 > kGmWriteRepeatWindow ? v.size() - 1 - kGmWriteRepeatWindow : 0;
  for (size_t i = v.size() - 1; i-- > first;) {
    const CoreContext::GmWrite& e = v[i];
    if (e.lo == last.lo && e.hi == last.hi && e.epoch == last.epoch && e.vc == last.vc &&
        e.loc.line() == last.loc.line() && e.loc.file_name() == last.loc.file_name()) {
      c.gm_data_bytes -= e.data.size();
      v.erase(v.begin() + std::ptrdiff_t(i));
      return;
    }
  }
}

/// Records that the current core wrote GM bytes [p, p + bytes) (already in GM: the bytes
/// are kept for the cross-core same-bytes test), in its current cross-core epoch.
inline void note_gm_write(CoreContext& c, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  gm_note_output_write(c, p, bytes);
  const uint8_t* d = static_cast<const uint8_t*>(p);
  const bool keep = c.gm_data_bytes + bytes <= kGmWriteDataCap;
  if (keep) c.gm_data_bytes += bytes;
  if (!c.gm_writes.empty()) {
    CoreContext::GmWrite& w = c.gm_writes.back();
    if (w.hi == lo && w.epoch == c.xc_epoch && w.loc.line() == loc.line() && w.loc.file_name() == loc.file_name()) {
      w.hi = hi;
      if (keep && w.has_data) {
        w.data.insert(w.data.end(), d, d + bytes);
      } else {
        w.has_data = false;
        w.data.clear();
      }
      return;
    }
  }
  drop_repeated_gm_write(c);
  CoreContext::GmWrite w{lo, hi, loc, api, {}, keep, c.xc_epoch, c.xc_vc};
  if (keep) w.data.assign(d, d + bytes);
  c.gm_writes.push_back(std::move(w));
}

/// Most GM read ranges one core keeps for the cross-core read check; reads beyond them are
/// not checked (a false negative, never a false positive).
inline constexpr size_t kGmReadCap = size_t(1) << 16;

/// Records that the current core read GM bytes [p, p + bytes) in its current epoch.
inline void note_gm_read(CoreContext& c, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  if (bytes == 0) return;
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  auto& v = c.gm_reads;
  const size_t first = v.size() > kGmWriteRepeatWindow ? v.size() - kGmWriteRepeatWindow : 0;
  for (size_t i = v.size(); i-- > first;) {
    CoreContext::GmRead& r = v[i];
    if (r.epoch != c.xc_epoch || r.vc != c.xc_vc || r.loc.line() != loc.line() ||
        r.loc.file_name() != loc.file_name())
      continue;
    if (r.lo <= lo && hi <= r.hi) return;  // a repeat of a recent read
    if (i + 1 == v.size() && lo <= r.hi && r.lo <= hi) {
      r.lo = std::min(r.lo, lo);
      r.hi = std::max(r.hi, hi);
      return;
    }
  }
  if (v.size() >= kGmReadCap) return;
  v.push_back(CoreContext::GmRead{lo, hi, loc, api, c.xc_epoch, c.xc_vc});
}

inline constexpr uint64_t kDcacheLine = 64;
inline constexpr uint32_t kDcacheNever = 0xFFFFFFFFu;
inline constexpr size_t kDcacheLogCap = size_t(1) << 16;

/// Bits of the bytes of [lo, hi) inside the 64-byte line at `line`.
inline uint64_t dcache_mask(uintptr_t line, uintptr_t lo, uintptr_t hi) {
  uintptr_t a = std::max(lo, line), e = std::min(hi, line + kDcacheLine);
  if (a >= e) return 0;
  uint64_t n = e - a;
  return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << (a - line);
}

/// A scalar SetValue of GM bytes [p, p + bytes): their line becomes dirty in this core's cache.
inline void dcache_note_write(CoreContext& c, const void* p, uint64_t bytes, const SrcLoc& loc) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t line = a / kDcacheLine * kDcacheLine; line < a + bytes; line += kDcacheLine) {
    const uint64_t m = dcache_mask(line, a, a + bytes);
    auto it = c.dcache_dirty.find(line);
    if (it != c.dcache_dirty.end()) {
      c.dcache_log[it->second].bytes |= m;
      continue;
    }
    if (c.dcache_log.size() >= kDcacheLogCap) continue;
    c.dcache_dirty.emplace(line, uint32_t(c.dcache_log.size()));
    c.dcache_log.push_back(CoreContext::DirtyLine{line, c.xc_epoch, kDcacheNever, m, loc});
  }
}

/// DataCacheCleanAndInvalid: the line holding `p` (or, `entire`, every line) is written back.
inline void dcache_clean(CoreContext& c, const void* p, bool entire) {
  auto clean = [&](std::map<uintptr_t, uint32_t>::iterator it) {
    c.dcache_log[it->second].cleaned = c.xc_epoch;
    return c.dcache_dirty.erase(it);
  };
  if (entire) {
    for (auto it = c.dcache_dirty.begin(); it != c.dcache_dirty.end();) it = clean(it);
    return;
  }
  auto it = c.dcache_dirty.find(reinterpret_cast<uintptr_t>(p) / kDcacheLine * kDcacheLine);
  if (it != c.dcache_dirty.end()) clean(it);
}

/// The context of the core running on this thread; nullptr outside a kernel.
extern thread_local CoreContext* tl_ctx;

/// The current core. Throws std::logic_error (naming `api`) when called outside a
/// kernel launched by run_kernel.
CoreContext& ctx_for(const char* api);
inline CoreContext& ctx(const char* api) {
  CoreContext* c = tl_ctx;
  return c ? *c : ctx_for(api);
}

/// Records an error diagnostic on the current core and throws KernelAbort.
[[noreturn]] void fail(const char* kind, const char* api, const SrcLoc& loc, std::string message,
                       Numbers numbers = {});
/// Records an error diagnostic without throwing (end-of-kernel checks, destructors).
void record_error(const char* kind, const char* api, const SrcLoc& loc, std::string message,
                  Numbers numbers = {});
/// Records a warning. Repeats of the same kind at the same line on one core are counted
/// in the first one's "occurrences" number instead of being listed again.
void warn(const char* kind, const char* api, const SrcLoc& loc, std::string message,
          Numbers numbers = {});

/// printf-style formatting into a std::string.
std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

// ---- sync plumbing shared by queues, flags and barriers (src/sync.cpp) ----
/// `pipe` signals `key` once its earlier instructions are done (cost + hazard clocks).
void sync_signal(CoreContext& c, Pipe pipe, SyncKey key);
/// `pipe` waits for the last signal of `key` (no-op when never signalled).
void sync_wait(CoreContext& c, Pipe pipe, SyncKey key);
/// PipeBarrier: `all` = PIPE_ALL.
void sync_barrier(CoreContext& c, Pipe pipe, bool all);

/// AllocEventID (`take`) / FetchEventID (`!take`) of HardEvent `evt` (src/hazard.cpp).
int8_t event_alloc(uint8_t evt, bool take, const char* api, const SrcLoc& loc);
/// ReleaseEventID of HardEvent `evt`.
void event_release(uint8_t evt, int32_t id, const char* api, const SrcLoc& loc);

// ---- hazard tracking (src/hazard.cpp) ----
/// Counts one instruction on `pipe` (issued at `loc`); returns its stamp for hz_access.
inline uint32_t hz_issue(CoreContext& c, Pipe pipe, const SrcLoc& loc) {
  (void)loc;  // hz_access records the call site with each access
  return ++c.hz.counter[int(pipe)];
}
/// Records an access of UB bytes [lo, hi) by the instruction `stamp` on `pipe`, issued at
/// `loc`, and reports an unsynchronized cross-pipe access (RAW, WAR, WAW) as an error.
void hz_access(CoreContext& c, Pipe pipe, uint32_t stamp, uint32_t lo, uint32_t hi, bool write,
               const char* api, const SrcLoc& loc);
/// A scalar (PIPE_S) access of UB bytes [lo, hi), ordered with every pipe by the
/// compiler's auto-sync: the scalar unit waits for the vector pipe and for every pipe
/// whose earlier write (or, for a write, read) of those bytes it does not already know
/// to be complete; later instructions of every pipe are issued after it. Returns the
/// pipes it waits for (bit 1 << Pipe), which the caller passes to the cost model
/// (CoreRecorder::scalar_access) so that the checker and the cost model agree.
uint8_t hz_scalar(CoreContext& c, uint32_t lo, uint32_t hi, bool write);
/// An MTE3 write of GM bytes [p, p + bytes) by the instruction `stamp` issued at `loc`
/// (DataCopy/DataCopyPad UB->GM): a later read of them on this core must be synchronised.
void hz_gm_write(CoreContext& c, uint32_t stamp, const void* p, uint64_t bytes, const SrcLoc& loc);
/// A read of GM bytes [p, p + bytes) on `pipe` (MTE2 copy-in, or S for GlobalTensor
/// GetValue): reports "gm_unsynchronized_access" when this core's MTE3 wrote some of
/// them and no flag (MTE3_MTE2 / MTE3_S), queue chain or PipeBarrier<PIPE_ALL> orders
/// the read after that write.
void hz_gm_read(CoreContext& c, Pipe pipe, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc);

// ---- UB operand checks (src/tensor.cpp) ----
/// What an API needs to know about a LocalTensor operand.
struct UbRef {
  uint32_t addr;  // byte offset in UB
  int32_t buf;    // BufRec index, -1 = never allocated
  uint32_t gen;
};
/// Checks that the tensor is allocated and not freed; returns its buffer's [start, end).
std::pair<uint32_t, uint32_t> check_tensor(CoreContext& c, const UbRef& t, const char* role,
                                           const char* api, const SrcLoc& loc);
/// check_tensor + 32-byte alignment (`align` bytes) + [lo, hi) inside the buffer.
void check_operand(CoreContext& c, const UbRef& t, uint32_t lo, uint32_t hi, uint32_t align,
                   const char* role, const char* api, const SrcLoc& loc);
/// Reports a read of never-initialized UB bytes in [lo, hi) (error "ub_uninitialized_read").
void check_initialized(CoreContext& c, uint32_t lo, uint32_t hi, const char* what, const char* api,
                       const SrcLoc& loc);
inline void mark_init(CoreContext& c, uint32_t lo, uint32_t hi) {
  std::memset(c.shadow + lo, kInit, hi - lo);
}

/// The buffer of a tensor built on a fixed UB address (LocalTensor(pos, addr, len),
/// LocalMemAllocator, src/pipe.cpp): bytes [addr, addr + bytes) as a TBuf-like region with
/// no queue and no synchronisation. Errors: `ub_misaligned` (addr not 32-byte aligned),
/// `ub_capacity_exceeded` (beyond the profile's UB).
UbRef static_region(CoreContext& c, uint8_t pos, uint64_t addr, uint64_t bytes, const char* api, const SrcLoc& loc);

/// A LocalMemAllocator<Hardware::UB> is constructed on the core: a second one is
/// `pipe_ub_alias` (warning): both hand out UB from address 0.
void note_mem_allocator(CoreContext& c, const SrcLoc& loc);

// ---- UB row layouts (src/row_layout.cpp) ----
/// An MTE2 copy writes UB [lo, hi): layouts it overlaps end.
void layout_erase(CoreContext& c, uint32_t lo, uint32_t hi);
/// DataCopyPad GM->UB laid out rows with round-up lanes (see CoreContext::RowLayout).
void layout_record(CoreContext& c, uint32_t base, const CoreContext::RowLayout& l);
/// An MTE3 copy reads UB [lo, hi) for GM: round-up lanes of a layout there are an error
/// ("ub_row_pitch_mismatch"): they would land in GM between the rows.
void layout_check_copy_out(CoreContext& c, uint32_t lo, uint32_t hi, const char* api, const SrcLoc& loc);
/// One operand of a vector instruction (or UB->UB copy) as the layout tracker sees it.
struct LayoutOpnd {
  uint64_t lo, hi;  // UB bytes the operand spans
  uint32_t esize;
  bool write;
};
/// A vector instruction: warns ("ub_row_pitch_mismatch") when a source reads a layout
/// as compact rows, and carries a source's layout to the destination.
void layout_vector(CoreContext& c, const LayoutOpnd* ops, int nops, const char* api, const SrcLoc& loc);

// ---- SoC capabilities (src/capabilities.cpp; profile [capabilities]) ----
/// "api_unsupported_on_soc" unless the active SoC has DataCopyPad.
void check_pad_soc(const char* api, const SrcLoc& loc);
/// "api_unsupported_on_soc" unless the active SoC supports bfloat16_t data.
void check_bf16_soc(const char* api, const SrcLoc& loc);
/// "api_unsupported_on_soc" unless the active SoC has Cast from `src` to `dst`.
void check_cast_soc(DType src, DType dst, const char* api, const SrcLoc& loc);

// ---- GM checks (src/gm.cpp) ----
/// Checks that [p, p + bytes) lies in one host allocation (error "gm_out_of_bounds").
void check_gm(const void* p, uint64_t bytes, bool write, const char* api, const SrcLoc& loc);

}  // namespace ascendc_sim
