//! Tokenization as sentence-transformers does it for all-MiniLM-L6-v2.
//!
//! `tokenizer.json` carries the WordPiece model, the BERT normalizer (lower-case, clean
//! text, Chinese characters split, accents kept) and the `[CLS] … [SEP]` template. Its
//! stored truncation (128) and fixed padding (128) are *not* what sentence-transformers
//! uses: it calls the tokenizer with `max_length = max_seq_length` from
//! `sentence_bert_config.json` (256 here; special tokens included), longest-first
//! truncation and padding to the longest sentence of the batch. [`SentenceTokenizer`]
//! applies exactly that.

use std::path::Path;

use anyhow::{anyhow, ensure, Context, Result};
use serde::Deserialize;
use tokenizers::{
    PaddingDirection, PaddingParams, PaddingStrategy, Tokenizer, TruncationDirection,
    TruncationParams, TruncationStrategy,
};

/// A padded batch of token ids: every vector is `[batch, seq]`, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub batch: usize,
    pub seq: usize,
    pub input_ids: Vec<u32>,
    pub token_type_ids: Vec<u32>,
    /// 1 for real tokens, 0 for padding.
    pub attention_mask: Vec<u32>,
}

impl Batch {
    /// Builds a batch from unpadded id sequences (token type 0), padding on the right with 0.
    pub fn from_ids(sequences: &[Vec<u32>]) -> Self {
        let seq = sequences.iter().map(Vec::len).max().unwrap_or(0);
        let mut b = Batch {
            batch: sequences.len(),
            seq,
            input_ids: Vec::with_capacity(sequences.len() * seq),
            token_type_ids: vec![0; sequences.len() * seq],
            attention_mask: Vec::with_capacity(sequences.len() * seq),
        };
        for s in sequences {
            b.input_ids.extend(s.iter().copied());
            b.input_ids.extend(std::iter::repeat_n(0, seq - s.len()));
            b.attention_mask.extend(std::iter::repeat_n(1, s.len()));
            b.attention_mask
                .extend(std::iter::repeat_n(0, seq - s.len()));
        }
        b
    }

    /// The unpadded ids of sentence `i`.
    pub fn ids(&self, i: usize) -> Vec<u32> {
        let row = i * self.seq..(i + 1) * self.seq;
        self.input_ids[row.clone()]
            .iter()
            .zip(&self.attention_mask[row])
            .filter(|(_, &m)| m != 0)
            .map(|(&id, _)| id)
            .collect()
    }
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: usize,
}

/// The model's tokenizer configured as sentence-transformers runs it.
pub struct SentenceTokenizer {
    inner: Tokenizer,
    max_seq_length: usize,
}

impl SentenceTokenizer {
    /// Loads `tokenizer.json`; `max_seq_length` comes from `sentence_bert_config.json` when
    /// present, else `fallback_max_len` (the model's `max_position_embeddings`).
    pub fn from_model_dir(dir: &Path, fallback_max_len: usize) -> Result<Self> {
        let st_cfg = dir.join("sentence_bert_config.json");
        let max_seq_length = if st_cfg.exists() {
            let text = std::fs::read_to_string(&st_cfg)
                .with_context(|| format!("reading {}", st_cfg.display()))?;
            serde_json::from_str::<SentenceBertConfig>(&text)
                .with_context(|| format!("parsing {}", st_cfg.display()))?
                .max_seq_length
                .min(fallback_max_len)
        } else {
            fallback_max_len
        };
        let path = dir.join("tokenizer.json");
        let inner = Tokenizer::from_file(&path)
            .map_err(|e| anyhow!("loading tokenizer {}: {e}", path.display()))?;
        Self::new(inner, max_seq_length)
    }

    /// Wraps a tokenizer, replacing its truncation and padding by sentence-transformers'.
    pub fn new(mut inner: Tokenizer, max_seq_length: usize) -> Result<Self> {
        ensure!(max_seq_length >= 2, "max_seq_length {max_seq_length} < 2");
        inner
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_length,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| anyhow!("configuring truncation: {e}"))?;
        let pad_id = inner.token_to_id("[PAD]").unwrap_or(0);
        inner.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            direction: PaddingDirection::Right,
            pad_to_multiple_of: None,
            pad_id,
            pad_type_id: 0,
            pad_token: "[PAD]".into(),
        }));
        Ok(Self {
            inner,
            max_seq_length,
        })
    }

    /// Longest sequence (special tokens included) a sentence is truncated to.
    pub fn max_seq_length(&self) -> usize {
        self.max_seq_length
    }

    /// Tokenizes sentences with `[CLS]`/`[SEP]`, truncated and padded to the longest.
    pub fn encode(&self, sentences: &[&str]) -> Result<Batch> {
        let encodings = self
            .inner
            .encode_batch(sentences.to_vec(), true)
            .map_err(|e| anyhow!("tokenizing: {e}"))?;
        let seq = encodings.first().map_or(0, |e| e.len());
        let mut b = Batch {
            batch: encodings.len(),
            seq,
            input_ids: Vec::with_capacity(encodings.len() * seq),
            token_type_ids: Vec::with_capacity(encodings.len() * seq),
            attention_mask: Vec::with_capacity(encodings.len() * seq),
        };
        for e in &encodings {
            ensure!(e.len() == seq, "tokenizer returned an unpadded batch");
            b.input_ids.extend_from_slice(e.get_ids());
            b.token_type_ids.extend_from_slice(e.get_type_ids());
            b.attention_mask.extend_from_slice(e.get_attention_mask());
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_ids_pads_right_and_round_trips() {
        let b = Batch::from_ids(&[vec![101, 7, 102], vec![101, 102]]);
        assert_eq!((b.batch, b.seq), (2, 3));
        assert_eq!(b.input_ids, [101, 7, 102, 101, 102, 0]);
        assert_eq!(b.attention_mask, [1, 1, 1, 1, 1, 0]);
        assert_eq!(b.ids(1), [101, 102]);
    }
}
