//! The eager baseline: one kernel per primitive operation of a reference, each reading its
//! operands from GM and writing its result to GM (intermediates in the op's output dtype),
//! the way an eager framework runs a composite operator.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::{propose, SynthError, SynthOptions};
use crate::judge::{evaluate, Candidate, EvalOptions, ShapeOrigin};
use crate::spec::reference::{binary_fn, unary_fn, Expr, ExprKind};
use crate::spec::{Dtype, OpSpec, ShapeTemplate, Spec};

/// One kernel of the eager decomposition.
#[derive(Clone, Debug)]
pub struct EagerKernel {
    /// The primitive as a one-statement op (`y = a + b`), with the parent's shapes.
    pub op: OpSpec,
    /// Its proposed kernel.
    pub candidate: Candidate,
}

/// Summed cost-model times of an eager decomposition.
#[derive(Clone, Debug, PartialEq)]
pub struct EagerTime {
    /// Number of kernels (launches) per run.
    pub kernels: usize,
    /// Per declared shape of the parent op: its dims and the summed time, microseconds.
    pub shapes: Vec<(BTreeMap<String, u64>, f64)>,
}

struct Decomp<'a> {
    op: &'a OpSpec,
    dtype: Dtype,
    attrs: HashMap<String, f64>,
    defs: HashMap<String, &'a Expr>,
    /// Intermediate tensors: name → shape.
    temps: Vec<(String, ShapeTemplate)>,
    memo: HashMap<String, Operand>,
    /// (reference text, operand names, result shape)
    prims: Vec<(String, Vec<(String, ShapeTemplate, Dtype)>, ShapeTemplate)>,
}

#[derive(Clone, Debug)]
enum Operand {
    Scalar(f64),
    /// A tensor: name (input or temp), shape, dtype.
    Tensor(String, ShapeTemplate, Dtype),
}

impl Decomp<'_> {
    fn unsupported(&self, r: &str) -> SynthError {
        SynthError::Unsupported {
            op: self.op.name.clone(),
            reason: r.to_string(),
        }
    }

    fn operand(&mut self, e: &Expr) -> Result<Operand, SynthError> {
        match &e.kind {
            ExprKind::Number(v) => Ok(Operand::Scalar(*v)),
            ExprKind::Name(n) => {
                if let Some(v) = self.attrs.get(n) {
                    return Ok(Operand::Scalar(*v));
                }
                if let Some(o) = self.memo.get(n) {
                    return Ok(o.clone());
                }
                if let Some(i) = self.op.input(n) {
                    return Ok(Operand::Tensor(
                        n.clone(),
                        i.decl.shape.clone(),
                        i.decl.dtype,
                    ));
                }
                let d = *self
                    .defs
                    .get(n)
                    .ok_or_else(|| self.unsupported("unknown name"))?;
                let o = self.operand(d)?;
                self.memo.insert(n.clone(), o.clone());
                Ok(o)
            }
            _ => {
                // Children first.
                let mut kids = Vec::new();
                for c in e.children() {
                    kids.push(self.operand(c)?);
                }
                if kids.iter().all(|k| matches!(k, Operand::Scalar(_))) {
                    return self.fold(e, &kids);
                }
                // One primitive: operands a, b, c.
                let names = ["a", "b", "c"];
                let mut ins = Vec::new();
                let mut args = Vec::new();
                let mut shape = ShapeTemplate::default();
                for (k, kid) in kids.iter().enumerate() {
                    match kid {
                        Operand::Scalar(v) => args.push(format!("{v:?}")),
                        Operand::Tensor(_, s, d) => {
                            args.push(names[k].to_string());
                            ins.push((names[k].to_string(), s.clone(), *d));
                            shape = super::lower::broadcast_pub(&shape, s);
                        }
                    }
                }
                let text = match &e.kind {
                    ExprKind::Neg(_) => format!("-{}", args[0]),
                    ExprKind::Binary { op, .. } => {
                        format!("{} {} {}", args[0], op.symbol(), args[1])
                    }
                    ExprKind::Call { func, .. } => format!("{}({})", func.name(), args.join(", ")),
                    ExprKind::Cast { dtype, .. } => {
                        format!("cast({}, {})", args[0], dtype.as_str())
                    }
                    ExprKind::Reduce {
                        op, axis, keepdims, ..
                    } => {
                        let Some(a) = axis else {
                            return Err(self.unsupported("a reduction over every axis"));
                        };
                        let r = shape.rank() as i64;
                        let ax = if *a < 0 { a + r } else { *a };
                        if !(0..r).contains(&ax) {
                            return Err(self.unsupported("a reduction axis out of range"));
                        }
                        let mut dims = shape.dims.clone();
                        if *keepdims {
                            dims[ax as usize] = crate::spec::Dim::Fixed(1);
                        } else {
                            dims.remove(ax as usize);
                        }
                        shape = ShapeTemplate::new(dims);
                        format!("{}({}, axis={a}, keepdims={keepdims})", op.name(), args[0])
                    }
                    _ => return Err(self.unsupported("an unexpected node")),
                };
                let name = format!("t{}", self.temps.len());
                self.temps.push((name.clone(), shape.clone()));
                self.prims.push((text, ins, shape.clone()));
                Ok(Operand::Tensor(name, shape, self.dtype))
            }
        }
    }

    fn fold(&self, e: &Expr, kids: &[Operand]) -> Result<Operand, SynthError> {
        let v: Vec<f64> = kids
            .iter()
            .map(|k| match k {
                Operand::Scalar(v) => *v,
                Operand::Tensor(..) => f64::NAN,
            })
            .collect();
        Ok(Operand::Scalar(match &e.kind {
            ExprKind::Neg(_) => -v[0],
            ExprKind::Binary { op, .. } => binary_fn(*op)(v[0], v[1]),
            ExprKind::Call { func, .. } if v.len() == 1 => unary_fn(*func)(v[0]),
            ExprKind::Call { func, .. } => {
                use crate::spec::reference::Func;
                match func {
                    Func::Max => v[0].max(v[1]),
                    Func::Min => v[0].min(v[1]),
                    Func::Clamp => v[0].max(v[1]).min(v[2]),
                    Func::Where => {
                        if v[0] != 0.0 {
                            v[1]
                        } else {
                            v[2]
                        }
                    }
                    _ => return Err(self.unsupported("a scalar call")),
                }
            }
            ExprKind::Cast { .. } | ExprKind::Reduce { .. } => v[0],
            _ => return Err(self.unsupported("a scalar node")),
        }))
    }
}

fn decl(d: Dtype, s: &ShapeTemplate) -> String {
    let dims: Vec<String> = s.dims.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", d.as_str(), dims.join(", "))
}

/// Decomposes `op` into its eager kernels (one per primitive operation of the reference,
/// in execution order), each proposed by [`propose`].
///
/// # Errors
/// [`SynthError::Unsupported`] when a primitive cannot be expressed or lowered.
pub fn eager(op: &OpSpec, options: &SynthOptions) -> Result<Vec<EagerKernel>, SynthError> {
    let dtype = op.outputs.first().map_or(Dtype::F32, |o| o.decl.dtype);
    let mut d = Decomp {
        op,
        dtype,
        attrs: op.attr_values(),
        defs: op
            .reference
            .statements
            .iter()
            .map(|s| (s.target.name.clone(), &s.value))
            .collect(),
        temps: Vec::new(),
        memo: HashMap::new(),
        prims: Vec::new(),
    };
    for o in &op.outputs {
        let st = op
            .reference
            .statement(&o.name)
            .ok_or_else(|| SynthError::Unsupported {
                op: op.name.clone(),
                reason: format!("output `{}` is not assigned", o.name),
            })?;
        let r = d.operand(&st.value)?;
        if let Operand::Tensor(n, s, dt) = r {
            if op.input(&n).is_some() {
                // A copy kernel.
                d.prims
                    .push(("a".into(), vec![("a".into(), s.clone(), dt)], s));
            }
        }
    }
    let mut out = Vec::new();
    for (k, (text, ins, shape)) in d.prims.iter().enumerate() {
        let mut m = String::new();
        let _ = writeln!(m, "[package]\nname = \"eager\"\nversion = \"0.1.0\"\n");
        let _ = writeln!(
            m,
            "[package.metadata.agenticcann]\nsoc = \"{}\"\n",
            op.soc.name()
        );
        let name = format!("{}_eager{k}", op.name);
        let _ = writeln!(m, "[package.metadata.agenticcann.ops.{name}]");
        let ins_s: Vec<String> = ins
            .iter()
            .map(|(n, s, dt)| format!("{n} = \"{}\"", decl(*dt, s)))
            .collect();
        let _ = writeln!(m, "inputs = {{ {} }}", ins_s.join(", "));
        let _ = writeln!(m, "outputs = {{ y = \"{}\" }}", decl(dtype, shape));
        let _ = writeln!(m, "reference = \"y = {text}\"");
        let mut named: Vec<String> = Vec::new();
        for (_, s, _) in ins {
            for n in s.named_dims() {
                if !named.iter().any(|x| x == n) {
                    named.push(n.to_string());
                }
            }
        }
        let shapes: Vec<String> = op
            .shapes
            .iter()
            .map(|b| {
                let kv: Vec<String> = named
                    .iter()
                    .filter_map(|n| b.get(n).map(|v| format!("{n} = {v}")))
                    .collect();
                format!("{{ {} }}", kv.join(", "))
            })
            .collect();
        if !named.is_empty() {
            let _ = writeln!(m, "shapes = [{}]", shapes.join(", "));
        }
        let spec = Spec::from_manifest_str(&m, None)
            .map_err(|e| SynthError::Unsupported {
                op: op.name.clone(),
                reason: format!("eager primitive `{text}` is not a valid op: {e}"),
            })?
            .ok_or_else(|| SynthError::Unsupported {
                op: op.name.clone(),
                reason: "eager manifest without ops".into(),
            })?;
        let pop = spec
            .ops
            .into_iter()
            .next()
            .ok_or_else(|| SynthError::Unsupported {
                op: op.name.clone(),
                reason: "eager manifest without ops".into(),
            })?;
        let candidate = propose(&pop, options)?;
        out.push(EagerKernel { op: pop, candidate });
    }
    Ok(out)
}

/// The eager baseline's cost-model time for each declared shape of `op`: every eager
/// kernel is evaluated by the judge (`eval`; held-out and stress shapes may be turned off
/// for speed) and its times summed.
///
/// # Errors
/// As [`eager`]; [`SynthError::Judge`] when the judge cannot run; [`SynthError::Rejected`]
/// when an eager kernel is not accepted.
pub fn eager_time(
    op: &OpSpec,
    options: &SynthOptions,
    eval: &EvalOptions,
) -> Result<EagerTime, SynthError> {
    let kernels = eager(op, options)?;
    let mut shapes: Vec<(BTreeMap<String, u64>, f64)> = op
        .shapes
        .iter()
        .map(|b| (b.iter().map(|(k, v)| (k.clone(), *v as u64)).collect(), 0.0))
        .collect();
    for k in &kernels {
        let ev = evaluate(&k.op, &k.candidate, eval)?;
        if !ev.accepted() {
            return Err(SynthError::Rejected {
                op: k.op.name.clone(),
                outcome: ev.outcome.label().into(),
                report: ev.render(),
            });
        }
        let declared: Vec<_> = ev
            .shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared)
            .collect();
        for (i, (_, t)) in shapes.iter_mut().enumerate() {
            let sh = if declared.len() == 1 {
                declared.first()
            } else {
                declared.get(i)
            };
            if let Some(p) = sh.and_then(|s| s.profile.as_ref()) {
                *t += p.time_us;
            }
        }
    }
    Ok(EagerTime {
        kernels: kernels.len(),
        shapes,
    })
}
