//! `--lock`: pin an accepted entry in the crate's `agenticcann.lock`.

use std::path::{Path, PathBuf};

use agenticcann_build::key::Key;
use agenticcann_build::store::{lock_path, Digest, Lock};
use anyhow::{Context, Result};

/// The lock of the crate whose manifest is `manifest` (`<crate root>/agenticcann.lock`).
pub fn lock_path_of(manifest: &Path) -> PathBuf {
    lock_path(manifest.parent().unwrap_or_else(|| Path::new(".")))
}

/// Sets op `name` to (`key`, `manifest_digest`) in the lock next to `manifest`, creating the
/// lock when there is none; the file is replaced atomically, and left alone when it already
/// pins exactly that. Returns the lock's path.
///
/// # Errors
/// The existing lock cannot be read or parsed (it is left as it was), or cannot be written.
pub fn pin(manifest: &Path, name: &str, key: Key, manifest_digest: Digest) -> Result<PathBuf> {
    let path = lock_path_of(manifest);
    let mut lock = Lock::read(&path)
        .with_context(|| format!("cannot update {}", path.display()))?
        .unwrap_or_default();
    if lock
        .get(name)
        .is_some_and(|p| p.key == key && p.manifest == manifest_digest)
        && path.is_file()
    {
        return Ok(path);
    }
    lock.set(name, key, manifest_digest);
    lock.write_atomic(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Checks, before any work, that the lock next to `manifest` can be read and parsed (a
/// missing lock is fine: it will be created).
///
/// # Errors
/// As [`pin`] for reading.
pub fn check(manifest: &Path) -> Result<()> {
    let path = lock_path_of(manifest);
    Lock::read(&path).with_context(|| format!("cannot update {}", path.display()))?;
    Ok(())
}

/// Prints a warning when the pinned `entry` is not in the crate's kernels folder (`kernels`,
/// relative to the crate root), where the build looks first: the build would then need the
/// entry in the user cache or the remote.
pub fn warn_outside_store(manifest: &Path, kernels: &Path, entry: &Path) {
    let root = manifest.parent().unwrap_or_else(|| Path::new("."));
    let store = root.join(kernels);
    let inside = match (store.canonicalize(), entry.canonicalize()) {
        (Ok(s), Ok(e)) => e.parent() == Some(s.as_path()),
        _ => false,
    };
    if !inside {
        eprintln!(
            "warning: {} is not in the crate's kernels folder {}; the build looks there, in the \
             user cache and in the remote, so it will not find this entry unless you copy it there",
            entry.display(),
            store.display()
        );
    }
}
