//! [`Stream`]: an in-order queue of device work.

use std::sync::Arc;

use crate::error::{AclError, Error, Result};
use crate::sim::{LaunchRecord, LaunchReport};
use crate::{result, sys, Device, Event};

/// An AscendCL stream: kernel launches, copies and event records queued on it run in
/// order, asynchronously to the host, as on the NPU.
///
/// Cheap to clone (a shared handle); destroyed (after its queued work finished) when the
/// last clone is dropped.
///
/// When a kernel launched on the stream fails, the stream enters a sticky error state
/// (as the NPU does after an AI Core exception): work queued behind it does not run and
/// every later synchronize returns the same [`Error::Kernel`]. Create a new stream to go
/// on.
#[derive(Clone)]
pub struct Stream {
    inner: Arc<StreamInner>,
}

struct StreamInner {
    raw: sys::aclrtStream,
    device: Device,
}

// SAFETY: the stream handle is an opaque token owned by the AscendCL runtime, which
// accepts calls on one stream from several threads (the simulator's runtime locks
// internally); every call binds the device's context on the calling thread first.
unsafe impl Send for StreamInner {}
// SAFETY: as above; `&StreamInner` exposes only the handle value and the Device.
unsafe impl Sync for StreamInner {}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if self.device.bind_to_thread().is_ok() {
            // SAFETY: `raw` came from aclrtCreateStream and this is its only destroy;
            // no clone of the Stream is left to use it. The runtime drains the stream's
            // queue before destroying it.
            let _ = unsafe { result::destroy_stream(self.raw) };
        }
    }
}

impl Stream {
    pub(crate) fn new(device: &Device) -> Result<Stream> {
        device.bind_to_thread()?;
        let raw = result::create_stream()?;
        Ok(Stream {
            inner: Arc::new(StreamInner {
                raw,
                device: device.clone(),
            }),
        })
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The raw `aclrtStream` for FFI launches; valid while this `Stream` (or a clone) is
    /// alive. Prefer [`Stream::launch`], which binds the context and checks the code.
    pub fn as_raw(&self) -> sys::aclrtStream {
        self.inner.raw
    }

    /// Blocks until all work queued on the stream has run (`aclrtSynchronizeStream`).
    ///
    /// # Errors
    /// [`Error::Kernel`] with `ACL_ERROR_RT_AICORE_EXCEPTION` when a kernel on the stream
    /// failed; on the simulator it carries the failed launch and its diagnostics.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.device.bind_to_thread()?;
        // SAFETY: `raw` is live while `self` is.
        unsafe { result::synchronize_stream(self.inner.raw) }
    }

    /// Creates an event and records it on this stream.
    pub fn record_event(&self) -> Result<Event> {
        let e = Event::new(&self.inner.device)?;
        e.record(self)?;
        Ok(e)
    }

    /// Launches a kernel through a raw launcher: binds the device's context on this
    /// thread, calls `launch` with the raw stream, and turns a non-zero return code into
    /// [`Error::Launch`] naming `kernel`. The launch is asynchronous; errors inside the
    /// kernel surface at the next synchronize.
    ///
    /// ```ignore
    /// stream.launch("add_custom", |s| unsafe {
    ///     aclrtlaunch_add_custom(block_dim, s, x.as_raw_ptr() as _, y.as_raw_ptr() as _, z.as_raw_mut_ptr())
    /// })?;
    /// ```
    pub fn launch<F>(&self, kernel: &str, launch: F) -> Result<()>
    where
        F: FnOnce(sys::aclrtStream) -> u32,
    {
        self.inner.device.bind_to_thread()?;
        let code = launch(self.inner.raw);
        if code == 0 {
            Ok(())
        } else {
            Err(Error::Launch {
                kernel: kernel.to_string(),
                code: AclError(code as i32),
                message: result::recent_error_message(),
            })
        }
    }

    /// Waits for the stream's queued work, then returns the launches that finished on it
    /// since the previous call (oldest first; the simulator keeps at most the 4096 most
    /// recent). A failed launch is included, not returned as an error. Always empty on
    /// the CANN backend, where the hardware keeps no per-launch records.
    pub fn take_launches(&self) -> Result<Vec<LaunchRecord>> {
        self.wait_ignoring_kernel_failure()?;
        // SAFETY: `raw` is live while `self` is.
        unsafe { result::stream_take_launches(self.inner.raw) }
    }

    /// Waits for the stream's queued work, then returns its most recent launch (failed or
    /// not), without consuming anything. `None` on CANN or before any launch finished.
    pub fn last_launch(&self) -> Result<Option<LaunchRecord>> {
        self.wait_ignoring_kernel_failure()?;
        // SAFETY: `raw` is live while `self` is.
        unsafe { result::stream_last_launch(self.inner.raw) }
    }

    /// The cost model's report of the most recent successful-or-not launch: `None` when
    /// that launch failed, none ran yet, or on CANN.
    pub fn last_launch_report(&self) -> Result<Option<LaunchReport>> {
        Ok(self.last_launch()?.and_then(|r| r.report))
    }

    fn wait_ignoring_kernel_failure(&self) -> Result<()> {
        match self.synchronize() {
            Ok(()) | Err(Error::Kernel { .. }) => Ok(()),
            Err(e) if e.code() == Some(AclError::ERROR_RT_AICORE_EXCEPTION) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.inner.device.id())
            .field("raw", &self.inner.raw)
            .finish()
    }
}
