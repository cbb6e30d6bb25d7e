// The `aclrtlaunch_<kernel>` launchers of the test kernels, in the form agenticcann-build
// generates for the simulator: a C entry point per kernel whose body is one
// ASCENDC_SIM_LAUNCH line. Every argument is a `void*`; the tiling struct comes as a pointer
// to the host's copy and is passed to the kernel by value. The tiling structs repeat the
// kernels' definitions exactly.
#include "acl/acl.h"
#include "kernel_operator.h"

struct AddTiling { uint32_t totalLength; uint32_t tileLength; };
struct LeakyReluTiling { uint32_t totalLength; uint32_t tileLength; float alpha; };
struct CastTiling { uint32_t totalLength; uint32_t tileLength; };
struct AbsTiling { uint32_t totalLength; };
struct ReduceRowsTiling { uint32_t rows; uint32_t cols; };
struct WholeMaxTiling { uint32_t rows; uint32_t cols; };
struct SoftmaxTiling { uint32_t rows; uint32_t cols; };
struct RmsNormRowsTiling { uint32_t rows; uint32_t cols; float eps; };
struct LayerNormRowsTiling { uint32_t rows; uint32_t cols; float eps; };
struct AddRmsNormTiling { uint32_t rows; uint32_t cols; float eps; };
struct BiasAddTiling { uint32_t rows; uint32_t cols; uint32_t tileRows; };
struct GeluTiling { uint32_t totalLength; uint32_t tileLength; };
struct SwiGluTiling { uint32_t totalLength; uint32_t tileLength; };
struct ReluSelectTiling { uint32_t totalLength; uint32_t tileLength; };
struct ScaleTiling { uint32_t totalLength; uint32_t tileLength; float scale; };
struct PadRowsTiling { uint32_t rows; uint32_t rank; };

extern "C" {
__global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling t);
__global__ __aicore__ void leaky_relu(GM_ADDR x, GM_ADDR y, LeakyReluTiling t);
__global__ __aicore__ void cast_f16_f32(GM_ADDR x, GM_ADDR y, CastTiling t);
__global__ __aicore__ void cast_f32_f16(GM_ADDR x, GM_ADDR y, CastTiling t);
__global__ __aicore__ void abs_unaligned(GM_ADDR x, GM_ADDR y, AbsTiling t);
__global__ __aicore__ void reduce_sum_rows(GM_ADDR x, GM_ADDR y, ReduceRowsTiling t);
__global__ __aicore__ void whole_reduce_max(GM_ADDR x, GM_ADDR y, WholeMaxTiling t);
__global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, SoftmaxTiling t);
__global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, RmsNormRowsTiling t);
__global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, LayerNormRowsTiling t);
__global__ __aicore__ void add_rms_norm(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR xsum,
                                        AddRmsNormTiling t);
__global__ __aicore__ void bias_add_rows(GM_ADDR x, GM_ADDR bias, GM_ADDR y, BiasAddTiling t);
__global__ __aicore__ void gelu_tanh(GM_ADDR x, GM_ADDR y, GeluTiling t);
__global__ __aicore__ void swiglu(GM_ADDR gate, GM_ADDR up, GM_ADDR y, SwiGluTiling t);
__global__ __aicore__ void relu_select(GM_ADDR x, GM_ADDR y, ReluSelectTiling t);
__global__ __aicore__ void scale_flags(GM_ADDR x, GM_ADDR y, ScaleTiling t);
__global__ __aicore__ void pad_rows_fc08(GM_ADDR x, GM_ADDR y, PadRowsTiling t);
}

#define LAUNCHER2(k) \
  extern "C" uint32_t aclrtlaunch_##k(uint32_t blockDim, aclrtStream stream, void* a0, void* a1, void* tiling) { \
    return ASCENDC_SIM_LAUNCH(k, blockDim, stream, a0, a1, tiling);                                            \
  }
#define LAUNCHER3(k)                                                                                             \
  extern "C" uint32_t aclrtlaunch_##k(uint32_t blockDim, aclrtStream stream, void* a0, void* a1, void* a2,     \
                                      void* tiling) {                                                          \
    return ASCENDC_SIM_LAUNCH(k, blockDim, stream, a0, a1, a2, tiling);                                        \
  }

// add_custom's launcher uses CANN's direct-launch macro with the kernel function itself.
extern "C" uint32_t aclrtlaunch_add_custom(uint32_t blockDim, aclrtStream stream, void* x, void* y, void* z,
                                          void* tiling) {
  return ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, x, y, z, tiling);
}
LAUNCHER2(leaky_relu)
LAUNCHER2(cast_f16_f32)
LAUNCHER2(cast_f32_f16)
LAUNCHER2(abs_unaligned)
LAUNCHER2(reduce_sum_rows)
LAUNCHER2(whole_reduce_max)
LAUNCHER2(softmax_rows)
LAUNCHER3(rms_norm)
LAUNCHER3(bias_add_rows)
LAUNCHER2(gelu_tanh)
LAUNCHER3(swiglu)
LAUNCHER2(relu_select)
LAUNCHER2(scale_flags)
LAUNCHER2(pad_rows_fc08)

extern "C" uint32_t aclrtlaunch_layer_norm(uint32_t blockDim, aclrtStream stream, void* x, void* gamma, void* beta,
                                           void* y, void* tiling) {
  return ASCENDC_SIM_LAUNCH(layer_norm, blockDim, stream, x, gamma, beta, y, tiling);
}
extern "C" uint32_t aclrtlaunch_add_rms_norm(uint32_t blockDim, aclrtStream stream, void* x1, void* x2, void* gamma,
                                             void* y, void* xsum, void* tiling) {
  return ASCENDC_SIM_LAUNCH(add_rms_norm, blockDim, stream, x1, x2, gamma, y, xsum, tiling);
}
