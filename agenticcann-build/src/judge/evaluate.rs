//! The judge's pipeline for one candidate, and for many in parallel.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ndarray::ArrayD;

use super::compile::{self, default_cache_dir};
use super::policy::{check_source, PolicyLimits, SourceKind};
use super::profile::{self, ShapeBytes};
use super::report::{
    Diagnostic, Evaluation, Isolation, Outcome, Severity, ShapeOrigin, ShapeResult, ShapeStatus,
    Stage, Timings,
};
use super::run::{self, PlanParam, PlanShape};
use super::sandbox::Limits;
use super::toolchain::{SimToolchain, ToolchainError};
use super::verify::{self, PlannedShape, ShapeOptions};
use crate::spec::{OpSpec, ParamRole};

/// How to evaluate.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Seed of the inputs; `None` (the default) draws a fresh one per evaluation, which the
    /// evaluation records.
    pub seed: Option<u64>,
    /// The toolchain; `None` = [`SimToolchain::from_env`].
    pub toolchain: Option<SimToolchain>,
    /// Cache of the precompiled header and the harness object; `None` =
    /// [`compile::default_cache_dir`].
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
    /// Largest plausible speedup over `reference_times` (default 20).
    pub max_speedup: f64,
    /// Candidates evaluated at once by [`evaluate_many`] (default: available cores).
    pub jobs: usize,
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
            max_speedup: 20.0,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// A problem of the judge or its environment, not of the candidate: no verdict.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The simulator toolchain is not usable.
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    /// The SoC profile cannot be read.
    #[error("{0}")]
    Profile(String),
    /// A file or folder of the judge cannot be written.
    #[error("{0}")]
    Io(String),
    /// The judge's own harness does not build or run (a bug).
    #[error("{0}")]
    Harness(String),
    /// The reference cannot be evaluated on a planned shape (a spec problem).
    #[error("the reference of `{op}` cannot be evaluated on {dims:?}: {message}")]
    Reference {
        /// The op.
        op: String,
        /// The shape.
        dims: BTreeMap<String, u64>,
        /// What failed.
        message: String,
    },
}

/// A fresh seed: time, process id and a counter, hashed; 63 bits, so that it fits the i64
/// of a TOML integer when a manifest records it.
fn fresh_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut h = blake3::Hasher::new();
    h.update(&t.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    h.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let b = h.finalize();
    u64::from_le_bytes(b.as_bytes()[..8].try_into().expect("8 bytes")) >> 1
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Per-shape data prepared before the candidate runs.
struct Prepared {
    plan: PlannedShape,
    dims: BTreeMap<String, u64>,
    /// Index into the harness's shape list; `None` for empty shapes (never launched).
    run_index: Option<usize>,
    golden: HashMap<String, ArrayD<f64>>,
    /// Some input is empty while the outputs are not.
    degenerate: bool,
    /// Conditioning slack per output (stress shapes only).
    slack: HashMap<String, ArrayD<f64>>,
    bytes: ShapeBytes,
}

/// Evaluates `candidate` for `op`: source policy, compile (sim toolchain), a sandboxed run on
/// every declared, held-out and stress shape, verification against the reference, and the
/// cost-model profile. Every problem of the candidate is in the returned [`Evaluation`]
/// (see [`Outcome`]); [`Evaluation::accepted`] is the one bit a store may act on.
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
/// `header` the entry's generated `agenticcann_tiling.h`.
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
    let mut ev = Evaluation {
        op: op.name.clone(),
        key: op.key().to_string(),
        soc: op.soc.name().to_string(),
        backend: "sim".into(),
        seed,
        outcome: Outcome::Verified,
        suspect_performance: false,
        diagnostics: Vec::new(),
        shapes: Vec::new(),
        isolation: Isolation::default(),
        timings: Timings::default(),
    };

    // 1. Source policy, before any compiler.
    for (kind, src) in [(SourceKind::Kernel, kernel), (SourceKind::Tiling, tiling)] {
        ev.diagnostics.extend(check_source(
            kind,
            src.as_bytes(),
            &PolicyLimits::default_for(kind),
        ));
    }
    ev.timings.policy_ms = ms(t0.elapsed());
    if !ev.diagnostics.is_empty() {
        ev.outcome = Outcome::Rejected;
        ev.timings.total_ms = ms(t0.elapsed());
        return Ok(ev);
    }

    let tc = match &options.toolchain {
        Some(t) => t.clone(),
        None => SimToolchain::from_env()?,
    };
    let soc = tc.soc_profile(op.soc.name()).map_err(JudgeError::Profile)?;
    // Absolute: the compilers run in the scratch folder.
    let cache = options.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let cache = std::path::absolute(&cache).unwrap_or(cache);

    // 2. Shapes, inputs and golden outputs, before the candidate runs.
    let tg = Instant::now();
    let plan = verify::plan_shapes(
        op,
        soc.aiv_cores,
        &ShapeOptions {
            held_out: options.held_out,
            stress: options.stress,
            max_elements: options.max_held_out_elements,
        },
    );
    let kparams = op.kernel_params();
    let named = op.named_dims();
    let params: Vec<PlanParam> = kparams
        .iter()
        .enumerate()
        .map(|(k, p)| PlanParam {
            output: p.role == ParamRole::Output,
            elem_bytes: p.decl.dtype.size_bytes(),
            poison: verify::poison(p.decl.dtype, seed ^ (k as u64 + 1) << 32),
        })
        .collect();
    let max_elem = params
        .iter()
        .map(|p| p.elem_bytes as u64)
        .max()
        .unwrap_or(1);
    let mut prepared = Vec::with_capacity(plan.len());
    let mut runs: Vec<PlanShape> = Vec::new();
    for (i, p) in plan.into_iter().enumerate() {
        let dims = p.dims();
        let shapes = op
            .tensor_shapes(&p.binding)
            .map_err(|e| JudgeError::Reference {
                op: op.name.clone(),
                dims: dims.clone(),
                message: e.to_string(),
            })?;
        let count = |name: &str| shapes[name].iter().product::<usize>() as u64;
        let counts: Vec<u64> = kparams.iter().map(|kp| count(kp.name)).collect();
        let bytes = ShapeBytes {
            input_bytes: kparams
                .iter()
                .zip(&counts)
                .filter(|(kp, _)| kp.role == ParamRole::Input)
                .map(|(kp, c)| c * kp.decl.dtype.size_bytes() as u64)
                .sum(),
            output_bytes: kparams
                .iter()
                .zip(&counts)
                .filter(|(kp, _)| kp.role == ParamRole::Output)
                .map(|(kp, c)| c * kp.decl.dtype.size_bytes() as u64)
                .sum(),
            max_elem_bytes: max_elem,
        };
        let empty = op.outputs.iter().any(|o| count(&o.name) == 0);
        let degenerate = op.inputs.iter().any(|i| count(&i.name) == 0);
        let seed_i = verify::shape_seed(seed, i);
        let mut slack = HashMap::new();
        let (golden, run_index) = if empty {
            (HashMap::new(), None)
        } else {
            let inputs =
                verify::shape_inputs(op, &p, seed_i).map_err(|m| JudgeError::Reference {
                    op: op.name.clone(),
                    dims: dims.clone(),
                    message: m,
                })?;
            let golden = op.golden(&inputs).map_err(|e| JudgeError::Reference {
                op: op.name.clone(),
                dims: dims.clone(),
                message: e.to_string(),
            })?;
            if p.stress.is_some() {
                slack = verify::conditioning_slack(op, &inputs, seed_i).map_err(|m| {
                    JudgeError::Reference {
                        op: op.name.clone(),
                        dims: dims.clone(),
                        message: m,
                    }
                })?;
            }
            let encoded: Vec<Vec<u8>> = kparams
                .iter()
                .map(|kp| match kp.role {
                    ParamRole::Input => verify::encode(&inputs[kp.name], kp.decl.dtype),
                    ParamRole::Output => Vec::new(),
                })
                .collect();
            runs.push(PlanShape {
                dims: named.iter().map(|d| p.binding[d] as u64).collect(),
                counts,
                inputs: encoded,
            });
            (golden, Some(runs.len() - 1))
        };
        prepared.push(Prepared {
            plan: p,
            dims,
            run_index,
            degenerate,
            golden,
            slack,
            bytes,
        });
    }
    ev.timings.golden_ms = ms(tg.elapsed());
    ev.shapes = prepared
        .iter()
        .map(|p| ShapeResult {
            dims: p.dims.clone(),
            origin: p.plan.origin.clone(),
            status: if p.run_index.is_none() {
                ShapeStatus::SkippedEmpty
            } else {
                ShapeStatus::NotRun
            },
            block_dim: 0,
            workspace_bytes: 0,
            outputs: Vec::new(),
            profile: None,
        })
        .collect();

    // 3. Compile.
    let scratch_root = options
        .scratch_root
        .clone()
        .unwrap_or_else(std::env::temp_dir);
    let scratch = tempfile::Builder::new()
        .prefix("agc-judge-")
        .tempdir_in(&scratch_root)
        .map_err(|e| {
            JudgeError::Io(format!(
                "cannot create a scratch folder in {}: {e}",
                scratch_root.display()
            ))
        })?;
    let dir = scratch.path().to_path_buf();
    let names: Vec<&str> = kparams.iter().map(|p| p.name).collect();
    for (name, text) in [
        ("kernel.cpp", kernel.to_string()),
        ("tiling.cpp", tiling.to_string()),
        ("agenticcann_tiling.h", header.to_string()),
        ("kernel_tu.cpp", compile::kernel_wrapper(&names)),
        ("tiling_tu.cpp", compile::tiling_wrapper()),
    ] {
        std::fs::write(dir.join(name), text).map_err(|e| {
            JudgeError::Io(format!("cannot write {}: {e}", dir.join(name).display()))
        })?;
    }
    let tcomp = Instant::now();
    let pch = if options.use_pch {
        match compile::ensure_pch(&tc, &cache) {
            Ok(p) => Some(p),
            Err(e) => {
                ev.diagnostics.push(Diagnostic::warning(
                    Stage::Compile,
                    "pch_unavailable",
                    format!("compiling without the precompiled header: {e}"),
                ));
                None
            }
        }
    } else {
        None
    };
    let harness = compile::ensure_harness(&tc, &cache).map_err(JudgeError::Harness)?;
    let compiled = compile::compile_candidate(&tc, &dir, &harness, pch.as_deref());
    ev.timings.compile_ms = ms(tcomp.elapsed());
    ev.timings.pch = compiled.pch;
    ev.diagnostics.extend(compiled.diagnostics);
    let Some(exe) = compiled.exe else {
        ev.outcome = Outcome::CompileError;
        return Ok(finish(ev, scratch, options, t0));
    };

    // 4. Run.
    let trun = Instant::now();
    run::write_plan(&dir, &params, &runs, options.max_workspace_bytes).map_err(JudgeError::Io)?;
    let data_bytes = prepared
        .iter()
        .map(|p| p.bytes.input_bytes + p.bytes.output_bytes)
        .max()
        .unwrap_or(0);
    let mut limits = options.run_limits;
    limits.memory_bytes = limits.memory_bytes.max((1 << 30) + 6 * data_bytes);
    limits.file_bytes = limits.file_bytes.max(data_bytes + (1 << 20));
    if let Some(image) = run::image_bytes(&exe).filter(|&b| b > limits.memory_bytes / 2) {
        ev.diagnostics.push(
            Diagnostic::error(
                Stage::Run,
                "memory_limit",
                format!(
                    "the candidate program's static memory is {} MiB, more than half its {} MiB memory limit (a huge static array?)",
                    image >> 20,
                    limits.memory_bytes >> 20
                ),
            )
            .number("image_bytes", image as f64)
            .number("memory_limit_bytes", limits.memory_bytes as f64),
        );
        ev.outcome = Outcome::RuntimeError;
        return Ok(finish(ev, scratch, options, t0));
    }
    let started = run::run_candidate(
        &exe,
        &dir,
        op.soc.name(),
        &tc.profiles,
        &limits,
        options.isolate_network,
    );
    let out = match started {
        Ok(o) => o,
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOMEM) | Some(libc::E2BIG)) => {
            // The program's own image (static arrays) does not fit the address space limit.
            ev.diagnostics.push(
                Diagnostic::error(
                    Stage::Run,
                    "memory_limit",
                    format!(
                        "the candidate program cannot even start under the {} MiB memory limit: {e}",
                        limits.memory_bytes >> 20
                    ),
                )
                .number("memory_limit_bytes", limits.memory_bytes as f64),
            );
            ev.outcome = Outcome::RuntimeError;
            ev.timings.run_ms = ms(trun.elapsed());
            return Ok(finish(ev, scratch, options, t0));
        }
        Err(e) => {
            return Err(JudgeError::Harness(format!(
                "cannot start the candidate program {}: {e}",
                exe.display()
            )))
        }
    };
    ev.timings.run_ms = ms(trun.elapsed());
    ev.isolation = out.isolation.clone();
    let results = run::read_results(&dir, runs.len(), &params);
    let running = results.iter().position(|r| r.begun && !r.finished);
    let running_shape =
        running.and_then(|ri| prepared.iter().position(|p| p.run_index == Some(ri)));
    if let Some((d, candidate_fault)) =
        run::termination_diagnostic(&out, running_shape, results.iter().any(|r| r.begun))
    {
        if !candidate_fault {
            return Err(JudgeError::Harness(format!(
                "{}: {}",
                d.message,
                d.notes.join("\n")
            )));
        }
        ev.diagnostics.push(d);
        if let Some(s) = running_shape {
            ev.shapes[s].status = ShapeStatus::Error;
        }
    }

    // 5. Verify and profile each shape that ran.
    let tv = Instant::now();
    for (si, p) in prepared.iter().enumerate() {
        let Some(ri) = p.run_index else { continue };
        let r = &results[ri];
        if !r.finished {
            continue;
        }
        let mut shape_diags: Vec<Diagnostic> = Vec::new();
        let sh = &mut ev.shapes[si];
        sh.block_dim = r.get("block_dim").unwrap_or(0).max(0) as u32;
        sh.workspace_bytes = r.get("workspace").unwrap_or(0).max(0) as u64;
        let dims_text = || {
            p.dims
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let tiling_rc = r.get("tiling_rc").unwrap_or(-1);
        let mut launched = false;
        let mut profile_diags: Vec<Diagnostic> = Vec::new();
        if tiling_rc != 0 && p.degenerate {
            // An empty input with non-empty outputs (a reduction over an empty axis): a
            // kernel may decline it (the launch then returns an error naming the dims).
            shape_diags.push(
                Diagnostic::warning(
                    Stage::Run,
                    "tiling_rejected",
                    format!(
                        "the tiling function declined {} (an empty input; returned {tiling_rc})",
                        dims_text()
                    ),
                )
                .at("tiling.cpp", 0)
                .number("rc", tiling_rc as f64),
            );
        } else if tiling_rc != 0 {
            shape_diags.push(
                Diagnostic::error(
                    Stage::Run,
                    "tiling_rejected",
                    format!("the tiling function returned {tiling_rc} for {}: these dims are not supported", dims_text()),
                )
                .at("tiling.cpp", 0)
                .number("rc", tiling_rc as f64),
            );
        }
        for e in r.all("error") {
            let msg = match e {
                "tiling_block_dim" => format!(
                    "the tiling function set block_dim = {} for {}; it must be in [1, {}]",
                    sh.block_dim,
                    dims_text(),
                    soc.max_block_dim
                ),
                "workspace_too_large" => format!(
                    "the tiling function asked for {} bytes of workspace; the limit is {}",
                    sh.workspace_bytes, options.max_workspace_bytes
                ),
                "workspace_alloc" => format!(
                    "{} bytes of workspace could not be allocated",
                    sh.workspace_bytes
                ),
                other => other.to_string(),
            };
            let kind = if e == "workspace_alloc" {
                "memory_limit"
            } else {
                e
            };
            shape_diags.push(Diagnostic::error(Stage::Run, kind, msg).at("tiling.cpp", 0));
        }
        if let Some(lrc) = r.get("launch_rc") {
            launched = true;
            let mut records = Vec::new();
            if let Some(json) = &r.launches {
                match profile::parse_launches(json) {
                    Ok(l) => records = l,
                    Err(m) => shape_diags.push(Diagnostic::error(Stage::Run, "harness_error", m)),
                }
            }
            for rec in &records {
                for d in &rec.diagnostics {
                    shape_diags.push(d.to_diagnostic(si));
                }
            }
            let failed =
                lrc != 0 || r.get("sync_rc").unwrap_or(0) != 0 || records.iter().any(|x| x.failed);
            if failed && !shape_diags.iter().any(|d| d.severity == Severity::Error) {
                shape_diags.push(Diagnostic::error(
                    Stage::Run,
                    "launch_error",
                    format!(
                        "the launch failed (queue code {lrc}, synchronize code {}) without a diagnostic",
                        r.get("sync_rc").unwrap_or(0)
                    ),
                ));
            }
            if !failed {
                if let Some(rep) = records.last().and_then(|x| x.report.as_ref()) {
                    let reference = options
                        .reference_times
                        .iter()
                        .find(|(d, _)| *d == p.dims && p.plan.origin == ShapeOrigin::Declared)
                        .map(|(_, t)| *t);
                    let (prof, pd) = profile::profile_shape(
                        rep,
                        sh.block_dim,
                        p.bytes,
                        &soc,
                        reference,
                        options.max_speedup,
                        si,
                    );
                    sh.profile = Some(prof);
                    // Judged after verification: a wrong shape's time means nothing.
                    profile_diags = pd;
                }
            }
        }
        for v in r.all("input_changed") {
            let n: Vec<u64> = v
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [k, count, first] = n[..] {
                let name = kparams.get(k as usize).map_or("?", |p| p.name);
                shape_diags.push(
                    Diagnostic::error(
                        Stage::Verify,
                        "input_modified",
                        format!("the kernel modified input `{name}`: {count} bytes differ after the run, first at element {first}"),
                    )
                    .number("bytes", count as f64)
                    .number("first_element", first as f64),
                );
            }
        }
        for v in r.all("guard") {
            let n: Vec<u64> = v
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [k, count] = n[..] {
                let name = kparams.get(k as usize).map_or("?", |p| p.name);
                shape_diags.push(
                    Diagnostic::error(
                        Stage::Run,
                        "guard_overwritten",
                        format!("the kernel wrote past the end of `{name}` ({count} guard bytes changed)"),
                    )
                    .number("bytes", count as f64),
                );
            }
        }
        if launched {
            for (k, kp) in kparams.iter().enumerate() {
                if kp.role != ParamRole::Output {
                    continue;
                }
                let Some(bytes) = r.outputs.get(&k) else {
                    continue;
                };
                let o = op.output(kp.name).expect("kernel param is an output");
                let mut tol = o.tolerance;
                if p.plan.stress.is_some() {
                    tol.atol *= verify::STRESS_TOLERANCE_FACTOR;
                    tol.rtol *= verify::STRESS_TOLERANCE_FACTOR;
                }
                let (m, d) = verify::compare(
                    kp.name,
                    kp.decl.dtype,
                    bytes,
                    &p.golden[kp.name],
                    tol,
                    &params[k].poison,
                    p.slack.get(kp.name),
                );
                sh.outputs.push(m);
                shape_diags.extend(d);
            }
        }
        let errs = |d: &[Diagnostic], stage: Stage| {
            d.iter()
                .any(|d| d.stage == stage && d.severity == Severity::Error)
        };
        if !errs(&shape_diags, Stage::Run) && !errs(&shape_diags, Stage::Verify) {
            shape_diags.extend(profile_diags);
        }
        let errs = |stage: Stage| errs(&shape_diags, stage);
        sh.status = if tiling_rc != 0 && p.degenerate {
            ShapeStatus::SkippedEmpty
        } else if errs(Stage::Run) {
            ShapeStatus::Error
        } else if errs(Stage::Verify) {
            ShapeStatus::Failed
        } else {
            ShapeStatus::Passed
        };
        for d in &mut shape_diags {
            d.shape = Some(si);
        }
        ev.diagnostics.extend(shape_diags);
    }
    ev.timings.verify_ms = ms(tv.elapsed());
    let has = |stage: Stage| {
        ev.diagnostics
            .iter()
            .any(|d| d.stage == stage && d.severity == Severity::Error)
    };
    ev.outcome = if has(Stage::Run) {
        Outcome::RuntimeError
    } else if has(Stage::Verify) {
        Outcome::WrongResult
    } else {
        Outcome::Verified
    };
    ev.suspect_performance = has(Stage::Profile);
    Ok(finish(ev, scratch, options, t0))
}

fn finish(
    mut ev: Evaluation,
    scratch: tempfile::TempDir,
    options: &EvalOptions,
    t0: Instant,
) -> Evaluation {
    // Stage order, then shape order, stable.
    let rank = |s: Stage| match s {
        Stage::Policy => 0,
        Stage::Compile => 1,
        Stage::Run => 2,
        Stage::Verify => 3,
        Stage::Profile => 4,
    };
    ev.diagnostics.sort_by_key(|d| {
        (
            rank(d.stage),
            d.severity == Severity::Warning,
            d.shape.unwrap_or(0),
        )
    });
    if options.keep_scratch {
        let path = scratch.keep();
        ev.isolation
            .notes
            .push(format!("scratch kept at {}", path.display()));
    }
    ev.timings.total_ms = ms(t0.elapsed());
    ev
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
