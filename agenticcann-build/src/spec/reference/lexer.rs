//! Tokens of the reference language.
//!
//! Identifiers `[A-Za-z_][A-Za-z0-9_]*`; numbers `12`, `1.5`, `.5`, `1.`, `1e-6`, `2.5E+3`;
//! operators `+ - * / ** < <= > >= == != =`; `( ) [ ] , : ...`; statement separators `;` and
//! newline (newlines inside parentheses or brackets are ignored, so a long expression may span
//! lines);
//! `#` starts a comment to the end of the line; spaces, tabs and `\r` separate tokens.

use super::error::{ReferenceError, ReferenceErrorKind, Span};

/// A token kind.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Number(f64),
    Plus,
    Minus,
    Star,
    StarStar,
    Slash,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Colon,
    Ellipsis,
    Comma,
    Assign,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `;` or a newline outside parentheses.
    Sep,
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Number(_) => "a number".to_string(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Star => "`*`".into(),
            Tok::StarStar => "`**`".into(),
            Tok::Slash => "`/`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Ellipsis => "`...`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Assign => "`=`".into(),
            Tok::EqEq => "`==`".into(),
            Tok::NotEq => "`!=`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Ge => "`>=`".into(),
            Tok::Sep => "end of statement".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token with its span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) span: Span,
}

/// Splits `src` into tokens, ending with [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, ReferenceError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth: usize = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let single = |tok: Tok| Token {
            tok,
            span: Span::new(start, start + 1),
        };
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\n' => {
                if depth == 0 {
                    out.push(single(Tok::Sep));
                }
                i += 1;
            }
            b';' => {
                out.push(single(Tok::Sep));
                i += 1;
            }
            b'(' | b'[' => {
                depth += 1;
                out.push(single(if c == b'(' {
                    Tok::LParen
                } else {
                    Tok::LBracket
                }));
                i += 1;
            }
            b')' | b']' => {
                depth = depth.saturating_sub(1);
                out.push(single(if c == b')' {
                    Tok::RParen
                } else {
                    Tok::RBracket
                }));
                i += 1;
            }
            b':' => {
                out.push(single(Tok::Colon));
                i += 1;
            }
            b'.' if src[i..].starts_with("...") => {
                out.push(Token {
                    tok: Tok::Ellipsis,
                    span: Span::new(i, i + 3),
                });
                i += 3;
            }
            b',' => {
                out.push(single(Tok::Comma));
                i += 1;
            }
            b'+' => {
                out.push(single(Tok::Plus));
                i += 1;
            }
            b'-' => {
                out.push(single(Tok::Minus));
                i += 1;
            }
            b'/' => {
                out.push(single(Tok::Slash));
                i += 1;
            }
            b'*' | b'=' | b'<' | b'>' | b'!' => {
                let next = bytes.get(i + 1).copied();
                let (tok, len) = match (c, next) {
                    (b'*', Some(b'*')) => (Tok::StarStar, 2),
                    (b'*', _) => (Tok::Star, 1),
                    (b'=', Some(b'=')) => (Tok::EqEq, 2),
                    (b'=', _) => (Tok::Assign, 1),
                    (b'<', Some(b'=')) => (Tok::Le, 2),
                    (b'<', _) => (Tok::Lt, 1),
                    (b'>', Some(b'=')) => (Tok::Ge, 2),
                    (b'>', _) => (Tok::Gt, 1),
                    (b'!', Some(b'=')) => (Tok::NotEq, 2),
                    _ => {
                        return Err(ReferenceError::new(
                            ReferenceErrorKind::Syntax,
                            Span::new(i, i + 1),
                            "unexpected character `!` (did you mean `!=`?)",
                        ))
                    }
                };
                out.push(Token {
                    tok,
                    span: Span::new(i, i + len),
                });
                i += len;
            }
            b'0'..=b'9' | b'.' => {
                let (value, end) = lex_number(src, i)?;
                out.push(Token {
                    tok: Tok::Number(value),
                    span: Span::new(i, end),
                });
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(src[start..i].to_string()),
                    span: Span::new(start, i),
                });
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(ReferenceError::new(
                    ReferenceErrorKind::Syntax,
                    Span::new(i, i + ch.len_utf8()),
                    format!("unexpected character `{}`", ch.escape_default()),
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(bytes.len(), bytes.len()),
    });
    Ok(out)
}

/// Lexes a number starting at `start`: digits, an optional fraction, an optional exponent.
fn lex_number(src: &str, start: usize) -> Result<(f64, usize), ReferenceError> {
    let bytes = src.as_bytes();
    let mut i = start;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - s
    };
    let int_digits = digits(&mut i);
    let mut frac_digits = 0;
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        frac_digits = digits(&mut i);
    }
    let bad = |end: usize, msg: &str| {
        ReferenceError::new(ReferenceErrorKind::Syntax, Span::new(start, end), msg)
    };
    if int_digits == 0 && frac_digits == 0 {
        return Err(bad(i, "`.` must be part of a number such as `.5`"));
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if digits(&mut j) == 0 {
            return Err(bad(
                j,
                "the exponent of a number needs digits, as in `1e-6`",
            ));
        }
        i = j;
    }
    if i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' || bytes[i] == b'.') {
        return Err(bad(i + 1, "malformed number"));
    }
    let value: f64 = src[start..i]
        .parse()
        .map_err(|_| bad(i, "malformed number"))?;
    if !value.is_finite() {
        return Err(bad(i, "number literal is too large (not a finite f64)"));
    }
    Ok((value, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_operators_numbers_and_separators() {
        assert_eq!(
            toks("y = x**2 <= 1e-6 # c\nz=(a\n,.5)"),
            vec![
                Tok::Ident("y".into()),
                Tok::Assign,
                Tok::Ident("x".into()),
                Tok::StarStar,
                Tok::Number(2.0),
                Tok::Le,
                Tok::Number(1e-6),
                Tok::Sep,
                Tok::Ident("z".into()),
                Tok::Assign,
                Tok::LParen,
                Tok::Ident("a".into()),
                Tok::Comma,
                Tok::Number(0.5),
                Tok::RParen,
                Tok::Eof
            ]
        );
        assert_eq!(toks("1.")[0], Tok::Number(1.0));
        assert_eq!(
            toks("x[...,\n1:-2]"),
            vec![
                Tok::Ident("x".into()),
                Tok::LBracket,
                Tok::Ellipsis,
                Tok::Comma,
                Tok::Number(1.0),
                Tok::Colon,
                Tok::Minus,
                Tok::Number(2.0),
                Tok::RBracket,
                Tok::Eof
            ]
        );
        assert_eq!(toks("2.5E+3")[0], Tok::Number(2500.0));
    }

    #[test]
    fn rejects_bad_tokens() {
        for bad in [
            "1e", "1e+", "1x", "1.2.3", ".", "..", "x ! y", "x @ y", "1e999", "é",
        ] {
            assert!(lex(bad).is_err(), "{bad}");
        }
    }
}
