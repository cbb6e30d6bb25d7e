//! Reading `[package.metadata.agenticcann]` and `[workspace.metadata.agenticcann]` from
//! manifests with `toml`, merging defaults, and validating every op into a per-op report.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::attr::AttrValue;
use super::dtype::Dtype;
use super::error::{Problem, SpecError};
use super::init::Init;
use super::op::{Attr, Input, OpSpec, Output, Spec, MAX_ELEMENTS};
use super::pattern::Pattern;
use super::reference::{infer_shapes, is_reserved, Reference, ReferenceError};
use super::shape::{is_identifier, TensorDecl};
use super::soc::Soc;
use super::tolerance::{OpClass, Tolerance};

const PACKAGE_KEYS: [&str; 5] = ["soc", "kernels", "tolerance", "init", "ops"];
const WORKSPACE_KEYS: [&str; 4] = ["soc", "kernels", "tolerance", "init"];
const OP_KEYS: [&str; 8] = [
    "inputs",
    "outputs",
    "attrs",
    "reference",
    "shapes",
    "tolerance",
    "init",
    "pattern",
];
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

/// Collects problems for one package (op = None) or op.
struct Sink<'a> {
    package: &'a str,
    op: Option<&'a str>,
    problems: Vec<Problem>,
}

impl Sink<'_> {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems
            .push(Problem::new(self.package, self.op, field, message));
    }

    fn reference(&mut self, field: &str, src: &str, e: &ReferenceError) {
        let mut p = Problem::new(self.package, self.op, field, e.message.clone());
        p.location = Some(e.span.line_col(src));
        p.snippet = Some(e.snippet(src));
        self.problems.push(p);
    }

    /// `value` as a table, or a problem.
    fn table<'v>(&mut self, field: &str, value: &'v Value) -> Option<&'v Table> {
        let t = value.as_table();
        if t.is_none() {
            self.push(
                field,
                format!("expected a table, found {}", value.type_str()),
            );
        }
        t
    }

    fn unknown_keys(&mut self, prefix: &str, table: &Table, known: &[&str]) {
        for k in table.keys() {
            if !known.contains(&k.as_str()) {
                self.push(
                    format!("{prefix}{k}"),
                    format!("unknown field `{k}` (expected one of {})", known.join(", ")),
                );
            }
        }
    }
}

/// A tolerance where either component may be left to the next layer.
#[derive(Clone, Copy, Debug, Default)]
struct PartialTolerance {
    atol: Option<f64>,
    rtol: Option<f64>,
}

/// Package-wide settings after merging workspace and package values.
#[derive(Default)]
struct Defaults {
    tolerance: HashMap<Dtype, PartialTolerance>,
    init: HashMap<Dtype, Init>,
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
        if let Some((f, m)) = &soc_problem {
            sink.push(f.clone(), m.clone());
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

fn number(sink: &mut Sink<'_>, field: &str, v: &Value) -> Option<f64> {
    let x = match v {
        Value::Float(f) => *f,
        Value::Integer(i) => *i as f64,
        other => {
            sink.push(
                field,
                format!("expected a number, found {}", other.type_str()),
            );
            return None;
        }
    };
    if !x.is_finite() || x < 0.0 {
        sink.push(field, format!("must be a finite number ≥ 0, got {x}"));
        return None;
    }
    Some(x)
}

fn partial_tolerance(sink: &mut Sink<'_>, field: &str, v: &Value) -> Option<PartialTolerance> {
    let t = sink.table(field, v)?;
    sink.unknown_keys(&format!("{field}."), t, &["atol", "rtol"]);
    let mut p = PartialTolerance::default();
    if let Some(a) = t.get("atol") {
        p.atol = Some(number(sink, &format!("{field}.atol"), a)?);
    }
    if let Some(r) = t.get("rtol") {
        p.rtol = Some(number(sink, &format!("{field}.rtol"), r)?);
    }
    if p.atol.is_none() && p.rtol.is_none() {
        sink.push(field, "give `atol`, `rtol` or both");
        return None;
    }
    Some(p)
}

fn parse_init(sink: &mut Sink<'_>, field: &str, v: &Value, dtype: Dtype) -> Option<Init> {
    let Some(s) = v.as_str() else {
        sink.push(
            field,
            format!(
                "expected a string such as \"normal(0, 1)\", found {}",
                v.type_str()
            ),
        );
        return None;
    };
    match s.parse::<Init>() {
        Ok(i) => match i.check(dtype) {
            Ok(()) => Some(i),
            Err(m) => {
                sink.push(field, m);
                None
            }
        },
        Err(e) => {
            sink.push(field, e.to_string());
            None
        }
    }
}

/// A `name = "f16[…]"` table of tensor declarations, in manifest order.
fn tensor_table(sink: &mut Sink<'_>, field: &str, op: &Table) -> Vec<(String, TensorDecl)> {
    let mut out = Vec::new();
    let Some(v) = op.get(field) else {
        sink.push(
            field,
            format!("missing: every op declares its {field}, as `{field} = {{ x = \"f16[rows, 4096]\" }}`"),
        );
        return out;
    };
    let Some(t) = sink.table(field, v) else {
        return out;
    };
    if t.is_empty() {
        sink.push(
            field,
            format!("an op needs at least one {}", &field[..field.len() - 1]),
        );
    }
    for (name, v) in t {
        let f = format!("{field}.{name}");
        if !check_name(sink, &f, name) {
            continue;
        }
        match v.as_str() {
            None => sink.push(
                &f,
                format!(
                    "expected a string such as \"f16[rows, 4096]\", found {}",
                    v.type_str()
                ),
            ),
            Some(s) => match s.parse::<TensorDecl>() {
                Ok(d) => out.push((name.clone(), d)),
                Err(e) => sink.push(&f, e.to_string()),
            },
        }
    }
    out
}

fn check_name(sink: &mut Sink<'_>, field: &str, name: &str) -> bool {
    if !is_identifier(name) {
        sink.push(
            field,
            format!(
                "`{name}` is not a valid name (letters, digits and `_`, not starting with a digit)"
            ),
        );
        false
    } else if is_reserved(name) {
        sink.push(
            field,
            format!("`{name}` is a reserved word of the reference language"),
        );
        false
    } else {
        true
    }
}

fn check_op(
    sink: &mut Sink<'_>,
    op_name: &str,
    value: &Value,
    soc: Option<Soc>,
    defaults: &Defaults,
) -> Option<OpSpec> {
    if !is_identifier(op_name) {
        sink.push(
            "",
            format!("op name `{op_name}` is not a valid Rust identifier; it names the generated function"),
        );
    }
    let op = sink.table("", value)?;
    sink.unknown_keys("", op, &OP_KEYS);
    let problems_before_decls = sink.problems.len();

    let inputs = tensor_table(sink, "inputs", op);
    let outputs = tensor_table(sink, "outputs", op);

    let mut attrs = Vec::new();
    if let Some(v) = op.get("attrs") {
        if let Some(t) = sink.table("attrs", v) {
            for (name, v) in t {
                let f = format!("attrs.{name}");
                if !check_name(sink, &f, name) {
                    continue;
                }
                let value = match v {
                    Value::Float(x) if !x.is_finite() => {
                        sink.push(&f, format!("must be finite, got {x}"));
                        continue;
                    }
                    Value::Float(x) => AttrValue::Float(*x),
                    Value::Integer(i) => AttrValue::Int(*i),
                    Value::Boolean(b) => AttrValue::Bool(*b),
                    other => {
                        sink.push(
                            &f,
                            format!("expected a number or boolean, found {}", other.type_str()),
                        );
                        continue;
                    }
                };
                attrs.push(Attr {
                    name: name.clone(),
                    value,
                });
            }
        }
    }

    // Names are unique across inputs, outputs and attrs.
    let mut seen: HashMap<&str, &str> = HashMap::new();
    let all_names = inputs
        .iter()
        .map(|(n, _)| (n.as_str(), "inputs", "an input"))
        .chain(
            outputs
                .iter()
                .map(|(n, _)| (n.as_str(), "outputs", "an output")),
        )
        .chain(attrs.iter().map(|a| (a.name.as_str(), "attrs", "an attr")));
    let mut names_ok = true;
    for (n, field, what) in all_names {
        if let Some(first) = seen.get(n) {
            sink.push(
                format!("{field}.{n}"),
                format!("duplicate name `{n}`: already {first}"),
            );
            names_ok = false;
        } else {
            seen.insert(n, what);
        }
    }

    // Only infer when every declaration is sound: otherwise a bad input would cascade
    // into "undefined name" errors.
    let decls_ok = names_ok && sink.problems.len() == problems_before_decls;

    // The reference.
    let reference = match op.get("reference") {
        None => {
            sink.push(
                "reference",
                "missing: every op needs a reference, as `reference = \"y = x * 2\"`",
            );
            None
        }
        Some(v) => match v.as_str() {
            None => {
                sink.push(
                    "reference",
                    format!("expected a string, found {}", v.type_str()),
                );
                None
            }
            Some(src) => match Reference::parse(src) {
                Ok(r) => Some(r),
                Err(e) => {
                    sink.reference("reference", src, &e);
                    None
                }
            },
        },
    };
    if let (Some(r), true) = (&reference, decls_ok) {
        let ins: Vec<(&str, &super::ShapeTemplate)> =
            inputs.iter().map(|(n, d)| (n.as_str(), &d.shape)).collect();
        let attr_names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
        match infer_shapes(r, &ins, &attr_names) {
            Err(errors) => {
                for e in &errors {
                    sink.reference("reference", &r.source, e);
                }
            }
            Ok(shapes) => {
                for (name, decl) in &outputs {
                    match (r.statement(name), shapes.get(name)) {
                        (Some(st), Some(shape)) if *shape != decl.shape => {
                            let e = ReferenceError::new(
                                super::reference::ReferenceErrorKind::Shape,
                                st.span,
                                format!(
                                    "the reference computes `{name}` with shape {shape}, but outputs.{name} declares {decl}"
                                ),
                            );
                            sink.reference("reference", &r.source, &e);
                        }
                        (Some(_), _) => {}
                        (None, _) => sink.push(
                            "reference",
                            format!("output `{name}` is never assigned by the reference"),
                        ),
                    }
                }
            }
        }
    }

    // Shapes to verify and tune for.
    let dims: BTreeSet<String> = inputs
        .iter()
        .chain(outputs.iter())
        .flat_map(|(_, d)| d.shape.named_dims().into_iter().map(str::to_string))
        .collect();
    let shapes = check_shapes(sink, op, &dims, &inputs, &outputs);

    // Tolerance: op value (all outputs) over package/workspace per-dtype over built-in.
    let op_tol = match op.get("tolerance") {
        Some(v) => partial_tolerance(sink, "tolerance", v),
        None => None,
    };
    let class = reference.as_ref().map(OpClass::of);

    // init: op value per input over package/workspace per-dtype over built-in.
    let mut op_init: HashMap<&str, Init> = HashMap::new();
    if let Some(v) = op.get("init") {
        if let Some(t) = sink.table("init", v) {
            for (name, v) in t {
                let f = format!("init.{name}");
                match inputs.iter().find(|(n, _)| n == name) {
                    None => sink.push(&f, format!("`{name}` is not an input of this op")),
                    Some((_, d)) => {
                        if let Some(i) = parse_init(sink, &f, v, d.dtype) {
                            op_init.insert(name, i);
                        }
                    }
                }
            }
        }
    }

    let pattern = match op.get("pattern") {
        None => None,
        Some(v) => match v.as_str().map(str::parse::<Pattern>) {
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => {
                sink.push("pattern", e.to_string());
                None
            }
            None => {
                sink.push(
                    "pattern",
                    format!("expected a string, found {}", v.type_str()),
                );
                None
            }
        },
    };

    if !sink.problems.is_empty() {
        return None;
    }
    let (reference, class, soc, shapes) = (reference?, class?, soc?, shapes?);
    let inputs = inputs
        .into_iter()
        .map(|(name, decl)| {
            let init = op_init
                .get(name.as_str())
                .or_else(|| defaults.init.get(&decl.dtype))
                .copied()
                .unwrap_or_else(|| Init::default_for(decl.dtype));
            Input { name, decl, init }
        })
        .collect();
    let outputs = outputs
        .into_iter()
        .map(|(name, decl)| {
            let builtin = Tolerance::default_for(decl.dtype, class);
            let pkg = defaults
                .tolerance
                .get(&decl.dtype)
                .copied()
                .unwrap_or_default();
            let op = op_tol.unwrap_or_default();
            let tolerance = Tolerance {
                atol: op.atol.or(pkg.atol).unwrap_or(builtin.atol),
                rtol: op.rtol.or(pkg.rtol).unwrap_or(builtin.rtol),
            };
            Output {
                name,
                decl,
                tolerance,
            }
        })
        .collect();
    Some(OpSpec {
        name: op_name.to_string(),
        soc,
        inputs,
        outputs,
        attrs,
        reference,
        shapes,
        pattern,
        class,
    })
}

fn check_shapes(
    sink: &mut Sink<'_>,
    op: &Table,
    dims: &BTreeSet<String>,
    inputs: &[(String, TensorDecl)],
    outputs: &[(String, TensorDecl)],
) -> Option<Vec<HashMap<String, usize>>> {
    let Some(v) = op.get("shapes") else {
        if dims.is_empty() {
            return Some(vec![HashMap::new()]);
        }
        let example: Vec<String> = dims.iter().map(|d| format!("{d} = 1")).collect();
        sink.push(
            "shapes",
            format!(
                "missing: the op has named dimensions ({}), so it needs shapes to verify and tune for, as `shapes = [{{ {} }}]`",
                dims.iter().cloned().collect::<Vec<_>>().join(", "),
                example.join(", ")
            ),
        );
        return None;
    };
    let Some(list) = v.as_array() else {
        sink.push(
            "shapes",
            format!(
                "expected an array of tables such as [{{ rows = 7 }}], found {}",
                v.type_str()
            ),
        );
        return None;
    };
    if list.is_empty() && !dims.is_empty() {
        sink.push(
            "shapes",
            "empty: give at least one binding of the named dimensions",
        );
        return None;
    }
    let before = sink.problems.len();
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let field = format!("shapes[{i}]");
        let Some(t) = sink.table(&field, entry) else {
            continue;
        };
        let entry_before = sink.problems.len();
        let mut binding = HashMap::new();
        for (k, v) in t {
            let f = format!("{field}.{k}");
            if !dims.contains(k) {
                sink.push(
                    &f,
                    if dims.is_empty() {
                        format!("`{k}` is not a named dimension: this op has none")
                    } else {
                        format!(
                            "`{k}` is not a named dimension of this op (it has {})",
                            dims.iter().cloned().collect::<Vec<_>>().join(", ")
                        )
                    },
                );
                continue;
            }
            match v.as_integer() {
                Some(n) if n >= 1 => {
                    binding.insert(k.clone(), n as usize);
                }
                Some(n) => sink.push(&f, format!("a size must be at least 1, got {n}")),
                None => sink.push(
                    &f,
                    format!("expected an integer size, found {}", v.type_str()),
                ),
            }
        }
        for d in dims {
            if !t.contains_key(d) {
                sink.push(
                    &field,
                    format!("dimension `{d}` has no size in this binding"),
                );
            }
        }
        if sink.problems.len() == entry_before {
            for (name, decl) in inputs.iter().chain(outputs) {
                let n = decl
                    .shape
                    .bind(&binding)
                    .map(|s| s.iter().fold(1u64, |p, &d| p.saturating_mul(d as u64)))
                    .unwrap_or(0);
                if n > MAX_ELEMENTS {
                    sink.push(
                        &field,
                        format!("`{name}` would have {n} elements, more than {MAX_ELEMENTS}"),
                    );
                }
            }
        }
        out.push(binding);
    }
    if out.is_empty() {
        out.push(HashMap::new());
    }
    (sink.problems.len() == before).then_some(out)
}
