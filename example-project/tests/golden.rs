//! The pipeline against sentence-transformers' own output for all-MiniLM-L6-v2
//! (`tests/data/minilm-l6-v2-embeddings.json`: 8 sentences, token ids, fp32 embeddings).
//!
//! Needs the real model: `AGENTICCANN_EXAMPLE_MODEL_DIR`, or the cache under the Cargo
//! target directory filled by `cargo run -p example-project -- --fetch-only`. Without it
//! these tests FAIL with that instruction; they never skip.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::{cosine64, max_abs, widen};
use example_project::fetch::resolve_model_dir;
use example_project::model::{Encoder, Timings};
use example_project::ops::host::HostReference;
use example_project::ops::{Element, VectorOps};
use example_project::tokenize::SentenceTokenizer;
use example_project::weights::BertWeights;
use serde::Deserialize;

#[derive(Deserialize)]
struct Golden {
    model: String,
    produced_with: String,
    sentences: Vec<String>,
    input_ids: Vec<Vec<u32>>,
    embeddings: Vec<Vec<f64>>,
}

fn golden() -> Golden {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/minilm-l6-v2-embeddings.json"
    );
    let g: Golden = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        g.model.contains("all-MiniLM-L6-v2") && g.produced_with.contains("sentence-transformers")
    );
    assert_eq!(g.sentences.len(), 8);
    g
}

fn model_dir() -> PathBuf {
    match resolve_model_dir(None, false) {
        Ok(m) => m.dir,
        Err(e) => panic!("the real all-MiniLM-L6-v2 model is needed for this test: {e}"),
    }
}

fn weights() -> &'static BertWeights {
    static W: OnceLock<BertWeights> = OnceLock::new();
    W.get_or_init(|| BertWeights::from_dir(&model_dir()).expect("model loads"))
}

fn tokenizer() -> SentenceTokenizer {
    SentenceTokenizer::from_model_dir(&model_dir(), 512).expect("tokenizer loads")
}

#[test]
fn token_ids_match_sentence_transformers() {
    let g = golden();
    let tok = tokenizer();
    assert_eq!(
        tok.max_seq_length(),
        256,
        "sentence_bert_config.json max_seq_length"
    );
    let refs: Vec<&str> = g.sentences.iter().map(String::as_str).collect();
    let batch = tok.encode(&refs).unwrap();
    let longest = g.input_ids.iter().map(Vec::len).max().unwrap();
    assert_eq!((batch.batch, batch.seq), (8, longest));
    for (i, want) in g.input_ids.iter().enumerate() {
        assert_eq!(&batch.ids(i), want, "token ids of {:?}", g.sentences[i]);
    }
}

#[test]
fn long_input_is_truncated_to_256_tokens_with_cls_and_sep() {
    let long = "embedding ".repeat(400);
    let batch = tokenizer().encode(&[long.as_str(), "short"]).unwrap();
    assert_eq!(batch.seq, 256);
    let ids = batch.ids(0);
    assert_eq!(ids.len(), 256);
    assert_eq!((ids[0], ids[255]), (101, 102));
    assert_eq!(batch.ids(1).len(), 3);
}

fn compare<T: Element>(min_cos: f64, max_err: Option<f64>) {
    compare_on::<T, _>(&mut HostReference::new(), min_cos, max_err)
}

fn compare_on<T: Element, O: VectorOps<T>>(ops: &mut O, min_cos: f64, max_err: Option<f64>) {
    let g = golden();
    let refs: Vec<&str> = g.sentences.iter().map(String::as_str).collect();
    let batch = tokenizer().encode(&refs).unwrap();
    let enc = Encoder::<T>::new(weights().clone());
    let got = enc.embed(ops, &batch, &mut Timings::default()).unwrap();
    let mut report = String::new();
    let mut ok = true;
    for (i, want) in g.embeddings.iter().enumerate() {
        let have = widen(&got[i]);
        let (cos, err) = (cosine64(&have, want), max_abs(&have, want));
        report += &format!("  [{i}] cosine {cos:.8}, max abs {err:.2e}\n");
        ok &= cos >= min_cos && max_err.is_none_or(|m| err <= m);
    }
    assert!(
        ok,
        "{} on {} vs golden (need cosine >= {min_cos}, max abs <= {max_err:?}):\n{report}",
        <T as Element>::DTYPE,
        ops.describe()
    );
}

#[test]
fn f32_host_reference_matches_golden_embeddings() {
    compare::<f32>(0.99999, Some(1e-4));
}

#[test]
fn f16_host_reference_is_close_to_golden_embeddings() {
    compare::<half::f16>(0.999, None);
}

#[cfg(feature = "kernels")]
#[test]
fn f32_kernels_match_golden_embeddings() {
    let mut ops = example_project::kernels::KernelOps::new().unwrap();
    compare_on::<f32, _>(&mut ops, 0.99999, Some(1e-4));
}

#[cfg(feature = "kernels")]
#[test]
fn f16_kernels_are_close_to_golden_embeddings() {
    let mut ops = example_project::kernels::KernelOps::new().unwrap();
    compare_on::<half::f16, _>(&mut ops, 0.999, None);
}
