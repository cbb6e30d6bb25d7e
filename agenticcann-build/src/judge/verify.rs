//! Verification: which shapes a candidate runs on, the inputs it gets, and how its outputs
//! are compared with the golden outputs.
//!
//! - Shapes: every declared shape, then held-out shapes the candidate never saw (per named
//!   dimension, the others at the smallest declared binding: `one` = 1, `tail` = a multiple
//!   of 32 plus one, `not_divisible` = core count + 3, `odd` = 13, `zero` = 0), then
//!   stress scenarios on one declared shape with ill-conditioned float inputs (`wide`
//!   uniform(−20, 20) for exp overflow (FC-18), `large` uniform(−300, 300) for f16 squares
//!   (FC-19), `offset` normal(1000, 1) for variance cancellation (FC-20), `negative`
//!   uniform(−2, −1) for padded max reductions (FC-11), `constant` 0.75 for zero
//!   variance). Held-out shapes larger than [`ShapeOptions::max_elements`] are left out.
//!   The scenarios replace the distribution of the data inputs (those with a named
//!   dimension; all float inputs when none has one), not of fixed-shape weights like
//!   `gamma`. They are for gross failures — overflow, NaN, cancellation, a padded lane in a
//!   reduction — so stress shapes are judged at [`STRESS_TOLERANCE_FACTOR`] times the
//!   tolerance plus the reference's own conditioning ([`conditioning_slack`]): an honest f32
//!   kernel loses digits on ill-conditioned inputs, a wrong one is off by far more.
//! - Inputs are drawn fresh from a per-evaluation seed; the golden outputs are the f64
//!   reference rounded to each output's dtype, computed before the candidate runs.
//! - Outputs are pre-filled with a poison pattern drawn from the seed (a NaN with a random
//!   payload for floats), so unwritten elements are seen.
//! - An element passes when [`Tolerance::accepts`] it (NaN only matches NaN, an infinity only
//!   the same infinity). Magnitude-aware checks on top: an output that is constant where the
//!   golden output is not fails, and so does a normwise relative error ‖out − golden‖₂ /
//!   ‖golden‖₂ above max(10·rtol, 8·ε(dtype)) — which fails all-zero outputs whose
//!   elements hide under `atol`.

use std::collections::{BTreeMap, HashMap};

use ndarray::ArrayD;

use super::report::{Diagnostic, Mismatch, OutputMetrics, ShapeOrigin, Stage};
use crate::spec::init::input_rng;
use crate::spec::{Dim, Dtype, Init, OpSpec, Tolerance};

/// Which shapes to run besides the declared ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeOptions {
    /// Add held-out shapes.
    pub held_out: bool,
    /// Add stress scenarios.
    pub stress: bool,
    /// Largest total element count (over all inputs and outputs) of a held-out or stress
    /// shape; declared shapes always run.
    pub max_elements: u64,
    /// Unified Buffer bytes per vector core (the SoC profile's `ub_bytes`), for the
    /// regime shapes that no tile of a correct kernel can hold at once (`0`: none).
    pub ub_bytes: u64,
}

/// One shape to run.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedShape {
    /// Named dimension → size.
    pub binding: HashMap<String, usize>,
    /// Why it runs.
    pub origin: ShapeOrigin,
    /// For stress shapes, the distribution of every float input.
    pub stress: Option<Init>,
}

impl PlannedShape {
    /// The binding as a sorted map (for reports).
    pub fn dims(&self) -> BTreeMap<String, u64> {
        self.binding
            .iter()
            .map(|(k, v)| (k.clone(), *v as u64))
            .collect()
    }
}

/// Total elements over all inputs and outputs under `binding` (`u64::MAX` when it does not
/// bind).
pub fn total_elements(op: &OpSpec, binding: &HashMap<String, usize>) -> u64 {
    op.tensor_shapes(binding)
        .map(|m| {
            m.values()
                .map(|s| s.iter().fold(1u64, |p, &d| p.saturating_mul(d as u64)))
                .fold(0u64, u64::saturating_add)
        })
        .unwrap_or(u64::MAX)
}

/// Total bytes over the kernel's tensors under `binding` (`u64::MAX` when it does not bind).
fn total_bytes(op: &OpSpec, binding: &HashMap<String, usize>) -> u64 {
    let Ok(shapes) = op.tensor_shapes(binding) else {
        return u64::MAX;
    };
    op.kernel_params()
        .iter()
        .map(|p| {
            shapes.get(p.name).map_or(0, |s| {
                s.iter().fold(p.decl.dtype.size_bytes() as u64, |a, &d| {
                    a.saturating_mul(d as u64)
                })
            })
        })
        .fold(0u64, u64::saturating_add)
}

/// The regime shapes of dimension `d` (issue 13 D.10): shapes that reach the paths of a
/// kernel's tiling that small declared shapes do not, whatever that tiling is, from the one
/// fact every tiling obeys — a tile fits in the Unified Buffer. With `u` = the units of `d`
/// whose tensor bytes fill one core's UB (the other dims as in the largest declared shape):
/// - `many_per_core` (when `d` is the outermost axis of the highest-rank tensors, the one
///   cores split):
///   `d = cores·k + 1` with `k = 2u + 1` units per core (fewer when the
///   element cap says so, but more than any declared shape gives a core): every core runs
///   several full tiles and one core a partial one, and the count is just above a multiple
///   of the core count;
/// - `beyond_ub` (when `d` is the innermost axis of the highest-rank tensors): `d = u + 1` with the other dims at their smallest declared values: one
///   unit of work more than UB holds (for a row dim of a row kernel, a row longer than any
///   tile), when that is longer than every declared value of `d`.
fn regime_shapes(
    op: &OpSpec,
    d: &str,
    cores: u32,
    opts: &ShapeOptions,
) -> Vec<(&'static str, HashMap<String, usize>)> {
    let cores = cores.max(1) as u64;
    let mut out = Vec::new();
    // Which axis `d` is in the data tensors (those of the highest rank; a `gamma[cols]`
    // beside `x[rows, cols]` is a weight, not a row view): cores split the outermost axis;
    // the innermost axis is a row's length.
    let params = op.kernel_params();
    let rank = params
        .iter()
        .map(|p| p.decl.shape.dims.len())
        .max()
        .unwrap_or(0);
    let axis_of = |pick: fn(&[Dim]) -> Option<&Dim>| {
        params
            .iter()
            .filter(|p| p.decl.shape.dims.len() == rank)
            .any(|p| matches!(pick(&p.decl.shape.dims), Some(Dim::Named(n)) if n == d))
    };
    let outermost = axis_of(|v| v.first());
    let innermost = axis_of(|v| v.last());
    let declared_max = op
        .shapes
        .iter()
        .filter_map(|b| b.get(d).copied())
        .max()
        .unwrap_or(0) as u64;
    let per_unit = |base: &HashMap<String, usize>| -> u64 {
        let mut one = base.clone();
        one.insert(d.to_string(), 1);
        let mut two = base.clone();
        two.insert(d.to_string(), 2);
        total_bytes(op, &two).saturating_sub(total_bytes(op, &one))
    };
    let elements = |b: &HashMap<String, usize>| total_elements(op, b);
    // many_per_core, from the largest declared shape within the cap.
    if let Some(base) = outermost.then_some(()).and(
        op.shapes
            .iter()
            .filter(|b| total_elements(op, b) <= opts.max_elements)
            .max_by_key(|b| total_elements(op, b)),
    ) {
        if let Some(u) = opts.ub_bytes.checked_div(per_unit(base)) {
            let u = u.max(1);
            let declared_per_core = declared_max.div_ceil(cores);
            let mut k = 2 * u + 1;
            let shape_with = |k: u64| {
                let mut b = base.clone();
                b.insert(d.to_string(), (cores * k + 1) as usize);
                b
            };
            if elements(&shape_with(k)) > opts.max_elements {
                // Largest k within the cap: elements grow linearly in k.
                let e1 = elements(&shape_with(1));
                let e2 = elements(&shape_with(2));
                let step = e2.saturating_sub(e1).max(1);
                k = if opts.max_elements >= e1 {
                    1 + (opts.max_elements - e1) / step
                } else {
                    0
                };
            }
            if k > declared_per_core.max(1) && elements(&shape_with(k)) <= opts.max_elements {
                out.push(("many_per_core", shape_with(k)));
            }
        }
    }
    // beyond_ub, from the smallest declared shape.
    let base = op.smallest_shape();
    let unit = per_unit(base);
    if innermost && unit > 0 {
        let v = opts.ub_bytes / unit + 1;
        let mut b = base.clone();
        b.insert(d.to_string(), v as usize);
        if v > declared_max && elements(&b) <= opts.max_elements {
            out.push(("beyond_ub", b));
        }
    }
    out
}

/// Stress shapes are compared at this multiple of the op's `atol` and `rtol`.
pub const STRESS_TOLERANCE_FACTOR: f64 = 10.0;

/// The stress scenarios: name and distribution.
pub const STRESS: &[(&str, Init)] = &[
    (
        "wide",
        Init::Uniform {
            lo: -20.0,
            hi: 20.0,
        },
    ),
    (
        "large",
        Init::Uniform {
            lo: -300.0,
            hi: 300.0,
        },
    ),
    (
        "offset",
        Init::Normal {
            mu: 1000.0,
            sigma: 1.0,
        },
    ),
    ("negative", Init::Uniform { lo: -2.0, hi: -1.0 }),
    ("constant", Init::Uniform { lo: 0.75, hi: 0.75 }),
];

/// The shapes to run for `op` on a SoC with `cores` vector cores.
pub fn plan_shapes(op: &OpSpec, cores: u32, opts: &ShapeOptions) -> Vec<PlannedShape> {
    let mut out: Vec<PlannedShape> = op
        .shapes
        .iter()
        .map(|b| PlannedShape {
            binding: b.clone(),
            origin: ShapeOrigin::Declared,
            stress: None,
        })
        .collect();
    let named = op.named_dims();
    if opts.held_out && !named.is_empty() {
        let base = op.smallest_shape().clone();
        for d in &named {
            let small = base.get(d).copied().unwrap_or(1);
            let variants = [
                ("one", 1usize),
                ("tail", small.max(32).div_ceil(32) * 32 + 1),
                ("not_divisible", cores as usize + 3),
                ("odd", 13),
                ("zero", 0),
            ];
            for (reason, v) in variants {
                let mut b = base.clone();
                b.insert(d.clone(), v);
                if out.iter().any(|p| p.binding == b) {
                    continue;
                }
                if reason != "zero" && total_elements(op, &b) > opts.max_elements {
                    continue;
                }
                out.push(PlannedShape {
                    binding: b,
                    origin: ShapeOrigin::HeldOut {
                        reason: reason.to_string(),
                    },
                    stress: None,
                });
            }
        }
        if opts.ub_bytes > 0 {
            for d in &named {
                for (reason, b) in regime_shapes(op, d, cores, opts) {
                    if out.iter().any(|p| p.binding == b) {
                        continue;
                    }
                    out.push(PlannedShape {
                        binding: b,
                        origin: ShapeOrigin::HeldOut {
                            reason: reason.to_string(),
                        },
                        stress: None,
                    });
                }
            }
        }
    }
    let has_float_input = op.inputs.iter().any(|i| i.decl.dtype.is_float());
    if opts.stress && has_float_input {
        // The largest declared shape within the cap, else the smallest declared one.
        let pick = op
            .shapes
            .iter()
            .filter(|b| total_elements(op, b) <= opts.max_elements.min(1 << 18))
            .max_by_key(|b| total_elements(op, b))
            .unwrap_or_else(|| op.smallest_shape())
            .clone();
        if total_elements(op, &pick) > 0 {
            for (name, init) in STRESS {
                out.push(PlannedShape {
                    binding: pick.clone(),
                    origin: ShapeOrigin::Stress {
                        scenario: name.to_string(),
                    },
                    stress: Some(*init),
                });
            }
        }
    }
    out
}

/// The seed of shape `index` under the evaluation seed.
pub fn shape_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The inputs of a planned shape, each rounded to its dtype.
///
/// # Errors
/// A message when the binding misses a named dimension (never for planned shapes).
pub fn shape_inputs(
    op: &OpSpec,
    shape: &PlannedShape,
    seed: u64,
) -> Result<HashMap<String, ArrayD<f64>>, String> {
    let shapes = op
        .tensor_shapes(&shape.binding)
        .map_err(|e| e.to_string())?;
    // Stress the data (inputs whose shape has a named dimension), not the weights.
    let any_named = op
        .inputs
        .iter()
        .any(|i| !i.decl.shape.named_dims().is_empty());
    let mut out = HashMap::new();
    for i in &op.inputs {
        let dims = &shapes[&i.name];
        let init = match shape.stress {
            Some(s)
                if i.decl.dtype.is_float()
                    && (!any_named || !i.decl.shape.named_dims().is_empty()) =>
            {
                s
            }
            _ => i.init,
        };
        let mut rng = input_rng(seed, &i.name);
        out.insert(i.name.clone(), init.sample(i.decl.dtype, dims, &mut rng));
    }
    Ok(out)
}

/// How many times the reference's own sensitivity is allowed on top of the tolerance on
/// stress shapes (see [`conditioning_slack`]).
pub const SLACK_FACTOR: f64 = 16.0;

/// Perturbation trials of [`conditioning_slack`].
pub const SLACK_TRIALS: u64 = 6;

/// The conditioning of the reference on `inputs`: per output element, [`SLACK_FACTOR`]
/// times the largest change of the f64 reference when every float input element is
/// perturbed by a random relative amount of 2⁻²⁵ to 2⁻²⁴ with a random sign (f32's unit
/// roundoff; [`SLACK_TRIALS`] trials). Magnitudes are kept away from zero and there are
/// several trials because an element's change is a signed sum over the inputs it depends
/// on: with two trials of uniform(−1, 1) factors, the terms of an element whose output
/// cancels (LayerNorm's `norm·gamma + beta` at offset 1000) could nearly cancel in both
/// trials, and an honest f32 kernel's error there was judged a wrong result.
///
/// An honest kernel that computes in f32 has errors of this order on ill-conditioned inputs
/// (LayerNorm at mean 1000, std 1 loses three digits to the mean subtraction, FC-20); the
/// bugs stress shapes are for — f16 intermediates, overflow, one-pass variance — are far
/// larger, so the slack lets the former pass without hiding the latter. An element whose
/// reference turns non-finite under perturbation gets an infinite slack (any finite output
/// passes; NaN/Inf must still match).
///
/// # Errors
/// The reference's error message.
pub fn conditioning_slack(
    op: &OpSpec,
    inputs: &HashMap<String, ArrayD<f64>>,
    seed: u64,
) -> Result<HashMap<String, ArrayD<f64>>, String> {
    let base = op.evaluate(inputs).map_err(|e| e.to_string())?;
    let mut slack: HashMap<String, ArrayD<f64>> = base
        .iter()
        .map(|(k, v)| (k.clone(), ArrayD::zeros(v.raw_dim())))
        .collect();
    let eps = (2.0f64).powi(-24);
    for trial in 0..SLACK_TRIALS {
        let mut perturbed = inputs.clone();
        for i in &op.inputs {
            if !i.decl.dtype.is_float() {
                continue;
            }
            let a = perturbed.get_mut(&i.name).expect("every input generated");
            let mut rng = input_rng(seed ^ 0x51AC_0000 ^ trial, &i.name);
            let u = Init::Uniform { lo: -1.0, hi: 1.0 }.sample(Dtype::F32, a.shape(), &mut rng);
            // r in ±[0.5, 1]: the sign and the magnitude both from one uniform draw.
            a.zip_mut_with(&u, |x, &r| {
                *x *= 1.0 + eps * (0.5 + 0.5 * r.abs()).copysign(r)
            });
        }
        let p = op.evaluate(&perturbed).map_err(|e| e.to_string())?;
        for (name, s) in slack.iter_mut() {
            let (b, q) = (&base[name], &p[name]);
            ndarray::Zip::from(s).and(b).and(q).for_each(|s, &b, &q| {
                let d = if b.is_finite() && !q.is_finite() {
                    f64::INFINITY
                } else if b.is_finite() {
                    (q - b).abs() * SLACK_FACTOR
                } else {
                    0.0
                };
                *s = s.max(d);
            });
        }
    }
    Ok(slack)
}

/// Raw little-endian bytes of `values` as `dtype` (values are already representable).
pub fn encode(values: &ArrayD<f64>, dtype: Dtype) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * dtype.size_bytes());
    for &v in values.iter() {
        match dtype {
            Dtype::F16 => out.extend(half::f16::from_f64(v).to_bits().to_le_bytes()),
            Dtype::Bf16 => out.extend(half::bf16::from_f64(v).to_bits().to_le_bytes()),
            Dtype::F32 => out.extend((v as f32).to_le_bytes()),
            Dtype::I32 => out.extend((v as i32).to_le_bytes()),
            Dtype::I8 => out.push(v as i8 as u8),
            Dtype::U8 => out.push(v as u8),
            Dtype::Bool => out.push(u8::from(v != 0.0)),
        }
    }
    out
}

/// Values of raw little-endian `bytes` of `dtype` (a trailing partial element is ignored).
pub fn decode(bytes: &[u8], dtype: Dtype) -> Vec<f64> {
    let w = dtype.size_bytes();
    bytes
        .chunks_exact(w)
        .map(|c| match dtype {
            Dtype::F16 => half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64(),
            Dtype::Bf16 => half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64(),
            Dtype::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
            Dtype::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
            Dtype::I8 => c[0] as i8 as f64,
            Dtype::U8 => c[0] as f64,
            // Any non-zero byte reads as true in C++; report it as the byte so that a
            // poison byte never looks like a valid bool.
            Dtype::Bool => c[0] as f64,
        })
        .collect()
}

/// One element of poison for an output of `dtype`, drawn from `seed`: a quiet NaN with a
/// random non-zero payload for floats (no arithmetic produces it), random bits for
/// integers, 0xA5 (neither 0 nor 1) for bool.
pub fn poison(dtype: Dtype, seed: u64) -> Vec<u8> {
    let r = blake3::hash(&seed.to_le_bytes());
    let b = r.as_bytes();
    let r32 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    match dtype {
        Dtype::F32 => (0x7FC0_0000u32 | (r32 & 0x003F_FFFF).max(1))
            .to_le_bytes()
            .to_vec(),
        Dtype::F16 => (0x7E00u16 | ((r32 as u16) & 0x01FF).max(1))
            .to_le_bytes()
            .to_vec(),
        Dtype::Bf16 => (0x7FC0u16 | ((r32 as u16) & 0x003F).max(1))
            .to_le_bytes()
            .to_vec(),
        Dtype::I32 => r32.to_le_bytes().to_vec(),
        Dtype::I8 | Dtype::U8 => vec![b[0]],
        Dtype::Bool => vec![0xA5],
    }
}

/// The unit roundoff of a float dtype (0 for others).
/// One step of `dtype`'s grid just above `min(|a|, |b|)` (the unit in the last place, with
/// the smallest normal exponent as floor: f16 2^-14, bf16/f32 2^-126); 0 for non-float dtypes.
///
/// The golden output is the f64 reference rounded to the output dtype, so an honest kernel
/// that computes in f32 and rounds once can land on the neighbouring grid point whenever the
/// exact result sits near a rounding midpoint. Where `atol + rtol·|golden|` is smaller than
/// one output step (bf16 above |y| ≈ 13, f16 above |y| ≈ 1000), that kernel would fail on
/// luck alone, so [`compare`] accepts a difference of one step as well, never more.
fn one_step(dtype: Dtype, a: f64, b: f64) -> f64 {
    let emin = match dtype {
        Dtype::F16 => -14,
        Dtype::Bf16 | Dtype::F32 => -126,
        _ => return 0.0,
    };
    let m = a.abs().min(b.abs());
    let e = if m > 0.0 {
        (m.log2().floor() as i32).max(emin)
    } else {
        emin
    };
    epsilon(dtype) * (2.0f64).powi(e)
}

fn epsilon(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F16 => (2.0f64).powi(-10),
        Dtype::Bf16 => (2.0f64).powi(-7),
        Dtype::F32 => (2.0f64).powi(-23),
        _ => 0.0,
    }
}

/// Compares one output (raw `bytes` as the kernel left them) with `golden` under `tol`,
/// and returns its metrics and the error diagnostics (`wrong_result`,
/// `nonfinite_mismatch`, `unwritten_output`, `constant_output`, `normwise_error`).
pub fn compare(
    name: &str,
    dtype: Dtype,
    bytes: &[u8],
    golden: &ArrayD<f64>,
    tol: Tolerance,
    poison: &[u8],
    slack: Option<&ArrayD<f64>>,
) -> (OutputMetrics, Vec<Diagnostic>) {
    let out = decode(bytes, dtype);
    let w = dtype.size_bytes();
    let mut m = OutputMetrics {
        name: name.to_string(),
        elements: golden.len() as u64,
        mismatches: 0,
        nonfinite_mismatches: 0,
        unwritten: 0,
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        mere: 0.0,
        norm_rel_err: 0.0,
        atol: tol.atol,
        rtol: tol.rtol,
        max_slack: 0.0,
        first_mismatch: None,
    };
    let mut diags = Vec::new();
    if out.len() != golden.len() {
        diags.push(Diagnostic::error(
            Stage::Run,
            "harness_error",
            format!(
                "output `{name}` has {} elements, expected {}",
                out.len(),
                golden.len()
            ),
        ));
        return (m, diags);
    }
    let shape = golden.shape().to_vec();
    let (mut err2, mut ref2, mut rel_sum, mut finite_n) = (0.0f64, 0.0f64, 0.0f64, 0u64);
    let mut slack2 = 0.0f64;
    let slack_at = |i: usize| {
        slack
            .and_then(|s| s.as_slice_memory_order()?.get(i).copied())
            .unwrap_or(0.0)
    };
    let (mut gmin, mut gmax) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut all_same = true;
    let first_bits = bytes.get(..w);
    for (i, (&o, &g)) in out.iter().zip(golden.iter()).enumerate() {
        let sl = slack_at(i);
        let ok = if dtype == Dtype::Bool {
            (o == 0.0 && g == 0.0) || (o == 1.0 && g != 0.0)
        } else if sl > 0.0 && o.is_finite() && g.is_finite() {
            (o - g).abs() <= (tol.atol + tol.rtol * g.abs()).max(one_step(dtype, o, g)) + sl
        } else {
            tol.accepts(o, g)
                || (o.is_finite() && g.is_finite() && (o - g).abs() <= one_step(dtype, o, g))
        };
        if sl.is_finite() {
            m.max_slack = m.max_slack.max(sl);
            slack2 += sl * sl;
        }
        if first_bits != bytes.get(i * w..(i + 1) * w) {
            all_same = false;
        }
        if g.is_finite() {
            gmin = gmin.min(g);
            gmax = gmax.max(g);
        }
        if o.is_finite() && g.is_finite() {
            let e = (o - g).abs();
            m.max_abs_err = m.max_abs_err.max(e);
            if g != 0.0 {
                m.max_rel_err = m.max_rel_err.max(e / g.abs());
            }
            rel_sum += e / (g.abs() + 1e-7);
            finite_n += 1;
            err2 += e * e;
            ref2 += g * g;
        }
        if !ok {
            m.mismatches += 1;
            if !(o.is_finite() && g.is_finite()) {
                m.nonfinite_mismatches += 1;
            }
            if bytes.get(i * w..(i + 1) * w) == Some(poison) {
                m.unwritten += 1;
            }
            if m.first_mismatch.is_none() {
                m.first_mismatch = Some(Mismatch {
                    index: unravel(i, &shape),
                    got: o,
                    want: g,
                });
            }
        }
    }
    if finite_n > 0 {
        m.mere = rel_sum / finite_n as f64;
    }
    if ref2 > 0.0 {
        m.norm_rel_err = (err2 / ref2).sqrt();
    }
    let fmt_at = |m: &OutputMetrics| {
        m.first_mismatch
            .as_ref()
            .map(|x| format!("; first at {:?}: got {}, want {}", x.index, x.got, x.want))
            .unwrap_or_default()
    };
    if m.unwritten > 0 {
        diags.push(
            Diagnostic::error(
                Stage::Verify,
                "unwritten_output",
                format!(
                    "output `{name}`: {} of {} elements were never written (still the poison pattern){}",
                    m.unwritten,
                    m.elements,
                    fmt_at(&m)
                ),
            )
            .number("unwritten", m.unwritten as f64)
            .number("elements", m.elements as f64),
        );
    }
    if m.nonfinite_mismatches > m.unwritten {
        diags.push(
            Diagnostic::error(
                Stage::Verify,
                "nonfinite_mismatch",
                format!(
                    "output `{name}`: {} elements have NaN/Inf where the reference does not, or the reverse",
                    m.nonfinite_mismatches - m.unwritten
                ),
            )
            .number("count", (m.nonfinite_mismatches - m.unwritten) as f64),
        );
    }
    let finite_mismatches = m.mismatches - m.nonfinite_mismatches.max(m.unwritten);
    if finite_mismatches > 0 {
        diags.push(
            Diagnostic::error(
                Stage::Verify,
                "wrong_result",
                format!(
                    "output `{name}`: {} of {} elements outside atol {:e} + rtol {:e}·|golden| (max abs err {:.3e}, max rel err {:.3e}){}",
                    finite_mismatches,
                    m.elements,
                    tol.atol,
                    tol.rtol,
                    m.max_abs_err,
                    m.max_rel_err,
                    fmt_at(&m)
                ),
            )
            .number("mismatches", finite_mismatches as f64)
            .number("elements", m.elements as f64)
            .number("max_abs_err", m.max_abs_err)
            .number("max_rel_err", m.max_rel_err),
        );
    }
    // Magnitude-aware checks (these catch what per-element atol hides).
    let spread = gmax - gmin;
    let golden_varies =
        gmin.is_finite() && spread > tol.atol + tol.rtol * gmax.abs().max(gmin.abs());
    if m.elements >= 2 && all_same && golden_varies {
        diags.push(
            Diagnostic::error(
                Stage::Verify,
                "constant_output",
                format!(
                    "output `{name}` is one constant value ({}) in every element, but the reference ranges over [{gmin}, {gmax}]",
                    out[0]
                ),
            )
            .number("value", out[0])
            .number("golden_min", gmin)
            .number("golden_max", gmax),
        );
    }
    let norm_limit = (10.0 * tol.rtol).max(8.0 * epsilon(dtype))
        + if ref2 > 0.0 {
            (slack2 / ref2).sqrt()
        } else {
            0.0
        };
    if dtype.is_float() && ref2 > 0.0 && m.norm_rel_err > norm_limit {
        diags.push(
            Diagnostic::error(
                Stage::Verify,
                "normwise_error",
                format!(
                    "output `{name}`: relative error ‖out − golden‖/‖golden‖ = {:.3e} exceeds {norm_limit:.1e}",
                    m.norm_rel_err
                ),
            )
            .number("norm_rel_err", m.norm_rel_err)
            .number("limit", norm_limit),
        );
    }
    (m, diags)
}

/// Row-major flat index → multi-index.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            idx[k] = i % d;
            i /= d;
        }
    }
    idx
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_output_step_is_accepted_and_two_are_not() {
        use super::one_step;
        use crate::spec::Dtype;
        // bf16 near 18: one step is 2^4 · 2^-7 = 0.125, more than atol 1e-2 + rtol 5e-3 · 18.
        assert_eq!(one_step(Dtype::Bf16, 18.0, 18.125), 0.125);
        // Across a binade edge the step is the lower binade's.
        assert_eq!(one_step(Dtype::Bf16, 16.0, 15.9375), 0.0625);
        assert_eq!(one_step(Dtype::F16, 1024.0, 1025.0), 1.0);
        assert_eq!(one_step(Dtype::F16, 0.0, 1e-9), (2.0f64).powi(-24));
        assert_eq!(one_step(Dtype::I32, 5.0, 6.0), 0.0);
    }

    use super::*;
    use crate::spec::Spec;
    use ndarray::IxDyn;

    fn op(manifest_ops: &str) -> OpSpec {
        let m = format!(
            "[package]\nname = \"t\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n{manifest_ops}"
        );
        Spec::from_manifest_str(&m, None)
            .unwrap()
            .unwrap()
            .ops
            .remove(0)
    }

    fn arr(v: &[f64]) -> ArrayD<f64> {
        ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap()
    }

    #[test]
    fn shapes_include_held_out_and_stress() {
        let o = op("[package.metadata.agenticcann.ops.rms]\ninputs = { x = \"f32[rows, 64]\" }\noutputs = { y = \"f32[rows, 64]\" }\nreference = \"y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + 1e-6)\"\nshapes = [{ rows = 4 }, { rows = 300 }]");
        let plan = plan_shapes(
            &o,
            48,
            &ShapeOptions {
                held_out: true,
                stress: true,
                max_elements: 1 << 20,
                ub_bytes: 0,
            },
        );
        let rows: Vec<(usize, String)> = plan
            .iter()
            .map(|p| {
                let label = match &p.origin {
                    ShapeOrigin::Declared => "declared".to_string(),
                    ShapeOrigin::HeldOut { reason } => reason.clone(),
                    ShapeOrigin::Stress { scenario } => scenario.clone(),
                };
                (p.binding["rows"], label)
            })
            .collect();
        assert_eq!(
            rows,
            [
                (4, "declared".into()),
                (300, "declared".into()),
                (1, "one".into()),
                (33, "tail".into()),
                (51, "not_divisible".into()),
                (13, "odd".into()),
                (0, "zero".into()),
                (300, "wide".into()),
                (300, "large".into()),
                (300, "offset".into()),
                (300, "negative".into()),
                (300, "constant".into()),
            ]
        );
        let big = plan_shapes(
            &o,
            48,
            &ShapeOptions {
                held_out: true,
                stress: false,
                max_elements: 1000,
                ub_bytes: 0,
            },
        );
        assert!(big.iter().all(|p| p.binding["rows"] * 128 <= 1000
            || p.origin == ShapeOrigin::Declared
            || p.binding["rows"] == 0));
    }

    #[test]
    fn regime_shapes_reach_several_tiles_per_core_and_rows_beyond_ub() {
        let o = op("[package.metadata.agenticcann.ops.rms]\ninputs = { x = \"f32[rows, cols]\", gamma = \"f32[cols]\" }\noutputs = { y = \"f32[rows, cols]\" }\nreference = \"y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + 1e-6) * gamma\"\nshapes = [{ rows = 4, cols = 64 }, { rows = 300, cols = 64 }]");
        let opts = ShapeOptions {
            held_out: true,
            stress: false,
            max_elements: 1 << 22,
            ub_bytes: 196_608,
        };
        let plan = plan_shapes(&o, 48, &opts);
        let of = |reason: &str| {
            let found: Vec<_> = plan
                .iter()
                .filter(|p| {
                    p.origin
                        == ShapeOrigin::HeldOut {
                            reason: reason.into(),
                        }
                })
                .map(|p| (p.binding["rows"], p.binding["cols"]))
                .collect();
            assert!(found.len() <= 1, "{reason}: {found:?}");
            found.first().copied()
        };
        // rows (the outermost axis, split over cores), from the largest declared shape: one
        // row of x and y is 512 bytes, so 384 rows fill a core's UB. Twice that per core plus
        // one exceeds the 2^22-element cap (2 tensors × 64 columns), so k is the largest that
        // fits: rows = 48·k + 1 ≤ 2^22 / 128, and more per core than any declared shape.
        let (many, cols) = of("many_per_core").expect("many_per_core planned");
        assert_eq!(cols, 64);
        assert_eq!((many - 1) % 48, 0);
        let k = (many - 1) / 48;
        assert!(k > 300usize.div_ceil(48));
        assert!(
            many * 128 <= 1 << 22 && (many + 48) * 128 > 1 << 22,
            "{many}"
        );
        // cols (the innermost axis of x and y; gamma[cols] does not make it an outer one),
        // from the smallest declared shape: 4 rows × 2 tensors × 4 bytes + 4 bytes of gamma =
        // 36 bytes per column, 5461 columns fill UB; one more.
        assert_eq!(of("beyond_ub"), Some((4, 5462)));
        // Without the UB size, no regime shapes (the plan other callers had).
        let plain = plan_shapes(
            &o,
            48,
            &ShapeOptions {
                ub_bytes: 0,
                ..opts
            },
        );
        assert_eq!(plain.len() + 2, plan.len());
        // A small cap leaves them out rather than exceeding it.
        let capped = plan_shapes(
            &o,
            48,
            &ShapeOptions {
                max_elements: 20_000,
                ..opts
            },
        );
        assert!(capped.iter().all(|p| !p.origin.is_regime()));
    }

    #[test]
    fn stress_inputs_follow_the_scenario() {
        let o = op("[package.metadata.agenticcann.ops.e]\ninputs = { x = \"f16[n]\", k = \"i32[n]\" }\noutputs = { y = \"f16[n]\" }\nreference = \"y = x * 2\"\nshapes = [{ n = 1000 }]");
        let plan = plan_shapes(
            &o,
            48,
            &ShapeOptions {
                held_out: false,
                stress: true,
                max_elements: 1 << 20,
                ub_bytes: 0,
            },
        );
        let large = plan
            .iter()
            .find(|p| {
                p.origin
                    == ShapeOrigin::Stress {
                        scenario: "large".into(),
                    }
            })
            .unwrap();
        let ins = shape_inputs(&o, large, 5).unwrap();
        assert!(ins["x"].iter().any(|v| v.abs() > 200.0));
        assert!(
            ins["k"].iter().all(|v| v.abs() <= 8.0),
            "ints keep their own init"
        );
    }

    #[test]
    fn encode_decode_round_trip() {
        for d in Dtype::ALL {
            let v = arr(&[0.0, 1.0, -2.0, 3.0]).mapv(|x| crate::spec::cast_to_dtype(x, d));
            assert_eq!(
                decode(&encode(&v, d), d),
                v.iter().copied().collect::<Vec<_>>(),
                "{d}"
            );
            let p = poison(d, 9);
            assert_eq!(p.len(), d.size_bytes());
        }
        assert!(decode(&poison(Dtype::F32, 1), Dtype::F32)[0].is_nan());
        assert!(decode(&poison(Dtype::F16, 1), Dtype::F16)[0].is_nan());
        assert_ne!(poison(Dtype::F32, 1), poison(Dtype::F32, 2));
    }

    #[test]
    fn bf16_outputs_one_grid_step_off_pass_and_two_steps_fail() {
        let tol = Tolerance {
            atol: 1e-2,
            rtol: 5e-3,
        };
        let p = poison(Dtype::Bf16, 4);
        let g = arr(&[-18.0, 1.0, 2.0, -3.0]);
        let one = arr(&[-18.125, 1.0, 2.0, -3.0]);
        let (m, d) = compare(
            "y",
            Dtype::Bf16,
            &encode(&one, Dtype::Bf16),
            &g,
            tol,
            &p,
            None,
        );
        assert_eq!(m.mismatches, 0, "{d:?}");
        let two = arr(&[-18.25, 1.0, 2.0, -3.0]);
        let (m, _) = compare(
            "y",
            Dtype::Bf16,
            &encode(&two, Dtype::Bf16),
            &g,
            tol,
            &p,
            None,
        );
        assert_eq!(m.mismatches, 1);
    }

    fn kinds(d: &[Diagnostic]) -> Vec<&str> {
        d.iter().map(|x| x.kind.as_str()).collect()
    }

    #[test]
    fn comparison_catches_zeros_constants_nans_and_unwritten() {
        let tol = Tolerance {
            atol: 1e-3,
            rtol: 1e-3,
        };
        let p = poison(Dtype::F32, 3);
        let g = arr(&[1e-4, 2e-4, 3e-4, 4e-4]);
        // Exact: passes.
        let (m, d) = compare("y", Dtype::F32, &encode(&g, Dtype::F32), &g, tol, &p, None);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(m.mismatches, 0);
        // All zeros: every element is within atol, but the normwise check fails it, and
        // the constant check too.
        let z = arr(&[0.0; 4]);
        let (m, d) = compare("y", Dtype::F32, &encode(&z, Dtype::F32), &g, tol, &p, None);
        assert_eq!(m.mismatches, 0);
        assert_eq!(kinds(&d), ["normwise_error"]);
        let g2 = arr(&[1.0, 2.0, 3.0, 4.0]);
        let c = arr(&[2.5; 4]);
        let (_, d) = compare("y", Dtype::F32, &encode(&c, Dtype::F32), &g2, tol, &p, None);
        assert_eq!(
            kinds(&d),
            ["wrong_result", "constant_output", "normwise_error"]
        );
        // NaN in one lane.
        let n = arr(&[1.0, f64::NAN, 3.0, 4.0]);
        let (m, d) = compare("y", Dtype::F32, &encode(&n, Dtype::F32), &g2, tol, &p, None);
        assert_eq!((m.mismatches, m.nonfinite_mismatches), (1, 1));
        assert_eq!(kinds(&d), ["nonfinite_mismatch"]);
        assert_eq!(m.first_mismatch.as_ref().unwrap().index, vec![1]);
        // One element never written.
        let mut bytes = encode(&g2, Dtype::F32);
        bytes[8..12].copy_from_slice(&p);
        let (m, d) = compare("y", Dtype::F32, &bytes, &g2, tol, &p, None);
        assert_eq!(m.unwritten, 1);
        assert_eq!(kinds(&d), ["unwritten_output"]);
        // NaN where the golden is NaN is fine.
        let gn = arr(&[1.0, f64::NAN]);
        let (_, d) = compare(
            "y",
            Dtype::F32,
            &encode(&gn, Dtype::F32),
            &gn,
            tol,
            &p,
            None,
        );
        assert!(d.is_empty());
    }

    #[test]
    fn slack_follows_the_conditioning() {
        // LayerNorm-like centring: at mean 1000 the output is sensitive to input rounding,
        // at mean 0 it is not.
        let o = op("[package.metadata.agenticcann.ops.c]\ninputs = { x = \"f32[n]\" }\noutputs = { y = \"f32[n]\" }\nreference = \"y = x - mean(x, axis=-1, keepdims=true)\"\nshapes = [{ n = 64 }]");
        let plan = |init| PlannedShape {
            binding: [("n".to_string(), 64usize)].into(),
            origin: ShapeOrigin::Stress {
                scenario: "t".into(),
            },
            stress: Some(init),
        };
        let far = shape_inputs(
            &o,
            &plan(Init::Normal {
                mu: 1000.0,
                sigma: 1.0,
            }),
            1,
        )
        .unwrap();
        let near = shape_inputs(
            &o,
            &plan(Init::Normal {
                mu: 0.0,
                sigma: 1.0,
            }),
            1,
        )
        .unwrap();
        let s_far = conditioning_slack(&o, &far, 1).unwrap()["y"]
            .iter()
            .cloned()
            .fold(0.0, f64::max);
        let s_near = conditioning_slack(&o, &near, 1).unwrap()["y"]
            .iter()
            .cloned()
            .fold(0.0, f64::max);
        assert!(s_far > 1e-6 && s_far < 1e-2, "{s_far}");
        assert!(s_near < s_far / 100.0, "{s_near} vs {s_far}");
        // The slack widens the per-element check.
        let g = arr(&[1.0, 2.0]);
        let off = arr(&[1.01, 2.0]);
        let tol = Tolerance {
            atol: 1e-4,
            rtol: 1e-4,
        };
        let p = poison(Dtype::F32, 0);
        let (m, _) = compare(
            "y",
            Dtype::F32,
            &encode(&off, Dtype::F32),
            &g,
            tol,
            &p,
            None,
        );
        assert_eq!(m.mismatches, 1);
        let (m, _) = compare(
            "y",
            Dtype::F32,
            &encode(&off, Dtype::F32),
            &g,
            tol,
            &p,
            Some(&arr(&[0.02, 0.0])),
        );
        assert_eq!((m.mismatches, m.max_slack), (0, 0.02));
    }

    #[test]
    fn bools_and_ints_are_exact() {
        let p = poison(Dtype::Bool, 0);
        let g = arr(&[0.0, 1.0, 1.0]);
        let (_, d) = compare(
            "m",
            Dtype::Bool,
            &[0, 1, 1],
            &g,
            Tolerance {
                atol: 0.0,
                rtol: 0.0,
            },
            &p,
            None,
        );
        assert!(d.is_empty());
        let (m, _) = compare(
            "m",
            Dtype::Bool,
            &[0, 1, 0xA5],
            &g,
            Tolerance {
                atol: 0.0,
                rtol: 0.0,
            },
            &p,
            None,
        );
        assert_eq!((m.mismatches, m.unwritten), (1, 1));
    }
}
