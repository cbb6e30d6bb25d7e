// Tiling structs of the cost-model test kernels, shared by the kernels and the host
// harness (cpp/harness.cpp). Passed by value as the last kernel argument.
#pragma once
#include <cstdint>

/// Elementwise kernels over `totalLength` elements in tiles of `tileLength` elements
/// (a multiple of the 32-byte block). `tailSplit` = 0 spreads the leftover tiles one per
/// block (balanced); 1 gives them all to the last block (the naive tail split).
struct ElemTiling {
  uint32_t totalLength;
  uint32_t tileLength;
  uint32_t tailSplit;
  uint32_t rounds;     // exp_ln_chain: Exp+Ln pairs per element
  uint32_t bufferNum;  // add_f16: buffers per queue (1 = single, 2 = double buffering)
};

/// Row kernels over a [rows, cols] matrix; each block takes whole rows.
struct RowTiling {
  uint32_t rows;
  uint32_t cols;
  float eps;
  float scale;  // 1 / cols for means
};

/// Which rows / elements block `idx` of `blocks` owns, in units of `unit` elements:
/// [*start, *start + *count).
inline void split_units(uint32_t total_units, uint32_t blocks, uint32_t idx, uint32_t tail_split,
                        uint32_t* start, uint32_t* count) {
  uint32_t base = total_units / blocks;
  uint32_t rem = total_units % blocks;
  if (tail_split) {
    *start = idx * base;
    *count = base + (idx + 1 == blocks ? rem : 0);
  } else {
    *start = idx * base + (idx < rem ? idx : rem);
    *count = base + (idx < rem ? 1 : 0);
  }
}
