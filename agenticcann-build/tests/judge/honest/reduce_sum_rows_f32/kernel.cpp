// Adapted from ascendc-sim/tests/kernels/reduce_sum_rows.cpp to the store ABI (agenticcann_tiling.h).
// Row sums of an fp32 [rows, cols] matrix with ReduceSum and a work buffer. Rows are
// split over the cores (the first rows % blockDim cores take one more); each row is
// copied with DataCopyPad, reduced on its exact length, and the per-tile results are
// collected in a VECOUT tensor written back with one DataCopyPad per tile of rows.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

constexpr uint32_t ROWS_PER_TILE = 8;

class KernelReduceRows {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    xGm.SetGlobalBuffer((__gm__ float*)x + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, rows_);
    uint32_t pitch = (cols_ + 7) / 8 * 8;
    pipe.InitBuffer(inQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(outQ, 1, ROWS_PER_TILE * sizeof(float));
    uint32_t firstRepeats = cols_ / 64 > 0 ? cols_ / 64 : 1;
    pipe.InitBuffer(workBuf, (firstRepeats + 7) / 8 * 8 * sizeof(float));
    pipe.InitBuffer(sumBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t r0 = 0; r0 < rows_; r0 += ROWS_PER_TILE) {
      uint32_t nr = rows_ - r0 < ROWS_PER_TILE ? rows_ - r0 : ROWS_PER_TILE;
      LocalTensor<float> out = outQ.AllocTensor<float>();
      for (uint32_t r = 0; r < nr; r++) {
        CopyIn(r0 + r);
        LocalTensor<float> x = inQ.DeQue<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        ReduceSum(sum, x, work, cols_);
        out.SetValue(r, sum.GetValue(0));
        inQ.FreeTensor(x);
      }
      outQ.EnQue(out);
      out = outQ.DeQue<float>();
      DataCopyPad(yGm[r0], out, {1, static_cast<uint32_t>(nr * sizeof(float)), 0, 0, 0});
      outQ.FreeTensor(out);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t row) {
    LocalTensor<float> x = inQ.AllocTensor<float>();
    DataCopyPad(x, xGm[row * cols_], {1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0.0f});
    inQ.EnQue(x);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> workBuf, sumBuf;
  GlobalTensor<float> xGm, yGm;
  uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelReduceRows op;
  op.Init(x, y, tiling);
  op.Process();
}
