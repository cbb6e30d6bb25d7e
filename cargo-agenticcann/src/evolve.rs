//! `cargo agenticcann evolve`, generation 1: per op, the tool-using agent
//! (`agenticcann_evolve::agent`) against an OpenAI-compatible endpoint (recorded), a
//! recording (`--replay`), or an external coding agent (`--agent-command`); the accepted
//! kernel is written as a pending entry under the run folder, next to the offline
//! proposer's time for comparison. See docs/evolve.md.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agenticcann_build::env::Env;
use agenticcann_build::judge::{evaluate, EvalOptions};
use agenticcann_build::spec::{find_workspace_root, OpSpec};
use agenticcann_build::synth::{propose, SynthOptions};
use agenticcann_evolve::agent::external::run_external;
use agenticcann_evolve::agent::record::{write_pending, Summary};
use agenticcann_evolve::agent::{
    run_agent, AgentConfig, AgentRun, Budgets, KnowledgeMode, StopReason,
};
use agenticcann_evolve::knowledge::{KnowledgeBase, KnowledgeSource};
use agenticcann_evolve::llm::settings::{resolve, Flags, Metadata};
use agenticcann_evolve::llm::{open, open_replay, ChatModel, LlmError, ToolProtocol};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};

use crate::cli::MessageFormat;
use crate::exit::{Status, Unavailable};
use crate::messages::{emit, ShapeTime};
use crate::select;

/// `--help` text.
pub const LONG_ABOUT: &str = "\
Generation 1 of the evolution loop (DESIGN.md section 8): for each op (--op, repeatable; \
default every op of the crate), a tool-using agent gets the task (spec, reference, the exact \
entry ABI, what the judge checks) and the knowledge of --knowledge, and calls the judge's \
stages as tools (compile, run_tests, submit, lookup_api, read_knowledge) until a submit is \
accepted (or --seeds N distinct kernels are), or a budget (--max-steps, --token-budget, \
--time-budget) runs out.

The model: an OpenAI-compatible endpoint (--base-url, --model; else AGENTICCANN_LLM_BASE_URL, \
AGENTICCANN_LLM_MODEL, else [workspace.metadata.agenticcann.llm], else DeepSeek), with the key \
from AGENTICCANN_LLM_API_KEY, DEEPSEEK_API_KEY or OPENAI_API_KEY (localhost needs none). Every \
exchange is recorded in RUN_DIR/llm; --replay DIR serves a recorded run with no network. \
--agent-command CMD runs an external coding agent instead, in a work folder with TASK.md, \
KNOWLEDGE.md and the tools as executables (agc-compile, agc-run-tests, agc-submit, \
agc-read-knowledge, agc-lookup-api). --llm none runs no model: the offline proposer's seed only.

The run folder (--run-dir, default target/agenticcann/evolve/<time> next to the manifest) \
holds run.json, llm/ (the recording) and per op the task, the steps, every candidate with its \
result, summary.json and pending/<n>/<key>/ for each accepted kernel (review and accept are \
separate; nothing is written into the crate).

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

/// `--llm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LlmArg {
    /// The configured endpoint (default).
    Api,
    /// No model at all: the offline proposer's seed only.
    None,
}

/// `cargo agenticcann evolve`.
#[derive(Debug, Args)]
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

    /// Run this external coding agent (through `sh -c`) instead of a model.
    #[arg(long, value_name = "CMD")]
    pub agent_command: Option<String>,

    /// `none`: no model; report the offline proposer's seed.
    #[arg(long, value_enum, value_name = "WHICH", default_value_t = LlmArg::Api)]
    pub llm: LlmArg,

    /// Seed of the judge's inputs (a replay must use the recorded one; it is read from the
    /// recording's run.json unless given).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Do not judge the offline proposer's kernel for the comparison.
    #[arg(long)]
    pub no_offline_baseline: bool,

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
    /// The op's folder in the run folder.
    pub dir: String,
}

fn dims_text(d: &BTreeMap<String, u64>) -> String {
    let v: Vec<String> = d.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if v.is_empty() {
        "(no named dims)".into()
    } else {
        v.join(",")
    }
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
    };

    // The model, before anything is written: a missing key stops here (exit 3).
    let model: Option<Box<dyn ChatModel>> = if args.agent_command.is_some() {
        info.mode = "agent-command".into();
        None
    } else if args.llm == LlmArg::None {
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
        Some(open(&settings, Some(&run_dir.join("llm"))).map_err(|e| anyhow::anyhow!("{e}"))?)
    };
    std::fs::create_dir_all(&run_dir)
        .with_context(|| format!("cannot create the run folder {}", run_dir.display()))?;
    agenticcann_build::store::write_file_atomic(
        &run_dir.join("run.json"),
        serde_json::to_string_pretty(&info)?.as_bytes(),
    )?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let human = args.message_format == MessageFormat::Human;
    if human {
        writeln!(
            out,
            "evolve: generation 1, {} op(s), run folder {}",
            ops.len(),
            run_dir.display()
        )?;
        if let Some(m) = &model {
            writeln!(out, "  model: {}", m.describe())?;
        }
    }
    let mut all_accepted = true;
    let mut unavailable_reason: Option<String> = None;
    for op in ops {
        let offline = if args.no_offline_baseline {
            None
        } else {
            Some(offline_times(op, seed))
        };
        if info.mode == "none" {
            // No model: the offline proposer's seed is all generation 1 has.
            let accepted = matches!(offline, Some(Ok(_)));
            all_accepted &= accepted;
            let times = offline.as_ref().and_then(|o| o.as_ref().ok()).cloned();
            let note = offline.as_ref().and_then(|o| o.as_ref().err()).cloned();
            if human {
                writeln!(
                    out,
                    "{}: generation 1 needs a model (--llm none): offline seed only",
                    op.name
                )?;
                match (&times, &note) {
                    (Some(t), _) => {
                        for s in t {
                            writeln!(
                                out,
                                "  {}: offline proposer {:.2} us",
                                dims_text(&s.dims),
                                s.us
                            )?;
                        }
                    }
                    (None, Some(n)) => writeln!(out, "  offline proposer: {n}")?,
                    _ => {}
                }
            } else {
                emit(
                    &mut out,
                    &EvolveOp {
                        op: op.name.clone(),
                        key: op.key().to_hex(),
                        accepted,
                        summary: None,
                        time_us: Vec::new(),
                        offline_time_us: times,
                        offline_note: note,
                        pending: Vec::new(),
                        dir: run_dir.join(&op.name).display().to_string(),
                    },
                )?;
            }
            continue;
        }
        let mut config = AgentConfig::new(info.model.clone().unwrap_or_default());
        config.knowledge = args.knowledge.into();
        config.budgets = Budgets {
            max_steps: args.max_steps,
            tokens: args.token_budget,
            time: args.time_budget.map(Duration::from_secs_f64),
        };
        config.seeds = args.seeds as usize;
        config.eval = EvalOptions {
            seed: Some(seed),
            ..EvalOptions::default()
        };
        config.run_dir = Some(run_dir.clone());
        let run: AgentRun = match (&model, &args.agent_command) {
            (_, Some(cmd)) => run_external(op, &kb, cmd, &config, None)?,
            (Some(m), None) => run_agent(op, &kb, m.as_ref(), &config)?,
            (None, None) => unreachable!("a model or a command"),
        };
        if let StopReason::ModelUnavailable(m) = &run.stop {
            unavailable_reason.get_or_insert_with(|| m.clone());
        }
        let pending = write_pending(&run_dir, op, &run).map_err(|e| anyhow::anyhow!(e))?;
        let summary = Summary::of(&run);
        let times = run
            .first_accepted()
            .and_then(|c| c.evaluation.as_ref())
            .map(ShapeTime::declared)
            .unwrap_or_default();
        all_accepted &= summary.accepted;
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
            let off = offline.as_ref().and_then(|o| o.as_ref().ok());
            for t in &times {
                let mut line = format!("  {}: {:.2} us", dims_text(&t.dims), t.us);
                if let Some(o) = off.and_then(|o| o.iter().find(|o| o.dims == t.dims)) {
                    line.push_str(&format!(
                        " (offline proposer {:.2} us: {:.2}x)",
                        o.us,
                        o.us / t.us
                    ));
                }
                writeln!(out, "{line}")?;
            }
            if let Some(Err(n)) = &offline {
                writeln!(out, "  offline proposer: {n}")?;
            }
            for p in &pending {
                writeln!(out, "  pending: {}", p.display())?;
            }
        } else {
            emit(
                &mut out,
                &EvolveOp {
                    op: op.name.clone(),
                    key: op.key().to_hex(),
                    accepted: summary.accepted,
                    summary: Some(&summary),
                    time_us: times,
                    offline_time_us: offline.as_ref().and_then(|o| o.as_ref().ok()).cloned(),
                    offline_note: offline.as_ref().and_then(|o| o.as_ref().err()).cloned(),
                    pending: pending.iter().map(|p| p.display().to_string()).collect(),
                    dir: run_dir.join(&op.name).display().to_string(),
                },
            )?;
        }
    }
    out.flush()?;
    if let Some(m) = unavailable_reason {
        return Err(anyhow::Error::new(Unavailable(m)).context("the model endpoint is unavailable"));
    }
    Ok(Status::of(all_accepted))
}
