//! The generation-1 agent (DESIGN §8, issue 15): a tool-using conversation with a chat model
//! that runs until a feasible kernel exists for an op.
//!
//! ```no_run
//! use agenticcann_evolve::agent::{run_agent, AgentConfig};
//! use agenticcann_evolve::knowledge::KnowledgeBase;
//! # fn demo(op: &agenticcann_build::spec::OpSpec, model: &dyn agenticcann_evolve::llm::ChatModel) -> Result<(), Box<dyn std::error::Error>> {
//! let kb = KnowledgeBase::embedded()?;
//! let run = run_agent(op, &kb, model, &AgentConfig::new("deepseek-chat"))?;
//! println!("{}: {} after {} steps, {} tokens", op.name, run.stop, run.steps, run.usage.total());
//! if let Some(c) = run.first_accepted() { println!("{}", c.candidate.kernel); }
//! # Ok(()) }
//! ```
//!
//! - The conversation ([`task`]): a system prompt (role, rules, tools), the task (spec,
//!   reference, the exact entry ABI, what the judge checks) and the phase-Init knowledge of
//!   the [`KnowledgeMode`], whose chunk ids and digests are recorded in [`AgentRun::knowledge`].
//! - The tools ([`tools`]): `compile`, `run_tests`, `submit`, `lookup_api`, `read_knowledge`,
//!   thin calls into the judge's stages and the knowledge base; results written for a model
//!   ([`render`]): diagnostics deduplicated across shapes, the repair knowledge for their
//!   kinds, a per-shape table, the profile.
//! - Budgets ([`Budgets`]): model turns, tokens, wall time. The run ends at the first
//!   accepted `submit` (or after [`AgentConfig::seeds`] distinct accepted kernels) or when a
//!   budget runs out; [`AgentRun::stop`] says which ([`StopReason`]).
//! - A malformed answer (arguments that are not JSON, an unknown tool, a missing argument,
//!   a broken text-protocol block, a truncated body) is a failed step with a message back to
//!   the model, never a panic; an endpoint that cannot be used (refused connection, retries
//!   exhausted, a rejected key, a request missing from a replay) stops the run
//!   ([`StopReason::ModelUnavailable`]).
//! - [`external`]: an external coding agent CLI in place of the model (`--agent-command`).
//! - [`record`]: the run folder (task, conversation, every candidate with its result, the
//!   pending entries of accepted kernels).
//!
//! Part 2 (generations > 1) calls [`run_agent`] per op with its own model stack (recorder,
//! text protocol) and folder, and reads [`AgentRun::candidates`].

pub mod external;
pub mod record;
pub mod render;
pub mod task;
pub mod tools;

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use agenticcann_build::judge::{Candidate, EvalOptions, Evaluation, JudgeError};
use agenticcann_build::spec::{OpSpec, Pattern};
use agenticcann_build::store::{Digest, KnowledgeRef};
use serde::Serialize;

use crate::knowledge::{route, AssembleError, KnowledgeBase};
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, ToolChoice, ToolSpec, Usage};

pub use task::{build_task, KnowledgeMode, Task, ToolStyle, UnknownKnowledgeMode};
pub use tools::{parse_fields, tool_specs, ToolCall, ToolDef, ToolError, ToolOutcome, Workbench};

/// Limits of one op's agent run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Budgets {
    /// Model turns (chat requests; for an external agent, tool invocations). Default 24.
    pub max_steps: u32,
    /// Total tokens (prompt + completion, as the server reports them); `None` = no limit.
    pub tokens: Option<u64>,
    /// Wall time of the whole run, judge included; `None` = no limit.
    #[serde(serialize_with = "ser_duration")]
    pub time: Option<Duration>,
}

fn ser_duration<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

impl Default for Budgets {
    fn default() -> Budgets {
        Budgets {
            max_steps: 24,
            tokens: None,
            time: None,
        }
    }
}

/// Why an agent run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum StopReason {
    /// A `submit` was accepted (and [`AgentConfig::seeds`] distinct kernels were reached).
    Accepted,
    /// The step budget ran out.
    StepBudget,
    /// The token budget ran out.
    TokenBudget,
    /// The wall-time budget ran out.
    TimeBudget,
    /// The endpoint cannot be used (the error's text): connection refused after retries, a
    /// rejected key, a request missing from a replay.
    ModelUnavailable(String),
    /// An external agent exited (its exit status and the end of its output).
    AgentExited(String),
}

impl StopReason {
    /// `accepted`, `step budget`, … (for tables).
    pub fn label(&self) -> &'static str {
        match self {
            StopReason::Accepted => "accepted",
            StopReason::StepBudget => "step budget exhausted",
            StopReason::TokenBudget => "token budget exhausted",
            StopReason::TimeBudget => "time budget exhausted",
            StopReason::ModelUnavailable(_) => "model unavailable",
            StopReason::AgentExited(_) => "agent exited",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::ModelUnavailable(d) | StopReason::AgentExited(d) => {
                write!(f, "{}: {d}", self.label())
            }
            _ => f.write_str(self.label()),
        }
    }
}

/// How to run the agent for one op.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// The model name sent in every request.
    pub model: String,
    /// The knowledge mode.
    pub knowledge: KnowledgeMode,
    /// The budgets.
    pub budgets: Budgets,
    /// Distinct accepted kernels to collect before stopping (default 1; `--seeds N`).
    pub seeds: usize,
    /// Sampling temperature (default `Some(0.0)`, greedy).
    pub temperature: Option<f64>,
    /// Answer token limit per call (default `None`: the server's).
    pub max_tokens: Option<u32>,
    /// The sampling seed sent to the server (default `Some(0)`).
    pub sampling_seed: Option<u64>,
    /// The judge's options (`submit`; `run_tests` without held-out and stress shapes). Set
    /// `seed` for a reproducible run: the tool results (and so the next requests) depend on
    /// the judge's inputs; [`AgentConfig::new`] fixes it to 1.
    pub eval: EvalOptions,
    /// The folder to record the run in ([`record`]); `None` = nothing written.
    pub run_dir: Option<PathBuf>,
    /// The simulator's include folder for `lookup_api` (default: the toolchain's).
    pub sim_include: Option<PathBuf>,
    /// Text appended to the first user message (the evolution loop's tool mode puts the
    /// parent kernel and its profile here); `None` = the task alone.
    pub context: Option<String>,
}

impl AgentConfig {
    /// Defaults for `model`: full knowledge, [`Budgets::default`], one seed, greedy
    /// sampling, judge seed 1, nothing recorded.
    pub fn new(model: impl Into<String>) -> AgentConfig {
        AgentConfig {
            model: model.into(),
            knowledge: KnowledgeMode::Full,
            budgets: Budgets::default(),
            seeds: 1,
            temperature: Some(0.0),
            max_tokens: None,
            sampling_seed: Some(0),
            eval: EvalOptions {
                seed: Some(1),
                ..EvalOptions::default()
            },
            run_dir: None,
            sim_include: None,
            context: None,
        }
    }
}

/// One candidate the agent handed to a judge tool.
#[derive(Clone, Debug)]
pub struct CandidateRecord {
    /// Number in the run, from 1.
    pub id: usize,
    /// The step (model turn) that produced it.
    pub step: u32,
    /// `compile`, `run_tests` or `submit`.
    pub tool: String,
    /// The sources and tiling fields.
    pub candidate: Candidate,
    /// The full judge's verdict (`submit` only).
    pub evaluation: Option<Evaluation>,
    /// Error kinds of the root cause (the earliest failing stage) the tool reported.
    pub kinds: Vec<String>,
    /// The text the tool returned.
    pub result: String,
    /// sha256 of kernel, tiling and fields (distinctness for `--seeds`).
    pub digest: String,
    /// Tokens spent up to and including this step.
    pub tokens_so_far: u64,
}

impl CandidateRecord {
    /// An accepted `submit`.
    pub fn accepted(&self) -> bool {
        self.evaluation.as_ref().is_some_and(Evaluation::accepted)
    }
}

/// One step of a run, as recorded.
#[derive(Clone, Debug, Serialize)]
pub struct StepRecord {
    /// The step, from 1.
    pub step: u32,
    /// Tokens of this step's call.
    pub usage: Usage,
    /// Tool calls made, with whether each could be carried out.
    pub calls: Vec<CallRecord>,
    /// Why the step failed (a malformed answer, no tool call), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// One tool call of a step.
#[derive(Clone, Debug, Serialize)]
pub struct CallRecord {
    /// The tool called.
    pub tool: String,
    /// The candidate it judged, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<usize>,
    /// The error sent back for a call that could not be carried out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Knowledge chunk ids the result carried.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chunks: Vec<String>,
    /// Tool wall time, ms.
    pub ms: f64,
}

/// The outcome of one op's agent run.
#[derive(Clone, Debug)]
pub struct AgentRun {
    /// The op.
    pub op: String,
    /// The pattern it was routed to.
    pub pattern: Pattern,
    /// The knowledge mode.
    pub knowledge_mode: KnowledgeMode,
    /// Why it ended.
    pub stop: StopReason,
    /// Steps taken (model turns, or external tool invocations).
    pub steps: u32,
    /// Steps that failed (malformed answers, no tool call).
    pub failed_steps: u32,
    /// Tokens, summed exactly over every call (failed calls that cost tokens included).
    pub usage: Usage,
    /// False for an external agent: its tokens are not measured.
    pub tokens_measured: bool,
    /// Wall time of the run, seconds.
    pub seconds: f64,
    /// The Init knowledge and every chunk a tool result carried: id and digest, each once.
    pub knowledge: Vec<KnowledgeRef>,
    /// Every candidate, in order.
    pub candidates: Vec<CandidateRecord>,
    /// Every step.
    pub step_records: Vec<StepRecord>,
    /// The conversation (system, user, assistant and tool messages).
    pub messages: Vec<Message>,
    /// The model's description ([`ChatModel::describe`], or the agent command).
    pub model: String,
}

impl AgentRun {
    /// The accepted candidates, distinct, in order.
    pub fn accepted(&self) -> impl Iterator<Item = &CandidateRecord> {
        let mut seen: Vec<&str> = Vec::new();
        self.candidates.iter().filter(move |c| {
            if c.accepted() && !seen.contains(&c.digest.as_str()) {
                seen.push(&c.digest);
                true
            } else {
                false
            }
        })
    }

    /// The first accepted candidate.
    pub fn first_accepted(&self) -> Option<&CandidateRecord> {
        self.accepted().next()
    }
}

/// Why an agent run could not be carried out (never the model's or the candidate's fault).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The judge cannot run (no toolchain, an unwritable cache).
    #[error("the judge cannot run: {0}")]
    Judge(#[from] JudgeError),
    /// The knowledge could not be assembled.
    #[error("the knowledge cannot be assembled: {0}")]
    Knowledge(#[from] AssembleError),
    /// The run folder cannot be written.
    #[error("cannot write the run folder: {0}")]
    Record(String),
    /// The external agent cannot be started or its work folder prepared.
    #[error("external agent: {0}")]
    External(String),
}

/// sha256 of a candidate's kernel, tiling and fields, hex.
pub fn candidate_digest(c: &Candidate) -> String {
    let text = format!(
        "{}\0{}\0{}",
        c.kernel,
        c.tiling,
        tools::fields_text(&c.tiling_fields)
    );
    Digest::of(text.as_bytes()).to_hex()
}

/// The tool specs of `mode` in the chat protocol's form.
pub fn chat_tools(mode: KnowledgeMode) -> Vec<ToolSpec> {
    tool_specs(mode)
        .into_iter()
        .map(|t| ToolSpec {
            name: t.name.to_string(),
            description: t.description.to_string(),
            parameters: t.parameters,
        })
        .collect()
}

/// Whether an LLM error only spoils this step (the model answered badly, or one attempt
/// failed) rather than the endpoint (which stops the run).
fn is_step_failure(e: &LlmError) -> bool {
    matches!(
        e,
        LlmError::Protocol { .. }
            | LlmError::Malformed { .. }
            | LlmError::Truncated { .. }
            | LlmError::Timeout { .. }
            | LlmError::Status { .. }
    )
}

/// Bookkeeping shared by [`run_agent`] and the external agent.
pub(crate) struct Ledger {
    pub candidates: Vec<CandidateRecord>,
    pub knowledge: Vec<KnowledgeRef>,
    pub accepted: Vec<String>,
}

impl Ledger {
    pub(crate) fn new(init: &[KnowledgeRef]) -> Ledger {
        Ledger {
            candidates: Vec::new(),
            knowledge: init.to_vec(),
            accepted: Vec::new(),
        }
    }

    /// Records a tool outcome; returns the candidate id, and whether it is a new accepted
    /// kernel.
    pub(crate) fn note(
        &mut self,
        step: u32,
        tool: &str,
        out: &ToolOutcome,
        tokens_so_far: u64,
    ) -> (Option<usize>, bool) {
        for (id, digest) in &out.chunks {
            if !self.knowledge.iter().any(|k| &k.id == id) {
                self.knowledge.push(KnowledgeRef {
                    id: id.clone(),
                    digest: digest.clone(),
                });
            }
        }
        let Some(c) = &out.candidate else {
            return (None, false);
        };
        let digest = candidate_digest(c);
        let id = self.candidates.len() + 1;
        let new_accept = out.accepted() && !self.accepted.contains(&digest);
        if new_accept {
            self.accepted.push(digest.clone());
        }
        self.candidates.push(CandidateRecord {
            id,
            step,
            tool: tool.to_string(),
            candidate: c.clone(),
            evaluation: out.evaluation.clone(),
            kinds: out.kinds.clone(),
            result: out.text.clone(),
            digest,
            tokens_so_far,
        });
        (Some(id), new_accept)
    }
}

fn push_step(
    recorder: &Option<record::OpFolder>,
    records: &mut Vec<StepRecord>,
    rec: StepRecord,
) -> Result<(), AgentError> {
    if let Some(r) = recorder {
        r.step(&rec).map_err(AgentError::Record)?;
    }
    records.push(rec);
    Ok(())
}

/// Runs the generation-1 agent for `op` with `model` until `config.seeds` distinct kernels
/// are accepted or a budget runs out. With `config.run_dir`, the run is recorded there as it
/// goes ([`record`]).
///
/// # Errors
/// [`AgentError`] when the judge cannot run, the knowledge cannot be assembled or the run
/// folder cannot be written. A failing model is not an error: see [`StopReason`].
pub fn run_agent(
    op: &OpSpec,
    kb: &KnowledgeBase,
    model: &dyn ChatModel,
    config: &AgentConfig,
) -> Result<AgentRun, AgentError> {
    let t0 = Instant::now();
    let pattern = route(op);
    let mode = config.knowledge;
    let mut bench = Workbench::new(
        op,
        kb,
        pattern,
        mode,
        config.eval.clone(),
        config.sim_include.clone(),
    );
    let soc = bench.prepared()?.soc;
    let task = build_task(op, kb, pattern, mode, ToolStyle::Functions, Some(&soc))?;
    let recorder = match &config.run_dir {
        Some(d) => Some(record::OpFolder::create(d, op, &task).map_err(AgentError::Record)?),
        None => None,
    };
    let opening = match &config.context {
        Some(c) => format!("{}\n\n{c}", task.user_message()),
        None => task.user_message(),
    };
    let mut messages = vec![Message::system(&task.system), Message::user(opening)];
    let tools = chat_tools(mode);
    let mut ledger = Ledger::new(&task.chunks);
    let mut usage = Usage::default();
    let mut steps = 0u32;
    let mut failed_steps = 0u32;
    let mut step_records: Vec<StepRecord> = Vec::new();
    let seeds = config.seeds.max(1);
    let stop = loop {
        if ledger.accepted.len() >= seeds {
            break StopReason::Accepted;
        }
        if steps >= config.budgets.max_steps {
            break StopReason::StepBudget;
        }
        if config.budgets.tokens.is_some_and(|b| usage.total() >= b) {
            break StopReason::TokenBudget;
        }
        if config.budgets.time.is_some_and(|b| t0.elapsed() >= b) {
            break StopReason::TimeBudget;
        }
        steps += 1;
        let req = ChatRequest {
            model: config.model.clone(),
            messages: messages.clone(),
            tools: tools.clone(),
            tool_choice: Some(ToolChoice::Auto),
            temperature: config.temperature,
            max_tokens: config.max_tokens,
            seed: config.sampling_seed,
        };
        let mut rec = StepRecord {
            step: steps,
            usage: Usage::default(),
            calls: Vec::new(),
            failed: None,
        };
        let resp = match model.chat(&req) {
            Ok(r) => r,
            Err(e) => {
                rec.usage = e.usage();
                usage += e.usage();
                if !is_step_failure(&e) {
                    rec.failed = Some(e.to_string());
                    push_step(&recorder, &mut step_records, rec)?;
                    break StopReason::ModelUnavailable(e.to_string());
                }
                failed_steps += 1;
                let msg = format!(
                    "Your last answer could not be used: {e}. Answer with exactly one tool call \
                     (compile, run_tests or submit with complete files)."
                );
                rec.failed = Some(e.to_string());
                push_step(&recorder, &mut step_records, rec)?;
                // Only a model's own bad answer gets a reply; a failed transfer is retried as is.
                if matches!(e, LlmError::Protocol { .. }) {
                    messages.push(Message::user(msg));
                }
                continue;
            }
        };
        rec.usage = resp.usage;
        usage += resp.usage;
        let mut turn = resp.message.clone();
        turn.reasoning_content = None;
        let calls = turn.tool_calls.clone();
        messages.push(Message::Assistant(turn));
        if calls.is_empty() {
            failed_steps += 1;
            rec.failed = Some("the answer has no tool call".into());
            push_step(&recorder, &mut step_records, rec)?;
            messages.push(Message::user(
                "Your answer has no tool call. Continue with a tool call: compile, run_tests or \
                 submit with the complete kernel.cpp, tiling.cpp and fields.",
            ));
            continue;
        }
        let mut done = false;
        for (i, call) in calls.iter().enumerate() {
            let id = if call.id.is_empty() {
                format!("call_{steps}_{i}")
            } else {
                call.id.clone()
            };
            if done {
                messages.push(Message::tool(
                    id,
                    "not run: the task ended with the accepted submit before this call",
                ));
                continue;
            }
            match ToolCall::parse(&call.name, &call.arguments, mode) {
                Err(e) => {
                    rec.calls.push(CallRecord {
                        tool: call.name.clone(),
                        candidate: None,
                        error: Some(e.0.clone()),
                        chunks: Vec::new(),
                        ms: 0.0,
                    });
                    messages.push(Message::tool(id, format!("error: {e}")));
                }
                Ok(tc) => {
                    let out = bench.call(&tc)?;
                    let (cand, new_accept) = ledger.note(steps, tc.name(), &out, usage.total());
                    let mut text = out.text.clone();
                    if out.accepted() && !new_accept {
                        text.push_str(
                            "\nThis kernel was accepted before; a further seed must be a different kernel.",
                        );
                    } else if new_accept && ledger.accepted.len() < seeds {
                        text.push_str(&format!(
                            "\n{} of {seeds} distinct accepted kernels; write a different one next.",
                            ledger.accepted.len()
                        ));
                    }
                    if let (Some(r), Some(c)) = (&recorder, cand) {
                        r.candidate(&ledger.candidates[c - 1])
                            .map_err(AgentError::Record)?;
                    }
                    rec.calls.push(CallRecord {
                        tool: tc.name().to_string(),
                        candidate: cand,
                        error: None,
                        chunks: out.chunks.iter().map(|c| c.0.clone()).collect(),
                        ms: out.ms,
                    });
                    messages.push(Message::tool(id, text));
                    if ledger.accepted.len() >= seeds {
                        done = true;
                    }
                }
            }
        }
        push_step(&recorder, &mut step_records, rec)?;
    };
    let run = AgentRun {
        op: op.name.clone(),
        pattern,
        knowledge_mode: mode,
        stop,
        steps,
        failed_steps,
        usage,
        tokens_measured: true,
        seconds: t0.elapsed().as_secs_f64(),
        knowledge: ledger.knowledge,
        candidates: ledger.candidates,
        step_records,
        messages,
        model: model.describe(),
    };
    if let Some(r) = &recorder {
        r.finish(&run).map_err(AgentError::Record)?;
    }
    Ok(run)
}
