//! How `check` results print for people (the JSON form is [`crate::messages::CheckOp`]).

use std::io::{self, Write};

use crate::messages::CheckOp;

/// Prints `r` for people: a status line, then indented problems.
pub fn print_human(out: &mut impl Write, r: &CheckOp) -> io::Result<()> {
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
