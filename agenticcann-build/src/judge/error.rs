//! Problems of the judge or its environment: never the candidate's fault, never a verdict.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::toolchain::sim::{SocProfileError, ToolchainError};

/// A problem of the judge or its environment, not of the candidate: no verdict. A caller
/// tells "bad candidate" (an [`Evaluation`](super::Evaluation) that is not accepted) from
/// "broken judge" (this error) by the `Result`.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The simulator toolchain is not usable (a location unknown or incomplete).
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    /// The C++ compiler cannot be started (not installed: the message names the install
    /// line and `AGENTICCANN_CXX`).
    #[error("{message}")]
    Compiler {
        /// The compiler tried.
        compiler: PathBuf,
        /// What went wrong, with the fix.
        message: String,
    },
    /// The SoC profile cannot be read.
    #[error(transparent)]
    Profile(#[from] SocProfileError),
    /// A file or folder of the judge (cache, scratch) cannot be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What the judge tried (`write`, `create a scratch folder in`, …).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The judge's own harness does not build or run, or left records it cannot read (a
    /// bug of the judge, not the candidate's).
    #[error("the judge's harness failed: {0}")]
    Harness(String),
    /// [`run`](super::run) was called on a candidate that did not compile (a caller's
    /// mistake: check [`Compiled::ok`](super::Compiled::ok) first).
    #[error("the candidate did not compile: there is no program to run")]
    NotCompiled,
    /// The reference cannot be evaluated on a planned shape (a spec problem).
    #[error("the reference of `{op}` cannot be evaluated on {dims:?}: {message}")]
    Reference {
        /// The op.
        op: String,
        /// The shape.
        dims: BTreeMap<String, u64>,
        /// What failed.
        message: String,
    },
}

impl JudgeError {
    /// An I/O error of `action` on `path`.
    pub fn io(action: &'static str, path: &Path, source: std::io::Error) -> JudgeError {
        JudgeError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}
