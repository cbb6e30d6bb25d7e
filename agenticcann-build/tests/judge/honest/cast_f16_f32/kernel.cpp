// Adapted from ascendc-sim/tests/kernels/cast_f16_f32.cpp to the store ABI (agenticcann_tiling.h).
// Cast fp16 -> fp32 (exact) over a 1-D tensor, multi-core with tail.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelCastUp {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    xGm.SetGlobalBuffer((__gm__ half*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe.InitBuffer(inQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(outQ, 2, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      LocalTensor<half> x = inQ.AllocTensor<half>();
      DataCopyPad(x, xGm[off], {1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0}, {false, 0, 0, 0});
      inQ.EnQue(x);
      x = inQ.DeQue<half>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      Cast(y, x, RoundMode::CAST_NONE, n);
      outQ.EnQue(y);
      inQ.FreeTensor(x);
      y = outQ.DeQue<float>();
      DataCopyPad(yGm[off], y, {1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
      outQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<half> xGm;
  GlobalTensor<float> yGm;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelCastUp op;
  op.Init(x, y, tiling);
  op.Process();
}
