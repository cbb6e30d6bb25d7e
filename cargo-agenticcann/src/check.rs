//! `cargo agenticcann check`: validate specs, evaluate references once, print keys.

use std::collections::BTreeMap;
use std::io::Write;

use agenticcann_build::spec::{check_manifest_path, ManifestReport, OpSpec};
use anyhow::Result;

use crate::cli::{CheckArgs, MessageFormat};
use crate::exit::Status;
use crate::messages::{emit, CheckOp, Diagnostic, TensorInfo};
use crate::report::print_human;
use crate::select;

/// Runs `check`: [`Status::Ok`] when every op is valid.
///
/// # Errors
/// The workspace cannot be loaded or a selected package does not exist (exit 2).
pub fn run(args: &CheckArgs) -> Result<Status> {
    let meta = select::metadata(&args.manifest)?;
    let packages = select::packages(&meta, &args.manifest, &args.workspace)?;
    let mut out = crate::exit::stdout();
    let (mut valid, mut invalid, mut with_specs) = (0usize, 0usize, 0usize);
    for package in &packages {
        let report = check_manifest_path(package.manifest_path.as_std_path());
        let results = results(&report, args.seed);
        if report.has_metadata || !results.is_empty() {
            with_specs += 1;
        }
        for r in &results {
            if r.ok {
                valid += 1;
            } else {
                invalid += 1;
            }
            match args.message_format {
                MessageFormat::Json => emit(&mut out, r)?,
                MessageFormat::Human => print_human(&mut out, r)?,
            }
        }
    }
    out.flush()?;
    crate::stderr!(
        "checked {} op{} in {with_specs} of {} package{}: {valid} valid, {invalid} invalid",
        valid + invalid,
        if valid + invalid == 1 { "" } else { "s" },
        packages.len(),
        if packages.len() == 1 { "" } else { "s" },
    );
    Ok(Status::of(invalid == 0))
}

/// One result per op; package-level problems are repeated in every op's errors (each
/// object stands alone), or make one `op: None` result when there is no op.
fn results(report: &ManifestReport, seed: u64) -> Vec<CheckOp> {
    let package_errors: Vec<Diagnostic> = report.problems.iter().map(Diagnostic::from).collect();
    let base = CheckOp {
        package: report.package.clone(),
        manifest_path: report
            .manifest_path
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        op: None,
        ok: false,
        key: None,
        soc: report.soc.map(|s| s.name().to_string()),
        arch: report.soc.map(|s| s.arch().as_str().to_string()),
        pattern: None,
        pattern_guessed: false,
        evaluated_shape: None,
        inputs: Vec::new(),
        outputs: Vec::new(),
        errors: package_errors.clone(),
        warnings: Vec::new(),
    };
    if report.ops.is_empty() {
        return if package_errors.is_empty() {
            Vec::new()
        } else {
            vec![base]
        };
    }
    report
        .ops
        .iter()
        .map(|o| {
            let mut r = base.clone();
            r.op = Some(o.name.clone());
            match &o.result {
                Err(problems) => r.errors.extend(problems.iter().map(Diagnostic::from)),
                Ok(op) => {
                    // The knowledge router's decision (declared `pattern`, else routed).
                    let routing = agenticcann_evolve::knowledge::explain(op);
                    r.pattern = Some(routing.pattern.as_str().to_string());
                    r.pattern_guessed =
                        routing.rule != agenticcann_evolve::knowledge::Rule::Declared;
                    describe(op, &mut r);
                    evaluate_once(op, seed, &mut r);
                    if r.errors.is_empty() {
                        r.key = Some(op.key().to_string());
                    }
                }
            }
            r.ok = r.errors.is_empty();
            r
        })
        .collect()
}

/// Fills in tensors with their settings, and warns about inputs and attrs the reference
/// never reads.
fn describe(op: &OpSpec, r: &mut CheckOp) {
    r.inputs = op
        .inputs
        .iter()
        .map(|i| TensorInfo {
            name: i.name.clone(),
            decl: i.decl.to_string(),
            init: Some(i.init.to_string()),
            atol: None,
            rtol: None,
        })
        .collect();
    r.outputs = op
        .outputs
        .iter()
        .map(|o| TensorInfo {
            name: o.name.clone(),
            decl: o.decl.to_string(),
            init: None,
            atol: Some(o.tolerance.atol),
            rtol: Some(o.tolerance.rtol),
        })
        .collect();
    let read = op.reference.names_read();
    let unused = op
        .inputs
        .iter()
        .map(|i| ("inputs", &i.name))
        .chain(op.attrs.iter().map(|a| ("attrs", &a.name)))
        .filter(|(_, n)| !read.contains(n.as_str()));
    for (table, name) in unused {
        r.warnings.push(Diagnostic::new(
            format!("{table}.{name}"),
            format!("`{name}` is declared but the reference never reads it"),
        ));
    }
}

/// Evaluates the reference on the op's smallest declared shape with seeded inputs; an
/// evaluation error is an error, non-finite golden values a warning.
fn evaluate_once(op: &OpSpec, seed: u64, r: &mut CheckOp) {
    let binding = op.smallest_shape();
    r.evaluated_shape = Some(
        binding
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect::<BTreeMap<_, _>>(),
    );
    let inputs = match op.generate_inputs(binding, seed) {
        Ok(i) => i,
        Err(e) => {
            r.errors.push(Diagnostic::new("shapes", e.to_string()));
            return;
        }
    };
    match op.golden(&inputs) {
        Err(e) => {
            let (line, column) = e.span.line_col(&op.reference.source);
            r.errors.push(Diagnostic {
                field: "reference".into(),
                message: format!("evaluation failed: {}", e.message),
                line: Some(line),
                column: Some(column),
                snippet: Some(e.snippet(&op.reference.source)),
            });
        }
        Ok(outputs) => {
            for o in &op.outputs {
                let Some(v) = outputs.get(&o.name) else {
                    continue;
                };
                let bad = v.iter().filter(|x| !x.is_finite()).count();
                if bad > 0 {
                    r.warnings.push(Diagnostic::new(
                        "reference",
                        format!(
                            "`{}` has {bad} non-finite value{} of {} on seeded inputs (after rounding to {}); check the op's init distributions",
                            o.name,
                            if bad == 1 { "" } else { "s" },
                            v.len(),
                            o.decl.dtype
                        ),
                    ));
                }
            }
        }
    }
}
