//! The raw-memory rules of the kernel policy: every byte a kernel reads or writes in
//! global memory (GM) or the Unified Buffer (UB) must go through the simulator's API
//! (`GlobalTensor`, `LocalTensor`, `DataCopy*`, the vector API), because that is where GM
//! bounds, UB ownership and the cost model live. A raw pointer bypasses all three: its
//! accesses are unchecked and, to the cost model, free.
//!
//! Checked on preprocessing tokens of `kernel.cpp` (not of the host tiling source):
//! - `raw_gm_access`: a `GM_ADDR` parameter, member or local may only be
//!   - declared (`GM_ADDR x`),
//!   - handed to `GlobalTensor::SetGlobalBuffer` as its first argument, bare or through one
//!     `(__gm__ T*)x` / `reinterpret_cast<__gm__ T*>(x)` cast (element offsets may follow:
//!     `(__gm__ T*)x + start`),
//!   - passed whole to a function of the same file whose parameter at that position is
//!     declared `GM_ADDR` in every declaration (`op.Init(x, y, z, tiling)`), or to a
//!     `GM_ADDR` member's initializer (`x_(x)`),
//!   - assigned to another `GM_ADDR` (`x_ = x;`, `GM_ADDR p = x;`);
//!
//!   anything else (`x[i]`, `*x`, `x + 4`, `auto p = x`, a template parameter,
//!   `sizeof(x)`) is rejected, and so is `__gm__` outside that `SetGlobalBuffer` cast, a cast
//!   to `GM_ADDR`, a `GM_ADDR` name in a macro, and a user-defined `SetGlobalBuffer`.
//! - `raw_pointer`: `GetPhyAddr` (a tensor's physical address), `__ubuf__`, the tensors'
//!   simulator state (`.addr_`, `.buf_`, `.gen_`), casts to pointer types (C-style
//!   `(T*)e`, `static_cast<T*>`, `reinterpret_cast` outside `SetGlobalBuffer`), `bit_cast`,
//!   `addressof`, a `union` with any member that is not an arithmetic scalar or array of
//!   one (a union of a float and an integer for bit tricks is allowed; one holding a
//!   pointer would launder an address), the address of anything but a plain variable
//!   (`&t(0)`, `&t[1]`, `&s.f`) or of a reference (`T& r = x(0); &r`), and `using namespace
//!   std` / `using std::…` (they would let an algorithm's overload take a `GM_ADDR`).
//! - `bulk_memory`: the C library's raw memory and string functions (`memcpy`, `memset`,
//!   `memmove`, `bzero`, `strcpy`, …).
//!
//! The rules over-approximate: a `GM_ADDR` name stays tracked in nested scopes even where
//! a local of the same name shadows it, so such a kernel is rejected and must rename.

use std::collections::{BTreeMap, BTreeSet};

use super::lexer::{Token, TokenKind};
use super::Checker;

/// Raw memory and string functions of the C library (and their wide and BSD forms).
const BULK_MEMORY: &[&str] = &[
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "memrchr",
    "memccpy",
    "mempcpy",
    "memmem",
    "wmemcpy",
    "wmemmove",
    "wmemset",
    "wmemcmp",
    "bzero",
    "explicit_bzero",
    "bcopy",
    "bcmp",
    "swab",
    "strcpy",
    "strncpy",
    "stpcpy",
    "stpncpy",
    "strcat",
    "strncat",
    "strlcpy",
    "strlcat",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strchr",
    "strrchr",
    "strstr",
    "strtok",
    "strdup",
    "strndup",
    "sprintf",
    "snprintf",
    "vsprintf",
    "vsnprintf",
    "sscanf",
    "qsort",
    "bsearch",
    "uninitialized_copy",
    "uninitialized_fill",
];

/// Members of `GlobalTensor` / `LocalTensor` that hold the simulator's own state.
const TENSOR_STATE: &[&str] = &["addr_", "buf_", "gen_"];

/// Words that can precede an identifier without declaring it.
const NOT_A_TYPE: &[&str] = &[
    "return",
    "case",
    "goto",
    "else",
    "do",
    "sizeof",
    "alignof",
    "throw",
    "co_return",
    "co_yield",
    "co_await",
    "new",
    "delete",
    "typename",
    "template",
    "using",
    "namespace",
    "struct",
    "class",
    "enum",
    "operator",
    "public",
    "private",
    "protected",
    "if",
    "while",
    "for",
    "switch",
];

/// Member types a kernel's `union` may use: arithmetic scalars (bit tricks such as a
/// float's bits as an integer), never a pointer or a class that could hold an address.
const UNION_MEMBER_TYPES: &[&str] = &[
    "bool",
    "char",
    "signed",
    "unsigned",
    "short",
    "int",
    "long",
    "float",
    "double",
    "half",
    "bfloat16_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "const",
    "volatile",
];

/// Checks the `union` at `toks[at]`: a definition `union [Name] { members } [declarators];`
/// whose every member is `type-words name[ [N] ]*;` with type words from
/// [`UNION_MEMBER_TYPES`], or a use `union Name` of a union in `defined`. `Err` says what is
/// wrong.
fn arithmetic_union(toks: &[&Token], at: usize, defined: &BTreeSet<&str>) -> Result<(), String> {
    let mut i = at + 1;
    let name = toks.get(i).filter(|t| t.kind == TokenKind::Ident);
    if name.is_some() {
        i += 1;
    }
    if !is_punct(toks.get(i), "{") {
        return match name {
            Some(n) if defined.contains(n.text.as_str()) => Ok(()),
            Some(n) => Err(format!(
                "`union {}` names no union of arithmetic members defined in this file",
                n.text
            )),
            None => Err("a `union` without a body".into()),
        };
    }
    let close = matching(toks, i);
    if close >= toks.len() {
        return Err("its body is not closed".into());
    }
    let body = &toks[i + 1..close];
    if body.is_empty() {
        return Err("it has no members".into());
    }
    for member in body.split(|t| t.is_punct(";")) {
        if member.is_empty() {
            continue;
        }
        // type words, then one name, then optional `[N]` extents.
        let words = member
            .iter()
            .take_while(|t| t.kind == TokenKind::Ident)
            .count();
        if words < 2 {
            return Err(format!(
                "member `{}` is not `type name;`",
                member
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        if let Some(bad) = member[..words - 1]
            .iter()
            .find(|t| !UNION_MEMBER_TYPES.contains(&t.text.as_str()))
        {
            return Err(format!(
                "member type `{}` is not an arithmetic type",
                bad.text
            ));
        }
        let mut j = words;
        while j < member.len() {
            let extent_ok = member[j].is_punct("[")
                && member
                    .get(j + 1)
                    .is_some_and(|t| t.kind == TokenKind::Number || t.kind == TokenKind::Ident)
                && member.get(j + 2).is_some_and(|t| t.is_punct("]"));
            if !extent_ok {
                return Err(format!(
                    "member `{}` has `{}` after its name (only array extents `[N]` may follow; no pointer, reference or initializer)",
                    member[words - 1].text, member[j].text
                ));
            }
            j += 3;
        }
    }
    Ok(())
}

fn is_punct(t: Option<&&Token>, p: &str) -> bool {
    t.is_some_and(|t| t.is_punct(p))
}

fn is_ident(t: Option<&&Token>) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Ident)
}

/// Index of the token closing the bracket opened at `open` (or `toks.len()`).
fn matching(toks: &[&Token], open: usize) -> usize {
    let (o, c) = match toks[open].text.as_str() {
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        "{" => ("{", "}"),
        "<" => ("<", ">"),
        _ => return open,
    };
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct(o) {
            depth += 1;
        } else if t.is_punct(c) {
            depth -= 1;
            if depth == 0 {
                return j;
            }
        } else if o == "<" && (t.is_punct(";") || t.is_punct("{") || t.is_punct("}")) {
            break;
        }
    }
    toks.len()
}

/// Index of the `(` / `<` opening the bracket closed at `close`, if any.
fn opening(toks: &[&Token], close: usize) -> Option<usize> {
    let (o, c) = match toks[close].text.as_str() {
        ")" => ("(", ")"),
        ">" => ("<", ">"),
        "]" => ("[", "]"),
        _ => return None,
    };
    let mut depth = 0i32;
    for j in (0..=close).rev() {
        let t = toks[j];
        if t.is_punct(c) {
            depth += 1;
        } else if t.is_punct(o) {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        } else if o == "<" && (t.is_punct(";") || t.is_punct("{") || t.is_punct("}")) {
            return None;
        }
    }
    None
}

/// The top-level comma-separated ranges of the bracket group `open..close` (exclusive).
fn args(toks: &[&Token], open: usize, close: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = open + 1;
    for (j, t) in toks.iter().enumerate().take(close).skip(open + 1) {
        if t.is_punct("(") || t.is_punct("[") || t.is_punct("{") {
            depth += 1;
        } else if t.is_punct(")") || t.is_punct("]") || t.is_punct("}") {
            depth -= 1;
        } else if t.is_punct(",") && depth == 0 {
            out.push((start, j));
            start = j + 1;
        }
    }
    if start < close || !out.is_empty() {
        out.push((start, close));
    }
    out
}

/// The function name a `(` at `open` calls or declares: the identifier before it, through
/// template arguments (`f<half>(`).
fn callee(toks: &[&Token], open: usize) -> Option<usize> {
    let mut k = open.checked_sub(1)?;
    if toks[k].is_punct(">") {
        k = opening(toks, k)?.checked_sub(1)?;
    }
    (toks[k].kind == TokenKind::Ident).then_some(k)
}

/// True when the `(` at `open` with this content is a cast to a pointer type:
/// `( type-words * [const] )`.
fn pointer_cast(toks: &[&Token], open: usize, close: usize) -> bool {
    let inner = &toks[open + 1..close];
    let Some(star) = inner
        .iter()
        .position(|t| t.is_punct("*") || t.is_punct("&") || t.is_punct("&&"))
    else {
        return false;
    };
    if star == 0 {
        return false; // `(*)`: a function-pointer declarator
    }
    let type_words = inner[..star].iter().all(|t| {
        t.kind == TokenKind::Ident
            || t.kind == TokenKind::Number
            || ["::", "<", ">", ","].iter().any(|p| t.is_punct(p))
    });
    let tail = inner[star..].iter().all(|t| {
        t.is_punct("*")
            || t.is_punct("&")
            || t.is_punct("&&")
            || t.is_ident("const")
            || t.is_ident("volatile")
            || t.is_ident("__restrict__")
    });
    type_words && tail
}

impl Checker<'_> {
    /// The raw-memory rules (module docs) over a kernel's tokens.
    pub(super) fn raw_memory(&mut self, toks: &[Token]) {
        // Directive lines apart from code: macros are checked without scopes.
        let mut code: Vec<&Token> = Vec::new();
        let mut directives: Vec<Vec<&Token>> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].is_punct("#") && toks[i].line_start {
                let end = toks[i + 1..]
                    .iter()
                    .position(|x| x.line_start)
                    .map_or(toks.len(), |p| i + 1 + p);
                directives.push(toks[i..end].iter().collect());
                i = end;
            } else {
                code.push(&toks[i]);
                i += 1;
            }
        }
        let gm_names: BTreeSet<String> = code
            .windows(2)
            .filter(|w| w[0].is_ident("GM_ADDR") && w[1].kind == TokenKind::Ident)
            .map(|w| w[1].text.clone())
            .collect();
        for d in &directives {
            self.raw_context_free(d);
            if !d.get(1).is_some_and(|n| n.is_ident("define")) {
                continue;
            }
            for t in d.iter().skip(2) {
                if t.is_ident("GM_ADDR") || t.is_ident("__gm__") || gm_names.contains(&t.text) {
                    self.push(
                        t.line,
                        "raw_gm_access",
                        format!("`{}` in a macro: global-memory addresses may not go through macros (write the `SetGlobalBuffer((__gm__ T*)x, n)` call itself)", t.text),
                    );
                }
            }
        }
        self.raw_context_free(&code);
        self.raw_gm(&code);
    }

    /// The rules that need no scopes: names, casts, address-of.
    fn raw_context_free(&mut self, toks: &[&Token]) {
        // Names of the unions this file defines with arithmetic members only
        // (`union U { ... }`), so that a later `union U u;` is accepted.
        let unions: BTreeSet<&str> = toks
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                t.is_ident("union")
                    && is_ident(toks.get(i + 1))
                    && arithmetic_union(toks, *i, &BTreeSet::new()).is_ok()
            })
            .map(|(i, _)| toks[i + 1].text.as_str())
            .collect();
        let mut refs: BTreeSet<&str> = BTreeSet::new();
        for (i, t) in toks.iter().enumerate() {
            // Reference declarators `Type& name` / `Type&& name`.
            if (t.is_punct("&") || t.is_punct("&&"))
                && i > 0
                && (toks[i - 1].kind == TokenKind::Ident
                    && !NOT_A_TYPE.contains(&toks[i - 1].text.as_str())
                    || toks[i - 1].is_punct(">"))
                && is_ident(toks.get(i + 1))
            {
                refs.insert(toks[i + 1].text.as_str());
            }
        }
        for (i, t) in toks.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| toks[p]);
            let next = toks.get(i + 1);
            match t.kind {
                TokenKind::Ident => {
                    let n = t.text.as_str();
                    if n == "GetPhyAddr" || n == "__ubuf__" {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!("`{n}`: a raw address of GM or UB bypasses the simulator's bounds and ownership checks and the cost model; use the tensor API (`DataCopy`, `GetValue`/`SetValue`, vector calls)"),
                        );
                    } else if BULK_MEMORY.contains(&n) {
                        self.push(
                            t.line,
                            "bulk_memory",
                            format!("`{n}` is not allowed in a kernel: raw memory functions bypass the simulator's checks and the cost model (use `DataCopy`/`DataCopyPad` or `Duplicate`)"),
                        );
                    } else if n == "union" {
                        if let Err(why) = arithmetic_union(toks, i, &unions) {
                            self.push(
                                t.line,
                                "raw_pointer",
                                format!("this `union` is not allowed in a kernel: {why}; a union is allowed only when every member is an arithmetic scalar or array of one (bool, char, the int/uint types, half, bfloat16_t, float, double, e.g. `union {{ float f; uint32_t u; }}` for bit tricks), never a pointer, reference, tensor or other class"),
                            );
                        }
                    } else if matches!(n, "bit_cast" | "addressof") {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!("`{n}` is not allowed in a kernel: it can turn a tensor into a raw pointer"),
                        );
                    } else if TENSOR_STATE.contains(&n) {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!("`{n}` names the simulator's tensor state (not kernel API); rename the kernel's own member"),
                        );
                    } else if n == "decltype"
                        && is_punct(next, "(")
                        && is_punct(toks.get(matching(toks, i + 1) + 1), "(")
                    {
                        self.push(
                            t.line,
                            "raw_pointer",
                            "a functional cast through `decltype(…)(…)` is not allowed in a kernel"
                                .into(),
                        );
                    } else if (n == "typedef"
                        || (n == "using" && is_ident(next) && is_punct(toks.get(i + 2), "=")))
                        && toks[i + 1..]
                            .iter()
                            .take_while(|x| !x.is_punct(";"))
                            .any(|x| x.is_punct("*") || x.is_punct("&") || x.is_punct("&&"))
                    {
                        self.push(
                            t.line,
                            "raw_pointer",
                            "a pointer or reference type alias is not allowed in a kernel (it enables functional casts to pointers)".into(),
                        );
                    } else if n == "using"
                        && (next.is_some_and(|x| x.is_ident("std"))
                            || (next.is_some_and(|x| x.is_ident("namespace"))
                                && toks.get(i + 2).is_some_and(|x| x.is_ident("std"))))
                    {
                        self.push(
                            t.line,
                            "raw_pointer",
                            "`using namespace std` / `using std::…` is not allowed in a kernel: it lets a standard algorithm take a GM_ADDR (qualify with `std::`)".into(),
                        );
                    }
                }
                TokenKind::Punct
                    if t.text == "*"
                        && (is_punct(next, ">")
                            || (next.is_some_and(|x| x.is_ident("const"))
                                && is_punct(toks.get(i + 2), ">")))
                        && !opening(toks, if is_punct(next, ">") { i + 1 } else { i + 2 })
                            .is_some_and(|o| o > 0 && toks[o - 1].is_ident("reinterpret_cast")) =>
                {
                    self.push(
                        t.line,
                        "raw_pointer",
                        "a pointer type as a template argument is not allowed in a kernel (outside `reinterpret_cast<__gm__ T*>` in `SetGlobalBuffer`)".into(),
                    );
                }
                TokenKind::Punct if t.text == "&" => {
                    // Binary `&` and declarators follow an operand or a type.
                    let unary = match prev {
                        None => true,
                        Some(p) => match p.kind {
                            TokenKind::Ident => NOT_A_TYPE.contains(&p.text.as_str()),
                            TokenKind::Number | TokenKind::Str | TokenKind::Char => false,
                            TokenKind::Punct if p.is_punct(")") => {
                                // `(T)&x`: a cast, so the `&` is unary (`(m) & 3` stays
                                // a bitwise and).
                                is_ident(next)
                                    && opening(toks, i - 1).is_some_and(|o| {
                                        !(o > 0 && toks[o - 1].kind == TokenKind::Ident)
                                            && toks[o + 1..i - 1].iter().all(|x| {
                                                x.kind == TokenKind::Ident
                                                    || ["::", "<", ">", "*"]
                                                        .iter()
                                                        .any(|q| x.is_punct(q))
                                            })
                                    })
                            }
                            TokenKind::Punct => !(p.is_punct("]") || p.is_punct(">")),
                            TokenKind::HeaderName => true,
                        },
                    };
                    if !unary {
                        continue;
                    }
                    // A lambda's capture default `[&]`, `[&,`.
                    if prev.is_some_and(|p| p.is_punct("["))
                        && (is_punct(next, "]") || is_punct(next, ","))
                    {
                        continue;
                    }
                    let plain = is_ident(next)
                        && !toks.get(i + 2).is_some_and(|a| {
                            a.is_punct("(")
                                || a.is_punct("[")
                                || a.is_punct(".")
                                || a.is_punct("->")
                                || a.is_punct("::")
                        });
                    let what = next.map_or("", |x| x.text.as_str());
                    if !plain {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!("the address of `{what}…`: only plain variables may have their address taken in a kernel (an element's address is a raw pointer into GM or UB)"),
                        );
                    } else if refs.contains(what) {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!("the address of the reference `{what}`: it may refer to a tensor element, and its address would be a raw pointer into GM or UB"),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// `GM_ADDR`, `__gm__`, pointer casts and `SetGlobalBuffer`, with scopes.
    fn raw_gm(&mut self, toks: &[&Token]) {
        // Functions declared with GM_ADDR parameters: name -> per declaration, which
        // positions are GM_ADDR.
        let mut gm_params: BTreeMap<&str, Vec<Vec<bool>>> = BTreeMap::new();
        for (i, t) in toks.iter().enumerate() {
            if !t.is_punct("(") {
                continue;
            }
            let close = matching(toks, i);
            if close >= toks.len() {
                continue;
            }
            let a = args(toks, i, close);
            let gm: Vec<bool> = a
                .iter()
                .map(|&(s, e)| {
                    let mut s = s;
                    if s < e && toks[s].is_ident("const") {
                        s += 1;
                    }
                    s < e && toks[s].is_ident("GM_ADDR")
                })
                .collect();
            if gm.iter().any(|&g| g) {
                if let Some(k) = callee(toks, i) {
                    gm_params.entry(toks[k].text.as_str()).or_default().push(gm);
                }
            }
        }
        // Names of every function with a declaration (for "all declarations" checks).
        let mut declared: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, t) in toks.iter().enumerate() {
            if t.is_punct("(") {
                if let Some(k) = callee(toks, i) {
                    // `Type name(` or `Type& name(`: a declaration.
                    let before = k.checked_sub(1).map(|p| toks[p]);
                    let decl = before.is_some_and(|b| {
                        (b.kind == TokenKind::Ident && !NOT_A_TYPE.contains(&b.text.as_str()))
                            || b.is_punct("*")
                            || b.is_punct("&")
                            || b.is_punct(">")
                    });
                    if decl {
                        let close = matching(toks, i);
                        if close < toks.len() {
                            declared
                                .entry(toks[k].text.as_str())
                                .or_default()
                                .push(args(toks, i, close).len());
                        }
                    }
                }
            }
        }

        // The first argument of each `.SetGlobalBuffer(`: (open paren, end of arg 0).
        let mut sgb_arg: Vec<Option<(usize, usize)>> = vec![None; toks.len()];
        for (i, t) in toks.iter().enumerate() {
            if !t.is_ident("SetGlobalBuffer") {
                continue;
            }
            let member = i > 0 && (toks[i - 1].is_punct(".") || toks[i - 1].is_punct("->"));
            if !member {
                self.push(
                    t.line,
                    "raw_gm_access",
                    "`SetGlobalBuffer` may only be called as `tensor.SetGlobalBuffer(…)` on a GlobalTensor, not declared or called free".into(),
                );
                continue;
            }
            if !is_punct(toks.get(i + 1), "(") {
                continue;
            }
            let close = matching(toks, i + 1);
            if close >= toks.len() {
                continue;
            }
            if let Some(&(s, e)) = args(toks, i + 1, close).first() {
                for slot in sgb_arg.iter_mut().take(e).skip(s) {
                    *slot = Some((s, e));
                }
            }
        }

        // Scopes: the live GM names per open brace, and names pending for the next body.
        // A name declared at a brace that is not a function body (class, namespace, file)
        // stays live for the whole file.
        let mut global: BTreeSet<&str> = BTreeSet::new();
        {
            let mut stack: Vec<bool> = Vec::new(); // true = code block
            for (i, t) in toks.iter().enumerate() {
                if t.is_punct("{") {
                    let code = stack.last().copied().unwrap_or(false) || after_params(toks, i);
                    stack.push(code);
                } else if t.is_punct("}") {
                    stack.pop();
                } else if t.is_ident("GM_ADDR")
                    && is_ident(toks.get(i + 1))
                    && !stack.last().copied().unwrap_or(false)
                    && !in_parens(toks, i)
                {
                    global.insert(toks[i + 1].text.as_str());
                }
            }
        }
        let mut scopes: Vec<(bool, Vec<&str>)> = Vec::new();
        let mut pending: Vec<&str> = Vec::new();
        let mut paren_depth = 0usize;
        for (i, t) in toks.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| toks[p]);
            let next = toks.get(i + 1);
            if t.is_punct("(") {
                paren_depth += 1;
            } else if t.is_punct(")") {
                paren_depth = paren_depth.saturating_sub(1);
            } else if t.is_punct("{") {
                let code = scopes.last().is_some_and(|s| s.0) || after_params(toks, i);
                scopes.push((code, std::mem::take(&mut pending)));
            } else if t.is_punct("}") {
                scopes.pop();
            } else if t.is_punct(";") && paren_depth == 0 {
                pending.clear();
            }

            if t.is_ident("GM_ADDR") {
                if is_ident(next) {
                    let n = toks[i + 1].text.as_str();
                    if paren_depth > 0 {
                        pending.push(n);
                    } else if let Some(s) = scopes.last_mut() {
                        s.1.push(n);
                    }
                } else if is_punct(next, "(")
                    || (prev.is_some_and(|p| p.is_punct("(")) && is_punct(next, ")"))
                {
                    self.push(
                        t.line,
                        "raw_gm_access",
                        "a cast to `GM_ADDR` makes a global-memory pointer out of any value".into(),
                    );
                } else if !(is_punct(next, ",") || is_punct(next, ")")) {
                    self.push(
                        t.line,
                        "raw_gm_access",
                        "`GM_ADDR` may only declare a parameter, member or variable".into(),
                    );
                }
                continue;
            }

            if t.is_ident("__gm__") {
                if !self.sgb_cast_at(toks, i, &sgb_arg) {
                    self.push(
                        t.line,
                        "raw_gm_access",
                        "`__gm__` is allowed only in the cast of `tensor.SetGlobalBuffer((__gm__ T*)x, n)`; use `GM_ADDR` for parameters".into(),
                    );
                }
                continue;
            }
            if t.is_ident("reinterpret_cast") {
                let ok = is_punct(next, "<")
                    && toks.get(i + 2).is_some_and(|x| x.is_ident("__gm__"))
                    && sgb_arg[i].is_some_and(|(s, _)| s == i);
                if !ok {
                    self.push(
                        t.line,
                        "raw_pointer",
                        "`reinterpret_cast` is allowed in a kernel only as `tensor.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), n)`".into(),
                    );
                }
                continue;
            }
            if t.is_punct("(") {
                let close = matching(toks, i);
                if close < toks.len() && pointer_cast(toks, i, close) {
                    let in_sgb =
                        sgb_arg[i].is_some_and(|(s, _)| s == i) && toks[i + 1].is_ident("__gm__");
                    let declarator = callee(toks, i).is_some() && !is_operand(toks.get(close + 1));
                    // `(__gm__ T*)` outside SetGlobalBuffer is reported at `__gm__`.
                    let gm = toks[i + 1].is_ident("__gm__");
                    if !in_sgb && !declarator && !gm {
                        self.push(
                            t.line,
                            "raw_pointer",
                            format!(
                                "a cast to the pointer type `{}`: kernels reach memory only through tensors",
                                toks[i + 1..close].iter().map(|x| x.text.as_str()).collect::<Vec<_>>().join(" ")
                            ),
                        );
                    }
                }
                continue;
            }

            if t.kind != TokenKind::Ident {
                continue;
            }
            let n = t.text.as_str();
            let live = global.contains(n)
                || pending.contains(&n)
                || scopes.iter().any(|s| s.1.contains(&n));
            if !live || prev.is_some_and(|p| p.is_ident("GM_ADDR")) {
                continue;
            }
            // Member access (`other.x`): only GM members are GM there.
            if prev.is_some_and(|p| p.is_punct(".") || p.is_punct("->")) && !global.contains(n) {
                continue;
            }
            if self.gm_use_allowed(
                toks, i, &sgb_arg, &gm_params, &declared, &global, &scopes, &pending,
            ) {
                continue;
            }
            self.push(
                t.line,
                "raw_gm_access",
                format!("`{n}` is a GM_ADDR (a raw global-memory pointer): a kernel may only pass it to `tensor.SetGlobalBuffer((__gm__ T*){n}, n)` or to its own function taking GM_ADDR; indexing, dereferencing, arithmetic or copies into other types bypass the simulator's GM checks and the cost model"),
            );
        }
    }

    /// True when `__gm__` at `i` opens the cast that starts `SetGlobalBuffer`'s first
    /// argument: `(__gm__ T*)x` or `reinterpret_cast<__gm__ T*>(x)`.
    fn sgb_cast_at(&self, toks: &[&Token], i: usize, sgb: &[Option<(usize, usize)>]) -> bool {
        let Some((s, _)) = sgb[i] else {
            return false;
        };
        if i == s + 1 && toks[s].is_punct("(") {
            let close = matching(toks, s);
            return close < toks.len() && pointer_cast(toks, s, close);
        }
        i == s + 2 && toks[s].is_ident("reinterpret_cast") && toks[s + 1].is_punct("<")
    }

    #[allow(clippy::too_many_arguments)]
    fn gm_use_allowed(
        &self,
        toks: &[&Token],
        i: usize,
        sgb: &[Option<(usize, usize)>],
        gm_params: &BTreeMap<&str, Vec<Vec<bool>>>,
        declared: &BTreeMap<&str, Vec<usize>>,
        global: &BTreeSet<&str>,
        scopes: &[(bool, Vec<&str>)],
        pending: &[&str],
    ) -> bool {
        let prev = i.checked_sub(1).map(|p| toks[p]);
        let next = toks.get(i + 1);
        let is_gm = |n: &str| {
            global.contains(n) || pending.contains(&n) || scopes.iter().any(|s| s.1.contains(&n))
        };
        // SetGlobalBuffer's first argument.
        if let Some((s, e)) = sgb[i] {
            let after_ok = i + 1 == e
                || next.is_some_and(|x| x.is_punct("+") || x.is_punct("-") || x.is_punct(")"));
            // Bare: `SetGlobalBuffer(x, n)` / `SetGlobalBuffer(x + k, n)`.
            if i == s && after_ok {
                return true;
            }
            // `(__gm__ T*)x …`
            if toks[s].is_punct("(") && toks[s + 1].is_ident("__gm__") {
                let close = matching(toks, s);
                if close + 1 == i && pointer_cast(toks, s, close) && after_ok {
                    return true;
                }
            }
            // `reinterpret_cast<__gm__ T*>(x)`
            if toks[s].is_ident("reinterpret_cast") {
                let gt = matching(toks, s + 1);
                if gt + 2 == i && toks[gt + 1].is_punct("(") && is_punct(next, ")") {
                    return true;
                }
            }
            return false;
        }
        // Assignment to this GM name: `x_ = …` (the value is checked where it is named).
        let statement_start = prev.is_none_or(|p| {
            [";", "{", "}", ")", ":"].iter().any(|q| p.is_punct(q))
                || p.is_ident("else")
                || (p.is_punct("->") && i >= 2 && toks[i - 2].is_ident("this"))
        });
        if next.is_some_and(|x| x.is_punct("=")) && statement_start {
            return true;
        }
        // `(void)x;`: marking an unused parameter.
        if next.is_some_and(|x| x.is_punct(";"))
            && i >= 3
            && toks[i - 1].is_punct(")")
            && toks[i - 2].is_ident("void")
            && toks[i - 3].is_punct("(")
        {
            return true;
        }
        // A GM member's initializer `: x_(…)` (its value is checked where it is named).
        if prev.is_some_and(|p| p.is_punct(":") || p.is_punct(","))
            && next.is_some_and(|x| x.is_punct("("))
            && global.contains(toks[i].text.as_str())
        {
            return true;
        }
        // A GM name's value into another GM name: `x_ = x;`, `GM_ADDR p = x;`.
        if prev.is_some_and(|p| p.is_punct("=")) && next.is_some_and(|x| x.is_punct(";")) && i >= 2
        {
            let lhs = toks[i - 2];
            if lhs.kind == TokenKind::Ident && is_gm(&lhs.text) {
                return true;
            }
        }
        // A whole call argument.
        if prev.is_some_and(|p| p.is_punct("(") || p.is_punct(","))
            && next.is_some_and(|x| x.is_punct(",") || x.is_punct(")"))
        {
            let Some(open) = enclosing_open(toks, i) else {
                return false;
            };
            let Some(k) = callee(toks, open) else {
                return false;
            };
            if k > 0 && toks[k - 1].is_punct("::") {
                return false; // qualified: a library function
            }
            let close = matching(toks, open);
            let pos = args(toks, open, close)
                .iter()
                .position(|&(s, e)| s <= i && i < e)
                .unwrap_or(usize::MAX);
            let name = toks[k].text.as_str();
            // `x_(x)`: a GM member's initializer.
            if is_gm(name) && pos == 0 && args(toks, open, close).len() == 1 {
                return true;
            }
            // `Type var(x, …)`: the constructor of `Type`.
            let fname = if k > 0
                && toks[k - 1].kind == TokenKind::Ident
                && !NOT_A_TYPE.contains(&toks[k - 1].text.as_str())
                && !gm_params.contains_key(name)
            {
                toks[k - 1].text.as_str()
            } else {
                name
            };
            let Some(decls) = gm_params.get(fname) else {
                return false;
            };
            // Every declaration with as many parameters as the call has arguments has
            // GM_ADDR at the argument's position.
            let arity = args(toks, open, close).len();
            let n_decl = declared
                .get(fname)
                .map_or(0, |v| v.iter().filter(|&&n| n == arity).count());
            let n_gm = decls
                .iter()
                .filter(|d| d.len() == arity && d.get(pos) == Some(&true))
                .count();
            return n_gm > 0 && n_gm >= n_decl;
        }
        false
    }
}

/// True when `{` at `i` opens a function body: it follows a parameter list, qualifiers, or
/// a constructor's member initializers.
fn after_params(toks: &[&Token], i: usize) -> bool {
    let mut k = i;
    while k > 0 {
        k -= 1;
        let t = toks[k];
        if t.is_punct(")") {
            return true;
        }
        if ["const", "noexcept", "override", "final", "mutable"]
            .iter()
            .any(|q| t.is_ident(q))
        {
            continue;
        }
        if t.is_punct("]") {
            // A lambda without parameters `[&] {`.
            return true;
        }
        return false;
    }
    false
}

/// True when token `i` is inside parentheses.
fn in_parens(toks: &[&Token], i: usize) -> bool {
    enclosing_open(toks, i).is_some()
}

/// The `(` of the innermost parenthesis around `i` (stopping at braces and `;`).
fn enclosing_open(toks: &[&Token], i: usize) -> Option<usize> {
    let mut depth = 0i32;
    for j in (0..i).rev() {
        let t = toks[j];
        if t.is_punct(")") {
            depth += 1;
        } else if t.is_punct("(") {
            if depth == 0 {
                return Some(j);
            }
            depth -= 1;
        } else if t.is_punct("{") || t.is_punct("}") || (t.is_punct(";") && depth == 0) {
            return None;
        }
    }
    None
}

/// True when `t` can start an operand (so a preceding `(T*)` is a cast, not a declarator).
fn is_operand(t: Option<&&Token>) -> bool {
    t.is_some_and(|t| {
        matches!(
            t.kind,
            TokenKind::Ident | TokenKind::Number | TokenKind::Str | TokenKind::Char
        ) || ["(", "*", "&", "-", "+", "!", "~", "::"]
            .iter()
            .any(|p| t.is_punct(p))
    })
}
