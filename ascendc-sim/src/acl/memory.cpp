// src/acl/memory.cpp — device and host memory, copies and memsets.
//
// Device memory is host memory registered allocation by allocation in the GM registry
// (ascendc_sim/gm.h), so that kernels and copies are checked against the bytes the host
// asked for. Like CANN's aclrtMalloc, the simulator reserves the request rounded up to
// 32 bytes plus 32 bytes, but registers only the requested size: a kernel that strays
// past the end gets a diagnostic, never a corrupted host heap.
#include <cstdlib>
#include <cstring>
#include <string>

#include "ascendc_sim/gm.h"
#include "runtime.h"

namespace ascendc_sim::acl {
namespace {

constexpr size_t kDeviceAlign = 512;  // start alignment of device allocations
constexpr uint8_t kPoison = 0xFF;     // uninitialized bytes (NaN for f16, bf16 and f32)

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

bool is_device(gm::Origin o) { return o != gm::Origin::AclrtMallocHost; }

// Allocates `size` bytes (plus CANN's padding) and registers them. Returns null when the
// host cannot provide the memory.
void* allocate(size_t size, gm::Origin origin) {
  if (size > (size_t(1) << 48)) return nullptr;
  const size_t reserved = round_up(round_up(size, 32) + 32, kDeviceAlign);
  void* p = std::aligned_alloc(kDeviceAlign, reserved);
  if (!p) return nullptr;
  std::memset(p, kPoison, reserved);
  gm::register_allocation(p, size, origin);
  return p;
}

// Checks one side of a copy or memset. `device` = the kind says this side is device
// memory. Returns ACL_SUCCESS or the failure (already recorded).
aclError check_side(const char* api, const char* side, const void* p, size_t count, bool device) {
  gm::Allocation a;
  const bool known = gm::find_allocation(p, &a);
  if (device) {
    if (!known || !is_device(a.origin))
      return fail(ACL_ERROR_INVALID_PARAM,
                  std::string(api) + ": " + side + " " + hex(p) +
                      " is not device memory (no aclrtMalloc allocation contains it" +
                      (known ? std::string("; it is ") + gm::origin_name(a.origin) + " memory" : "") +
                      "); check the pointer and the aclrtMemcpyKind");
    const size_t offset = size_t(static_cast<const uint8_t*>(p) - a.base);
    if (count > a.bytes - offset)
      return fail(ACL_ERROR_INVALID_PARAM,
                  std::string(api) + ": " + side + " range " + hex(p) + " + " +
                      std::to_string(count) + " bytes exceeds its " + gm::origin_name(a.origin) +
                      " allocation of " + std::to_string(a.bytes) + " bytes at " + hex(a.base) +
                      " by " + std::to_string(count - (a.bytes - offset)) + " bytes");
    return ACL_SUCCESS;
  }
  if (known && is_device(a.origin))
    return fail(ACL_ERROR_INVALID_PARAM,
                std::string(api) + ": " + side + " " + hex(p) + " is device memory from " +
                    gm::origin_name(a.origin) + ", but the aclrtMemcpyKind says host memory");
  if (known && count > a.bytes - size_t(static_cast<const uint8_t*>(p) - a.base))
    return fail(ACL_ERROR_INVALID_PARAM,
                std::string(api) + ": " + side + " range " + hex(p) + " + " +
                    std::to_string(count) + " bytes exceeds its aclrtMallocHost allocation of " +
                    std::to_string(a.bytes) + " bytes");
  return ACL_SUCCESS;
}

aclError check_copy(const char* api, void* dst, size_t dest_max, const void* src, size_t count,
                    aclrtMemcpyKind kind) {
  bool dst_dev, src_dev;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: dst_dev = false; src_dev = false; break;
    case ACL_MEMCPY_HOST_TO_DEVICE: dst_dev = true; src_dev = false; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: dst_dev = false; src_dev = true; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: dst_dev = true; src_dev = true; break;
    default:
      return fail(ACL_ERROR_INVALID_PARAM,
                  std::string(api) + ": unknown aclrtMemcpyKind " + std::to_string(int(kind)));
  }
  if (!dst || !src)
    return fail(ACL_ERROR_INVALID_PARAM,
                std::string(api) + ": " + (!dst ? "dst" : "src") + " is null");
  if (count > dest_max)
    return fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count " + std::to_string(count) +
                                             " bytes exceeds destMax " +
                                             std::to_string(dest_max) + " bytes");
  if (aclError e = check_side(api, "dst", dst, count, dst_dev)) return e;
  return check_side(api, "src", src, count, src_dev);
}

aclError check_memset(const char* api, void* p, size_t max_count, size_t count) {
  if (!p) return fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr is null");
  if (count > max_count)
    return fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count " + std::to_string(count) +
                                             " bytes exceeds maxCount " +
                                             std::to_string(max_count) + " bytes");
  gm::Allocation a;
  // As in CANN, the address decides host or device; unregistered memory is host memory
  // whose size the simulator cannot know.
  if (gm::find_allocation(p, &a)) return check_side(api, "devPtr", p, count, is_device(a.origin));
  return ACL_SUCCESS;
}

void wait_all_streams() {
  for (auto& s : all_streams()) s->synchronize();
}

}  // namespace
}  // namespace ascendc_sim::acl

using namespace ascendc_sim;
using namespace ascendc_sim::acl;

extern "C" {

aclError aclrtMalloc(void** dev_ptr, size_t size, aclrtMemMallocPolicy policy) {
  if (!dev_ptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is null");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size is 0");
  if (int(policy) < 0 || int(policy) > int(ACL_MEM_MALLOC_NORMAL_ONLY_P2P))
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclrtMalloc: unknown aclrtMemMallocPolicy " + std::to_string(int(policy)));
  if (!current_context("aclrtMalloc")) return ACL_ERROR_RT_CONTEXT_NULL;
  Runtime& rt = runtime();
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    if (size > kDeviceMemoryBytes - rt.device_bytes)
      return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                  "aclrtMalloc: " + std::to_string(size) + " bytes requested, " +
                      std::to_string(kDeviceMemoryBytes - rt.device_bytes) +
                      " bytes of the simulated device's " + std::to_string(kDeviceMemoryBytes) +
                      " are free");
    rt.device_bytes += size;
  }
  void* p = allocate(size, gm::Origin::AclrtMalloc);
  if (!p) {
    std::lock_guard<std::mutex> lock(rt.mu);
    rt.device_bytes -= size;
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtMalloc: the host could not provide " + std::to_string(size) + " bytes");
  }
  *dev_ptr = p;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* dev_ptr) {
  if (!dev_ptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is null");
  gm::Allocation a;
  if (!gm::find_allocation(dev_ptr, &a) || a.base != dev_ptr ||
      a.origin != gm::Origin::AclrtMalloc)
    return fail(ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFree: " + hex(dev_ptr) +
                    " is not the start of a live aclrtMalloc allocation (freed twice, never "
                    "allocated, or from another allocator); nothing was freed");
  // No queued task may touch the memory after it is released.
  wait_all_streams();
  if (!gm::unregister_allocation(dev_ptr))
    return fail(ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFree: " + hex(dev_ptr) + " was freed concurrently by another thread");
  Runtime& rt = runtime();
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    rt.device_bytes -= a.bytes;
  }
  std::free(dev_ptr);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** host_ptr, size_t size) {
  if (!host_ptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is null");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0");
  void* p = allocate(size, gm::Origin::AclrtMallocHost);
  if (!p)
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtMallocHost: the host could not provide " + std::to_string(size) + " bytes");
  *host_ptr = p;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* host_ptr) {
  if (!host_ptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is null");
  gm::Allocation a;
  if (!gm::find_allocation(host_ptr, &a) || a.base != host_ptr ||
      a.origin != gm::Origin::AclrtMallocHost)
    return fail(ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFreeHost: " + hex(host_ptr) +
                    " is not the start of a live aclrtMallocHost allocation; nothing was freed");
  wait_all_streams();
  if (!gm::unregister_allocation(host_ptr))
    return fail(ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFreeHost: " + hex(host_ptr) + " was freed concurrently by another thread");
  std::free(host_ptr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t dest_max, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  if (aclError e = check_copy("aclrtMemcpy", dst, dest_max, src, count, kind)) return e;
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* dev_ptr, size_t max_count, int32_t value, size_t count) {
  if (aclError e = check_memset("aclrtMemset", dev_ptr, max_count, count)) return e;
  std::memset(dev_ptr, value & 0xFF, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t dest_max, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  aclError code = ACL_SUCCESS;
  auto s = resolve_stream(stream, "aclrtMemcpyAsync", &code);
  if (!s) return code;
  if (aclError e = check_copy("aclrtMemcpyAsync", dst, dest_max, src, count, kind)) return e;
  return s->enqueue(Task{Task::Kind::Memory,
                         [dst, src, count](Stream&) { std::memmove(dst, src, count); }});
}

aclError aclrtMemsetAsync(void* dev_ptr, size_t max_count, int32_t value, size_t count,
                          aclrtStream stream) {
  aclError code = ACL_SUCCESS;
  auto s = resolve_stream(stream, "aclrtMemsetAsync", &code);
  if (!s) return code;
  if (aclError e = check_memset("aclrtMemsetAsync", dev_ptr, max_count, count)) return e;
  return s->enqueue(Task{Task::Kind::Memory, [dev_ptr, value, count](Stream&) {
                           std::memset(dev_ptr, value & 0xFF, count);
                         }});
}

}  // extern "C"
