// tiling/normalization/deepnorm_tiling.h — the high-level API host tiling helpers (see tiling/hl_tiling_helpers.h).
#pragma once

#include "tiling/hl_tiling_helpers.h"
