//! Dropped buffers are freed after a device-wide synchronize, never while queued work may
//! still use them. Its own test binary: it probes freed addresses with raw frees, which
//! must not race other tests that could recycle those addresses.
#![cfg(agenticcann_backend = "sim")]

use agenticcann::{result, AclError, Device, DeviceBuffer, DEFERRED_FREE_MAX_BUFFERS};

fn is_freed(p: *const std::ffi::c_void) -> bool {
    // SAFETY: only called on addresses whose buffer was dropped and already released: the
    // runtime then rejects the free (nothing is freed). Were it still allocated (the
    // property under test failing), this free would release memory nothing uses any more.
    match unsafe { result::free(p as *mut _) } {
        Err(e) => e.code() == Some(AclError::ERROR_RT_MEMORY_FREE),
        Ok(()) => false,
    }
}

#[test]
fn drops_are_deferred_until_a_device_synchronize_or_the_limit() {
    let dev = Device::new(0).unwrap();
    let s = dev.stream().unwrap();

    let b = DeviceBuffer::<f32>::zeros(&s, 256).unwrap();
    let p = b.as_raw_ptr();
    drop(b);
    dev.synchronize().unwrap();
    dev.bind_to_thread().unwrap();
    assert!(is_freed(p), "Device::synchronize releases deferred buffers");

    // Past the buffer-count limit the list flushes by itself.
    let bufs: Vec<_> = (0..=DEFERRED_FREE_MAX_BUFFERS)
        .map(|_| DeviceBuffer::<u8>::alloc(&s, 32).unwrap())
        .collect();
    let first = bufs[0].as_raw_ptr();
    drop(bufs);
    dev.bind_to_thread().unwrap();
    assert!(is_freed(first), "the deferred list flushed at its limit");
}
