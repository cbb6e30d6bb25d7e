//! Errors: AscendCL codes with their names, kernel failures with the simulator's
//! structured diagnostics, and host-side argument errors.

use std::fmt;

use crate::sim::{Diagnostic, LaunchRecord};

/// An `aclError` code returned by AscendCL (never 0 inside an [`Error`]).
///
/// Displays as the symbolic name and the number, e.g.
/// `ACL_ERROR_RT_AICORE_EXCEPTION (507015)`. Values are CANN's published ones
/// (`acl/acl_base.h`, `acl/error_codes/rt_error_codes.h`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct AclError(pub i32);

macro_rules! acl_codes {
    ($($(#[$doc:meta])* $name:ident = $value:literal;)*) => {
        impl AclError {
            $($(#[$doc])* pub const $name: AclError = AclError($value);)*

            /// CANN's symbolic name of the code (`"ACL_ERROR_INVALID_PARAM"`), if known.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(concat!("ACL_", stringify!($name))),)*
                    _ => None,
                }
            }
        }
    };
}

acl_codes! {
    /// A parameter was rejected (null pointer, unknown handle, size 0, out-of-bounds copy).
    ERROR_INVALID_PARAM = 100000;
    /// AscendCL is not initialized.
    ERROR_UNINITIALIZE = 100001;
    /// `aclInit` was called twice.
    ERROR_REPEAT_INITIALIZE = 100002;
    /// `aclFinalize` without a matching `aclInit`.
    ERROR_REPEAT_FINALIZE = 100037;
    /// Host memory allocation failed.
    ERROR_BAD_ALLOC = 200000;
    /// The API is not supported.
    ERROR_API_NOT_SUPPORT = 200001;
    /// Invalid device.
    ERROR_INVALID_DEVICE = 200002;
    /// Invalid resource handle.
    ERROR_INVALID_RESOURCE_HANDLE = 200005;
    /// Internal error in AscendCL.
    ERROR_INTERNAL_ERROR = 500000;
    /// The runtime rejected a parameter.
    ERROR_RT_PARAM_INVALID = 107000;
    /// No device with that id.
    ERROR_RT_INVALID_DEVICEID = 107001;
    /// The calling thread has no current context.
    ERROR_RT_CONTEXT_NULL = 107002;
    /// An event has no timestamp (never recorded).
    ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
    /// The end event is earlier than the start event.
    ERROR_RT_EVENT_TIMESTAMP_REVERSAL = 107007;
    /// Device memory allocation failed.
    ERROR_RT_MEMORY_ALLOCATION = 207001;
    /// Freeing memory failed (not a live allocation).
    ERROR_RT_MEMORY_FREE = 207002;
    /// Runtime internal error.
    ERROR_RT_INTERNAL_ERROR = 507000;
    /// An event's record has not completed yet.
    ERROR_RT_EVENT_NOT_COMPLETE = 507006;
    /// An AI Core task exceeded its time limit.
    ERROR_RT_AICORE_TIMEOUT = 507014;
    /// An AI Core task faulted (on the simulator: a kernel broke a hardware rule).
    ERROR_RT_AICORE_EXCEPTION = 507015;
}

impl fmt::Display for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({})", self.0),
            None => write!(f, "aclError {}", self.0),
        }
    }
}

impl fmt::Debug for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An AscendCL call returned an error code.
    #[error("{call} failed: {code}{}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Acl {
        /// The AscendCL function, e.g. `"aclrtMalloc"`.
        call: &'static str,
        /// Its return code.
        code: AclError,
        /// `aclGetRecentErrMsg()` right after the call, when the runtime gave one.
        message: Option<String>,
    },
    /// A kernel launch failed while the stream ran it (on the simulator: a kernel broke a
    /// hardware rule; the record carries its diagnostics).
    #[error("{call} failed: {code}: {launch}")]
    Kernel {
        /// The call that reported the failure (`"aclrtSynchronizeStream"`).
        call: &'static str,
        /// `ACL_ERROR_RT_AICORE_EXCEPTION` on the simulator.
        code: AclError,
        /// The failed launch: kernel, blockDim, diagnostics.
        launch: Box<LaunchRecord>,
    },
    /// A kernel launcher (`aclrtlaunch_<kernel>`) returned an error code at launch time.
    #[error("launching kernel `{kernel}` failed: {code}{}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Launch {
        /// The kernel function name.
        kernel: String,
        /// The launcher's return code.
        code: AclError,
        /// `aclGetRecentErrMsg()` after the launch, when available.
        message: Option<String>,
    },
    /// A host-side argument is wrong (length, dtype, shape, device). Generated op wrappers
    /// report their checks through this variant.
    #[error("{op}: argument `{arg}`: expected {expected}, got {actual}")]
    InvalidArgument {
        /// The operation or method, e.g. `"rms_norm"` or `"DeviceBuffer::copy_from_slice"`.
        op: String,
        /// The argument's name.
        arg: String,
        /// What was required.
        expected: String,
        /// What was given.
        actual: String,
    },
    /// The simulator's C API answered something this crate could not read (a bug in one
    /// of the two; the text says what).
    #[error("simulator C API: {0}")]
    Sim(String),
}

impl Error {
    /// An [`Error::InvalidArgument`]: `op`'s argument `arg` should be `expected` but is
    /// `actual`.
    pub fn invalid_argument(
        op: impl Into<String>,
        arg: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Error {
        Error::InvalidArgument {
            op: op.into(),
            arg: arg.into(),
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// The AscendCL code behind the error, if it came from AscendCL.
    pub fn code(&self) -> Option<AclError> {
        match self {
            Error::Acl { code, .. } | Error::Kernel { code, .. } | Error::Launch { code, .. } => {
                Some(*code)
            }
            _ => None,
        }
    }

    /// The structured diagnostics of a failed kernel launch (empty for other errors and
    /// on the CANN backend, where the hardware reports no diagnostics).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Kernel { launch, .. } => &launch.diagnostics,
            _ => &[],
        }
    }

    /// The failed launch, for [`Error::Kernel`].
    pub fn launch(&self) -> Option<&LaunchRecord> {
        match self {
            Error::Kernel { launch, .. } => Some(launch),
            _ => None,
        }
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
