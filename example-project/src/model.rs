//! The BERT encoder with sentence-transformers' head (mean pooling, L2 normalize).
//!
//! Data flow for a padded batch (`rows = batch * seq` tokens, `H = hidden`, `I = intermediate`):
//!
//! ```text
//! host gather word/token-type rows ─► embed_layer_norm ─► x [rows, H]
//! per layer:  x ─► host matmul Wqkv ─► bias_add [rows, 3H] ─► host Q·Kᵀ per (batch, head)
//!             ─► attention_softmax [batch, heads, seq, seq] ─► host P·V ─► host matmul Wo
//!             ─► bias_residual_layer_norm(+x) ─► x1 ─► host matmul Wi ─► bias_gelu [rows, I]
//!             ─► host matmul Wo2 ─► bias_residual_layer_norm(+x1) ─► x
//! head:       x ─► masked_mean_pool [batch, H] ─► l2_normalize ─► embeddings
//! ```
//!
//! Every box that is not "host" is a [`VectorOps`] call; the host only gathers rows, runs
//! matrix products ([`crate::matmul`]) and moves data between the two.

use std::time::{Duration, Instant};

use anyhow::{ensure, Result};
use ndarray::{s, Array2};

use crate::matmul::{from_f32_matrix, linear, matmul_nn, matmul_nt, to_f32_matrix};
use crate::ops::{to_elements, Element, VectorOps, MASK_NEG};
use crate::tokenize::Batch;
use crate::weights::{BertConfig, BertWeights};

/// Where the time of a forward pass went (host wall clock).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Matrix products on the host.
    pub matmul: Duration,
    /// [`VectorOps`] calls.
    pub vector_ops: Duration,
    /// Number of [`VectorOps`] calls (kernel launches once kernels back them).
    pub vector_calls: usize,
    /// The whole forward pass, including row gathers and dtype conversions.
    pub total: Duration,
}

struct LayerVectors<T> {
    qkv_b: Vec<T>,
    attn_out_b: Vec<T>,
    attn_ln_gamma: Vec<T>,
    attn_ln_beta: Vec<T>,
    ffn_in_b: Vec<T>,
    ffn_out_b: Vec<T>,
    out_ln_gamma: Vec<T>,
    out_ln_beta: Vec<T>,
}

/// A BERT encoder whose vector ops run in dtype `T` (`f32` or `half::f16`). Matrices stay
/// f32 on the host; biases and LayerNorm parameters are converted to `T` once.
pub struct Encoder<T: Element> {
    weights: BertWeights,
    emb_ln_gamma: Vec<T>,
    emb_ln_beta: Vec<T>,
    layers: Vec<LayerVectors<T>>,
}

impl<T: Element> Encoder<T> {
    pub fn new(weights: BertWeights) -> Self {
        let layers = weights
            .layers
            .iter()
            .map(|l| LayerVectors {
                qkv_b: to_elements(&l.qkv_b),
                attn_out_b: to_elements(&l.attn_out_b),
                attn_ln_gamma: to_elements(&l.attn_ln_gamma),
                attn_ln_beta: to_elements(&l.attn_ln_beta),
                ffn_in_b: to_elements(&l.ffn_in_b),
                ffn_out_b: to_elements(&l.ffn_out_b),
                out_ln_gamma: to_elements(&l.out_ln_gamma),
                out_ln_beta: to_elements(&l.out_ln_beta),
            })
            .collect();
        Encoder {
            emb_ln_gamma: to_elements(&weights.emb_ln_gamma),
            emb_ln_beta: to_elements(&weights.emb_ln_beta),
            layers,
            weights,
        }
    }

    pub fn config(&self) -> &BertConfig {
        &self.weights.config
    }

    pub fn weights(&self) -> &BertWeights {
        &self.weights
    }

    /// Embeds a padded batch: one L2-normalized `hidden`-vector per sentence (as f32).
    ///
    /// Errors: ids outside the vocabulary or token-type table, a sequence longer than
    /// `max_position_embeddings`, or a failing op (named by the op).
    pub fn embed<O: VectorOps<T>>(
        &self,
        ops: &mut O,
        batch: &Batch,
        timings: &mut Timings,
    ) -> Result<Vec<Vec<f32>>> {
        let start = Instant::now();
        let cfg = &self.weights.config;
        let (nb, seq, h) = (batch.batch, batch.seq, cfg.hidden_size);
        let (heads, dh, inter) = (
            cfg.num_attention_heads,
            cfg.head_dim(),
            cfg.intermediate_size,
        );
        let rows = nb * seq;
        ensure!(
            seq <= cfg.max_position_embeddings,
            "sequence of {seq} tokens exceeds max_position_embeddings {}",
            cfg.max_position_embeddings
        );
        if let Some(&id) = batch
            .input_ids
            .iter()
            .find(|&&i| i as usize >= cfg.vocab_size)
        {
            anyhow::bail!("token id {id} outside the vocabulary of {}", cfg.vocab_size);
        }
        if let Some(&t) = batch
            .token_type_ids
            .iter()
            .find(|&&t| t as usize >= cfg.type_vocab_size)
        {
            anyhow::bail!(
                "token type {t} outside type_vocab_size {}",
                cfg.type_vocab_size
            );
        }

        let time_ops = |timings: &mut Timings, f: &mut dyn FnMut() -> Result<()>| {
            let t = Instant::now();
            let r = f();
            timings.vector_ops += t.elapsed();
            timings.vector_calls += 1;
            r
        };
        let time_mm = |timings: &mut Timings, t: Instant| timings.matmul += t.elapsed();

        // Embeddings: the host gathers table rows (pure indexing, f32 tables rounded to T).
        let gather = |table: &Array2<f32>, ids: &[u32]| -> Vec<T> {
            let mut out = Vec::with_capacity(ids.len() * h);
            for &id in ids {
                out.extend(table.row(id as usize).iter().map(|&v| T::from_f32(v)));
            }
            out
        };
        let word = gather(&self.weights.word_embeddings, &batch.input_ids);
        let token_type = gather(&self.weights.token_type_embeddings, &batch.token_type_ids);
        let pos: Vec<T> = self
            .weights
            .position_embeddings
            .slice(s![..seq, ..])
            .iter()
            .map(|&v| T::from_f32(v))
            .collect();
        let mut x = vec![T::default(); rows * h];
        time_ops(timings, &mut || {
            Ok(ops.embed_layer_norm(
                &word,
                &pos,
                &token_type,
                &self.emb_ln_gamma,
                &self.emb_ln_beta,
                &mut x,
                nb,
                seq,
                h,
            )?)
        })?;

        // Additive attention mask [batch, 1, 1, seq] and pooling mask [batch, seq, 1].
        let attn_mask: Vec<T> = batch
            .attention_mask
            .iter()
            .map(|&m| T::from_f32(if m != 0 { 0.0 } else { MASK_NEG as f32 }))
            .collect();
        let pool_mask: Vec<T> = batch
            .attention_mask
            .iter()
            .map(|&m| T::from_f32(if m != 0 { 1.0 } else { 0.0 }))
            .collect();

        for (lw, lv) in self.weights.layers.iter().zip(&self.layers) {
            // Self-attention.
            let t = Instant::now();
            let qkv_mm = linear(&x, rows, &lw.qkv_w);
            time_mm(timings, t);
            let mut qkv = vec![T::default(); rows * 3 * h];
            time_ops(timings, &mut || {
                Ok(ops.bias_add(&qkv_mm, &lv.qkv_b, &mut qkv, rows, 3 * h)?)
            })?;

            let t = Instant::now();
            let qkv32 = to_f32_matrix(&qkv, rows, 3 * h);
            let mut scores = Array2::<f32>::zeros((nb * heads * seq, seq));
            for b in 0..nb {
                let r = b * seq..(b + 1) * seq;
                for hd in 0..heads {
                    let q = qkv32.slice(s![r.clone(), hd * dh..(hd + 1) * dh]);
                    let k = qkv32.slice(s![r.clone(), h + hd * dh..h + (hd + 1) * dh]);
                    let o = (b * heads + hd) * seq;
                    matmul_nt(&q, &k, &mut scores.slice_mut(s![o..o + seq, ..]));
                }
            }
            let scores: Vec<T> = from_f32_matrix(&scores);
            time_mm(timings, t);

            let mut probs = vec![T::default(); scores.len()];
            time_ops(timings, &mut || {
                Ok(ops.attention_softmax(&scores, &attn_mask, &mut probs, nb, heads, seq)?)
            })?;

            let t = Instant::now();
            let probs32 = to_f32_matrix(&probs, nb * heads * seq, seq);
            let mut ctx = Array2::<f32>::zeros((rows, h));
            for b in 0..nb {
                let r = b * seq..(b + 1) * seq;
                for hd in 0..heads {
                    let o = (b * heads + hd) * seq;
                    let p = probs32.slice(s![o..o + seq, ..]);
                    let v = qkv32.slice(s![r.clone(), 2 * h + hd * dh..2 * h + (hd + 1) * dh]);
                    matmul_nn(
                        &p,
                        &v,
                        &mut ctx.slice_mut(s![r.clone(), hd * dh..(hd + 1) * dh]),
                    );
                }
            }
            let ctx: Vec<T> = from_f32_matrix(&ctx);
            let attn = linear(&ctx, rows, &lw.attn_out_w);
            time_mm(timings, t);

            let mut x1 = vec![T::default(); rows * h];
            time_ops(timings, &mut || {
                Ok(ops.bias_residual_layer_norm(
                    &attn,
                    &lv.attn_out_b,
                    &x,
                    &lv.attn_ln_gamma,
                    &lv.attn_ln_beta,
                    &mut x1,
                    rows,
                    h,
                )?)
            })?;

            // Feed-forward.
            let t = Instant::now();
            let up = linear(&x1, rows, &lw.ffn_in_w);
            time_mm(timings, t);
            let mut act = vec![T::default(); rows * inter];
            time_ops(timings, &mut || {
                Ok(ops.bias_gelu(&up, &lv.ffn_in_b, &mut act, rows, inter)?)
            })?;
            let t = Instant::now();
            let down = linear(&act, rows, &lw.ffn_out_w);
            time_mm(timings, t);
            time_ops(timings, &mut || {
                Ok(ops.bias_residual_layer_norm(
                    &down,
                    &lv.ffn_out_b,
                    &x1,
                    &lv.out_ln_gamma,
                    &lv.out_ln_beta,
                    &mut x,
                    rows,
                    h,
                )?)
            })?;
        }

        let mut pooled = vec![T::default(); nb * h];
        time_ops(timings, &mut || {
            Ok(ops.masked_mean_pool(&x, &pool_mask, &mut pooled, nb, seq, h)?)
        })?;
        let mut out = vec![T::default(); nb * h];
        time_ops(timings, &mut || {
            Ok(ops.l2_normalize(&pooled, &mut out, nb, h)?)
        })?;
        timings.total += start.elapsed();
        Ok(out
            .chunks_exact(h.max(1))
            .map(|r| r.iter().map(|v| v.to_f32()).collect())
            .collect())
    }
}
