// ascendc_sim/hl_elementwise.h — element-wise high-level APIs (api-reference §4.4): Sigmoid,
// Tanh, Erf, Gelu, FasterGelu, Log/Log2/Log10, Power (each also in the tensor-length form
// `Op(dst, src)` over src.GetSize() elements), Swish (x / (1 + exp(-beta x)), dataSize form only).
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

/// Checks the temporary buffer and records it as scratch written by V.
void tmp_buffer(const UbRef& tmp, uint32_t bytes, const char* api, const SrcLoc& loc);
/// Reports the basic-instruction sequence of a high-level API to the cost model.
void cost_sequence(const char* api, std::initializer_list<VecClass> seq, DType dt, uint64_t count);

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

}  // namespace AscendC
