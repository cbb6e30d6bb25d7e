// L5 exemplar, broadcast: y[r, c] = x[r, c] + bias[c], f16.
//
// Split: rows over cores (the first rows % cores cores take one row more). A tile is
// tile_rows rows; DataCopyPad moves them in one burst per row and lands row i at
// i * pitch elements in UB (pitch = cols rounded up to 16 halves = 32 bytes), so every row
// starts 32-byte aligned. The bias is loaded once per core and replicated to tile_rows rows
// at the same pitch, so one Add covers a whole tile whatever the row length. The padding
// lanes of a row are added too but never leave UB: DataCopyPad writes cols halves per row.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelBiasAdd {
 public:
  __aicore__ inline void Init(GM_ADDR bias, GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / cores, rem = t.rows % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    rows_ = base + (idx < rem ? 1 : 0);
    cols_ = t.cols;
    pitch_ = t.pitch;
    tileRows_ = t.tile_rows;
    xGm_.SetGlobalBuffer((__gm__ half*)x + first * cols_, rows_ * cols_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + first * cols_, rows_ * cols_);
    biasGm_.SetGlobalBuffer((__gm__ half*)bias, cols_);
    pipe_.InitBuffer(inQ_, kBufferNum, tileRows_ * pitch_ * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, tileRows_ * pitch_ * sizeof(half));
    pipe_.InitBuffer(biasBuf_, tileRows_ * pitch_ * sizeof(half));
  }

  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    LoadBias();
    for (uint32_t row = 0; row < rows_; row += tileRows_) {
      uint32_t n = rows_ - row < tileRows_ ? rows_ - row : tileRows_;
      CopyIn(row, n);
      Compute(n);
      CopyOut(row, n);
    }
  }

 private:
  // bias -> UB through the input queue (the queue orders MTE2 before V), then into row 0
  // of biasBuf_ and doubled into rows 1 .. tileRows_-1 (log2(tileRows_) UB copies).
  __aicore__ inline void LoadBias() {
    LocalTensor<half> in = inQ_.AllocTensor<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    DataCopyPad(in, biasGm_, p, DataCopyPadExtParams<half>{true, 0, 0, 0});
    inQ_.EnQue(in);
    in = inQ_.DeQue<half>();
    LocalTensor<half> b = biasBuf_.Get<half>();
    DataCopy(b, in, pitch_);
    inQ_.FreeTensor(in);
    for (uint32_t have = 1; have < tileRows_; have *= 2) {
      uint32_t more = tileRows_ - have < have ? tileRows_ - have : have;
      DataCopy(b[have * pitch_], b, more * pitch_);
    }
  }

  __aicore__ inline void CopyIn(uint32_t row, uint32_t n) {
    LocalTensor<half> x = inQ_.AllocTensor<half>();
    DataCopyExtParams p{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    DataCopyPad(x, xGm_[row * cols_], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    inQ_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQ_.DeQue<half>();
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    Add(y, x, biasBuf_.Get<half>(), n * pitch_);
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t row, uint32_t n) {
    LocalTensor<half> y = outQ_.DeQue<half>();
    DataCopyExtParams p{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    DataCopyPad(yGm_[row * cols_], y, p);
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> inQ_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> biasBuf_;
  GlobalTensor<half> xGm_, yGm_, biasGm_;
  uint32_t rows_ = 0, cols_ = 0, pitch_ = 0, tileRows_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR bias, GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  KernelBiasAdd op;
  op.Init(bias, x, y, tiling);
  op.Process();
}
