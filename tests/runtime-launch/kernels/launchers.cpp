// The `aclrtlaunch_<kernel>` launchers, in the form agenticcann-build generates for the
// simulator (issue 5): a C entry point per kernel that queues the launch on the stream.
#include "acl/acl.h"
#include "kernel_operator.h"
#include "tiling.h"

extern "C" __global__ __aicore__ void copy_f32(GM_ADDR x, GM_ADDR y, CopyTiling tiling);
extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x);

extern "C" uint32_t aclrtlaunch_copy_f32(uint32_t blockDim, aclrtStream stream, void* x, void* y,
                                         void* tiling) {
  return ASCENDC_SIM_LAUNCH(copy_f32, blockDim, stream, x, y, tiling);
}

extern "C" uint32_t aclrtlaunch_ub_overflow(uint32_t blockDim, aclrtStream stream, void* x) {
  return ASCENDC_SIM_LAUNCH(ub_overflow, blockDim, stream, x);
}
