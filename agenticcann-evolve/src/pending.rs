//! Pending results in the user cache, and accepting them into a crate (issue 16, "the
//! workflow around it"; DESIGN §8: results land in the store as pending, `review` /
//! `accept` write them to `kernels/` and `agenticcann.lock`).
//!
//! The evolution loop records its best verified kernel per op with [`write`]; `cargo
//! agenticcann review` shows it against the kernel the build uses now, and `accept` /
//! `reject` ([`accept`], [`reject`]) write it into the crate or drop it. Layout, one folder
//! per op key (so a crate sees only its own ops' results, and a newer result for the same
//! key replaces the older one):
//!
//! ```text
//! <user cache>/pending/            pending_root()
//!   <key>/pending.json             PendingMeta (+ format and the entry's manifest sha256)
//!   <key>/entry/                   a store entry: manifest.toml, kernel.cpp, tiling.cpp
//!   .incoming-*/ .replaced-*/ .removed-*/   staging of writes and removals (skipped)
//! ```
//!
//! Every write is staged in a temporary folder next to its place and renamed in; every
//! removal renames the folder aside first, so a reader never sees a half-written or
//! half-removed result under a key's name. A folder that is broken anyway (edited by hand, a
//! disk error) is an error naming its path from [`find`] and [`scan`], never a panic, and
//! does not hide the other results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agenticcann_build::key::Key;
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::{
    self, lock, Digest, Draft, Entry, Lock, LockedOp, Manifest, Performance, StoreError,
    MANIFEST_FILE,
};
use serde::{Deserialize, Serialize};

/// The folder of pending results inside the user cache.
pub const PENDING_DIR: &str = "pending";
/// The metadata file of a pending result.
pub const META_FILE: &str = "pending.json";
/// The store entry folder of a pending result.
pub const ENTRY_DIR: &str = "entry";
/// The `format` of `pending.json` this crate reads and writes.
pub const META_FORMAT: u32 = 1;

/// Metadata written next to a pending entry (`pending.json`).
///
/// Times are per declared shape, keyed by the shape's dims as [`dims_text`] spells them
/// (`"n=4096"`, `"cols=256,rows=8"`), in microseconds of the cost model (or the hardware's
/// events on CANN).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingMeta {
    /// The op's name in the crate that ran the loop (informational: results are keyed by
    /// `key`).
    pub op: String,
    /// The op's content key, 64 hex digits.
    pub key: String,
    /// The run folder that produced the result.
    pub run_dir: String,
    /// The generation that produced the kernel (1 = the agent's).
    pub generation: u64,
    /// The parent candidate (id or digest), if any.
    pub parent: Option<String>,
    /// The model, if any.
    pub model: Option<String>,
    /// The kernel's time per declared shape, µs.
    #[serde(with = "times")]
    pub time_us: Vec<(String, f64)>,
    /// The offline seed's time per declared shape, µs (the loop's speedup basis), if any.
    #[serde(default, with = "opt_times")]
    pub baseline_us: Option<Vec<(String, f64)>>,
    /// When the result was recorded, RFC 3339.
    pub created: String,
}

impl PendingMeta {
    /// The metadata of `draft` as the loop records it: op and key from the draft's op,
    /// generation, parent and model from its provenance (generation 1 when it has none), the
    /// times from its evaluation's performance record; no baseline.
    pub fn of_draft(draft: &Draft<'_>, run_dir: &Path, created: impl Into<String>) -> PendingMeta {
        let prov = &draft.provenance;
        PendingMeta {
            op: draft.op.name.clone(),
            key: draft.op.key().to_hex(),
            run_dir: run_dir.display().to_string(),
            generation: prov.generation.unwrap_or(1),
            parent: prov.parent.clone(),
            model: prov.model.clone(),
            time_us: draft
                .evaluation
                .and_then(|e| e.performance_record())
                .map(|p| performance_times(&p))
                .unwrap_or_default(),
            baseline_us: None,
            created: created.into(),
        }
    }
}

/// `pending.json`: the metadata, its format and the digest of the entry's `manifest.toml`
/// when it was written (so an entry swapped afterwards is noticed).
#[derive(Serialize, Deserialize)]
struct MetaFile {
    format: u32,
    manifest_sha256: Digest,
    #[serde(flatten)]
    meta: PendingMeta,
}

/// `[(dims, µs)]` as `[{"dims": .., "us": ..}]` in JSON.
mod times {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(super) struct Time {
        dims: String,
        us: f64,
    }

    pub(super) fn to_rows(v: &[(String, f64)]) -> Vec<Time> {
        v.iter()
            .map(|(d, us)| Time {
                dims: d.clone(),
                us: *us,
            })
            .collect()
    }

    pub(super) fn from_rows(v: Vec<Time>) -> Vec<(String, f64)> {
        v.into_iter().map(|t| (t.dims, t.us)).collect()
    }

    pub fn serialize<S: Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
        to_rows(v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, f64)>, D::Error> {
        Vec::<Time>::deserialize(d).map(from_rows)
    }
}

/// `Option<[(dims, µs)]>` as `null` or `[{"dims": .., "us": ..}]` in JSON.
mod opt_times {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        v: &Option<Vec<(String, f64)>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.as_deref().map(super::times::to_rows).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<(String, f64)>>, D::Error> {
        Option::<Vec<super::times::Time>>::deserialize(d).map(|o| o.map(super::times::from_rows))
    }
}

/// A pending result as found on disk: its folder, metadata and verified entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    /// `<root>/<key>`.
    pub dir: PathBuf,
    /// `pending.json`.
    pub meta: PendingMeta,
    /// The entry in `<dir>/entry`, verified against its manifest's digests when loaded.
    pub entry: Entry,
}

impl Pending {
    /// The op key.
    pub fn key(&self) -> Key {
        self.entry.key()
    }

    /// The kernel's time per declared shape (dims text, µs): the entry's `[performance]`
    /// record, else `meta.time_us`.
    pub fn time_us(&self) -> Vec<(String, f64)> {
        match &self.entry.manifest.performance {
            Some(p) if !p.shapes.is_empty() => performance_times(p),
            _ => self.meta.time_us.clone(),
        }
    }
}

/// What [`accept_into`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    /// The entry in the crate's kernels folder (`kernels/<key>`).
    pub entry: PathBuf,
    /// The lock file written.
    pub lock: PathBuf,
    /// The pins written: every declared op whose key is the result's.
    pub pins: Vec<LockedOp>,
}

/// A pending result that cannot be written, read, accepted or removed. Each names the path
/// (or op) and what was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PendingError {
    /// A file or folder could not be read, written, renamed or removed.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// `pending.json` is not valid.
    #[error("invalid pending result {}: {message} (remove the folder, or `cargo agenticcann reject` the op)", path.display())]
    Meta {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file or folder of a pending result is missing (a half-deleted or hand-edited
    /// folder).
    #[error("{} is not a complete pending result: {what} is missing (remove the folder, or `cargo agenticcann reject` the op)", dir.display())]
    Incomplete {
        /// The pending result's folder.
        dir: PathBuf,
        /// What is missing (`pending.json`, `entry/`).
        what: &'static str,
    },
    /// A folder in the pending root whose name is not a key.
    #[error("{} is not a pending result: its name must be a 64-hex-digit op key", path.display())]
    NotAKey {
        /// The folder or file.
        path: PathBuf,
    },
    /// A key argument that is not a key.
    #[error(transparent)]
    BadKey(#[from] agenticcann_build::key::KeyParseError),
    /// The metadata's key is not the key it belongs to.
    #[error("{what}: key {found} does not match the op's key {expected}")]
    KeyMismatch {
        /// Where the key came from.
        what: String,
        /// The key expected.
        expected: String,
        /// The key found.
        found: String,
    },
    /// A draft without an accepted evaluation: only verified kernels are pending results.
    #[error("op `{op}`: only a kernel the judge accepted can be recorded as a pending result (the draft has {why})")]
    NotAccepted {
        /// The op.
        op: String,
        /// `"no evaluation"` or the verdict.
        why: String,
    },
    /// The pending entry itself is not valid (a file changed after it was written, a bad
    /// manifest).
    #[error("the pending entry {} is not valid: {source}", dir.display())]
    Entry {
        /// The entry folder.
        dir: PathBuf,
        /// The store's verdict (names the file and both digests).
        source: StoreError,
    },
    /// The entry's `manifest.toml` is not the one the result was written with (or the one
    /// that was reviewed).
    #[error("{} has sha256 {actual}, but {expected} was {when}: the pending result was changed; not accepted", path.display())]
    ManifestChanged {
        /// The manifest.
        path: PathBuf,
        /// The digest recorded (in `pending.json`, or when reviewed).
        expected: Digest,
        /// The digest found.
        actual: Digest,
        /// `"recorded in pending.json"` or `"reviewed"`.
        when: &'static str,
    },
    /// Accepting into a crate that declares no op with the result's key.
    #[error("{} declares no op with key {key} (the pending result is for op `{op}` of another crate or an older spec)", manifest.display())]
    NotDeclared {
        /// The crate manifest.
        manifest: PathBuf,
        /// The key.
        key: Key,
        /// The op named in the metadata.
        op: String,
    },
    /// The crate's kernels folder already holds an entry for the key that was written by
    /// hand (`provenance.proposer = "hand"`), or one whose manifest cannot be read: accepting
    /// would replace a person's kernel. Refused unless replacing is asked for.
    #[error("{} holds {what}; it was not replaced (accept with --replace to replace it, or keep it and `cargo agenticcann reject` the op)", entry.display())]
    WouldReplace {
        /// The existing entry folder (`kernels/<key>`).
        entry: PathBuf,
        /// What it holds: `"a hand-written kernel"` or `"an entry whose manifest cannot be
        /// read (...)"`.
        what: String,
    },
    /// Writing into the crate failed (its kernels folder or lock).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What accepting may replace in the crate's kernels folder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replace {
    /// Replace an older generated entry (proposer offline, llm or replay) for the key; keep a
    /// hand-written one, or one whose manifest cannot be read ([`PendingError::WouldReplace`]).
    #[default]
    Generated,
    /// Replace whatever entry the key has (`--replace`).
    Any,
}

impl Replace {
    /// [`Replace::Any`] when `--replace` was given, else [`Replace::Generated`].
    pub fn from_flag(replace: bool) -> Replace {
        if replace {
            Replace::Any
        } else {
            Replace::Generated
        }
    }
}

fn io(action: &'static str, path: impl Into<PathBuf>, error: std::io::Error) -> PendingError {
    PendingError::Io {
        action,
        path: path.into(),
        error,
    }
}

/// The pending root: `<user cache>/pending` (user cache =
/// [`agenticcann_build::store::user_cache_dir`]: `$AGENTICCANN_CACHE_DIR`, else the platform
/// cache folder + `agenticcann/store`). `None` when no user cache folder is known.
pub fn pending_root(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    store::user_cache_dir(env).map(|d| d.join(PENDING_DIR))
}

/// Dims as pending times name them: `name=value` sorted by name, joined by `,`; `(fixed)`
/// for a shape without named dimensions.
pub fn dims_text(dims: &BTreeMap<String, u64>) -> String {
    if dims.is_empty() {
        return "(fixed)".into();
    }
    dims.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The time per shape of a `[performance]` record (dims text, µs); shapes without a time
/// are left out.
pub fn performance_times(p: &Performance) -> Vec<(String, f64)> {
    p.shapes
        .iter()
        .filter_map(|s| Some((dims_text(&s.dims), s.time_us?)))
        .collect()
}

/// The time per shape recorded in an entry's manifest (empty without a performance record).
pub fn recorded_times(m: &Manifest) -> Vec<(String, f64)> {
    m.performance
        .as_ref()
        .map(performance_times)
        .unwrap_or_default()
}

/// Speedup of `new` over `base`: the geometric mean of `base / new` over the shapes both
/// time (positive, finite times only). `None` when they share no shape.
pub fn speedup(base: &[(String, f64)], new: &[(String, f64)]) -> Option<f64> {
    let ratios: Vec<f64> = new
        .iter()
        .filter_map(|(d, n)| {
            let (_, b) = base.iter().find(|(bd, _)| bd == d)?;
            (n.is_finite() && b.is_finite() && *n > 0.0 && *b > 0.0).then(|| b / n)
        })
        .collect();
    crate::search::population::geomean(ratios.into_iter())
}

/// Checks the metadata of the result for `key` (`path` names it in errors).
fn validate(meta: &PendingMeta, key: &Key, path: &Path) -> Result<(), PendingError> {
    let bad = |message: String| PendingError::Meta {
        path: path.to_path_buf(),
        message,
    };
    match meta.key.parse::<Key>() {
        Ok(k) if k == *key => {}
        Ok(_) | Err(_) => {
            return Err(PendingError::KeyMismatch {
                what: format!("`key` of {}", path.display()),
                expected: key.to_hex(),
                found: meta.key.clone(),
            })
        }
    }
    if meta.op.trim().is_empty() {
        return Err(bad("`op` is empty".into()));
    }
    let times = meta.time_us.iter().map(|t| ("time_us", t)).chain(
        meta.baseline_us
            .iter()
            .flatten()
            .map(|t| ("baseline_us", t)),
    );
    for (field, (dims, us)) in times {
        if dims.trim().is_empty() {
            return Err(bad(format!("`{field}` has a shape with empty dims")));
        }
        if !(us.is_finite() && *us > 0.0) {
            return Err(bad(format!(
                "`{field}` of shape `{dims}` is {us}: a time must be a positive number of µs"
            )));
        }
    }
    Ok(())
}

/// Records `draft` as the pending result of its op key: writes `<root>/<key>/entry/` (a store
/// entry, [`store::write_entry`]) and `<root>/<key>/pending.json`, staged in a temporary
/// folder inside `root` and renamed into place; an older result for the key is replaced (moved
/// aside, then deleted once the new one is in place). Returns `<root>/<key>`.
///
/// # Errors
/// [`PendingError::NotAccepted`] when the draft has no accepted evaluation;
/// [`PendingError::KeyMismatch`] when `meta.key` is not the draft's op key;
/// [`PendingError::Meta`] for invalid metadata (empty op, non-positive times);
/// [`PendingError::Io`] / [`PendingError::Store`] for file-system failures.
pub fn write(root: &Path, draft: &Draft, meta: &PendingMeta) -> Result<PathBuf, PendingError> {
    let key = draft.op.key();
    match draft.evaluation {
        None => {
            return Err(PendingError::NotAccepted {
                op: draft.op.name.clone(),
                why: "no evaluation".into(),
            })
        }
        Some(ev) if !ev.accepted() => {
            return Err(PendingError::NotAccepted {
                op: draft.op.name.clone(),
                why: format!("verdict `{}`", ev.outcome.label()),
            })
        }
        Some(_) => {}
    }
    validate(meta, &key, Path::new(META_FILE))?;
    std::fs::create_dir_all(root).map_err(|e| io("create", root, e))?;
    let stage = tempfile::Builder::new()
        .prefix(".incoming-")
        .tempdir_in(root)
        .map_err(|e| io("create a temporary folder in", root, e))?;
    let entry = store::write_entry(stage.path(), draft)?;
    let entry_dir = stage.path().join(ENTRY_DIR);
    std::fs::rename(&entry.dir, &entry_dir).map_err(|e| io("rename", &entry.dir, e))?;
    let file = MetaFile {
        format: META_FORMAT,
        manifest_sha256: entry.manifest_digest,
        meta: PendingMeta {
            key: key.to_hex(),
            ..meta.clone()
        },
    };
    let text = serde_json::to_string_pretty(&file).expect("pending metadata serializes") + "\n";
    store::write_file_atomic(&stage.path().join(META_FILE), text.as_bytes())?;
    // What is renamed into place is what a reader loads.
    load(stage.path(), &key)?;
    let staged = stage.keep();
    let dir = root.join(key.to_hex());
    if let Err(e) = swap_in(root, &staged, &dir) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    Ok(dir)
}

/// Renames `staged` to `dir`, moving an existing `dir` aside first and deleting it after.
fn swap_in(root: &Path, staged: &Path, dir: &Path) -> Result<(), PendingError> {
    let aside = if dir.symlink_metadata().is_ok() {
        Some(move_aside(root, dir, ".replaced-")?)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(staged, dir) {
        if let Some(a) = &aside {
            let _ = std::fs::rename(a, dir);
        }
        return Err(io("rename into place", dir, e));
    }
    if let Some(a) = aside {
        let _ = std::fs::remove_dir_all(a);
    }
    Ok(())
}

/// Renames `dir` to a new hidden folder in `root` (prefix `prefix`) and returns it.
fn move_aside(root: &Path, dir: &Path, prefix: &str) -> Result<PathBuf, PendingError> {
    let aside = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(root)
        .map_err(|e| io("create a temporary folder in", root, e))?
        .keep();
    // rename(2) moves a folder onto an empty one.
    if let Err(e) = std::fs::rename(dir, &aside) {
        let _ = std::fs::remove_dir(&aside);
        return Err(io("move aside", dir, e));
    }
    Ok(aside)
}

/// Loads the pending result in `dir` for `key`: `pending.json` (valid, for `key`) and the
/// entry (every file matching its digest, the manifest the one `pending.json` recorded).
fn load(dir: &Path, key: &Key) -> Result<Pending, PendingError> {
    let meta_path = dir.join(META_FILE);
    let text = match std::fs::read_to_string(&meta_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(PendingError::Incomplete {
                dir: dir.to_path_buf(),
                what: "pending.json",
            })
        }
        Err(e) => return Err(io("read", &meta_path, e)),
    };
    let file: MetaFile = serde_json::from_str(&text).map_err(|e| PendingError::Meta {
        path: meta_path.clone(),
        message: e.to_string(),
    })?;
    if file.format != META_FORMAT {
        return Err(PendingError::Meta {
            path: meta_path,
            message: format!(
                "`format = {}` is not supported: this agenticcann reads format {META_FORMAT}",
                file.format
            ),
        });
    }
    validate(&file.meta, key, &meta_path)?;
    let entry_dir = dir.join(ENTRY_DIR);
    if !entry_dir.join(MANIFEST_FILE).is_file() {
        return Err(PendingError::Incomplete {
            dir: dir.to_path_buf(),
            what: "entry/manifest.toml",
        });
    }
    let entry = Entry::load_with_key(&entry_dir, key).map_err(|source| PendingError::Entry {
        dir: entry_dir.clone(),
        source,
    })?;
    if entry.manifest_digest != file.manifest_sha256 {
        return Err(PendingError::ManifestChanged {
            path: entry.manifest_path(),
            expected: file.manifest_sha256,
            actual: entry.manifest_digest,
            when: "recorded in pending.json",
        });
    }
    Ok(Pending {
        dir: dir.to_path_buf(),
        meta: file.meta,
        entry,
    })
}

/// Every pending result in `root`, each loaded or with the error that names its folder, so
/// one broken folder does not hide the others; sorted by key. Staging folders (names starting
/// with `.`) are skipped. An absent root has none.
///
/// # Errors
/// [`PendingError::Io`] when `root` exists but cannot be read.
pub fn scan(root: &Path) -> Result<Vec<Result<Pending, PendingError>>, PendingError> {
    let rd = match std::fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("read", root, e)),
    };
    let mut names = Vec::new();
    for item in rd {
        let item = item.map_err(|e| io("read", root, e))?;
        let name = item.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names
        .into_iter()
        .map(|name| {
            let dir = root.join(&name);
            match name.parse::<Key>() {
                Ok(k) if k.to_hex() == name && dir.is_dir() => load(&dir, &k),
                _ => Err(PendingError::NotAKey { path: dir }),
            }
        })
        .collect())
}

/// Every pending result in `root`, sorted by key ([`scan`] without the broken ones' errors
/// mixed in).
///
/// # Errors
/// The first broken folder's error ([`PendingError::Meta`], [`PendingError::Incomplete`],
/// [`PendingError::Entry`], …, naming its path); [`scan`] reports every one and goes on.
pub fn list(root: &Path) -> Result<Vec<Pending>, PendingError> {
    scan(root)?.into_iter().collect()
}

/// The pending result for the op key `key_hex` (64 hex digits, either case), `None` when
/// there is none.
///
/// # Errors
/// [`PendingError::BadKey`] for a malformed key; a broken folder's error as [`list`].
pub fn find(root: &Path, key_hex: &str) -> Result<Option<Pending>, PendingError> {
    let key: Key = key_hex.trim().parse()?;
    let dir = root.join(key.to_hex());
    if dir.symlink_metadata().is_err() {
        return Ok(None);
    }
    load(&dir, &key).map(Some)
}

/// Accepts `p` into the crate of `manifest` whose spec is `spec`; returns the entry written
/// ([`accept_into`] tells the lock and pins as well).
///
/// # Errors
/// As [`accept_into`].
pub fn accept(
    p: &Pending,
    spec: &Spec,
    manifest: &Path,
    replace: Replace,
) -> Result<PathBuf, PendingError> {
    accept_into(p, spec, manifest, replace).map(|a| a.entry)
}

/// Accepts `p`: re-verifies it (every file against its digest, the manifest the one
/// reviewed), copies the entry into the crate's kernels folder (`Spec::kernels_dir()`,
/// `kernels/<key>/`, replacing an older entry for the key through a staged copy; see
/// [`Replace`] for the entries it keeps), pins every
/// declared op with that key in `agenticcann.lock` next to `manifest` (one atomic write),
/// then removes the pending folder.
///
/// Nothing is written into the crate when the result fails its checks, the lock cannot be
/// read, or the key's entry in the kernels folder is hand-written (or unreadable) and
/// `replace` is [`Replace::Generated`].
///
/// # Errors
/// [`PendingError::WouldReplace`] for a hand-written or unreadable entry in the way;
/// [`PendingError::NotDeclared`] when the spec declares no op with the result's key;
/// [`PendingError::Entry`] / [`PendingError::ManifestChanged`] / [`PendingError::Incomplete`]
/// when the pending result changed or fails its own digest check (refused);
/// [`PendingError::Store`] when the lock is invalid or the crate cannot be written.
pub fn accept_into(
    p: &Pending,
    spec: &Spec,
    manifest: &Path,
    replace: Replace,
) -> Result<Accepted, PendingError> {
    let key = p.key();
    let ops: Vec<&OpSpec> = spec.ops.iter().filter(|o| o.key() == key).collect();
    if ops.is_empty() {
        return Err(PendingError::NotDeclared {
            manifest: manifest.to_path_buf(),
            key,
            op: p.meta.op.clone(),
        });
    }
    // What is accepted is what is on disk now, and it must be what was reviewed.
    let fresh = load(&p.dir, &key)?;
    if fresh.entry.manifest_digest != p.entry.manifest_digest {
        return Err(PendingError::ManifestChanged {
            path: fresh.entry.manifest_path(),
            expected: p.entry.manifest_digest,
            actual: fresh.entry.manifest_digest,
            when: "reviewed",
        });
    }
    let lock_path = lock::check_pinnable(manifest)?;
    if replace == Replace::Generated {
        guard_existing(&spec.kernels_dir().join(key.to_hex()))?;
    }
    let entry_err = |source| PendingError::Entry {
        dir: fresh.entry.dir.clone(),
        source,
    };
    let manifest_path = fresh.entry.manifest_path();
    let manifest_bytes =
        std::fs::read(&manifest_path).map_err(|e| io("read", &manifest_path, e))?;
    let actual = Digest::of(&manifest_bytes);
    if actual != p.entry.manifest_digest {
        return Err(PendingError::ManifestChanged {
            path: manifest_path,
            expected: p.entry.manifest_digest,
            actual,
            when: "reviewed",
        });
    }
    let manifest_text = String::from_utf8(manifest_bytes).map_err(|e| PendingError::Meta {
        path: manifest_path.clone(),
        message: format!("not UTF-8: {e}"),
    })?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for name in fresh.entry.manifest.files.keys() {
        files.push((
            name.clone(),
            fresh.entry.read_verified(name).map_err(entry_err)?,
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let installed = store::reinstall_entry(&spec.kernels_dir(), &manifest_text, &refs)?;
    let mut lock = Lock::read(&lock_path)?.unwrap_or_default();
    for op in &ops {
        lock.set(&op.name, key, installed.manifest_digest);
    }
    lock.write_atomic(&lock_path)?;
    let pins = ops
        .iter()
        .filter_map(|o| lock.get(&o.name).cloned())
        .collect();
    remove(&p.dir)?;
    Ok(Accepted {
        entry: installed.dir,
        lock: lock_path,
        pins,
    })
}

/// Refuses when `dir` (the key's entry in the crate) exists and is hand-written or has no
/// readable manifest.
fn guard_existing(dir: &Path) -> Result<(), PendingError> {
    if !dir.exists() {
        return Ok(());
    }
    let path = dir.join(MANIFEST_FILE);
    let what = match std::fs::read_to_string(&path) {
        Err(e) => Some(format!(
            "an entry whose manifest cannot be read ({}: {e})",
            path.display()
        )),
        Ok(text) => match Manifest::from_toml_str(&text, &path.display().to_string()) {
            Err(e) => Some(format!("an entry whose manifest cannot be read ({e})")),
            Ok(m) if m.provenance.proposer == store::Proposer::Hand => {
                Some("a hand-written kernel (provenance proposer = \"hand\")".to_string())
            }
            Ok(_) => None,
        },
    };
    match what {
        Some(what) => Err(PendingError::WouldReplace {
            entry: dir.to_path_buf(),
            what,
        }),
        None => Ok(()),
    }
}

/// Rejects `p`: removes its pending folder (renamed aside first, so no half-removed result
/// stays under the key's name). Nothing else is touched.
///
/// # Errors
/// [`PendingError::Io`] when the folder cannot be moved or removed.
pub fn reject(p: &Pending) -> Result<(), PendingError> {
    remove(&p.dir)
}

/// Rejects the pending result of `key_hex` under `root` whatever state it is in: a result
/// that no longer loads (a file changed after it was written, a torn `pending.json`) can
/// still be dropped, since rejecting reads nothing from it. Returns the folder removed, or
/// `None` when there is none. Nothing else is touched.
///
/// # Errors
/// [`PendingError::Io`] when the folder cannot be moved or removed.
pub fn reject_key(root: &Path, key_hex: &str) -> Result<Option<PathBuf>, PendingError> {
    let dir = root.join(key_hex);
    if !dir.is_dir() {
        return Ok(None);
    }
    remove(&dir)?;
    Ok(Some(dir))
}

fn remove(dir: &Path) -> Result<(), PendingError> {
    let root = dir.parent().unwrap_or_else(|| Path::new("."));
    let aside = move_aside(root, dir, ".removed-")?;
    std::fs::remove_dir_all(&aside).map_err(|e| io("remove", &aside, e))
}

/// One file of a review: the unified diff of the current kernel's file and the pending one's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    /// `kernel.cpp` or `tiling.cpp`.
    pub file: &'static str,
    /// The unified diff (3 lines of context; headers `current/<file>` or `/dev/null` and
    /// `pending/<file>`); empty when the files are identical.
    pub unified: String,
}

/// The unified diffs of `kernel.cpp` and `tiling.cpp` between `current` (none: an empty
/// file) and `pending`; both are re-read and checked against their digests.
///
/// # Errors
/// [`PendingError::Entry`] when a file does not match its digest (either entry).
pub fn diff(current: Option<&Entry>, pending: &Entry) -> Result<Vec<FileDiff>, PendingError> {
    let text = |e: &Entry, name: &str| -> Result<String, PendingError> {
        e.read_verified(name)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|source| PendingError::Entry {
                dir: e.dir.clone(),
                source,
            })
    };
    [store::KERNEL_FILE, store::TILING_FILE]
        .into_iter()
        .map(|file| {
            let new = text(pending, file)?;
            let (old, old_name) = match current {
                Some(c) => (text(c, file)?, format!("current/{file}")),
                None => (String::new(), "/dev/null".to_string()),
            };
            let unified = if old == new {
                String::new()
            } else {
                similar::TextDiff::from_lines(&old, &new)
                    .unified_diff()
                    .context_radius(3)
                    .header(&old_name, &format!("pending/{file}"))
                    .to_string()
            };
            Ok(FileDiff { file, unified })
        })
        .collect()
}

/// One declared shape of a review: the pending kernel's time and what it compares with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShapeComparison {
    /// The shape's dims ([`dims_text`]).
    pub dims: String,
    /// The pending kernel's time, µs.
    pub time_us: f64,
    /// Its roofline fraction, from its performance record.
    pub roofline_fraction: Option<f64>,
    /// What bounds it (`"MTE2"`, `"V"`, …), from its performance record.
    pub bound: Option<String>,
    /// The current kernel's recorded time, µs.
    pub current_us: Option<f64>,
    /// `current_us / time_us`.
    pub vs_current: Option<f64>,
    /// The offline seed's time from the metadata, µs.
    pub baseline_us: Option<f64>,
    /// `baseline_us / time_us`.
    pub vs_baseline: Option<f64>,
}

/// The pending kernel's times against the current kernel's recorded ones and the metadata's
/// baseline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Per shape of the pending kernel's times.
    pub shapes: Vec<ShapeComparison>,
    /// [`speedup`] over the current kernel's recorded times (None: none recorded).
    pub vs_current: Option<f64>,
    /// [`speedup`] over `meta.baseline_us` (None: no baseline).
    pub vs_baseline: Option<f64>,
}

/// Compares `p` with `current` (the entry the build would use now, if any).
pub fn compare(current: Option<&Entry>, p: &Pending) -> Comparison {
    let new = p.time_us();
    let cur = current
        .map(|e| recorded_times(&e.manifest))
        .unwrap_or_default();
    let base = p.meta.baseline_us.clone().unwrap_or_default();
    let measured = p.entry.manifest.performance.as_ref();
    let find = |v: &[(String, f64)], d: &str| v.iter().find(|(k, _)| k == d).map(|(_, t)| *t);
    let ratio = |b: Option<f64>, n: f64| b.filter(|b| *b > 0.0 && n > 0.0).map(|b| b / n);
    let shapes = new
        .iter()
        .map(|(dims, t)| {
            let rec = measured.and_then(|m| m.shapes.iter().find(|s| dims_text(&s.dims) == *dims));
            let current_us = find(&cur, dims);
            let baseline_us = find(&base, dims);
            ShapeComparison {
                dims: dims.clone(),
                time_us: *t,
                roofline_fraction: rec.and_then(|r| r.roofline_fraction),
                bound: rec.and_then(|r| r.bound.clone()),
                current_us,
                vs_current: ratio(current_us, *t),
                baseline_us,
                vs_baseline: ratio(baseline_us, *t),
            }
        })
        .collect();
    Comparison {
        shapes,
        vs_current: speedup(&cur, &new),
        vs_baseline: speedup(&base, &new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speedup_is_the_geometric_mean_over_common_shapes() {
        let base = vec![("n=1".to_string(), 4.0), ("n=2".to_string(), 9.0)];
        let new = vec![
            ("n=1".to_string(), 1.0),
            ("n=2".to_string(), 1.0),
            ("n=3".to_string(), 5.0),
        ];
        let s = speedup(&base, &new).unwrap();
        assert!((s - 6.0).abs() < 1e-12, "{s}");
        assert_eq!(speedup(&[], &new), None);
        assert_eq!(speedup(&[("n=1".into(), 0.0)], &new), None);
    }

    #[test]
    fn the_pending_root_is_inside_the_user_cache() {
        let env = |k: &str| (k == "AGENTICCANN_CACHE_DIR").then(|| "/c".to_string());
        assert_eq!(pending_root(&env), Some(PathBuf::from("/c/pending")));
        let home = |k: &str| (k == "HOME").then(|| "/h".to_string());
        if cfg!(target_os = "linux") {
            assert_eq!(
                pending_root(&home),
                Some(PathBuf::from("/h/.cache/agenticcann/store/pending"))
            );
            assert_eq!(pending_root(&|_: &str| None), None);
        }
    }

    #[test]
    fn dims_text_sorts_by_name() {
        let d: BTreeMap<String, u64> = [("rows".to_string(), 8), ("cols".to_string(), 256)]
            .into_iter()
            .collect();
        assert_eq!(dims_text(&d), "cols=256,rows=8");
        assert_eq!(dims_text(&BTreeMap::new()), "(fixed)");
    }

    #[test]
    fn metadata_round_trips_through_json_as_rows() {
        let meta = PendingMeta {
            op: "add".into(),
            key: "ab".repeat(32),
            run_dir: "target/run".into(),
            generation: 3,
            parent: Some("c7".into()),
            model: None,
            time_us: vec![("n=4096".into(), 1.5)],
            baseline_us: Some(vec![("n=4096".into(), 3.0)]),
            created: "2026-12-02T10:00:00Z".into(),
        };
        let text = serde_json::to_string(&meta).unwrap();
        assert!(
            text.contains(r#""time_us":[{"dims":"n=4096","us":1.5}]"#),
            "{text}"
        );
        let back: PendingMeta = serde_json::from_str(&text).unwrap();
        assert_eq!(back, meta);
    }
}
