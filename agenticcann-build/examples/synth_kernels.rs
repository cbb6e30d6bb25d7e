//! Fills a crate's kernel store with offline-proposed kernels: for every op declared in the
//! crate's `Cargo.toml` (or those whose name contains one of the filters), searches the
//! offline proposer's variants for the fastest accepted kernel ([`agenticcann_build::synth::
//! search`], what `build.rs` uses on a store miss), writes it as a store entry (provenance
//! `offline`, with the judge's verification and performance records) under the crate's
//! `kernels/` folder, replacing the key's entry there, and pins it in the crate's
//! `agenticcann.lock`. Ops with no accepted variant, or that the proposer cannot lower, are
//! listed with the reason and make the exit status 1; nothing is written for them.
//!
//! ```sh
//! cargo run --release -p agenticcann-build --example synth_kernels -- example-project/Cargo.toml [filter...]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use agenticcann_build::judge::{EvalOptions, ShapeOrigin};
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::{lock_path, replace_entry, Lock};
use agenticcann_build::synth::{search, SynthOptions};

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
    // A fixed seed (recorded in each manifest's [verification]), so a rerun judges the same
    // inputs.
    let options = EvalOptions {
        seed: Some(20261130),
        ..EvalOptions::default()
    };
    let lock_file = lock_path(&root);
    let mut lock = Lock::read(&lock_file)?.unwrap_or_default();
    for op in &ops {
        let found = match search(op, &SynthOptions::default(), &options) {
            Ok(found) => found,
            Err(e) => {
                eprintln!("{}: {e}", op.name);
                ok = false;
                continue;
            }
        };
        let draft = found.best.draft(op);
        let entry = replace_entry(&store, &draft)?;
        lock.set(&op.name, op.key(), entry.manifest_digest);
        println!(
            "{}: accepted ({}), {}",
            op.name,
            found
                .best
                .evaluation
                .shapes
                .iter()
                .filter(|s| s.origin == ShapeOrigin::Declared)
                .filter_map(|s| s.profile.as_ref().map(|p| format!("{:.2} us", p.time_us)))
                .collect::<Vec<_>>()
                .join(", "),
            entry.dir.display()
        );
    }
    lock.write_atomic(&lock_file)?;
    Ok(ok)
}
