// Adapted from ascendc-sim/tests/kernels/gelu_tanh.cpp to the store ABI (agenticcann_tiling.h).
// GELU (tanh form), fp16 in/out, fp32 compute:
//   y = 0.5 x (1 + tanh(k (x + 0.044715 x^3))),  k = sqrt(2/pi)
//     = x / (1 + exp(-2 k (x + 0.044715 x^3)))   (the same function, without Tanh)
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelGelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    xGm.SetGlobalBuffer((__gm__ half*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    pipe.InitBuffer(inQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(outQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(xfBuf, tile_ * sizeof(float));
    pipe.InitBuffer(tBuf, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
      LocalTensor<half> x = inQ.AllocTensor<half>();
      DataCopyPad(x, xGm[off], p, {false, 0, 0, 0});
      inQ.EnQue(x);
      Compute(n);
      LocalTensor<half> y = outQ.DeQue<half>();
      DataCopyPad(yGm[off], y, p);
      outQ.FreeTensor(y);
    }
  }

 private:
  __aicore__ inline void Compute(uint32_t n) {
    const float k = 0.7978845608028654f;
    LocalTensor<half> x = inQ.DeQue<half>();
    LocalTensor<float> xf = xfBuf.Get<float>();
    LocalTensor<float> t = tBuf.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, n);
    inQ.FreeTensor(x);
    Mul(t, xf, xf, n);              // x^2
    Muls(t, t, 0.044715f, n);       // 0.044715 x^2
    Adds(t, t, 1.0f, n);            // 1 + 0.044715 x^2
    Mul(t, t, xf, n);               // x + 0.044715 x^3
    Muls(t, t, -2.0f * k, n);       // -2k(...)
    Exp(t, t, n);
    Adds(t, t, 1.0f, n);
    Div(t, xf, t, n);
    LocalTensor<half> y = outQ.AllocTensor<half>();
    Cast(y, t, RoundMode::CAST_RINT, n);
    outQ.EnQue(y);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  TBuf<TPosition::VECCALC> xfBuf, tBuf;
  GlobalTensor<half> xGm, yGm;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelGelu op;
  op.Init(x, y, tiling);
  op.Process();
}
