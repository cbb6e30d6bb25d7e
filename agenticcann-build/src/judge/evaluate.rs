//! [`evaluate`]: the judge's stages chained for one candidate, and [`evaluate_many`] for
//! many in parallel.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[cfg(test)]
use std::time::Duration;

use super::error::JudgeError;
use super::report::{Evaluation, Severity, Timings};
use super::sandbox::Limits;
use super::stages::{
    self, assemble, check_policy_sources, compile_checked, fresh_seed, ms, profile, run, verify,
    Prepared,
};
use crate::spec::OpSpec;
use crate::toolchain::sim::SimToolchain;

/// How to evaluate.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Seed of the inputs; `None` (the default) draws a fresh one per evaluation, which the
    /// evaluation records.
    pub seed: Option<u64>,
    /// The toolchain; `None` = [`SimToolchain::from_env`].
    pub toolchain: Option<SimToolchain>,
    /// Cache of the precompiled header and the harness object; `None` =
    /// [`default_cache_dir`](super::compile::default_cache_dir).
    pub cache_dir: Option<PathBuf>,
    /// Where scratch folders go; `None` = the system temporary folder.
    pub scratch_root: Option<PathBuf>,
    /// Keep the scratch folder (for debugging); its path is added as a note.
    pub keep_scratch: bool,
    /// Use the cached precompiled header of `kernel_operator.h` (default true).
    pub use_pch: bool,
    /// Add held-out shapes (default true).
    pub held_out: bool,
    /// Add ill-conditioned input scenarios (default true).
    pub stress: bool,
    /// Largest total element count of a held-out or stress shape (default 2^22).
    pub max_held_out_elements: u64,
    /// Limits of the candidate's process. The memory and file limits are raised to what the
    /// largest shape's tensors need when that is more.
    pub run_limits: Limits,
    /// Largest workspace a tiling function may ask for, bytes (default 1 GiB).
    pub max_workspace_bytes: u64,
    /// Ask for a network namespace (default true; ignored where unavailable).
    pub isolate_network: bool,
    /// Known times of another kernel per declared shape (dims, µs), for the
    /// impossible-speedup check.
    pub reference_times: Vec<(BTreeMap<String, u64>, f64)>,
    /// Names the source of `reference_times` in the `impossible_speedup` message (default
    /// "the reference").
    pub reference_name: String,
    /// When `reference_times` is empty, have the judge derive its own reference points
    /// ([`reference_times`](super::reference::reference_times): the offline proposer's
    /// kernel, else the eager baseline; computed once per op and toolchain and cached).
    /// Default false: a library caller opts in; `cargo agenticcann judge` and `evolve` turn it
    /// on.
    pub derive_reference: bool,
    /// Largest plausible speedup over `reference_times` (default 20).
    pub max_speedup: f64,
    /// Candidates evaluated at once by [`evaluate_many`] (default: available cores).
    pub jobs: usize,
    /// The cascade (the evolution loop's choice): run the declared shapes first and the
    /// held-out and stress shapes only when every declared shape verified, on the one
    /// compiled program. A candidate that fails a declared shape is reported on those (the
    /// rest `not run`), at a fraction of the cost. Default false: every shape runs.
    pub cascade: bool,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            seed: None,
            toolchain: None,
            cache_dir: None,
            scratch_root: None,
            keep_scratch: false,
            use_pch: true,
            held_out: true,
            stress: true,
            max_held_out_elements: 1 << 22,
            run_limits: Limits::default(),
            max_workspace_bytes: 1 << 30,
            isolate_network: true,
            reference_times: Vec::new(),
            reference_name: "the reference".into(),
            derive_reference: false,
            max_speedup: 20.0,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cascade: false,
        }
    }
}

/// Evaluates `candidate` for `op`: source policy, compile (sim toolchain), a sandboxed run on
/// every declared, held-out and stress shape, verification against the reference, and the
/// cost-model profile. Every problem of the candidate is in the returned [`Evaluation`]
/// (see [`Outcome`](super::Outcome)); [`Evaluation::accepted`] is the one bit a store may
/// act on.
///
/// ```no_run
/// use agenticcann_build::judge::{evaluate, Candidate, EvalOptions};
/// # fn demo(op: &agenticcann_build::spec::OpSpec, dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
/// let (candidate, _entry) = Candidate::load(dir, op)?;
/// let ev = evaluate(op, &candidate, &EvalOptions::default())?;
/// println!("{}", ev.render());
/// assert!(ev.accepted());
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`JudgeError`] for problems of the judge or its environment (toolchain missing, cache
/// not writable, a reference that cannot be evaluated), never for the candidate's faults.
pub fn evaluate(
    op: &OpSpec,
    candidate: &super::Candidate,
    options: &EvalOptions,
) -> Result<Evaluation, JudgeError> {
    evaluate_sources(
        op,
        &candidate.kernel,
        &candidate.tiling,
        &candidate.header(op),
        options,
    )
}

/// Evaluates the sources of one candidate: `kernel` and `tiling` as in a store entry,
/// `header` the entry's generated `agenticcann_tiling.h`. The stages, chained:
/// [`check_policy`](super::check_policy) → [`Prepared::new`] → [`compile`](super::compile)
/// → [`run`](super::run) on every shape → [`verify`](super::verify) and
/// [`profile`](super::profile) per shape.
///
/// # Errors
/// [`JudgeError`] for problems of the judge or its environment; every problem of the
/// candidate is in the returned [`Evaluation`].
pub fn evaluate_sources(
    op: &OpSpec,
    kernel: &str,
    tiling: &str,
    header: &str,
    options: &EvalOptions,
) -> Result<Evaluation, JudgeError> {
    let t0 = Instant::now();
    let seed = options.seed.unwrap_or_else(fresh_seed);
    let policy = check_policy_sources(kernel, tiling);
    let policy_ms = ms(t0.elapsed());
    if !policy.is_empty() {
        return Ok(stages::rejected(op, seed, policy, policy_ms));
    }
    let mut options = EvalOptions {
        seed: Some(seed),
        ..options.clone()
    };
    if options.derive_reference && options.reference_times.is_empty() {
        if let Some(r) = super::reference::reference_times(op, &options)? {
            options.reference_times = r.times;
            options.reference_name = r.source.describe().into();
        }
    }
    let options = &options;
    let prepared = Prepared::new(op, options)?;
    let mut compiled = compile_checked(&prepared, kernel, tiling, header, false)?;
    let check = |r: &super::ShapeRun| {
        let mut c = verify(&prepared, r);
        profile(&prepared, r, &mut c);
        c
    };
    let mut verify_ms = 0.0;
    let mut checks = Vec::new();
    let ran = if !compiled.ok() {
        None
    } else if options.cascade {
        let declared = prepared.declared();
        let mut first = run(&prepared, &compiled, &declared)?;
        let tv = Instant::now();
        checks.extend(first.shapes.iter().map(check));
        verify_ms += ms(tv.elapsed());
        let failed = first
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
            || checks
                .iter()
                .flat_map(|c| &c.diagnostics)
                .any(|d| d.severity == Severity::Error);
        let rest: Vec<usize> = prepared
            .all()
            .into_iter()
            .filter(|i| !declared.contains(i))
            .collect();
        if !failed && !rest.is_empty() {
            let second = run(&prepared, &compiled, &rest)?;
            let tv = Instant::now();
            checks.extend(second.shapes.iter().map(check));
            verify_ms += ms(tv.elapsed());
            first.shapes.extend(second.shapes);
            first.diagnostics.extend(second.diagnostics);
            first.ms += second.ms;
        }
        Some(first)
    } else {
        let r = run(&prepared, &compiled, &prepared.all())?;
        let tv = Instant::now();
        checks.extend(r.shapes.iter().map(check));
        verify_ms += ms(tv.elapsed());
        Some(r)
    };
    let timings = Timings {
        policy_ms,
        verify_ms,
        ..Timings::default()
    };
    let mut ev = assemble(&prepared, &compiled, ran.as_ref(), checks, timings);
    if options.keep_scratch {
        let path = compiled.keep();
        ev.isolation
            .notes
            .push(format!("scratch kept at {}", path.display()));
    }
    ev.timings.total_ms = ms(t0.elapsed());
    Ok(ev)
}

/// Evaluates many candidates, at most `options.jobs` at once (each evaluation runs its
/// compiler and candidate processes; the default is one per available core). Results are in
/// input order and do not depend on the order evaluations finish in. With
/// `options.seed = Some(s)` every candidate sees the same inputs (fair comparison within a
/// generation); with `None` each draws its own seed.
pub fn evaluate_many(
    items: &[(&OpSpec, &super::Candidate)],
    options: &EvalOptions,
) -> Vec<Result<Evaluation, JudgeError>> {
    parallel_map(items, options.jobs, |(op, c)| evaluate(op, c, options))
}

/// `items.iter().map(f)` on at most `jobs` threads, results in input order.
fn parallel_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let jobs = jobs.max(1).min(items.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every item evaluated"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_input_order() {
        // Later items finish first.
        let items: Vec<u64> = (0..8).collect();
        let out = parallel_map(&items, 4, |&i| {
            std::thread::sleep(Duration::from_millis(5 * (8 - i)));
            i * 10
        });
        assert_eq!(out, (0..8).map(|i| i * 10).collect::<Vec<_>>());
        assert!(parallel_map(&Vec::<u8>::new(), 3, |&x| x).is_empty());
    }

    #[test]
    fn fresh_seeds_differ_and_fit_a_toml_integer() {
        let seeds: Vec<u64> = (0..64).map(|_| fresh_seed()).collect();
        for (i, s) in seeds.iter().enumerate() {
            assert!(i64::try_from(*s).is_ok(), "{s}");
            assert!(!seeds[..i].contains(s), "{s} drawn twice");
        }
    }
}
