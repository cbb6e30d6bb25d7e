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
/// lock when there is none; the file is replaced atomically. Returns the lock's path.
///
/// # Errors
/// The existing lock cannot be read or parsed (it is left as it was), or cannot be written.
pub fn pin(manifest: &Path, name: &str, key: Key, manifest_digest: Digest) -> Result<PathBuf> {
    let path = lock_path_of(manifest);
    let mut lock = Lock::read(&path)
        .with_context(|| format!("cannot update {}", path.display()))?
        .unwrap_or_default();
    lock.set(name, key, manifest_digest);
    lock.write_atomic(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
