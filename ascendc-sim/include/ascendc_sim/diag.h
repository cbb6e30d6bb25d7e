// ascendc_sim/diag.h — structured diagnostics: the rules a kernel broke, as data.
//
// A rule violation inside a kernel is recorded with its kind, the API that found it,
// the kernel source location (std::source_location defaults on every API), the core
// index and the numbers involved. Errors stop the offending core cleanly (the API
// throws KernelAbort, caught by the launch); warnings are recorded and execution
// goes on. Diagnostics reach the host through the launch result (launch.h) and reach
// Rust as JSON (capi.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ascendc_sim {

enum class Severity : uint8_t { Warning, Error };

/// One rule violation. `kind` is a stable snake_case identifier (the list lives in
/// diag.cpp and the crate README), e.g. "ub_capacity_exceeded", "ub_misaligned",
/// "datacopy_truncated", "gm_out_of_bounds", "queue_alloc_beyond_depth".
struct Diagnostic {
  std::string kind;
  Severity severity = Severity::Error;
  std::string api;      // e.g. "DataCopy", "TPipe::InitBuffer"
  std::string file;     // kernel source file of the call
  uint32_t line = 0;    // line of the call
  int32_t core = -1;    // block index, -1 when not inside a kernel
  std::string message;  // one readable sentence with the numbers
  std::vector<std::pair<std::string, double>> numbers;  // named values, e.g. {"bytes", 40}

  /// `error[kind] file:line core N API: message`
  std::string to_line() const;
  std::string to_json() const;
};

/// Thrown by an API after it recorded an error diagnostic, to stop the core. Caught by
/// the launch machinery; never escapes to host code.
struct KernelAbort {
  std::string kind;
};

}  // namespace ascendc_sim
