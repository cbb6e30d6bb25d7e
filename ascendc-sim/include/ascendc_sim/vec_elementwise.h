// ascendc_sim/vec_elementwise.h — element-wise vector instructions (api-reference §4.1, §4.2):
// binary (Add Sub Mul Div Max Min And Or AddRelu SubRelu), fused (FusedMulAdd MulAddDst
// MulAddRelu), unary (Exp Ln Sqrt Abs Reciprocal Rsqrt Relu Not), tensor-scalar (Adds
// Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight), Axpy and Duplicate, each in its count,
// contiguous-mask and bit-mask form.
//
// Numerics: half and bfloat16 lanes are computed in float and rounded to the element
// type (round to nearest even) after every instruction — exact for + - * / and sqrt,
// since float carries more than twice the bits; float lanes use float arithmetic;
// integer lanes wrap. Element types outside the 910B list of each API do not compile.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ascendc_sim/core.h"
#include "ascendc_sim/tensor.h"
#include "ascendc_sim/vec_engine.h"
#include "ascendc_sim/vec_params.h"

namespace ascendc_sim::vec {

template <typename T>
using wide_t = std::conditional_t<is_float_v<T>, float, int64_t>;
template <typename T>
inline wide_t<T> widen(T v) {
  if constexpr (is_float_v<T>) {
    return to_f32(v);
  } else {
    return wide_t<T>(v);
  }
}
template <typename T>
inline T narrow(wide_t<T> v) {
  if constexpr (is_float_v<T>) {
    return from_f32<T>(v);
  } else {
    return T(v);
  }
}

/// Runs one element-wise instruction: checks, executes, propagates shadow, records cost.
template <int N, class K>
inline void run(const char* api, VecClass cls, DType dt, const Shape& sh, Opnd (&ops)[N], bool count_form,
                const SrcLoc& loc, const K& k) {
  CoreContext& c = ctx(api);
  if (dt == DType::BF16) check_bf16_soc(api, loc);
  bool any = prepare(c, sh, ops, N, api, loc);
  if (any) for_each_run(c, sh, ops, N, k, true);
  c.rec->vector(cls, dt, any ? sh.repeats : 0, count_form, any ? bank_cycles(sh, ops, N) : 0.0);
}
inline void end_count_form(const char* api) {
  CoreContext& c = ctx(api);
  c.counter_mode = false;
  c.mask[0] = c.mask[1] = ~0ull;
}

// ---- operations (on widened values) ----
struct OpAdd { template <class W> static W f(W a, W b) { return a + b; } };
struct OpSub { template <class W> static W f(W a, W b) { return a - b; } };
struct OpMul { template <class W> static W f(W a, W b) { return a * b; } };
struct OpDiv { template <class W> static W f(W a, W b) { return a / b; } };
struct OpMax { template <class W> static W f(W a, W b) { return a > b ? a : b; } };
struct OpMin { template <class W> static W f(W a, W b) { return a < b ? a : b; } };
struct OpAnd { template <class W> static W f(W a, W b) { return a & b; } };
struct OpOr { template <class W> static W f(W a, W b) { return a | b; } };
struct OpAddRelu { template <class W> static W f(W a, W b) { W s = a + b; return s > W(0) ? s : W(0); } };
struct OpSubRelu { template <class W> static W f(W a, W b) { W s = a - b; return s > W(0) ? s : W(0); } };
struct OpShl { template <class W> static W f(W a, W b) { return W(uint64_t(a) << (b & 63)); } };
struct OpShr { template <class W> static W f(W a, W b) { return a >> (b & 63); } };
struct OpLeakyRelu { template <class W> static W f(W a, W s) { return a >= W(0) ? a : a * s; } };

struct OpExp { static float f(float a) { return std::exp(a); } };
struct OpLn { static float f(float a) { return std::log(a); } };
struct OpSqrt { static float f(float a) { return std::sqrt(a); } };
struct OpAbs { template <class W> static W f(W a) { return a < W(0) ? -a : a; } };
struct OpRec { static float f(float a) { return 1.0f / a; } };
struct OpRsqrt { static float f(float a) { return 1.0f / std::sqrt(a); } };
struct OpRelu { template <class W> static W f(W a) { return a > W(0) ? a : W(0); } };
struct OpNot { template <class W> static W f(W a) { return ~a; } };

template <class T, class Op>
struct BinK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    const T* b = reinterpret_cast<const T*>(d[2]);
    for (uint64_t i = 0; i < n; i++) o[i] = narrow<T>(Op::f(widen(a[i]), widen(b[i])));
  }
};
template <class T, class Op>
struct UnK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (uint64_t i = 0; i < n; i++) o[i] = narrow<T>(wide_t<T>(Op::f(widen(a[i]))));
  }
};
template <class T, class Op>
struct ScK {
  wide_t<T> s;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (uint64_t i = 0; i < n; i++) o[i] = narrow<T>(Op::f(widen(a[i]), s));
  }
};
/// FusedMulAdd: dst = src0 * dst + src1; MulAddDst: dst = src0 * src1 + dst;
/// MulAddRelu: relu(src0 * dst + src1). One rounding of the fused result.
template <class T, int Kind>
struct FmaK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    const T* b = reinterpret_cast<const T*>(d[2]);
    for (uint64_t i = 0; i < n; i++) {
      float x = to_f32(a[i]), y = to_f32(b[i]), z = to_f32(o[i]);
      float r = Kind == 1 ? std::fma(x, y, z) : std::fma(x, z, y);
      if (Kind == 2 && !(r > 0.0f)) r = r != r ? r : 0.0f;
      o[i] = from_f32<T>(r);
    }
  }
};
template <class T>
struct DupK {
  T s;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    for (uint64_t i = 0; i < n; i++) o[i] = s;
  }
};
/// Axpy: dst(Td) += src(Ts) * scalar.
template <class Td, class Ts>
struct AxpyK {
  float s;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    Td* o = reinterpret_cast<Td*>(d[0]);
    const Ts* a = reinterpret_cast<const Ts*>(d[1]);
    for (uint64_t i = 0; i < n; i++) o[i] = from_f32<Td>(std::fma(to_f32(a[i]), s, to_f32(o[i])));
  }
};

// Kernel aliases (one template argument each, so they pass through the macros).
#define ASCENDC_SIM_K(NAME, ...) \
  template <class T>             \
  using NAME = __VA_ARGS__
ASCENDC_SIM_K(KAdd, BinK<T, OpAdd>);
ASCENDC_SIM_K(KSub, BinK<T, OpSub>);
ASCENDC_SIM_K(KMul, BinK<T, OpMul>);
ASCENDC_SIM_K(KDiv, BinK<T, OpDiv>);
ASCENDC_SIM_K(KMax, BinK<T, OpMax>);
ASCENDC_SIM_K(KMin, BinK<T, OpMin>);
ASCENDC_SIM_K(KAnd, BinK<T, OpAnd>);
ASCENDC_SIM_K(KOr, BinK<T, OpOr>);
ASCENDC_SIM_K(KAddRelu, BinK<T, OpAddRelu>);
ASCENDC_SIM_K(KSubRelu, BinK<T, OpSubRelu>);
ASCENDC_SIM_K(KFusedMulAdd, FmaK<T, 0>);
ASCENDC_SIM_K(KMulAddDst, FmaK<T, 1>);
ASCENDC_SIM_K(KMulAddRelu, FmaK<T, 2>);
#undef ASCENDC_SIM_K

inline Opnd od(const UbRef& r, const char* role, uint32_t es, uint32_t blk, uint32_t rep, bool write) {
  Opnd o;
  o.t = r;
  o.role = role;
  o.esize = es;
  o.blk = blk;
  o.rep = rep;
  o.write = write;
  return o;
}

}  // namespace ascendc_sim::vec

#define ASCENDC_SIM_LOC ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()

// Binary instruction NAME with kernel KERNEL over (dst, src0, src1); `dst_reads` adds dst as
// a source of the shadow (fused forms). TYPES: the element types 910B supports.
#define ASCENDC_SIM_BINARY(NAME, KERNEL, CLS, DST_READS, ...)                                                       \
  template <typename T>                                                                                             \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                   const int32_t& count, ASCENDC_SIM_LOC) {                                                         \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    uint64_t n = check_count(count, #NAME, loc);                                                                    \
    if constexpr (DST_READS) {                                                                                      \
      Opnd ops[4] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src0.ref(), "src0", sizeof(T), 1, 8, false), \
                     od(src1.ref(), "src1", sizeof(T), 1, 8, false), od(dst.ref(), "dst", sizeof(T), 1, 8, false)}; \
      run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops, true,   \
          loc, KERNEL<T>{});                                                                                           \
    } else {                                                                                                        \
      Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src0.ref(), "src0", sizeof(T), 1, 8, false), \
                     od(src1.ref(), "src1", sizeof(T), 1, 8, false)};                                               \
      run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops, true,   \
          loc, KERNEL<T>{});                                                                                           \
    }                                                                                                               \
    end_count_form(#NAME);                                                                                          \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME##_sim_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                                const ascendc_sim::vec::Shape& sh, const BinaryRepeatParams& p,                    \
                                const ascendc_sim::SrcLoc& loc) {                                                   \
    using namespace ascendc_sim::vec;                                                                               \
    if constexpr (DST_READS) {                                                                                      \
      Opnd ops[4] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                        \
                     od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),                   \
                     od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false),                   \
                     od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, false)};                      \
      run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, sh, ops, false, loc, KERNEL<T>{});              \
    } else {                                                                                                        \
      Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                        \
                     od(src0.ref(), "src0", sizeof(T), p.src0BlkStride, p.src0RepStride, false),                   \
                     od(src1.ref(), "src1", sizeof(T), p.src1BlkStride, p.src1RepStride, false)};                  \
      run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, sh, ops, false, loc, KERNEL<T>{});              \
    }                                                                                                               \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                   uint64_t mask, ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p, ASCENDC_SIM_LOC) {    \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    NAME##_sim_masked<T, isSetMask>(dst, src0, src1, mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), \
                                    p, loc);                                                                        \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                   const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const BinaryRepeatParams& p,               \
                   ASCENDC_SIM_LOC) {                                                                               \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    NAME##_sim_masked<T, isSetMask>(dst, src0, src1, bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), \
                                    p, loc);                                                                        \
  }

// Unary instruction NAME (dst, src).
#define ASCENDC_SIM_UNARY(NAME, OP, CLS, ...)                                                                       \
  template <typename T>                                                                                             \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, ASCENDC_SIM_LOC) {  \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    uint64_t n = check_count(count, #NAME, loc);                                                                    \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src.ref(), "src", sizeof(T), 1, 8, false)};     \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops, true,     \
        loc, UnK<T, OP>{});                                                                                         \
    end_count_form(#NAME);                                                                                          \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                           \
                   ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {                    \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                          \
                   od(src.ref(), "src", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};                        \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>,                                                 \
        mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), ops, false, loc, UnK<T, OP>{});            \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                   \
                   ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {                    \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                          \
                   od(src.ref(), "src", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};                        \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>,                                                 \
        bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), ops, false, loc, UnK<T, OP>{});            \
  }

// Tensor-scalar instruction NAME (dst, src, scalar).
#define ASCENDC_SIM_SCALAR(NAME, OP, CLS, ...)                                                                      \
  template <typename T>                                                                                             \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                    \
                   const int32_t& count, ASCENDC_SIM_LOC) {                                                         \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    uint64_t n = check_count(count, #NAME, loc);                                                                    \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src.ref(), "src", sizeof(T), 1, 8, false)};     \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops, true,     \
        loc, ScK<T, OP>{widen(scalarValue)});                                                                       \
    end_count_form(#NAME);                                                                                          \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,     \
                   ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {                    \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                          \
                   od(src.ref(), "src", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};                        \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>,                                                 \
        mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), ops, false, loc,                           \
        ScK<T, OP>{widen(scalarValue)});                                                                            \
  }                                                                                                                 \
  template <typename T, bool isSetMask = true>                                                                      \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                    \
                   const uint64_t mask[], ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p,                \
                   ASCENDC_SIM_LOC) {                                                                               \
    static_assert(ascendc_sim::is_one_of_v<T, __VA_ARGS__>, #NAME ": element type not supported on Ascend910B");    \
    using namespace ascendc_sim::vec;                                                                               \
    auto& c = ascendc_sim::ctx(#NAME);                                                                              \
    uint32_t r = check_repeat(repeatTime.raw, #NAME, loc);                                                          \
    Opnd ops[2] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),                          \
                   od(src.ref(), "src", sizeof(T), p.srcBlkStride, p.srcRepStride, false)};                        \
    run(#NAME, ascendc_sim::VecClass::CLS, ascendc_sim::dtype_v<T>,                                                 \
        bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, #NAME, loc), ops, false, loc,                           \
        ScK<T, OP>{widen(scalarValue)});                                                                            \
  }

namespace AscendC {

#define ASCENDC_SIM_ARITH half, float, int16_t, int32_t
ASCENDC_SIM_BINARY(Add, KAdd, Simple, false, ASCENDC_SIM_ARITH)
ASCENDC_SIM_BINARY(Sub, KSub, Simple, false, ASCENDC_SIM_ARITH)
ASCENDC_SIM_BINARY(Mul, KMul, Simple, false, ASCENDC_SIM_ARITH)
ASCENDC_SIM_BINARY(Max, KMax, Simple, false, ASCENDC_SIM_ARITH)
ASCENDC_SIM_BINARY(Min, KMin, Simple, false, ASCENDC_SIM_ARITH)
ASCENDC_SIM_BINARY(Div, KDiv, Div, false, half, float)
ASCENDC_SIM_BINARY(And, KAnd, Simple, false, int16_t, uint16_t)
ASCENDC_SIM_BINARY(Or, KOr, Simple, false, int16_t, uint16_t)
ASCENDC_SIM_BINARY(AddRelu, KAddRelu, Simple, false, half, float, int16_t)
ASCENDC_SIM_BINARY(SubRelu, KSubRelu, Simple, false, half, float, int16_t)
ASCENDC_SIM_BINARY(FusedMulAdd, KFusedMulAdd, Simple, true, half, float)
ASCENDC_SIM_BINARY(MulAddDst, KMulAddDst, MulAddDst, true, half, float)
ASCENDC_SIM_BINARY(MulAddRelu, KMulAddRelu, Simple, true, half, float)
ASCENDC_SIM_BINARY(FusedMulAddRelu, KMulAddRelu, Simple, true, half, float)

ASCENDC_SIM_UNARY(Exp, OpExp, Transcend, half, float)
ASCENDC_SIM_UNARY(Ln, OpLn, Transcend, half, float)
ASCENDC_SIM_UNARY(Sqrt, OpSqrt, Transcend, half, float)
ASCENDC_SIM_UNARY(Abs, OpAbs, Simple, half, float)
ASCENDC_SIM_UNARY(Reciprocal, OpRec, Simple, half, float)
ASCENDC_SIM_UNARY(Rsqrt, OpRsqrt, Simple, half, float)
ASCENDC_SIM_UNARY(Relu, OpRelu, Simple, half, float, int32_t)
ASCENDC_SIM_UNARY(Not, OpNot, Simple, int16_t, uint16_t)

ASCENDC_SIM_SCALAR(Adds, OpAdd, Simple, ASCENDC_SIM_ARITH)
ASCENDC_SIM_SCALAR(Muls, OpMul, Simple, ASCENDC_SIM_ARITH)
ASCENDC_SIM_SCALAR(Maxs, OpMax, Simple, ASCENDC_SIM_ARITH)
ASCENDC_SIM_SCALAR(Mins, OpMin, Simple, ASCENDC_SIM_ARITH)
ASCENDC_SIM_SCALAR(LeakyRelu, OpLeakyRelu, Simple, half, float)
ASCENDC_SIM_SCALAR(ShiftLeft, OpShl, Simple, int16_t, uint16_t, int32_t, uint32_t)
ASCENDC_SIM_SCALAR(ShiftRight, OpShr, Simple, int16_t, uint16_t, int32_t, uint32_t)

// ---- Duplicate ----
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count, ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Duplicate: 16- and 32-bit element types only");
  using namespace ascendc_sim::vec;
  uint64_t n = check_count(count, "Duplicate", loc);
  Opnd ops[1] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true)};
  run("Duplicate", ascendc_sim::VecClass::Duplicate, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops,
      true, loc, DupK<T>{scalarValue});
  end_count_form("Duplicate");
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, ascendc_sim::U8Arg repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Duplicate: 16- and 32-bit element types only");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Duplicate");
  uint32_t r = check_repeat(repeatTime.raw, "Duplicate", loc);
  Opnd ops[1] = {od(dst.ref(), "dst", sizeof(T), dstBlockStride, dstRepeatStride, true)};
  run("Duplicate", ascendc_sim::VecClass::Duplicate, ascendc_sim::dtype_v<T>,
      mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Duplicate", loc), ops, false, loc, DupK<T>{scalarValue});
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const uint64_t mask[],
                      ascendc_sim::U8Arg repeatTime, const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                      ASCENDC_SIM_LOC) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Duplicate: 16- and 32-bit element types only");
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Duplicate");
  uint32_t r = check_repeat(repeatTime.raw, "Duplicate", loc);
  Opnd ops[1] = {od(dst.ref(), "dst", sizeof(T), dstBlockStride, dstRepeatStride, true)};
  run("Duplicate", ascendc_sim::VecClass::Duplicate, ascendc_sim::dtype_v<T>,
      bits_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Duplicate", loc), ops, false, loc, DupK<T>{scalarValue});
}

// ---- Axpy: dst += src * scalar (half->half, float->float, half->float) ----
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
                 ASCENDC_SIM_LOC) {
  static_assert((std::is_same_v<T, half> && std::is_same_v<U, half>) ||
                    (std::is_same_v<T, float> && std::is_same_v<U, float>) ||
                    (std::is_same_v<T, float> && std::is_same_v<U, half>),
                "Axpy: supported (dst, src) types are (half, half), (float, float), (float, half)");
  using namespace ascendc_sim::vec;
  uint64_t n = check_count(count, "Axpy", loc);
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), 1, 8, true), od(src.ref(), "src", sizeof(U), 1, 8 * sizeof(U) / sizeof(T), false),
                 od(dst.ref(), "dst", sizeof(T), 1, 8, false)};
  run("Axpy", ascendc_sim::VecClass::Simple, ascendc_sim::dtype_v<T>, count_shape(n, 256 / sizeof(T)), ops, true, loc,
      AxpyK<T, U>{ascendc_sim::to_f32(scalarValue)});
  end_count_form("Axpy");
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                 ascendc_sim::U8Arg repeatTime, const UnaryRepeatParams& p, ASCENDC_SIM_LOC) {
  using namespace ascendc_sim::vec;
  auto& c = ascendc_sim::ctx("Axpy");
  uint32_t r = check_repeat(repeatTime.raw, "Axpy", loc);
  Opnd ops[3] = {od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, true),
                 od(src.ref(), "src", sizeof(U), p.srcBlkStride, p.srcRepStride, false),
                 od(dst.ref(), "dst", sizeof(T), p.dstBlkStride, p.dstRepStride, false)};
  run("Axpy", ascendc_sim::VecClass::Simple, ascendc_sim::dtype_v<T>,
      mask_shape(c, mask, r, 256 / sizeof(T), isSetMask, "Axpy", loc), ops, false, loc,
      AxpyK<T, U>{ascendc_sim::to_f32(scalarValue)});
}

}  // namespace AscendC
