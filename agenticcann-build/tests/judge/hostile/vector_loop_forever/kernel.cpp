// HOSTILE: never returns, issuing vector instructions all the while (the simulator's host
// memory must stay bounded, so the wall-clock limit ends it: timeout, not bad_alloc)
// Element-wise add, fp16 (adapted from ascendc-sim/tests/kernels/add_custom.cpp to the store
// ABI): multi-core split with a per-core tail, double buffering, DataCopyPad for any length.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum();
    uint32_t idx = GetBlockIdx();
    uint32_t base = t.total_length / blocks;
    uint32_t rem = t.total_length % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tile_length;
    xGm.SetGlobalBuffer((__gm__ half*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ half*)y + start, length_);
    zGm.SetGlobalBuffer((__gm__ half*)z + start, length_);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, tile_ * sizeof(half));
    pipe.InitBuffer(inQueueY, BUFFER_NUM, tile_ * sizeof(half));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, tile_ * sizeof(half));
  }
  // Adds one small tile to itself forever (the loop's bound is never reached).
  __aicore__ inline void Spin() {
    LocalTensor<half> z = outQueueZ.AllocTensor<half>();
    Duplicate(z, (half)0, 16);
    volatile uint32_t spin = 1;
    while (spin != 0) {
      Add(z, z, z, 16);
    }
  }
  __aicore__ inline void Process() {
    uint32_t loops = (length_ + tile_ - 1) / tile_;
    for (uint32_t i = 0; i < loops; i++) {
      uint32_t n = (i + 1) * tile_ <= length_ ? tile_ : length_ - i * tile_;
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<half> x = inQueueX.AllocTensor<half>();
    LocalTensor<half> y = inQueueY.AllocTensor<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    DataCopyPadExtParams<half> pad{false, 0, 0, 0};
    DataCopyPad(x, xGm[i * tile_], p, pad);
    DataCopyPad(y, yGm[i * tile_], p, pad);
    inQueueX.EnQue(x);
    inQueueY.EnQue(y);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQueueX.DeQue<half>();
    LocalTensor<half> y = inQueueY.DeQue<half>();
    LocalTensor<half> z = outQueueZ.AllocTensor<half>();
    Add(z, x, y, n);
    outQueueZ.EnQue<half>(z);
    inQueueX.FreeTensor(x);
    inQueueY.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<half> z = outQueueZ.DeQue<half>();
    DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
    DataCopyPad(zGm[i * tile_], z, p);
    outQueueZ.FreeTensor(z);
  }

  TPipe pipe;
  TQue<TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQueueZ;
  GlobalTensor<half> xGm, yGm, zGm;
  uint32_t length_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  KernelAdd op;
  op.Init(x, y, z, tiling);
  op.Process();
  op.Spin();
}
