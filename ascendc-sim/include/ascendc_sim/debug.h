// ascendc_sim/debug.h — kernel assertions and logging: assert, ascendc_assert, ASSERT,
// ASCENDC_ASSERT, KERNEL_LOG.
//
// Facts (CANN Ascend C API reference, "assert" / "ascendc_assert"): `assert(expr)` and
// `assert(expr, fmt, args...)` (ascendc_assert the same) print the failed condition and the
// formatted message and stop the kernel. Here a failed assertion is the error diagnostic
// `kernel_assert_failed` at the assertion's line (the core stops, the other cores finish):
// an assertion never silences a fault. Outside a kernel (host code of the same file) the
// assertion prints and aborts like the C library's. Messages go to stderr, never stdout
// (harnesses print results there). ASSERT(expr) and ASCENDC_ASSERT(expr, action) are the
// CPU-debug forms of the classic API: the action (usually a KERNEL_LOG) runs first.
//
// `assert` replaces <cassert>'s macro for the rest of the translation unit; a header
// including <cassert> again after kernel_operator.h restores the C library's.
#pragma once

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ascendc_sim/core.h"

/// Log levels of KERNEL_LOG (CANN: KERNEL_DEBUG, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR).
enum AscendcSimLogLevel { KERNEL_DEBUG = 0, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR };

namespace ascendc_sim {

/// The assertion `text` failed at `loc`: records `kernel_assert_failed` and stops the core
/// (inside a kernel) or prints and aborts (outside). `message` is the formatted user text.
[[noreturn]] void assert_failed(const char* text, const SrcLoc& loc, const std::string& message);

inline std::string assert_message() { return {}; }
template <typename... A>
inline std::string assert_message(const char* format, A... args) {
  if constexpr (sizeof...(A) == 0) {
    return format;
  } else {
    int n = std::snprintf(nullptr, 0, format, args...);
    std::string s(n > 0 ? size_t(n) : 0, '\0');
    if (n > 0) std::snprintf(s.data(), size_t(n) + 1, format, args...);
    return s;
  }
}

template <typename C, typename... A>
inline void kernel_assert(const char* text, const SrcLoc& loc, const C& cond, A... args) {
  if (!static_cast<bool>(cond)) assert_failed(text, loc, assert_message(args...));
}

template <typename... A>
inline void kernel_log(int level, const SrcLoc& loc, const char* format, A... args) {
  static const char* names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
  CoreContext* c = tl_ctx;
  std::fprintf(stderr, "[%s][Core_%d][%s:%u] ", names[level & 3], c ? int(c->block_idx) : -1, loc.file_name(),
               loc.line());
  if constexpr (sizeof...(A) == 0) {
    std::fputs(format, stderr);
  } else {
    std::fprintf(stderr, format, args...);
  }
  std::fputc('\n', stderr);
}

}  // namespace ascendc_sim

#undef assert
#define assert(...) ::ascendc_sim::kernel_assert(#__VA_ARGS__, ::ascendc_sim::SrcLoc::current(), __VA_ARGS__)
#define ascendc_assert(...) ::ascendc_sim::kernel_assert(#__VA_ARGS__, ::ascendc_sim::SrcLoc::current(), __VA_ARGS__)
#define ASSERT(cond) ::ascendc_sim::kernel_assert(#cond, ::ascendc_sim::SrcLoc::current(), (cond))
#define ASCENDC_ASSERT(cond, ...)                                                     \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      __VA_ARGS__;                                                                    \
      ::ascendc_sim::assert_failed(#cond, ::ascendc_sim::SrcLoc::current(), "");      \
    }                                                                                 \
  } while (0)
#define KERNEL_LOG(level, ...) ::ascendc_sim::kernel_log((level), ::ascendc_sim::SrcLoc::current(), __VA_ARGS__)
