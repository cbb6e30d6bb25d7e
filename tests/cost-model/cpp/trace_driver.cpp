// trace_driver — replays synthetic hook sequences through the cost model.
//
// Built by tests/cost-model/build.rs from this file and ascendc-sim/src/cost/*.cpp only
// (no kernel-side simulator), so the timeline engine is tested in isolation. Reads a
// script on stdin, prints one LaunchReport JSON line per launch on stdout.
//
// Script (one command per line, '#' comments):
//   launch <block_dim>              start a launch on the active profile
//   block <i>                       later hooks go to block i of the launch
//   scalar <instrs>
//   vec <class> <dtype> <repeats> [count]     class: simple transcend div muladddst cast
//                                   duplicate brcb compare select whole_reduce
//                                   block_reduce pair_reduce gather_mask gather copy
//                                   dtype: u8 i8 u16 i16 f16 bf16 u32 i32 f32 u64 i64 f64
//   dma <mte2|mte3> <gm_addr> <block_count> <block_bytes> <gm_stride_bytes>
//   get <ub|gm> / set <ub|gm>       scalar GetValue / SetValue
//   signal <pipe> <key> / wait <pipe> <key>   pipe: s v mte2 mte3
//   barrier <pipe|all>
//   xsignal <chan> / xwait <chan> <need>      cross-core: raise channel chan / wait until
//                                   it has been raised need times (by any block)
//   repeat <n> ... end              repeat the enclosed commands (nesting allowed)
//   finish <kernel_name>            replay the launch and print its report
//
// Options: --order forward|reverse|interleave|shuffle:<seed>  order in which blocks'
//          hooks are recorded; --threads <n> record blocks on n host threads;
//          --text  print to_text() instead of JSON; --time  print the recording and
//          replay (finish) wall times of each launch to stderr: "time record_ms=.. finish_ms=..".
// Exit status: 0 ok; 2 a std::logic_error (model bug, e.g. below the floor);
// 3 any other error (bad script, bad profile, trace limit).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ascendc_sim/cost.h"
#include "ascendc_sim/profile.h"
#include "ascendc_sim/report.h"

using namespace ascendc_sim;
using namespace ascendc_sim::cost;

namespace {

struct Op {
  enum Kind { Scalar, Vec, Dma, Get, Set, Signal, Wait, Barrier, XSignal, XWait } kind;
  uint64_t a = 0, b = 0, c = 0, d = 0;
  int cls = 0, dtype = 0;
  Pipe pipe = Pipe::S;
  bool flag = false;
};

[[noreturn]] void fail(size_t line, const std::string& what) {
  throw std::runtime_error("script line " + std::to_string(line) + ": " + what);
}

Pipe parse_pipe(const std::string& s, size_t line) {
  if (s == "s") return Pipe::S;
  if (s == "v") return Pipe::V;
  if (s == "mte2") return Pipe::MTE2;
  if (s == "mte3") return Pipe::MTE3;
  fail(line, "unknown pipe '" + s + "'");
}

int parse_class(const std::string& s, size_t line) {
  static const char* names[] = {"simple", "transcend", "div", "muladddst", "cast",
                                "duplicate", "brcb", "compare", "select", "whole_reduce",
                                "block_reduce", "pair_reduce", "gather_mask", "gather", "copy"};
  for (int i = 0; i < int(VecClass::Count_); ++i) {
    if (s == names[i]) return i;
  }
  fail(line, "unknown vector class '" + s + "'");
}

int parse_dtype(const std::string& s, size_t line) {
  static const char* names[] = {"u8", "i8", "u16", "i16", "f16", "bf16", "u32", "i32", "f32", "u64", "i64", "f64"};
  for (int i = 0; i < 12; ++i) {
    if (s == names[i]) return i;
  }
  fail(line, "unknown dtype '" + s + "'");
}

uint64_t num(std::istringstream& in, size_t line, const char* what) {
  uint64_t v;
  if (!(in >> v)) fail(line, std::string("expected ") + what);
  return v;
}

void apply(CoreRecorder& r, const Op& op) {
  switch (op.kind) {
    case Op::Scalar: r.scalar(uint32_t(op.a)); break;
    case Op::Vec: r.vector(VecClass(op.cls), DType(op.dtype), uint32_t(op.a), op.flag); break;
    case Op::Dma: r.dma(op.pipe, op.a, uint32_t(op.b), op.c, op.d); break;
    case Op::Get: r.scalar_access(op.flag ? ScalarTarget::UB : ScalarTarget::GM, false); break;
    case Op::Set: r.scalar_access(op.flag ? ScalarTarget::UB : ScalarTarget::GM, true); break;
    case Op::Signal: r.signal(op.pipe, SyncKey{op.a}); break;
    case Op::Wait: r.wait(op.pipe, SyncKey{op.a}); break;
    case Op::Barrier: r.barrier(op.pipe, op.flag); break;
    case Op::XSignal: r.xsignal(op.a); break;
    case Op::XWait: r.xwait(op.a, uint32_t(op.b)); break;
  }
}

struct Launch {
  uint32_t block_dim = 0;
  std::vector<std::vector<Op>> blocks;
};

std::vector<uint32_t> record_order(uint32_t n, const std::string& order) {
  std::vector<uint32_t> idx(n);
  for (uint32_t i = 0; i < n; ++i) idx[i] = i;
  if (order == "reverse") {
    std::reverse(idx.begin(), idx.end());
  } else if (order.rfind("shuffle:", 0) == 0) {
    std::mt19937_64 rng(std::stoull(order.substr(8)));
    std::shuffle(idx.begin(), idx.end(), rng);
  } else if (order != "forward" && order != "interleave") {
    throw std::runtime_error("unknown --order '" + order + "'");
  }
  return idx;
}

void run_launch(const Launch& l, const std::string& name, const std::string& order, unsigned threads, bool text,
                bool timing) {
  auto t0 = std::chrono::steady_clock::now();
  LaunchCost cost(active_profile(), l.block_dim);
  std::vector<uint32_t> idx = record_order(l.block_dim, order);
  if (order == "interleave") {
    // One hook at a time, round robin over blocks: recorders must not share state.
    std::vector<size_t> pos(l.block_dim, 0);
    bool any = true;
    while (any) {
      any = false;
      for (uint32_t b : idx) {
        if (pos[b] < l.blocks[b].size()) {
          apply(cost.core(b), l.blocks[b][pos[b]++]);
          any = true;
        }
      }
    }
  } else if (threads <= 1) {
    for (uint32_t b : idx) {
      for (const Op& op : l.blocks[b]) apply(cost.core(b), op);
    }
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (size_t k = t; k < idx.size(); k += threads) {
          uint32_t b = idx[k];
          for (const Op& op : l.blocks[b]) apply(cost.core(b), op);
        }
      });
    }
    for (auto& th : pool) th.join();
  }
  auto t1 = std::chrono::steady_clock::now();
  LaunchReport rep = cost.finish(name);
  auto t2 = std::chrono::steady_clock::now();
  if (timing) {
    std::cerr << "time record_ms=" << std::chrono::duration<double, std::milli>(t1 - t0).count()
              << " finish_ms=" << std::chrono::duration<double, std::milli>(t2 - t1).count() << "\n";
  }
  std::cout << (text ? rep.to_text() : rep.to_json() + "\n");
  std::cout.flush();
}

}  // namespace

int main(int argc, char** argv) {
  std::string order = "forward";
  unsigned threads = 1;
  bool text = false;
  bool timing = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--order" && i + 1 < argc) order = argv[++i];
    else if (a == "--threads" && i + 1 < argc) threads = unsigned(std::stoul(argv[++i]));
    else if (a == "--text") text = true;
    else if (a == "--time") timing = true;
    else {
      std::cerr << "usage: trace_driver [--order forward|reverse|interleave|shuffle:<seed>] [--threads n] [--text] < script\n";
      return 3;
    }
  }
  try {
    Launch launch;
    bool in_launch = false;
    uint32_t block = 0;
    // Loop stack: (start index in `lines`, remaining iterations).
    std::vector<std::string> lines;
    for (std::string s; std::getline(std::cin, s);) lines.push_back(s);
    std::vector<std::pair<size_t, uint64_t>> loops;
    for (size_t li = 0; li < lines.size(); ++li) {
      std::string s = lines[li];
      if (auto h = s.find('#'); h != std::string::npos) s.resize(h);
      std::istringstream in(s);
      std::string cmd;
      if (!(in >> cmd)) continue;
      size_t line = li + 1;
      if (cmd == "repeat") {
        loops.emplace_back(li, num(in, line, "a repeat count"));
        if (loops.back().second == 0) fail(line, "repeat 0 is not supported");
        continue;
      }
      if (cmd == "end") {
        if (loops.empty()) fail(line, "'end' without 'repeat'");
        if (--loops.back().second > 0) li = loops.back().first;
        else loops.pop_back();
        continue;
      }
      if (cmd == "launch") {
        launch = Launch();
        launch.block_dim = uint32_t(num(in, line, "block_dim"));
        launch.blocks.resize(launch.block_dim);
        in_launch = true;
        block = 0;
        continue;
      }
      if (!in_launch) fail(line, "'" + cmd + "' before 'launch'");
      if (cmd == "block") {
        block = uint32_t(num(in, line, "a block index"));
        if (block >= launch.block_dim) fail(line, "block index out of range");
        continue;
      }
      if (cmd == "finish") {
        std::string name;
        in >> name;
        run_launch(launch, name.empty() ? "synthetic" : name, order, threads, text, timing);
        in_launch = false;
        continue;
      }
      Op op{};
      std::string w;
      if (cmd == "scalar") {
        op.kind = Op::Scalar;
        op.a = num(in, line, "instruction count");
      } else if (cmd == "vec") {
        op.kind = Op::Vec;
        std::string cls, dt;
        in >> cls >> dt;
        op.cls = parse_class(cls, line);
        op.dtype = parse_dtype(dt, line);
        op.a = num(in, line, "repeats");
        op.flag = (in >> w) && w == "count";
      } else if (cmd == "dma") {
        op.kind = Op::Dma;
        in >> w;
        op.pipe = parse_pipe(w, line);
        op.a = num(in, line, "gm_addr");
        op.b = num(in, line, "block_count");
        op.c = num(in, line, "block_bytes");
        op.d = num(in, line, "gm_stride_bytes");
      } else if (cmd == "get" || cmd == "set") {
        op.kind = cmd == "get" ? Op::Get : Op::Set;
        in >> w;
        if (w != "ub" && w != "gm") fail(line, "expected ub or gm");
        op.flag = w == "ub";
      } else if (cmd == "signal" || cmd == "wait") {
        op.kind = cmd == "signal" ? Op::Signal : Op::Wait;
        in >> w;
        op.pipe = parse_pipe(w, line);
        op.a = num(in, line, "a key");
      } else if (cmd == "xsignal") {
        op.kind = Op::XSignal;
        op.a = num(in, line, "a channel");
      } else if (cmd == "xwait") {
        op.kind = Op::XWait;
        op.a = num(in, line, "a channel");
        op.b = num(in, line, "the raises needed");
        if (op.b > UINT32_MAX) fail(line, "xwait needs at most 2^32 - 1 raises");
      } else if (cmd == "barrier") {
        op.kind = Op::Barrier;
        in >> w;
        op.flag = w == "all";
        op.pipe = op.flag ? Pipe::S : parse_pipe(w, line);
      } else {
        fail(line, "unknown command '" + cmd + "'");
      }
      launch.blocks[block].push_back(op);
    }
    if (!loops.empty()) throw std::runtime_error("script: 'repeat' without 'end'");
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  } catch (const std::out_of_range& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  } catch (const std::logic_error& e) {
    std::cerr << "logic_error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
