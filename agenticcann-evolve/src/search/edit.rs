//! Applying a model's edit to a parent kernel: whole files or SEARCH/REPLACE diffs.
//!
//! The loop asks for a child in one of two formats (`--edit-format whole|diff`), puts
//! [`format_instructions`] in the prompt, and turns the answer into a [`Candidate`] with
//! [`apply`]. The files a model may change are `kernel.cpp`, `tiling.cpp` and
//! `tiling_fields.txt` (the tiling struct, one `type name` per line, read with
//! [`parse_fields`]); a file the answer does not give keeps the parent's text.
//!
//! - **whole**: fenced blocks labelled with the file name — on the fence
//!   (```` ```cpp kernel.cpp ````, or ```` ```kernel.cpp ````), or on the line right above it
//!   (`kernel.cpp`, `// kernel.cpp`, `**kernel.cpp**`, `` `kernel.cpp`: ``, `File: kernel.cpp`),
//!   at the end of a prose line right above it (`Here is the new kernel.cpp:`), or as a
//!   `// kernel.cpp` comment on the block's first line; a path counts by its last
//!   component (`./kernel.cpp`). Other blocks are ignored.
//! - **diff**: aider-style blocks, each after a line naming its file (or inside a fence
//!   labelled with it):
//!   ```text
//!   kernel.cpp
//!   <<<<<<< SEARCH
//!   old lines
//!   =======
//!   new lines
//!   >>>>>>> REPLACE
//!   ```
//!   Blocks apply in order, each to the result of the ones before; a file named once
//!   stays the target of the blocks after it until another is named. `tiling_fields.txt`
//!   blocks apply to the parent's fields as [`fields_text`] writes them (`type name`
//!   lines). A block's SEARCH lines must occur exactly once in the file, compared line by
//!   line: exactly first, then with trailing whitespace trimmed on both sides; nothing
//!   fuzzier.
//!
//! Answers with CRLF line ends are read as LF.

use std::fmt;
use std::str::FromStr;

use agenticcann_build::judge::Candidate;
use agenticcann_build::spec::OpSpec;
use agenticcann_build::store::{KERNEL_FILE, TILING_FILE};
use serde::{Deserialize, Serialize};

use crate::agent::tools::{fields_text, parse_fields};
use crate::llm::protocol::fenced_blocks;

/// The tiling-fields file of an answer (one `type name` per line), as the agent's tools
/// name it.
pub const FIELDS_FILE: &str = "tiling_fields.txt";

/// The files an answer may give, in candidate order.
const FILES: [&str; 3] = [KERNEL_FILE, TILING_FILE, FIELDS_FILE];

/// How the model sends a child: whole files or SEARCH/REPLACE diffs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditFormat {
    /// Every changed file in full (the default).
    #[default]
    Whole,
    /// Aider-style SEARCH/REPLACE blocks.
    Diff,
}

impl fmt::Display for EditFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EditFormat::Whole => "whole",
            EditFormat::Diff => "diff",
        })
    }
}

/// An `--edit-format` value that is neither `whole` nor `diff`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown edit format `{0}` (expected `whole` or `diff`)")]
pub struct UnknownEditFormat(pub String);

impl FromStr for EditFormat {
    type Err = UnknownEditFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "whole" => Ok(EditFormat::Whole),
            "diff" => Ok(EditFormat::Diff),
            other => Err(UnknownEditFormat(other.to_string())),
        }
    }
}

/// Why an answer cannot be applied; the messages are written for the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The answer gives no file (whole) or no SEARCH/REPLACE block (diff).
    #[error("the answer holds no file: send each file you change in a fenced block labelled with its name (```cpp kernel.cpp), or for a diff, SEARCH/REPLACE blocks each after a line with the file name")]
    NoFiles,
    /// A SEARCH/REPLACE block does not apply to its file.
    #[error("SEARCH/REPLACE block {block} ({file}) does not apply: {reason}")]
    DiffNotApplied {
        /// The file the block edits.
        file: String,
        /// 1-based number of the block in the answer.
        block: usize,
        /// Why (the SEARCH text is missing, occurs several times, or is empty).
        reason: String,
    },
    /// The tiling fields do not parse.
    #[error("{0}")]
    Fields(String),
    /// The SEARCH/REPLACE markers are not in order, or a block names no file.
    #[error("answer line {line}: {reason}")]
    Malformed {
        /// 1-based line of the answer.
        line: usize,
        /// What is wrong and how it should look.
        reason: String,
    },
    /// A block names a file that a candidate does not have.
    #[error("the answer gives `{name}` (line {line}), which is not a file you can change: send only kernel.cpp, tiling.cpp and tiling_fields.txt")]
    UnknownFile {
        /// The name given.
        name: String,
        /// 1-based line of the answer.
        line: usize,
    },
    /// A file is given twice (whole).
    #[error("the answer gives {file} twice (lines {first} and {second}); send each file once")]
    Duplicate {
        /// The file.
        file: String,
        /// 1-based line of the first block.
        first: usize,
        /// 1-based line of the second.
        second: usize,
    },
    /// The answer ends inside a file's block (cut off).
    #[error("the answer ends inside the block of {file} (line {line}) before its closing fence; send the complete file")]
    Cut {
        /// The file.
        file: String,
        /// 1-based line where its block opens.
        line: usize,
    },
    /// A file would be empty.
    #[error("{file} is empty; send the complete file")]
    Empty {
        /// The file.
        file: String,
    },
}

/// The instructions for `format`, to put in a prompt (short: under 120 tokens).
pub fn format_instructions(format: EditFormat) -> &'static str {
    match format {
        EditFormat::Whole => {
            "Answer with each file you change in full, in a fenced block labelled with its name: \
             ```cpp kernel.cpp, ```cpp tiling.cpp, or ```text tiling_fields.txt (the tiling struct, one \
             `type name` per line). Files you leave out stay as they are."
        }
        EditFormat::Diff => {
            "Answer with SEARCH/REPLACE blocks. Each block is the file name (kernel.cpp, tiling.cpp or \
             tiling_fields.txt) on its own line, then:\n<<<<<<< SEARCH\nlines copied exactly from the \
             current file, enough to be unique\n=======\nthe new lines\n>>>>>>> REPLACE\nBlocks apply in \
             order; files without a block stay as they are."
        }
    }
}

/// Applies `answer` (the model's text, in `format`) to `parent`; the tiling fields are
/// checked for `op`.
///
/// # Errors
/// [`EditError::NoFiles`] when the answer gives nothing to apply; for whole files
/// [`EditError::UnknownFile`], [`EditError::Duplicate`], [`EditError::Cut`],
/// [`EditError::Empty`]; for diffs [`EditError::Malformed`] (markers out of order, a block
/// naming no file) and [`EditError::DiffNotApplied`] (the SEARCH text does not occur exactly
/// once); [`EditError::Fields`] when the resulting tiling fields do not parse.
pub fn apply(
    format: EditFormat,
    parent: &Candidate,
    answer: &str,
    op: &OpSpec,
) -> Result<Candidate, EditError> {
    let answer = answer.replace("\r\n", "\n");
    let parent_fields = fields_text(&parent.tiling_fields);
    let mut files: [String; 3] = [
        parent.kernel.clone(),
        parent.tiling.clone(),
        parent_fields.clone(),
    ];
    match format {
        EditFormat::Whole => {
            for (i, text) in whole_files(&answer)? {
                files[i] = text;
            }
        }
        EditFormat::Diff => {
            let blocks = diff_blocks(&answer)?;
            if blocks.is_empty() {
                return Err(EditError::NoFiles);
            }
            for (n, b) in blocks.iter().enumerate() {
                files[b.file] =
                    apply_block(&files[b.file], &b.search, &b.replace).map_err(|reason| {
                        EditError::DiffNotApplied {
                            file: FILES[b.file].to_string(),
                            block: n + 1,
                            reason,
                        }
                    })?;
            }
            for (i, f) in files.iter().enumerate() {
                if blocks.iter().any(|b| b.file == i) && f.trim().is_empty() {
                    return Err(EditError::Empty {
                        file: FILES[i].to_string(),
                    });
                }
            }
        }
    }
    let [kernel, tiling, fields] = files;
    let tiling_fields = if fields == parent_fields {
        parent.tiling_fields.clone()
    } else {
        parse_fields(&fields, op).map_err(|e| EditError::Fields(e.0))?
    };
    Ok(Candidate {
        kernel,
        tiling,
        tiling_fields,
    })
}

/// The index in [`FILES`] of a file name.
/// A path (`./kernel.cpp`, `src/kernel.cpp`) counts by its last component.
fn file_index(name: &str) -> Option<usize> {
    let base = name.rsplit('/').next().unwrap_or(name);
    FILES.iter().position(|f| *f == base)
}

/// The file a label line names (`kernel.cpp`, `// kernel.cpp`, `**kernel.cpp**`,
/// `` `kernel.cpp`: ``, `### kernel.cpp`, `File: kernel.cpp`), or `None`.
fn label(line: &str) -> Option<&str> {
    let decoration = |c: char| " \t*`#/:".contains(c);
    let mut t = line.trim().trim_matches(decoration);
    for prefix in ["file:", "filename:"] {
        if let (Some(head), Some(rest)) = (t.get(..prefix.len()), t.get(prefix.len()..)) {
            if head.eq_ignore_ascii_case(prefix) && !rest.is_empty() {
                t = rest.trim_matches(decoration);
            }
        }
    }
    (!t.is_empty() && !t.contains(char::is_whitespace) && looks_like_file(t)).then_some(t)
}

/// A known file named by the last word of a prose line (`Here is the new kernel.cpp:`).
fn prose_label(line: &str) -> Option<&str> {
    let last = line.split_whitespace().last()?;
    let t = last.trim_matches(|c: char| "*`:'\"".contains(c));
    file_index(t).is_some().then_some(t)
}

/// A word that reads as a file name of an answer (a known file, or any `name.ext` with a
/// source or text extension, which is then an unknown file).
fn looks_like_file(word: &str) -> bool {
    file_index(word).is_some()
        || [".cpp", ".cc", ".h", ".hpp", ".txt"]
            .iter()
            .any(|x| word.len() > x.len() && word.ends_with(x))
}

/// The whole files of an answer: `(index in FILES, text)`.
fn whole_files(answer: &str) -> Result<Vec<(usize, String)>, EditError> {
    let lines: Vec<&str> = answer.lines().collect();
    let mut out: Vec<(usize, String, usize)> = Vec::new();
    for b in fenced_blocks(answer) {
        let on_fence = b
            .file
            .as_deref()
            .filter(|f| looks_like_file(f))
            .or_else(|| looks_like_file(&b.lang).then_some(b.lang.as_str()));
        let above = || {
            lines
                .get(..b.line.saturating_sub(1))
                .unwrap_or_default()
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .and_then(|l| label(l).or_else(|| prose_label(l)))
        };
        // Or a comment naming a known file as the block's first line (kept in the file).
        let first_line = || {
            b.text
                .lines()
                .next()
                .filter(|l| l.trim_start().starts_with("//") || l.trim_start().starts_with('#'))
                .and_then(label)
                .filter(|n| file_index(n).is_some())
        };
        let Some(name) = on_fence.or_else(above).or_else(first_line) else {
            continue;
        };
        let Some(i) = file_index(name) else {
            return Err(EditError::UnknownFile {
                name: name.to_string(),
                line: b.line,
            });
        };
        if !b.closed {
            return Err(EditError::Cut {
                file: name.to_string(),
                line: b.line,
            });
        }
        if b.text.trim().is_empty() {
            return Err(EditError::Empty {
                file: name.to_string(),
            });
        }
        if let Some((_, _, first)) = out.iter().find(|(j, _, _)| *j == i) {
            return Err(EditError::Duplicate {
                file: name.to_string(),
                first: *first,
                second: b.line,
            });
        }
        out.push((i, b.text, b.line));
    }
    if out.is_empty() {
        return Err(EditError::NoFiles);
    }
    Ok(out.into_iter().map(|(i, t, _)| (i, t)).collect())
}

/// One SEARCH/REPLACE block.
struct Block {
    /// Index in [`FILES`].
    file: usize,
    search: Vec<String>,
    replace: Vec<String>,
}

/// `<<<<<<< SEARCH` and friends: 5 to 9 marker characters, optionally followed by the word.
fn marker(line: &str, c: char, word: &str) -> bool {
    let t = line.trim_end();
    let n = t.len() - t.trim_start_matches(c).len();
    (5..=9).contains(&n) && t[n..].trim() == word
}

fn diff_blocks(answer: &str) -> Result<Vec<Block>, EditError> {
    enum State {
        Outside,
        Search(usize, Vec<String>),
        Replace(usize, Vec<String>, Vec<String>),
    }
    let mut out = Vec::new();
    let mut file: Option<(usize, usize)> = None;
    let mut state = State::Outside;
    let mut open_line = 0;
    for (k, line) in answer.lines().enumerate() {
        let n = k + 1;
        let is_search = marker(line, '<', "SEARCH");
        let is_divider = marker(line, '=', "");
        let is_replace = marker(line, '>', "REPLACE");
        state = match state {
            State::Outside => {
                if is_search {
                    let Some((f, _)) = file else {
                        return Err(EditError::Malformed {
                            line: n,
                            reason: "this `<<<<<<< SEARCH` names no file: put the file name (kernel.cpp, tiling.cpp or tiling_fields.txt) on the line before it".into(),
                        });
                    };
                    open_line = n;
                    State::Search(f, Vec::new())
                } else if is_replace {
                    return Err(EditError::Malformed {
                        line: n,
                        reason: format!(
                            "`{}` outside a block: every block starts with `<<<<<<< SEARCH`",
                            line.trim()
                        ),
                    });
                } else {
                    // A file name: on a line of its own, or on a fence's info string.
                    let t = line.trim_start();
                    let name = if t.starts_with("```") {
                        t.trim_start_matches('`')
                            .split_whitespace()
                            .find(|w| looks_like_file(w))
                    } else {
                        label(line)
                    };
                    if let Some(name) = name {
                        let Some(i) = file_index(name) else {
                            return Err(EditError::UnknownFile {
                                name: name.to_string(),
                                line: n,
                            });
                        };
                        file = Some((i, n));
                    }
                    State::Outside
                }
            }
            State::Search(f, s) => {
                if is_divider {
                    State::Replace(f, s, Vec::new())
                } else if is_search || is_replace {
                    return Err(EditError::Malformed {
                        line: n,
                        reason: format!(
                            "`{}` before `=======`: a block is `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`",
                            line.trim()
                        ),
                    });
                } else {
                    let mut s = s;
                    s.push(line.to_string());
                    State::Search(f, s)
                }
            }
            State::Replace(f, s, r) => {
                if is_replace {
                    out.push(Block {
                        file: f,
                        search: s,
                        replace: r,
                    });
                    State::Outside
                } else if is_search || is_divider {
                    return Err(EditError::Malformed {
                        line: n,
                        reason: format!(
                            "`{}` before `>>>>>>> REPLACE`: close each block with `>>>>>>> REPLACE`",
                            line.trim()
                        ),
                    });
                } else {
                    let mut r = r;
                    r.push(line.to_string());
                    State::Replace(f, s, r)
                }
            }
        };
    }
    if !matches!(state, State::Outside) {
        return Err(EditError::Malformed {
            line: open_line,
            reason: "the block opened here has no `>>>>>>> REPLACE` (the answer ends inside it)"
                .into(),
        });
    }
    Ok(out)
}

/// A line without its terminator (`\n` or `\r\n`).
fn bare(l: &str) -> &str {
    let l = l.strip_suffix('\n').unwrap_or(l);
    l.strip_suffix('\r').unwrap_or(l)
}

/// Replaces the one occurrence of the `search` lines in `text` by the `replace` lines.
fn apply_block(text: &str, search: &[String], replace: &[String]) -> Result<String, String> {
    if search.iter().all(|l| l.trim().is_empty()) {
        return Err(
            "its SEARCH part is empty; quote the lines to replace, copied from the current file"
                .into(),
        );
    }
    // Lines with their terminators, so untouched lines keep their exact bytes.
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let find = |eq: &dyn Fn(&str, &str) -> bool| -> Vec<usize> {
        if search.len() > lines.len() {
            return Vec::new();
        }
        (0..=lines.len() - search.len())
            .filter(|&at| search.iter().zip(&lines[at..]).all(|(s, l)| eq(s, bare(l))))
            .collect()
    };
    let mut hits = find(&|s, l| s == l);
    if hits.is_empty() {
        hits = find(&|s, l| s.trim_end() == l.trim_end());
    }
    let at = match hits.as_slice() {
        [one] => *one,
        [] => {
            return Err(format!(
                "its SEARCH lines do not occur in the current file (the first is `{}`); copy them exactly",
                search
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .map_or("", |l| l.trim())
            ))
        }
        many => {
            return Err(format!(
                "its SEARCH lines occur {} times in the current file; include more lines to make them unique",
                many.len()
            ))
        }
    };
    let mut out = String::with_capacity(text.len());
    for l in &lines[..at] {
        out.push_str(l);
    }
    let last = at + search.len();
    // The replacement ends with a newline unless it replaces the file's unterminated end.
    let ends_bare = last == lines.len() && !text.ends_with('\n');
    for (k, r) in replace.iter().enumerate() {
        out.push_str(r);
        if k + 1 < replace.len() || !ends_bare {
            out.push('\n');
        }
    }
    for l in &lines[last..] {
        out.push_str(l);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert!(marker("<<<<<<< SEARCH", '<', "SEARCH"));
        assert!(marker("<<<<<<< SEARCH  ", '<', "SEARCH"));
        assert!(marker("=======", '=', ""));
        assert!(!marker("====", '=', ""));
        assert!(!marker("x = 1; // =======", '=', ""));
        assert!(marker(">>>>>>> REPLACE", '>', "REPLACE"));
        assert!(!marker(">>>>>>> REPLACED", '>', "REPLACE"));
    }

    #[test]
    fn labels() {
        assert_eq!(label("kernel.cpp"), Some("kernel.cpp"));
        assert_eq!(label("// kernel.cpp"), Some("kernel.cpp"));
        assert_eq!(label("**tiling.cpp**"), Some("tiling.cpp"));
        assert_eq!(label("`tiling_fields.txt`:"), Some("tiling_fields.txt"));
        assert_eq!(label("File: `kernel.cpp`"), Some("kernel.cpp"));
        assert_eq!(label("### ./tiling.cpp"), Some("./tiling.cpp"));
        assert_eq!(file_index("./tiling.cpp"), Some(1));
        assert_eq!(file_index("kernels/abc/kernel.cpp"), Some(0));
        assert_eq!(file_index("kernel.h"), None);
        assert_eq!(label("Here is kernel.cpp"), None);
        assert_eq!(label("fileé: kernel.cpp"), None);
        assert_eq!(
            prose_label("Here is the new `kernel.cpp`:"),
            Some("kernel.cpp")
        );
        assert_eq!(prose_label("Here is the new kernel.h:"), None);
        assert_eq!(prose_label("The kernel.cpp changes here"), None);
        assert_eq!(label("int x = 1;"), None);
    }

    #[test]
    fn block_keeps_untouched_bytes_and_a_missing_final_newline() {
        let t = "a\nb\nc";
        assert_eq!(
            apply_block(t, &["c".into()], &["C".into()]).unwrap(),
            "a\nb\nC"
        );
        assert_eq!(
            apply_block(t, &["b".into()], &["B1".into(), "B2".into()]).unwrap(),
            "a\nB1\nB2\nc"
        );
        assert_eq!(apply_block(t, &["b".into()], &[]).unwrap(), "a\nc");
        assert!(apply_block(t, &["a".into(), "b".into(), "c".into(), "d".into()], &[]).is_err());
    }
}
