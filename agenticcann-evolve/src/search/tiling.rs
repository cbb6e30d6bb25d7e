//! The offline tiling search: tiling variants of the offline proposer and of any parent.
//!
//! Both proposers spend no tokens and judge nothing: they return unjudged
//! [`Candidate`]s with a label saying what changed, for the loop to judge and add to the
//! population.
//!
//! - [`offline_grid`]: the offline proposer ([`agenticcann_build::synth::propose`]) over a
//!   grid of [`TilingParams`] (largest tile, buffers per queue, cores, tiles per core) and of
//!   its code forms (row statistics, fast math), wider than the variants `build.rs`'s
//!   [`synth::search`](agenticcann_build::synth::search) tries.
//! - [`parent_variants`]: for any parent kernel (one an LLM wrote, say), the integer
//!   constants its sources expose, each changed on its own.
//!
//! ```no_run
//! use agenticcann_evolve::search::tiling::{offline_grid, parent_variants};
//! # fn demo(op: &agenticcann_build::spec::OpSpec) {
//! for v in offline_grid(op, 16) {
//!     println!("{}", v.label); // "offline tile=32768 bufs=2 blocks=all tpc=4"
//!     for child in parent_variants(&v.candidate, 4) {
//!         println!("  {}", child.label); // "parent: BUFFER_NUM 2→1 (kernel.cpp)"
//!     }
//! }
//! # }
//! ```

use agenticcann_build::judge::policy::lexer::{lex, Token, TokenKind};
use agenticcann_build::judge::Candidate;
use agenticcann_build::spec::OpSpec;
use agenticcann_build::synth::{code_key, propose, RowStats, SynthOptions, TilingParams};

/// Where a [`TilingVariant`] comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantOrigin {
    /// The offline proposer with these options.
    Offline(SynthOptions),
    /// One integer constant of a parent kernel changed (the label says which).
    Parent,
}

/// A tiling variant: a label naming what changed (`"offline tile=32768 bufs=1 blocks=24
/// tpc=4"`, `"parent: TILE_LEN 4096→8192 (tiling.cpp)"`) and the unjudged candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilingVariant {
    /// What changed, for logs and the run's table.
    pub label: String,
    /// The candidate (not judged).
    pub candidate: Candidate,
    /// Which proposer made it.
    pub origin: VariantOrigin,
}

/// Largest tile, elements per input buffer; the first is [`TilingParams`]' default.
const GRID_TILE_ELEMS: [u64; 5] = [16384, 32768, 8192, 65536, 4096];
/// Buffers per queue; the first is the default (double buffering).
const GRID_BUFFER_NUM: [u32; 2] = [2, 1];
/// Most cores to launch; the first (65535) is the default, all of the platform's cores.
/// Fewer cores than rows can be faster when the rows do not divide evenly: the cores with
/// one row more set the time, and the others only compete with them for HBM bandwidth
/// (rms_norm, 50 rows on 48 cores of an Ascend910B1: 7.78 µs; on 25 to 44 cores: 7.71 µs).
const GRID_MAX_BLOCKS: [u32; 4] = [65535, 40, 32, 24];
/// Whole-row tiles per core; the first is the default.
const GRID_TILES_PER_CORE: [u32; 4] = [2, 4, 1, 8];
/// Row statistics; the first is the default.
const GRID_ROW_STATS: [RowStats; 3] = [RowStats::Tile, RowStats::Wide, RowStats::PerRow];
/// Fast-math forms; the first is the default (exact).
const GRID_FAST_MATH: [bool; 2] = [false, true];

/// The grid's option sets in [`offline_grid`]'s order: by how many of the six axes differ
/// from the default ([`SynthOptions::default`] first), then by the axes' value orders
/// (largest tile, buffers, cores, tiles per core, row statistics, fast math; each axis lists
/// its default first), so that a small `limit` keeps the one-change neighbours of the
/// default.
pub fn grid_options() -> Vec<SynthOptions> {
    let mut all: Vec<([usize; 6], SynthOptions)> = Vec::new();
    for (a, &max_tile_elems) in GRID_TILE_ELEMS.iter().enumerate() {
        for (b, &buffer_num) in GRID_BUFFER_NUM.iter().enumerate() {
            for (c, &max_blocks) in GRID_MAX_BLOCKS.iter().enumerate() {
                for (d, &tiles_per_core) in GRID_TILES_PER_CORE.iter().enumerate() {
                    for (e, &row_stats) in GRID_ROW_STATS.iter().enumerate() {
                        for (f, &fast_math) in GRID_FAST_MATH.iter().enumerate() {
                            let o = SynthOptions {
                                params: TilingParams {
                                    max_tile_elems,
                                    buffer_num,
                                    max_blocks,
                                    tiles_per_core,
                                },
                                row_stats,
                                fast_math,
                            };
                            all.push(([a, b, c, d, e, f], o));
                        }
                    }
                }
            }
        }
    }
    // Stable: within one distance the loops' (lexicographic) order is kept.
    all.sort_by_key(|(idx, _)| idx.iter().filter(|&&i| i != 0).count());
    all.into_iter().map(|(_, o)| o).collect()
}

/// The label of an offline option set: `"offline tile=16384 bufs=2 blocks=all tpc=2"`, with
/// `" stats=per-row"` and `" fast-math"` when those differ from the default.
pub fn offline_label(options: &SynthOptions) -> String {
    let p = &options.params;
    let blocks = if p.max_blocks == TilingParams::default().max_blocks {
        "all".to_string()
    } else {
        p.max_blocks.to_string()
    };
    let mut label = format!(
        "offline tile={} bufs={} blocks={blocks} tpc={}",
        p.max_tile_elems, p.buffer_num, p.tiles_per_core
    );
    match options.row_stats {
        RowStats::PerRow => label.push_str(" stats=per-row"),
        RowStats::Wide => label.push_str(" stats=wide"),
        RowStats::Tile => {}
    }
    if options.fast_math {
        label.push_str(" fast-math");
    }
    label
}

/// The offline proposer's kernels for `op` over the grid of [`grid_options`] (largest tile
/// 4096–65536 elements, one or two buffers per queue, all, 40, 32 or 24 cores, 1, 2, 4 or 8
/// tiles per core, tile-wide statistics with row loops or wide row operations, or per-row statistics, exact or fast math), in that order:
/// distinct candidates only (by [`code_key`]: code without whole-line comments, so option
/// sets the proposer renders identically appear once, under the first), at most `limit`.
/// Deterministic. An op the proposer cannot lower gives an empty vec, not an error; option
/// sets it rejects are skipped.
pub fn offline_grid(op: &OpSpec, limit: usize) -> Vec<TilingVariant> {
    let mut out: Vec<TilingVariant> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    if limit == 0 {
        return out;
    }
    for options in grid_options() {
        let Ok(candidate) = propose(op, &options) else {
            continue;
        };
        let key = code_key(&candidate);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        out.push(TilingVariant {
            label: offline_label(&options),
            candidate,
            origin: VariantOrigin::Offline(options),
        });
        if out.len() == limit {
            break;
        }
    }
    out
}

/// Which source file of a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum File {
    Tiling,
    Kernel,
}

impl File {
    fn name(self) -> &'static str {
        match self {
            File::Tiling => "tiling.cpp",
            File::Kernel => "kernel.cpp",
        }
    }

    fn text(self, c: &Candidate) -> &str {
        match self {
            File::Tiling => &c.tiling,
            File::Kernel => &c.kernel,
        }
    }
}

/// An integer literal as written: prefix (`0x`, or none), value, suffix (`u`, `UL`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
struct IntLiteral {
    hex: bool,
    value: u64,
    suffix: String,
}

impl IntLiteral {
    /// Reads a preprocessing number that is a decimal or hexadecimal integer literal
    /// (digit separators allowed, integer suffixes kept); octal, binary and floating
    /// literals are not read.
    fn parse(text: &str) -> Option<IntLiteral> {
        let t = text.replace('\'', "");
        let (hex, body) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(b) => (true, b),
            None => (false, t.as_str()),
        };
        let digits_end = body
            .find(|c: char| {
                !(if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                })
            })
            .unwrap_or(body.len());
        let (digits, suffix) = body.split_at(digits_end);
        if digits.is_empty() || (!hex && digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        let suffix_ok = suffix
            .chars()
            .all(|c| matches!(c, 'u' | 'U' | 'l' | 'L' | 'z' | 'Z'))
            && suffix.len() <= 3;
        if !suffix_ok {
            return None;
        }
        let value = u64::from_str_radix(digits, if hex { 16 } else { 10 }).ok()?;
        Some(IntLiteral {
            hex,
            value,
            suffix: suffix.to_string(),
        })
    }

    /// The literal with `value` in the same base and with the same suffix.
    fn with_value(&self, value: u64) -> String {
        if self.hex {
            format!("0x{value:X}{}", self.suffix)
        } else {
            format!("{value}{}", self.suffix)
        }
    }
}

/// One integer constant a parent's source exposes.
#[derive(Clone, Debug)]
struct Constant {
    /// Its name (the declared name, the macro, or the tiling field assigned).
    name: String,
    /// Index of the literal's token in the file's tokens.
    token: usize,
    literal: IntLiteral,
}

/// Whether tokens `[from, to)` are a declaration's specifiers and type up to its name:
/// `const` or `constexpr` among identifiers and `::`.
fn is_const_decl_prefix(tokens: &[Token], to: usize) -> bool {
    let mut saw_const = false;
    let mut i = to;
    while i > 0 {
        let t = &tokens[i - 1];
        match t.kind {
            TokenKind::Ident => {
                if t.text == "const" || t.text == "constexpr" {
                    saw_const = true;
                }
            }
            TokenKind::Punct if t.text == "::" => {}
            _ => break,
        }
        if t.line_start {
            break;
        }
        i -= 1;
    }
    saw_const && i < to
}

/// The integer constants of one file: `const`/`constexpr` declarations initialised with one
/// literal (`constexpr uint32_t TILE_LEN = 4096;`, `const int N{8};`), object-like macros
/// defined as one literal (`#define TILE 1024`) and, in `tiling.cpp`, a tiling field
/// assigned one literal (`tiling->tile_length = 4096;`, `t.tile_length = 4096;`).
fn constants(file: File, tokens: &[Token], fields: &[String]) -> Vec<Constant> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Number {
            continue;
        }
        let Some(literal) = IntLiteral::parse(&t.text) else {
            continue;
        };
        let prev = |k: usize| i.checked_sub(k).map(|j| &tokens[j]);
        let next = tokens.get(i + 1);
        let ends_statement = next.is_some_and(|n| n.is_punct(";") || n.is_punct(","));
        let name: Option<&str> = match (prev(1), prev(2), prev(3)) {
            // `#define NAME 123` and nothing after it on the directive's line.
            (Some(n), Some(d), Some(h))
                if n.kind == TokenKind::Ident
                    && d.is_ident("define")
                    && h.is_punct("#")
                    && h.line_start
                    && next.is_none_or(|n| n.line_start) =>
            {
                Some(&n.text)
            }
            // `const ... NAME = 123;` / `const ... NAME{123};`
            (Some(eq), Some(n), _)
                if n.kind == TokenKind::Ident
                    && ((eq.is_punct("=") && ends_statement)
                        || (eq.is_punct("{") && next.is_some_and(|n| n.is_punct("}"))))
                    && is_const_decl_prefix(tokens, i - 2) =>
            {
                Some(&n.text)
            }
            // `tiling->field = 123;` in tiling.cpp, for a field of the tiling struct.
            (Some(eq), Some(n), Some(arrow))
                if file == File::Tiling
                    && eq.is_punct("=")
                    && ends_statement
                    && n.kind == TokenKind::Ident
                    && (arrow.is_punct("->") || arrow.is_punct("."))
                    && fields.contains(&n.text) =>
            {
                Some(&n.text)
            }
            _ => None,
        };
        if let Some(name) = name {
            out.push(Constant {
                name: name.to_string(),
                token: i,
                literal,
            });
        }
    }
    out
}

/// Whether a constant's name says it is a queue's buffer count (`BUFFER_NUM`, `BUF_CNT`,
/// `bufferNum`, `QUEUE_DEPTH`, `BN`).
fn is_buffer_count(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    (n.contains("BUF") && (n.contains("NUM") || n.contains("CNT") || n.contains("COUNT")))
        || n.contains("DEPTH")
        || n == "BN"
}

/// The values a constant is tried at, in order: a buffer count 1↔2; any other value of at
/// least 2 doubled and halved, where a multiple of 32 (a size in bytes or elements, whose
/// 32-byte alignment is kept) is halved only to another multiple of 32; 0, 1 and names
/// with `ALIGN` (alignment facts, not tiling choices) are left alone.
fn new_values(c: &Constant) -> Vec<u64> {
    let v = c.literal.value;
    if is_buffer_count(&c.name) {
        return match v {
            1 => vec![2],
            2 => vec![1],
            _ => Vec::new(),
        };
    }
    if v < 2 || c.name.to_ascii_uppercase().contains("ALIGN") {
        return Vec::new();
    }
    let mut out = Vec::new();
    if v <= u64::from(u32::MAX) / 2 {
        out.push(v * 2);
    }
    let half = v / 2;
    if v % 2 == 0 && (v % 32 != 0 || half % 32 == 0) {
        out.push(half);
    }
    out
}

/// `text` with the literal that is token `index` of `tokens` (the tokens of `text`)
/// rewritten to `new`: only that token's bytes change, and the result is re-lexed to check
/// that it is the only token that changed (the literal is found among the occurrences of
/// its spelling on its line; one in a comment or another token is skipped). `None` when no
/// occurrence qualifies (e.g. a literal split by a line splice).
fn rewrite_literal(text: &str, tokens: &[Token], index: usize, new: &str) -> Option<String> {
    let tok = &tokens[index];
    let line_start: usize = text
        .split_inclusive('\n')
        .take(tok.line as usize - 1)
        .map(str::len)
        .sum();
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |n| line_start + n);
    let line = &text[line_start..line_end];
    for (at, _) in line.match_indices(tok.text.as_str()) {
        let start = line_start + at;
        let end = start + tok.text.len();
        let candidate = format!("{}{new}{}", &text[..start], &text[end..]);
        let Ok(relexed) = lex(candidate.as_bytes()) else {
            continue;
        };
        let only_this = relexed.len() == tokens.len()
            && relexed.iter().zip(tokens).enumerate().all(|(j, (a, b))| {
                if j == index {
                    a.kind == TokenKind::Number && a.text == new
                } else {
                    a == b
                }
            });
        if only_this {
            return Some(candidate);
        }
    }
    None
}

/// For any parent kernel (e.g. one an LLM wrote): the tiling constants it exposes, each
/// varied on its own — one changed literal per variant, at most `limit`, in source order
/// (`tiling.cpp` first, then `kernel.cpp`; per constant its values in the order below).
///
/// The constants are integer literals (decimal or hexadecimal, suffix kept) that are the
/// whole initialiser of a `const`/`constexpr` declaration (`constexpr uint32_t TILE_LEN =
/// 4096;`, `const int BUFFER_NUM = 2;`), the whole body of an object-like macro (`#define
/// TILE 1024`), or, in `tiling.cpp`, the whole value assigned to one of the candidate's
/// tiling fields (`tiling->tile_length = 4096;`). They are found with the judge's policy
/// lexer ([`lex`]), so comments, strings and expressions are never taken for constants.
/// Values tried: a buffer count (`BUFFER_NUM`, `BUF_CNT`, `*DEPTH*`, `BN`) 1↔2; any other value
/// ≥ 2 ×2 and ÷2, a multiple of 32 halved only to a multiple of 32 (32-byte alignment of
/// sizes); 0, 1 and `*ALIGN*` names are kept. Only the literal's bytes are rewritten;
/// labels read `"parent: TILE_LEN 4096→8192 (tiling.cpp)"`. A file the lexer rejects gives
/// no variants (the judge will report it on the parent).
pub fn parent_variants(parent: &Candidate, limit: usize) -> Vec<TilingVariant> {
    let fields: Vec<String> = parent
        .tiling_fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    let mut out = Vec::new();
    for file in [File::Tiling, File::Kernel] {
        let text = file.text(parent);
        let Ok(tokens) = lex(text.as_bytes()) else {
            continue;
        };
        for c in constants(file, &tokens, &fields) {
            for value in new_values(&c) {
                if out.len() >= limit {
                    return out;
                }
                let new = c.literal.with_value(value);
                let Some(rewritten) = rewrite_literal(text, &tokens, c.token, &new) else {
                    continue;
                };
                let mut candidate = parent.clone();
                match file {
                    File::Tiling => candidate.tiling = rewritten,
                    File::Kernel => candidate.kernel = rewritten,
                }
                out.push(TilingVariant {
                    label: format!(
                        "parent: {} {}→{} ({})",
                        c.name,
                        c.literal.value,
                        value,
                        file.name()
                    ),
                    candidate,
                    origin: VariantOrigin::Parent,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(kernel: &str, tiling: &str) -> Candidate {
        Candidate::new(kernel, tiling, Vec::new())
    }

    #[test]
    fn literals_parse_and_keep_base_and_suffix() {
        let l = IntLiteral::parse("4096u").unwrap();
        assert_eq!((l.value, l.with_value(8192)), (4096, "8192u".into()));
        let h = IntLiteral::parse("0x1000UL").unwrap();
        assert_eq!((h.value, h.with_value(0x2000)), (4096, "0x2000UL".into()));
        assert_eq!(IntLiteral::parse("1'024").unwrap().value, 1024);
        for not_int in ["1.5", "1e3", "2.0f", "010", "0b11", "12abc"] {
            assert_eq!(IntLiteral::parse(not_int), None, "{not_int}");
        }
    }

    #[test]
    fn constants_are_found_by_tokens_not_text() {
        let kernel = "\
// constexpr int COMMENTED = 64;
constexpr uint32_t TILE_LEN = 4096; // 4096 elements
static constexpr int32_t BUFFER_NUM = 2;
#define CHUNK 0x400
#define NOT_A_CONSTANT (CHUNK * 2)
const char* S = \"const int X = 8;\";
int mutable_value = 64;
const uint32_t EXPR = 64 * 2;
constexpr uint32_t UB_ALIGN = 32;
";
        let vs = parent_variants(&cand(kernel, ""), 100);
        let labels: Vec<&str> = vs.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "parent: TILE_LEN 4096→8192 (kernel.cpp)",
                "parent: TILE_LEN 4096→2048 (kernel.cpp)",
                "parent: BUFFER_NUM 2→1 (kernel.cpp)",
                "parent: CHUNK 1024→2048 (kernel.cpp)",
                "parent: CHUNK 1024→512 (kernel.cpp)",
            ]
        );
        // Only the literal changed; the trailing comment's `4096` is untouched.
        assert!(vs[0]
            .candidate
            .kernel
            .contains("TILE_LEN = 8192; // 4096 elements"));
        assert!(vs[3].candidate.kernel.contains("#define CHUNK 0x800\n"));
        assert_eq!(parent_variants(&cand(kernel, ""), 2).len(), 2);
    }

    #[test]
    fn tiling_fields_assigned_a_literal_are_constants() {
        let tiling =
            "int f(AgcTiling* tiling) { tiling->tile_length = 4096; tiling->other = 8; return 0; }";
        let mut c = cand("", tiling);
        c.tiling_fields = vec![agenticcann_build::store::TilingField {
            name: "tile_length".into(),
            ty: agenticcann_build::store::FieldType::U32,
        }];
        let labels: Vec<String> = parent_variants(&c, 10)
            .into_iter()
            .map(|v| v.label)
            .collect();
        assert_eq!(
            labels,
            [
                "parent: tile_length 4096→8192 (tiling.cpp)",
                "parent: tile_length 4096→2048 (tiling.cpp)"
            ]
        );
    }

    #[test]
    fn sizes_stay_32_byte_multiples_and_small_counts_halve() {
        let k = "constexpr int A = 32; constexpr int B = 48; constexpr int C = 6; constexpr int D = 1; constexpr int E = 0;";
        let labels: Vec<String> = parent_variants(&cand(k, ""), 100)
            .into_iter()
            .map(|v| v.label)
            .collect();
        assert_eq!(
            labels,
            [
                "parent: A 32→64 (kernel.cpp)",
                "parent: B 48→96 (kernel.cpp)",
                "parent: B 48→24 (kernel.cpp)",
                "parent: C 6→12 (kernel.cpp)",
                "parent: C 6→3 (kernel.cpp)",
            ]
        );
    }

    #[test]
    fn grid_starts_at_the_default_and_orders_by_distance() {
        let g = grid_options();
        assert_eq!(g[0], SynthOptions::default());
        let d = SynthOptions::default();
        let dist = |o: &SynthOptions| {
            [
                o.params.max_tile_elems != d.params.max_tile_elems,
                o.params.buffer_num != d.params.buffer_num,
                o.params.max_blocks != d.params.max_blocks,
                o.params.tiles_per_core != d.params.tiles_per_core,
                o.row_stats != d.row_stats,
                o.fast_math != d.fast_math,
            ]
            .iter()
            .filter(|&&b| b)
            .count()
        };
        assert!(g.windows(2).all(|w| dist(&w[0]) <= dist(&w[1])));
        assert_eq!(g.len(), 5 * 2 * 4 * 4 * 3 * 2);
    }
}
