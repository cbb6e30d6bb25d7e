//! The kernel store (DESIGN §4, docs/store-format.md): entries named by content key,
//! verified against their digests before any use, found in order in
//!
//! 1. the crate's `kernels/` folder (spec field `kernels`, committed like `Cargo.lock`),
//! 2. the user cache (`$AGENTICCANN_CACHE_DIR`, else the platform cache dir +
//!    `agenticcann/store`, e.g. `~/.cache/agenticcann/store` on Linux),
//! 3. the remote (`$AGENTICCANN_REMOTE`, Bazel HTTP cache protocol) unless
//!    `$AGENTICCANN_OFFLINE` is set; a fetched entry is verified, then written into the user
//!    cache atomically so the next build finds it there.
//!
//! - [`Entry`]: one verified entry on disk ([`Entry::load`]); [`write_entry`] installs a
//!   [`Draft`] (op, candidate, provenance, evaluation) atomically (temporary folder + rename),
//!   [`replace_entry`] replaces one through a staged copy; [`install_entry`] does the same
//!   for a manifest text and its files (entries fetched from a remote).
//! - [`Manifest`]: `manifest.toml`, typed.
//! - [`Lock`]: `agenticcann.lock`, read and written atomically; [`lock::pin`] pins an
//!   accepted entry in a crate's lock.
//! - [`Remote`]: the HTTP client.
//! - [`Store`]: the three roots and [`Store::lookup`].
//!
//! A file that does not match its digest is an error naming the file and both digests
//! ([`StoreError::DigestMismatch`]), never a silent rebuild or re-fetch.

mod digest;
mod draft;
mod entry;
mod error;
pub mod lock;
mod manifest;
pub mod remote;

use std::fmt;
use std::path::{Path, PathBuf};

pub use digest::{Digest, DigestParseError};
pub use draft::{replace_entry, write_entry, Draft};
pub use entry::{install_entry, reinstall_entry, Entry};
pub use error::{LockMismatch, StoreError};
pub use lock::{
    lock_path, touch_manifest, write_file_atomic, Lock, LockedOp, StaleOp, LOCK_FILE, LOCK_VERSION,
};
pub use manifest::{
    FieldType, KnowledgeRef, Manifest, ManifestError, MeasuredShape, Performance, PhaseTokens,
    Proposer, Provenance, TilingField, TilingLayout, Verification, VerifiedShape, KERNEL_FILE,
    MANIFEST_FILE, STORE_FORMAT, TILING_FILE,
};
pub use remote::{FetchedEntry, Remote, RemoteError, RemoteOptions};

use crate::key::Key;

/// Where a found entry came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The crate's `kernels/` folder.
    CrateKernels,
    /// The user cache.
    UserCache,
    /// Fetched from the remote at this URL (and written into the user cache).
    Remote(String),
    /// Synthesized on a miss by the offline proposer, verified by the judge and cached in
    /// the build's `OUT_DIR` (never in the crate's `kernels/` folder).
    Synthesized,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::CrateKernels => f.write_str("the crate's kernels folder"),
            Source::UserCache => f.write_str("the user cache"),
            Source::Remote(url) => write!(f, "the remote store {url}"),
            Source::Synthesized => {
                f.write_str("the offline proposer (verified, cached in OUT_DIR)")
            }
        }
    }
}

/// A verified entry and where it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The entry (in the crate's folder or the user cache).
    pub entry: Entry,
    /// Where it came from.
    pub source: Source,
}

/// The store roots of one build, in lookup order.
#[derive(Debug)]
pub struct Store {
    /// The crate's store folder (`<crate root>/kernels`).
    pub crate_kernels: PathBuf,
    /// The user cache root; remote fetches are written here.
    pub user_cache: PathBuf,
    /// The remote, when configured and not offline.
    pub remote: Option<Remote>,
    /// Why no remote is used, for error messages (`"AGENTICCANN_OFFLINE is set"`, …).
    pub remote_note: Option<String>,
}

/// The user cache root from the environment: `$AGENTICCANN_CACHE_DIR`, else the platform
/// cache dir (`$XDG_CACHE_HOME` or `~/.cache` on Linux) + `agenticcann/store`. `None` when
/// neither is known (the caller picks a fallback, e.g. inside `OUT_DIR`).
pub fn user_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = env("AGENTICCANN_CACHE_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    platform_cache_dir(env).map(|d| d.join("agenticcann").join("store"))
}

/// The platform cache dir, reading its variables through `env` (so a build script re-runs
/// when they change): on Linux `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache`; on
/// other systems the `dirs` crate's answer (after announcing `HOME`).
fn platform_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if cfg!(target_os = "linux") {
        env("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache")))
    } else {
        let _ = env("HOME");
        dirs::cache_dir()
    }
}

impl Store {
    /// The store of a crate whose store folder is `crate_kernels`, with the user cache and
    /// remote configured from `env`: `AGENTICCANN_CACHE_DIR`, `AGENTICCANN_REMOTE`,
    /// `AGENTICCANN_OFFLINE` (any value but `0`/`false`/`no`/`off`, [`crate::env::parse_flag`],
    /// means offline: no request
    /// is made, the remote client is not even built). `fallback_cache` is used when no
    /// user cache dir is known.
    ///
    /// # Errors
    /// [`RemoteError::InvalidUrl`] / [`RemoteError::Disabled`] for a remote that cannot be
    /// used (only when not offline).
    pub fn from_env(
        crate_kernels: PathBuf,
        fallback_cache: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Store, StoreError> {
        let user_cache = user_cache_dir(env).unwrap_or_else(|| fallback_cache.to_path_buf());
        let offline = env("AGENTICCANN_OFFLINE").is_some_and(|v| crate::env::parse_flag(&v));
        let url = env("AGENTICCANN_REMOTE").filter(|v| !v.trim().is_empty());
        let (remote, remote_note) = match (url, offline) {
            (None, _) => (None, Some("AGENTICCANN_REMOTE is not set".to_string())),
            (Some(u), true) => (
                None,
                Some(format!(
                    "remote {} not asked: AGENTICCANN_OFFLINE is set",
                    remote::split_credentials(u.trim()).0
                )),
            ),
            (Some(u), false) => (Some(Remote::new(&u, RemoteOptions::default())?), None),
        };
        Ok(Store {
            crate_kernels,
            user_cache,
            remote,
            remote_note,
        })
    }

    /// Finds the entry of `key`: the crate's folder, then the user cache, then the remote
    /// (whose entry is verified and written into the user cache). `Ok(None)` when no root
    /// has it.
    ///
    /// An entry that exists but fails verification is an error, not a miss: lookup does not
    /// fall through to the next root, so a tampered `kernels/` entry can never be replaced
    /// silently by a cached or fetched one.
    ///
    /// # Errors
    /// [`StoreError`] naming the file, folder or URL.
    pub fn lookup(&self, key: &Key) -> Result<Option<Found>, StoreError> {
        for (root, source) in [
            (&self.crate_kernels, Source::CrateKernels),
            (&self.user_cache, Source::UserCache),
        ] {
            let dir = root.join(key.to_hex());
            if dir.exists() {
                return Ok(Some(Found {
                    entry: Entry::load_with_key(&dir, key)?,
                    source,
                }));
            }
        }
        let Some(remote) = &self.remote else {
            return Ok(None);
        };
        let Some(fetched) = remote.fetch(key)? else {
            return Ok(None);
        };
        let files: Vec<(&str, &[u8])> = fetched
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        let entry = install_entry(&self.user_cache, &fetched.manifest_text, &files)?;
        Ok(Some(Found {
            entry,
            source: Source::Remote(remote.url().to_string()),
        }))
    }

    /// The places [`lookup`](Self::lookup) searched, one line each, for miss messages.
    pub fn searched(&self, key: &Key) -> Vec<String> {
        let mut out = vec![
            format!("{}", self.crate_kernels.join(key.to_hex()).display()),
            format!(
                "{} (user cache)",
                self.user_cache.join(key.to_hex()).display()
            ),
        ];
        match (&self.remote, &self.remote_note) {
            (Some(r), _) => out.push(r.ac_url(key)),
            (None, Some(note)) => out.push(format!("no remote: {note}")),
            (None, None) => {}
        }
        out
    }
}
