// y = x for fp32, staged through GM: every core first copies its range of x into its range
// of the workspace, then (after a barrier, so its MTE3 writes land before MTE2 reads them
// back) copies the workspace range into y. Each pass streams tiles through a double-buffered
// VECIN->VECOUT queue; DataCopyPad handles a tail that is not a whole 32-byte block.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelStageCopy {
 public:
  __aicore__ inline KernelStageCopy() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, const AgcTiling& t) {
    uint32_t blocks = GetBlockNum();
    uint32_t idx = GetBlockIdx();
    uint32_t base = t.total_length / blocks;
    uint32_t rem = t.total_length % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tile_length;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, length_);
    wsGm.SetGlobalBuffer((__gm__ float*)workspace + start, length_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe.InitBuffer(queue, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    Pass(xGm, wsGm);
    PipeBarrier<PIPE_ALL>();
    Pass(wsGm, yGm);
  }

 private:
  __aicore__ inline void Pass(GlobalTensor<float>& src, GlobalTensor<float>& dst) {
    uint32_t loops = (length_ + tile_ - 1) / tile_;
    for (uint32_t i = 0; i < loops; i++) {
      uint32_t n = (i + 1) * tile_ <= length_ ? tile_ : length_ - i * tile_;
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
      LocalTensor<float> t = queue.AllocTensor<float>();
      DataCopyPad(t, src[i * tile_], p, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
      queue.EnQue(t);
      LocalTensor<float> out = queue.DeQue<float>();
      DataCopyPad(dst[i * tile_], out, p);
      queue.FreeTensor(out);
    }
  }

  TPipe pipe;
  TQueBind<TPosition::VECIN, TPosition::VECOUT, BUFFER_NUM> queue;
  GlobalTensor<float> xGm, wsGm, yGm;
  uint32_t length_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, AgcTiling tiling) {
  KernelStageCopy op;
  op.Init(x, y, workspace, tiling);
  op.Process();
}
