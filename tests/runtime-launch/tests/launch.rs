//! Kernels launched through agenticcann's runtime on the simulator: results, asynchronous
//! launch semantics, diagnostics in errors, and modelled time through events.
#![cfg(kernels_on_sim)]

use agenticcann::{AclError, Device, DeviceBuffer, Error, Event, Stream};
use runtime_launch::{copy_f32, copy_f32_with_tiling, marker_line, ub_overflow, CopyTiling};

fn stream() -> Stream {
    Device::new(0).unwrap().stream().unwrap()
}

fn data(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 7.0).collect()
}

#[test]
fn copy_kernel_copies_every_element_on_several_shapes() {
    let s = stream();
    // 1 element; not divisible by the core count; several tiles per core with a tail.
    for (n, block_dim) in [(1usize, 1u32), (1000, 8), (3 * 4096 + 5, 7), (48, 48)] {
        let host = data(n);
        let x = DeviceBuffer::from_slice(&s, &host).unwrap();
        let mut y = DeviceBuffer::<f32>::alloc(&s, n).unwrap();
        copy_f32(&s, &x, &mut y, block_dim).unwrap();
        assert_eq!(y.to_vec(&s).unwrap(), host, "n={n} blockDim={block_dim}");
    }
}

#[test]
fn launches_are_asynchronous_and_to_vec_waits_for_them() {
    let s = stream();
    let host = data(5000);
    let a = DeviceBuffer::from_slice(&s, &host).unwrap();
    let mut b = DeviceBuffer::<f32>::alloc(&s, host.len()).unwrap();
    let mut c = DeviceBuffer::<f32>::alloc(&s, host.len()).unwrap();
    // Queued back to back: the second reads what the first writes; only stream order
    // makes this right, and nothing waits until to_vec.
    for _ in 0..3 {
        copy_f32(&s, &a, &mut b, 4).unwrap();
        copy_f32(&s, &b, &mut c, 5).unwrap();
    }
    assert_eq!(c.to_vec(&s).unwrap(), host);
    assert_eq!(s.take_launches().unwrap().len(), 6);
}

#[test]
fn a_kernel_reading_past_its_buffer_fails_with_kind_and_line() {
    let s = stream();
    let x = DeviceBuffer::from_slice(&s, &data(256)).unwrap();
    let mut y = DeviceBuffer::<f32>::alloc(&s, 256).unwrap();
    // The tiling claims 64 more elements than the host allocated.
    let lie = CopyTiling {
        total_length: 320,
        tile_length: 1024,
    };
    copy_f32_with_tiling(&s, &x, &mut y, 1, lie).unwrap(); // queueing succeeds
    let err = s.synchronize().unwrap_err();
    assert_eq!(
        err.code(),
        Some(AclError::ERROR_RT_AICORE_EXCEPTION),
        "{err}"
    );
    let Error::Kernel { launch, .. } = &err else {
        panic!("not a kernel error: {err}")
    };
    assert_eq!(launch.kernel, "copy_f32");
    assert!(launch.failed && launch.report.is_none());
    let d = err
        .diagnostics()
        .iter()
        .find(|d| d.kind == "gm_out_of_bounds")
        .expect("gm_out_of_bounds");
    assert!(d.file.ends_with("copy_f32.cpp"), "{d}");
    assert_eq!(d.line, marker_line("copy_f32.cpp", "LINE_COPY_IN"), "{d}");
    assert_eq!(d.core, 0);
    let text = err.to_string();
    assert!(
        text.starts_with("aclrtSynchronizeStream failed: ACL_ERROR_RT_AICORE_EXCEPTION (507015): kernel `copy_f32` (blockDim 1) failed"),
        "{text}"
    );
    assert!(text.contains("\n  error[gm_out_of_bounds] "), "{text}");

    // The stream stays failed, as after an AI Core exception; work behind it is skipped.
    let again = y.to_vec(&s).unwrap_err();
    assert_eq!(again.diagnostics(), err.diagnostics());
    let records = s.take_launches().unwrap();
    assert_eq!(records.len(), 1);
    assert!(records[0].failed);
    // A new stream works.
    let s2 = stream();
    copy_f32(&s2, &x, &mut y, 2).unwrap();
    assert_eq!(y.to_vec(&s2).unwrap(), data(256));
}

#[test]
fn a_kernel_over_allocating_ub_fails_at_init_buffer() {
    let s = stream();
    let mut x = DeviceBuffer::<f32>::zeros(&s, 8).unwrap();
    ub_overflow(&s, &mut x).unwrap();
    let err = s.synchronize().unwrap_err();
    let d = err
        .diagnostics()
        .iter()
        .find(|d| d.kind == "ub_capacity_exceeded")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(d.file.ends_with("ub_overflow.cpp"), "{d}");
    assert_eq!(
        d.line,
        marker_line("ub_overflow.cpp", "LINE_UB_OVERFLOW"),
        "{d}"
    );
    assert!(!d.numbers.is_empty(), "{d:?}");
}

#[test]
fn block_dim_zero_or_above_65535_is_a_launch_diagnostic() {
    for block_dim in [0u32, 65536] {
        let s = stream();
        let x = DeviceBuffer::from_slice(&s, &data(8)).unwrap();
        let mut y = DeviceBuffer::<f32>::alloc(&s, 8).unwrap();
        copy_f32(&s, &x, &mut y, block_dim).unwrap();
        let err = s.synchronize().unwrap_err();
        let d = err
            .diagnostics()
            .iter()
            .find(|d| d.kind == "block_dim_invalid")
            .unwrap_or_else(|| panic!("blockDim {block_dim}: {err}"));
        assert!(
            d.message
                .contains(&format!("blockDim {block_dim} is invalid"))
                && d.message.contains("[1, 65535]"),
            "{d:?}"
        );
    }
    // The largest legal blockDim runs (cores beyond the data return at once).
    let s = stream();
    let x = DeviceBuffer::from_slice(&s, &data(8)).unwrap();
    let mut y = DeviceBuffer::<f32>::alloc(&s, 8).unwrap();
    copy_f32(&s, &x, &mut y, 65535).unwrap();
    s.synchronize().unwrap();
    assert_eq!(y.to_vec(&s).unwrap(), data(8));
}

#[test]
fn event_time_is_the_cost_models_kernel_time() {
    let s = stream();
    let n = 64 * 1024;
    let x = DeviceBuffer::from_slice(&s, &data(n)).unwrap();
    let mut y = DeviceBuffer::<f32>::alloc(&s, n).unwrap();
    let start = s.record_event().unwrap();
    copy_f32(&s, &x, &mut y, 8).unwrap();
    let mid = s.record_event().unwrap();
    copy_f32(&s, &x, &mut y, 16).unwrap();
    let end = s.record_event().unwrap();

    let first = Event::elapsed_ms(&start, &mid).unwrap() as f64;
    let both = Event::elapsed_ms(&start, &end).unwrap() as f64;
    let records = s.take_launches().unwrap();
    assert_eq!(records.len(), 2);
    let r0 = records[0].report.as_ref().unwrap();
    let r1 = records[1].report.as_ref().unwrap();
    assert_eq!(
        (r0.kernel.as_str(), r0.block_dim, r1.block_dim),
        ("copy_f32", 8, 16)
    );
    assert!(r0.total_us > 0.0 && r1.total_us > 0.0, "{r0}\n{r1}");
    let close = |ms: f64, us: f64| (ms * 1000.0 - us).abs() <= 1e-4 * us.max(1.0);
    assert!(close(first, r0.total_us), "{first} ms vs {r0}");
    assert!(
        close(both, r0.total_us + r1.total_us),
        "{both} ms vs {r0} + {r1}"
    );
    assert_eq!(s.last_launch_report().unwrap().as_ref(), Some(r1));
    assert!(r0.to_string().starts_with("copy_f32: "), "{r0}");

    // Reversed events are an error, not a negative time.
    let err = Event::elapsed_ms(&end, &start).unwrap_err();
    assert_eq!(
        err.code(),
        Some(AclError::ERROR_RT_EVENT_TIMESTAMP_REVERSAL),
        "{err}"
    );
}

#[test]
fn wrapper_checks_lengths_before_launching() {
    let s = stream();
    let x = DeviceBuffer::<f32>::zeros(&s, 10).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&s, 9).unwrap();
    let err = copy_f32(&s, &x, &mut y, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "copy_f32: argument `y`: expected 10 f32 elements, got 9"
    );
    assert!(s.take_launches().unwrap().is_empty());
}
