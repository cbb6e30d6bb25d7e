// ascendc_sim/kernel_launch.h — launching a kernel function on the simulator from host code.
//
//  * `ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)` — CANN's direct-launch form,
//    here taking the kernel function itself: each argument is converted to the kernel's
//    parameter type (pointer to pointer by cast; a struct parameter from a struct, or
//    copied from a pointer to one), and the launch is queued on `stream` (asynchronous;
//    returns the aclError code of the queueing, 0 = success).
//  * `ASCENDC_SIM_LAUNCH(kernel, blockDim, stream, args...)` — the same as an expression;
//    the one line a generated `extern "C" uint32_t aclrtlaunch_<kernel>(uint32_t blockDim,
//    aclrtStream stream, void* a0, ...)` launcher body needs:
//        return ASCENDC_SIM_LAUNCH(add_custom, blockDim, stream, a0, a1, a2);
//  * `ascendc_sim::run_kernel_fn(kernel, "name", blockDim, args...)` — synchronous, returns
//    the LaunchResult (diagnostics + cost report); ICPU_RUN_KF (tikicpulib.h) uses it.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ascendc_sim/launch.h"
#include "ascendc_sim/types.h"

namespace ascendc_sim {

/// Converts one host launch argument to the kernel parameter type P.
template <class P, class A>
inline P convert_arg(A&& a) {
  using D = std::decay_t<A>;
  if constexpr (std::is_pointer_v<P> && std::is_pointer_v<D>) {
    return (P)(a);
  } else if constexpr (std::is_pointer_v<P> && std::is_same_v<D, std::nullptr_t>) {
    return nullptr;
  } else if constexpr (std::is_class_v<P> && std::is_pointer_v<D>) {
    static_assert(std::is_trivially_copyable_v<P>, "a struct kernel parameter passed by pointer must be trivially copyable");
    P v;
    std::memcpy(&v, (const void*)(a), sizeof(P));
    return v;
  } else {
    return static_cast<P>(std::forward<A>(a));
  }
}

/// The kernel call with its arguments converted and captured by value.
template <class... P, class... A>
inline std::function<void()> bind_kernel(void (*fn)(P...), A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launch: the number of arguments differs from the kernel's parameters");
  return [fn, tup = std::make_tuple(convert_arg<std::decay_t<P>>(std::forward<A>(args))...)]() mutable {
    std::apply(fn, tup);
  };
}

/// Asynchronous launch on `stream` (see launch_async). Returns the aclError code.
template <class... P, class... A>
inline uint32_t launch(void (*fn)(P...), const char* name, uint32_t block_dim, void* stream, A&&... args) {
  return uint32_t(launch_async(stream, name, block_dim, bind_kernel(fn, std::forward<A>(args)...)));
}

/// Synchronous launch: runs every core and returns diagnostics and the cost report.
template <class... P, class... A>
inline LaunchResult run_kernel_fn(void (*fn)(P...), const char* name, uint32_t block_dim, A&&... args) {
  return run_kernel(name, block_dim, bind_kernel(fn, std::forward<A>(args)...));
}

template <class F>
struct Launcher;
template <class... P>
struct Launcher<void (*)(P...)> {
  void (*fn)(P...);
  const char* name;
  template <class... A>
  uint32_t operator()(uint32_t block_dim, void* stream, A&&... args) const {
    return launch(fn, name, block_dim, stream, std::forward<A>(args)...);
  }
};

}  // namespace ascendc_sim

#ifndef ACLRT_LAUNCH_KERNEL
#define ACLRT_LAUNCH_KERNEL(kernel) (::ascendc_sim::Launcher<decltype(&kernel)>{&kernel, #kernel})
#endif
#define ASCENDC_SIM_LAUNCH(kernel, blockDim, stream, ...) \
  ::ascendc_sim::launch(&kernel, #kernel, (blockDim), (stream)__VA_OPT__(, ) __VA_ARGS__)
