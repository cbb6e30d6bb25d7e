//! `knowledge/patterns.toml`: the compute patterns, one table each.
//!
//! ```toml
//! [elementwise]
//! summary = "one element in, one element out; every tensor has the output's shape"
//! recognized_by = "no reduction, and every tensor input has the output's shape"
//! examples = ["relu", "gelu", "silu", "add"]
//! ```
//!
//! Every [`Pattern`] has exactly one table; the router ([`mod@super::route`]) implements the
//! `recognized_by` rules in code.

use serde::Deserialize;

use agenticcann_build::spec::Pattern;

/// One pattern's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternDef {
    /// The pattern.
    pub pattern: Pattern,
    /// What the pattern computes, one line.
    pub summary: String,
    /// The router's rule for it, one line.
    pub recognized_by: String,
    /// Typical operators.
    pub examples: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    summary: String,
    recognized_by: String,
    examples: Vec<String>,
}

/// Parses `patterns.toml`.
///
/// # Errors
/// Every problem, one line each: invalid TOML, a table that names no pattern or has unknown
/// or missing fields, a pattern without a table, empty texts or examples.
pub fn parse(text: &str) -> Result<Vec<PatternDef>, Vec<String>> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        vec![format!("invalid TOML: {}", e.to_string().trim_end())]
    })?;
    let mut problems = Vec::new();
    let mut defs = Vec::new();
    for (name, value) in table {
        let pattern = match name.parse::<Pattern>() {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("[{name}]: {e}"));
                continue;
            }
        };
        match value.try_into::<Entry>() {
            Ok(e) => {
                if e.summary.trim().is_empty() || e.recognized_by.trim().is_empty() {
                    problems.push(format!(
                        "[{name}]: summary and recognized_by must not be empty"
                    ));
                }
                if e.examples.is_empty() {
                    problems.push(format!("[{name}]: examples must not be empty"));
                }
                defs.push(PatternDef {
                    pattern,
                    summary: e.summary,
                    recognized_by: e.recognized_by,
                    examples: e.examples,
                });
            }
            Err(e) => problems.push(format!(
                "[{name}]: {}",
                e.to_string().trim_end().replace('\n', " ")
            )),
        }
    }
    for p in Pattern::ALL {
        if !defs.iter().any(|d| d.pattern == p) {
            problems.push(format!("no table for pattern `{p}`"));
        }
    }
    if problems.is_empty() {
        Ok(defs)
    } else {
        Err(problems)
    }
}
