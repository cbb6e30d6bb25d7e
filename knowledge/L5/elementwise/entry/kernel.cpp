// L5 exemplar, elementwise: y = gelu_tanh(x), f16 in and out, computed in f32.
//
// gelu_tanh(x) = 0.5 x (1 + tanh(u)), u = c (x + k x^3), which equals x / (1 + exp(-2u)):
// one Exp and one Div instead of a tanh, and finite for every input (exp overflows to +inf
// for very negative x, and x / inf = -0, the right limit).
//
// Split: the n elements are cut into 32-byte blocks (16 halves); every core takes a
// contiguous run of blocks, the first n_blocks % cores cores one block more, and the last
// block may be partial. Each core walks its run in tiles of tile_len elements, double
// buffered; DataCopyPad moves exact byte counts, so the tail tile needs no special case.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;           // double buffering
constexpr uint32_t kBlockElems = 32 / sizeof(half);
constexpr float kC = 0.7978845608028654f;   // sqrt(2 / pi)
constexpr float kK = 0.044715f;

class KernelGeluTanh {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    // This core's run of 32-byte blocks, remainder blocks going to the first cores.
    uint32_t blocks = (t.total_len + kBlockElems - 1) / kBlockElems;
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = blocks / cores, rem = blocks % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    uint32_t count = base + (idx < rem ? 1 : 0);
    start_ = first * kBlockElems;
    len_ = 0;
    if (start_ < t.total_len) {
      uint32_t left = t.total_len - start_;
      len_ = count * kBlockElems < left ? count * kBlockElems : left;
    }
    tileLen_ = t.tile_len;
    xGm_.SetGlobalBuffer((__gm__ half*)x + start_, len_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + start_, len_);
    pipe_.InitBuffer(inQ_, kBufferNum, tileLen_ * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, tileLen_ * sizeof(half));
    pipe_.InitBuffer(xfBuf_, tileLen_ * sizeof(float));
    pipe_.InitBuffer(tBuf_, tileLen_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < len_; off += tileLen_) {
      uint32_t n = len_ - off < tileLen_ ? len_ - off : tileLen_;
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<half> x = inQ_.AllocTensor<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    inQ_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQ_.DeQue<half>();
    LocalTensor<float> xf = xfBuf_.Get<float>();
    LocalTensor<float> t = tBuf_.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, n);
    inQ_.FreeTensor(x);
    Mul(t, xf, xf, n);              // x^2
    Muls(t, t, kK, n);              // k x^2
    Adds(t, t, 1.0f, n);            // 1 + k x^2
    Mul(t, t, xf, n);               // x + k x^3
    Muls(t, t, -2.0f * kC, n);      // -2u
    Exp(t, t, n);                   // exp(-2u)
    Adds(t, t, 1.0f, n);            // 1 + exp(-2u)
    Div(t, xf, t, n);               // x / (1 + exp(-2u))
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    Cast(y, t, RoundMode::CAST_RINT, n);
    outQ_.EnQue(y);
  }

  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<half> y = outQ_.DeQue<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    DataCopyPad(yGm_[off], y, p);
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> inQ_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> xfBuf_, tBuf_;
  GlobalTensor<half> xGm_, yGm_;
  uint32_t start_ = 0, len_ = 0, tileLen_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelGeluTanh op;
  op.Init(x, y, tiling);
  op.Process();
}
