//! Names derived from a key, shared by the generated C header, the launchers and the Rust
//! wrappers (docs/store-format.md §6): every symbol carries the first 16 hex digits of the
//! key, so entries of several ops link into one library without collisions.

use crate::key::Key;

/// The first 16 hex digits of `key`.
pub fn key16(key: &Key) -> String {
    key.to_hex()[..16].to_string()
}

/// The kernel function, `agc_<key16>` (the `AGC_KERNEL` macro).
pub fn kernel_symbol(key: &Key) -> String {
    format!("agc_{}", key16(key))
}

/// The host tiling function, `agc_<key16>_tiling` (the `AGC_TILING_FN` macro).
pub fn tiling_symbol(key: &Key) -> String {
    format!("agc_{}_tiling", key16(key))
}

/// The launcher, `aclrtlaunch_agc_<key16>`.
pub fn launcher_symbol(key: &Key) -> String {
    format!("aclrtlaunch_agc_{}", key16(key))
}

/// The tiling struct, `AgcTiling_<key16>`.
pub fn tiling_struct(key: &Key) -> String {
    format!("AgcTiling_{}", key16(key))
}

/// Rust keywords that can be raw identifiers (`r#type`).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A spec name (a validated identifier) as a Rust identifier: keywords become raw
/// identifiers (`r#type`); the few that cannot be raw (`self`, `Self`, `super`, `crate`,
/// `_`) get a trailing `_`.
pub fn rust_ident(name: &str) -> String {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => format!("{name}_"),
        n if RUST_KEYWORDS.contains(&n) => format!("r#{n}"),
        n => n.to_string(),
    }
}

/// `snake_case` → `CamelCase` (`gamma` → `Gamma`, `token_type` → `TokenType`).
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_names() {
        let k: Key = format!("0123456789abcdef{}", "0".repeat(48))
            .parse()
            .unwrap();
        assert_eq!(key16(&k), "0123456789abcdef");
        assert_eq!(kernel_symbol(&k), "agc_0123456789abcdef");
        assert_eq!(tiling_symbol(&k), "agc_0123456789abcdef_tiling");
        assert_eq!(launcher_symbol(&k), "aclrtlaunch_agc_0123456789abcdef");
        assert_eq!(tiling_struct(&k), "AgcTiling_0123456789abcdef");
        assert_eq!(rust_ident("type"), "r#type");
        assert_eq!(rust_ident("self"), "self_");
        assert_eq!(rust_ident("x"), "x");
        assert_eq!(camel("token_type"), "TokenType");
        assert_eq!(camel("_"), "T");
    }
}
