// Adapted from ascendc-sim/tests/kernels/pad_rows_fc08.cpp to the store ABI (agenticcann_tiling.h).
// Field case FC-08: rows of `rank` fp32 values written with DataCopyPad at GM offset
// row * rank (rank 12 -> 48-byte rows: most rows start at a GM address that is not 32-byte
// aligned, which is legal for the GM side of DataCopyPad). y = 2 * x.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelPadRows {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    start_ = idx * base + (idx < rem ? idx : rem);
    rank_ = t.rank;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.rows * rank_);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.rows * rank_);
    uint32_t pitch = (rank_ + 7) / 8 * 8;
    pipe.InitBuffer(inQ, 2, pitch * sizeof(float));
    pipe.InitBuffer(outQ, 2, pitch * sizeof(float));
  }
  __aicore__ inline void Process() {
    DataCopyExtParams p{1, static_cast<uint32_t>(rank_ * sizeof(float)), 0, 0, 0};
    for (uint32_t r = start_; r < start_ + rows_; r++) {
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[r * rank_], p, {false, 0, 0, 0.0f});
      inQ.EnQue(x);
      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      Muls(y, x, 2.0f, rank_);
      outQ.EnQue(y);
      inQ.FreeTensor(x);
      y = outQ.DeQue<float>();
      DataCopyPad(yGm[r * rank_], y, p);
      outQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<float> xGm, yGm;
  uint32_t rows_ = 0, start_ = 0, rank_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelPadRows op;
  op.Init(x, y, tiling);
  op.Process();
}
