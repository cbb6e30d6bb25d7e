// ascendc_sim/profile.h — the per-SoC parameters of the simulator and its cost model.
//
// Every number comes from a profile file (ascendc-sim/profiles/<SoC>.toml), each with
// its source or "estimate, calibrate on hardware". The fields the kernel-side
// simulator needs (UB size, core count) are here; the cost model's tables are in
// src/cost/ and extend this struct.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ascendc_sim/cost.h"

namespace ascendc_sim::cost {

/// What the SoC offers beyond timing: the profile's [capabilities] table. A kernel that
/// calls an API the selected SoC lacks gets "api_unsupported_on_soc" at the call
/// (field cases FC-07, FC-28), so a kernel written for 910B is not silently accepted
/// for 310P.
struct Capabilities {
  bool data_copy_pad = true;  // DataCopyPad (both directions)
  bool bf16 = true;           // bfloat16_t data in vector instructions and copies
  /// cast_to[int(src)] has bit int(dst) set when Cast(dst <- src) exists (DType values).
  uint16_t cast_to[12] = {};
  std::string cast_pairs;     // the profile's text, for messages
};

struct Profile {
  std::string soc;              // e.g. "Ascend910B1"
  std::string path;             // file the profile was loaded from
  uint32_t ub_bytes = 0;        // Unified Buffer per AIV core, bytes
  uint32_t aiv_cores = 0;       // vector cores the SoC has
  uint32_t max_block_dim = 0;   // largest blockDim a launch accepts (65535)
  Capabilities caps;            // [capabilities]
  struct Tables;                // cost-model parameters (src/cost/profile.cpp)
  std::shared_ptr<const Tables> tables;
};

/// Loads and validates a profile file. Throws std::runtime_error naming the file,
/// line and key on a missing, malformed or out-of-range value.
Profile load_profile(const std::string& path);

/// Loads the shipped profile for `soc` (e.g. "Ascend910B1") from the profile folder:
/// `AGENTICCANN_SIM_PROFILE_DIR` if set, else the folder shipped with the crate.
Profile load_shipped_profile(const std::string& soc);

}  // namespace ascendc_sim::cost
