//! The errors of the store: each names the file (or URL) and what was wrong with it.

use std::path::PathBuf;

use super::digest::Digest;
use super::manifest::ManifestError;
use crate::key::Key;

/// Something in a store entry, the user cache, the remote or the lock file that cannot be
/// used. Never recovered from silently: a build stops and shows it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A file or folder could not be read, written or renamed.
    // The OS error is part of the message and deliberately not a `source()`, so an error
    // chain printed with its causes does not repeat it.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// What was being done (`"read"`, `"create"`, `"rename into place"`).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// `manifest.toml` is not a valid store manifest.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A folder in a store root whose name is not a key.
    #[error("{} is not a store entry: its folder name must be the op's 64-hex-digit key", path.display())]
    NotAnEntry {
        /// The folder.
        path: PathBuf,
    },
    /// The manifest's `key` differs from the key the entry was looked up by.
    #[error(
        "{} declares key {actual}, but key {expected} was expected (the entry's folder name, \
         or the key of the op it is loaded for: an entry serves only the op whose spec has its key)",
        manifest.display()
    )]
    KeyMismatch {
        /// The manifest.
        manifest: PathBuf,
        /// The key of the folder (and of the spec).
        expected: Key,
        /// The `key` written in the manifest.
        actual: Key,
    },
    /// A file listed in `[files]` is missing.
    #[error("{} lists `{file}` in [files], but {} does not exist", manifest.display(), path.display())]
    MissingFile {
        /// The manifest.
        manifest: PathBuf,
        /// The name in `[files]`.
        file: String,
        /// Where the file should be.
        path: PathBuf,
    },
    /// A file's bytes do not hash to the digest in the manifest: the file was edited or
    /// corrupted after the entry was written.
    #[error(
        "{} does not match its digest in the entry's manifest.toml: expected sha256 {expected}, \
         found {actual}. The file was changed after the entry was verified; restore it (e.g. \
         `git checkout`), or re-judge the change and rewrite the entry with `cargo agenticcann \
         judge --op <op> --update <entry folder>` (add --lock to pin it); agenticcann never \
         rebuilds a changed entry silently",
        path.display()
    )]
    DigestMismatch {
        /// The file.
        path: PathBuf,
        /// The digest in `[files]`.
        expected: Digest,
        /// The digest of the bytes found.
        actual: Digest,
    },
    /// The lock file pins the op to another manifest than the one found.
    #[error(transparent)]
    LockMismatch(Box<LockMismatch>),
    /// The lock file is not valid.
    #[error("invalid lock file {}: {message}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The remote store failed.
    #[error(transparent)]
    Remote(Box<super::remote::RemoteError>),
}

/// The details of [`StoreError::LockMismatch`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{} pins op `{op}` (key {key}) to manifest sha256 {expected}, but {} has sha256 {actual}; \
     if the new entry is intended, judge and re-pin it with `cargo agenticcann judge --op {op} --lock {}`",
    lock.display(),
    manifest.display(),
    manifest.parent().unwrap_or(manifest).display()
)]
pub struct LockMismatch {
    /// The lock file.
    pub lock: PathBuf,
    /// The op.
    pub op: String,
    /// The key.
    pub key: Key,
    /// The pinned manifest digest.
    pub expected: Digest,
    /// The digest of the manifest found.
    pub actual: Digest,
    /// The manifest found.
    pub manifest: PathBuf,
}

impl From<super::remote::RemoteError> for StoreError {
    fn from(e: super::remote::RemoteError) -> Self {
        StoreError::Remote(Box::new(e))
    }
}

impl StoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        StoreError::Io {
            action,
            path: path.into(),
            error: source,
        }
    }
}
