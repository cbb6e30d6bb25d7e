// Adapted from ascendc-sim/tests/kernels/cast_f32_f16.cpp to the store ABI (agenticcann_tiling.h).
// Cast fp32 -> fp16 with CAST_RINT (round to nearest even: 0.3f stays ~0.3, FC-28).
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelCastDown {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    pipe.InitBuffer(inQ, 2, tile_ * sizeof(float));
    pipe.InitBuffer(outQ, 2, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<float> x = inQ.AllocTensor<float>();
    DataCopyPad(x, xGm[off], {1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0.0f});
    inQ.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQ.DeQue<float>();
    LocalTensor<half> y = outQ.AllocTensor<half>();
    Cast(y, x, RoundMode::CAST_RINT, n);
    outQ.EnQue(y);
    inQ.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<half> y = outQ.DeQue<half>();
    DataCopyPad(yGm[off], y, {1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0});
    outQ.FreeTensor(y);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  GlobalTensor<float> xGm;
  GlobalTensor<half> yGm;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelCastDown op;
  op.Init(x, y, tiling);
  op.Process();
}
