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
    /// Judge kernel entries: policy, compile, run, verify and profile on the simulator.
    #[command(long_about = JUDGE_LONG_ABOUT)]
    Judge(JudgeArgs),
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
usage errors (no such op, unreadable manifest) or a judge that cannot run (no simulator \
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
    /// One JSON object per op on stdout.
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
