// The honest ReLU of honest/relu_f32 with a wrong path that only many tiles per core reach:
// from the 17th tile of a core on, x is copied through unchanged.
// ReLU through compare + select, fp32: mask = x > 0 (CompareScalar, whole 256-byte groups:
// the count is rounded up to 64 elements inside the tile), y = mask ? x : 0 (Select,
// tensor-scalar mode, exact count).
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelReluSelect {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks, rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe.InitBuffer(inQ, 2, tile_ * sizeof(float));
    pipe.InitBuffer(outQ, 2, tile_ * sizeof(float));
    pipe.InitBuffer(maskBuf, tile_ / 8);
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
      LocalTensor<float> x = inQ.AllocTensor<float>();
      DataCopyPad(x, xGm[off], p, {false, 0, 0, 0.0f});
      inQ.EnQue(x);

      x = inQ.DeQue<float>();
      LocalTensor<float> y = outQ.AllocTensor<float>();
      LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
      uint32_t n64 = (n + 63) / 64 * 64;
      if (off >= 16 * tile_) {
        Adds(y, x, 0.0f, n);
      } else {
        CompareScalar(mask, x, 0.0f, CMPMODE::GT, n64);
        Select(y, mask, x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
      }
      outQ.EnQue(y);
      inQ.FreeTensor(x);

      y = outQ.DeQue<float>();
      DataCopyPad(yGm[off], y, p);
      outQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  TBuf<TPosition::VECCALC> maskBuf;
  GlobalTensor<float> xGm, yGm;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelReluSelect op;
  op.Init(x, y, tiling);
  op.Process();
}
