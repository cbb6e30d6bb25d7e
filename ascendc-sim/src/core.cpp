// The current core, diagnostics recording and UB operand checks (core.h).
#include "ascendc_sim/core.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ascendc_sim {

thread_local CoreContext* tl_ctx = nullptr;

CoreContext& ctx_for(const char* api) {
  throw std::logic_error(std::string("ascendc-sim: ") + api +
                         " was called outside a kernel; kernel APIs work only inside a launch "
                         "(run_kernel, ICPU_RUN_KF, ACLRT_LAUNCH_KERNEL)");
}

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  if (n < int(sizeof buf)) return std::string(buf, n < 0 ? 0 : size_t(n));
  std::string s(size_t(n) + 1, '\0');
  va_start(ap, format);
  std::vsnprintf(s.data(), s.size(), format, ap);
  va_end(ap);
  s.resize(size_t(n));
  return s;
}

namespace {
Diagnostic make(Severity sev, const char* kind, const char* api, const SrcLoc& loc, std::string message,
                Numbers numbers, int32_t core) {
  Diagnostic d;
  d.kind = kind;
  d.severity = sev;
  d.api = api;
  d.file = loc.file_name();
  d.line = loc.line();
  d.core = core;
  d.message = std::move(message);
  for (const auto& [k, v] : numbers) d.numbers.emplace_back(k, v);
  return d;
}
}  // namespace

void record_error(const char* kind, const char* api, const SrcLoc& loc, std::string message, Numbers numbers) {
  CoreContext* c = tl_ctx;
  if (!c) throw std::logic_error(std::string("ascendc-sim: ") + api + ": " + message);
  c->diags.push_back(make(Severity::Error, kind, api, loc, std::move(message), numbers, c->block_idx));
}

void fail(const char* kind, const char* api, const SrcLoc& loc, std::string message, Numbers numbers) {
  record_error(kind, api, loc, std::move(message), numbers);
  tl_ctx->aborting = true;
  throw KernelAbort{kind};
}

void warn(const char* kind, const char* api, const SrcLoc& loc, std::string message, Numbers numbers) {
  CoreContext* c = tl_ctx;
  if (!c) return;
  for (auto& d : c->diags) {
    if (d.severity == Severity::Warning && d.kind == kind && d.line == loc.line() && d.file == loc.file_name()) {
      bool found = false;
      for (auto& [k, v] : d.numbers) {
        if (k == "occurrences") {
          v += 1;
          found = true;
        }
      }
      if (!found) d.numbers.emplace_back("occurrences", 2);
      return;
    }
  }
  c->diags.push_back(make(Severity::Warning, kind, api, loc, std::move(message), numbers, c->block_idx));
}

// ---- UB operand checks ----

std::pair<uint32_t, uint32_t> check_tensor(CoreContext& c, const UbRef& t, const char* role, const char* api,
                                           const SrcLoc& loc) {
  if (t.buf < 0 || size_t(t.buf) >= c.bufs.size()) {
    fail("tensor_not_allocated", api, loc,
         fmt("%s tensor was never allocated (a default-constructed LocalTensor, not from AllocTensor/DeQue/TBuf::Get)",
             role));
  }
  const BufRec& b = c.bufs[size_t(t.buf)];
  if (b.gen != t.gen || b.state == BufState::Free || b.state == BufState::Dead) {
    fail("tensor_use_after_free", api, loc,
         fmt("%s tensor (UB offset %u) is used after its buffer was freed (FreeTensor or TPipe Destroy/Reset)", role,
             t.addr),
         {{"ub_offset", double(t.addr)}});
  }
  return {b.start, b.start + b.len};
}

void check_operand(CoreContext& c, const UbRef& t, uint32_t lo, uint32_t hi, uint32_t align, const char* role,
                   const char* api, const SrcLoc& loc) {
  auto [bs, be] = check_tensor(c, t, role, api, loc);
  if (align > 1 && t.addr % align != 0) {
    fail("ub_misaligned", api, loc,
         fmt("%s tensor starts at UB byte offset %u, which is not %u-byte aligned (offset %u bytes into its buffer)",
             role, t.addr, align, t.addr - bs),
         {{"ub_offset", double(t.addr)}, {"alignment", double(align)}, {"offset_in_buffer", double(t.addr - bs)}});
  }
  if (lo < bs || hi > be) {
    fail("ub_out_of_range", api, loc,
         fmt("%s access to UB bytes [%u, %u) leaves its buffer [%u, %u) by %u bytes", role, lo, hi, bs, be,
             hi > be ? hi - be : bs - lo),
         {{"access_begin", double(lo)},
          {"access_end", double(hi)},
          {"buffer_begin", double(bs)},
          {"buffer_end", double(be)}});
  }
}

void check_initialized(CoreContext& c, uint32_t lo, uint32_t hi, const char* what, const char* api,
                       const SrcLoc& loc) {
  const uint8_t* s = c.shadow;
  uint32_t i = lo;
  // Fast scan, 8 bytes at a time, to the first byte that is not initialized.
  for (; i + 8 <= hi; i += 8) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    if (w != ~0ull) break;
  }
  for (; i < hi; i++) {
    if (s[i] != kInit) {
      uint32_t j = i;
      while (j < hi && s[j] != kInit) j++;
      fail("ub_uninitialized_read", api, loc,
           fmt("%s reads UB bytes [%u, %u) that were never written (poisoned: e.g. DataCopyPad padding without "
               "isPad, a DataCopy truncated to 32 B, or a result computed from such lanes)",
               what, i, j),
           {{"first_byte", double(i)}, {"bytes", double(j - i)}});
    }
  }
}

}  // namespace ascendc_sim

#include "ascendc_sim/debug.h"

namespace ascendc_sim {

namespace {
// The condition of `assert(cond, fmt, args...)`: the stringified arguments up to the first
// comma outside brackets and string literals.
std::string condition_text(const char* text) {
  int depth = 0;
  char quote = 0;
  const char* p = text;
  for (; *p; p++) {
    char ch = *p;
    if (quote) {
      if (ch == '\\' && p[1]) p++;
      else if (ch == quote) quote = 0;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      depth++;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      depth--;
    } else if (ch == ',' && depth == 0) {
      break;
    }
  }
  return std::string(text, size_t(p - text));
}
}  // namespace

void assert_failed(const char* full_text, const SrcLoc& loc, const std::string& message) {
  const std::string cond = condition_text(full_text);
  const char* text = cond.c_str();
  if (!tl_ctx) {
    std::fprintf(stderr, "%s:%u: Assertion `%s' failed. %s\n", loc.file_name(), loc.line(), text, message.c_str());
    std::abort();
  }
  std::fprintf(stderr, "[ASSERT] %s:%u: Assertion `%s' %s\n", loc.file_name(), loc.line(), text, message.c_str());
  fail("kernel_assert_failed", "assert", loc,
       message.empty() ? fmt("assertion `%s` failed", text) : fmt("assertion `%s` failed: %s", text, message.c_str()));
}

}  // namespace ascendc_sim
