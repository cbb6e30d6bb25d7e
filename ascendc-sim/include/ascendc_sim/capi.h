// ascendc_sim/capi.h — the simulator's C API beyond AscendCL, for Rust (agenticcann) and
// other FFI users. Everything AscendCL can express goes through acl/acl.h; this adds what
// only a simulator knows: per-launch results with structured diagnostics and the cost
// model's report, and the active SoC profile.
//
// Strings returned as `char*` are JSON, allocated by the simulator: release each with
// ascendc_sim_string_free. `const char*` results are owned by the simulator.
// A null aclrtStream means the calling thread's current context's default stream.
#ifndef ASCENDC_SIM_CAPI_H
#define ASCENDC_SIM_CAPI_H

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// JSON array of the launches on `stream` that finished since the previous take (oldest
/// first; at most the 4096 most recent are kept), each a LaunchResult::to_json object:
/// {"kernel","block_dim","failed","diagnostics":[...],"report":{...}}. Does not wait for
/// queued work (call aclrtSynchronizeStream first). NULL when `stream` is not live
/// (aclGetRecentErrMsg says why).
char* ascendc_sim_stream_take_launches(aclrtStream stream);

/// JSON object of the most recent finished launch on `stream` (kept across takes), or
/// NULL when none finished yet or `stream` is not live.
char* ascendc_sim_stream_last_launch(aclrtStream stream);

/// JSON object of the launch that put `stream` in the error state (the first failed
/// one), or NULL when the stream has not failed or is not live.
char* ascendc_sim_stream_failure(aclrtStream stream);

/// The stream's modelled clock in µs: the sum of total_us over the successful launches
/// that finished on it. -1 when `stream` is not live.
double ascendc_sim_stream_clock_us(aclrtStream stream);

/// Declares the device allocation that starts at `ptr` (aclrtMalloc, aclrtMallocHost,
/// GmAlloc) a kernel output (`on` != 0) or an ordinary buffer again (`on` == 0). In every
/// later launch, a core that reads bytes of an output it has not itself written in that
/// launch (DataCopy/DataCopyPad GM->UB, GlobalTensor::GetValue) gets the error
/// "gm_output_read_before_write": an output holds the caller's fill (the judge's
/// poison), which a kernel must not read, e.g. to learn that it is being tested.
/// In-place operators pass their buffer as an input instead. Returns 0, or 1 when `ptr`
/// is not the start of a registered allocation.
int ascendc_sim_gm_set_output(const void* ptr, int on);

/// Releases a string returned by this API. NULL is ignored.
void ascendc_sim_string_free(char* s);

/// JSON object describing the active SoC profile:
/// {"soc","path","ub_bytes","aiv_cores","max_block_dim"}, or {"error": "..."} when the
/// profile cannot be loaded. Never NULL except when out of memory.
char* ascendc_sim_profile_json(void);

#ifdef __cplusplus
}
#endif

#endif  // ASCENDC_SIM_CAPI_H
