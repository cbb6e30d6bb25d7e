//! A store entry on disk: `<root>/<key>/{manifest.toml, kernel.cpp, tiling.cpp}`, loaded
//! only after every file matched its digest (docs/store-format.md §1, §3).

use std::path::{Path, PathBuf};

use super::digest::Digest;
use super::error::StoreError;
use super::manifest::{Manifest, KERNEL_FILE, MANIFEST_FILE, TILING_FILE};
use crate::judge::Candidate;
use crate::key::Key;

/// A verified store entry: its folder, manifest and the manifest's digest.
///
/// Holding an `Entry` means that, when it was loaded, the manifest was valid, its key equal
/// to the folder name, and every file listed in `[files]` hashed to its digest.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The entry's folder (`<root>/<key>`).
    pub dir: PathBuf,
    /// The parsed manifest.
    pub manifest: Manifest,
    /// sha256 of `manifest.toml`'s bytes (what the lock file pins).
    pub manifest_digest: Digest,
}

impl Entry {
    /// Loads the entry in `dir`, whose name must be the key, and verifies every file.
    ///
    /// # Errors
    /// [`StoreError::NotAnEntry`] when the folder name is not a key; otherwise as
    /// [`load_with_key`](Self::load_with_key).
    pub fn load(dir: &Path) -> Result<Entry, StoreError> {
        let key = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<Key>().ok())
            .filter(|k| dir.file_name().and_then(|n| n.to_str()) == Some(k.to_hex().as_str()))
            .ok_or_else(|| StoreError::NotAnEntry {
                path: dir.to_path_buf(),
            })?;
        Entry::load_with_key(dir, &key)
    }

    /// Loads the entry in `dir` expecting `key` (the spec's), whatever the folder is called
    /// (the judge loads candidate folders this way).
    ///
    /// # Errors
    /// [`StoreError::Io`] when `manifest.toml` cannot be read, [`StoreError::Manifest`]
    /// when it is invalid, [`StoreError::KeyMismatch`] when its key is not `key`,
    /// [`StoreError::MissingFile`] / [`StoreError::DigestMismatch`] for the first listed file
    /// that is missing or changed (the error names the file and both digests).
    pub fn load_with_key(dir: &Path, key: &Key) -> Result<Entry, StoreError> {
        let manifest_path = dir.join(MANIFEST_FILE);
        let bytes =
            std::fs::read(&manifest_path).map_err(|e| StoreError::io("read", &manifest_path, e))?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            StoreError::Manifest(super::manifest::ManifestError {
                origin: manifest_path.display().to_string(),
                message: format!("not UTF-8: {e}"),
            })
        })?;
        let manifest = Manifest::from_toml_str(text, &manifest_path.display().to_string())?;
        if manifest.key != *key {
            return Err(StoreError::KeyMismatch {
                manifest: manifest_path,
                expected: *key,
                actual: manifest.key,
            });
        }
        for (name, expected) in &manifest.files {
            let path = dir.join(name);
            let actual = match Digest::of_file(&path) {
                Ok(d) => d,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(StoreError::MissingFile {
                        manifest: manifest_path,
                        file: name.clone(),
                        path,
                    })
                }
                Err(e) => return Err(StoreError::io("read", path, e)),
            };
            if actual != *expected {
                return Err(StoreError::DigestMismatch {
                    path,
                    expected: *expected,
                    actual,
                });
            }
        }
        Ok(Entry {
            dir: dir.to_path_buf(),
            manifest,
            manifest_digest: Digest::of(&bytes),
        })
    }

    /// The key.
    pub fn key(&self) -> Key {
        self.manifest.key
    }

    /// `<dir>/manifest.toml`.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST_FILE)
    }

    /// `<dir>/kernel.cpp`.
    pub fn kernel_path(&self) -> PathBuf {
        self.dir.join(KERNEL_FILE)
    }

    /// `<dir>/tiling.cpp`.
    pub fn tiling_path(&self) -> PathBuf {
        self.dir.join(TILING_FILE)
    }

    /// Whether this entry holds exactly `candidate`'s `kernel.cpp` and `tiling.cpp` (by
    /// digest), e.g. after [`super::write_entry`] kept an entry already in place.
    pub fn holds(&self, candidate: &Candidate) -> bool {
        let is = |name: &str, text: &str| {
            self.manifest.files.get(name) == Some(&Digest::of(text.as_bytes()))
        };
        is(KERNEL_FILE, &candidate.kernel) && is(TILING_FILE, &candidate.tiling)
    }

    /// Every file of the entry: the manifest, then the files of `[files]` by name.
    pub fn paths(&self) -> Vec<PathBuf> {
        std::iter::once(self.manifest_path())
            .chain(self.manifest.files.keys().map(|n| self.dir.join(n)))
            .collect()
    }

    /// Re-reads `kernel.cpp` or `tiling.cpp` (or any listed file) and checks it against its
    /// digest again, returning the verified bytes: use this when the bytes are consumed
    /// later than [`load`](Self::load) (copies, uploads).
    ///
    /// # Errors
    /// As [`load_with_key`](Self::load_with_key) for that file; [`StoreError::MissingFile`]
    /// when `name` is not listed.
    pub fn read_verified(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.dir.join(name);
        let Some(expected) = self.manifest.files.get(name) else {
            return Err(StoreError::MissingFile {
                manifest: self.manifest_path(),
                file: name.to_string(),
                path,
            });
        };
        let bytes = std::fs::read(&path).map_err(|e| StoreError::io("read", &path, e))?;
        let actual = Digest::of(&bytes);
        if actual != *expected {
            return Err(StoreError::DigestMismatch {
                path,
                expected: *expected,
                actual,
            });
        }
        Ok(bytes)
    }
}

/// Writes a new entry from its manifest text into `root/<key>` atomically: the files go to a
/// temporary folder inside `root`, are verified, and the folder is renamed into place.
/// `files` holds every file named in `[files]` (name, bytes). This is the raw form (entries
/// fetched from a remote, tests); a candidate with its provenance is written with
/// [`super::write_entry`].
///
/// When another writer put the same key in place first, that entry is loaded and verified
/// instead (concurrent builds sharing a cache never see a half-written entry).
///
/// # Errors
/// [`StoreError::Io`] for file system failures; [`StoreError::DigestMismatch`] when `files`
/// do not match the manifest, or when the entry already in place is corrupt (never
/// replaced silently).
pub fn install_entry(
    root: &Path,
    manifest_text: &str,
    files: &[(&str, &[u8])],
) -> Result<Entry, StoreError> {
    let manifest = Manifest::from_toml_str(manifest_text, "the manifest to write")?;
    let key = manifest.key;
    let final_dir = root.join(key.to_hex());
    if final_dir.join(MANIFEST_FILE).is_file() {
        return Entry::load_with_key(&final_dir, &key);
    }
    let staged = stage(root, manifest, manifest_text, files)?;
    match std::fs::rename(&staged, &final_dir) {
        Ok(()) => {}
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staged);
            // Someone else renamed the same entry into place first: use theirs.
            if !final_dir.join(MANIFEST_FILE).is_file() {
                return Err(StoreError::io("rename into place", &final_dir, e));
            }
        }
    }
    Entry::load_with_key(&final_dir, &key)
}

/// Like [`install_entry`], but an entry already in place for the key (valid or corrupt) is
/// replaced: the new entry is written and verified in a temporary folder first, the old one
/// is renamed aside, the new one renamed into place, and only then is the old one deleted
/// (on a failed rename the old entry is put back). Nothing is lost when any step fails.
///
/// # Errors
/// As [`install_entry`].
pub fn reinstall_entry(
    root: &Path,
    manifest_text: &str,
    files: &[(&str, &[u8])],
) -> Result<Entry, StoreError> {
    let manifest = Manifest::from_toml_str(manifest_text, "the manifest to write")?;
    let key = manifest.key;
    let final_dir = root.join(key.to_hex());
    let staged = stage(root, manifest, manifest_text, files)?;
    let aside = if final_dir.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".replaced-")
            .tempdir_in(root)
            .map_err(|e| StoreError::io("create a temporary folder in", root, e))?
            .keep();
        // rename(2) moves a folder onto an empty one.
        if let Err(e) = std::fs::rename(&final_dir, &aside) {
            let _ = std::fs::remove_dir_all(&staged);
            let _ = std::fs::remove_dir(&aside);
            return Err(StoreError::io("move aside", &final_dir, e));
        }
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&staged, &final_dir) {
        let _ = std::fs::remove_dir_all(&staged);
        if let Some(a) = &aside {
            let _ = std::fs::rename(a, &final_dir);
        }
        return Err(StoreError::io("rename into place", &final_dir, e));
    }
    if let Some(a) = aside {
        let _ = std::fs::remove_dir_all(a);
    }
    Entry::load_with_key(&final_dir, &key)
}

/// Writes `files` and the manifest into a new temporary folder under `root`, checks every
/// digest and loads the result back; returns the folder (kept on success, removed on error).
fn stage(
    root: &Path,
    manifest: Manifest,
    manifest_text: &str,
    files: &[(&str, &[u8])],
) -> Result<PathBuf, StoreError> {
    let key = manifest.key;
    let final_dir = root.join(key.to_hex());
    std::fs::create_dir_all(root).map_err(|e| StoreError::io("create", root, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".incoming-")
        .tempdir_in(root)
        .map_err(|e| StoreError::io("create a temporary folder in", root, e))?;
    for (name, expected) in &manifest.files {
        let Some((_, bytes)) = files.iter().find(|(n, _)| n == name) else {
            return Err(StoreError::MissingFile {
                manifest: final_dir.join(MANIFEST_FILE),
                file: name.clone(),
                path: final_dir.join(name),
            });
        };
        let actual = Digest::of(bytes);
        if actual != *expected {
            return Err(StoreError::DigestMismatch {
                path: final_dir.join(name),
                expected: *expected,
                actual,
            });
        }
        let p = tmp.path().join(name);
        std::fs::write(&p, bytes).map_err(|e| StoreError::io("write", &p, e))?;
    }
    let mp = tmp.path().join(MANIFEST_FILE);
    std::fs::write(&mp, manifest_text).map_err(|e| StoreError::io("write", &mp, e))?;
    Entry::load_with_key(tmp.path(), &key)?;
    Ok(tmp.keep())
}
