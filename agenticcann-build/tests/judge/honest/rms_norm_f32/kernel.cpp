// RMSNorm, fp32 in/out: y = x * rsqrt(mean(x^2) + eps) * gamma. gamma is loaded once; rows are
// split over the cores and double-buffered through VECIN/VECOUT queues; the reduction runs on the
// exact column count.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelRmsNorm {
 public:
  __aicore__ inline void Init(GM_ADDR gamma, GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    eps_ = t.eps;
    uint32_t pitch = (cols_ + 7) / 8 * 8;
    xGm.SetGlobalBuffer((__gm__ float*)x + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start * cols_, rows_ * cols_);
    gGm.SetGlobalBuffer((__gm__ float*)gamma, cols_);
    pipe.InitBuffer(inQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(outQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(gBuf, pitch * sizeof(float));
    pipe.InitBuffer(sqBuf, pitch * sizeof(float));
    uint32_t first = cols_ / 64 > 0 ? cols_ / 64 : 1;
    pipe.InitBuffer(workBuf, (first + 7) / 8 * 8 * sizeof(float));
    pipe.InitBuffer(redBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    DataCopyExtParams row{1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
    LocalTensor<float> g = inQ.AllocTensor<float>();
    DataCopyPad(g, gGm, row, {false, 0, 0, 0.0f});
    inQ.EnQue(g);
    g = inQ.DeQue<float>();
    LocalTensor<float> gamma = gBuf.Get<float>();
    Adds(gamma, g, 0.0f, cols_);
    inQ.FreeTensor(g);
    for (uint32_t r = 0; r < rows_; r++) {
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[r * cols_], row, {false, 0, 0, 0.0f});
      inQ.EnQue(x);

      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      LocalTensor<float> sq = sqBuf.Get<float>();
      LocalTensor<float> red = redBuf.Get<float>();
      Mul(sq, x, x, cols_);
      ReduceSum(red, sq, workBuf.Get<float>(), cols_);
      float ms = red.GetValue(0) / static_cast<float>(cols_);
      float rstd = 1.0f / sqrtf(ms + eps_);
      Muls(y, x, rstd, cols_);
      Mul(y, y, gamma, cols_);
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
  TBuf<TPosition::VECCALC> gBuf, sqBuf, workBuf, redBuf;
  GlobalTensor<float> xGm, yGm, gGm;
  uint32_t rows_ = 0, cols_ = 0;
  float eps_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR gamma, GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  KernelRmsNorm op;
  op.Init(gamma, x, y, tiling);
  op.Process();
}
