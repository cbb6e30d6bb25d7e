//! Reading `[package.metadata.agenticcann]` and `[workspace.metadata.agenticcann]` from
//! manifests with `toml`, merging defaults, and validating every op into a per-op report.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::dtype::Dtype;
use super::error::{Problem, SpecError};
use super::op::{OpSpec, Spec};
use super::soc::Soc;
use super::validate::{check_op, parse_init, partial_tolerance, Defaults, Sink};

const PACKAGE_KEYS: [&str; 5] = ["soc", "kernels", "tolerance", "init", "ops"];
const WORKSPACE_KEYS: [&str; 4] = ["soc", "kernels", "tolerance", "init"];
const WORKSPACE_PREFIX: &str = "workspace.metadata.agenticcann.";

/// The outcome of checking one package's manifest: package-level problems, and each op's
/// validated spec or problems. [`into_spec`](Self::into_spec) turns it into a [`Spec`] or a
/// [`SpecError`].
#[derive(Clone, Debug)]
pub struct ManifestReport {
    /// The package name (`?` when the manifest could not be read).
    pub package: String,
    /// The package's manifest, when checked from a file.
    pub manifest_path: Option<PathBuf>,
    /// The workspace root manifest defaults were read from, if any.
    pub workspace_manifest_path: Option<PathBuf>,
    /// True when the package has a `[package.metadata.agenticcann]` table.
    pub has_metadata: bool,
    /// The resolved SoC, when valid.
    pub soc: Option<Soc>,
    /// The store folder relative to the crate root.
    pub kernels: PathBuf,
    /// Problems not tied to one op (unreadable manifest, bad TOML, unknown metadata fields,
    /// bad defaults; a bad `soc` when there are no ops — otherwise each op reports it).
    pub problems: Vec<Problem>,
    /// Every op in manifest order.
    pub ops: Vec<OpReport>,
}

/// The outcome of validating one op.
#[derive(Clone, Debug)]
pub struct OpReport {
    /// The op's name.
    pub name: String,
    /// The validated spec, or every problem found (never empty).
    pub result: Result<OpSpec, Vec<Problem>>,
}

impl ManifestReport {
    /// True when there is no problem at all.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty() && self.ops.iter().all(|o| o.result.is_ok())
    }

    /// Every problem: package-level first, then per op in manifest order.
    pub fn all_problems(&self) -> Vec<&Problem> {
        let mut out: Vec<&Problem> = self.problems.iter().collect();
        for o in &self.ops {
            if let Err(ps) = &o.result {
                out.extend(ps);
            }
        }
        out
    }

    /// The validated [`Spec`], `None` without `[package.metadata.agenticcann]`.
    ///
    /// # Errors
    /// A [`SpecError`] with every problem when any exists.
    pub fn into_spec(self) -> Result<Option<Spec>, SpecError> {
        if !self.is_ok() {
            return Err(SpecError {
                manifest_path: self.manifest_path.clone(),
                problems: self.all_problems().into_iter().cloned().collect(),
            });
        }
        if !self.has_metadata {
            return Ok(None);
        }
        let soc = match self.soc {
            Some(s) => s,
            // Unreachable in practice: a missing soc is a problem. Report rather than panic.
            None => {
                return Err(SpecError {
                    manifest_path: self.manifest_path,
                    problems: vec![Problem::new(&self.package, None, "soc", "no SoC")],
                })
            }
        };
        Ok(Some(Spec {
            package: self.package,
            manifest_path: self.manifest_path,
            workspace_manifest_path: self.workspace_manifest_path,
            soc,
            kernels: self.kernels,
            ops: self.ops.into_iter().filter_map(|o| o.result.ok()).collect(),
        }))
    }
}

/// Checks the package whose manifest is `manifest_path`, reading it and its workspace root
/// manifest (for `[workspace.metadata.agenticcann]`) with `toml`. Never runs cargo.
pub fn check_manifest_path(manifest_path: &Path) -> ManifestReport {
    let mut report = empty_report(Some(manifest_path.to_path_buf()));
    let package_table = match read_table(manifest_path) {
        Ok(t) => t,
        Err(msg) => {
            report
                .problems
                .push(Problem::new("?", None, "Cargo.toml", msg));
            return report;
        }
    };
    let mut workspace_table = None;
    if let Some(root) = find_workspace_root(manifest_path, &package_table) {
        if root == manifest_path {
            workspace_table = Some(package_table.clone());
        } else {
            match read_table(&root) {
                Ok(t) => workspace_table = Some(t),
                Err(msg) => {
                    let name = package_name(&package_table).unwrap_or("?");
                    report.problems.push(Problem::new(
                        name,
                        None,
                        "workspace.metadata.agenticcann",
                        format!("cannot read the workspace root manifest: {msg}"),
                    ));
                }
            }
        }
        report.workspace_manifest_path = Some(root);
    }
    check_tables(&mut report, &package_table, workspace_table.as_ref());
    report
}

/// Checks a package from manifest texts: the package's `Cargo.toml` and optionally its
/// workspace root's (pass the same text again when the package is the root).
pub fn check_manifest_str(manifest: &str, workspace_manifest: Option<&str>) -> ManifestReport {
    let mut report = empty_report(None);
    let package_table = match manifest.parse::<Table>() {
        Ok(t) => t,
        Err(e) => {
            report.problems.push(Problem::new(
                "?",
                None,
                "Cargo.toml",
                format!("invalid TOML: {}", e.to_string().trim_end()),
            ));
            return report;
        }
    };
    let workspace_table = match workspace_manifest.map(str::parse::<Table>) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            let name = package_name(&package_table).unwrap_or("?");
            report.problems.push(Problem::new(
                name,
                None,
                "workspace.metadata.agenticcann",
                format!(
                    "invalid TOML in the workspace manifest: {}",
                    e.to_string().trim_end()
                ),
            ));
            None
        }
    };
    check_tables(&mut report, &package_table, workspace_table.as_ref());
    report
}

/// The workspace root manifest of the package at `manifest_path`, found as cargo does:
/// the manifest itself if it has `[workspace]`; the path in `package.workspace` if set;
/// else the nearest ancestor `Cargo.toml` with a `[workspace]` table whose `exclude` does
/// not list the package. `None` for a package outside any workspace.
pub fn find_workspace_root(manifest_path: &Path, manifest: &Table) -> Option<PathBuf> {
    if manifest.contains_key("workspace") {
        return Some(manifest_path.to_path_buf());
    }
    let dir = manifest_path.parent()?;
    if let Some(ws) = manifest
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(Value::as_str)
    {
        let p = dir.join(ws);
        return Some(if p.ends_with("Cargo.toml") {
            p
        } else {
            p.join("Cargo.toml")
        });
    }
    let mut cur = dir.parent();
    while let Some(d) = cur {
        let candidate = d.join("Cargo.toml");
        if candidate.is_file() {
            if let Ok(t) = read_table(&candidate) {
                if let Some(ws) = t.get("workspace").and_then(Value::as_table) {
                    let excluded = ws
                        .get("exclude")
                        .and_then(Value::as_array)
                        .is_some_and(|ex| {
                            ex.iter()
                                .filter_map(Value::as_str)
                                .any(|e| dir.starts_with(d.join(e)))
                        });
                    return if excluded { None } else { Some(candidate) };
                }
            }
        }
        cur = d.parent();
    }
    None
}

fn empty_report(manifest_path: Option<PathBuf>) -> ManifestReport {
    ManifestReport {
        package: "?".to_string(),
        manifest_path,
        workspace_manifest_path: None,
        has_metadata: false,
        soc: None,
        kernels: PathBuf::from("kernels"),
        problems: Vec::new(),
        ops: Vec::new(),
    }
}

fn read_table(path: &Path) -> Result<Table, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.parse::<Table>().map_err(|e| {
        format!(
            "invalid TOML in {}: {}",
            path.display(),
            e.to_string().trim_end()
        )
    })
}

fn package_name(t: &Table) -> Option<&str> {
    t.get("package")?.get("name")?.as_str()
}

fn metadata<'a>(t: &'a Table, section: &str) -> Option<&'a Value> {
    t.get(section)?.get("metadata")?.get("agenticcann")
}

fn check_tables(report: &mut ManifestReport, package: &Table, workspace: Option<&Table>) {
    let Some(name) = package_name(package) else {
        report.problems.push(Problem::new(
            "?",
            None,
            "package.name",
            "the manifest has no [package] name (a virtual manifest has no ops to check)",
        ));
        return;
    };
    report.package = name.to_string();
    let Some(meta) = metadata(package, "package") else {
        return;
    };
    report.has_metadata = true;
    let package_name = report.package.clone();
    let mut sink = Sink {
        package: &package_name,
        op: None,
        problems: Vec::new(),
    };
    let Some(meta) = sink.table("package.metadata.agenticcann", meta) else {
        report.problems = sink.problems;
        return;
    };
    sink.unknown_keys("", meta, &PACKAGE_KEYS);
    let ws_meta = workspace
        .and_then(|w| metadata(w, "workspace"))
        .and_then(|v| sink.table("workspace.metadata.agenticcann", v));
    if let Some(ws) = ws_meta {
        sink.unknown_keys(WORKSPACE_PREFIX, ws, &WORKSPACE_KEYS);
    }

    // soc: package, else workspace; required.
    let mut soc_problem: Option<(String, String)> = None;
    match (meta.get("soc"), ws_meta.and_then(|w| w.get("soc"))) {
        (Some(v), _) => resolve_soc(v, "soc", &mut report.soc, &mut soc_problem),
        (None, Some(v)) => resolve_soc(
            v,
            &format!("{WORKSPACE_PREFIX}soc"),
            &mut report.soc,
            &mut soc_problem,
        ),
        (None, None) => {
            soc_problem = Some((
                "soc".into(),
                "missing: set `soc = \"Ascend910B1\"` (or another known SoC) in [package.metadata.agenticcann] or [workspace.metadata.agenticcann]".into(),
            ))
        }
    }

    // kernels: package, else workspace, else "kernels".
    let kernels = meta
        .get("kernels")
        .map(|v| ("kernels".to_string(), v))
        .or_else(|| {
            ws_meta
                .and_then(|w| w.get("kernels"))
                .map(|v| (format!("{WORKSPACE_PREFIX}kernels"), v))
        });
    if let Some((field, v)) = kernels {
        match v.as_str() {
            Some("") => sink.push(field, "must not be empty"),
            Some(s) if Path::new(s).is_absolute() => sink.push(
                field,
                format!("`{s}` is absolute; the store folder is relative to the crate root"),
            ),
            Some(s) => report.kernels = PathBuf::from(s),
            None => sink.push(field, format!("expected a string, found {}", v.type_str())),
        }
    }

    let mut defaults = Defaults::default();
    for (prefix, m) in [(WORKSPACE_PREFIX, ws_meta), ("", Some(meta))] {
        let Some(m) = m else { continue };
        if let Some(v) = m.get("tolerance") {
            let field = format!("{prefix}tolerance");
            if let Some(t) = sink.table(&field, v) {
                for (k, v) in t {
                    let f = format!("{field}.{k}");
                    let Ok(d) = k.parse::<Dtype>() else {
                        sink.push(&f, format!("`{k}` is not a dtype; package and workspace tolerances are per dtype, as `tolerance = {{ f16 = {{ atol = 1e-3, rtol = 1e-3 }} }}`"));
                        continue;
                    };
                    if let Some(p) = partial_tolerance(&mut sink, &f, v) {
                        let e = defaults.tolerance.entry(d).or_default();
                        e.atol = p.atol.or(e.atol);
                        e.rtol = p.rtol.or(e.rtol);
                    }
                }
            }
        }
        if let Some(v) = m.get("init") {
            let field = format!("{prefix}init");
            if let Some(t) = sink.table(&field, v) {
                for (k, v) in t {
                    let f = format!("{field}.{k}");
                    let Ok(d) = k.parse::<Dtype>() else {
                        sink.push(&f, format!("`{k}` is not a dtype; package and workspace inits are per dtype, as `init = {{ f16 = \"normal(0, 1)\" }}`"));
                        continue;
                    };
                    if let Some(i) = parse_init(&mut sink, &f, v, d) {
                        defaults.init.insert(d, i);
                    }
                }
            }
        }
    }

    let ops_table = match meta.get("ops") {
        None => None,
        Some(v) => sink.table("ops", v),
    };
    report.problems = sink.problems;
    let Some(ops) = ops_table else {
        if let Some((f, m)) = soc_problem {
            report
                .problems
                .push(Problem::new(&package_name, None, f, m));
        }
        return;
    };
    for (op_name, value) in ops {
        let mut sink = Sink {
            package: &package_name,
            op: Some(op_name),
            problems: Vec::new(),
        };
        // The SoC is a package (or workspace) setting, but every op's key includes it, so
        // each op is invalid; say whose field it is.
        if let Some((f, m)) = &soc_problem {
            sink.push(
                f.clone(),
                format!("{m} (the package's `{f}`, which every op's key includes)"),
            );
        }
        let spec = check_op(&mut sink, op_name, value, report.soc, &defaults);
        let result = match spec {
            Some(s) if sink.problems.is_empty() => Ok(s),
            _ => {
                if sink.problems.is_empty() {
                    sink.push("", "invalid op");
                }
                Err(sink.problems)
            }
        };
        report.ops.push(OpReport {
            name: op_name.clone(),
            result,
        });
    }
}

fn resolve_soc(
    v: &Value,
    field: &str,
    out: &mut Option<Soc>,
    problem: &mut Option<(String, String)>,
) {
    match v.as_str() {
        Some(s) => match s.parse::<Soc>() {
            Ok(soc) => *out = Some(soc),
            Err(e) => *problem = Some((field.to_string(), e.to_string())),
        },
        None => {
            *problem = Some((
                field.to_string(),
                format!("expected a string, found {}", v.type_str()),
            ))
        }
    }
}
