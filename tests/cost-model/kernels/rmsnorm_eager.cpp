// The same RMSNorm as an eager framework runs it: six separate kernels, each reading
// its inputs from GM and writing its result to GM (fp16 tensors between them):
//   sq = x * x            [rows, cols]   eager_square
//   ms = mean(sq, -1)     [rows]         eager_row_mean   (fp32 accumulation)
//   ms = ms + eps         [rows]         eager_adds
//   r  = rsqrt(ms)        [rows]         eager_rsqrt
//   t  = x * r            [rows, cols]   eager_mul_rows   (r broadcast over each row)
//   y  = t * gamma        [rows, cols]   eager_mul_gamma  (gamma broadcast over rows)
// Every kernel is an ordinary double-buffered TPipe/TQue kernel split over the blocks.
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

// Elementwise over `n` elements in tiles of `tile` (the [rows] kernels use one tile).
class EagerUnary {
 public:
  enum Op { OpSquare, OpAddsEps, OpRsqrt };
  __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t n, uint32_t tile, Op op, float eps) {
    uint32_t first = 0, tiles = 0;
    split_units(n / tile, GetBlockNum(), GetBlockIdx(), 0, &first, &tiles);
    xGm.SetGlobalBuffer((__gm__ half*)x + uint64_t(first) * tile, uint64_t(tiles) * tile);
    yGm.SetGlobalBuffer((__gm__ half*)y + uint64_t(first) * tile, uint64_t(tiles) * tile);
    pipe.InitBuffer(inQueue, 2, tile * sizeof(half));
    pipe.InitBuffer(outQueue, 2, tile * sizeof(half));
    for (uint32_t i = 0; i < tiles; i++) {
      LocalTensor<half> a = inQueue.AllocTensor<half>();
      DataCopy(a, xGm[uint64_t(i) * tile], tile);
      inQueue.EnQue(a);
      a = inQueue.DeQue<half>();
      LocalTensor<half> b = outQueue.AllocTensor<half>();
      if (op == OpSquare) Mul(b, a, a, tile);
      else if (op == OpAddsEps) Adds(b, a, half(eps), tile);
      else Rsqrt(b, a, tile);
      outQueue.EnQue(b);
      inQueue.FreeTensor(a);
      b = outQueue.DeQue<half>();
      DataCopy(yGm[uint64_t(i) * tile], b, tile);
      outQueue.FreeTensor(b);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 2> outQueue;
  GlobalTensor<half> xGm, yGm;
};

extern "C" __global__ __aicore__ void eager_square(GM_ADDR x, GM_ADDR y, RowTiling t) {
  EagerUnary k;
  k.Run(x, y, t.rows * t.cols, t.cols, EagerUnary::OpSquare, 0);
}

extern "C" __global__ __aicore__ void eager_adds(GM_ADDR x, GM_ADDR y, RowTiling t) {
  EagerUnary k;
  k.Run(x, y, t.rows, t.rows, EagerUnary::OpAddsEps, t.eps);
}

extern "C" __global__ __aicore__ void eager_rsqrt(GM_ADDR x, GM_ADDR y, RowTiling t) {
  EagerUnary k;
  k.Run(x, y, t.rows, t.rows, EagerUnary::OpRsqrt, 0);
}

// ms[r] = scale * sum(sq[r, :]) for the block's rows; the means are gathered in UB
// and written once per block.
class EagerRowMean {
 public:
  __aicore__ inline void Run(GM_ADDR sq, GM_ADDR ms, const RowTiling& t) {
    cols_ = t.cols;
    uint32_t first = 0;
    // Whole groups of 16 rows per block, so each block writes whole 32-B blocks of means.
    split_units(t.rows / 16, GetBlockNum(), GetBlockIdx(), 0, &first, &rows_);
    first *= 16;
    rows_ *= 16;
    sqGm.SetGlobalBuffer((__gm__ half*)sq + uint64_t(first) * cols_, uint64_t(rows_) * cols_);
    msGm.SetGlobalBuffer((__gm__ half*)ms + first, rows_);
    pipe.InitBuffer(inQueue, 2, cols_ * sizeof(half));
    pipe.InitBuffer(outQueue, 1, (rows_ > 0 ? rows_ : 16) * sizeof(half));
    pipe.InitBuffer(f32, cols_ * sizeof(float));
    uint32_t repeats = (cols_ + 63) / 64;
    pipe.InitBuffer(work, ((repeats + 7) / 8) * 8 * sizeof(float));
    pipe.InitBuffer(sum, 8 * sizeof(float));
    if (rows_ == 0) return;
    LocalTensor<half> out = outQueue.AllocTensor<half>();
    CopyIn(0);
    for (uint32_t r = 0; r < rows_; r++) {
      if (r + 1 < rows_) CopyIn(r + 1);  // one row ahead of the GetValue stall
      LocalTensor<half> a = inQueue.DeQue<half>();
      LocalTensor<float> af = f32.Get<float>();
      Cast(af, a, RoundMode::CAST_NONE, cols_);
      inQueue.FreeTensor(a);
      LocalTensor<float> s = sum.Get<float>();
      ReduceSum(s, af, work.Get<float>(), cols_);
      out.SetValue(r, half(s.GetValue(0) * t.scale));
    }
    outQueue.EnQue(out);
    out = outQueue.DeQue<half>();
    DataCopy(msGm, out, rows_);
    outQueue.FreeTensor(out);
  }

 private:
  __aicore__ inline void CopyIn(uint32_t r) {
    LocalTensor<half> a = inQueue.AllocTensor<half>();
    DataCopy(a, sqGm[uint64_t(r) * cols_], cols_);
    inQueue.EnQue(a);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 1> outQueue;
  TBuf<TPosition::VECCALC> f32, work, sum;
  GlobalTensor<half> sqGm, msGm;
  uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void eager_row_mean(GM_ADDR sq, GM_ADDR ms, RowTiling t) {
  EagerRowMean k;
  k.Run(sq, ms, t);
}

// y[r, :] = x[r, :] * v (ROWS: v = r[row], a per-row scalar read from GM; else v = gamma[:]).
template <bool ROWS>
class EagerMul {
 public:
  __aicore__ inline void Run(GM_ADDR x, GM_ADDR v, GM_ADDR y, const RowTiling& t) {
    cols_ = t.cols;
    uint32_t first = 0;
    split_units(t.rows, GetBlockNum(), GetBlockIdx(), 0, &first, &rows_);
    xGm.SetGlobalBuffer((__gm__ half*)x + uint64_t(first) * cols_, uint64_t(rows_) * cols_);
    yGm.SetGlobalBuffer((__gm__ half*)y + uint64_t(first) * cols_, uint64_t(rows_) * cols_);
    vGm.SetGlobalBuffer((__gm__ half*)v + (ROWS ? first : 0), ROWS ? rows_ : cols_);
    pipe.InitBuffer(inQueue, 2, cols_ * sizeof(half));
    pipe.InitBuffer(outQueue, 2, cols_ * sizeof(half));
    pipe.InitBuffer(vBuf, cols_ * sizeof(half));
    if (rows_ == 0) return;
    LocalTensor<half> g = vBuf.Get<half>();
    if constexpr (!ROWS) {
      LocalTensor<half> tmp = inQueue.AllocTensor<half>();
      DataCopy(tmp, vGm, cols_);
      inQueue.EnQue(tmp);
      tmp = inQueue.DeQue<half>();
      Adds(g, tmp, half(0), cols_);
      inQueue.FreeTensor(tmp);
    }
    for (uint32_t r = 0; r < rows_; r++) {
      LocalTensor<half> a = inQueue.AllocTensor<half>();
      DataCopy(a, xGm[uint64_t(r) * cols_], cols_);
      inQueue.EnQue(a);
      a = inQueue.DeQue<half>();
      LocalTensor<half> b = outQueue.AllocTensor<half>();
      if constexpr (ROWS) Muls(b, a, vGm.GetValue(r), cols_);
      else Mul(b, a, g, cols_);
      outQueue.EnQue(b);
      inQueue.FreeTensor(a);
      b = outQueue.DeQue<half>();
      DataCopy(yGm[uint64_t(r) * cols_], b, cols_);
      outQueue.FreeTensor(b);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 2> outQueue;
  TBuf<TPosition::VECCALC> vBuf;
  GlobalTensor<half> xGm, vGm, yGm;
  uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void eager_mul_rows(GM_ADDR x, GM_ADDR r, GM_ADDR y, RowTiling t) {
  EagerMul<true> k;
  k.Run(x, r, y, t);
}

extern "C" __global__ __aicore__ void eager_mul_gamma(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RowTiling t) {
  EagerMul<false> k;
  k.Run(x, gamma, y, t);
}
