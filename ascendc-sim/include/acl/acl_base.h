// acl/acl_base.h — AscendCL base types and the ACL_ERROR_* codes (simulator subset).
//
// ascendc-sim's own header, written for the simulator: host code written for CANN's
// `#include "acl/acl.h"` compiles unchanged against it. Type names, signatures and code
// values are CANN's public ABI (CANN's external `acl_base.h`, mirrored in
// mindspore-ai/graphengine `inc/external/acl/acl_base.h`); only the part the simulator
// implements is declared.
#ifndef ASCENDC_SIM_ACL_BASE_H
#define ASCENDC_SIM_ACL_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

/// Opaque handles. On the simulator each points to a runtime object that the runtime
/// validates on every call (an unknown handle is an error code, never a crash).
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
/// Return code of every AscendCL call: ACL_SUCCESS (0) or one of the codes below.
typedef int aclError;
/// IEEE binary16 bits.
typedef uint16_t aclFloat16;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;

// 100xxx: parameters and lifecycle.
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
// 200xxx: resources and devices.
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
// 500xxx: internal failures.
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;

/// Element types (values as in CANN).
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_BF16 = 27,  // value UNCERTAIN: newer CANN headers only; not in the graphengine copy
} aclDataType;

/// fp16 bits -> float (exact).
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
/// float -> fp16 bits, round to nearest even.
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);
/// Bytes of one element of `dataType`; 0 for ACL_DT_UNDEFINED or an unknown value.
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

#ifdef __cplusplus
}
#endif

#endif  // ASCENDC_SIM_ACL_BASE_H
