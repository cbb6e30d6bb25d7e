//! 01: device buffers, streams and events without any kernel.
//!
//! `cargo run -p agenticcann --example 01_buffers_and_events`
//!
//! Kernels are launched through generated `ops::<op>(&stream, ...)` functions
//! (agenticcann-build) or, by hand, with `Stream::launch` over an `aclrtlaunch_<kernel>`
//! launcher; see `tests/runtime-launch` in the workspace for a complete user crate.

use agenticcann::{Device, DeviceBuffer, Event};
use half::f16;

fn main() -> Result<(), agenticcann::Error> {
    println!(
        "backend: {:?}, devices: {}",
        agenticcann::BACKEND,
        Device::count()?
    );
    if let Some(p) = agenticcann::sim::profile()? {
        println!(
            "simulated SoC {} ({} AIV cores, {} B of UB each)",
            p.soc, p.aiv_cores, p.ub_bytes
        );
    }

    let dev = Device::new(0)?;
    let stream = dev.stream()?;

    let host: Vec<f16> = (0..4096).map(|i| f16::from_f32(i as f32 / 64.0)).collect();
    let x = DeviceBuffer::from_slice(&stream, &host)?;
    let mut y = DeviceBuffer::<f16>::zeros(&stream, host.len())?;

    let start = stream.record_event()?;
    y.copy_from_device(&stream, &x)?; // queued on the stream
    let end = stream.record_event()?;

    let back = y.to_vec(&stream)?; // waits for the stream
    assert_eq!(back, host);
    println!(
        "copied {} f16 elements; device time {} ms (copies take no modelled time on the simulator)",
        back.len(),
        Event::elapsed_ms(&start, &end)?
    );

    // Errors name the AscendCL code.
    match Device::new(99) {
        Err(e) => println!("as expected: {e}"),
        Ok(_) => println!("this machine has a device 99"),
    }
    Ok(())
}
