//! [`HostReference`]: the vector ops as plain f32 loops on the host.
//!
//! This is the reference the generated kernels are compared with, and the interim backend
//! of the main command until kernels are integrated (announced on stderr, see
//! [`super::VectorBackend`]). Inputs are widened to f32, every reduction accumulates in f32
//! (as the kernels do for f16 inputs), and results are rounded once to `T`.

use super::{
    check_len, Element, Op, OpError, VectorOps, ATTENTION_SCALE, L2_EPS, LAYER_NORM_EPS,
    POOL_MIN_COUNT,
};

/// Host f32 implementation of [`VectorOps`] (stateless).
#[derive(Debug, Default, Clone, Copy)]
pub struct HostReference;

impl HostReference {
    pub fn new() -> Self {
        HostReference
    }
}

/// LayerNorm of one row in f32 (two-pass mean / variance, biased variance as PyTorch).
fn layer_norm_row<T: Element>(h: &[f32], gamma: &[T], beta: &[T], y: &mut [T]) {
    let n = h.len() as f32;
    let mean = h.iter().sum::<f32>() / n;
    let var = h.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    let rstd = 1.0 / (var + LAYER_NORM_EPS as f32).sqrt();
    for i in 0..h.len() {
        y[i] = T::from_f32((h[i] - mean) * rstd * gamma[i].to_f32() + beta[i].to_f32());
    }
}

impl<T: Element> VectorOps<T> for HostReference {
    fn describe(&self) -> String {
        format!(
            "host reference ({} loops, f32 accumulation)",
            <T as Element>::DTYPE
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
        let op = Op::EmbedLayerNorm;
        let d = <T as Element>::DTYPE;
        let bsh = [("batch", batch), ("seq", seq), ("hidden", hidden)];
        check_len(op, d, "word", word.len(), &bsh)?;
        check_len(op, d, "pos", pos.len(), &bsh[1..])?;
        check_len(op, d, "token_type", token_type.len(), &bsh)?;
        check_len(op, d, "gamma", gamma.len(), &bsh[2..])?;
        check_len(op, d, "beta", beta.len(), &bsh[2..])?;
        check_len(op, d, "y", y.len(), &bsh)?;
        let mut h = vec![0f32; hidden];
        for r in 0..batch * seq {
            let s = r % seq;
            let row = r * hidden..(r + 1) * hidden;
            let prow = &pos[s * hidden..(s + 1) * hidden];
            for (i, ((w, p), t)) in word[row.clone()]
                .iter()
                .zip(prow)
                .zip(&token_type[row.clone()])
                .enumerate()
            {
                h[i] = w.to_f32() + p.to_f32() + t.to_f32();
            }
            layer_norm_row(&h, gamma, beta, &mut y[row]);
        }
        Ok(())
    }

    fn bias_add(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError> {
        let op = Op::BiasAdd;
        let rc = [("rows", rows), ("cols", cols)];
        check_len(op, <T as Element>::DTYPE, "x", x.len(), &rc)?;
        check_len(op, <T as Element>::DTYPE, "b", b.len(), &rc[1..])?;
        check_len(op, <T as Element>::DTYPE, "y", y.len(), &rc)?;
        for (i, (o, v)) in y.iter_mut().zip(x).enumerate() {
            *o = T::from_f32(v.to_f32() + b[i % cols].to_f32());
        }
        Ok(())
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
        let op = Op::AttentionSoftmax;
        let full = [
            ("batch", batch),
            ("heads", heads),
            ("seq", seq),
            ("seq", seq),
        ];
        check_len(op, <T as Element>::DTYPE, "scores", scores.len(), &full)?;
        check_len(
            op,
            <T as Element>::DTYPE,
            "mask",
            mask.len(),
            &[("batch", batch), ("seq", seq)],
        )?;
        check_len(op, <T as Element>::DTYPE, "probs", probs.len(), &full)?;
        let scale = ATTENTION_SCALE as f32;
        let mut s = vec![0f32; seq];
        for (r, (srow, prow)) in scores
            .chunks_exact(seq.max(1))
            .zip(probs.chunks_exact_mut(seq.max(1)))
            .enumerate()
        {
            let b = r / (heads * seq);
            let m = &mask[b * seq..(b + 1) * seq];
            for j in 0..seq {
                s[j] = srow[j].to_f32() * scale + m[j].to_f32();
            }
            let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for v in s.iter_mut() {
                *v = (*v - max).exp();
                sum += *v;
            }
            for j in 0..seq {
                prow[j] = T::from_f32(s[j] / sum);
            }
        }
        Ok(())
    }

    fn bias_gelu(
        &mut self,
        x: &[T],
        b: &[T],
        y: &mut [T],
        rows: usize,
        cols: usize,
    ) -> Result<(), OpError> {
        let op = Op::BiasGelu;
        let rc = [("rows", rows), ("cols", cols)];
        check_len(op, <T as Element>::DTYPE, "x", x.len(), &rc)?;
        check_len(op, <T as Element>::DTYPE, "b", b.len(), &rc[1..])?;
        check_len(op, <T as Element>::DTYPE, "y", y.len(), &rc)?;
        for (i, (o, v)) in y.iter_mut().zip(x).enumerate() {
            let h = v.to_f32() + b[i % cols].to_f32();
            *o = T::from_f32(0.5 * h * (1.0 + libm::erff(h * std::f32::consts::FRAC_1_SQRT_2)));
        }
        Ok(())
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
        let op = Op::BiasResidualLayerNorm;
        let d = <T as Element>::DTYPE;
        let rh = [("rows", rows), ("hidden", hidden)];
        check_len(op, d, "x", x.len(), &rh)?;
        check_len(op, d, "b", b.len(), &rh[1..])?;
        check_len(op, d, "residual", residual.len(), &rh)?;
        check_len(op, d, "gamma", gamma.len(), &rh[1..])?;
        check_len(op, d, "beta", beta.len(), &rh[1..])?;
        check_len(op, d, "y", y.len(), &rh)?;
        let mut h = vec![0f32; hidden];
        for r in 0..rows {
            let row = r * hidden..(r + 1) * hidden;
            for (i, (v, res)) in x[row.clone()]
                .iter()
                .zip(&residual[row.clone()])
                .enumerate()
            {
                h[i] = v.to_f32() + b[i].to_f32() + res.to_f32();
            }
            layer_norm_row(&h, gamma, beta, &mut y[row]);
        }
        Ok(())
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
        let op = Op::MaskedMeanPool;
        let d = <T as Element>::DTYPE;
        check_len(
            op,
            d,
            "x",
            x.len(),
            &[("batch", batch), ("seq", seq), ("hidden", hidden)],
        )?;
        check_len(op, d, "mask", mask.len(), &[("batch", batch), ("seq", seq)])?;
        check_len(op, d, "y", y.len(), &[("batch", batch), ("hidden", hidden)])?;
        let mut acc = vec![0f32; hidden];
        for b in 0..batch {
            acc.iter_mut().for_each(|a| *a = 0.0);
            let mut count = 0f32;
            for s in 0..seq {
                let m = mask[b * seq + s].to_f32();
                count += m;
                let row = &x[(b * seq + s) * hidden..(b * seq + s + 1) * hidden];
                for (a, v) in acc.iter_mut().zip(row) {
                    *a += v.to_f32() * m;
                }
            }
            let denom = count.max(POOL_MIN_COUNT as f32);
            for (o, a) in y[b * hidden..(b + 1) * hidden].iter_mut().zip(&acc) {
                *o = T::from_f32(a / denom);
            }
        }
        Ok(())
    }

    fn l2_normalize(
        &mut self,
        x: &[T],
        y: &mut [T],
        rows: usize,
        hidden: usize,
    ) -> Result<(), OpError> {
        let op = Op::L2Normalize;
        let rh = [("rows", rows), ("hidden", hidden)];
        check_len(op, <T as Element>::DTYPE, "x", x.len(), &rh)?;
        check_len(op, <T as Element>::DTYPE, "y", y.len(), &rh)?;
        for r in 0..rows {
            let row = r * hidden..(r + 1) * hidden;
            let norm = x[row.clone()]
                .iter()
                .map(|v| v.to_f32() * v.to_f32())
                .sum::<f32>()
                .sqrt()
                .max(L2_EPS as f32);
            for (o, v) in y[row.clone()].iter_mut().zip(&x[row]) {
                *o = T::from_f32(v.to_f32() / norm);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Hand-computed values: these pin the reference the kernels will be judged against.
    use super::*;
    use half::f16;

    fn close(a: &[f32], b: &[f32], tol: f32) {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() <= tol, "element {i}: {x} vs {y}");
        }
    }

    #[test]
    fn embed_layer_norm_sums_three_rows_and_normalizes() {
        // batch 1, seq 2, hidden 2: e = [[1+0+1, 2+0+1], [3+1+0, 2+1+0]] = [[2, 3], [4, 3]]
        // Each row of two values normalizes to [-1, 1] (or [1, -1]) up to eps.
        let word = [1.0, 2.0, 3.0, 2.0];
        let pos = [0.0, 0.0, 1.0, 1.0];
        let tt = [1.0, 1.0, 0.0, 0.0];
        let gamma = [2.0, 2.0];
        let beta = [0.5, 0.5];
        let mut y = [0f32; 4];
        HostReference::new()
            .embed_layer_norm(&word, &pos, &tt, &gamma, &beta, &mut y, 1, 2, 2)
            .unwrap();
        close(&y, &[-1.5, 2.5, 2.5, -1.5], 1e-5);
    }

    #[test]
    fn softmax_applies_scale_and_mask() {
        // seq 2, key 1 masked out in batch 0: all weight on key 0.
        let scores = [1.0f32, 5.0, 0.0, 0.0];
        let mask = [0.0, -10000.0];
        let mut p = [0f32; 4];
        HostReference::new()
            .attention_softmax(&scores, &mask, &mut p, 1, 1, 2)
            .unwrap();
        close(&p, &[1.0, 0.0, 1.0, 0.0], 0.0);
        // Unmasked, batch 1, seq 2: row 0 = softmax([0, 8] * scale), row 1 uniform.
        let mut p = [0f32; 4];
        HostReference::new()
            .attention_softmax(&[0.0, 8.0, 0.0, 0.0], &[0.0, 0.0], &mut p, 1, 1, 2)
            .unwrap();
        let e = (8.0 * ATTENTION_SCALE as f32).exp();
        close(&p, &[1.0 / (1.0 + e), e / (1.0 + e), 0.5, 0.5], 1e-6);
    }

    #[test]
    fn gelu_erf_form() {
        // 0.5 * x * (1 + erf(x / sqrt 2)) at x = 1: 0.8413447460685429; at -3: -0.0040496...
        let mut y = [0f32; 2];
        HostReference::new()
            .bias_gelu(&[0.5, -3.5], &[0.5], &mut y, 2, 1)
            .unwrap();
        close(&y, &[0.841_344_7, -0.004_049_71], 1e-6);
    }

    #[test]
    fn bias_residual_layer_norm_and_bias_add() {
        let mut y = [0f32; 3];
        HostReference::new()
            .bias_add(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0], &mut y, 1, 3)
            .unwrap();
        close(&y, &[11.0, 22.0, 33.0], 0.0);
        // h = [1, 2, 3] + [0, 0, 0] + [0, 0, 3] = [1, 2, 6]; mean 3, var 14/3.
        let mut y = [0f32; 3];
        HostReference::new()
            .bias_residual_layer_norm(
                &[1.0, 2.0, 3.0],
                &[0.0; 3],
                &[0.0, 0.0, 3.0],
                &[1.0; 3],
                &[0.0; 3],
                &mut y,
                1,
                3,
            )
            .unwrap();
        let s = (14.0f32 / 3.0).sqrt();
        close(&y, &[-2.0 / s, -1.0 / s, 3.0 / s], 1e-6);
    }

    #[test]
    fn pooling_ignores_padding_and_normalize_gives_unit_rows() {
        // batch 1, seq 3 (last padded), hidden 2.
        let x = [1.0f32, 2.0, 3.0, 6.0, 100.0, 100.0];
        let mut y = [0f32; 2];
        HostReference::new()
            .masked_mean_pool(&x, &[1.0, 1.0, 0.0], &mut y, 1, 3, 2)
            .unwrap();
        close(&y, &[2.0, 4.0], 0.0);
        let mut n = [0f32; 4];
        HostReference::new()
            .l2_normalize(&[3.0, 4.0, 0.0, 0.0], &mut n, 2, 2)
            .unwrap();
        close(&n, &[0.6, 0.8, 0.0, 0.0], 1e-7);
    }

    #[test]
    fn f16_outputs_are_rounded_once() {
        let x: Vec<f16> = [1.0f32, 2.0].iter().map(|&v| f16::from_f32(v)).collect();
        let b = [f16::from_f32(1e-4)];
        let mut y = [f16::ZERO; 2];
        HostReference::new().bias_add(&x, &b, &mut y, 2, 1).unwrap();
        assert_eq!(y[0], f16::from_f32(1.0 + f16::from_f32(1e-4).to_f32()));
    }

    #[test]
    fn wrong_lengths_are_rejected_before_any_work() {
        let mut ops = HostReference::new();
        let mut y = [0f32; 3];
        let err = ops
            .bias_gelu(&[1.0, 2.0, 3.0, 4.0], &[0.0, 0.0], &mut y, 2, 2)
            .unwrap_err();
        assert!(err
            .to_string()
            .contains("argument `y` has 3 elements, expected 4"));
        // A bad bias is found before the (correctly sized) output is touched.
        let mut y = [9f32; 4];
        let err = ops
            .bias_gelu(&[1.0, 2.0, 3.0, 4.0], &[0.0], &mut y, 2, 2)
            .unwrap_err();
        assert!(err
            .to_string()
            .contains("argument `b` has 1 elements, expected 2"));
        assert_eq!(y, [9.0; 4]);
    }
}
