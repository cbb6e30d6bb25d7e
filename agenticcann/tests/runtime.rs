//! The safe runtime without kernels: buffers, streams, events, errors.
//! Kernel launches are tested in `tests/runtime-launch` (workspace root).

use agenticcann::{AclError, DType, Device, DeviceBuffer, DeviceRepr, Error, Event, Stream};
use half::{bf16, f16};

fn stream() -> Stream {
    Device::new(0).expect("device 0").stream().expect("stream")
}

fn round_trip<T: DeviceRepr + PartialEq + std::fmt::Debug>(s: &Stream, make: impl Fn(usize) -> T) {
    for len in [0usize, 1, 7, 1000] {
        let host: Vec<T> = (0..len).map(&make).collect();
        let buf = DeviceBuffer::from_slice(s, &host).unwrap();
        assert_eq!(buf.len(), len);
        assert_eq!(buf.is_empty(), len == 0);
        assert_eq!(buf.size_bytes(), len * T::DTYPE.size_bytes());
        assert_eq!(buf.to_vec(s).unwrap(), host, "{} len {len}", T::DTYPE);
    }
}

#[test]
fn every_device_repr_type_round_trips() {
    let s = stream();
    round_trip(&s, |i| f16::from_f32(i as f32 * 0.5 - 3.0));
    round_trip(&s, |i| bf16::from_f32(i as f32 * -0.25));
    round_trip(&s, |i| i as f32 / 3.0);
    round_trip(&s, |i| (i as i32 - 500) * 4099);
    round_trip(&s, |i| (i % 256) as u8 as i8);
    round_trip(&s, |i| (i * 7 % 256) as u8);
}

#[test]
fn non_finite_floats_survive_bit_for_bit() {
    let s = stream();
    let host = [f32::NAN, f32::INFINITY, -0.0, f32::MIN_POSITIVE / 2.0];
    let back = DeviceBuffer::from_slice(&s, &host)
        .unwrap()
        .to_vec(&s)
        .unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&host));
}

#[test]
fn zeros_are_zero_and_have_the_length_asked_for() {
    let s = stream();
    let z = DeviceBuffer::<f16>::zeros(&s, 513).unwrap();
    assert_eq!(z.len(), 513);
    assert!(z.to_vec(&s).unwrap().iter().all(|v| v.to_bits() == 0));
    let e = DeviceBuffer::<i32>::zeros(&s, 0).unwrap();
    assert!(e.is_empty());
    assert!(e.as_raw_ptr().is_null());
    assert_eq!(e.to_vec(&s).unwrap(), Vec::<i32>::new());
}

#[cfg(agenticcann_backend = "sim")]
#[test]
fn fresh_device_memory_is_poisoned_on_the_simulator() {
    let s = stream();
    let b = DeviceBuffer::<f32>::alloc(&s, 16).unwrap();
    assert!(b
        .to_vec(&s)
        .unwrap()
        .iter()
        .all(|v| v.to_bits() == u32::MAX));
}

#[test]
fn memset_zeros_and_device_copies_run_in_stream_order() {
    let s = stream();
    let mut a = DeviceBuffer::from_slice(&s, &[1.5f32; 100]).unwrap();
    let mut b = DeviceBuffer::<f32>::alloc(&s, 100).unwrap();
    b.copy_from_device(&s, &a).unwrap();
    a.memset_zeros(&s).unwrap();
    assert_eq!(a.to_vec(&s).unwrap(), vec![0.0; 100]);
    assert_eq!(b.to_vec(&s).unwrap(), vec![1.5; 100]);
    let mut host = vec![0f32; 100];
    b.copy_from_slice(&s, &(0..100).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    b.copy_to_slice(&s, &mut host).unwrap();
    assert_eq!(host[99], 99.0);
}

#[test]
fn length_mismatches_name_the_argument() {
    let s = stream();
    let mut b = DeviceBuffer::<u8>::zeros(&s, 4).unwrap();
    let err = b.copy_from_slice(&s, &[1, 2, 3]).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument { arg, .. } if arg == "src"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "DeviceBuffer::copy_from_slice: argument `src`: expected 4 u8 elements (the buffer's length), got 3 elements"
    );
    assert!(err.code().is_none());
    let mut five = [0u8; 5];
    assert!(matches!(
        b.copy_to_slice(&s, &mut five),
        Err(Error::InvalidArgument { .. })
    ));
    let other = DeviceBuffer::<u8>::zeros(&s, 5).unwrap();
    assert!(matches!(
        b.copy_from_device(&s, &other),
        Err(Error::InvalidArgument { .. })
    ));
    let huge = DeviceBuffer::<f32>::alloc(&s, usize::MAX / 2).unwrap_err();
    assert!(matches!(huge, Error::InvalidArgument { .. }), "{huge}");
}

#[test]
fn invalid_device_is_an_acl_error_with_its_name() {
    let err = Device::new(7).unwrap_err();
    assert_eq!(err.code(), Some(AclError::ERROR_RT_INVALID_DEVICEID));
    let text = err.to_string();
    assert!(
        text.starts_with("aclrtSetDevice failed: ACL_ERROR_RT_INVALID_DEVICEID (107001)"),
        "{text}"
    );
    assert!(err.diagnostics().is_empty());
}

#[test]
fn device_memory_exhaustion_is_reported_not_fatal() {
    let s = stream();
    // 2^60 bytes: beyond any device (the simulator models 64 GB of HBM).
    let err = DeviceBuffer::<u8>::alloc(&s, 1 << 60).unwrap_err();
    assert_eq!(
        err.code(),
        Some(AclError::ERROR_RT_MEMORY_ALLOCATION),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("ACL_ERROR_RT_MEMORY_ALLOCATION (207001)"),
        "{err}"
    );
}

#[test]
fn device_handles_are_shared_and_counted() {
    assert_eq!(Device::count().unwrap(), 1);
    let a = Device::new(0).unwrap();
    let b = Device::new(0).unwrap();
    assert_eq!(a.as_raw_context(), b.as_raw_context());
    assert_eq!(a.id(), 0);
}

#[test]
fn events_measure_non_negative_time() {
    let s = stream();
    let start = s.record_event().unwrap();
    let _buf = DeviceBuffer::from_slice(&s, &[1u8; 64]).unwrap();
    let end = s.record_event().unwrap();
    let ms = Event::elapsed_ms(&start, &end).unwrap();
    assert!(ms >= 0.0, "{ms}");
    // Without kernels the modelled clock does not move (copies take no modelled time).
    #[cfg(agenticcann_backend = "sim")]
    assert_eq!(ms, 0.0);
}

#[test]
fn elapsed_time_of_an_unrecorded_event_is_an_error() {
    let s = stream();
    let recorded = s.record_event().unwrap();
    let never = s.device().event().unwrap();
    let err = Event::elapsed_ms(&recorded, &never).unwrap_err();
    assert_eq!(
        err.code(),
        Some(AclError::ERROR_RT_EVENT_TIMESTAMP_INVALID),
        "{err}"
    );
}

/// Each simulated stream has its own modelled clock: a difference of stamps from two
/// streams would be a meaningless number, so it is an error.
#[cfg(agenticcann_backend = "sim")]
#[test]
fn elapsed_time_across_streams_is_an_error() {
    let a = stream();
    let b = a.device().stream().unwrap();
    let start = a.record_event().unwrap();
    let end = b.record_event().unwrap();
    let err = Event::elapsed_ms(&start, &end).unwrap_err();
    assert_eq!(err.code(), Some(AclError::ERROR_RT_PARAM_INVALID), "{err}");
    assert!(err.to_string().contains("different streams"), "{err}");
    // The same pair on one stream measures.
    let end_a = a.record_event().unwrap();
    assert!(Event::elapsed_ms(&start, &end_a).unwrap() >= 0.0);
}

#[test]
fn work_from_many_threads_on_their_own_streams() {
    let dev = Device::new(0).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let dev = dev.clone();
            std::thread::spawn(move || {
                let s = dev.stream().unwrap();
                for i in 0..20 {
                    let v: Vec<i32> = (0..257).map(|k| k * t + i).collect();
                    assert_eq!(
                        DeviceBuffer::from_slice(&s, &v)
                            .unwrap()
                            .to_vec(&s)
                            .unwrap(),
                        v
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn buffers_and_streams_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<DeviceBuffer<f16>>();
    let s = stream();
    let buf = DeviceBuffer::from_slice(&s, &[3i8; 9]).unwrap();
    let s2 = s.clone();
    let back = std::thread::spawn(move || buf.to_vec(&s2).unwrap())
        .join()
        .unwrap();
    assert_eq!(back, vec![3i8; 9]);
}

#[test]
fn a_fresh_stream_has_no_launches() {
    let s = stream();
    assert!(s.take_launches().unwrap().is_empty());
    assert!(s.last_launch_report().unwrap().is_none());
    s.synchronize().unwrap();
}

#[test]
fn dtype_names_match_spec_names() {
    assert_eq!(<f16 as DeviceRepr>::DTYPE, DType::F16);
    assert_eq!(DType::BF16.to_string(), "bf16");
    assert_eq!(<u8 as DeviceRepr>::DTYPE.size_bytes(), 1);
}

#[cfg(agenticcann_backend = "sim")]
#[test]
fn the_simulator_reports_its_profile() {
    let p = agenticcann::sim::profile()
        .unwrap()
        .expect("sim backend has a profile");
    assert!(p.soc.starts_with("Ascend"), "{p:?}");
    assert!(p.ub_bytes > 0 && p.aiv_cores > 0, "{p:?}");
    assert_eq!(agenticcann::BACKEND, agenticcann::Backend::Sim);
}
