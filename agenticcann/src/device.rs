//! [`Device`]: one Ascend device (or the simulated one) and its AscendCL context.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::error::{AclError, Error, Result};
use crate::{result, sys, Event, Stream};

/// Dropped buffers wait in a per-device list and are freed together after a device-wide
/// synchronize (see [`crate::DeviceBuffer`]'s drop). The list is flushed when it holds
/// more than this many bytes…
pub const DEFERRED_FREE_MAX_BYTES: usize = 256 << 20;
/// …or more than this many buffers, on [`Device::synchronize`], when an allocation fails
/// for lack of memory, and when the last handle to the device is dropped.
pub const DEFERRED_FREE_MAX_BUFFERS: usize = 1024;

/// An open device with its own AscendCL context.
///
/// Cheap to clone (a shared handle). [`Device::new`] with the same id returns handles to
/// the same context while any is alive. Every operation binds the context to the calling
/// thread first (`aclrtSetCurrentContext`), so devices, streams and buffers can be used
/// from any thread.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

pub(crate) struct DeviceInner {
    id: i32,
    ctx: sys::aclrtContext,
    deferred: Mutex<Deferred>,
}

#[derive(Default)]
struct Deferred {
    ptrs: Vec<usize>,
    bytes: usize,
}

// SAFETY: the context handle is an opaque token the AscendCL runtime owns; AscendCL lets
// any thread make a context current (aclrtSetCurrentContext) and every use here does so
// first. The deferred-free list is behind a Mutex and holds device addresses as integers.
unsafe impl Send for DeviceInner {}
// SAFETY: as above; no method hands out interior references to unsynchronized state.
unsafe impl Sync for DeviceInner {}

static DEVICES: Mutex<Vec<(i32, Weak<DeviceInner>)>> = Mutex::new(Vec::new());
static INIT: OnceLock<std::result::Result<(), (AclError, Option<String>)>> = OnceLock::new();

/// `aclInit` once per process. AscendCL initialized by someone else first is fine. The
/// crate never calls `aclFinalize` (AscendCL allows one init per process; the OS reclaims
/// everything at exit).
fn ensure_init() -> Result<()> {
    INIT.get_or_init(|| match result::init() {
        Ok(()) => Ok(()),
        Err(Error::Acl { code, .. }) if code == AclError::ERROR_REPEAT_INITIALIZE => Ok(()),
        Err(Error::Acl { code, message, .. }) => Err((code, message)),
        Err(e) => Err((AclError::ERROR_INTERNAL_ERROR, Some(e.to_string()))),
    })
    .clone()
    .map_err(|(code, message)| Error::Acl {
        call: "aclInit",
        code,
        message,
    })
}

fn lock_devices() -> std::sync::MutexGuard<'static, Vec<(i32, Weak<DeviceInner>)>> {
    // A panic while holding the lock cannot leave the list inconsistent (each update is
    // one push or retain), so a poisoned lock is still usable.
    DEVICES.lock().unwrap_or_else(|p| p.into_inner())
}

impl Device {
    /// Opens device `id` (`aclInit` once per process, `aclrtSetDevice`,
    /// `aclrtCreateContext`). The simulator has one device, id 0.
    ///
    /// # Errors
    /// `ACL_ERROR_RT_INVALID_DEVICEID` for an id the machine does not have.
    pub fn new(id: usize) -> Result<Device> {
        let id32 = i32::try_from(id).map_err(|_| {
            Error::invalid_argument(
                "Device::new",
                "id",
                "a device id below 2^31",
                id.to_string(),
            )
        })?;
        let mut devices = lock_devices();
        devices.retain(|(_, w)| w.strong_count() > 0);
        if let Some(inner) = devices
            .iter()
            .find(|(i, _)| *i == id32)
            .and_then(|(_, w)| w.upgrade())
        {
            return Ok(Device { inner });
        }
        ensure_init()?;
        result::set_device(id32)?;
        let ctx = match result::create_context(id32) {
            Ok(ctx) => ctx,
            Err(e) => {
                let _ = result::reset_device(id32);
                return Err(e);
            }
        };
        let inner = Arc::new(DeviceInner {
            id: id32,
            ctx,
            deferred: Mutex::new(Deferred::default()),
        });
        devices.push((id32, Arc::downgrade(&inner)));
        Ok(Device { inner })
    }

    /// Number of devices AscendCL sees (1 on the simulator).
    pub fn count() -> Result<usize> {
        ensure_init()?;
        Ok(result::device_count()? as usize)
    }

    /// The device id.
    pub fn id(&self) -> usize {
        self.inner.id as usize
    }

    /// A new stream on this device (`aclrtCreateStream`). Work on one stream runs in
    /// order; different streams are not ordered with each other.
    pub fn stream(&self) -> Result<Stream> {
        Stream::new(self)
    }

    /// A new event on this device (`aclrtCreateEvent`).
    pub fn event(&self) -> Result<Event> {
        Event::new(self)
    }

    /// Makes this device's context current on the calling thread. The safe API does this
    /// itself; call it before raw FFI calls (e.g. a kernel launcher) that rely on the
    /// current context.
    pub fn bind_to_thread(&self) -> Result<()> {
        // SAFETY: `ctx` is live for as long as `self.inner` is (destroyed in its Drop).
        unsafe { result::set_current_context(self.inner.ctx) }
    }

    /// The raw AscendCL context handle (valid while this `Device` or a clone is alive).
    pub fn as_raw_context(&self) -> sys::aclrtContext {
        self.inner.ctx
    }

    /// Waits for all work on every stream of the device (`aclrtSynchronizeDevice`), then
    /// frees the buffers whose drop was deferred.
    ///
    /// # Errors
    /// The synchronize's error; a failed kernel is reported in full by
    /// [`Stream::synchronize`] on its stream.
    pub fn synchronize(&self) -> Result<()> {
        self.bind_to_thread()?;
        let r = result::synchronize_device();
        self.inner.free_deferred_after_sync();
        r
    }

    /// Queues a dropped buffer's memory for a later free (see the constants above).
    pub(crate) fn defer_free(&self, ptr: *mut c_void, bytes: usize) {
        let flush = {
            let mut d = self
                .inner
                .deferred
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            d.ptrs.push(ptr as usize);
            d.bytes += bytes;
            d.bytes > DEFERRED_FREE_MAX_BYTES || d.ptrs.len() > DEFERRED_FREE_MAX_BUFFERS
        };
        if flush && self.bind_to_thread().is_ok() {
            let _ = result::synchronize_device();
            self.inner.free_deferred_after_sync();
        }
    }

    /// Synchronizes and frees deferred buffers; true when there were any.
    pub(crate) fn flush_deferred(&self) -> bool {
        let any = !self
            .inner
            .deferred
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .ptrs
            .is_empty();
        if any && self.bind_to_thread().is_ok() {
            let _ = result::synchronize_device();
            self.inner.free_deferred_after_sync();
        }
        any
    }

    pub(crate) fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl DeviceInner {
    /// Frees every deferred pointer. Call only with the context bound and after a
    /// device-wide synchronize that began after the pointers were deferred.
    fn free_deferred_after_sync(&self) {
        let ptrs = {
            let mut d = self.deferred.lock().unwrap_or_else(|p| p.into_inner());
            d.bytes = 0;
            std::mem::take(&mut d.ptrs)
        };
        for p in ptrs {
            // SAFETY: each pointer came from aclrtMalloc for a DeviceBuffer that was
            // dropped (so nothing new can be queued with it) and is freed exactly once
            // (taken out of the list above); the device-wide synchronize that preceded
            // this call finished all work queued before the drop. A failure cannot be
            // reported from here; the simulator never frees on failure.
            let _ = unsafe { result::free(p as *mut c_void) };
        }
    }
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        let _devices = lock_devices();
        // SAFETY: `ctx` was created in Device::new and is destroyed only here, after the
        // last handle (and so every Stream, Event and DeviceBuffer, which hold one) is gone.
        unsafe {
            if result::set_current_context(self.ctx).is_ok() {
                let _ = result::synchronize_device();
                self.free_deferred_after_sync();
            }
            let _ = result::destroy_context(self.ctx);
        }
        let _ = result::reset_device(self.id);
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("id", &self.inner.id)
            .finish()
    }
}
