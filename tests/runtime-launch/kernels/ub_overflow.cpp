// A bad kernel: asks for 2 x 100 KiB of Unified Buffer on a core that has 192 KiB.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> queue;
  pipe.InitBuffer(queue, 2, 100 * 1024);  // LINE_UB_OVERFLOW
  GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 8);
}
