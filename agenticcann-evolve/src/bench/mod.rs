//! The benchmark (`cargo agenticcann bench`): the operator suite of `tests/bench/suite/` run
//! through a proposer, every kernel judged, and one table of feasibility, time, speedup
//! against faithful baselines and roofline fraction per op and per pattern.
//!
//! **Baselines** (DESIGN §8 "Baselines"). Each suite op declares its eager baseline
//! (`eager = { source, recipe, vendor, calls }`, [`agenticcann_build::spec::eager`]):
//! - *eager recipe*: the op sequence its source model's framework code launches, each launch
//!   a kernel of the offline proposer judged on the simulator (intermediates in the recipe's
//!   dtypes), vendor calls inside the recipe at their roofline
//!   ([`agenticcann_build::synth::eager_time`]'s model);
//! - *vendor-fused*: one launch of the fused vendor kernel the framework calls, modelled at
//!   the op's memory roofline, `bytes / peak HBM + launch overhead` from the SoC profile
//!   ([`agenticcann_build::synth::vendor_fused_time`]) — the best any single kernel can do,
//!   so a speedup against it is at most 1.
//!
//! **Suspect kernels.** A kernel whose modelled time is below the roofline, or that the
//! judge's plausibility checks flag (too few bytes moved, an impossible speedup), is reported
//! as suspect and counted neither as feasible nor in `fast_p`.
//!
//! **Reproducibility.** A [`Report`] records the date, machine, commit, build profile, the SoC
//! profile's path and the sha256 of its file (the parameters the cost model ran with), the
//! proposer and the command line.
//!
//! ```no_run
//! use agenticcann_evolve::bench::{self, BenchOptions};
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let suite = agenticcann_evolve::suite::load(&bench::default_suite_dir())?;
//! let opts = BenchOptions::default();
//! let soc = bench::soc_of(&suite, &opts)?;
//! let results = bench::run(&suite, &opts, &soc.profile, &mut |r| eprintln!("{}", r.name))?;
//! let report = bench::summarize(results, bench::Meta::collect(&soc, "offline", "…", 0.0));
//! println!("{}", bench::markdown(&report));
//! # Ok(()) }
//! ```

mod markdown;
pub(crate) mod svg;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use agenticcann_build::judge::{
    evaluate, EvalOptions, JudgeError, Outcome, ShapeOrigin, SimToolchain, SocProfile,
};
use agenticcann_build::spec::{OpSpec, Pattern};
use agenticcann_build::synth::{
    eager_bytes, eager_plan, op_bytes, propose, roofline_us, vendor_fused_time, SynthError,
    SynthOptions,
};
use serde::{Deserialize, Serialize};

pub use markdown::markdown;
pub use svg::{feasibility_svg, roofline_svg, speedup_svg};

use crate::suite::SuiteOp;

/// The benchmark suite of the source tree this crate was built from (`tests/bench/suite`).
pub fn default_suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/suite")
}

/// The `p` thresholds of [`FastP`] (KernelBench's fast_p: correct and more than p× faster).
pub const FAST_P: [f64; 4] = [0.0, 1.0, 1.5, 2.0];

/// Suite ops left out of the suite, with why: (pattern, op, why). Reported in every report so
/// the table's denominators are honest. Top-k cannot be written in the reference language;
/// the others can (`iota`, `argmax`, `take_along_axis`, integer outputs, strided slices) but the
/// offline proposer does not lower those constructs yet (it returns `Unsupported` naming
/// them), so they would only count as infeasible. Step-1 last-axis slices of inputs are
/// lowered (GM views) and so are last-axis concats of elementwise expressions over them
/// (column segments), so packed SwiGLU / GeGLU and rotate-half RoPE are in the suite.
pub const NOT_EXPRESSIBLE: &[(&str, &str, &str)] = &[
    (
        "reduction",
        "argmax over the vocabulary (greedy decoding)",
        "expressible (`argmax(logits, axis=-1)` into an i32 output), not lowered by the offline proposer yet",
    ),
    (
        "reduction",
        "top-k of MoE expert scores",
        "not expressible: no sort/top-k",
    ),
    (
        "fusion",
        "RoPE, interleaved pairs (GPT-J / ChatGLM)",
        "reading even/odd lanes is expressible (`x[..., ::2]`), writing the rotated pairs back interleaved is not (no interleave/stack, no integer mod for a gather permutation) short of a D-operand concat of one-lane slices",
    ),
    (
        "fusion",
        "cross-entropy by label index",
        "expressible (`take_along_axis(x, label, axis=-1)` with i32 labels), not lowered by the offline proposer yet (the suite's cross_entropy_soft_f32 takes probability targets)",
    ),
];

/// How to run the benchmark.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The judge's options for each op's kernel: declared, held-out and stress shapes (the
    /// default), so "feasible" means accepted on every shape.
    pub eval: EvalOptions,
    /// The judge's options for the eager recipe's kernels (default: declared shapes only;
    /// they are baselines, timed, not the object under test).
    pub eager_eval: EvalOptions,
    /// The offline proposer's options (the base of its search).
    pub synth: SynthOptions,
    /// Search the offline proposer's variants for the fastest accepted kernel
    /// ([`agenticcann_build::synth::search`], what `build.rs` ships on a store miss; the
    /// default) rather than judge its single default proposal.
    pub search: bool,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            eval: EvalOptions::default(),
            eager_eval: EvalOptions {
                held_out: false,
                stress: false,
                ..EvalOptions::default()
            },
            synth: SynthOptions::default(),
            search: true,
        }
    }
}

/// Where each op's kernel comes from.
pub enum KernelSource<'a> {
    /// The offline proposer ([`BenchOptions::synth`]): one proposal per op, judged.
    Offline,
    /// An `evolve` search per op ([`crate::search::run_search`]) with this model, knowledge
    /// and configuration (its budgets are the stated budget per op; each op's run folder is
    /// `config.run_dir/<op>`). The best accepted kernel of the search (which may be the
    /// offline seed or a tiling variant when the configuration lets them join: the report's
    /// `kernel_from` says which) is judged again with [`BenchOptions::eval`] for the table.
    Search {
        /// The model.
        model: &'a dyn crate::llm::ChatModel,
        /// The knowledge base the prompts are built from.
        kb: &'a crate::knowledge::KnowledgeBase,
        /// The search: generations, budgets, agent mode, run folder.
        config: &'a crate::search::SearchConfig,
    },
}

/// Why the benchmark could not run (the environment, not a kernel).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The judge cannot run (no simulator toolchain, I/O).
    #[error(transparent)]
    Judge(#[from] JudgeError),
    /// An op's search could not run (the judge, its run folder); a model that fails is an
    /// op's result, not this.
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
    /// The suite mixes SoCs or has no ops.
    #[error("{0}")]
    Suite(String),
}

/// The SoC the suite targets and its cost-model profile.
#[derive(Clone, Debug)]
pub struct SocInfo {
    /// The SoC name (`Ascend910B1`).
    pub name: String,
    /// The profile file (`ascendc-sim/profiles/<soc>.toml`).
    pub path: PathBuf,
    /// sha256 of the profile file (hex): the parameters the cost model ran with.
    pub digest: String,
    /// The numbers the baselines use.
    pub profile: SocProfile,
}

/// The SoC of `suite` (all ops must share one) and its profile from the judge's toolchain
/// (`opts.eval.toolchain`, else the environment).
///
/// # Errors
/// [`BenchError::Suite`] for an empty suite or several SoCs; [`BenchError::Judge`] when the
/// toolchain or profile cannot be found.
pub fn soc_of(suite: &[SuiteOp], opts: &BenchOptions) -> Result<SocInfo, BenchError> {
    let first = suite
        .first()
        .ok_or_else(|| BenchError::Suite("the suite selection has no ops".into()))?;
    let name = first.op.soc.name().to_string();
    if let Some(o) = suite.iter().find(|o| o.op.soc.name() != name) {
        return Err(BenchError::Suite(format!(
            "op `{}` targets {} but `{}` targets {name}: one report covers one SoC",
            o.op.name,
            o.op.soc.name(),
            first.op.name
        )));
    }
    let tc = match &opts.eval.toolchain {
        Some(t) => t.clone(),
        None => SimToolchain::from_env().map_err(JudgeError::from)?,
    };
    let profile = tc.soc_profile(&name).map_err(JudgeError::from)?;
    let path = tc.profiles.join(format!("{name}.toml"));
    let digest = std::fs::read(&path)
        .map(|b| {
            use sha2::Digest;
            format!("{:x}", sha2::Sha256::digest(&b))
        })
        .map_err(|e| JudgeError::io("read", &path, e))?;
    Ok(SocInfo {
        name,
        path,
        digest,
        profile,
    })
}

/// What became of one op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpStatus {
    /// Accepted by the judge on every declared, held-out and stress shape.
    Feasible,
    /// Verified, but its profile is implausible (below the roofline or flagged by the
    /// judge): reported, not counted.
    Suspect,
    /// The judge did not accept the kernel (compile error, wrong result, …).
    Infeasible,
    /// The proposer cannot generate a kernel for the op.
    Unsupported,
}

impl OpStatus {
    /// The label used in tables.
    pub fn label(self) -> &'static str {
        match self {
            OpStatus::Feasible => "ok",
            OpStatus::Suspect => "SUSPECT",
            OpStatus::Infeasible => "infeasible",
            OpStatus::Unsupported => "unsupported",
        }
    }
}

/// One declared shape of one op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeRow {
    /// The named dimensions.
    pub dims: BTreeMap<String, u64>,
    /// Rows of the op at this shape: the first input's elements over its last axis.
    pub rows: u64,
    /// The kernel's modelled time, µs.
    pub time_us: f64,
    /// The pipe that bounds it (`MTE2`, `V`, `MTE3`, `scalar`, `launch`).
    pub bound: String,
    /// Least GM bytes of the op (inputs + outputs).
    pub bytes: u64,
    /// `roofline / time`, where roofline = bytes at peak HBM + launch overhead.
    pub roofline_fraction: f64,
    /// The eager recipe's time, µs (summed over its launches).
    pub eager_us: Option<f64>,
    /// GM bytes the eager recipe's launches must move.
    pub eager_bytes: Option<u64>,
    /// The vendor-fused model's time, µs.
    pub vendor_us: Option<f64>,
}

/// One op's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpResult {
    /// The op.
    pub name: String,
    /// Its pattern (suite folder).
    pub pattern: String,
    /// The source model family and framework code of its baseline.
    pub source: String,
    /// What the eager column is: `recipe` (the declared recipe) or `reference` (no recipe:
    /// the reference decomposed, intermediates in the output dtype); `None` when the op
    /// declares only a vendor kernel.
    pub eager_kind: Option<String>,
    /// Launches of the eager baseline.
    pub eager_launches: Option<usize>,
    /// Why the eager column is empty although a recipe exists (a launch not accepted).
    pub eager_error: Option<String>,
    /// The vendor kernel of the vendor-fused column.
    pub vendor: Option<String>,
    /// The verdict.
    pub status: OpStatus,
    /// For anything but feasible: the first reason, one line.
    pub reason: Option<String>,
    /// Declared shapes (empty unless the kernel ran).
    pub shapes: Vec<ShapeRow>,
    /// Geometric mean over shapes of eager / kernel time.
    pub speedup_eager: Option<f64>,
    /// Geometric mean over shapes of vendor-fused / kernel time (≤ 1 for an honest kernel).
    pub speedup_vendor: Option<f64>,
    /// Speedup of the reported kernel over the first feasible candidate: for the offline
    /// search, the default proposal (summed declared-shape times; 1 without the search); for
    /// an `evolve` search, the model's first feasible kernel (fitness).
    pub speedup_first: Option<f64>,
    /// Candidates judged (the offline search: the distinct variants it tried).
    pub candidates: usize,
    /// Wall time spent on the op (kernel and baselines), seconds.
    pub wall_s: f64,
    /// Where the reported kernel came from: `offline` for the offline proposer's default
    /// proposal, `offline tile=… bufs=… …` for the variant its search chose; in a search,
    /// the best candidate's phase and label (`init: agent step 3 (submit)`, `tiling: …`,
    /// `offline: …` when no model-written kernel beat the seed).
    #[serde(default)]
    pub kernel_from: Option<String>,
    /// Tokens (prompt + completion) by phase when a model ran (`init`, `mutation`, `repair`,
    /// `tuning`); `None` for the offline proposer.
    #[serde(default)]
    pub tokens: Option<BTreeMap<String, u64>>,
    /// Why a search stopped (`generations`, `token budget`, `model unavailable: …`).
    #[serde(default)]
    pub search_stop: Option<String>,
    /// `--proposer both`: geometric mean over the declared shapes of the offline proposer's
    /// time over this kernel's ([`speedup_over`]).
    #[serde(default)]
    pub speedup_offline: Option<f64>,
}

/// The speedup of `r`'s kernel over `base`'s for the same op: the geometric mean over the
/// declared shapes both have of base time / `r` time. `None` when either is not counted
/// ([`OpResult::counted`]) or they share no shape.
pub fn speedup_over(base: &OpResult, r: &OpResult) -> Option<f64> {
    if !base.counted() || !r.counted() {
        return None;
    }
    geomean(r.shapes.iter().filter_map(|x| {
        base.shapes
            .iter()
            .find(|b| b.dims == x.dims)
            .map(|b| b.time_us / x.time_us)
    }))
}

impl OpResult {
    /// Counted as correct: feasible and not suspect.
    pub fn counted(&self) -> bool {
        self.status == OpStatus::Feasible
    }
}

use crate::search::population::geomean;

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// The rows of `op` at `binding`: the first input's elements over its last axis.
fn rows_of(op: &OpSpec, binding: &HashMap<String, usize>) -> u64 {
    op.inputs
        .first()
        .and_then(|i| i.decl.shape.bind(binding).ok())
        .map(|s| {
            s.iter()
                .take(s.len().saturating_sub(1))
                .map(|&d| d as u64)
                .product::<u64>()
        })
        .unwrap_or(1)
}

fn binding_of(dims: &BTreeMap<String, u64>) -> HashMap<String, usize> {
    dims.iter().map(|(k, v)| (k.clone(), *v as usize)).collect()
}

/// Cached judged times of eager kernels: (key, shapes) → per declared shape (µs, bytes), or
/// why the kernel is not accepted.
type EagerCache = HashMap<(String, String), Result<Vec<(f64, u64)>, String>>;

/// The eager column of one op: per declared shape (µs, bytes), the launch count, the kind.
type EagerColumn = (Vec<(f64, u64)>, usize, &'static str);

/// The eager baseline of `op` per declared shape (µs, bytes), the launch count and the kind,
/// or why it cannot be timed.
fn eager_of(
    op: &OpSpec,
    opts: &BenchOptions,
    soc: &SocProfile,
    cache: &mut EagerCache,
) -> Result<Option<EagerColumn>, BenchError> {
    let has_recipe = op.eager.as_ref().is_some_and(|e| e.recipe.is_some());
    let kind = match (&op.eager, has_recipe) {
        (_, true) => "recipe",
        (None, false) => "reference",
        (Some(_), false) => return Ok(None),
    };
    let plan = match eager_plan(op) {
        Ok(p) => p,
        Err(e) => {
            return Err(BenchError::Suite(format!(
                "eager plan of `{}`: {e}",
                op.name
            )))
        }
    };
    let mut total = vec![(0.0, 0u64); op.shapes.len()];
    for step in &plan {
        if step.vendor.is_some() {
            for (i, b) in op.shapes.iter().enumerate() {
                let n = op_bytes(&step.op, b).unwrap_or(0);
                total[i].0 += roofline_us(n, soc);
                total[i].1 += n;
            }
            continue;
        }
        let ck = (
            step.op.key().to_hex(),
            format!("{:?}", sorted(&step.op.shapes)),
        );
        if !cache.contains_key(&ck) {
            let r = match propose(&step.op, &opts.synth) {
                Err(e) => Err(format!(
                    "eager launch `{}` cannot be proposed: {e}",
                    step.op.reference.to_canonical_source()
                )),
                Ok(c) => {
                    let ev = evaluate(&step.op, &c, &opts.eager_eval)?;
                    if ev.accepted() {
                        Ok(ev
                            .shapes
                            .iter()
                            .filter(|s| s.origin == ShapeOrigin::Declared)
                            .map(|s| {
                                s.profile.as_ref().map_or((0.0, 0), |p| {
                                    (p.time_us, p.gm_read_bytes + p.gm_write_bytes)
                                })
                            })
                            .collect())
                    } else {
                        Err(format!(
                            "eager launch `{}` not accepted by the judge: {}",
                            step.op.reference.to_canonical_source(),
                            ev.errors()
                                .next()
                                .map(|d| first_line(&d.headline()))
                                .unwrap_or_else(|| ev.outcome.label().to_string())
                        ))
                    }
                }
            };
            cache.insert(ck.clone(), r);
        }
        match &cache[&ck] {
            Err(e) => return Err(BenchError::Suite(e.clone())),
            Ok(times) => {
                for (i, t) in total.iter_mut().enumerate() {
                    let x = if times.len() == 1 {
                        times.first()
                    } else {
                        times.get(i)
                    };
                    if let Some((us, _)) = x {
                        t.0 += us;
                    }
                    t.1 += op_bytes(&step.op, &op.shapes[i]).unwrap_or(0);
                }
            }
        }
    }
    Ok(Some((total, plan.len(), kind)))
}

fn sorted(shapes: &[HashMap<String, usize>]) -> Vec<BTreeMap<&str, usize>> {
    shapes
        .iter()
        .map(|b| b.iter().map(|(k, v)| (k.as_str(), *v)).collect())
        .collect()
}

/// Runs the offline proposer and the judge on every op of `suite`, times its baselines, and
/// calls `progress` after each op. An op whose kernel cannot be generated, is not accepted
/// or is suspect is a result, not an error.
///
/// # Errors
/// [`BenchError::Judge`] when the judge cannot run at all.
pub fn run(
    suite: &[SuiteOp],
    opts: &BenchOptions,
    soc: &SocProfile,
    progress: &mut dyn FnMut(&OpResult),
) -> Result<Vec<OpResult>, BenchError> {
    run_with(suite, opts, soc, &KernelSource::Offline, progress)
}

/// As [`run`], with each op's kernel from `source` (the offline proposer, or an `evolve`
/// search with a model).
///
/// # Errors
/// [`BenchError::Judge`] when the judge cannot run at all; [`BenchError::Search`] when a
/// search cannot run (its run folder).
pub fn run_with(
    suite: &[SuiteOp],
    opts: &BenchOptions,
    soc: &SocProfile,
    source: &KernelSource<'_>,
    progress: &mut dyn FnMut(&OpResult),
) -> Result<Vec<OpResult>, BenchError> {
    let mut cache = EagerCache::new();
    let mut out = Vec::with_capacity(suite.len());
    for s in suite {
        let r = run_op(s, opts, soc, source, &mut cache)?;
        progress(&r);
        out.push(r);
    }
    Ok(out)
}

/// The kernel to report for `op` from a search: the best accepted candidate, the speedup
/// over the first model-written feasible one, and the search's accounting in `r`. `None`
/// (with `r.status`/`r.reason` set) when nothing was accepted.
fn searched_kernel(
    op: &OpSpec,
    model: &dyn crate::llm::ChatModel,
    kb: &crate::knowledge::KnowledgeBase,
    config: &crate::search::SearchConfig,
    r: &mut OpResult,
) -> Result<Option<agenticcann_build::judge::Candidate>, BenchError> {
    let run = crate::search::run_search(op, kb, Some(model), config, &mut |_| {})?;
    r.candidates = run.population.all.len();
    r.tokens = Some(
        run.tokens_by_phase
            .iter()
            .map(|(phase, t)| (phase.clone(), t.prompt + t.completion))
            .collect(),
    );
    r.search_stop = Some(run.stop.to_string());
    let Some(best) = run.best() else {
        r.status = OpStatus::Infeasible;
        r.reason = Some(format!(
            "the search accepted no kernel in {} candidate(s) (stop: {})",
            r.candidates, run.stop
        ));
        return Ok(None);
    };
    r.kernel_from = Some(format!("{}: {}", best.line.phase, best.line.label));
    let first = run
        .first_feasible
        .and_then(|id| run.population.get(id))
        .and_then(|i| i.line.fitness);
    r.speedup_first = match (first, best.line.fitness) {
        (Some(f), Some(b)) if b > 0.0 => Some(f / b),
        _ => None,
    };
    Ok(Some(best.candidate.clone()))
}

/// The offline search's accounting in `r`: the variants tried, where the kernel came from
/// (its tiling options) and its speedup over the default proposal `base` (the summed
/// declared-shape times of the quick evaluations; none when the default was not accepted).
fn searched_offline(
    found: &agenticcann_build::synth::Searched,
    base: &SynthOptions,
    r: &mut OpResult,
) {
    r.candidates = found.tried.len();
    r.kernel_from = Some(crate::search::tiling::offline_label(&found.options));
    let time_of = |o: &SynthOptions| {
        found
            .tried
            .iter()
            .find(|(t, _)| t == o)
            .and_then(|(_, us)| *us)
    };
    r.speedup_first = match (time_of(base), time_of(&found.options)) {
        (Some(b), Some(c)) if c > 0.0 => Some(b / c),
        _ => None,
    };
}

fn run_op(
    s: &SuiteOp,
    opts: &BenchOptions,
    soc: &SocProfile,
    source: &KernelSource<'_>,
    cache: &mut EagerCache,
) -> Result<OpResult, BenchError> {
    let t0 = Instant::now();
    let op = &s.op;
    let mut r = OpResult {
        name: op.name.clone(),
        pattern: s.label.as_str().to_string(),
        source: op
            .eager
            .as_ref()
            .map(|e| e.source.clone())
            .unwrap_or_else(|| "(no eager recipe declared)".into()),
        eager_kind: None,
        eager_launches: None,
        eager_error: None,
        vendor: op.eager.as_ref().and_then(|e| e.vendor.clone()),
        status: OpStatus::Unsupported,
        reason: None,
        shapes: Vec::new(),
        speedup_eager: None,
        speedup_vendor: None,
        speedup_first: None,
        candidates: 0,
        wall_s: 0.0,
        kernel_from: None,
        tokens: None,
        search_stop: None,
        speedup_offline: None,
    };
    // The kernel, and its evaluation when the proposer judged it with `opts.eval` already.
    let proposed = match source {
        KernelSource::Offline if opts.search => {
            match agenticcann_build::synth::search(op, &opts.synth, &opts.eval) {
                Ok(found) => {
                    searched_offline(&found, &opts.synth, &mut r);
                    Ok((found.best.candidate, Some(found.best.evaluation)))
                }
                // The reference cannot be evaluated on a shape the judge planned: the op's
                // result, as below.
                Err(SynthError::Judge(e @ JudgeError::Reference { .. })) => {
                    r.status = OpStatus::Infeasible;
                    r.reason = Some(format!(
                        "the judge cannot verify it: {}",
                        first_line(&e.to_string())
                    ));
                    r.wall_s = t0.elapsed().as_secs_f64();
                    return Ok(r);
                }
                Err(SynthError::Rejected {
                    outcome, report, ..
                }) => {
                    r.status = OpStatus::Infeasible;
                    r.reason = Some(
                        report
                            .lines()
                            .find(|l| l.contains("error"))
                            .map(first_line)
                            .unwrap_or(outcome),
                    );
                    r.wall_s = t0.elapsed().as_secs_f64();
                    return Ok(r);
                }
                Err(e) => Err(e),
            }
        }
        KernelSource::Offline => propose(op, &opts.synth).map(|c| (c, None)),
        KernelSource::Search { model, kb, config } => {
            match searched_kernel(op, *model, kb, config, &mut r)? {
                Some(c) => Ok((c, None)),
                None => {
                    r.wall_s = t0.elapsed().as_secs_f64();
                    return Ok(r);
                }
            }
        }
    };
    let (candidate, judged) = match proposed {
        Ok(c) => c,
        Err(e @ (SynthError::Unsupported { .. } | SynthError::Params(_))) => {
            r.reason = Some(first_line(&e.to_string()));
            r.wall_s = t0.elapsed().as_secs_f64();
            return Ok(r);
        }
        Err(SynthError::Judge(e)) => return Err(e.into()),
        Err(e) => {
            r.reason = Some(first_line(&e.to_string()));
            r.wall_s = t0.elapsed().as_secs_f64();
            return Ok(r);
        }
    };
    if matches!(source, KernelSource::Offline) && !opts.search {
        r.candidates = 1;
        r.kernel_from = Some("offline".into());
    }
    let evaluated = match judged {
        Some(ev) => Ok(ev),
        None => evaluate(op, &candidate, &opts.eval),
    };
    let ev = match evaluated {
        Ok(ev) => ev,
        // The reference cannot be evaluated on a shape the judge planned (a spec the judge
        // cannot verify): the op's result, not the run's end.
        Err(e @ JudgeError::Reference { .. }) => {
            r.status = OpStatus::Infeasible;
            r.reason = Some(format!(
                "the judge cannot verify it: {}",
                first_line(&e.to_string())
            ));
            r.wall_s = t0.elapsed().as_secs_f64();
            return Ok(r);
        }
        Err(e) => return Err(e.into()),
    };
    if ev.outcome != Outcome::Verified {
        r.status = OpStatus::Infeasible;
        r.reason = Some(
            ev.errors()
                .next()
                .map(|d| first_line(&d.headline()))
                .unwrap_or_else(|| ev.outcome.label().to_string()),
        );
        r.wall_s = t0.elapsed().as_secs_f64();
        return Ok(r);
    }
    // Declared shapes, in op.shapes order.
    for sh in ev
        .shapes
        .iter()
        .filter(|x| x.origin == ShapeOrigin::Declared)
    {
        let Some(p) = &sh.profile else { continue };
        let b = binding_of(&sh.dims);
        let bytes = op_bytes(op, &b).unwrap_or(p.min_bytes);
        r.shapes.push(ShapeRow {
            dims: sh.dims.clone(),
            rows: rows_of(op, &b),
            time_us: p.time_us,
            bound: p.bound.clone(),
            bytes,
            roofline_fraction: roofline_us(bytes, soc) / p.time_us,
            eager_us: None,
            eager_bytes: None,
            vendor_us: vendor_fused_time(op, &b, soc)
                .ok()
                .flatten()
                .map(|v| v.time_us),
        });
    }
    let below = r
        .shapes
        .iter()
        .find(|x| x.time_us < roofline_us(x.bytes, soc) * (1.0 - 1e-6));
    if ev.suspect_performance || below.is_some() {
        r.status = OpStatus::Suspect;
        r.reason = Some(match below {
            Some(x) => format!(
                "{:.3} us at {:?} is below the roofline {:.3} us",
                x.time_us,
                x.dims,
                roofline_us(x.bytes, soc)
            ),
            None => ev
                .errors()
                .next()
                .map(|d| first_line(&d.headline()))
                .unwrap_or_else(|| "suspect profile".into()),
        });
    } else {
        r.status = OpStatus::Feasible;
    }
    if matches!(source, KernelSource::Offline) && !opts.search {
        r.speedup_first = Some(1.0);
    }
    match eager_of(op, opts, soc, cache) {
        Ok(Some((times, launches, kind))) => {
            r.eager_kind = Some(kind.into());
            r.eager_launches = Some(launches);
            for (row, (us, bytes)) in r.shapes.iter_mut().zip(&times) {
                row.eager_us = Some(*us);
                let b = binding_of(&row.dims);
                row.eager_bytes = eager_plan(op)
                    .ok()
                    .and_then(|p| eager_bytes(&p, &b).ok())
                    .or(Some(*bytes));
            }
        }
        Ok(None) => {}
        Err(BenchError::Suite(e)) => {
            let kind = if op.eager.is_some() {
                "recipe"
            } else {
                "reference"
            };
            r.eager_kind = Some(kind.to_string());
            r.eager_error = Some(e);
        }
        Err(e) => return Err(e),
    }
    r.speedup_eager = geomean(
        r.shapes
            .iter()
            .filter_map(|x| x.eager_us.map(|e| e / x.time_us)),
    );
    r.speedup_vendor = geomean(
        r.shapes
            .iter()
            .filter_map(|x| x.vendor_us.map(|v| v / x.time_us)),
    );
    r.wall_s = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// Where and how a report was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// When the run finished, UTC (`2026-12-01 23:59:00 UTC`).
    pub date_utc: String,
    /// Host name, CPU model and core count.
    pub machine: String,
    /// `git rev-parse HEAD` of the source tree (with `+dirty` for uncommitted changes), or
    /// `unknown`.
    pub commit: String,
    /// `release` or `debug`: how the benchmark binary was built.
    pub build: String,
    /// The SoC.
    pub soc: String,
    /// The SoC profile file.
    pub profile_path: String,
    /// sha256 of the SoC profile file.
    pub profile_digest: String,
    /// Peak HBM bandwidth of the profile, GB/s (the roofline and vendor-fused model).
    pub hbm_peak_gbps: f64,
    /// Launch overhead of the profile, µs.
    pub launch_overhead_us: f64,
    /// The proposer(s) that ran.
    pub proposer: String,
    /// The command that regenerates the report.
    pub command: String,
    /// Whole run, seconds.
    pub wall_s: f64,
    /// `None` for a complete run; else what is missing (a report written while the run is
    /// still going, or of a run that was stopped).
    #[serde(default)]
    pub partial: Option<String>,
}

impl Meta {
    /// The run's metadata, now.
    pub fn collect(soc: &SocInfo, proposer: &str, command: &str, wall_s: f64) -> Meta {
        Meta {
            date_utc: utc_now(),
            machine: machine(),
            commit: commit(Path::new(env!("CARGO_MANIFEST_DIR"))),
            build: if cfg!(debug_assertions) {
                "debug".into()
            } else {
                "release".into()
            },
            soc: soc.name.clone(),
            profile_path: soc.path.display().to_string(),
            profile_digest: soc.digest.clone(),
            hbm_peak_gbps: soc.profile.hbm_peak_gbps,
            launch_overhead_us: soc.profile.launch_overhead_us,
            proposer: proposer.into(),
            command: command.into(),
            wall_s,
            partial: None,
        }
    }
}

/// The current time as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_of(secs)
}

/// `secs` since the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC` (proleptic Gregorian; Howard
/// Hinnant's days-to-civil algorithm).
pub fn utc_of(secs: u64) -> String {
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn machine() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown host".into());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{host}: {cpu}, {cores} cores available, {}",
        std::env::consts::OS
    )
}

fn commit(dir: &Path) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        None => "unknown".into(),
        Some(h) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{h}+dirty")
            } else {
                h
            }
        }
    }
}

/// One pattern's summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternSummary {
    /// The pattern.
    pub pattern: String,
    /// Ops run.
    pub ops: usize,
    /// Feasible (and not suspect).
    pub feasible: usize,
    /// Suspect.
    pub suspect: usize,
    /// Ops of the pattern left out of the suite ([`NOT_EXPRESSIBLE`]: not expressible, or
    /// not lowered by the offline proposer yet), not run.
    pub not_expressible: usize,
    /// `feasible / ops`.
    pub feasibility: f64,
    /// Geometric mean over feasible ops of the speedup vs the eager recipe.
    pub geomean_vs_eager: Option<f64>,
    /// Geometric mean over feasible ops of the speedup vs the vendor-fused model.
    pub geomean_vs_vendor: Option<f64>,
    /// Geometric mean over feasible ops' shapes of the roofline fraction.
    pub geomean_roofline: Option<f64>,
}

/// `fast_p` for one baseline and threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FastP {
    /// `eager` or `vendor`.
    pub baseline: String,
    /// The threshold.
    pub p: f64,
    /// Ops that have this baseline (the denominator).
    pub ops: usize,
    /// Of them, feasible with speedup > p.
    pub count: usize,
    /// `count / ops`.
    pub fraction: f64,
}

/// One of the issue's targets, read from the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// What is measured.
    pub name: String,
    /// The goal, as text (`≥ 6.65×`).
    pub goal: String,
    /// The measured value (`None`: the op or shape is not in this run).
    pub measured: Option<f64>,
    /// Whether the goal is met.
    pub met: bool,
    /// The pipe profile behind a miss, or what was measured.
    pub note: String,
}

/// A whole benchmark report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Report format version (1).
    pub format: u32,
    /// Where and how it was made.
    pub meta: Meta,
    /// Per op, in suite order.
    pub ops: Vec<OpResult>,
    /// Per pattern, in [`Pattern::ALL`] order.
    pub patterns: Vec<PatternSummary>,
    /// `fast_p` per baseline and [`FAST_P`] threshold.
    pub fast_p: Vec<FastP>,
    /// The issue's targets.
    pub targets: Vec<Target>,
    /// Ops left out of the suite ([`NOT_EXPRESSIBLE`]): (pattern, op, why).
    pub not_expressible: Vec<(String, String, String)>,
}

/// Builds the report from per-op results.
pub fn summarize(ops: Vec<OpResult>, meta: Meta) -> Report {
    let mut patterns = Vec::new();
    for p in Pattern::ALL {
        let of: Vec<&OpResult> = ops.iter().filter(|o| o.pattern == p.as_str()).collect();
        let ne = NOT_EXPRESSIBLE
            .iter()
            .filter(|(pat, _, _)| *pat == p.as_str())
            .count();
        if of.is_empty() && ne == 0 {
            continue;
        }
        let ok: Vec<&&OpResult> = of.iter().filter(|o| o.counted()).collect();
        patterns.push(PatternSummary {
            pattern: p.as_str().into(),
            ops: of.len(),
            feasible: ok.len(),
            suspect: of.iter().filter(|o| o.status == OpStatus::Suspect).count(),
            not_expressible: ne,
            feasibility: if of.is_empty() {
                0.0
            } else {
                ok.len() as f64 / of.len() as f64
            },
            geomean_vs_eager: geomean(ok.iter().filter_map(|o| o.speedup_eager)),
            geomean_vs_vendor: geomean(ok.iter().filter_map(|o| o.speedup_vendor)),
            geomean_roofline: geomean(
                ok.iter()
                    .flat_map(|o| o.shapes.iter().map(|s| s.roofline_fraction)),
            ),
        });
    }
    let mut fast_p = Vec::new();
    for (baseline, has) in [
        (
            "eager",
            (|o: &OpResult| o.eager_kind.is_some()) as fn(&OpResult) -> bool,
        ),
        ("vendor", |o: &OpResult| o.vendor.is_some()),
    ] {
        let with: Vec<&OpResult> = ops.iter().filter(|o| has(o)).collect();
        for p in FAST_P {
            let count = with
                .iter()
                .filter(|o| {
                    let speedup = if baseline == "eager" {
                        o.speedup_eager
                    } else {
                        o.speedup_vendor
                    };
                    o.counted() && speedup.is_some_and(|s| s > p)
                })
                .count();
            fast_p.push(FastP {
                baseline: baseline.into(),
                p,
                ops: with.len(),
                count,
                fraction: if with.is_empty() {
                    0.0
                } else {
                    count as f64 / with.len() as f64
                },
            });
        }
    }
    let targets = targets(&ops, &patterns);
    Report {
        format: 1,
        meta,
        ops,
        patterns,
        fast_p,
        targets,
        not_expressible: NOT_EXPRESSIBLE
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect(),
    }
}

fn targets(ops: &[OpResult], patterns: &[PatternSummary]) -> Vec<Target> {
    let mut t = Vec::new();
    for p in patterns.iter().filter(|p| p.ops > 0) {
        let need = if p.pattern == "fusion" { 0.8 } else { 1.0 };
        t.push(Target {
            name: format!("feasibility, {}", p.pattern),
            goal: format!("≥ {:.0}%", need * 100.0),
            measured: Some(p.feasibility * 100.0),
            met: p.ops > 0 && p.feasibility >= need,
            note: format!(
                "{} / {} ops{}",
                p.feasible,
                p.ops,
                if p.not_expressible > 0 {
                    format!(", {} not in the suite (not run)", p.not_expressible)
                } else {
                    String::new()
                }
            ),
        });
    }
    // Normalization and softmax at R ≥ 128: ≥ 80% of the roofline.
    for pat in ["normalization", "softmax"] {
        let rows: Vec<(&OpResult, &ShapeRow)> = ops
            .iter()
            .filter(|o| o.pattern == pat && o.counted())
            .flat_map(|o| {
                o.shapes
                    .iter()
                    .filter(|s| s.rows >= 128)
                    .map(move |s| (o, s))
            })
            .collect();
        let worst = rows
            .iter()
            .min_by(|a, b| a.1.roofline_fraction.total_cmp(&b.1.roofline_fraction));
        let below = rows
            .iter()
            .filter(|(_, s)| s.roofline_fraction < 0.8)
            .count();
        t.push(Target {
            name: format!("{pat} at R ≥ 128, fraction of the HBM roofline (worst shape)"),
            goal: "≥ 80%".into(),
            measured: worst.map(|w| w.1.roofline_fraction * 100.0),
            met: worst.is_some() && below == 0,
            note: match worst {
                None => "no feasible shape with R ≥ 128 in this run".into(),
                Some((o, s)) => format!(
                    "{below} of {} shapes below 80%; worst {} at {}: {}-bound",
                    rows.len(),
                    o.name,
                    dims_text(&s.dims),
                    s.bound
                ),
            },
        });
    }
    let at = |name: &str, rows: u64, hidden: u64| {
        ops.iter().find(|o| o.name == name).and_then(|o| {
            o.shapes
                .iter()
                .find(|s| s.rows == rows && s.dims.values().any(|v| *v == hidden))
                .map(|s| (o, s))
        })
    };
    let rms = at("rms_norm_f16", 2048, 4096);
    t.push(Target {
        name: "RMSNorm [2048, 4096] f16 vs its HF eager recipe".into(),
        goal: "≥ 6.65×".into(),
        measured: rms.and_then(|(_, s)| s.eager_us.map(|e| e / s.time_us)),
        met: rms
            .and_then(|(o, s)| s.eager_us.map(|e| o.counted() && e / s.time_us >= 6.65))
            .unwrap_or(false),
        note: rms.map_or("rms_norm_f16 at [2048, 4096] is not in this run".into(), |(o, s)| {
            format!(
                "kernel {:.1} us ({}-bound, {:.0}% of roofline), eager {:.1} us over {} launches moving {} bytes vs the kernel's {}",
                s.time_us,
                s.bound,
                100.0 * s.roofline_fraction,
                s.eager_us.unwrap_or(f64::NAN),
                o.eager_launches.unwrap_or(0),
                s.eager_bytes.unwrap_or(0),
                s.bytes
            )
        }),
    });
    let ln = at("layer_norm_f16", 2048, 4096);
    t.push(Target {
        name: "LayerNorm [2048, 4096] f16 vs the vendor-fused model".into(),
        goal: "≥ 0.9×".into(),
        measured: ln.and_then(|(_, s)| s.vendor_us.map(|v| v / s.time_us)),
        met: ln
            .and_then(|(o, s)| s.vendor_us.map(|v| o.counted() && v / s.time_us >= 0.9))
            .unwrap_or(false),
        note: ln.map_or("layer_norm_f16 at [2048, 4096] is not in this run".into(), |(_, s)| {
            format!(
                "kernel {:.1} us, {}-bound: the vendor model is the roofline ({:.1} us), so the ratio is the roofline fraction {:.0}%",
                s.time_us,
                s.bound,
                s.vendor_us.unwrap_or(f64::NAN),
                100.0 * s.roofline_fraction
            )
        }),
    });
    t
}

/// `rows=2048,hidden=4096`.
pub fn dims_text(d: &BTreeMap<String, u64>) -> String {
    if d.is_empty() {
        return "(fixed)".into();
    }
    d.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The report as pretty JSON.
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc_of(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_of(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_of(1_796_168_096), "2026-12-01 23:34:56 UTC");
    }

    #[test]
    fn geomean_skips_non_positive() {
        assert!((geomean([2.0, 8.0].into_iter()).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(geomean([0.0].into_iter()), None);
    }
}
