//! The error of [`Builder::try_build`](super::Builder::try_build): opaque, with a kind and a
//! chain of causes, as in `cc`.

use std::fmt;

/// What kind of problem stopped the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A required environment variable is missing or invalid (not run by Cargo, or the crate
    /// does not depend on `agenticcann`).
    Env,
    /// The `[package.metadata.agenticcann]` spec is invalid.
    Spec,
    /// A store entry, the user cache or the remote failed verification or could not be read.
    Store,
    /// An op has no kernel in any store root.
    Miss,
    /// `agenticcann.lock` is invalid or pins another entry.
    Lock,
    /// Compiling or linking the kernels failed.
    Toolchain,
    /// Generating headers, FFI or wrappers failed.
    Codegen,
    /// A file in `OUT_DIR` could not be written.
    Io,
}

/// Why a build failed. `Display` gives the whole message; [`std::error::Error::source`]
/// gives the underlying error where there is one.
pub struct Error {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error {
            kind,
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// The kind of problem.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message and every cause, one per line (`caused by: …`), as
    /// [`Builder::build`](super::Builder::build) prints it.
    pub fn report(&self) -> String {
        let mut out = format!("error: {}", self.message);
        let mut cur: Option<&(dyn std::error::Error + 'static)> = self
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static));
        while let Some(e) = cur {
            let text = e.to_string();
            if !self.message.contains(&text) {
                out.push_str(&format!("\n  caused by: {}", text.replace('\n', "\n    ")));
            }
            cur = e.source();
        }
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}): {}", self.kind, self.report())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
