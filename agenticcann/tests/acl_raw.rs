//! The checked layer (`result`) against the runtime's own rules: memcpy bounds, frees
//! of memory that is not a live allocation. One test function, run in sequence, because
//! it frees raw pointers and must not race other tests for recycled addresses.

use std::ffi::c_void;

use agenticcann::{result, sys, AclError, Device};

#[test]
fn runtime_rejects_bad_copies_and_bad_frees() {
    let dev = Device::new(0).unwrap();
    dev.bind_to_thread().unwrap();
    let host = [7u8; 64];
    let mut back = [0u8; 64];
    let p = result::malloc(40).unwrap();

    // SAFETY (every block below): `p` is a live 40-byte allocation until the free; host
    // arrays are 64 bytes; the runtime checks each call and copies nothing on error.
    unsafe {
        // count > destMax
        let e = result::memcpy(
            p,
            32,
            host.as_ptr() as *const c_void,
            40,
            sys::ACL_MEMCPY_HOST_TO_DEVICE,
        )
        .unwrap_err();
        assert_eq!(e.code(), Some(AclError::ERROR_INVALID_PARAM), "{e}");
        assert!(e.to_string().contains("exceeds destMax"), "{e}");

        #[cfg(agenticcann_backend = "sim")]
        {
            // Past the end of the device allocation, although destMax allows it.
            let e = result::memcpy(
                p,
                64,
                host.as_ptr() as *const c_void,
                41,
                sys::ACL_MEMCPY_HOST_TO_DEVICE,
            )
            .unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_INVALID_PARAM), "{e}");
            assert!(
                e.to_string()
                    .contains("exceeds its aclrtMalloc allocation of 40 bytes"),
                "{e}"
            );
            // Reading past the end.
            let e = result::memcpy(
                back.as_mut_ptr() as *mut c_void,
                64,
                p,
                48,
                sys::ACL_MEMCPY_DEVICE_TO_HOST,
            )
            .unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_INVALID_PARAM), "{e}");
            // Host memory where the kind says device.
            let e = result::memcpy(
                back.as_mut_ptr() as *mut c_void,
                64,
                host.as_ptr() as *const c_void,
                8,
                sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
            )
            .unwrap_err();
            assert!(e.to_string().contains("is not device memory"), "{e}");
            // Memset past the end.
            let e = result::memset(p, 64, 0, 41).unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_INVALID_PARAM), "{e}");
        }

        // In bounds: works, and nothing above wrote anything.
        result::memset(p, 40, 0, 40).unwrap();
        result::memcpy(
            p,
            40,
            host.as_ptr() as *const c_void,
            40,
            sys::ACL_MEMCPY_HOST_TO_DEVICE,
        )
        .unwrap();
        result::memcpy(
            back.as_mut_ptr() as *mut c_void,
            64,
            p,
            40,
            sys::ACL_MEMCPY_DEVICE_TO_HOST,
        )
        .unwrap();
        assert_eq!(&back[..40], &host[..40]);

        result::free(p).unwrap();
        #[cfg(agenticcann_backend = "sim")]
        {
            let e = result::free(p).unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_RT_MEMORY_FREE), "{e}");
            assert!(
                e.to_string().contains("ACL_ERROR_RT_MEMORY_FREE (207002)"),
                "{e}"
            );
            let e = result::free(back.as_mut_ptr() as *mut c_void).unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_RT_MEMORY_FREE), "{e}");
            let e = result::malloc(0).unwrap_err();
            assert_eq!(e.code(), Some(AclError::ERROR_INVALID_PARAM), "{e}");
        }
    }
}

#[cfg(agenticcann_backend = "sim")]
#[test]
fn calls_without_a_current_context_fail_with_context_null() {
    // A fresh thread has no current context.
    std::thread::spawn(|| {
        let e = result::create_stream().unwrap_err();
        assert_eq!(e.code(), Some(AclError::ERROR_RT_CONTEXT_NULL), "{e}");
        assert!(e.to_string().contains("no current context"), "{e}");
    })
    .join()
    .unwrap();
}
