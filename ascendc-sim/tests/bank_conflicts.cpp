// Kernels for the UB bank-group cost of strided vector operands (tests/bank_conflicts.rs).
// Each case runs kIters instructions of 32 repeats over float data in one 32 KiB buffer; they
// differ only in one operand's block stride (dataBlockStride, in 32-byte blocks). Atlas A2 UB
// (arch 220x) has 16 bank groups, the group of a 32-byte row being (address / 32) mod 16, and
// the vector unit reads or writes one row per group per cycle (CANN Ascend C best practices,
// "Avoiding Bank Conflicts in the Unified Buffer"): a stride of 16 blocks puts all 8 blocks of
// a repeat in one group (8 cycles per repeat), 8 puts them in two (4 cycles), 1 or 2 in eight.
//
// Usage: bank_conflicts          every case, one JSON line each: {"name":...,"result":<LaunchResult>}
#include <cstdio>
#include <cstring>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr int kIters = 100;
constexpr uint8_t kRepeats = 32;

// Adds over 32 repeats of 64 floats: dst block stride kDst, src block stride kSrc; the repeat
// stride is 1 block for an operand with a large block stride (so the repeats interleave) and
// 8 otherwise.
template <uint16_t kDst, uint16_t kSrc>
__aicore__ void adds(GM_ADDR, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 8192 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8192);
  const uint8_t dst_rep = kDst > 2 ? 1 : 8, src_rep = kSrc > 2 ? 1 : 8;
  for (int i = 0; i < kIters; i++) Adds(t[4096], t, 1.0f, 64, kRepeats, UnaryRepeatParams(kDst, kSrc, dst_rep, src_rep));
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, t[4096], 64);
}

// Brcb of 32 repeats (256 floats) with destination block stride kDst.
template <uint16_t kDst>
__aicore__ void brcb(GM_ADDR, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 8192 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 2.0f, 8192);
  for (int i = 0; i < kIters; i++) Brcb(t[4096], t, kRepeats, BrcbRepeatParams(kDst, kDst > 2 ? 1 : 8));
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, t[4096], 64);
}

// WholeReduceSum of 32 repeats with source block stride kSrc.
template <int32_t kSrc>
__aicore__ void whole_sum(GM_ADDR, GM_ADDR y, GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 8192 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8192);
  for (int i = 0; i < kIters; i++) WholeReduceSum(t[4096], t, 64, kRepeats, 1, kSrc, kSrc > 2 ? 1 : 8);
  GlobalTensor<float> yg;
  yg.SetGlobalBuffer((__gm__ float*)y);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(yg, t[4096], 64);
}

struct Case {
  const char* name;
  void (*fn)(GM_ADDR, GM_ADDR, GM_ADDR);
};
const Case kCases[] = {
    {"adds_plain", adds<1, 1>},     {"adds_dst16", adds<16, 1>},  {"adds_src16", adds<1, 16>},
    {"adds_src8", adds<1, 8>},      {"adds_src2", adds<1, 2>},    {"adds_src0", adds<1, 0>},
    {"adds_src32", adds<1, 32>},    {"brcb_plain", brcb<1>},      {"brcb_dst16", brcb<16>},
    {"whole_plain", whole_sum<1>}, {"whole_src16", whole_sum<16>},
};

}  // namespace

int main() {
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(4096));
  for (const Case& c : kCases) {
    std::memset(y, 0, 4096);
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, 1, x, y, ws);
    std::printf("{\"name\":\"%s\",\"result\":%s}\n", c.name, r.to_json().c_str());
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(ws);
  return 0;
}
