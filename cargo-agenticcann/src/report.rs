//! Per-op results of `check` and how they print: lines for people, or one JSON object per
//! op (the schema below is stable; fields are only ever added).

use std::collections::BTreeMap;
use std::io::{self, Write};

use agenticcann_build::spec::Problem;
use serde::Serialize;

/// One problem, as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    /// The field inside the op's table (`inputs.x`, `reference`, `shapes[0].rows`) or the
    /// metadata table (`soc`).
    pub field: String,
    /// The reason.
    pub message: String,
    /// 1-based line inside the reference, for reference errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column inside the reference, for reference errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The reference line with carets, for reference errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

impl From<&Problem> for Diagnostic {
    fn from(p: &Problem) -> Self {
        Diagnostic {
            field: p.field.clone(),
            message: p.message.clone(),
            line: p.location.map(|l| l.0),
            column: p.location.map(|l| l.1),
            snippet: p.snippet.clone(),
        }
    }
}

/// A tensor of a valid op, with the verification settings that apply to it after defaults.
#[derive(Clone, Debug, Serialize)]
pub struct TensorInfo {
    /// The name.
    pub name: String,
    /// Dtype and shape as declared (`f16[rows, 4096]`).
    pub decl: String,
    /// Inputs: the distribution verification draws from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
    /// Outputs: absolute tolerance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atol: Option<f64>,
    /// Outputs: relative tolerance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtol: Option<f64>,
}

/// The outcome of checking one op (or, with `op: None`, a package with no op to blame).
#[derive(Clone, Debug, Serialize)]
pub struct OpResult {
    /// The package name.
    pub package: String,
    /// The package's `Cargo.toml`.
    pub manifest_path: String,
    /// The op's name.
    pub op: Option<String>,
    /// True when the spec is valid and its reference evaluated.
    pub ok: bool,
    /// The content key (64 hex digits), when the spec is valid.
    pub key: Option<String>,
    /// The target SoC.
    pub soc: Option<String>,
    /// The vector arch kernels compile for.
    pub arch: Option<String>,
    /// The declared pattern, or the knowledge router's (`agenticcann_evolve::knowledge::route`).
    pub pattern: Option<String>,
    /// True when `pattern` was routed rather than declared.
    pub pattern_guessed: bool,
    /// The binding of named dimensions the reference was evaluated on.
    pub evaluated_shape: Option<BTreeMap<String, usize>>,
    /// Inputs in manifest order (valid ops only).
    pub inputs: Vec<TensorInfo>,
    /// Outputs in manifest order (valid ops only).
    pub outputs: Vec<TensorInfo>,
    /// Why the spec is invalid.
    pub errors: Vec<Diagnostic>,
    /// Things that do not make the spec invalid but deserve a look.
    pub warnings: Vec<Diagnostic>,
}

/// Prints `r` as one JSON line.
pub fn print_json(out: &mut impl Write, r: &OpResult) -> io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    writeln!(out)
}

/// Prints `r` for people: a status line, then indented problems.
pub fn print_human(out: &mut impl Write, r: &OpResult) -> io::Result<()> {
    let op = r.op.as_deref().unwrap_or("(package)");
    if r.ok {
        write!(out, "{} {op}: ok", r.package)?;
        if let Some(k) = &r.key {
            write!(out, "  key {k}")?;
        }
        if let Some(p) = &r.pattern {
            write!(
                out,
                "  pattern {p}{}",
                if r.pattern_guessed { " (guessed)" } else { "" }
            )?;
        }
        writeln!(out)?;
    } else {
        writeln!(out, "{} {op}: invalid", r.package)?;
    }
    // Every message names the file and the op, so that each line stands alone.
    let place = match &r.op {
        Some(o) => format!("{}: op `{o}`", r.manifest_path),
        None => r.manifest_path.clone(),
    };
    for (kind, list) in [("error", &r.errors), ("warning", &r.warnings)] {
        for d in list {
            writeln!(out, "    {kind}: {place}: {}: {}", d.field, d.message)?;
            if let (Some(l), Some(c)) = (d.line, d.column) {
                writeln!(out, "     --> reference line {l}, column {c}")?;
            }
            if let Some(s) = &d.snippet {
                for line in s.lines() {
                    writeln!(out, "      {line}")?;
                }
            }
        }
    }
    Ok(())
}
