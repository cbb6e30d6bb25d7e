//! What `cargo agenticcann` prints with `--message-format json`, one serde type per
//! message: these types *are* the JSON schema (as nextest-metadata is nextest's). Each
//! message is one JSON object on one line of stdout ([`emit`]); fields are only ever added.
//! Optional fields are `null` when absent unless marked otherwise.
//!
//! | command            | message                                  |
//! |--------------------|------------------------------------------|
//! | `check`            | one [`CheckOp`] per op                   |
//! | `judge`            | one [`JudgeEntry`] per entry folder      |
//! | `synth`            | one [`SynthFused`]; `--eager`: one [`SynthEager`] |
//! | `knowledge show`   | one [`KnowledgeShow`]                    |
//! | `knowledge check`  | one [`KnowledgeCheck`], or [`KnowledgeLoadFailed`] |
//! | `status`, `push`, `fetch` | one [`StoreOp`] per op            |
//! | `verify`           | one [`VerifyOp`] per op                  |
//! | `review`           | one [`ReviewOp`] per op                  |
//! | `accept`, `reject` | one [`DecideOp`] per op acted on or named |
//!
//! A new subcommand adds its message type here and prints it with [`emit`].

use std::collections::BTreeMap;
use std::io::{self, Write};

use agenticcann_build::judge::Evaluation;
use agenticcann_build::spec::Problem;
use serde::Serialize;

/// Prints `message` as one JSON line.
///
/// # Errors
/// Writing to `out` failed.
pub fn emit(out: &mut impl Write, message: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, message)?;
    writeln!(out)
}

// ---- check ----------------------------------------------------------------------------

/// One problem of a spec, as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    /// The field inside the op's table (`inputs.x`, `reference`, `shapes[0].rows`) or the
    /// metadata table (`soc`).
    pub field: String,
    /// The reason.
    pub message: String,
    /// 1-based line inside the reference, for reference errors (omitted otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column inside the reference, for reference errors (omitted otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The reference line with carets, for reference errors (omitted otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

impl Diagnostic {
    /// A problem of `field` not tied to a place in the reference.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            field: field.into(),
            message: message.into(),
            line: None,
            column: None,
            snippet: None,
        }
    }
}

impl From<&Problem> for Diagnostic {
    fn from(p: &Problem) -> Self {
        Diagnostic {
            field: p.field.clone(),
            message: p.message.clone(),
            line: p.location.map(|l| l.0),
            column: p.location.map(|l| l.1),
            snippet: p.snippet.clone(),
        }
    }
}

/// A tensor of a valid op, with the verification settings that apply to it after defaults.
#[derive(Clone, Debug, Serialize)]
pub struct TensorInfo {
    /// The name.
    pub name: String,
    /// Dtype and shape as declared (`f16[rows, 4096]`).
    pub decl: String,
    /// Inputs: the distribution verification draws from (omitted for outputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
    /// Outputs: absolute tolerance (omitted for inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atol: Option<f64>,
    /// Outputs: relative tolerance (omitted for inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtol: Option<f64>,
}

/// `check`: the outcome of checking one op (or, with `op: null`, a package with problems
/// and no op to blame).
#[derive(Clone, Debug, Serialize)]
pub struct CheckOp {
    /// The package name.
    pub package: String,
    /// The package's `Cargo.toml`.
    pub manifest_path: String,
    /// The op's name.
    pub op: Option<String>,
    /// True when the spec is valid and its reference evaluated.
    pub ok: bool,
    /// The content key (64 hex digits), when the spec is valid.
    pub key: Option<String>,
    /// The target SoC.
    pub soc: Option<String>,
    /// The vector arch kernels compile for.
    pub arch: Option<String>,
    /// The declared pattern, or the knowledge router's
    /// (`agenticcann_evolve::knowledge::route`).
    pub pattern: Option<String>,
    /// True when `pattern` was routed rather than declared.
    pub pattern_guessed: bool,
    /// The binding of named dimensions the reference was evaluated on.
    pub evaluated_shape: Option<BTreeMap<String, usize>>,
    /// Inputs in manifest order (valid ops only).
    pub inputs: Vec<TensorInfo>,
    /// Outputs in manifest order (valid ops only).
    pub outputs: Vec<TensorInfo>,
    /// Why the spec is invalid.
    pub errors: Vec<Diagnostic>,
    /// Things that do not make the spec invalid but deserve a look.
    pub warnings: Vec<Diagnostic>,
}

// ---- judge ----------------------------------------------------------------------------

/// `judge`: one entry folder and its evaluation, or why it could not be read.
#[derive(Clone, Debug, Serialize)]
pub struct JudgeEntry<'a> {
    /// The folder as given on the command line.
    pub dir: String,
    /// The judge's full evaluation (outcome, diagnostics with kind/file/line/numbers,
    /// per-shape error metrics and profile, isolation, timings); omitted with `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<&'a Evaluation>,
    /// Why the entry cannot be read (bad manifest, key, digests); omitted with
    /// `evaluation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

// ---- synth ----------------------------------------------------------------------------

/// The time of one declared shape (one type with the evolution loop's records).
pub use agenticcann_evolve::search::population::ShapeTime;

/// Which kernel `synth` made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SynthMode {
    /// The offline proposer's fused kernel.
    Fused,
    /// The eager baseline (one kernel per primitive).
    Eager,
}

/// `synth`: the fused kernel, judged.
#[derive(Clone, Debug, Serialize)]
pub struct SynthFused<'a> {
    /// The op.
    pub op: String,
    /// Its content key (64 hex digits).
    pub key: String,
    /// Always [`SynthMode::Fused`].
    pub mode: SynthMode,
    /// Whether the judge accepted the kernel.
    pub accepted: bool,
    /// The entry folder written (`--out`), when one was.
    pub entry: Option<String>,
    /// The lock file it was pinned in (`--lock`), when it was.
    pub lock: Option<String>,
    /// Cost-model time per declared shape.
    pub time_us: Vec<ShapeTime>,
    /// The eager baseline's summed time per declared shape (accepted kernels, unless
    /// `--no-eager-ratio`).
    pub eager_time_us: Option<Vec<ShapeTime>>,
    /// Eager time over fused time, per declared shape.
    pub vs_eager: Option<Vec<f64>>,
    /// The judge's full evaluation.
    pub evaluation: &'a Evaluation,
}

/// `synth --eager`: the eager baseline, every kernel judged.
#[derive(Clone, Debug, Serialize)]
pub struct SynthEager<'a> {
    /// The op.
    pub op: String,
    /// Its content key (64 hex digits).
    pub key: String,
    /// Always [`SynthMode::Eager`].
    pub mode: SynthMode,
    /// Whether the judge accepted every kernel.
    pub accepted: bool,
    /// Number of kernels (launches).
    pub kernels: usize,
    /// Summed cost-model time per declared shape of the op.
    pub time_us: Vec<ShapeTime>,
    /// Each kernel's evaluation, in launch order.
    pub evaluations: Vec<&'a Evaluation>,
}

// ---- knowledge ------------------------------------------------------------------------

/// How the router chose the pattern.
#[derive(Clone, Debug, Serialize)]
pub struct RoutingInfo {
    /// The rule that decided (`Declared`, `MultiOutput`, …).
    pub rule: String,
    /// Why, in words.
    pub reason: String,
}

/// One chunk of an assembled prompt.
#[derive(Clone, Debug, Serialize)]
pub struct ChunkInfo {
    /// The chunk id (`L2.align32`).
    pub id: String,
    /// Its level (`L2`).
    pub level: String,
    /// sha256 of its file (hex).
    pub digest: String,
    /// Its tokens in the prompt.
    pub tokens: usize,
}

/// A chunk left out of a prompt.
#[derive(Clone, Debug, Serialize)]
pub struct OmittedInfo {
    /// The chunk id.
    pub id: String,
    /// `not_written` (an exemplar that does not exist yet) or `over_budget`.
    pub reason: String,
}

/// `knowledge show`: one assembled prompt and its accounting.
#[derive(Clone, Debug, Serialize)]
pub struct KnowledgeShow {
    /// The op (null with `--pattern`).
    pub op: Option<String>,
    /// The op's package (null with `--pattern`).
    pub package: Option<String>,
    /// The op's `Cargo.toml` (null with `--pattern`).
    pub manifest_path: Option<String>,
    /// The pattern assembled for.
    pub pattern: String,
    /// How the op was routed (null with `--pattern`).
    pub routing: Option<RoutingInfo>,
    /// The phase.
    pub phase: String,
    /// The tokenizer counting tokens (`cl100k_base`).
    pub tokenizer: String,
    /// Tokens of the prompt.
    pub tokens: usize,
    /// Tokens with the reserve of exemplars not written yet.
    pub worst_case_tokens: usize,
    /// The phase's budget.
    pub budget: usize,
    /// The prompt.
    pub text: String,
    /// The chunks used, in prompt order.
    pub chunks: Vec<ChunkInfo>,
    /// The chunks left out.
    pub omitted: Vec<OmittedInfo>,
    /// Error kinds (`--error`) no rule is written for.
    pub unmatched_kinds: Vec<String>,
}

/// One prompt's tokens against its budget.
#[derive(Clone, Debug, Serialize)]
pub struct BudgetInfo {
    /// The pattern.
    pub pattern: String,
    /// The phase.
    pub phase: String,
    /// Tokens of the prompt.
    pub tokens: usize,
    /// Tokens with the reserve of missing exemplars.
    pub worst_case: usize,
    /// The budget.
    pub budget: usize,
    /// `worst_case <= budget` and nothing was dropped.
    pub ok: bool,
    /// Chunks dropped to fit.
    pub over_budget: Vec<String>,
}

/// A repair prompt that cannot keep every rule written for its error kind.
#[derive(Clone, Debug, Serialize)]
pub struct TruncatedRepair {
    /// The error kind.
    pub kind: String,
    /// The pattern.
    pub pattern: String,
    /// The rules dropped.
    pub dropped: Vec<String>,
}

/// One pattern's exemplar.
#[derive(Clone, Debug, Serialize)]
pub struct ExemplarInfo {
    /// The pattern.
    pub pattern: String,
    /// `missing`, `verified` or `failed`.
    pub status: String,
    /// The judge's summary or the failure (null when missing).
    pub detail: Option<String>,
}

/// `knowledge check`: the knowledge base loaded and checked.
#[derive(Clone, Debug, Serialize)]
pub struct KnowledgeCheck {
    /// Whether everything holds.
    pub ok: bool,
    /// The folder checked, or `(embedded knowledge/)`.
    pub root: String,
    /// Chunks per level L0–L5.
    pub chunks_per_level: Vec<usize>,
    /// Every pattern and phase.
    pub budgets: Vec<BudgetInfo>,
    /// Repair prompts that lose rules.
    pub truncated_repairs: Vec<TruncatedRepair>,
    /// Diagnostic kinds no L2 rule names.
    pub uncovered_kinds: Vec<String>,
    /// Every pattern's exemplar.
    pub exemplars: Vec<ExemplarInfo>,
}

/// One problem of a knowledge base that does not load.
#[derive(Clone, Debug, Serialize)]
pub struct KnowledgeProblem {
    /// The file, relative to the knowledge root.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// `knowledge check`: the knowledge base does not load.
#[derive(Clone, Debug, Serialize)]
pub struct KnowledgeLoadFailed {
    /// Always false.
    pub ok: bool,
    /// The folder, or `(embedded knowledge/)`.
    pub root: String,
    /// Every problem.
    pub problems: Vec<KnowledgeProblem>,
}

// ---- status, push, fetch, verify ------------------------------------------------------

/// One declared op as the store sees it (`status`), or what `push` / `fetch` did with it.
#[derive(Clone, Debug, Serialize)]
pub struct StoreOp {
    /// The op's name.
    pub op: String,
    /// Its content key (hex).
    pub key: String,
    /// Where its entry is: `crate` (the crate's kernels folder), `cache` (the user cache),
    /// `remote <url>` (fetched now), `synthesized` (`status`: not in any store, but the last
    /// `cargo build` made one with the offline proposer in its OUT_DIR), or `none`.
    pub source: String,
    /// The entry's folder, when there is one that loads.
    pub entry: Option<String>,
    /// The entry's proposer (`hand`, `offline`, `llm`, `replay`).
    pub proposer: Option<String>,
    /// The lock state (`status` only; empty otherwise): `pinned`, `unpinned`, `stale (…)`,
    /// `MISMATCH (…)`, `pinned, entry missing`.
    pub lock: String,
    /// What is wrong (an entry that does not load, a refused upload, a remote miss).
    pub problem: Option<String>,
    /// `push`: `pushed`; `fetch`: `fetched` or `present` (already local); `status`: null.
    pub action: Option<String>,
    /// `status`: the op's pending result in the user cache, if any (null otherwise and for
    /// `push` / `fetch`).
    pub pending: Option<PendingNote>,
}

/// A pending result as `status` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct PendingNote {
    /// The pending result's folder (`<user cache>/pending/<key>`).
    pub dir: String,
    /// The generation that produced it (null when it cannot be read).
    pub generation: Option<u64>,
    /// Its speedup (geometric mean over the declared shapes) over the current kernel's
    /// recorded times, else over the offline seed's (`basis` says which); null when neither
    /// is known.
    pub speedup: Option<f64>,
    /// `current` or `baseline`; null with `speedup`.
    pub basis: Option<String>,
    /// Why the pending result cannot be used (a broken folder), if so.
    pub problem: Option<String>,
}

/// One op's entry re-judged by `verify`.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyOp<'a> {
    /// The op's name.
    pub op: String,
    /// Its content key (hex).
    pub key: String,
    /// The lock state, as in [`StoreOp::lock`].
    pub lock: String,
    /// Accepted by the judge and, when pinned, the pinned entry.
    pub accepted: bool,
    /// Why there was no evaluation (no entry, an entry that does not load).
    pub problem: Option<String>,
    /// The judge's evaluation.
    pub evaluation: Option<&'a Evaluation>,
}

// ---- review, accept, reject ------------------------------------------------------------

/// The kernel the build would use now, as `review` compares with it.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewCurrent {
    /// `crate`, `cache` or `none`.
    pub source: String,
    /// The entry's folder.
    pub entry: Option<String>,
    /// The entry's proposer.
    pub proposer: Option<String>,
    /// Why the entry in place cannot be used (compared as none), if so.
    pub problem: Option<String>,
}

/// One declared op in `review`: its pending result against the current kernel.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewOp<'a> {
    /// The op's name.
    pub op: String,
    /// Its content key (hex).
    pub key: String,
    /// The pending result's folder; null when the op has none.
    pub pending: Option<String>,
    /// Why the pending result cannot be read (a broken folder, named), if so.
    pub problem: Option<String>,
    /// The kernel the build uses now (null without a pending result).
    pub current: Option<ReviewCurrent>,
    /// The unified diffs of `kernel.cpp` and `tiling.cpp` (empty `unified`: identical).
    pub diff: Vec<agenticcann_evolve::pending::FileDiff>,
    /// Times per declared shape against the current kernel and the baseline, and the
    /// speedups.
    pub comparison: Option<agenticcann_evolve::pending::Comparison>,
    /// The pending entry's `[verification]` record.
    pub verification: Option<&'a agenticcann_build::store::Verification>,
    /// The pending entry's `[provenance]`.
    pub provenance: Option<&'a agenticcann_build::store::Provenance>,
    /// `pending.json`.
    pub meta: Option<&'a agenticcann_evolve::pending::PendingMeta>,
}

/// What `accept` / `reject` did for one op.
#[derive(Clone, Debug, Serialize)]
pub struct DecideOp {
    /// The op's name.
    pub op: String,
    /// Its content key (hex).
    pub key: String,
    /// `accepted`, `rejected`, or `none` (no pending result, or it was refused).
    pub action: String,
    /// `accept`: the crate entry written.
    pub entry: Option<String>,
    /// `accept`: the lock file and the pin written, `<lock>: <op> = <key> manifest <sha256>`.
    pub lock: Option<String>,
    /// The pending folder removed.
    pub dropped: Option<String>,
    /// Why nothing was done (no pending result, a refused or broken one).
    pub problem: Option<String>,
}
