//! The simulator's test kernels (`ascendc-sim/tests/kernels/*.cpp`) as a user crate sees
//! them: `#[repr(C)]` mirrors of their tiling structs, the `aclrtlaunch_<kernel>` launcher
//! declarations (`kernels/launchers.cpp`) and [`launch`], which queues one of them on a
//! [`Stream`]. The tests (`tests/kernels.rs`) run every kernel on several shapes against
//! f64 references.
#![cfg(kernels_on_sim)]

use std::ffi::c_void;

use agenticcann::{sys, Error, Stream};

macro_rules! tiling {
    ($(#[$m:meta])* $name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        #[allow(non_snake_case)]
        pub struct $name { $(pub $field: $ty),* }
    };
}

tiling!(/// `add_custom`: elements, and elements per tile (multiple of 16).
    AddTiling { totalLength: u32, tileLength: u32 });
tiling!(/// `leaky_relu`.
    LeakyReluTiling { totalLength: u32, tileLength: u32, alpha: f32 });
tiling!(/// `cast_f16_f32` / `cast_f32_f16`.
    CastTiling { totalLength: u32, tileLength: u32 });
tiling!(/// `abs_unaligned`.
    AbsTiling { totalLength: u32 });
tiling!(/// `reduce_sum_rows`.
    ReduceRowsTiling { rows: u32, cols: u32 });
tiling!(/// `whole_reduce_max` (cols <= 64).
    WholeMaxTiling { rows: u32, cols: u32 });
tiling!(/// `softmax_rows`.
    SoftmaxTiling { rows: u32, cols: u32 });
tiling!(/// `rms_norm`.
    RmsNormTiling { rows: u32, cols: u32, eps: f32 });
tiling!(/// `layer_norm`.
    LayerNormTiling { rows: u32, cols: u32, eps: f32 });
tiling!(/// `add_rms_norm`.
    AddRmsNormTiling { rows: u32, cols: u32, eps: f32 });
tiling!(/// `bias_add_rows`.
    BiasAddTiling { rows: u32, cols: u32, tileRows: u32 });
tiling!(/// `gelu_tanh`.
    GeluTiling { totalLength: u32, tileLength: u32 });
tiling!(/// `swiglu`.
    SwiGluTiling { totalLength: u32, tileLength: u32 });
tiling!(/// `relu_select` (tile multiple of 64).
    ReluSelectTiling { totalLength: u32, tileLength: u32 });
tiling!(/// `scale_flags`.
    ScaleTiling { totalLength: u32, tileLength: u32, scale: f32 });
tiling!(/// `pad_rows_fc08`.
    PadRowsTiling { rows: u32, rank: u32 });

type P = *mut c_void;
extern "C" {
    pub fn aclrtlaunch_add_custom(bd: u32, s: sys::aclrtStream, x: P, y: P, z: P, t: P) -> u32;
    pub fn aclrtlaunch_leaky_relu(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_cast_f16_f32(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_cast_f32_f16(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_abs_unaligned(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_reduce_sum_rows(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_whole_reduce_max(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_softmax_rows(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_rms_norm(bd: u32, s: sys::aclrtStream, x: P, g: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_layer_norm(
        bd: u32,
        s: sys::aclrtStream,
        x: P,
        g: P,
        b: P,
        y: P,
        t: P,
    ) -> u32;
    pub fn aclrtlaunch_add_rms_norm(
        bd: u32,
        s: sys::aclrtStream,
        x1: P,
        x2: P,
        g: P,
        y: P,
        xs: P,
        t: P,
    ) -> u32;
    pub fn aclrtlaunch_bias_add_rows(bd: u32, s: sys::aclrtStream, x: P, b: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_gelu_tanh(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_swiglu(bd: u32, s: sys::aclrtStream, g: P, u: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_relu_select(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_scale_flags(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
    pub fn aclrtlaunch_pad_rows_fc08(bd: u32, s: sys::aclrtStream, x: P, y: P, t: P) -> u32;
}

/// A tiling struct as the launcher's `void* tiling` argument (copied at launch time).
pub fn tiling_ptr<T>(t: &T) -> P {
    t as *const T as P
}

/// Queues `kernel` on `stream` through its launcher; errors inside the kernel surface at
/// the next synchronize (or `to_vec`).
pub fn launch(
    stream: &Stream,
    kernel: &str,
    f: impl FnOnce(sys::aclrtStream) -> u32,
) -> Result<(), Error> {
    stream.launch(kernel, f)
}
