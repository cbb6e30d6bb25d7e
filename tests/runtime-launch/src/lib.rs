//! Test kernels and generated-style wrappers over them (the shape of what
//! `agenticcann-build` generates: a `#[repr(C)]` tiling struct, the launcher declaration,
//! and a safe function that checks arguments, computes tiling and launches).
#![cfg(kernels_on_sim)]

use std::ffi::c_void;

use agenticcann::{sys, DeviceBuffer, Error, Stream};

/// Mirror of `CopyTiling` in `kernels/tiling.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CopyTiling {
    /// Elements in x and y.
    pub total_length: u32,
    /// Elements per tile.
    pub tile_length: u32,
}

extern "C" {
    fn aclrtlaunch_copy_f32(
        block_dim: u32,
        stream: sys::aclrtStream,
        x: *mut c_void,
        y: *mut c_void,
        tiling: *mut c_void,
    ) -> u32;
    fn aclrtlaunch_ub_overflow(block_dim: u32, stream: sys::aclrtStream, x: *mut c_void) -> u32;
}

/// `y = x` on `block_dim` cores. Checks lengths like a generated wrapper.
pub fn copy_f32(
    stream: &Stream,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    block_dim: u32,
) -> Result<(), Error> {
    if y.len() != x.len() {
        return Err(Error::invalid_argument(
            "copy_f32",
            "y",
            format!("{} f32 elements", x.len()),
            y.len().to_string(),
        ));
    }
    let tiling = CopyTiling {
        total_length: x.len() as u32,
        tile_length: 1024,
    };
    copy_f32_with_tiling(stream, x, y, block_dim, tiling)
}

/// The raw launch with a caller-chosen tiling (tests give wrong ones on purpose). The
/// kernel only touches memory through the buffers' device addresses; the simulator checks
/// every access against the host's allocations.
pub fn copy_f32_with_tiling(
    stream: &Stream,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    block_dim: u32,
    mut tiling: CopyTiling,
) -> Result<(), Error> {
    let (xp, yp) = (x.as_raw_ptr() as *mut c_void, y.as_raw_mut_ptr());
    stream.launch("copy_f32", |s| {
        // SAFETY: the launcher copies the tiling struct at once (it is a by-value kernel
        // parameter) and queues the kernel; `x` and `y` stay allocated until queued work
        // finished (DeviceBuffer's deferred free), and the simulator bounds-checks every
        // GM access of the kernel.
        unsafe {
            aclrtlaunch_copy_f32(
                block_dim,
                s,
                xp,
                yp,
                &mut tiling as *mut CopyTiling as *mut c_void,
            )
        }
    })
}

/// Launches the kernel that over-allocates UB.
pub fn ub_overflow(stream: &Stream, x: &mut DeviceBuffer<f32>) -> Result<(), Error> {
    let xp = x.as_raw_mut_ptr();
    stream.launch("ub_overflow", |s| {
        // SAFETY: as above; the kernel is stopped by the simulator at InitBuffer.
        unsafe { aclrtlaunch_ub_overflow(1, s, xp) }
    })
}

/// The 1-based line of `marker` in a kernel source file (the line a diagnostic must name).
pub fn marker_line(kernel_file: &str, marker: &str) -> u32 {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels")
        .join(kernel_file);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .position(|l| l.contains(marker))
        .expect("marker present") as u32
        + 1
}
