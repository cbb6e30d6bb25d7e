//! Eager recipes: how an op's source model runs it without a fused kernel, the baseline every
//! "vs eager" ratio is measured against (DESIGN §8 "Baselines").
//!
//! ```toml
//! [package.metadata.agenticcann.ops.rms_norm]
//! # … inputs, outputs, attrs, reference …
//! # HF transformers `LlamaRMSNorm.forward`: 8 launches, fp32 temporaries.
//! eager = { source = "Llama (HF transformers LlamaRMSNorm)", vendor = "aclnnRmsNorm", recipe = '''
//! xf = cast(x, f32)
//! v  = mean(xf ** 2, axis=-1, keepdims=true)
//! h  = xf * rsqrt(v + eps)
//! y  = gamma * cast(h, f16)
//! ''' }
//! ```
//!
//! - `source` (required): the model family and the framework code the recipe transcribes.
//! - `recipe`: a program in the reference language that the framework runs one operation at
//!   a time. Every operation node (binary operator, call, cast, reduction) is one kernel
//!   launch that reads its operands from GM and writes its result to GM; the result's dtype
//!   follows PyTorch's type promotion ([`promote`]): `cast(x, f32)` makes an f32 tensor, a
//!   tensor with a Python scalar keeps the tensor's dtype, two tensors of different float
//!   dtypes give the wider one (f16 with bf16 gives f32). The recipe must compute every
//!   output with its declared shape and dtype (end with a `cast` where the framework does).
//! - `vendor`: the name of the one fused vendor kernel the framework calls instead
//!   (`F.layer_norm` → `aclnnLayerNorm`). The baseline is then modelled as one launch at the
//!   op's memory roofline (see `synth::vendor_fused_time`).
//!
//! - `calls`: statements of the recipe the framework runs as one vendor call each
//!   (`calls = { p = "aclnnSoftmax" }` for `torch.softmax` inside the HF attention recipe):
//!   that statement is one launch at its memory roofline, not one launch per node.
//!
//! At least one of `recipe` and `vendor` is given; both may be (a model may run the HF
//! recipe, a serving stack the vendor kernel). The recipe is **not** part of the op's
//! [`Key`](crate::key::Key): it describes a baseline, not the kernel.

use std::collections::{BTreeMap, HashMap};

use super::dtype::Dtype;
use super::reference::{Expr, ExprKind, Reference};

/// The eager baseline an op declares (`eager = { … }`).
#[derive(Clone, Debug, PartialEq)]
pub struct EagerRecipe {
    /// The source model family and framework code (`"Llama (HF transformers LlamaRMSNorm)"`).
    pub source: String,
    /// The op sequence the framework launches, parsed and checked against the op's inputs,
    /// attrs and outputs.
    pub recipe: Option<Reference>,
    /// The fused vendor kernel the framework calls instead (`"aclnnLayerNorm"`).
    pub vendor: Option<String>,
    /// Statements of the recipe that the framework runs as one call of a vendor kernel
    /// (target → kernel, `calls = { p = "aclnnSoftmax" }`): the statement's whole expression
    /// is one launch, modelled at its memory roofline, instead of one launch per node.
    pub calls: BTreeMap<String, String>,
}

/// PyTorch's type promotion for one elementwise operation, over operand dtypes where `None`
/// is a Python scalar (an attr or a literal):
///
/// - scalar with scalar: scalar;
/// - a tensor with scalars: the tensor's dtype when it is a float, else f32 (torch's default
///   float dtype; integer tensors with float scalars promote to it);
/// - two tensors: the same dtype stays; two floats give the wider one, and f16 with bf16
///   gives f32; a float with a non-float gives the float; two different non-floats give f32
///   (the language computes in floats).
pub fn promote(a: Option<Dtype>, b: Option<Dtype>) -> Option<Dtype> {
    match (a, b) {
        (None, None) => None,
        (Some(t), None) | (None, Some(t)) => Some(if t.is_float() { t } else { Dtype::F32 }),
        (Some(x), Some(y)) if x == y => Some(x),
        (Some(x), Some(y)) => Some(match (x.is_float(), y.is_float()) {
            // Two different floats: f16/bf16 with f32, or f16 with bf16.
            (true, true) => Dtype::F32,
            (true, false) => x,
            (false, true) => y,
            (false, false) => Dtype::F32,
        }),
    }
}

/// The dtype of `expr` under [`promote`], given the dtypes of the names in scope (`None`
/// for scalars). Names not in `names` count as scalars.
///
/// Unary functions and reductions keep their operand's dtype (a non-float tensor becomes
/// f32); subscripts and `take_along_axis` keep it exactly, `concat` promotes its operands,
/// `iota`/`argmax`/`argmin` give i32 (torch: int64); comparisons give their operands' promoted dtype (PyTorch gives `bool`; the
/// language's comparisons are 0.0/1.0 values, so the baseline keeps them in the operand
/// dtype — at most 4× the bytes of a bool tensor, and only where a recipe compares tensors).
pub fn dtype_of(expr: &Expr, names: &HashMap<String, Option<Dtype>>) -> Option<Dtype> {
    match &expr.kind {
        ExprKind::Number(_) => None,
        ExprKind::Name(n) => names.get(n).copied().flatten(),
        ExprKind::Cast { dtype, .. } => Some(*dtype),
        ExprKind::Neg(x) | ExprKind::Reduce { operand: x, .. } => promote(dtype_of(x, names), None),
        // Views and gathers keep the dtype; `torch.cat` promotes its operands.
        ExprKind::Subscript { operand: x, .. } | ExprKind::TakeAlongAxis { operand: x, .. } => {
            dtype_of(x, names)
        }
        ExprKind::Concat { operands, .. } => operands
            .iter()
            .map(|a| dtype_of(a, names))
            .reduce(promote)
            .flatten(),
        // torch gives int64 (`arange`, `argmax`); the language's widest integer is i32, so a
        // baseline counts these at half torch's bytes.
        ExprKind::Iota { .. } | ExprKind::ArgReduce { .. } => Some(Dtype::I32),
        ExprKind::Binary { lhs, rhs, .. } => promote(dtype_of(lhs, names), dtype_of(rhs, names)),
        ExprKind::Call { func, args } => {
            use super::reference::Func;
            // `where(cond, a, b)`: the condition does not take part in promotion.
            let operands: &[Expr] = if *func == Func::Where {
                &args[1..]
            } else {
                args
            };
            let d = operands
                .iter()
                .map(|a| dtype_of(a, names))
                .reduce(promote)
                .flatten();
            match d {
                Some(d) => promote(Some(d), None),
                // `where(mask, 1, 0)`: a tensor of torch's default float dtype.
                None if *func == Func::Where && dtype_of(&args[0], names).is_some() => {
                    Some(Dtype::F32)
                }
                None => None,
            }
        }
    }
}

/// The dtype of every name of `program` (inputs, attrs as `None`, every statement's target),
/// statements in order.
pub fn infer_dtypes(
    program: &Reference,
    inputs: &[(&str, Dtype)],
    attrs: &[&str],
) -> BTreeMap<String, Option<Dtype>> {
    let mut names: HashMap<String, Option<Dtype>> = inputs
        .iter()
        .map(|(n, d)| (n.to_string(), Some(*d)))
        .chain(attrs.iter().map(|a| (a.to_string(), None)))
        .collect();
    for s in &program.statements {
        let d = dtype_of(&s.value, &names);
        names.insert(s.target.name.clone(), d);
    }
    names.into_iter().collect()
}

/// Validates `eager = { … }` of one op: every problem goes to `sink` under field `eager…`
/// (recipe errors with line, column and caret). `inputs`, `outputs` and `attrs` (with the
/// class of their values) are the op's declarations; the recipe is shape- and index-checked
/// only when `decls_ok` (sound declarations).
pub(super) fn check_eager(
    sink: &mut super::validate::Sink<'_>,
    value: &toml::Value,
    inputs: &[(String, super::shape::TensorDecl)],
    outputs: &[(String, super::shape::TensorDecl)],
    attrs: &[(&str, super::reference::ValueClass)],
    decls_ok: bool,
) -> Option<EagerRecipe> {
    use super::reference::{infer_shapes, value_classes, ReferenceError, ReferenceErrorKind};
    let attr_classes = attrs;
    let attr_names: Vec<&str> = attrs.iter().map(|(n, _)| *n).collect();
    let attrs = attr_names.as_slice();
    let t = sink.table("eager", value)?;
    sink.unknown_keys("eager.", t, &["source", "recipe", "vendor", "calls"]);
    let before = sink.problems.len();
    let string = |sink: &mut super::validate::Sink<'_>, key: &str| -> Option<String> {
        let v = t.get(key)?;
        match v.as_str() {
            Some(s) if !s.trim().is_empty() => Some(s.to_string()),
            Some(_) => {
                sink.push(format!("eager.{key}"), "must not be empty");
                None
            }
            None => {
                sink.push(
                    format!("eager.{key}"),
                    format!("expected a string, found {}", v.type_str()),
                );
                None
            }
        }
    };
    let source = string(sink, "source");
    if source.is_none() && !t.contains_key("source") {
        sink.push(
            "eager.source",
            "missing: name the model family and framework code the baseline follows, as `source = \"Llama (HF transformers LlamaRMSNorm)\"`",
        );
    }
    let vendor = string(sink, "vendor");
    if let Some(v) = &vendor {
        if !super::shape::is_identifier(v) {
            sink.push(
                "eager.vendor",
                format!(
                    "`{v}` is not a kernel name (letters, digits and `_`), e.g. \"aclnnLayerNorm\""
                ),
            );
        }
    }
    let recipe_src = string(sink, "recipe");
    if recipe_src.is_none()
        && vendor.is_none()
        && !t.contains_key("recipe")
        && !t.contains_key("vendor")
    {
        sink.push(
            "eager",
            "give `recipe` (the op sequence the framework launches) or `vendor` (the fused vendor kernel it calls), or both",
        );
    }
    let mut recipe = None;
    if let Some(src) = &recipe_src {
        match Reference::parse(src) {
            Err(e) => sink.reference("eager.recipe", src, &e),
            Ok(r) if decls_ok => {
                let ins: Vec<(&str, &super::ShapeTemplate)> =
                    inputs.iter().map(|(n, d)| (n.as_str(), &d.shape)).collect();
                match infer_shapes(&r, &ins, attrs) {
                    Err(errors) => {
                        for e in &errors {
                            sink.reference("eager.recipe", src, e);
                        }
                    }
                    Ok(shapes) => {
                        let in_dtypes: Vec<(&str, Dtype)> =
                            inputs.iter().map(|(n, d)| (n.as_str(), d.dtype)).collect();
                        if let Err(errors) = value_classes(&r, &in_dtypes, attr_classes) {
                            for e in &errors {
                                sink.reference("eager.recipe", src, e);
                            }
                        }
                        let dtypes = infer_dtypes(&r, &in_dtypes, attrs);
                        for (name, decl) in outputs {
                            let Some(st) = r.statement(name) else {
                                sink.push(
                                    "eager.recipe",
                                    format!("output `{name}` is never assigned by the recipe"),
                                );
                                continue;
                            };
                            let mut problem = None;
                            if shapes.get(name) != Some(&decl.shape) {
                                problem = Some(format!(
                                    "the recipe computes `{name}` with shape {}, but outputs.{name} declares {decl}",
                                    shapes.get(name).map(|s| s.to_string()).unwrap_or_default()
                                ));
                            } else if dtypes.get(name).copied().flatten() != Some(decl.dtype) {
                                problem = Some(format!(
                                    "the recipe computes `{name}` in {}, but outputs.{name} is {}: end the recipe with `cast(…, {})` where the framework casts back",
                                    dtypes
                                        .get(name)
                                        .copied()
                                        .flatten()
                                        .map_or("a scalar", |d| d.as_str()),
                                    decl.dtype,
                                    decl.dtype
                                ));
                            }
                            if let Some(m) = problem {
                                let e = ReferenceError::new(ReferenceErrorKind::Shape, st.span, m);
                                sink.reference("eager.recipe", src, &e);
                            }
                        }
                        recipe = Some(r);
                    }
                }
            }
            Ok(r) => recipe = Some(r),
        }
    }
    let mut calls = BTreeMap::new();
    if let Some(v) = t.get("calls") {
        if let Some(ct) = sink.table("eager.calls", v) {
            if recipe_src.is_none() {
                sink.push(
                    "eager.calls",
                    "`calls` names statements of a `recipe`; give one",
                );
            }
            for (name, k) in ct {
                let f = format!("eager.calls.{name}");
                match k.as_str() {
                    Some(kernel) if super::shape::is_identifier(kernel) => {
                        if let Some(r) = &recipe {
                            if r.statement(name).is_none() {
                                sink.push(&f, format!("`{name}` is not assigned by the recipe"));
                            }
                        }
                        calls.insert(name.clone(), kernel.to_string());
                    }
                    Some(kernel) => sink.push(
                        &f,
                        format!("`{kernel}` is not a kernel name (letters, digits and `_`)"),
                    ),
                    None => sink.push(
                        &f,
                        format!("expected a kernel name string, found {}", k.type_str()),
                    ),
                }
            }
        }
    }
    if sink.problems.len() != before {
        return None;
    }
    Some(EagerRecipe {
        source: source?,
        recipe,
        vendor,
        calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_torch() {
        use Dtype::*;
        assert_eq!(promote(Some(F16), None), Some(F16));
        assert_eq!(promote(None, Some(Bf16)), Some(Bf16));
        assert_eq!(promote(Some(F16), Some(F32)), Some(F32));
        assert_eq!(promote(Some(F16), Some(Bf16)), Some(F32));
        assert_eq!(promote(Some(Bf16), Some(Bf16)), Some(Bf16));
        assert_eq!(promote(Some(I32), Some(F16)), Some(F16));
        assert_eq!(promote(Some(I8), None), Some(F32));
        assert_eq!(promote(None, None), None);
    }

    #[test]
    fn hf_rms_norm_recipe_dtypes() {
        let r = Reference::parse(
            "xf = cast(x, f32)\nv = mean(xf ** 2, axis=-1, keepdims=true)\nh = xf * rsqrt(v + eps)\ny = gamma * cast(h, f16)",
        )
        .unwrap();
        let d = infer_dtypes(&r, &[("x", Dtype::F16), ("gamma", Dtype::F16)], &["eps"]);
        assert_eq!(d["xf"], Some(Dtype::F32));
        assert_eq!(d["v"], Some(Dtype::F32));
        assert_eq!(d["h"], Some(Dtype::F32));
        assert_eq!(d["y"], Some(Dtype::F16));
        assert_eq!(d["eps"], None);
        let w = Reference::parse("y = where(m, a, 0)").unwrap();
        let d = infer_dtypes(&w, &[("m", Dtype::Bool), ("a", Dtype::Bf16)], &[]);
        assert_eq!(d["y"], Some(Dtype::Bf16));
    }
}
