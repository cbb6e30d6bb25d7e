//! A sentence-transformers model directory loaded for embedding: tokenizer + encoder, after
//! checking that its module list is the one implemented here (Transformer → mean Pooling →
//! Normalize).

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::model::{Encoder, Timings};
use crate::ops::{Element, VectorOps};
use crate::tokenize::{Batch, SentenceTokenizer};
use crate::weights::BertWeights;

#[derive(Deserialize)]
struct Module {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

/// Checks `modules.json` and `1_Pooling/config.json` when present: the pipeline must be
/// Transformer, Pooling (mean tokens only), Normalize.
pub fn check_sentence_transformers_config(dir: &Path) -> Result<()> {
    let modules = dir.join("modules.json");
    if modules.is_file() {
        let text = std::fs::read_to_string(&modules)
            .with_context(|| format!("reading {}", modules.display()))?;
        let list: Vec<Module> = serde_json::from_str(&text)
            .with_context(|| format!("parsing {}", modules.display()))?;
        let kinds: Vec<&str> = list
            .iter()
            .map(|m| m.kind.rsplit('.').next().unwrap_or(""))
            .collect();
        if kinds != ["Transformer", "Pooling", "Normalize"] {
            bail!(
                "{}: modules are {kinds:?}; this example implements \
                 [\"Transformer\", \"Pooling\", \"Normalize\"]",
                modules.display()
            );
        }
    }
    let pooling = dir.join("1_Pooling").join("config.json");
    if pooling.is_file() {
        let text = std::fs::read_to_string(&pooling)
            .with_context(|| format!("reading {}", pooling.display()))?;
        let p: PoolingConfig = serde_json::from_str(&text)
            .with_context(|| format!("parsing {}", pooling.display()))?;
        if !p.pooling_mode_mean_tokens
            || p.pooling_mode_cls_token
            || p.pooling_mode_max_tokens
            || p.pooling_mode_mean_sqrt_len_tokens
        {
            bail!(
                "{}: only pooling_mode_mean_tokens is implemented",
                pooling.display()
            );
        }
    }
    Ok(())
}

/// Tokenizer and encoder of one model directory, with vector ops in dtype `T`.
pub struct SentenceEmbedder<T: Element> {
    pub tokenizer: SentenceTokenizer,
    pub encoder: Encoder<T>,
}

impl<T: Element> SentenceEmbedder<T> {
    /// Loads `config.json`, `tokenizer.json`, `model.safetensors` (and checks the
    /// sentence-transformers configuration) from `dir`.
    pub fn load(dir: &Path) -> Result<Self> {
        check_sentence_transformers_config(dir)?;
        let weights = BertWeights::from_dir(dir)?;
        let tokenizer =
            SentenceTokenizer::from_model_dir(dir, weights.config.max_position_embeddings)?;
        Ok(Self {
            tokenizer,
            encoder: Encoder::new(weights),
        })
    }

    /// Tokenizes and embeds sentences; returns the batch (for inspection) and one unit
    /// vector per sentence.
    pub fn embed<O: VectorOps<T>>(
        &self,
        ops: &mut O,
        sentences: &[&str],
        timings: &mut Timings,
    ) -> Result<(Batch, Vec<Vec<f32>>)> {
        let batch = self.tokenizer.encode(sentences)?;
        let emb = self.encoder.embed(ops, &batch, timings)?;
        Ok((batch, emb))
    }
}
