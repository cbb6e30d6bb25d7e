// The host allocation registry (gm.h) and the GM access check every API uses.
#include "ascendc_sim/gm.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "ascendc_sim/core.h"
#include "ascendc_sim/launch_internal.h"

namespace ascendc_sim::gm {

namespace {
std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::map<uintptr_t, Allocation>& table() {
  static std::map<uintptr_t, Allocation> t;
  return t;
}
bool find_locked(const void* ptr, Allocation* out) {
  auto& t = table();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = t.upper_bound(p);
  if (it == t.begin()) return false;
  --it;
  const Allocation& a = it->second;
  // A zero-byte allocation still owns its start address (so that it can be freed).
  if (p < it->first || p >= it->first + std::max<size_t>(a.bytes, 1)) return false;
  if (out) *out = a;
  return true;
}
}  // namespace

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::AclrtMalloc: return "aclrtMalloc";
    case Origin::AclrtMallocHost: return "aclrtMallocHost";
    case Origin::GmAlloc: return "GmAlloc";
  }
  return "?";
}

void register_allocation(const void* ptr, size_t bytes, Origin origin) {
  std::lock_guard<std::mutex> g(mu());
  table()[reinterpret_cast<uintptr_t>(ptr)] = Allocation{static_cast<const uint8_t*>(ptr), bytes, origin};
}

bool unregister_allocation(const void* ptr) {
  std::lock_guard<std::mutex> g(mu());
  return table().erase(reinterpret_cast<uintptr_t>(ptr)) == 1;
}

bool set_write_before_read(const void* ptr, bool on) {
  std::lock_guard<std::mutex> g(mu());
  auto it = table().find(reinterpret_cast<uintptr_t>(ptr));
  if (it == table().end()) return false;
  it->second.write_before_read = on;
  return true;
}

bool find_allocation(const void* ptr, Allocation* out) {
  std::lock_guard<std::mutex> g(mu());
  return find_locked(ptr, out);
}

bool in_bounds(const void* ptr, size_t bytes) {
  Allocation a;
  if (!find_allocation(ptr, &a)) return false;
  return static_cast<const uint8_t*>(ptr) + bytes <= a.base + a.bytes;
}

bool Snapshot::find(const void* ptr, Allocation* out) const {
  const uint8_t* p = static_cast<const uint8_t*>(ptr);
  auto it = std::upper_bound(allocs.begin(), allocs.end(), p,
                             [](const uint8_t* q, const Allocation& a) { return q < a.base; });
  if (it == allocs.begin()) return false;
  --it;
  if (p >= it->base + std::max<size_t>(it->bytes, 1)) return false;
  *out = *it;
  return true;
}

std::shared_ptr<const Snapshot> snapshot() {
  auto s = std::make_shared<Snapshot>();
  std::lock_guard<std::mutex> g(mu());
  s->allocs.reserve(table().size());
  for (const auto& [k, a] : table()) {
    s->allocs.push_back(a);
    s->any_write_before_read = s->any_write_before_read || a.write_before_read;
  }
  return s;
}

}  // namespace ascendc_sim::gm

namespace ascendc_sim {

void check_gm(const void* p, uint64_t bytes, bool write, const char* api, const SrcLoc& loc) {
  gm::Allocation a;
  const gm::Snapshot* snap = tl_gm_snapshot;
  bool found = snap ? snap->find(p, &a) : gm::find_allocation(p, &a);
  const char* verb = write ? "write" : "read";
  if (!found) {
    fail("gm_out_of_bounds", api, loc,
         fmt("GM %s of %llu bytes at %p is not inside any allocation the host made (aclrtMalloc, "
             "aclrtMallocHost or GmAlloc)",
             verb, static_cast<unsigned long long>(bytes), p),
         {{"bytes", double(bytes)}});
  }
  uint64_t off = uint64_t(static_cast<const uint8_t*>(p) - a.base);
  if (off + bytes > a.bytes) {
    uint64_t over = off + bytes - a.bytes;
    fail("gm_out_of_bounds", api, loc,
         fmt("GM %s of %llu bytes at byte offset %llu of a %llu-byte %s allocation runs past its end by %llu bytes",
             verb, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(off),
             static_cast<unsigned long long>(a.bytes), gm::origin_name(a.origin),
             static_cast<unsigned long long>(over)),
         {{"bytes", double(bytes)},
          {"offset", double(off)},
          {"allocation_bytes", double(a.bytes)},
          {"overflow_bytes", double(over)}});
  }
}

}  // namespace ascendc_sim

namespace ascendc_sim {

namespace {
// The write-before-read allocation holding [p, p + bytes), if any (nullptr otherwise).
bool output_allocation(const void* p, gm::Allocation* a) {
  const gm::Snapshot* snap = tl_gm_snapshot;
  if (!snap || !snap->any_write_before_read) return false;
  return snap->find(p, a) && a->write_before_read;
}
}  // namespace

void gm_note_output_write(CoreContext& c, const void* p, uint64_t bytes) {
  gm::Allocation a;
  if (bytes == 0 || !output_allocation(p, &a)) return;
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  auto& m = c.output_written;
  // Union of intervals: merge every range that overlaps or touches [lo, hi).
  auto it = m.upper_bound(lo);
  if (it != m.begin() && std::prev(it)->second >= lo) --it;
  while (it != m.end() && it->first <= hi) {
    lo = std::min(lo, it->first);
    hi = std::max(hi, it->second);
    it = m.erase(it);
  }
  m.emplace(lo, hi);
}

void gm_check_output_read(CoreContext& c, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  gm::Allocation a;
  if (bytes == 0 || !output_allocation(p, &a)) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  uintptr_t at = lo;  // first byte not yet known written
  const auto& m = c.output_written;
  auto it = m.upper_bound(lo);
  if (it != m.begin()) --it;
  for (; it != m.end() && it->first <= at && at < hi; ++it) at = std::max(at, it->second);
  if (at >= hi) return;
  uint64_t off = uint64_t(reinterpret_cast<const uint8_t*>(at) - a.base);
  fail("gm_output_read_before_write", api, loc,
       fmt("reads byte %llu of an output buffer (%llu bytes) that this core has not written in this launch: "
           "an output holds the caller's fill, not data (the judge fills it with a poison), so a kernel must "
           "write its outputs before reading them back; an in-place operator declares the output as an input "
           "in its spec",
           static_cast<unsigned long long>(off), static_cast<unsigned long long>(a.bytes)),
       {{"offset", double(off)}, {"allocation_bytes", double(a.bytes)}});
}

void gm_dma_read(CoreContext& c, Pipe pipe, const void* p, uint64_t bytes, const char* api, const SrcLoc& loc) {
  if (pipe == Pipe::MTE2 && bytes > 0 && !c.dcache_dirty.empty()) {
    // A DMA copy reads GM, not this core's data cache: a line SetValue dirtied and no
    // DataCacheCleanAndInvalid wrote back still has the old bytes in GM.
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
    for (auto it = c.dcache_dirty.lower_bound(lo / kDcacheLine * kDcacheLine);
         it != c.dcache_dirty.end() && it->first < hi; ++it) {
      const CoreContext::DirtyLine& d = c.dcache_log[it->second];
      if (!(d.bytes & dcache_mask(it->first, lo, hi))) continue;
      fail("gm_dcache_stale", api, loc,
           fmt("MTE2 copies GM bytes of a 64-byte cache line this core's GlobalTensor::SetValue at %s:%u changed in "
               "its data cache only: a DMA copy reads GM, which keeps the old bytes until a "
               "DataCacheCleanAndInvalid of that line (or of the entire data cache) writes it back",
               d.loc.file_name(), d.loc.line()),
           {{"gm_byte_offset", double(std::max(lo, it->first) - lo)}});
    }
  }
  hz_gm_read(c, pipe, p, bytes, api, loc);
  gm_check_output_read(c, p, bytes, api, loc);
  note_gm_read(c, p, bytes, api, loc);
}

}  // namespace ascendc_sim
