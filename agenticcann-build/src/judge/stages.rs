//! The judge's stages, callable one by one (see the module docs of [`super`] for the order
//! and who calls what): [`Prepared::new`], [`check_policy`], [`compile`], [`run`],
//! [`verify`], [`profile`]. [`super::evaluate`] chains them.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ndarray::ArrayD;

use super::candidate::Candidate;
use super::compile::{self as build, default_cache_dir, Compiled, Sources};
use super::error::JudgeError;
use super::policy::{check_source, PolicyLimits, SourceKind};
use super::profile::{self as prof, ShapeBytes};
use super::report::{
    Diagnostic, Evaluation, Isolation, Outcome, Severity, ShapeOrigin, ShapeResult, ShapeStatus,
    Stage, Timings,
};
use super::run::{self as harness, PlanParam, PlanShape, RunState, ShapeRun};
use super::verify::{self as ver, PlannedShape, ShapeOptions};
use super::EvalOptions;
use crate::spec::{OpSpec, ParamRole};
use crate::toolchain::sim::{SimToolchain, SocProfile};

/// A fresh seed: time, process id and a counter, hashed; 63 bits, so that it fits the i64
/// of a TOML integer when a manifest records it.
pub(super) fn fresh_seed() -> u64 {
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

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One planned shape with everything computed before any candidate runs.
#[derive(Clone, Debug)]
pub struct PreparedShape {
    /// The shape and why it is in the set.
    pub plan: PlannedShape,
    /// Named dimension sizes.
    pub dims: BTreeMap<String, u64>,
    /// Some output has zero elements: never launched (by contract).
    pub empty: bool,
    /// Some input is empty while the outputs are not.
    pub degenerate: bool,
    /// Golden outputs (f64) by output name; empty when `empty`.
    pub golden: HashMap<String, ArrayD<f64>>,
    /// Conditioning slack per output (stress shapes only).
    pub slack: HashMap<String, ArrayD<f64>>,
    /// Bytes the tensors hold (for the roofline).
    pub bytes: ShapeBytes,
    /// What the harness needs (dims, counts, encoded inputs); `None` when `empty`.
    run: Option<PlanShape>,
}

/// The shape plan of one op with its inputs and golden outputs, and the resolved toolchain,
/// SoC profile and cache: everything that does not depend on the candidate. One `Prepared`
/// serves any number of candidates of the op (the same seed, so the same inputs).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The op.
    pub op: OpSpec,
    /// Seed of the inputs (the one given, or a fresh one).
    pub seed: u64,
    /// The toolchain (given in the options, else [`SimToolchain::from_env`]).
    pub toolchain: SimToolchain,
    /// The op's SoC profile numbers.
    pub soc: SocProfile,
    /// The compile cache (PCH, harness object), absolute.
    pub cache_dir: PathBuf,
    /// Every planned shape: declared first, then held-out, then stress.
    pub shapes: Vec<PreparedShape>,
    /// The GM tensors as the harness sees them (`OpSpec::kernel_params` order).
    pub params: Vec<PlanParam>,
    /// The options (with `seed` set to [`seed`](Self::seed)).
    pub options: EvalOptions,
    /// Time spent on inputs and golden outputs, ms.
    pub golden_ms: f64,
    /// Held-out shapes left out because the reference has no value there (an empty input
    /// reduced without identity, e.g. `max` over zero columns into a non-empty output):
    /// one `reference_undefined` warning each.
    pub skipped: Vec<Diagnostic>,
}

impl Prepared {
    /// Plans the shapes of `op` (declared; held-out and stress unless turned off in
    /// `options`), draws their inputs from the seed, evaluates the reference on them, and
    /// resolves the toolchain and the SoC profile.
    ///
    /// # Errors
    /// [`JudgeError::Toolchain`], [`JudgeError::Profile`], [`JudgeError::Reference`].
    pub fn new(op: &OpSpec, options: &EvalOptions) -> Result<Prepared, JudgeError> {
        let seed = options.seed.unwrap_or_else(fresh_seed);
        let tc = match &options.toolchain {
            Some(t) => t.clone(),
            None => SimToolchain::from_env()?,
        };
        let soc = tc.soc_profile(op.soc.name())?;
        // Absolute: the compilers run in the scratch folder.
        let cache = options.cache_dir.clone().unwrap_or_else(default_cache_dir);
        let cache = std::path::absolute(&cache).unwrap_or(cache);

        let tg = Instant::now();
        let plan = ver::plan_shapes(
            op,
            soc.aiv_cores,
            &ShapeOptions {
                held_out: options.held_out,
                stress: options.stress,
                max_elements: options.max_held_out_elements,
                ub_bytes: u64::from(soc.ub_bytes),
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
                poison: ver::poison(p.decl.dtype, seed ^ (k as u64 + 1) << 32),
            })
            .collect();
        let max_elem = params
            .iter()
            .map(|p| p.elem_bytes as u64)
            .max()
            .unwrap_or(1);
        let mut shapes = Vec::with_capacity(plan.len());
        let mut skipped = Vec::new();
        for (i, p) in plan.into_iter().enumerate() {
            let dims = p.dims();
            let reference = |message: String| JudgeError::Reference {
                op: op.name.clone(),
                dims: dims.clone(),
                message,
            };
            let tshapes = op
                .tensor_shapes(&p.binding)
                .map_err(|e| reference(e.to_string()))?;
            let count = |name: &str| tshapes[name].iter().product::<usize>() as u64;
            let counts: Vec<u64> = kparams.iter().map(|kp| count(kp.name)).collect();
            // Inputs the reference reads only through last-axis slices count the columns
            // it reads (the rest of the tensor need not be moved).
            let needed: Vec<u64> = kparams
                .iter()
                .map(|kp| match kp.role {
                    ParamRole::Input => read_elements(op, kp.name, &tshapes[kp.name]),
                    ParamRole::Output => count(kp.name),
                })
                .collect();
            let bytes_of = |role: ParamRole| -> u64 {
                kparams
                    .iter()
                    .zip(&needed)
                    .filter(|(kp, _)| kp.role == role)
                    .map(|(kp, c)| c * kp.decl.dtype.size_bytes() as u64)
                    .sum()
            };
            let bytes = ShapeBytes {
                input_bytes: bytes_of(ParamRole::Input),
                output_bytes: bytes_of(ParamRole::Output),
                max_elem_bytes: max_elem,
            };
            let empty = op.outputs.iter().any(|o| count(&o.name) == 0);
            let degenerate = op.inputs.iter().any(|i| count(&i.name) == 0);
            let seed_i = ver::shape_seed(seed, i);
            let mut slack = HashMap::new();
            let (golden, run) = if empty {
                (HashMap::new(), None)
            } else {
                let inputs = ver::shape_inputs(op, &p, seed_i).map_err(reference)?;
                let golden = match op.golden(&inputs) {
                    Ok(g) => g,
                    // The judge's own zero-size shape on an axis the reference reduces
                    // without an identity: the op has no value to check there. Only a
                    // declared shape makes this the spec's problem.
                    Err(e) if degenerate && p.origin != ShapeOrigin::Declared => {
                        skipped.push(Diagnostic::warning(
                            Stage::Verify,
                            "reference_undefined",
                            format!(
                                "held-out shape {dims:?} left out: the reference has no value with an empty input ({e})"
                            ),
                        ));
                        continue;
                    }
                    Err(e) => return Err(reference(e.to_string())),
                };
                if p.stress.is_some() {
                    slack = ver::conditioning_slack(op, &inputs, seed_i).map_err(reference)?;
                }
                let encoded: Vec<Vec<u8>> = kparams
                    .iter()
                    .map(|kp| match kp.role {
                        ParamRole::Input => ver::encode(&inputs[kp.name], kp.decl.dtype),
                        ParamRole::Output => Vec::new(),
                    })
                    .collect();
                let run = PlanShape {
                    dims: named.iter().map(|d| p.binding[d] as u64).collect(),
                    counts,
                    inputs: encoded,
                };
                (golden, Some(run))
            };
            shapes.push(PreparedShape {
                plan: p,
                dims,
                empty,
                degenerate,
                golden,
                slack,
                bytes,
                run,
            });
        }
        Ok(Prepared {
            op: op.clone(),
            seed,
            toolchain: tc,
            soc,
            cache_dir: cache,
            shapes,
            params,
            options: EvalOptions {
                seed: Some(seed),
                ..options.clone()
            },
            golden_ms: ms(tg.elapsed()),
            skipped,
        })
    }

    /// Indices of every shape.
    pub fn all(&self) -> Vec<usize> {
        (0..self.shapes.len()).collect()
    }

    /// Indices of the declared shapes (the spec's `shapes`), in declaration order.
    pub fn declared(&self) -> Vec<usize> {
        self.shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.plan.origin == ShapeOrigin::Declared)
            .map(|(i, _)| i)
            .collect()
    }

    /// The empty record of shape `i` (status `not_run`, or `skipped_empty`).
    fn shape_result(&self, i: usize) -> ShapeResult {
        let s = &self.shapes[i];
        ShapeResult {
            dims: s.dims.clone(),
            origin: s.plan.origin.clone(),
            status: if s.empty {
                ShapeStatus::SkippedEmpty
            } else {
                ShapeStatus::NotRun
            },
            block_dim: 0,
            workspace_bytes: 0,
            outputs: Vec::new(),
            profile: None,
        }
    }
}

/// The source policy on a candidate's `kernel.cpp` and `tiling.cpp`, before any compiler:
/// every violation (empty: the candidate may be compiled). Pure and fast (no process).
pub fn check_policy(candidate: &Candidate) -> Vec<Diagnostic> {
    check_policy_sources(&candidate.kernel, &candidate.tiling)
}

/// [`check_policy`] on the two sources as text.
pub fn check_policy_sources(kernel: &str, tiling: &str) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    for (kind, src) in [(SourceKind::Kernel, kernel), (SourceKind::Tiling, tiling)] {
        d.extend(check_source(
            kind,
            src.as_bytes(),
            &PolicyLimits::default_for(kind),
        ));
    }
    d
}

/// The compile stage: checks the source policy (a violation is returned as the
/// diagnostics of a [`Compiled`] without a program; no compiler runs), then compiles the
/// candidate's units with the shared toolchain and links them with the run harness.
///
/// # Errors
/// [`JudgeError`] when the compiler cannot be started, the harness does not build or the
/// scratch folder cannot be written; every problem of the candidate is in
/// [`Compiled::diagnostics`].
pub fn compile(prepared: &Prepared, candidate: &Candidate) -> Result<Compiled, JudgeError> {
    compile_checked(
        prepared,
        &candidate.kernel,
        &candidate.tiling,
        &candidate.header(&prepared.op),
        true,
    )
}

/// [`compile`] on sources as text (`header`: the entry's `agenticcann_tiling.h`), with or
/// without the policy check (the evaluation checks it once, before preparing).
pub(super) fn compile_checked(
    prepared: &Prepared,
    kernel: &str,
    tiling: &str,
    header: &str,
    policy: bool,
) -> Result<Compiled, JudgeError> {
    let t = Instant::now();
    let o = &prepared.options;
    let scratch_root = o.scratch_root.clone().unwrap_or_else(std::env::temp_dir);
    if policy {
        let d = check_policy_sources(kernel, tiling);
        if !d.is_empty() {
            return Ok(Compiled {
                scratch: None,
                dir: scratch_root,
                exe: None,
                diagnostics: d,
                pch: false,
                ms: ms(t.elapsed()),
                kernel_unit: String::new(),
                kernel_command: Vec::new(),
                tiling_command: Vec::new(),
            });
        }
    }
    let tc = &prepared.toolchain;
    let mut warnings = Vec::new();
    let pch = if o.use_pch {
        match build::ensure_pch(tc, &prepared.cache_dir) {
            Ok(p) => Some(p),
            Err(e) => {
                warnings.push(Diagnostic::warning(
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
    let harness = build::ensure_harness(tc, &prepared.cache_dir)?;
    let mut c = build::compile_sources(
        tc,
        &prepared.op,
        &Sources {
            kernel,
            tiling,
            header,
        },
        &scratch_root,
        &harness,
        pch.as_deref(),
    )?;
    c.diagnostics.extend(warnings);
    c.ms = ms(t.elapsed());
    Ok(c)
}

/// What the run stage found: one [`ShapeRun`] per requested shape (request order) and the
/// process-level diagnostics (a limit, a crash: the shape that was running is in the
/// diagnostic's `shape`).
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Per requested shape.
    pub shapes: Vec<ShapeRun>,
    /// Findings about the process as a whole (stage `run`).
    pub diagnostics: Vec<Diagnostic>,
    /// The isolation the process had.
    pub isolation: Isolation,
    /// Wall time, ms.
    pub ms: f64,
}

/// The run stage: runs the compiled candidate on `shapes` (indices into
/// [`Prepared::shapes`]; empty shapes are skipped by contract) in one sandboxed process,
/// and parses what the harness wrote. Each call runs in a fresh subfolder, so a cascade
/// (small shapes, then the rest) may call it several times on one [`Compiled`].
///
/// # Errors
/// [`JudgeError::NotCompiled`] for a candidate without a program; [`JudgeError::Harness`]
/// when the harness fails before the candidate's code ran, or the program cannot be
/// started; [`JudgeError::Io`].
pub fn run(
    prepared: &Prepared,
    compiled: &Compiled,
    shapes: &[usize],
) -> Result<RunReport, JudgeError> {
    let t = Instant::now();
    let exe = compiled.exe.as_ref().ok_or(JudgeError::NotCompiled)?;
    let o = &prepared.options;
    if let Some(&bad) = shapes.iter().find(|&&i| i >= prepared.shapes.len()) {
        return Err(JudgeError::Harness(format!(
            "shape index {bad} is out of range ({} shapes planned)",
            prepared.shapes.len()
        )));
    }
    let mut report = RunReport {
        shapes: shapes
            .iter()
            .map(|&i| ShapeRun {
                shape: i,
                state: if prepared.shapes[i].empty {
                    RunState::SkippedEmpty
                } else {
                    RunState::NotRun
                },
                ..ShapeRun::default()
            })
            .collect(),
        ..RunReport::default()
    };
    // Harness shape j is prepared shape launched[j].
    let launched: Vec<usize> = shapes
        .iter()
        .copied()
        .filter(|&i| !prepared.shapes[i].empty)
        .collect();
    if launched.is_empty() {
        report.ms = ms(t.elapsed());
        return Ok(report);
    }
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let dir = compiled
        .dir
        .join(format!("run-{}", RUNS.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).map_err(|e| JudgeError::io("create", &dir, e))?;
    let plan: Vec<PlanShape> = launched
        .iter()
        .map(|&i| {
            prepared.shapes[i]
                .run
                .clone()
                .expect("non-empty shapes have a plan")
        })
        .collect();
    harness::write_plan(&dir, &prepared.params, &plan, o.max_workspace_bytes)?;
    let data_bytes = launched
        .iter()
        .map(|&i| prepared.shapes[i].bytes.input_bytes + prepared.shapes[i].bytes.output_bytes)
        .max()
        .unwrap_or(0);
    let mut limits = o.run_limits;
    limits.memory_bytes = limits.memory_bytes.max((1 << 30) + 6 * data_bytes);
    limits.file_bytes = limits.file_bytes.max(data_bytes + (1 << 20));
    if let Some(image) = harness::image_bytes(exe).filter(|&b| b > limits.memory_bytes / 2) {
        report.diagnostics.push(
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
        report.ms = ms(t.elapsed());
        return Ok(report);
    }
    let out = match harness::run_candidate(
        exe,
        &dir,
        prepared.op.soc.name(),
        &prepared.toolchain.profiles,
        &limits,
        o.isolate_network,
    ) {
        Ok(o) => o,
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOMEM) | Some(libc::E2BIG)) => {
            // The program's own image (static arrays) does not fit the address space limit.
            report.diagnostics.push(
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
            report.ms = ms(t.elapsed());
            return Ok(report);
        }
        Err(e) => {
            return Err(JudgeError::Harness(format!(
                "cannot start the candidate program {}: {e}",
                exe.display()
            )))
        }
    };
    report.isolation = out.isolation.clone();
    let results = harness::read_results(&dir, &launched, &prepared.params);
    let running = results
        .iter()
        .find(|r| r.state == RunState::Died)
        .map(|r| r.shape);
    let any_begun = results.iter().any(|r| r.state != RunState::NotRun);
    if let Some((d, candidate_fault)) = harness::termination_diagnostic(&out, running, any_begun) {
        if !candidate_fault {
            return Err(JudgeError::Harness(format!(
                "{}: {}",
                d.message,
                d.notes.join("\n")
            )));
        }
        report.diagnostics.push(d);
    }
    for r in results {
        if let Some(slot) = report.shapes.iter_mut().find(|s| s.shape == r.shape) {
            *slot = r;
        }
    }
    report.ms = ms(t.elapsed());
    Ok(report)
}

/// What [`verify`] (and then [`profile`]) concluded about one shape.
#[derive(Clone, Debug)]
pub struct ShapeCheck {
    /// The shape's index in [`Prepared::shapes`].
    pub shape: usize,
    /// The shape's record for the evaluation.
    pub result: ShapeResult,
    /// Its findings (stages `run`, `verify`, then `profile`), each with `shape` set.
    pub diagnostics: Vec<Diagnostic>,
}

impl ShapeCheck {
    fn has_error(&self, stage: Stage) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.stage == stage && d.severity == Severity::Error)
    }
}

/// The verify stage for one shape: the harness's own findings (tiling return code,
/// blockDim and workspace limits, launch codes, the simulator's diagnostics, guard bytes),
/// input integrity, and every output against the golden output with the output's tolerance
/// (widened on stress shapes). Sets the shape's status; no profile.
pub fn verify(prepared: &Prepared, r: &ShapeRun) -> ShapeCheck {
    let si = r.shape;
    let p = &prepared.shapes[si];
    let mut check = ShapeCheck {
        shape: si,
        result: prepared.shape_result(si),
        diagnostics: Vec::new(),
    };
    match r.state {
        RunState::SkippedEmpty | RunState::NotRun => return check,
        RunState::Died => {
            check.result.status = ShapeStatus::Error;
            return check;
        }
        RunState::Finished => {}
    }
    let op = &prepared.op;
    let kparams = op.kernel_params();
    let d = &mut check.diagnostics;
    let sh = &mut check.result;
    sh.block_dim = r.block_dim;
    sh.workspace_bytes = r.workspace_bytes;
    let dims_text = || {
        p.dims
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tiling_rc = r.tiling_rc.unwrap_or(-1);
    if tiling_rc != 0 && p.degenerate {
        // An empty input with non-empty outputs (a reduction over an empty axis): a kernel
        // may decline it (the launch then returns an error naming the dims).
        d.push(
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
    } else if tiling_rc != 0 && p.plan.origin.is_regime() {
        // A shape beyond every declared one's regime (several UB-sized tiles per core, a
        // row longer than UB): declining it is a supported-dims limit, not a wrong result.
        d.push(
            Diagnostic::warning(
                Stage::Run,
                "tiling_rejected",
                format!(
                    "the tiling function declined {} ({}; returned {tiling_rc}): launches with these dims fail with an error, and the kernel's path for them is not judged",
                    dims_text(),
                    p.plan.origin.label()
                ),
            )
            .at("tiling.cpp", 0)
            .number("rc", tiling_rc as f64),
        );
    } else if tiling_rc != 0 {
        d.push(
            Diagnostic::error(
                Stage::Run,
                "tiling_rejected",
                format!(
                    "the tiling function returned {tiling_rc} for {}: these dims are not supported",
                    dims_text()
                ),
            )
            .at("tiling.cpp", 0)
            .number("rc", tiling_rc as f64),
        );
    }
    for e in &r.errors {
        let msg = match e.as_str() {
            "tiling_block_dim" => format!(
                "the tiling function set block_dim = {} for {}; it must be in [1, {}]",
                sh.block_dim,
                dims_text(),
                prepared.soc.max_block_dim
            ),
            "workspace_too_large" => format!(
                "the tiling function asked for {} bytes of workspace; the limit is {}",
                sh.workspace_bytes, prepared.options.max_workspace_bytes
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
            e.as_str()
        };
        d.push(Diagnostic::error(Stage::Run, kind, msg).at("tiling.cpp", 0));
    }
    if let Some(lrc) = r.launch_rc {
        if let Some(m) = &r.launches_error {
            d.push(Diagnostic::error(Stage::Run, "harness_error", m.clone()));
        }
        for rec in &r.launches {
            for sd in &rec.diagnostics {
                d.push(sd.to_diagnostic(si));
            }
        }
        if r.launch_failed() && !d.iter().any(|d| d.severity == Severity::Error) {
            d.push(Diagnostic::error(
                Stage::Run,
                "launch_error",
                format!(
                    "the launch failed (queue code {lrc}, synchronize code {}) without a diagnostic",
                    r.sync_rc.unwrap_or(0)
                ),
            ));
        }
    }
    for c in &r.input_changes {
        let name = kparams.get(c.param).map_or("?", |p| p.name);
        d.push(
            Diagnostic::error(
                Stage::Verify,
                "input_modified",
                format!(
                    "the kernel modified input `{name}`: {} bytes differ after the run, first at element {}",
                    c.bytes, c.first_element
                ),
            )
            .number("bytes", c.bytes as f64)
            .number("first_element", c.first_element as f64),
        );
    }
    for g in &r.guards {
        let name = kparams.get(g.param).map_or("?", |p| p.name);
        d.push(
            Diagnostic::error(
                Stage::Run,
                "guard_overwritten",
                format!(
                    "the kernel wrote past the end of `{name}` ({} guard bytes changed)",
                    g.bytes
                ),
            )
            .number("bytes", g.bytes as f64),
        );
    }
    if r.launched() {
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
                tol.atol *= ver::STRESS_TOLERANCE_FACTOR;
                tol.rtol *= ver::STRESS_TOLERANCE_FACTOR;
            }
            let (m, vd) = ver::compare(
                kp.name,
                kp.decl.dtype,
                bytes,
                &p.golden[kp.name],
                tol,
                &prepared.params[k].poison,
                p.slack.get(kp.name),
            );
            sh.outputs.push(m);
            d.extend(vd);
        }
    }
    for x in d.iter_mut() {
        x.shape = Some(si);
    }
    check.result.status = if tiling_rc != 0 && p.degenerate {
        ShapeStatus::SkippedEmpty
    } else if tiling_rc != 0 && p.plan.origin.is_regime() {
        ShapeStatus::Declined
    } else if check.has_error(Stage::Run) {
        ShapeStatus::Error
    } else if check.has_error(Stage::Verify) {
        ShapeStatus::Failed
    } else {
        ShapeStatus::Passed
    };
    check
}

/// The profile stage for one shape: the cost model's time of a launch that succeeded,
/// against the roofline floor, the bytes the tensors hold and `reference_times`. The
/// profile is recorded whenever the launch succeeded; its plausibility findings only when
/// the shape ran and verified cleanly (a wrong shape's time means nothing).
pub fn profile(prepared: &Prepared, r: &ShapeRun, check: &mut ShapeCheck) {
    if r.state != RunState::Finished || !r.launched() || r.launch_failed() {
        return;
    }
    let Some(rep) = r.launches.last().and_then(|x| x.report.as_ref()) else {
        return;
    };
    let si = r.shape;
    let p = &prepared.shapes[si];
    let reference = prepared
        .options
        .reference_times
        .iter()
        .find(|(d, _)| *d == p.dims && p.plan.origin == ShapeOrigin::Declared)
        .map(|(_, t)| (prepared.options.reference_name.as_str(), *t));
    let (profile, diags) = prof::profile_shape(
        rep,
        check.result.block_dim,
        p.bytes,
        &prepared.soc,
        reference,
        prepared.options.max_speedup,
        si,
    );
    check.result.profile = Some(profile);
    if !check.has_error(Stage::Run) && !check.has_error(Stage::Verify) {
        check
            .diagnostics
            .extend(diags.into_iter().map(|d| d.for_shape(si)));
    }
}

/// The evaluation of a candidate the policy rejected (no compiler ran).
pub(super) fn rejected(
    op: &OpSpec,
    seed: u64,
    diagnostics: Vec<Diagnostic>,
    policy_ms: f64,
) -> Evaluation {
    Evaluation {
        op: op.name.clone(),
        key: op.key().to_string(),
        soc: op.soc.name().to_string(),
        backend: "sim".into(),
        seed,
        outcome: Outcome::Rejected,
        suspect_performance: false,
        diagnostics,
        shapes: Vec::new(),
        isolation: Isolation::default(),
        timings: Timings {
            policy_ms,
            total_ms: policy_ms,
            ..Timings::default()
        },
    }
}

/// Puts the stages' results together: the verdict from the stages' errors (compile, then
/// run, then verify; a profile finding makes a verified candidate suspect), diagnostics in
/// stage order, then shape order.
pub(super) fn assemble(
    prepared: &Prepared,
    compiled: &Compiled,
    run: Option<&RunReport>,
    checks: Vec<ShapeCheck>,
    mut timings: Timings,
) -> Evaluation {
    let mut shapes: Vec<ShapeResult> = (0..prepared.shapes.len())
        .map(|i| prepared.shape_result(i))
        .collect();
    let mut diagnostics = compiled.diagnostics.clone();
    diagnostics.extend(prepared.skipped.iter().cloned());
    let mut isolation = Isolation::default();
    if let Some(run) = run {
        isolation = run.isolation.clone();
        diagnostics.extend(run.diagnostics.iter().cloned());
    }
    for c in checks {
        if let Some(slot) = shapes.get_mut(c.shape) {
            *slot = c.result;
        }
        diagnostics.extend(c.diagnostics);
    }
    let has = |stage: Stage| {
        diagnostics
            .iter()
            .any(|d| d.stage == stage && d.severity == Severity::Error)
    };
    let outcome = if !compiled.ok() {
        if has(Stage::Policy) {
            Outcome::Rejected
        } else {
            Outcome::CompileError
        }
    } else if has(Stage::Run) {
        Outcome::RuntimeError
    } else if has(Stage::Verify) {
        Outcome::WrongResult
    } else {
        Outcome::Verified
    };
    let suspect_performance = compiled.ok() && has(Stage::Profile);
    // Stage order, then shape order, stable.
    let rank = |s: Stage| match s {
        Stage::Policy => 0,
        Stage::Compile => 1,
        Stage::Run => 2,
        Stage::Verify => 3,
        Stage::Profile => 4,
    };
    diagnostics.sort_by_key(|d| {
        (
            rank(d.stage),
            d.severity == Severity::Warning,
            d.shape.unwrap_or(0),
        )
    });
    timings.golden_ms = prepared.golden_ms;
    timings.compile_ms = compiled.ms;
    timings.pch = compiled.pch;
    if let Some(r) = run {
        timings.run_ms = r.ms;
    }
    Evaluation {
        op: prepared.op.name.clone(),
        key: prepared.op.key().to_string(),
        soc: prepared.op.soc.name().to_string(),
        backend: "sim".into(),
        seed: prepared.seed,
        outcome,
        suspect_performance,
        diagnostics,
        shapes,
        isolation,
        timings,
    }
}

/// Elements of input `name` (shaped `shape`) the reference reads: all of them, unless every
/// use is a subscript that takes the leading axes whole, when only the union of the last-axis
/// columns the subscripts pick counts (`x[..., :I]` and `x[..., I:]` together read all of
/// `x`; the second alone reads half).
pub(crate) fn read_elements(op: &OpSpec, name: &str, shape: &[usize]) -> u64 {
    use crate::spec::reference::subscript::{picks, Pick};
    use crate::spec::reference::ExprKind;
    let total = shape.iter().product::<usize>() as u64;
    let Some(&last) = shape.last() else {
        return total;
    };
    if last == 0 {
        return total;
    }
    let mut cols = vec![false; last];
    let mut whole = false;
    fn walk(
        e: &crate::spec::reference::Expr,
        name: &str,
        shape: &[usize],
        cols: &mut [bool],
        whole: &mut bool,
    ) {
        match &e.kind {
            ExprKind::Name(n) if n == name => *whole = true,
            ExprKind::Subscript { operand, items } if matches!(&operand.kind, ExprKind::Name(n) if n == name) => {
                match picks(items, shape) {
                    Ok(p) if p[..p.len() - 1].iter().all(|x| *x == Pick::Whole) => {
                        let k = p[p.len() - 1];
                        for j in 0..k.size(cols.len()).unwrap_or(1) {
                            if let Some(c) = cols.get_mut(k.source(j)) {
                                *c = true;
                            }
                        }
                    }
                    _ => *whole = true,
                }
            }
            _ => {
                for c in e.children() {
                    walk(c, name, shape, cols, whole);
                }
            }
        }
    }
    for st in &op.reference.statements {
        walk(&st.value, name, shape, &mut cols, &mut whole);
    }
    let read = cols.iter().filter(|c| **c).count() as u64;
    // Read whole, or not read at all (counted whole, as before slices existed).
    if whole || read == 0 {
        return total;
    }
    total / last as u64 * read
}

#[cfg(test)]
mod tests {
    use super::read_elements;
    use crate::spec::Spec;

    fn op(inputs: &str, reference: &str) -> crate::spec::OpSpec {
        let m = format!(
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n[package.metadata.agenticcann.ops.o]\ninputs = {{ {inputs} }}\noutputs = {{ y = \"f32[2, 4]\" }}\nreference = \"{reference}\"\n"
        );
        Spec::from_manifest_str(&m, None)
            .unwrap()
            .unwrap()
            .ops
            .remove(0)
    }

    #[test]
    fn read_elements_counts_the_sliced_columns() {
        // Both halves: all 16; one half: 8; a whole use beside a slice: all; a strided
        // slice: its 4 columns per row; an input the reference never reads: all (as before).
        let both = op("x = \"f32[2, 8]\"", "y = x[..., :4] * x[..., 4:]");
        assert_eq!(read_elements(&both, "x", &[2, 8]), 16);
        let half = op("x = \"f32[2, 8]\"", "y = x[..., 4:] * 2");
        assert_eq!(read_elements(&half, "x", &[2, 8]), 8);
        let mixed = op(
            "x = \"f32[2, 8]\"",
            "y = x[..., 4:] + sum(x, axis=-1, keepdims=true)",
        );
        assert_eq!(read_elements(&mixed, "x", &[2, 8]), 16);
        let strided = op("x = \"f32[2, 8]\"", "y = x[..., ::2]");
        assert_eq!(read_elements(&strided, "x", &[2, 8]), 8);
        let unused = op("x = \"f32[2, 8]\", z = \"f32[2, 4]\"", "y = z");
        assert_eq!(read_elements(&unused, "x", &[2, 8]), 16);
    }
}
