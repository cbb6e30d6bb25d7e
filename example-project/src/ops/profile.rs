//! [`Profiled`]: wraps any [`VectorOps`] and records calls and host wall time per op.
//!
//! Works the same for the host reference and for kernel-backed ops (where the wall time
//! includes transfers and launch; the cost model's simulated time is reported separately
//! once kernels are integrated).

use std::time::{Duration, Instant};

use super::{Element, Op, OpError, VectorOps};

/// Calls and accumulated host wall time of one op.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpStats {
    pub calls: usize,
    pub wall: Duration,
}

/// A [`VectorOps`] that forwards to `inner` and records [`OpStats`] per [`Op`].
#[derive(Debug, Default)]
pub struct Profiled<O> {
    pub inner: O,
    stats: [OpStats; Op::ALL.len()],
}

impl<O> Profiled<O> {
    pub fn new(inner: O) -> Self {
        Self {
            inner,
            stats: Default::default(),
        }
    }

    /// Per-op statistics in [`Op::ALL`] order (ops never called included, with 0 calls).
    pub fn stats(&self) -> impl Iterator<Item = (Op, OpStats)> + '_ {
        Op::ALL.iter().copied().zip(self.stats.iter().copied())
    }

    fn record<R>(&mut self, op: Op, f: impl FnOnce(&mut O) -> R) -> R {
        let t = Instant::now();
        let r = f(&mut self.inner);
        let i = Op::ALL.iter().position(|&o| o == op).expect("op in ALL");
        self.stats[i].calls += 1;
        self.stats[i].wall += t.elapsed();
        r
    }
}

impl<T: Element, O: VectorOps<T>> VectorOps<T> for Profiled<O> {
    fn describe(&self) -> String {
        self.inner.describe()
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
        self.record(Op::EmbedLayerNorm, |o| {
            o.embed_layer_norm(word, pos, token_type, gamma, beta, y, batch, seq, hidden)
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
        self.record(Op::BiasAdd, |o| o.bias_add(x, b, y, rows, cols))
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
        self.record(Op::AttentionSoftmax, |o| {
            o.attention_softmax(scores, mask, probs, batch, heads, seq)
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
        self.record(Op::BiasGelu, |o| o.bias_gelu(x, b, y, rows, cols))
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
        self.record(Op::BiasResidualLayerNorm, |o| {
            o.bias_residual_layer_norm(x, b, residual, gamma, beta, y, rows, hidden)
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
        self.record(Op::MaskedMeanPool, |o| {
            o.masked_mean_pool(x, mask, y, batch, seq, hidden)
        })
    }

    fn l2_normalize(
        &mut self,
        x: &[T],
        y: &mut [T],
        rows: usize,
        hidden: usize,
    ) -> Result<(), OpError> {
        self.record(Op::L2Normalize, |o| o.l2_normalize(x, y, rows, hidden))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::host::HostReference;

    #[test]
    fn counts_calls_per_op_and_forwards_results() {
        let mut p = Profiled::new(HostReference::new());
        let mut y = [0f32; 2];
        p.bias_add(&[1.0, 2.0], &[1.0], &mut y, 2, 1).unwrap();
        p.bias_add(&[1.0, 2.0], &[1.0], &mut y, 2, 1).unwrap();
        VectorOps::<f32>::l2_normalize(&mut p, &[3.0, 4.0], &mut y, 1, 2).unwrap();
        assert_eq!(y, [0.6, 0.8]);
        let calls: Vec<(Op, usize)> = p.stats().map(|(o, s)| (o, s.calls)).collect();
        assert_eq!(calls[1], (Op::BiasAdd, 2));
        assert_eq!(calls[6], (Op::L2Normalize, 1));
        assert_eq!(calls.iter().map(|c| c.1).sum::<usize>(), 3);
    }
}
