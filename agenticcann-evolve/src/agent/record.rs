//! The run folder of one op's agent run (written as the run goes; every file atomically):
//!
//! ```text
//! <run dir>/<op>/
//!   task.md                    system prompt, task and knowledge as sent
//!   knowledge.json             the Init chunks: [{id, digest}]
//!   steps.jsonl                one line per step: usage, tool calls, failures
//!   candidates/<NNN>-<tool>/   kernel.cpp, tiling.cpp, tiling_fields.txt, result.md,
//!                              evaluation.json (submit)
//!   conversation.json          every message of the conversation
//!   summary.json               stop reason, steps, tokens, candidates, knowledge used
//!   pending/<n>/<key>/         each accepted kernel as a store entry (provenance llm),
//!                              pending review (written by [`write_pending`])
//! ```
//!
//! The model's exchanges themselves are recorded by the LLM recorder in `<run dir>/llm/`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use agenticcann_build::spec::OpSpec;
use agenticcann_build::store::{self, write_file_atomic, Draft, PhaseTokens, Proposer, Provenance};
use serde::Serialize;

use super::tools::fields_text;
use super::{AgentRun, CandidateRecord, StepRecord, Task};

/// The folder of one op's run.
#[derive(Clone, Debug)]
pub struct OpFolder {
    /// `<run dir>/<op>`.
    pub dir: PathBuf,
}

fn io(what: &str, path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
    }
    write_file_atomic(path, bytes).map_err(|e| e.to_string())
}

fn json<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let mut s = serde_json::to_vec_pretty(v).unwrap_or_else(|_| b"null".to_vec());
    s.push(b'\n');
    s
}

impl OpFolder {
    /// Creates `<run_dir>/<op>/` (emptied of an earlier run's steps) and writes the task.
    ///
    /// # Errors
    /// A folder or file that cannot be written.
    pub fn create(run_dir: &Path, op: &OpSpec, task: &Task) -> Result<OpFolder, String> {
        let dir = run_dir.join(&op.name);
        for stale in ["steps.jsonl", "summary.json", "conversation.json"] {
            let _ = std::fs::remove_file(dir.join(stale));
        }
        let _ = std::fs::remove_dir_all(dir.join("candidates"));
        std::fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
        let text = format!(
            "<!-- system -->\n{}\n\n<!-- user -->\n{}\n",
            task.system,
            task.user_message()
        );
        write(&dir.join("task.md"), text.as_bytes())?;
        write(&dir.join("knowledge.json"), &json(&task.chunks_json()))?;
        Ok(OpFolder { dir })
    }

    /// Writes a candidate's files and result.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn candidate(&self, c: &CandidateRecord) -> Result<(), String> {
        let d = self
            .dir
            .join("candidates")
            .join(format!("{:03}-{}", c.id, c.tool));
        write(&d.join("kernel.cpp"), c.candidate.kernel.as_bytes())?;
        write(&d.join("tiling.cpp"), c.candidate.tiling.as_bytes())?;
        write(
            &d.join("tiling_fields.txt"),
            fields_text(&c.candidate.tiling_fields).as_bytes(),
        )?;
        write(&d.join("result.md"), c.result.as_bytes())?;
        if let Some(ev) = &c.evaluation {
            write(&d.join("evaluation.json"), &json(ev))?;
        }
        Ok(())
    }

    /// Appends one step's line to `steps.jsonl`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn step(&self, s: &StepRecord) -> Result<(), String> {
        let path = self.dir.join("steps.jsonl");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io("open", &path, e))?;
        let line = serde_json::to_string(s).unwrap_or_else(|_| "null".into());
        writeln!(f, "{line}").map_err(|e| io("write", &path, e))
    }

    /// Writes `conversation.json` and `summary.json`.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn finish(&self, run: &AgentRun) -> Result<(), String> {
        write(&self.dir.join("conversation.json"), &json(&run.messages))?;
        write(&self.dir.join("summary.json"), &json(&Summary::of(run)))
    }
}

impl Task {
    fn chunks_json(&self) -> Vec<serde_json::Value> {
        self.chunks
            .iter()
            .map(|k| serde_json::json!({"id": k.id, "digest": k.digest}))
            .collect()
    }
}

/// A run's summary, as `summary.json` and the CLI's JSON hold it.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The op.
    pub op: String,
    /// Its pattern.
    pub pattern: String,
    /// The knowledge mode.
    pub knowledge_mode: String,
    /// The model (or agent command).
    pub model: String,
    /// Why it ended.
    pub stop: super::StopReason,
    /// Whether a kernel was accepted.
    pub accepted: bool,
    /// Steps taken.
    pub steps: u32,
    /// Failed steps.
    pub failed_steps: u32,
    /// Prompt tokens (`null` when not measured).
    pub prompt_tokens: Option<u64>,
    /// Completion tokens (`null` when not measured).
    pub completion_tokens: Option<u64>,
    /// Total tokens (`null` when not measured).
    pub total_tokens: Option<u64>,
    /// Some of the tokens were counted by us, not reported by the server.
    pub tokens_estimated: bool,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Candidates judged.
    pub candidates: Vec<CandidateSummary>,
    /// Knowledge chunks used: Init and tool results.
    pub knowledge: Vec<serde_json::Value>,
}

/// One candidate in a [`Summary`].
#[derive(Clone, Debug, Serialize)]
pub struct CandidateSummary {
    /// Its number.
    pub id: usize,
    /// Its step.
    pub step: u32,
    /// The tool.
    pub tool: String,
    /// The full judge's verdict (`submit`), else `null`.
    pub outcome: Option<String>,
    /// Accepted by the full judge.
    pub accepted: bool,
    /// Error kinds reported.
    pub kinds: Vec<String>,
    /// Tokens spent up to it.
    pub tokens_so_far: u64,
    /// sha256 of its sources.
    pub digest: String,
}

impl Summary {
    /// The summary of `run`.
    pub fn of(run: &AgentRun) -> Summary {
        let m = run.tokens_measured;
        Summary {
            op: run.op.clone(),
            pattern: run.pattern.to_string(),
            knowledge_mode: run.knowledge_mode.to_string(),
            model: run.model.clone(),
            stop: run.stop.clone(),
            accepted: run.first_accepted().is_some(),
            steps: run.steps,
            failed_steps: run.failed_steps,
            prompt_tokens: m.then_some(run.usage.prompt),
            completion_tokens: m.then_some(run.usage.completion),
            total_tokens: m.then_some(run.usage.total()),
            tokens_estimated: run.usage.estimated,
            seconds: run.seconds,
            candidates: run
                .candidates
                .iter()
                .map(|c| CandidateSummary {
                    id: c.id,
                    step: c.step,
                    tool: c.tool.clone(),
                    outcome: c.evaluation.as_ref().map(|e| {
                        if e.suspect_performance {
                            "suspect performance".to_string()
                        } else {
                            e.outcome.label().to_string()
                        }
                    }),
                    accepted: c.accepted(),
                    kinds: c.kinds.clone(),
                    tokens_so_far: c.tokens_so_far,
                    digest: c.digest.clone(),
                })
                .collect(),
            knowledge: run
                .knowledge
                .iter()
                .map(|k| serde_json::json!({"id": k.id, "digest": k.digest}))
                .collect(),
        }
    }
}

/// Writes each distinct accepted kernel of `run` as a store entry under
/// `<run_dir>/<op>/pending/<n>/<key>/` (provenance `llm` with the model's description, or
/// an external agent's command, as `model`; generation 1; the Init tokens when measured;
/// the knowledge used; the judge's records). Returns the entry folders. Nothing is written into
/// a crate: review and accept are separate steps.
///
/// # Errors
/// The entry cannot be written.
pub fn write_pending(run_dir: &Path, op: &OpSpec, run: &AgentRun) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for (n, c) in run.accepted().enumerate() {
        let root = run_dir
            .join(&op.name)
            .join("pending")
            .join((n + 1).to_string());
        std::fs::create_dir_all(&root).map_err(|e| io("create", &root, e))?;
        let entry =
            store::replace_entry(&root, &pending_draft(op, run, c)).map_err(|e| e.to_string())?;
        out.push(entry.dir);
    }
    Ok(out)
}

/// The store draft of candidate `c` of `run`: provenance `llm` with the model's description
/// (or an external agent's command) as `model`, generation 1, the Init tokens so far when
/// measured, the knowledge used, the judge's evaluation.
pub fn pending_draft<'a>(op: &'a OpSpec, run: &AgentRun, c: &'a CandidateRecord) -> Draft<'a> {
    let mut provenance = Provenance::new(Proposer::Llm);
    provenance.model = Some(run.model.clone());
    provenance.generation = Some(1);
    if run.tokens_measured {
        provenance.tokens = Some(PhaseTokens {
            init: c.tokens_so_far,
            ..PhaseTokens::default()
        });
    }
    provenance.knowledge = run.knowledge.clone();
    Draft {
        op,
        candidate: &c.candidate,
        provenance,
        evaluation: c.evaluation.as_ref(),
    }
}
