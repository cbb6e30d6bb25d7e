// Blocks: the largest power of two <= 32 that divides length / 16.
#include "agenticcann_tiling.h"
#include <cstdint>

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 1 || dims[0] > UINT32_MAX) return 1;
  uint64_t units = dims[0] / 16;
  uint32_t blocks = 32;
  while (blocks > 1 && (units == 0 || units % blocks != 0)) blocks /= 2;
  tiling->total_length = static_cast<uint32_t>(dims[0]);
  tiling->tile_length = 4096;
  *block_dim = blocks;
  *workspace_bytes = 0;
  return 0;
}
