// L5 exemplar, softmax: y = exp(x - max) / sum(exp(x - max)) over the last axis, f16 in and
// out, max, exp and sum in f32 (FC-18).
//
// Split: rows over cores (the first rows % cores cores take one row more).
// Rows that fit the UB budget (cols <= chunk_len): a tile is tile_rows rows moved by one
// DataCopyPad (row i at i * pitch, pitch = cols rounded up to 16 halves); per row ReduceMax
// and ReduceSum over exactly cols elements, so padding lanes never reach a max or a sum
// (FC-10/FC-11).
// Longer rows: two passes over chunks of chunk_len elements. Pass 1 keeps the online pair
// (m, s): for each chunk with max cm, m' = max(m, cm), s = s * exp(m - m') + sum exp(x - m').
// Pass 2 re-reads the row and writes exp(x - m) / s. exp(m - m') <= 1, so nothing overflows.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AgcTiling& t) {
    uint32_t cores = GetBlockNum(), idx = GetBlockIdx();
    uint32_t base = t.rows / cores, rem = t.rows % cores;
    uint32_t first = idx * base + (idx < rem ? idx : rem);
    rows_ = base + (idx < rem ? 1 : 0);
    cols_ = t.cols;
    pitch_ = t.pitch;
    tileRows_ = t.tile_rows;
    chunk_ = t.chunk_len;
    xGm_.SetGlobalBuffer((__gm__ half*)x + first * cols_, rows_ * cols_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + first * cols_, rows_ * cols_);
    // A tile holds chunk_ elements: tile_rows whole rows (tile_rows * pitch <= chunk_) or
    // one chunk of a long row.
    pipe_.InitBuffer(inQ_, kBufferNum, chunk_ * sizeof(half));
    pipe_.InitBuffer(outQ_, kBufferNum, chunk_ * sizeof(half));
    pipe_.InitBuffer(xfBuf_, chunk_ * sizeof(float));
    pipe_.InitBuffer(workBuf_, t.work_len * sizeof(float));
    pipe_.InitBuffer(statBuf_, 8 * sizeof(float));
  }

  // The next tile's (or chunk's) CopyIn is issued before this one's compute: the compute
  // waits on the scalar unit for each row's max and sum, and a load issued earlier keeps
  // MTE2 busy meanwhile (the second buffer of inQ_ holds it).
  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    if (cols_ <= chunk_) {
      CopyIn(0, Rows(0), cols_);
      for (uint32_t row = 0; row < rows_; row += tileRows_) {
        if (row + tileRows_ < rows_) CopyIn((row + tileRows_) * cols_, Rows(row + tileRows_), cols_);
        ComputeRows(Rows(row));
        CopyOut(row * cols_, Rows(row), cols_);
      }
    } else {
      for (uint32_t row = 0; row < rows_; row++) LongRow(row * cols_);
    }
  }

 private:
  // Rows of the tile starting at `row`; elements of the chunk starting at column `c`.
  __aicore__ inline uint32_t Rows(uint32_t row) const { return rows_ - row < tileRows_ ? rows_ - row : tileRows_; }
  __aicore__ inline uint32_t Chunk(uint32_t c) const { return cols_ - c < chunk_ ? cols_ - c : chunk_; }

  // n bursts of len halves from GM offset off; burst i lands at i * roundup(len, 16).
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n, uint32_t len) {
    LocalTensor<half> x = inQ_.AllocTensor<half>();
    DataCopyExtParams p{static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0};
    DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<half>{false, 0, 0, 0});
    inQ_.EnQue(x);
  }

  __aicore__ inline void CopyOut(uint32_t off, uint32_t n, uint32_t len) {
    LocalTensor<half> y = outQ_.DeQue<half>();
    DataCopyExtParams p{static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0};
    DataCopyPad(yGm_[off], y, p);
    outQ_.FreeTensor(y);
  }

  // The dequeued input tile as f32 in xfBuf_ (count elements).
  __aicore__ inline LocalTensor<float> Widen(uint32_t count) {
    LocalTensor<half> x = inQ_.DeQue<half>();
    LocalTensor<float> xf = xfBuf_.Get<float>();
    Cast(xf, x, RoundMode::CAST_NONE, count);
    inQ_.FreeTensor(x);
    return xf;
  }

  // xf (count elements) -> f16 output tile, enqueued.
  __aicore__ inline void Narrow(const LocalTensor<float>& xf, uint32_t count) {
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    Cast(y, xf, RoundMode::CAST_RINT, count);
    outQ_.EnQue(y);
  }

  __aicore__ inline float RowMax(const LocalTensor<float>& v, uint32_t len) {
    LocalTensor<float> stat = statBuf_.Get<float>();
    ReduceMax(stat, v, workBuf_.Get<float>(), len);
    return stat.GetValue(0);
  }

  __aicore__ inline float RowSum(const LocalTensor<float>& v, uint32_t len) {
    LocalTensor<float> stat = statBuf_.Get<float>();
    ReduceSum(stat, v, workBuf_.Get<float>(), len);
    return stat.GetValue(0);
  }

  // One-pass softmax of n whole rows.
  __aicore__ inline void ComputeRows(uint32_t n) {
    LocalTensor<float> xf = Widen(n * pitch_);
    for (uint32_t r = 0; r < n; r++) {
      LocalTensor<float> row = xf[r * pitch_];
      Adds(row, row, -RowMax(row, cols_), cols_);
    }
    Exp(xf, xf, n * pitch_);
    for (uint32_t r = 0; r < n; r++) {
      LocalTensor<float> row = xf[r * pitch_];
      Muls(row, row, 1.0f / RowSum(row, cols_), cols_);
    }
    Narrow(xf, n * pitch_);
  }

  // exp(d) for a scalar d <= 0, on the vector unit.
  __aicore__ inline float ExpScalar(float d) {
    LocalTensor<float> stat = statBuf_.Get<float>();
    Duplicate(stat, d, 8);
    Exp(stat, stat, 8);
    return stat.GetValue(0);
  }

  // Online softmax of one row longer than a chunk.
  __aicore__ inline void LongRow(uint32_t rowOff) {
    float m = 0.0f, s = 0.0f;
    CopyIn(rowOff, 1, Chunk(0));
    for (uint32_t c = 0; c < cols_; c += chunk_) {       // pass 1: running max and sum
      uint32_t len = Chunk(c);
      if (c + chunk_ < cols_) CopyIn(rowOff + c + chunk_, 1, Chunk(c + chunk_));
      LocalTensor<float> xf = Widen(len);
      float cm = RowMax(xf, len);
      float mNew = (c == 0 || cm > m) ? cm : m;
      Adds(xf, xf, -mNew, len);
      Exp(xf, xf, len);
      float cs = RowSum(xf, len);
      s = (c == 0) ? cs : s * ExpScalar(m - mNew) + cs;
      m = mNew;
    }
    float inv = 1.0f / s;
    CopyIn(rowOff, 1, Chunk(0));
    for (uint32_t c = 0; c < cols_; c += chunk_) {       // pass 2: normalize and write
      uint32_t len = Chunk(c);
      if (c + chunk_ < cols_) CopyIn(rowOff + c + chunk_, 1, Chunk(c + chunk_));
      LocalTensor<float> xf = Widen(len);
      Adds(xf, xf, -m, len);
      Exp(xf, xf, len);
      Muls(xf, xf, inv, len);
      Narrow(xf, len);
      CopyOut(rowOff + c, 1, len);
    }
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> inQ_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> xfBuf_, workBuf_, statBuf_;
  GlobalTensor<half> xGm_, yGm_;
  uint32_t rows_ = 0, cols_ = 0, pitch_ = 0, tileRows_ = 0, chunk_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelSoftmax op;
  op.Init(x, y, tiling);
  op.Process();
}
