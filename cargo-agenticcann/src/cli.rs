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
}

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
Load the knowledge base (default: $AGENTICCANN_KNOWLEDGE_DIR, else the source tree's \
knowledge/) and verify: every chunk's front matter (id matching its file, level, patterns, \
error kinds known to agenticcann_build::kinds), unique ids, patterns.toml; that every prompt \
of every pattern and phase is within its token budget (init 800, mutation 400, repair 600, \
tuning 100, cl100k_base), counting a reserve for exemplars not written yet; that a repair \
prompt for any single error kind keeps every rule written for it; and every L5 exemplar.

Exit status: 0 when everything holds, 1 otherwise, 2 when the knowledge base cannot be read.";

/// The knowledge folder option shared by the `knowledge` subcommands.
#[derive(Debug, Args)]
pub struct KnowledgeDir {
    /// The knowledge base folder [default: $AGENTICCANN_KNOWLEDGE_DIR, else the source
    /// tree's knowledge/].
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

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cargo::command().debug_assert();
    }
}
