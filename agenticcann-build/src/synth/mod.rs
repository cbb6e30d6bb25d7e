//! The offline proposer: a deterministic generator from an op spec to a complete store
//! entry (`kernel.cpp`, `tiling.cpp`, tiling fields), verified by the [judge](crate::judge).
//! No LLM, no network.
//!
//! ```no_run
//! use agenticcann_build::synth::{propose, synthesize, write_entry, SynthOptions};
//! use agenticcann_build::judge::EvalOptions;
//! # fn demo(op: &agenticcann_build::spec::OpSpec) -> Result<(), Box<dyn std::error::Error>> {
//! let candidate = propose(op, &SynthOptions::default())?;          // sources only
//! let s = synthesize(op, &SynthOptions::default(), &EvalOptions::default())?; // + judge
//! assert!(s.evaluation.accepted());
//! let entry = write_entry(std::path::Path::new("kernels"), op, &s.candidate, Some(&s.evaluation))?;
//! # Ok(()) }
//! ```
//!
//! **How it lowers a reference.** The outputs are viewed as rows `[R, C]` (C = last axis).
//! Every value is uniform, one scalar per row, or a full row; inputs are classified by how
//! they map onto a row: a full row (contiguous or *mapped*, e.g. `pos[seq, hidden]` against
//! `[batch, seq, hidden]` uses row `r % seq`, `mask[batch, 1, 1, seq]` against
//! `[batch, heads, seq, seq]` uses row `r / (heads·seq)`; the row offset comes from the
//! broadcast strides), a `[C]` vector loaded once per core, a per-row scalar, or a uniform
//! scalar. Elementwise expressions become fp32 vector instructions on UB temporaries
//! (f16/bf16 inputs are cast to fp32, outputs cast back with round-to-nearest); last-axis
//! reductions run `ReduceSum`/`ReduceMax`/`ReduceMin` and come back as scalars applied with
//! `Adds`/`Muls`; a reduction over a leading axis (masked mean pooling) is a vector
//! accumulation over the reduced rows. Rows that fit UB are processed whole, in tiles of
//! rows with double-buffered queues (inputs loaded once per tile); rows that do not fit
//! (softmax over 151936 f16) run in chunks, one pass per reduction level (each pass
//! recomputes its chunk from GM: max first, then the sum of exponentials, then the
//! outputs, so it is numerically safe). Ops without reductions whose inputs all have the
//! output's shape use an element-flat split over every core.
//!
//! The tiling function sizes tiles from the platform's UB and the [`TilingParams`]
//! (largest tile, buffer count, largest block count), which a tuner may mutate.
//!
//! [`eager`] decomposes any spec into one kernel per primitive operation of the reference,
//! each reading and writing GM as an eager framework runs a composite op; its summed
//! cost-model time is the "vs eager" baseline.

mod eager;
mod emit;
mod lower;

use std::path::Path;

pub use eager::{eager, eager_time, EagerKernel, EagerTime};

use crate::judge::{evaluate, Candidate, EvalOptions, Evaluation, JudgeError};
use crate::spec::OpSpec;
use crate::store::{Digest, Entry, Manifest, Proposer, Provenance, StoreError};

/// Tunable tiling parameters of a proposed kernel (the tiling function's constants).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilingParams {
    /// Largest tile, in elements per input buffer (whole-row tiles: rows × padded row
    /// length; chunked rows and element-flat tiles: chunk length). The UB budget may make
    /// tiles smaller. Default 16384.
    pub max_tile_elems: u64,
    /// Buffers per queue: 2 = double buffering (default), 1 = single.
    pub buffer_num: u32,
    /// Most cores (blocks) to launch; the platform's vector core count caps it. Default
    /// 65535 (all cores).
    pub max_blocks: u32,
}

impl Default for TilingParams {
    fn default() -> TilingParams {
        TilingParams {
            max_tile_elems: 16384,
            buffer_num: 2,
            max_blocks: 65535,
        }
    }
}

/// Options of the proposer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthOptions {
    /// The tiling parameters.
    pub params: TilingParams,
}

/// Why the proposer cannot produce a kernel.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// The reference uses something the proposer does not lower.
    #[error("the offline proposer cannot lower op `{op}`: {reason}")]
    Unsupported {
        /// The op.
        op: String,
        /// What is not supported.
        reason: String,
    },
    /// The tiling parameters are out of range.
    #[error("invalid tiling parameters: {0}")]
    Params(String),
    /// The judge could not run (a problem of the environment, not of the kernel).
    #[error(transparent)]
    Judge(#[from] JudgeError),
    /// The proposed kernel was evaluated and not accepted.
    #[error("the offline proposer's kernel for `{op}` was not accepted by the judge ({outcome}):\n{report}")]
    Rejected {
        /// The op.
        op: String,
        /// The judge's verdict label.
        outcome: String,
        /// The judge's rendered report.
        report: String,
    },
    /// Writing the entry failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Proposes a candidate kernel for `op` (sources and tiling fields; not yet judged).
///
/// # Errors
/// [`SynthError::Unsupported`] when the reference uses a construct the proposer does not
/// lower (integer dtypes, reductions over every axis, operands that do not map onto rows);
/// [`SynthError::Params`] for out-of-range parameters.
pub fn propose(op: &OpSpec, options: &SynthOptions) -> Result<Candidate, SynthError> {
    let p = &options.params;
    if !(1..=2).contains(&p.buffer_num) {
        return Err(SynthError::Params(format!(
            "buffer_num must be 1 or 2, not {}",
            p.buffer_num
        )));
    }
    if p.max_tile_elems < 64 || p.max_blocks == 0 {
        return Err(SynthError::Params(format!(
            "max_tile_elems must be at least 64 (got {}) and max_blocks at least 1 (got {})",
            p.max_tile_elems, p.max_blocks
        )));
    }
    let lowered = lower::lower(op)?;
    let e = emit::emit(op, &lowered, p)?;
    Ok(Candidate::new(e.kernel, e.tiling, e.fields))
}

/// A proposed kernel with the judge's verdict.
#[derive(Clone, Debug)]
pub struct Synthesized {
    /// The candidate.
    pub candidate: Candidate,
    /// The judge's evaluation (accepted: see [`SynthError::Rejected`]).
    pub evaluation: Evaluation,
}

/// Proposes a kernel for `op` and has the judge evaluate it.
///
/// # Errors
/// As [`propose`]; [`SynthError::Judge`] when the judge cannot run;
/// [`SynthError::Rejected`] when the kernel is not accepted (with the judge's report).
pub fn synthesize(
    op: &OpSpec,
    options: &SynthOptions,
    eval: &EvalOptions,
) -> Result<Synthesized, SynthError> {
    let candidate = propose(op, options)?;
    let evaluation = evaluate(op, &candidate, eval)?;
    if !evaluation.accepted() {
        return Err(SynthError::Rejected {
            op: op.name.clone(),
            outcome: if evaluation.suspect_performance {
                "suspect performance".into()
            } else {
                evaluation.outcome.label().into()
            },
            report: evaluation.render(),
        });
    }
    Ok(Synthesized {
        candidate,
        evaluation,
    })
}

/// Writes `candidate` as the store entry of `op` under `root` (`root/<key>/`), with
/// provenance `offline` and, when given an accepted evaluation, its verification and
/// performance records. An entry already in place for the key is kept and returned.
///
/// # Errors
/// [`SynthError::Store`] for file-system failures or a corrupt entry already in place.
pub fn write_entry(
    root: &Path,
    op: &OpSpec,
    candidate: &Candidate,
    evaluation: Option<&Evaluation>,
) -> Result<Entry, SynthError> {
    let text = entry_manifest(op, candidate, evaluation);
    Ok(crate::store::write_entry(
        root,
        &text,
        &entry_files(candidate),
    )?)
}

/// Like [`write_entry`], but an entry already in place for the key is replaced
/// ([`crate::store::replace_entry`]: staged and verified first, never lost on failure).
///
/// # Errors
/// [`SynthError::Store`] for file-system failures.
pub fn replace_entry(
    root: &Path,
    op: &OpSpec,
    candidate: &Candidate,
    evaluation: Option<&Evaluation>,
) -> Result<Entry, SynthError> {
    let text = entry_manifest(op, candidate, evaluation);
    Ok(crate::store::replace_entry(
        root,
        &text,
        &entry_files(candidate),
    )?)
}

fn entry_files(candidate: &Candidate) -> [(&'static str, &[u8]); 2] {
    [
        (crate::store::KERNEL_FILE, candidate.kernel.as_bytes()),
        (crate::store::TILING_FILE, candidate.tiling.as_bytes()),
    ]
}

/// The manifest text of `candidate`'s entry: provenance `offline`, plus the verification
/// and performance records of an accepted `evaluation`.
fn entry_manifest(op: &OpSpec, candidate: &Candidate, evaluation: Option<&Evaluation>) -> String {
    let mut manifest = Manifest::new(
        op.key(),
        Some(&op.name),
        Digest::of(candidate.kernel.as_bytes()),
        Digest::of(candidate.tiling.as_bytes()),
        candidate.tiling_fields.clone(),
        Provenance::new(Proposer::Offline),
    );
    if let Some(ev) = evaluation {
        manifest.verification = ev.verification_record();
        manifest.performance = ev.performance_record();
    }
    manifest.to_toml_string()
}
