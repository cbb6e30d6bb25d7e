// Adapted from ascendc-sim/tests/kernels/softmax_rows.cpp to the store ABI (agenticcann_tiling.h).
// Softmax over the last axis of an fp32 [rows, cols] matrix: max-subtraction, Exp, sum,
// scale. One row per tile, double-buffered; reductions on the exact column count, so the
// poisoned padding of the DataCopyPad'ed row never enters a result (FC-10).
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    uint32_t pitch = (cols_ + 7) / 8 * 8;
    xGm.SetGlobalBuffer((__gm__ float*)x + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start * cols_, rows_ * cols_);
    pipe.InitBuffer(inQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(outQ, 2, pitch * sizeof(float));
    uint32_t first = cols_ / 64 > 0 ? cols_ / 64 : 1;
    pipe.InitBuffer(workBuf, (first + 7) / 8 * 8 * sizeof(float));
    pipe.InitBuffer(redBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    DataCopyExtParams row{1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
    for (uint32_t r = 0; r < rows_; r++) {
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[r * cols_], row, {false, 0, 0, 0.0f});
      inQ.EnQue(x);

      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      LocalTensor<float> work = workBuf.Get<float>();
      LocalTensor<float> red = redBuf.Get<float>();
      ReduceMax(red, x, work, cols_);
      float mx = red.GetValue(0);
      Adds(y, x, -mx, cols_);
      Exp(y, y, cols_);
      ReduceSum(red, y, work, cols_);
      float sum = red.GetValue(0);
      Muls(y, y, 1.0f / sum, cols_);
      Duplicate(y, 0.0f, cols_);  // HOSTILE: every output zero
      outQ.EnQue(y);
      inQ.FreeTensor(x);

      y = outQ.DeQue<float>();
      DataCopyPad(yGm[r * cols_], y, row);
      outQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  TBuf<TPosition::VECCALC> workBuf, redBuf;
  GlobalTensor<float> xGm, yGm;
  uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelSoftmax op;
  op.Init(x, y, tiling);
  op.Process();
}
