// Host tiling of the row softmax. dims: rows, cols (both first seen in x). Rows are spread
// over at most one core each; one fp32 row must fit four times (two queues of depth 2) in the
// Unified Buffer with the reduction work area.
#include <algorithm>
#include <cstdint>

#include "agenticcann_tiling.h"

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != AGC_NUM_DIMS) return 1;
  const uint64_t rows = dims[0];
  const uint64_t cols = dims[1];
  if (rows == 0 || cols == 0 || rows * cols > UINT32_MAX) return 2;
  const uint64_t row = (cols + 7) / 8 * 8 * 4;
  const uint64_t work = (std::max<uint64_t>(cols / 64, 1) + 7) / 8 * 8 * 4;
  if (4 * row + work + 32 > platform->ub_bytes) return 3;
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  *block_dim = static_cast<uint32_t>(std::min<uint64_t>(rows, platform->aiv_cores));
  *workspace_bytes = 0;
  return 0;
}
