// src/cost/profile.cpp — loading, validating and selecting per-SoC profiles.
//
// Profile files are the TOML subset of toml_subset.h. Validation is strict: every key
// must be known (a typo is an error, not a silently ignored parameter), every number
// must be in range and must carry a source — a `<key>_source` string next to it, or a
// `source` string for its whole table.
//
// Selection (active_profile):
//   1. AGENTICCANN_SIM_PROFILE = path of a profile file (e.g. one calibrated on
//      hardware) — used as is;
//   2. else AGENTICCANN_SOC (default "Ascend910B1") names a shipped profile
//      `<soc>.toml`, looked up in
//        a. AGENTICCANN_SIM_PROFILE_DIR, if set;
//        b. the compile definition ASCENDC_SIM_PROFILE_DIR, if the build defined it
//           (the crate's build script points it at ascendc-sim/profiles);
//        c. `../../profiles` relative to this source file (from __FILE__), which works
//           for a plain `g++ ... ascendc-sim/src/cost/*.cpp` build as long as the
//           source tree is still where it was compiled.
#include <atomic>
#include <cmath>
#include <iterator>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ascendc_sim/profile.h"
#include "tables.h"
#include "toml_subset.h"

namespace ascendc_sim::cost {
namespace {

using toml::Value;

const char* const kVecClassKeys[kVecClassCount] = {
    "simple",       "transcend",    "div",         "muladddst",   "cast",
    "duplicate",    "brcb",         "compare",     "select",      "whole_reduce",
    "block_reduce", "pair_reduce",  "gather_mask", "gather",      "copy",
    "sort"};
const char* const kWidthKeys[4] = {"b8", "b16", "b32", "b64"};

struct Field {
  const char* table;
  const char* key;
  bool integer;
  double min;  // inclusive
  double max;  // inclusive
  bool required;
};

// The schema of a profile file. Ranges are sanity bounds that catch unit mistakes
// (a clock in Hz, a latency in seconds), not claims about hardware.
const Field kFields[] = {
    {"soc", "aiv_cores", true, 1, 4096, true},
    {"soc", "ub_bytes", true, 1024, 64ull << 20, true},
    {"soc", "max_block_dim", true, 1, 65535, true},
    {"soc", "clock_mhz", false, 100, 10000, true},
    {"launch", "overhead_us", false, 0, 10000, true},
    {"launch", "block_start_ns", false, 0, 1e6, true},
    {"hbm", "peak_gbps", false, 1, 1e6, true},
    {"hbm", "efficiency", false, 0.01, 1.0, true},
    {"dma", "mte2_core_gbps", false, 0.01, 1e5, true},
    {"dma", "mte3_core_gbps", false, 0.01, 1e5, true},
    {"dma", "mte2_startup_ns", false, 0, 1e6, true},
    {"dma", "mte3_startup_ns", false, 0, 1e6, true},
    {"dma", "mte2_latency_ns", false, 0, 1e6, true},
    {"dma", "mte3_latency_ns", false, 0, 1e6, true},
    {"dma", "burst_bytes", true, 1, 1 << 20, true},
    {"dma", "issue_cycles", false, 0, 1e6, true},
    {"vector", "issue_cycles", false, 0, 1e6, true},
    {"vector", "startup_cycles", false, 0, 1e6, true},
    {"vector", "mask_setup_cycles", false, 0, 1e6, true},
    {"scalar", "cycles_per_instr", false, 0, 1e6, true},
    {"scalar", "sync_cycles", false, 0, 1e6, true},
    {"scalar", "barrier_cycles", false, 0, 1e6, true},
    {"scalar", "ub_read_cycles", false, 0, 1e7, true},
    {"scalar", "ub_write_cycles", false, 0, 1e7, true},
    {"scalar", "gm_read_cycles", false, 0, 1e7, true},
    {"scalar", "gm_write_cycles", false, 0, 1e7, true},
};

constexpr const char* kEpcTable = "vector.elements_per_cycle";

// Type names of [capabilities] cast_pairs, indexed by DType.
const char* const kDTypeNames[12] = {"u8", "i8", "u16", "i16", "f16", "bf16", "u32", "i32", "f32", "u64", "i64", "f64"};
int dtype_from_name(const std::string& n) {
  for (int i = 0; i < 12; ++i)
    if (n == kDTypeNames[i]) return i;
  return -1;
}

class Checker {
 public:
  explicit Checker(const toml::Document& doc) : doc_(doc) {}

  [[noreturn]] void fail(uint32_t line, const std::string& table, const std::string& key,
                         const std::string& what) const {
    std::string where = doc_.path;
    if (line) where += ":" + std::to_string(line);
    std::string name = table.empty() ? key : table + "." + key;
    throw std::runtime_error(where + ": profile key '" + name + "': " + what);
  }

  const Value* find(const std::string& table, const std::string& key) const {
    auto t = doc_.tables.find(table);
    if (t == doc_.tables.end()) return nullptr;
    auto k = t->second.find(key);
    return k == t->second.end() ? nullptr : &k->second;
  }

  // A number with its source; `integer` demands an integer literal.
  double number(const std::string& table, const std::string& key, bool integer, double lo,
                double hi, bool required, double fallback = 0) {
    const Value* v = find(table, key);
    if (!v) {
      if (!required) return fallback;
      auto tl = doc_.table_lines.find(table);
      fail(tl == doc_.table_lines.end() ? 0 : tl->second, table, key,
           "missing (required in [" + table + "])");
    }
    used_.insert(table + "." + key);
    if (v->kind != Value::Kind::Number) fail(v->line, table, key, "expected a number, found '" + v->text + "'");
    if (integer && !v->is_integer) fail(v->line, table, key, "expected an integer, found '" + v->text + "'");
    if (!(v->number >= lo && v->number <= hi)) {
      std::ostringstream ss;
      ss << "value " << v->text << " is out of range [" << lo << ", " << hi << "]";
      fail(v->line, table, key, ss.str());
    }
    require_source(table, key, v->line);
    return v->number;
  }

  // A boolean with its source.
  bool boolean(const std::string& table, const std::string& key) {
    const Value* v = find(table, key);
    if (!v) {
      auto tl = doc_.table_lines.find(table);
      fail(tl == doc_.table_lines.end() ? 0 : tl->second, table, key, "missing (required in [" + table + "])");
    }
    used_.insert(table + "." + key);
    if (v->kind != Value::Kind::Bool) fail(v->line, table, key, "expected true or false, found '" + v->text + "'");
    require_source(table, key, v->line);
    return v->boolean;
  }

  std::string string(const std::string& table, const std::string& key, bool required) {
    const Value* v = find(table, key);
    if (!v) {
      if (required) fail(0, table, key, "missing (required in [" + table + "])");
      return "";
    }
    used_.insert(table + "." + key);
    if (v->kind != Value::Kind::String) fail(v->line, table, key, "expected a \"string\", found '" + v->text + "'");
    if (v->text.empty()) fail(v->line, table, key, "must not be empty");
    return v->text;
  }

  // Every number needs `<key>_source` or a table-level `source`.
  void require_source(const std::string& table, const std::string& key, uint32_t line) {
    for (const std::string& name : {key + "_source", std::string("source")}) {
      const Value* s = find(table, name);
      if (s) {
        used_.insert(table + "." + name);
        if (s->kind != Value::Kind::String || s->text.empty()) {
          fail(s->line, table, name, "a source must be a non-empty \"string\"");
        }
        return;
      }
    }
    fail(line, table, key,
         "has no source: add `" + key + "_source = \"...\"` (a document, a measurement, or "
         "\"estimate, calibrate on hardware\") or a `source` for [" + table + "]");
  }

  // Every key in the file must have been read (typos are errors).
  void reject_unknown() const {
    for (const auto& [table, keys] : doc_.tables) {
      for (const auto& [key, v] : keys) {
        std::string full = table + "." + key;
        if (used_.count(full)) continue;
        if (key.size() > 7 && key.compare(key.size() - 7, 7, "_source") == 0) {
          fail(v.line, table, key, "is the source of '" + key.substr(0, key.size() - 7) +
                                       "', which is not a key of [" + table + "]");
        }
        if (key == "source" || key == "description") continue;
        fail(v.line, table, key, table.empty() ? "keys must be inside a [table]"
                                               : "unknown key in [" + table + "]");
      }
    }
  }

  // Tables must be the known ones (checked first: a misspelt header is the real error,
  // not the keys it seems to be missing).
  void reject_unknown_tables() const {
    static const std::set<std::string> known = {"", "profile", "soc", "launch", "hbm", "dma",
                                                 "vector", kEpcTable, "scalar", "capabilities"};
    for (const auto& [table, line] : doc_.table_lines) {
      if (!known.count(table)) {
        throw std::runtime_error(doc_.path + ":" + std::to_string(line) + ": unknown table [" + table +
                                 "] (known: profile, soc, launch, hbm, dma, vector, " + kEpcTable +
                                 ", scalar, capabilities)");
      }
    }
  }

  void mark_used(const std::string& full) { used_.insert(full); }

 private:
  const toml::Document& doc_;
  std::set<std::string> used_;
};

Profile build(const toml::Document& doc) {
  Checker c(doc);
  c.reject_unknown_tables();
  auto t = std::make_shared<Profile::Tables>();
  Profile p;
  p.path = doc.path;

  const Value* fmt = c.find("profile", "format");
  if (!fmt || fmt->kind != Value::Kind::Number || !fmt->is_integer || fmt->number != 1) {
    c.fail(fmt ? fmt->line : 0, "profile", "format", "must be 1 (the profile format this simulator reads)");
  }
  c.mark_used("profile.format");
  p.soc = c.string("profile", "soc", true);

  double v[std::size(kFields)];
  for (size_t i = 0; i < std::size(kFields); ++i) {
    const Field& f = kFields[i];
    v[i] = c.number(f.table, f.key, f.integer, f.min, f.max, f.required);
  }
  size_t i = 0;
  p.aiv_cores = uint32_t(v[i++]);
  p.ub_bytes = uint32_t(v[i++]);
  p.max_block_dim = uint32_t(v[i++]);
  t->clock_ghz = v[i++] / 1000.0;
  t->launch_overhead_us = v[i++];
  t->block_start_ns = v[i++];
  t->hbm_peak_gbps = v[i++];
  t->hbm_efficiency = v[i++];
  t->mte_core_gbps[0] = v[i++];
  t->mte_core_gbps[1] = v[i++];
  t->mte_startup_ns[0] = v[i++];
  t->mte_startup_ns[1] = v[i++];
  t->mte_latency_ns[0] = v[i++];
  t->mte_latency_ns[1] = v[i++];
  t->burst_bytes = uint32_t(v[i++]);
  if ((t->burst_bytes & (t->burst_bytes - 1)) != 0 || t->burst_bytes > 512) {
    const Value* b = c.find("dma", "burst_bytes");
    c.fail(b ? b->line : 0, "dma", "burst_bytes",
           "must be a power of two no larger than 512 (device allocations are 512-B aligned)");
  }
  t->dma_issue_cycles = v[i++];
  t->vec_issue_cycles = v[i++];
  t->vec_startup_cycles = v[i++];
  t->mask_setup_cycles = v[i++];
  t->scalar_cpi = v[i++];
  t->sync_cycles = v[i++];
  t->barrier_cycles = v[i++];
  t->ub_read_cycles = v[i++];
  t->ub_write_cycles = v[i++];
  t->gm_read_cycles = v[i++];
  t->gm_write_cycles = v[i++];

  // Vector throughput: `<class>_<width>` in elements per cycle. A class needs at least
  // one width; a missing width takes the bytes per cycle of the nearest given width
  // (e.g. b8 from b16: twice the elements per cycle).
  for (int cls = 0; cls < kVecClassCount; ++cls) {
    auto& row = t->elements_per_cycle[cls];
    bool any = false;
    for (int w = 0; w < 4; ++w) {
      std::string key = std::string(kVecClassKeys[cls]) + "_" + kWidthKeys[w];
      row[w] = c.number(kEpcTable, key, false, 0.001, 1e5, false, 0);
      any = any || row[w] > 0;
    }
    if (!any) {
      c.fail(0, kEpcTable, std::string(kVecClassKeys[cls]) + "_b16",
             "missing: every vector class needs elements per cycle for at least one width");
    }
    for (int w = 0; w < 4; ++w) {
      if (row[w] > 0) continue;
      int best = -1;
      for (int d = 1; d < 4 && best < 0; ++d) {
        if (w - d >= 0 && row[w - d] > 0) best = w - d;
        else if (w + d < 4 && row[w + d] > 0) best = w + d;
      }
      // Same bytes per cycle: elements scale inversely with width.
      row[w] = row[best] * double(1u << best) / double(1u << w);
    }
  }
  // [capabilities]: what the SoC's AIV core supports (checked at the kernel's call).
  p.caps.data_copy_pad = c.boolean("capabilities", "data_copy_pad");
  p.caps.bf16 = c.boolean("capabilities", "bf16");
  p.caps.cast_pairs = c.string("capabilities", "cast_pairs", true);
  {
    const Value* v = c.find("capabilities", "cast_pairs");
    c.require_source("capabilities", "cast_pairs", v->line);
    std::istringstream in(p.caps.cast_pairs);
    std::string pair;
    while (in >> pair) {
      size_t gt = pair.find('>');
      int from = gt == std::string::npos ? -1 : dtype_from_name(pair.substr(0, gt));
      int to = gt == std::string::npos ? -1 : dtype_from_name(pair.substr(gt + 1));
      if (from < 0 || to < 0) {
        c.fail(v->line, "capabilities", "cast_pairs",
               "'" + pair + "' is not <src>><dst> with types among u8 i8 u16 i16 f16 bf16 u32 i32 f32 u64 i64 f64");
      }
      p.caps.cast_to[from] = uint16_t(p.caps.cast_to[from] | (1u << to));
    }
  }
  c.reject_unknown();
  p.tables = t;
  return p;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string default_profile_dir() {
#ifdef ASCENDC_SIM_PROFILE_DIR
  return ASCENDC_SIM_PROFILE_DIR;
#else
  // This file is ascendc-sim/src/cost/profile.cpp; the profiles are ascendc-sim/profiles.
  std::filesystem::path here(__FILE__);
  return (here.parent_path().parent_path().parent_path() / "profiles").string();
#endif
}

}  // namespace

const char* vec_class_key(VecClass cls) {
  int i = int(cls);
  return i >= 0 && i < kVecClassCount ? kVecClassKeys[i] : "unknown";
}

double Profile::Tables::cycles_per_repeat(VecClass cls, DType dtype) const {
  int c = int(cls);
  if (c < 0 || c >= kVecClassCount) c = 0;
  uint32_t bytes = dtype_bytes(dtype);
  // One repeat covers 256 bytes = 8 blocks of 32 B (api-reference §4.1); Brcb reads 8
  // source elements per repeat and writes one 32-B block per element (§4.2); a Sort
  // "repeat" is one Sort32 iteration, 32 (score, index) structures (MrgSort reports its
  // structures in units of 32).
  double elements = cls == VecClass::Brcb ? 8.0 : cls == VecClass::Sort ? 32.0 : 256.0 / double(bytes);
  return elements / elements_per_cycle[c][width_index(bytes)];
}

const Profile::Tables& tables_of(const Profile& p) {
  if (!p.tables) {
    throw std::logic_error("cost model: profile '" + p.soc +
                           "' has no cost tables (it was not created by load_profile)");
  }
  return *p.tables;
}

Profile load_profile(const std::string& path) {
  return build(toml::parse_file(path));
}

Profile load_shipped_profile(const std::string& soc) {
  if (soc.empty() || soc.find('/') != std::string::npos || soc.find('\\') != std::string::npos ||
      soc.find("..") != std::string::npos) {
    throw std::runtime_error("AGENTICCANN_SOC: '" + soc + "' is not a SoC name (e.g. Ascend910B1)");
  }
  std::string dir = env("AGENTICCANN_SIM_PROFILE_DIR");
  std::string origin = "AGENTICCANN_SIM_PROFILE_DIR";
  if (dir.empty()) {
    dir = default_profile_dir();
    origin = "the folder shipped with ascendc-sim (ASCENDC_SIM_PROFILE_DIR or this source file's location)";
  }
  std::filesystem::path file = std::filesystem::path(dir) / (soc + ".toml");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    std::string known;
    for (auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".toml") known += (known.empty() ? "" : ", ") + e.path().stem().string();
    }
    throw std::runtime_error("no shipped profile for SoC '" + soc + "': " + file.string() +
                             " does not exist (folder from " + origin + "; profiles there: " +
                             (known.empty() ? "none" : known) +
                             "). Set AGENTICCANN_SOC to one of them, AGENTICCANN_SIM_PROFILE_DIR to "
                             "ascendc-sim/profiles, or AGENTICCANN_SIM_PROFILE to a profile file; a plain "
                             "g++ build can also pass -DASCENDC_SIM_PROFILE_DIR=\"<abs path>/ascendc-sim/profiles\".");
  }
  Profile p = load_profile(file.string());
  if (p.soc != soc) {
    throw std::runtime_error(file.string() + ": profile.soc is '" + p.soc + "' but the file is named for '" +
                             soc + "'");
  }
  return p;
}

const Profile& active_profile() {
  // Loaded once per process, then read without locking. A failed load throws and is
  // retried on the next call.
  static std::mutex mu;
  static std::shared_ptr<const Profile> active;
  static std::atomic<const Profile*> fast{nullptr};
  if (const Profile* p = fast.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(mu);
  if (!active) {
    std::string path = env("AGENTICCANN_SIM_PROFILE");
    Profile p;
    if (!path.empty()) {
      try {
        p = load_profile(path);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("AGENTICCANN_SIM_PROFILE: ") + e.what());
      }
    } else {
      std::string soc = env("AGENTICCANN_SOC");
      p = load_shipped_profile(soc.empty() ? "Ascend910B1" : soc);
    }
    active = std::make_shared<const Profile>(std::move(p));
    fast.store(active.get(), std::memory_order_release);
  }
  return *active;
}

}  // namespace ascendc_sim::cost
