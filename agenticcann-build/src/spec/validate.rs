//! Validation of one op's table into an [`OpSpec`], and the problem sink and defaults that
//! package-level loading ([`manifest`](super::manifest)) shares with it.

use std::collections::{BTreeSet, HashMap};

use toml::{Table, Value};

use super::attr::AttrValue;
use super::dtype::Dtype;
use super::error::Problem;
use super::init::Init;
use super::op::{Attr, Input, OpSpec, Output, MAX_ELEMENTS};
use super::pattern::Pattern;
use super::reference::{
    infer_shapes, is_reserved, value_classes, Reference, ReferenceError, ValueClass,
};
use super::shape::{is_identifier, TensorDecl};
use super::soc::Soc;
use super::tolerance::{OpClass, Tolerance};

pub(super) const OP_KEYS: [&str; 9] = [
    "inputs",
    "outputs",
    "attrs",
    "reference",
    "shapes",
    "tolerance",
    "init",
    "pattern",
    "eager",
];

/// Collects problems for one package (op = None) or op.
pub(super) struct Sink<'a> {
    pub(super) package: &'a str,
    pub(super) op: Option<&'a str>,
    pub(super) problems: Vec<Problem>,
}

impl Sink<'_> {
    pub(super) fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems
            .push(Problem::new(self.package, self.op, field, message));
    }

    pub(super) fn reference(&mut self, field: &str, src: &str, e: &ReferenceError) {
        let mut p = Problem::new(self.package, self.op, field, e.message.clone());
        p.location = Some(e.span.line_col(src));
        p.snippet = Some(e.snippet(src));
        self.problems.push(p);
    }

    /// `value` as a table, or a problem.
    pub(super) fn table<'v>(&mut self, field: &str, value: &'v Value) -> Option<&'v Table> {
        let t = value.as_table();
        if t.is_none() {
            self.push(
                field,
                format!("expected a table, found {}", value.type_str()),
            );
        }
        t
    }

    pub(super) fn unknown_keys(&mut self, prefix: &str, table: &Table, known: &[&str]) {
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
pub(super) struct PartialTolerance {
    pub(super) atol: Option<f64>,
    pub(super) rtol: Option<f64>,
}

/// Package-wide settings after merging workspace and package values.
#[derive(Default)]
pub(super) struct Defaults {
    pub(super) tolerance: HashMap<Dtype, PartialTolerance>,
    pub(super) init: HashMap<Dtype, Init>,
}

pub(super) fn number(sink: &mut Sink<'_>, field: &str, v: &Value) -> Option<f64> {
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

pub(super) fn partial_tolerance(
    sink: &mut Sink<'_>,
    field: &str,
    v: &Value,
) -> Option<PartialTolerance> {
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

pub(super) fn parse_init(
    sink: &mut Sink<'_>,
    field: &str,
    v: &Value,
    dtype: Dtype,
) -> Option<Init> {
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
pub(super) fn tensor_table(
    sink: &mut Sink<'_>,
    field: &str,
    op: &Table,
) -> Vec<(String, TensorDecl)> {
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

/// The names in the `field` table of `op` that are not among `parsed` (the declarations of
/// [`tensor_table`]): a bad name, a value that is not a string, a declaration that does not
/// parse. Empty when the table itself is missing or not a table.
fn unparsed_names(op: &Table, field: &str, parsed: &[(String, TensorDecl)]) -> BTreeSet<String> {
    op.get(field)
        .and_then(Value::as_table)
        .map(|t| {
            t.keys()
                .filter(|k| !parsed.iter().any(|(n, _)| n == *k))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn check_name(sink: &mut Sink<'_>, field: &str, name: &str) -> bool {
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

pub(super) fn check_op(
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
    // Declared names whose declaration did not parse (already reported): other entries
    // that name them, or their dimensions, are not reported again as unknown.
    let unparsed_inputs = unparsed_names(op, "inputs", &inputs);
    let dims_complete =
        unparsed_inputs.is_empty() && unparsed_names(op, "outputs", &outputs).is_empty();

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
                let ins: Vec<(&str, Dtype)> =
                    inputs.iter().map(|(n, d)| (n.as_str(), d.dtype)).collect();
                let attr_classes: Vec<(&str, ValueClass)> = attrs
                    .iter()
                    .map(|a| (a.name.as_str(), a.value.class()))
                    .collect();
                if let Err(errors) = value_classes(r, &ins, &attr_classes) {
                    for e in &errors {
                        sink.reference("reference", &r.source, e);
                    }
                }
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
    let shapes = check_shapes(sink, op, &dims, dims_complete, &inputs, &outputs);

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
                    // Its declaration's problem is the one to fix.
                    None if unparsed_inputs.contains(name) => {}
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

    let eager = op.get("eager").and_then(|v| {
        let attr_classes: Vec<(&str, ValueClass)> = attrs
            .iter()
            .map(|a| (a.name.as_str(), a.value.class()))
            .collect();
        super::eager::check_eager(sink, v, &inputs, &outputs, &attr_classes, decls_ok)
    });

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
        eager,
    })
}

/// The `shapes` bindings of the named dimensions `dims`. When `dims_complete` is false (a
/// declaration did not parse, so its dimensions are unknown) a binding's unknown keys are
/// skipped, not reported: they may name that declaration's dimensions.
pub(super) fn check_shapes(
    sink: &mut Sink<'_>,
    op: &Table,
    dims: &BTreeSet<String>,
    dims_complete: bool,
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
            if !dims.contains(k) && !dims_complete {
                continue;
            }
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
