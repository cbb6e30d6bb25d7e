// Cross-core synchronisation of one launch (cross_core.h): SyncAll, IBSet/IBWait,
// WaitPreBlock/NotifyNextBlock, deadlock detection and the happens-before clocks the GM
// write-race check uses.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ascendc_sim/cross_core.h"
#include "ascendc_sim/launch_internal.h"
#include "ascendc_sim/profile.h"
#include "ascendc_sim/sync.h"

namespace ascendc_sim {

namespace {
std::atomic<bool> g_used{false};
constexpr uint32_t kFlagBytes = 32;  // one flag per 32-byte block of the workspace (API reference)

using Clock = std::vector<uint32_t>;
using Written = std::map<uintptr_t, uintptr_t>;

void merge_clock(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); i++) into[i] = std::max(into[i], from[i]);
}
void merge_written(Written& into, const Written& from) {
  for (const auto& [flo, fhi] : from) {
    uintptr_t lo = flo, hi = fhi;
    auto it = into.upper_bound(lo);
    if (it != into.begin()) {
      auto p = std::prev(it);
      if (p->second >= lo) {
        lo = p->first;
        hi = std::max(hi, p->second);
        it = into.erase(p);
      }
    }
    while (it != into.end() && it->first <= hi) {
      hi = std::max(hi, it->second);
      it = into.erase(it);
    }
    into.emplace(lo, hi);
  }
}
}  // namespace

struct CrossCore {
  struct Wait {
    XcOp op = XcOp::SyncAll;
    bool active = false;
    uint64_t gen = 0;   // SyncAll: generation waited past
    uint64_t key = 0;   // IBWait: flag key; WaitPre: core waited for
    uint32_t need = 0;  // IBWait/WaitPre/GroupWait: count needed
    uintptr_t group = 0;     // GroupWait: the barrier's GM workspace
    uint32_t group_n = 0;    // GroupWait: arriveSize
    SrcLoc loc;
    const char* api = "";
  };
  struct Flag {
    uint32_t count = 0;
    std::shared_ptr<const Clock> vc;
    std::shared_ptr<const Written> written;
  };
  std::mutex m;
  std::condition_variable cv;
  uint32_t n = 0;
  bool all_live = false;
  std::vector<CoreContext*> ctxs;
  std::vector<uint8_t> finished, blocked;
  std::vector<Wait> waits;
  uint32_t nfinished = 0, nblocked = 0;
  bool deadlock = false;
  std::string deadlock_where;  // every core's position when the deadlock was found
  uint32_t deadlock_waiting = 0, deadlock_ended = 0;
  void set_deadlock() {
    deadlock = true;
    deadlock_where = positions();
    deadlock_waiting = nblocked;
    deadlock_ended = nfinished;
    cv.notify_all();
  }
  // SyncAll
  uint64_t gen = 0;
  uint32_t arrived = 0;
  Clock acc;
  Written acc_written;
  std::vector<uint32_t> arrivals;
  std::shared_ptr<const Clock> result_vc;
  std::shared_ptr<const Written> result_written;
  // IBSet flags: (blockIdx << 32 | eventID) -> state; NotifyNextBlock counts per core.
  std::map<uint64_t, Flag> flags;
  // GroupBarrier::Arrive: (workspace, arriveIndex) -> state; what the arrivers published
  // merged per workspace.
  std::map<std::pair<uintptr_t, uint32_t>, Flag> group_flags;
  std::map<uintptr_t, std::shared_ptr<const Clock>> group_vc;
  std::map<uintptr_t, std::shared_ptr<const Written>> group_written;
  std::vector<uint32_t> notifies;
  std::vector<std::shared_ptr<const Clock>> notify_vc;
  std::vector<std::shared_ptr<const Written>> notify_written;
  // SyncAll: participants of each completed round (generation).
  std::vector<uint32_t> round_size;
  // The cost model's channels (CoreRecorder::xsignal / xwait): one number per
  // (class, a, b), the same on every core. Which number a channel gets depends on which
  // core named it first, but the replay only matches numbers, so the timing does not.
  enum ChanClass : uint8_t { kChanSyncAll, kChanIB, kChanNotify, kChanGroup };
  std::map<std::tuple<uint8_t, uint64_t, uint64_t>, uint64_t> chan_ids;
  uint64_t chan(ChanClass cls, uint64_t a, uint64_t b) {
    return chan_ids.emplace(std::make_tuple(uint8_t(cls), a, b), uint64_t(chan_ids.size())).first->second;
  }

  bool satisfied(uint32_t i) const {
    const Wait& w = waits[i];
    if (!w.active) return true;
    switch (w.op) {
      case XcOp::SyncAll: return gen > w.gen;
      case XcOp::IBWait: {
        auto it = flags.find(w.key);
        return it != flags.end() && it->second.count >= w.need;
      }
      case XcOp::WaitPre: return notifies[size_t(w.key)] >= w.need;
      case XcOp::GroupWait:
        for (uint32_t i = 0; i < w.group_n; i++) {
          auto it = group_flags.find({w.group, i});
          if (it == group_flags.end() || it->second.count < w.need) return false;
        }
        return true;
      default: return true;
    }
  }
  bool stuck() const {
    if (nblocked == 0 || nblocked + nfinished < n) return false;
    for (uint32_t j = 0; j < n; j++)
      if (blocked[j] && satisfied(j)) return false;
    return true;
  }
  std::string positions() const {
    std::string s;
    for (uint32_t j = 0; j < n; j++) {
      if (!s.empty()) s += "; ";
      if (blocked[j]) {
        s += fmt("core %u waits in %s at %s:%u", j, waits[j].api, waits[j].loc.file_name(), waits[j].loc.line());
      } else {
        s += fmt("core %u has ended", j);
      }
    }
    return s;
  }
};

bool register_cross_core() {
  g_used.store(true);
  return true;
}
bool cross_core_used() { return g_used.load(); }

CrossCore* cross_core_new(uint32_t block_dim, bool all_live) {
  auto* x = new CrossCore;
  x->n = block_dim;
  x->all_live = all_live;
  x->ctxs.assign(block_dim, nullptr);
  x->finished.assign(block_dim, 0);
  x->blocked.assign(block_dim, 0);
  x->waits.resize(block_dim);
  x->arrivals.assign(block_dim, 0);
  x->notifies.assign(block_dim, 0);
  x->notify_vc.resize(block_dim);
  x->notify_written.resize(block_dim);
  return x;
}
void cross_core_delete(CrossCore* x) { delete x; }

void cross_core_start(CoreContext& c, CrossCore* x) {
  c.xc = x;
  c.xc_epoch = 1;
  c.xc_vc = std::make_shared<const Clock>(Clock(c.block_num, 0));
  if (!x) return;
  std::lock_guard<std::mutex> lk(x->m);
  x->ctxs[size_t(c.block_idx)] = &c;
}

void cross_core_finish(CoreContext& c) {
  CrossCore* x = c.xc;
  if (!x) return;
  std::lock_guard<std::mutex> lk(x->m);
  x->finished[size_t(c.block_idx)] = 1;
  x->ctxs[size_t(c.block_idx)] = nullptr;
  if (x->blocked[size_t(c.block_idx)]) {
    x->blocked[size_t(c.block_idx)] = 0;
    x->nblocked--;
  }
  x->nfinished++;
  if (!x->deadlock && x->stuck()) x->set_deadlock();
  x->cv.notify_all();
}

namespace {

// Blocks core `i` until its wait is satisfied; false on a deadlock (every waiting core
// then reports it).
bool block_until(CrossCore& x, uint32_t i, std::unique_lock<std::mutex>& lk) {
  for (;;) {
    if (x.satisfied(i)) {
      x.waits[i].active = false;
      return true;
    }
    if (x.deadlock) return false;
    x.blocked[i] = 1;
    x.nblocked++;
    if (x.stuck()) {
      x.set_deadlock();
    } else {
      x.cv.wait(lk);
    }
    if (x.deadlock && !x.satisfied(i)) return false;  // keep blocked[i] for the report
    x.blocked[i] = 0;
    x.nblocked--;
  }
}

[[noreturn]] void report_deadlock(CrossCore& x, uint32_t i, const char* api, const SrcLoc& loc,
                                  std::unique_lock<std::mutex>& lk) {
  std::string where = x.deadlock_where;
  uint32_t waiting = x.deadlock_waiting, ended = x.deadlock_ended;
  lk.unlock();
  fail("cross_core_deadlock", api, loc,
       fmt("core %u waits forever: no core can make progress (%s); on the NPU the kernel hangs — every core must "
           "reach the same SyncAll, and each IBWait/WaitPreBlock needs its IBSet/NotifyNextBlock",
           i, where.c_str()),
       {{"waiting_cores", double(waiting)}, {"ended_cores", double(ended)}});
}

// Release: publish what this core knows (its epoch included) and start a new epoch.
std::shared_ptr<const Clock> release_clock(CoreContext& c) {
  Clock v = *c.xc_vc;
  v[size_t(c.block_idx)] = std::max(v[size_t(c.block_idx)], c.xc_epoch);
  c.xc_epoch++;
  return std::make_shared<const Clock>(std::move(v));
}
void acquire(CoreContext& c, const std::shared_ptr<const Clock>& vc, const std::shared_ptr<const Written>& written) {
  if (vc) {
    Clock v = *c.xc_vc;
    merge_clock(v, *vc);
    c.xc_vc = std::make_shared<const Clock>(std::move(v));
  }
  if (written) merge_written(c.output_written, *written);
}

// What the replay synchronises on at one call: the channel this core raises (if
// `signal`) and the (channel, raises needed) it waits for.
struct XPoint {
  bool signal = false;
  uint64_t chan = 0;
  std::vector<std::pair<uint64_t, uint32_t>> waits;
};

// The flag traffic priced like DataCopy: a PIPE_ALL barrier, the own flag out (MTE3),
// the awaited flag in (MTE2), a PIPE_ALL barrier. The core raises its channel once its
// flag is written (after the barrier that follows the write) and reads the awaited flags
// only once the replay has seen what it waits for raised: so a waiter resumes no earlier
// than the slowest block it waits for.
void charge(CoreContext& c, const void* gm, bool write, bool read, const XPoint& pt = XPoint{}) {
  uint64_t a = uint64_t(reinterpret_cast<uintptr_t>(gm));
  sync_barrier(c, Pipe::S, true);
  c.rec->scalar(4);
  if (write) c.rec->dma(Pipe::MTE3, a, 1, kFlagBytes, kFlagBytes);
  if (write && read) sync_barrier(c, Pipe::S, true);
  if (read) {
    if (pt.signal) c.rec->xsignal(pt.chan);
    for (const auto& [ch, need] : pt.waits) c.rec->xwait(ch, need);
    c.rec->dma(Pipe::MTE2, a, 1, kFlagBytes, kFlagBytes);
  }
  sync_barrier(c, Pipe::S, true);
  if (!read && pt.signal) c.rec->xsignal(pt.chan);
}

}  // namespace

void cross_core_op(XcOp op, const void* gm, const UbRef* ub, uint32_t ub_bytes, int32_t a, int32_t b, const char* api,
                   const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  CrossCore* xp = c.xc;
  const uint32_t n = c.block_num;
  const uint32_t me = uint32_t(c.block_idx);
  if (!xp || !xp->all_live) {
    if (n == 1 && op != XcOp::IBWait && op != XcOp::WaitPre) {
      charge(c, gm, true, true);
      return;
    }
    fail("cross_core_block_dim_exceeded", api, loc,
         fmt("%s needs every block of the launch resident at once, but blockDim %u exceeds the %u AIV cores of the SoC; "
             "on the NPU later blocks start only when earlier ones end and the kernel hangs — launch at most the core "
             "count and loop over the work inside the kernel",
             api, n, cost::active_profile().aiv_cores),
         {{"block_dim", double(n)}, {"cores", double(cost::active_profile().aiv_cores)}});
  }
  CrossCore& x = *xp;
  // Workspace checks (sizes from the API reference).
  uint64_t gm_need = 0, ub_need = kFlagBytes;
  uint32_t used = n;
  switch (op) {
    case XcOp::SyncAll:
      if (a < 0 || uint32_t(a) > n) {
        fail("field_out_of_range", api, loc, fmt("usedCores %d is outside [0, blockDim %u]", a, n),
             {{"used_cores", double(a)}, {"block_dim", double(n)}});
      }
      used = a == 0 ? n : uint32_t(a);
      gm_need = gm ? uint64_t(used) * kFlagBytes : 0;
      ub_need = gm ? uint64_t(used) * kFlagBytes : 0;
      if (me >= used) {
        fail("field_out_of_range", api, loc,
             fmt("core %u calls SyncAll over the first %u cores only (usedCores); it would wait for itself", me, used),
             {{"core", double(me)}, {"used_cores", double(used)}});
      }
      break;
    case XcOp::IBSet:
    case XcOp::IBWait:
      if (a < 0 || uint32_t(a) >= n || b < 0) {
        fail("field_out_of_range", api, loc,
             fmt("blockIdx %d / eventID %d: blockIdx must be in [0, blockDim %u), eventID >= 0", a, b, n),
             {{"block_idx", double(a)}, {"event_id", double(b)}, {"block_dim", double(n)}});
      }
      gm_need = (uint64_t(n) * uint64_t(b) + uint64_t(a) + 1) * kFlagBytes;
      break;
    default:
      gm_need = uint64_t(n) * kFlagBytes;
      break;
  }
  if (gm_need) check_gm(gm, gm_need, true, api, loc);
  if (ub && ub_need) {
    check_operand(c, *ub, ub->addr, uint32_t(ub->addr + ub_need), 32, "ubWorkspace", api, loc);
    (void)ub_bytes;
  }

  std::unique_lock<std::mutex> lk(x.m);
  CrossCore::Wait& w = x.waits[me];
  w = CrossCore::Wait{};
  w.op = op;
  w.loc = loc;
  w.api = api;
  switch (op) {
    case XcOp::SyncAll: {
      Clock mine = *c.xc_vc;
      mine[me] = std::max(mine[me], c.xc_epoch);
      merge_clock(x.acc, mine);
      merge_written(x.acc_written, c.output_written);
      w.gen = x.gen;
      w.active = true;
      if (++x.arrived == used) {
        // Last to arrive: combine the participants' DMA atomics (core order), publish.
        for (uint32_t j = 0; j < used; j++) {
          CoreContext* o = x.ctxs[j];
          if (!o) continue;
          apply_atomic_writes_of(o->atomic_writes);
          o->atomic_writes.clear();
        }
        x.result_vc = std::make_shared<const Clock>(x.acc);
        x.result_written = std::make_shared<const Written>(x.acc_written);
        x.acc.clear();
        x.acc_written.clear();
        x.arrived = 0;
        x.round_size.push_back(used);
        x.gen++;
        x.cv.notify_all();
      }
      if (!block_until(x, me, lk)) report_deadlock(x, me, api, loc, lk);
      c.xc_epoch++;
      auto vc = x.result_vc;
      auto wr = x.result_written;
      // The replay: every participant of round w.gen raises its channel and waits for all.
      XPoint pt;
      pt.signal = true;
      pt.chan = x.chan(CrossCore::kChanSyncAll, w.gen, 0);
      pt.waits.emplace_back(pt.chan, x.round_size[size_t(w.gen)]);
      lk.unlock();
      acquire(c, vc, wr);
      charge(c, gm, true, true, pt);
      return;
    }
    case XcOp::IBSet: {
      CrossCore::Flag& f = x.flags[(uint64_t(uint32_t(a)) << 32) | uint32_t(b)];
      f.count++;
      f.vc = release_clock(c);
      f.written = std::make_shared<const Written>(c.output_written);
      x.cv.notify_all();
      XPoint pt;
      pt.signal = true;
      pt.chan = x.chan(CrossCore::kChanIB, (uint64_t(uint32_t(a)) << 32) | uint32_t(b), 0);
      lk.unlock();
      charge(c, gm, true, false, pt);
      return;
    }
    case XcOp::IBWait: {
      uint64_t key = (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
      w.key = key;
      w.need = ++c.xc_waits_done[key];
      w.active = true;
      if (!block_until(x, me, lk)) report_deadlock(x, me, api, loc, lk);
      auto& f = x.flags[key];
      auto vc = f.vc;
      auto wr = f.written;
      XPoint pt;
      pt.waits.emplace_back(x.chan(CrossCore::kChanIB, key, 0), w.need);  // the k-th IBSet
      lk.unlock();
      acquire(c, vc, wr);
      charge(c, gm, false, true, pt);
      return;
    }
    case XcOp::WaitPre: {
      uint32_t round = ++x.arrivals[me];  // 1-based
      uint32_t prev = me == 0 ? n - 1 : me - 1;
      uint32_t need = me == 0 ? round - 1 : round;
      if (n == 1 || need == 0) {
        lk.unlock();
        charge(c, gm, false, true);
        return;
      }
      w.key = prev;
      w.need = need;
      w.active = true;
      if (!block_until(x, me, lk)) report_deadlock(x, me, api, loc, lk);
      auto vc = x.notify_vc[prev];
      auto wr = x.notify_written[prev];
      XPoint pt;
      pt.waits.emplace_back(x.chan(CrossCore::kChanNotify, prev, 0), need);
      lk.unlock();
      acquire(c, vc, wr);
      charge(c, gm, false, true, pt);
      return;
    }
    case XcOp::NotifyNext: {
      x.notifies[me]++;
      x.notify_vc[me] = release_clock(c);
      x.notify_written[me] = std::make_shared<const Written>(c.output_written);
      x.cv.notify_all();
      XPoint pt;
      pt.signal = true;
      pt.chan = x.chan(CrossCore::kChanNotify, me, 0);
      lk.unlock();
      charge(c, gm, true, false, pt);
      return;
    }
    case XcOp::InitDetermine:
      lk.unlock();
      charge(c, gm, true, false);
      return;
    case XcOp::GroupWait:  // cross_core_group
      return;
  }
}

void cross_core_group(bool arrive, const void* gm, uint32_t index, uint32_t arrive_size, uint32_t wait_size,
                      const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  CrossCore* xp = c.xc;
  const uint32_t n = c.block_num;
  const uint32_t me = uint32_t(c.block_idx);
  const uint32_t size = arrive ? arrive_size : wait_size;
  if (index >= size) {
    fail("field_out_of_range", api, loc,
         fmt("%s index %u is outside [0, %u) (the barrier's %s size)", arrive ? "arriveIndex" : "waitIndex", index,
             size, arrive ? "arrive" : "wait"),
         {{"index", double(index)}, {"size", double(size)}});
  }
  const uintptr_t g = reinterpret_cast<uintptr_t>(gm);
  if (g % 512 != 0) {
    fail("field_out_of_range", api, loc,
         fmt("the GroupBarrier workspace at 0x%llx is not 512-byte aligned (the constructor's groupWorkspace must be)",
             static_cast<unsigned long long>(g)),
         {{"offset_mod_512", double(g % 512)}});
  }
  check_gm(gm, uint64_t(std::max(arrive_size, wait_size)) * 512, true, api, loc);
  if (!xp || !xp->all_live) {
    fail("cross_core_block_dim_exceeded", api, loc,
         fmt("%s needs every block of the launch resident at once, but blockDim %u exceeds the %u AIV cores of the SoC; "
             "on the NPU later blocks start only when earlier ones end and the kernel hangs",
             api, n, cost::active_profile().aiv_cores),
         {{"block_dim", double(n)}, {"cores", double(cost::active_profile().aiv_cores)}});
  }
  CrossCore& x = *xp;
  std::unique_lock<std::mutex> lk(x.m);
  // The k-th Wait of a core on a barrier waits for the k-th Arrive of every arrive index.
  uint64_t key = (uint64_t(g) << 1) | (arrive ? 1 : 0);
  uint32_t round = ++c.xc_waits_done[key ^ (uint64_t(1) << 63)];
  if (round > 1048575) {
    fail("field_out_of_range", api, loc,
         fmt("%s is called for the %u-th time on this barrier; the API allows at most 1048575 rounds", api, round),
         {{"rounds", double(round)}});
  }
  if (arrive) {
    CrossCore::Flag& f = x.group_flags[{g, index}];
    f.count++;
    auto mine = release_clock(c);
    Clock merged = x.group_vc[g] ? *x.group_vc[g] : Clock{};
    merge_clock(merged, *mine);
    x.group_vc[g] = std::make_shared<const Clock>(std::move(merged));
    Written w = x.group_written[g] ? *x.group_written[g] : Written{};
    merge_written(w, c.output_written);
    x.group_written[g] = std::make_shared<const Written>(std::move(w));
    x.cv.notify_all();
    XPoint pt;
    pt.signal = true;
    pt.chan = x.chan(CrossCore::kChanGroup, g, index);
    lk.unlock();
    charge(c, gm, true, false, pt);
    return;
  }
  CrossCore::Wait& w = x.waits[me];
  w = CrossCore::Wait{};
  w.op = XcOp::GroupWait;
  w.loc = loc;
  w.api = api;
  w.group = g;
  w.group_n = arrive_size;
  w.need = round;
  w.active = true;
  if (!block_until(x, me, lk)) report_deadlock(x, me, api, loc, lk);
  auto vc = x.group_vc[g];
  auto wr = x.group_written[g];
  // The k-th Wait resumes after the k-th Arrive of every arrive index.
  XPoint pt;
  for (uint32_t i = 0; i < arrive_size; i++) pt.waits.emplace_back(x.chan(CrossCore::kChanGroup, g, i), round);
  lk.unlock();
  acquire(c, vc, wr);
  charge(c, gm, false, true, pt);
}

}  // namespace ascendc_sim
