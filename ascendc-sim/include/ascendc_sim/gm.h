// ascendc_sim/gm.h — Global Memory as the host allocated it.
//
// On the simulator, device memory is host memory. Every allocation the host makes
// (aclrtMalloc, aclrtMallocHost, AscendC::GmAlloc) is registered here, allocation by
// allocation, so that kernel accesses are checked against what the host allocated —
// not against what the kernel claims in SetGlobalBuffer (field case FC-06).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ascendc_sim::gm {

/// Who made an allocation; printed in diagnostics.
enum class Origin : uint8_t { AclrtMalloc, AclrtMallocHost, GmAlloc };

/// Records [ptr, ptr + bytes) as device memory. Thread-safe.
void register_allocation(const void* ptr, size_t bytes, Origin origin);

/// Forgets the allocation that starts at `ptr`. Returns false when `ptr` is not the
/// start of a registered allocation (the caller reports the error).
bool unregister_allocation(const void* ptr);

/// The registered allocation containing `ptr`, if any.
struct Allocation {
  const uint8_t* base = nullptr;
  size_t bytes = 0;
  Origin origin = Origin::AclrtMalloc;
  /// A kernel output that a launch must write before it reads it (set_write_before_read):
  /// its bytes hold the caller's fill (the judge's poison), never data for the kernel.
  bool write_before_read = false;
};
bool find_allocation(const void* ptr, Allocation* out);

/// Marks (or unmarks) the allocation that starts at `ptr` as an output every launch
/// must write before reading: a core that reads bytes of it it has not written in the
/// same launch gets "gm_output_read_before_write". Returns false when `ptr` is not the
/// start of a registered allocation. Thread-safe; takes effect at the next launch.
bool set_write_before_read(const void* ptr, bool on);

/// True when [ptr, ptr + bytes) lies inside one registered allocation.
bool in_bounds(const void* ptr, size_t bytes);

/// Name of an origin as printed: "aclrtMalloc", "aclrtMallocHost", "GmAlloc".
const char* origin_name(Origin o);

/// An immutable copy of the registry, sorted by address. run_kernel takes one per
/// launch so that kernel accesses are checked without taking the registry lock.
struct Snapshot {
  std::vector<Allocation> allocs;
  bool any_write_before_read = false;
  bool find(const void* ptr, Allocation* out) const;
};
std::shared_ptr<const Snapshot> snapshot();

}  // namespace ascendc_sim::gm
