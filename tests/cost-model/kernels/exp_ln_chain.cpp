// y = ln(exp(... ln(exp(x)))) in fp32, `rounds` Exp+Ln pairs per element: a
// vector-bound kernel (Exp and Ln run at 32 elements per cycle, api-reference §4.2),
// double buffered, for core-scaling measurements.
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

class KernelExpLn {
 public:
  __aicore__ inline KernelExpLn() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ElemTiling& t) {
    tile_ = t.tileLength;
    rounds_ = t.rounds;
    uint32_t first = 0;
    split_units(t.totalLength / tile_, GetBlockNum(), GetBlockIdx(), t.tailSplit, &first, &tiles_);
    xGm.SetGlobalBuffer((__gm__ float*)x + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    yGm.SetGlobalBuffer((__gm__ float*)y + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    pipe.InitBuffer(inQueue, 2, tile_ * sizeof(float));
    pipe.InitBuffer(outQueue, 2, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles_; i++) {
      LocalTensor<float> x = inQueue.AllocTensor<float>();
      DataCopy(x, xGm[uint64_t(i) * tile_], tile_);
      inQueue.EnQue(x);

      x = inQueue.DeQue<float>();
      LocalTensor<float> y = outQueue.AllocTensor<float>();
      Exp(y, x, tile_);
      Ln(y, y, tile_);
      for (uint32_t r = 1; r < rounds_; r++) {
        Exp(y, y, tile_);
        Ln(y, y, tile_);
      }
      outQueue.EnQue(y);
      inQueue.FreeTensor(x);

      y = outQueue.DeQue<float>();
      DataCopy(yGm[uint64_t(i) * tile_], y, tile_);
      outQueue.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 2> outQueue;
  GlobalTensor<float> xGm, yGm;
  uint32_t tiles_ = 0;
  uint32_t tile_ = 0;
  uint32_t rounds_ = 1;
};

extern "C" __global__ __aicore__ void exp_ln_chain(GM_ADDR x, GM_ADDR y, ElemTiling tiling) {
  KernelExpLn op;
  op.Init(x, y, tiling);
  op.Process();
}
