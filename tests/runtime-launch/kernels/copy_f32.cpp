// y = x for f32, in the ordinary Ascend C style: multi-core split with the remainder spread
// over the first cores, double-buffered TQueBind (VECIN -> VECOUT, no compute), DataCopyPad
// for any length.
#include "kernel_operator.h"
#include "tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelCopy {
 public:
  __aicore__ inline KernelCopy() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const CopyTiling& t) {
    uint32_t blocks = GetBlockNum();
    uint32_t idx = GetBlockIdx();
    uint32_t base = t.totalLength / blocks;
    uint32_t rem = t.totalLength % blocks;
    length_ = base + (idx < rem ? 1 : 0);
    uint32_t start = idx * base + (idx < rem ? idx : rem);
    tile_ = t.tileLength;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe.InitBuffer(queue, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    uint32_t loops = (length_ + tile_ - 1) / tile_;
    for (uint32_t i = 0; i < loops; i++) {
      uint32_t n = (i + 1) * tile_ <= length_ ? tile_ : length_ - i * tile_;
      LocalTensor<float> t = queue.AllocTensor<float>();
      DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
      DataCopyPadExtParams<float> pad{false, 0, 0, 0};
      DataCopyPad(t, xGm[i * tile_], p, pad);  // LINE_COPY_IN
      queue.EnQue(t);
      LocalTensor<float> out = queue.DeQue<float>();
      DataCopyPad(yGm[i * tile_], out, p);
      queue.FreeTensor(out);
    }
  }

 private:
  TPipe pipe;
  TQueBind<TPosition::VECIN, TPosition::VECOUT, BUFFER_NUM> queue;
  GlobalTensor<float> xGm, yGm;
  uint32_t length_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void copy_f32(GM_ADDR x, GM_ADDR y, CopyTiling tiling) {
  KernelCopy op;
  op.Init(x, y, tiling);
  op.Process();
}
