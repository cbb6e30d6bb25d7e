//! Loading the knowledge base (from a folder or the embedded copy, [`KnowledgeSource`]) and
//! looking chunks up.
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
use super::files::{Files, KnowledgeSource};
use super::patterns::{self, PatternDef};

/// A loaded, validated knowledge base.
#[derive(Clone, Debug)]
pub struct KnowledgeBase {
    /// Where it was loaded from.
    pub source: KnowledgeSource,
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
    /// Where the knowledge base was read from.
    pub origin: KnowledgeSource,
    /// Every problem, in path order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "knowledge base {} has {} problem{}:",
            self.origin,
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
    /// Loads and validates the knowledge base in folder `root`.
    ///
    /// # Errors
    /// A [`LoadError`] with every problem: a missing folder or `patterns.toml`, unreadable or
    /// unexpected files, invalid chunks (see [`chunk::parse`]), duplicate ids, invalid
    /// exemplars (see [`exemplar::load`]), and a pattern without any L3 chunk (tuning prompts
    /// would be empty).
    pub fn load(root: &Path) -> Result<KnowledgeBase, LoadError> {
        KnowledgeBase::open(&KnowledgeSource::Dir(root.to_path_buf()))
    }

    /// Loads and validates the knowledge base compiled into this crate (the repository's
    /// `knowledge/`; its tests keep it valid).
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn embedded() -> Result<KnowledgeBase, LoadError> {
        KnowledgeBase::open(&KnowledgeSource::Embedded)
    }

    /// Loads and validates the knowledge base of `source`.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn open(source: &KnowledgeSource) -> Result<KnowledgeBase, LoadError> {
        let fail = |mut problems: Vec<Problem>| {
            problems.sort_by(|a, b| a.path.cmp(&b.path));
            LoadError {
                origin: source.clone(),
                problems,
            }
        };
        let files = match source {
            KnowledgeSource::Dir(root) => Files::read_dir(root).map_err(fail)?,
            KnowledgeSource::Embedded => Files::embedded(),
        };
        let (kb, problems) = KnowledgeBase::parse(source, &files);
        match kb {
            Some(kb) if problems.is_empty() => Ok(kb),
            _ => Err(fail(problems)),
        }
    }

    /// Parses the files of a knowledge base; the base is `None` or `problems` non-empty when
    /// it is invalid.
    fn parse(source: &KnowledgeSource, files: &Files) -> (Option<KnowledgeBase>, Vec<Problem>) {
        let mut problems: Vec<Problem> = Vec::new();
        let mut problem = |path: &Path, message: String| {
            problems.push(Problem {
                path: path.to_path_buf(),
                message,
            })
        };
        let mut defs = Vec::new();
        match files
            .read(Path::new("patterns.toml"))
            .map(std::str::from_utf8)
        {
            None => problem(Path::new("patterns.toml"), "missing file".to_string()),
            Some(Err(_)) => problem(Path::new("patterns.toml"), "not UTF-8".to_string()),
            Some(Ok(text)) => match patterns::parse(text) {
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
            if !files.is_dir(&dir) {
                problem(&dir, "missing folder".to_string());
                continue;
            }
            for rel in files.walk(&dir) {
                let stem = rel.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                let direct = rel.parent() == Some(dir.as_path());
                if !direct || rel.extension().and_then(|e| e.to_str()) != Some("md") {
                    problem(
                        rel,
                        format!("unexpected file: {level} holds only <name>.md chunks"),
                    );
                    continue;
                }
                if !is_slug(stem) {
                    problem(
                        rel,
                        "file name: use lowercase letters, digits and `-`".to_string(),
                    );
                    continue;
                }
                let bytes = files.read(rel).unwrap_or_default();
                match chunk::parse(rel, bytes, &format!("{level}.{stem}"), *level) {
                    Ok(c) => chunks.push(c),
                    Err(ps) => ps.into_iter().for_each(|m| problem(rel, m)),
                }
            }
        }
        // Root entries.
        for (name, _) in files.children(Path::new("")) {
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
        // L5.
        let mut exemplars = Vec::new();
        let l5 = Path::new("L5");
        if files.is_dir(l5) {
            for (name, is_dir) in files.children(l5) {
                match name.parse::<Pattern>() {
                    Ok(_) if is_dir => {}
                    _ => problem(
                        &l5.join(&name),
                        "unexpected entry: L5 holds one folder per pattern".to_string(),
                    ),
                }
            }
            for p in Pattern::ALL {
                if files.is_dir(&l5.join(p.as_str())) {
                    match exemplar::load(files, p) {
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
            return (None, problems);
        }
        chunks.sort_by(|a, b| {
            (a.level, a.patterns != Patterns::All, &a.id).cmp(&(
                b.level,
                b.patterns != Patterns::All,
                &b.id,
            ))
        });
        let kb = KnowledgeBase {
            source: source.clone(),
            patterns: defs,
            chunks,
            exemplars,
        };
        (Some(kb), problems)
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
