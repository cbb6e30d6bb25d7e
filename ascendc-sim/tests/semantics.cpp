// Exact semantics the kernels depend on (api-reference §3, §4; FC-01, FC-15, FC-28), checked
// value by value. Built and run by tests/semantics.rs; prints "ok <name>" or
// "FAIL <name>: <why>" per check and exits 1 when any check fails.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

static int g_failures = 0;
static std::string g_why;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      if (g_why.empty()) g_why = std::string(#cond) + " (line " + std::to_string(__LINE__) + ")"; \
    }                                                                      \
  } while (0)

// Runs `body` as a 1-core kernel with a 4 KiB GM scratch; the launch must not fail.
static void check(const char* name, const std::function<void(uint8_t*)>& body) {
  g_why.clear();
  static uint8_t* gm = static_cast<uint8_t*>(GmAlloc(4096));
  ascendc_sim::LaunchResult r = ascendc_sim::run_kernel(name, 1, [&] { body(gm); });
  if (r.failed) g_why = "launch failed: " + (r.diagnostics.empty() ? std::string("?") : r.diagnostics[0].to_line());
  if (g_why.empty()) {
    std::printf("ok %s\n", name);
  } else {
    std::printf("FAIL %s: %s\n", name, g_why.c_str());
    g_failures++;
  }
}

struct DemoTiling {
  uint32_t totalLength;
  float scale;
};

// A custom-op style kernel entry: tiling from GM through GET_TILING_DATA, branches on TILING_KEY_IS.
static void tiling_kernel(GM_ADDR tiling, GM_ADDR out) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  REGISTER_TILING_DEFAULT(DemoTiling);
  GET_TILING_DATA(t, tiling);
  GET_TILING_DATA_WITH_STRUCT(DemoTiling, t2, tiling);
  GET_TILING_DATA_MEMBER(DemoTiling, scale, s, tiling);
  GlobalTensor<float> o;
  o.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), 4);
  float key = TILING_KEY_IS(2) ? 2.0f : TILING_KEY_IS(1) ? 1.0f : 0.0f;
  o.SetValue(0, float(t.totalLength));
  o.SetValue(1, t2.scale);
  o.SetValue(2, s);
  o.SetValue(3, key);
}

static uint16_t bits(half h) { return __builtin_bit_cast(uint16_t, h); }

int main() {
  check("fp16_to_float_exact_for_all_65536", [](uint8_t*) {
    for (uint32_t i = 0; i < 65536; i++) {
      half h = __builtin_bit_cast(half, uint16_t(i));
      float a = ascendc_sim::fp16::to_float(h), b = static_cast<float>(h);
      CHECK((std::isnan(a) && std::isnan(b)) || __builtin_bit_cast(uint32_t, a) == __builtin_bit_cast(uint32_t, b));
    }
  });
  check("float_to_fp16_matches_rne_cast", [](uint8_t*) {
    std::mt19937 rng(7);
    for (int i = 0; i < 2000000; i++) {
      float f = __builtin_bit_cast(float, uint32_t(rng()));
      if (std::isnan(f)) continue;
      CHECK(bits(ascendc_sim::fp16::from_float(f)) == bits(static_cast<half>(f)));
    }
    for (uint32_t i = 0; i < 0x7c00; i++) {  // midpoints between neighbouring halves: ties to even
      float lo = static_cast<float>(__builtin_bit_cast(half, uint16_t(i)));
      float hi = static_cast<float>(__builtin_bit_cast(half, uint16_t(i + 1)));
      float mid = lo + (hi - lo) / 2;
      CHECK(bits(ascendc_sim::fp16::from_float(mid)) == bits(static_cast<half>(mid)));
    }
  });
  check("bfloat16_round_to_nearest_even", [](uint8_t*) {
    CHECK(ToFloat(ToBfloat16(1.00390625f)) == 1.0f);       // tie -> even
    CHECK(ToFloat(ToBfloat16(1.01171875f)) == 1.015625f);  // tie -> even (up)
    CHECK(ToFloat(ToBfloat16(1.0043f)) == 1.0078125f);     // above the tie -> up
    CHECK(std::isnan(ToFloat(ToBfloat16(NAN))));
  });
  check("cast_round_modes", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    LocalTensor<float> f = a.Get<float>();
    LocalTensor<half> h = b.Get<half>();
    LocalTensor<int32_t> i = b.Get<int32_t>();
    LocalTensor<float> f2 = b.Get<float>();
    f.SetValue(0, 0.3f);
    f.SetValue(1, -0.3f);
    f.SetValue(2, 2.5f);
    f.SetValue(3, -2.5f);
    f.SetValue(4, 3e9f);
    f.SetValue(5, 3.5f);
    f.SetValue(6, 70000.0f);
    f.SetValue(7, 1e-8f);
    Cast(h, f, RoundMode::CAST_RINT, 8);  // FC-28: RINT rounds the mantissa, 0.3 stays ~0.3
    CHECK(bits(h.GetValue(0)) == bits(static_cast<half>(0.3f)));
    CHECK(std::isinf(float(h.GetValue(6))));
    Cast(h, f, RoundMode::CAST_FLOOR, 8);
    CHECK(float(h.GetValue(0)) <= 0.3f && float(h.GetValue(1)) <= -0.3f);
    Cast(h, f, RoundMode::CAST_CEIL, 8);
    CHECK(float(h.GetValue(0)) >= 0.3f && float(h.GetValue(1)) >= -0.3f);
    CHECK(float(h.GetValue(7)) > 0.0f);  // smallest subnormal, rounded up
    Cast(h, f, RoundMode::CAST_TRUNC, 8);
    CHECK(float(h.GetValue(6)) == 65504.0f && float(h.GetValue(7)) == 0.0f);
    struct Want {
      RoundMode m;
      int32_t v[4];  // 2.5, -2.5, 3e9 (saturates), 3.5
    };
    const Want wants[] = {{RoundMode::CAST_RINT, {2, -2, INT32_MAX, 4}},  {RoundMode::CAST_FLOOR, {2, -3, INT32_MAX, 3}},
                          {RoundMode::CAST_CEIL, {3, -2, INT32_MAX, 4}},  {RoundMode::CAST_ROUND, {3, -3, INT32_MAX, 4}},
                          {RoundMode::CAST_TRUNC, {2, -2, INT32_MAX, 3}}, {RoundMode::CAST_ODD, {3, -3, INT32_MAX, 3}}};
    for (const Want& w : wants) {
      Cast(i, f, w.m, 8);
      CHECK(i.GetValue(2) == w.v[0] && i.GetValue(3) == w.v[1] && i.GetValue(4) == w.v[2] && i.GetValue(5) == w.v[3]);
    }
    Cast(f2, f, RoundMode::CAST_RINT, 8);  // float -> float with a mode: integral value
    CHECK(f2.GetValue(2) == 2.0f && f2.GetValue(5) == 4.0f && f2.GetValue(0) == 0.0f);
  });
  check("masked_off_lanes_keep_old_dst", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 1024);
    LocalTensor<half> x = a.Get<half>();
    LocalTensor<half> d = x[256];
    Duplicate(x, half(1), 256);
    Duplicate(d, half(7), 256);
    Add(d, x, x, 10, 2, {1, 1, 1, 8, 8, 8});  // lanes 0..9 of 2 repeats
    CHECK(float(d.GetValue(0)) == 2 && float(d.GetValue(9)) == 2 && float(d.GetValue(10)) == 7);
    CHECK(float(d.GetValue(128)) == 2 && float(d.GetValue(137)) == 2 && float(d.GetValue(138)) == 7);
    uint64_t m[2] = {0x5, 1ull << 63};  // lanes 0, 2, 127
    Duplicate(d, half(7), 256);
    Add(d, x, x, m, 1, {1, 1, 1, 8, 8, 8});
    CHECK(float(d.GetValue(0)) == 2 && float(d.GetValue(1)) == 7 && float(d.GetValue(2)) == 2 &&
          float(d.GetValue(127)) == 2 && float(d.GetValue(126)) == 7);
  });
  check("counter_mode_and_strides", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 4096);
    LocalTensor<half> x = a.Get<half>();
    LocalTensor<half> d = x[1024];
    for (int i = 0; i < 512; i++) x.SetValue(i, half(float(i % 64)));
    Duplicate(d, half(-1), 512);
    SetMaskCount();
    SetVectorMask<half, MaskMode::COUNTER>(200);
    Add<half, false>(d, x, x, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});  // repeatTime ignored: 200 elements
    SetMaskNorm();
    ResetMask();
    CHECK(float(d.GetValue(199)) == 2 * float(199 % 64) && float(d.GetValue(200)) == -1);
    // Block stride 2 on src0: block b of repeat 0 reads x block 2b.
    Duplicate(d, half(-1), 512);
    Adds(d, x, half(0), 128, 1, {1, 2, 8, 16});
    CHECK(float(d.GetValue(16)) == float(x.GetValue(32)) && float(d.GetValue(17)) == float(x.GetValue(33)));
  });
  check("fp16_reduce_accumulates_in_fp16", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, w, r;
    pipe.InitBuffer(a, 4224 * 2);
    pipe.InitBuffer(w, 256);
    pipe.InitBuffer(r, 32);
    LocalTensor<half> x = a.Get<half>();
    Duplicate(x, half(1), 4097);
    LocalTensor<half> s = r.Get<half>();
    ReduceSum(s, x, w.Get<half>(), 4097);
    CHECK(float(s.GetValue(0)) == 4096.0f);  // 4097 is not an fp16 value: the fp16 sum rounds (FC-15)
    LocalTensor<float> xf = a.Get<float>();
    Duplicate(xf, 1.0f, 2049);
    LocalTensor<float> sf = r.Get<float>();
    ReduceSum(sf, xf, w.Get<float>(), 2049);
    CHECK(sf.GetValue(0) == 2049.0f);
    ReduceMax(sf, xf, w.Get<float>(), 2049, true);
    CHECK(sf.GetValue(0) == 1.0f);
  });
  check("init_global_memory", [](uint8_t* gm) {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<float*>(gm), 16);
    InitGlobalMemory(g, 16, 1.5f);
    CHECK(g.GetValue(0) == 1.5f && g.GetValue(15) == 1.5f);
  });
  check("datacopy_truncates_to_32_bytes", [](uint8_t* gm) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(gm), 32);
    for (int i = 0; i < 32; i++) g.SetValue(i, half(float(i + 1)));
    // The SetValues sit in the data cache: write them back before a DMA copy reads GM.
    DataCacheCleanAndInvalid<half, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(g);
    LocalTensor<half> t = q.AllocTensor<half>();
    Duplicate(t, half(0), 32);
    PipeBarrier<PIPE_ALL>();
    DataCopy(t, g, 17);  // 34 bytes -> 32 copied
    q.EnQue(t);
    t = q.DeQue<half>();
    CHECK(float(t.GetValue(15)) == 16 && float(t.GetValue(16)) == 0);
    q.FreeTensor(t);
  });
  check("datacopypad_block_placement_fc01", [](uint8_t* gm) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 128);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(gm), 18);
    for (int i = 0; i < 18; i++) g.SetValue(i, half(float(i + 1)));
    // The SetValues sit in the data cache: write them back before a DMA copy reads GM.
    DataCacheCleanAndInvalid<half, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(g);
    LocalTensor<half> t = q.AllocTensor<half>();
    DataCopyPad(t, g, {2, 9 * sizeof(half), 0, 0, 0}, {true, 0, 0, half(5)});  // rows of 18 bytes
    q.EnQue(t);
    t = q.DeQue<half>();
    CHECK(float(t.GetValue(0)) == 1 && float(t.GetValue(8)) == 9);
    CHECK(float(t.GetValue(9)) == 5 && float(t.GetValue(15)) == 5);  // padded to the 32-byte block
    CHECK(float(t.GetValue(16)) == 10 && float(t.GetValue(24)) == 18);  // row 1 at the next 32-byte block
    q.FreeTensor(t);
  });
  check("compare_whole_256_byte_groups_and_select", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, m;
    pipe.InitBuffer(a, 2048);
    pipe.InitBuffer(m, 64);
    LocalTensor<float> x = a.Get<float>();
    LocalTensor<float> y = x[256];
    for (int i = 0; i < 128; i++) x.SetValue(i, float(i % 2 ? i : -i));
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    Duplicate(mask.ReinterpretCast<int16_t>(), int16_t(-1), 16);  // all bits 1
    CompareScalar(mask, x, 0.0f, CMPMODE::GT, 100);  // only 64 elements compared
    CHECK(mask.GetValue(0) == 0xAA && mask.GetValue(7) == 0xAA && mask.GetValue(8) == 0xFF);
    CompareScalar(mask, x, 0.0f, CMPMODE::GT, 128);
    Select(y, mask, x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 128);
    CHECK(y.GetValue(3) == 3.0f && y.GetValue(4) == 0.0f && y.GetValue(127) == 127.0f);
  });
  check("whole_block_pair_reduce_and_brcb", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, d;
    pipe.InitBuffer(a, 1024);
    pipe.InitBuffer(d, 1024);
    LocalTensor<float> x = a.Get<float>();
    LocalTensor<float> o = d.Get<float>();
    for (int i = 0; i < 128; i++) x.SetValue(i, float(i));
    WholeReduceMax(o, x, 64, 2, 1, 1, 8);  // (value, index) per repeat
    CHECK(o.GetValue(0) == 63.0f && o.ReinterpretCast<uint32_t>().GetValue(1) == 63 && o.GetValue(2) == 127.0f);
    WholeReduceSum(o, x, 8, 2, 1, 1, 8);  // first 8 lanes of each repeat
    CHECK(o.GetValue(0) == 28.0f && o.GetValue(1) == 64 * 8 + 28.0f);
    BlockReduceSum(o, x, 1, 64, 1, 1, 8);  // 8 sums of 8
    CHECK(o.GetValue(0) == 28.0f && o.GetValue(7) == 56 * 8 + 28.0f);
    PairReduceSum(o, x, 1, 64, 1, 1, 8);
    CHECK(o.GetValue(0) == 1.0f && o.GetValue(31) == 125.0f);
    Brcb(o, x, 1, {1, 8});
    CHECK(o.GetValue(0) == 0.0f && o.GetValue(7) == 0.0f && o.GetValue(8) == 1.0f && o.GetValue(63) == 7.0f);
  });
  check("high_level_elementwise", [](uint8_t*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, t;
    pipe.InitBuffer(a, 512);
    pipe.InitBuffer(b, 512);
    pipe.InitBuffer(t, 256);
    LocalTensor<float> x = a.Get<float>();
    LocalTensor<float> y = b.Get<float>();
    LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
    for (int i = 0; i < 100; i++) x.SetValue(i, -3.0f + float(i) * 0.06f);
    auto near = [&](const std::function<double(double)>& f) {
      for (int i = 0; i < 100; i++) {
        double v = -3.0 + i * 0.06f, want = f(v);
        CHECK(std::fabs(y.GetValue(i) - want) <= 1e-5 + 1e-5 * std::fabs(want));
      }
    };
    Sigmoid(y, x, tmp, 100);
    near([](double v) { return 1 / (1 + std::exp(-v)); });
    Tanh(y, x, 100);
    near([](double v) { return std::tanh(v); });
    Erf(y, x, tmp, 100);
    near([](double v) { return std::erf(v); });
    Gelu(y, x, 100);
    near([](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); });
    FasterGelu(y, x, 100);
    near([](double v) { return v * std::exp(0.851 * (v - std::fabs(v))) / (1 + std::exp(-1.702 * std::fabs(v))); });
    Power(y, x, 2.0f, 100);
    near([](double v) { return v * v; });
  });
  {
    // DMA atomics across cores: each of 8 cores adds (core + 1) into the same 8 floats.
    g_why.clear();
    auto* acc = static_cast<float*>(GmAlloc(32));
    for (int i = 0; i < 8; i++) acc[i] = 0.5f;
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel("atomic_add", 8, [acc] {
      TPipe pipe;
      TQue<TPosition::VECOUT, 1> q;
      pipe.InitBuffer(q, 1, 32);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(acc, 8);
      LocalTensor<float> t = q.AllocTensor<float>();
      Duplicate(t, float(GetBlockIdx() + 1), 8);
      q.EnQue(t);
      t = q.DeQue<float>();
      SetAtomicAdd<float>();
      DataCopy(g, t, 8);
      SetAtomicNone();
      q.FreeTensor(t);
    });
    CHECK(!r.failed && r.diagnostics.empty());  // atomic writes to the same bytes are not a race
    for (int i = 0; i < 8; i++) CHECK(acc[i] == 36.5f);
    std::printf("%s atomic_add_across_cores%s%s\n", g_why.empty() ? "ok" : "FAIL", g_why.empty() ? "" : ": ",
                g_why.c_str());
    if (!g_why.empty()) g_failures++;
    GmFree(acc);
  }
  {
    g_why.clear();
    auto* tiling = static_cast<DemoTiling*>(GmAlloc(sizeof(DemoTiling)));
    auto* out = static_cast<float*>(GmAlloc(16));
    *tiling = DemoTiling{123, 0.5f};
    ICPU_SET_TILING_KEY(2);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(tiling_kernel, "tiling_kernel", 1, tiling, out);
    ICPU_SET_TILING_KEY(0);
    CHECK(!r.failed);
    CHECK(out[0] == 123.0f && out[1] == 0.5f && out[2] == 0.5f && out[3] == 2.0f);
    std::printf("%s tiling_macros%s%s\n", g_why.empty() ? "ok" : "FAIL", g_why.empty() ? "" : ": ", g_why.c_str());
    if (!g_why.empty()) g_failures++;
    GmFree(tiling);
    GmFree(out);
  }
  return g_failures == 0 ? 0 : 1;
}
