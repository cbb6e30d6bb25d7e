// Diagnostic formatting: one readable line and JSON (diag.h).
//
// Stable diagnostic kinds (also listed in the crate README):
//   ub_capacity_exceeded, pipe_buffers_exceeded, position_buffers_exceeded,
//   ub_misaligned, ub_out_of_range, vector_overlap, tensor_not_allocated, tensor_use_after_free,
//   ub_uninitialized_read, ub_unsynchronized_access,
//   datacopy_truncated (warning), compare_count_truncated (warning), mask_invalid (warning),
//   gm_out_of_bounds, queue_alloc_beyond_depth, queue_deque_empty, queue_double_free,
//   queue_foreign_tensor, queue_enque_wrong_state, queue_enque_beyond_depth,
//   queue_tensor_not_freed, queue_not_initialized, repeat_out_of_range, field_out_of_range,
//   reduce_work_buffer_too_small, flag_wait_deadlock, flag_set_twice, gm_write_race, flag_unpaired, block_dim_invalid,
//   kernel_exception, profile_invalid, cost_model_error, pipe_reset_live_tensors,
//   pipe_ub_alias (warning), ub_overlap_in_flight, gm_unsynchronized_access,
//   gm_output_read_before_write, ub_row_pitch_mismatch,
//   api_unsupported_on_soc, gm_write_duplicate (warning), event_id_misuse, kernel_assert_failed,
//   cross_core_deadlock, cross_core_block_dim_exceeded, gm_read_race,
//   gm_dcache_stale.
#include <cstdio>
#include <string>

#include "ascendc_sim/diag.h"

namespace ascendc_sim {

namespace {
void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += char(ch);
        }
    }
  }
  out += '"';
}
void json_number(std::string& out, double v) {
  if (v != v || v == 1.0 / 0.0 || v == -1.0 / 0.0) {
    out += "null";
    return;
  }
  char buf[40];
  if (v == double(int64_t(v)) && v < 9e15 && v > -9e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  out += buf;
}
}  // namespace

std::string Diagnostic::to_line() const {
  std::string s = severity == Severity::Error ? "error[" : "warning[";
  s += kind;
  s += "] ";
  if (!file.empty()) {
    s += file;
    s += ':';
    s += std::to_string(line);
    s += ' ';
  }
  if (core >= 0) {
    s += "core ";
    s += std::to_string(core);
    s += ' ';
  }
  s += api;
  s += ": ";
  s += message;
  return s;
}

std::string Diagnostic::to_json() const {
  std::string s = "{\"kind\":";
  json_string(s, kind);
  s += ",\"severity\":";
  s += severity == Severity::Error ? "\"error\"" : "\"warning\"";
  s += ",\"api\":";
  json_string(s, api);
  s += ",\"file\":";
  json_string(s, file);
  s += ",\"line\":" + std::to_string(line);
  s += ",\"core\":" + std::to_string(core);
  s += ",\"message\":";
  json_string(s, message);
  s += ",\"numbers\":{";
  bool first = true;
  for (const auto& [k, v] : numbers) {
    if (!first) s += ',';
    first = false;
    json_string(s, k);
    s += ':';
    json_number(s, v);
  }
  s += "}}";
  return s;
}

}  // namespace ascendc_sim
