// src/cost/launch_cost.cpp — LaunchCost: the recorders of one launch and its report.
//
// Environment (read when a LaunchCost is created):
//   AGENTICCANN_SIM_COST         on (default) | off. `off` turns every hook into a
//                                counter update only (bytes moved, accesses); finish()
//                                then returns a report with cost_accounting = false and
//                                all times 0. For measuring the model's own overhead.
//   AGENTICCANN_SIM_TRACE_LIMIT  maximum trace records per launch (default 4194304,
//                                48 bytes each). A launch that needs more fails in
//                                finish() with a message naming the kernel and limit.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ascendc_sim/cost.h"
#include "ascendc_sim/profile.h"
#include "ascendc_sim/report.h"
#include "engine.h"
#include "trace.h"

namespace ascendc_sim::cost {

namespace {

constexpr uint64_t kDefaultTraceLimit = uint64_t(1) << 22;

bool cost_enabled_from_env() {
  const char* v = std::getenv("AGENTICCANN_SIM_COST");
  if (!v || !*v) return true;
  std::string s(v);
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (s == "on" || s == "1" || s == "true" || s == "yes") return true;
  if (s == "off" || s == "0" || s == "false" || s == "no") return false;
  throw std::runtime_error("AGENTICCANN_SIM_COST='" + std::string(v) + "': expected 'on' or 'off'");
}

uint64_t trace_limit_from_env() {
  const char* v = std::getenv("AGENTICCANN_SIM_TRACE_LIMIT");
  if (!v || !*v) return kDefaultTraceLimit;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || n == 0) {
    throw std::runtime_error("AGENTICCANN_SIM_TRACE_LIMIT='" + std::string(v) +
                             "': expected a positive number of trace records");
  }
  return n;
}

}  // namespace

struct LaunchCost::Impl {
  const Profile* profile = nullptr;
  const Profile::Tables* tables = nullptr;
  uint32_t block_dim = 0;
  bool timing = true;
  TraceBudget budget;
  std::vector<CoreRecorder> cores;
};

LaunchCost::LaunchCost(const Profile& profile, uint32_t block_dim) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.profile = &profile;
  m.tables = &tables_of(profile);
  m.block_dim = block_dim;
  m.timing = cost_enabled_from_env();
  m.budget.limit = trace_limit_from_env();
  m.cores.resize(block_dim);
  for (CoreRecorder& r : m.cores) {
    r.impl_->t = m.tables;
    r.impl_->timing = m.timing;
    r.impl_->budget = &m.budget;
  }
}

LaunchCost::~LaunchCost() = default;

CoreRecorder& LaunchCost::core(uint32_t block_idx) {
  if (block_idx >= impl_->cores.size()) {
    throw std::out_of_range("LaunchCost::core: block index " + std::to_string(block_idx) +
                            " is outside the launch's block_dim " + std::to_string(impl_->cores.size()));
  }
  return impl_->cores[block_idx];
}

LaunchReport LaunchCost::finish(const std::string& kernel_name) {
  Impl& m = *impl_;
  const Profile& prof = *m.profile;
  const Profile::Tables& t = *m.tables;
  LaunchReport rep;
  rep.kernel = kernel_name;
  rep.soc = prof.soc;
  rep.block_dim = m.block_dim;
  rep.physical_cores = prof.aiv_cores;
  rep.cost_accounting = m.timing;
  // Whether the limit was exceeded, and the numbers reported, come from each core's own
  // record count, never from which core's thread happened to cross the shared budget
  // first: the same for any host thread count.
  uint64_t needed = 0, most = 0;
  uint32_t most_block = 0;
  for (uint32_t i = 0; i < m.cores.size(); ++i) {
    uint64_t n = m.cores[i].impl_->needed;
    needed += n;
    if (n > most) {
      most = n;
      most_block = i;
    }
  }
  if (needed > m.budget.limit) {
    throw std::runtime_error(
        "cost model: kernel '" + kernel_name + "' needs " + std::to_string(needed) + " trace records, more than " +
        std::to_string(m.budget.limit) + " (block " + std::to_string(most_block) + " needs the most: " +
        std::to_string(most) +
        "); its timing cannot be modelled within the memory budget. Typical cause: a loop that "
        "alternates tiny vector or DMA instructions with flags millions of times. Raise "
        "AGENTICCANN_SIM_TRACE_LIMIT (48 bytes per record) or set AGENTICCANN_SIM_COST=off.");
  }
  for (uint32_t i = 0; i < m.cores.size(); ++i) {
    const CoreRecorder::Impl& r = *m.cores[i].impl_;
    rep.gm_read_bytes += r.counters.gm_read_bytes;
    rep.gm_write_bytes += r.counters.gm_write_bytes;
    rep.scalar_gm_accesses += r.counters.scalar_gm;
    rep.scalar_ub_accesses += r.counters.scalar_ub;
    rep.dma_transfers += r.counters.dma_transfers;
    rep.vector_instrs += r.counters.vector_instrs;
  }
  rep.cores_used = std::min(m.block_dim, prof.aiv_cores);
  if (!m.timing) {
    rep.bound = Bound::Launch;
    return rep;
  }

  std::vector<const std::vector<Record>*> traces;
  traces.reserve(m.cores.size());
  for (const CoreRecorder& r : m.cores) traces.push_back(&r.impl_->records);
  ReplayResult rr = replay(t, prof.aiv_cores, traces);

  double body_ns = rr.end_ns;
  rep.launch_overhead_us = t.launch_overhead_us;
  rep.total_us = body_ns / 1000.0 + t.launch_overhead_us;
  uint64_t gm_bytes = rep.gm_read_bytes + rep.gm_write_bytes;
  rep.floor_us = double(gm_bytes) / t.hbm_peak_gbps / 1000.0 + t.launch_overhead_us;
  rep.hbm_bytes = uint64_t(rr.hbm_bytes + 0.5);
  if (rep.total_us < rep.floor_us * (1.0 - 1e-9)) {
    throw std::logic_error("cost model bug: kernel '" + kernel_name + "' modelled at " +
                           std::to_string(rep.total_us) + " us, below its physical floor of " +
                           std::to_string(rep.floor_us) + " us (" + std::to_string(gm_bytes) +
                           " GM bytes at the " + std::to_string(t.hbm_peak_gbps) +
                           " GB/s HBM peak of " + prof.soc + ", plus launch overhead)");
  }
  rep.roofline_fraction = rep.total_us > 0 ? std::min(1.0, rep.floor_us / rep.total_us) : 1.0;
  rep.achieved_gbps = body_ns > 0 ? double(gm_bytes) / body_ns : 0.0;

  // The slowest core (lowest index on ties) speaks for the pipes.
  size_t slow = 0;
  double sum = 0, lo = 0;
  for (size_t i = 0; i < rr.cores.size(); ++i) {
    const CoreTimeline& c = rr.cores[i];
    if (c.end_ns > rr.cores[slow].end_ns) slow = i;
    sum += c.end_ns;
    lo = i == 0 ? c.end_ns : std::min(lo, c.end_ns);
  }
  if (!rr.cores.empty()) {
    const CoreTimeline& s = rr.cores[slow];
    for (int p = 0; p < kPipeCount; ++p) {
      rep.pipe_busy_us[p] = s.busy_ns[p] / 1000.0;
      rep.pipe_utilisation[p] = body_ns > 0 ? std::clamp(s.busy_ns[p] / body_ns, 0.0, 1.0) : 0.0;
    }
    double mean = sum / double(rr.cores.size());
    rep.core_max_us = s.end_ns / 1000.0;
    rep.core_min_us = lo / 1000.0;
    rep.imbalance = mean > 0 ? std::max(0.0, s.end_ns / mean - 1.0) : 0.0;
  }
  if (body_ns / 1000.0 < t.launch_overhead_us) {
    rep.bound = Bound::Launch;
  } else {
    static const Bound by_pipe[kPipeCount] = {Bound::Scalar, Bound::V, Bound::MTE2, Bound::MTE3};
    int best = int(Pipe::MTE2);
    for (int p : {int(Pipe::MTE2), int(Pipe::V), int(Pipe::MTE3), int(Pipe::S)}) {
      if (rep.pipe_busy_us[p] > rep.pipe_busy_us[best]) best = p;
    }
    rep.bound = by_pipe[best];
  }
  return rep;
}

}  // namespace ascendc_sim::cost
