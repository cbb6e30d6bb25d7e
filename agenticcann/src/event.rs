//! [`Event`]: a marker recorded on a stream, for ordering and timing.

use crate::error::{Error, Result};
use crate::{result, sys, Device, Stream};

/// An AscendCL event. Recording it on a stream marks a point in that stream's work;
/// [`Event::elapsed_ms`] measures device time between two such points.
///
/// On the simulator, time is the cost model's: each stream has a modelled clock that
/// kernel launches advance by their `LaunchReport::total_us` (copies and memsets take no
/// modelled time), and an event takes the clock's value when the stream reaches it. Host
/// code therefore times kernels the same way on the simulator and on an NPU.
pub struct Event {
    raw: sys::aclrtEvent,
    device: Device,
}

// SAFETY: the event handle is an opaque token owned by the AscendCL runtime, which
// accepts calls from any thread once the context is bound (done before every call).
unsafe impl Send for Event {}
// SAFETY: as above; `&Event` only passes the handle to AscendCL, which synchronizes
// internally (the simulator locks each event).
unsafe impl Sync for Event {}

impl Event {
    /// Creates an event on `device` (`aclrtCreateEvent`).
    pub fn new(device: &Device) -> Result<Event> {
        device.bind_to_thread()?;
        let raw = result::create_event()?;
        Ok(Event {
            raw,
            device: device.clone(),
        })
    }

    /// Records the event on `stream` (`aclrtRecordEvent`): it completes when the stream
    /// reaches this point. Recording again moves the event to the new point.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if !self.device.same(stream.device()) {
            return Err(Error::invalid_argument(
                "Event::record",
                "stream",
                format!("a stream of device {}", self.device.id()),
                format!("a stream of device {}", stream.device().id()),
            ));
        }
        self.device.bind_to_thread()?;
        // SAFETY: both handles are live while `self` and `stream` are.
        unsafe { result::record_event(self.raw, stream.as_raw()) }
    }

    /// Blocks until the latest record of the event completed (`aclrtSynchronizeEvent`).
    ///
    /// # Errors
    /// `ACL_ERROR_RT_AICORE_EXCEPTION` when the stream had a failed kernel before the
    /// record (synchronize the stream for the diagnostics).
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind_to_thread()?;
        // SAFETY: `raw` is live while `self` is.
        unsafe { result::synchronize_event(self.raw) }
    }

    /// Device time from `start` to `end` in milliseconds (`aclrtEventElapsedTime`),
    /// after waiting for both records to complete.
    ///
    /// # Errors
    /// `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID` when an event was never recorded;
    /// `ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL` when `end` comes before `start`; on the
    /// simulator, `ACL_ERROR_RT_PARAM_INVALID` when they were recorded on different streams
    /// (each simulated stream has its own modelled clock).
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
        start.synchronize()?;
        end.synchronize()?;
        // SAFETY: both handles are live while the references are.
        unsafe { result::event_elapsed_ms(start.raw, end.raw) }
    }

    /// The raw `aclrtEvent`, valid while this `Event` is alive.
    pub fn as_raw(&self) -> sys::aclrtEvent {
        self.raw
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind_to_thread().is_ok() {
            // SAFETY: `raw` came from aclrtCreateEvent and is destroyed once, here, after
            // its latest record completed (CANN asks that no task still uses the event;
            // a failed stream completes records too, so this cannot hang).
            unsafe {
                let _ = result::synchronize_event(self.raw);
                let _ = result::destroy_event(self.raw);
            }
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("device", &self.device.id())
            .field("raw", &self.raw)
            .finish()
    }
}
