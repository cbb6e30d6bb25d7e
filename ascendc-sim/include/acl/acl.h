// acl/acl.h — AscendCL entry header (simulator subset). `#include "acl/acl.h"` is all host
// code needs, as with CANN. ascendc-sim's own header; signatures are CANN's.
#ifndef ASCENDC_SIM_ACL_H
#define ASCENDC_SIM_ACL_H

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 2
#define ACL_PATCH_VERSION 0

/// Initializes AscendCL. `configPath` may be NULL; the simulator ignores the file. A
/// second aclInit without aclFinalize is ACL_ERROR_REPEAT_INITIALIZE. The simulator's
/// other calls do not require aclInit (CANN's do: call it first in portable code).
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
/// Ends AscendCL use. ACL_ERROR_REPEAT_FINALIZE when not initialized. The simulator
/// accepts a later aclInit again (CANN allows one aclInit per process).
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion,
                                             int32_t* patchVersion);
/// The message of the calling thread's most recent failing AscendCL call, or NULL when
/// none failed yet. The pointer stays valid until the thread's next failing call.
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif  // ASCENDC_SIM_ACL_H
