//! Source spans and errors of the reference language, rendered with line, column and a caret.

use std::fmt;

/// A byte range `start..end` in a reference's source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte (`start` for an empty span, e.g. at the end of input).
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// 1-based line and column (in characters) of `start` within `source`.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        let start = floor_char_boundary(source, self.start.min(source.len()));
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = source[line_start..start].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// What class of mistake a [`ReferenceError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceErrorKind {
    /// The text is not a well-formed program (unexpected token, unbalanced parenthesis,
    /// bad number, nesting too deep).
    Syntax,
    /// A name that is not an input, an attr or an earlier statement's target.
    UndefinedName,
    /// A call of a function the language does not have.
    UnknownFunction,
    /// A function called with the wrong number or kind of arguments.
    Arity,
    /// A reduction axis outside `-rank..rank`, an axis on a scalar, or a subscript with more
    /// items than its operand has axes.
    Axis,
    /// Operand shapes that do not broadcast, a result whose shape differs from the declared
    /// output, a subscript index or slice outside its axis or on a named axis, `concat` or
    /// `take_along_axis` operands that do not fit.
    Shape,
    /// A name assigned twice, or assigned although it is an input or attr.
    DuplicateName,
    /// An output the reference never assigns.
    MissingOutput,
    /// A runtime failure of the evaluator (an empty max/min reduction, a missing input, a
    /// gather index out of range).
    Eval,
    /// A value of the wrong kind of number: the indices of `take_along_axis` are not an
    /// integer value (see [`value_classes`](super::value_classes)).
    Dtype,
}

/// An error in a reference, located in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError {
    /// The class of mistake.
    pub kind: ReferenceErrorKind,
    /// Where, in bytes of the reference source.
    pub span: Span,
    /// The reason, one line, without location.
    pub message: String,
}

impl ReferenceError {
    /// An error of `kind` at `span`.
    pub fn new(kind: ReferenceErrorKind, span: Span, message: impl Into<String>) -> Self {
        ReferenceError {
            kind,
            span,
            message: message.into(),
        }
    }

    /// The message with its location and the offending source line marked by carets:
    ///
    /// ```text
    /// undefined name `z`
    ///  --> reference line 1, column 9
    ///   |
    /// 1 | y = x + z
    ///   |         ^
    /// ```
    pub fn render(&self, source: &str) -> String {
        let (line, col) = self.span.line_col(source);
        format!(
            "{}\n --> reference line {line}, column {col}\n{}",
            self.message,
            self.snippet(source)
        )
    }

    /// The offending source line with carets under the span (the last three lines of
    /// [`render`](Self::render)).
    pub fn snippet(&self, source: &str) -> String {
        let (line, col) = self.span.line_col(source);
        let text = source.lines().nth(line - 1).unwrap_or("");
        let start = floor_char_boundary(source, self.span.start.min(source.len()));
        let end = floor_char_boundary(source, self.span.end.min(source.len())).max(start);
        // Carets cover the span's characters on its first line; at least one.
        let on_line = source[start..end].split('\n').next().unwrap_or("");
        let width = on_line.chars().count().max(1);
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        format!(
            "{pad} |\n{line} | {text}\n{pad} | {}{}",
            " ".repeat(col - 1),
            "^".repeat(width)
        )
    }
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (bytes {}..{})",
            self.message, self.span.start, self.span.end
        )
    }
}

impl std::error::Error for ReferenceError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_under_span() {
        let src = "t = x * x\ny = t + zz";
        let e = ReferenceError::new(
            ReferenceErrorKind::UndefinedName,
            Span::new(18, 20),
            "undefined name `zz`",
        );
        assert_eq!(e.span.line_col(src), (2, 9));
        assert_eq!(
            e.render(src),
            "undefined name `zz`\n --> reference line 2, column 9\n  |\n2 | y = t + zz\n  |         ^^"
        );
    }

    #[test]
    fn span_at_end_and_in_multibyte_text() {
        let src = "y = é +";
        let e = ReferenceError::new(
            ReferenceErrorKind::Syntax,
            Span::new(src.len(), src.len()),
            "x",
        );
        assert_eq!(e.span.line_col(src), (1, 8));
        assert!(e.render(src).ends_with("|        ^"));
        // A span that starts inside a multi-byte character does not panic.
        let e = ReferenceError::new(ReferenceErrorKind::Syntax, Span::new(5, 6), "x");
        let _ = e.render(src);
    }
}
