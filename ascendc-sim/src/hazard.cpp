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
// Scalar (PIPE_S) accesses are ordered with every pipe by the compiler's auto-sync,
// and hz_scalar tells the cost model which pipes that auto-sync waits for, so that a
// scalar access cannot serve as a free barrier. A wait on the scalar pipe orders every
// pipe (the scalar unit issues everything after it). GM written by this core's MTE3 is
// tracked per byte range until a later read is ordered after it (gm_pending).
#include <algorithm>
#include <iterator>
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
    const SrcLoc& other = raw ? h.wloc[b] : h.rloc[q][b];
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
      h.rloc[p][b] = loc;
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
    h.wloc[b] = loc;
    for (int q = 1; q < Hazards::kP; q++) h.rstamp[q][b] = 0;
  }
}

uint8_t hz_scalar(CoreContext& c, uint32_t lo, uint32_t hi, bool write) {
  if (hi <= lo) return 0;
  Hazards& h = c.hz;
  constexpr int S = int(Pipe::S), V = int(Pipe::V);
  // What the scalar unit knows once it has waited: it always waits for the vector pipe
  // (V->S auto-sync, as the cost model charges), which brings what V knew (a drained V
  // is past every flag or DeQue it waited on). A pipe whose write (or, for a write, read)
  // of these bytes is still unknown is waited for too: every instruction it issued so
  // far, and what it knew. The cost model drains exactly these pipes (A.1 of issue 13).
  uint32_t know[Hazards::kP];
  for (int q = 0; q < Hazards::kP; q++) know[q] = std::max(h.vc[S][q], h.vc[V][q]);
  know[V] = std::max(know[V], h.counter[V]);
  uint8_t drain = uint8_t(1u << V);
  auto need = [&](int q, uint32_t stamp) {
    if (q == S || stamp <= know[q]) return;
    drain = uint8_t(drain | (1u << q));
    know[q] = h.counter[q];
    for (int r = 0; r < Hazards::kP; r++) know[r] = std::max(know[r], h.vc[q][r]);
  };
  const uint32_t b0 = lo / 32, b1 = (hi - 1) / 32;
  for (uint32_t b = b0; b <= b1; b++) {
    if (h.writer[b] != 0xFF) need(h.writer[b], h.wstamp[b]);
    if (write) {
      for (int q = 1; q < Hazards::kP; q++)
        if (h.rstamp[q][b] != 0) need(q, h.rstamp[q][b]);
    }
  }
  // Every pipe's later instructions are issued after this access: they follow
  // everything the scalar unit now knows to be complete.
  for (int p = 0; p < Hazards::kP; p++)
    for (int q = 0; q < Hazards::kP; q++) h.vc[p][q] = std::max(h.vc[p][q], know[q]);
  if (write) {
    for (uint32_t b = b0; b <= b1; b++) {
      for (int q = 0; q < Hazards::kP; q++) h.rstamp[q][b] = 0;
      h.writer[b] = 0xFF;
    }
  }
  return drain;
}

void hz_gm_write(CoreContext& c, uint32_t stamp, const void* p, uint64_t bytes, const SrcLoc& loc) {
  if (bytes == 0) return;
  auto& m = c.hz.gm_pending;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  // Cut what the new range covers out of the ranges it overlaps.
  auto it = m.lower_bound(lo);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->second.hi > lo) {
      Hazards::GmSpan tail = prev->second;
      prev->second.hi = lo;
      if (tail.hi > hi) m.emplace(hi, tail);
    }
  }
  it = m.lower_bound(lo);
  while (it != m.end() && it->first < hi) {
    if (it->second.hi > hi) {
      Hazards::GmSpan tail = it->second;
      m.erase(it);
      m.emplace(hi, tail);
      break;
    }
    it = m.erase(it);
  }
  // Extend a range of the same instruction that ends where this one starts.
  it = m.lower_bound(lo);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->second.hi == lo && prev->second.stamp == stamp) {
      prev->second.hi = hi;
      return;
    }
  }
  m.emplace(lo, Hazards::GmSpan{hi, stamp, loc});
}

void hz_gm_read(CoreContext& c, Pipe pipe, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  Hazards& h = c.hz;
  auto& m = h.gm_pending;
  if (bytes == 0 || m.empty()) return;
  constexpr int M3 = int(Pipe::MTE3);
  const uint32_t known = h.vc[int(pipe)][M3];
  const uint32_t known_by_all = std::min(h.vc[int(Pipe::MTE2)][M3], h.vc[int(Pipe::S)][M3]);
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  auto it = m.upper_bound(lo);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first < hi) {
    if (it->second.hi <= lo) {
      ++it;
      continue;
    }
    if (it->second.stamp <= known_by_all) {
      it = m.erase(it);
      continue;
    }
    if (it->second.stamp > known) {
      const SrcLoc& w = it->second.loc;
      uintptr_t a = std::max(lo, it->first), e = std::min(hi, it->second.hi);
      fail("gm_unsynchronized_access", api, loc,
           fmt("%s reads GM bytes [%llu, %llu) of this read that this core's MTE3 copy at %s wrote, with no "
               "SetFlag/WaitFlag<HardEvent::MTE3_%s>, queue hand-off or PipeBarrier<PIPE_ALL> between them; on the "
               "NPU the read may see the old bytes (copies complete out of order across MTE3 and %s)",
               pipe_name(int(pipe)), static_cast<unsigned long long>(a - lo), static_cast<unsigned long long>(e - lo),
               where(w).c_str(), pipe == Pipe::S ? "S" : "MTE2", pipe_name(int(pipe))),
           {{"gm_byte_offset", double(a - lo)}, {"bytes", double(e - a)}});
    }
    ++it;
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
  // A wait on the scalar pipe stalls the scalar unit, which issues every later
  // instruction of every pipe: all of them follow what the signal published (the cost
  // model blocks the scalar walk on it). Other pipes' waits order that pipe only.
  const bool scalar = pipe == Pipe::S;
  for (int p = 0; p < Hazards::kP; p++) {
    if (!scalar && p != int(pipe)) continue;
    for (int q = 0; q < Hazards::kP; q++) h.vc[p][q] = std::max(h.vc[p][q], it->second[size_t(q)]);
  }
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

namespace ascendc_sim {

namespace {
// Ids 0..5 of each HardEvent are for user flags; 6 and 7 are reserved (api-reference §2.6).
constexpr int kUserEventIds = 6;
}  // namespace

int8_t event_alloc(uint8_t evt, bool take, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  uint8_t& used = c.event_ids_used[evt & 63];
  for (int id = 0; id < kUserEventIds; id++) {
    if (!(used & (1u << id))) {
      if (take) used = uint8_t(used | (1u << id));
      c.rec->scalar(1);
      return int8_t(id);
    }
  }
  fail("event_id_misuse", api, loc,
       fmt("all %d user event ids of this HardEvent are allocated (AllocEventID without ReleaseEventID); ids 6 and 7 "
           "are reserved — release ids after their WaitFlag",
           kUserEventIds),
       {{"allocated", double(kUserEventIds)}});
}

void event_release(uint8_t evt, int32_t id, const char* api, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  uint8_t& used = c.event_ids_used[evt & 63];
  if (id < 0 || id >= kUserEventIds || !(used & (1u << id))) {
    fail("event_id_misuse", api, loc,
         fmt("ReleaseEventID(%d) of an id that AllocEventID did not hand out for this HardEvent (or released twice)", id),
         {{"event_id", double(id)}});
  }
  used = uint8_t(used & ~(1u << id));
  c.rec->scalar(1);
}

}  // namespace ascendc_sim
