// Host tiling of RMSNorm (eps = 1e-6, the op's attr). dims arrive in tiling order: cols
// (first seen in gamma), then rows. Rows are spread over at most one core each; a row must
// fit in the Unified Buffer with its fp32 copies, which bounds cols.
#include <algorithm>
#include <cstdint>

#include "agenticcann_tiling.h"

namespace {
uint64_t RoundUp(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != AGC_NUM_DIMS) return 1;
  const uint64_t cols = dims[0];
  const uint64_t rows = dims[1];
  if (cols == 0 || rows == 0 || rows * cols > UINT32_MAX) return 2;
  // UB per core: two fp16 queues of depth 2, three fp32 rows, the reduction work area and
  // its 32-byte result, each rounded to 32 bytes by TPipe::InitBuffer.
  const uint64_t rowH = RoundUp(RoundUp(cols, 16) * 2, 32);
  const uint64_t rowF = RoundUp(RoundUp(cols, 8) * 4, 32);
  const uint64_t work = RoundUp(RoundUp(std::max<uint64_t>(cols / 64, 1), 8) * 4, 32);
  const uint64_t ub = 4 * rowH + 3 * rowF + work + 32;
  if (ub > platform->ub_bytes) return 3;
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  tiling->eps = 1e-6f;
  *block_dim = static_cast<uint32_t>(std::min<uint64_t>(rows, platform->aiv_cores));
  *workspace_bytes = 0;
  return 0;
}
