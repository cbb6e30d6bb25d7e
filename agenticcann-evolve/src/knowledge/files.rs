//! Where a knowledge base is read from, and its files read into memory before parsing: a
//! folder on disk (for editing the base) or the repository's `knowledge/` compiled into this
//! crate (what an installed `cargo-agenticcann` uses, wherever it runs).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use agenticcann_build::env::Env;
use include_dir::{include_dir, Dir, DirEntry};

use super::base::Problem;

/// The environment variable that points tools at a knowledge folder on disk instead of the
/// embedded copy.
pub const DIR_ENV: &str = "AGENTICCANN_KNOWLEDGE_DIR";

/// The repository's `knowledge/` folder as it was when this crate was compiled (the build
/// script re-runs when any file in it changes).
static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../knowledge");

/// Where a knowledge base is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnowledgeSource {
    /// A folder on disk (`--knowledge-dir`, `$AGENTICCANN_KNOWLEDGE_DIR`): the base being
    /// edited; `knowledge check --record` writes into it.
    Dir(PathBuf),
    /// The repository's `knowledge/` compiled into this crate.
    Embedded,
}

impl KnowledgeSource {
    /// The source tools use: `dir` when given (a `--knowledge-dir` option), else
    /// `$AGENTICCANN_KNOWLEDGE_DIR` (read through `env`), else [`KnowledgeSource::Embedded`].
    pub fn resolve(dir: Option<&Path>, env: &Env) -> KnowledgeSource {
        match dir {
            Some(d) => KnowledgeSource::Dir(d.to_path_buf()),
            None => match env.get(DIR_ENV) {
                Some(d) => KnowledgeSource::Dir(PathBuf::from(d)),
                None => KnowledgeSource::Embedded,
            },
        }
    }

    /// The folder, for [`KnowledgeSource::Dir`].
    pub fn dir(&self) -> Option<&Path> {
        match self {
            KnowledgeSource::Dir(d) => Some(d),
            KnowledgeSource::Embedded => None,
        }
    }
}

impl fmt::Display for KnowledgeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnowledgeSource::Dir(d) => write!(f, "{}", d.display()),
            KnowledgeSource::Embedded => f.write_str("(embedded knowledge/)"),
        }
    }
}

/// Every file of a knowledge base by path relative to its root, with every folder that
/// holds one (or is empty).
#[derive(Debug, Default)]
pub(crate) struct Files {
    files: BTreeMap<PathBuf, Vec<u8>>,
    dirs: BTreeSet<PathBuf>,
}

impl Files {
    /// Reads every file under `root`. A root that is not a folder, and every file or folder
    /// that cannot be read, is a problem (paths relative to `root`).
    pub(crate) fn read_dir(root: &Path) -> Result<Files, Vec<Problem>> {
        if !root.is_dir() {
            return Err(vec![Problem {
                path: PathBuf::from("."),
                message: format!("{} is not a folder", root.display()),
            }]);
        }
        let mut out = Files::default();
        let mut problems = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            out.dirs.insert(rel.clone());
            let rd = match std::fs::read_dir(root.join(&rel)) {
                Ok(rd) => rd,
                Err(e) => {
                    problems.push(Problem {
                        path: rel,
                        message: format!("cannot read the folder: {e}"),
                    });
                    continue;
                }
            };
            for e in rd.flatten() {
                let child = rel.join(e.file_name());
                if e.path().is_dir() {
                    stack.push(child);
                } else {
                    match std::fs::read(e.path()) {
                        Ok(bytes) => {
                            out.files.insert(child, bytes);
                        }
                        Err(e) => problems.push(Problem {
                            path: child,
                            message: format!("cannot read: {e}"),
                        }),
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems)
        }
    }

    /// The embedded copy.
    pub(crate) fn embedded() -> Files {
        let mut out = Files::default();
        out.dirs.insert(PathBuf::new());
        let mut stack = vec![&EMBEDDED];
        while let Some(d) = stack.pop() {
            for e in d.entries() {
                match e {
                    DirEntry::Dir(sub) => {
                        out.dirs.insert(sub.path().to_path_buf());
                        stack.push(sub);
                    }
                    DirEntry::File(f) => {
                        out.files
                            .insert(f.path().to_path_buf(), f.contents().to_vec());
                    }
                }
            }
        }
        out
    }

    /// Whether `rel` is a folder.
    pub(crate) fn is_dir(&self, rel: &Path) -> bool {
        self.dirs.contains(rel)
    }

    /// The names directly inside folder `rel`, sorted, with whether each is a folder.
    pub(crate) fn children(&self, rel: &Path) -> Vec<(String, bool)> {
        let name = |p: &Path| -> Option<String> {
            if p.parent() == Some(rel) {
                p.file_name().map(|n| n.to_string_lossy().into_owned())
            } else {
                None
            }
        };
        let mut out: Vec<(String, bool)> = self
            .dirs
            .iter()
            .filter_map(|d| name(d).map(|n| (n, true)))
            .chain(
                self.files
                    .keys()
                    .filter_map(|f| name(f).map(|n| (n, false))),
            )
            .collect();
        out.sort();
        out
    }

    /// Every file under folder `rel`, recursively, sorted (relative to the root).
    pub(crate) fn walk(&self, rel: &Path) -> Vec<&Path> {
        self.files
            .keys()
            .filter(|f| f.starts_with(rel) && f.as_path() != rel)
            .map(PathBuf::as_path)
            .collect()
    }

    /// The bytes of file `rel`.
    pub(crate) fn read(&self, rel: &Path) -> Option<&[u8]> {
        self.files.get(rel).map(Vec::as_slice)
    }
}
