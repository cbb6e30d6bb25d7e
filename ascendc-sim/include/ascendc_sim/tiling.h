// ascendc_sim/tiling.h — the kernel-side tiling macros (api-reference §1.3, §1.5).
//
// GET_TILING_DATA(var, tiling) copies the tiling struct from the GM pointer `tiling`
// (bounds-checked against the host allocation). Its type is the one named by
// REGISTER_TILING_DEFAULT(Type) earlier in the kernel (or -DASCENDC_SIM_TILING_TYPE=Type);
// the _WITH_STRUCT forms name it explicitly. TILING_KEY_IS(k) compares with the key set
// by ICPU_SET_TILING_KEY (tikicpulib.h) or ascendc_sim::set_tiling_key before the launch.
// KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE are accepted and ignored (AIV only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ascendc_sim/core.h"

namespace ascendc_sim {
/// Copies `bytes` of tiling data from GM `src` into `dst` (error "gm_out_of_bounds").
inline void load_tiling(void* dst, size_t bytes, const void* src, const char* api, SrcLoc loc = SrcLoc::current()) {
  check_gm(src, bytes, false, api, loc);
  std::memcpy(dst, src, bytes);
}
template <typename T>
inline const T* tiling_ptr(const void* src, const char* api, SrcLoc loc = SrcLoc::current()) {
  check_gm(src, sizeof(T), false, api, loc);
  return reinterpret_cast<const T*>(src);
}
/// The tiling key of the running launch.
inline uint64_t current_tiling_key() { return ctx("TILING_KEY_IS").tiling_key; }
}  // namespace ascendc_sim

enum KernelMetaType : uint8_t {
  KERNEL_TYPE_AIV_ONLY,
  KERNEL_TYPE_AIC_ONLY,
  KERNEL_TYPE_MIX_AIV_1_0,
  KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2,
  KERNEL_TYPE_AICORE,
  KERNEL_TYPE_VECTORCORE,
  KERNEL_TYPE_MIX_AICORE,
  KERNEL_TYPE_MIX_VECTOR_CORE,
  KERNEL_TYPE_MAX
};

#define KERNEL_TASK_TYPE_DEFAULT(value) ((void)(value))
#define KERNEL_TASK_TYPE(key, value) ((void)(key), (void)(value))

#define REGISTER_TILING_DEFAULT(Type) using AscendcSimDefaultTiling = Type
#define REGISTER_TILING_FOR_TILINGKEY(key, Type) static_assert(true, "")
#define REGISTER_NONE_TILING static_assert(true, "")

#ifdef ASCENDC_SIM_TILING_TYPE
#define GET_TILING_DATA(var, tiling)   \
  ASCENDC_SIM_TILING_TYPE var;         \
  ::ascendc_sim::load_tiling(&var, sizeof(var), (tiling), "GET_TILING_DATA")
#else
#define GET_TILING_DATA(var, tiling)   \
  AscendcSimDefaultTiling var;         \
  ::ascendc_sim::load_tiling(&var, sizeof(var), (tiling), "GET_TILING_DATA")
#endif
#define GET_TILING_DATA_WITH_STRUCT(Type, var, tiling) \
  Type var;                                            \
  ::ascendc_sim::load_tiling(&var, sizeof(var), (tiling), "GET_TILING_DATA_WITH_STRUCT")
#define GET_TILING_DATA_PTR_WITH_STRUCT(Type, var, tiling) \
  const Type* var = ::ascendc_sim::tiling_ptr<Type>((tiling), "GET_TILING_DATA_PTR_WITH_STRUCT")
#define GET_TILING_DATA_MEMBER(Type, member, var, tiling)                                              \
  decltype(Type::member) var;                                                                          \
  ::ascendc_sim::load_tiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling) + offsetof(Type, member), \
                             "GET_TILING_DATA_MEMBER")
#define COPY_TILING_WITH_STRUCT(Type, src, dst) \
  Type dst;                                     \
  std::memcpy(&dst, (src), sizeof(Type))
#define TILING_KEY_IS(key) (::ascendc_sim::current_tiling_key() == static_cast<uint64_t>(key))
