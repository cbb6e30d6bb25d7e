// Cross-pipe UB hazard detection (FC-23) and the synchronisation plumbing shared by
// queues, flags and barriers (core.h, sync.h).
//
// Each pipe counts its instructions. vc[p][q] is what pipe p knows of pipe q: every
// instruction of q with a stamp <= vc[p][q] has completed before p's next instruction.
// A signal on pipe p publishes p's knowledge plus p's own count under a SyncKey; a wait
// on pipe p merges it. Per 32-byte UB block the last writer and the last reader per
// pipe are kept; an access from pipe p to a block last written (or, for a write, read)
// by another pipe q at a stamp p does not know of is an unsynchronized access. Same-pipe
// order (V after V, MTE2 after MTE2) is what the hardware and the compiler give.
// Scalar (PIPE_S) accesses are ordered with every pipe by the compiler's auto-sync.
#include <algorithm>
#include <cstring>

#include "ascendc_sim/core.h"
#include "ascendc_sim/sync.h"

namespace ascendc_sim {

namespace {
const char* pipe_name(int p) {
  static const char* names[] = {"S", "V", "MTE2", "MTE3"};
  return names[p];
}
std::string where(const SrcLoc& l) { return fmt("%s:%u", l.file_name(), l.line()); }
}  // namespace

void hz_access(CoreContext& c, Pipe pipe, uint32_t stamp, uint32_t lo, uint32_t hi, bool write, const char* api,
               const SrcLoc& loc) {
  if (hi <= lo) return;
  Hazards& h = c.hz;
  const int p = int(pipe);
  const uint32_t* know = h.vc[p];
  uint8_t* writer = h.writer.data();
  uint32_t* wstamp = h.wstamp.data();
  const uint32_t b0 = lo / 32, b1 = (hi - 1) / 32;
  auto report = [&](uint32_t b, int q, bool raw) {
    const SrcLoc& other = h.locs[q][(raw ? wstamp[b] : h.rstamp[q][b]) - 1];
    if (raw) {
      fail("ub_unsynchronized_access", api, loc,
           fmt("%s %s UB bytes [%u, %u) that %s wrote at %s with no queue hand-off (EnQue/DeQue), SetFlag/WaitFlag "
               "or PipeBarrier<PIPE_ALL> between them; on the NPU the %s may run before the write completes",
               pipe_name(p), write ? "writes" : "reads", b * 32, b * 32 + 32, pipe_name(q), where(other).c_str(),
               write ? "write" : "read"),
           {{"ub_block_offset", double(b * 32)}});
    }
    fail("ub_unsynchronized_access", api, loc,
         fmt("%s writes UB bytes [%u, %u) that %s reads at %s with no queue hand-off (FreeTensor/AllocTensor), "
             "SetFlag/WaitFlag or PipeBarrier<PIPE_ALL> between them; on the NPU the write may overtake the read",
             pipe_name(p), b * 32, b * 32 + 32, pipe_name(q), where(other).c_str()),
         {{"ub_block_offset", double(b * 32)}});
  };
  if (!write) {
    uint32_t* rs = h.rstamp[p].data();
    for (uint32_t b = b0; b <= b1; b++) {
      uint8_t w = writer[b];
      if (w != 0xFF && w != p && wstamp[b] > know[w]) report(b, w, true);
      rs[b] = stamp;
    }
    return;
  }
  for (uint32_t b = b0; b <= b1; b++) {
    uint8_t w = writer[b];
    if (w != 0xFF && w != p && wstamp[b] > know[w]) report(b, w, true);
    for (int q = 1; q < Hazards::kP; q++) {  // S (0) never records reads
      if (q != p && h.rstamp[q][b] > know[q]) report(b, q, false);
    }
    writer[b] = uint8_t(p);
    wstamp[b] = stamp;
    for (int q = 1; q < Hazards::kP; q++) h.rstamp[q][b] = 0;
  }
}

void hz_scalar(CoreContext& c, uint32_t lo, uint32_t hi, bool write) {
  if (hi <= lo) return;
  Hazards& h = c.hz;
  for (uint32_t b = lo / 32, e = (hi - 1) / 32; b <= e; b++) {
    uint8_t w = h.writer[b];
    if (w != 0xFF) {
      for (int p = 0; p < Hazards::kP; p++) h.vc[p][w] = std::max(h.vc[p][w], h.wstamp[b]);
    }
    if (write) {
      for (int q = 0; q < Hazards::kP; q++) {
        if (h.rstamp[q][b] == 0) continue;
        for (int p = 0; p < Hazards::kP; p++) h.vc[p][q] = std::max(h.vc[p][q], h.rstamp[q][b]);
        h.rstamp[q][b] = 0;
      }
      h.writer[b] = 0xFF;
    }
  }
}

void sync_signal(CoreContext& c, Pipe pipe, SyncKey key) {
  c.rec->signal(pipe, key);
  c.signalled[key.value] = true;
  Hazards& h = c.hz;
  std::vector<uint32_t>& tok = h.tokens[key.value];
  tok.assign(h.vc[int(pipe)], h.vc[int(pipe)] + Hazards::kP);
  tok[int(pipe)] = h.counter[int(pipe)];
}

void sync_wait(CoreContext& c, Pipe pipe, SyncKey key) {
  if (!c.signalled.count(key.value)) return;
  c.rec->wait(pipe, key);
  Hazards& h = c.hz;
  auto it = h.tokens.find(key.value);
  if (it == h.tokens.end()) return;
  for (int q = 0; q < Hazards::kP; q++) h.vc[int(pipe)][q] = std::max(h.vc[int(pipe)][q], it->second[size_t(q)]);
}

void sync_barrier(CoreContext& c, Pipe pipe, bool all) {
  c.rec->barrier(pipe, all);
  if (!all) return;
  Hazards& h = c.hz;
  for (int p = 0; p < Hazards::kP; p++)
    for (int q = 0; q < Hazards::kP; q++) h.vc[p][q] = std::max(h.vc[p][q], h.counter[q]);
}

void set_flag(Pipe src, Pipe dst, int32_t event_id, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  if (event_id < 0 || event_id > 7) {
    fail("field_out_of_range", api, loc, fmt("event id %d is outside [0, 7] (910B has 8 event ids per pipe pair)", event_id),
         {{"event_id", double(event_id)}, {"max", 7}});
  }
  SyncKey key = flag_key(src, dst, event_id);
  std::deque<SrcLoc>& pending = c.flags[key.value];
  if (!pending.empty()) {
    fail("flag_set_twice", api, loc,
         fmt("SetFlag(%s->%s, event %d) while the same flag, set at %s:%u, has not been waited; the same event id must "
             "not be set twice in a row (the second WaitFlag would hang)",
             pipe_name(int(src)), pipe_name(int(dst)), event_id, pending.front().file_name(), pending.front().line()),
         {{"event_id", double(event_id)}});
  }
  pending.push_back(loc);
  sync_signal(c, src, key);
}

void wait_flag(Pipe src, Pipe dst, int32_t event_id, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  if (event_id < 0 || event_id > 7) {
    fail("field_out_of_range", api, loc, fmt("event id %d is outside [0, 7] (910B has 8 event ids per pipe pair)", event_id),
         {{"event_id", double(event_id)}, {"max", 7}});
  }
  SyncKey key = flag_key(src, dst, event_id);
  auto it = c.flags.find(key.value);
  if (it == c.flags.end() || it->second.empty()) {
    fail("flag_wait_deadlock", api, loc,
         fmt("WaitFlag(%s->%s, event %d) has no SetFlag with the same event and id before it; on the NPU the %s pipe "
             "would wait forever",
             pipe_name(int(src)), pipe_name(int(dst)), event_id, pipe_name(int(dst))),
         {{"event_id", double(event_id)}});
  }
  it->second.pop_front();
  sync_wait(c, dst, key);
}

void pipe_barrier(Pipe pipe, bool all, const SrcLoc&) {
  CoreContext& c = ctx("PipeBarrier");
  sync_barrier(c, pipe, all);
}

}  // namespace ascendc_sim
