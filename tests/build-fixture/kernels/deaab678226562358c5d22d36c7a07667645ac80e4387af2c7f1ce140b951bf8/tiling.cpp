// Host tiling of the staged copy: a workspace of n fp32 elements (one slot per element of
// x, so the cores' ranges never overlap), 8 Ki-element tiles, at most one core per 1 Ki
// elements.
#include <algorithm>
#include <cstdint>

#include "agenticcann_tiling.h"

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != AGC_NUM_DIMS) return 1;
  const uint64_t n = dims[0];
  if (n == 0 || n > UINT32_MAX / 4) return 2;
  tiling->total_length = static_cast<uint32_t>(n);
  tiling->tile_length = 8192;
  *block_dim = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(platform->aiv_cores, (n + 1023) / 1024)));
  *workspace_bytes = n * sizeof(float);
  return 0;
}
