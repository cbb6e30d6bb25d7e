// ascendc_sim/pipe.h — TPipe, TQueBind/TQue and TBuf (api-reference §2.4, §2.5).
//
// TPipe::InitBuffer carves buffers from the core's Unified Buffer, each length rounded
// up to 32 bytes; the total may not exceed the profile's UB size and a pipe hands out at
// most 64 buffers. TQue buffers follow the state machine FREE -> (AllocTensor) OCCUPIED
// -> (EnQue) ENQUE -> (DeQue) DEQUE -> (FreeTensor) FREE; every step that would hang
// or corrupt on the NPU is an error here (queue_* diagnostics), never a hang. Queue
// hand-offs are the cross-pipe synchronisation the TQue framework inserts: for VECIN,
// AllocTensor waits (MTE2) for the buffer's last FreeTensor, EnQue signals MTE2 -> V,
// DeQue waits on V, FreeTensor signals V; VECOUT mirrors it with V and MTE3. TBuf
// regions carry no synchronisation.
#pragma once

#include <cstdint>
#include <exception>

#include "ascendc_sim/core.h"
#include "ascendc_sim/sync.h"
#include "ascendc_sim/tensor.h"

namespace ascendc_sim::qs {

/// A buffer handed out by a queue or TBuf.
struct Handle {
  uint32_t addr = 0;   // UB byte offset
  uint32_t bytes = 0;  // length in bytes
  int32_t buf = -1;
  uint32_t gen = 0;
  uint8_t pos = 0;
};

int32_t pipe_create(CoreContext& c, const SrcLoc& loc);
/// Ends a pipe; with `check`, queues still holding tensors are reported
/// ("queue_tensor_not_freed").
void pipe_destroy(CoreContext& c, int32_t pipe, bool check);
/// Reset: an error (`pipe_reset_live_tensors`) while a queue of the pipe still holds
/// allocated or enqueued tensors.
void pipe_reset(CoreContext& c, int32_t pipe, const SrcLoc& loc);
/// An error (`ub_overlap_in_flight`) when a write to UB bytes [lo, hi) of `dst`'s buffer
/// overlaps another buffer that is allocated, enqueued or a TBuf (only possible when two
/// live TPipes alias UB).
void check_in_flight_overlap(CoreContext& c, const UbRef& dst, uint32_t lo, uint32_t hi, const char* api,
                             const SrcLoc& loc);
/// InitBuffer for a queue (tbuf = false, `num` buffers) or a TBuf (num = 1), carved from
/// the pipe or (pool >= 0) from a TBufPool.
int32_t init_queue(CoreContext& c, int32_t pipe, uint8_t src, uint8_t dst, int32_t depth, bool tbuf,
                   uint32_t num, uint64_t len, const char* api, const SrcLoc& loc, int32_t pool = -1);
/// InitBufPool: a pool of `len` bytes (rounded up to 32) with `ids` buffer ids, carved
/// from the pipe (parent < 0) or from pool `parent`; with share >= 0 it overlays pool
/// `share` instead (same start, `len` at most the share's). Returns the pool id.
int32_t pool_create(CoreContext& c, int32_t pipe, int32_t parent, int32_t share, uint32_t ids, uint64_t len,
                    const char* api, const SrcLoc& loc);
/// TBufPool::Reset: no tensor of the pool may be held (`pipe_reset_live_tensors`); waits
/// for the pool's pending events (a PipeBarrier<PIPE_ALL>); its buffers stay, their
/// contents become undefined (uninitialized), and they stop counting as in flight.
void pool_reset(CoreContext& c, int32_t pool, const SrcLoc& loc);
/// The pool id of a TBufPool object, checked live (`queue_not_initialized` otherwise).
int32_t pool_check(CoreContext& c, int32_t pool, uint64_t serial, const char* api, const SrcLoc& loc);
Handle alloc(CoreContext& c, int32_t qid, const SrcLoc& loc);
void enque(CoreContext& c, int32_t qid, const UbRef& t, const SrcLoc& loc);
Handle deque(CoreContext& c, int32_t qid, const SrcLoc& loc);
void free_tensor(CoreContext& c, int32_t qid, const UbRef& t, const SrcLoc& loc);
/// A TBuf view of `bytes` bytes at byte `offset` (Get / GetWithOffset).
Handle tbuf_get(CoreContext& c, int32_t qid, uint64_t offset, uint64_t bytes, const char* api,
                const SrcLoc& loc);
/// Checks that `t` is a tensor of TBuf `qid` (`queue_foreign_tensor` otherwise).
void tbuf_check_own(CoreContext& c, int32_t qid, const UbRef& t, const char* api, const SrcLoc& loc);
int32_t count_in_queue(CoreContext& c, int32_t qid);
bool has_idle(CoreContext& c, int32_t qid);
uint32_t buf_len(CoreContext& c, int32_t qid);
/// Error "queue_not_initialized": the queue/TBuf was used before TPipe::InitBuffer.
[[noreturn]] void not_initialized(const char* api, const SrcLoc& loc);

template <typename T>
inline AscendC::LocalTensor<T> to_tensor(const Handle& h) {
  AscendC::LocalTensor<T> t;
  t.addr_ = h.addr;
  t.size_ = uint32_t(ascendc_sim::elems_in<T>(h.bytes));
  t.buf_ = h.buf;
  t.gen_ = h.gen;
  t.pos_ = AscendC::TPosition(h.pos);
  return t;
}

}  // namespace ascendc_sim::qs

namespace AscendC {

using TEventID = int8_t;

class TPipe;

/// Base of TQue and TBuf: the queue's id in the current core's context.
class TQueBindBase {
 public:
  int32_t qid_ = -1;
  uint64_t serial_ = 0;
  int32_t id(const char* api, const ascendc_sim::SrcLoc& loc) const {
    ascendc_sim::CoreContext& c = ascendc_sim::ctx(api);
    if (qid_ < 0 || serial_ != c.serial) ascendc_sim::qs::not_initialized(api, loc);
    return qid_;
  }
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public TQueBindBase {
 public:
  static constexpr TPosition kSrc = src, kDst = dst;
  static constexpr int32_t kDepth = depth;

  template <typename T>
  LocalTensor<T> AllocTensor(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TQue::AllocTensor");
    return ascendc_sim::qs::to_tensor<T>(ascendc_sim::qs::alloc(c, id("TQue::AllocTensor", loc), loc));
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& t, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    t = AllocTensor<T>(loc);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TQue::FreeTensor");
    ascendc_sim::qs::free_tensor(c, id("TQue::FreeTensor", loc), t.ref(), loc);
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& t, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TQue::EnQue");
    ascendc_sim::qs::enque(c, id("TQue::EnQue", loc), t.ref(), loc);
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TQue::DeQue");
    return ascendc_sim::qs::to_tensor<T>(ascendc_sim::qs::deque(c, id("TQue::DeQue", loc), loc));
  }
  template <typename T>
  void DeQue(LocalTensor<T>& t, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    t = DeQue<T>(loc);
  }
  bool VacantInQue() {
    auto& c = ascendc_sim::ctx("TQue::VacantInQue");
    return ascendc_sim::qs::count_in_queue(c, id("TQue::VacantInQue", ascendc_sim::SrcLoc::current())) < depth;
  }
  bool HasTensorInQue() {
    auto& c = ascendc_sim::ctx("TQue::HasTensorInQue");
    return ascendc_sim::qs::count_in_queue(c, id("TQue::HasTensorInQue", ascendc_sim::SrcLoc::current())) > 0;
  }
  int32_t GetTensorCountInQue() {
    auto& c = ascendc_sim::ctx("TQue::GetTensorCountInQue");
    return ascendc_sim::qs::count_in_queue(c, id("TQue::GetTensorCountInQue", ascendc_sim::SrcLoc::current()));
  }
  bool HasIdleBuffer() {
    auto& c = ascendc_sim::ctx("TQue::HasIdleBuffer");
    return ascendc_sim::qs::has_idle(c, id("TQue::HasIdleBuffer", ascendc_sim::SrcLoc::current()));
  }
  void FreeAllEvent() {}
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::LCM>
class TBuf : public TQueBindBase {
 public:
  /// The whole buffer as a tensor of T.
  template <typename T>
  LocalTensor<T> Get(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBuf::Get");
    int32_t q = id("TBuf::Get", loc);
    return ascendc_sim::qs::to_tensor<T>(
        ascendc_sim::qs::tbuf_get(c, q, 0, ascendc_sim::qs::buf_len(c, q), "TBuf::Get", loc));
  }
  /// The first `len` elements of the buffer.
  template <typename T>
  LocalTensor<T> Get(uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBuf::Get");
    return ascendc_sim::qs::to_tensor<T>(
        ascendc_sim::qs::tbuf_get(c, id("TBuf::Get", loc), 0, ascendc_sim::bytes_for<T>(len), "TBuf::Get", loc));
  }
  /// `size` elements starting `bufOffset` bytes into the buffer.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset,
                               ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBuf::GetWithOffset");
    return ascendc_sim::qs::to_tensor<T>(ascendc_sim::qs::tbuf_get(
        c, id("TBuf::GetWithOffset", loc), bufOffset, ascendc_sim::bytes_for<T>(size), "TBuf::GetWithOffset", loc));
  }
  /// The whole buffer (as Get<T>()); a TBuf has no queue state and no synchronisation.
  template <typename T>
  LocalTensor<T> AllocTensor(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return Get<T>(loc);
  }
  /// Ends the use of a tensor from this TBuf (no state; a tensor of another buffer is
  /// `queue_foreign_tensor`).
  template <typename T>
  void FreeTensor(LocalTensor<T>& t, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBuf::FreeTensor");
    ascendc_sim::qs::tbuf_check_own(c, id("TBuf::FreeTensor", loc), t.ref(), "TBuf::FreeTensor", loc);
  }
  uint32_t GetBufLen() const {
    auto& c = ascendc_sim::ctx("TBuf::GetBufLen");
    return ascendc_sim::qs::buf_len(c, id("TBuf::GetBufLen", ascendc_sim::SrcLoc::current()));
  }
};

/// A pool of UB carved from a TPipe (TPipe::InitBufPool) or from another pool
/// (TBufPool::InitBufPool), which hands out queues, TBufs and sub-pools from its own bytes
/// (vendor pages "TBufPool简介", "TBufPool构造函数", "InitBufPool", "InitBuffer", "Reset"):
/// `bufIDSize` buffers at most (default 4, at most 16); a pool sharing another's bytes
/// (InitBufPool(pool, len, shareBuf)) starts where that one starts and may be no longer.
/// Switching between pools that share bytes needs Reset() on the one left (its events end:
/// modelled as a PipeBarrier<PIPE_ALL>); its buffers stay allocated but their contents are
/// undefined afterwards. Only the UB positions (VECIN, VECOUT, VECCALC) exist on AIV.
template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool {
 public:
  static constexpr bool isTbufPool = true;
  static constexpr TPosition poolPos = pos;
  static constexpr uint32_t bufSize = bufIDSize;
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::VECCALC,
                "TBufPool: the simulator models the AIV core's Unified Buffer only (VECIN, VECOUT, VECCALC); the L1 "
                "positions A1/B1/C1 are cube-side");
  static_assert(bufIDSize >= 1 && bufIDSize <= 16, "TBufPool: bufIDSize must be in [1, 16]");

  /// A queue of `num` buffers of `len` bytes (rounded up to 32) from this pool.
  template <class Q>
  bool InitBuffer(Q& que, uint8_t num, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBufPool::InitBuffer");
    int32_t pl = ascendc_sim::qs::pool_check(c, pool_, serial_, "TBufPool::InitBuffer", loc);
    que.qid_ = ascendc_sim::qs::init_queue(c, pipe_, uint8_t(Q::kSrc), uint8_t(Q::kDst), Q::kDepth, false, num, len,
                                           "TBufPool::InitBuffer", loc, pl);
    que.serial_ = c.serial;
    return true;
  }
  /// A TBuf of `len` bytes (rounded up to 32) from this pool.
  template <TPosition bpos>
  bool InitBuffer(TBuf<bpos>& buf, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBufPool::InitBuffer");
    int32_t pl = ascendc_sim::qs::pool_check(c, pool_, serial_, "TBufPool::InitBuffer", loc);
    buf.qid_ = ascendc_sim::qs::init_queue(c, pipe_, uint8_t(bpos), uint8_t(bpos), 0, true, 1, len,
                                           "TBufPool::InitBuffer", loc, pl);
    buf.serial_ = c.serial;
    return true;
  }
  /// A sub-pool of `len` bytes carved from this pool.
  template <class T>
  bool InitBufPool(T& bufPool, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    static_assert(T::isTbufPool, "TBufPool::InitBufPool: the first argument must be a TBufPool");
    auto& c = ascendc_sim::ctx("TBufPool::InitBufPool");
    int32_t pl = ascendc_sim::qs::pool_check(c, pool_, serial_, "TBufPool::InitBufPool", loc);
    bufPool.attach(c, pipe_, ascendc_sim::qs::pool_create(c, pipe_, pl, -1, T::bufSize, len, "TBufPool::InitBufPool", loc));
    return true;
  }
  /// A sub-pool of `len` bytes overlaying the sub-pool `shareBuf` of this pool.
  template <class T, class U>
  bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    static_assert(T::isTbufPool && U::isTbufPool, "TBufPool::InitBufPool: both pools must be TBufPools");
    auto& c = ascendc_sim::ctx("TBufPool::InitBufPool");
    ascendc_sim::qs::pool_check(c, pool_, serial_, "TBufPool::InitBufPool", loc);
    int32_t sh = ascendc_sim::qs::pool_check(c, shareBuf.pool_, shareBuf.serial_, "TBufPool::InitBufPool", loc);
    bufPool.attach(c, pipe_, ascendc_sim::qs::pool_create(c, pipe_, -1, sh, T::bufSize, len, "TBufPool::InitBufPool", loc));
    return true;
  }
  /// Ends the pool's work before switching to a pool that shares its bytes.
  void Reset(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TBufPool::Reset");
    ascendc_sim::qs::pool_reset(c, ascendc_sim::qs::pool_check(c, pool_, serial_, "TBufPool::Reset", loc), loc);
  }

  void attach(ascendc_sim::CoreContext& c, int32_t pipe, int32_t pool) {
    pipe_ = pipe;
    pool_ = pool;
    serial_ = c.serial;
  }
  int32_t pipe_ = -1, pool_ = -1;
  uint64_t serial_ = 0;
};

class TPipe {
 public:
  TPipe(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) : loc_(loc) { attach(); }
  ~TPipe() {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    if (c && serial_ == c->serial && id_ >= 0) {
      ascendc_sim::qs::pipe_destroy(*c, id_, !c->aborting && std::uncaught_exceptions() == 0);
      if (c->current_tpipe == this) c->current_tpipe = nullptr;
    }
  }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  void Init() {}

  /// `num` buffers of `len` bytes (rounded up to 32) for a TQue/TQueBind.
  template <class Q>
  bool InitBuffer(Q& que, uint8_t num, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TPipe::InitBuffer");
    int32_t p = pipe_id(c);
    que.qid_ = ascendc_sim::qs::init_queue(c, p, uint8_t(Q::kSrc), uint8_t(Q::kDst), Q::kDepth, false, num, len,
                                           "TPipe::InitBuffer", loc);
    que.serial_ = c.serial;
    return true;
  }
  /// One buffer of `len` bytes (rounded up to 32) for a TBuf.
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    auto& c = ascendc_sim::ctx("TPipe::InitBuffer");
    int32_t p = pipe_id(c);
    buf.qid_ = ascendc_sim::qs::init_queue(c, p, uint8_t(pos), uint8_t(pos), 0, true, 1, len, "TPipe::InitBuffer", loc);
    buf.serial_ = c.serial;
    return true;
  }

  /// A TBufPool of `len` bytes (rounded up to 32) carved from the pipe's UB.
  template <class T>
  bool InitBufPool(T& bufPool, uint32_t len, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    static_assert(T::isTbufPool, "TPipe::InitBufPool: the first argument must be a TBufPool");
    auto& c = ascendc_sim::ctx("TPipe::InitBufPool");
    int32_t p = pipe_id(c);
    bufPool.attach(c, p, ascendc_sim::qs::pool_create(c, p, -1, -1, T::bufSize, len, "TPipe::InitBufPool", loc));
    return true;
  }
  /// A TBufPool of `len` bytes overlaying `shareBuf` (same start, `len` at most its length).
  template <class T, class U>
  bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    static_assert(T::isTbufPool && U::isTbufPool, "TPipe::InitBufPool: both pools must be TBufPools");
    static_assert(T::bufSize <= U::bufSize, "TPipe::InitBufPool: the pool's bufIDSize must not exceed shareBuf's");
    auto& c = ascendc_sim::ctx("TPipe::InitBufPool");
    int32_t p = pipe_id(c);
    int32_t sh = ascendc_sim::qs::pool_check(c, shareBuf.pool_, shareBuf.serial_, "TPipe::InitBufPool", loc);
    bufPool.attach(c, p, ascendc_sim::qs::pool_create(c, p, -1, sh, T::bufSize, len, "TPipe::InitBufPool", loc));
    return true;
  }

  /// Allocates an event id for manual SetFlag/WaitFlag of `evt`: the lowest id of 0..5
  /// not allocated (ids 6 and 7 are reserved for the framework, api-reference §2.6).
  /// With all six in use: error `event_id_misuse` (the NPU's TPipe asserts).
  template <HardEvent evt>
  TEventID AllocEventID(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return ascendc_sim::event_alloc(uint8_t(evt), true, "TPipe::AllocEventID", loc);
  }
  /// Returns an id from AllocEventID to the pool; an id not allocated is `event_id_misuse`.
  template <HardEvent evt>
  void ReleaseEventID(TEventID id, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    ascendc_sim::event_release(uint8_t(evt), int32_t(id), "TPipe::ReleaseEventID", loc);
  }
  /// The id AllocEventID would return, without allocating it (for an immediate
  /// SetFlag/WaitFlag pair).
  template <HardEvent evt>
  TEventID FetchEventID(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return ascendc_sim::event_alloc(uint8_t(evt), false, "TPipe::FetchEventID", loc);
  }
  TEventID FetchEventID(HardEvent evt, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    return ascendc_sim::event_alloc(uint8_t(evt), false, "TPipe::FetchEventID", loc);
  }

  /// Frees every buffer of the pipe; queues and tensors of it become invalid. Like the
  /// NPU's, it first waits for every buffer's pending free event and issues a
  /// PipeBarrier<PIPE_ALL> (api-reference §2.4), so a second TPipe may reuse the UB at once.
  void Destroy() {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    if (c && serial_ == c->serial && id_ >= 0) {
      ascendc_sim::qs::pipe_destroy(*c, id_, !c->aborting);
      ascendc_sim::sync_barrier(*c, ascendc_sim::Pipe::S, true);
      id_ = -1;
    }
  }
  /// Destroy without the closing barrier: the caller orders later UB reuse itself.
  void DestroyWithoutPipeAll() {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    if (c && serial_ == c->serial && id_ >= 0) {
      ascendc_sim::qs::pipe_destroy(*c, id_, !c->aborting);
      id_ = -1;
    }
  }
  /// Frees every buffer; the pipe can InitBuffer again from the start of UB. Every tensor
  /// of its queues must have been freed (`pipe_reset_live_tensors` otherwise).
  void Reset(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    if (c && serial_ == c->serial && id_ >= 0) ascendc_sim::qs::pipe_reset(*c, id_, loc);
  }

 private:
  void attach() {
    ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
    if (!c) return;
    id_ = ascendc_sim::qs::pipe_create(*c, loc_);
    serial_ = c->serial;
    c->current_tpipe = this;
  }
  int32_t pipe_id(ascendc_sim::CoreContext& c) {
    if (id_ < 0 || serial_ != c.serial) attach();
    return id_;
  }
  int32_t id_ = -1;
  uint64_t serial_ = 0;
  ascendc_sim::SrcLoc loc_;
};

/// The core's current TPipe (the last one constructed), or nullptr.
inline TPipe* GetTPipePtr() {
  ascendc_sim::CoreContext* c = ascendc_sim::tl_ctx;
  return c ? static_cast<TPipe*>(c->current_tpipe) : nullptr;
}

}  // namespace AscendC

// Kernels call GetTPipePtr() unqualified without `using namespace AscendC` too (the NPU
// toolchain declares it at global scope as well).
using AscendC::GetTPipePtr;
