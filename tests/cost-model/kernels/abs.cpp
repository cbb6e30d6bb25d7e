// y = |x| in fp16, double buffered, in two forms: the vector Abs over each tile, and
// the same pipeline computing each element with LocalTensor::GetValue/SetValue in a
// scalar loop (the anti-pattern of api-reference §8).
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

template <bool SCALAR>
class KernelAbs {
 public:
  __aicore__ inline KernelAbs() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ElemTiling& t) {
    tile_ = t.tileLength;
    uint32_t first = 0;
    split_units(t.totalLength / tile_, GetBlockNum(), GetBlockIdx(), 0, &first, &tiles_);
    xGm.SetGlobalBuffer((__gm__ half*)x + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    yGm.SetGlobalBuffer((__gm__ half*)y + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    pipe.InitBuffer(inQueue, 2, tile_ * sizeof(half));
    pipe.InitBuffer(outQueue, 2, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles_; i++) {
      LocalTensor<half> x = inQueue.AllocTensor<half>();
      DataCopy(x, xGm[uint64_t(i) * tile_], tile_);
      inQueue.EnQue(x);

      x = inQueue.DeQue<half>();
      LocalTensor<half> y = outQueue.AllocTensor<half>();
      if constexpr (SCALAR) {
        for (uint32_t k = 0; k < tile_; k++) {
          half v = x.GetValue(k);
          y.SetValue(k, v < half(0) ? half(-v) : v);
        }
      } else {
        Abs(y, x, tile_);
      }
      outQueue.EnQue(y);
      inQueue.FreeTensor(x);

      y = outQueue.DeQue<half>();
      DataCopy(yGm[uint64_t(i) * tile_], y, tile_);
      outQueue.FreeTensor(y);
    }
  }

 private:
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQueue;
  TQue<TPosition::VECOUT, 2> outQueue;
  GlobalTensor<half> xGm, yGm;
  uint32_t tiles_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void abs_vector(GM_ADDR x, GM_ADDR y, ElemTiling tiling) {
  KernelAbs<false> op;
  op.Init(x, y, tiling);
  op.Process();
}

extern "C" __global__ __aicore__ void abs_scalar(GM_ADDR x, GM_ADDR y, ElemTiling tiling) {
  KernelAbs<true> op;
  op.Init(x, y, tiling);
  op.Process();
}
