// Adapted from ascendc-sim/tests/kernels/leaky_relu.cpp to the store ABI (agenticcann_tiling.h).
// LeakyRelu, fp16: y = x >= 0 ? x : alpha * x. Whole tiles move with DataCopy (their byte
// length is a multiple of 32), the unaligned tail tile with DataCopyPad.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelLeakyRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    alpha_ = static_cast<half>(t.alpha);
    xGm.SetGlobalBuffer((__gm__ half*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    pipe.InitBuffer(inQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(outQ, 2, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    uint32_t loops = (length_ + tile_ - 1) / tile_;
    for (uint32_t i = 0; i < loops; i++) {
      uint32_t n = i + 1 < loops ? tile_ : length_ - i * tile_;
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<half> x = inQ.AllocTensor<half>();
    if (n == tile_) {
      DataCopy(x, xGm[i * tile_], n);
    } else {
      DataCopyPad(x, xGm[i * tile_], {1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0}, {false, 0, 0, 0});
    }
    inQ.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQ.DeQue<half>();
    LocalTensor<half> y = outQ.AllocTensor<half>();
    LeakyRelu(y, x, alpha_, n);
    outQ.EnQue(y);
    inQ.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<half> y = outQ.DeQue<half>();
    if (n == tile_) {
      DataCopy(yGm[i * tile_], y, n);
    } else {
      DataCopyPad(yGm[i * tile_], y, {1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0});
    }
    outQ.FreeTensor(y);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<half> xGm, yGm;
  uint32_t length_ = 0, tile_ = 0;
  half alpha_;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelLeakyRelu op;
  op.Init(x, y, tiling);
  op.Process();
}
