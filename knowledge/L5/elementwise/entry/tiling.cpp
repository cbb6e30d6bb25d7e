// Host tiling of the elementwise exemplar (gelu_tanh_f16). dims = { n }.
//
// Cores: one per 256 elements at least (smaller shares cost more in launch and DMA set-up
// than they save), at most all vector cores. Tile: the largest multiple of 16 elements whose
// buffers fit the UB budget, capped at 8192 (a 16 KiB DMA already reaches full bandwidth)
// and at what one core has to do.
#include "agenticcann_tiling.h"
#include <algorithm>
#include <cstdint>

namespace {
constexpr uint64_t kMinPerCore = 256;
constexpr uint64_t kMaxTile = 8192;
constexpr uint64_t kUbReserve = 8 * 1024;  // left for the runtime and API temporaries
// UB bytes per tile element: 2 x half in + 2 x half out (double buffered) + 2 float temps.
constexpr uint64_t kBytesPerElem = 2 * 2 + 2 * 2 + 2 * 4;
}  // namespace

extern "C" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,
                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {
  if (num_dims != 1 || dims[0] == 0 || dims[0] > UINT32_MAX) return 1;
  const uint64_t n = dims[0];
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
