//! The stage-adaptive evolution loop (DESIGN §8, issue 16): `x* = argmin T(x)` subject to
//! `C(x) = 1`, where C is the judge and T the cost model's time.
//!
//! ```text
//! generation 1   the tool-using agent (part 1) until --seeds kernels are feasible
//!                + the offline proposer's kernel (labelled seed) + the offline tiling grid
//!                nothing feasible → fix mode on the closest failing candidates
//! generation g>1 per parent (best of each island, diverse layouts first):
//!                  Mutation prompt (L2–L4, parent, profile) → child → drift guard → judge
//!                  failed child → up to --repairs Repair prompts (L2 for its kinds + L5)
//!                Tuning prompt (L3 only) for the best parent; its tiling constants varied
//!                offline; islands exchange their best every MIGRATION_EVERY generations
//! stop           --generations, --token-budget (committed: spent + in flight),
//!                --time-budget, --patience (generations without a better kernel)
//! ```
//!
//! Everything is recorded in the run folder as it happens (`<op>/candidates.jsonl` and
//! `<op>/population/<id>/`, [`population`]); identical sources are judged once. The loop is
//! deterministic given the model's answers (the judge's seed is fixed), so running the same
//! command on the same folder resumes it: the recorded answers are served again
//! ([`crate::llm::Resume`]), the recorded verdicts are reused, and the run goes on where it
//! was interrupted.
//!
//! [`AgentMode`] selects how much autonomy the model gets: `adaptive` (agent at g=1, the
//! guarded fix loop after), `tool` (agent every generation, no guard), `fixloop` (single-pass
//! prompts with repair, guarded), `single` (single-pass prompts, no repair, no guard). With no
//! model at all the loop is the offline tiling search alone.

pub mod edit;
pub mod plot;
pub mod population;
pub mod prompts;
pub mod skeleton;
pub mod tiling;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use agenticcann_build::judge::{evaluate_many, Candidate, EvalOptions, Evaluation, JudgeError};
use agenticcann_build::spec::{OpSpec, Pattern};
use agenticcann_build::store::{write_file_atomic, KnowledgeRef};
use agenticcann_build::synth::{self, SynthOptions};
use serde::{Deserialize, Serialize};

use crate::agent::render::rendered;
use crate::agent::{candidate_digest, run_agent, AgentConfig, AgentError, StopReason};
use crate::knowledge::{route, tokens, AssembleError, KnowledgeBase};
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, Usage};
use edit::{EditError, EditFormat};
use population::{
    times_of, CandidateLine, DriftDecision, Individual, Population, PopulationError, Tokens,
};
use prompts::{OpContext, PhaseRequest};

/// How much autonomy the model gets (`--agent`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentMode {
    /// The agent in generation 1, the guarded fix loop after (the default).
    #[default]
    Adaptive,
    /// The agent in every generation (with the parent in its task), no drift guard.
    Tool,
    /// No agent: single-pass prompts with repair steps, guarded.
    Fixloop,
    /// No agent: single-pass prompts, no repair, no guard.
    Single,
}

impl AgentMode {
    /// Every mode.
    pub const ALL: [AgentMode; 4] = [
        AgentMode::Adaptive,
        AgentMode::Tool,
        AgentMode::Fixloop,
        AgentMode::Single,
    ];

    /// `adaptive`, `tool`, `fixloop`, `single`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentMode::Adaptive => "adaptive",
            AgentMode::Tool => "tool",
            AgentMode::Fixloop => "fixloop",
            AgentMode::Single => "single",
        }
    }

    /// Whether generation `g` runs the tool-using agent.
    pub fn agent_at(self, g: u32) -> bool {
        match self {
            AgentMode::Adaptive => g == 1,
            AgentMode::Tool => true,
            AgentMode::Fixloop | AgentMode::Single => false,
        }
    }

    /// Whether a child that changes its parent's skeleton is rejected unjudged.
    pub fn guarded(self) -> bool {
        matches!(self, AgentMode::Adaptive | AgentMode::Fixloop)
    }

    /// Whether failed children get repair steps.
    pub fn repairs(self) -> bool {
        !matches!(self, AgentMode::Single)
    }
}

impl fmt::Display for AgentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`AgentMode::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent mode `{0}` (expected adaptive, tool, fixloop or single)")]
pub struct UnknownAgentMode(pub String);

impl FromStr for AgentMode {
    type Err = UnknownAgentMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownAgentMode(s.to_string()))
    }
}

/// How to run the search for one op.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// The agent mode.
    pub mode: AgentMode,
    /// Generations, from 1 (default 3).
    pub generations: u32,
    /// Parents per island per generation (`--population`, default 2).
    pub population: usize,
    /// Repair steps per failed child (`--repairs`, default 2).
    pub repairs: u32,
    /// How children are written (`--edit-format`).
    pub edit_format: EditFormat,
    /// Evaluations at once (`--jobs`; separate from the model's concurrency).
    pub jobs: usize,
    /// Tokens for the op (committed: spent plus the request about to be sent).
    pub token_budget: Option<u64>,
    /// Wall time for the op.
    pub time_budget: Option<Duration>,
    /// Generations without a better kernel before stopping (default 2).
    pub patience: u32,
    /// The offline proposer's kernel joins generation 1 as a labelled seed.
    pub offline_seed: bool,
    /// The offline tiling search runs alongside (no tokens).
    pub tiling_search: bool,
    /// Tiling variants per search step (default 12).
    pub tiling_limit: usize,
    /// A Tuning prompt for the best parent each generation after the first.
    pub tuning: bool,
    /// The generation-1 agent's settings (model name, knowledge mode, budgets, seeds,
    /// sampling, the judge's options).
    pub agent: AgentConfig,
    /// The run folder (the op's records go to `<run_dir>/<op>/`).
    pub run_dir: PathBuf,
}

impl SearchConfig {
    /// Defaults for a run in `run_dir` with `agent`.
    pub fn new(agent: AgentConfig, run_dir: impl Into<PathBuf>) -> SearchConfig {
        SearchConfig {
            mode: AgentMode::Adaptive,
            generations: 3,
            population: 2,
            repairs: 2,
            edit_format: EditFormat::Whole,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            token_budget: None,
            time_budget: None,
            patience: 2,
            offline_seed: true,
            tiling_search: true,
            tiling_limit: 12,
            tuning: true,
            agent,
            run_dir: run_dir.into(),
        }
    }
}

/// Why a search ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum SearchStop {
    /// Every generation ran.
    Generations,
    /// `patience` generations brought no better kernel.
    Patience,
    /// The token budget would be exceeded by the next request.
    TokenBudget,
    /// The wall-time budget ran out.
    TimeBudget,
    /// The endpoint cannot be used (the error's text).
    ModelUnavailable(String),
}

impl SearchStop {
    /// A short label for tables.
    pub fn label(&self) -> &'static str {
        match self {
            SearchStop::Generations => "generations done",
            SearchStop::Patience => "patience exhausted",
            SearchStop::TokenBudget => "token budget exhausted",
            SearchStop::TimeBudget => "time budget exhausted",
            SearchStop::ModelUnavailable(_) => "model unavailable",
        }
    }
}

impl fmt::Display for SearchStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchStop::ModelUnavailable(d) => write!(f, "{}: {d}", self.label()),
            _ => f.write_str(self.label()),
        }
    }
}

/// One line of `<op>/generations.jsonl`: the state after a generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationLine {
    /// The generation, from 1.
    pub generation: u32,
    /// The best fitness so far (geometric mean µs), if any kernel is accepted.
    pub best_us: Option<f64>,
    /// The best kernel's id.
    pub best_id: Option<usize>,
    /// Candidates so far.
    pub candidates: usize,
    /// Tokens spent so far (prompt + completion).
    pub tokens: u64,
    /// Tokens spent in this generation.
    pub generation_tokens: u64,
}

/// What the loop reports as it goes (progress bars, `--message-format json`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SearchEvent<'a> {
    /// The run folder holds candidates of an earlier run of the same command: they are
    /// re-traced from their record (`candidates.jsonl`) as the loop reaches them, not judged
    /// again (sent once, before the first generation, only when there are any).
    Resuming {
        /// The op.
        op: &'a str,
        /// Candidates recorded by the earlier run.
        candidates: usize,
        /// The record they come from.
        record: String,
    },
    /// A generation starts.
    Generation {
        /// The op.
        op: &'a str,
        /// The generation.
        generation: u32,
        /// Of this many at most.
        of: u32,
    },
    /// A candidate was recorded.
    Candidate {
        /// The op.
        op: &'a str,
        /// Its line.
        line: &'a CandidateLine,
    },
    /// A generation ended.
    GenerationDone {
        /// The op.
        op: &'a str,
        /// The state.
        line: &'a GenerationLine,
    },
}

/// The outcome of one op's search.
#[derive(Debug)]
pub struct SearchRun {
    /// The op.
    pub op: String,
    /// Its pattern.
    pub pattern: Pattern,
    /// Why it ended.
    pub stop: SearchStop,
    /// Per generation.
    pub generations: Vec<GenerationLine>,
    /// Every candidate.
    pub population: Population,
    /// The first accepted kernel of the model (not the offline seed or the tiling search).
    pub first_feasible: Option<usize>,
    /// The offline proposer's seed, when it joined and was accepted.
    pub offline_seed: Option<usize>,
    /// Tokens by phase (`init`, `mutation`, `repair`, `tuning`).
    pub tokens_by_phase: BTreeMap<String, Tokens>,
    /// Tokens in all (exact sums of the server's `usage`).
    pub usage: Usage,
    /// Knowledge chunks used by any prompt, each once.
    pub knowledge: Vec<KnowledgeRef>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Seconds spent in the judge: the loop's evaluations and the agent's tool calls (summed
    /// over candidates, so above the wall time with parallel jobs), and the wall time of the
    /// offline seed's `synth::search` (which judges each variant it proposes).
    pub judge_seconds: f64,
    /// Seconds spent waiting for the model (an agent run's wall time less its tool calls).
    pub model_seconds: f64,
    /// The model's description, or `none`.
    pub model: String,
    /// The generation-1 agent's run (absent without a model or in the agent-less modes).
    pub agent: Option<crate::agent::AgentRun>,
}

impl SearchRun {
    /// The best accepted kernel.
    pub fn best(&self) -> Option<&Individual> {
        self.population.best()
    }

    /// Candidates by verdict (`accepted`, `compile_error`, `drift_rejected`, …).
    pub fn verdicts(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for i in &self.population.all {
            *m.entry(i.line.verdict.clone()).or_insert(0) += 1;
        }
        m
    }
}

/// Why a search could not be carried out (never the model's or a candidate's fault).
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The judge cannot run.
    #[error("the judge cannot run: {0}")]
    Judge(#[from] JudgeError),
    /// The generation-1 agent could not run.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The knowledge could not be assembled.
    #[error("the knowledge cannot be assembled: {0}")]
    Knowledge(#[from] AssembleError),
    /// The run folder's record cannot be read or written, or cannot be resumed.
    #[error(transparent)]
    Population(#[from] PopulationError),
}

/// The judge verdict of an evaluation, as a line records it.
pub fn verdict_of(ev: &Evaluation) -> String {
    if ev.accepted() {
        "accepted".into()
    } else if ev.suspect_performance {
        "suspect_performance".into()
    } else {
        serde_json::to_value(ev.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| ev.outcome.label().replace(' ', "_"))
    }
}

/// Error kinds of the earliest failing stage of an evaluation.
pub fn root_kinds(ev: &Evaluation) -> Vec<String> {
    rendered(String::new(), &ev.diagnostics, &ev.shapes, Some(ev)).kinds
}

/// A candidate waiting to be judged, with what its line will say.
struct Pending {
    candidate: Candidate,
    phase: &'static str,
    parent: Option<usize>,
    island: usize,
    label: String,
    tokens: Tokens,
    knowledge: Vec<String>,
    drift: Option<DriftDecision>,
    /// Set when the candidate is not to be judged (verdict, message).
    skip: Option<(String, String)>,
    /// An evaluation made already (the agent's accepted submit).
    evaluation: Option<Evaluation>,
}

impl Pending {
    fn new(
        candidate: Candidate,
        phase: &'static str,
        parent: Option<usize>,
        island: usize,
        label: String,
    ) -> Pending {
        Pending {
            candidate,
            phase,
            parent,
            island,
            label,
            tokens: Tokens::default(),
            knowledge: Vec::new(),
            drift: None,
            skip: None,
            evaluation: None,
        }
    }
}

/// What a child's line will say about where it came from.
struct Meta {
    phase: &'static str,
    parent: Option<usize>,
    island: usize,
    label: String,
}

/// A child a model wrote, still to be judged (or repaired).
struct Child {
    pending: Pending,
    /// The generation parent's candidate: the drift guard's reference (`None`: unguarded).
    guard_ref: Option<Candidate>,
    /// Repairs left.
    repairs_left: u32,
}

struct Loop<'a> {
    op: &'a OpSpec,
    kb: &'a KnowledgeBase,
    model: Option<&'a dyn ChatModel>,
    cfg: &'a SearchConfig,
    pattern: Pattern,
    soc: Option<agenticcann_build::judge::SocProfile>,
    pop: Population,
    t0: Instant,
    usage: Usage,
    by_phase: BTreeMap<String, Tokens>,
    knowledge: Vec<KnowledgeRef>,
    requests: u64,
    stop: Option<SearchStop>,
    judge_seconds: f64,
    model_seconds: f64,
    gen: u32,
    agent_run: Option<crate::agent::AgentRun>,
    on_event: &'a mut dyn FnMut(SearchEvent<'_>),
}

/// Runs the search for `op`. `model` is `None` for `--llm none` (the offline tiling search
/// alone). `on_event` sees every candidate and generation as it is recorded.
///
/// # Errors
/// [`SearchError`] when the judge cannot run, the run folder cannot be written, or an
/// earlier run in the folder cannot be resumed. A failing model is not an error: see
/// [`SearchStop`].
pub fn run_search(
    op: &OpSpec,
    kb: &KnowledgeBase,
    model: Option<&dyn ChatModel>,
    cfg: &SearchConfig,
    on_event: &mut dyn FnMut(SearchEvent<'_>),
) -> Result<SearchRun, SearchError> {
    let op_dir = cfg.run_dir.join(&op.name);
    let pop = Population::open(&op_dir, op)?;
    if pop.resumable() > 0 {
        on_event(SearchEvent::Resuming {
            op: &op.name,
            candidates: pop.resumable(),
            record: op_dir.join("candidates.jsonl").display().to_string(),
        });
    }
    let soc = synth::soc_profile(op, &cfg.agent.eval).ok();
    let mut l = Loop {
        op,
        kb,
        model,
        cfg,
        pattern: route(op),
        soc,
        pop,
        t0: Instant::now(),
        usage: Usage::default(),
        by_phase: BTreeMap::new(),
        knowledge: Vec::new(),
        requests: 0,
        stop: None,
        judge_seconds: 0.0,
        model_seconds: 0.0,
        gen: 1,
        agent_run: None,
        on_event,
    };
    let mut generations: Vec<GenerationLine> = Vec::new();
    let mut best_so_far: Option<f64> = None;
    let mut stale = 0u32;
    let mut first_feasible = None;
    let mut offline_seed = None;
    for g in 1..=cfg.generations.max(1) {
        if g > 1 {
            if let Some(s) = l.budget_stop() {
                l.stop = Some(s);
            }
            if l.stop.is_some() {
                break;
            }
        }
        (l.on_event)(SearchEvent::Generation {
            op: &op.name,
            generation: g,
            of: cfg.generations,
        });
        let tokens_before = l.usage.total();
        if g == 1 {
            let (ff, seed) = l.first_generation()?;
            first_feasible = ff;
            offline_seed = seed;
        } else {
            l.later_generation(g)?;
            if first_feasible.is_none() {
                first_feasible = l
                    .pop
                    .all
                    .iter()
                    .find(|i| i.line.fitness.is_some() && is_model_phase(&i.line.phase))
                    .map(|i| i.line.id);
            }
        }
        if g % population::MIGRATION_EVERY == 0 {
            l.pop.migrate();
        }
        let best = l
            .pop
            .best()
            .map(|b| (b.line.id, b.line.fitness.unwrap_or(f64::NAN)));
        let line = GenerationLine {
            generation: g,
            best_us: best.map(|b| b.1),
            best_id: best.map(|b| b.0),
            candidates: l.pop.all.len(),
            tokens: l.usage.total(),
            generation_tokens: l.usage.total() - tokens_before,
        };
        (l.on_event)(SearchEvent::GenerationDone {
            op: &op.name,
            line: &line,
        });
        generations.push(line);
        write_generations(&op_dir, &generations)?;
        let improved = match (best.map(|b| b.1), best_so_far) {
            (Some(b), Some(prev)) => b < prev,
            (Some(_), None) => true,
            _ => false,
        };
        if improved {
            best_so_far = best.map(|b| b.1);
            stale = 0;
        } else if g > 1 {
            stale += 1;
            if stale >= cfg.patience.max(1) && l.stop.is_none() && g < cfg.generations {
                l.stop = Some(SearchStop::Patience);
            }
        }
    }
    let stop = l.stop.clone().unwrap_or(SearchStop::Generations);
    Ok(SearchRun {
        op: op.name.clone(),
        pattern: l.pattern,
        stop,
        generations,
        first_feasible,
        offline_seed,
        tokens_by_phase: l.by_phase,
        usage: l.usage,
        knowledge: l.knowledge,
        seconds: l.t0.elapsed().as_secs_f64(),
        judge_seconds: l.judge_seconds,
        model_seconds: l.model_seconds,
        model: model.map_or_else(|| "none".to_string(), |m| m.describe()),
        agent: l.agent_run,
        population: l.pop,
    })
}

fn is_model_phase(phase: &str) -> bool {
    matches!(phase, "init" | "single" | "mutation" | "repair" | "tuning")
}

fn write_generations(op_dir: &Path, lines: &[GenerationLine]) -> Result<(), PopulationError> {
    let mut text = String::new();
    for l in lines {
        text.push_str(&serde_json::to_string(l).unwrap_or_default());
        text.push('\n');
    }
    let p = op_dir.join("generations.jsonl");
    write_file_atomic(&p, text.as_bytes()).map_err(|e| PopulationError::Io {
        path: p.display().to_string(),
        detail: e.to_string(),
    })
}

impl Loop<'_> {
    fn cx(&self) -> OpContext<'_> {
        OpContext {
            op: self.op,
            kb: self.kb,
            pattern: self.pattern,
            soc: self.soc.as_ref(),
            knowledge: self.cfg.agent.knowledge,
        }
    }

    fn budget_stop(&self) -> Option<SearchStop> {
        if self.cfg.time_budget.is_some_and(|b| self.t0.elapsed() >= b) {
            return Some(SearchStop::TimeBudget);
        }
        if self
            .cfg
            .token_budget
            .is_some_and(|b| self.usage.total() >= b)
        {
            return Some(SearchStop::TokenBudget);
        }
        None
    }

    fn note_knowledge(&mut self, chunks: &[KnowledgeRef]) {
        for c in chunks {
            if !self.knowledge.iter().any(|k| k.id == c.id) {
                self.knowledge.push(c.clone());
            }
        }
    }

    fn add_tokens(&mut self, phase: &str, u: Usage) {
        self.usage += u;
        let t = self.by_phase.entry(phase.to_string()).or_default();
        t.prompt += u.prompt;
        t.completion += u.completion;
    }

    /// Sends a phase request; `None` when the run must stop (budget, endpoint) or the model's
    /// answer was unusable (then `Err` text for the line).
    fn ask(&mut self, req: &PhaseRequest) -> Option<Result<(String, Tokens), String>> {
        if self.stop.is_some() {
            return None;
        }
        if let Some(s) = self.budget_stop() {
            self.stop = Some(s);
            return None;
        }
        let chat = ChatRequest {
            model: self.cfg.agent.model.clone(),
            messages: req.messages.clone(),
            tools: Vec::new(),
            tool_choice: None,
            temperature: self.cfg.agent.temperature,
            max_tokens: self.cfg.agent.max_tokens,
            seed: self
                .cfg
                .agent
                .sampling_seed
                .map(|s| s.wrapping_add(self.requests)),
        };
        // Committed tokens: what is spent plus this request's prompt and answer limit.
        if let Some(b) = self.cfg.token_budget {
            let prompt: u64 = req
                .messages
                .iter()
                .map(|m| tokens::count(&message_text(m)) as u64)
                .sum();
            let committed =
                self.usage.total() + prompt + u64::from(self.cfg.agent.max_tokens.unwrap_or(0));
            if committed > b {
                self.stop = Some(SearchStop::TokenBudget);
                return None;
            }
        }
        let model = self.model?;
        self.requests += 1;
        self.note_knowledge(&req.chunks);
        let t = Instant::now();
        let r = model.chat(&chat);
        self.model_seconds += t.elapsed().as_secs_f64();
        let phase = req.phase.as_str();
        match r {
            Ok(resp) => {
                self.add_tokens(phase, resp.usage);
                let text = resp.message.content.clone().unwrap_or_default();
                Some(Ok((
                    text,
                    Tokens {
                        prompt: resp.usage.prompt,
                        completion: resp.usage.completion,
                    },
                )))
            }
            Err(e) => {
                self.add_tokens(phase, e.usage());
                if model_down(&e) {
                    self.stop = Some(SearchStop::ModelUnavailable(e.to_string()));
                    None
                } else {
                    Some(Err(format!("the model's answer could not be used: {e}")))
                }
            }
        }
    }

    /// Asks for a child of `base` with `req`: the answer applied as an edit of `base` (a diff
    /// that does not apply is asked again with `whole`, the same request for whole files),
    /// then the drift guard against `guard_ref`. `None` when the run must stop.
    fn child(
        &mut self,
        req: &PhaseRequest,
        whole: Option<&PhaseRequest>,
        base: &Candidate,
        guard_ref: Option<&Candidate>,
        meta: Meta,
    ) -> Option<Pending> {
        let answer = self.ask(req)?;
        let mut p = Pending::new(
            base.clone(),
            meta.phase,
            meta.parent,
            meta.island,
            meta.label,
        );
        p.knowledge = req.chunks.iter().map(|c| c.id.clone()).collect();
        let text = match answer {
            Ok((text, t)) => {
                p.tokens = t;
                text
            }
            Err(msg) => {
                p.skip = Some(("not_applied".into(), msg));
                return Some(p);
            }
        };
        let mut applied = edit::apply(self.cfg.edit_format, base, &text, self.op);
        if let (Err(EditError::DiffNotApplied { .. }), Some(w)) = (&applied, whole) {
            // The known pain of diff edits: ask for whole files instead.
            match self.ask(w)? {
                Ok((text, t)) => {
                    p.tokens.prompt += t.prompt;
                    p.tokens.completion += t.completion;
                    p.label.push_str(" (diff did not apply; whole files)");
                    applied = edit::apply(EditFormat::Whole, base, &text, self.op);
                }
                Err(msg) => {
                    p.skip = Some(("not_applied".into(), msg));
                    return Some(p);
                }
            }
        }
        match applied {
            Ok(c) => p.candidate = c,
            Err(e) => {
                p.skip = Some(("not_applied".into(), e.to_string()));
                return Some(p);
            }
        }
        if let Some(r) = guard_ref {
            let d = self.drift(r, &p.candidate);
            if d.rejected {
                p.skip = Some((
                    "drift_rejected".into(),
                    format!("the pipeline skeleton changed: {}", d.reasons.join("; ")),
                ));
            }
            p.drift = Some(d);
        }
        Some(p)
    }

    /// One child of `base` from the request `build` makes: in the run's edit format, and
    /// (for diffs) again in whole files as the fallback; guarded against `guard_ref`, with
    /// `repairs_left` repairs. `None` when the run must stop.
    fn offspring(
        &mut self,
        build: &dyn Fn(&OpContext<'_>, EditFormat) -> Result<PhaseRequest, AssembleError>,
        base: &Candidate,
        guard_ref: Option<Candidate>,
        meta: Meta,
        repairs_left: u32,
    ) -> Result<Option<Child>, SearchError> {
        let format = self.cfg.edit_format;
        let (req, whole) = {
            let cx = self.cx();
            let whole = match format {
                EditFormat::Diff => Some(build(&cx, EditFormat::Whole)?),
                EditFormat::Whole => None,
            };
            (build(&cx, format)?, whole)
        };
        Ok(self
            .child(&req, whole.as_ref(), base, guard_ref.as_ref(), meta)
            .map(|pending| Child {
                pending,
                guard_ref,
                repairs_left,
            }))
    }

    /// Judges `extra` and `children`, then gives every failed child up to its repairs
    /// (Repair prompts built from its diagnostics), judging each round's children together.
    fn judge_children(
        &mut self,
        extra: Vec<Pending>,
        children: Vec<Child>,
    ) -> Result<Vec<usize>, SearchError> {
        let mut all_ids = Vec::new();
        let mut extra = Some(extra);
        let mut round = children;
        loop {
            let mut batch = extra.take().unwrap_or_default();
            let n_extra = batch.len();
            if batch.is_empty() && round.is_empty() {
                break;
            }
            let mut meta = Vec::new();
            for c in round {
                meta.push((c.guard_ref, c.repairs_left));
                batch.push(c.pending);
            }
            let ids = self.judge(batch)?;
            all_ids.extend(ids.iter().copied());
            let mut next = Vec::new();
            for ((guard_ref, left), id) in meta.into_iter().zip(ids[n_extra..].iter().copied()) {
                if left == 0 || !self.cfg.mode.repairs() || self.stop.is_some() {
                    continue;
                }
                let Some(ind) = self.pop.get(id).cloned() else {
                    continue;
                };
                // Accepted, a duplicate (its twin was repaired or accepted already) or a child
                // the guard rejected (fixloop: rejected with its reason, never judged).
                if ind.line.fitness.is_some()
                    || ind.line.duplicate_of.is_some()
                    || ind.line.verdict == "drift_rejected"
                {
                    continue;
                }
                let guard = self.cfg.mode.guarded() && guard_ref.is_some();
                let m = Meta {
                    phase: "repair",
                    parent: Some(id),
                    island: ind.line.island,
                    label: format!("repair of #{id}"),
                };
                let build = |cx: &OpContext<'_>, f: EditFormat| {
                    prompts::repair(
                        cx,
                        &ind.candidate,
                        ind.evaluation.as_ref(),
                        &ind.line.label,
                        &ind.line.kinds,
                        f,
                        guard,
                    )
                };
                if let Some(c) = self.offspring(&build, &ind.candidate, guard_ref, m, left - 1)? {
                    next.push(c);
                }
            }
            round = next;
        }
        Ok(all_ids)
    }

    /// Generation 1: the offline seed, the agent (or single-pass prompts), the offline tiling
    /// grid; fix mode when the model made nothing feasible. Returns (first feasible kernel of
    /// the model, offline seed).
    fn first_generation(&mut self) -> Result<(Option<usize>, Option<usize>), SearchError> {
        self.gen = 1;
        let mut batch: Vec<Pending> = Vec::new();
        // The agent's candidates alternate islands from the smaller one, counting the seed.
        let island_base = self.pop.smaller_island();
        let mut placed = 0usize;
        let mut seed = None;
        if self.cfg.offline_seed {
            let id = self.pop.next_id();
            // Resuming: the earlier run's seed is re-traced from its record, not searched
            // again (synth::search judges a dozen variants).
            let earlier = self
                .pop
                .resumed_record(id)
                .filter(|(l, _, _)| l.phase == "offline")
                .map(|(l, c, ev)| (l.label.clone(), c.clone(), ev.cloned()));
            let found = match earlier {
                Some(found) => Some(found),
                None => {
                    // synth::search judges every variant it proposes (its code generation is
                    // negligible next to that): its whole wall time is judge time.
                    let t0 = Instant::now();
                    let searched =
                        synth::search(self.op, &SynthOptions::default(), &self.cfg.agent.eval);
                    self.judge_seconds += t0.elapsed().as_secs_f64();
                    match searched {
                        Ok(s) => Some((
                            format!(
                                "offline seed (synth::search: {})",
                                tiling::offline_label(&s.options)
                            ),
                            s.best.candidate,
                            Some(s.best.evaluation),
                        )),
                        Err(synth::SynthError::Judge(e)) => return Err(e.into()),
                        // Not lowerable or not accepted: no seed (the table says so).
                        Err(_) => None,
                    }
                }
            };
            if let Some((label, candidate, evaluation)) = found {
                let mut p = Pending::new(candidate, "offline", None, 0, label);
                p.evaluation = evaluation;
                // Committed before the agent runs: a run killed during generation 1 keeps it.
                let ids = self.judge_children(vec![p], Vec::new())?;
                seed = ids
                    .first()
                    .copied()
                    .filter(|id| self.pop.get(*id).is_some_and(|i| i.line.fitness.is_some()));
                placed = 1;
            }
        }
        let mut children: Vec<Child> = Vec::new();
        let mut failing: Vec<Pending> = Vec::new();
        if let Some(model) = self.model {
            if self.cfg.mode.agent_at(1) {
                let mut ac = self.cfg.agent.clone();
                ac.run_dir = Some(self.cfg.run_dir.clone());
                self.narrow_budgets(&mut ac);
                let run = run_agent(self.op, self.kb, model, &ac)?;
                self.note_agent("init", &run);
                let knowledge: Vec<String> = run.knowledge.iter().map(|k| k.id.clone()).collect();
                // The whole conversation produced the kernels: its tokens are on the first
                // accepted one (the phase totals hold every token either way).
                let mut run_tokens = Some(Tokens {
                    prompt: run.usage.prompt,
                    completion: run.usage.completion,
                });
                for c in run.accepted() {
                    let mut p = Pending::new(
                        c.candidate.clone(),
                        "init",
                        None,
                        island_base + (placed + batch.len()) % 2,
                        format!("agent step {} ({})", c.step, c.tool),
                    );
                    p.tokens = run_tokens.take().unwrap_or_default();
                    p.knowledge = knowledge.clone();
                    p.evaluation = c.evaluation.clone();
                    batch.push(p);
                }
                if run.first_accepted().is_none() {
                    // The closest failing candidates, for fix mode: the last distinct ones.
                    let mut seen: Vec<&str> = Vec::new();
                    for c in run.candidates.iter().rev() {
                        if seen.len() >= 2 || seen.contains(&c.digest.as_str()) {
                            continue;
                        }
                        seen.push(&c.digest);
                        let mut p = Pending::new(
                            c.candidate.clone(),
                            "init",
                            None,
                            0,
                            format!("agent step {} ({}), not accepted", c.step, c.tool),
                        );
                        p.knowledge = knowledge.clone();
                        p.evaluation = c.evaluation.clone();
                        failing.push(p);
                    }
                }
                self.agent_run = Some(run);
            } else {
                let cx = self.cx();
                let req = prompts::single(&cx)?;
                let empty = Candidate::new(String::new(), String::new(), Vec::new());
                for k in 0..self.cfg.agent.seeds.max(1) {
                    let m = Meta {
                        phase: "single",
                        parent: None,
                        island: k % population::ISLANDS,
                        label: format!("single-pass {}", k + 1),
                    };
                    // Each request samples with its own seed.
                    if let Some(p) = self.child(&req, None, &empty, None, m) {
                        children.push(Child {
                            pending: p,
                            guard_ref: None,
                            repairs_left: self.cfg.repairs,
                        });
                    }
                }
            }
        }
        if self.cfg.tiling_search {
            for (k, v) in tiling::offline_grid(self.op, self.cfg.tiling_limit)
                .into_iter()
                .enumerate()
            {
                batch.push(Pending::new(
                    v.candidate,
                    "tiling",
                    None,
                    k % population::ISLANDS,
                    v.label,
                ));
            }
        }
        self.judge_children(batch, children)?;
        let model_feasible = |pop: &Population| {
            pop.all
                .iter()
                .find(|i| i.line.fitness.is_some() && is_model_phase(&i.line.phase))
                .map(|i| i.line.id)
        };
        if model_feasible(&self.pop).is_none() && !failing.is_empty() && self.stop.is_none() {
            // Fix mode: nothing the model wrote is feasible; repair the closest failures.
            let kids = failing
                .into_iter()
                .map(|p| Child {
                    pending: p,
                    guard_ref: None,
                    repairs_left: self.cfg.repairs.max(1),
                })
                .collect();
            self.judge_children(Vec::new(), kids)?;
        }
        Ok((model_feasible(&self.pop), seed))
    }

    /// A generation after the first: mutation (or the agent in tool mode) per parent, repairs,
    /// one tuning request, the best parent's tiling variants.
    fn later_generation(&mut self, g: u32) -> Result<(), SearchError> {
        self.gen = g;
        let mut parents: Vec<usize> = Vec::new();
        for island in 0..population::ISLANDS {
            for id in self.pop.select(island, self.cfg.population.max(1)) {
                if !parents.contains(&id) {
                    parents.push(id);
                }
            }
        }
        let Some(best) = self.pop.best().map(|b| b.line.id) else {
            return Ok(());
        };
        let mut batch: Vec<Pending> = Vec::new();
        let mut children: Vec<Child> = Vec::new();
        let guard = self.cfg.mode.guarded();
        if let Some(model) = self.model {
            for pid in self.prompt_parents(&parents, guard) {
                if self.stop.is_some() {
                    break;
                }
                let Some(parent) = self.pop.get(pid).cloned() else {
                    continue;
                };
                let Some(ev) = parent.evaluation.as_ref() else {
                    continue;
                };
                if self.cfg.mode.agent_at(g) {
                    let mut ac = self.cfg.agent.clone();
                    ac.run_dir = Some(
                        self.cfg
                            .run_dir
                            .join(&self.op.name)
                            .join("agents")
                            .join(format!("g{g}-p{pid}")),
                    );
                    ac.context = Some(format!(
                        "# Parent kernel (accepted; make it faster)\n\n{}\n# Its profile\n\n{}",
                        prompts::files_text(&parent.candidate),
                        prompts::profile_summary(ev)
                    ));
                    ac.seeds = 1;
                    self.narrow_budgets(&mut ac);
                    let run = run_agent(self.op, self.kb, model, &ac)?;
                    self.note_agent("mutation", &run);
                    if let Some(c) = run.first_accepted() {
                        let mut p = Pending::new(
                            c.candidate.clone(),
                            "mutation",
                            Some(pid),
                            parent.line.island,
                            format!("agent (tool mode) from #{pid}, step {}", c.step),
                        );
                        p.tokens = Tokens {
                            prompt: run.usage.prompt,
                            completion: run.usage.completion,
                        };
                        p.knowledge = run.knowledge.iter().map(|k| k.id.clone()).collect();
                        p.drift = Some(self.drift(&parent.candidate, &c.candidate));
                        p.evaluation = c.evaluation.clone();
                        batch.push(p);
                    }
                    continue;
                }
                let m = Meta {
                    phase: "mutation",
                    parent: Some(pid),
                    island: parent.line.island,
                    label: format!("mutation of #{pid}"),
                };
                let build = |cx: &OpContext<'_>, f: EditFormat| {
                    prompts::mutation(cx, &parent.candidate, ev, f, guard)
                };
                let guard_ref = guard.then(|| parent.candidate.clone());
                let repairs = self.cfg.repairs;
                if let Some(c) = self.offspring(&build, &parent.candidate, guard_ref, m, repairs)? {
                    children.push(c);
                }
            }
            if self.cfg.tuning && !self.cfg.mode.agent_at(g) && self.stop.is_none() {
                if let Some(parent) = self.pop.get(best).cloned() {
                    if let Some(ev) = parent.evaluation.as_ref() {
                        let m = Meta {
                            phase: "tuning",
                            parent: Some(best),
                            island: parent.line.island,
                            label: format!("tuning of #{best}"),
                        };
                        let build = |cx: &OpContext<'_>, f: EditFormat| {
                            prompts::tuning(cx, &parent.candidate, ev, f)
                        };
                        let guard_ref = guard.then(|| parent.candidate.clone());
                        let repairs = self.cfg.repairs;
                        if let Some(c) =
                            self.offspring(&build, &parent.candidate, guard_ref, m, repairs)?
                        {
                            children.push(c);
                        }
                    }
                }
            }
        }
        if self.cfg.tiling_search {
            if let Some(parent) = self.pop.get(best).cloned() {
                for v in tiling::parent_variants(&parent.candidate, self.cfg.tiling_limit) {
                    batch.push(Pending::new(
                        v.candidate,
                        "tiling",
                        Some(best),
                        parent.line.island,
                        v.label,
                    ));
                }
            }
        }
        self.judge_children(batch, children)?;
        Ok(())
    }

    /// The parents a model is asked to mutate. Under the drift guard a model's child must
    /// keep its parent's skeleton, and a kernel the model did not write (the offline seed, its
    /// tiling variants) is one it tends to rewrite: measured, such children were
    /// drift-rejected after their tokens were spent. So when guarded, parents not written by
    /// a model are replaced by the best model-written kernels not chosen yet (the same count);
    /// with no model-written kernel at all the parents stay as selected. The offline seed
    /// stays a parent of the token-free tiling search either way.
    fn prompt_parents(&self, parents: &[usize], guard: bool) -> Vec<usize> {
        if !guard {
            return parents.to_vec();
        }
        let mut out: Vec<usize> = parents
            .iter()
            .copied()
            .filter(|&p| self.pop.model_written(p))
            .collect();
        for ind in self.pop.ranked() {
            if out.len() >= parents.len() {
                break;
            }
            let id = ind.line.id;
            if !out.contains(&id) && self.pop.model_written(id) {
                out.push(id);
            }
        }
        if out.is_empty() {
            parents.to_vec()
        } else {
            out
        }
    }

    /// Books an agent run: its tokens under `phase`, its knowledge, its tool calls' time as
    /// judge time and the rest as model time, and a stop when its endpoint went away.
    fn note_agent(&mut self, phase: &str, run: &crate::agent::AgentRun) {
        self.add_tokens(phase, run.usage);
        self.note_knowledge(&run.knowledge);
        let tools_s: f64 = run
            .step_records
            .iter()
            .flat_map(|s| &s.calls)
            .map(|c| c.ms / 1000.0)
            .sum();
        self.judge_seconds += tools_s;
        self.model_seconds += (run.seconds - tools_s).max(0.0);
        if let StopReason::ModelUnavailable(m) = &run.stop {
            self.stop = Some(SearchStop::ModelUnavailable(m.clone()));
        }
    }

    /// The agent's budgets within what is left of the search's.
    fn narrow_budgets(&self, ac: &mut AgentConfig) {
        if let Some(b) = self.cfg.token_budget {
            let left = b.saturating_sub(self.usage.total());
            ac.budgets.tokens = Some(ac.budgets.tokens.map_or(left, |t| t.min(left)));
        }
        if let Some(b) = self.cfg.time_budget {
            let left = b.saturating_sub(self.t0.elapsed());
            ac.budgets.time = Some(ac.budgets.time.map_or(left, |t| t.min(left)));
        }
    }

    fn drift(&self, parent: &Candidate, child: &Candidate) -> DriftDecision {
        let reasons = match (
            skeleton::extract(&parent.kernel),
            skeleton::extract(&child.kernel),
        ) {
            (Ok(a), Ok(b)) => skeleton::compare(&a, &b)
                .map(|d| d.reasons)
                .unwrap_or_default(),
            // The parent is a judged kernel, so its skeleton extracts; a child that does not
            // lex is left to the judge (whose policy stage reports it with its line).
            _ => Vec::new(),
        };
        DriftDecision {
            rejected: self.cfg.mode.guarded() && !reasons.is_empty(),
            reasons,
        }
    }

    /// Judges a batch (the cascade: declared shapes first, everything for the survivors;
    /// `jobs` at once), records every candidate in order and returns their ids.
    fn judge(&mut self, batch: Vec<Pending>) -> Result<Vec<usize>, SearchError> {
        let first_id = self.pop.next_id();
        let mut ids = Vec::with_capacity(batch.len());
        // What each needs: reuse (resumed, duplicate, given) or a judge run.
        enum Plan {
            Done(
                Option<Box<Evaluation>>,
                Option<Box<CandidateLine>>,
                Option<usize>,
            ),
            Judge,
        }
        let mut plans = Vec::with_capacity(batch.len());
        let mut digests = Vec::with_capacity(batch.len());
        for (k, p) in batch.iter().enumerate() {
            let id = first_id + k;
            let digest = match &p.skip {
                Some((v, m)) => candidate_digest(&Candidate::new(
                    format!("{v}\0{m}"),
                    p.candidate.kernel.clone(),
                    Vec::new(),
                )),
                None => candidate_digest(&p.candidate),
            };
            if let Some((line, ev)) = self.pop.resumed_at(id, &digest)? {
                plans.push(Plan::Done(ev.map(Box::new), Some(Box::new(line)), None));
            } else if p.skip.is_some() {
                plans.push(Plan::Done(None, None, None));
            } else if let Some(prev) = self.pop.by_digest(&digest) {
                plans.push(Plan::Done(
                    prev.evaluation.clone().map(Box::new),
                    None,
                    Some(prev.line.id),
                ));
            } else if let Some(j) = digests[..k].iter().position(|d| d == &digest) {
                plans.push(Plan::Done(None, None, Some(first_id + j)));
            } else if p.evaluation.is_some() {
                plans.push(Plan::Done(p.evaluation.clone().map(Box::new), None, None));
            } else {
                plans.push(Plan::Judge);
            }
            digests.push(digest);
        }
        let to_judge: Vec<usize> = plans
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Plan::Judge))
            .map(|(i, _)| i)
            .collect();
        let mut judged: BTreeMap<usize, Result<Evaluation, JudgeError>> = BTreeMap::new();
        if !to_judge.is_empty() {
            // The cascade: declared shapes first, held-out and stress shapes only for the
            // candidates that verified on them, on one compiled program each.
            let opts = EvalOptions {
                jobs: self.cfg.jobs.max(1),
                cascade: true,
                ..self.cfg.agent.eval.clone()
            };
            let items: Vec<(&OpSpec, &Candidate)> = to_judge
                .iter()
                .map(|i| (self.op, &batch[*i].candidate))
                .collect();
            for (k, ev) in evaluate_many(&items, &opts).into_iter().enumerate() {
                if let Ok(ev) = &ev {
                    self.judge_seconds += ev.timings.total_ms / 1000.0;
                }
                judged.insert(to_judge[k], ev);
            }
        }
        for (k, (p, plan)) in batch.into_iter().zip(plans).enumerate() {
            let id = first_id + k;
            let (line, ev) = match plan {
                Plan::Done(ev, Some(line), _) => (*line, ev.map(|e| *e)),
                Plan::Done(ev, None, dup) => {
                    let ev = ev.map(|e| *e);
                    let line = self.line_of(&p, id, &digests[k], ev.as_ref(), dup);
                    (line, ev)
                }
                Plan::Judge => {
                    let ev = judged.remove(&k).expect("judged")?;
                    let line = self.line_of(&p, id, &digests[k], Some(&ev), None);
                    (line, Some(ev))
                }
            };
            let ind = Individual {
                line,
                candidate: p.candidate,
                evaluation: ev,
            };
            let ind = self.pop.push(ind)?;
            (self.on_event)(SearchEvent::Candidate {
                op: &self.op.name,
                line: &ind.line,
            });
            ids.push(id);
        }
        Ok(ids)
    }

    fn line_of(
        &self,
        p: &Pending,
        id: usize,
        digest: &str,
        ev: Option<&Evaluation>,
        duplicate_of: Option<usize>,
    ) -> CandidateLine {
        let (time_us, fitness) = ev.map(times_of).unwrap_or_default();
        let (verdict, kinds) = match (&p.skip, duplicate_of, ev) {
            (Some((v, _)), _, _) => (v.clone(), Vec::new()),
            (None, Some(_), _) => ("duplicate".to_string(), Vec::new()),
            (None, None, Some(ev)) => (verdict_of(ev), root_kinds(ev)),
            (None, None, None) => ("not_judged".to_string(), Vec::new()),
        };
        let (compile_s, run_s) = ev
            .filter(|_| duplicate_of.is_none())
            .map_or((0.0, 0.0), |ev| {
                let t = &ev.timings;
                (
                    (t.policy_ms + t.compile_ms) / 1000.0,
                    (t.golden_ms + t.run_ms + t.verify_ms) / 1000.0,
                )
            });
        let label = match &p.skip {
            Some((_, m)) => format!("{}: {m}", p.label),
            None => p.label.clone(),
        };
        CandidateLine {
            id,
            digest: digest.to_string(),
            generation: self.gen,
            phase: p.phase.to_string(),
            parent: p.parent,
            mode: self.mode_name(),
            island: p.island,
            label,
            tokens: p.tokens,
            knowledge: p.knowledge.clone(),
            compile_s,
            run_s,
            verdict,
            accepted: duplicate_of.is_none()
                && p.skip.is_none()
                && ev.is_some_and(Evaluation::accepted),
            kinds,
            time_us,
            fitness: if duplicate_of.is_none() && p.skip.is_none() {
                fitness
            } else {
                None
            },
            drift: p.drift.clone(),
            duplicate_of,
        }
    }

    fn mode_name(&self) -> String {
        if self.model.is_none() {
            "none".into()
        } else {
            self.cfg.mode.as_str().into()
        }
    }
}

fn message_text(m: &Message) -> String {
    serde_json::to_string(m).unwrap_or_default()
}

/// Whether an LLM error means the endpoint cannot be used (the run stops) rather than one
/// unusable answer.
fn model_down(e: &LlmError) -> bool {
    !matches!(
        e,
        LlmError::Protocol { .. }
            | LlmError::Malformed { .. }
            | LlmError::Truncated { .. }
            | LlmError::Timeout { .. }
            | LlmError::Status { .. }
    )
}
