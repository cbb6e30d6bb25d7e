//! What the generation-1 agent is told: the system prompt (role and rules), the task (the
//! op's spec and reference, the exact entry ABI, what the judge checks) and the knowledge of
//! the chosen [`KnowledgeMode`] with the chunks it used.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use agenticcann_build::spec::{Dtype, OpSpec, ParamRole, Pattern};
use agenticcann_build::store::KnowledgeRef;
use agenticcann_build::toolchain::sim::SocProfile;

use crate::knowledge::{assemble, tokens, AssembleError, KnowledgeBase, Level, Phase};

/// How much of the knowledge base the agent gets (the published ablations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KnowledgeMode {
    /// The phase assembly ([`assemble()`]): Init = L0–L4 of the pattern + its L5 skeleton,
    /// repair knowledge (L2 by diagnostic kind + the L5 skeleton) in tool results, every
    /// chunk readable.
    #[default]
    Full,
    /// The task only: no knowledge in the prompt or in tool results, no knowledge tools.
    None,
    /// L4 API cards only (in the prompt; `lookup_api` and `read_knowledge` of L4).
    Api,
    /// L2 rules + L4 API cards (in the prompt; matching L2 rules in tool results).
    ApiConstraints,
}

impl KnowledgeMode {
    /// Every mode.
    pub const ALL: [KnowledgeMode; 4] = [
        KnowledgeMode::Full,
        KnowledgeMode::None,
        KnowledgeMode::Api,
        KnowledgeMode::ApiConstraints,
    ];

    /// `full`, `none`, `api`, `api+constraints`.
    pub fn as_str(self) -> &'static str {
        match self {
            KnowledgeMode::Full => "full",
            KnowledgeMode::None => "none",
            KnowledgeMode::Api => "api",
            KnowledgeMode::ApiConstraints => "api+constraints",
        }
    }

    /// Whether chunks of `level` may reach the model in this mode.
    pub fn allows(self, level: Level) -> bool {
        match self {
            KnowledgeMode::Full => true,
            KnowledgeMode::None => false,
            KnowledgeMode::Api => level == Level::L4,
            KnowledgeMode::ApiConstraints => matches!(level, Level::L2 | Level::L4),
        }
    }

    /// Whether the knowledge tools (`lookup_api`, `read_knowledge`) are offered.
    pub fn has_knowledge_tools(self) -> bool {
        self != KnowledgeMode::None
    }
}

impl fmt::Display for KnowledgeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`KnowledgeMode::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown knowledge mode `{0}` (expected full, none, api or api+constraints)")]
pub struct UnknownKnowledgeMode(pub String);

impl FromStr for KnowledgeMode {
    type Err = UnknownKnowledgeMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KnowledgeMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownKnowledgeMode(s.to_string()))
    }
}

/// How the tools reach the model: as function calls, or as executables in a work folder
/// (an external coding agent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStyle {
    /// `compile`, `run_tests`, `submit`, `lookup_api`, `read_knowledge` function calls.
    Functions,
    /// `./agc-compile`, `./agc-run-tests`, `./agc-submit`, `./agc-read-knowledge` in the
    /// work folder, on the files `kernel.cpp`, `tiling.cpp`, `tiling_fields.txt`.
    Executables,
    /// No tools (generations after the first, DESIGN §8): each answer holds the files (or
    /// edits of them) and the loop judges it.
    Files,
}

/// The conversation's opening: system prompt, task text and knowledge, with the chunks used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// The system prompt: the model's role and rules.
    pub system: String,
    /// The task: spec, reference, entry ABI, what the judge checks.
    pub task: String,
    /// The knowledge section ([`KnowledgeMode`]); empty in mode `none`.
    pub knowledge: String,
    /// `cl100k_base` tokens of [`knowledge`](Self::knowledge).
    pub knowledge_tokens: usize,
    /// The chunks in [`knowledge`](Self::knowledge), with their digests (a manifest's
    /// `provenance.knowledge`).
    pub chunks: Vec<KnowledgeRef>,
    /// The op's pattern (routed or declared).
    pub pattern: Pattern,
}

impl Task {
    /// The first user message: the task, then the knowledge.
    pub fn user_message(&self) -> String {
        if self.knowledge.is_empty() {
            self.task.clone()
        } else {
            format!(
                "{}\n\n# Knowledge (phase init)\n\n{}",
                self.task, self.knowledge
            )
        }
    }
}

/// The Ascend C element type of a dtype (`half`, `bfloat16_t`, `float`, …).
pub fn ascendc_type(d: Dtype) -> &'static str {
    match d {
        Dtype::F16 => "half",
        Dtype::Bf16 => "bfloat16_t",
        Dtype::F32 => "float",
        Dtype::I32 => "int32_t",
        Dtype::I8 => "int8_t",
        Dtype::U8 => "uint8_t",
        Dtype::Bool => "bool (1 byte)",
    }
}

/// The exact kernel entry point for `op`: `extern "C" __global__ __aicore__ void
/// AGC_KERNEL(GM_ADDR <params in OpSpec::kernel_params order>, GM_ADDR workspace, AgcTiling
/// tiling)` (docs/store-format.md §4).
pub fn kernel_signature(op: &OpSpec) -> String {
    let mut params: Vec<String> = op
        .kernel_params()
        .iter()
        .map(|p| format!("GM_ADDR {}", p.name))
        .collect();
    params.push("GM_ADDR workspace".into());
    params.push("AgcTiling tiling".into());
    format!(
        "extern \"C\" __global__ __aicore__ void AGC_KERNEL({})",
        params.join(", ")
    )
}

/// The host tiling function's declaration (docs/store-format.md §5).
pub const TILING_SIGNATURE: &str = "extern \"C\" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,\n                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes)";

/// `AgcPlatform` as the generated header declares it (docs/store-format.md §6).
pub const PLATFORM_STRUCT: &str = "typedef struct AgcPlatform {\n    uint32_t aiv_cores;      /* vector cores */\n    uint32_t ub_bytes;       /* Unified Buffer per core, bytes */\n    uint32_t max_block_dim;  /* 65535 */\n    uint32_t reserved;\n} AgcPlatform;";

/// The system prompt for a tool style.
pub fn system_prompt(style: ToolStyle, mode: KnowledgeMode) -> String {
    let tools = match style {
        ToolStyle::Functions => {
            let mut t = String::from(
                "Tools: `compile` (policy + compile only: diagnostics), `run_tests` (compile and run on the \
                 declared shapes), `submit` (the full judge; the first accepted submit ends the task). Each takes \
                 `kernel` (kernel.cpp), `tiling` (tiling.cpp) and `fields` (the tiling struct, one `type name` per \
                 line).",
            );
            if mode.has_knowledge_tools() {
                t.push_str(
                    " `lookup_api(name)` returns the API card or the simulator's declaration of an Ascend C name; \
                     `read_knowledge(id)` returns a knowledge chunk or an exemplar file by id (the exemplar files \
                     the knowledge names, `L5.<pattern>.kernel`, `.tiling`, `.spec`, are read with it).",
                );
            }
            t
        }
        ToolStyle::Executables => {
            let mut t = String::from(
                "Tools are executables in the current folder (also on PATH). Write `kernel.cpp`, `tiling.cpp` and \
                 `tiling_fields.txt` (the tiling struct, one `type name` per line) here, then run \
                 `./agc-compile` (policy + compile: diagnostics), `./agc-run-tests` (run on the declared \
                 shapes) and `./agc-submit` (the full judge; exit 0 = accepted, which ends the task).",
            );
            if mode.has_knowledge_tools() {
                t.push_str(
                    " `./agc-read-knowledge ID` prints a knowledge chunk or an exemplar file; \
                     `./agc-lookup-api NAME` the API card or the simulator's declaration of a name.",
                );
            }
            t.push_str(
                " Each tool call counts as a step; the tools refuse to run once the step limit is reached.",
            );
            t
        }
        ToolStyle::Files => String::from(
            "There are no tools: answer with the files (`kernel.cpp`, `tiling.cpp`, `tiling_fields.txt`: the \
             tiling struct, one `type name` per line) in the form the user asks for. Every answer is compiled, \
             verified and profiled by the judge, which is told to you when a fix is needed.",
        ),
    };
    let close = match style {
        ToolStyle::Files => "Keep what works; change what the request asks for.",
        _ => "Always send complete files. Work in small steps: compile, fix every error, run the tests, then submit.",
    };
    format!(
        "You are an expert Ascend C kernel engineer. You write one vector kernel (`kernel.cpp`) and its host \
         tiling function (`tiling.cpp`) for the operator described by the user, for a Huawei Ascend NPU \
         (dav-c220-vec). Your code is compiled against a CPU simulator of the Ascend C API that enforces the \
         hardware's rules (32-byte alignment, Unified Buffer capacity, queue discipline, GM bounds) and \
         estimates time with a cost model.\n\
         Rules: use only the Ascend C API of `kernel_operator.h` (no standard library in the kernel, no heap, \
         no raw pointer access to GM or UB, no asm); include only `kernel_operator.h` and \
         `agenticcann_tiling.h` in kernel.cpp and only `agenticcann_tiling.h` plus <cstdint>, <cstddef>, \
         <algorithm>, <cmath>, <climits>, <limits>, <type_traits> in tiling.cpp; keep the entry points \
         exactly as given; the kernel must be correct for every value of the named dimensions, not only \
         the declared shapes (the judge adds held-out shapes: 1, odd, not divisible by the core count, \
         32k+1, zero). Correct first, then fast.\n\
         {tools}\n\
         {close}"
    )
}

/// The task text of `op`: spec, reference, attrs, the entry ABI with parameter order, the
/// tiling function and `AgcPlatform`, the tiling-fields file, and what the judge checks.
///
/// `soc`: the SoC profile's numbers (vector cores, UB bytes per core) when known, stated
/// with the platform struct.
pub fn task_text(
    op: &OpSpec,
    pattern: Pattern,
    style: ToolStyle,
    soc: Option<&SocProfile>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Task: the kernel of op `{}`", op.name);
    let _ = write!(s, "\nSoC: {} (pattern: {pattern})", op.soc.name());
    match soc {
        Some(p) => {
            let _ = writeln!(
                s,
                ": {} vector cores, {} bytes of Unified Buffer per core, 32-byte blocks.",
                p.aiv_cores, p.ub_bytes
            );
        }
        None => s.push_str(".\n"),
    }
    let _ = writeln!(s, "\n## Spec\n");
    for i in &op.inputs {
        let _ = writeln!(s, "- input `{}`: {}", i.name, i.decl);
    }
    for o in &op.outputs {
        let _ = writeln!(
            s,
            "- output `{}`: {} (tolerance atol {:e}, rtol {:e})",
            o.name, o.decl, o.tolerance.atol, o.tolerance.rtol
        );
    }
    for a in &op.attrs {
        let _ = writeln!(
            s,
            "- attr `{}` = {} (a constant: write it into the kernel or pass it in a tiling field)",
            a.name,
            a.value.as_f64()
        );
    }
    let _ = writeln!(
        s,
        "\nReference (numpy-like, evaluated in f64 and rounded to the output dtype):\n```\n{}\n```",
        op.reference.to_canonical_source().trim_end()
    );
    let shapes: Vec<String> = op
        .shapes
        .iter()
        .map(|b| {
            let mut v: Vec<String> = b.iter().map(|(k, v)| format!("{k}={v}")).collect();
            v.sort();
            format!("{{{}}}", v.join(", "))
        })
        .collect();
    let _ = writeln!(s, "\nDeclared shapes: {}", shapes.join(", "));

    let _ = writeln!(s, "\n## Entry ABI (exact)\n");
    let _ = writeln!(
        s,
        "kernel.cpp starts with `#include \"kernel_operator.h\"` and `#include \"agenticcann_tiling.h\"` and \
         defines exactly one entry point:\n```cpp\n{} {{ ... }}\n```",
        kernel_signature(op)
    );
    let _ = writeln!(s, "GM parameters, in this order:");
    for p in op.kernel_params() {
        let role = match p.role {
            ParamRole::Input => "input",
            ParamRole::Output => "output",
        };
        let _ = writeln!(
            s,
            "- `{}`: {role}, {} elements of `{}`",
            p.name,
            p.decl.shape,
            ascendc_type(p.decl.dtype)
        );
    }
    let _ = writeln!(
        s,
        "- `workspace`: null unless the tiling function asks for workspace bytes (uninitialized)\n\
         - `tiling`: the tiling struct, by value"
    );
    let dims = op.named_dims();
    let dims_text = if dims.is_empty() {
        "none (num_dims = 0)".to_string()
    } else {
        dims.iter()
            .enumerate()
            .map(|(i, d)| format!("dims[{i}] = {d}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "\ntiling.cpp starts with `#include \"agenticcann_tiling.h\"` and defines:\n```cpp\n{TILING_SIGNATURE} {{ ... }}\n```\n\
         Named dimensions: {dims_text}. Return 0 on success (nonzero = these dims are not supported); set \
         `*block_dim` in [1, platform->max_block_dim] and `*workspace_bytes` (0 for none). Zero-size \
         launches never reach it. The header `agenticcann_tiling.h` (generated) declares:\n```c\n{PLATFORM_STRUCT}\n\
         typedef struct {{ /* your fields, in order */ }} AgcTiling;\n#define AGC_NUM_DIMS {}\n```",
        dims.len()
    );
    let fields_how = match style {
        ToolStyle::Functions => "the `fields` argument",
        ToolStyle::Executables | ToolStyle::Files => "the file `tiling_fields.txt`",
    };
    let _ = writeln!(
        s,
        "The tiling struct's fields are {fields_how}: one field per line, `type name`, types uint32_t, int32_t, \
         uint64_t, int64_t or float, at least one field, e.g.\n```\nuint32_t total_length\nuint32_t tile_length\n```\n\
         On the kernel side read them as `tiling.total_length`."
    );
    let _ = writeln!(
        s,
        "\n## What the judge checks\n\n\
         1. The source policy (allowed includes and API only), then a compile with the simulator's headers.\n\
         2. A run on the declared shapes, held-out shapes (1, 13, cores+3, 32k+1, 0) and ill-conditioned \
         inputs (large, offset, constant), each in a sandboxed process; the simulator reports every rule \
         violation as a diagnostic.\n\
         3. Outputs against the reference within tolerance (untouched outputs are poisoned with NaN; \
         modified inputs and writes past a tensor's end fail).\n\
         4. The cost model's time per shape, the roofline fraction and the bounding pipe. A verified kernel \
         whose profile is implausible (below the roofline floor) is not accepted."
    );
    s
}

/// Builds the opening of the conversation for `op`: the knowledge of `mode` (Init phase),
/// with its chunk ids and digests.
///
/// # Errors
/// [`AssembleError`] from [`assemble()`] (not expected for an Init prompt).
pub fn build_task(
    op: &OpSpec,
    kb: &KnowledgeBase,
    pattern: Pattern,
    mode: KnowledgeMode,
    style: ToolStyle,
    soc: Option<&SocProfile>,
) -> Result<Task, AssembleError> {
    let (knowledge, chunks) = match mode {
        KnowledgeMode::Full => {
            let p = assemble(kb, Phase::Init, pattern, &[])?;
            let chunks = p.refs();
            (p.text, chunks)
        }
        KnowledgeMode::None => (String::new(), Vec::new()),
        KnowledgeMode::Api | KnowledgeMode::ApiConstraints => {
            let mut text = String::new();
            let mut chunks = Vec::new();
            for level in [Level::L2, Level::L4] {
                if !mode.allows(level) {
                    continue;
                }
                let cs: Vec<_> = kb.chunks_for(level, pattern).collect();
                if cs.is_empty() {
                    continue;
                }
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(level.heading());
                for c in cs {
                    text.push('\n');
                    text.push_str(&c.body);
                    chunks.push(KnowledgeRef {
                        id: c.id.clone(),
                        digest: c.digest.clone(),
                    });
                }
            }
            (text, chunks)
        }
    };
    Ok(Task {
        system: system_prompt(style, mode),
        task: task_text(op, pattern, style, soc),
        knowledge_tokens: tokens::count(&knowledge),
        knowledge,
        chunks,
        pattern,
    })
}
