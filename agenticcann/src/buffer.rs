//! [`DeviceBuffer`]: typed device memory with RAII free.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::size_of;
use std::ptr;

use crate::error::{AclError, Error, Result};
use crate::{result, sys, Device, DeviceRepr, Stream};

/// `len` elements of `T` in device memory (`aclrtMalloc`), freed when dropped.
///
/// # Ordering
/// Host ↔ device copies that involve host memory are synchronous and complete before the
/// method returns: [`DeviceBuffer::from_slice`] and [`DeviceBuffer::zeros`] fill fresh
/// memory; [`DeviceBuffer::to_vec`] and [`DeviceBuffer::copy_from_slice`] first wait for
/// the given stream, so they see (or overwrite after) every kernel queued on it. Device-only
/// operations ([`DeviceBuffer::memset_zeros`], [`DeviceBuffer::copy_from_device`]) are
/// queued on the stream. Work on *other* streams is not ordered with these calls; as on
/// the NPU, use one stream per buffer's producer/consumer chain or synchronize.
///
/// # Drop
/// Kernels still queued may use the memory after the buffer is dropped, so a drop never
/// frees at once: the pointer goes to the device's deferred-free list, freed after the
/// next device-wide synchronize — on [`Device::synchronize`], when the list exceeds
/// [`crate::DEFERRED_FREE_MAX_BYTES`] or [`crate::DEFERRED_FREE_MAX_BUFFERS`], when an
/// allocation fails for lack of memory, or when the last handle to the device goes.
/// Dropping never blocks on the common path, and freeing memory that queued work still
/// reads is impossible. (Freeing twice is impossible by construction: only `Drop` frees.)
///
/// # Empty buffers
/// A buffer of length 0 allocates nothing; its raw pointers are null.
pub struct DeviceBuffer<T: DeviceRepr> {
    ptr: *mut c_void,
    len: usize,
    device: Device,
    _marker: PhantomData<T>,
}

// SAFETY: the buffer owns its device allocation exclusively; the pointer is a device
// address that the host never dereferences directly (all access goes through AscendCL
// copies). T: DeviceRepr is Send + Sync plain data.
unsafe impl<T: DeviceRepr> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only reads device memory (copies out) or hands out the address;
// writes need `&mut DeviceBuffer`.
unsafe impl<T: DeviceRepr> Sync for DeviceBuffer<T> {}

impl<T: DeviceRepr> DeviceBuffer<T> {
    fn bytes_for(op: &str, len: usize) -> Result<usize> {
        len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::invalid_argument(
                op,
                "len",
                format!(
                    "at most {} {} elements",
                    usize::MAX / size_of::<T>(),
                    T::DTYPE
                ),
                len.to_string(),
            )
        })
    }

    /// Allocates `len` elements on `stream`'s device; contents unspecified (0xFF bytes on
    /// the simulator: NaN for floats). Every bit pattern is a valid `T`, so reading it is
    /// safe, just meaningless until something writes it — use it for kernel outputs.
    ///
    /// # Errors
    /// `ACL_ERROR_RT_MEMORY_ALLOCATION` when the device is out of memory.
    pub fn alloc(stream: &Stream, len: usize) -> Result<Self> {
        let device = stream.device().clone();
        let bytes = Self::bytes_for("DeviceBuffer::alloc", len)?;
        if bytes == 0 {
            return Ok(DeviceBuffer {
                ptr: ptr::null_mut(),
                len,
                device,
                _marker: PhantomData,
            });
        }
        device.bind_to_thread()?;
        let ptr = match result::malloc(bytes) {
            Err(e)
                if e.code() == Some(AclError::ERROR_RT_MEMORY_ALLOCATION)
                    && device.flush_deferred() =>
            {
                result::malloc(bytes)?
            }
            r => r?,
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device,
            _marker: PhantomData,
        })
    }

    /// Copies `data` to a new device buffer (synchronous; `data` may be reused at once).
    pub fn from_slice(stream: &Stream, data: &[T]) -> Result<Self> {
        let mut buf = Self::alloc(stream, data.len())?;
        buf.write_from_host(data)?;
        Ok(buf)
    }

    /// A new buffer of `len` zero elements (all bytes 0: `0.0` for floats).
    pub fn zeros(stream: &Stream, len: usize) -> Result<Self> {
        let buf = Self::alloc(stream, len)?;
        if !buf.ptr.is_null() {
            let bytes = buf.size_bytes();
            // SAFETY: `ptr` is a live allocation of `bytes` bytes owned by `buf`; no work
            // can be queued on it yet.
            unsafe { result::memset(buf.ptr, bytes, 0, bytes)? };
        }
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a buffer of 0 elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes (`len * size_of::<T>()`).
    pub fn size_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The device that owns the memory.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits for `stream`, then copies the whole buffer to a new `Vec`.
    ///
    /// # Errors
    /// [`Error::Kernel`] when a kernel on `stream` failed (with its diagnostics on the
    /// simulator); nothing is copied then.
    pub fn to_vec(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        self.check_stream("DeviceBuffer::to_vec", stream)?;
        stream.synchronize()?;
        if self.len > 0 {
            let bytes = self.size_bytes();
            // SAFETY: `out` has capacity for `len` elements = `bytes` bytes; the copy is
            // synchronous and writes all of them before `set_len`. Any bytes are a valid
            // `T` (DeviceRepr). The source is this buffer's live allocation.
            unsafe {
                result::memcpy(
                    out.as_mut_ptr() as *mut c_void,
                    bytes,
                    self.ptr,
                    bytes,
                    sys::ACL_MEMCPY_DEVICE_TO_HOST,
                )?;
                out.set_len(self.len);
            }
        }
        Ok(out)
    }

    /// Waits for `stream`, then copies the buffer into `dst` (same length).
    pub fn copy_to_slice(&self, stream: &Stream, dst: &mut [T]) -> Result<()> {
        self.check_len("DeviceBuffer::copy_to_slice", "dst", dst.len())?;
        self.check_stream("DeviceBuffer::copy_to_slice", stream)?;
        stream.synchronize()?;
        if self.len > 0 {
            let bytes = self.size_bytes();
            // SAFETY: `dst` is valid for `bytes` bytes of writes (same length, checked);
            // the copy is synchronous; any bytes are a valid `T`.
            unsafe {
                result::memcpy(
                    dst.as_mut_ptr() as *mut c_void,
                    bytes,
                    self.ptr,
                    bytes,
                    sys::ACL_MEMCPY_DEVICE_TO_HOST,
                )?;
            }
        }
        Ok(())
    }

    /// Waits for `stream` (so queued kernels have finished with the old contents), then
    /// copies `src` (same length) into the buffer.
    pub fn copy_from_slice(&mut self, stream: &Stream, src: &[T]) -> Result<()> {
        self.check_len("DeviceBuffer::copy_from_slice", "src", src.len())?;
        self.check_stream("DeviceBuffer::copy_from_slice", stream)?;
        stream.synchronize()?;
        self.write_from_host(src)
    }

    /// Queues "set every byte to 0" on `stream`.
    pub fn memset_zeros(&mut self, stream: &Stream) -> Result<()> {
        self.check_stream("DeviceBuffer::memset_zeros", stream)?;
        if self.len == 0 {
            return Ok(());
        }
        stream.device().bind_to_thread()?;
        let bytes = self.size_bytes();
        // SAFETY: device memory owned by `self`; it stays allocated until queued work has
        // finished (drop defers the free past a device-wide synchronize).
        unsafe { result::memset_async(self.ptr, bytes, 0, bytes, stream.as_raw()) }
    }

    /// Queues a device-to-device copy of `src` (same length) into this buffer on `stream`.
    pub fn copy_from_device(&mut self, stream: &Stream, src: &DeviceBuffer<T>) -> Result<()> {
        self.check_len("DeviceBuffer::copy_from_device", "src", src.len)?;
        self.check_stream("DeviceBuffer::copy_from_device", stream)?;
        src.check_stream("DeviceBuffer::copy_from_device", stream)?;
        if self.len == 0 {
            return Ok(());
        }
        stream.device().bind_to_thread()?;
        let bytes = self.size_bytes();
        // SAFETY: both are live device allocations of `bytes` bytes on the same device,
        // distinct (`&mut self` and `&src` cannot alias), kept allocated until queued work
        // finished (deferred free).
        unsafe {
            result::memcpy_async(
                self.ptr,
                bytes,
                src.ptr,
                bytes,
                sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
                stream.as_raw(),
            )
        }
    }

    /// The device address for an FFI kernel launch (an input). Never dereference it on
    /// the host. Null for an empty buffer. Valid while the buffer is alive.
    pub fn as_raw_ptr(&self) -> *const c_void {
        self.ptr
    }

    /// The device address for an FFI kernel launch that writes the buffer (an output).
    pub fn as_raw_mut_ptr(&mut self) -> *mut c_void {
        self.ptr
    }

    fn write_from_host(&mut self, src: &[T]) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.device.bind_to_thread()?;
        let bytes = self.size_bytes();
        // SAFETY: `src` holds `len` elements (checked by callers) = `bytes` readable
        // bytes; the destination is this buffer's live allocation of `bytes` bytes; the
        // copy is synchronous, so `src` is not used after return.
        unsafe {
            result::memcpy(
                self.ptr,
                bytes,
                src.as_ptr() as *const c_void,
                bytes,
                sys::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        }
    }

    fn check_len(&self, op: &str, arg: &str, got: usize) -> Result<()> {
        if got == self.len {
            Ok(())
        } else {
            Err(Error::invalid_argument(
                op,
                arg,
                format!("{} {} elements (the buffer's length)", self.len, T::DTYPE),
                format!("{got} elements"),
            ))
        }
    }

    fn check_stream(&self, op: &str, stream: &Stream) -> Result<()> {
        if self.device.same(stream.device()) {
            Ok(())
        } else {
            Err(Error::invalid_argument(
                op,
                "stream",
                format!("a stream of device {} (the buffer's)", self.device.id()),
                format!("a stream of device {}", stream.device().id()),
            ))
        }
    }
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            self.device.defer_free(self.ptr, self.size_bytes());
        }
    }
}

impl<T: DeviceRepr> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("dtype", &T::DTYPE)
            .field("len", &self.len)
            .field("device", &self.device.id())
            .field("ptr", &self.ptr)
            .finish()
    }
}
