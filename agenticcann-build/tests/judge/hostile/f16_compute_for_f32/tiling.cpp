// Rows split over min(rows, cores) blocks; cols fixed by the spec (512); eps from the spec.
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 1 || dims[0] == 0 || dims[0] > UINT32_MAX) return 1;
  tiling->rows = static_cast<uint32_t>(dims[0]);
  tiling->cols = 512;
  tiling->eps = 1e-6f;
  *block_dim = static_cast<uint32_t>(std::min<uint64_t>(dims[0], platform->aiv_cores));
  *workspace_bytes = 0;
  return 0;
}
