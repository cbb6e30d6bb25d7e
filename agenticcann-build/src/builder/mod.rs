//! [`Builder`]: the build-script face of agenticcann-build, shaped like `cc::Build`.
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     agenticcann_build::Builder::from_env().build();
//! }
//! ```
//!
//! For each op of the crate's `[package.metadata.agenticcann]`: key → store lookup (crate
//! `kernels/`, user cache, remote) with every file verified → the lock's pin checked →
//! headers and launchers generated → kernels compiled (only those whose content changed) and
//! linked → `$OUT_DIR/agenticcann_ops.rs` written for `agenticcann::include_ops!()`.

mod error;
mod miss;
mod run;

use std::path::PathBuf;

pub use error::{Error, ErrorKind};
pub use miss::{miss_message, Miss};
pub use run::{BuildReport, BuiltOp};

use crate::toolchain::Backend;

/// Configures and runs the build of a crate's kernels. Every setting defaults to what Cargo
/// and `agenticcann`'s build script provide (see the crate docs for the environment
/// variables); setters override them.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    pub(crate) manifest_dir: Option<PathBuf>,
    pub(crate) out_dir: Option<PathBuf>,
    pub(crate) backend: Option<Backend>,
    pub(crate) sim_include: Option<PathBuf>,
    pub(crate) toolkit: Option<PathBuf>,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) remote: Option<Option<String>>,
    pub(crate) offline: Option<bool>,
    pub(crate) synth_on_miss: Option<bool>,
    pub(crate) docs_rs: Option<bool>,
    pub(crate) jobs: Option<usize>,
    pub(crate) target: Option<String>,
    pub(crate) host: Option<String>,
    pub(crate) flags: Vec<String>,
    pub(crate) lib_name: Option<String>,
    pub(crate) cargo_metadata: Option<bool>,
    pub(crate) env_overrides: Vec<(String, Option<String>)>,
}

impl Builder {
    /// A builder that takes every setting from the environment when it runs (Cargo's
    /// `CARGO_MANIFEST_DIR`, `OUT_DIR`, `TARGET`, `HOST`, `NUM_JOBS`; `agenticcann`'s
    /// `DEP_AGENTICCANN_*`; `AGENTICCANN_CACHE_DIR`, `AGENTICCANN_REMOTE`,
    /// `AGENTICCANN_OFFLINE`, `DOCS_RS`). Nothing is read until [`try_build`](Self::try_build).
    pub fn from_env() -> Builder {
        Builder::default()
    }

    /// Same as [`from_env`](Self::from_env).
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The crate root holding `Cargo.toml` (default `$CARGO_MANIFEST_DIR`).
    pub fn manifest_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Where generated files, objects and the library go (default `$OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The backend to build for (default `$DEP_AGENTICCANN_BACKEND`, the runtime's choice;
    /// overriding it makes kernels the runtime cannot launch unless both agree).
    pub fn backend(&mut self, backend: Backend) -> &mut Self {
        self.backend = Some(backend);
        self
    }

    /// The simulator's header folder (default `$DEP_AGENTICCANN_SIM_INCLUDE`).
    pub fn sim_include(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.sim_include = Some(dir.into());
        self
    }

    /// The CANN toolkit root (default `$DEP_AGENTICCANN_TOOLKIT`).
    pub fn toolkit(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.toolkit = Some(dir.into());
        self
    }

    /// The user cache root (default `$AGENTICCANN_CACHE_DIR`, else the platform cache dir +
    /// `agenticcann/store`).
    pub fn cache_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.cache_dir = Some(dir.into());
        self
    }

    /// The remote store URL, or `None` for no remote (default `$AGENTICCANN_REMOTE`).
    pub fn remote(&mut self, url: Option<&str>) -> &mut Self {
        self.remote = Some(url.map(str::to_string));
        self
    }

    /// Never contact the remote (default: `$AGENTICCANN_OFFLINE` set to anything but
    /// `0`/`false`/`no`/`off`).
    pub fn offline(&mut self, offline: bool) -> &mut Self {
        self.offline = Some(offline);
        self
    }

    /// On a store miss, synthesize a verified kernel with the offline proposer into
    /// `OUT_DIR` and warn, instead of failing (default: true unless `$AGENTICCANN_NO_SYNTH`
    /// is set to anything but `0`/`false`/`no`/`off`). With `false`, a miss is the
    /// [`ErrorKind::Miss`](crate::ErrorKind::Miss) error.
    pub fn synth_on_miss(&mut self, synth: bool) -> &mut Self {
        self.synth_on_miss = Some(synth);
        self
    }

    /// Generate documentation stubs only, compile nothing (default: `$DOCS_RS` is set).
    pub fn docs_only(&mut self, docs: bool) -> &mut Self {
        self.docs_rs = Some(docs);
        self
    }

    /// Parallel compiler processes (default `$NUM_JOBS`, else the available parallelism).
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// The target triple (default `$TARGET`, else the host's).
    pub fn target(&mut self, triple: &str) -> &mut Self {
        self.target = Some(triple.to_string());
        self
    }

    /// The host triple (default `$HOST`, else the target).
    pub fn host(&mut self, triple: &str) -> &mut Self {
        self.host = Some(triple.to_string());
        self
    }

    /// An extra flag for the kernel compiler (simulator backend), after [`crate::toolchain::sim::FLAGS`]; a
    /// store miss is judged with it too.
    pub fn flag(&mut self, flag: &str) -> &mut Self {
        self.flags.push(flag.to_string());
        self
    }

    /// The static library's name (default `agenticcann_<package>`).
    pub fn lib_name(&mut self, name: &str) -> &mut Self {
        self.lib_name = Some(name.to_string());
        self
    }

    /// Print `cargo:` lines (default true; turn off when running outside a build script).
    pub fn cargo_metadata(&mut self, emit: bool) -> &mut Self {
        self.cargo_metadata = Some(emit);
        self
    }

    /// Makes reads of the environment variable `name` return `value` instead of the
    /// process's (`None` hides it), for tools and tests that drive a build outside Cargo.
    pub fn env_override(&mut self, name: &str, value: Option<&str>) -> &mut Self {
        self.env_overrides
            .push((name.to_string(), value.map(str::to_string)));
        self
    }

    /// Runs the build.
    ///
    /// # Errors
    /// An [`Error`] whose [`kind`](Error::kind) says what failed and whose message names the
    /// op, key, file or command involved.
    pub fn try_build(&self) -> Result<BuildReport, Error> {
        run::run(self)
    }

    /// Runs the build; on failure prints the error and its causes to stderr and exits with
    /// status 1 (no panic, no backtrace), so Cargo shows just the message.
    pub fn build(&self) -> BuildReport {
        match self.try_build() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}", e.report());
                std::process::exit(1);
            }
        }
    }
}
