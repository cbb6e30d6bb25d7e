//! The vector operations of the encoder, behind one trait.
//!
//! Every non-matmul computation of the sentence-transformers pipeline is a method of
//! [`VectorOps`]. Each method corresponds one-to-one to an operator declared in this
//! crate's `Cargo.toml` (`[package.metadata.agenticcann.ops.<op>_<dtype>]`): same inputs in
//! the same order, then the outputs, then the named dimensions in order of first appearance
//! — the calling convention of the generated `ops::<op>` wrappers (issue 5). [`Op`] is the
//! catalogue; a test checks it against the manifest so the two cannot drift.
//!
//! Buffers are row-major host slices whose lengths are fixed by the named dimensions:
//! `rows` = tokens in the padded batch (`batch * seq`), `hidden` = model width (384 for
//! all-MiniLM-L6-v2), `cols` = width of a bias-carrying matmul output (`3 * hidden` for the
//! fused QKV projection, `intermediate` = 1536 for the FFN), `heads` = attention heads,
//! `seq` = padded sequence length, `batch` = sentences.
//!
//! Implementations:
//! - [`host::HostReference`]: plain f32 loops. It is the *reference* the kernels are tested
//!   against, not the production path; see [`VectorBackend`] for how the main command
//!   chooses.
//! - `kernels::KernelOps` (feature `kernels`): upload, launch the generated fused kernel,
//!   download; `kernels::eager::EagerOps`: the eager-framework baseline on primitive kernels.

pub mod cost;
pub mod host;
pub mod profile;

use std::fmt;

/// Epsilon of every LayerNorm in the model (`layer_norm_eps` in BERT's `config.json`), baked
/// into the `embed_layer_norm` and `bias_residual_layer_norm` kernels as the attr `eps`.
pub const LAYER_NORM_EPS: f64 = 1e-12;

/// Per-head width the attention kernels are declared for: 384 / 12 for all-MiniLM-L6-v2.
pub const HEAD_DIM: usize = 32;

/// Attention score scale `1 / sqrt(HEAD_DIM)`, the `scale` attr of `attention_softmax`.
pub const ATTENTION_SCALE: f64 = 0.17677669529663687;

/// Additive mask value for padded key positions (BERT's classic `-10000`; exactly
/// representable in f16, and `exp(-10000)` is 0 in f32 and f64, so padded keys get weight 0).
pub const MASK_NEG: f64 = -10000.0;

/// Floor of the token count in masked mean pooling (sentence-transformers clamps with 1e-9).
pub const POOL_MIN_COUNT: f64 = 1e-9;

/// Floor of the L2 norm in `l2_normalize` (`torch.nn.functional.normalize`'s default eps).
pub const L2_EPS: f64 = 1e-12;

/// Element types the kernels are declared for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    F32,
    F16,
}

impl Dtype {
    /// The dtype's name in op specs and op names (`f32`, `f16`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kernel element type: `f32` or `half::f16`. Host-side math converts through f32.
pub trait Element:
    Copy + Default + Send + Sync + fmt::Debug + agenticcann::DeviceRepr + 'static
{
    const DTYPE: Dtype;
    fn from_f32(v: f32) -> Self;
    fn to_f32(self) -> f32;
}

impl Element for f32 {
    const DTYPE: Dtype = Dtype::F32;
    fn from_f32(v: f32) -> Self {
        v
    }
    fn to_f32(self) -> f32 {
        self
    }
}

impl Element for half::f16 {
    const DTYPE: Dtype = Dtype::F16;
    fn from_f32(v: f32) -> Self {
        half::f16::from_f32(v)
    }
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
}

/// Converts a slice of f32 to the element type (round to nearest even for f16).
pub fn to_elements<T: Element>(v: &[f32]) -> Vec<T> {
    v.iter().map(|&x| T::from_f32(x)).collect()
}

/// The operators the crate declares, without dtype suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    EmbedLayerNorm,
    BiasAdd,
    AttentionSoftmax,
    BiasGelu,
    BiasResidualLayerNorm,
    MaskedMeanPool,
    L2Normalize,
}

/// One tensor argument of an op: name and shape template (named or integer dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: &'static str,
    pub shape: &'static [&'static str],
}

macro_rules! arg {
    ($name:literal, $shape:expr) => {
        Arg {
            name: $name,
            shape: $shape,
        }
    };
}

impl Op {
    /// Every op, in pipeline order.
    pub const ALL: [Op; 7] = [
        Op::EmbedLayerNorm,
        Op::BiasAdd,
        Op::AttentionSoftmax,
        Op::BiasGelu,
        Op::BiasResidualLayerNorm,
        Op::MaskedMeanPool,
        Op::L2Normalize,
    ];

    /// Base name; the declared op is `<base>_<dtype>`, e.g. `bias_gelu_f16`.
    pub fn base_name(self) -> &'static str {
        match self {
            Op::EmbedLayerNorm => "embed_layer_norm",
            Op::BiasAdd => "bias_add",
            Op::AttentionSoftmax => "attention_softmax",
            Op::BiasGelu => "bias_gelu",
            Op::BiasResidualLayerNorm => "bias_residual_layer_norm",
            Op::MaskedMeanPool => "masked_mean_pool",
            Op::L2Normalize => "l2_normalize",
        }
    }

    /// Name of the declared op for a dtype, e.g. `layer_norm_f32`.
    pub fn spec_name(self, dtype: Dtype) -> String {
        format!("{}_{}", self.base_name(), dtype.name())
    }

    /// Inputs in calling order, with their shape templates (as declared in `Cargo.toml`).
    pub fn inputs(self) -> &'static [Arg] {
        const RH: &[&str] = &["rows", "hidden"];
        const BSH: &[&str] = &["batch", "seq", "hidden"];
        const H: &[&str] = &["hidden"];
        match self {
            Op::EmbedLayerNorm => &[
                arg!("word", BSH),
                arg!("pos", &["seq", "hidden"]),
                arg!("token_type", BSH),
                arg!("gamma", H),
                arg!("beta", H),
            ],
            Op::BiasAdd | Op::BiasGelu => &[arg!("x", &["rows", "cols"]), arg!("b", &["cols"])],
            Op::AttentionSoftmax => &[
                arg!("scores", &["batch", "heads", "seq", "seq"]),
                arg!("mask", &["batch", "1", "1", "seq"]),
            ],
            Op::BiasResidualLayerNorm => &[
                arg!("x", RH),
                arg!("b", H),
                arg!("residual", RH),
                arg!("gamma", H),
                arg!("beta", H),
            ],
            Op::MaskedMeanPool => &[arg!("x", BSH), arg!("mask", &["batch", "seq", "1"])],
            Op::L2Normalize => &[arg!("x", RH)],
        }
    }

    /// Outputs in calling order, with their shape templates.
    pub fn outputs(self) -> &'static [Arg] {
        match self {
            Op::EmbedLayerNorm => &[arg!("y", &["batch", "seq", "hidden"])],
            Op::BiasAdd | Op::BiasGelu => &[arg!("y", &["rows", "cols"])],
            Op::AttentionSoftmax => &[arg!("probs", &["batch", "heads", "seq", "seq"])],
            Op::BiasResidualLayerNorm | Op::L2Normalize => &[arg!("y", &["rows", "hidden"])],
            Op::MaskedMeanPool => &[arg!("y", &["batch", "hidden"])],
        }
    }

    /// Named dimensions in order of first appearance over inputs then outputs: the trailing
    /// `usize` arguments of the op's method and of the generated wrapper.
    pub fn dims(self) -> Vec<&'static str> {
        let mut dims: Vec<&'static str> = Vec::new();
        for a in self.inputs().iter().chain(self.outputs()) {
            for &d in a.shape {
                if d.parse::<usize>().is_err() && !dims.contains(&d) {
                    dims.push(d);
                }
            }
        }
        dims
    }

    /// Attrs baked into the kernel (name, value), matching the constants of this module.
    pub fn attrs(self) -> &'static [(&'static str, f64)] {
        match self {
            Op::EmbedLayerNorm | Op::BiasResidualLayerNorm => &[("eps", LAYER_NORM_EPS)],
            Op::AttentionSoftmax => &[("scale", ATTENTION_SCALE)],
            Op::MaskedMeanPool => &[("min_count", POOL_MIN_COUNT)],
            Op::L2Normalize => &[("eps", L2_EPS)],
            Op::BiasAdd | Op::BiasGelu => &[],
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base_name())
    }
}

/// An op call that could not run: wrong buffer length, or the backend failed.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    #[error("{op}_{dtype}: argument `{arg}` has {actual} elements, expected {expected} ({shape})")]
    Length {
        op: Op,
        dtype: Dtype,
        arg: &'static str,
        expected: usize,
        actual: usize,
        shape: String,
    },
    #[error("{op}_{dtype}: {message}")]
    Backend {
        op: Op,
        dtype: Dtype,
        message: String,
    },
}

/// The vector operations of the BERT encoder and the sentence-transformers head.
///
/// All buffers are row-major; outputs never alias inputs. The reference strings are those
/// declared in `Cargo.toml` (evaluated in f64, cast to `T`).
pub trait VectorOps<T: Element> {
    /// Short description of where the ops run, for logs (`host reference (f32 loops)`).
    fn describe(&self) -> String;

    /// `e = word + pos + token_type; y = LayerNorm(e) * gamma + beta` over `hidden`.
    /// `word`, `token_type`: `[batch, seq, hidden]` (rows gathered by the host), `pos`:
    /// `[seq, hidden]` (broadcast over the batch), `gamma`, `beta`: `[hidden]`.
    #[allow(clippy::too_many_arguments)]
    fn embed_layer_norm(
        &mut self,
        word: &[T],
        pos: &[T],
        token_type: &[T],
        gamma: &[T],
        beta: &[T],
        y: &mut [T],
        batch: usize,
        seq: usize,
        hidden: usize,
    ) -> Result<(), OpError>;

    /// `y = x + b`; `x`, `y`: `[rows, cols]`, `b`: `[cols]`.
    fn bias_add(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError>;

    /// `probs = softmax(scores * scale + mask)` over the last axis. `scores`, `probs`:
    /// `[batch, heads, seq, seq]`; `mask`: `[batch, 1, 1, seq]` additive (0 or [`MASK_NEG`]).
    fn attention_softmax(
        &mut self,
        scores: &[T],
        mask: &[T],
        probs: &mut [T],
        batch: usize,
        heads: usize,
        seq: usize,
    ) -> Result<(), OpError>;

    /// `h = x + b; y = 0.5 * h * (1 + erf(h / sqrt(2)))`; `x`, `y`: `[rows, cols]`.
    fn bias_gelu(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError>;

    /// `h = x + b + residual; y = LayerNorm(h) * gamma + beta`; `[rows, hidden]`.
    #[allow(clippy::too_many_arguments)]
    fn bias_residual_layer_norm(
        &mut self,
        x: &[T],
        b: &[T],
        residual: &[T],
        gamma: &[T],
        beta: &[T],
        y: &mut [T],
        rows: usize,
        hidden: usize,
    ) -> Result<(), OpError>;

    /// `y = sum(x * mask, seq) / max(sum(mask, seq), 1e-9)`; `x`: `[batch, seq, hidden]`,
    /// `mask`: `[batch, seq, 1]` (1 for tokens, 0 for padding), `y`: `[batch, hidden]`.
    fn masked_mean_pool(
        &mut self,
        x: &[T],
        mask: &[T],
        y: &mut [T],
        batch: usize,
        seq: usize,
        hidden: usize,
    ) -> Result<(), OpError>;

    /// `y = x / max(||x||_2, 1e-12)` per row; `[rows, hidden]`.
    fn l2_normalize(
        &mut self,
        x: &[T],
        y: &mut [T],
        rows: usize,
        hidden: usize,
    ) -> Result<(), OpError>;
}

/// Which implementation of [`VectorOps`] a run uses. The main command asks
/// [`VectorBackend::for_main_command`]; nothing picks the host reference implicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorBackend {
    /// Generated kernels through the `agenticcann` runtime (sim or NPU).
    Kernels,
    /// [`host::HostReference`]: the test reference, used by the main command only while
    /// kernels are not integrated, and then announced on stderr.
    HostReference,
}

/// Why the main command cannot use kernels; printed on stderr when it runs the host
/// reference instead.
pub const KERNELS_UNAVAILABLE: &str =
    "vector ops on host reference: this binary was built without the `kernels` feature";

impl VectorBackend {
    /// Whether this build has kernel-backed ops (feature `kernels`: build.rs built the
    /// declared ops' kernels and generated their wrappers); the main command then runs on
    /// kernels.
    pub const KERNELS_INTEGRATED: bool = cfg!(feature = "kernels");

    /// The backend the main command uses: kernels when integrated, otherwise the host
    /// reference together with the notice the caller must print.
    pub fn for_main_command() -> (VectorBackend, Option<&'static str>) {
        if Self::KERNELS_INTEGRATED {
            (VectorBackend::Kernels, None)
        } else {
            (VectorBackend::HostReference, Some(KERNELS_UNAVAILABLE))
        }
    }
}

/// Checks that a buffer holds exactly the elements its shape binds; used by host-side
/// implementations (the generated wrappers do the same check on device buffers).
pub(crate) fn check_len(
    op: Op,
    dtype: Dtype,
    arg: &'static str,
    actual: usize,
    dims: &[(&str, usize)],
) -> Result<(), OpError> {
    let expected: usize = dims.iter().map(|d| d.1).product();
    if actual == expected {
        return Ok(());
    }
    let shape = dims
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" x ");
    Err(OpError::Length {
        op,
        dtype,
        arg,
        expected,
        actual,
        shape,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_follow_first_appearance() {
        assert_eq!(
            Op::EmbedLayerNorm.dims(),
            vec!["batch", "seq", "hidden"],
            "word [batch, seq, hidden] comes first"
        );
        assert_eq!(Op::AttentionSoftmax.dims(), vec!["batch", "heads", "seq"]);
        assert_eq!(Op::BiasAdd.dims(), vec!["rows", "cols"]);
        assert_eq!(Op::L2Normalize.dims(), vec!["rows", "hidden"]);
    }

    #[test]
    fn scale_matches_head_dim() {
        assert_eq!(ATTENTION_SCALE, 1.0 / (HEAD_DIM as f64).sqrt());
    }

    #[test]
    fn length_error_names_op_arg_and_shape() {
        let e = check_len(Op::BiasAdd, Dtype::F16, "b", 3, &[("cols", 4)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bias_add_f16: argument `b` has 3 elements, expected 4 (cols=4)"
        );
    }
}
