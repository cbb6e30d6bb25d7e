// src/acl/runtime.h — internal state of the simulated AscendCL runtime (not installed).
//
// One process-wide Runtime owns the device reference counts and the registries of live
// contexts, streams and events. Every handle the C API receives is looked up here, so an
// unknown or destroyed handle is an error code, never a dereference of a dangling
// pointer. The Runtime and every registry are leaked on purpose: stream worker threads
// may still be parked at process exit, and destroying their mutexes then would crash.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "ascendc_sim/launch.h"

namespace ascendc_sim::acl {

/// Records `message` as the calling thread's recent error (aclGetRecentErrMsg) and
/// returns `code`, so call sites read `return fail(CODE, "...")`.
aclError fail(aclError code, std::string message);

/// Symbolic name of an aclError the simulator uses ("ACL_ERROR_INVALID_PARAM"), or
/// "ACL_ERROR_UNKNOWN".
const char* error_name(aclError code);

/// "0x7f..." for messages.
std::string hex(const void* p);

class Stream;

/// A context: a device plus its default stream (created on first use).
struct Context {
  int32_t device = 0;
  bool is_default = false;  // made by aclrtSetDevice, not aclrtCreateContext
  std::shared_ptr<Stream> default_stream;  // guarded by Runtime::mu
};

/// A recorded point in a stream's modelled time.
struct Event {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t queued = 0;     // records queued so far
  uint64_t completed = 0;  // highest record generation that ran
  double stamp_us = 0;     // stream clock when the latest completed record ran
  aclError status = ACL_SUCCESS;  // stream error state at that record
  const Stream* stream = nullptr;  // the stream of the latest completed record (its clock)
};

/// One unit of stream work, run by the stream's worker in FIFO order.
struct Task {
  enum class Kind : uint8_t { Kernel, Memory, Record };
  Kind kind = Kind::Memory;
  std::function<void(Stream&)> run;
};

/// An asynchronous in-order queue with a worker thread and a modelled clock.
class Stream {
 public:
  Stream(int32_t device, bool is_default);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int32_t device() const { return device_; }
  bool is_default() const { return is_default_; }

  /// Queues `task`. ACL_ERROR_INVALID_PARAM when the stream is shutting down.
  aclError enqueue(Task task);
  /// Blocks until the queue is empty and the worker idle; returns the sticky error
  /// (ACL_SUCCESS when no launch failed). Never called by the worker itself.
  aclError synchronize();
  /// Drains the queue, then stops and joins the worker. Idempotent.
  void shutdown();

  // Called by tasks on the worker thread.
  /// Stores a launch's outcome: a success advances the modelled clock by
  /// report.total_us; a failure sets the sticky ACL_ERROR_RT_AICORE_EXCEPTION.
  void finish_launch(LaunchResult result);
  /// The modelled clock (µs) and sticky error, read together.
  void clock_and_error(double* clock_us, aclError* error);
  /// Moves the modelled clock forward to `t_us` if it is behind (aclrtStreamWaitEvent).
  void advance_clock_to(double t_us);

  // Inspection for the C API (capi.cpp); callers synchronize first when they need to.
  std::vector<LaunchResult> take_launches();
  std::optional<LaunchResult> last_launch();
  std::optional<LaunchResult> failure();
  double clock_us();

  /// Launch results kept for take_launches(); older ones are dropped beyond this.
  static constexpr size_t kMaxKeptLaunches = 4096;

 private:
  void worker_loop();

  const int32_t device_;
  const bool is_default_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<Task> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  bool joined_ = false;
  double clock_us_ = 0;
  aclError error_ = ACL_SUCCESS;
  std::optional<LaunchResult> failure_;
  std::deque<LaunchResult> launches_;
  std::optional<LaunchResult> last_;
  std::thread worker_;
};

/// The simulator has one device; device memory is capped at the 910B1's 64 GB of HBM
/// (api-reference §5.2) so that a runaway allocation fails like on the NPU instead of
/// exhausting the host.
inline constexpr uint32_t kDeviceCount = 1;
inline constexpr uint64_t kDeviceMemoryBytes = 64ull << 30;

/// Process-wide runtime state.
struct Runtime {
  std::mutex mu;
  bool initialized = false;
  uint32_t device_refs[kDeviceCount] = {};
  std::shared_ptr<Context> default_context[kDeviceCount];
  std::map<const void*, std::shared_ptr<Context>> contexts;
  std::map<const void*, std::shared_ptr<Stream>> streams;  // includes default streams
  std::map<const void*, std::shared_ptr<Event>> events;
  uint64_t device_bytes = 0;  // live aclrtMalloc bytes (requested sizes)
};
Runtime& runtime();

/// The calling thread's current context, if it is still alive. Otherwise records
/// ACL_ERROR_RT_CONTEXT_NULL via fail() and returns null.
std::shared_ptr<Context> current_context(const char* api);
/// Sets the calling thread's current context (null clears it).
void set_current_context(const Context* ctx);

/// Resolves a stream handle: null = the current context's default stream (created on
/// first use). On failure returns null after fail() recorded the reason in `*code`.
std::shared_ptr<Stream> resolve_stream(aclrtStream handle, const char* api, aclError* code);

/// Every live stream (default ones included), optionally only of `device`.
std::vector<std::shared_ptr<Stream>> all_streams(int32_t device = -1);

}  // namespace ascendc_sim::acl
