// Host tiling of the f32 add. One tile size for every core: as large as the Unified Buffer
// holds for three double-buffered queues (8 KiB of UB left for the API), capped at 16 Ki
// elements, a multiple of one 32-byte block. At most one core per 256 elements, so short
// vectors do not pay for idle cores.
#include <algorithm>
#include <cstdint>

#include "agenticcann_tiling.h"

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != AGC_NUM_DIMS) return 1;
  const uint64_t n = dims[0];
  if (n == 0 || n > UINT32_MAX) return 2;
  const uint64_t elem = 4;  // bytes per fp32 element
  const uint64_t per_block = 32 / elem;
  const uint64_t budget = platform->ub_bytes > 8192 ? platform->ub_bytes - 8192 : 0;
  const uint64_t tile = std::min<uint64_t>(budget / (3 * 2 * elem), 16384) / per_block * per_block;
  if (tile == 0) return 3;
  const uint64_t cores = std::min<uint64_t>(platform->aiv_cores, (n + 255) / 256);
  tiling->total_length = static_cast<uint32_t>(n);
  tiling->tile_length = static_cast<uint32_t>(tile);
  *block_dim = static_cast<uint32_t>(std::max<uint64_t>(cores, 1));
  *workspace_bytes = 0;
  return 0;
}
