// Tiling of the fp16 add: at least 2048 elements per core, tiles of 4096 elements.
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 1 || dims[0] == 0 || dims[0] > UINT32_MAX) return 1;
  uint64_t total = dims[0];
  uint64_t blocks = std::min<uint64_t>(platform->aiv_cores, (total + 2047) / 2048);
  tiling->total_length = static_cast<uint32_t>(total);
  tiling->tile_length = 4096;
  *block_dim = static_cast<uint32_t>(std::max<uint64_t>(blocks, 1));
  *workspace_bytes = 0;
  return 0;
}
