// Fused RMSNorm, fp16 in/out, fp32 arithmetic: y = x * rsqrt(mean(x^2) + eps) * gamma
// over the last axis of a [rows, cols] matrix (cols a multiple of 16). Rows are split
// over the blocks; each row is one double-buffered tile: one read and one write of GM
// per element, everything else stays in the Unified Buffer.
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

class KernelRmsNormFused {
 public:
  __aicore__ inline KernelRmsNormFused() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const RowTiling& t) {
    cols_ = t.cols;
    eps_ = t.eps;
    scale_ = t.scale;
    uint32_t first = 0;
    split_units(t.rows, GetBlockNum(), GetBlockIdx(), 0, &first, &rows_);
    xGm.SetGlobalBuffer((__gm__ half*)x + uint64_t(first) * cols_, uint64_t(rows_) * cols_);
    yGm.SetGlobalBuffer((__gm__ half*)y + uint64_t(first) * cols_, uint64_t(rows_) * cols_);
    gammaGm.SetGlobalBuffer((__gm__ half*)gamma, cols_);
    pipe.InitBuffer(inQueue, 2, cols_ * sizeof(half));
    pipe.InitBuffer(outQueue, 2, cols_ * sizeof(half));
    pipe.InitBuffer(xf32, cols_ * sizeof(float));
    pipe.InitBuffer(sq32, cols_ * sizeof(float));
    pipe.InitBuffer(gamma32, cols_ * sizeof(float));
    // ReduceSum's work buffer: one float per repeat of 64, rounded up to a 32-B block.
    uint32_t repeats = (cols_ + 63) / 64;
    pipe.InitBuffer(work, ((repeats + 7) / 8) * 8 * sizeof(float));
    pipe.InitBuffer(sum, 8 * sizeof(float));
  }

  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    LoadGamma();
    // Copy-in runs one row ahead: the scalar read of each row's sum (GetValue) stalls
    // the scalar unit until the vector unit is done, and a DataCopy issued after it
    // could not overlap that row's compute.
    CopyIn(0);
    for (uint32_t r = 0; r < rows_; r++) {
      if (r + 1 < rows_) CopyIn(r + 1);
      Compute();
      CopyOut(r);
    }
  }

 private:
  __aicore__ inline void LoadGamma() {
    LocalTensor<half> g = inQueue.AllocTensor<half>();
    DataCopy(g, gammaGm, cols_);
    inQueue.EnQue(g);
    g = inQueue.DeQue<half>();
    Cast(gamma32.Get<float>(), g, RoundMode::CAST_NONE, cols_);
    inQueue.FreeTensor(g);
  }
  __aicore__ inline void CopyIn(uint32_t r) {
    LocalTensor<half> x = inQueue.AllocTensor<half>();
    DataCopy(x, xGm[uint64_t(r) * cols_], cols_);
    inQueue.EnQue(x);
  }
  __aicore__ inline void Compute() {
    LocalTensor<half> x = inQueue.DeQue<half>();
    LocalTensor<float> xf = xf32.Get<float>();
    LocalTensor<float> sq = sq32.Get<float>();
    LocalTensor<float> s = sum.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, cols_);
    inQueue.FreeTensor(x);
    Mul(sq, xf, xf, cols_);
    ReduceSum(s, sq, work.Get<float>(), cols_);
    float rstd = 1.0f / sqrtf(s.GetValue(0) * scale_ + eps_);
    Muls(xf, xf, rstd, cols_);
    Mul(xf, xf, gamma32.Get<float>(), cols_);
    LocalTensor<half> y = outQueue.AllocTensor<half>();
    Cast(y, xf, RoundMode::CAST_RINT, cols_);
    outQueue.EnQue(y);
  }
  __aicore__ inline void CopyOut(uint32_t r) {
    LocalTensor<half> y = outQueue.DeQue<half>();
    DataCopy(yGm[uint64_t(r) * cols_], y, cols_);
    outQueue.FreeTensor(y);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 2> outQueue;
  TBuf<TPosition::VECCALC> xf32, sq32, gamma32, work, sum;
  GlobalTensor<half> xGm, yGm, gammaGm;
  uint32_t rows_ = 0, cols_ = 0;
  float eps_ = 0, scale_ = 0;
};

extern "C" __global__ __aicore__ void rmsnorm_fused(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RowTiling tiling) {
  KernelRmsNormFused op;
  op.Init(x, gamma, y, tiling);
  op.Process();
}
