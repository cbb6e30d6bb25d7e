// L5 exemplar, normalization: RMSNorm y = x * rsqrt(mean(x^2) + eps) * gamma, f16 in and
// out, every statistic in f32 (an f16 x^2 overflows above 256, FC-19).
//
// Split: rows over cores (the first rows % cores cores take one row more). A tile is
// tile_rows rows moved by one DataCopyPad (row i at i * pitch, pitch = cols rounded up to
// 16 halves, so rows start 32-byte aligned). gamma is loaded once per core, cast to f32 and
// replicated to tile_rows rows, so the scale by gamma is one Mul per tile. Per row: ReduceSum
// over exactly cols elements (padding lanes never enter it), then 1 / sqrt(mean + eps) on a
// one-element vector, then one Muls of the row by that scalar.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelRmsNorm {
 public:
  __aicore__ inline void Init(GM_ADDR gamma, GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / cores, rem = t.rows % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    rows_ = base + (idx < rem ? 1 : 0);
    cols_ = t.cols;
    pitch_ = t.pitch;
    tileRows_ = t.tile_rows;
    eps_ = t.eps;
    invCols_ = t.inv_cols;
    xGm_.SetGlobalBuffer((__gm__ half*)x + first * cols_, rows_ * cols_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + first * cols_, rows_ * cols_);
    gammaGm_.SetGlobalBuffer((__gm__ half*)gamma, cols_);
    uint32_t tileElems = tileRows_ * pitch_;
    pipe_.InitBuffer(inQ_, kBufferNum, tileElems * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, tileElems * sizeof(half));
    pipe_.InitBuffer(xfBuf_, tileElems * sizeof(float));
    pipe_.InitBuffer(sqBuf_, tileElems * sizeof(float));
    pipe_.InitBuffer(gammaBuf_, tileElems * sizeof(float));
    pipe_.InitBuffer(workBuf_, t.work_len * sizeof(float));
    pipe_.InitBuffer(statBuf_, 8 * sizeof(float));
  }

  // The next tile's CopyIn is issued before this tile's Compute: Compute waits on the
  // scalar unit for each row's statistic, and a load issued earlier keeps MTE2 busy
  // meanwhile (the second buffer of inQ_ holds it).
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    LoadGamma();
    CopyIn(0, Rows(0));
    for (uint32_t row = 0; row < rows_; row += tileRows_) {
      if (row + tileRows_ < rows_) CopyIn(row + tileRows_, Rows(row + tileRows_));
      Compute(Rows(row));
      CopyOut(row, Rows(row));
    }
  }

  // Rows of the tile starting at `row`.
  __aicore__ inline uint32_t Rows(uint32_t row) const { return rows_ - row < tileRows_ ? rows_ - row : tileRows_; }

 private:
  // gamma -> UB through the input queue, cast to f32 into row 0 of gammaBuf_, then doubled
  // into rows 1 .. tileRows_-1.
  __aicore__ inline void LoadGamma() {
    LocalTensor<half> g = inQ_.AllocTensor<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(cols_ * sizeof(half)), 0, 0, 0};
    DataCopyPad(g, gammaGm_, p, DataCopyPadExtParams<half>{true, 0, 0, 0});
    inQ_.EnQue(g);
    g = inQ_.DeQue<half>();
    LocalTensor<float> gf = gammaBuf_.Get<float>();
    Cast(gf, g, RoundMode::CAST_NONE, pitch_);
    inQ_.FreeTensor(g);
    for (uint32_t have = 1; have < tileRows_; have *= 2) {
      uint32_t more = tileRows_ - have < have ? tileRows_ - have : have;
      DataCopy(gf[have * pitch_], gf, more * pitch_);
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
    LocalTensor<float> xf = xfBuf_.Get<float>();
    LocalTensor<float> sq = sqBuf_.Get<float>();
    LocalTensor<float> work = workBuf_.Get<float>();
    LocalTensor<float> stat = statBuf_.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, n * pitch_);
    inQ_.FreeTensor(x);
    Mul(sq, xf, xf, n * pitch_);
    for (uint32_t r = 0; r < n; r++) {
      ReduceSum(stat, sq[r * pitch_], work, cols_);   // sum of squares, f32
      Muls(stat, stat, invCols_, 1);                  // mean
      Adds(stat, stat, eps_, 1);
      Rsqrt(stat, stat, 1);                           // 1 / sqrt(mean + eps)
      Muls(xf[r * pitch_], xf[r * pitch_], stat.GetValue(0), cols_);
    }
    Mul(xf, xf, gammaBuf_.Get<float>(), n * pitch_);
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    Cast(y, xf, RoundMode::CAST_RINT, n * pitch_);
    outQ_.EnQue(y);
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
  TBuf<TPosition::VECCALC> xfBuf_, sqBuf_, gammaBuf_, workBuf_, statBuf_;
  GlobalTensor<half> xGm_, yGm_, gammaGm_;
  uint32_t rows_ = 0, cols_ = 0, pitch_ = 0, tileRows_ = 0;
  float eps_ = 0, invCols_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR gamma, GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  KernelRmsNorm op;
  op.Init(gamma, x, y, tiling);
  op.Process();
}
