//! Fills a crate's kernel store with offline-proposed kernels: for every op declared in the
//! crate's `Cargo.toml` (or those whose name contains one of the filters), proposes a kernel
//! with [`agenticcann_build::synth`], has the judge evaluate it, writes each accepted one as
//! a store entry (provenance `offline`, with the judge's verification and performance
//! records) under the crate's `kernels/` folder, and pins it in the crate's
//! `agenticcann.lock`. Rejected or unsupported ops are listed with the judge's report and
//! make the exit status 1; nothing is written for them.
//!
//! ```sh
//! cargo run --release -p agenticcann-build --example synth_kernels -- example-project/Cargo.toml [filter...]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use agenticcann_build::judge::{evaluate_many, EvalOptions};
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::{lock_path, write_entry, Draft, Lock, Proposer, Provenance};
use agenticcann_build::synth::{propose, SynthOptions};

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let manifest = PathBuf::from(
        args.next()
            .ok_or("usage: synth_kernels <path/to/Cargo.toml> [op-name-filter...]")?,
    );
    let filters: Vec<String> = args.collect();
    let spec = Spec::from_manifest_path(&manifest)?
        .ok_or_else(|| format!("{} declares no ops", manifest.display()))?;
    let root = manifest
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let store = root.join(&spec.kernels);
    let ops: Vec<&OpSpec> = spec
        .ops
        .iter()
        .filter(|o| filters.is_empty() || filters.iter().any(|f| o.name.contains(f.as_str())))
        .collect();
    if ops.is_empty() {
        return Err(format!("no op matches {filters:?}").into());
    }
    let mut ok = true;
    let mut proposed = Vec::new();
    for op in &ops {
        match propose(op, &SynthOptions::default()) {
            Ok(c) => proposed.push((*op, c)),
            Err(e) => {
                eprintln!("{}: {e}", op.name);
                ok = false;
            }
        }
    }
    let pairs: Vec<_> = proposed.iter().map(|(o, c)| (*o, c)).collect();
    eprintln!("judging {} candidates", pairs.len());
    // A fixed seed (recorded in each manifest's [verification]), so a rerun judges the same
    // inputs.
    let options = EvalOptions {
        seed: Some(20261130),
        ..EvalOptions::default()
    };
    let evaluations = evaluate_many(&pairs, &options);
    let lock_file = lock_path(&root);
    let mut lock = Lock::read(&lock_file)?.unwrap_or_default();
    for ((op, cand), ev) in proposed.iter().zip(evaluations) {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                eprintln!("{}: the judge could not run: {e}", op.name);
                ok = false;
                continue;
            }
        };
        if !ev.accepted() {
            eprintln!("{}: rejected by the judge\n{}", op.name, ev.render());
            ok = false;
            continue;
        }
        let draft = Draft {
            op,
            candidate: cand,
            provenance: Provenance::new(Proposer::Offline),
            evaluation: Some(&ev),
        };
        let entry = write_entry(&store, &draft)?;
        lock.set(&op.name, op.key(), entry.manifest_digest);
        println!("{}: accepted, {}", op.name, entry.dir.display());
    }
    lock.write_atomic(&lock_file)?;
    Ok(ok)
}
