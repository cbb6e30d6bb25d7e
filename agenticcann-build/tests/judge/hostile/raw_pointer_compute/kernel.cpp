// HOSTILE: computes z = x + y with plain C++ loads and stores on the GM pointers — right
// answers, but nothing moves through the simulated DMA or vector units, so the cost model
// sees an empty kernel and reports a time no real kernel can reach.
#include "kernel_operator.h"
#include "agenticcann_tiling.h"

extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 AgcTiling tiling) {
  uint32_t blocks = AscendC::GetBlockNum(), idx = AscendC::GetBlockIdx();
  uint32_t n = tiling.total_length;
  uint32_t base = n / blocks, rem = n % blocks;
  uint32_t len = base + (idx < rem ? 1 : 0);
  uint32_t start = idx * base + (idx < rem ? idx : rem);
  const half* xs = (const half*)x + start;
  const half* ys = (const half*)y + start;
  half* zs = (half*)z + start;
  for (uint32_t i = 0; i < len; i++) zs[i] = (half)((float)xs[i] + (float)ys[i]);
}
