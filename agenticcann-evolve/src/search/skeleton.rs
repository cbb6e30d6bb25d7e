//! The pipeline skeleton of a kernel and the drift guard built on it (issue 16).
//!
//! In fix-loop mode a child must keep its parent's pipeline skeleton; a child that changes it
//! is rejected with the reasons [`compare`] gives, before the judge runs. The skeleton is read
//! from `kernel.cpp` with the judge's policy lexer ([`lex`]), not a second C++ lexer, and a
//! small structural reading of its tokens (brackets, function definitions, loops, calls).
//!
//! What the skeleton holds, and so what counts as drift:
//! - the **entry**: the `__global__` function's declaration (qualifiers, name, parameter
//!   types and names), whitespace normalized;
//! - every **`TQue` / `TQueBind` / `TBuf`** declaration: its kind, position(s) and queue
//!   depth (the template arguments). A depth given as a name resolves through
//!   `constexpr`/`const` definitions of that name (`constexpr int32_t BUFFER_NUM = 2;`) and
//!   object-like `#define NAME 2`. Buffers are matched by name first; an unmatched pair with
//!   the same kind, position and depth is a rename, not drift;
//! - the **stage loops**: every outermost `for` / `while` / `do` loop reached from the entry
//!   (through calls of functions defined in the file, inlined) with the stages its body
//!   performs: **CopyIn** (a `DataCopy`/`DataCopyPad` whose source is a `GlobalTensor`),
//!   **CopyOut** (one whose destination is a `GlobalTensor`) and **Compute** (a free call,
//!   not defined in the file, whose first argument is a `LocalTensor`, declared so or `auto`
//!   from `AllocTensor`/`DeQue`/`Get`: `Add`, `Muls`, `Cast`, `ReduceSum`, …). Loops nested
//!   inside a stage loop belong to it. Loops are compared by position, their stages as sets
//!   (reordering stages inside a loop is a schedule change, not a new skeleton).
//!
//! Not skeleton (tuning changes them freely): `InitBuffer` lengths and buffer counts (the
//! offline proposer's `buffer_num` is one), tile constants and any other constant not used
//! as a queue depth, expressions, local variable names, code outside loops other than
//! declarations and the entry.
//!
//! Limits (a reading of tokens, not a C++ front end): a depth that does not resolve to a
//! literal (a template parameter, an expression) is `None` and two `None`s compare equal;
//! code inside macros and lambdas is not followed; calls are followed [`MAX_CALL_DEPTH`]
//! deep, statements [`MAX_NESTING`] deep, and the walk visits at most [`MAX_STEPS`] tokens
//! ([`SkeletonError::TooComplex`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

use agenticcann_build::judge::policy::{lex, Token, TokenKind};
use serde::{Deserialize, Serialize};

/// The pipeline skeleton of one `kernel.cpp` (see the module documentation for what is in it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skeleton {
    /// The entry: `extern "C" __global__ __aicore__ void NAME(params…)` — name and parameter
    /// types/names, tokens joined by single spaces (none inside parentheses' edges or before
    /// commas), e.g. `extern "C" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y)`.
    pub entry: String,
    /// Every TQue / TQueBind / TBuf declaration, in source order.
    pub buffers: Vec<BufferDecl>,
    /// The stage loops reached from the entry, in execution order.
    pub stages: Vec<StageLoop>,
}

/// One `TQue`, `TQueBind` or `TBuf` variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferDecl {
    /// `TQue`, `TQueBind` or `TBuf`.
    pub kind: String,
    /// The position: `VECIN`, `VECOUT`, `VECCALC`, … (the last name of the template
    /// argument, so `TPosition::VECIN` and `QuePosition::VECIN` agree); for `TQueBind` the
    /// source and destination joined by `->` (`VECIN->VECOUT`); empty for `TBuf<>` (the
    /// class default).
    pub position: String,
    /// The queue depth (the template argument) as a resolved literal; `None` for `TBuf` or
    /// when it is an expression or a name without a literal definition in the file.
    pub depth: Option<u32>,
    /// The variable's name.
    pub name: String,
}

/// A pipeline stage, as recognised from the APIs a loop body calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stage {
    /// GM → UB: a `DataCopy`/`DataCopyPad` whose source is a `GlobalTensor`.
    CopyIn,
    /// A vector operation on a `LocalTensor`.
    Compute,
    /// UB → GM: a `DataCopy`/`DataCopyPad` whose destination is a `GlobalTensor`.
    CopyOut,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::CopyIn => "CopyIn",
            Stage::Compute => "Compute",
            Stage::CopyOut => "CopyOut",
        })
    }
}

/// One outermost loop reached from the entry that performs at least one stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageLoop {
    /// The function whose body holds the loop (`Process`; the entry's name for a loop in
    /// the entry itself).
    pub function: String,
    /// 1-based line of the loop keyword.
    pub line: u32,
    /// The stages the loop performs (nested loops and called functions included), each
    /// once, in the order they first occur.
    pub stages: Vec<Stage>,
}

/// Why a skeleton cannot be extracted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkeletonError {
    /// The policy lexer rejected the source.
    #[error("kernel.cpp line {line}: {message}")]
    Lex {
        /// 1-based line.
        line: u32,
        /// What the lexer found.
        message: String,
    },
    /// A bracket is not closed, or closed by the wrong one.
    #[error("kernel.cpp line {line}: `{bracket}` is not matched")]
    Unbalanced {
        /// The bracket.
        bracket: String,
        /// 1-based line of it.
        line: u32,
    },
    /// No `__global__` function is defined.
    #[error("kernel.cpp defines no entry (an `extern \"C\" __global__ __aicore__ void NAME(...)` function)")]
    NoEntry,
    /// The calls reached from the entry, inlined, exceed the walk's budget (a call tree no
    /// real kernel has).
    #[error("kernel.cpp's call tree from the entry is too large to read (functions calling each other many times over); keep the parent's structure")]
    TooComplex,
    /// More than one `__global__` function is defined.
    #[error("kernel.cpp defines more than one entry: `{first}` (line {first_line}) and `{second}` (line {second_line})")]
    MultipleEntries {
        /// The first entry's name.
        first: String,
        /// Its line.
        first_line: u32,
        /// The second entry's name.
        second: String,
        /// Its line.
        second_line: u32,
    },
}

/// Why a child's skeleton differs from its parent's, in words a model can act on
/// ("the TQue inQueueX changed depth 2 → 1", "the entry signature changed: …", "stage loop 1
/// (in Process) lost CopyOut").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    /// One sentence per difference.
    pub reasons: Vec<String>,
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the child changes the pipeline skeleton: {}",
            self.reasons.join("; ")
        )
    }
}

impl fmt::Display for Skeleton {
    /// A compact description for prompts: the entry, the buffers and the stage loops.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "entry: {}", self.entry)?;
        let buffers: Vec<String> = self.buffers.iter().map(describe_buffer).collect();
        writeln!(
            f,
            "buffers: {}",
            if buffers.is_empty() {
                "none".to_string()
            } else {
                buffers.join(", ")
            }
        )?;
        if self.stages.is_empty() {
            writeln!(f, "stage loops: none")
        } else {
            for (i, l) in self.stages.iter().enumerate() {
                writeln!(
                    f,
                    "stage loop {} (in {}): {}",
                    i + 1,
                    l.function,
                    stage_list(&l.stages)
                )?;
            }
            Ok(())
        }
    }
}

fn describe_buffer(b: &BufferDecl) -> String {
    let mut s = format!("{} {}", b.kind, b.name);
    let mut parts = Vec::new();
    if !b.position.is_empty() {
        parts.push(b.position.clone());
    }
    if b.kind != "TBuf" {
        parts.push(format!("depth {}", depth_text(b.depth)));
    }
    if !parts.is_empty() {
        s.push_str(&format!(" ({})", parts.join(", ")));
    }
    s
}

fn depth_text(d: Option<u32>) -> String {
    d.map_or_else(|| "unresolved".to_string(), |d| d.to_string())
}

fn stage_list(stages: &[Stage]) -> String {
    if stages.is_empty() {
        return "nothing".to_string();
    }
    stages
        .iter()
        .map(Stage::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Extracts the pipeline skeleton of `kernel` (the text of a `kernel.cpp`).
///
/// # Errors
/// [`SkeletonError::Lex`] (with the line) for source the policy lexer rejects,
/// [`SkeletonError::Unbalanced`] for an unmatched bracket (a cut answer),
/// [`SkeletonError::NoEntry`] / [`SkeletonError::MultipleEntries`] unless exactly one
/// `__global__` function is defined.
pub fn extract(kernel: &str) -> Result<Skeleton, SkeletonError> {
    let all = lex(kernel.as_bytes()).map_err(|e| SkeletonError::Lex {
        line: e.line,
        message: e.message,
    })?;
    let (toks, defines) = split_directives(all);
    let src = Source::new(toks)?;
    let mut consts = src.constants();
    for (name, value) in defines {
        consts.insert(name, value);
    }
    let consts: HashMap<String, u32> = consts
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let buffers = src.buffers(&consts);
    let mut locals = src.declared_names("LocalTensor");
    locals.extend(src.auto_tensors());
    let globals = src.declared_names("GlobalTensor");
    let funcs = src.functions();
    let entries: Vec<&Function> = funcs.iter().filter(|f| f.global).collect();
    let entry = match entries.as_slice() {
        [] => return Err(SkeletonError::NoEntry),
        [one] => *one,
        [a, b, ..] => {
            return Err(SkeletonError::MultipleEntries {
                first: a.name.clone(),
                first_line: src.toks[a.name_at].line,
                second: b.name.clone(),
                second_line: src.toks[b.name_at].line,
            })
        }
    };
    let mut by_name: HashMap<&str, Vec<&Function>> = HashMap::new();
    for f in &funcs {
        by_name.entry(f.name.as_str()).or_default().push(f);
    }
    let mut walker = Walker {
        src: &src,
        funcs: &by_name,
        locals: &locals,
        globals: &globals,
        loops: Vec::new(),
        stack: Vec::new(),
        memo: HashMap::new(),
        steps: 0,
        nesting: 0,
    };
    walker.function(entry, &mut None);
    if walker.steps > MAX_STEPS {
        return Err(SkeletonError::TooComplex);
    }
    Ok(Skeleton {
        entry: src.entry_text(entry),
        buffers,
        stages: walker.loops,
    })
}

/// Compares a child's skeleton with its parent's: `None` when they are the same skeleton,
/// else the differences (entry, buffers, stage loops; see the module documentation).
pub fn compare(parent: &Skeleton, child: &Skeleton) -> Option<Drift> {
    let mut reasons = Vec::new();
    if parent.entry != child.entry {
        reasons.push(format!(
            "the entry signature changed: `{}` → `{}` (keep the entry exactly as the parent has it)",
            parent.entry, child.entry
        ));
    }
    compare_buffers(&parent.buffers, &child.buffers, &mut reasons);
    compare_loops(&parent.stages, &child.stages, &mut reasons);
    (!reasons.is_empty()).then_some(Drift { reasons })
}

fn noun(b: &BufferDecl) -> &'static str {
    if b.kind == "TBuf" {
        "buffer"
    } else {
        "queue"
    }
}

fn compare_buffers(parent: &[BufferDecl], child: &[BufferDecl], reasons: &mut Vec<String>) {
    let mut p_left: Vec<&BufferDecl> = Vec::new();
    let mut c_used = vec![false; child.len()];
    for p in parent {
        match child
            .iter()
            .enumerate()
            .find(|(i, c)| !c_used[*i] && c.name == p.name)
        {
            Some((i, c)) => {
                c_used[i] = true;
                if c.kind != p.kind {
                    reasons.push(format!(
                        "the {} {} changed from {} to {}",
                        noun(p),
                        p.name,
                        p.kind,
                        c.kind
                    ));
                    continue;
                }
                if c.position != p.position {
                    reasons.push(format!(
                        "the {} {} {} changed position {} → {}",
                        noun(p),
                        p.kind,
                        p.name,
                        or_default(&p.position),
                        or_default(&c.position)
                    ));
                }
                if c.depth != p.depth {
                    reasons.push(format!(
                        "the {} {} {} changed depth {} → {}",
                        noun(p),
                        p.kind,
                        p.name,
                        depth_text(p.depth),
                        depth_text(c.depth)
                    ));
                }
            }
            None => p_left.push(p),
        }
    }
    // Unmatched names: a child buffer of the same kind, position and depth is a rename.
    let same = |a: &BufferDecl, b: &BufferDecl| {
        a.kind == b.kind && a.position == b.position && a.depth == b.depth
    };
    for p in p_left {
        match child
            .iter()
            .enumerate()
            .find(|(i, c)| !c_used[*i] && same(p, c))
        {
            Some((i, _)) => c_used[i] = true,
            None => reasons.push(format!(
                "the {} {} was removed (keep every queue and buffer of the parent)",
                noun(p),
                describe_buffer(p)
            )),
        }
    }
    for (c, used) in child.iter().zip(&c_used) {
        if !used {
            reasons.push(format!(
                "a {} {} was added (the parent's queues and buffers must stay as they are)",
                noun(c),
                describe_buffer(c)
            ));
        }
    }
}

fn or_default(position: &str) -> &str {
    if position.is_empty() {
        "(default)"
    } else {
        position
    }
}

fn compare_loops(parent: &[StageLoop], child: &[StageLoop], reasons: &mut Vec<String>) {
    let list = |loops: &[StageLoop]| -> String {
        if loops.is_empty() {
            return "none".to_string();
        }
        loops
            .iter()
            .map(|l| format!("in {}: {}", l.function, stage_list(&l.stages)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if parent.len() != child.len() {
        reasons.push(format!(
            "the number of stage loops changed {} → {} (parent: {}; child: {})",
            parent.len(),
            child.len(),
            list(parent),
            list(child)
        ));
        return;
    }
    for (i, (p, c)) in parent.iter().zip(child).enumerate() {
        let ps: BTreeSet<Stage> = p.stages.iter().copied().collect();
        let cs: BTreeSet<Stage> = c.stages.iter().copied().collect();
        let lost: Vec<String> = ps.difference(&cs).map(Stage::to_string).collect();
        let gained: Vec<String> = cs.difference(&ps).map(Stage::to_string).collect();
        if !lost.is_empty() {
            reasons.push(format!(
                "stage loop {} (in {}) lost {}",
                i + 1,
                p.function,
                lost.join(", ")
            ));
        }
        if !gained.is_empty() {
            reasons.push(format!(
                "stage loop {} (in {}) gained {}",
                i + 1,
                p.function,
                gained.join(", ")
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reading the tokens.

/// Removes preprocessing directives from the token stream; returns the rest and the
/// object-like `#define NAME <integer>` constants (`None` for a value that is not one).
fn split_directives(all: Vec<Token>) -> (Vec<Token>, Vec<(String, Option<u32>)>) {
    let mut code = Vec::with_capacity(all.len());
    let mut defines = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if all[i].line_start && all[i].is_punct("#") {
            let mut j = i + 1;
            while j < all.len() && !all[j].line_start {
                j += 1;
            }
            let d = &all[i + 1..j];
            if d.len() == 3 && d[0].is_ident("define") && d[1].kind == TokenKind::Ident {
                let v = (d[2].kind == TokenKind::Number)
                    .then(|| parse_int(&d[2].text))
                    .flatten();
                defines.push((d[1].text.clone(), v));
            }
            i = j;
        } else {
            code.push(all[i].clone());
            i += 1;
        }
    }
    (code, defines)
}

/// An integer literal's value (decimal, hex, binary or octal, `'` separators and `uUlL`
/// suffixes allowed) when it fits a `u32`.
fn parse_int(text: &str) -> Option<u32> {
    let t: String = text.chars().filter(|c| *c != '\'').collect();
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    u32::from_str_radix(digits, radix).ok()
}

/// A function definition.
struct Function {
    name: String,
    /// Index of the name token.
    name_at: usize,
    /// Index where the declaration starts (after the previous `;`, `{`, `}`, `:` of an
    /// access specifier).
    decl_start: usize,
    /// Index of the parameter list's `)`.
    params_close: usize,
    /// Indices of the body's `{` and `}`.
    body: (usize, usize),
    /// Declared `__global__`.
    global: bool,
}

const NOT_FUNCTIONS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "alignof",
    "alignas",
    "decltype",
    "static_assert",
    "noexcept",
    "throw",
    "new",
    "delete",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "dynamic_cast",
    "__attribute__",
];

struct Source {
    toks: Vec<Token>,
    /// For each bracket token, the index of its partner.
    partner: Vec<Option<usize>>,
    /// For each token, the innermost enclosing bracket's opening text (`(`, `[`, `{`) or 0.
    inside: Vec<u8>,
}

impl Source {
    fn new(toks: Vec<Token>) -> Result<Source, SkeletonError> {
        let mut partner = vec![None; toks.len()];
        let mut inside = vec![0u8; toks.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            inside[i] = stack.last().map_or(0, |&o| {
                toks[o].text.as_bytes().first().copied().unwrap_or(0)
            });
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text.as_str() {
                "(" | "[" | "{" => stack.push(i),
                ")" | "]" | "}" => {
                    let want = match t.text.as_str() {
                        ")" => "(",
                        "]" => "[",
                        _ => "{",
                    };
                    match stack.pop() {
                        Some(o) if toks[o].text == want => {
                            partner[o] = Some(i);
                            partner[i] = Some(o);
                            inside[i] = inside[o];
                        }
                        // Report the bracket left open when there is one (a `(` never
                        // closed before a `}`), else the stray closing one.
                        Some(o) => {
                            return Err(SkeletonError::Unbalanced {
                                bracket: toks[o].text.clone(),
                                line: toks[o].line,
                            })
                        }
                        None => {
                            return Err(SkeletonError::Unbalanced {
                                bracket: t.text.clone(),
                                line: t.line,
                            })
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(&o) = stack.last() {
            return Err(SkeletonError::Unbalanced {
                bracket: toks[o].text.clone(),
                line: toks[o].line,
            });
        }
        Ok(Source {
            toks,
            partner,
            inside,
        })
    }

    fn tok(&self, i: usize) -> Option<&Token> {
        self.toks.get(i)
    }

    fn is_punct(&self, i: usize, p: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is_punct(p))
    }

    fn is_ident(&self, i: usize, name: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is_ident(name))
    }

    /// The partner of the bracket at `i`, or `i` itself for any other token.
    fn close(&self, i: usize) -> usize {
        self.partner.get(i).copied().flatten().unwrap_or(i)
    }

    /// For a `<` at `i`, the index of the `>` (or `>>`) closing it, skipping bracket groups;
    /// `None` when none does before a `;`, `{` or `}`.
    fn template_close(&self, i: usize) -> Option<usize> {
        let mut depth = 0i32;
        let mut j = i;
        while let Some(t) = self.tok(j) {
            if t.kind == TokenKind::Punct {
                match t.text.as_str() {
                    "<" => depth += 1,
                    ">" => depth -= 1,
                    ">>" => depth -= 2,
                    "(" | "[" => {
                        j = self.close(j);
                    }
                    ";" | "{" | "}" => return None,
                    _ => {}
                }
                if depth <= 0 {
                    return Some(j);
                }
            }
            j += 1;
        }
        None
    }

    /// `a , b` split at top-level commas of tokens `from..to` (bracket groups skipped).
    fn split_commas(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = from;
        let mut angle = 0i32;
        let mut j = from;
        while j < to {
            let t = &self.toks[j];
            if t.kind == TokenKind::Punct {
                match t.text.as_str() {
                    "(" | "[" | "{" => j = self.close(j),
                    "<" => angle += 1,
                    ">" if angle > 0 => angle -= 1,
                    ">>" if angle > 0 => angle = (angle - 2).max(0),
                    "," if angle == 0 => {
                        out.push((start, j));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            j += 1;
        }
        if start < to || !out.is_empty() {
            out.push((start, to));
        }
        out
    }

    /// `constexpr`/`const` integer definitions `NAME = literal` (or `NAME{literal}`); a name defined twice with different values maps to `None`.
    fn constants(&self) -> BTreeMap<String, Option<u32>> {
        let mut out: BTreeMap<String, Option<u32>> = BTreeMap::new();
        for i in 0..self.toks.len() {
            let t = &self.toks[i];
            if t.kind != TokenKind::Ident {
                continue;
            }
            let assigned = self.is_punct(i + 1, "=")
                && (self.is_punct(i + 3, ";") || self.is_punct(i + 3, ","));
            let braced = self.is_punct(i + 1, "{") && self.is_punct(i + 3, "}");
            if !(assigned || braced)
                || !self.tok(i + 2).is_some_and(|n| n.kind == TokenKind::Number)
            {
                continue;
            }
            let value = parse_int(&self.toks[i + 2].text);
            // The declaration must say `const` or `constexpr` before the name.
            let mut k = i;
            let mut is_const = false;
            while k > 0 {
                k -= 1;
                let b = &self.toks[k];
                if b.is_punct(";") || b.is_punct("{") || b.is_punct("}") || b.is_punct("(") {
                    break;
                }
                if b.is_ident("constexpr") || b.is_ident("const") {
                    is_const = true;
                    break;
                }
            }
            if !is_const {
                continue;
            }
            let slot = out.entry(t.text.clone()).or_insert(value);
            if *slot != value {
                *slot = None;
            }
        }
        out
    }

    /// The declarator names after a type ending at `after` (exclusive): `a, b = x, c[2];`.
    /// Empty unless the declaration is a plain variable declaration (not a parameter, a
    /// reference or pointer, or a nested template argument).
    fn declarators(&self, after: usize) -> Vec<String> {
        let mut names = Vec::new();
        let mut j = after;
        while let Some(t) = self.tok(j).filter(|t| t.kind == TokenKind::Ident) {
            names.push(t.text.clone());
            j += 1;
            // Skip an initializer or array bound up to the next top-level `,` or `;`.
            while let Some(t) = self.tok(j) {
                if t.is_punct(",") || t.is_punct(";") {
                    break;
                }
                if t.is_punct("(") || t.is_punct("[") || t.is_punct("{") {
                    j = self.close(j);
                }
                if t.is_punct(")") || t.is_punct("}") {
                    // The end of an enclosing group: not a declaration we read.
                    return names;
                }
                j += 1;
            }
            if self.is_punct(j, ",") {
                j += 1;
            } else {
                break;
            }
        }
        names
    }

    /// Every `TQue`/`TQueBind`/`TBuf` variable declaration.
    fn buffers(&self, consts: &HashMap<String, u32>) -> Vec<BufferDecl> {
        let mut out = Vec::new();
        for i in 0..self.toks.len() {
            let t = &self.toks[i];
            let kind = match t.text.as_str() {
                "TQue" | "TQueBind" | "TBuf" if t.kind == TokenKind::Ident => t.text.clone(),
                _ => continue,
            };
            if self.inside[i] == b'(' || !self.is_punct(i + 1, "<") {
                continue;
            }
            let Some(close) = self.template_close(i + 1) else {
                continue;
            };
            if !self.is_punct(close, ">") {
                continue;
            }
            let args: Vec<(usize, usize)> = self.split_commas(i + 2, close);
            let last_name = |(a, b): (usize, usize)| -> String {
                self.toks[a..b]
                    .iter()
                    .rev()
                    .find(|t| t.kind == TokenKind::Ident)
                    .map(|t| t.text.clone())
                    .unwrap_or_default()
            };
            let depth_of = |(a, b): (usize, usize)| -> Option<u32> {
                let toks = &self.toks[a..b];
                match toks {
                    [n] if n.kind == TokenKind::Number => parse_int(&n.text),
                    _ => {
                        // `NAME` or `ns::NAME`.
                        let plain = toks.iter().enumerate().all(|(k, t)| {
                            if k % 2 == 0 {
                                t.kind == TokenKind::Ident
                            } else {
                                t.is_punct("::")
                            }
                        });
                        if plain && toks.len() % 2 == 1 {
                            consts.get(&toks[toks.len() - 1].text).copied()
                        } else {
                            None
                        }
                    }
                }
            };
            let (position, depth) = match kind.as_str() {
                "TQue" => (
                    args.first().map(|a| last_name(*a)).unwrap_or_default(),
                    args.get(1).and_then(|a| depth_of(*a)),
                ),
                "TQueBind" => (
                    format!(
                        "{}->{}",
                        args.first().map(|a| last_name(*a)).unwrap_or_default(),
                        args.get(1).map(|a| last_name(*a)).unwrap_or_default()
                    ),
                    args.get(2).and_then(|a| depth_of(*a)),
                ),
                _ => (
                    args.first().map(|a| last_name(*a)).unwrap_or_default(),
                    None,
                ),
            };
            for name in self.declarators(close + 1) {
                out.push(BufferDecl {
                    kind: kind.clone(),
                    position: position.clone(),
                    depth,
                    name,
                });
            }
        }
        out
    }

    /// The names declared with type `ty<...>` anywhere: variables, members and parameters
    /// (`const LocalTensor<float>& dst`).
    fn declared_names(&self, ty: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        for i in 0..self.toks.len() {
            if !self.is_ident(i, ty) || !self.is_punct(i + 1, "<") {
                continue;
            }
            let Some(close) = self.template_close(i + 1) else {
                continue;
            };
            let mut j = close + 1;
            while self.is_punct(j, "&") || self.is_punct(j, "*") || self.is_punct(j, "&&") {
                j += 1;
            }
            if self.inside[i] == b'(' {
                if let Some(t) = self.tok(j).filter(|t| t.kind == TokenKind::Ident) {
                    out.insert(t.text.clone());
                }
            } else {
                out.extend(self.declarators(j));
            }
        }
        out
    }

    /// The names declared `auto` (or `auto&`) from a call that yields a `LocalTensor`:
    /// `auto x = inQ.DeQue<half>();`, `auto t = buf.Get<float>();`.
    fn auto_tensors(&self) -> HashSet<String> {
        const YIELDS_LOCAL: [&str; 5] = [
            "AllocTensor",
            "DeQue",
            "Get",
            "GetWithOffset",
            "ReinterpretCast",
        ];
        let mut out = HashSet::new();
        for i in 0..self.toks.len() {
            if !self.is_ident(i, "auto") {
                continue;
            }
            let mut j = i + 1;
            while self.is_punct(j, "&") || self.is_punct(j, "&&") {
                j += 1;
            }
            let Some(name) = self.tok(j).filter(|t| t.kind == TokenKind::Ident) else {
                continue;
            };
            if !self.is_punct(j + 1, "=") {
                continue;
            }
            let mut k = j + 2;
            while let Some(t) = self.tok(k) {
                if t.is_punct(";") || t.is_punct(",") || t.is_punct("{") || t.is_punct("}") {
                    break;
                }
                if t.kind == TokenKind::Ident && YIELDS_LOCAL.contains(&t.text.as_str()) {
                    out.insert(name.text.clone());
                    break;
                }
                k += 1;
            }
        }
        out
    }

    /// Every function definition (in classes or at namespace scope).
    fn functions(&self) -> Vec<Function> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.toks.len() {
            let t = &self.toks[i];
            let candidate = t.kind == TokenKind::Ident
                && !NOT_FUNCTIONS.contains(&t.text.as_str())
                && self.is_punct(i + 1, "(")
                && self.inside[i] != b'('
                && !(i > 0 && (self.is_punct(i - 1, ".") || self.is_punct(i - 1, "->")));
            if !candidate {
                i += 1;
                continue;
            }
            let params_close = self.close(i + 1);
            let mut k = params_close + 1;
            while self.tok(k).is_some_and(|t| {
                ["const", "override", "final", "noexcept", "volatile"]
                    .iter()
                    .any(|q| t.is_ident(q))
                    || t.is_punct("&")
            }) {
                k += 1;
            }
            if self.is_punct(k, ":") {
                // A constructor's member initializers: `: a(x), b{y} {`.
                k += 1;
                loop {
                    while self.tok(k).is_some_and(|t| {
                        t.kind == TokenKind::Ident
                            || t.is_punct("::")
                            || t.is_punct("<")
                            || t.is_punct(">")
                    }) {
                        k += 1;
                    }
                    if self.is_punct(k, "(") || self.is_punct(k, "{") {
                        k = self.close(k) + 1;
                    } else {
                        break;
                    }
                    if self.is_punct(k, ",") {
                        k += 1;
                    } else {
                        break;
                    }
                }
            }
            if !self.is_punct(k, "{") {
                i += 1;
                continue;
            }
            let body_close = self.close(k);
            // The declaration's start: after the previous `;`, `{`, `}` or access `:`.
            let mut s = i;
            while s > 0 {
                let b = &self.toks[s - 1];
                if b.is_punct(";") || b.is_punct("{") || b.is_punct("}") || b.is_punct(":") {
                    break;
                }
                s -= 1;
            }
            let global = self.toks[s..i].iter().any(|t| t.is_ident("__global__"));
            out.push(Function {
                name: t.text.clone(),
                name_at: i,
                decl_start: s,
                params_close,
                body: (k, body_close),
                global,
            });
            // Nested definitions (local classes) are rare in kernels; continue inside the
            // body so member functions of classes are still found.
            i = k + 1;
        }
        out
    }

    /// The entry's declaration text, tokens joined by single spaces.
    fn entry_text(&self, f: &Function) -> String {
        let mut s = String::new();
        let toks = &self.toks[f.decl_start..=f.params_close.min(self.toks.len() - 1)];
        for (k, t) in toks.iter().enumerate() {
            let prev = k.checked_sub(1).map(|p| &toks[p]);
            let glue = t.is_punct(",")
                || t.is_punct(")")
                || t.is_punct("(")
                || prev.is_some_and(|p| p.is_punct("("));
            if !s.is_empty() && !glue {
                s.push(' ');
            }
            s.push_str(&t.text);
        }
        s
    }

    /// The exclusive end of the statement starting at `i`.
    fn statement_end(&self, i: usize, limit: usize) -> usize {
        self.statement_end_at(i, limit, 0)
    }

    /// [`statement_end`](Self::statement_end) at nesting `depth`: past [`MAX_NESTING`]
    /// the rest of the range counts as the statement (no deep recursion on odd input).
    fn statement_end_at(&self, mut i: usize, limit: usize, depth: usize) -> usize {
        loop {
            let Some(t) = self.tok(i) else { return limit };
            if i >= limit || depth > MAX_NESTING {
                return limit;
            }
            if t.is_punct("{") {
                return (self.close(i) + 1).min(limit);
            }
            if ["for", "while", "switch"].iter().any(|k| t.is_ident(k)) && self.is_punct(i + 1, "(")
            {
                i = self.close(i + 1) + 1;
                continue;
            }
            if t.is_ident("if") {
                let mut j = i + 1;
                if self.is_ident(j, "constexpr") {
                    j += 1;
                }
                if self.is_punct(j, "(") {
                    let e = self.statement_end_at(self.close(j) + 1, limit, depth + 1);
                    if self.is_ident(e, "else") && e < limit {
                        i = e + 1;
                        continue;
                    }
                    return e;
                }
            }
            if t.is_ident("do") {
                let e = self.statement_end_at(i + 1, limit, depth + 1);
                if self.is_ident(e, "while") && self.is_punct(e + 1, "(") {
                    let after = self.close(e + 1) + 1;
                    return if self.is_punct(after, ";") {
                        (after + 1).min(limit)
                    } else {
                        after.min(limit)
                    };
                }
                return e;
            }
            let mut j = i;
            while j < limit {
                let t = &self.toks[j];
                if t.is_punct(";") {
                    return j + 1;
                }
                if t.is_punct("(") || t.is_punct("[") || t.is_punct("{") {
                    j = self.close(j);
                }
                j += 1;
            }
            return limit;
        }
    }
}

/// Walks the code reached from the entry, collecting stage loops.
struct Walker<'a> {
    src: &'a Source,
    funcs: &'a HashMap<&'a str, Vec<&'a Function>>,
    locals: &'a HashSet<String>,
    globals: &'a HashSet<String>,
    loops: Vec<StageLoop>,
    /// The functions being walked (recursion stops at a function already on it).
    stack: Vec<String>,
    /// The stages of a function called inside a loop, by name (its overloads together).
    memo: HashMap<String, Vec<Stage>>,
    /// Tokens visited so far; the walk gives up past [`MAX_STEPS`].
    steps: usize,
    /// Ranges being walked (loops and calls nest them); deeper than [`MAX_NESTING`] is not
    /// followed.
    nesting: usize,
}

/// The deepest nesting of statements and walked ranges followed (far above real kernels; a
/// bound so that odd input cannot exhaust the stack).
pub const MAX_NESTING: usize = 200;

/// The most tokens the walk visits (calls inlined) before giving up on a kernel: far above
/// any real kernel, low enough that a pathological call tree cannot stall the loop.
pub const MAX_STEPS: usize = 1 << 20;

/// The deepest call chain followed from the entry.
pub const MAX_CALL_DEPTH: usize = 32;

impl Walker<'_> {
    fn function(&mut self, f: &Function, sink: &mut Option<Vec<Stage>>) {
        if self.steps > MAX_STEPS
            || self.stack.len() >= MAX_CALL_DEPTH
            || self.stack.contains(&f.name)
        {
            return;
        }
        self.stack.push(f.name.clone());
        let name = f.name.clone();
        self.range(f.body.0 + 1, f.body.1, &name, sink);
        self.stack.pop();
    }

    /// The first identifier of tokens `a..b` other than `this` and casts.
    fn root(&self, (a, b): (usize, usize)) -> Option<&str> {
        self.src.toks[a..b]
            .iter()
            .find(|t| {
                t.kind == TokenKind::Ident
                    && !matches!(
                        t.text.as_str(),
                        "this" | "static_cast" | "reinterpret_cast" | "const_cast" | "const"
                    )
            })
            .map(|t| t.text.as_str())
    }

    fn emit(sink: &mut Option<Vec<Stage>>, s: Stage) {
        if let Some(v) = sink {
            if !v.contains(&s) {
                v.push(s);
            }
        }
    }

    fn range(&mut self, from: usize, to: usize, func: &str, sink: &mut Option<Vec<Stage>>) {
        if self.nesting >= MAX_NESTING {
            return;
        }
        self.nesting += 1;
        self.range_inner(from, to, func, sink);
        self.nesting -= 1;
    }

    fn range_inner(&mut self, from: usize, to: usize, func: &str, sink: &mut Option<Vec<Stage>>) {
        let src = self.src;
        let mut i = from;
        while i < to {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return;
            }
            let t = &src.toks[i];
            let is_loop = (t.is_ident("for") || t.is_ident("while")) && src.is_punct(i + 1, "(");
            if is_loop || t.is_ident("do") {
                let (body_from, end) = if is_loop {
                    let h = src.close(i + 1) + 1;
                    (h, src.statement_end(h, to))
                } else {
                    (i + 1, src.statement_end(i, to))
                };
                if sink.is_some() {
                    self.range(body_from, end, func, sink);
                } else {
                    let mut inner = Some(Vec::new());
                    self.range(body_from, end, func, &mut inner);
                    let stages = inner.unwrap_or_default();
                    if !stages.is_empty() {
                        self.loops.push(StageLoop {
                            function: func.to_string(),
                            line: t.line,
                            stages,
                        });
                    }
                }
                i = end.max(i + 1);
                continue;
            }
            if t.kind == TokenKind::Ident {
                // `name(` or `name<…>(`.
                let mut open = i + 1;
                if src.is_punct(open, "<") {
                    if let Some(c) = src.template_close(open) {
                        open = c + 1;
                    }
                }
                if src.is_punct(open, "(") {
                    let close = src.close(open);
                    let member = i > 0 && (src.is_punct(i - 1, ".") || src.is_punct(i - 1, "->"));
                    if t.text == "DataCopy" || t.text == "DataCopyPad" {
                        let args = src.split_commas(open + 1, close);
                        let root = |k: usize| args.get(k).and_then(|a| self.root(*a));
                        if root(1).is_some_and(|r| self.globals.contains(r)) {
                            Self::emit(sink, Stage::CopyIn);
                        } else if root(0).is_some_and(|r| self.globals.contains(r)) {
                            Self::emit(sink, Stage::CopyOut);
                        }
                    } else if let Some(defs) = self.funcs.get(t.text.as_str()) {
                        let defs: Vec<&Function> = defs.clone();
                        if sink.is_some() {
                            // Inside a loop a function's stages do not depend on the call.
                            let stages = match self.memo.get(&t.text) {
                                Some(s) => s.clone(),
                                None => {
                                    let mut inner = Some(Vec::new());
                                    for f in defs {
                                        self.function(f, &mut inner);
                                    }
                                    let s = inner.unwrap_or_default();
                                    self.memo.insert(t.text.clone(), s.clone());
                                    s
                                }
                            };
                            for s in stages {
                                Self::emit(sink, s);
                            }
                        } else {
                            for f in defs {
                                self.function(f, sink);
                            }
                        }
                    } else if !member {
                        let args = src.split_commas(open + 1, close);
                        if args
                            .first()
                            .and_then(|a| self.root(*a))
                            .is_some_and(|r| self.locals.contains(r))
                        {
                            Self::emit(sink, Stage::Compute);
                        }
                    }
                }
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literals() {
        assert_eq!(parse_int("2"), Some(2));
        assert_eq!(parse_int("0x10u"), Some(16));
        assert_eq!(parse_int("1'000"), Some(1000));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(parse_int("1.5f"), None);
    }

    #[test]
    fn unbalanced_brackets_are_errors_with_lines() {
        let e = extract("void f() {\n  int a = (1;\n}\n").unwrap_err();
        assert!(
            matches!(e, SkeletonError::Unbalanced { line: 2, .. }),
            "{e:?}"
        );
        let e = extract("extern \"C\" __global__ void k() {\n").unwrap_err();
        assert!(
            matches!(e, SkeletonError::Unbalanced { line: 1, .. }),
            "{e:?}"
        );
    }
}
