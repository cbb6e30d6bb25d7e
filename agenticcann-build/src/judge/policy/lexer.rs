//! A C++ preprocessing-token lexer for the source policy: enough of translation phases 1–3
//! (line splices, comments, literals, preprocessing tokens) to see every identifier and
//! directive the compiler will see, with the original line of each token.
//!
//! It is deliberately strict where C++ is permissive in ways a kernel never needs: a
//! backslash outside a literal that is not a line splice (universal character names in
//! identifiers), non-ASCII bytes outside comments and literals, `$`, `@` and backticks are
//! lexing errors, so that no spelling of a name can hide from the policy's checks.

use std::fmt;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Ident,
    /// A preprocessing number (`1`, `0x1F`, `1.5e-3f`, `1'000`).
    Number,
    /// A string literal with its prefix (`"a"`, `u8"a"`, `R"x(a)x"`); text is the whole
    /// literal as written (splices removed).
    Str,
    /// A character literal.
    Char,
    /// A header name after `#include` (`<cstdint>`); text without the brackets.
    HeaderName,
    /// Punctuation; digraphs are given as their primary spelling (`%:` → `#`).
    Punct,
}

/// One preprocessing token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its text (see [`TokenKind`]).
    pub text: String,
    /// 1-based line in the original file where it starts.
    pub line: u32,
    /// True when it is the first token of a logical line (after splicing).
    pub line_start: bool,
}

impl Token {
    /// True for the punctuator `p`.
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == p
    }

    /// True for the identifier `name`.
    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == TokenKind::Ident && self.text == name
    }
}

/// A lexing error: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// 1-based line in the original file.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The source after phase 2 (line splices removed), with the original line of every byte.
struct Spliced {
    bytes: Vec<u8>,
    lines: Vec<u32>,
}

fn splice(src: &[u8]) -> Spliced {
    let mut bytes = Vec::with_capacity(src.len());
    let mut lines = Vec::with_capacity(src.len());
    let mut line = 1u32;
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if c == b'\\' {
            // Backslash, optional horizontal whitespace (GCC accepts it), newline.
            let mut j = i + 1;
            while j < src.len() && (src[j] == b' ' || src[j] == b'\t') {
                j += 1;
            }
            let nl = if src.get(j) == Some(&b'\n') {
                Some(1)
            } else if src.get(j) == Some(&b'\r') && src.get(j + 1) == Some(&b'\n') {
                Some(2)
            } else {
                None
            };
            if let Some(n) = nl {
                i = j + n;
                line += 1;
                continue;
            }
        }
        if c == b'\r' && src.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        bytes.push(c);
        lines.push(line);
        if c == b'\n' {
            line += 1;
        }
        i += 1;
    }
    Spliced { bytes, lines }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Multi-character punctuators, longest first (digraphs map to their primary spelling).
const PUNCTS: &[(&str, &str)] = &[
    ("%:%:", "##"),
    ("<=>", "<=>"),
    ("...", "..."),
    ("<<=", "<<="),
    (">>=", ">>="),
    ("->*", "->*"),
    ("##", "##"),
    ("%:", "#"),
    ("<:", "["),
    (":>", "]"),
    ("<%", "{"),
    ("%>", "}"),
    ("::", "::"),
    ("->", "->"),
    ("++", "++"),
    ("--", "--"),
    ("<<", "<<"),
    (">>", ">>"),
    ("<=", "<="),
    (">=", ">="),
    ("==", "=="),
    ("!=", "!="),
    ("&&", "&&"),
    ("||", "||"),
    ("+=", "+="),
    ("-=", "-="),
    ("*=", "*="),
    ("/=", "/="),
    ("%=", "%="),
    ("&=", "&="),
    ("|=", "|="),
    ("^=", "^="),
    (".*", ".*"),
];

const SINGLE_PUNCT: &[u8] = b"#{}[]()<>;:?.+-*/%^&|~!=,";

/// Splits `src` into preprocessing tokens.
///
/// # Errors
/// The first unterminated comment or literal, stray backslash, non-ASCII byte outside
/// comments and literals, or character that is not part of C++'s basic source set.
pub fn lex(src: &[u8]) -> Result<Vec<Token>, LexError> {
    let s = splice(src);
    let b = &s.bytes;
    let line_of = |i: usize| -> u32 {
        s.lines
            .get(i)
            .copied()
            .unwrap_or_else(|| s.lines.last().copied().unwrap_or(1))
    };
    let err = |i: usize, message: String| LexError {
        line: line_of(i),
        message,
    };
    let mut out: Vec<Token> = Vec::new();
    let mut line_start = true;
    // After `#` `include` at the start of a line, `<...>` is a header name.
    let mut want_header = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            want_header = false;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\x0b' || c == b'\x0c' || c == b'\r' {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            i += 2;
            loop {
                if i + 1 >= b.len() {
                    return Err(err(start, "unterminated /* comment".into()));
                }
                if b[i] == b'*' && b[i + 1] == b'/' {
                    i += 2;
                    break;
                }
                i += 1;
            }
            continue;
        }
        let start = i;
        let push = |out: &mut Vec<Token>, kind, text: String, line_start: &mut bool| {
            out.push(Token {
                kind,
                text,
                line: line_of(start),
                line_start: *line_start,
            });
            *line_start = false;
        };
        if want_header && c == b'<' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'>' && b[j] != b'\n' {
                j += 1;
            }
            if b.get(j) != Some(&b'>') {
                return Err(err(start, "unterminated header name".into()));
            }
            let text = String::from_utf8_lossy(&b[i + 1..j]).into_owned();
            push(&mut out, TokenKind::HeaderName, text, &mut line_start);
            want_header = false;
            i = j + 1;
            continue;
        }
        if is_ident_start(c) {
            let mut j = i;
            while j < b.len() && is_ident_continue(b[j]) {
                j += 1;
            }
            let word = &b[i..j];
            // Literal prefixes: u8 u U L, each optionally followed by R (raw).
            let prefix_raw = matches!(word, b"R" | b"u8R" | b"uR" | b"UR" | b"LR");
            let prefix = matches!(word, b"u8" | b"u" | b"U" | b"L");
            if prefix_raw && b.get(j) == Some(&b'"') {
                let end = raw_string_end(b, j)
                    .ok_or_else(|| err(start, "unterminated raw string literal".into()))?;
                let text = String::from_utf8_lossy(&b[i..end]).into_owned();
                push(&mut out, TokenKind::Str, text, &mut line_start);
                i = end;
                continue;
            }
            if prefix && (b.get(j) == Some(&b'"') || b.get(j) == Some(&b'\'')) {
                let q = b[j];
                let end =
                    quoted_end(b, j, q).ok_or_else(|| err(start, "unterminated literal".into()))?;
                let kind = if q == b'"' {
                    TokenKind::Str
                } else {
                    TokenKind::Char
                };
                let text = String::from_utf8_lossy(&b[i..end]).into_owned();
                push(&mut out, kind, text, &mut line_start);
                i = end;
                continue;
            }
            let text = String::from_utf8_lossy(word).into_owned();
            let is_include = text == "include" || text == "include_next" || text == "import";
            let after_hash = out.last().is_some_and(|t| t.is_punct("#") && t.line_start);
            push(&mut out, TokenKind::Ident, text, &mut line_start);
            want_header = is_include && after_hash;
            i = j;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let mut j = i + 1;
            while j < b.len() {
                let d = b[j];
                if (d == b'+' || d == b'-') && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P') {
                    j += 1;
                } else if d == b'\'' && b.get(j + 1).is_some_and(|n| is_ident_continue(*n)) {
                    j += 2;
                } else if is_ident_continue(d) || d == b'.' {
                    j += 1;
                } else {
                    break;
                }
            }
            let text = String::from_utf8_lossy(&b[i..j]).into_owned();
            push(&mut out, TokenKind::Number, text, &mut line_start);
            i = j;
            continue;
        }
        if c == b'"' || c == b'\'' {
            let end = quoted_end(b, i, c).ok_or_else(|| {
                err(
                    start,
                    if c == b'"' {
                        "unterminated string literal".into()
                    } else {
                        "unterminated character literal".into()
                    },
                )
            })?;
            let kind = if c == b'"' {
                TokenKind::Str
            } else {
                TokenKind::Char
            };
            let text = String::from_utf8_lossy(&b[i..end]).into_owned();
            push(&mut out, kind, text, &mut line_start);
            i = end;
            continue;
        }
        if let Some((spelling, primary)) = PUNCTS
            .iter()
            .find(|(sp, _)| b[i..].starts_with(sp.as_bytes()))
        {
            // `<::` is `<` `::` unless followed by `:` or `>` (C++11 [lex.pptoken]/3).
            let take_lt_colon = *spelling == "<:"
                && b.get(i + 2) == Some(&b':')
                && !matches!(b.get(i + 3), Some(b':') | Some(b'>'));
            if !take_lt_colon {
                push(
                    &mut out,
                    TokenKind::Punct,
                    primary.to_string(),
                    &mut line_start,
                );
                i += spelling.len();
                continue;
            }
        }
        if SINGLE_PUNCT.contains(&c) {
            push(
                &mut out,
                TokenKind::Punct,
                (c as char).to_string(),
                &mut line_start,
            );
            i += 1;
            continue;
        }
        let what = match c {
            b'\\' => "a backslash outside a literal (universal character names are not allowed)"
                .to_string(),
            0x80..=0xff => "a non-ASCII byte outside comments and literals".to_string(),
            b'$' | b'@' | b'`' => format!("the character `{}`", c as char),
            _ => format!("the control character 0x{c:02x}"),
        };
        return Err(err(start, format!("unexpected {what}")));
    }
    Ok(out)
}

/// The index after the closing quote of a literal opened by `q` at `open`; escapes are
/// skipped; a newline ends the search (unterminated).
fn quoted_end(b: &[u8], open: usize, q: u8) -> Option<usize> {
    let mut j = open + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return None,
            x if x == q => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The index after a raw string whose `"` is at `quote`: `"delim( ... )delim"`.
fn raw_string_end(b: &[u8], quote: usize) -> Option<usize> {
    let open = quote + 1 + b[quote + 1..].iter().position(|&c| c == b'(')?;
    let delim = &b[quote + 1..open];
    if delim.len() > 16
        || delim
            .iter()
            .any(|&c| matches!(c, b' ' | b')' | b'\\' | b'\t' | b'\n'))
    {
        return None;
    }
    let mut close = Vec::with_capacity(delim.len() + 2);
    close.push(b')');
    close.extend_from_slice(delim);
    close.push(b'"');
    let body = &b[open + 1..];
    let at = body
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(open + 1 + at + close.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        lex(src.as_bytes())
            .unwrap()
            .into_iter()
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn splices_join_identifiers_and_keep_lines() {
        let toks = lex(b"int a;\nsys\\\ntem(\"x\");\n").unwrap();
        let sys = toks.iter().find(|t| t.text == "system").unwrap();
        assert_eq!(sys.line, 2);
        let toks = lex(b"a\n\\\n\nb").unwrap();
        assert_eq!(toks[1].line, 4);
    }

    #[test]
    fn comments_and_literals_hide_nothing_and_show_nothing() {
        assert_eq!(
            idents("/* system */ int x = 1; // fork\n\"popen\" 'a' R\"d(asm)d\" y"),
            ["int", "x", "y"]
        );
        // A line comment continued by a splice swallows the next line.
        assert_eq!(idents("// a \\\nsystem\nz"), ["z"]);
    }

    #[test]
    fn digraphs_and_header_names() {
        let toks = lex(b"%:include <cstdlib>\n").unwrap();
        assert!(toks[0].is_punct("#") && toks[0].line_start);
        assert_eq!(toks[2].kind, TokenKind::HeaderName);
        assert_eq!(toks[2].text, "cstdlib");
        let toks = lex(b"a %:%: b").unwrap();
        assert!(toks[1].is_punct("##"));
        // `<` after a non-include identifier is punctuation.
        let toks = lex(b"x <y> z").unwrap();
        assert!(toks[1].is_punct("<"));
    }

    #[test]
    fn numbers_with_separators_and_exponents() {
        let toks = lex(b"1'000'000 1.5e-3f 0x1Fu .5").unwrap();
        let texts: Vec<_> = toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["1'000'000", "1.5e-3f", "0x1Fu", ".5"]);
    }

    #[test]
    fn strict_characters_are_errors_with_lines() {
        let e = lex(b"int a;\nsy\\u0073tem();").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("backslash"));
        assert!(lex("int é;".as_bytes()).is_err());
        assert!(lex(b"a$b").is_err());
        assert!(lex(b"/* open").is_err());
        assert!(lex(b"\"open\n\"").is_err());
        assert!(lex(b"R\"x(never closed").is_err());
    }
}
