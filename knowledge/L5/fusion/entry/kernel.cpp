// L5 exemplar, fusion: SwiGLU y = gate * sigmoid(gate) * up, f16 in and out. The whole
// chain runs on one tile in UB with f32 intermediates, one read of each input and one write
// of the output (an eager framework makes four kernels and three round trips through GM).
//
// silu(g) = g / (1 + exp(-g)): finite for every input (exp(-g) overflows to +inf for very
// negative g, and g / inf = -0, the right limit).
//
// Split: the rows * inter elements are contiguous in all three tensors, so they are cut flat
// into 32-byte blocks (16 halves); every core takes a contiguous run of blocks, the first
// n_blocks % cores cores one block more, and the last block may be partial. Each core walks
// its run in tiles of tile_len elements, double buffered; DataCopyPad moves exact byte
// counts, so the tail tile needs no special case.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;
constexpr uint32_t kBlockElems = 32 / sizeof(half);

class KernelSwiGlu {
 public:
  __aicore__ inline void Init(GM_ADDR gate, GM_ADDR up, GM_ADDR y, const AgcTiling& t) {
    uint32_t blocks = (t.total_len + kBlockElems - 1) / kBlockElems;
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = blocks / cores, rem = blocks % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    uint32_t count = base + (idx < rem ? 1 : 0);
    uint32_t start = first * kBlockElems;
    len_ = 0;
    if (start < t.total_len) {
      uint32_t left = t.total_len - start;
      len_ = count * kBlockElems < left ? count * kBlockElems : left;
    }
    tileLen_ = t.tile_len;
    gateGm_.SetGlobalBuffer((__gm__ half*)gate + start, len_);
    upGm_.SetGlobalBuffer((__gm__ half*)up + start, len_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + start, len_);
    pipe_.InitBuffer(gateQ_, kBufferNum, tileLen_ * sizeof(half));
    pipe_.InitBuffer(upQ_, kBufferNum, tileLen_ * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, tileLen_ * sizeof(half));
    pipe_.InitBuffer(aBuf_, tileLen_ * sizeof(float));
    pipe_.InitBuffer(bBuf_, tileLen_ * sizeof(float));
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
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    LocalTensor<half> g = gateQ_.AllocTensor<half>();
    DataCopyPad(g, gateGm_[off], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    gateQ_.EnQue(g);
    LocalTensor<half> u = upQ_.AllocTensor<half>();
    DataCopyPad(u, upGm_[off], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    upQ_.EnQue(u);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> a = aBuf_.Get<float>();
    LocalTensor<float> b = bBuf_.Get<float>();
    LocalTensor<half> g = gateQ_.DeQue<half>();
    Cast(a, g, RoundMode::CAST_NONE, n);      // a = gate
    gateQ_.FreeTensor(g);
    Muls(b, a, -1.0f, n);
    Exp(b, b, n);                              // exp(-gate)
    Adds(b, b, 1.0f, n);
    Div(a, a, b, n);                           // a = silu(gate)
    LocalTensor<half> u = upQ_.DeQue<half>();
    Cast(b, u, RoundMode::CAST_NONE, n);      // b = up
    upQ_.FreeTensor(u);
    Mul(a, a, b, n);
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    Cast(y, a, RoundMode::CAST_RINT, n);
    outQ_.EnQue(y);
  }

  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<half> y = outQ_.DeQue<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    DataCopyPad(yGm_[off], y, p);
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> gateQ_, upQ_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> aBuf_, bBuf_;
  GlobalTensor<half> gateGm_, upGm_, yGm_;
  uint32_t len_ = 0, tileLen_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR gate, GM_ADDR up, GM_ADDR y, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  KernelSwiGlu op;
  op.Init(gate, up, y, tiling);
  op.Process();
}
