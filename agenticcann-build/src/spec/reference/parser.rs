//! Recursive-descent parser: tokens → statements.
//!
//! Grammar (lowest precedence first):
//!
//! ```text
//! program    = sep* (statement (sep+ statement)*)? sep* EOF
//! statement  = IDENT "=" expr
//! expr       = additive (("<"|"<="|">"|">="|"=="|"!=") additive)?   -- no chaining
//! additive   = term (("+"|"-") term)*
//! term       = unary (("*"|"/") unary)*
//! unary      = "-" unary | power
//! power      = postfix ("**" unary)?                                 -- right-assoc
//! postfix    = primary ("[" items "]")*
//! primary    = NUMBER | "inf" | IDENT | IDENT "(" args? ")" | "(" expr ")"
//! args       = arg ("," arg)* ","?
//! arg        = IDENT "=" kwvalue | expr                              -- axis=, keepdims=
//! items      = item ("," item)* ","?
//! item       = "..." | int | int? ":" int? (":" int?)?               -- int = "-"? NUMBER
//! ```

use super::ast::{
    ArgOp, BinaryOp, Expr, ExprKind, Func, Ident, ReduceOp, Statement, SubscriptItem,
};
use super::error::{ReferenceError, ReferenceErrorKind, Span};
use super::lexer::{Tok, Token};
use super::MAX_DEPTH;
use crate::spec::dtype::Dtype;

type PResult<T> = Result<T, ReferenceError>;

pub(crate) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Current recursion depth of `unary`/`primary`.
    depth: usize,
}

fn syntax(span: Span, msg: impl Into<String>) -> ReferenceError {
    ReferenceError::new(ReferenceErrorKind::Syntax, span, msg)
}

/// A parsed expression and the depth of its tree.
struct Node {
    expr: Expr,
    depth: usize,
}

impl Parser {
    pub(crate) fn new(tokens: Vec<Token>) -> Self {
        Parser {
            tokens,
            pos: 0,
            depth: 0,
        }
    }

    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if &self.peek().tok == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: Tok, what: &str) -> PResult<Token> {
        if self.peek().tok == tok {
            Ok(self.bump())
        } else {
            let t = self.peek();
            Err(syntax(
                t.span,
                format!("expected {what}, found {}", t.tok.describe()),
            ))
        }
    }

    pub(crate) fn program(&mut self) -> PResult<Vec<Statement>> {
        let mut out = Vec::new();
        while self.eat(&Tok::Sep) {}
        while self.peek().tok != Tok::Eof {
            out.push(self.statement()?);
            if self.peek().tok != Tok::Eof {
                self.expect(Tok::Sep, "a new line or `;` after the statement")?;
            }
            while self.eat(&Tok::Sep) {}
        }
        Ok(out)
    }

    fn statement(&mut self) -> PResult<Statement> {
        let t = self.bump();
        let target = match t.tok {
            Tok::Ident(name) => Ident { name, span: t.span },
            other => {
                return Err(syntax(
                    t.span,
                    format!(
                        "expected a statement `name = expression`, found {}",
                        other.describe()
                    ),
                ))
            }
        };
        self.expect(Tok::Assign, "`=` after the assigned name")?;
        let value = self.expr()?.expr;
        let span = target.span.to(value.span);
        Ok(Statement {
            target,
            value,
            span,
        })
    }

    fn binary(op: BinaryOp, lhs: Node, rhs: Node) -> PResult<Node> {
        let depth = lhs.depth.max(rhs.depth) + 1;
        let span = lhs.expr.span.to(rhs.expr.span);
        if depth > MAX_DEPTH {
            return Err(too_deep(span));
        }
        Ok(Node {
            expr: Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs.expr),
                    rhs: Box::new(rhs.expr),
                },
                span,
            },
            depth,
        })
    }

    fn expr(&mut self) -> PResult<Node> {
        let lhs = self.additive()?;
        let Some(op) = comparison(&self.peek().tok) else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.additive()?;
        if let Some(tok_op) = comparison(&self.peek().tok) {
            return Err(syntax(
                self.peek().span,
                format!(
                    "comparisons cannot be chained: parenthesize `a {} b` first",
                    tok_op.symbol()
                ),
            ));
        }
        Self::binary(op, lhs, rhs)
    }

    fn additive(&mut self) -> PResult<Node> {
        let mut lhs = self.term()?;
        loop {
            let op = match self.peek().tok {
                Tok::Plus => BinaryOp::Add,
                Tok::Minus => BinaryOp::Sub,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.term()?;
            lhs = Self::binary(op, lhs, rhs)?;
        }
    }

    fn term(&mut self) -> PResult<Node> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek().tok {
                Tok::Star => BinaryOp::Mul,
                Tok::Slash => BinaryOp::Div,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = Self::binary(op, lhs, rhs)?;
        }
    }

    fn enter(&mut self, span: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(too_deep(span));
        }
        Ok(())
    }

    fn unary(&mut self) -> PResult<Node> {
        if self.peek().tok == Tok::Minus {
            let minus = self.bump();
            self.enter(minus.span)?;
            let inner = self.unary();
            self.depth -= 1;
            let inner = inner?;
            let depth = inner.depth + 1;
            let span = minus.span.to(inner.expr.span);
            if depth > MAX_DEPTH {
                return Err(too_deep(span));
            }
            return Ok(Node {
                expr: Expr {
                    kind: ExprKind::Neg(Box::new(inner.expr)),
                    span,
                },
                depth,
            });
        }
        self.power()
    }

    fn power(&mut self) -> PResult<Node> {
        let base = self.postfix()?;
        if self.peek().tok != Tok::StarStar {
            return Ok(base);
        }
        let op = self.bump();
        self.enter(op.span)?;
        let exponent = self.unary();
        self.depth -= 1;
        Self::binary(BinaryOp::Pow, base, exponent?)
    }

    /// A primary followed by any number of subscripts `[…]`.
    fn postfix(&mut self) -> PResult<Node> {
        let mut node = self.primary()?;
        while self.peek().tok == Tok::LBracket {
            let open = self.bump();
            let items = self.subscript_items(open.span)?;
            let close = self.expect(Tok::RBracket, "`,` or `]` in the subscript")?;
            let span = node.expr.span.to(close.span);
            let depth = node.depth + 1;
            if depth > MAX_DEPTH {
                return Err(too_deep(span));
            }
            node = Node {
                expr: Expr {
                    kind: ExprKind::Subscript {
                        operand: Box::new(node.expr),
                        items,
                    },
                    span,
                },
                depth,
            };
        }
        Ok(node)
    }

    /// The items of a subscript, after `[` (at `open`) up to the `]`, which is left.
    fn subscript_items(&mut self, open: Span) -> PResult<Vec<SubscriptItem>> {
        let mut items = Vec::new();
        let mut ellipsis: Option<Span> = None;
        loop {
            if self.peek().tok == Tok::RBracket {
                break;
            }
            let start = self.peek().span;
            let item = if self.eat(&Tok::Ellipsis) {
                if ellipsis.is_some() {
                    return Err(syntax(start, "a subscript has at most one `...`"));
                }
                ellipsis = Some(start);
                SubscriptItem::Ellipsis
            } else {
                let first = self.subscript_int()?;
                if self.eat(&Tok::Colon) {
                    let stop = self.subscript_int()?;
                    let step = if self.eat(&Tok::Colon) {
                        let at = self.peek().span;
                        let step = self.subscript_int()?;
                        if step == Some(0) {
                            return Err(syntax(
                                at.to(self.tokens[self.pos - 1].span),
                                "a slice step cannot be zero",
                            ));
                        }
                        step
                    } else {
                        None
                    };
                    SubscriptItem::Slice {
                        start: first,
                        stop,
                        step,
                    }
                } else if let Some(i) = first {
                    SubscriptItem::Index(i)
                } else {
                    let t = self.peek();
                    return Err(syntax(
                        t.span,
                        format!(
                            "expected a subscript item (`...`, an integer or a slice `a:b:s`), found {}",
                            t.tok.describe()
                        ),
                    ));
                }
            };
            items.push(item);
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        if items.is_empty() {
            return Err(syntax(
                open.to(self.peek().span),
                "an empty subscript `[]`: write `x[...]` or the items, as `x[..., 0:64]`",
            ));
        }
        Ok(items)
    }

    /// An optional integer literal of a subscript, optionally negative: `None` when the next
    /// token is `:`, `,` or `]` (an omitted bound).
    fn subscript_int(&mut self) -> PResult<Option<i64>> {
        if matches!(self.peek().tok, Tok::Colon | Tok::Comma | Tok::RBracket) {
            return Ok(None);
        }
        let start = self.peek().span;
        let negative = self.eat(&Tok::Minus);
        let t = self.bump();
        let span = start.to(t.span);
        match t.tok {
            Tok::Number(v) if v == v.trunc() && v <= 1e15 => {
                Ok(Some(if negative { -(v as i64) } else { v as i64 }))
            }
            Tok::Number(_) => Err(syntax(
                span,
                "a subscript index or slice bound must be an integer",
            )),
            other => Err(syntax(
                span,
                format!(
                    "a subscript index or slice bound must be an integer literal such as `-1`, found {}",
                    other.describe()
                ),
            )),
        }
    }

    fn primary(&mut self) -> PResult<Node> {
        let t = self.bump();
        match t.tok {
            Tok::Ident(ref name) if name == "inf" && self.peek().tok != Tok::LParen => Ok(Node {
                expr: Expr {
                    kind: ExprKind::Number(f64::INFINITY),
                    span: t.span,
                },
                depth: 1,
            }),
            Tok::Number(v) => Ok(Node {
                expr: Expr {
                    kind: ExprKind::Number(v),
                    span: t.span,
                },
                depth: 1,
            }),
            Tok::Ident(name) => {
                if self.peek().tok == Tok::LParen {
                    self.enter(t.span)?;
                    let r = self.call(name, t.span);
                    self.depth -= 1;
                    r
                } else {
                    Ok(Node {
                        expr: Expr {
                            kind: ExprKind::Name(name),
                            span: t.span,
                        },
                        depth: 1,
                    })
                }
            }
            Tok::LParen => {
                self.enter(t.span)?;
                let inner = self.expr();
                self.depth -= 1;
                let mut inner = inner?;
                let close = self.expect(Tok::RParen, "`)` to close the parenthesis")?;
                inner.expr.span = t.span.to(close.span);
                Ok(inner)
            }
            other => Err(syntax(
                t.span,
                format!("expected an expression, found {}", other.describe()),
            )),
        }
    }

    /// Parses the arguments of `name(` … `)` and builds the call node.
    fn call(&mut self, name: String, name_span: Span) -> PResult<Node> {
        self.expect(Tok::LParen, "`(`")?;
        let mut positional: Vec<Node> = Vec::new();
        let mut keywords: Vec<(Ident, Token)> = Vec::new();
        loop {
            if self.peek().tok == Tok::RParen {
                break;
            }
            // Keyword argument: IDENT "=" (but not "==").
            let is_kw = matches!(self.peek().tok, Tok::Ident(_))
                && self
                    .tokens
                    .get(self.pos + 1)
                    .is_some_and(|t| t.tok == Tok::Assign);
            if is_kw {
                let kt = self.bump();
                let Tok::Ident(kname) = kt.tok else {
                    unreachable!()
                };
                self.bump(); // "="
                let value = self.kw_value()?;
                keywords.push((
                    Ident {
                        name: kname,
                        span: kt.span,
                    },
                    value,
                ));
            } else {
                if let Some((k, _)) = keywords.first() {
                    return Err(syntax(
                        self.peek().span,
                        format!("positional argument after keyword argument `{}`", k.name),
                    ));
                }
                positional.push(self.expr()?);
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)` in the argument list")?;
        let span = name_span.to(close.span);
        let depth = positional.iter().map(|n| n.depth).max().unwrap_or(0) + 1;
        if depth > MAX_DEPTH {
            return Err(too_deep(span));
        }
        let arity = |expected: &str| {
            ReferenceError::new(
                ReferenceErrorKind::Arity,
                span,
                format!(
                    "`{name}` takes {expected}, got {} positional argument{}",
                    positional.len(),
                    if positional.len() == 1 { "" } else { "s" }
                ),
            )
        };
        // The reductions and the index reductions: one operand, `axis=`, `keepdims=`.
        enum Red {
            Value(ReduceOp),
            Index(ArgOp),
        }
        let red = match name.as_str() {
            "sum" => Some(Red::Value(ReduceOp::Sum)),
            "mean" => Some(Red::Value(ReduceOp::Mean)),
            "max" if positional.len() == 1 => Some(Red::Value(ReduceOp::Max)),
            "min" if positional.len() == 1 => Some(Red::Value(ReduceOp::Min)),
            "argmax" => Some(Red::Index(ArgOp::Max)),
            "argmin" => Some(Red::Index(ArgOp::Min)),
            _ => None,
        };
        if let Some(red) = red {
            if positional.len() != 1 {
                return Err(arity(
                    "one positional argument and optional `axis=`, `keepdims=`",
                ));
            }
            let (axis, keepdims) = reduce_keywords(&name, &keywords)?;
            let operand = Box::new(positional.pop().expect("one argument").expr);
            let kind = match red {
                Red::Value(op) => ExprKind::Reduce {
                    op,
                    operand,
                    axis,
                    keepdims,
                },
                Red::Index(op) => ExprKind::ArgReduce {
                    op,
                    operand,
                    axis,
                    keepdims,
                },
            };
            return Ok(Node {
                expr: Expr { kind, span },
                depth,
            });
        }
        if matches!(name.as_str(), "concat" | "iota" | "take_along_axis") {
            let n = positional.len();
            match name.as_str() {
                "concat" if n < 2 => return Err(arity("two or more tensors and `axis=`")),
                "iota" if n != 1 => {
                    return Err(arity("1 argument and `axis=`: `iota(x, axis=-1)`"))
                }
                "take_along_axis" if n != 2 => {
                    return Err(arity(
                        "2 arguments and `axis=`: `take_along_axis(x, idx, axis=-1)`",
                    ))
                }
                _ => {}
            }
            let axis = axis_keyword(&name, &keywords, span)?;
            let mut args: Vec<Expr> = positional.into_iter().map(|n| n.expr).collect();
            let kind = match name.as_str() {
                "concat" => ExprKind::Concat {
                    operands: args,
                    axis,
                },
                "iota" => ExprKind::Iota {
                    operand: Box::new(args.pop().expect("one")),
                    axis,
                },
                _ => {
                    let indices = args.pop().expect("two");
                    ExprKind::TakeAlongAxis {
                        operand: Box::new(args.pop().expect("two")),
                        indices: Box::new(indices),
                        axis,
                    }
                }
            };
            return Ok(Node {
                expr: Expr { kind, span },
                depth,
            });
        }
        if let Some((k, _)) = keywords.first() {
            let msg = if matches!(name.as_str(), "max" | "min") {
                format!(
                    "`{name}` with two arguments is elementwise and takes no `{}=`; the reduction is `{name}(x, axis=…)`",
                    k.name
                )
            } else {
                format!("`{name}` takes no keyword argument `{}`", k.name)
            };
            return Err(ReferenceError::new(ReferenceErrorKind::Arity, k.span, msg));
        }
        let kind = match name.as_str() {
            "neg" => {
                if positional.len() != 1 {
                    return Err(arity("1 argument"));
                }
                ExprKind::Neg(Box::new(positional.pop().expect("one").expr))
            }
            "cast" => {
                if positional.len() != 2 {
                    return Err(arity("2 arguments: `cast(x, f16)`"));
                }
                let d = positional.pop().expect("two").expr;
                let operand = positional.pop().expect("two").expr;
                let dtype = match &d.kind {
                    ExprKind::Name(n) => n.parse::<Dtype>().map_err(|e| {
                        ReferenceError::new(ReferenceErrorKind::Arity, d.span, e.to_string())
                    })?,
                    _ => {
                        return Err(ReferenceError::new(
                            ReferenceErrorKind::Arity,
                            d.span,
                            "the second argument of `cast` must be a dtype name such as `f16`",
                        ))
                    }
                };
                ExprKind::Cast {
                    operand: Box::new(operand),
                    dtype,
                }
            }
            _ => {
                let Some(func) = Func::ALL.into_iter().find(|f| f.name() == name) else {
                    return Err(ReferenceError::new(
                        ReferenceErrorKind::UnknownFunction,
                        name_span,
                        format!(
                            "unknown function `{name}` (the language has exp, log, sqrt, rsqrt, tanh, erf, sigmoid, abs, neg, max, min, clamp, where, cast, sum, mean, concat, iota, argmax, argmin, take_along_axis)"
                        ),
                    ));
                };
                if positional.len() != func.arity() {
                    let n = func.arity();
                    return Err(arity(&format!(
                        "{n} argument{}",
                        if n == 1 { "" } else { "s" }
                    )));
                }
                ExprKind::Call {
                    func,
                    args: positional.into_iter().map(|n| n.expr).collect(),
                }
            }
        };
        Ok(Node {
            expr: Expr { kind, span },
            depth,
        })
    }

    /// A keyword value: an optionally negative integer, or `true`/`false`/`True`/`False`.
    fn kw_value(&mut self) -> PResult<Token> {
        let start = self.peek().span;
        let negative = self.eat(&Tok::Minus);
        let t = self.bump();
        match t.tok {
            Tok::Number(v) => Ok(Token {
                tok: Tok::Number(if negative { -v } else { v }),
                span: start.to(t.span),
            }),
            Tok::Ident(ref s)
                if !negative && matches!(s.as_str(), "true" | "false" | "True" | "False") =>
            {
                Ok(t)
            }
            other => Err(syntax(
                t.span,
                format!(
                    "a keyword argument takes an integer or true/false, found {}",
                    other.describe()
                ),
            )),
        }
    }
}

fn comparison(tok: &Tok) -> Option<BinaryOp> {
    Some(match tok {
        Tok::Lt => BinaryOp::Lt,
        Tok::Le => BinaryOp::Le,
        Tok::Gt => BinaryOp::Gt,
        Tok::Ge => BinaryOp::Ge,
        Tok::EqEq => BinaryOp::Eq,
        Tok::NotEq => BinaryOp::Ne,
        _ => return None,
    })
}

fn too_deep(span: Span) -> ReferenceError {
    syntax(
        span,
        format!("expression is nested too deeply (more than {MAX_DEPTH} levels)"),
    )
}

/// Reads the one required keyword `axis=` of `concat`, `iota` and `take_along_axis`
/// (`span`: the whole call, for a missing axis).
fn axis_keyword(name: &str, keywords: &[(Ident, Token)], span: Span) -> PResult<i64> {
    let mut axis = None;
    for (k, v) in keywords {
        if k.name != "axis" {
            return Err(ReferenceError::new(
                ReferenceErrorKind::Arity,
                k.span,
                format!("`{name}` takes `axis=` only, not `{}=`", k.name),
            ));
        }
        if axis.is_some() {
            return Err(ReferenceError::new(
                ReferenceErrorKind::Arity,
                k.span,
                "keyword argument `axis` given twice",
            ));
        }
        axis = Some(axis_value(v)?);
    }
    axis.ok_or_else(|| {
        ReferenceError::new(
            ReferenceErrorKind::Arity,
            span,
            format!("`{name}` needs `axis=`, as in `{name}(…, axis=-1)`"),
        )
    })
}

/// The integer of an `axis=` value.
fn axis_value(v: &Token) -> PResult<i64> {
    match v.tok {
        Tok::Number(n) if n == n.trunc() && n.abs() <= 1e9 => Ok(n as i64),
        _ => Err(ReferenceError::new(
            ReferenceErrorKind::Axis,
            v.span,
            "`axis` must be an integer such as `-1`",
        )),
    }
}

/// Reads `axis=` and `keepdims=` of a reduction.
fn reduce_keywords(name: &str, keywords: &[(Ident, Token)]) -> PResult<(Option<i64>, bool)> {
    let mut axis = None;
    let mut keepdims = None;
    for (k, v) in keywords {
        let dup = || {
            ReferenceError::new(
                ReferenceErrorKind::Arity,
                k.span,
                format!("keyword argument `{}` given twice", k.name),
            )
        };
        match k.name.as_str() {
            "axis" => {
                if axis.is_some() {
                    return Err(dup());
                }
                axis = Some(axis_value(v)?);
            }
            "keepdims" => {
                if keepdims.is_some() {
                    return Err(dup());
                }
                match &v.tok {
                    Tok::Ident(s) => keepdims = Some(s == "true" || s == "True"),
                    _ => {
                        return Err(ReferenceError::new(
                            ReferenceErrorKind::Arity,
                            v.span,
                            "`keepdims` must be `true` or `false`",
                        ))
                    }
                }
            }
            other => {
                return Err(ReferenceError::new(
                    ReferenceErrorKind::Arity,
                    k.span,
                    format!("`{name}` takes `axis=` and `keepdims=`, not `{other}=`"),
                ))
            }
        }
    }
    Ok((axis, keepdims.unwrap_or(false)))
}
