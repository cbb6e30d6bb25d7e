// Adapted from ascendc-sim/tests/kernels/whole_reduce_max.cpp to the store ABI (agenticcann_tiling.h).
// Row max of an fp32 [rows, cols] matrix with cols <= 64, using WholeReduceMax in the
// contiguous-mask form: one repeat per row (mask = cols lanes), the rows brought in by a
// single multi-burst DataCopyPad whose bursts land at a 32-byte aligned pitch (FC-01), so
// the source repeat stride is pitch / 8 blocks. Results (value only) are contiguous.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

constexpr uint32_t TILE_ROWS = 64;

class KernelWholeMax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    pitch_ = (cols_ + 7) / 8 * 8;
    xGm.SetGlobalBuffer((__gm__ float*)x + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, rows_);
    pipe.InitBuffer(inQ, 2, TILE_ROWS * pitch_ * sizeof(float));
    pipe.InitBuffer(outQ, 2, TILE_ROWS * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t r0 = 0; r0 < rows_; r0 += TILE_ROWS) {
      uint32_t nr = rows_ - r0 < TILE_ROWS ? rows_ - r0 : TILE_ROWS;
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyExtParams in{static_cast<uint16_t>(nr), static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
      DataCopyPad(x, xGm[r0 * cols_], in, {false, 0, 0, 0.0f});
      inQ.EnQue(x);
      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      WholeReduceMax(y, x, static_cast<int32_t>(cols_), static_cast<int32_t>(nr), 1, 1,
                     static_cast<int32_t>(pitch_ / 8), ReduceOrder::ORDER_ONLY_VALUE);
      outQ.EnQue(y);
      inQ.FreeTensor(x);
      y = outQ.DeQue<float>();
      DataCopyPad(yGm[r0], y, {1, static_cast<uint32_t>(nr * sizeof(float)), 0, 0, 0});
      outQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<float> xGm, yGm;
  uint32_t rows_ = 0, cols_ = 0, pitch_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelWholeMax op;
  op.Init(x, y, tiling);
  op.Process();
}
