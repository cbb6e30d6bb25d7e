//! Toolchains that turn store entries into a linked library (DESIGN §5 step 3).
//!
//! - [`sim`]: the one simulator toolchain, shared with the judge: the compiler description
//!   ([`sim::SimToolchain`]), one flag set ([`sim::FLAGS`]), the translation-unit generator
//!   ([`sim::unit`], also used by `cann`) and the build's parallel, content-addressed object
//!   builder ([`sim::ObjectBuilder`]) with one static archive; `aclrtlaunch_agc_<key16>`
//!   launchers generated there.
//! - [`cann`]: a generated CMake project over the toolkit's `ascendc_library`, built with
//!   the `cmake` crate.
//!
//! The backend is the one `agenticcann`'s build script chose (`DEP_AGENTICCANN_BACKEND`):
//! kernels must be built for the AscendCL the runtime links.

pub mod cann;
pub mod sim;

use std::fmt;
use std::path::Path;

/// Which AscendCL the kernels are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `ascendc-sim`.
    Sim,
    /// A CANN toolkit and an NPU.
    Cann,
}

impl Backend {
    /// Parses `sim` or `cann` (case-insensitive).
    pub fn parse(s: &str) -> Option<Backend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sim" => Some(Backend::Sim),
            "cann" => Some(Backend::Cann),
            _ => None,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sim => "sim",
            Backend::Cann => "cann",
        })
    }
}

/// A toolchain failure: the message says what was compiled, the command and the output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolchainError {
    /// The whole message.
    pub message: String,
}

impl ToolchainError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolchainError {
            message: message.into(),
        }
    }

    pub(crate) fn io(action: &str, path: &Path, e: std::io::Error) -> Self {
        ToolchainError::new(format!("cannot {action} {}: {e}", path.display()))
    }
}

/// The command that installs the host C++ compiler on Debian and Ubuntu.
pub const INSTALL_CXX: &str = "sudo apt-get install g++";

/// The message for a C++ compiler `compiler` that could not be started (`err`): when it
/// does not exist, it names [`INSTALL_CXX`] and the variables that choose another one.
pub fn cannot_run_compiler(compiler: &std::path::Path, err: &std::io::Error) -> String {
    if err.kind() == std::io::ErrorKind::NotFound {
        format!(
            "the C++ compiler `{}` was not found: install one with `{INSTALL_CXX}` (Debian/Ubuntu; \
             g++ >= 12 or clang >= 16 for C++20), or set AGENTICCANN_CXX (or CXX) to a C++20 compiler",
            compiler.display()
        )
    } else {
        format!(
            "cannot run the C++ compiler `{}`: {err}",
            compiler.display()
        )
    }
}
