//! One knowledge chunk: a Markdown file with TOML front matter between `+++` lines.
//!
//! ```text
//! +++
//! id = "L2.align32"
//! level = 2
//! patterns = ["*"]
//! error_kinds = ["ub_misaligned", "datacopy_truncated"]
//! summary = "UB operands and DataCopy lengths are whole 32-byte blocks"
//! +++
//! - Every UB tensor starts on a 32-byte boundary; ...
//! ```
//!
//! - `id`: `L<level>.<file stem>` for levels 0–4 (the file is `knowledge/L<level>/<stem>.md`);
//!   `L5.<pattern>` for an exemplar skeleton (`knowledge/L5/<pattern>/skeleton.md`).
//! - `level`: 0–5 (see [`Level`]).
//! - `patterns`: the compute patterns the chunk is about, by name, or `["*"]` for all.
//! - `error_kinds`: the diagnostic kinds ([`agenticcann_build::kinds`]) the chunk prevents or explains;
//!   every L2 chunk names at least one, since repair prompts are routed by them.
//! - `summary`: one line, shown where a chunk is listed rather than included.
//!
//! The body is the Markdown after the closing `+++`, without leading and trailing blank
//! lines. A chunk's digest is the sha256 of the whole file's bytes (front matter included),
//! so any edit changes it.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use agenticcann_build::kinds::{self, ErrorKind};
use agenticcann_build::spec::Pattern;

/// The six levels of the knowledge base (DESIGN §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// L0: the hardware mental model.
    L0,
    /// L1: operational semantics (dataflow, synchronisation, the kernel paradigm).
    L1,
    /// L2: invariant constraints, each with the diagnostic kinds it prevents.
    L2,
    /// L3: tiling strategies per pattern.
    L3,
    /// L4: API cards with units and limits.
    L4,
    /// L5: verified exemplars (a skeleton chunk plus a complete store entry).
    L5,
}

impl Level {
    /// Every level, in order.
    pub const ALL: [Level; 6] = [
        Level::L0,
        Level::L1,
        Level::L2,
        Level::L3,
        Level::L4,
        Level::L5,
    ];

    /// The level's number, 0–5.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The level numbered `n`.
    pub fn from_number(n: i64) -> Option<Level> {
        Level::ALL.into_iter().find(|l| i64::from(l.number()) == n)
    }

    /// The heading the assembled prompt puts above this level's chunks.
    pub fn heading(self) -> &'static str {
        match self {
            Level::L0 => "# Hardware",
            Level::L1 => "# Execution model",
            Level::L2 => "# Rules",
            Level::L3 => "# Tiling",
            Level::L4 => "# API",
            Level::L5 => "# Exemplar",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.number())
    }
}

/// The patterns a chunk applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Patterns {
    /// `["*"]`: every pattern.
    All,
    /// The listed patterns; none for a repair-only L2 rule (`patterns = []`: served in
    /// repair for its error kinds, never in init or mutation).
    Some(Vec<Pattern>),
}

impl Patterns {
    /// True when the chunk applies to `p`.
    pub fn contains(&self, p: Pattern) -> bool {
        match self {
            Patterns::All => true,
            Patterns::Some(ps) => ps.contains(&p),
        }
    }
}

/// A parsed, validated chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The unique id (see the module docs for its form).
    pub id: String,
    /// The level.
    pub level: Level,
    /// The patterns it applies to.
    pub patterns: Patterns,
    /// The kinds it prevents or explains.
    pub error_kinds: Vec<&'static ErrorKind>,
    /// One line.
    pub summary: String,
    /// The Markdown body (no front matter, no surrounding blank lines).
    pub body: String,
    /// The file, relative to the knowledge root (`L2/align32.md`).
    pub path: PathBuf,
    /// sha256 of the file's bytes, 64 lowercase hex digits.
    pub digest: String,
}

impl Chunk {
    /// True when the chunk names `kind` in `error_kinds`.
    pub fn prevents(&self, kind: &str) -> bool {
        self.error_kinds.iter().any(|k| k.name == kind)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    id: String,
    level: i64,
    patterns: Vec<String>,
    #[serde(default)]
    error_kinds: Vec<String>,
    summary: String,
}

/// sha256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Parses the chunk file `rel` (relative to the knowledge root) from its bytes, checking
/// that its id matches where it lives (`expected_id`).
///
/// # Errors
/// Every problem found, each one line naming the field: not UTF-8, no `+++` front matter,
/// invalid TOML or unknown fields, an id that does not match the file's location, a level
/// outside 0–5 or other than the folder's, unknown or empty patterns, unknown error kinds,
/// an L2 chunk without error kinds, an empty summary or body.
pub fn parse(
    rel: &Path,
    bytes: &[u8],
    expected_id: &str,
    expected_level: Level,
) -> Result<Chunk, Vec<String>> {
    let text = std::str::from_utf8(bytes).map_err(|e| vec![format!("not UTF-8: {e}")])?;
    let (front, body) = split_front_matter(text)?;
    let fm: FrontMatter = toml::from_str(front).map_err(|e| {
        vec![format!(
            "front matter: {}",
            e.to_string().trim_end().replace('\n', " ")
        )]
    })?;
    let mut problems = Vec::new();
    if fm.id != expected_id {
        problems.push(format!(
            "id: `{}` does not match the file's location (expected `{expected_id}`)",
            fm.id
        ));
    }
    let level = Level::from_number(fm.level);
    match level {
        None => problems.push(format!("level: {} is not a level (0–5)", fm.level)),
        Some(l) if l != expected_level => problems.push(format!(
            "level: {l} but the file is in the {expected_level} folder"
        )),
        Some(_) => {}
    }
    let patterns = if fm.patterns == ["*"] {
        Some(Patterns::All)
    } else if fm.patterns.is_empty() && level == Some(Level::L2) {
        // A repair-only rule: served for its error kinds, in no pattern's init or mutation.
        Some(Patterns::Some(Vec::new()))
    } else if fm.patterns.is_empty() {
        problems.push(
            "patterns: empty (list pattern names, or [\"*\"] for all; only an L2 rule may list none)"
                .to_string(),
        );
        None
    } else {
        let mut ps = Vec::new();
        for name in &fm.patterns {
            match name.parse::<Pattern>() {
                Ok(p) if ps.contains(&p) => {
                    problems.push(format!("patterns: `{name}` listed twice"))
                }
                Ok(p) => ps.push(p),
                Err(e) => problems.push(format!("patterns: {e}")),
            }
        }
        Some(Patterns::Some(ps))
    };
    let mut error_kinds = Vec::new();
    for name in &fm.error_kinds {
        match kinds::lookup(name) {
            Some(k) if error_kinds.contains(&k) => {
                problems.push(format!("error_kinds: `{name}` listed twice"))
            }
            Some(k) => error_kinds.push(k),
            None => problems.push(format!(
                "error_kinds: unknown kind `{name}` (see agenticcann_build::kinds::ALL)"
            )),
        }
    }
    if expected_level == Level::L2 && fm.error_kinds.is_empty() {
        problems
            .push("error_kinds: an L2 rule must name the diagnostic kinds it prevents".to_string());
    }
    let summary = fm.summary.trim();
    if summary.is_empty() || summary.contains('\n') {
        problems.push("summary: must be one non-empty line".to_string());
    }
    if body.is_empty() {
        problems.push("body: empty".to_string());
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Chunk {
        id: fm.id,
        level: level.expect("checked above"),
        patterns: patterns.expect("checked above"),
        error_kinds,
        summary: summary.to_string(),
        body: body.to_string(),
        path: rel.to_path_buf(),
        digest: sha256_hex(bytes),
    })
}

/// Splits `+++\n<toml>\n+++\n<body>` into the TOML and the trimmed body.
fn split_front_matter(text: &str) -> Result<(&str, &str), Vec<String>> {
    let no_front = || vec!["no front matter: the file must start with a `+++` line".to_string()];
    let rest = text
        .strip_prefix("+++\n")
        .or_else(|| text.strip_prefix("+++\r\n"))
        .ok_or_else(no_front)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "+++" {
            let front = &rest[..offset];
            let body = rest[offset + line.len()..].trim_matches(|c| c == '\n' || c == '\r');
            return Ok((front, body.trim_end()));
        }
        offset += line.len();
    }
    Err(vec!["front matter: no closing `+++` line".to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str) -> Result<Chunk, Vec<String>> {
        parse(Path::new("L2/x.md"), text.as_bytes(), "L2.x", Level::L2)
    }

    #[test]
    fn an_l2_rule_without_patterns_is_repair_only() {
        let c = chunk(
            "+++\nid = \"L2.x\"\nlevel = 2\npatterns = []\n\
             error_kinds = [\"gm_read_race\"]\nsummary = \"s\"\n+++\n- rule\n",
        )
        .unwrap();
        assert!(!c.patterns.contains(Pattern::Softmax));
        assert!(c.prevents("gm_read_race"));
        let l3 = parse(
            Path::new("L3/softmax.md"),
            b"+++\nid = \"L3.softmax\"\nlevel = 3\npatterns = []\nsummary = \"s\"\n+++\n- x\n",
            "L3.softmax",
            Level::L3,
        )
        .unwrap_err();
        assert!(l3.iter().any(|p| p.contains("only an L2 rule")), "{l3:?}");
    }

    #[test]
    fn parses_a_valid_chunk() {
        let c = chunk(
            "+++\nid = \"L2.x\"\nlevel = 2\npatterns = [\"softmax\", \"reduction\"]\n\
             error_kinds = [\"ub_misaligned\"]\nsummary = \"s\"\n+++\n\n- rule\n\n",
        )
        .unwrap();
        assert_eq!(c.level, Level::L2);
        assert_eq!(c.body, "- rule");
        assert!(c.patterns.contains(Pattern::Softmax));
        assert!(!c.patterns.contains(Pattern::Elementwise));
        assert!(c.prevents("ub_misaligned"));
        assert_eq!(c.digest.len(), 64);
    }

    #[test]
    fn reports_every_problem() {
        let errs = chunk(
            "+++\nid = \"L2.y\"\nlevel = 3\npatterns = [\"rows\"]\nerror_kinds = [\"oops\"]\n\
             summary = \"\"\n+++\n",
        )
        .unwrap_err();
        let all = errs.join("\n");
        for needle in [
            "id: `L2.y`",
            "level: L3",
            "unknown pattern `rows`",
            "unknown kind `oops`",
            "summary",
            "body: empty",
        ] {
            assert!(all.contains(needle), "missing {needle} in {all}");
        }
    }

    #[test]
    fn rejects_missing_front_matter_unknown_fields_and_l2_without_kinds() {
        assert!(chunk("# no front matter").unwrap_err()[0].contains("no front matter"));
        assert!(chunk("+++\nid = \"L2.x\"\n").unwrap_err()[0].contains("no closing"));
        let e = chunk(
            "+++\nid = \"L2.x\"\nlevel = 2\npatterns = [\"*\"]\nsummary = \"s\"\nextra = 1\n+++\nb",
        )
        .unwrap_err();
        assert!(e[0].contains("extra"), "{e:?}");
        let e = chunk("+++\nid = \"L2.x\"\nlevel = 2\npatterns = [\"*\"]\nsummary = \"s\"\n+++\nb")
            .unwrap_err();
        assert!(e[0].contains("must name the diagnostic kinds"), "{e:?}");
    }
}
