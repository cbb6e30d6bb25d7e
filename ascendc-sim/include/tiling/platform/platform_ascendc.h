// tiling/platform/platform_ascendc.h — host-side platform queries (CANN
// `platform_ascendc::PlatformAscendC`, `PlatformAscendCManager::GetInstance()`), answered
// from the simulator's active SoC profile (AGENTICCANN_SOC / AGENTICCANN_SIM_PROFILE,
// profiles/*.toml): GetCoreNumAiv() = the profile's aiv_cores; GetCoreNum() = the vector
// core count (separated AIC/AIV architecture: the CANN reference says GetCoreNum returns
// the vector cores there); GetCoreNumAic() = aiv_cores / 2 on Ascend910B* (1 AIC : 2 AIV,
// api-reference §5.1), aiv_cores elsewhere (UNCERTAIN for 310P); GetCoreMemSize(UB) = the
// profile's ub_bytes, L1 / L0A / L0B / L0C = 512 / 64 / 64 / 128 KiB on 910B (api-reference
// §0.2, CPU-debug pool sizes), 0 where the simulator has no number; ReserveLocalMemory
// takes 8/16/32 KiB off what GetCoreMemSize(UB) reports (vendor page "ReserveLocalMemory":
// only the last call counts; nothing is reserved by default, so a tiling that never calls it
// sees the whole UB). A profile that fails to load throws std::runtime_error naming the file
// and key.
#pragma once

#include <cstdint>
#include <string>

#include "ascendc_sim/profile.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };
/// The UB space `ReserveLocalMemory` sets aside for the high-level APIs' temporaries.
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND310P, ASCEND310B, RESERVED_VERSION = 99999 };

class PlatformAscendC {
 public:
  PlatformAscendC() = default;
  /// The custom-op form takes the framework's platform info; the simulator ignores it.
  explicit PlatformAscendC(const void* /*platformInfo*/) {}
  uint32_t GetCoreNum() const { return GetCoreNumAiv(); }
  uint32_t GetCoreNumAiv() const { return profile().aiv_cores; }
  uint32_t GetCoreNumVector() const { return 0; }  // no separate Vector Core on 910B (310P only)
  uint32_t GetCoreNumAic() const {
    const auto& p = profile();
    return is_910b() ? p.aiv_cores / 2 : p.aiv_cores;
  }
  SocVersion GetSocVersion() const {
    const std::string& s = profile().soc;
    if (s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
    if (s.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910_93;
    if (s.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
    if (s.rfind("Ascend310B", 0) == 0) return SocVersion::ASCEND310B;
    if (s.rfind("Ascend910", 0) == 0) return SocVersion::ASCEND910;
    return SocVersion::RESERVED_VERSION;
  }
  void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
    const bool b = is_910b();
    switch (memType) {
      case CoreMemType::UB: {
        uint64_t ub = profile().ub_bytes;
        size = ub > reserved_ub_ ? ub - reserved_ub_ : 0;
        break;
      }
      case CoreMemType::L1: size = b ? 512u * 1024 : 0; break;
      case CoreMemType::L0_A:
      case CoreMemType::L0_B: size = b ? 64u * 1024 : 0; break;
      case CoreMemType::L0_C: size = b ? 128u * 1024 : 0; break;
      default: size = 0; break;
    }
  }
  /// Reserves `size` bytes of UB (8, 16 or 32 KiB): later `GetCoreMemSize(UB)` calls report
  /// the rest. Each call replaces the previous reservation (it does not add to it).
  void ReserveLocalMemory(ReservedSize size) {
    switch (size) {
      case ReservedSize::RESERVED_SIZE_8K: reserved_ub_ = 8u * 1024; break;
      case ReservedSize::RESERVED_SIZE_16K: reserved_ub_ = 16u * 1024; break;
      case ReservedSize::RESERVED_SIZE_32K: reserved_ub_ = 32u * 1024; break;
    }
  }
  /// Block count for `sliceNum` slices on AIV-only kernels: at most one block per vector core.
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    (void)aicCoreNum;
    uint32_t cores = aivCoreNum ? aivCoreNum : GetCoreNumAiv();
    return sliceNum < cores ? sliceNum : cores;
  }
  /// The simulator's library APIs need no system workspace.
  uint32_t GetLibApiWorkSpaceSize() const { return 0; }

 private:
  static const ascendc_sim::cost::Profile& profile() { return ascendc_sim::cost::active_profile(); }
  bool is_910b() const { return profile().soc.rfind("Ascend910B", 0) == 0; }
  uint64_t reserved_ub_ = 0;  // bytes, set by ReserveLocalMemory
};

class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance() {
    static PlatformAscendC p;
    return &p;
  }
  /// `customSocVersion` names the SoC on a machine without an NPU; the simulator's SoC is
  /// chosen by AGENTICCANN_SOC, so the argument is accepted and ignored.
  static PlatformAscendC* GetInstance(const char* /*customSocVersion*/) { return GetInstance(); }
};

}  // namespace platform_ascendc
