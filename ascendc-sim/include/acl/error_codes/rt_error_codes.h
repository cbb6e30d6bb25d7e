// acl/error_codes/rt_error_codes.h — runtime (ACL_ERROR_RT_*) error codes of AscendCL.
//
// ascendc-sim's own header, written for the simulator. The names and numbers are CANN's
// public ABI (values as published in CANN's external header
// `inc/external/acl/error_codes/rt_error_codes.h`, mirrored in mindspore-ai/graphengine),
// so that host code comparing against them behaves the same on the simulator and on an NPU.
// Only the codes the simulator returns, plus their closest neighbours, are listed.
#ifndef ASCENDC_SIM_ACL_RT_ERROR_CODES_H
#define ASCENDC_SIM_ACL_RT_ERROR_CODES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const int32_t ACL_RT_SUCCESS = 0;

// 107xxx: the caller passed something the runtime rejects.
static const int32_t ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int32_t ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int32_t ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int32_t ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int32_t ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
static const int32_t ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL = 107007;
static const int32_t ACL_ERROR_RT_ADDR_UNALIGNED = 107008;
static const int32_t ACL_ERROR_RT_INVALID_MEMORY_TYPE = 107016;
static const int32_t ACL_ERROR_RT_INVALID_HANDLE = 107017;

// 207xxx: resources.
static const int32_t ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int32_t ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int32_t ACL_ERROR_RT_MEMORY_FREE = 207002;
static const int32_t ACL_ERROR_RT_NO_DEVICE = 207004;

// 507xxx: failures while work executes.
static const int32_t ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int32_t ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004;
static const int32_t ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006;
static const int32_t ACL_ERROR_RT_AICORE_TIMEOUT = 507014;
static const int32_t ACL_ERROR_RT_AICORE_EXCEPTION = 507015;
static const int32_t ACL_ERROR_RT_AICORE_TRAP_EXCEPTION = 507016;

#ifdef __cplusplus
}
#endif

#endif  // ASCENDC_SIM_ACL_RT_ERROR_CODES_H
