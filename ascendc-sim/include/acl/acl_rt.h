// acl/acl_rt.h — the AscendCL runtime subset the simulator implements.
//
// ascendc-sim's own header. Signatures are CANN's (`acl/acl_rt.h`, api-reference §6.5), so
// host code written for the NPU compiles unchanged. What each call does on the simulator:
//
// * One simulated device (id 0). Device memory is host memory; every aclrtMalloc /
//   aclrtMallocHost allocation is registered in the GM registry (ascendc_sim/gm.h) so
//   kernels and copies are checked against what the host really allocated.
// * Contexts are per thread as in CANN: aclrtSetDevice / aclrtCreateContext make one
//   current on the calling thread; memory, stream and event calls need a current context
//   (else ACL_ERROR_RT_CONTEXT_NULL).
// * Streams are asynchronous: each has a FIFO of tasks (kernel launches, async copies,
//   memsets, event records) run in order by a worker thread. A failed kernel launch puts
//   the stream in a sticky error state: later tasks on it are skipped (event records
//   still complete) and aclrtSynchronizeStream returns ACL_ERROR_RT_AICORE_EXCEPTION
//   until the stream is destroyed. The launch's diagnostics are kept for the C API
//   (ascendc_sim/capi.h).
// * Time: each stream has a modelled clock in µs that only kernel launches advance (by
//   the cost model's LaunchReport::total_us). Copies and memsets take no modelled time.
//   aclrtRecordEvent stamps the clock when the stream reaches the event;
//   aclrtEventElapsedTime returns the difference in ms. Host wall time is never used.
// * aclrtFree waits until every stream of every context is idle before releasing memory
//   (no queued task can then touch freed memory), like cudaFree's implicit sync.
// * Every failing call returns its code and leaves a sentence for aclGetRecentErrMsg.
#ifndef ASCENDC_SIM_ACL_RT_H
#define ASCENDC_SIM_ACL_RT_H

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtRunMode { ACL_DEVICE, ACL_HOST } aclrtRunMode;

typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
} aclrtMemMallocPolicy;

// ---- devices and contexts -------------------------------------------------------------

/// Opens device `deviceId` (reference counted) and makes its default context current on
/// the calling thread. ACL_ERROR_RT_INVALID_DEVICEID unless 0 <= deviceId < count.
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/// Drops one reference taken by aclrtSetDevice; the last one waits for the default
/// context's streams and destroys that context.
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/// The device of the calling thread's current context.
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId);
/// Number of devices: 1 on the simulator.
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count);
/// ACL_HOST on the simulator (the host drives the device).
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode* runMode);
/// Waits for every stream of every context on the current device; returns the first
/// stream error found (the errors stay sticky on their streams).
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/// Creates a context on `deviceId` and makes it current on the calling thread.
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);
/// Destroys a context made by aclrtCreateContext (its default stream is drained first).
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context);

// ---- streams --------------------------------------------------------------------------

/// Creates a stream in the current context. A null aclrtStream anywhere means the
/// current context's default stream.
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream);
/// Waits for the stream's queued work, then destroys it.
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/// Blocks until every task queued on `stream` has run. ACL_ERROR_RT_AICORE_EXCEPTION
/// when a kernel launch on it failed (see the file comment).
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

// ---- memory ---------------------------------------------------------------------------

/// Allocates `size` bytes of device memory (512-byte aligned start, contents
/// uninitialized: filled with 0xFF bytes, i.e. NaN for f16/f32). size 0 is
/// ACL_ERROR_INVALID_PARAM; failure to allocate is ACL_ERROR_RT_MEMORY_ALLOCATION.
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
/// Frees memory from aclrtMalloc after every stream is idle. A pointer that is not the
/// start of a live aclrtMalloc allocation (double free, foreign pointer) is
/// ACL_ERROR_RT_MEMORY_FREE and frees nothing.
ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr);

/// Synchronous copy of `count` bytes. Checked: count <= destMax; the device side(s) of
/// `kind` must lie inside one aclrtMalloc allocation; the host side(s) must not be
/// aclrtMalloc memory. Any violation is ACL_ERROR_INVALID_PARAM and copies nothing.
/// Not ordered with work queued on streams (as on the NPU).
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind);
/// Sets `count` bytes at `devPtr` to (uint8_t)value. count <= maxCount; when `devPtr`
/// is device memory the range must lie inside its allocation.
ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
/// aclrtMemcpy queued on `stream` (checks run at the call; the copy runs in order).
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);
/// aclrtMemset queued on `stream`.
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

// ---- events ---------------------------------------------------------------------------

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent* event);
/// Destroys an event; a record still queued on a stream is kept alive until it runs.
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
/// Event flags (hicann/runtime docs, aclrtCreateEventExWithFlag.md). Every simulated event
/// records the stream's modelled time and can order streams, whatever the flags.
#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_IPC 0x00000040U
/// aclrtCreateEvent with flags (a bitwise or of the ACL_EVENT_* values); other bits are
/// ACL_ERROR_INVALID_PARAM.
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag);
/// Later tasks of `stream` wait until the event's latest record (queued before this call,
/// on any stream) has run; the stream's modelled clock then is at least the event's stamp.
/// An event never recorded does not block.
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
/// Queues a record of `event` on `stream`: when the stream reaches it, the event takes
/// the stream's modelled clock and completes.
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
/// Blocks until the event's latest record completed. ACL_ERROR_RT_AICORE_EXCEPTION when
/// its stream was in the error state at that point.
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status);
/// Modelled milliseconds from `start` to `end`. Both must have completed a record:
/// never recorded = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, record still queued =
/// ACL_ERROR_RT_EVENT_NOT_COMPLETE, end before start = ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL.
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end);

#ifdef __cplusplus
}
#endif

#endif  // ASCENDC_SIM_ACL_RT_H
