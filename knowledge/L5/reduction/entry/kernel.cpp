// L5 exemplar, reduction: y[r] = sum_c x[r, c], x f16, y f32 (accumulated in f32).
//
// Split: rows over cores (the first rows % cores cores take one row more). A tile is
// tile_rows rows, moved by one DataCopyPad (row i lands at i * pitch halves, pitch = cols
// rounded up to 16, so each row starts 32-byte aligned), cast to f32 in one call, then
// reduced row by row with ReduceSum over exactly cols elements: the padding lanes of a row
// never enter a sum (FC-10/FC-11). The tile's sums are gathered into one output tile and
// written with a single DataCopyPad of tile_rows floats.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelRowSum {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / cores, rem = t.rows % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    rows_ = base + (idx < rem ? 1 : 0);
    cols_ = t.cols;
    pitch_ = t.pitch;
    tileRows_ = t.tile_rows;
    xGm_.SetGlobalBuffer((__gm__ half*)x + first * cols_, rows_ * cols_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + first, rows_);
    pipe_.InitBuffer(inQ_, kBufferNum, tileRows_ * pitch_ * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, (tileRows_ + 7) / 8 * 8 * sizeof(float));
    pipe_.InitBuffer(xfBuf_, tileRows_ * pitch_ * sizeof(float));
    pipe_.InitBuffer(workBuf_, t.work_len * sizeof(float));
    pipe_.InitBuffer(sumBuf_, 8 * sizeof(float));
  }

  // The next tile's CopyIn is issued before this tile's Compute: Compute waits on the
  // scalar unit for each row's sum, and a load issued earlier keeps MTE2 busy meanwhile
  // (the second buffer of inQ_ holds it).
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    CopyIn(0, Rows(0));
    for (uint32_t row = 0; row < rows_; row += tileRows_) {
      if (row + tileRows_ < rows_) CopyIn(row + tileRows_, Rows(row + tileRows_));
      Compute(Rows(row));
      CopyOut(row, Rows(row));
    }
  }

 private:
  // Rows of the tile starting at `row`.
  __aicore__ inline uint32_t Rows(uint32_t row) const { return rows_ - row < tileRows_ ? rows_ - row : tileRows_; }

  __aicore__ inline void CopyIn(uint32_t row, uint32_t n) {
    LocalTensor<half> x = inQ_.AllocTensor<half>();
    DataCopyExtParams p{static_cast<uint16_t>(n), static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    DataCopyPad(x, xGm_[row * cols_], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    inQ_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQ_.DeQue<half>();
    LocalTensor<float> xf = xfBuf_.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, n * pitch_);
    inQ_.FreeTensor(x);
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    LocalTensor<float> work = workBuf_.Get<float>();
    LocalTensor<float> sum = sumBuf_.Get<float>();
    if (cols_ == 0) {
      Duplicate(y, 0.0f, n);  // empty rows: the sum of no elements
    } else {
      for (uint32_t r = 0; r < n; r++) {
        ReduceSum(sum, xf[r * pitch_], work, cols_);
        y.SetValue(r, sum.GetValue(0));  // one scalar per row, not per element
      }
    }
    outQ_.EnQue(y);
  }

  __aicore__ inline void CopyOut(uint32_t row, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
    DataCopyPad(yGm_[row], y, p);
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> inQ_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> xfBuf_, workBuf_, sumBuf_;
  GlobalTensor<half> xGm_;
  GlobalTensor<float> yGm_;
  uint32_t rows_ = 0, cols_ = 0, pitch_ = 0, tileRows_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelRowSum op;
  op.Init(x, y, tiling);
  op.Process();
}
