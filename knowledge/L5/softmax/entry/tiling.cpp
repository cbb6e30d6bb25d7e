// Host tiling of the softmax exemplar (softmax_f16). dims = { rows, cols }.
//
// Cores: min(rows, vector cores). UB per element of a tile: 2 half in + 2 half out buffers
// + 1 float copy = 12 bytes. chunk_len: the most elements one tile may hold (a multiple of
// 16, at most 8192). Rows with cols <= chunk_len are done in one pass, tile_rows at a time
// (pitch = cols rounded up to 16; at most a core's share and 4095 rows); longer rows take
// the two-pass online path in chunks of chunk_len (tile_rows = 1). work_len: ReduceSum /
// ReduceMax work buffer for the longest reduction, ceil(max(1, len / 64) / 8) * 8 floats.
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kUbReserve = 8 * 1024;
constexpr uint64_t kBytesPerElem = 2 * 2 + 2 * 2 + 4;
constexpr uint64_t kMaxChunk = 8192;
constexpr uint64_t kMaxBurst = 4095;
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 2) return 1;
  const uint64_t rows = dims[0], cols = dims[1];
  if (cols == 0 || rows == 0 || rows * cols > UINT32_MAX) return 1;
  const uint64_t pitch = (cols + 15) / 16 * 16;
  const uint64_t cores = std::max<uint64_t>(1, std::min<uint64_t>(platform->aiv_cores, platform->max_block_dim));
  const uint64_t blocks = std::min<uint64_t>(rows, cores);
  const uint64_t perCore = (rows + blocks - 1) / blocks;
  const uint64_t fixed = kUbReserve + (kMaxChunk / 64 + 8) * 4 + 32;
  if (platform->ub_bytes <= fixed) return 1;
  const uint64_t chunk = std::min<uint64_t>((platform->ub_bytes - fixed) / kBytesPerElem / 16 * 16, kMaxChunk);
  if (chunk < 16) return 1;
  const uint64_t tileRows = pitch <= chunk ? std::min({chunk / pitch, perCore, kMaxBurst}) : 1;
  const uint64_t longest = std::min<uint64_t>(cols, chunk);
  tiling->rows = static_cast<uint32_t>(rows);
  tiling->cols = static_cast<uint32_t>(cols);
  tiling->pitch = static_cast<uint32_t>(pitch);
  tiling->tile_rows = static_cast<uint32_t>(tileRows);
  tiling->chunk_len = static_cast<uint32_t>(chunk);
  tiling->work_len = static_cast<uint32_t>((std::max<uint64_t>(1, longest / 64) + 7) / 8 * 8);
  *block_dim = static_cast<uint32_t>(blocks);
  *workspace_bytes = 0;
  return 0;
}
