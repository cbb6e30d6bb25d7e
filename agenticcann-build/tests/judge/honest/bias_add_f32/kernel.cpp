// Adapted from ascendc-sim/tests/kernels/bias_add_rows.cpp to the store ABI (agenticcann_tiling.h).
// Bias add broadcast over rows, fp32: y[r, c] = x[r, c] + bias[c]. Tiles of several rows
// move with one multi-burst DataCopyPad each way; in UB every row sits at the 32-byte
// aligned pitch (FC-01), so the bias is added row by row at that pitch.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelBiasAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    tileRows_ = t.tileRows;
    pitch_ = (cols_ + 7) / 8 * 8;
    xGm.SetGlobalBuffer((__gm__ float*)x + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start * cols_, rows_ * cols_);
    bGm.SetGlobalBuffer((__gm__ float*)bias, cols_);
    pipe.InitBuffer(inQ, 2, tileRows_ * pitch_ * sizeof(float));
    pipe.InitBuffer(outQ, 2, tileRows_ * pitch_ * sizeof(float));
    pipe.InitBuffer(biasQ, 1, pitch_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    LocalTensor<float> b = biasQ.AllocTensor<float>();
    DataCopyPad(b, bGm, {1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0.0f});
    biasQ.EnQue(b);
    b = biasQ.DeQue<float>();
    for (uint32_t r0 = 0; r0 < rows_; r0 += tileRows_) {
      uint32_t nr = rows_ - r0 < tileRows_ ? rows_ - r0 : tileRows_;
      DataCopyExtParams p{static_cast<uint16_t>(nr), static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[r0 * cols_], p, {false, 0, 0, 0.0f});
      inQ.EnQue(x);
      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      for (uint32_t r = 0; r < nr; r++) Add(y[r * pitch_], x[r * pitch_], b, cols_);
      outQ.EnQue(y);
      inQ.FreeTensor(x);
      y = outQ.DeQue<float>();
      DataCopyPad(yGm[r0 * cols_], y, p);
      outQ.FreeTensor(y);
    }
    biasQ.FreeTensor(b);
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECIN, 1> biasQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<float> xGm, yGm, bGm;
  uint32_t rows_ = 0, cols_ = 0, tileRows_ = 1, pitch_ = 8;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR bias, GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelBiasAdd op;
  op.Init(x, bias, y, tiling);
  op.Process();
}
