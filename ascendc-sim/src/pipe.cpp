// TPipe buffers and the TQue state machine (pipe.h; api-reference §2.4, §2.5).
#include <algorithm>
#include <cstring>

#include "ascendc_sim/pipe.h"

namespace ascendc_sim::qs {

namespace {
constexpr uint32_t kMaxBuffersPerPipe = 64;      // QBUF_MAX_LEN
constexpr uint32_t kMaxLivePerPosition = 8;      // QUE_MAX_EVENT on arch 2201
constexpr uint8_t kVecIn = uint8_t(AscendC::TPosition::VECIN);
constexpr uint8_t kVecOut = uint8_t(AscendC::TPosition::VECOUT);
constexpr uint8_t kVecCalc = uint8_t(AscendC::TPosition::VECCALC);

const char* pos_name(uint8_t p) {
  static const char* n[] = {"GM",  "A1",     "A2",      "B1",  "B2",  "C1",  "C2",   "CO1",       "CO2",         "VECIN",
                            "VECOUT", "VECCALC", "LCM", "SPM", "SHM", "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL", "MAX"};
  return p < 19 ? n[p] : "?";
}
std::string where(const SrcLoc& l) { return fmt("%s:%u", l.file_name(), l.line()); }

QueueRec& queue(CoreContext& c, int32_t qid, const char* api, const SrcLoc& loc) {
  if (qid < 0 || size_t(qid) >= c.queues.size() || !c.queues[size_t(qid)].live) not_initialized(api, loc);
  return c.queues[size_t(qid)];
}

Handle handle_of(const CoreContext& c, uint32_t bi, uint32_t offset, uint32_t bytes) {
  const BufRec& b = c.bufs[bi];
  return Handle{b.start + offset, bytes, int32_t(bi), b.gen, b.position};
}

// The buffer a tensor names, checked to belong to queue `qid`.
uint32_t owned_buffer(CoreContext& c, int32_t qid, const UbRef& t, const char* api, const SrcLoc& loc) {
  if (t.buf < 0 || size_t(t.buf) >= c.bufs.size()) {
    fail("tensor_not_allocated", api, loc,
         "the tensor was never allocated (a default-constructed LocalTensor, not from AllocTensor/DeQue)");
  }
  const BufRec& b = c.bufs[size_t(t.buf)];
  if (b.queue != qid) {
    const QueueRec& q = c.queues[size_t(qid)];
    uint32_t lo = q.bufs.empty() ? 0 : c.bufs[q.bufs.front()].start;
    uint32_t hi = q.bufs.empty() ? 0 : c.bufs[q.bufs.back()].start + c.bufs[q.bufs.back()].len;
    fail("queue_foreign_tensor", api, loc,
         fmt("the tensor (UB offset %u) does not belong to this queue (its buffers span UB [%u, %u), InitBuffer at %s)",
             t.addr, lo, hi, where(q.init_loc).c_str()),
         {{"ub_offset", double(t.addr)}, {"queue_begin", double(lo)}, {"queue_end", double(hi)}});
  }
  return uint32_t(t.buf);
}
}  // namespace

void not_initialized(const char* api, const SrcLoc& loc) {
  fail("queue_not_initialized", api, loc,
       "the queue or TBuf is used before TPipe::InitBuffer (or after its TPipe was destroyed)");
}

int32_t pipe_create(CoreContext& c, const SrcLoc& loc) {
  PipeRec p;
  p.loc = loc;
  c.pipes.push_back(p);
  return int32_t(c.pipes.size() - 1);
}

static void release_pipe(CoreContext& c, int32_t pipe, bool check) {
  for (size_t qi = 0; qi < c.queues.size(); qi++) {
    QueueRec& q = c.queues[qi];
    if (!q.live || q.pipe != pipe) continue;
    if (check && !q.is_tbuf) {
      uint32_t held = 0, enq = 0;
      const BufRec* first = nullptr;
      for (uint32_t bi : q.bufs) {
        const BufRec& b = c.bufs[bi];
        if (b.state == BufState::Occupied || b.state == BufState::Deque || b.state == BufState::Enque) {
          held++;
          if (b.state == BufState::Enque) enq++;
          if (!first) first = &b;
        }
      }
      if (held) {
        record_error("queue_tensor_not_freed", "TQue::AllocTensor", first->alloc_loc,
                     fmt("%u tensor(s) of the queue initialized at %s are still allocated at kernel end (%u enqueued but "
                         "never dequeued); every AllocTensor needs a FreeTensor, every EnQue a DeQue — on the NPU the "
                         "next AllocTensor or the next kernel hangs",
                         held, where(q.init_loc).c_str(), enq),
                     {{"tensors", double(held)}, {"enqueued", double(enq)}});
      }
    }
    for (uint32_t bi : q.bufs) {
      BufRec& b = c.bufs[bi];
      if ((b.state == BufState::Occupied || b.state == BufState::Deque || b.state == BufState::Enque) &&
          (b.position < 32) && !q.is_tbuf) {
        if (c.live_per_position[b.position]) c.live_per_position[b.position]--;
      }
      b.state = BufState::Dead;
      b.gen++;
    }
    q.live = false;
    q.fifo.clear();
  }
  for (PoolRec& pl : c.pools)
    if (pl.pipe == pipe) pl.live = false;
}

void check_in_flight_overlap(CoreContext& c, const UbRef& dst, uint32_t lo, uint32_t hi, const char* api,
                             const SrcLoc& loc) {
  for (size_t bi = 0; bi < c.bufs.size(); bi++) {
    const BufRec& b = c.bufs[bi];
    if (int32_t(bi) == dst.buf || b.is_static) continue;
    if (b.pool >= 0 && c.pools[size_t(b.pool)].reset) continue;  // a pool after Reset holds nothing
    if (!(b.state == BufState::Occupied || b.state == BufState::Enque || b.state == BufState::Deque ||
          b.state == BufState::TBuf))
      continue;
    if (lo < b.start + b.len && b.start < hi) {
      const QueueRec& q = c.queues[size_t(b.queue)];
      const bool pools = b.pool >= 0 && dst.buf >= 0 && c.bufs[size_t(dst.buf)].pool >= 0;
      fail("ub_overlap_in_flight", api, loc,
           fmt("the copy writes UB bytes [%u, %u), which overlap bytes [%u, %u) of another buffer still in use (the "
               "%s initialized at %s): %s",
               lo, hi, b.start, b.start + b.len, q.is_tbuf ? "TBuf" : "queue", where(q.init_loc).c_str(),
               pools ? "two TBufPools share these bytes; call Reset() on the pool you leave before using the other"
                     : "two live TPipes alias the same UB"),
           {{"begin", double(lo)}, {"end", double(hi)}, {"other_begin", double(b.start)},
            {"other_end", double(b.start + b.len)}});
    }
  }
}

void pipe_destroy(CoreContext& c, int32_t pipe, bool check) {
  if (pipe < 0 || size_t(pipe) >= c.pipes.size() || !c.pipes[size_t(pipe)].live) return;
  release_pipe(c, pipe, check);
  c.pipes[size_t(pipe)].live = false;
}

void pipe_reset(CoreContext& c, int32_t pipe, const SrcLoc& loc) {
  if (pipe < 0 || size_t(pipe) >= c.pipes.size() || !c.pipes[size_t(pipe)].live) return;
  // Tensors still allocated or enqueued would silently share UB with the buffers the
  // next InitBuffer carves from offset 0 (and their queue events stay set on the NPU).
  uint32_t held = 0, enq = 0;
  const QueueRec* first = nullptr;
  for (const QueueRec& q : c.queues) {
    if (!q.live || q.pipe != pipe || q.is_tbuf) continue;
    for (uint32_t bi : q.bufs) {
      BufState s = c.bufs[bi].state;
      if (s == BufState::Occupied || s == BufState::Deque || s == BufState::Enque) {
        held++;
        if (s == BufState::Enque) enq++;
        if (!first) first = &q;
      }
    }
  }
  if (held) {
    fail("pipe_reset_live_tensors", "TPipe::Reset", loc,
         fmt("TPipe::Reset while %u tensor(s) are still allocated (%u enqueued), the first of the queue initialized "
             "at %s; FreeTensor every tensor (DeQue what was enqueued) before Reset, or the next InitBuffer hands "
             "out the same UB bytes",
             held, enq, where(first->init_loc).c_str()),
         {{"tensors", double(held)}, {"enqueued", double(enq)}});
  }
  release_pipe(c, pipe, false);
  c.pipes[size_t(pipe)].cur = 0;
  c.pipes[size_t(pipe)].buffers = 0;
}

int32_t init_queue(CoreContext& c, int32_t pipe, uint8_t src, uint8_t dst, int32_t depth, bool tbuf, uint32_t num,
                   uint64_t len, const char* api, const SrcLoc& loc, int32_t pool) {
  PipeRec& p = c.pipes[size_t(pipe)];
  PoolRec* pl = pool >= 0 ? &c.pools[size_t(pool)] : nullptr;
  if (num < 1 || num > kMaxBuffersPerPipe) {
    fail("field_out_of_range", api, loc, fmt("buffer count %u is outside [1, %u]", num, kMaxBuffersPerPipe),
         {{"num", double(num)}, {"max", double(kMaxBuffersPerPipe)}});
  }
  if (len == 0) fail("field_out_of_range", api, loc, "buffer length is 0 bytes; it must be at least 1", {{"len", 0}});
  uint64_t blen = (len + 31) / 32 * 32;
  if (p.buffers + num > kMaxBuffersPerPipe) {
    fail("pipe_buffers_exceeded", api, loc,
         fmt("this InitBuffer brings the pipe to %u buffers; a TPipe manages at most %u", p.buffers + num,
             kMaxBuffersPerPipe),
         {{"buffers", double(p.buffers + num)}, {"max", double(kMaxBuffersPerPipe)}});
  }
  uint64_t need = uint64_t(num) * blen;
  if (pl) {
    if (pl->ids_used + num > pl->ids) {
      fail("pipe_buffers_exceeded", api, loc,
           fmt("this InitBuffer of %u buffer(s) brings the TBufPool (InitBufPool at %s) to %u buffers; its bufIDSize "
               "allows %u",
               num, where(pl->loc).c_str(), pl->ids_used + num, pl->ids),
           {{"buffers", double(pl->ids_used + num)}, {"max", double(pl->ids)}});
    }
    if (uint64_t(pl->cur) + need > uint64_t(pl->start) + pl->len) {
      fail("ub_capacity_exceeded", api, loc,
           fmt("InitBuffer of %u x %llu bytes (lengths rounded up to 32) on top of %u bytes already used needs %llu "
               "bytes; the TBufPool (InitBufPool at %s) has %u",
               num, static_cast<unsigned long long>(blen), pl->cur - pl->start,
               static_cast<unsigned long long>(pl->cur - pl->start + need), where(pl->loc).c_str(), pl->len),
           {{"requested_bytes", double(need)},
            {"in_use_bytes", double(pl->cur - pl->start)},
            {"total_bytes", double(pl->cur - pl->start + need)},
            {"capacity_bytes", double(pl->len)}});
    }
  } else if (p.cur + need > c.ub_bytes) {
    fail("ub_capacity_exceeded", api, loc,
         fmt("InitBuffer of %u x %llu bytes (%llu bytes, lengths rounded up to 32) on top of %u bytes already in use "
             "needs %llu bytes; the Unified Buffer has %u",
             num, static_cast<unsigned long long>(blen), static_cast<unsigned long long>(need), p.cur,
             static_cast<unsigned long long>(p.cur + need), c.ub_bytes),
         {{"requested_bytes", double(need)},
          {"in_use_bytes", double(p.cur)},
          {"total_bytes", double(p.cur + need)},
          {"capacity_bytes", double(c.ub_bytes)}});
  }
  // Every TPipe carves UB from offset 0: a second live pipe's buffers alias the first's.
  for (size_t o = 0; !pl && o < c.pipes.size(); o++) {
    const PipeRec& other = c.pipes[o];
    if (int32_t(o) == pipe || !other.live || other.cur <= p.cur) continue;
    warn("pipe_ub_alias", api, loc,
         fmt("this InitBuffer takes UB bytes [%u, %llu), which the live TPipe created at %s already uses (bytes [0, "
             "%u)); one TPipe per kernel, or Destroy the first before the second allocates",
             p.cur, static_cast<unsigned long long>(p.cur + need), where(other.loc).c_str(), other.cur),
         {{"begin", double(p.cur)}, {"end", double(p.cur + need)}, {"other_end", double(other.cur)}});
    break;
  }
  QueueRec q;
  q.pipe = pipe;
  q.src_pos = src;
  q.dst_pos = dst;
  q.depth = depth;
  q.is_tbuf = tbuf;
  q.producer = src == kVecIn ? Pipe::MTE2 : Pipe::V;
  q.consumer = dst == kVecOut ? Pipe::MTE3 : Pipe::V;
  q.init_loc = loc;
  q.pool = pool;
  int32_t qid = int32_t(c.queues.size());
  uint32_t& cur = pl ? pl->cur : p.cur;
  for (uint32_t i = 0; i < num; i++) {
    BufRec b;
    b.start = cur;
    b.len = uint32_t(blen);
    b.state = tbuf ? BufState::TBuf : BufState::Free;
    b.queue = qid;
    b.slot = i;
    b.position = src;
    b.pool = pool;
    cur += uint32_t(blen);
    q.bufs.push_back(uint32_t(c.bufs.size()));
    c.bufs.push_back(b);
  }
  p.buffers += num;
  if (pl) {
    pl->ids_used += num;
    pl->reset = false;
  }
  if (cur > c.ub_high) c.ub_high = cur;
  c.queues.push_back(std::move(q));
  c.rec->scalar(2);
  return qid;
}

Handle alloc(CoreContext& c, int32_t qid, const SrcLoc& loc) {
  const char* api = "TQue::AllocTensor";
  QueueRec& q = queue(c, qid, api, loc);
  if (q.is_tbuf) fail("queue_foreign_tensor", api, loc, "AllocTensor on a TBuf; use TBuf::Get");
  uint32_t n = uint32_t(q.bufs.size());
  uint32_t pick = n;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t s = (q.next + i) % n;
    if (c.bufs[q.bufs[s]].state == BufState::Free) {
      pick = s;
      break;
    }
  }
  if (pick == n) {
    uint32_t enq = uint32_t(q.fifo.size());
    fail("queue_alloc_beyond_depth", api, loc,
         fmt("all %u buffers of the queue initialized at %s are in use (%u enqueued, %u allocated or dequeued and not "
             "freed); on the NPU this AllocTensor would wait forever — FreeTensor each tensor before allocating more",
             n, where(q.init_loc).c_str(), enq, n - enq),
         {{"buffers", double(n)}, {"enqueued", double(enq)}});
  }
  uint8_t pos = q.src_pos;
  if (pos == kVecIn || pos == kVecOut || pos == kVecCalc) {
    if (c.live_per_position[pos] + 1 > kMaxLivePerPosition) {
      fail("position_buffers_exceeded", api, loc,
           fmt("this AllocTensor makes %u buffers of position %s allocated at once; 910B allows at most %u per position",
               c.live_per_position[pos] + 1, pos_name(pos), kMaxLivePerPosition),
           {{"live", double(c.live_per_position[pos] + 1)}, {"max", double(kMaxLivePerPosition)}});
    }
    c.live_per_position[pos]++;
  }
  if (q.pool >= 0) c.pools[size_t(q.pool)].reset = false;
  BufRec& b = c.bufs[q.bufs[pick]];
  b.state = BufState::Occupied;
  b.alloc_loc = loc;
  q.next = (pick + 1) % n;
  c.rec->scalar(1);
  if (q.producer != q.consumer) sync_wait(c, q.producer, queue_key(uint32_t(qid), pick, 1));
  return handle_of(c, q.bufs[pick], 0, b.len);
}

void enque(CoreContext& c, int32_t qid, const UbRef& t, const SrcLoc& loc) {
  const char* api = "TQue::EnQue";
  QueueRec& q = queue(c, qid, api, loc);
  uint32_t bi = owned_buffer(c, qid, t, api, loc);
  BufRec& b = c.bufs[bi];
  if (b.gen != t.gen || b.state == BufState::Free) {
    fail("tensor_use_after_free", api, loc, "EnQue of a tensor whose buffer was already freed (FreeTensor)");
  }
  if (b.state == BufState::Enque) {
    fail("queue_enque_wrong_state", api, loc,
         "EnQue of a tensor that is already enqueued (each AllocTensor/DeQue allows one EnQue)");
  }
  int32_t cap = q.depth > 0 ? q.depth : int32_t(q.bufs.size());
  if (int32_t(q.fifo.size()) >= cap) {
    fail("queue_enque_beyond_depth", api, loc,
         fmt("EnQue would hold %d tensors in a queue of depth %d (initialized at %s); DeQue before enqueueing more",
             int(q.fifo.size()) + 1, cap, where(q.init_loc).c_str()),
         {{"enqueued", double(q.fifo.size() + 1)}, {"depth", double(cap)}});
  }
  b.state = BufState::Enque;
  q.fifo.push_back(b.slot);
  c.rec->scalar(1);
  if (q.producer != q.consumer) sync_signal(c, q.producer, queue_key(uint32_t(qid), b.slot, 0));
}

Handle deque(CoreContext& c, int32_t qid, const SrcLoc& loc) {
  const char* api = "TQue::DeQue";
  QueueRec& q = queue(c, qid, api, loc);
  if (q.fifo.empty()) {
    fail("queue_deque_empty", api, loc,
         fmt("DeQue on an empty queue (initialized at %s): no EnQue is pending; on the NPU it would wait forever",
             where(q.init_loc).c_str()));
  }
  uint32_t slot = q.fifo.front();
  q.fifo.pop_front();
  uint32_t bi = q.bufs[slot];
  c.bufs[bi].state = BufState::Deque;
  c.rec->scalar(1);
  if (q.producer != q.consumer) sync_wait(c, q.consumer, queue_key(uint32_t(qid), slot, 0));
  return handle_of(c, bi, 0, c.bufs[bi].len);
}

void free_tensor(CoreContext& c, int32_t qid, const UbRef& t, const SrcLoc& loc) {
  const char* api = "TQue::FreeTensor";
  QueueRec& q = queue(c, qid, api, loc);
  uint32_t bi = owned_buffer(c, qid, t, api, loc);
  BufRec& b = c.bufs[bi];
  if (b.gen != t.gen || b.state == BufState::Free) {
    fail("queue_double_free", api, loc,
         fmt("FreeTensor of a tensor (UB offset %u) that was already freed", t.addr), {{"ub_offset", double(t.addr)}});
  }
  BufState was = b.state;
  if (was == BufState::Enque) {
    auto it = std::find(q.fifo.begin(), q.fifo.end(), b.slot);
    if (it != q.fifo.end()) q.fifo.erase(it);
  }
  b.state = BufState::Free;
  b.gen++;
  if (b.position < 32 && c.live_per_position[b.position]) c.live_per_position[b.position]--;
  c.rec->scalar(1);
  if (q.producer != q.consumer) {
    sync_signal(c, was == BufState::Deque ? q.consumer : q.producer, queue_key(uint32_t(qid), b.slot, 1));
  }
}

Handle tbuf_get(CoreContext& c, int32_t qid, uint64_t offset, uint64_t bytes, const char* api, const SrcLoc& loc) {
  QueueRec& q = queue(c, qid, api, loc);
  uint32_t bi = q.bufs.front();
  const BufRec& b = c.bufs[bi];
  if (q.pool >= 0) c.pools[size_t(q.pool)].reset = false;
  if (offset + bytes > b.len) {
    fail("ub_out_of_range", api, loc,
         fmt("asks for bytes [%llu, %llu) of a TBuf of %u bytes", static_cast<unsigned long long>(offset),
             static_cast<unsigned long long>(offset + bytes), b.len),
         {{"offset", double(offset)}, {"bytes", double(bytes)}, {"buffer_bytes", double(b.len)}});
  }
  return handle_of(c, bi, uint32_t(offset), uint32_t(bytes));
}

int32_t pool_check(CoreContext& c, int32_t pool, uint64_t serial, const char* api, const SrcLoc& loc) {
  if (pool < 0 || serial != c.serial || size_t(pool) >= c.pools.size() || !c.pools[size_t(pool)].live) {
    fail("queue_not_initialized", api, loc,
         "the TBufPool is used before TPipe::InitBufPool / TBufPool::InitBufPool (or after its TPipe was destroyed "
         "or reset)");
  }
  return pool;
}

int32_t pool_create(CoreContext& c, int32_t pipe, int32_t parent, int32_t share, uint32_t ids, uint64_t len,
                    const char* api, const SrcLoc& loc) {
  PipeRec& p = c.pipes[size_t(pipe)];
  if (len == 0) fail("field_out_of_range", api, loc, "TBufPool length is 0 bytes; it must be at least 1", {{"len", 0}});
  const uint64_t blen = (len + 31) / 32 * 32;
  PoolRec n;
  n.pipe = pipe;
  n.parent = parent;
  n.ids = ids;
  n.loc = loc;
  n.len = uint32_t(std::min<uint64_t>(blen, 0xFFFFFFFFull));
  if (share >= 0) {
    // Overlay: the same start as the share, at most its length; ids from the share's set.
    const PoolRec& sh = c.pools[size_t(share)];
    if (blen > sh.len) {
      fail("ub_capacity_exceeded", api, loc,
           fmt("the shared TBufPool asks for %llu bytes (rounded up to 32) but the pool it shares (InitBufPool at %s) "
               "has %u",
               static_cast<unsigned long long>(blen), where(sh.loc).c_str(), sh.len),
           {{"requested_bytes", double(blen)}, {"capacity_bytes", double(sh.len)}});
    }
    if (ids > sh.ids) {
      fail("pipe_buffers_exceeded", api, loc,
           fmt("the shared TBufPool's bufIDSize %u exceeds the %u of the pool it shares (InitBufPool at %s)", ids,
               sh.ids, where(sh.loc).c_str()),
           {{"buffers", double(ids)}, {"max", double(sh.ids)}});
    }
    n.parent = sh.parent;
    n.start = n.cur = sh.start;
  } else if (parent >= 0) {
    PoolRec& pa = c.pools[size_t(parent)];
    if (uint64_t(pa.cur) + blen > uint64_t(pa.start) + pa.len) {
      fail("ub_capacity_exceeded", api, loc,
           fmt("InitBufPool of %llu bytes (rounded up to 32) on top of %u bytes already used needs %llu bytes; the "
               "enclosing TBufPool (InitBufPool at %s) has %u",
               static_cast<unsigned long long>(blen), pa.cur - pa.start,
               static_cast<unsigned long long>(pa.cur - pa.start + blen), where(pa.loc).c_str(), pa.len),
           {{"requested_bytes", double(blen)},
            {"in_use_bytes", double(pa.cur - pa.start)},
            {"total_bytes", double(pa.cur - pa.start + blen)},
            {"capacity_bytes", double(pa.len)}});
    }
    if (pa.ids_used + ids > pa.ids) {
      fail("pipe_buffers_exceeded", api, loc,
           fmt("the sub-pool's bufIDSize %u exceeds the %u buffer ids its enclosing TBufPool (InitBufPool at %s) has "
               "left",
               ids, pa.ids - pa.ids_used, where(pa.loc).c_str()),
           {{"buffers", double(pa.ids_used + ids)}, {"max", double(pa.ids)}});
    }
    pa.ids_used += ids;
    n.start = n.cur = pa.cur;
    pa.cur += uint32_t(blen);
  } else {
    if (uint64_t(p.cur) + blen > c.ub_bytes) {
      fail("ub_capacity_exceeded", api, loc,
           fmt("InitBufPool of %llu bytes (rounded up to 32) on top of %u bytes already in use needs %llu bytes; the "
               "Unified Buffer has %u",
               static_cast<unsigned long long>(blen), p.cur, static_cast<unsigned long long>(p.cur + blen), c.ub_bytes),
           {{"requested_bytes", double(blen)},
            {"in_use_bytes", double(p.cur)},
            {"total_bytes", double(p.cur + blen)},
            {"capacity_bytes", double(c.ub_bytes)}});
    }
    n.start = n.cur = p.cur;
    p.cur += uint32_t(blen);
    if (p.cur > c.ub_high) c.ub_high = p.cur;
  }
  c.pools.push_back(n);
  c.rec->scalar(2);
  return int32_t(c.pools.size() - 1);
}

void pool_reset(CoreContext& c, int32_t pool, const SrcLoc& loc) {
  PoolRec& pl = c.pools[size_t(pool)];
  uint32_t held = 0;
  const QueueRec* first = nullptr;
  for (const QueueRec& q : c.queues) {
    if (!q.live || q.pool != pool || q.is_tbuf) continue;
    for (uint32_t bi : q.bufs) {
      BufState st = c.bufs[bi].state;
      if (st == BufState::Occupied || st == BufState::Deque || st == BufState::Enque) {
        held++;
        if (!first) first = &q;
      }
    }
  }
  if (held) {
    fail("pipe_reset_live_tensors", "TBufPool::Reset", loc,
         fmt("TBufPool::Reset while %u tensor(s) of its queues are still allocated (the first of the queue initialized "
             "at %s); AllocTensor/FreeTensor and EnQue/DeQue must be paired before switching pools",
             held, where(first->init_loc).c_str()),
         {{"tensors", double(held)}});
  }
  // The pool's pending events end: every pipe is drained (PIPE_ALL), then the bytes are
  // free for a pool that shares them.
  sync_barrier(c, Pipe::S, true);
  std::memset(c.shadow + pl.start, kUninit, pl.len);
  pl.reset = true;
  for (PoolRec& sub : c.pools)
    if (sub.live && sub.parent == pool) sub.reset = true;
}

void tbuf_check_own(CoreContext& c, int32_t qid, const UbRef& t, const char* api, const SrcLoc& loc) {
  queue(c, qid, api, loc);
  owned_buffer(c, qid, t, api, loc);
}

}  // namespace ascendc_sim::qs

namespace ascendc_sim {
void note_mem_allocator(CoreContext& c, const SrcLoc& loc) {
  if (c.mem_allocator_live) {
    warn("pipe_ub_alias", "LocalMemAllocator", loc,
         "a second LocalMemAllocator<Hardware::UB> on this core hands out UB from address 0 again, aliasing the first "
         "one's tensors; only one allocator per physical memory may exist in a kernel");
  }
  c.mem_allocator_live = true;
}

UbRef static_region(CoreContext& c, uint8_t pos, uint64_t addr, uint64_t bytes, const char* api, const SrcLoc& loc) {
  if (addr % 32 != 0) {
    fail("ub_misaligned", api, loc,
         fmt("the tensor starts at UB byte %llu, which is not 32-byte aligned", static_cast<unsigned long long>(addr)),
         {{"ub_offset", double(addr)}});
  }
  if (addr + bytes > c.ub_bytes) {
    fail("ub_capacity_exceeded", api, loc,
         fmt("the tensor takes UB bytes [%llu, %llu); the Unified Buffer has %u", static_cast<unsigned long long>(addr),
             static_cast<unsigned long long>(addr + bytes), c.ub_bytes),
         {{"ub_offset", double(addr)}, {"bytes", double(bytes)}, {"capacity_bytes", double(c.ub_bytes)}});
  }
  // One queue record (no pipe) owns every fixed-address region of the core.
  if (c.static_queue < 0) {
    QueueRec q;
    q.is_tbuf = true;
    q.src_pos = q.dst_pos = pos;
    q.init_loc = loc;
    c.static_queue = int32_t(c.queues.size());
    c.queues.push_back(std::move(q));
  }
  uint64_t key = (addr << 32) | bytes;
  auto it = c.static_bufs.find(key);
  uint32_t bi;
  if (it != c.static_bufs.end()) {
    bi = it->second;
  } else {
    BufRec b;
    b.start = uint32_t(addr);
    b.len = uint32_t(bytes);
    b.state = BufState::TBuf;
    b.queue = c.static_queue;
    b.position = pos;
    b.is_static = true;
    b.alloc_loc = loc;
    bi = uint32_t(c.bufs.size());
    c.bufs.push_back(b);
    c.static_bufs.emplace(key, bi);
    if (addr + bytes > c.ub_high) c.ub_high = uint32_t(addr + bytes);
  }
  c.rec->scalar(1);
  return UbRef{uint32_t(addr), int32_t(bi), c.bufs[bi].gen};
}
}  // namespace ascendc_sim

namespace ascendc_sim::qs {

int32_t count_in_queue(CoreContext& c, int32_t qid) {
  return int32_t(queue(c, qid, "TQue::GetTensorCountInQue", SrcLoc::current()).fifo.size());
}
bool has_idle(CoreContext& c, int32_t qid) {
  QueueRec& q = queue(c, qid, "TQue::HasIdleBuffer", SrcLoc::current());
  for (uint32_t bi : q.bufs)
    if (c.bufs[bi].state == BufState::Free) return true;
  return false;
}
uint32_t buf_len(CoreContext& c, int32_t qid) {
  return c.bufs[queue(c, qid, "TBuf", SrcLoc::current()).bufs.front()].len;
}

}  // namespace ascendc_sim::qs
