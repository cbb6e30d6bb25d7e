// Adapted from ascendc-sim/tests/kernels/scale_flags.cpp to the store ABI (agenticcann_tiling.h).
// y = x * scale, fp32, with TBuf buffers and hand-written synchronisation instead of
// queues: MTE2->V before computing, V->MTE3 before copying out, and the reverse V->MTE2 /
// MTE3->V events so that the next tile does not overwrite a buffer still in use. Every
// SetFlag is waited exactly once.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelScaleFlags {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    scale_ = t.scale;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe.InitBuffer(inBuf, tile_ * sizeof(float));
    pipe.InitBuffer(outBuf, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    LocalTensor<float> x = inBuf.Get<float>();
    LocalTensor<float> y = outBuf.Get<float>();
    bool first = true;
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
      if (!first) WaitFlag<HardEvent::V_MTE2>(0);  // V finished reading x
      DataCopyPad(x, xGm[off], p, {false, 0, 0, 0.0f});
      SetFlag<HardEvent::MTE2_V>(0);
      WaitFlag<HardEvent::MTE2_V>(0);
      if (!first) WaitFlag<HardEvent::MTE3_V>(0);  // MTE3 finished reading y
      Muls(y, x, scale_, n);
      SetFlag<HardEvent::V_MTE2>(0);
      SetFlag<HardEvent::V_MTE3>(0);
      WaitFlag<HardEvent::V_MTE3>(0);
      DataCopyPad(yGm[off], y, p);
      SetFlag<HardEvent::MTE3_V>(0);
      first = false;
    }
    if (!first) {
      WaitFlag<HardEvent::V_MTE2>(0);
      WaitFlag<HardEvent::MTE3_V>(0);
    }
  }

 private:
  TPipe pipe;
  TBuf<TPosition::VECCALC> inBuf, outBuf;
  GlobalTensor<float> xGm, yGm;
  uint32_t length_ = 0, tile_ = 0;
  float scale_ = 1.0f;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelScaleFlags op;
  op.Init(x, y, tiling);
  op.Process();
}
