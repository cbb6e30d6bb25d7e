// run_kernel: one launch of `block_dim` simulated cores on a small host thread pool
// (launch.h). Each core gets its own CoreContext (Unified Buffer, queues, flags, hazard
// clocks, cost recorder); cores are independent, so the thread count changes only the
// wall time: diagnostics are collected per core and merged in core order, and the cost
// report depends only on each core's records.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <thread>
#include <tuple>
#include <type_traits>

#include "ascendc_sim/core.h"
#include "ascendc_sim/gm.h"
#include "ascendc_sim/launch.h"
#include "ascendc_sim/launch_internal.h"
#include "ascendc_sim/pipe.h"
#include "ascendc_sim/profile.h"
#include "ascendc_sim/types.h"

namespace ascendc_sim {

thread_local const gm::Snapshot* tl_gm_snapshot = nullptr;

namespace {
std::atomic<uint64_t> g_tiling_key{0};
std::atomic<uint64_t> g_serial{1};

// UB, shadow and hazard storage reused by the cores a host thread runs. Only the part a
// previous core could have touched (below its highest buffer, `dirty`) is reset for the
// next one: the rest is still poisoned, uninitialized and hazard-free.
struct Arena {
  std::unique_ptr<uint8_t[]> ub_raw, shadow_raw;
  uint8_t* ub = nullptr;
  uint8_t* shadow = nullptr;
  uint32_t bytes = 0;
  uint32_t dirty = 0;
  Hazards hz;
  void ensure(uint32_t n) {
    if (bytes >= n) return;
    ub_raw.reset(new uint8_t[n + 64]);
    shadow_raw.reset(new uint8_t[n + 64]);
    ub = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(ub_raw.get()) + 63) & ~uintptr_t(63));
    shadow = shadow_raw.get();
    bytes = n;
    dirty = n;
    size_t nb = (n + 31) / 32;
    hz.writer.assign(nb, 0xFF);
    hz.wstamp.assign(nb, 0);
    hz.wloc.assign(nb, SrcLoc{});
    for (int q = 0; q < Hazards::kP; q++) {
      hz.rstamp[q].assign(nb, 0);
      hz.rloc[q].assign(nb, SrcLoc{});
    }
  }
};

Diagnostic launch_diag(const char* kind, const std::string& api, std::string msg,
                       std::vector<std::pair<std::string, double>> nums) {
  Diagnostic d;
  d.kind = kind;
  d.severity = Severity::Error;
  d.api = api;
  d.message = std::move(msg);
  d.numbers = std::move(nums);
  return d;
}

unsigned thread_count(uint32_t block_dim) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  unsigned n = std::min<unsigned>(block_dim, hw);
  if (const char* e = std::getenv("AGENTICCANN_SIM_THREADS")) {
    long v = std::strtol(e, nullptr, 10);
    if (v >= 1) n = std::min<unsigned>(n, unsigned(v));
  }
  return std::max(1u, n);
}

void end_of_kernel_checks(CoreContext& c) {
  for (size_t p = 0; p < c.pipes.size(); p++) {
    if (c.pipes[p].live) qs::pipe_destroy(c, int32_t(p), true);
  }
  std::vector<std::pair<uint64_t, const std::deque<SrcLoc>*>> left;
  for (const auto& [key, q] : c.flags)
    if (!q.empty()) left.emplace_back(key, &q);
  std::sort(left.begin(), left.end(), [](auto& a, auto& b) { return a.first < b.first; });
  static const char* names[] = {"S", "V", "MTE2", "MTE3"};
  for (const auto& [key, q] : left) {
    unsigned src = unsigned((key >> 16) & 0xFF), dst = unsigned((key >> 8) & 0xFF), id = unsigned(key & 0xFF);
    record_error("flag_unpaired", "SetFlag", q->front(),
                 fmt("SetFlag(%s->%s, event %u) is never matched by a WaitFlag before the kernel ends (%zu pending); "
                     "the residual flag corrupts the next kernel's synchronisation",
                     names[src & 3], names[dst & 3], id, q->size()),
                 {{"event_id", double(id)}, {"pending", double(q->size())}});
  }
}

// Two cores writing the same GM bytes in one launch race on the NPU (FC-14: overlapping
// per-core ranges, a rounded-up tail DataCopy into the next core's slice): the result
// depends on which core writes last. Writes ordered by cross-core synchronisation
// (SyncAll, IBSet/IBWait, NotifyNextBlock/WaitPreBlock: the earlier write's epoch is
// known to the later writer) are no race. Unordered writes of identical bytes give a
// deterministic result: `gm_write_duplicate` (warning), reported once; different bytes:
// `gm_write_race` (error), the first overlap found, on the core whose write comes second
// in address order.
bool ordered(uint32_t ca, const CoreContext::GmWrite& a, uint32_t cb, const CoreContext::GmWrite& b) {
  if (b.vc && ca < b.vc->size() && a.epoch <= (*b.vc)[ca]) return true;
  if (a.vc && cb < a.vc->size() && b.epoch <= (*a.vc)[cb]) return true;
  return false;
}

bool same_bytes(const CoreContext::GmWrite& a, const CoreContext::GmWrite& b, uintptr_t lo, uintptr_t hi) {
  if (!a.has_data || !b.has_data) return false;
  return std::memcmp(a.data.data() + (lo - a.lo), b.data.data() + (lo - b.lo), hi - lo) == 0;
}

void check_gm_write_races(std::vector<std::vector<CoreContext::GmWrite>>& writes,
                          std::vector<std::vector<Diagnostic>>& per_core) {
  struct W {
    uintptr_t lo, hi;
    uint32_t core;
    const CoreContext::GmWrite* w;
  };
  std::vector<W> all;
  for (uint32_t c = 0; c < writes.size(); c++)
    for (const auto& w : writes[c]) all.push_back({w.lo, w.hi, c, &w});
  if (all.size() < 2) return;
  std::sort(all.begin(), all.end(), [](const W& a, const W& b) { return a.lo < b.lo || (a.lo == b.lo && a.core < b.core); });
  uintptr_t reach = 0;
  const W* owner = nullptr;
  bool duplicate_reported = false;
  for (const W& w : all) {
    if (owner && w.lo < reach && w.core != owner->core && !ordered(owner->core, *owner->w, w.core, *w.w)) {
      uintptr_t end = std::min(reach, w.hi);
      gm::Allocation a;
      uint64_t off = 0;
      if (gm::find_allocation(reinterpret_cast<const void*>(w.lo), &a)) off = w.lo - reinterpret_cast<uintptr_t>(a.base);
      const bool same = same_bytes(*owner->w, *w.w, w.lo, end);
      if (!same || !duplicate_reported) {
        Diagnostic d;
        d.kind = same ? "gm_write_duplicate" : "gm_write_race";
        d.severity = same ? Severity::Warning : Severity::Error;
        d.api = w.w->api;
        d.file = w.w->loc.file_name();
        d.line = w.w->loc.line();
        d.core = int32_t(w.core);
        d.message =
            same ? fmt("cores %u and %u both write the same %llu bytes to GM offset %llu of one allocation (core %u's "
                       "write at %s:%u) with no cross-core synchronisation between; the bytes are identical, so the "
                       "result is deterministic, but the duplicated traffic costs bandwidth — let one core write them",
                       owner->core, w.core, (unsigned long long)(end - w.lo), (unsigned long long)off, owner->core,
                       owner->w->loc.file_name(), owner->w->loc.line())
                 : fmt("cores %u and %u both write the %llu GM bytes at offset %llu of one allocation (core %u's write "
                       "at %s:%u); on the NPU the result depends on which core writes last — give each core a "
                       "disjoint slice and copy unaligned tails with DataCopyPad",
                       owner->core, w.core, (unsigned long long)(end - w.lo), (unsigned long long)off, owner->core,
                       owner->w->loc.file_name(), owner->w->loc.line());
        d.numbers = {{"first_core", double(owner->core)}, {"second_core", double(w.core)},
                     {"bytes", double(end - w.lo)}, {"offset", double(off)}};
        per_core[w.core].push_back(std::move(d));
        if (!same) return;
        duplicate_reported = true;
      }
    }
    if (w.hi > reach) {
      reach = w.hi;
      owner = &w;
    }
  }
}

// A core that reads GM bytes another core of the launch writes, with no cross-core
// synchronisation ordering the two (SyncAll, IBSet/IBWait, NotifyNextBlock/WaitPreBlock),
// sees the old or the new bytes depending on timing: on the NPU the cores run concurrently
// and a DMA write lands at no defined moment for another core (CANN Ascend C API reference,
// "SyncAll": the synchronisation a workspace written by some cores and read by others
// needs). The host threads of the simulator may happen to run the writer first, so the
// value check alone does not catch a missing SyncAll. `gm_read_race` (error), the first
// one found per reading core.
void check_gm_read_races(const std::vector<std::vector<CoreContext::GmWrite>>& writes,
                         const std::vector<std::vector<CoreContext::GmRead>>& reads,
                         std::vector<std::vector<Diagnostic>>& per_core) {
  struct W {
    uintptr_t lo, hi;
    uint32_t core;
    const CoreContext::GmWrite* w;
  };
  std::vector<W> all;
  for (uint32_t c = 0; c < writes.size(); c++)
    for (const auto& w : writes[c]) all.push_back({w.lo, w.hi, c, &w});
  if (all.empty()) return;
  std::sort(all.begin(), all.end(), [](const W& a, const W& b) { return a.lo < b.lo; });
  std::vector<uintptr_t> reach(all.size());  // max hi of all[0..i]
  for (size_t i = 0; i < all.size(); i++) reach[i] = std::max(all[i].hi, i ? reach[i - 1] : 0);
  for (uint32_t rc = 0; rc < reads.size(); rc++) {
    bool reported = false;
    for (const CoreContext::GmRead& r : reads[rc]) {
      if (reported) break;
      // Writes starting before r.hi, scanned down while some earlier write may reach r.lo.
      size_t n = size_t(std::lower_bound(all.begin(), all.end(), r.hi,
                                         [](const W& a, uintptr_t v) { return a.lo < v; }) -
                        all.begin());
      for (size_t i = n; i-- > 0;) {
        if (reach[i] <= r.lo) break;
        const W& w = all[i];
        if (w.core == rc || w.hi <= r.lo) continue;
        const bool w_before_r = r.vc && w.core < r.vc->size() && w.w->epoch <= (*r.vc)[w.core];
        const bool r_before_w = w.w->vc && rc < w.w->vc->size() && r.epoch <= (*w.w->vc)[rc];
        if (w_before_r || r_before_w) continue;
        uintptr_t a = std::max(r.lo, w.lo), e = std::min(r.hi, w.hi);
        gm::Allocation al;
        uint64_t off = 0;
        if (gm::find_allocation(reinterpret_cast<const void*>(a), &al)) off = a - reinterpret_cast<uintptr_t>(al.base);
        Diagnostic d;
        d.kind = "gm_read_race";
        d.severity = Severity::Error;
        d.api = r.api;
        d.file = r.loc.file_name();
        d.line = r.loc.line();
        d.core = int32_t(rc);
        d.message = fmt("core %u reads %llu GM bytes at offset %llu of one allocation that core %u writes (%s at %s:%u) "
                        "with no cross-core synchronisation between: on the NPU the cores run concurrently and the "
                        "read sees the old or the new bytes depending on timing — put a SyncAll (or IBSet/IBWait) "
                        "between the write and the read",
                        rc, (unsigned long long)(e - a), (unsigned long long)off, w.core, w.w->api,
                        w.w->loc.file_name(), w.w->loc.line());
        d.numbers = {{"reading_core", double(rc)}, {"writing_core", double(w.core)},
                     {"bytes", double(e - a)}, {"offset", double(off)}};
        per_core[rc].push_back(std::move(d));
        reported = true;
        break;
      }
    }
  }
}

// A core that reads, after a cross-core synchronisation, GM bytes another core wrote with
// GlobalTensor::SetValue before it sees GM's old bytes unless the writer wrote the line back
// with DataCacheCleanAndInvalid before that synchronisation: a SetValue changes only the
// writer's data cache (CANN Ascend C API reference, "DataCacheCleanAndInvalid": scalar GM
// writes that other cores must see need it). The simulator's GM is coherent, so the values
// alone would pass. `gm_dcache_stale` (error), the first one per reading core. (Reads not
// ordered after the write at all are gm_read_race.)
void check_dcache_stale_reads(const std::vector<std::vector<CoreContext::DirtyLine>>& logs,
                              const std::vector<std::vector<CoreContext::GmRead>>& reads,
                              std::vector<std::vector<Diagnostic>>& per_core) {
  struct L {
    uintptr_t line;
    uint32_t core;
    const CoreContext::DirtyLine* d;
  };
  std::vector<L> all;
  for (uint32_t c = 0; c < logs.size(); c++)
    for (const auto& d : logs[c]) all.push_back({d.line, c, &d});
  if (all.empty()) return;
  std::sort(all.begin(), all.end(), [](const L& a, const L& b) { return a.line < b.line; });
  for (uint32_t rc = 0; rc < reads.size(); rc++) {
    bool reported = false;
    for (const CoreContext::GmRead& r : reads[rc]) {
      if (reported || !r.vc) break;
      auto it = std::lower_bound(all.begin(), all.end(), r.lo / kDcacheLine * kDcacheLine,
                                 [](const L& a, uintptr_t v) { return a.line < v; });
      for (; it != all.end() && it->line < r.hi; ++it) {
        if (it->core == rc || it->core >= r.vc->size()) continue;
        const uint32_t known = (*r.vc)[it->core];  // the writer's epochs this read is ordered after
        const CoreContext::DirtyLine& d = *it->d;
        if (known < d.dirtied || (d.cleaned != kDcacheNever && known >= d.cleaned)) continue;
        if (!(d.bytes & dcache_mask(d.line, r.lo, r.hi))) continue;  // other bytes of the line: GM has them
        Diagnostic g;
        g.kind = "gm_dcache_stale";
        g.severity = Severity::Error;
        g.api = r.api;
        g.file = r.loc.file_name();
        g.line = r.loc.line();
        g.core = int32_t(rc);
        g.message = fmt("core %u reads a 64-byte GM line that core %u changed with GlobalTensor::SetValue at %s:%u "
                        "and did not write back (DataCacheCleanAndInvalid) before the synchronisation this read "
                        "follows: the SetValue changed core %u's data cache only, so on the NPU this read sees "
                        "GM's old bytes",
                        rc, it->core, d.loc.file_name(), d.loc.line(), it->core);
        g.numbers = {{"reading_core", double(rc)}, {"writing_core", double(it->core)}};
        per_core[rc].push_back(std::move(g));
        reported = true;
        break;
      }
    }
  }
}

template <class T>
void combine(uint8_t* gm, const std::vector<uint8_t>& data, CoreContext::Atomic op) {
  size_t n = data.size() / sizeof(T);
  for (size_t i = 0; i < n; i++) {
    T a, b;
    std::memcpy(&a, gm + i * sizeof(T), sizeof(T));
    std::memcpy(&b, data.data() + i * sizeof(T), sizeof(T));
    float fa = to_f32(a), fb = to_f32(b);
    T r;
    if constexpr (std::is_integral_v<T>) {
      int64_t x = int64_t(a), y = int64_t(b);
      r = T(op == CoreContext::Atomic::Add ? x + y : op == CoreContext::Atomic::Max ? std::max(x, y) : std::min(x, y));
    } else {
      r = from_f32<T>(op == CoreContext::Atomic::Add ? fa + fb
                      : op == CoreContext::Atomic::Max ? (fb > fa ? fb : fa)
                                                       : (fb < fa ? fb : fa));
    }
    std::memcpy(gm + i * sizeof(T), &r, sizeof(T));
  }
}

}  // namespace

void apply_atomic_writes_of(std::vector<CoreContext::AtomicWrite>& writes) {
    for (auto& w : writes) {
      switch (w.dtype) {
        case DType::F32: combine<float>(w.gm, w.data, w.op); break;
        case DType::F16: combine<half>(w.gm, w.data, w.op); break;
        case DType::BF16: combine<bfloat16_t>(w.gm, w.data, w.op); break;
        case DType::I32: combine<int32_t>(w.gm, w.data, w.op); break;
        case DType::I16: combine<int16_t>(w.gm, w.data, w.op); break;
        case DType::I8: combine<int8_t>(w.gm, w.data, w.op); break;
        default: break;
      }
    }
}

namespace {
// Applies the atomic UB->GM writes of every core, core by core in order.
void apply_atomic_writes(std::vector<std::vector<CoreContext::AtomicWrite>>& per_core) {
  for (auto& writes : per_core) apply_atomic_writes_of(writes);
}

void run_core(uint32_t idx, uint32_t block_dim, uint32_t ub_bytes, cost::CoreRecorder* rec, uint64_t key,
              CrossCore* xc, Arena& arena, const std::function<void()>& body, std::vector<Diagnostic>& out,
              std::vector<CoreContext::GmWrite>& gm_writes, std::vector<CoreContext::GmRead>& gm_reads,
              std::vector<CoreContext::DirtyLine>& dcache_log, std::vector<CoreContext::AtomicWrite>& atomics) {
  arena.ensure(ub_bytes);
  CoreContext c;
  c.serial = g_serial.fetch_add(1);
  c.block_idx = int32_t(idx);
  c.block_num = block_dim;
  c.ub = arena.ub;
  c.shadow = arena.shadow;
  c.ub_bytes = ub_bytes;
  c.rec = rec;
  c.tiling_key = key;
  const uint32_t dirty = std::min(arena.dirty, ub_bytes);
  std::memset(c.ub, kUbPoison, dirty);
  std::memset(c.shadow, kUninit, dirty);
  const size_t db = (dirty + 31) / 32;
  std::memset(arena.hz.writer.data(), 0xFF, db);
  std::memset(arena.hz.wstamp.data(), 0, db * sizeof(uint32_t));
  for (int q = 0; q < Hazards::kP; q++) {
    std::memset(arena.hz.rstamp[q].data(), 0, db * sizeof(uint32_t));
  }
  arena.hz.tokens.clear();
  c.hz.writer.swap(arena.hz.writer);
  c.hz.wstamp.swap(arena.hz.wstamp);
  c.hz.wloc.swap(arena.hz.wloc);
  for (int q = 0; q < Hazards::kP; q++) {
    c.hz.rstamp[q].swap(arena.hz.rstamp[q]);
    c.hz.rloc[q].swap(arena.hz.rloc[q]);
  }
  CoreContext* prev = tl_ctx;
  tl_ctx = &c;
  cross_core_start(c, xc);
  try {
    body();
    end_of_kernel_checks(c);
  } catch (const KernelAbort&) {
  } catch (const std::bad_alloc& e) {
    // The simulator's own records (or the kernel's host-side allocations) reached the
    // run's memory limit: say so, rather than only naming the exception.
    Diagnostic d = launch_diag("kernel_exception", "kernel",
                               fmt("the kernel threw a C++ exception: %s: the simulator ran out of host memory while "
                                   "running it (the run's memory limit); typical cause: a loop that never ends, or far "
                                   "more instructions than the data needs",
                                   e.what()),
                               {});
    d.core = int32_t(idx);
    c.diags.push_back(std::move(d));
  } catch (const std::exception& e) {
    Diagnostic d = launch_diag("kernel_exception", "kernel", fmt("the kernel threw a C++ exception: %s", e.what()), {});
    d.core = int32_t(idx);
    c.diags.push_back(std::move(d));
  } catch (...) {
    Diagnostic d = launch_diag("kernel_exception", "kernel", "the kernel threw a C++ exception of unknown type", {});
    d.core = int32_t(idx);
    c.diags.push_back(std::move(d));
  }
  cross_core_finish(c);
  tl_ctx = prev;
  // Give the storage back to the arena; only [0, ub_high) can differ from the reset state.
  c.hz.writer.swap(arena.hz.writer);
  c.hz.wstamp.swap(arena.hz.wstamp);
  c.hz.wloc.swap(arena.hz.wloc);
  for (int q = 0; q < Hazards::kP; q++) {
    c.hz.rstamp[q].swap(arena.hz.rstamp[q]);
    c.hz.rloc[q].swap(arena.hz.rloc[q]);
  }
  arena.dirty = c.ub_high;
  out = std::move(c.diags);
  gm_writes = std::move(c.gm_writes);
  gm_reads = std::move(c.gm_reads);
  dcache_log = std::move(c.dcache_log);
  atomics = std::move(c.atomic_writes);
}

// Identical diagnostics (kind, severity, api, file, line) from several cores are listed
// once, on the lowest core, with a "cores" number counting the cores that hit it.
std::vector<Diagnostic> merge(std::vector<std::vector<Diagnostic>>& per_core) {
  std::vector<Diagnostic> out;
  std::map<std::tuple<std::string, int, std::string, std::string, uint32_t>, size_t> seen;
  for (auto& v : per_core) {
    for (auto& d : v) {
      auto k = std::make_tuple(d.kind, int(d.severity), d.api, d.file, d.line);
      auto it = seen.find(k);
      if (it == seen.end()) {
        seen.emplace(k, out.size());
        out.push_back(std::move(d));
        continue;
      }
      Diagnostic& first = out[it->second];
      bool found = false;
      for (auto& [name, v2] : first.numbers)
        if (name == "cores") {
          v2 += 1;
          found = true;
        }
      if (!found) first.numbers.emplace_back("cores", 2);
    }
  }
  return out;
}
}  // namespace

void set_tiling_key(uint64_t key) { g_tiling_key.store(key); }
uint64_t tiling_key() { return g_tiling_key.load(); }

LaunchResult run_kernel(const std::string& kernel_name, uint32_t block_dim, const std::function<void()>& body) {
  LaunchResult res;
  res.kernel = kernel_name;
  res.block_dim = block_dim;
  const cost::Profile* prof = nullptr;
  try {
    prof = &cost::active_profile();
  } catch (const std::exception& e) {
    res.failed = true;
    res.diagnostics.push_back(launch_diag("profile_invalid", "launch", fmt("cannot load the SoC profile: %s", e.what()), {}));
    return res;
  }
  if (block_dim == 0 || block_dim > prof->max_block_dim) {
    res.failed = true;
    res.diagnostics.push_back(launch_diag(
        "block_dim_invalid", "launch",
        fmt("blockDim %u is invalid: it must be in [1, %u] (a zero-size launch must return before launching)", block_dim,
            prof->max_block_dim),
        {{"block_dim", double(block_dim)}, {"max", double(prof->max_block_dim)}}));
    return res;
  }
  std::unique_ptr<cost::LaunchCost> lc;
  std::vector<cost::CoreRecorder*> recs(block_dim);
  try {
    lc = std::make_unique<cost::LaunchCost>(*prof, block_dim);
    for (uint32_t i = 0; i < block_dim; i++) recs[i] = &lc->core(i);
  } catch (const std::exception& e) {
    res.failed = true;
    res.diagnostics.push_back(launch_diag("profile_invalid", "launch", fmt("cost model setup failed: %s", e.what()), {}));
    return res;
  }
  auto snap = gm::snapshot();
  uint64_t key = tiling_key();
  std::vector<std::vector<Diagnostic>> per_core(block_dim);
  std::vector<std::vector<CoreContext::GmWrite>> gm_writes(block_dim);
  std::vector<std::vector<CoreContext::GmRead>> gm_reads(block_dim);
  std::vector<std::vector<CoreContext::DirtyLine>> dcache_logs(block_dim);
  std::vector<std::vector<CoreContext::AtomicWrite>> atomics(block_dim);
  std::atomic<uint32_t> next{0};
  const uint32_t ub_bytes = prof->ub_bytes;
  // A program that uses cross-core synchronisation runs every block of a launch on its own
  // thread (all resident, as the NPU requires; cross_core.h), when the SoC has that many
  // cores; otherwise the cross-core calls report cross_core_block_dim_exceeded.
  const bool xmode = cross_core_used();
  const bool all_live = xmode && block_dim <= prof->aiv_cores;
  std::unique_ptr<CrossCore, void (*)(CrossCore*)> xc(xmode ? cross_core_new(block_dim, all_live) : nullptr,
                                                      cross_core_delete);
  auto worker = [&]() {
    static thread_local Arena arena;
    const gm::Snapshot* prev = tl_gm_snapshot;
    tl_gm_snapshot = snap.get();
    for (;;) {
      uint32_t i = next.fetch_add(1);
      if (i >= block_dim) break;
      run_core(i, block_dim, ub_bytes, recs[i], key, xc.get(), arena, body, per_core[i], gm_writes[i], gm_reads[i],
               dcache_logs[i], atomics[i]);
    }
    tl_gm_snapshot = prev;
  };
  unsigned nt = all_live ? block_dim : thread_count(block_dim);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < nt; t++) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  check_gm_write_races(gm_writes, per_core);
  check_gm_read_races(gm_writes, gm_reads, per_core);
  check_dcache_stale_reads(dcache_logs, gm_reads, per_core);
  apply_atomic_writes(atomics);
  for (auto& v : per_core)
    for (auto& d : v)
      if (d.severity == Severity::Error) res.failed = true;
  res.diagnostics = merge(per_core);
  if (!res.failed) {
    try {
      res.report = lc->finish(kernel_name);
    } catch (const std::exception& e) {
      res.failed = true;
      res.diagnostics.push_back(launch_diag("cost_model_error", "launch", fmt("the cost model failed: %s", e.what()), {}));
    }
  }
  return res;
}

std::string LaunchResult::to_json() const {
  std::string s = "{\"kernel\":\"";
  for (char ch : kernel) {
    if (ch == '"' || ch == '\\') s += '\\';
    s += ch;
  }
  s += "\",\"block_dim\":" + std::to_string(block_dim);
  s += ",\"failed\":";
  s += failed ? "true" : "false";
  s += ",\"diagnostics\":[";
  for (size_t i = 0; i < diagnostics.size(); i++) {
    if (i) s += ',';
    s += diagnostics[i].to_json();
  }
  s += "],\"report\":";
  s += failed ? "null" : report.to_json();
  s += '}';
  return s;
}

}  // namespace ascendc_sim
