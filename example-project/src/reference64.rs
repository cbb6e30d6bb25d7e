//! An independent f64 implementation of the whole pipeline, for tests.
//!
//! It shares nothing with [`crate::model`] but the weights: each sentence runs alone and
//! unpadded (so attention needs no mask), with naive loops in f64 and the textbook
//! formulas (`torch.nn.functional.gelu`, `LayerNorm` with biased variance, softmax with max
//! subtraction, mean over real tokens, `F.normalize`). It is slow — O(tokens · weights) —
//! and meant for small models.

use ndarray::Array2;

use crate::weights::BertWeights;

fn linear(x: &[Vec<f64>], w: &Array2<f32>, b: &[f32]) -> Vec<Vec<f64>> {
    x.iter()
        .map(|row| {
            (0..w.nrows())
                .map(|o| {
                    let wr = w.row(o);
                    b[o] as f64
                        + row
                            .iter()
                            .zip(wr.iter())
                            .map(|(a, &c)| a * c as f64)
                            .sum::<f64>()
                })
                .collect()
        })
        .collect()
}

fn layer_norm(h: &mut [f64], gamma: &[f32], beta: &[f32], eps: f64) {
    let n = h.len() as f64;
    let mean = h.iter().sum::<f64>() / n;
    let var = h.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let rstd = 1.0 / (var + eps).sqrt();
    for (i, v) in h.iter_mut().enumerate() {
        *v = (*v - mean) * rstd * gamma[i] as f64 + beta[i] as f64;
    }
}

fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// Embeds one unpadded sentence (`ids`, token types all 0) in f64; returns the
/// L2-normalized mean-pooled vector.
pub fn embed_sentence(w: &BertWeights, ids: &[u32]) -> Vec<f64> {
    embed_sentence_with_types(w, ids, &vec![0; ids.len()])
}

/// As [`embed_sentence`] with explicit token-type ids.
pub fn embed_sentence_with_types(w: &BertWeights, ids: &[u32], types: &[u32]) -> Vec<f64> {
    let cfg = &w.config;
    let (h, heads, dh) = (cfg.hidden_size, cfg.num_attention_heads, cfg.head_dim());
    let eps = cfg.layer_norm_eps;
    let n = ids.len();
    let mut x: Vec<Vec<f64>> = (0..n)
        .map(|p| {
            let mut e: Vec<f64> = (0..h)
                .map(|i| {
                    w.word_embeddings[[ids[p] as usize, i]] as f64
                        + w.position_embeddings[[p, i]] as f64
                        + w.token_type_embeddings[[types[p] as usize, i]] as f64
                })
                .collect();
            layer_norm(&mut e, &w.emb_ln_gamma, &w.emb_ln_beta, eps);
            e
        })
        .collect();

    for l in &w.layers {
        let qkv = linear(&x, &l.qkv_w, &l.qkv_b);
        let mut ctx = vec![vec![0f64; h]; n];
        let scale = 1.0 / (dh as f64).sqrt();
        for hd in 0..heads {
            for (i, ctx_row) in ctx.iter_mut().enumerate() {
                let s: Vec<f64> = (0..n)
                    .map(|j| {
                        (0..dh)
                            .map(|d| qkv[i][hd * dh + d] * qkv[j][h + hd * dh + d])
                            .sum::<f64>()
                            * scale
                    })
                    .collect();
                let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|v| (v - max).exp()).collect();
                let z: f64 = e.iter().sum();
                for d in 0..dh {
                    ctx_row[hd * dh + d] =
                        (0..n).map(|j| e[j] / z * qkv[j][2 * h + hd * dh + d]).sum();
                }
            }
        }
        let attn = linear(&ctx, &l.attn_out_w, &l.attn_out_b);
        let x1: Vec<Vec<f64>> = attn
            .into_iter()
            .zip(&x)
            .map(|(mut a, r)| {
                a.iter_mut().zip(r).for_each(|(v, r)| *v += r);
                layer_norm(&mut a, &l.attn_ln_gamma, &l.attn_ln_beta, eps);
                a
            })
            .collect();
        let mut up = linear(&x1, &l.ffn_in_w, &l.ffn_in_b);
        up.iter_mut().flatten().for_each(|v| *v = gelu(*v));
        let down = linear(&up, &l.ffn_out_w, &l.ffn_out_b);
        x = down
            .into_iter()
            .zip(&x1)
            .map(|(mut a, r)| {
                a.iter_mut().zip(r).for_each(|(v, r)| *v += r);
                layer_norm(&mut a, &l.out_ln_gamma, &l.out_ln_beta, eps);
                a
            })
            .collect();
    }

    let mut pooled = vec![0f64; h];
    for row in &x {
        pooled.iter_mut().zip(row).for_each(|(p, v)| *p += v);
    }
    pooled.iter_mut().for_each(|p| *p /= n.max(1) as f64);
    let norm = pooled.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
    pooled.iter().map(|v| v / norm).collect()
}
