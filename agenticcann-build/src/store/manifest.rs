//! `manifest.toml` of a store entry (docs/store-format.md §2): the key, the digest of every
//! file, the tiling struct's fields, and provenance, verification and performance records.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::digest::Digest;
use crate::key::Key;

/// The store format this crate reads and writes (`format = 1`).
pub const STORE_FORMAT: u32 = 1;

/// The device source of an entry.
pub const KERNEL_FILE: &str = "kernel.cpp";
/// The host tiling source of an entry.
pub const TILING_FILE: &str = "tiling.cpp";
/// The manifest of an entry.
pub const MANIFEST_FILE: &str = "manifest.toml";

/// A parsed, validated `manifest.toml`.
///
/// Unknown top-level keys are an error (a typo must not pass silently); unknown keys inside
/// `provenance`, `verification` and `performance` are kept in their `extra` tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The store format, [`STORE_FORMAT`].
    pub format: u32,
    /// The op's content key; equals the entry's directory name and the spec's key.
    pub key: Key,
    /// The op the entry was made for (informational, not part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// sha256 of every other file of the entry, by file name; always holds
    /// [`KERNEL_FILE`] and [`TILING_FILE`].
    pub files: BTreeMap<String, Digest>,
    /// The tiling struct, passed by value to the kernel and filled by the host tiling
    /// function.
    pub tiling: TilingLayout,
    /// Who wrote the entry and how.
    pub provenance: Provenance,
    /// What the judge verified, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    /// What the judge measured, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance: Option<Performance>,
}

/// `[tiling]`: the tiling struct's fields in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TilingLayout {
    /// At least one field (an empty struct has size 0 in C and 1 in C++, so host and
    /// kernel would disagree).
    pub fields: Vec<TilingField>,
}

/// One field of the tiling struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TilingField {
    /// A C identifier, not a C/C++ keyword, not reserved (`__x`, `_X`).
    pub name: String,
    /// The C type.
    #[serde(rename = "type")]
    pub ty: FieldType,
}

/// The C types a tiling field may have (fixed-size, so the layout is the same for the host
/// compiler, bisheng and Rust's `#[repr(C)]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FieldType {
    /// `uint32_t`, 4 bytes.
    #[serde(rename = "uint32_t")]
    U32,
    /// `int32_t`, 4 bytes.
    #[serde(rename = "int32_t")]
    I32,
    /// `uint64_t`, 8 bytes.
    #[serde(rename = "uint64_t")]
    U64,
    /// `int64_t`, 8 bytes.
    #[serde(rename = "int64_t")]
    I64,
    /// `float` (IEEE binary32), 4 bytes.
    #[serde(rename = "float")]
    F32,
}

impl FieldType {
    /// The C spelling (`"uint32_t"`).
    pub fn c_name(self) -> &'static str {
        match self {
            FieldType::U32 => "uint32_t",
            FieldType::I32 => "int32_t",
            FieldType::U64 => "uint64_t",
            FieldType::I64 => "int64_t",
            FieldType::F32 => "float",
        }
    }

    /// The Rust spelling (`"u32"`).
    pub fn rust_name(self) -> &'static str {
        match self {
            FieldType::U32 => "u32",
            FieldType::I32 => "i32",
            FieldType::U64 => "u64",
            FieldType::I64 => "i64",
            FieldType::F32 => "f32",
        }
    }

    /// Size in bytes (also its alignment).
    pub fn size_bytes(self) -> usize {
        match self {
            FieldType::U32 | FieldType::I32 | FieldType::F32 => 4,
            FieldType::U64 | FieldType::I64 => 8,
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

/// Who proposed the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Proposer {
    /// Written by a person.
    Hand,
    /// The offline proposer (instantiated exemplar).
    Offline,
    /// An LLM in the evolution loop.
    Llm,
    /// Replayed from recorded LLM responses.
    Replay,
}

/// Tokens spent per evolution phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseTokens {
    /// Initial generation (tool-using agent).
    #[serde(default)]
    pub init: u64,
    /// Single-pass mutation.
    #[serde(default)]
    pub mutation: u64,
    /// Constrained repair.
    #[serde(default)]
    pub repair: u64,
    /// Tiling tuning.
    #[serde(default)]
    pub tuning: u64,
}

/// One knowledge chunk an LLM prompt used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeRef {
    /// The chunk id.
    pub id: String,
    /// The chunk's digest when it was used.
    pub digest: String,
}

/// `[provenance]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Who proposed the entry.
    pub proposer: Proposer,
    /// The LLM model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The evolution generation that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// The parent key or candidate id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Tokens by phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<PhaseTokens>,
    /// Knowledge chunks used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<KnowledgeRef>,
    /// RFC 3339 creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Keys this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: toml::Table,
}

impl Provenance {
    /// A provenance naming only the proposer.
    pub fn new(proposer: Proposer) -> Provenance {
        Provenance {
            proposer,
            model: None,
            generation: None,
            parent: None,
            tokens: None,
            knowledge: Vec::new(),
            created: None,
            extra: toml::Table::new(),
        }
    }
}

/// `[verification]`, written by the judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// `"sim"` or `"cann"`.
    pub backend: String,
    /// The SoC (profile) verified on.
    pub soc: String,
    /// The input seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// One record per verified shape.
    #[serde(default)]
    pub shapes: Vec<VerifiedShape>,
    /// Keys this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// One verified shape: the named dimensions and the largest errors seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifiedShape {
    /// Named dimension → size.
    pub dims: BTreeMap<String, u64>,
    /// Largest absolute error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_abs_err: Option<f64>,
    /// Largest relative error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rel_err: Option<f64>,
    /// Keys this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// `[performance]`, written by the judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Performance {
    /// `"sim"` (cost model) or `"cann"` (hardware events).
    pub backend: String,
    /// The SoC (profile) measured on.
    pub soc: String,
    /// One record per measured shape.
    #[serde(default)]
    pub shapes: Vec<MeasuredShape>,
    /// Keys this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// One measured shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredShape {
    /// Named dimension → size.
    pub dims: BTreeMap<String, u64>,
    /// Kernel time, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_us: Option<f64>,
    /// Roofline floor / time, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline_fraction: Option<f64>,
    /// What bounds the kernel (`"MTE2"`, `"V"`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    /// Keys this crate does not know, kept as they were.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// A `manifest.toml` that cannot be used: where it came from and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid store manifest {origin}: {message}")]
pub struct ManifestError {
    /// The file or URL the text came from.
    pub origin: String,
    /// What is wrong, one or more lines.
    pub message: String,
}

impl Manifest {
    /// A manifest for `key` with the digests of `kernel.cpp` and `tiling.cpp` and the tiling
    /// fields; no verification or performance records.
    pub fn new(
        key: Key,
        op: Option<&str>,
        kernel_digest: Digest,
        tiling_digest: Digest,
        fields: Vec<TilingField>,
        provenance: Provenance,
    ) -> Manifest {
        let mut files = BTreeMap::new();
        files.insert(KERNEL_FILE.to_string(), kernel_digest);
        files.insert(TILING_FILE.to_string(), tiling_digest);
        Manifest {
            format: STORE_FORMAT,
            key,
            op: op.map(str::to_string),
            files,
            tiling: TilingLayout { fields },
            provenance,
            verification: None,
            performance: None,
        }
    }

    /// Parses and validates a manifest's text; `origin` (a path or URL) names it in errors.
    ///
    /// # Errors
    /// [`ManifestError`] for invalid TOML, unknown top-level keys, a format other than
    /// [`STORE_FORMAT`], and anything [`validate`](Self::validate) rejects.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Manifest, ManifestError> {
        let m: Manifest = toml::from_str(text).map_err(|e| ManifestError {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        m.validate().map_err(|message| ManifestError {
            origin: origin.to_string(),
            message,
        })?;
        Ok(m)
    }

    /// The manifest as TOML text (what writers store; its sha256 is the manifest digest).
    pub fn to_toml_string(&self) -> String {
        // Serializing plain data to TOML cannot fail: every map key is a string and no
        // value is a non-finite float (the toml crate writes those as nan/inf anyway).
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot serialize: {e}\n"))
    }

    /// Checks what serde cannot: the format number, file names, the required files and the
    /// tiling fields.
    ///
    /// # Errors
    /// Every problem, one per line.
    pub fn validate(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        if self.format != STORE_FORMAT {
            problems.push(format!(
                "`format = {}` is not supported: this agenticcann reads format {STORE_FORMAT}",
                self.format
            ));
        }
        for name in self.files.keys() {
            if let Err(e) = check_file_name(name) {
                problems.push(format!("[files] `{name}`: {e}"));
            }
        }
        for required in [KERNEL_FILE, TILING_FILE] {
            if !self.files.contains_key(required) {
                problems.push(format!("[files] has no digest for `{required}`"));
            }
        }
        if self.tiling.fields.is_empty() {
            problems.push(
                "[tiling] `fields` is empty: declare at least one field (an empty struct has \
                 size 0 in C but 1 in C++)"
                    .to_string(),
            );
        }
        let mut seen: Vec<&str> = Vec::new();
        for (i, f) in self.tiling.fields.iter().enumerate() {
            if let Err(e) = check_c_identifier(&f.name) {
                problems.push(format!("[tiling] fields[{i}] `{}`: {e}", f.name));
            }
            if seen.contains(&f.name.as_str()) {
                problems.push(format!("[tiling] fields[{i}] `{}`: declared twice", f.name));
            }
            seen.push(&f.name);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

/// A file name inside an entry: a plain name (no folder, no `..`, not hidden), at most
/// 128 bytes of `[A-Za-z0-9._-]`, and not `manifest.toml` itself.
fn check_file_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err("file names are 1 to 128 bytes".into());
    }
    if name.starts_with('.') {
        return Err("file names must not start with `.`".into());
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err("file names use only letters, digits, `.`, `_` and `-` (no folders)".into());
    }
    if name == MANIFEST_FILE {
        return Err("the manifest does not list itself".into());
    }
    Ok(())
}

/// C and C++ keywords (and the names the generated header defines) that a tiling field
/// must not use: the struct is compiled as both.
const C_CXX_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
];

fn check_c_identifier(name: &str) -> Result<(), String> {
    if !crate::spec::is_identifier(name) {
        return Err("not a C identifier ([A-Za-z_][A-Za-z0-9_]*)".into());
    }
    if name.starts_with("__")
        || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()))
    {
        return Err("reserved in C and C++ (starts with `__` or `_` and a capital)".into());
    }
    if C_CXX_KEYWORDS.contains(&name) {
        return Err("a C or C++ keyword".into());
    }
    if name.len() > 64 {
        return Err("longer than 64 bytes".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        format!(
            r#"
format = 1
key = "{k}"
op = "rms_norm"

[files]
"kernel.cpp" = "{d}"
"tiling.cpp" = "{d}"

[tiling]
fields = [
  {{ name = "rows_per_core", type = "uint32_t" }},
  {{ name = "eps", type = "float" }},
]

[provenance]
proposer = "hand"
flavour = "vanilla"

[verification]
backend = "sim"
soc = "Ascend910B1"
seed = 1234
shapes = [{{ dims = {{ rows = 7 }}, max_abs_err = 1.2e-4, max_rel_err = 3e-4, note = "x" }}]

[performance]
backend = "sim"
soc = "Ascend910B1"
shapes = [{{ dims = {{ rows = 2048 }}, time_us = 51.2, roofline_fraction = 0.83, bound = "MTE2" }}]
"#,
            k = "ab".repeat(32),
            d = "cd".repeat(32)
        )
    }

    #[test]
    fn parses_the_documented_example_and_keeps_unknown_inner_keys() {
        let m = Manifest::from_toml_str(&sample(), "m.toml").unwrap();
        assert_eq!(m.op.as_deref(), Some("rms_norm"));
        assert_eq!(m.tiling.fields[1].ty, FieldType::F32);
        assert_eq!(m.provenance.proposer, Proposer::Hand);
        assert_eq!(m.provenance.extra["flavour"].as_str(), Some("vanilla"));
        let v = m.verification.as_ref().unwrap();
        assert_eq!(v.shapes[0].dims["rows"], 7);
        assert_eq!(v.shapes[0].extra["note"].as_str(), Some("x"));
        // Round trip through our own writer.
        let again = Manifest::from_toml_str(&m.to_toml_string(), "again").unwrap();
        assert_eq!(again, m);
    }

    #[test]
    fn rejects_unknown_top_level_keys_and_bad_fields() {
        let text = sample().replace("op = \"rms_norm\"", "opp = \"rms_norm\"");
        let e = Manifest::from_toml_str(&text, "kernels/x/manifest.toml").unwrap_err();
        assert!(e.to_string().contains("kernels/x/manifest.toml"), "{e}");
        assert!(e.message.contains("opp"), "{e}");

        let text = sample().replace("\"eps\"", "\"class\"");
        let e = Manifest::from_toml_str(&text, "m").unwrap_err();
        assert!(e.message.contains("`class`: a C or C++ keyword"), "{e}");

        let text = sample().replace("\"float\"", "\"double\"");
        assert!(Manifest::from_toml_str(&text, "m").is_err());

        let text = sample().replace("\"tiling.cpp\"", "\"sub/evil.cpp\"");
        let e = Manifest::from_toml_str(&text, "m").unwrap_err();
        assert!(e.message.contains("no folders"), "{e}");
        assert!(e.message.contains("no digest for `tiling.cpp`"), "{e}");

        let text = sample().replace("format = 1", "format = 2");
        let e = Manifest::from_toml_str(&text, "m").unwrap_err();
        assert!(e.message.contains("`format = 2` is not supported"), "{e}");
    }
}
