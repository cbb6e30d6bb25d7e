//! The eager baseline: one kernel per primitive operation of the op's eager recipe, each
//! reading its operands from GM and writing its result to GM, the way an eager framework runs
//! a composite operator; and the vendor-fused model for ops whose framework calls one fused
//! vendor kernel.
//!
//! - With a recipe (`eager = { recipe = … }`, see [`crate::spec::eager`]) the kernels are
//!   exactly the recipe's operations and every intermediate has the dtype PyTorch's type
//!   promotion gives it ([`crate::spec::eager::promote`]): the HF `LlamaRMSNorm` recipe is
//!   8 launches with three full-size fp32 temporaries.
//! - Without one, the reference itself is decomposed with intermediates in the op's (first)
//!   output dtype, as before recipes existed.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::{propose, SynthError, SynthOptions};
use crate::judge::SocProfile;
use crate::judge::{evaluate, Candidate, EvalOptions, ShapeOrigin};
use crate::spec::eager::dtype_of;
use crate::spec::reference::subscript::{picked_shape, template_picks};
use crate::spec::reference::{binary_fn, unary_fn, Expr, ExprKind, Reference};
use crate::spec::{BindError, Dtype, OpSpec, ShapeTemplate, Spec};

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
    /// Per declared shape: bytes the kernels moved between GM and UB in total.
    pub bytes: Vec<u64>,
}

/// One launch: its reference text over operands named `a`, `b`, …, its tensor operands
/// (name, shape, dtype), its result shape and dtype, and the vendor kernel when the recipe
/// says the framework runs it as one vendor call.
struct Prim {
    text: String,
    ins: Vec<(String, ShapeTemplate, Dtype)>,
    shape: ShapeTemplate,
    dtype: Dtype,
    vendor: Option<String>,
}

struct Decomp<'a> {
    op: &'a OpSpec,
    /// Intermediates' dtype when there is no recipe; `None` = promote as PyTorch does.
    dtype: Option<Dtype>,
    attrs: HashMap<String, f64>,
    defs: HashMap<String, &'a Expr>,
    /// Intermediate tensors: name → shape.
    temps: Vec<(String, ShapeTemplate)>,
    memo: HashMap<String, Operand>,
    /// The launches, in order.
    prims: Vec<Prim>,
    /// Statements the framework runs as one vendor call: target → kernel name.
    calls: &'a BTreeMap<String, String>,
}

#[derive(Clone, Debug)]
enum Operand {
    Scalar(f64),
    /// A tensor: name (input or temp), shape, dtype.
    Tensor(String, ShapeTemplate, Dtype),
    /// A subscript of a tensor (`x[..., :I]`, PyTorch's `chunk`/slicing): a view, no launch;
    /// the launch that reads it reads the tensor through the same subscript.
    View {
        /// The viewed tensor: name, shape, dtype.
        base: (String, ShapeTemplate, Dtype),
        /// The subscript's items, as written.
        items: String,
        /// The view's shape.
        shape: ShapeTemplate,
    },
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
                let o = match self.calls.get(n) {
                    Some(kernel) => self.call(d, kernel)?,
                    None => self.operand(d)?,
                };
                self.memo.insert(n.clone(), o.clone());
                Ok(o)
            }
            ExprKind::Subscript { operand, items } => match self.operand(operand)? {
                Operand::Tensor(n, shape, d) => {
                    let picks = template_picks(items, &shape)
                        .map_err(|m| self.unsupported(&format!("a subscript: {m}")))?;
                    let vshape = picked_shape(&picks, &shape);
                    let items = items
                        .iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", ");
                    Ok(Operand::View {
                        base: (n, shape, d),
                        items,
                        shape: vshape,
                    })
                }
                _ => Err(self.unsupported(
                    "the eager decomposition lowers subscripts of tensors only (not of a subscript or a scalar)",
                )),
            },
            k if k.indexing_construct().is_some() && !matches!(k, ExprKind::Concat { .. }) => {
                Err(self.unsupported(&format!(
                "the eager decomposition does not lower {} yet",
                k.indexing_construct().unwrap_or("an indexing construct")
            )))
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
                if kids.len() > names.len() {
                    return Err(self.unsupported(&format!(
                        "a launch with {} operands (the decomposition names at most 3)",
                        kids.len()
                    )));
                }
                let mut ins = Vec::new();
                let mut args = Vec::new();
                let mut shape = ShapeTemplate::default();
                let mut kid_dtypes: HashMap<String, Option<Dtype>> = HashMap::new();
                for (k, kid) in kids.iter().enumerate() {
                    match kid {
                        Operand::Scalar(v) => args.push(format!("{v:?}")),
                        Operand::Tensor(_, s, d) => {
                            args.push(names[k].to_string());
                            ins.push((names[k].to_string(), s.clone(), *d));
                            kid_dtypes.insert(names[k].to_string(), Some(*d));
                            shape = super::lower::broadcast_pub(&shape, s);
                        }
                        Operand::View {
                            base: (_, s, d),
                            items,
                            shape: vs,
                        } => {
                            args.push(format!("{}[{items}]", names[k]));
                            ins.push((names[k].to_string(), s.clone(), *d));
                            kid_dtypes.insert(names[k].to_string(), Some(*d));
                            shape = super::lower::broadcast_pub(&shape, vs);
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
                    ExprKind::Concat { axis, .. } => {
                        // `torch.cat`: one launch copying its operands into the result.
                        let text = format!("concat({}, axis={axis})", args.join(", "));
                        let shapes: BTreeMap<String, ShapeTemplate> = ins
                            .iter()
                            .map(|(l, s, _)| (l.clone(), s.clone()))
                            .collect();
                        let prim = Reference::parse(&format!("y = {text}")).map_err(|e| {
                            self.unsupported(&format!("primitive `{text}` does not parse: {e}"))
                        })?;
                        shape = crate::spec::reference::shape_of(
                            &prim.statements[0].value,
                            &shapes,
                        )
                        .map_err(|e| self.unsupported(&format!("a concat's shape: {}", e.message)))?;
                        text
                    }
                    _ => return Err(self.unsupported("an unexpected node")),
                };
                let dtype = match self.dtype {
                    Some(d) => d,
                    None => {
                        // The primitive's own text, with its operands named a, b, c.
                        let prim = Reference::parse(&format!("y = {text}")).map_err(|e| {
                            self.unsupported(&format!("primitive `{text}` does not parse: {e}"))
                        })?;
                        dtype_of(&prim.statements[0].value, &kid_dtypes).unwrap_or(Dtype::F32)
                    }
                };
                let name = format!("t{}", self.temps.len());
                self.temps.push((name.clone(), shape.clone()));
                self.prims.push(Prim {
                    text,
                    ins,
                    shape: shape.clone(),
                    dtype,
                    vendor: None,
                });
                Ok(Operand::Tensor(name, shape, dtype))
            }
        }
    }

    /// A statement the framework runs as one call of vendor kernel `kernel`: its named
    /// operands are resolved (earlier statements launch first), the whole expression is one
    /// launch.
    fn call(&mut self, e: &Expr, kernel: &str) -> Result<Operand, SynthError> {
        let mut leaves: Vec<String> = Vec::new();
        e.walk(&mut |x| {
            if let ExprKind::Name(n) = &x.kind {
                if !leaves.contains(n) {
                    leaves.push(n.clone());
                }
            }
        });
        let mut map: HashMap<String, Operand> = HashMap::new();
        for n in &leaves {
            let o = self.operand(&Expr {
                kind: ExprKind::Name(n.clone()),
                span: e.span,
            })?;
            // A vendor call reads a view's elements only: its roofline counts the view.
            let o = match o {
                Operand::View {
                    base: (b, _, d),
                    items,
                    shape,
                } => Operand::Tensor(format!("{b}[{items}]"), shape, d),
                o => o,
            };
            map.insert(n.clone(), o);
        }
        let mut ins = Vec::new();
        let mut letters: HashMap<String, String> = HashMap::new();
        for n in &leaves {
            if let Some(Operand::Tensor(t, shape, d)) = map.get(n) {
                if !letters.contains_key(t) {
                    let letter = ((b'a' + ins.len() as u8) as char).to_string();
                    if ins.len() >= 26 {
                        return Err(
                            self.unsupported("a vendor call with more than 26 tensor operands")
                        );
                    }
                    letters.insert(t.clone(), letter.clone());
                    ins.push((letter, shape.clone(), *d));
                }
            }
        }
        let mut renamed = e.clone();
        rename(&mut renamed, &|n| match map.get(n) {
            Some(Operand::Scalar(v)) => Some(ExprKind::Number(*v)),
            Some(Operand::Tensor(t, ..)) => letters.get(t).map(|l| ExprKind::Name(l.clone())),
            Some(Operand::View { .. }) | None => None,
        });
        if ins.is_empty() {
            return Err(self.unsupported("a vendor call without tensor operands"));
        }
        let shapes: BTreeMap<String, ShapeTemplate> =
            ins.iter().map(|(l, s, _)| (l.clone(), s.clone())).collect();
        let shape = crate::spec::reference::shape_of(&renamed, &shapes)
            .map_err(|e| self.unsupported(&format!("a vendor call's shape: {}", e.message)))?;
        let dtypes: HashMap<String, Option<Dtype>> =
            ins.iter().map(|(l, _, d)| (l.clone(), Some(*d))).collect();
        let dtype = match self.dtype {
            Some(d) => d,
            None => dtype_of(&renamed, &dtypes).unwrap_or(Dtype::F32),
        };
        let name = format!("t{}", self.temps.len());
        self.temps.push((name.clone(), shape.clone()));
        self.prims.push(Prim {
            text: renamed.to_string(),
            ins,
            shape: shape.clone(),
            dtype,
            vendor: Some(kernel.to_string()),
        });
        Ok(Operand::Tensor(name, shape, dtype))
    }

    fn fold(&self, e: &Expr, kids: &[Operand]) -> Result<Operand, SynthError> {
        let v: Vec<f64> = kids
            .iter()
            .map(|k| match k {
                Operand::Scalar(v) => *v,
                Operand::Tensor(..) | Operand::View { .. } => f64::NAN,
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

/// Replaces every name leaf `n` of `e` for which `f(n)` gives a node kind.
fn rename(e: &mut Expr, f: &dyn Fn(&str) -> Option<ExprKind>) {
    match &mut e.kind {
        ExprKind::Name(n) => {
            if let Some(k) = f(n) {
                e.kind = k;
            }
        }
        ExprKind::Number(_) => {}
        ExprKind::Neg(x) => rename(x, f),
        ExprKind::Cast { operand, .. } | ExprKind::Reduce { operand, .. } => rename(operand, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            rename(lhs, f);
            rename(rhs, f);
        }
        ExprKind::Call { args, .. } | ExprKind::Concat { operands: args, .. } => {
            for a in args {
                rename(a, f);
            }
        }
        ExprKind::Subscript { operand, .. }
        | ExprKind::Iota { operand, .. }
        | ExprKind::ArgReduce { operand, .. } => rename(operand, f),
        ExprKind::TakeAlongAxis {
            operand, indices, ..
        } => {
            rename(operand, f);
            rename(indices, f);
        }
    }
}

fn decl(d: Dtype, s: &ShapeTemplate) -> String {
    let dims: Vec<String> = s.dims.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", d.as_str(), dims.join(", "))
}

/// The program the eager baseline runs: the op's recipe when it declares one, else its
/// reference.
pub fn eager_program(op: &OpSpec) -> &Reference {
    op.eager
        .as_ref()
        .and_then(|e| e.recipe.as_ref())
        .unwrap_or(&op.reference)
}

/// Decomposes `op` into its eager kernels (one per primitive operation of its eager recipe,
/// else of its reference, in execution order), each proposed by [`propose`]. Steps the
/// recipe runs as vendor calls (`eager.calls`) are not kernels of ours and are left out
/// (see [`eager_plan`]).
///
/// # Errors
/// [`SynthError::Unsupported`] when a primitive cannot be expressed or lowered.
pub fn eager(op: &OpSpec, options: &SynthOptions) -> Result<Vec<EagerKernel>, SynthError> {
    eager_plan(op)?
        .into_iter()
        .filter(|s| s.vendor.is_none())
        .map(|s| {
            let candidate = propose(&s.op, options)?;
            Ok(EagerKernel {
                op: s.op,
                candidate,
            })
        })
        .collect()
}

/// One launch of the eager baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct EagerStep {
    /// The launch as a one-statement op (`y = a + b`) with the parent's named dimensions and
    /// shapes.
    pub op: OpSpec,
    /// The vendor kernel the framework calls for it (`eager.calls`), modelled at its memory
    /// roofline ([`roofline_us`]); `None` for a kernel the offline proposer generates and the
    /// judge times.
    pub vendor: Option<String>,
}

/// The eager baseline of `op` as launches, in order, without proposing them: one per
/// operation node of [`eager_program`] (a binary operator, a call, a cast, a reduction;
/// subexpressions of only scalars are folded), one per statement the recipe runs as a vendor
/// call (`eager.calls`), plus a copy kernel for an output that is an input. Intermediates
/// have the recipe's dtypes (PyTorch promotion) or, without a recipe, the op's first output
/// dtype.
///
/// # Errors
/// [`SynthError::Unsupported`] when a launch is not a valid op.
pub fn eager_plan(op: &OpSpec) -> Result<Vec<EagerStep>, SynthError> {
    static NO_CALLS: std::sync::LazyLock<BTreeMap<String, String>> =
        std::sync::LazyLock::new(BTreeMap::new);
    let recipe = op.eager.as_ref().and_then(|e| e.recipe.as_ref());
    let program = eager_program(op);
    let dtype = match recipe {
        Some(_) => None,
        None => Some(op.outputs.first().map_or(Dtype::F32, |o| o.decl.dtype)),
    };
    let calls = match (recipe, &op.eager) {
        (Some(_), Some(e)) => &e.calls,
        _ => &*NO_CALLS,
    };
    let mut d = Decomp {
        op,
        dtype,
        attrs: op.attr_values(),
        defs: program
            .statements
            .iter()
            .map(|s| (s.target.name.clone(), &s.value))
            .collect(),
        temps: Vec::new(),
        memo: HashMap::new(),
        prims: Vec::new(),
        calls,
    };
    for o in &op.outputs {
        let st = program
            .statement(&o.name)
            .ok_or_else(|| SynthError::Unsupported {
                op: op.name.clone(),
                reason: format!("output `{}` is not assigned", o.name),
            })?;
        let r = d.operand(&Expr {
            kind: ExprKind::Name(o.name.clone()),
            span: st.span,
        })?;
        if let Operand::Tensor(n, s, dt) = r {
            if op.input(&n).is_some() {
                // A copy kernel.
                d.prims.push(Prim {
                    text: "a".into(),
                    ins: vec![("a".into(), s.clone(), dt)],
                    shape: s,
                    dtype: o.decl.dtype,
                    vendor: None,
                });
            }
        }
    }
    let mut out = Vec::new();
    for (k, p) in d.prims.iter().enumerate() {
        let (text, ins, shape, dtype) = (&p.text, &p.ins, &p.shape, &p.dtype);
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
        let _ = writeln!(m, "outputs = {{ y = \"{}\" }}", decl(*dtype, shape));
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
        out.push(EagerStep {
            op: pop,
            vendor: p.vendor.clone(),
        });
    }
    Ok(out)
}

/// The eager baseline's cost-model time for each declared shape of `op`: every kernel step
/// of [`eager_plan`] is evaluated by the judge (`eval`; held-out and stress shapes may be
/// turned off for speed), every vendor-call step is modelled at its roofline with the SoC
/// profile of the judge's toolchain, and the times are summed.
///
/// # Errors
/// As [`eager`]; [`SynthError::Judge`] when the judge cannot run; [`SynthError::Rejected`]
/// when an eager kernel is not accepted.
pub fn eager_time(
    op: &OpSpec,
    options: &SynthOptions,
    eval: &EvalOptions,
) -> Result<EagerTime, SynthError> {
    let plan = eager_plan(op)?;
    let mut shapes: Vec<(BTreeMap<String, u64>, f64)> = op
        .shapes
        .iter()
        .map(|b| (b.iter().map(|(k, v)| (k.clone(), *v as u64)).collect(), 0.0))
        .collect();
    let mut bytes = vec![0u64; shapes.len()];
    let soc = if plan.iter().any(|s| s.vendor.is_some()) {
        Some(soc_profile(op, eval)?)
    } else {
        None
    };
    for step in &plan {
        if let (Some(_), Some(soc)) = (&step.vendor, &soc) {
            for (i, b) in op.shapes.iter().enumerate() {
                let n = op_bytes(&step.op, b).map_err(|e| SynthError::Unsupported {
                    op: op.name.clone(),
                    reason: e.to_string(),
                })?;
                shapes[i].1 += roofline_us(n, soc);
                bytes[i] += n;
            }
            continue;
        }
        let candidate = propose(&step.op, options)?;
        let ev = evaluate(&step.op, &candidate, eval)?;
        if !ev.accepted() {
            return Err(SynthError::Rejected {
                op: step.op.name.clone(),
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
                bytes[i] += p.gm_read_bytes + p.gm_write_bytes;
            }
        }
    }
    Ok(EagerTime {
        kernels: plan.len(),
        shapes,
        bytes,
    })
}

/// The SoC profile of `op`'s SoC from the judge's toolchain (`eval.toolchain`, else
/// [`SimToolchain::from_env`](crate::judge::SimToolchain::from_env)).
///
/// # Errors
/// [`SynthError::Judge`] when the toolchain or the profile cannot be found.
pub fn soc_profile(op: &OpSpec, eval: &EvalOptions) -> Result<SocProfile, SynthError> {
    let tc = match &eval.toolchain {
        Some(t) => t.clone(),
        None => crate::judge::SimToolchain::from_env()
            .map_err(|e| SynthError::Judge(crate::judge::JudgeError::from(e)))?,
    };
    tc.soc_profile(op.soc.name())
        .map_err(|e| SynthError::Judge(crate::judge::JudgeError::from(e)))
}

/// GM bytes of every input and output of `op` under `binding` (named dimension → size;
/// names `op` does not use are ignored): the least traffic any kernel of `op` has, each
/// input read once and each output written once.
///
/// # Errors
/// [`BindError::Unbound`] when a named dimension of `op` has no size.
pub fn op_bytes(op: &OpSpec, binding: &HashMap<String, usize>) -> Result<u64, BindError> {
    let mut total = 0u64;
    let decls = op
        .inputs
        .iter()
        .map(|i| &i.decl)
        .chain(op.outputs.iter().map(|o| &o.decl));
    for d in decls {
        let n = d
            .shape
            .bind(binding)?
            .iter()
            .fold(1u64, |p, &x| p.saturating_mul(x as u64));
        total = total.saturating_add(n.saturating_mul(d.dtype.size_bytes() as u64));
    }
    Ok(total)
}

/// GM bytes an eager decomposition must move under `binding`: Σ [`op_bytes`] over its
/// launches ([`eager_plan`]). For the HF RMSNorm recipe over f16 `[R, H]` this is
/// `36·R·H + 24·R + 2·H` (fp32 temporaries), against `4·R·H + 2·H` fused.
///
/// # Errors
/// As [`op_bytes`].
pub fn eager_bytes(
    steps: &[EagerStep],
    binding: &HashMap<String, usize>,
) -> Result<u64, BindError> {
    steps.iter().try_fold(0u64, |acc, k| {
        Ok(acc.saturating_add(op_bytes(&k.op, binding)?))
    })
}

/// The vendor-fused model of an op whose framework calls one fused vendor kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct VendorFused {
    /// The vendor kernel (`aclnnLayerNorm`).
    pub vendor: String,
    /// GM bytes: every input read once, every output written once ([`op_bytes`]).
    pub bytes: u64,
    /// Modelled time, µs: `bytes / peak HBM bandwidth + launch overhead`.
    pub time_us: f64,
}

/// The vendor-fused baseline of `op` under `binding`: one launch at the op's memory roofline,
/// `bytes / (hbm.peak_gbps · 10³) + launch.overhead_us` µs with both numbers from the SoC
/// profile (`ascendc-sim/profiles/<soc>.toml`: `[hbm] peak_gbps`, `[launch] overhead_us`) —
/// the best any single kernel can do, and the judge's own roofline floor. `None` when the op
/// declares no `eager.vendor`.
///
/// # Errors
/// As [`op_bytes`].
pub fn vendor_fused_time(
    op: &OpSpec,
    binding: &HashMap<String, usize>,
    soc: &SocProfile,
) -> Result<Option<VendorFused>, BindError> {
    let Some(vendor) = op.eager.as_ref().and_then(|e| e.vendor.clone()) else {
        return Ok(None);
    };
    let bytes = op_bytes(op, binding)?;
    Ok(Some(VendorFused {
        vendor,
        bytes,
        time_us: roofline_us(bytes, soc),
    }))
}

/// `bytes` at the profile's peak HBM bandwidth plus one launch overhead, µs (the judge's
/// `min_floor_us`).
pub fn roofline_us(bytes: u64, soc: &SocProfile) -> f64 {
    bytes as f64 / (soc.hbm_peak_gbps * 1e3) + soc.launch_overhead_us
}
