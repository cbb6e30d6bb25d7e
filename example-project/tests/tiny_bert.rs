//! A tiny randomly initialized BERT (2 layers, hidden 64, 2 heads of 32, FFN 128), written as
//! `config.json` + `model.safetensors` in a temporary directory, loaded through the same
//! code as the real model and run through the [`VectorOps`] pipeline; compared with the
//! independent f64 implementation in `reference64`.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{cosine64, max_abs, widen};
use example_project::model::{Encoder, Timings};
use example_project::ops::host::HostReference;
use example_project::ops::Element;
use example_project::reference64::embed_sentence_with_types;
use example_project::tokenize::Batch;
use example_project::weights::{BertConfig, BertWeights};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use safetensors::{tensor::TensorView, Dtype};

const HIDDEN: usize = 64;
const FFN: usize = 128;
const VOCAB: usize = 50;
const MAX_POS: usize = 16;

fn tiny_config() -> BertConfig {
    BertConfig {
        vocab_size: VOCAB,
        hidden_size: HIDDEN,
        num_hidden_layers: 2,
        num_attention_heads: 2,
        intermediate_size: FFN,
        hidden_act: "gelu".into(),
        max_position_embeddings: MAX_POS,
        type_vocab_size: 2,
        layer_norm_eps: 1e-12,
        position_embedding_type: "absolute".into(),
    }
}

/// Writes a random model with `bert.`-prefixed names (as `BertForMaskedLM` checkpoints
/// have them); the real model covers unprefixed names. Magnitudes are chosen so that
/// attention is far from uniform and GELU sees both signs.
fn write_tiny_model(dir: &Path, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    let mut add = |name: String, shape: Vec<usize>, lo: f32, hi: f32, rng: &mut StdRng| {
        let n: usize = shape.iter().product();
        let bytes = (0..n)
            .flat_map(|_| rng.random_range(lo..hi).to_le_bytes())
            .collect();
        tensors.push((format!("bert.{name}"), shape, bytes));
    };
    let h = HIDDEN;
    add(
        "embeddings.word_embeddings.weight".into(),
        vec![VOCAB, h],
        -1.0,
        1.0,
        &mut rng,
    );
    add(
        "embeddings.position_embeddings.weight".into(),
        vec![MAX_POS, h],
        -0.5,
        0.5,
        &mut rng,
    );
    add(
        "embeddings.token_type_embeddings.weight".into(),
        vec![2, h],
        -0.5,
        0.5,
        &mut rng,
    );
    add(
        "embeddings.LayerNorm.weight".into(),
        vec![h],
        0.5,
        1.5,
        &mut rng,
    );
    add(
        "embeddings.LayerNorm.bias".into(),
        vec![h],
        -0.3,
        0.3,
        &mut rng,
    );
    for l in 0..2 {
        let p = format!("encoder.layer.{l}.");
        for m in [
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
        ] {
            add(format!("{p}{m}.weight"), vec![h, h], -0.25, 0.25, &mut rng);
            add(format!("{p}{m}.bias"), vec![h], -0.2, 0.2, &mut rng);
        }
        add(
            format!("{p}attention.output.dense.weight"),
            vec![h, h],
            -0.2,
            0.2,
            &mut rng,
        );
        add(
            format!("{p}attention.output.dense.bias"),
            vec![h],
            -0.2,
            0.2,
            &mut rng,
        );
        add(
            format!("{p}attention.output.LayerNorm.weight"),
            vec![h],
            0.5,
            1.5,
            &mut rng,
        );
        add(
            format!("{p}attention.output.LayerNorm.bias"),
            vec![h],
            -0.3,
            0.3,
            &mut rng,
        );
        add(
            format!("{p}intermediate.dense.weight"),
            vec![FFN, h],
            -0.25,
            0.25,
            &mut rng,
        );
        add(
            format!("{p}intermediate.dense.bias"),
            vec![FFN],
            -0.5,
            0.5,
            &mut rng,
        );
        add(
            format!("{p}output.dense.weight"),
            vec![h, FFN],
            -0.15,
            0.15,
            &mut rng,
        );
        add(
            format!("{p}output.dense.bias"),
            vec![h],
            -0.2,
            0.2,
            &mut rng,
        );
        add(
            format!("{p}output.LayerNorm.weight"),
            vec![h],
            0.5,
            1.5,
            &mut rng,
        );
        add(
            format!("{p}output.LayerNorm.bias"),
            vec![h],
            -0.3,
            0.3,
            &mut rng,
        );
    }
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, s, b)| {
            (
                n.clone(),
                TensorView::new(Dtype::F32, s.clone(), b).unwrap(),
            )
        })
        .collect();
    safetensors::serialize_to_file(
        views,
        Some(HashMap::from([("format".to_string(), "pt".to_string())])),
        &dir.join("model.safetensors"),
    )
    .unwrap();
    std::fs::write(
        dir.join("config.json"),
        serde_json::to_string_pretty(&tiny_config()).unwrap(),
    )
    .unwrap();
}

fn load_tiny() -> (tempfile::TempDir, BertWeights) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), 7);
    let w = BertWeights::from_dir(dir.path()).expect("tiny model loads");
    (dir, w)
}

/// Three sentences of 9, 5 and 2 tokens (padded to 9), mixed token types.
fn tiny_batch() -> (Batch, Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let mut rng = StdRng::seed_from_u64(11);
    let ids: Vec<Vec<u32>> = [9usize, 5, 2]
        .iter()
        .map(|&n| (0..n).map(|_| rng.random_range(0..VOCAB as u32)).collect())
        .collect();
    let types: Vec<Vec<u32>> = ids
        .iter()
        .map(|s| (0..s.len()).map(|i| u32::from(i >= s.len() / 2)).collect())
        .collect();
    let mut batch = Batch::from_ids(&ids);
    for (b, t) in types.iter().enumerate() {
        batch.token_type_ids[b * batch.seq..b * batch.seq + t.len()].copy_from_slice(t);
    }
    (batch, ids, types)
}

fn run<T: Element>(w: &BertWeights, batch: &Batch) -> Vec<Vec<f32>> {
    let enc = Encoder::<T>::new(w.clone());
    let mut ops = HostReference::new();
    let mut t = Timings::default();
    let out = enc.embed(&mut ops, batch, &mut t).unwrap();
    // 1 embedding LN + 2 layers x 5 ops + pooling + normalize
    assert_eq!(t.vector_calls, 1 + 2 * 5 + 2);
    out
}

#[test]
fn f32_pipeline_matches_f64_reference() {
    let (_dir, w) = load_tiny();
    let (batch, ids, types) = tiny_batch();
    let got = run::<f32>(&w, &batch);
    for (i, (s, t)) in ids.iter().zip(&types).enumerate() {
        let want = embed_sentence_with_types(&w, s, t);
        let g = widen(&got[i]);
        let (cos, err) = (cosine64(&g, &want), max_abs(&g, &want));
        assert!(
            cos >= 0.999_999 && err <= 2e-6,
            "sentence {i} ({} tokens): cosine {cos}, max abs {err}",
            s.len()
        );
    }
}

#[test]
fn f16_pipeline_is_close_to_f64_reference() {
    let (_dir, w) = load_tiny();
    let (batch, ids, types) = tiny_batch();
    let got = run::<half::f16>(&w, &batch);
    for (i, (s, t)) in ids.iter().zip(&types).enumerate() {
        let want = embed_sentence_with_types(&w, s, t);
        let g = widen(&got[i]);
        let (cos, err) = (cosine64(&g, &want), max_abs(&g, &want));
        assert!(
            cos >= 0.9999 && err <= 2e-3,
            "sentence {i}: cosine {cos}, max abs {err}"
        );
    }
}

#[test]
fn padding_does_not_change_an_embedding() {
    let (_dir, w) = load_tiny();
    let (batch, ids, _) = tiny_batch();
    let mut padded = batch.clone();
    padded.token_type_ids.iter_mut().for_each(|t| *t = 0);
    let together = run::<f32>(&w, &padded);
    let alone = run::<f32>(&w, &Batch::from_ids(&ids[2..3]));
    let err = max_abs(&widen(&together[2]), &widen(&alone[0]));
    assert!(err <= 1e-6, "2-token sentence padded to 9 differs by {err}");
}

#[test]
fn out_of_range_inputs_are_errors() {
    let (_dir, w) = load_tiny();
    let enc = Encoder::<f32>::new(w);
    let mut ops = HostReference::new();
    let e = enc
        .embed(
            &mut ops,
            &Batch::from_ids(&[vec![1, VOCAB as u32]]),
            &mut Timings::default(),
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("token id 50 outside the vocabulary of 50"),
        "{e}"
    );
    let long = vec![1u32; MAX_POS + 1];
    let e = enc
        .embed(&mut ops, &Batch::from_ids(&[long]), &mut Timings::default())
        .unwrap_err();
    assert!(
        e.to_string().contains("exceeds max_position_embeddings 16"),
        "{e}"
    );
}

/// The same tiny model on the generated kernels (fused, and the eager baseline) against the
/// f64 implementation; launches and simulated time are recorded for every op.
#[cfg(feature = "kernels")]
mod on_kernels {
    use super::*;
    use example_project::kernels::eager::EagerOps;
    use example_project::kernels::KernelOps;
    use example_project::ops::cost::CostLog;
    use example_project::ops::{Op, VectorOps};

    fn run_on<T: Element, O: VectorOps<T>>(
        ops: &mut O,
        w: &BertWeights,
        batch: &Batch,
    ) -> Vec<Vec<f32>> {
        let enc = Encoder::<T>::new(w.clone());
        let mut t = Timings::default();
        enc.embed(ops, batch, &mut t).unwrap()
    }

    fn check(got: &[Vec<f32>], w: &BertWeights, min_cos: f64, max_err: f64, what: &str) {
        let (_, ids, types) = tiny_batch();
        for (i, (s, t)) in ids.iter().zip(&types).enumerate() {
            let want = embed_sentence_with_types(w, s, t);
            let g = widen(&got[i]);
            let (cos, err) = (cosine64(&g, &want), max_abs(&g, &want));
            assert!(
                cos >= min_cos && err <= max_err,
                "{what}, sentence {i} ({} tokens): cosine {cos}, max abs {err}",
                s.len()
            );
        }
    }

    /// Every op ran with `launches_per_call` launches per call and took simulated time.
    fn check_costs(c: &CostLog, launches_per_call: impl Fn(Op) -> usize) {
        for op in Op::ALL {
            let cost = c.get(op);
            let calls = if matches!(op, Op::BiasResidualLayerNorm) {
                4
            } else if matches!(
                op,
                Op::EmbedLayerNorm | Op::MaskedMeanPool | Op::L2Normalize
            ) {
                1
            } else {
                2
            };
            assert_eq!(cost.calls, calls, "{op} calls");
            assert_eq!(
                cost.launches,
                calls * launches_per_call(op),
                "{op} launches"
            );
            assert!(cost.sim_us > 0.0, "{op}: no simulated time");
        }
    }

    #[test]
    fn f32_fused_kernels_match_f64_reference() {
        let (_dir, w) = load_tiny();
        let (batch, _, _) = tiny_batch();
        let mut ops = KernelOps::new().unwrap();
        let got = run_on::<f32, _>(&mut ops, &w, &batch);
        check(&got, &w, 0.999_999, 1e-5, "f32 fused kernels");
        check_costs(ops.costs(), |_| 1);
    }

    #[test]
    fn f16_fused_kernels_are_close_to_f64_reference() {
        let (_dir, w) = load_tiny();
        let (batch, _, _) = tiny_batch();
        let mut ops = KernelOps::new().unwrap();
        let got = run_on::<half::f16, _>(&mut ops, &w, &batch);
        check(&got, &w, 0.9999, 3e-3, "f16 fused kernels");
    }

    #[test]
    fn eager_baseline_matches_f64_reference_and_launches_more() {
        let (_dir, w) = load_tiny();
        let (batch, _, _) = tiny_batch();
        let mut eager = EagerOps::new().unwrap();
        let got = run_on::<f32, _>(&mut eager, &w, &batch);
        check(&got, &w, 0.999_999, 1e-5, "f32 eager kernels");
        check_costs(eager.costs(), |op| match op {
            Op::BiasAdd => 1,
            Op::BiasGelu => 2,
            Op::EmbedLayerNorm
            | Op::AttentionSoftmax
            | Op::BiasResidualLayerNorm
            | Op::L2Normalize => 3,
            Op::MaskedMeanPool => 5,
        });
    }
}
