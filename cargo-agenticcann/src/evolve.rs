//! `cargo agenticcann evolve`, generation 1: per op, the tool-using agent
//! (`agenticcann_evolve::agent`) against an OpenAI-compatible endpoint (recorded), a
//! recording (`--replay`), or an external coding agent (`--agent-command`); the accepted
//! kernel is written as a pending entry under the run folder, next to the offline
//! proposer's time for comparison. See docs/evolve.md.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agenticcann_build::env::Env;
use agenticcann_build::judge::{evaluate, EvalOptions};
use agenticcann_build::spec::{find_workspace_root, OpSpec};
use agenticcann_build::synth::{propose, SynthOptions};
use agenticcann_evolve::agent::external::run_external;
use agenticcann_evolve::agent::record::{write_pending, Summary};
use agenticcann_evolve::agent::{AgentConfig, AgentRun, Budgets, KnowledgeMode};
use agenticcann_evolve::knowledge::{KnowledgeBase, KnowledgeSource};
use agenticcann_evolve::llm::settings::{resolve, Flags, Metadata};
use agenticcann_evolve::llm::{open_replay, open_resumable, ChatModel, LlmError, ToolProtocol};
use agenticcann_evolve::search::edit::EditFormat;
use agenticcann_evolve::search::{run_search, AgentMode, SearchConfig, SearchEvent, SearchStop};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};

use crate::cli::MessageFormat;
use crate::exit::{Status, Unavailable};
use crate::messages::{emit, ShapeTime};
use crate::select;

/// `--help` text.
pub const LONG_ABOUT: &str = "\
The evolution loop (DESIGN.md section 8, docs/evolve.md) for each op (--op, repeatable; default \
every op of the crate). Generation 1: a tool-using agent gets the task (spec, reference, the \
exact entry ABI, what the judge checks) and the knowledge of --knowledge, and calls the judge's \
stages as tools (compile, run_tests, submit, lookup_api, read_knowledge) until --seeds kernels \
are accepted or a budget (--max-steps, --token-budget, --time-budget) runs out; the offline \
proposer's kernel and an offline tiling grid join it. Generations 2..--generations: mutation, \
repair and tuning prompts per parent (--agent adaptive|tool|fixloop|single, --population, \
--repairs, --edit-format), a drift guard, the best parent's tiling constants varied offline; \
--patience stops an op that no longer improves.

The model: an OpenAI-compatible endpoint (--base-url, --model; else AGENTICCANN_LLM_BASE_URL, \
AGENTICCANN_LLM_MODEL, else [workspace.metadata.agenticcann.llm], else DeepSeek), with the key \
from AGENTICCANN_LLM_API_KEY, DEEPSEEK_API_KEY or OPENAI_API_KEY (localhost needs none). Every \
exchange is recorded in RUN_DIR/llm; --replay DIR serves a recorded run with no network; running \
the same command on the same --run-dir resumes an interrupted run. --agent-command CMD runs an \
external coding agent for generation 1 instead, in a work folder with TASK.md, KNOWLEDGE.md and \
the tools as executables (agc-compile, agc-run-tests, agc-submit, agc-read-knowledge, \
agc-lookup-api); the flags of a model and of later generations are refused with it. --llm none runs no model: the offline seed and the tiling search alone.

The run folder (--run-dir, default target/agenticcann/evolve/<time> next to the manifest) holds \
run.json, llm/ (the recording), progress.svg and per op the agent's task and steps, \
candidates.jsonl, population/<id>/, generations.jsonl and best/<key>/. The best kernel is also a \
pending result in the user cache for `cargo agenticcann review` / `accept`; nothing is written \
into the crate unless you accept (or pass --accept).

Exit status: 0 when every op got an accepted kernel, 1 otherwise, 2 for usage errors or a \
judge that cannot run, 3 when the endpoint is unavailable (no key for a remote endpoint, \
connection refused, retries exhausted, a request missing from a replay).";

/// `--knowledge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KnowledgeArg {
    /// The phase assembly (Init: L0-L5; repair knowledge in tool results).
    Full,
    /// The task only.
    None,
    /// L4 API cards.
    Api,
    /// L2 rules and L4 API cards.
    #[value(name = "api+constraints")]
    ApiConstraints,
}

impl From<KnowledgeArg> for KnowledgeMode {
    fn from(k: KnowledgeArg) -> KnowledgeMode {
        match k {
            KnowledgeArg::Full => KnowledgeMode::Full,
            KnowledgeArg::None => KnowledgeMode::None,
            KnowledgeArg::Api => KnowledgeMode::Api,
            KnowledgeArg::ApiConstraints => KnowledgeMode::ApiConstraints,
        }
    }
}

/// `--tool-protocol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Native function calls, falling back to text when the server rejects them.
    Auto,
    /// The `tools` field and `tool_calls`.
    Native,
    /// Tools described in the prompt, calls as a fenced JSON block.
    Text,
}

impl From<ProtocolArg> for ToolProtocol {
    fn from(p: ProtocolArg) -> ToolProtocol {
        match p {
            ProtocolArg::Auto => ToolProtocol::Auto,
            ProtocolArg::Native => ToolProtocol::Native,
            ProtocolArg::Text => ToolProtocol::Text,
        }
    }
}

/// `--edit-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EditFormatArg {
    /// Complete files.
    Whole,
    /// SEARCH/REPLACE blocks.
    Diff,
}

/// `--agent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AgentModeArg {
    /// The agent at generation 1, the guarded fix loop after.
    Adaptive,
    /// The agent in every generation, no guard.
    Tool,
    /// Single-pass prompts with repairs, guarded.
    Fixloop,
    /// Single-pass prompts only.
    Single,
}

impl From<AgentModeArg> for AgentMode {
    fn from(a: AgentModeArg) -> AgentMode {
        match a {
            AgentModeArg::Adaptive => AgentMode::Adaptive,
            AgentModeArg::Tool => AgentMode::Tool,
            AgentModeArg::Fixloop => AgentMode::Fixloop,
            AgentModeArg::Single => AgentMode::Single,
        }
    }
}

/// `--llm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LlmArg {
    /// The configured endpoint (default).
    Api,
    /// No model at all: the offline proposer's seed and the offline tiling search.
    None,
}

/// The flags (field names) that mean nothing with `--agent-command`: an external agent runs
/// generation 1 alone, and no model of ours is asked.
const AGENT_COMMAND_CONFLICTS: [&str; 14] = [
    "model",
    "base_url",
    "tool_protocol",
    "llm",
    "token_budget",
    "generations",
    "agent_mode",
    "population",
    "repairs",
    "edit_format",
    "patience",
    "jobs",
    "no_tiling_search",
    "tiling_variants",
];

/// `cargo agenticcann evolve`.
#[derive(Clone, Debug, Args)]
pub struct EvolveArgs {
    #[command(flatten)]
    pub manifest: clap_cargo::Manifest,

    /// An op to evolve (repeatable; default: every op of the crate).
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,

    /// The model name [default: $AGENTICCANN_LLM_MODEL, else the workspace metadata, else
    /// deepseek-chat].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// The OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 [default:
    /// $AGENTICCANN_LLM_BASE_URL, else the workspace metadata, else https://api.deepseek.com].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// How tools reach the model [default: the workspace metadata, else auto].
    #[arg(long, value_enum, value_name = "PROTOCOL")]
    pub tool_protocol: Option<ProtocolArg>,

    /// The knowledge the agent gets.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = KnowledgeArg::Full)]
    pub knowledge: KnowledgeArg,

    /// A knowledge base folder on disk [default: $AGENTICCANN_KNOWLEDGE_DIR, else the copy
    /// compiled into this binary].
    #[arg(long, value_name = "DIR")]
    pub knowledge_dir: Option<PathBuf>,

    /// Distinct accepted kernels to collect per op.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub seeds: u32,

    /// Steps per op (model turns; tool calls of an external agent).
    #[arg(long, value_name = "N", default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: u32,

    /// Tokens per op (prompt + completion).
    #[arg(long, value_name = "N")]
    pub token_budget: Option<u64>,

    /// Wall time per op, seconds.
    #[arg(long, value_name = "SECS")]
    pub time_budget: Option<f64>,

    /// Serve the model's answers from the run folder DIR of an earlier run (no network).
    #[arg(long, value_name = "DIR", conflicts_with = "agent_command")]
    pub replay: Option<PathBuf>,

    /// The run folder [default: target/agenticcann/evolve/<unix time> next to the manifest].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,

    /// Run this external coding agent (through `sh -c`) instead of a model, for generation 1
    /// only: the flags of a model (--model, --base-url, --tool-protocol, --llm,
    /// --token-budget: its tokens are not measured) and of later generations (--generations,
    /// --agent, --population, --repairs, --edit-format, --patience, --jobs, tiling search)
    /// are refused with it rather than ignored.
    #[arg(long, value_name = "CMD", conflicts_with_all = AGENT_COMMAND_CONFLICTS)]
    pub agent_command: Option<String>,

    /// `none`: no model; the offline seed and the tiling search alone.
    #[arg(long, value_enum, value_name = "WHICH", default_value_t = LlmArg::Api)]
    pub llm: LlmArg,

    /// Seed of the judge's inputs (a replay must use the recorded one; it is read from the
    /// recording's run.json unless given).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Do not seed the population with the offline proposer's kernel (nor judge it for the
    /// comparison).
    #[arg(long, visible_alias = "no-offline-baseline")]
    pub no_offline_seed: bool,

    /// Generations (1 = the agent alone).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub generations: u32,

    /// Parents per island per generation (two islands).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub population: u32,

    /// Repair steps per failed child.
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub repairs: u32,

    /// How children are written: whole files, or SEARCH/REPLACE diffs (a diff that does not
    /// apply is asked again as whole files).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = EditFormatArg::Whole)]
    pub edit_format: EditFormatArg,

    /// adaptive: the agent at generation 1, the guarded fix loop after; tool: the agent in
    /// every generation, no drift guard; fixloop: single-pass prompts with repairs, guarded;
    /// single: single-pass prompts only.
    #[arg(long = "agent", value_enum, value_name = "MODE", default_value_t = AgentModeArg::Adaptive)]
    pub agent_mode: AgentModeArg,

    /// Generations without a better kernel before an op stops.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub patience: u32,

    /// Evaluations at once [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,

    /// No offline tiling search (no token-free variants of the offline proposer or parents).
    #[arg(long)]
    pub no_tiling_search: bool,

    /// Tiling variants judged per tiling-search step (generation 1: the offline grid; later:
    /// the best parent's constants).
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub tiling_variants: usize,

    /// Accept the best kernel of each op into the crate right away (as `accept` would). An
    /// entry written by hand for the key is kept (the result stays pending) unless --replace.
    #[arg(long)]
    pub accept: bool,

    /// With --accept: replace the key's entry in the crate even when it was written by hand.
    #[arg(long, requires = "accept")]
    pub replace: bool,

    /// Output format.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// `run.json` of a run folder: what a replay needs to make the same requests.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    /// `llm`, `replay`, `agent-command` or `none`.
    pub mode: String,
    /// The model name in the requests.
    pub model: Option<String>,
    /// The endpoint (never a key).
    pub base_url: Option<String>,
    /// The tool protocol.
    pub tool_protocol: Option<String>,
    /// The external agent's command.
    pub agent_command: Option<String>,
    /// The knowledge mode.
    pub knowledge: String,
    /// The judge's seed.
    pub seed: u64,
    /// Seeds per op.
    pub seeds: u32,
    /// Steps per op.
    pub max_steps: u32,
    /// Tokens per op.
    pub token_budget: Option<u64>,
    /// Seconds per op.
    pub time_budget: Option<f64>,
    /// The ops, in order.
    pub ops: Vec<String>,
    /// The run this one replays.
    pub replay_of: Option<String>,
    /// Generations.
    #[serde(default)]
    pub generations: Option<u32>,
    /// The agent mode.
    #[serde(default)]
    pub agent_mode: Option<String>,
    /// The edit format.
    #[serde(default)]
    pub edit_format: Option<String>,
    /// Parents per island.
    #[serde(default)]
    pub population: Option<u32>,
    /// Repair steps per failed child.
    #[serde(default)]
    pub repairs: Option<u32>,
    /// Generations without improvement before an op stops.
    #[serde(default)]
    pub patience: Option<u32>,
    /// Whether the offline seed joined the population.
    #[serde(default)]
    pub offline_seed: Option<bool>,
    /// Whether the offline tiling search ran.
    #[serde(default)]
    pub tiling_search: Option<bool>,
    /// Tiling variants per tiling-search step.
    #[serde(default)]
    pub tiling_variants: Option<usize>,
}

/// A replay makes the recorded run's requests only with the recorded run's settings: takes
/// every setting `rec` records (older run folders record fewer) and returns the flags that
/// differed, as `--flag recorded (given)` notes.
fn adopt_recorded(args: &EvolveArgs, rec: &RunInfo) -> Result<(EvolveArgs, Vec<String>)> {
    let mut a = args.clone();
    let mut notes = Vec::new();
    fn take<T: PartialEq + Copy + std::fmt::Display>(
        notes: &mut Vec<String>,
        flag: &str,
        slot: &mut T,
        recorded: Option<T>,
    ) {
        if let Some(r) = recorded {
            if *slot != r {
                notes.push(format!("{flag} {r} (given {})", *slot));
                *slot = r;
            }
        }
    }
    take(&mut notes, "--seeds", &mut a.seeds, Some(rec.seeds));
    take(
        &mut notes,
        "--max-steps",
        &mut a.max_steps,
        Some(rec.max_steps),
    );
    take(
        &mut notes,
        "--generations",
        &mut a.generations,
        rec.generations,
    );
    take(
        &mut notes,
        "--population",
        &mut a.population,
        rec.population,
    );
    take(&mut notes, "--repairs", &mut a.repairs, rec.repairs);
    take(&mut notes, "--patience", &mut a.patience, rec.patience);
    take(
        &mut notes,
        "--tiling-variants",
        &mut a.tiling_variants,
        rec.tiling_variants,
    );
    let mut offline = !a.no_offline_seed;
    take(&mut notes, "offline seed", &mut offline, rec.offline_seed);
    a.no_offline_seed = !offline;
    let mut tiling = !a.no_tiling_search;
    take(&mut notes, "tiling search", &mut tiling, rec.tiling_search);
    a.no_tiling_search = !tiling;
    let parse = |what: &str, v: &str| anyhow::anyhow!("run.json: unknown {what} `{v}`");
    if let Some(m) = &rec.agent_mode {
        let r = AgentModeArg::from_str(m, false).map_err(|_| parse("agent mode", m))?;
        if r != a.agent_mode {
            notes.push(format!(
                "--agent {m} (given {})",
                AgentMode::from(a.agent_mode)
            ));
            a.agent_mode = r;
        }
    }
    if let Some(f) = &rec.edit_format {
        let r = EditFormatArg::from_str(f, false).map_err(|_| parse("edit format", f))?;
        if r != a.edit_format {
            notes.push(format!("--edit-format {f}"));
            a.edit_format = r;
        }
    }
    let k = KnowledgeArg::from_str(&rec.knowledge, false)
        .map_err(|_| parse("knowledge mode", &rec.knowledge))?;
    if k != a.knowledge {
        notes.push(format!(
            "--knowledge {} (given {})",
            rec.knowledge,
            KnowledgeMode::from(a.knowledge)
        ));
        a.knowledge = k;
    }
    if a.token_budget.is_none() && rec.token_budget.is_some() {
        a.token_budget = rec.token_budget;
    }
    if a.time_budget.is_none() && rec.time_budget.is_some() {
        a.time_budget = rec.time_budget;
    }
    Ok((a, notes))
}

/// The JSON message of one op (`--message-format json`).
#[derive(Clone, Debug, Serialize)]
pub struct EvolveOp<'a> {
    /// The op.
    pub op: String,
    /// Its content key.
    pub key: String,
    /// Whether a kernel was accepted.
    pub accepted: bool,
    /// The run's summary (stop reason, steps, tokens — `null` when not measured —,
    /// candidates, knowledge).
    pub summary: Option<&'a Summary>,
    /// Cost-model time of the (first) accepted kernel per declared shape.
    pub time_us: Vec<ShapeTime>,
    /// The offline proposer's time per declared shape (`null` when not judged).
    pub offline_time_us: Option<Vec<ShapeTime>>,
    /// Why there is no offline time (the proposer cannot lower the op, or it was not
    /// accepted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offline_note: Option<String>,
    /// The pending entries written.
    pub pending: Vec<String>,
    /// With --accept: the crate's entry folder the best kernel was accepted into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_into: Option<String>,
    /// With --accept: why the best kernel was not accepted into the crate (it stays pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accept_problem: Option<String>,
    /// The op's folder in the run folder.
    pub dir: String,
    /// The search's table (generations, best times against the first feasible kernel, the
    /// offline seed and the eager baseline, tokens by phase, candidates by verdict).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<&'a crate::evolve_out::Table>,
}

/// The offline proposer's times on the declared shapes, or why there are none.
fn offline_times(op: &OpSpec, seed: u64) -> Result<Vec<ShapeTime>, String> {
    let candidate = propose(op, &SynthOptions::default()).map_err(|e| e.to_string())?;
    let fast = EvalOptions {
        seed: Some(seed),
        held_out: false,
        stress: false,
        ..EvalOptions::default()
    };
    let ev = evaluate(op, &candidate, &fast).map_err(|e| e.to_string())?;
    if !ev.accepted() {
        return Err(format!(
            "the offline proposer's kernel is not accepted ({})",
            ev.outcome.label()
        ));
    }
    Ok(ShapeTime::declared(&ev))
}

fn unavailable(e: LlmError) -> anyhow::Error {
    anyhow::Error::new(Unavailable(e.to_string()))
}

/// The workspace's `[workspace.metadata.agenticcann.llm]`.
fn llm_metadata(manifest: &Path) -> Result<Metadata> {
    let read = |p: &Path| -> Result<toml::Table> {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", p.display()))
    };
    let table = read(manifest)?;
    let Some(root) = find_workspace_root(manifest, &table) else {
        return Ok(Metadata::default());
    };
    let root_table = if root == manifest {
        table
    } else {
        read(&root)?
    };
    Metadata::from_manifest(&root_table, &root.display().to_string())
        .map_err(|e| anyhow::anyhow!("{e}"))
}

fn unix_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Runs `evolve`.
///
/// # Errors
/// Usage errors (exit 2), an unavailable endpoint (exit 3), a judge that cannot run.
pub fn run(args: &EvolveArgs) -> Result<Status> {
    let (manifest, spec) = select::spec_of(&args.manifest)?;
    let ops: Vec<&OpSpec> = if args.ops.is_empty() {
        spec.ops.iter().collect()
    } else {
        args.ops
            .iter()
            .map(|o| spec.require_op(o))
            .collect::<Result<_, _>>()?
    };
    if ops.is_empty() {
        bail!("{} declares no ops", manifest.display());
    }
    if let Some(t) = args.time_budget {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-budget must be a positive number of seconds, not {t}");
        }
    }
    let env = Env::process(false);
    let source = KnowledgeSource::resolve(args.knowledge_dir.as_deref(), &env);
    let kb = KnowledgeBase::open(&source)
        .with_context(|| format!("cannot load the knowledge base {source}"))?;

    // A replay reads the recorded run's settings.
    let recorded: Option<RunInfo> = match &args.replay {
        Some(dir) => {
            let p = dir.join("run.json");
            let text = std::fs::read_to_string(&p).with_context(|| {
                format!(
                    "--replay {}: cannot read {} (not a run folder?)",
                    dir.display(),
                    p.display()
                )
            })?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("{} does not parse", p.display()))?,
            )
        }
        None => None,
    };
    let seed = args.seed.or(recorded.as_ref().map(|r| r.seed)).unwrap_or(1);
    let (adopted, replay_notes) = match &recorded {
        Some(rec) => adopt_recorded(args, rec)?,
        None => (args.clone(), Vec::new()),
    };
    let args = &adopted;
    // A recorded run that asked no model has nothing to serve: `none` runs again offline with
    // the recorded seed (deterministic); an external agent's exchanges are not recorded.
    let recorded_mode = recorded.as_ref().map(|r| r.mode.as_str());
    if let (Some(dir), Some("agent-command")) = (&args.replay, recorded_mode) {
        bail!(
            "--replay {}: that run used an external agent (--agent-command), whose exchanges \
             are not recorded; run the same --agent-command again",
            dir.display()
        );
    }
    let replay_offline = matches!(recorded_mode, Some("none"));
    // No model, no seed and no tiling search: nothing would ever be judged.
    if (args.llm == LlmArg::None || replay_offline)
        && args.agent_command.is_none()
        && args.no_offline_seed
        && (args.no_tiling_search || args.tiling_variants == 0)
    {
        bail!(
            "--llm none with --no-offline-seed and no tiling search (--no-tiling-search or \
             --tiling-variants 0) leaves nothing to run: without a model the loop's kernels \
             come from the offline seed and the tiling search; drop one of those flags"
        );
    }

    let run_dir = match &args.run_dir {
        Some(d) => d.clone(),
        None => manifest
            .parent()
            .unwrap_or(Path::new("."))
            .join("target/agenticcann/evolve")
            .join(unix_time().to_string()),
    };
    if let Some(r) = &args.replay {
        if std::path::absolute(r).ok() == std::path::absolute(&run_dir).ok() {
            bail!(
                "--run-dir must differ from the --replay folder {}",
                r.display()
            );
        }
    }

    let mut info = RunInfo {
        mode: String::new(),
        model: None,
        base_url: None,
        tool_protocol: None,
        agent_command: args.agent_command.clone(),
        knowledge: KnowledgeMode::from(args.knowledge).to_string(),
        seed,
        seeds: args.seeds,
        max_steps: args.max_steps,
        token_budget: args.token_budget,
        time_budget: args.time_budget,
        ops: ops.iter().map(|o| o.name.clone()).collect(),
        replay_of: args.replay.as_ref().map(|d| d.display().to_string()),
        generations: Some(args.generations),
        agent_mode: Some(AgentMode::from(args.agent_mode).to_string()),
        edit_format: Some(match args.edit_format {
            EditFormatArg::Whole => "whole".into(),
            EditFormatArg::Diff => "diff".into(),
        }),
        population: Some(args.population),
        repairs: Some(args.repairs),
        patience: Some(args.patience),
        offline_seed: Some(!args.no_offline_seed),
        tiling_search: Some(!args.no_tiling_search),
        tiling_variants: Some(args.tiling_variants),
    };

    // The model, before anything is written: a missing key stops here (exit 3).
    let mut resumed = 0usize;
    let model: Option<Box<dyn ChatModel>> = if args.agent_command.is_some() {
        info.mode = "agent-command".into();
        None
    } else if args.llm == LlmArg::None || replay_offline {
        info.mode = "none".into();
        None
    } else if let (Some(dir), Some(rec)) = (&args.replay, &recorded) {
        info.mode = "replay".into();
        info.model = args.model.clone().or(rec.model.clone());
        info.base_url = rec.base_url.clone();
        let protocol: ToolProtocol = match args.tool_protocol {
            Some(p) => p.into(),
            None => rec
                .tool_protocol
                .as_deref()
                .unwrap_or("auto")
                .parse()
                .map_err(|e: LlmError| anyhow::anyhow!("{e}"))?,
        };
        info.tool_protocol = Some(protocol.to_string());
        Some(open_replay(&dir.join("llm"), protocol).map_err(unavailable)?)
    } else {
        info.mode = "llm".into();
        let flags = Flags {
            base_url: args.base_url.clone(),
            model: args.model.clone(),
            tool_protocol: args.tool_protocol.map(Into::into),
        };
        let metadata = llm_metadata(&manifest)?;
        let settings = match resolve(&flags, &|n| agenticcann_build::env::var(n), &metadata) {
            Ok(s) => s,
            Err(e @ LlmError::MissingApiKey { .. }) => return Err(unavailable(e)),
            Err(e) => bail!("{e}"),
        };
        info.model = Some(settings.model.clone());
        info.base_url = Some(settings.base_url.clone());
        info.tool_protocol = Some(settings.tool_protocol.to_string());
        // The recorded answers of an interrupted run in the same folder are served first.
        let (m, recorded) =
            open_resumable(&settings, &run_dir.join("llm")).map_err(|e| anyhow::anyhow!("{e}"))?;
        resumed = recorded;
        Some(m)
    };
    std::fs::create_dir_all(&run_dir)
        .with_context(|| format!("cannot create the run folder {}", run_dir.display()))?;
    agenticcann_build::store::write_file_atomic(
        &run_dir.join("run.json"),
        serde_json::to_string_pretty(&info)?.as_bytes(),
    )?;

    let mut out = crate::exit::stdout();
    let human = args.message_format == MessageFormat::Human;
    if human {
        writeln!(
            out,
            "evolve: {} generation(s), {} op(s), run folder {}",
            args.generations,
            ops.len(),
            run_dir.display()
        )?;
        if let Some(m) = &model {
            writeln!(out, "  model: {}", m.describe())?;
        }
        if !replay_notes.is_empty() {
            writeln!(
                out,
                "  replay: the recorded run's settings are used: {}",
                replay_notes.join(", ")
            )?;
        }
        if replay_offline {
            writeln!(
                out,
                "  replay: the recorded run asked no model (--llm none); it runs again offline with seed {seed}"
            )?;
        }
        if resumed > 0 {
            writeln!(
                out,
                "  resuming: {resumed} answer(s) recorded in {} by an earlier run are served first",
                run_dir.join("llm").display()
            )?;
        }
    }
    let mut all_accepted = true;
    let mut unavailable_reason: Option<String> = None;
    let mut charts: Vec<(String, Vec<agenticcann_evolve::search::GenerationLine>)> = Vec::new();
    for op in ops {
        let mut config = AgentConfig::new(info.model.clone().unwrap_or_default());
        config.knowledge = args.knowledge.into();
        config.budgets = Budgets {
            max_steps: args.max_steps,
            tokens: args.token_budget,
            time: args.time_budget.map(Duration::from_secs_f64),
        };
        config.seeds = args.seeds as usize;
        config.sampling_seed = Some(seed);
        config.eval = EvalOptions {
            seed: Some(seed),
            ..EvalOptions::default()
        };
        config.run_dir = Some(run_dir.clone());
        if let Some(cmd) = &args.agent_command {
            // An external agent: generation 1 only (its tokens are not measured).
            let offline = if args.no_offline_seed {
                None
            } else {
                Some(offline_times(op, seed))
            };
            let run = run_external(op, &kb, cmd, &config, None)?;
            let accept = args.accept.then(|| {
                (
                    manifest.as_path(),
                    &spec,
                    agenticcann_evolve::pending::Replace::from_flag(args.replace),
                )
            });
            all_accepted &= report_agent_only(
                &mut out,
                human,
                op,
                &run_dir,
                &run,
                offline.as_ref(),
                accept,
            )?;
            continue;
        }
        let mut search = SearchConfig::new(config, &run_dir);
        search.mode = args.agent_mode.into();
        search.generations = args.generations;
        search.population = args.population as usize;
        search.repairs = args.repairs;
        search.edit_format = match args.edit_format {
            EditFormatArg::Whole => EditFormat::Whole,
            EditFormatArg::Diff => EditFormat::Diff,
        };
        if let Some(j) = args.jobs {
            search.jobs = j as usize;
        }
        search.token_budget = args.token_budget;
        search.time_budget = args.time_budget.map(Duration::from_secs_f64);
        search.patience = args.patience;
        search.offline_seed = !args.no_offline_seed;
        search.tiling_search = !args.no_tiling_search && args.tiling_variants > 0;
        search.tiling_limit = args.tiling_variants;
        let op_t0 = std::time::Instant::now();
        let mut progress = Progress::new(&op.name, args.generations, human);
        let json = !human;
        let run = {
            let mut sink = |ev: SearchEvent<'_>| {
                progress.event(&ev);
                if json {
                    let _ = emit(&mut crate::exit::stdout(), &ev);
                }
            };
            run_search(op, &kb, model.as_deref(), &search, &mut sink)?
        };
        progress.finish();
        if let SearchStop::ModelUnavailable(m) = &run.stop {
            unavailable_reason.get_or_insert_with(|| m.clone());
        }
        let accepted = run.best().is_some();
        all_accepted &= accepted;
        let mut pending = match &run.agent {
            Some(a) => write_pending(&run_dir, op, a).map_err(|e| anyhow::anyhow!(e))?,
            None => Vec::new(),
        };
        pending.extend(crate::evolve_out::write_best(&run_dir, op, &run)?);
        let replace = agenticcann_evolve::pending::Replace::from_flag(args.replace);
        // A refused accept (a hand-written entry in the way) leaves the result pending and the
        // other ops running: it is reported, not fatal.
        let (accepted_into, accept_problem) = if args.accept {
            match crate::evolve_out::accept_best(&manifest, &spec, op, &run, replace) {
                Ok(a) => (a, None),
                Err(e) => (None, Some(format!("{e:#}"))),
            }
        } else {
            (None, None)
        };
        let eager_t0 = std::time::Instant::now();
        let eager = agenticcann_build::synth::eager_time(
            op,
            &agenticcann_build::synth::SynthOptions::default(),
            &EvalOptions {
                seed: Some(seed),
                ..EvalOptions::default()
            },
        )
        .ok();
        let mut table = crate::evolve_out::Table::of(op, &run, eager.as_ref());
        // The op's whole wall time: the search, writing its results and timing the eager
        // baseline (which judges one kernel per primitive of the reference).
        table.baseline_seconds = eager_t0.elapsed().as_secs_f64();
        table.seconds = op_t0.elapsed().as_secs_f64();
        if human {
            table.write(&mut out)?;
            for p in &pending {
                writeln!(out, "  pending: {}", p.display())?;
            }
            if let Some(a) = &accepted_into {
                writeln!(out, "  accepted into the crate: {}", a.display())?;
            }
            if let Some(p) = &accept_problem {
                writeln!(out, "  not accepted into the crate: {p}")?;
            }
        } else {
            let summary = run.agent.as_ref().map(Summary::of);
            let times = run
                .best()
                .and_then(|b| b.evaluation.as_ref())
                .map(ShapeTime::declared)
                .unwrap_or_default();
            let offline_time_us = run
                .offline_seed
                .and_then(|id| run.population.get(id))
                .and_then(|i| i.evaluation.as_ref())
                .map(ShapeTime::declared);
            emit(
                &mut out,
                &EvolveOp {
                    op: op.name.clone(),
                    key: op.key().to_hex(),
                    accepted,
                    summary: summary.as_ref(),
                    time_us: times,
                    offline_time_us,
                    offline_note: None,
                    pending: pending.iter().map(|p| p.display().to_string()).collect(),
                    accepted_into: accepted_into.as_ref().map(|a| a.display().to_string()),
                    accept_problem: accept_problem.clone(),
                    dir: run_dir.join(&op.name).display().to_string(),
                    search: Some(&table),
                },
            )?;
        }
        charts.push((op.name.clone(), run.generations.clone()));
    }
    if !charts.is_empty() {
        let ops: Vec<(&str, &[agenticcann_evolve::search::GenerationLine])> = charts
            .iter()
            .map(|(n, g)| (n.as_str(), g.as_slice()))
            .collect();
        let svg = agenticcann_evolve::search::plot::progress_svg(&ops)?;
        agenticcann_build::store::write_file_atomic(&run_dir.join("progress.svg"), svg.as_bytes())?;
        if human {
            writeln!(out, "chart: {}", run_dir.join("progress.svg").display())?;
        }
    }
    out.flush()?;
    if let Some(m) = unavailable_reason {
        return Err(anyhow::Error::new(Unavailable(m)).context("the model endpoint is unavailable"));
    }
    Ok(Status::of(all_accepted))
}

/// The report of a generation-1-only run (an external agent): one line per op, the times of
/// the accepted kernel against the offline proposer's, the pending entries. Returns whether
/// a kernel was accepted.
fn report_agent_only(
    out: &mut impl Write,
    human: bool,
    op: &OpSpec,
    run_dir: &Path,
    run: &AgentRun,
    offline: Option<&Result<Vec<ShapeTime>, String>>,
    accept: Option<(
        &Path,
        &agenticcann_build::spec::Spec,
        agenticcann_evolve::pending::Replace,
    )>,
) -> Result<bool> {
    let mut pending = write_pending(run_dir, op, run).map_err(|e| anyhow::anyhow!(e))?;
    let off = offline.and_then(|o| o.as_ref().ok());
    pending.extend(crate::evolve_out::write_agent_best(
        run_dir,
        op,
        run,
        off.map(Vec::as_slice),
    )?);
    let summary = Summary::of(run);
    // --accept: as after a search, a refused accept is reported and leaves it pending.
    let (accepted_into, accept_problem) = match accept {
        Some((manifest, spec, replace)) if summary.accepted => {
            match crate::evolve_out::accept_pending(manifest, spec, op, replace) {
                Ok(a) => (Some(a), None),
                Err(e) => (None, Some(format!("{e:#}"))),
            }
        }
        _ => (None, None),
    };
    let times = run
        .first_accepted()
        .and_then(|c| c.evaluation.as_ref())
        .map(ShapeTime::declared)
        .unwrap_or_default();
    if human {
        let tokens = if run.tokens_measured {
            format!(
                "{} tokens ({} prompt + {} completion{})",
                run.usage.total(),
                run.usage.prompt,
                run.usage.completion,
                if run.usage.estimated {
                    ", estimated"
                } else {
                    ""
                }
            )
        } else {
            "tokens not measured".to_string()
        };
        writeln!(
            out,
            "{}: {} after {} step(s) ({} failed), {tokens}, {:.1} s; stop: {}",
            op.name,
            if summary.accepted {
                "ACCEPTED"
            } else {
                "NOT accepted"
            },
            run.steps,
            run.failed_steps,
            run.seconds,
            run.stop
        )?;
        for t in &times {
            let mut line = format!(
                "  {}: {:.2} us",
                agenticcann_evolve::pending::dims_text(&t.dims),
                t.us
            );
            if let Some(o) = off.and_then(|o| o.iter().find(|o| o.dims == t.dims)) {
                line.push_str(&format!(
                    " (offline proposer {:.2} us: {:.2}x)",
                    o.us,
                    o.us / t.us
                ));
            }
            writeln!(out, "{line}")?;
        }
        if let Some(Err(n)) = offline {
            writeln!(out, "  offline proposer: {n}")?;
        }
        for p in &pending {
            writeln!(out, "  pending: {}", p.display())?;
        }
        if let Some(a) = &accepted_into {
            writeln!(out, "  accepted into the crate: {}", a.display())?;
        }
        if let Some(p) = &accept_problem {
            writeln!(out, "  not accepted into the crate: {p}")?;
        }
    } else {
        emit(
            out,
            &EvolveOp {
                op: op.name.clone(),
                key: op.key().to_hex(),
                accepted: summary.accepted,
                summary: Some(&summary),
                time_us: times,
                offline_time_us: offline.and_then(|o| o.as_ref().ok()).cloned(),
                offline_note: offline.and_then(|o| o.as_ref().err()).cloned(),
                pending: pending.iter().map(|p| p.display().to_string()).collect(),
                accepted_into: accepted_into.as_ref().map(|a| a.display().to_string()),
                accept_problem,
                dir: run_dir.join(&op.name).display().to_string(),
                search: None,
            },
        )?;
    }
    Ok(summary.accepted)
}

/// A progress bar per op on stderr (indicatif), plain lines when stderr is not a terminal,
/// nothing in JSON mode.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    op: String,
}

impl Progress {
    fn new(op: &str, generations: u32, human: bool) -> Progress {
        use std::io::IsTerminal;
        let tty = std::io::stderr().is_terminal();
        let bar = (human && tty).then(|| {
            let b = indicatif::ProgressBar::new(u64::from(generations));
            b.set_style(
                indicatif::ProgressStyle::with_template("{prefix} [{bar:20}] g{pos}/{len} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b.set_prefix(op.to_string());
            b
        });
        Progress {
            bar,
            plain: human && !tty,
            op: op.to_string(),
        }
    }

    fn event(&mut self, ev: &SearchEvent<'_>) {
        match ev {
            SearchEvent::Candidate { line, .. } => {
                let msg = format!(
                    "#{} {} {}{}",
                    line.id,
                    line.phase,
                    line.verdict,
                    line.fitness
                        .map(|f| format!(" {f:.2} us"))
                        .unwrap_or_default()
                );
                if let Some(b) = &self.bar {
                    b.set_message(msg);
                } else if self.plain {
                    crate::stderr!("{}: g{} {msg}", self.op, line.generation);
                }
            }
            SearchEvent::GenerationDone { line, .. } => {
                if let Some(b) = &self.bar {
                    b.set_position(u64::from(line.generation));
                } else if self.plain {
                    crate::stderr!(
                        "{}: generation {} done: best {}, {} candidates, {} tokens",
                        self.op,
                        line.generation,
                        line.best_us
                            .map_or("none".to_string(), |b| format!("{b:.2} us")),
                        line.candidates,
                        line.tokens
                    );
                }
            }
            SearchEvent::Resuming {
                candidates, record, ..
            } => {
                if self.bar.is_some() || self.plain {
                    crate::stderr!(
                        "{}: resuming: {candidates} candidate(s) recorded in {record} by an earlier run are re-traced, not judged again",
                        self.op
                    );
                }
            }
            SearchEvent::Generation { .. } => {}
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
