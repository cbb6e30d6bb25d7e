// Tiling structs shared by the kernels, their launchers and (as #[repr(C)] mirrors) Rust.
#pragma once
#include <cstdint>

struct CopyTiling {
  uint32_t totalLength;  // elements in x and y
  uint32_t tileLength;   // elements per tile
};
