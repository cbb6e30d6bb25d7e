//! Token counts, as a model would bill them: OpenAI's `cl100k_base` byte-pair encoding
//! (GPT-4 / GPT-3.5 family), through the `tiktoken-rs` crate.
//!
//! `tiktoken-rs` compiles the `cl100k_base` merge table into the binary (`include_str!` of
//! its `assets/cl100k_base.tiktoken`), so counting works offline; the table is parsed once
//! per process, on first use (about 0.1–0.3 s). Other models' tokenizers (DeepSeek's,
//! Qwen's) give counts within roughly ±15 % on this kind of English-plus-code text; the
//! budgets of [`super::Phase::budget`] are checked against this one tokenizer so they mean the
//! same thing everywhere.

/// The tokenizer's name, as printed in accounting.
pub const TOKENIZER: &str = "cl100k_base";

/// The number of `cl100k_base` tokens of `text` (special-token strings count as text).
pub fn count(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        // Reference encodings from OpenAI's tiktoken (cl100k_base): "hello world" is
        // [15339, 1917]; the tiktoken README's "tiktoken is great!" is
        // [83, 1609, 5963, 374, 2294, 0].
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        assert_eq!(count("tiktoken is great!"), 6);
        assert_eq!(
            tiktoken_rs::cl100k_base_singleton().encode_ordinary("hello world"),
            vec![15339, 1917]
        );
    }
}
