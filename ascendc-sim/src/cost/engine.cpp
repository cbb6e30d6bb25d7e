// src/cost/engine.cpp — see engine.h.
//
// Model, per block (a block runs on one core; at most one block per core at a time):
//   - The scalar unit walks the trace in order. Every record costs it `s_total`. An
//     instruction for V/MTE2/MTE3 is appended to that pipe's queue with the time its
//     issue finished. A scalar record that reads/writes UB first waits until the pipes
//     it depends on are idle (auto-sync); PIPE_ALL waits for every pipe.
//   - Each pipe runs its queue in order. An instruction starts at max(issue, pipe free,
//     flags waited for). Signal(key) resolves when every earlier instruction of its
//     pipe is done; Wait(key) holds later instructions of its pipe until the last
//     signal of key issued before it. PipeBarrier<P> holds later P instructions until
//     earlier ones are done (matters for DMA completion latency).
//   - V instructions take their recorded time. A DMA occupies its pipe for
//     count x startup, then moves its bytes at a rate the HBM model assigns; its data
//     lands `latency` after that (the pipe may start its next transfer meanwhile).
//   - HBM: transfers in their byte phase share peak x efficiency, max-min fair, each
//     capped at its core's MTE bandwidth. Sum of rates <= peak at every instant, so
//     no replay can beat bytes / peak.
//   - Cross-core synchronisation (XSignal / XWait, recorded by cross_core.cpp): XSignal
//     raises a channel of the launch at the block's scalar time; XWait(chan, k) stops
//     the scalar unit until the channel has been raised k times by any block, then
//     resumes at max(its own time, the k-th earliest raise). A SyncAll round is a
//     channel every participant raises and then waits on for all of them, so all
//     resume at the latest arrival; an IBWait waits for the k-th IBSet of its flag. The
//     pipes drain first because the caller records PIPE_ALL barriers around it. A wait
//     no block can satisfy ends the replay with blocks unfinished ("replay stalled").
#include "engine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ascendc_sim::cost {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kV = int(Pipe::V);
constexpr int kMte2 = int(Pipe::MTE2);
constexpr int kMte3 = int(Pipe::MTE3);

int mte_index(int pipe) { return pipe == kMte2 ? 0 : 1; }

struct Item {
  RecKind kind;
  uint32_t rec;          // Exec: record index
  uint32_t ordinal;      // Signal: its ordinal; Wait: ordinal waited for (kNone: none)
  double issue_first;    // Exec: end of the first merged instruction's issue
};

struct Block {
  const std::vector<Record>* recs = nullptr;
  size_t s_idx = 0;
  double s_t = 0;
  std::deque<Item> q[kPipeCount];
  double free_[kPipeCount] = {0, 0, 0, 0};  // pipe may start its next instruction
  double done_[kPipeCount] = {0, 0, 0, 0};  // every instruction issued so far is complete
  bool inflight[kPipeCount] = {false, false, false, false};
  double dma_start[kPipeCount] = {0, 0, 0, 0};
  std::vector<double> signal_time;            // by ordinal; NaN = not resolved yet
  std::unordered_map<uint64_t, uint32_t> latest;  // key -> ordinal of its last signal
  bool active = false;
  bool xblocked = false;  // the scalar unit waits at an XWait for another block
};

struct Transfer {
  uint32_t core;
  int pipe;
  double fixed_left;  // ns of start-up still to go
  double bytes_left;  // bytes still to move
  double cap;         // GB/s = bytes/ns
  double rate = 0;    // current share, bytes/ns
};

struct Pending {
  double t;
  uint32_t core;
  int pipe;
  double fixed;
  double bytes;
};

class Replay {
 public:
  Replay(const Profile::Tables& t, uint32_t physical, const std::vector<const std::vector<Record>*>& blocks)
      : t_(t), blocks_(blocks) {
    uint32_t used = uint32_t(std::min<size_t>(physical, blocks.size()));
    running_.resize(used);
    cores_.resize(used);
    dirty_.assign(used, 0);
    capacity_ = t.hbm_peak_gbps * t.hbm_efficiency;
  }

  ReplayResult run() {
    for (uint32_t c = 0; c < running_.size(); ++c) start_block(c, t_.block_start_ns);
    uint64_t guard = 0;
    while (true) {
      // A block that raises a cross-core channel wakes blocks of lower index too: go
      // round until no block is left to advance.
      for (bool again = true; again;) {
        again = false;
        for (uint32_t c = 0; c < running_.size(); ++c) {
          if (dirty_[c]) {
            dirty_[c] = 0;
            again = true;
            advance(c);
          }
        }
      }
      recompute_rates();
      if (active_.empty() && pending_.empty() && frees_.empty()) break;
      double next = kInf;
      for (const Transfer& tr : active_) next = std::min(next, event_time(tr));
      for (const Pending& p : pending_) next = std::min(next, p.t);
      for (const auto& f : frees_) next = std::min(next, f.first);
      if (!(next < kInf)) throw std::logic_error("cost model: replay has events but none in finite time");
      double eps = 1e-12 * std::max(1.0, std::abs(next));
      std::vector<uint8_t>& due = due_;
      due.assign(active_.size(), 0);
      for (size_t i = 0; i < active_.size(); ++i) due[i] = event_time(active_[i]) <= next + eps;
      double dt = std::max(0.0, next - now_);
      for (size_t i = 0; i < active_.size(); ++i) {
        Transfer& tr = active_[i];
        if (due[i]) {
          if (tr.fixed_left > 0) tr.fixed_left = 0;
          else tr.bytes_left = 0;
        } else if (tr.fixed_left > 0) {
          tr.fixed_left = std::max(0.0, tr.fixed_left - dt);
        } else {
          tr.bytes_left = std::max(0.0, tr.bytes_left - tr.rate * dt);
        }
      }
      now_ = std::max(now_, next);
      // Completions, in (core, pipe) order.
      std::vector<Transfer>& still = spare_;
      still.clear();
      for (Transfer& tr : active_) {
        if (tr.fixed_left <= 0 && tr.bytes_left <= 0) complete(tr.core, tr.pipe);
        else still.push_back(tr);
      }
      active_.swap(still);
      // Transfers whose start time has come.
      if (!pending_.empty()) {
        std::vector<Pending> later;
        std::vector<Pending> now_starting;
        for (const Pending& p : pending_) (p.t <= next + eps ? now_starting : later).push_back(p);
        pending_.swap(later);
        std::sort(now_starting.begin(), now_starting.end(), [](const Pending& a, const Pending& b) {
          return a.core != b.core ? a.core < b.core : a.pipe < b.pipe;
        });
        for (const Pending& p : now_starting) add_transfer(p.core, p.pipe, p.fixed, p.bytes);
      }
      // Cores that free now take the next blocks, lowest core first.
      if (!frees_.empty()) {
        std::vector<std::pair<double, uint32_t>> later, now_free;
        for (const auto& f : frees_) (f.first <= next + eps ? now_free : later).push_back(f);
        frees_.swap(later);
        std::sort(now_free.begin(), now_free.end(),
                  [](const auto& a, const auto& b) { return a.second < b.second; });
        for (const auto& f : now_free) {
          if (next_block_ < blocks_.size()) start_block(f.second, now_ + t_.block_start_ns);
        }
      }
      if (++guard > (uint64_t(1) << 40)) throw std::logic_error("cost model: replay does not terminate");
    }
    if (finished_ != blocks_.size()) {
      throw std::logic_error("cost model: replay stalled with " + std::to_string(blocks_.size() - finished_) +
                             " block(s) unfinished (a wait that can never be satisfied)");
    }
    ReplayResult r;
    r.cores = cores_;
    for (const CoreTimeline& c : cores_) r.end_ns = std::max(r.end_ns, c.end_ns);
    r.hbm_bytes = hbm_bytes_;
    return r;
  }

 private:
  double event_time(const Transfer& tr) const {
    if (tr.fixed_left > 0) return now_ + tr.fixed_left;
    if (tr.bytes_left <= 0) return now_;
    return now_ + tr.bytes_left / tr.rate;
  }

  void start_block(uint32_t c, double base) {
    Block& b = running_[c];
    b = Block();
    b.recs = blocks_[next_block_++];
    b.active = true;
    b.s_t = base;
    for (int p = 0; p < kPipeCount; ++p) b.free_[p] = b.done_[p] = base;
    cores_[c].blocks += 1;
    dirty_[c] = 1;
  }

  static double pipe_idle_time(const Block& b, int p) { return std::max(b.free_[p], b.done_[p]); }

  // True (and the time) when every pipe in `mask` has nothing queued or in flight.
  bool drained(const Block& b, uint8_t mask, double* when) const {
    double t = 0;
    for (int p = kV; p <= kMte3; ++p) {
      if (!(mask & (1u << p))) continue;
      if (!b.q[p].empty() || b.inflight[p]) return false;
      t = std::max(t, pipe_idle_time(b, p));
    }
    *when = t;
    return true;
  }

  bool step_scalar(uint32_t c, Block& b) {
    const std::vector<Record>& recs = *b.recs;
    bool progressed = false;
    CoreTimeline& ct = cores_[c];
    while (b.s_idx < recs.size()) {
      const Record& r = recs[b.s_idx];
      switch (r.kind) {
        case RecKind::Scalar: {
          if (r.drain) {
            double when;
            if (!drained(b, r.drain, &when)) return progressed;
            b.s_t = std::max(b.s_t, when);
          }
          b.s_t += r.s_total;
          break;
        }
        case RecKind::Exec: {
          b.q[int(r.pipe)].push_back(Item{RecKind::Exec, uint32_t(b.s_idx), kNone, b.s_t + r.s_first});
          b.s_t += r.s_total;
          break;
        }
        case RecKind::Signal: {
          b.s_t += r.s_total;
          uint32_t ord = uint32_t(b.signal_time.size());
          b.signal_time.push_back(std::numeric_limits<double>::quiet_NaN());
          b.latest[r.key] = ord;
          if (r.pipe == Pipe::S) b.signal_time[ord] = b.s_t;
          else b.q[int(r.pipe)].push_back(Item{RecKind::Signal, 0, ord, 0});
          break;
        }
        case RecKind::Wait: {
          auto it = b.latest.find(r.key);
          uint32_t ord = it == b.latest.end() ? kNone : it->second;
          if (r.pipe == Pipe::S) {
            if (ord != kNone && std::isnan(b.signal_time[ord])) return progressed;
            b.s_t += r.s_total;
            if (ord != kNone) b.s_t = std::max(b.s_t, b.signal_time[ord]);
          } else {
            b.s_t += r.s_total;
            b.q[int(r.pipe)].push_back(Item{RecKind::Wait, 0, ord, 0});
          }
          break;
        }
        case RecKind::Barrier: {
          b.s_t += r.s_total;
          if (r.pipe != Pipe::S) b.q[int(r.pipe)].push_back(Item{RecKind::Barrier, 0, kNone, 0});
          break;
        }
        case RecKind::BarrierAll: {
          double when;
          uint8_t all = pipe_bit(Pipe::V) | pipe_bit(Pipe::MTE2) | pipe_bit(Pipe::MTE3);
          if (!drained(b, all, &when)) return progressed;
          b.s_t = std::max(b.s_t + r.s_total, when);
          break;
        }
        case RecKind::XSignal: {
          std::vector<double>& v = chans_[r.key];
          v.insert(std::upper_bound(v.begin(), v.end(), b.s_t), b.s_t);
          // Wake every block waiting on a channel (it checks its own on advance).
          for (uint32_t o = 0; o < running_.size(); ++o) {
            if (o != c && running_[o].active && running_[o].xblocked) dirty_[o] = 1;
          }
          break;
        }
        case RecKind::XWait: {
          auto it = chans_.find(r.key);
          if (r.count > 0) {
            if (it == chans_.end() || it->second.size() < r.count) {
              b.xblocked = true;
              return progressed;
            }
            b.s_t = std::max(b.s_t, it->second[r.count - 1]);
          }
          b.xblocked = false;
          break;
        }
      }
      ct.busy_ns[int(Pipe::S)] += r.s_total;
      ++b.s_idx;
      progressed = true;
    }
    return progressed;
  }

  bool step_pipe(uint32_t c, Block& b, int p) {
    bool progressed = false;
    std::deque<Item>& q = b.q[p];
    while (!q.empty() && !b.inflight[p]) {
      Item& it = q.front();
      switch (it.kind) {
        case RecKind::Exec: {
          const Record& r = (*b.recs)[it.rec];
          if (p == kV) {
            double start = std::max(it.issue_first, b.free_[p]);
            double lag = std::max(0.0, r.reach - r.s_first - r.work);
            double extra = std::max(0.0, lag - (start - it.issue_first));
            double end = start + r.work + extra;
            b.free_[p] = end;
            b.done_[p] = std::max(b.done_[p], end);
            cores_[c].busy_ns[p] += r.work;
            q.pop_front();
          } else {
            int e = mte_index(p);
            double start = std::max({it.issue_first, b.free_[p], now_});
            double fixed = double(r.count) * t_.mte_startup_ns[e];
            double uncontended = fixed + r.work / t_.mte_core_gbps[e];
            double lag = std::max(0.0, r.reach - r.s_first - uncontended);
            fixed += std::max(0.0, lag - (start - it.issue_first));
            b.inflight[p] = true;
            b.dma_start[p] = start;
            hbm_bytes_ += r.work;
            double eps = 1e-12 * std::max(1.0, std::abs(now_));
            if (start <= now_ + eps) add_transfer(c, p, fixed, r.work);
            else pending_.push_back(Pending{start, c, p, fixed, r.work});
            // The item stays at the front until the transfer completes.
          }
          break;
        }
        case RecKind::Signal:
          b.signal_time[it.ordinal] = pipe_idle_time(b, p);
          q.pop_front();
          break;
        case RecKind::Wait:
          if (it.ordinal != kNone) {
            double s = b.signal_time[it.ordinal];
            if (std::isnan(s)) return progressed;
            b.free_[p] = std::max(b.free_[p], s);
          }
          q.pop_front();
          break;
        case RecKind::Barrier:
          b.free_[p] = pipe_idle_time(b, p);
          q.pop_front();
          break;
        default:
          throw std::logic_error("cost model: unexpected record on a pipe queue");
      }
      progressed = true;
    }
    return progressed;
  }

  void advance(uint32_t c) {
    Block& b = running_[c];
    if (!b.active) return;
    bool progress = true;
    while (progress) {
      progress = step_scalar(c, b);
      for (int p = kV; p <= kMte3; ++p) progress = step_pipe(c, b, p) || progress;
    }
    if (b.s_idx < b.recs->size()) return;
    double end = b.s_t;
    for (int p = kV; p <= kMte3; ++p) {
      if (!b.q[p].empty() || b.inflight[p]) return;
      end = std::max(end, pipe_idle_time(b, p));
    }
    b.active = false;
    ++finished_;
    end = std::max(end, now_);
    cores_[c].end_ns = std::max(cores_[c].end_ns, end);
    frees_.emplace_back(end, c);
  }

  void add_transfer(uint32_t c, int p, double fixed, double bytes) {
    Transfer tr{c, p, fixed, bytes, t_.mte_core_gbps[mte_index(p)]};
    auto pos = std::lower_bound(active_.begin(), active_.end(), tr, [](const Transfer& a, const Transfer& b) {
      return a.core != b.core ? a.core < b.core : a.pipe < b.pipe;
    });
    active_.insert(pos, tr);
  }

  void complete(uint32_t c, int p) {
    Block& b = running_[c];
    b.q[p].pop_front();
    b.inflight[p] = false;
    b.free_[p] = now_;
    b.done_[p] = std::max(b.done_[p], now_ + t_.mte_latency_ns[mte_index(p)]);
    cores_[c].busy_ns[p] += now_ - b.dma_start[p];
    dirty_[c] = 1;
  }

  // Max-min fair shares of HBM among transfers in their byte phase: transfers with a cap
  // below the fair share get their cap, the rest split what is left equally. Transfers
  // are grouped by cap (a profile has one cap per MTE), so this is linear in the
  // number of transfers.
  void recompute_rates() {
    groups_.clear();
    for (Transfer& tr : active_) {
      tr.rate = 0;
      if (tr.fixed_left > 0 || tr.bytes_left <= 0) continue;
      auto g = std::find_if(groups_.begin(), groups_.end(), [&](const Group& x) { return x.cap == tr.cap; });
      if (g == groups_.end()) groups_.push_back(Group{tr.cap, 1, 0});
      else g->count += 1;
    }
    if (groups_.empty()) return;
    std::sort(groups_.begin(), groups_.end(), [](const Group& a, const Group& b) { return a.cap < b.cap; });
    double left = capacity_;
    size_t remaining = 0;
    for (const Group& g : groups_) remaining += g.count;
    for (Group& g : groups_) {
      double share = left / double(remaining);
      g.rate = std::min(g.cap, share);
      left = std::max(0.0, left - g.rate * double(g.count));
      remaining -= g.count;
    }
    for (Transfer& tr : active_) {
      if (tr.fixed_left > 0 || tr.bytes_left <= 0) continue;
      for (const Group& g : groups_) {
        if (g.cap == tr.cap) {
          tr.rate = g.rate;
          break;
        }
      }
    }
  }

  struct Group {
    double cap;
    size_t count;
    double rate;
  };

  const Profile::Tables& t_;
  const std::vector<const std::vector<Record>*>& blocks_;
  std::vector<Block> running_;
  std::vector<CoreTimeline> cores_;
  std::vector<uint8_t> dirty_;
  std::vector<Transfer> active_;
  std::vector<Pending> pending_;
  std::vector<std::pair<double, uint32_t>> frees_;
  std::vector<Group> groups_;
  // Cross-core channel -> times it was raised, ascending.
  std::unordered_map<uint64_t, std::vector<double>> chans_;
  std::vector<uint8_t> due_;
  std::vector<Transfer> spare_;
  size_t next_block_ = 0;
  size_t finished_ = 0;
  double now_ = 0;
  double capacity_ = 0;
  double hbm_bytes_ = 0;
};

}  // namespace

ReplayResult replay(const Profile::Tables& t, uint32_t physical_cores,
                    const std::vector<const std::vector<Record>*>& blocks) {
  if (physical_cores == 0) throw std::logic_error("cost model: profile has 0 cores");
  if (blocks.empty()) return ReplayResult{};
  return Replay(t, physical_cores, blocks).run();
}

}  // namespace ascendc_sim::cost
