// kernel_operator.h — the Ascend C kernel API (`AscendC` namespace) on the CPU simulator.
//
// Real Ascend C vector kernels written for the NPU include this one header and compile
// with a host C++20 compiler (g++ >= 12 or clang >= 16, exceptions enabled) against
// ascendc-sim/include, then link the simulator runtime (libascendc_sim.a, or
// ascendc-sim/src/**/*.cpp). See ascendc-sim/README.md.
#pragma once

#include "ascendc_sim/types.h"          // half, bfloat16_t, qualifiers, GM_ADDR
#include "ascendc_sim/core.h"           // the simulated core, diagnostics
#include "ascendc_sim/sys_var.h"        // GetBlockIdx, GetBlockNum, ...
#include "ascendc_sim/tensor.h"         // TPosition, GlobalTensor, LocalTensor
#include "ascendc_sim/sync.h"           // pipe_t, HardEvent, SetFlag/WaitFlag, PipeBarrier, TQueSync
#include "ascendc_sim/pipe.h"           // TPipe, TQue, TQueBind, TBuf
#include "ascendc_sim/local_mem.h"      // LocalMemAllocator, Hardware
#include "ascendc_sim/cross_core.h"     // SyncAll, IBSet/IBWait, WaitPreBlock/NotifyNextBlock
#include "ascendc_sim/data_copy.h"      // DataCopy, DataCopyPad
#include "ascendc_sim/atomic.h"         // SetAtomicAdd/Max/Min, SetAtomicNone
#include "ascendc_sim/mask.h"           // SetMaskCount/Norm, SetVectorMask, ResetMask
#include "ascendc_sim/vec_params.h"     // BinaryRepeatParams, UnaryRepeatParams, BrcbRepeatParams
#include "ascendc_sim/vec_elementwise.h"  // Add ... Duplicate, Axpy
#include "ascendc_sim/vec_cast.h"       // Cast, RoundMode
#include "ascendc_sim/vec_compare.h"    // Compare, CompareScalar/Compares, Select
#include "ascendc_sim/vec_reduce.h"     // ReduceSum/Max/Min, WholeReduce*, BlockReduce*, PairReduceSum, 9.x names
#include "ascendc_sim/vec_misc.h"       // Brcb, CreateVecIndex
#include "ascendc_sim/vec_gather.h"     // Gather, GatherMask
#include "ascendc_sim/vec_sort.h"       // Sort32, MrgSort
#include "ascendc_sim/vec_transpose.h"  // Transpose (16x16), TransDataTo5HD (16-bit)
#include "ascendc_sim/hl_elementwise.h" // Sigmoid, Tanh, Erf, Gelu, FasterGelu, Power, Swish, Silu, SwiGLU, GeGLU
#include "ascendc_sim/hl_softmax.h"     // SoftMax, SimpleSoftMax (+ SoftMaxTiling)
#include "ascendc_sim/hl_softmax_ext.h" // SoftmaxFlashV2, SoftmaxGrad, SoftmaxGradFront
#include "ascendc_sim/hl_norm.h"        // RmsNorm, LayerNorm, DeepNorm (+ their tiling structs)
#include "ascendc_sim/hl_welford.h"     // WelfordUpdate (+ WelfordUpdateParam, WelfordUpdateConfig)
#include "ascendc_sim/hl_reduce.h"      // Sum (+ SumParams)
#include "ascendc_sim/hl_quant.h"       // AscendQuant, AscendDequant (+ AscendQuantConfig, DequantParams)
#include "ascendc_sim/hl_cumsum.h"      // CumSum (+ CumSumConfig, CumSumInfo)
#include "ascendc_sim/hl_broadcast.h"   // Broadcast / BroadCast
#include "ascendc_sim/hl_pad.h"         // Pad, UnPad (+ PadParams, UnPadParams)
#include "ascendc_sim/tiling.h"         // GET_TILING_DATA, TILING_KEY_IS, KERNEL_TASK_TYPE_DEFAULT
#include "ascendc_sim/kernel_launch.h"  // ACLRT_LAUNCH_KERNEL, ASCENDC_SIM_LAUNCH
#include "ascendc_sim/debug.h"          // assert, ascendc_assert, ASSERT, ASCENDC_ASSERT, KERNEL_LOG (last: replaces assert)
