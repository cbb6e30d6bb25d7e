//! Thin checked wrappers over [`crate::sys`]: one function per AscendCL call, returning
//! `Result` with the code's name and `aclGetRecentErrMsg()`. No ownership or lifetime
//! tracking happens here; functions whose misuse could touch memory that is not theirs
//! are `unsafe` and say what the caller must guarantee.
//!
//! Calls that need a current context (memory, streams, events) act on the calling
//! thread's current context; the safe types bind theirs first ([`set_current_context`]).

use std::ffi::{c_void, CStr};
use std::ptr;

use crate::error::{AclError, Error, Result};
use crate::sys;

/// The calling thread's recent AscendCL error message, if any.
pub fn recent_error_message() -> Option<String> {
    // SAFETY: aclGetRecentErrMsg takes no arguments and returns null or a NUL-terminated
    // string that stays valid until this thread's next failing AscendCL call; it is
    // copied out before any other call.
    unsafe {
        let p = sys::aclGetRecentErrMsg();
        (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// Turns an `aclError` into `Ok(())` or [`Error::Acl`] naming `call`.
pub fn check(call: &'static str, code: sys::aclError) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        // The simulator's messages start with the call's name, which the error shows already.
        let message = recent_error_message().map(|m| match m.strip_prefix(call) {
            Some(rest) if rest.starts_with(": ") => rest[2..].to_string(),
            _ => m,
        });
        Err(Error::Acl {
            call,
            code: AclError(code),
            message,
        })
    }
}

/// `aclInit(NULL)`. `ACL_ERROR_REPEAT_INITIALIZE` is an error here; the safe layer treats
/// it as success (someone else initialized AscendCL first).
pub fn init() -> Result<()> {
    // SAFETY: a null config path is documented as "no configuration file".
    check("aclInit", unsafe { sys::aclInit(ptr::null()) })
}

/// `aclrtGetDeviceCount`.
pub fn device_count() -> Result<u32> {
    let mut n = 0u32;
    // SAFETY: `n` is a valid u32 to write.
    check("aclrtGetDeviceCount", unsafe {
        sys::aclrtGetDeviceCount(&mut n)
    })?;
    Ok(n)
}

/// `aclrtSetDevice`: opens the device and makes its default context current.
pub fn set_device(id: i32) -> Result<()> {
    // SAFETY: plain integer argument; the runtime validates it.
    check("aclrtSetDevice", unsafe { sys::aclrtSetDevice(id) })
}

/// `aclrtResetDevice`.
pub fn reset_device(id: i32) -> Result<()> {
    // SAFETY: plain integer argument; the runtime validates it.
    check("aclrtResetDevice", unsafe { sys::aclrtResetDevice(id) })
}

/// `aclrtCreateContext`: a new context on `id`, current on the calling thread.
pub fn create_context(id: i32) -> Result<sys::aclrtContext> {
    let mut ctx = ptr::null_mut();
    // SAFETY: `ctx` is a valid out-pointer.
    check("aclrtCreateContext", unsafe {
        sys::aclrtCreateContext(&mut ctx, id)
    })?;
    Ok(ctx)
}

/// `aclrtDestroyContext`.
///
/// # Safety
/// `ctx` must come from [`create_context`] and must not be used afterwards. (The
/// simulator rejects unknown handles; CANN may not.)
pub unsafe fn destroy_context(ctx: sys::aclrtContext) -> Result<()> {
    // SAFETY: the caller guarantees `ctx` is a live context handle used no more.
    check("aclrtDestroyContext", unsafe {
        sys::aclrtDestroyContext(ctx)
    })
}

/// `aclrtSetCurrentContext`.
///
/// # Safety
/// `ctx` must be a live context handle.
pub unsafe fn set_current_context(ctx: sys::aclrtContext) -> Result<()> {
    // SAFETY: the caller guarantees `ctx` is a live context handle.
    check("aclrtSetCurrentContext", unsafe {
        sys::aclrtSetCurrentContext(ctx)
    })
}

/// `aclrtSynchronizeDevice` (current context's device). On the simulator a failed kernel
/// is reported by the stream it ran on; here it is a plain [`Error::Acl`].
pub fn synchronize_device() -> Result<()> {
    // SAFETY: no arguments.
    check("aclrtSynchronizeDevice", unsafe {
        sys::aclrtSynchronizeDevice()
    })
}

/// `aclrtCreateStream` in the current context.
pub fn create_stream() -> Result<sys::aclrtStream> {
    let mut s = ptr::null_mut();
    // SAFETY: `s` is a valid out-pointer.
    check("aclrtCreateStream", unsafe {
        sys::aclrtCreateStream(&mut s)
    })?;
    Ok(s)
}

/// `aclrtDestroyStream` (waits for the stream's queued work first on the simulator).
///
/// # Safety
/// `stream` must come from [`create_stream`] and must not be used afterwards.
pub unsafe fn destroy_stream(stream: sys::aclrtStream) -> Result<()> {
    // SAFETY: the caller guarantees `stream` is live and used no more.
    check("aclrtDestroyStream", unsafe {
        sys::aclrtDestroyStream(stream)
    })
}

/// `aclrtSynchronizeStream`. When a kernel on the stream failed, the error is
/// [`Error::Kernel`] carrying the launch and (on the simulator) its diagnostics.
///
/// # Safety
/// `stream` must be a live stream handle, or null for the default stream.
pub unsafe fn synchronize_stream(stream: sys::aclrtStream) -> Result<()> {
    // SAFETY: the caller guarantees `stream` is live (or null = default stream).
    let code = unsafe { sys::aclrtSynchronizeStream(stream) };
    if code == AclError::ERROR_RT_AICORE_EXCEPTION.0 {
        // SAFETY: same contract as this function.
        if let Some(launch) = unsafe { stream_failure(stream) }? {
            return Err(Error::Kernel {
                call: "aclrtSynchronizeStream",
                code: AclError(code),
                launch: Box::new(launch),
            });
        }
    }
    check("aclrtSynchronizeStream", code)
}

/// `aclrtMalloc` of `bytes` (> 0) with `ACL_MEM_MALLOC_HUGE_FIRST`.
pub fn malloc(bytes: usize) -> Result<*mut c_void> {
    let mut p = ptr::null_mut();
    // SAFETY: `p` is a valid out-pointer; the runtime validates the size.
    check("aclrtMalloc", unsafe {
        sys::aclrtMalloc(&mut p, bytes, sys::ACL_MEM_MALLOC_HUGE_FIRST)
    })?;
    Ok(p)
}

/// `aclrtFree`.
///
/// # Safety
/// `ptr` must come from [`malloc`], and no queued or running work may use it any more.
pub unsafe fn free(ptr: *mut c_void) -> Result<()> {
    // SAFETY: the caller guarantees `ptr` came from aclrtMalloc and is unused now.
    check("aclrtFree", unsafe { sys::aclrtFree(ptr) })
}

/// Synchronous `aclrtMemcpy` of `count` bytes.
///
/// # Safety
/// `dst` must be valid for `dst_max` bytes of writes and `src` for `count` bytes of reads
/// on the side (host or device) that `kind` names; no other work may write them meanwhile.
pub unsafe fn memcpy(
    dst: *mut c_void,
    dst_max: usize,
    src: *const c_void,
    count: usize,
    kind: sys::aclrtMemcpyKind,
) -> Result<()> {
    // SAFETY: the caller guarantees both ranges are valid for the copy.
    check("aclrtMemcpy", unsafe {
        sys::aclrtMemcpy(dst, dst_max, src, count, kind)
    })
}

/// `aclrtMemcpyAsync` queued on `stream`.
///
/// # Safety
/// As [`memcpy`], and both ranges must stay valid and untouched by the host until the
/// stream has executed the copy (synchronize before reading or freeing them).
pub unsafe fn memcpy_async(
    dst: *mut c_void,
    dst_max: usize,
    src: *const c_void,
    count: usize,
    kind: sys::aclrtMemcpyKind,
    stream: sys::aclrtStream,
) -> Result<()> {
    // SAFETY: the caller guarantees both ranges stay valid until the copy ran.
    check("aclrtMemcpyAsync", unsafe {
        sys::aclrtMemcpyAsync(dst, dst_max, src, count, kind, stream)
    })
}

/// Synchronous `aclrtMemset` of `count` bytes to `value`.
///
/// # Safety
/// `ptr` must be valid for `max_count` bytes of writes.
pub unsafe fn memset(ptr: *mut c_void, max_count: usize, value: u8, count: usize) -> Result<()> {
    // SAFETY: the caller guarantees `ptr` is valid for `max_count` bytes of writes.
    check("aclrtMemset", unsafe {
        sys::aclrtMemset(ptr, max_count, i32::from(value), count)
    })
}

/// `aclrtMemsetAsync` queued on `stream`.
///
/// # Safety
/// `ptr` must be device memory valid for `max_count` bytes until the stream ran the memset.
pub unsafe fn memset_async(
    ptr: *mut c_void,
    max_count: usize,
    value: u8,
    count: usize,
    stream: sys::aclrtStream,
) -> Result<()> {
    // SAFETY: the caller guarantees `ptr` stays valid until the memset ran.
    check("aclrtMemsetAsync", unsafe {
        sys::aclrtMemsetAsync(ptr, max_count, i32::from(value), count, stream)
    })
}

/// `aclrtCreateEvent` in the current context.
pub fn create_event() -> Result<sys::aclrtEvent> {
    let mut e = ptr::null_mut();
    // SAFETY: `e` is a valid out-pointer.
    check("aclrtCreateEvent", unsafe { sys::aclrtCreateEvent(&mut e) })?;
    Ok(e)
}

/// `aclrtDestroyEvent`.
///
/// # Safety
/// `event` must come from [`create_event`] and must not be used afterwards.
pub unsafe fn destroy_event(event: sys::aclrtEvent) -> Result<()> {
    // SAFETY: the caller guarantees `event` is live and used no more.
    check("aclrtDestroyEvent", unsafe {
        sys::aclrtDestroyEvent(event)
    })
}

/// `aclrtRecordEvent`.
///
/// # Safety
/// `event` and `stream` must be live handles (null stream = default stream).
pub unsafe fn record_event(event: sys::aclrtEvent, stream: sys::aclrtStream) -> Result<()> {
    // SAFETY: the caller guarantees both handles are live.
    check("aclrtRecordEvent", unsafe {
        sys::aclrtRecordEvent(event, stream)
    })
}

/// `aclrtSynchronizeEvent`.
///
/// # Safety
/// `event` must be a live handle.
pub unsafe fn synchronize_event(event: sys::aclrtEvent) -> Result<()> {
    // SAFETY: the caller guarantees `event` is live.
    check("aclrtSynchronizeEvent", unsafe {
        sys::aclrtSynchronizeEvent(event)
    })
}

/// `aclrtEventElapsedTime` in ms.
///
/// # Safety
/// Both events must be live handles.
pub unsafe fn event_elapsed_ms(start: sys::aclrtEvent, end: sys::aclrtEvent) -> Result<f32> {
    let mut ms = 0f32;
    // SAFETY: the caller guarantees both events are live; `ms` is a valid out-pointer.
    check("aclrtEventElapsedTime", unsafe {
        sys::aclrtEventElapsedTime(&mut ms, start, end)
    })?;
    Ok(ms)
}

/// Copies and frees a string returned by the simulator's C API.
///
/// # Safety
/// `s` must be null or a string returned by an `ascendc_sim_*` function that has not been
/// freed yet; it is freed here.
#[cfg(agenticcann_backend = "sim")]
pub(crate) unsafe fn take_sim_string(s: *mut std::ffi::c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees `s` is a live NUL-terminated string from the
    // simulator; it is copied before being freed, and freed exactly once.
    unsafe {
        let out = CStr::from_ptr(s).to_string_lossy().into_owned();
        sys::sim::ascendc_sim_string_free(s);
        Some(out)
    }
}

/// The launch that put `stream` in the error state (simulator only; `None` on CANN).
///
/// # Safety
/// `stream` must be a live stream handle, or null for the default stream.
pub unsafe fn stream_failure(stream: sys::aclrtStream) -> Result<Option<crate::sim::LaunchRecord>> {
    #[cfg(agenticcann_backend = "sim")]
    {
        // SAFETY: the caller guarantees `stream` is live; the result is ours to free.
        match unsafe { take_sim_string(sys::sim::ascendc_sim_stream_failure(stream)) } {
            Some(json) => crate::sim::parse(&json, "failed launch").map(Some),
            None => Ok(None),
        }
    }
    #[cfg(not(agenticcann_backend = "sim"))]
    {
        let _ = stream;
        Ok(None)
    }
}

/// The launches finished on `stream` since the previous take (simulator only; empty on
/// CANN). Does not wait for queued work.
///
/// # Safety
/// `stream` must be a live stream handle, or null for the default stream.
pub unsafe fn stream_take_launches(
    stream: sys::aclrtStream,
) -> Result<Vec<crate::sim::LaunchRecord>> {
    #[cfg(agenticcann_backend = "sim")]
    {
        // SAFETY: the caller guarantees `stream` is live; the result is ours to free.
        let json = unsafe { take_sim_string(sys::sim::ascendc_sim_stream_take_launches(stream)) }
            .ok_or_else(|| {
            Error::Sim(recent_error_message().unwrap_or_else(|| "stream is not live".into()))
        })?;
        crate::sim::parse(&json, "launch list")
    }
    #[cfg(not(agenticcann_backend = "sim"))]
    {
        let _ = stream;
        Ok(Vec::new())
    }
}

/// The most recent finished launch on `stream` (simulator only; `None` on CANN).
///
/// # Safety
/// `stream` must be a live stream handle, or null for the default stream.
pub unsafe fn stream_last_launch(
    stream: sys::aclrtStream,
) -> Result<Option<crate::sim::LaunchRecord>> {
    #[cfg(agenticcann_backend = "sim")]
    {
        // SAFETY: the caller guarantees `stream` is live; the result is ours to free.
        match unsafe { take_sim_string(sys::sim::ascendc_sim_stream_last_launch(stream)) } {
            Some(json) => crate::sim::parse(&json, "last launch").map(Some),
            None => Ok(None),
        }
    }
    #[cfg(not(agenticcann_backend = "sim"))]
    {
        let _ = stream;
        Ok(None)
    }
}
