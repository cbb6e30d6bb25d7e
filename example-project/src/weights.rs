//! BERT configuration (`config.json`) and weights (`model.safetensors`), loaded as f32.
//!
//! Tensor names follow Hugging Face's `BertModel` (`embeddings.word_embeddings.weight`,
//! `encoder.layer.{i}.attention.self.query.weight`, …), with or without a `bert.` prefix.
//! Linear weights keep PyTorch's `[out, in]` layout; the Q, K and V projections are stacked
//! into one `[3 * hidden, hidden]` matrix so the host runs one matmul and one `bias_add`.

use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use ndarray::{concatenate, Array2, Axis};
use safetensors::{tensor::TensorView, Dtype as StDtype, SafeTensors};
use serde::{Deserialize, Serialize};

use crate::ops::{HEAD_DIM, LAYER_NORM_EPS};

/// The fields of a Hugging Face BERT `config.json` this crate uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_hidden_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_position_type")]
    pub position_embedding_type: String,
}

fn default_hidden_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_position_type() -> String {
    "absolute".into()
}

impl BertConfig {
    /// Reads and validates `config.json`.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading model config {}", path.display()))?;
        let cfg: BertConfig = serde_json::from_str(&text)
            .with_context(|| format!("parsing model config {}", path.display()))?;
        cfg.validate()
            .with_context(|| format!("unsupported model config {}", path.display()))?;
        Ok(cfg)
    }

    /// Width of one attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads.max(1)
    }

    /// Rejects configurations the declared kernels or this encoder do not implement.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            self.hidden_act == "gelu",
            "hidden_act is {:?}; only \"gelu\" (erf form) is implemented",
            self.hidden_act
        );
        ensure!(
            self.position_embedding_type == "absolute",
            "position_embedding_type is {:?}; only \"absolute\" is implemented",
            self.position_embedding_type
        );
        ensure!(
            self.num_attention_heads > 0 && self.hidden_size % self.num_attention_heads == 0,
            "hidden_size {} is not a multiple of num_attention_heads {}",
            self.hidden_size,
            self.num_attention_heads
        );
        ensure!(
            self.head_dim() == HEAD_DIM,
            "head width hidden_size / num_attention_heads = {} but the attention_softmax \
             kernels are declared with scale 1/sqrt({HEAD_DIM})",
            self.head_dim()
        );
        ensure!(
            self.layer_norm_eps == LAYER_NORM_EPS,
            "layer_norm_eps is {} but the LayerNorm kernels are declared with eps = {}",
            self.layer_norm_eps,
            LAYER_NORM_EPS
        );
        ensure!(
            self.vocab_size > 0 && self.type_vocab_size > 0 && self.max_position_embeddings > 0,
            "vocab_size, type_vocab_size and max_position_embeddings must be positive"
        );
        Ok(())
    }
}

/// One encoder layer. Matrices are `[out, in]` f32; vectors are `[out]`.
#[derive(Clone, Debug)]
pub struct LayerWeights {
    /// Q, K, V projections stacked: `[3 * hidden, hidden]`.
    pub qkv_w: Array2<f32>,
    /// `[3 * hidden]`.
    pub qkv_b: Vec<f32>,
    /// Attention output projection `[hidden, hidden]`.
    pub attn_out_w: Array2<f32>,
    pub attn_out_b: Vec<f32>,
    pub attn_ln_gamma: Vec<f32>,
    pub attn_ln_beta: Vec<f32>,
    /// FFN up-projection `[intermediate, hidden]`.
    pub ffn_in_w: Array2<f32>,
    pub ffn_in_b: Vec<f32>,
    /// FFN down-projection `[hidden, intermediate]`.
    pub ffn_out_w: Array2<f32>,
    pub ffn_out_b: Vec<f32>,
    pub out_ln_gamma: Vec<f32>,
    pub out_ln_beta: Vec<f32>,
}

/// All weights of a BERT encoder, as f32 on the host.
#[derive(Clone, Debug)]
pub struct BertWeights {
    pub config: BertConfig,
    /// `[vocab_size, hidden]`.
    pub word_embeddings: Array2<f32>,
    /// `[max_position_embeddings, hidden]`.
    pub position_embeddings: Array2<f32>,
    /// `[type_vocab_size, hidden]`.
    pub token_type_embeddings: Array2<f32>,
    pub emb_ln_gamma: Vec<f32>,
    pub emb_ln_beta: Vec<f32>,
    pub layers: Vec<LayerWeights>,
}

struct Tensors<'a> {
    st: SafeTensors<'a>,
    prefix: &'static str,
    origin: &'a str,
}

impl Tensors<'_> {
    fn view(&self, name: &str) -> Result<TensorView<'_>> {
        let full = format!("{}{}", self.prefix, name);
        self.st
            .tensor(&full)
            .with_context(|| format!("tensor `{full}` missing in {}", self.origin))
    }

    fn f32_data(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let v = self.view(name)?;
        let full = format!("{}{}", self.prefix, name);
        ensure!(
            v.shape() == shape,
            "tensor `{full}` in {} has shape {:?}, expected {:?}",
            self.origin,
            v.shape(),
            shape
        );
        let bytes = v.data();
        Ok(match v.dtype() {
            StDtype::F32 => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            StDtype::F16 => bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            StDtype::BF16 => bytes
                .chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            other => bail!(
                "tensor `{full}` in {} has dtype {other:?}; expected F32, F16 or BF16",
                self.origin
            ),
        })
    }

    fn vector(&self, name: &str, n: usize) -> Result<Vec<f32>> {
        self.f32_data(name, &[n])
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>> {
        let data = self.f32_data(name, &[rows, cols])?;
        Ok(Array2::from_shape_vec((rows, cols), data).expect("length checked against shape"))
    }
}

impl BertWeights {
    /// Loads `model.safetensors` bytes for `config`. `origin` names the file in errors.
    pub fn from_safetensors(config: BertConfig, bytes: &[u8], origin: &str) -> Result<Self> {
        config.validate()?;
        let st = SafeTensors::deserialize(bytes)
            .with_context(|| format!("{origin} is not a valid safetensors file"))?;
        let prefix = if st.tensor("embeddings.word_embeddings.weight").is_ok() {
            ""
        } else {
            "bert."
        };
        let t = Tensors { st, prefix, origin };
        let h = config.hidden_size;
        let i = config.intermediate_size;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            let q = t.matrix(&format!("{p}attention.self.query.weight"), h, h)?;
            let k = t.matrix(&format!("{p}attention.self.key.weight"), h, h)?;
            let v = t.matrix(&format!("{p}attention.self.value.weight"), h, h)?;
            let mut qkv_b = t.vector(&format!("{p}attention.self.query.bias"), h)?;
            qkv_b.extend(t.vector(&format!("{p}attention.self.key.bias"), h)?);
            qkv_b.extend(t.vector(&format!("{p}attention.self.value.bias"), h)?);
            layers.push(LayerWeights {
                qkv_w: concatenate(Axis(0), &[q.view(), k.view(), v.view()]).expect("same widths"),
                qkv_b,
                attn_out_w: t.matrix(&format!("{p}attention.output.dense.weight"), h, h)?,
                attn_out_b: t.vector(&format!("{p}attention.output.dense.bias"), h)?,
                attn_ln_gamma: t.vector(&format!("{p}attention.output.LayerNorm.weight"), h)?,
                attn_ln_beta: t.vector(&format!("{p}attention.output.LayerNorm.bias"), h)?,
                ffn_in_w: t.matrix(&format!("{p}intermediate.dense.weight"), i, h)?,
                ffn_in_b: t.vector(&format!("{p}intermediate.dense.bias"), i)?,
                ffn_out_w: t.matrix(&format!("{p}output.dense.weight"), h, i)?,
                ffn_out_b: t.vector(&format!("{p}output.dense.bias"), h)?,
                out_ln_gamma: t.vector(&format!("{p}output.LayerNorm.weight"), h)?,
                out_ln_beta: t.vector(&format!("{p}output.LayerNorm.bias"), h)?,
            });
        }
        Ok(BertWeights {
            word_embeddings: t.matrix("embeddings.word_embeddings.weight", config.vocab_size, h)?,
            position_embeddings: t.matrix(
                "embeddings.position_embeddings.weight",
                config.max_position_embeddings,
                h,
            )?,
            token_type_embeddings: t.matrix(
                "embeddings.token_type_embeddings.weight",
                config.type_vocab_size,
                h,
            )?,
            emb_ln_gamma: t.vector("embeddings.LayerNorm.weight", h)?,
            emb_ln_beta: t.vector("embeddings.LayerNorm.bias", h)?,
            layers,
            config,
        })
    }

    /// Loads `config.json` and `model.safetensors` from a model directory.
    pub fn from_dir(dir: &Path) -> Result<Self> {
        let config = BertConfig::from_file(&dir.join("config.json"))?;
        let path = dir.join("model.safetensors");
        let bytes =
            std::fs::read(&path).with_context(|| format!("reading weights {}", path.display()))?;
        Self::from_safetensors(config, &bytes, &path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_config() -> BertConfig {
        BertConfig {
            vocab_size: 10,
            hidden_size: 64,
            num_hidden_layers: 1,
            num_attention_heads: 2,
            intermediate_size: 8,
            hidden_act: "gelu".into(),
            max_position_embeddings: 4,
            type_vocab_size: 2,
            layer_norm_eps: 1e-12,
            position_embedding_type: "absolute".into(),
        }
    }

    #[test]
    fn config_rejects_what_the_kernels_do_not_implement() {
        let mut c = tiny_config();
        c.num_attention_heads = 4;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("head width") && e.contains("16"), "{e}");
        let mut c = tiny_config();
        c.layer_norm_eps = 1e-5;
        assert!(c.validate().unwrap_err().to_string().contains("eps = "));
        let mut c = tiny_config();
        c.hidden_act = "relu".into();
        assert!(c.validate().unwrap_err().to_string().contains("relu"));
    }

    #[test]
    fn missing_tensor_is_named() {
        let bytes = safetensors::serialize(
            Vec::<(String, TensorView<'_>)>::new(),
            None::<std::collections::HashMap<String, String>>,
        )
        .unwrap();
        let e = BertWeights::from_safetensors(tiny_config(), &bytes, "x/model.safetensors")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tensor `bert.encoder.layer.0.attention.self.query.weight` missing in x/model.safetensors"),
            "{e}"
        );
    }

    #[test]
    fn garbage_file_is_rejected_with_its_name() {
        let e = BertWeights::from_safetensors(tiny_config(), b"not safetensors", "w.st")
            .unwrap_err()
            .to_string();
        assert!(e.contains("w.st is not a valid safetensors file"), "{e}");
    }
}
