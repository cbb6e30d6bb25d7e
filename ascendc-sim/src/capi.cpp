// src/capi.cpp — ascendc_sim/capi.h: launch results and the profile as JSON for Rust.
#include "ascendc_sim/capi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "acl/runtime.h"
#include "ascendc_sim/gm.h"
#include "ascendc_sim/profile.h"

namespace {

using ascendc_sim::acl::resolve_stream;

char* dup(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// JSON string literal for `s`.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::shared_ptr<ascendc_sim::acl::Stream> live(aclrtStream stream, const char* api) {
  aclError code = ACL_SUCCESS;
  return resolve_stream(stream, api, &code);
}

}  // namespace

extern "C" {

char* ascendc_sim_stream_take_launches(aclrtStream stream) {
  auto s = live(stream, "ascendc_sim_stream_take_launches");
  if (!s) return nullptr;
  std::string out = "[";
  bool first = true;
  for (const auto& r : s->take_launches()) {
    if (!first) out += ",";
    first = false;
    out += r.to_json();
  }
  return dup(out + "]");
}

char* ascendc_sim_stream_last_launch(aclrtStream stream) {
  auto s = live(stream, "ascendc_sim_stream_last_launch");
  if (!s) return nullptr;
  auto r = s->last_launch();
  return r ? dup(r->to_json()) : nullptr;
}

char* ascendc_sim_stream_failure(aclrtStream stream) {
  auto s = live(stream, "ascendc_sim_stream_failure");
  if (!s) return nullptr;
  auto r = s->failure();
  return r ? dup(r->to_json()) : nullptr;
}

double ascendc_sim_stream_clock_us(aclrtStream stream) {
  auto s = live(stream, "ascendc_sim_stream_clock_us");
  return s ? s->clock_us() : -1.0;
}

void ascendc_sim_string_free(char* s) { std::free(s); }

char* ascendc_sim_profile_json(void) {
  try {
    const ascendc_sim::cost::Profile& p = ascendc_sim::cost::active_profile();
    return dup("{\"soc\":" + quote(p.soc) + ",\"path\":" + quote(p.path) +
               ",\"ub_bytes\":" + std::to_string(p.ub_bytes) +
               ",\"aiv_cores\":" + std::to_string(p.aiv_cores) +
               ",\"max_block_dim\":" + std::to_string(p.max_block_dim) + "}");
  } catch (const std::exception& e) {
    return dup("{\"error\":" + quote(e.what()) + "}");
  } catch (...) {
    return dup("{\"error\":\"unknown exception while loading the profile\"}");
  }
}

}  // extern "C"

extern "C" int ascendc_sim_gm_set_output(const void* ptr, int on) {
  return ascendc_sim::gm::set_write_before_read(ptr, on != 0) ? 0 : 1;
}
