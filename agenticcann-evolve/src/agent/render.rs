//! Tool results written for a model: diagnostics deduplicated across shapes (kind, file:line,
//! message, and which shapes), a compact per-shape table, the profile summary (time, bound,
//! roofline fraction), and the repair knowledge for the error kinds
//! ([`repair_knowledge`]: `assemble(Repair, pattern, kinds)` in mode `full`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use agenticcann_build::judge::{
    Diagnostic, Evaluation, Severity, ShapeOrigin, ShapeResult, ShapeStatus, Stage,
};
use agenticcann_build::spec::Pattern;

use super::task::KnowledgeMode;
use crate::knowledge::{assemble, KnowledgeBase, Level, Phase};

/// At most this many distinct diagnostics are listed (the rest are counted).
pub const MAX_DIAGNOSTICS: usize = 10;

/// A rendered tool result and the error kinds to route repair knowledge on: those of the
/// earliest stage with errors (the root cause), in order of first appearance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The text for the model.
    pub text: String,
    /// Error kinds of the earliest failing stage, in order of first appearance, each once.
    pub kinds: Vec<String>,
}

/// One diagnostic with every shape it was reported on.
#[derive(Clone, Debug, PartialEq)]
pub struct Grouped<'a> {
    /// The first occurrence.
    pub first: &'a Diagnostic,
    /// Shape indices it occurred on (into the shapes of the result), in order.
    pub shapes: Vec<usize>,
    /// Occurrences in all.
    pub count: usize,
}

/// Groups `diags` by (severity, kind, file, line): one per distinct finding, errors first,
/// in order of first appearance.
pub fn dedup(diags: &[Diagnostic]) -> Vec<Grouped<'_>> {
    let mut groups: Vec<Grouped<'_>> = Vec::new();
    for d in diags {
        let same = |g: &Grouped<'_>| {
            g.first.severity == d.severity
                && g.first.kind == d.kind
                && g.first.file == d.file
                && g.first.line == d.line
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => {
                g.count += 1;
                if let Some(s) = d.shape {
                    if !g.shapes.contains(&s) {
                        g.shapes.push(s);
                    }
                }
            }
            None => groups.push(Grouped {
                first: d,
                shapes: d.shape.into_iter().collect(),
                count: 1,
            }),
        }
    }
    groups.sort_by_key(|g| g.first.severity != Severity::Error);
    groups
}

fn dims_text(d: &BTreeMap<String, u64>) -> String {
    if d.is_empty() {
        return "(fixed)".into();
    }
    d.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn origin_text(o: &ShapeOrigin) -> String {
    match o {
        ShapeOrigin::Declared => "declared".into(),
        ShapeOrigin::HeldOut { reason } => format!("held-out {reason}"),
        ShapeOrigin::Stress { scenario } => format!("stress {scenario}"),
    }
}

fn status_text(s: ShapeStatus) -> &'static str {
    match s {
        ShapeStatus::Passed => "ok",
        ShapeStatus::Failed => "FAIL",
        ShapeStatus::Error => "ERROR",
        ShapeStatus::NotRun => "not run",
        ShapeStatus::SkippedEmpty => "empty",
        ShapeStatus::Declined => "declined",
    }
}

/// Renders a judge tool's result: `head`, then the deduplicated diagnostics (errors first;
/// for each: `error[kind] file:line: message` and `shapes: #i dims, …`, plus up to three
/// notes), then a table of `shapes` (index, dims, origin, status, worst errors, time), then
/// the profile summary of the declared shapes. `shapes` are indexed as the diagnostics'
/// `shape` fields index them.
pub fn rendered(
    head: String,
    diags: &[Diagnostic],
    shapes: &[ShapeResult],
    _evaluation: Option<&Evaluation>,
) -> Rendered {
    let mut s = head;
    s.push('\n');
    let groups = dedup(diags);
    // Route on the root cause: the error kinds of the earliest stage with errors (a run
    // that failed leaves unwritten outputs, which the verify stage reports too).
    let rank = |st: Stage| match st {
        Stage::Policy => 0,
        Stage::Compile => 1,
        Stage::Run => 2,
        Stage::Verify => 3,
        Stage::Profile => 4,
    };
    let root = groups
        .iter()
        .filter(|g| g.first.severity == Severity::Error)
        .map(|g| rank(g.first.stage))
        .min();
    let mut kinds: Vec<String> = Vec::new();
    for g in &groups {
        if g.first.severity == Severity::Error
            && Some(rank(g.first.stage)) == root
            && !kinds.contains(&g.first.kind)
        {
            kinds.push(g.first.kind.clone());
        }
    }
    if !groups.is_empty() {
        let errors = groups
            .iter()
            .filter(|g| g.first.severity == Severity::Error)
            .count();
        let _ = writeln!(
            s,
            "\n# Diagnostics ({errors} distinct errors, {} warnings; {} reports in all)",
            groups.len() - errors,
            diags.len()
        );
    }
    for g in groups.iter().take(MAX_DIAGNOSTICS) {
        let d = g.first;
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut line = format!("- {sev}[{}]", d.kind);
        if let Some(f) = &d.file {
            let _ = write!(line, " {f}");
            if let Some(l) = d.line {
                let _ = write!(line, ":{l}");
            }
        }
        let _ = write!(line, ": {}", d.message);
        s.push_str(&line);
        s.push('\n');
        if !g.shapes.is_empty() {
            let named: Vec<String> = g
                .shapes
                .iter()
                .take(8)
                .map(|&i| match shapes.get(i) {
                    Some(r) => format!("#{i} {}", dims_text(&r.dims)),
                    None => format!("#{i}"),
                })
                .collect();
            let more = g.shapes.len().saturating_sub(8);
            let _ = writeln!(
                s,
                "  on shapes: {}{}",
                named.join("; "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        for n in d.notes.iter().take(3) {
            let _ = writeln!(s, "  | {}", n.trim_end());
        }
    }
    if groups.len() > MAX_DIAGNOSTICS {
        let _ = writeln!(
            s,
            "- … {} more distinct diagnostics",
            groups.len() - MAX_DIAGNOSTICS
        );
    }
    if !shapes.is_empty() {
        let _ = writeln!(
            s,
            "\n# Shapes\n| # | dims | origin | status | max abs err | max rel err | time us |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for (i, sh) in shapes.iter().enumerate() {
            let worst = sh
                .outputs
                .iter()
                .map(|o| (o.max_abs_err, o.max_rel_err))
                .fold(None, |a: Option<(f64, f64)>, b| {
                    Some(a.map_or(b, |a| (a.0.max(b.0), a.1.max(b.1))))
                });
            let (abs, rel) = match worst {
                Some((a, r)) => (format!("{a:.2e}"), format!("{r:.2e}")),
                None => ("-".into(), "-".into()),
            };
            let time = sh
                .profile
                .as_ref()
                .map_or("-".to_string(), |p| format!("{:.2}", p.time_us));
            let _ = writeln!(
                s,
                "| {i} | {} | {} | {} | {abs} | {rel} | {time} |",
                dims_text(&sh.dims),
                origin_text(&sh.origin),
                status_text(sh.status)
            );
        }
        let profiled: Vec<(usize, &ShapeResult)> = shapes
            .iter()
            .enumerate()
            .filter(|(_, r)| r.origin == ShapeOrigin::Declared && r.profile.is_some())
            .collect();
        if !profiled.is_empty() {
            let _ = writeln!(s, "\n# Profile (declared shapes, cost model)");
            for (i, r) in profiled {
                let p = r.profile.as_ref().expect("filtered");
                let _ = writeln!(
                    s,
                    "- #{i} {}: {:.2} us, bound by {}, roofline fraction {:.2} (floor {:.2} us), {} blocks",
                    dims_text(&r.dims),
                    p.time_us,
                    p.bound,
                    p.roofline_fraction,
                    p.min_floor_us,
                    p.block_dim
                );
            }
        }
    }
    Rendered { text: s, kinds }
}

/// The repair knowledge of `kinds` in `mode`, and the chunks it used (id, digest):
/// `full`: [`assemble()`]`(Repair, pattern, kinds)` (the L2 rules for the kinds and the
/// pattern's L5 skeleton); `api+constraints`: the L2 rules for the kinds alone; `api`,
/// `none`: nothing. Kinds the registry does not know are left out.
pub fn repair_knowledge(
    kb: &KnowledgeBase,
    pattern: Pattern,
    mode: KnowledgeMode,
    kinds: &[String],
) -> (String, Vec<(String, String)>) {
    let known: Vec<&str> = kinds
        .iter()
        .map(String::as_str)
        .filter(|k| agenticcann_build::kinds::lookup(k).is_some())
        .collect();
    if known.is_empty() {
        return (String::new(), Vec::new());
    }
    match mode {
        KnowledgeMode::Full => match assemble(kb, Phase::Repair, pattern, &known) {
            Ok(p) => (
                p.text,
                p.chunks.into_iter().map(|c| (c.id, c.digest)).collect(),
            ),
            Err(_) => (String::new(), Vec::new()),
        },
        KnowledgeMode::ApiConstraints => {
            let mut text = String::new();
            let mut used = Vec::new();
            for k in &known {
                for c in kb
                    .chunks
                    .iter()
                    .filter(|c| c.level == Level::L2 && c.prevents(k))
                {
                    if used.iter().any(|(id, _): &(String, String)| id == &c.id) {
                        continue;
                    }
                    if text.is_empty() {
                        text.push_str(Level::L2.heading());
                    }
                    text.push('\n');
                    text.push_str(&c.body);
                    used.push((c.id.clone(), c.digest.clone()));
                }
            }
            (text, used)
        }
        KnowledgeMode::Api | KnowledgeMode::None => (String::new(), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_diagnostic_on_twelve_shapes_is_listed_once_with_its_shapes() {
        let diags: Vec<Diagnostic> = (0..12)
            .map(|i| {
                Diagnostic::error(
                    Stage::Run,
                    "ub_misaligned",
                    format!("offset {} not 32-byte aligned", i * 2),
                )
                .at("kernel.cpp", 41)
                .for_shape(i)
            })
            .chain([
                Diagnostic::warning(Stage::Run, "datacopy_truncated", "len 7").at("kernel.cpp", 40),
                Diagnostic::error(Stage::Verify, "unwritten_output", "never written").for_shape(0),
            ])
            .collect();
        let r = rendered("run_tests: FAILED".into(), &diags, &[], None);
        assert_eq!(
            r.text.matches("error[ub_misaligned]").count(),
            1,
            "{}",
            r.text
        );
        assert!(r.text.contains("kernel.cpp:41"), "{}", r.text);
        assert!(r.text.contains("#0; #1; #2"), "{}", r.text);
        assert!(r.text.contains("and 4 more"), "{}", r.text);
        assert!(
            r.text.contains("2 distinct errors, 1 warnings; 14 reports"),
            "{}",
            r.text
        );
        // Errors first; the warning last.
        assert!(
            r.text.find("unwritten_output").unwrap() < r.text.find("datacopy_truncated").unwrap()
        );
        // Routed on the root cause only (the run stage), not its consequence.
        assert_eq!(r.kinds, vec!["ub_misaligned".to_string()]);
    }
}
