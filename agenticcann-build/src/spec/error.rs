//! The one error type of spec loading: every problem found, each naming package, op,
//! field and reason.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The package whose manifest holds the spec.
    pub package: String,
    /// The op, or `None` for package-level fields (`soc`, `kernels`, defaults).
    pub op: Option<String>,
    /// The field, as a path inside the op's table (`inputs.x`, `reference`, `shapes[1].rows`)
    /// or inside the metadata table for package-level problems (`soc`,
    /// `workspace.metadata.agenticcann.tolerance.f16`).
    pub field: String,
    /// The reason, one line.
    pub message: String,
    /// For reference errors: 1-based line and column inside the reference text.
    pub location: Option<(usize, usize)>,
    /// For reference errors: the offending line with carets under the problem.
    pub snippet: Option<String>,
}

impl Problem {
    /// A problem without a source location.
    pub fn new(
        package: &str,
        op: Option<&str>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            package: package.to_string(),
            op: op.map(str::to_string),
            field: field.into(),
            message: message.into(),
            location: None,
            snippet: None,
        }
    }
}

impl fmt::Display for Problem {
    /// `package `p`, op `o`, field `f`: reason`, then for reference errors the location and
    /// caret snippet on the following lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "package `{}`", self.package)?;
        if let Some(op) = &self.op {
            write!(f, ", op `{op}`")?;
        }
        write!(f, ", field `{}`: {}", self.field, self.message)?;
        if let Some((line, col)) = self.location {
            write!(f, "\n --> reference line {line}, column {col}")?;
        }
        if let Some(s) = &self.snippet {
            write!(f, "\n{s}")?;
        }
        Ok(())
    }
}

/// A spec that could not be loaded: the manifest and every problem found in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The manifest the spec came from, when it came from a file.
    pub manifest_path: Option<PathBuf>,
    /// Every problem, in manifest order. Never empty.
    pub problems: Vec<Problem>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(f, "invalid agenticcann spec")?;
        if let Some(p) = &self.manifest_path {
            write!(f, " in {}", p.display())?;
        }
        write!(f, " ({n} problem{})", if n == 1 { "" } else { "s" })?;
        for p in &self.problems {
            write!(f, "\n- {}", p.to_string().replace('\n', "\n  "))?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecError {}
