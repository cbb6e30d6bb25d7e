// Host tiling of the reduction exemplar (row_sum_f16). dims = { rows, cols }.
//
// Cores: min(rows, vector cores). Rows sit in UB at a pitch of cols rounded up to 16.
// UB per tile row: 2 half input buffers + 1 float copy = 8 bytes per pitch element.
// tile_rows: what the budget holds, at most a core's share and 1024 (the output tile and
// the per-row scalar gather stay small). work_len: ReduceSum's work buffer for one row,
// ceil(max(1, cols / 64) / 8) * 8 floats. A row longer than the budget is not supported
// here (it would need column chunks with f32 partial sums, see L3.reduction).
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kUbReserve = 8 * 1024;
constexpr uint64_t kBytesPerPitchElem = 2 * 2 + 4;
constexpr uint64_t kMaxTileRows = 1024;
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 2) return 1;
  const uint64_t rows = dims[0], cols = dims[1];
  if (rows == 0 || rows * cols > UINT32_MAX) return 1;
  // cols == 0 (empty rows) is valid: every sum is 0; a pitch of 16 keeps the buffers non-empty.
  const uint64_t pitch = std::max<uint64_t>(16, (cols + 15) / 16 * 16);
  const uint64_t cores = std::max<uint64_t>(1, std::min<uint64_t>(platform->aiv_cores, platform->max_block_dim));
  const uint64_t blocks = std::min<uint64_t>(rows, cores);
  const uint64_t perCore = (rows + blocks - 1) / blocks;
  const uint64_t work = (std::max<uint64_t>(1, cols / 64) + 7) / 8 * 8;
  // Fixed buffers: work, the 8-float sum, the output tile (2 x kMaxTileRows floats at most).
  const uint64_t fixed = kUbReserve + work * 4 + 32 + 2 * kMaxTileRows * 4;
  if (platform->ub_bytes <= fixed) return 1;
  const uint64_t fit = (platform->ub_bytes - fixed) / (kBytesPerPitchElem * pitch);
  if (fit == 0) return 1;
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  tiling->pitch = static_cast<uint32_t>(pitch);
  tiling->tile_rows = static_cast<uint32_t>(std::min({fit, perCore, kMaxTileRows}));
  tiling->work_len = static_cast<uint32_t>(work);
  *block_dim = static_cast<uint32_t>(blocks);
  *workspace_bytes = 0;
  return 0;
}
