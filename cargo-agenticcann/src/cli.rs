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
