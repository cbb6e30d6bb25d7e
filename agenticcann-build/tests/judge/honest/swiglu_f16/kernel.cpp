// Adapted from ascendc-sim/tests/kernels/swiglu.cpp to the store ABI (agenticcann_tiling.h).
// SwiGLU, fp16 in/out, fp32 compute: y = silu(gate) * up, silu(g) = g / (1 + exp(-g)).
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelSwiGlu {
 public:
  __aicore__ inline void Init(GM_ADDR gate, GM_ADDR up, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    gGm.SetGlobalBuffer((__gm__ half*)gate + start, length_);
    uGm.SetGlobalBuffer((__gm__ half*)up + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    pipe.InitBuffer(gQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(uQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(yQ, 2, tile_ * sizeof(half));
    pipe.InitBuffer(gfBuf, tile_ * sizeof(float));
    pipe.InitBuffer(ufBuf, tile_ * sizeof(float));
    pipe.InitBuffer(tBuf, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
      LocalTensor<half> g = gQ.AllocTensor<half>();
      LocalTensor<half> u = uQ.AllocTensor<half>();
      DataCopyPad(g, gGm[off], p, {false, 0, 0, 0});
      DataCopyPad(u, uGm[off], p, {false, 0, 0, 0});
      gQ.EnQue(g);
      uQ.EnQue(u);
      Compute(n);
      LocalTensor<half> y = yQ.DeQue<half>();
      DataCopyPad(yGm[off], y, p);
      yQ.FreeTensor(y);
    }
  }

 private:
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> g = gQ.DeQue<half>();
    LocalTensor<half> u = uQ.DeQue<half>();
    LocalTensor<float> gf = gfBuf.Get<float>();
    LocalTensor<float> uf = ufBuf.Get<float>();
    LocalTensor<float> t = tBuf.Get<float>();
    Cast(gf, g, RoundMode::CAST_NONE, n);
    Cast(uf, u, RoundMode::CAST_NONE, n);
    gQ.FreeTensor(g);
    uQ.FreeTensor(u);
    Muls(t, gf, -1.0f, n);
    Exp(t, t, n);
    Adds(t, t, 1.0f, n);
    Div(t, gf, t, n);
    Mul(t, t, uf, n);
    LocalTensor<half> y = yQ.AllocTensor<half>();
    Cast(y, t, RoundMode::CAST_RINT, n);
    yQ.EnQue(y);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> gQ, uQ;
  TQue<TPosition::VECOUT, 2> yQ;
  TBuf<TPosition::VECCALC> gfBuf, ufBuf, tBuf;
  GlobalTensor<half> gGm, uGm, yGm;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR gate, GM_ADDR up, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelSwiGlu op;
  op.Init(gate, up, y, tiling);
  op.Process();
}
