// Host tiling of the fusion exemplar (swiglu_f16). dims = { rows, inter }.
//
// The tensors are contiguous, so the kernel sees one flat length rows * inter. Cores: one
// per 256 elements at least, at most all vector cores. Tile: the largest multiple of 16
// elements whose buffers fit the UB budget (2 inputs and 1 output, double buffered, plus 2
// float temporaries = 20 bytes per element), capped at 8192 and at one core's share.
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kMinPerCore = 256;
constexpr uint64_t kMaxTile = 8192;
constexpr uint64_t kUbReserve = 8 * 1024;
constexpr uint64_t kBytesPerElem = 2 * 2 * 2 + 2 * 2 + 2 * 4;
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 2) return 1;
  const uint64_t n = dims[0] * dims[1];
  if (dims[0] == 0 || dims[1] == 0 || n > UINT32_MAX) return 1;
  const uint64_t cores = std::max<uint64_t>(1, std::min<uint64_t>(platform->aiv_cores, platform->max_block_dim));
  const uint64_t blocks = std::min<uint64_t>(cores, (n + kMinPerCore - 1) / kMinPerCore);
  const uint64_t perCore = ((n + blocks - 1) / blocks + 15) / 16 * 16;
  const uint64_t budget = platform->ub_bytes > kUbReserve ? platform->ub_bytes - kUbReserve : 0;
  uint64_t tile = std::min<uint64_t>(budget / kBytesPerElem / 16 * 16, kMaxTile);
  tile = std::min<uint64_t>(tile, perCore);
  if (tile < 16) return 1;
  tiling->total_len = static_cast<uint32_t>(n);
  tiling->tile_len = static_cast<uint32_t>(tile);
  *block_dim = static_cast<uint32_t>(blocks);
  *workspace_bytes = 0;
  return 0;
}
