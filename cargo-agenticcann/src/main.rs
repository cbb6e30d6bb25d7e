//! `cargo agenticcann`: the command-line face of agenticcann.
//!
//! Cargo runs `cargo-agenticcann agenticcann <subcommand> …` for `cargo agenticcann
//! <subcommand> …`. Subcommands:
//!
//! - `check`: validate every operator spec of the selected packages, evaluate each reference
//!   once on its smallest declared shape, and print per op its package, name, pattern and
//!   content key (see [`check`] for the JSON schema).
//! - `knowledge show`: the prompt the knowledge base assembles for an op and a phase, with
//!   its token count and the chunks (ids, digests) used; `knowledge check`: validate the
//!   knowledge base, its token budgets and, through the judge, its L5 exemplars (see
//!   [`knowledge`]).
//! - `judge`: run the judge (`agenticcann_build::judge`) on entry folders of one op and print
//!   each evaluation (see [`judge`]).
//! - `synth`: the offline proposer's kernel (or the eager baseline) for an op, judged, with
//!   its cost-model times and the ratio vs eager; `--out DIR` writes the entry (see [`synth`]).
//!
//! Exit status: 0 when every spec is valid, 1 when any is invalid, 2 for usage errors and
//! workspaces that cannot be loaded (`cargo metadata` failed, unknown `-p` package).

mod check;
mod cli;
mod judge;
mod knowledge;
mod pin;
mod report;
mod select;
mod synth;

use std::process::ExitCode;

use clap::Parser;

/// Exit status for a usage error or an unloadable workspace.
pub const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli::Cargo::Agenticcann(args) = cli::Cargo::parse();
    let result = match args.command {
        cli::Command::Check(a) => check::run(&a),
        cli::Command::Knowledge(cli::KnowledgeCommand::Show(a)) => knowledge::show(&a),
        cli::Command::Knowledge(cli::KnowledgeCommand::Check(a)) => knowledge::check(&a),
        cli::Command::Judge(a) => judge::run(&a),
        cli::Command::Synth(a) => synth::run(&a),
    };
    match result {
        Ok(code) => code,
        // A closed stdout (`| head`) is not an error worth reporting.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
