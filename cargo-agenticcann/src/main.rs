//! `cargo agenticcann`: the command-line face of agenticcann, a thin layer over
//! `agenticcann_build` and `agenticcann_evolve` (parsing, printing, exit statuses).
//!
//! Cargo runs `cargo-agenticcann agenticcann <subcommand> …` for `cargo agenticcann
//! <subcommand> …`. Subcommands:
//!
//! - `check`: validate every operator spec of the selected packages, evaluate each reference
//!   once on its smallest declared shape, and print per op its package, name, pattern and
//!   content key.
//! - `knowledge show`: the prompt the knowledge base assembles for an op and a phase, with
//!   its token count and the chunks (ids, digests) used; `knowledge check`: validate the
//!   knowledge base, its token budgets and, through the judge, its L5 exemplars.
//! - `judge`: run the judge (`agenticcann_build::judge`) on entry folders of one op and print
//!   each evaluation.
//! - `synth`: the offline proposer's kernel (or the eager baseline) for an op, judged, with
//!   its cost-model times and the ratio vs eager; `--out DIR` writes the entry.
//! - `status`, `verify`, `push`, `fetch`: the crate's entries as a build finds them, re-judged,
//!   and moved to and from the remote store ([`store`]).
//! - `review`, `accept`, `reject`: the pending results `evolve` leaves in the user cache,
//!   shown against the current kernels, written into the crate or dropped ([`review`]).
//!
//! With `--message-format json` each prints the serde types of [`messages`] (the JSON
//! schema). Exit statuses ([`exit`]): 0 ok, 1 rejected/invalid/infeasible, 2 usage errors or
//! a judge that cannot run, 3 LLM/network unavailable (reserved for `evolve`).
//!
//! # Adding a subcommand
//!
//! 1. `cli.rs`: a variant of [`cli::Command`] with its `Args` struct (reuse
//!    [`cli::MessageFormat`] for `--message-format`).
//! 2. `messages.rs`: the `Serialize` type of each JSON message it prints.
//! 3. `<name>.rs`: `pub fn run(args: &Args) -> anyhow::Result<exit::Status>`, calling the
//!    libraries and printing with [`messages::emit`] (JSON) or lines for people to
//!    [`exit::stdout`], and progress or summaries with [`stderr!`] (never `eprintln!`, which
//!    panics on a closed standard error; clippy's `print_stderr` warns); return
//!    `Status::of(accepted)`, an error for usage problems (exit 2), or an
//!    [`exit::Unavailable`] error for an unreachable LLM or network (exit 3).
//! 4. `main.rs`: `mod <name>;` and one arm in `main`'s match.

// `eprintln!` panics when standard error is closed or broken: print with `stderr!`.
#![warn(clippy::print_stderr)]

mod bench;
mod check;
mod cli;
mod evolve;
mod evolve_out;
mod exit;
mod judge;
mod knowledge;
mod messages;
mod report;
mod review;
mod select;
mod store;
mod synth;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli::Cargo::Agenticcann(args) = cli::Cargo::parse();
    let result = match args.command {
        cli::Command::Check(a) => check::run(&a),
        cli::Command::Knowledge(cli::KnowledgeCommand::Show(a)) => knowledge::show(&a),
        cli::Command::Knowledge(cli::KnowledgeCommand::Check(a)) => knowledge::check(&a),
        cli::Command::Judge(a) => judge::run(&a),
        cli::Command::Synth(a) => synth::run(&a),
        cli::Command::Status(a) => store::status(&a),
        cli::Command::Verify(a) => store::verify(&a),
        cli::Command::Push(a) => store::push(&a),
        cli::Command::Fetch(a) => store::fetch(&a),
        cli::Command::Review(a) => review::review(&a),
        cli::Command::Accept(a) => review::accept(&a),
        cli::Command::Reject(a) => review::reject(&a),
        cli::Command::Evolve(a) => evolve::run(&a),
        cli::Command::Bench(a) => bench::run(&a),
    };
    match result {
        // A closed stdout (`| head`) does not end a run (`exit::stdout`), so the status is
        // the subcommand's verdict.
        Ok(status) => status.into(),
        Err(e) => {
            crate::stderr!("error: {e:#}");
            ExitCode::from(exit::of_error(&e))
        }
    }
}
