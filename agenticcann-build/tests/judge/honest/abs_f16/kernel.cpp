// Adapted from ascendc-sim/tests/kernels/abs_unaligned.cpp to the store ABI (agenticcann_tiling.h).
// Abs, fp16, of a length with no alignment: each core copies its whole slice in one
// DataCopyPad (blockLen in bytes), computes on the exact count and writes back with
// DataCopyPad; the UB buffer is the slice rounded up to 32 bytes (single buffer).
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelAbs {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    xGm.SetGlobalBuffer((__gm__ half*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    uint32_t aligned = (length_ + 15) / 16 * 16;
    if (aligned == 0) aligned = 16;
    pipe.InitBuffer(inQ, 1, aligned * sizeof(half));
    pipe.InitBuffer(outQ, 1, aligned * sizeof(half));
  }
  __aicore__ inline void Process() {
    if (length_ == 0) return;
    DataCopyExtParams copy{1, static_cast<uint32_t>(length_ * sizeof(half)), 0, 0, 0};
    LocalTensor<half> x = inQ.AllocTensor<half>();
    DataCopyPad(x, xGm, copy, {false, 0, 0, 0});
    inQ.EnQue(x);
    x = inQ.DeQue<half>();
    LocalTensor<half> y = outQ.AllocTensor<half>();
    Abs(y, x, length_);
    outQ.EnQue(y);
    inQ.FreeTensor(x);
    y = outQ.DeQue<half>();
    DataCopyPad(yGm, y, copy);
    outQ.FreeTensor(y);
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  GlobalTensor<half> xGm, yGm;
  uint32_t length_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelAbs op;
  op.Init(x, y, tiling);
  op.Process();
}
