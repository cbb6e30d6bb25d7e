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
  for (const auto& [k, a] : table()) s->allocs.push_back(a);
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
