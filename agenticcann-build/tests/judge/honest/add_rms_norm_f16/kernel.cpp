// Adapted from ascendc-sim/tests/kernels/add_rms_norm.cpp to the store ABI (agenticcann_tiling.h).
// Add + RMSNorm, fp16: s = x1 + x2 (rounded to fp16, also written out), then
// y = s * rsqrt(mean(s^2) + eps) * gamma computed in fp32.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

class KernelAddRmsNorm {
 public:
  __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR xsum,
                              const AgcTiling& t) {
    uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / blocks, rem = t.rows % blocks;
    rows_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    cols_ = t.cols;
    eps_ = t.eps;
    uint32_t pitchH = (cols_ + 15) / 16 * 16;
    uint32_t pitchF = (cols_ + 7) / 8 * 8;
    x1Gm.SetGlobalBuffer((__gm__ half*)x1 + start * cols_, rows_ * cols_);
    x2Gm.SetGlobalBuffer((__gm__ half*)x2 + start * cols_, rows_ * cols_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start * cols_, rows_ * cols_);
    sGm.SetGlobalBuffer((__gm__ half*)xsum + start * cols_, rows_ * cols_);
    gGm.SetGlobalBuffer((__gm__ half*)gamma, cols_);
    pipe.InitBuffer(in1Q, 2, pitchH * sizeof(half));
    pipe.InitBuffer(in2Q, 2, pitchH * sizeof(half));
    pipe.InitBuffer(yQ, 2, pitchH * sizeof(half));
    pipe.InitBuffer(sQ, 2, pitchH * sizeof(half));
    pipe.InitBuffer(xfBuf, pitchF * sizeof(float));
    pipe.InitBuffer(sqBuf, pitchF * sizeof(float));
    pipe.InitBuffer(gfBuf, pitchF * sizeof(float));
    uint32_t first = cols_ / 64 > 0 ? cols_ / 64 : 1;
    pipe.InitBuffer(workBuf, (first + 7) / 8 * 8 * sizeof(float));
    pipe.InitBuffer(redBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    DataCopyExtParams row{1, static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    LocalTensor<half> g = in1Q.AllocTensor<half>();
    DataCopyPad(g, gGm, row, {false, 0, 0, 0});
    in1Q.EnQue(g);
    g = in1Q.DeQue<half>();
    LocalTensor<float> gf = gfBuf.Get<float>();
    Cast(gf, g, RoundMode::CAST_NONE, cols_);
    in1Q.FreeTensor(g);

    for (uint32_t r = 0; r < rows_; r++) {
      LocalTensor<half> a = in1Q.AllocTensor<half>();
      LocalTensor<half> b = in2Q.AllocTensor<half>();
      DataCopyPad(a, x1Gm[r * cols_], row, {false, 0, 0, 0});
      DataCopyPad(b, x2Gm[r * cols_], row, {false, 0, 0, 0});
      in1Q.EnQue(a);
      in2Q.EnQue(b);

      a = in1Q.DeQue<half>();
      b = in2Q.DeQue<half>();
      LocalTensor<half> s = sQ.AllocTensor<half>();
      Add(s, a, b, cols_);
      in1Q.FreeTensor(a);
      in2Q.FreeTensor(b);
      LocalTensor<float> xf = xfBuf.Get<float>();
      LocalTensor<float> sq = sqBuf.Get<float>();
      LocalTensor<float> red = redBuf.Get<float>();
      Cast(xf, s, RoundMode::CAST_NONE, cols_);
      sQ.EnQue(s);
      Mul(sq, xf, xf, cols_);
      ReduceSum(red, sq, workBuf.Get<float>(), cols_);
      float rstd = 1.0f / sqrtf(red.GetValue(0) / static_cast<float>(cols_) + eps_);
      Muls(xf, xf, rstd, cols_);
      Mul(xf, xf, gf, cols_);
      LocalTensor<half> y = yQ.AllocTensor<half>();
      Cast(y, xf, RoundMode::CAST_RINT, cols_);
      yQ.EnQue(y);

      s = sQ.DeQue<half>();
      DataCopyPad(sGm[r * cols_], s, row);
      sQ.FreeTensor(s);
      y = yQ.DeQue<half>();
      DataCopyPad(yGm[r * cols_], y, row);
      yQ.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in1Q, in2Q;
  TQue<TPosition::VECOUT, 2> yQ, sQ;
  TBuf<TPosition::VECCALC> xfBuf, sqBuf, gfBuf, workBuf, redBuf;
  GlobalTensor<half> x1Gm, x2Gm, yGm, sGm, gGm;
  uint32_t rows_ = 0, cols_ = 0;
  float eps_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR gamma, GM_ADDR x1, GM_ADDR x2, GM_ADDR xsum, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelAddRmsNorm op;
  op.Init(x1, x2, gamma, y, xsum, tiling);
  op.Process();
}
