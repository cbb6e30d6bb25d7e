// Host tiling of the broadcast exemplar (bias_add_f16). dims = { cols, rows } (named
// dimensions in kernel-parameter order: bias[cols] comes before x[rows, cols]).
//
// Cores: min(rows, vector cores). Rows sit in UB at a pitch of cols rounded up to 16 halves.
// tile_rows: as many rows as the UB budget holds (in, out double buffered + the replicated
// bias = 5 row buffers), at most a core's share and 4095 (DataCopyPad's burst limit).
// A row longer than the budget is not supported here (it would need column tiles).
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kUbReserve = 8 * 1024;
constexpr uint64_t kRowBuffers = 2 + 2 + 1;
constexpr uint64_t kMaxBurst = 4095;
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 2) return 1;
  const uint64_t cols = dims[0], rows = dims[1];
  if (cols == 0 || rows == 0 || rows * cols > UINT32_MAX) return 1;
  const uint64_t pitch = (cols + 15) / 16 * 16;
  const uint64_t cores = std::max<uint64_t>(1, std::min<uint64_t>(platform->aiv_cores, platform->max_block_dim));
  const uint64_t blocks = std::min<uint64_t>(rows, cores);
  const uint64_t perCore = (rows + blocks - 1) / blocks;
  const uint64_t budget = platform->ub_bytes > kUbReserve ? platform->ub_bytes - kUbReserve : 0;
  const uint64_t fit = budget / (kRowBuffers * pitch * 2);
  if (fit == 0) return 1;
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  tiling->pitch = static_cast<uint32_t>(pitch);
  tiling->tile_rows = static_cast<uint32_t>(std::min({fit, perCore, kMaxBurst}));
  *block_dim = static_cast<uint32_t>(blocks);
  *workspace_bytes = 0;
  return 0;
}
