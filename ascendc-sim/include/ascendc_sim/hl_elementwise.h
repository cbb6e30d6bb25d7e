// ascendc_sim/hl_elementwise.h — element-wise high-level APIs (api-reference §4.4): Sigmoid,
// Tanh, Erf, Gelu, FasterGelu, Log/Log2/Log10, Power (each also in the tensor-length form
// `Op(dst, src)` over src.GetSize() elements), Swish (x / (1 + exp(-beta x)), dataSize form only),
// Silu (Swish with beta 1, dataSize form only),
// and the gated units SwiGLU (src0 * swish(src1)) and GeGLU (src0 * gelu(src1)), each in its
// four forms (with or without sharedTmpBuffer, with or without a count).
//
// On the NPU these are sequences of basic vector instructions using `sharedTmpBuffer` (or
// UB the framework reserves). The simulator evaluates each element in float and rounds
// once to the element type — within the documented fp16/fp32 tolerances of the composed
// sequence, not bit-identical to it — and reports the sequence's instructions to the cost
// model. The temporary buffer is checked (allocated, not freed, inside UB) and counted as
// written by V; its size is not checked (the host-side size formulas are not published).
#pragma once

#include <cmath>
#include <cstdint>

#include "ascendc_sim/vec_elementwise.h"

namespace ascendc_sim::hl {

struct Sigmoid { static float f(float x) { return 1.0f / (1.0f + std::exp(-x)); } };
struct Tanh { static float f(float x) { return std::tanh(x); } };
struct Erf { static float f(float x) { return std::erf(x); } };
/// Log / Log2 / Log10 (CANN high-level math API "Log"): Ln, then a Muls by 1/ln(b).
struct Log { static float f(float x) { return std::log(x); } };
struct Log2 { static float f(float x) { return std::log2(x); } };
struct Log10 { static float f(float x) { return std::log10(x); } };
/// Gelu (tanh form written with exp): x / (1 + exp(-sqrt(8/pi) (x + 0.044715 x^3))).
struct Gelu {
  static float f(float x) { return x / (1.0f + std::exp(-1.5957691216057308f * (x + 0.044715f * x * x * x))); }
};
/// FasterGelu: x * exp(0.851 (x - |x|)) / (1 + exp(-1.702 |x|)).
struct FasterGelu {
  static float f(float x) {
    float a = std::fabs(x);
    return x * std::exp(0.851f * (x - a)) / (1.0f + std::exp(-1.702f * a));
  }
};

template <class T, class Op>
struct HlUnaryK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (uint64_t i = 0; i < n; i++) o[i] = from_f32<T>(Op::f(to_f32(a[i])));
  }
};
/// Checks the temporary buffer and records it as scratch written by V.
void tmp_buffer(const UbRef& tmp, uint32_t bytes, const char* api, const SrcLoc& loc);
/// Reports the basic-instruction sequence of a high-level API to the cost model.
void cost_sequence(const char* api, std::initializer_list<VecClass> seq, DType dt, uint64_t count);
/// Swish(x) = x / (1 + exp(-beta x)) (vendor page "Swish"; its Atlas A2 implementation
/// issues Muls by -beta, Exp, Adds 1, Div src by that, in counter mode over dataSize).
template <class T>
struct SwishK {
  float beta;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (uint64_t i = 0; i < n; i++) {
      const float x = to_f32(a[i]);
      o[i] = from_f32<T>(x / (1.0f + std::exp(-beta * x)));
    }
  }
};
/// The page forbids src/dst overlap (in place too: the sequence overwrites dst before its
/// Div reads src): any overlap of the two `count`-element footprints is `vector_overlap`
/// (checked after both footprints are inside their buffers).
void no_overlap(const UbRef& dst, const UbRef& src, uint64_t bytes, const char* api, const SrcLoc& loc);

/// SwiGLU: o = a0 * swish(a1), swish(x) = x / (1 + exp(-beta x)) (vendor header
/// adv_api/activation/swiglu.h and its Atlas A2 implementation: srcTensor1 is the gated
/// operand, srcTensor0 multiplies it; half is computed in float).
template <class T>
struct SwiGluK {
  float beta;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a0 = reinterpret_cast<const T*>(d[1]);
    const T* a1 = reinterpret_cast<const T*>(d[2]);
    for (uint64_t i = 0; i < n; i++) {
      const float x = to_f32(a1[i]);
      o[i] = from_f32<T>(to_f32(a0[i]) * (x / (1.0f + std::exp(-beta * x))));
    }
  }
};
/// GeGLU: o = a0 * gelu(a1), gelu in its tanh form written with exp,
/// x / (1 + exp(c0 x (x^2 + c1))), c0 = -0.0713548162726 (= -2 sqrt(2/pi) 0.044715),
/// c1 = 22.363860002236 (= 1 / 0.044715) (the vendor's Atlas A2 implementation,
/// adv_api/activation/geglu.h: "x1 * GeLU(x2), x1 is src0, x2 is src1"; half in float).
template <class T>
struct GeGluK {
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a0 = reinterpret_cast<const T*>(d[1]);
    const T* a1 = reinterpret_cast<const T*>(d[2]);
    for (uint64_t i = 0; i < n; i++) {
      const float x = to_f32(a1[i]);
      const float g = x / (1.0f + std::exp(-0.0713548162726f * x * (x * x + 22.363860002236f)));
      o[i] = from_f32<T>(to_f32(a0[i]) * g);
    }
  }
};
/// The argument checks shared by SwiGLU and GeGLU (their implementations' own asserts):
/// src0 and src1 of one size and the count within every tensor (`field_out_of_range`); for
/// SwiGLU (`aligned_count`) a non-zero count of whole 32-byte blocks (`ub_misaligned`); for
/// float, dst overlapping a source is `vector_overlap` (the float sequence writes dst before
/// it reads the sources again; half goes through sharedTmpBuffer and casts into dst last);
/// for half with a sharedTmpBuffer, at least `tmp_per_elem` bytes for each element of one
/// 32-byte block (smaller and the vendor's loop writes past the buffer or never advances:
/// `ub_out_of_range`).
void glu_checks(const char* api, const UbRef& dst, const UbRef& src0, const UbRef& src1, uint32_t dst_size,
                uint32_t src0_size, uint32_t src1_size, uint32_t count, uint32_t esize, bool aligned_count,
                bool has_tmp, uint32_t tmp_bytes, uint32_t tmp_per_elem, const SrcLoc& loc);

template <class T, class K>
inline void glu_run(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                    const AscendC::LocalTensor<T>& src1, const AscendC::LocalTensor<uint8_t>* tmp, uint32_t count,
                    bool aligned_count, uint32_t tmp_per_elem, std::initializer_list<VecClass> seq_f32,
                    std::initializer_list<VecClass> seq_f16, const K& k, const SrcLoc& loc) {
  static_assert(is_one_of_v<T, half, float>, "SwiGLU/GeGLU: element type must be half or float");
  const uint32_t tmp_bytes = tmp ? tmp->GetSize() : 0;
  glu_checks(api, dst.ref(), src0.ref(), src1.ref(), dst.GetSize(), src0.GetSize(), src1.GetSize(), count,
             sizeof(T), aligned_count, tmp != nullptr, tmp_bytes, tmp_per_elem, loc);
  if (tmp) tmp_buffer(tmp->ref(), tmp_bytes, api, loc);
  CoreContext& c = ctx(api);
  vec::Opnd ops[3] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src0.ref(), "src0", sizeof(T), 1, 8, false),
                      vec::od(src1.ref(), "src1", sizeof(T), 1, 8, false)};
  vec::Shape sh = vec::count_shape(count, 256 / sizeof(T));
  if (vec::prepare(c, sh, ops, 3, api, loc)) vec::for_each_run(c, sh, ops, 3, k, true);
  // half runs the sequence in float (64 lanes a repeat), with its casts.
  if (sizeof(T) == sizeof(half)) {
    cost_sequence(api, seq_f16, DType::F32, count);
  } else {
    cost_sequence(api, seq_f32, DType::F32, count);
  }
}

/// SwiGLU's one body (every form): its checks, kernel and instruction sequences (float:
/// Muls, Exp, Adds, Div, Mul; half adds three Casts).
template <class T>
inline void swiglu(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                   const AscendC::LocalTensor<T>& src1, float beta, const AscendC::LocalTensor<uint8_t>* tmp,
                   uint32_t count, const SrcLoc& loc) {
  using V = VecClass;
  glu_run<T>("SwiGLU", dst, src0, src1, tmp, count, true, 12,
             {V::Simple, V::Transcend, V::Simple, V::Div, V::Simple},
             {V::Simple, V::Simple, V::Transcend, V::Simple, V::Div, V::Simple, V::Simple, V::Simple},
             SwiGluK<T>{beta}, loc);
}
/// GeGLU's one body (every form): float Mul, Adds, Mul, Muls, Exp, Adds, Div, Mul; half adds
/// three Casts.
template <class T>
inline void geglu(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                  const AscendC::LocalTensor<T>& src1, const AscendC::LocalTensor<uint8_t>* tmp, uint32_t count,
                  const SrcLoc& loc) {
  using V = VecClass;
  glu_run<T>("GeGLU", dst, src0, src1, tmp, count, false, 8,
             {V::Simple, V::Simple, V::Simple, V::Simple, V::Transcend, V::Simple, V::Div, V::Simple},
             {V::Simple, V::Simple, V::Simple, V::Simple, V::Simple, V::Transcend, V::Simple, V::Div, V::Simple,
              V::Simple, V::Simple},
             GeGluK<T>{}, loc);
}

/// Power with tensor/scalar operands: mode 0 tensor^tensor, 1 tensor^scalar, 2 scalar^tensor.
template <class T, int Mode>
struct PowK {
  float s;
  void operator()(uint8_t* const* d, uint8_t* const*, uint64_t n) const {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (uint64_t i = 0; i < n; i++) {
      float x = to_f32(a[i]);
      float y = Mode == 0 ? to_f32(reinterpret_cast<const T*>(d[2])[i]) : s;
      o[i] = from_f32<T>(Mode == 2 ? std::pow(s, x) : std::pow(x, y));
    }
  }
};


template <class T, class Op, int N, class K>
inline void run_hl(const char* api, std::initializer_list<VecClass> seq, vec::Opnd (&ops)[N], uint64_t count,
                   const K& k, const SrcLoc& loc) {
  CoreContext& c = ctx(api);
  vec::Shape sh = vec::count_shape(count, 256 / sizeof(T));
  if (vec::prepare(c, sh, ops, N, api, loc)) vec::for_each_run(c, sh, ops, N, k, true);
  cost_sequence(api, seq, dtype_v<T>, count);
}

}  // namespace ascendc_sim::hl

#define ASCENDC_SIM_HL_UNARY(NAME, OP, SEQ, ...)                                                                   \
  template <typename T, __VA_ARGS__>                                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                   const uint32_t calCount, ASCENDC_SIM_LOC) {                                                    \
    static_assert(ascendc_sim::is_one_of_v<T, half, float>, #NAME ": element type not supported on Ascend910B");  \
    using namespace ascendc_sim;                                                                                  \
    hl::tmp_buffer(sharedTmpBuffer.ref(), sharedTmpBuffer.GetSize(), #NAME, loc);                                 \
    vec::Opnd ops[2] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src.ref(), "src", sizeof(T), 1, 8, false)}; \
    hl::run_hl<T, hl::OP>(#NAME, SEQ, ops, calCount, hl::HlUnaryK<T, hl::OP>{}, loc);                               \
  }                                                                                                               \
  template <typename T, __VA_ARGS__>                                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, ASCENDC_SIM_LOC) { \
    static_assert(ascendc_sim::is_one_of_v<T, half, float>, #NAME ": element type not supported on Ascend910B");  \
    using namespace ascendc_sim;                                                                                  \
    vec::Opnd ops[2] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src.ref(), "src", sizeof(T), 1, 8, false)}; \
    hl::run_hl<T, hl::OP>(#NAME, SEQ, ops, calCount, hl::HlUnaryK<T, hl::OP>{}, loc);                               \
  }                                                                                                               \
  /* Tensor-length form: every element of src (src.GetSize()). */                                                 \
  template <typename T, __VA_ARGS__>                                                                              \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, ASCENDC_SIM_LOC) {                      \
    NAME<T>(dst, src, src.GetSize(), loc);                                                                        \
  }

#define ASCENDC_SIM_SEQ(...) (std::initializer_list<ascendc_sim::VecClass>{__VA_ARGS__})
#define ASCENDC_SIM_S ascendc_sim::VecClass::Simple
#define ASCENDC_SIM_T ascendc_sim::VecClass::Transcend
#define ASCENDC_SIM_D ascendc_sim::VecClass::Div

namespace AscendC {

ASCENDC_SIM_HL_UNARY(Sigmoid, Sigmoid, ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_D),
                     bool isReuseSource = false)
ASCENDC_SIM_HL_UNARY(Tanh, Tanh,
                     ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_D),
                     bool isReuseSource = false)
ASCENDC_SIM_HL_UNARY(Erf, Erf,
                     ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S,
                                     ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_D),
                     bool isReuseSource = false)
ASCENDC_SIM_HL_UNARY(Gelu, Gelu,
                     ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_S,
                                     ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_D),
                     bool highPrecision = false, bool highPerformance = false)
ASCENDC_SIM_HL_UNARY(FasterGelu, FasterGelu,
                     ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_S, ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_T,
                                     ASCENDC_SIM_S, ASCENDC_SIM_D),
                     bool highPrecision = false, bool highPerformance = false)

ASCENDC_SIM_HL_UNARY(Log, Log, ASCENDC_SIM_SEQ(ASCENDC_SIM_T), bool isReuseSource = false)
ASCENDC_SIM_HL_UNARY(Log2, Log2, ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S), bool isReuseSource = false)
ASCENDC_SIM_HL_UNARY(Log10, Log10, ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S), bool isReuseSource = false)

/// Power: dst = src0 ^ src1 (tensor, tensor).
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Power: element type not supported on Ascend910B");
  using namespace ascendc_sim;
  hl::tmp_buffer(sharedTmpBuffer.ref(), sharedTmpBuffer.GetSize(), "Power", loc);
  vec::Opnd ops[3] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src0.ref(), "src0", sizeof(T), 1, 8, false),
                      vec::od(src1.ref(), "src1", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Power", ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_T), ops, calCount,
                      hl::PowK<T, 0>{0.0f}, loc);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const uint32_t calCount, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Power: element type not supported on Ascend910B");
  using namespace ascendc_sim;
  vec::Opnd ops[3] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src0.ref(), "src0", sizeof(T), 1, 8, false),
                      vec::od(src1.ref(), "src1", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Power", ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_T), ops, calCount,
                      hl::PowK<T, 0>{0.0f}, loc);
}
/// Power: dst = src0 ^ scalar.
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar, const uint32_t calCount,
                  ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Power: element type not supported on Ascend910B");
  using namespace ascendc_sim;
  vec::Opnd ops[2] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src0.ref(), "src0", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Power", ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_T), ops, calCount,
                      hl::PowK<T, 1>{to_f32(src1Scalar)}, loc);
}
/// Power: dst = scalar ^ src1.
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1, const uint32_t calCount,
                  ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Power: element type not supported on Ascend910B");
  using namespace ascendc_sim;
  vec::Opnd ops[2] = {vec::od(dst.ref(), "dst", sizeof(T), 1, 8, true), vec::od(src1.ref(), "src1", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Power", ASCENDC_SIM_SEQ(ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_T), ops, calCount,
                      hl::PowK<T, 2>{to_f32(src0Scalar)}, loc);
}

/// Swish: dst = src / (1 + exp(-scalarValue * src)) over dataSize elements (vendor page
/// "Swish": half/float, no temporary buffer, no src/dst overlap, dataSize within both
/// tensors). Costed as Muls, Exp, Adds, Div.
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
                  const T& scalarValue, ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Swish: element type must be half or float");
  using namespace ascendc_sim;
  hl::no_overlap(dstLocal.ref(), srcLocal.ref(), uint64_t(dataSize) * sizeof(T), "Swish", loc);
  vec::Opnd ops[2] = {vec::od(dstLocal.ref(), "dst", sizeof(T), 1, 8, true),
                      vec::od(srcLocal.ref(), "src", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Swish", ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_D), ops, dataSize,
                      hl::SwishK<T>{to_f32(scalarValue)}, loc);
}

/// Silu: dst = src / (1 + exp(-src)) = src * sigmoid(src) over dataSize elements (vendor
/// page "Silu" and header adv_api/activation/silu.h: half/float, only this dataSize form,
/// no temporary buffer, src/dst overlap not supported, dataSize within both tensors). The
/// Atlas A2 implementation issues Swish's sequence with beta 1 (Muls by -1, Exp, Adds 1,
/// Div src by that), so it shares Swish's kernel, checks and cost.
template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
                 ASCENDC_SIM_LOC) {
  static_assert(ascendc_sim::is_one_of_v<T, half, float>, "Silu: element type must be half or float");
  using namespace ascendc_sim;
  hl::no_overlap(dstLocal.ref(), srcLocal.ref(), uint64_t(dataSize) * sizeof(T), "Silu", loc);
  vec::Opnd ops[2] = {vec::od(dstLocal.ref(), "dst", sizeof(T), 1, 8, true),
                      vec::od(srcLocal.ref(), "src", sizeof(T), 1, 8, false)};
  hl::run_hl<T, void>("Silu", ASCENDC_SIM_SEQ(ASCENDC_SIM_S, ASCENDC_SIM_T, ASCENDC_SIM_S, ASCENDC_SIM_D), ops, dataSize,
                      hl::SwishK<T>{1.0f}, loc);
}

/// SwiGLU: dst = src0 * swish(src1), swish(x) = x / (1 + exp(-scalarValue x)) (vendor
/// header adv_api/activation/swiglu.h, Atlas A2 implementation; facts only). half or float;
/// calCount (default src0.GetSize()) a non-zero number of whole 32-byte blocks; src0 and src1
/// of one size; half needs sharedTmpBuffer of at least 3 floats per element of a 32-byte
/// block (192 bytes; it runs in rounds of as many elements as the buffer holds); float may
/// not write dst over a source. Costed as Muls, Exp, Adds, Div, Mul (half: with three Casts).
template <typename T, bool isReuseSource = false>
inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                   ASCENDC_SIM_LOC) {
  ascendc_sim::hl::swiglu<T>(dstTensor, srcTensor0, srcTensor1, scalarValue, &sharedTmpBuffer, calCount, loc);
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer, ASCENDC_SIM_LOC) {
  SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, sharedTmpBuffer, srcTensor0.GetSize(),
                           loc);
}
/// The framework-allocated forms: the temporary space is not size-checked.
template <typename T, bool isReuseSource = false>
inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::swiglu<T>(dstTensor, srcTensor0, srcTensor1, scalarValue, nullptr, calCount, loc);
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, ASCENDC_SIM_LOC) {
  SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, srcTensor0.GetSize(), loc);
}

/// GeGLU: dst = src0 * gelu(src1), gelu(x) = x / (1 + exp(-0.0713548 x (x^2 + 22.36386)))
/// (vendor header adv_api/activation/geglu.h, Atlas A2 implementation; facts only). half or
/// float; calCount (default src0.GetSize()) within every tensor; src0 and src1 of one size;
/// half needs sharedTmpBuffer of at least 2 floats per element of a 32-byte block (128
/// bytes); float may not write dst over a source. Costed as Mul, Adds, Mul, Muls, Exp, Adds,
/// Div, Mul (half: with three Casts).
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                  const LocalTensor<T>& srcTensor1, const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
                  ASCENDC_SIM_LOC) {
  ascendc_sim::hl::geglu<T>(dstTensor, srcTensor0, srcTensor1, &sharedTmpBuffer, calCount, loc);
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                  const LocalTensor<T>& srcTensor1, uint32_t calCount, ASCENDC_SIM_LOC) {
  ascendc_sim::hl::geglu<T>(dstTensor, srcTensor0, srcTensor1, nullptr, calCount, loc);
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                  const LocalTensor<T>& srcTensor1, const LocalTensor<uint8_t>& sharedTmpBuffer, ASCENDC_SIM_LOC) {
  GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, srcTensor0.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                  const LocalTensor<T>& srcTensor1, ASCENDC_SIM_LOC) {
  GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, srcTensor0.GetSize(), loc);
}

}  // namespace AscendC
