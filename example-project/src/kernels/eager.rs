//! The eager baseline: each fused op of [`super::KernelOps`] decomposed into the primitive
//! kernels an eager framework launches for it (PyTorch eager running Hugging Face's
//! `BertModel` and sentence-transformers' `Pooling` + `Normalize`), one ATen op per launch,
//! every intermediate written to GM and read back by the next launch.
//!
//! | fused op | eager launches |
//! |---|---|
//! | `embed_layer_norm` | add(word, token_type), add(·, pos broadcast over the batch), layer_norm |
//! | `bias_add` | add(x, bias broadcast over rows) |
//! | `attention_softmax` | scores · scale, add(·, mask broadcast), softmax |
//! | `bias_gelu` | add(x, bias), gelu |
//! | `bias_residual_layer_norm` | add(x, bias), add(·, residual), layer_norm |
//! | `masked_mean_pool` | mul(x, mask), sum over seq, sum of mask over seq, clamp_min, div |
//! | `l2_normalize` | vector_norm, clamp_min, div |
//!
//! The primitives are declared in `Cargo.toml` as `eager_<prim>_<dtype>` and generated
//! like the fused ops. Native `layer_norm`, `softmax` and `gelu` are single kernels, as in
//! PyTorch, so the comparison measures fusion across ATen ops, not against a naïve
//! decomposition of everything.

use agenticcann::DeviceBuffer;

use super::generated::ops;
use super::{by_dtype, out, up, Launcher};
use crate::ops::cost::CostLog;
use crate::ops::{Element, Op, OpError, VectorOps};

/// [`VectorOps`] on the eager primitive kernels (cost baseline; same results up to
/// rounding of the intermediates).
pub struct EagerOps {
    launcher: Launcher,
}

impl EagerOps {
    /// Opens device 0 (the simulator, or an NPU with the CANN backend).
    ///
    /// # Errors
    /// The runtime's error when no device or stream can be created.
    pub fn new() -> Result<Self, agenticcann::Error> {
        Ok(Self {
            launcher: Launcher::new()?,
        })
    }

    /// Per-op (fused op it stands for) launches and simulated time so far.
    pub fn costs(&self) -> &CostLog {
        self.launcher.costs()
    }
}

impl<T: Element> VectorOps<T> for EagerOps {
    fn describe(&self) -> String {
        format!(
            "eager primitive kernels on {} (one ATen-style op per launch)",
            self.launcher.backend_name
        )
    }

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
    ) -> Result<(), OpError> {
        self.launcher
            .run(Op::EmbedLayerNorm, <T as Element>::DTYPE, |s| {
                let n = y.len();
                let (w, p, tt) = (up(s, word)?, up(s, pos)?, up(s, token_type)?);
                let (g, b) = (up(s, gamma)?, up(s, beta)?);
                let mut e1: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_add_f32,
                    ops::eager_add_f16,
                    (s, &w, &tt, &mut e1, n)
                )?;
                let mut e2: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_add_bcast_f32,
                    ops::eager_add_bcast_f16,
                    (s, &e1, &p, &mut e2, batch, seq * hidden)
                )?;
                let mut dy: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_layer_norm_f32,
                    ops::eager_layer_norm_f16,
                    (s, &e2, &g, &b, &mut dy, batch * seq, hidden)
                )?;
                dy.copy_to_slice(s, y)
            })
    }

    fn bias_add(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError> {
        self.launcher.run(Op::BiasAdd, <T as Element>::DTYPE, |s| {
            let (dx, db) = (up(s, x)?, up(s, b)?);
            let mut dy: DeviceBuffer<T> = out(s, y.len())?;
            by_dtype!(
                T,
                ops::eager_add_bcast_f32,
                ops::eager_add_bcast_f16,
                (s, &dx, &db, &mut dy, rows, cols)
            )?;
            dy.copy_to_slice(s, y)
        })
    }

    fn attention_softmax(
        &mut self,
        scores: &[T],
        mask: &[T],
        probs: &mut [T],
        batch: usize,
        heads: usize,
        seq: usize,
    ) -> Result<(), OpError> {
        self.launcher
            .run(Op::AttentionSoftmax, <T as Element>::DTYPE, |s| {
                let n = probs.len();
                let (dx, dm) = (up(s, scores)?, up(s, mask)?);
                let mut scaled: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_scale_f32,
                    ops::eager_scale_f16,
                    (s, &dx, &mut scaled, n)
                )?;
                let mut masked: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_add_mask_f32,
                    ops::eager_add_mask_f16,
                    (s, &scaled, &dm, &mut masked, batch, heads * seq, seq)
                )?;
                let mut dy: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_softmax_f32,
                    ops::eager_softmax_f16,
                    (s, &masked, &mut dy, batch * heads * seq, seq)
                )?;
                dy.copy_to_slice(s, probs)
            })
    }

    fn bias_gelu(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError> {
        self.launcher.run(Op::BiasGelu, <T as Element>::DTYPE, |s| {
            let n = y.len();
            let (dx, db) = (up(s, x)?, up(s, b)?);
            let mut h: DeviceBuffer<T> = out(s, n)?;
            by_dtype!(
                T,
                ops::eager_add_bcast_f32,
                ops::eager_add_bcast_f16,
                (s, &dx, &db, &mut h, rows, cols)
            )?;
            let mut dy: DeviceBuffer<T> = out(s, n)?;
            by_dtype!(
                T,
                ops::eager_gelu_f32,
                ops::eager_gelu_f16,
                (s, &h, &mut dy, n)
            )?;
            dy.copy_to_slice(s, y)
        })
    }

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
    ) -> Result<(), OpError> {
        self.launcher
            .run(Op::BiasResidualLayerNorm, <T as Element>::DTYPE, |s| {
                let n = y.len();
                let (dx, db, dr) = (up(s, x)?, up(s, b)?, up(s, residual)?);
                let (g, be) = (up(s, gamma)?, up(s, beta)?);
                let mut h1: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_add_bcast_f32,
                    ops::eager_add_bcast_f16,
                    (s, &dx, &db, &mut h1, rows, hidden)
                )?;
                let mut h2: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_add_f32,
                    ops::eager_add_f16,
                    (s, &h1, &dr, &mut h2, n)
                )?;
                let mut dy: DeviceBuffer<T> = out(s, n)?;
                by_dtype!(
                    T,
                    ops::eager_layer_norm_f32,
                    ops::eager_layer_norm_f16,
                    (s, &h2, &g, &be, &mut dy, rows, hidden)
                )?;
                dy.copy_to_slice(s, y)
            })
    }

    fn masked_mean_pool(
        &mut self,
        x: &[T],
        mask: &[T],
        y: &mut [T],
        batch: usize,
        seq: usize,
        hidden: usize,
    ) -> Result<(), OpError> {
        self.launcher
            .run(Op::MaskedMeanPool, <T as Element>::DTYPE, |s| {
                let (dx, dm) = (up(s, x)?, up(s, mask)?);
                let mut masked: DeviceBuffer<T> = out(s, x.len())?;
                by_dtype!(
                    T,
                    ops::eager_mul_col_f32,
                    ops::eager_mul_col_f16,
                    (s, &dx, &dm, &mut masked, batch * seq, hidden)
                )?;
                let mut sums: DeviceBuffer<T> = out(s, batch * hidden)?;
                by_dtype!(
                    T,
                    ops::eager_sum_mid_f32,
                    ops::eager_sum_mid_f16,
                    (s, &masked, &mut sums, batch, seq, hidden)
                )?;
                let mut count: DeviceBuffer<T> = out(s, batch)?;
                by_dtype!(
                    T,
                    ops::eager_sum_mid_f32,
                    ops::eager_sum_mid_f16,
                    (s, &dm, &mut count, batch, seq, 1)
                )?;
                let mut clamped: DeviceBuffer<T> = out(s, batch)?;
                by_dtype!(
                    T,
                    ops::eager_clamp_min_count_f32,
                    ops::eager_clamp_min_count_f16,
                    (s, &count, &mut clamped, batch)
                )?;
                let mut dy: DeviceBuffer<T> = out(s, y.len())?;
                by_dtype!(
                    T,
                    ops::eager_div_col_f32,
                    ops::eager_div_col_f16,
                    (s, &sums, &clamped, &mut dy, batch, hidden)
                )?;
                dy.copy_to_slice(s, y)
            })
    }

    fn l2_normalize(
        &mut self,
        x: &[T],
        y: &mut [T],
        rows: usize,
        hidden: usize,
    ) -> Result<(), OpError> {
        self.launcher
            .run(Op::L2Normalize, <T as Element>::DTYPE, |s| {
                let dx = up(s, x)?;
                let mut norm: DeviceBuffer<T> = out(s, rows)?;
                by_dtype!(
                    T,
                    ops::eager_row_norm_f32,
                    ops::eager_row_norm_f16,
                    (s, &dx, &mut norm, rows, hidden)
                )?;
                let mut clamped: DeviceBuffer<T> = out(s, rows)?;
                by_dtype!(
                    T,
                    ops::eager_clamp_min_norm_f32,
                    ops::eager_clamp_min_norm_f16,
                    (s, &norm, &mut clamped, rows)
                )?;
                let mut dy: DeviceBuffer<T> = out(s, y.len())?;
                by_dtype!(
                    T,
                    ops::eager_div_col_f32,
                    ops::eager_div_col_f16,
                    (s, &dx, &clamped, &mut dy, rows, hidden)
                )?;
                dy.copy_to_slice(s, y)
            })
    }
}
