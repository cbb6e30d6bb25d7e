// src/cost/report.cpp — LaunchReport printing: JSON (stable field names) and text.
//
// JSON shape (one object, keys in this order):
//   {"kernel":"add_custom","soc":"Ascend910B1","block_dim":48,"physical_cores":48,
//    "cores_used":48,"cost_accounting":true,"total_us":..,"launch_overhead_us":..,
//    "floor_us":..,"pipe_busy_us":{"S":..,"V":..,"MTE2":..,"MTE3":..},
//    "pipe_utilisation":{"S":..,"V":..,"MTE2":..,"MTE3":..},"gm_read_bytes":..,
//    "gm_write_bytes":..,"hbm_bytes":..,"scalar_gm_accesses":..,"scalar_ub_accesses":..,
//    "dma_transfers":..,"vector_instrs":..,"achieved_gbps":..,"roofline_fraction":..,
//    "bound":"MTE2","core_min_us":..,"core_max_us":..,"imbalance":..}
// Doubles are written in the shortest form that reads back to the same value.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "ascendc_sim/report.h"

namespace ascendc_sim::cost {
namespace {

const char* const kPipeNames[kPipeCount] = {"S", "V", "MTE2", "MTE3"};

void put_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void put_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
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

struct Obj {
  std::string& out;
  bool first = true;
  explicit Obj(std::string& o) : out(o) { out += '{'; }
  void key(const char* k) {
    if (!first) out += ',';
    first = false;
    out += '"';
    out += k;
    out += "\":";
  }
  void num(const char* k, double v) { key(k); put_double(out, v); }
  void uint(const char* k, uint64_t v) { key(k); out += std::to_string(v); }
  void str(const char* k, const std::string& v) { key(k); put_string(out, v); }
  void boolean(const char* k, bool v) { key(k); out += v ? "true" : "false"; }
  void per_pipe(const char* k, const double (&v)[kPipeCount]) {
    key(k);
    Obj inner(out);
    for (int p = 0; p < kPipeCount; ++p) inner.num(kPipeNames[p], v[p]);
    inner.close();
  }
  void close() { out += '}'; }
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string bytes_text(uint64_t b) {
  if (b >= (1ull << 30)) return fmt("%.2f GiB", double(b) / double(1ull << 30));
  if (b >= (1ull << 20)) return fmt("%.2f MiB", double(b) / double(1ull << 20));
  if (b >= (1ull << 10)) return fmt("%.2f KiB", double(b) / double(1ull << 10));
  return std::to_string(b) + " B";
}

}  // namespace

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::MTE2: return "MTE2";
    case Bound::V: return "V";
    case Bound::MTE3: return "MTE3";
    case Bound::Scalar: return "scalar";
    case Bound::Launch: return "launch";
  }
  return "launch";
}

std::string LaunchReport::to_json() const {
  std::string out;
  Obj o(out);
  o.str("kernel", kernel);
  o.str("soc", soc);
  o.uint("block_dim", block_dim);
  o.uint("physical_cores", physical_cores);
  o.uint("cores_used", cores_used);
  o.boolean("cost_accounting", cost_accounting);
  o.num("total_us", total_us);
  o.num("launch_overhead_us", launch_overhead_us);
  o.num("floor_us", floor_us);
  o.per_pipe("pipe_busy_us", pipe_busy_us);
  o.per_pipe("pipe_utilisation", pipe_utilisation);
  o.uint("gm_read_bytes", gm_read_bytes);
  o.uint("gm_write_bytes", gm_write_bytes);
  o.uint("hbm_bytes", hbm_bytes);
  o.uint("scalar_gm_accesses", scalar_gm_accesses);
  o.uint("scalar_ub_accesses", scalar_ub_accesses);
  o.uint("dma_transfers", dma_transfers);
  o.uint("vector_instrs", vector_instrs);
  o.num("achieved_gbps", achieved_gbps);
  o.num("roofline_fraction", roofline_fraction);
  o.str("bound", bound_name(bound));
  o.num("core_min_us", core_min_us);
  o.num("core_max_us", core_max_us);
  o.num("imbalance", imbalance);
  o.close();
  return out;
}

std::string LaunchReport::to_text() const {
  std::string s;
  s += "kernel " + kernel + " on " + soc + ": ";
  if (!cost_accounting) {
    s += "cost accounting off (AGENTICCANN_SIM_COST=off), " + std::to_string(block_dim) + " blocks\n";
    s += "  GM read " + bytes_text(gm_read_bytes) + ", write " + bytes_text(gm_write_bytes) + "; " +
         std::to_string(dma_transfers) + " DMA transfers, " + std::to_string(vector_instrs) +
         " vector instructions; scalar GetValue/SetValue: GM " + std::to_string(scalar_gm_accesses) + ", UB " +
         std::to_string(scalar_ub_accesses) + "\n";
    return s;
  }
  s += fmt("%.3f us", total_us) + " (" + std::to_string(block_dim) + " blocks on " + std::to_string(cores_used) +
       " of " + std::to_string(physical_cores) + " cores), bound: " + bound_name(bound) + "\n";
  s += "  floor " + fmt("%.3f us", floor_us) + " (roofline " + fmt("%.1f%%", 100.0 * roofline_fraction) +
       "), launch overhead " + fmt("%.3f us", launch_overhead_us) + "\n";
  s += "  GM read " + bytes_text(gm_read_bytes) + ", write " + bytes_text(gm_write_bytes) + " (HBM incl. bursts " +
       bytes_text(hbm_bytes) + "), achieved " + fmt("%.1f GB/s", achieved_gbps) + "\n";
  s += "  slowest core busy:";
  for (int p = 0; p < kPipeCount; ++p) {
    s += std::string(" ") + kPipeNames[p] + " " + fmt("%.3f us", pipe_busy_us[p]) + " (" +
         fmt("%.0f%%", 100.0 * pipe_utilisation[p]) + ")";
  }
  s += "\n";
  s += "  cores: fastest " + fmt("%.3f us", core_min_us) + ", slowest " + fmt("%.3f us", core_max_us) +
       ", imbalance " + fmt("%.1f%%", 100.0 * imbalance) + "\n";
  s += "  " + std::to_string(dma_transfers) + " DMA transfers, " + std::to_string(vector_instrs) +
       " vector instructions, scalar GetValue/SetValue: GM " + std::to_string(scalar_gm_accesses) + ", UB " +
       std::to_string(scalar_ub_accesses) + "\n";
  return s;
}

}  // namespace ascendc_sim::cost
