// One small kernel per diagnostic kind. Each breaks one rule; the line the diagnostic
// must point to carries a comment "expect: <kind>". tests/diagnostics.rs builds this file
// with the plain compiler line against libascendc_sim.a, runs every kernel and checks kind
// and line. The program prints one JSON object per kernel: {"name":...,"result":{...}}.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

__aicore__ void ub_capacity_exceeded(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 100 * 1024);  // expect: ub_capacity_exceeded
}

__aicore__ void pipe_buffers_exceeded(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q1;
  TQue<TPosition::VECOUT, 1> q2;
  pipe.InitBuffer(q1, 60, 32);
  pipe.InitBuffer(q2, 8, 32);  // expect: pipe_buffers_exceeded
}

__aicore__ void position_buffers_exceeded(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 9, 32);
  for (int i = 0; i < 9; i++) {
    LocalTensor<half> t = q.AllocTensor<half>();  // expect: position_buffers_exceeded
    (void)t;
  }
}

__aicore__ void ub_misaligned(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 1024);
  LocalTensor<half> t = b.Get<half>();
  Duplicate(t, (half)1, 512);
  Add(t[1], t, t, 64);  // expect: ub_misaligned
}

__aicore__ void ub_out_of_range(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 256);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 128);  // expect: ub_out_of_range
}

__aicore__ void vector_overlap(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 2048);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 512);
  Adds(t[8], t, 1.0f, 256);  // expect: vector_overlap
}

// Brcb broadcasting into bytes it still reads (its destination 8 floats on from its source).
__aicore__ void brcb_overlap(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 4096);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 1024);
  Brcb(t[8], t, 4, BrcbRepeatParams(1, 8));  // expect: vector_overlap
}

// Mask form with half a repeat active: no operand is contiguous, and the destination of
// repeat n (t[64 + 64 n], 32 lanes) is the source of repeat n + 1.
__aicore__ void repeat_overlap(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 4096);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 1024);
  Adds(t[64], t, 1.0f, 32, 4, UnaryRepeatParams(1, 1, 8, 8));  // expect: vector_overlap
}

__aicore__ void tensor_not_allocated(GM_ADDR) {
  LocalTensor<half> t;
  Duplicate(t, (half)0, 16);  // expect: tensor_not_allocated
}

__aicore__ void tensor_use_after_free(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 512);
  LocalTensor<half> t = q.AllocTensor<half>();
  q.FreeTensor(t);
  Duplicate(t, (half)0, 16);  // expect: tensor_use_after_free
}

__aicore__ void ub_uninitialized_read(GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 512);
  GlobalTensor<half> yGm;
  yGm.SetGlobalBuffer((__gm__ half*)y, 256);
  LocalTensor<half> t = q.AllocTensor<half>();
  q.EnQue(t);
  t = q.DeQue<half>();
  DataCopy(yGm, t, 256);  // expect: ub_uninitialized_read
  q.FreeTensor(t);
}

// FC-04 / FC-10: DataCopyPad without isPad leaves the pad lanes poisoned; a reduction over
// the 32-byte rounded length turns them into the result, caught when the result is read.
__aicore__ void fc04_pad_lanes(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  TBuf<TPosition::VECCALC> work, red;
  pipe.InitBuffer(q, 1, 64);
  pipe.InitBuffer(work, 64);
  pipe.InitBuffer(red, 32);
  GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 5);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyPad(t, xGm, {1, 5 * sizeof(float), 0, 0, 0}, {false, 0, 0, 0.0f});
  q.EnQue(t);
  t = q.DeQue<float>();
  LocalTensor<float> r = red.Get<float>();
  ReduceMax(r, t, work.Get<float>(), 8);
  float m = r.GetValue(0);  // expect: ub_uninitialized_read
  (void)m;
  q.FreeTensor(t);
}

__aicore__ void ub_unsynchronized_access(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 1024);
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 256);
  LocalTensor<half> t = b.Get<half>();
  DataCopy(t, xGm, 256);
  Abs(t, t, 256);  // expect: ub_unsynchronized_access
}

// WAR: MTE2 overwrites a TBuf that V is still reading (the V_MTE2 flag is missing).
__aicore__ void ub_unsynchronized_war(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> in, out;
  pipe.InitBuffer(in, 512);
  pipe.InitBuffer(out, 512);
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 256);
  LocalTensor<half> a = in.Get<half>();
  LocalTensor<half> b = out.Get<half>();
  DataCopy(a, xGm, 256);
  SetFlag<HardEvent::MTE2_V>(0);
  WaitFlag<HardEvent::MTE2_V>(0);
  Abs(b, a, 256);
  DataCopy(a, xGm, 256);  // expect: ub_unsynchronized_access
}

// RAW V -> MTE3: the vector result is copied out with no EnQue/DeQue or V_MTE3 flag.
__aicore__ void ub_unsynchronized_out(GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 512);
  GlobalTensor<half> yGm;
  yGm.SetGlobalBuffer((__gm__ half*)y, 256);
  LocalTensor<half> t = b.Get<half>();
  Duplicate(t, (half)3, 256);
  DataCopy(yGm, t, 256);  // expect: ub_unsynchronized_access
}

__aicore__ void datacopy_truncated(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 256);
  LocalTensor<half> t = q.AllocTensor<half>();
  DataCopy(t, xGm, 17);  // expect: datacopy_truncated
  q.FreeTensor(t);
}

__aicore__ void compare_count_truncated(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b, m;
  pipe.InitBuffer(b, 1024);
  pipe.InitBuffer(m, 64);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 256);
  LocalTensor<uint8_t> mask = m.Get<uint8_t>();
  CompareScalar(mask, t, 0.0f, CMPMODE::GT, 100);  // expect: compare_count_truncated
}

__aicore__ void mask_invalid(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 1024);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 256);
  Add(t, t, t, 128, 1, {1, 1, 1, 8, 8, 8});  // expect: mask_invalid
}

// FC-06: the kernel rounds its 100-element slice up to 112 and copies past the allocation.
__aicore__ void gm_out_of_bounds(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 112);
  LocalTensor<half> t = q.AllocTensor<half>();
  DataCopy(t, xGm[150], 112);  // expect: gm_out_of_bounds
  q.FreeTensor(t);
}

// FC-14: every core copies 32 halves from its start, but the slices are only 24 apart.
// The cores' values differ (as a real tail of the next core's data does): identical bytes
// would be gm_write_duplicate, a warning (issue 14).
__aicore__ void gm_write_race(GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<half> yGm;
  yGm.SetGlobalBuffer((__gm__ half*)y + GetBlockIdx() * 24, 32);
  LocalTensor<half> t = q.AllocTensor<half>();
  Duplicate(t, (half)(1 + GetBlockIdx()), 32);
  q.EnQue(t);
  t = q.DeQue<half>();
  DataCopy(yGm, t, 32);  // expect: gm_write_race
  q.FreeTensor(t);
}

__aicore__ void queue_alloc_beyond_depth(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<half> a = q.AllocTensor<half>();
  LocalTensor<half> b = q.AllocTensor<half>();
  LocalTensor<half> c = q.AllocTensor<half>();  // expect: queue_alloc_beyond_depth
  (void)a, (void)b, (void)c;
}

__aicore__ void queue_deque_empty(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<half> a = q.DeQue<half>();  // expect: queue_deque_empty
  (void)a;
}

__aicore__ void queue_double_free(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 2> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<half> a = q.AllocTensor<half>();
  q.FreeTensor(a);
  q.FreeTensor(a);  // expect: queue_double_free
}

__aicore__ void queue_foreign_tensor(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q1;
  TQue<TPosition::VECOUT, 1> q2;
  pipe.InitBuffer(q1, 1, 64);
  pipe.InitBuffer(q2, 1, 64);
  LocalTensor<half> a = q1.AllocTensor<half>();
  q2.FreeTensor(a);  // expect: queue_foreign_tensor
}

__aicore__ void queue_enque_wrong_state(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<half> a = q.AllocTensor<half>();
  q.EnQue(a);
  q.EnQue(a);  // expect: queue_enque_wrong_state
}

__aicore__ void queue_enque_beyond_depth(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<half> a = q.AllocTensor<half>();
  LocalTensor<half> b = q.AllocTensor<half>();
  q.EnQue(a);
  q.EnQue(b);  // expect: queue_enque_beyond_depth
}

__aicore__ void queue_tensor_not_freed(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 64);
  LocalTensor<half> a = q.AllocTensor<half>();  // expect: queue_tensor_not_freed
  Duplicate(a, (half)0, 32);
}

__aicore__ void pipe_reset_live_tensors(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  LocalTensor<half> a = q.AllocTensor<half>();
  q.EnQue(a);
  pipe.Reset();  // expect: pipe_reset_live_tensors
}

__aicore__ void pipe_ub_alias(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  TPipe pipe2;
  TBuf<TPosition::VECCALC> b;
  pipe2.InitBuffer(b, 512);  // expect: pipe_ub_alias
}

__aicore__ void ub_overlap_in_flight(GM_ADDR x) {
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 256);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  LocalTensor<half> a = q.AllocTensor<half>();
  DataCopy(a, xGm, 256);
  q.EnQue(a);
  TPipe pipe2;
  TQue<TPosition::VECIN, 1> q2;
  pipe2.InitBuffer(q2, 1, 512);
  LocalTensor<half> b = q2.AllocTensor<half>();
  DataCopy(b, xGm, 256);  // expect: ub_overlap_in_flight
}

__aicore__ void pipe_reset_after_free_ok(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 512);
  LocalTensor<half> a = q.AllocTensor<half>();
  q.EnQue(a);
  LocalTensor<half> d = q.DeQue<half>();
  q.FreeTensor(d);
  pipe.Reset();
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 512);
}

__aicore__ void queue_not_initialized(GM_ADDR) {
  TQue<TPosition::VECIN, 1> q;
  LocalTensor<half> a = q.AllocTensor<half>();  // expect: queue_not_initialized
  (void)a;
}

__aicore__ void repeat_out_of_range(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 64 * 1024);
  LocalTensor<half> t = b.Get<half>();
  int32_t repeat = 32768 / 128;  // 256 repeats: wraps to 0 in the uint8 field
  Duplicate(t, (half)0, 128, repeat, 1, 8);  // expect: repeat_out_of_range
}

__aicore__ void field_out_of_range(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<half> xGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, 256);
  LocalTensor<half> t = q.AllocTensor<half>();
  DataCopyParams p{5000, 1, 0, 0};
  DataCopy(t, xGm, p);  // expect: field_out_of_range
  q.FreeTensor(t);
}

__aicore__ void reduce_work_buffer_too_small(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b, w, r;
  pipe.InitBuffer(b, 8192 * 4);
  pipe.InitBuffer(w, 32);
  pipe.InitBuffer(r, 32);
  LocalTensor<float> t = b.Get<float>();
  Duplicate(t, 1.0f, 8192);
  ReduceSum(r.Get<float>(), t, w.Get<float>(), 8192);  // expect: reduce_work_buffer_too_small
}

__aicore__ void flag_wait_deadlock(GM_ADDR) {
  WaitFlag<HardEvent::MTE2_V>(1);  // expect: flag_wait_deadlock
}

__aicore__ void flag_set_twice(GM_ADDR) {
  SetFlag<HardEvent::MTE2_V>(3);
  SetFlag<HardEvent::MTE2_V>(3);  // expect: flag_set_twice
}

__aicore__ void flag_unpaired(GM_ADDR) {
  SetFlag<HardEvent::V_MTE3>(2);  // expect: flag_unpaired
}

__aicore__ void kernel_exception(GM_ADDR) { throw std::runtime_error("tiling table missing"); }

__aicore__ void block_dim_invalid(GM_ADDR) {}

// FC-08, must pass: DataCopyPad to a GM address that is not 32-byte aligned (offset 12 fp32).
__aicore__ void fc08_unaligned_gm_ok(GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<float> yGm;
  yGm.SetGlobalBuffer((__gm__ float*)y, 64);
  LocalTensor<float> t = q.AllocTensor<float>();
  Duplicate(t, 2.0f, 12);
  q.EnQue(t);
  t = q.DeQue<float>();
  DataCopyPad(yGm[12 * (GetBlockIdx() + 1)], t, {1, 12 * sizeof(float), 0, 0, 0});  // 48-byte rows
  q.FreeTensor(t);
}

struct Case {
  const char* name;
  void (*fn)(GM_ADDR);
  uint32_t block_dim;
};

const Case kCases[] = {
    {"ub_capacity_exceeded", ub_capacity_exceeded, 1},
    {"pipe_buffers_exceeded", pipe_buffers_exceeded, 1},
    {"position_buffers_exceeded", position_buffers_exceeded, 1},
    {"ub_misaligned", ub_misaligned, 1},
    {"ub_out_of_range", ub_out_of_range, 1},
    {"vector_overlap", vector_overlap, 1},
    {"brcb_overlap", brcb_overlap, 1},
    {"repeat_overlap", repeat_overlap, 1},
    {"tensor_not_allocated", tensor_not_allocated, 1},
    {"tensor_use_after_free", tensor_use_after_free, 1},
    {"ub_uninitialized_read", ub_uninitialized_read, 1},
    {"fc04_pad_lanes", fc04_pad_lanes, 1},
    {"ub_unsynchronized_access", ub_unsynchronized_access, 1},
    {"ub_unsynchronized_war", ub_unsynchronized_war, 1},
    {"ub_unsynchronized_out", ub_unsynchronized_out, 1},
    {"datacopy_truncated", datacopy_truncated, 1},
    {"compare_count_truncated", compare_count_truncated, 1},
    {"mask_invalid", mask_invalid, 1},
    {"gm_out_of_bounds", gm_out_of_bounds, 1},
    {"gm_write_race", gm_write_race, 2},
    {"queue_alloc_beyond_depth", queue_alloc_beyond_depth, 1},
    {"queue_deque_empty", queue_deque_empty, 1},
    {"queue_double_free", queue_double_free, 1},
    {"queue_foreign_tensor", queue_foreign_tensor, 1},
    {"queue_enque_wrong_state", queue_enque_wrong_state, 1},
    {"queue_enque_beyond_depth", queue_enque_beyond_depth, 1},
    {"queue_tensor_not_freed", queue_tensor_not_freed, 1},
    {"pipe_reset_live_tensors", pipe_reset_live_tensors, 1},
    {"pipe_ub_alias", pipe_ub_alias, 1},
    {"ub_overlap_in_flight", ub_overlap_in_flight, 1},
    {"pipe_reset_after_free_ok", pipe_reset_after_free_ok, 1},
    {"queue_not_initialized", queue_not_initialized, 1},
    {"repeat_out_of_range", repeat_out_of_range, 1},
    {"field_out_of_range", field_out_of_range, 1},
    {"reduce_work_buffer_too_small", reduce_work_buffer_too_small, 1},
    {"flag_wait_deadlock", flag_wait_deadlock, 1},
    {"flag_set_twice", flag_set_twice, 1},
    {"flag_unpaired", flag_unpaired, 1},
    {"kernel_exception", kernel_exception, 3},
    {"block_dim_invalid", block_dim_invalid, 0},
    {"fc08_unaligned_gm_ok", fc08_unaligned_gm_ok, 2},
};

}  // namespace

int main() {
  // 256 halves of GM, registered as a host allocation (FC-06 checks against this size).
  auto* gm = static_cast<uint8_t*>(AscendC::GmAlloc(512));
  for (const Case& c : kCases) {
    ascendc_sim::LaunchResult r = ascendc_sim::run_kernel_fn(c.fn, c.name, c.block_dim, gm);
    std::printf("{\"name\":\"%s\",\"result\":%s}\n", c.name, r.to_json().c_str());
  }
  AscendC::GmFree(gm);
  return 0;
}
