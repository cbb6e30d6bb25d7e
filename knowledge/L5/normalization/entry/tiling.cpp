// Host tiling of the normalization exemplar (rms_norm_f16). dims = { cols, rows } (named
// dimensions in kernel-parameter order: gamma[cols] comes before x[rows, cols]).
//
// Cores: min(rows, vector cores). Rows sit in UB at a pitch of cols rounded up to 16.
// UB per tile row: 2 half in + 2 half out buffers + 3 float rows (x, x^2, gamma) = 20 bytes
// per pitch element. tile_rows: what the budget holds, at most a core's share and 4095
// (DataCopyPad's burst limit). work_len: ReduceSum's work buffer for one row,
// ceil(max(1, cols / 64) / 8) * 8 floats. A row longer than the budget (about 9000 halves)
// is not supported here: it needs two passes over column chunks (see L3.normalization).
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kUbReserve = 8 * 1024;
constexpr uint64_t kBytesPerPitchElem = 2 * 2 + 2 * 2 + 3 * 4;
constexpr uint64_t kMaxBurst = 4095;
constexpr float kEps = 1e-6f;  // the spec's attr eps
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
  const uint64_t work = (std::max<uint64_t>(1, cols / 64) + 7) / 8 * 8;
  const uint64_t fixed = kUbReserve + work * 4 + 32;
  if (platform->ub_bytes <= fixed) return 1;
  const uint64_t fit = (platform->ub_bytes - fixed) / (kBytesPerPitchElem * pitch);
  if (fit == 0) return 1;
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  tiling->pitch = static_cast<uint32_t>(pitch);
  tiling->tile_rows = static_cast<uint32_t>(std::min({fit, perCore, kMaxBurst}));
  tiling->work_len = static_cast<uint32_t>(work);
  tiling->eps = kEps;
  tiling->inv_cols = 1.0f / static_cast<float>(cols);
  *block_dim = static_cast<uint32_t>(blocks);
  *workspace_bytes = 0;
  return 0;
}
