//! Loading the knowledge base from its folder and looking chunks up.
//!
//! ```text
//! knowledge/
//!   README.md          the layout and the writing rules (not a chunk)
//!   patterns.toml      the compute patterns (super::patterns)
//!   L0/*.md … L4/*.md  one chunk per file (super::chunk); the id is L<n>.<file stem>
//!   L5/<pattern>/      one exemplar per pattern (super::exemplar)
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use agenticcann_build::spec::Pattern;

use super::chunk::{self, Chunk, Level, Patterns};
use super::exemplar::{self, Exemplar};
use super::patterns::{self, PatternDef};

/// The environment variable that points tools at another knowledge folder.
pub const DIR_ENV: &str = "AGENTICCANN_KNOWLEDGE_DIR";

/// A loaded, validated knowledge base.
#[derive(Clone, Debug)]
pub struct KnowledgeBase {
    /// The folder it was loaded from.
    pub root: PathBuf,
    /// `patterns.toml`, in file order.
    pub patterns: Vec<PatternDef>,
    /// Chunks of L0–L4 and the exemplar skeletons of L5, ordered by level, then chunks for
    /// every pattern before pattern-specific ones, then by id. Prompts follow this order.
    pub chunks: Vec<Chunk>,
    /// The exemplars that exist, in [`Pattern::ALL`] order.
    pub exemplars: Vec<Exemplar>,
}

/// One problem found while loading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to the knowledge root.
    pub path: PathBuf,
    /// What is wrong, one line, starting with the field when there is one.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// The error of [`KnowledgeBase::load`]: every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    /// The knowledge root.
    pub root: PathBuf,
    /// Every problem, in path order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "knowledge base {} has {} problem{}:",
            self.root.display(),
            self.problems.len(),
            if self.problems.len() == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

impl KnowledgeBase {
    /// The knowledge folder tools use by default: `$AGENTICCANN_KNOWLEDGE_DIR` when set, else
    /// the `knowledge/` folder of the source tree this crate was built from.
    pub fn default_root() -> PathBuf {
        match std::env::var_os(DIR_ENV) {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../knowledge"),
        }
    }

    /// Loads and validates the knowledge base in `root`.
    ///
    /// # Errors
    /// A [`LoadError`] with every problem: a missing folder or `patterns.toml`, unexpected
    /// files, invalid chunks (see [`chunk::parse`]), duplicate ids, invalid exemplars (see
    /// [`exemplar::load`]), and a pattern without any L3 chunk (tuning prompts would be
    /// empty).
    pub fn load(root: &Path) -> Result<KnowledgeBase, LoadError> {
        let mut problems: Vec<Problem> = Vec::new();
        let mut problem = |path: &Path, message: String| {
            problems.push(Problem {
                path: path.to_path_buf(),
                message,
            })
        };
        let fail = |problems: Vec<Problem>| LoadError {
            root: root.to_path_buf(),
            problems,
        };
        if !root.is_dir() {
            problem(
                Path::new("."),
                format!("{} is not a folder", root.display()),
            );
            return Err(fail(problems));
        }
        let mut defs = Vec::new();
        match std::fs::read_to_string(root.join("patterns.toml")) {
            Err(e) => problem(Path::new("patterns.toml"), format!("cannot read: {e}")),
            Ok(text) => match patterns::parse(&text) {
                Ok(d) => defs = d,
                Err(ps) => ps
                    .into_iter()
                    .for_each(|m| problem(Path::new("patterns.toml"), m)),
            },
        }
        let mut chunks = Vec::new();
        let mut level_dirs: Vec<String> = Vec::new();
        for level in &Level::ALL[..5] {
            let dir = PathBuf::from(level.to_string());
            level_dirs.push(level.to_string());
            if !root.join(&dir).is_dir() {
                problem(&dir, "missing folder".to_string());
                continue;
            }
            for path in exemplar::walk(&root.join(&dir)) {
                let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                let direct = path.parent() == Some(root.join(&dir).as_path());
                if !direct || path.extension().and_then(|e| e.to_str()) != Some("md") {
                    problem(
                        &rel,
                        format!("unexpected file: {level} holds only <name>.md chunks"),
                    );
                    continue;
                }
                if !is_slug(stem) {
                    problem(
                        &rel,
                        "file name: use lowercase letters, digits and `-`".to_string(),
                    );
                    continue;
                }
                match std::fs::read(&path) {
                    Err(e) => problem(&rel, format!("cannot read: {e}")),
                    Ok(bytes) => {
                        match chunk::parse(&rel, &bytes, &format!("{level}.{stem}"), *level) {
                            Ok(c) => chunks.push(c),
                            Err(ps) => ps.into_iter().for_each(|m| problem(&rel, m)),
                        }
                    }
                }
            }
        }
        // Root entries.
        if let Ok(rd) = std::fs::read_dir(root) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                let known = name == "README.md"
                    || name == "patterns.toml"
                    || name == "L5"
                    || level_dirs.contains(&name);
                if !known {
                    problem(
                        Path::new(&name),
                        "unexpected entry in the knowledge root".to_string(),
                    );
                }
            }
        }
        // L5.
        let mut exemplars = Vec::new();
        let l5 = root.join("L5");
        if l5.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&l5) {
                let mut names: Vec<String> = rd
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .collect();
                names.sort();
                for name in names {
                    let rel = Path::new("L5").join(&name);
                    match name.parse::<Pattern>() {
                        Ok(_) if root.join(&rel).is_dir() => {}
                        _ => problem(
                            &rel,
                            "unexpected entry: L5 holds one folder per pattern".to_string(),
                        ),
                    }
                }
            }
            for p in Pattern::ALL {
                if l5.join(p.as_str()).is_dir() {
                    match exemplar::load(root, p) {
                        Ok(ex) => {
                            chunks.push(ex.skeleton.clone());
                            exemplars.push(ex);
                        }
                        Err(ps) => ps.into_iter().for_each(|(path, m)| problem(&path, m)),
                    }
                }
            }
        }
        // Unique ids (across chunks and exemplar files).
        let mut ids: Vec<(&str, &Path)> = chunks
            .iter()
            .map(|c| (c.id.as_str(), c.path.as_path()))
            .collect();
        for ex in &exemplars {
            ids.extend(ex.files.iter().map(|f| (f.id.as_str(), f.path.as_path())));
        }
        ids.sort();
        for w in ids.windows(2) {
            if w[0].0 == w[1].0 {
                problems.push(Problem {
                    path: w[1].1.to_path_buf(),
                    message: format!("id `{}` is also used by {}", w[0].0, w[0].1.display()),
                });
            }
        }
        for p in Pattern::ALL {
            if !chunks
                .iter()
                .any(|c| c.level == Level::L3 && c.patterns.contains(p))
            {
                problems.push(Problem {
                    path: PathBuf::from("L3"),
                    message: format!(
                        "no L3 chunk for pattern `{p}` (its tuning prompt would be empty)"
                    ),
                });
            }
        }
        if !problems.is_empty() {
            problems.sort_by(|a, b| a.path.cmp(&b.path));
            return Err(fail(problems));
        }
        chunks.sort_by(|a, b| {
            (a.level, a.patterns != Patterns::All, &a.id).cmp(&(
                b.level,
                b.patterns != Patterns::All,
                &b.id,
            ))
        });
        Ok(KnowledgeBase {
            root: root.to_path_buf(),
            patterns: defs,
            chunks,
            exemplars,
        })
    }

    /// The chunk with id `id`.
    pub fn chunk(&self, id: &str) -> Option<&Chunk> {
        self.chunks.iter().find(|c| c.id == id)
    }

    /// The text the agent's "read a knowledge chunk" tool returns for `id`: a chunk's body,
    /// or an exemplar file (`L5.<pattern>.kernel`, `.tiling`, `.spec`, `.manifest`).
    pub fn read(&self, id: &str) -> Option<&str> {
        if let Some(c) = self.chunk(id) {
            return Some(&c.body);
        }
        self.exemplars
            .iter()
            .flat_map(|e| &e.files)
            .find(|f| f.id == id)
            .map(|f| f.text.as_str())
    }

    /// The chunks of `level` that apply to `pattern`, in prompt order.
    pub fn chunks_for(&self, level: Level, pattern: Pattern) -> impl Iterator<Item = &Chunk> {
        self.chunks
            .iter()
            .filter(move |c| c.level == level && c.patterns.contains(pattern))
    }

    /// The exemplar of `pattern`, if written.
    pub fn exemplar(&self, pattern: Pattern) -> Option<&Exemplar> {
        self.exemplars.iter().find(|e| e.pattern == pattern)
    }

    /// The `patterns.toml` entry of `pattern`.
    pub fn pattern_def(&self, pattern: Pattern) -> Option<&PatternDef> {
        self.patterns.iter().find(|d| d.pattern == pattern)
    }
}

fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}
