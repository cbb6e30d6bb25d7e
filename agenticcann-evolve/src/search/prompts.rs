//! The prompts of generations after the first (DESIGN §8): single-pass requests without
//! tools, each with the knowledge of its phase ([`assemble`]):
//!
//! - [`mutation`]: L2–L4 of the pattern, the parent kernel and its profile summary (time per
//!   shape, bound, pipe busy fractions, roofline fraction, bytes moved) → a faster child;
//! - [`repair`]: the L2 rules for the child's error kinds and the pattern's L5 skeleton, the
//!   child and the judge's diagnostics → a fixed child;
//! - [`tuning`]: L3 only (< 100 tokens of knowledge), the parent → changed tiling constants;
//! - [`single`]: generation 1 without the agent (`--agent fixloop|single`): the Init knowledge
//!   and the task → a first kernel.
//!
//! Every request opens with the system prompt of [`ToolStyle::Files`] and the op's task text
//! (spec, reference, entry ABI, what the judge checks), so a model that never saw the
//! generation-1 conversation has everything it needs.

use std::fmt::Write as _;

use agenticcann_build::judge::{Candidate, Evaluation, ShapeOrigin, SocProfile};
use agenticcann_build::spec::{OpSpec, Pattern};
use agenticcann_build::store::KnowledgeRef;

use super::edit::{format_instructions, EditFormat};
use crate::agent::render::rendered;
use crate::agent::task::{system_prompt, task_text, KnowledgeMode, ToolStyle};
use crate::agent::tools::fields_text;
use crate::knowledge::{assemble, AssembleError, KnowledgeBase, Phase};
use crate::llm::Message;

/// A request of one phase: its messages and the knowledge chunks it carries.
#[derive(Clone, Debug)]
pub struct PhaseRequest {
    /// The phase.
    pub phase: Phase,
    /// System prompt and user message.
    pub messages: Vec<Message>,
    /// The chunks in it (id, digest).
    pub chunks: Vec<KnowledgeRef>,
}

/// What a request needs to know about the op.
#[derive(Clone, Copy)]
pub struct OpContext<'a> {
    /// The op.
    pub op: &'a OpSpec,
    /// The knowledge base.
    pub kb: &'a KnowledgeBase,
    /// The op's pattern.
    pub pattern: Pattern,
    /// The SoC's numbers, for the task text.
    pub soc: Option<&'a SocProfile>,
    /// The knowledge mode (`none`: no knowledge in any phase).
    pub knowledge: KnowledgeMode,
}

impl OpContext<'_> {
    fn knowledge(
        &self,
        phase: Phase,
        kinds: &[&str],
    ) -> Result<(String, Vec<KnowledgeRef>), AssembleError> {
        match self.knowledge {
            KnowledgeMode::None => Ok((String::new(), Vec::new())),
            _ => {
                let p = assemble(self.kb, phase, self.pattern, kinds)?;
                let chunks = p.refs();
                Ok((p.text, chunks))
            }
        }
    }

    fn request(
        &self,
        phase: Phase,
        body: String,
        knowledge: (String, Vec<KnowledgeRef>),
    ) -> PhaseRequest {
        let mut user = task_text(self.op, self.pattern, ToolStyle::Files, self.soc);
        if !knowledge.0.is_empty() {
            let _ = write!(user, "\n\n# Knowledge (phase {phase})\n\n{}", knowledge.0);
        }
        user.push_str("\n\n");
        user.push_str(&body);
        PhaseRequest {
            phase,
            messages: vec![
                Message::system(system_prompt(ToolStyle::Files, self.knowledge)),
                Message::user(user),
            ],
            chunks: knowledge.1,
        }
    }
}

/// The candidate's files as fenced blocks labelled with their names.
pub fn files_text(c: &Candidate) -> String {
    format!(
        "```cpp kernel.cpp\n{}\n```\n\n```cpp tiling.cpp\n{}\n```\n\n```text tiling_fields.txt\n{}```\n",
        c.kernel.trim_end(),
        c.tiling.trim_end(),
        fields_text(&c.tiling_fields)
    )
}

/// The profile summary of an evaluation's declared shapes: per shape the time, the bounding
/// pipe, the pipe busy fractions, the roofline fraction, the GM bytes moved against the
/// minimum, and the blocks launched.
pub fn profile_summary(ev: &Evaluation) -> String {
    let mut s = String::new();
    for sh in ev
        .shapes
        .iter()
        .filter(|s| s.origin == ShapeOrigin::Declared)
    {
        let dims: Vec<String> = sh.dims.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let dims = if dims.is_empty() {
            "(no dims)".to_string()
        } else {
            dims.join(",")
        };
        match &sh.profile {
            Some(p) => {
                let busy: Vec<String> = p
                    .pipe_busy
                    .iter()
                    .map(|(k, v)| format!("{k} {:.0}%", v * 100.0))
                    .collect();
                let _ = writeln!(
                    s,
                    "- {dims}: {:.2} us, bound {}, pipes busy [{}], roofline {:.0}%, GM read {} B + write {} B (minimum {} B), {} blocks",
                    p.time_us,
                    p.bound,
                    busy.join(", "),
                    p.roofline_fraction * 100.0,
                    p.gm_read_bytes,
                    p.gm_write_bytes,
                    p.min_bytes,
                    p.block_dim
                );
            }
            None => {
                let _ = writeln!(s, "- {dims}: no profile");
            }
        }
    }
    s
}

/// The drift rule stated to the model in modes with a guard.
pub const SKELETON_RULE: &str = "Keep the pipeline skeleton: the entry signature, every TQue/TQueBind/TBuf with its position and depth, and which loops do CopyIn, Compute and CopyOut. A child that changes them is rejected without being judged. Change tile sizes, instruction choice, scheduling inside the stages and the tiling function freely.";

/// The mutation request for `parent` (accepted, with its evaluation).
///
/// # Errors
/// [`AssembleError`] from the knowledge assembly (not expected: no diagnostic kinds).
pub fn mutation(
    cx: &OpContext<'_>,
    parent: &Candidate,
    evaluation: &Evaluation,
    format: EditFormat,
    guard: bool,
) -> Result<PhaseRequest, AssembleError> {
    let k = cx.knowledge(Phase::Mutation, &[])?;
    let mut body = String::from("# Parent kernel (accepted by the judge)\n\n");
    body.push_str(&files_text(parent));
    body.push_str("\n# Its profile (cost model, declared shapes)\n\n");
    body.push_str(&profile_summary(evaluation));
    body.push_str(
        "\n# Request\n\nWrite a faster kernel: one focused change that removes the bottleneck the profile shows \
         (the bounding pipe, idle pipes, bytes moved above the minimum, few blocks). It must stay correct for every \
         shape.",
    );
    if guard {
        body.push(' ');
        body.push_str(SKELETON_RULE);
    }
    body.push_str("\n\n");
    body.push_str(format_instructions(format));
    Ok(cx.request(Phase::Mutation, body, k))
}

/// The repair request for a child that failed: its files, the judge's diagnostics
/// (`evaluation`, or `failure` when the child could not be judged at all, e.g. an edit that
/// did not apply) and the repair knowledge for `kinds`.
///
/// # Errors
/// [`AssembleError::UnknownKind`] for a kind not in the registry (the caller filters them).
pub fn repair(
    cx: &OpContext<'_>,
    child: &Candidate,
    evaluation: Option<&Evaluation>,
    failure: &str,
    kinds: &[String],
    format: EditFormat,
    guard: bool,
) -> Result<PhaseRequest, AssembleError> {
    let known: Vec<&str> = kinds
        .iter()
        .map(String::as_str)
        .filter(|k| agenticcann_build::kinds::lookup(k).is_some())
        .collect();
    let k = cx.knowledge(Phase::Repair, &known)?;
    let mut body = String::from("# Kernel to fix\n\n");
    body.push_str(&files_text(child));
    body.push_str("\n# What the judge found\n\n");
    match evaluation {
        Some(ev) => {
            let r = rendered(
                format!("verdict: {}", ev.outcome.label()),
                &ev.diagnostics,
                &ev.shapes,
                Some(ev),
            );
            body.push_str(&r.text);
        }
        None => body.push_str(failure),
    }
    body.push_str("\n\n# Request\n\nFix the kernel so the judge accepts it; change nothing else.");
    if guard {
        body.push(' ');
        body.push_str(SKELETON_RULE);
    }
    body.push_str("\n\n");
    body.push_str(format_instructions(format));
    Ok(cx.request(Phase::Repair, body, k))
}

/// The tuning request: change only the tiling parameters of `parent` (tile length, buffer
/// count, blocks), with the L3 knowledge alone.
///
/// # Errors
/// [`AssembleError`] from the knowledge assembly (not expected).
pub fn tuning(
    cx: &OpContext<'_>,
    parent: &Candidate,
    evaluation: &Evaluation,
    format: EditFormat,
) -> Result<PhaseRequest, AssembleError> {
    let k = cx.knowledge(Phase::Tuning, &[])?;
    let mut body = String::from("# Kernel (accepted)\n\n");
    body.push_str(&files_text(parent));
    body.push_str("\n# Its profile\n\n");
    body.push_str(&profile_summary(evaluation));
    body.push_str(
        "\n# Request\n\nChange only tiling parameters (tile length, buffers per queue, blocks launched, tiles per \
         core) to make it faster; keep all code structure.\n\n",
    );
    body.push_str(format_instructions(format));
    Ok(cx.request(Phase::Tuning, body, k))
}

/// Generation 1 without tools: the Init knowledge and the task → a complete first kernel.
///
/// # Errors
/// [`AssembleError`] from the knowledge assembly (not expected).
pub fn single(cx: &OpContext<'_>) -> Result<PhaseRequest, AssembleError> {
    let k = cx.knowledge(Phase::Init, &[])?;
    let body = format!(
        "# Request\n\nWrite the kernel. {}",
        format_instructions(EditFormat::Whole)
    );
    Ok(cx.request(Phase::Init, body, k))
}
