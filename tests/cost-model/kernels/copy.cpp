// y = x (fp16) through the Unified Buffer in chunks of `tileLength` elements: one
// DataCopy GM->UB and one UB->GM per chunk, through a double-buffered VECIN->VECOUT
// bound queue. With tileLength = 16 it moves 32 bytes per DataCopy.
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

class KernelCopy {
 public:
  __aicore__ inline KernelCopy() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ElemTiling& t) {
    tile_ = t.tileLength;
    uint32_t first = 0;
    split_units(t.totalLength / tile_, GetBlockNum(), GetBlockIdx(), 0, &first, &tiles_);
    xGm.SetGlobalBuffer((__gm__ half*)x + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    yGm.SetGlobalBuffer((__gm__ half*)y + uint64_t(first) * tile_, uint64_t(tiles_) * tile_);
    pipe.InitBuffer(queue, 2, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles_; i++) {
      LocalTensor<half> b = queue.AllocTensor<half>();
      DataCopy(b, xGm[uint64_t(i) * tile_], tile_);
      queue.EnQue(b);
      b = queue.DeQue<half>();
      DataCopy(yGm[uint64_t(i) * tile_], b, tile_);
      queue.FreeTensor(b);
    }
  }

 private:
  TPipe pipe;
  TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> queue;
  GlobalTensor<half> xGm, yGm;
  uint32_t tiles_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void copy_f16(GM_ADDR x, GM_ADDR y, ElemTiling tiling) {
  KernelCopy op;
  op.Init(x, y, tiling);
  op.Process();
}
