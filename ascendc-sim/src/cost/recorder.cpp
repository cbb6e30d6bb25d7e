// src/cost/recorder.cpp — CoreRecorder: turns one core's hooks into its trace.
//
// Costs that do not depend on other cores (scalar issue, vector pipe time) are
// computed here from the profile; DMA time depends on HBM sharing between cores, so
// DMA records keep their bytes and the replay (engine.cpp) times them.
#include <algorithm>

#include "ascendc_sim/cost.h"
#include "trace.h"

namespace ascendc_sim::cost {

CoreRecorder::CoreRecorder() : impl_(std::make_unique<Impl>()) {}
CoreRecorder::~CoreRecorder() = default;
CoreRecorder::CoreRecorder(CoreRecorder&&) noexcept = default;
CoreRecorder& CoreRecorder::operator=(CoreRecorder&&) noexcept = default;

bool CoreRecorder::Impl::push(const Record& r) {
  ++needed;
  if (overflowed) {
    // Only the last record is kept: the next hook merges into it exactly as it would
    // have without the limit, so `needed` stays independent of when the limit was hit.
    records.back() = r;
    return false;
  }
  if (budget) {
    uint64_t n = budget->records.fetch_add(1, std::memory_order_relaxed) + 1;
    if (n > budget->limit) {
      overflowed = true;
      records.clear();
      records.shrink_to_fit();
      records.push_back(r);
      return false;
    }
  }
  records.push_back(r);
  return true;
}

// One instruction on V, MTE2 or MTE3: `issue_ns` of scalar issue, then `work` (V: ns
// on the pipe; MTE: bytes charged) taking `uncontended_ns` on an idle pipe.
void CoreRecorder::Impl::exec(Pipe pipe, double issue_ns, double work, double uncontended_ns) {
  if (!records.empty()) {
    Record& last = records.back();
    if (last.kind == RecKind::Exec && last.pipe == pipe) {
      // Instruction i ends no earlier than (its issue end) + (work of i and later);
      // `reach` keeps the max of that over the merged instructions.
      last.s_total += issue_ns;
      last.reach = std::max(last.reach + uncontended_ns, last.s_total + uncontended_ns);
      last.work += work;
      last.count += 1;
      return;
    }
  }
  Record r;
  r.kind = RecKind::Exec;
  r.pipe = pipe;
  r.count = 1;
  r.s_total = issue_ns;
  r.s_first = issue_ns;
  r.work = work;
  r.reach = issue_ns + uncontended_ns;
  push(r);
}

void CoreRecorder::Impl::scalar(double ns, uint8_t drain) {
  if (!records.empty()) {
    Record& last = records.back();
    // Merging is exact when nothing was issued to other pipes in between and the
    // later part needs no pipe drained that the earlier part did not drain already.
    if (last.kind == RecKind::Scalar && (drain & ~last.drain) == 0) {
      last.s_total += ns;
      last.count += 1;
      return;
    }
  }
  Record r;
  r.kind = RecKind::Scalar;
  r.drain = drain;
  r.count = 1;
  r.s_total = ns;
  push(r);
}

void CoreRecorder::vector(VecClass cls, DType dtype, uint32_t repeats, bool count_form) {
  vector(cls, dtype, repeats, count_form, 0.0);
}

void CoreRecorder::vector(VecClass cls, DType dtype, uint32_t repeats, bool count_form,
                          double bank_cycles_per_repeat) {
  Impl& m = *impl_;
  m.counters.vector_instrs += 1;
  if (!m.timing || !m.t) return;
  const auto& t = *m.t;
  double issue = t.ns(t.vec_issue_cycles + (count_form ? t.mask_setup_cycles : 0.0));
  // A repeat takes the table's cycles, or longer when its blocks queue on one UB bank group.
  double per_repeat = std::max(t.cycles_per_repeat(cls, dtype), bank_cycles_per_repeat);
  double work = t.ns(t.vec_startup_cycles + double(repeats) * per_repeat);
  m.exec(Pipe::V, issue, work, work);
}

namespace {

// Bytes of HBM traffic for `len` bytes at GM address `addr`: whole bursts of `g` bytes.
uint64_t burst_span(uint64_t addr, uint64_t len, uint64_t g) {
  if (len == 0) return 0;
  uint64_t lo = addr / g * g;
  uint64_t hi = (addr + len + g - 1) / g * g;
  return hi - lo;
}

}  // namespace

void CoreRecorder::dma(Pipe pipe, uint64_t gm_addr, uint32_t block_count, uint64_t block_bytes,
                       uint64_t gm_stride_bytes) {
  Impl& m = *impl_;
  bool read = pipe == Pipe::MTE2;
  uint64_t bytes = uint64_t(block_count) * block_bytes;
  (read ? m.counters.gm_read_bytes : m.counters.gm_write_bytes) += bytes;
  m.counters.dma_transfers += 1;
  if (!m.timing || !m.t || bytes == 0) return;
  if (pipe != Pipe::MTE2 && pipe != Pipe::MTE3) pipe = Pipe::MTE2;  // defensive: only MTEs move GM
  const auto& t = *m.t;
  uint64_t g = t.burst_bytes;
  uint64_t charged = 0;
  if (block_count == 1 || gm_stride_bytes == block_bytes) {
    charged = burst_span(gm_addr, bytes, g);
  } else if (gm_stride_bytes % g == 0) {
    charged = uint64_t(block_count) * burst_span(gm_addr, block_bytes, g);
  } else {
    for (uint32_t b = 0; b < block_count; ++b) {
      charged += burst_span(gm_addr + uint64_t(b) * gm_stride_bytes, block_bytes, g);
    }
  }
  int e = read ? 0 : 1;
  double uncontended = t.mte_startup_ns[e] + double(charged) / t.mte_core_gbps[e];
  m.exec(pipe, t.ns(t.dma_issue_cycles), double(charged), uncontended);
}

void CoreRecorder::scalar(uint32_t instrs) {
  Impl& m = *impl_;
  if (!m.timing || !m.t || instrs == 0) return;
  m.scalar(m.t->ns(double(instrs) * m.t->scalar_cpi), 0);
}

void CoreRecorder::scalar_access(ScalarTarget target, bool write, uint8_t wait_pipes) {
  Impl& m = *impl_;
  (target == ScalarTarget::GM ? m.counters.scalar_gm : m.counters.scalar_ub) += 1;
  if (!m.timing || !m.t) return;
  const auto& t = *m.t;
  double cycles;
  uint8_t drain = 0;
  if (target == ScalarTarget::UB) {
    // Auto-sync: a scalar access to UB waits until the vector unit is idle (V->S), and
    // later instructions of every pipe issue after it (S->V, S->MTE2, S->MTE3). Data
    // that reached UB by DMA after a DeQue is covered by the V drain (a drained V pipe
    // is past every flag it waited on); data the hazard checker does not see ordered
    // that way (a copy into a TBuf with no flag, a copy-out still reading the bytes a
    // SetValue overwrites) makes the access wait for that MTE pipe too (`wait_pipes`,
    // computed by hz_scalar): the checker's "scalar access orders every pipe" is
    // charged here, never free. Copy-in/out of other buffers keeps running.
    cycles = write ? t.ub_write_cycles : t.ub_read_cycles;
    drain = uint8_t(pipe_bit(Pipe::V) | (wait_pipes & (pipe_bit(Pipe::MTE2) | pipe_bit(Pipe::MTE3))));
  } else {
    cycles = write ? t.gm_write_cycles : t.gm_read_cycles;
  }
  m.scalar(t.ns(cycles), drain);
}

void CoreRecorder::signal(Pipe pipe, SyncKey key) {
  Impl& m = *impl_;
  if (!m.timing || !m.t) return;
  Record r;
  r.kind = RecKind::Signal;
  r.pipe = pipe;
  r.count = 1;
  r.key = key.value;
  r.s_total = m.t->ns(m.t->sync_cycles);
  m.push(r);
}

void CoreRecorder::wait(Pipe pipe, SyncKey key) {
  Impl& m = *impl_;
  if (!m.timing || !m.t) return;
  Record r;
  r.kind = RecKind::Wait;
  r.pipe = pipe;
  r.count = 1;
  r.key = key.value;
  r.s_total = m.t->ns(m.t->sync_cycles);
  m.push(r);
}

void CoreRecorder::barrier(Pipe pipe, bool all) {
  Impl& m = *impl_;
  if (!m.timing || !m.t) return;
  Record r;
  r.kind = all ? RecKind::BarrierAll : RecKind::Barrier;
  r.pipe = pipe;
  r.count = 1;
  r.s_total = m.t->ns(m.t->barrier_cycles);
  m.push(r);
}

// The cross-core records cost the scalar unit nothing themselves: the caller records
// the barriers, the scalar work and the flag traffic around them.
void CoreRecorder::xsignal(uint64_t chan) {
  Impl& m = *impl_;
  if (!m.timing || !m.t) return;
  Record r;
  r.kind = RecKind::XSignal;
  r.count = 1;
  r.key = chan;
  m.push(r);
}

void CoreRecorder::xwait(uint64_t chan, uint32_t need) {
  Impl& m = *impl_;
  if (!m.timing || !m.t || need == 0) return;
  Record r;
  r.kind = RecKind::XWait;
  r.count = need;
  r.key = chan;
  m.push(r);
}

}  // namespace ascendc_sim::cost
