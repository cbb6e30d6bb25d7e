//! Command-line arguments, shaped as cargo subcommands are: the binary is invoked as
//! `cargo-agenticcann agenticcann <subcommand>`.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `cargo` as it runs this binary.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo", styles = clap_cargo::style::CLAP_STYLING)]
pub enum Cargo {
    /// Verified Ascend C kernels for the operators your crate declares.
    #[command(name = "agenticcann", version, author)]
    Agenticcann(AgenticcannArgs),
}

/// Arguments after `cargo agenticcann`.
#[derive(Debug, Args)]
#[command(
    about = "Verified Ascend C kernels for the operators your crate declares",
    long_about = "Verified Ascend C kernels for the operators your crate declares in \
                  [package.metadata.agenticcann]."
)]
pub struct AgenticcannArgs {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate operator specs and print their content keys.
    #[command(long_about = CHECK_LONG_ABOUT)]
    Check(CheckArgs),
    /// Inspect and check the knowledge base that prompts are assembled from.
    #[command(subcommand)]
    Knowledge(KnowledgeCommand),
    /// Judge kernel entries: policy, compile, run, verify and profile on the simulator.
    #[command(long_about = JUDGE_LONG_ABOUT)]
    Judge(JudgeArgs),
    /// Propose a kernel with the offline proposer (or its eager baseline), verify it with the
    /// judge and write it in the store layout.
    #[command(long_about = SYNTH_LONG_ABOUT)]
    Synth(SynthArgs),
    /// Every declared op with its key, where its kernel comes from, its lock state and the
    /// backend (exit 1 when an op has no usable local kernel).
    Status(StatusArgs),
    /// Re-judge the entry of every locked op (every op with --all); exit 1 on any failure.
    Verify(VerifyArgs),
    /// Upload the crate's entries (crate kernels or user cache) to the remote store
    /// (AGENTICCANN_REMOTE, the Bazel HTTP cache protocol).
    Push(PushArgs),
    /// Download the entries the crate lacks from the remote store into the user cache,
    /// verified as a build verifies them.
    Fetch(FetchArgs),
    /// Show each op's pending result (from `evolve`, in the user cache) against the kernel the
    /// build uses now: diff, verification, profile, speedup, provenance.
    #[command(long_about = REVIEW_LONG_ABOUT)]
    Review(ReviewArgs),
    /// Write pending results into the crate: `kernels/<key>/` and agenticcann.lock.
    #[command(long_about = ACCEPT_LONG_ABOUT)]
    Accept(AcceptArgs),
    /// Drop pending results (nothing is written into the crate).
    #[command(long_about = REJECT_LONG_ABOUT)]
    Reject(DecideArgs),
    /// The evolution loop: generation 1 by a tool-using LLM agent (or an external coding
    /// agent) with the offline seed, later generations by mutation, repair and tuning
    /// prompts; every candidate judged; the best left pending for review.
    #[command(long_about = crate::evolve::LONG_ABOUT)]
    Evolve(crate::evolve::EvolveArgs),
    /// Run the benchmark suite (tests/bench/suite) and write one table of feasibility,
    /// time, speedup vs the eager recipe and the vendor-fused model, and roofline fraction.
    #[command(long_about = crate::bench::LONG_ABOUT)]
    Bench(crate::bench::BenchArgs),
}

const SYNTH_LONG_ABOUT: &str = "\
Generate a kernel for op NAME with the offline proposer (agenticcann_build::synth: the reference \
lowered to fp32 vector code over a row view, double-buffered tiles, no LLM), evaluate it with \
the judge (policy, compile, run, verification on declared, held-out and stress shapes, cost-model \
profile) and print the verdict with the time of each declared shape. With --eager, the eager \
baseline instead: one kernel per primitive operation of the reference, each judged; the times \
are summed. Without --eager, the eager baseline is also timed (declared shapes only) and the \
speedup printed as \"vs eager\" (skip with --no-eager-ratio).

With --out DIR, the accepted entry is written to DIR/<key>/ (manifest.toml with provenance \
offline and the verification and performance records, kernel.cpp, tiling.cpp); with --eager, \
each primitive's entry is written under DIR. An entry already in DIR for the key that holds a \
different kernel is kept and nothing is written (exit 1) unless --replace is given. With --lock \
as well, the written entry is pinned in the crate's agenticcann.lock (the lock is read before \
the judge runs; written atomically). DIR is relative to the current folder; the build looks in \
the crate's kernels folder (spec field `kernels`), so a pin elsewhere gets a warning.

Exit status: 0 when the kernel (every eager kernel) is accepted, 1 otherwise, 2 for usage \
errors, ops the proposer cannot lower, or a judge that cannot run. With --message-format json, \
stdout has one JSON object: {op, key, mode: \"fused\", accepted, entry?, lock?, time_us: \
[{dims, us}], eager_time_us?: [{dims, us}], vs_eager?: [..], evaluation}; with --eager, {op, \
key, mode: \"eager\", accepted, kernels, time_us, evaluations: [..]}.";

/// `cargo agenticcann knowledge …`.
#[derive(Debug, Subcommand)]
pub enum KnowledgeCommand {
    /// Print the prompt assembled for an op (or a pattern) and a phase, with its accounting.
    #[command(long_about = SHOW_LONG_ABOUT)]
    Show(KnowledgeShowArgs),
    /// Verify the knowledge base: front matter, ids, levels, patterns, error kinds, token
    /// budgets of every pattern and phase, exemplars.
    #[command(long_about = KNOWLEDGE_CHECK_LONG_ABOUT)]
    Check(KnowledgeCheckArgs),
}

const SHOW_LONG_ABOUT: &str = "\
Print the prompt the knowledge base gives the model in PHASE for op NAME (routed to its \
compute pattern from its reference, unless the spec declares `pattern`), or for --pattern P, \
followed by its accounting: tokens (cl100k_base) against the phase's budget, and the id and \
sha256 digest of every chunk used.

Phases: init (L0-L5), mutation (L2-L4), repair (the pattern's L5 exemplar and the L2 rules \
that prevent the --error kinds), tuning (L3).

The op is searched in the packages of the workspace of --manifest-path (or -p/--package). \
Exit status: 0, or 2 for usage errors (unknown op, phase or error kind; unloadable knowledge \
base or workspace).";

const KNOWLEDGE_CHECK_LONG_ABOUT: &str = "\
Load the knowledge base (default: $AGENTICCANN_KNOWLEDGE_DIR, else the copy of the \
repository's knowledge/ compiled into cargo-agenticcann) and verify: every chunk's front matter (id matching its file, level, patterns, \
error kinds known to agenticcann_build::kinds), unique ids, patterns.toml; that every prompt \
of every pattern and phase is within its token budget (init 800, mutation 400, repair 600, \
tuning 100, cl100k_base), counting a reserve for exemplars not written yet; that a repair \
prompt for any single error kind keeps every rule written for it; and every L5 exemplar: \
its structure (skeleton within 200 tokens, spec routing to the pattern, manifest key and \
file digests), then, unless --structure-only, the judge (compile against the simulator, \
verify on every declared, held-out and stress shape, profile). --record writes each accepted \
exemplar's [verification] and [performance] records into its entry/manifest.toml (needs a \
folder on disk: --knowledge-dir or $AGENTICCANN_KNOWLEDGE_DIR).

Exit status: 0 when everything holds, 1 otherwise (a knowledge base that does not load \
included), 2 for usage errors (--record without a folder on disk).";

/// The knowledge folder option shared by the `knowledge` subcommands.
#[derive(Debug, Args)]
pub struct KnowledgeDir {
    /// A knowledge base folder on disk, e.g. the repository's knowledge/ while editing it
    /// [default: $AGENTICCANN_KNOWLEDGE_DIR, else the copy compiled into this binary].
    #[arg(long, value_name = "DIR")]
    pub knowledge_dir: Option<std::path::PathBuf>,
}

/// `cargo agenticcann knowledge show`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["op", "pattern"])))]
pub struct KnowledgeShowArgs {
    /// The op whose prompt to assemble.
    #[arg(long, value_name = "NAME")]
    pub op: Option<String>,

    /// Assemble for a pattern instead of an op.
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,

    /// The phase: init, mutation, repair or tuning.
    #[arg(long, value_name = "PHASE")]
    pub phase: String,

    /// A diagnostic kind the candidate failed with (repair; repeatable, most important
    /// first).
    #[arg(long = "error", value_name = "KIND")]
    pub errors: Vec<String>,

    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Search the op only in this package.
    #[arg(short, long, value_name = "SPEC")]
    pub package: Option<String>,

    #[command(flatten)]
    pub dir: KnowledgeDir,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `cargo agenticcann knowledge check`.
#[derive(Debug, Args)]
pub struct KnowledgeCheckArgs {
    #[command(flatten)]
    pub dir: KnowledgeDir,

    /// Fail when a pattern has no L5 exemplar yet.
    #[arg(long)]
    pub require_exemplars: bool,

    /// Check exemplars' structure only; do not compile and judge them.
    #[arg(long, conflicts_with = "record")]
    pub structure_only: bool,

    /// Write each accepted exemplar's verification and performance records into its
    /// entry/manifest.toml.
    #[arg(long)]
    pub record: bool,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

const JUDGE_LONG_ABOUT: &str = "\
Judge one or more candidate kernels for an op: each DIR is an entry in the store layout \
(manifest.toml, kernel.cpp, tiling.cpp; the manifest's key must be the op's, every file must \
match its digest), for example a kernel written by hand. Each candidate goes through the source \
policy, a compile against the CPU simulator, a run in a separate process with time, memory and \
output limits (and no network where the platform allows), verification against the op's \
reference on its declared shapes plus held-out and ill-conditioned ones with fresh inputs, and \
the cost model's profile.

Exit status: 0 when every candidate is verified with a plausible profile, 1 otherwise, 2 for \
usage errors (no such op, unreadable manifest, no entry in any folder given) or a judge that cannot run (no simulator \
toolchain).

With --message-format json, stdout has one JSON object per DIR: {\"dir\", \"evaluation\"} with \
the full evaluation (outcome, diagnostics with kind/file/line/numbers, per-shape error metrics \
and profile, isolation, timings), or {\"dir\", \"error\"} when the entry cannot be read.

The simulator's headers, library and profiles are found from AGENTICCANN_SIM_INCLUDE, \
AGENTICCANN_SIM_LIB_DIR and AGENTICCANN_SIM_PROFILES, else from the paths recorded when \
cargo-agenticcann was built; the C++ compiler from AGENTICCANN_CXX or CXX (default g++). The \
precompiled header and harness are cached in $AGENTICCANN_CACHE_DIR/judge (else the platform \
cache folder).";

const CHECK_LONG_ABOUT: &str = "\
Validate the operator specs in [package.metadata.agenticcann] of the selected packages \
(with defaults from [workspace.metadata.agenticcann]), evaluate each reference once on the \
op's smallest declared shape, and print per op: package, op, pattern and content key.

Exit status: 0 when every spec is valid, 1 when any is invalid, 2 for usage errors or a \
workspace that cannot be loaded.

With --message-format json, stdout has one JSON object per line per op: package, \
manifest_path, op, ok, key, soc, arch, pattern, pattern_guessed, evaluated_shape, \
inputs [{name, decl, init}], outputs [{name, decl, atol, rtol}], \
errors [{field, message, line?, column?, snippet?}], warnings [{field, message}]. A package \
whose problems are not tied to one op and that has no ops gets one object with op = null. \
Fields are only ever added.";

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    /// Lines for people.
    Human,
    /// JSON on stdout: one object per op (`check`), per folder (`judge`), per run
    /// (`synth`) or per prompt (`knowledge show`); see each subcommand's --help.
    Json,
}

/// `cargo agenticcann check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    #[command(flatten)]
    pub workspace: clap_cargo::Workspace,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Seed of the inputs the references are evaluated on.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
}

/// `cargo agenticcann judge`.
#[derive(Debug, Args)]
pub struct JudgeArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// The op (a key of [package.metadata.agenticcann.ops]) the candidates implement.
    #[arg(long, value_name = "NAME")]
    pub op: String,

    /// Entry folders to judge.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<std::path::PathBuf>,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Seed of the inputs (default: a fresh one per run, printed in the report).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Candidates judged at once (default: available cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Wall-clock limit of each candidate's run, seconds.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub timeout: u64,

    /// Keep each candidate's scratch folder (compiler inputs, harness files) and print it.
    #[arg(long)]
    pub keep_scratch: bool,

    /// Skip the judge's own reference point (the offline proposer's kernel for the op, else
    /// the eager baseline, judged once per op and cached): without it, the
    /// `impossible_speedup` check has nothing to compare against.
    #[arg(long)]
    pub no_reference: bool,

    /// Accept the entry: when it is accepted, pin it (op, key, manifest sha256) in the
    /// crate's agenticcann.lock, next to the manifest. Takes exactly one DIR.
    #[arg(long)]
    pub lock: bool,

    /// Re-judge an entry whose kernel.cpp or tiling.cpp was edited after it was written (its
    /// digests no longer match) as its files are now, and when it is accepted rewrite it in
    /// place: new digests, the new verification and performance records, provenance `hand`.
    /// Takes exactly one DIR, an entry folder named by the op's key; with --lock the
    /// rewritten entry is pinned. Nothing is written when it is not accepted.
    #[arg(long)]
    pub update: bool,
}

/// `cargo agenticcann synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// The op (a key of [package.metadata.agenticcann.ops]).
    #[arg(long, value_name = "NAME")]
    pub op: String,

    /// Generate the eager baseline (one kernel per primitive operation) instead.
    #[arg(long)]
    pub eager: bool,

    /// Do not time the eager baseline for the "vs eager" ratio.
    #[arg(long)]
    pub no_eager_ratio: bool,

    /// Store folder to write the accepted entry (entries) to.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,

    /// Also pin the written entry (op, key, manifest sha256) in the crate's
    /// agenticcann.lock, next to the manifest. Needs --out; not with --eager (its primitive
    /// kernels are ops of their own).
    #[arg(long, requires = "out", conflicts_with = "eager")]
    pub lock: bool,

    /// Replace an entry already in --out for this key when it holds a different kernel
    /// (default: keep it and write nothing).
    #[arg(long, requires = "out", conflicts_with = "eager")]
    pub replace: bool,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Seed of the inputs (default: a fresh one).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cargo::command().debug_assert();
    }
}

/// `cargo agenticcann status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `cargo agenticcann verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Only these ops (repeatable); default: every op pinned in agenticcann.lock.
    #[arg(long, value_name = "NAME")]
    pub op: Vec<String>,

    /// Every declared op that has an entry, pinned or not.
    #[arg(long, conflicts_with = "op")]
    pub all: bool,

    /// Seed of the judge's inputs (default: a fresh one per evaluation, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Evaluations at once (default: available cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Print every evaluation, not only the failing ones.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `cargo agenticcann push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Only these ops (repeatable); default: every declared op.
    #[arg(long, value_name = "NAME")]
    pub op: Vec<String>,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `cargo agenticcann fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Only these ops (repeatable); default: every declared op.
    #[arg(long, value_name = "NAME")]
    pub op: Vec<String>,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

const REVIEW_LONG_ABOUT: &str = "\
For each declared op (or each OP given) with a pending result in the user cache \
($AGENTICCANN_CACHE_DIR/pending/<key>, else the platform cache's agenticcann/store/pending; \
written by `cargo agenticcann evolve`): the pending kernel against the one a build would use \
now (the crate's kernels folder, else the user cache; \"none\" if neither has one): a unified \
diff of kernel.cpp and tiling.cpp, the verification record, the profile (time per declared \
shape, roofline fraction, bound), the speedup per shape and overall (geometric mean) against \
the current kernel's recorded times and the offline seed's, and the provenance (proposer, \
model, generation, parent, tokens, knowledge chunks with their digests). Ops without a \
pending result get one line saying so.

Exit status: 0; 1 when a named OP has no pending result or a pending result cannot be read \
(its folder is named); 2 for usage errors (unknown op, unreadable manifest). With \
--message-format json, one ReviewOp object per op.";

const ACCEPT_LONG_ABOUT: &str = "\
Accept the pending results of the OPs given (default: every declared op that has one): each \
is checked again (every file against its manifest digest, the manifest the one recorded), \
copied into the crate's kernels folder (kernels/<key>/, replacing an older generated entry \
for the key; an entry written by hand, or one whose manifest cannot be read, is kept and the \
result refused unless --replace) and pinned in agenticcann.lock (op, key, manifest sha256; written atomically); then the \
pending result is removed. Prints the entry and the lock line written.

Exit status: 0; 1 when a named OP has no pending result or a result is refused (changed \
since it was written, not readable); 2 for usage errors. With --message-format json, one \
DecideOp object per op.";

const REJECT_LONG_ABOUT: &str = "\
Reject the pending results of the OPs given (default: every declared op that has one): \
their folders are removed from the user cache; nothing in the crate is touched.

Exit status: 0; 1 when a named OP has no pending result; 2 for usage errors. With \
--message-format json, one DecideOp object per op.";

/// `cargo agenticcann review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Only these ops (default: every declared op).
    #[arg(value_name = "OP")]
    pub ops: Vec<String>,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `cargo agenticcann accept`.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    #[command(flatten)]
    pub decide: DecideArgs,

    /// Replace the key's entry in the crate even when it was written by hand (provenance
    /// proposer = "hand") or its manifest cannot be read; without it such an entry is kept and
    /// the result stays pending.
    #[arg(long)]
    pub replace: bool,
}

/// `cargo agenticcann accept` and `reject`.
#[derive(Debug, Args)]
pub struct DecideArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// Only these ops (default: every declared op with a pending result).
    #[arg(value_name = "OP")]
    pub ops: Vec<String>,

    /// Output format: lines for people, or one JSON object per op.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}
