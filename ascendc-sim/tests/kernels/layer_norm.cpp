// LayerNorm, fp32, two-pass (FC-20): mean, centred values, variance of the centred values,
// y = (x - mean) * rsqrt(var + eps) * gamma + beta. gamma/beta are loaded once through the
// input queue; rows are split over the cores.
#include "kernel_operator.h"

using namespace AscendC;

struct LayerNormRowsTiling {
  uint32_t rows;
  uint32_t cols;
  float eps;
};

class KernelLayerNorm {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, const LayerNormRowsTiling& t) {
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
    bGm.SetGlobalBuffer((__gm__ float*)beta, cols_);
    pipe.InitBuffer(inQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(outQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(gBuf, pitch * sizeof(float));
    pipe.InitBuffer(bBuf, pitch * sizeof(float));
    pipe.InitBuffer(tmpBuf, pitch * sizeof(float));
    uint32_t first = cols_ / 64 > 0 ? cols_ / 64 : 1;
    pipe.InitBuffer(workBuf, (first + 7) / 8 * 8 * sizeof(float));
    pipe.InitBuffer(redBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    DataCopyExtParams row{1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
    LoadParam(gGm, gBuf.Get<float>(), row);
    LoadParam(bGm, bBuf.Get<float>(), row);
    LocalTensor<float> gamma = gBuf.Get<float>();
    LocalTensor<float> beta = bBuf.Get<float>();
    float inv = 1.0f / static_cast<float>(cols_);
    for (uint32_t r = 0; r < rows_; r++) {
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[r * cols_], row, {false, 0, 0, 0.0f});
      inQ.EnQue(x);

      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      LocalTensor<float> tmp = tmpBuf.Get<float>();
      LocalTensor<float> red = redBuf.Get<float>();
      LocalTensor<float> work = workBuf.Get<float>();
      ReduceSum(red, x, work, cols_);
      float mean = red.GetValue(0) * inv;
      Adds(y, x, -mean, cols_);
      Mul(tmp, y, y, cols_);
      ReduceSum(red, tmp, work, cols_);
      float var = red.GetValue(0) * inv;
      float rstd = 1.0f / sqrtf(var + eps_);
      Muls(y, y, rstd, cols_);
      Mul(y, y, gamma, cols_);
      Add(y, y, beta, cols_);
      outQ.EnQue(y);
      inQ.FreeTensor(x);

      y = outQ.DeQue<float>();
      DataCopyPad(yGm[r * cols_], y, row);
      outQ.FreeTensor(y);
    }
  }

 private:
  __aicore__ inline void LoadParam(const GlobalTensor<float>& src, const LocalTensor<float>& dst,
                                   const DataCopyExtParams& row) {
    LocalTensor<float> t = inQ.AllocTensor<float>();
    DataCopyPad(t, src, row, {false, 0, 0, 0.0f});
    inQ.EnQue(t);
    t = inQ.DeQue<float>();
    Adds(dst, t, 0.0f, cols_);
    inQ.FreeTensor(t);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  TBuf<TPosition::VECCALC> gBuf, bBuf, tmpBuf, workBuf, redBuf;
  GlobalTensor<float> xGm, yGm, gGm, bGm;
  uint32_t rows_ = 0, cols_ = 0;
  float eps_ = 0;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                 LayerNormRowsTiling tiling) {
  KernelLayerNorm op;
  op.Init(x, gamma, beta, y, tiling);
  op.Process();
}
