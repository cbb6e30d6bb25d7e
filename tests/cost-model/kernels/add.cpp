// z = x + y in fp16, the canonical TPipe/TQue kernel (CopyIn / Compute / CopyOut per
// tile). The tiling chooses the buffers per queue: bufferNum = 1 is single buffering,
// 2 double buffering (InitBuffer's `num`, queue depth 2).
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

constexpr int32_t MAX_BUFFER_NUM = 2;

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ElemTiling& t) {
    tile_ = t.tileLength;
    uint32_t tiles = t.totalLength / tile_;
    uint32_t first = 0;
    split_units(tiles, GetBlockNum(), GetBlockIdx(), t.tailSplit, &first, &tiles_);
    uint64_t start = uint64_t(first) * tile_;
    xGm.SetGlobalBuffer((__gm__ half*)x + start, uint64_t(tiles_) * tile_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, uint64_t(tiles_) * tile_);
    zGm.SetGlobalBuffer((__gm__ half*)z + start, uint64_t(tiles_) * tile_);
    uint8_t num = uint8_t(t.bufferNum == 1 ? 1 : 2);
    pipe.InitBuffer(inQueueX, num, tile_ * sizeof(half));
    pipe.InitBuffer(inQueueY, num, tile_ * sizeof(half));
    pipe.InitBuffer(outQueueZ, num, tile_ * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles_; i++) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    LocalTensor<half> x = inQueueX.AllocTensor<half>();
    LocalTensor<half> y = inQueueY.AllocTensor<half>();
    DataCopy(x, xGm[uint64_t(i) * tile_], tile_);
    DataCopy(y, yGm[uint64_t(i) * tile_], tile_);
    inQueueX.EnQue(x);
    inQueueY.EnQue(y);
  }
  __aicore__ inline void Compute() {
    LocalTensor<half> x = inQueueX.DeQue<half>();
    LocalTensor<half> y = inQueueY.DeQue<half>();
    LocalTensor<half> z = outQueueZ.AllocTensor<half>();
    Add(z, x, y, tile_);
    outQueueZ.EnQue<half>(z);
    inQueueX.FreeTensor(x);
    inQueueY.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(uint32_t i) {
    LocalTensor<half> z = outQueueZ.DeQue<half>();
    DataCopy(zGm[uint64_t(i) * tile_], z, tile_);
    outQueueZ.FreeTensor(z);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, MAX_BUFFER_NUM> inQueueX, inQueueY;
  TQue<TPosition::VECOUT, MAX_BUFFER_NUM> outQueueZ;
  GlobalTensor<half> xGm, yGm, zGm;
  uint32_t tiles_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void add_f16(GM_ADDR x, GM_ADDR y, GM_ADDR z, ElemTiling tiling) {
  KernelAdd op;
  op.Init(x, y, z, tiling);
  op.Process();
}
