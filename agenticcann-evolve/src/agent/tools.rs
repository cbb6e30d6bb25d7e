//! The agent's tools, each a thin call into the judge's stages or the knowledge base
//! ([`Workbench`]), their JSON-schema specs ([`tool_specs`]) and the parsing of a model's
//! arguments ([`ToolCall::parse`]): a malformed call is a [`ToolError`] with a message for
//! the model, never a panic.
//!
//! | tool | call | result |
//! |---|---|---|
//! | `compile(kernel, tiling, fields)` | [`judge::check_policy`] + [`judge::compile()`] | diagnostics |
//! | `run_tests(kernel, tiling, fields)` | + [`judge::run()`] on the declared shapes, [`judge::verify()`], [`judge::profile()`] | diagnostics, per-shape table, profile |
//! | `submit(kernel, tiling, fields)` | [`judge::evaluate`]: declared, held-out and stress shapes, profile | the verdict, diagnostics, table, profile |
//! | `lookup_api(name)` | the L4 card naming it, else the simulator's declaration | text |
//! | `read_knowledge(id)` | [`KnowledgeBase::read`] | text |

use std::path::{Path, PathBuf};
use std::time::Instant;

use agenticcann_build::judge::{
    self, Candidate, Diagnostic, EvalOptions, Evaluation, JudgeError, Prepared, ShapeResult,
};
use agenticcann_build::spec::{OpSpec, Pattern};
use agenticcann_build::store::Digest;
use agenticcann_build::store::{FieldType, Manifest, Proposer, Provenance, TilingField};
use serde_json::{json, Value};

use super::render::{self, Rendered};
use super::task::KnowledgeMode;
use crate::knowledge::{KnowledgeBase, Level};

/// The tool names, in the order they are offered.
pub const TOOL_NAMES: [&str; 5] = [
    "compile",
    "run_tests",
    "submit",
    "lookup_api",
    "read_knowledge",
];

/// One tool as an OpenAI-compatible function: name, description, JSON-schema parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    /// The function name.
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// JSON schema of its arguments object.
    pub parameters: Value,
}

fn source_params() -> Value {
    json!({
        "type": "object",
        "properties": {
            "kernel": {"type": "string", "description": "the complete kernel.cpp"},
            "tiling": {"type": "string", "description": "the complete tiling.cpp"},
            "fields": {"type": "string", "description": "the tiling struct's fields, one `type name` per line (types: uint32_t, int32_t, uint64_t, int64_t, float)"}
        },
        "required": ["kernel", "tiling", "fields"],
        "additionalProperties": false
    })
}

/// The tools offered in `mode` (`lookup_api` and `read_knowledge` only when the mode has
/// knowledge).
pub fn tool_specs(mode: KnowledgeMode) -> Vec<ToolDef> {
    let mut v = vec![
        ToolDef {
            name: "compile",
            description: "Check the source policy and compile kernel.cpp and tiling.cpp against the simulator. Returns the diagnostics (kind, file:line, message) and the knowledge that fixes them. Does not run anything.",
            parameters: source_params(),
        },
        ToolDef {
            name: "run_tests",
            description: "Compile and run the kernel on the op's declared shapes, verify the outputs against the reference and profile them. Returns diagnostics, a per-shape table and the profile.",
            parameters: source_params(),
        },
        ToolDef {
            name: "submit",
            description: "Submit the kernel to the full judge: declared, held-out and stress shapes, verification and profile. An accepted submit ends the task.",
            parameters: source_params(),
        },
    ];
    if mode.has_knowledge_tools() {
        v.push(ToolDef {
            name: "lookup_api",
            description: "The API card of an Ascend C name (DataCopyPad, ReduceSum, TQue, ...), else its declaration in the simulator's headers.",
            parameters: json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "an Ascend C API name"}},
                "required": ["name"],
                "additionalProperties": false
            }),
        });
        v.push(ToolDef {
            name: "read_knowledge",
            description: "A knowledge chunk by id (e.g. L2.align32) or an exemplar file (L5.<pattern>.kernel, .tiling, .spec).",
            parameters: json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "the chunk id"}},
                "required": ["id"],
                "additionalProperties": false
            }),
        });
    }
    v
}

/// The sources of one candidate as a model sends them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    /// kernel.cpp.
    pub kernel: String,
    /// tiling.cpp.
    pub tiling: String,
    /// The tiling-fields text, one `type name` per line.
    pub fields: String,
}

/// A parsed tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// `compile`.
    Compile(Sources),
    /// `run_tests`.
    RunTests(Sources),
    /// `submit`.
    Submit(Sources),
    /// `lookup_api`.
    LookupApi(String),
    /// `read_knowledge`.
    ReadKnowledge(String),
}

/// A tool call that cannot be carried out as asked; its text goes back to the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

impl ToolCall {
    /// The tool's name.
    pub fn name(&self) -> &'static str {
        match self {
            ToolCall::Compile(_) => "compile",
            ToolCall::RunTests(_) => "run_tests",
            ToolCall::Submit(_) => "submit",
            ToolCall::LookupApi(_) => "lookup_api",
            ToolCall::ReadKnowledge(_) => "read_knowledge",
        }
    }

    /// The sources, for the three judge tools.
    pub fn sources(&self) -> Option<&Sources> {
        match self {
            ToolCall::Compile(s) | ToolCall::RunTests(s) | ToolCall::Submit(s) => Some(s),
            _ => None,
        }
    }

    /// Parses a call of tool `name` with JSON `arguments` (a string, as the
    /// chat-completions protocol sends it). `fields` may also be an array of
    /// `{"name", "type"}` objects.
    ///
    /// # Errors
    /// [`ToolError`] naming the problem: an unknown tool (with the tools offered in
    /// `mode`), arguments that are not a JSON object, a missing or non-string argument, an
    /// empty file, or a file name in place of a file (a text-protocol answer whose fenced
    /// block for that name is missing).
    pub fn parse(name: &str, arguments: &str, mode: KnowledgeMode) -> Result<ToolCall, ToolError> {
        let offered: Vec<&str> = tool_specs(mode).iter().map(|t| t.name).collect();
        if !offered.contains(&name) {
            return Err(ToolError(format!(
                "there is no tool `{name}`; the tools are: {}",
                offered.join(", ")
            )));
        }
        let v: Value = serde_json::from_str(arguments).map_err(|e| {
            ToolError(format!(
                "the arguments of `{name}` are not valid JSON ({e}); send one JSON object, e.g. {}",
                example_args(name)
            ))
        })?;
        let Value::Object(map) = v else {
            return Err(ToolError(format!(
                "the arguments of `{name}` must be a JSON object, e.g. {}",
                example_args(name)
            )));
        };
        let text = |key: &str| -> Result<String, ToolError> {
            match map.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(Value::Array(items)) if key == "fields" => fields_from_array(items),
                Some(other) => Err(ToolError(format!(
                    "argument `{key}` of `{name}` must be a string, not {}",
                    json_type(other)
                ))),
                None => Err(ToolError(format!(
                    "`{name}` needs the argument `{key}` (arguments: {})",
                    example_args(name)
                ))),
            }
        };
        // A file's text, not a file name whose fenced block never came (text protocol).
        let file = |key: &str| -> Result<String, ToolError> {
            let v = text(key)?;
            let t = v.trim();
            if t.is_empty() {
                return Err(ToolError(format!(
                    "argument `{key}` of `{name}` is empty; send the complete file"
                )));
            }
            let looks_like_name = !t.contains(char::is_whitespace)
                && [".cpp", ".cc", ".h", ".txt", ".toml"]
                    .iter()
                    .any(|x| t.ends_with(x));
            if looks_like_name {
                return Err(ToolError(format!(
                    "argument `{key}` of `{name}` is `{t}`, a file name, but no fenced block labelled `{t}` \
                     came with the call; send the file's complete text"
                )));
            }
            Ok(v)
        };
        let sources = || -> Result<Sources, ToolError> {
            Ok(Sources {
                kernel: file("kernel")?,
                tiling: file("tiling")?,
                fields: file("fields")?,
            })
        };
        Ok(match name {
            "compile" => ToolCall::Compile(sources()?),
            "run_tests" => ToolCall::RunTests(sources()?),
            "submit" => ToolCall::Submit(sources()?),
            "lookup_api" => ToolCall::LookupApi(text("name")?),
            "read_knowledge" => ToolCall::ReadKnowledge(text("id")?),
            _ => unreachable!("checked against the offered tools"),
        })
    }
}

fn example_args(name: &str) -> &'static str {
    match name {
        "lookup_api" => r#"{"name": "DataCopyPad"}"#,
        "read_knowledge" => r#"{"id": "L2.align32"}"#,
        _ => {
            r#"{"kernel": "<kernel.cpp>", "tiling": "<tiling.cpp>", "fields": "uint32_t total_length\nuint32_t tile_length"}"#
        }
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn fields_from_array(items: &[Value]) -> Result<String, ToolError> {
    let mut lines = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let (Some(n), Some(t)) = (
            it.get("name").and_then(Value::as_str),
            it.get("type").and_then(Value::as_str),
        ) else {
            return Err(ToolError(format!(
                "fields[{i}] must be an object {{\"name\": ..., \"type\": ...}} (or send `fields` as text, one `type name` per line)"
            )));
        };
        lines.push(format!("{t} {n}"));
    }
    Ok(lines.join("\n"))
}

/// Parses the tiling-fields text: one field per line, `type name`, optional trailing `;`,
/// `//` comments and blank lines ignored; the names are checked as a manifest checks them.
///
/// # Errors
/// [`ToolError`] naming the line: an unknown type, a missing name, no field at all, an
/// invalid or duplicate name.
pub fn parse_fields(text: &str, op: &OpSpec) -> Result<Vec<TilingField>, ToolError> {
    let mut fields = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        let line = line.trim_end_matches(';').trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(ty), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(ToolError(format!(
                "tiling fields, line {}: `{raw}` is not `type name` (e.g. `uint32_t tile_length`)",
                i + 1
            )));
        };
        let ty = match ty {
            "uint32_t" => FieldType::U32,
            "int32_t" => FieldType::I32,
            "uint64_t" => FieldType::U64,
            "int64_t" => FieldType::I64,
            "float" => FieldType::F32,
            other => {
                return Err(ToolError(format!(
                    "tiling fields, line {}: type `{other}` is not one of uint32_t, int32_t, uint64_t, int64_t, float",
                    i + 1
                )))
            }
        };
        fields.push(TilingField {
            name: name.to_string(),
            ty,
        });
    }
    // The manifest's own checks (at least one field, C identifiers, no keyword, unique).
    let m = Manifest::new(
        op.key(),
        Some(&op.name),
        Digest::of(b""),
        Digest::of(b""),
        fields.clone(),
        Provenance::new(Proposer::Llm),
    );
    m.validate()
        .map_err(|e| ToolError(format!("tiling fields: {}", e.replace("[tiling] ", ""))))?;
    Ok(fields)
}

/// The tiling-fields text of `fields` (what [`parse_fields`] reads back).
pub fn fields_text(fields: &[TilingField]) -> String {
    fields
        .iter()
        .map(|f| format!("{} {}\n", f.ty.c_name(), f.name))
        .collect()
}

/// What a tool call did, for the loop and its records.
#[derive(Clone, Debug)]
pub struct ToolOutcome {
    /// The text returned to the model.
    pub text: String,
    /// The candidate, for the judge tools (its sources parsed).
    pub candidate: Option<Candidate>,
    /// The judge's verdict on a `submit`.
    pub evaluation: Option<Evaluation>,
    /// Error kinds the result reported, in order (repair routing).
    pub kinds: Vec<String>,
    /// Knowledge chunk ids the result carried (repair knowledge, read chunks, API cards).
    pub chunks: Vec<(String, String)>,
    /// Wall time of the tool, ms.
    pub ms: f64,
}

impl ToolOutcome {
    fn text(text: String) -> ToolOutcome {
        ToolOutcome {
            text,
            candidate: None,
            evaluation: None,
            kinds: Vec::new(),
            chunks: Vec::new(),
            ms: 0.0,
        }
    }

    /// True when this was an accepted `submit`.
    pub fn accepted(&self) -> bool {
        self.evaluation.as_ref().is_some_and(Evaluation::accepted)
    }
}

/// The tools of one op: the knowledge base, the declared-shapes [`Prepared`] of
/// `run_tests` (made on first use), and the options of the full judge.
pub struct Workbench<'a> {
    op: &'a OpSpec,
    kb: &'a KnowledgeBase,
    pattern: Pattern,
    mode: KnowledgeMode,
    eval: EvalOptions,
    small: Option<Prepared>,
    sim_include: Option<PathBuf>,
}

impl<'a> Workbench<'a> {
    /// The tools for `op`. `eval` are the full judge's options (`submit`); `run_tests` uses
    /// them without held-out and stress shapes. `sim_include`: the simulator's include
    /// folder for `lookup_api` (else the toolchain's, when it resolves).
    pub fn new(
        op: &'a OpSpec,
        kb: &'a KnowledgeBase,
        pattern: Pattern,
        mode: KnowledgeMode,
        eval: EvalOptions,
        sim_include: Option<PathBuf>,
    ) -> Workbench<'a> {
        Workbench {
            op,
            kb,
            pattern,
            mode,
            eval,
            small: None,
            sim_include,
        }
    }

    /// The op.
    pub fn op(&self) -> &OpSpec {
        self.op
    }

    /// The knowledge mode.
    pub fn mode(&self) -> KnowledgeMode {
        self.mode
    }

    /// The declared-shapes preparation (made once).
    ///
    /// # Errors
    /// [`JudgeError`] when the toolchain or the reference cannot be prepared.
    pub fn prepared(&mut self) -> Result<&Prepared, JudgeError> {
        if self.small.is_none() {
            let o = EvalOptions {
                held_out: false,
                stress: false,
                ..self.eval.clone()
            };
            self.small = Some(Prepared::new(self.op, &o)?);
        }
        Ok(self.small.as_ref().expect("set above"))
    }

    /// Carries out `call`. A problem of the call (bad fields, an unknown id) is in the
    /// returned text, for the model.
    ///
    /// # Errors
    /// [`JudgeError`] only when the judge itself cannot run (no toolchain, an unwritable
    /// cache): the loop stops.
    pub fn call(&mut self, call: &ToolCall) -> Result<ToolOutcome, JudgeError> {
        let t = Instant::now();
        if matches!(call, ToolCall::LookupApi(_) | ToolCall::ReadKnowledge(_))
            && !self.mode.has_knowledge_tools()
        {
            return Ok(ToolOutcome::text(format!(
                "{}: not available in knowledge mode `{}`",
                call.name(),
                self.mode
            )));
        }
        let mut out = match call {
            ToolCall::Compile(s) => self.judge_tool(s, Tool::Compile)?,
            ToolCall::RunTests(s) => self.judge_tool(s, Tool::RunTests)?,
            ToolCall::Submit(s) => self.judge_tool(s, Tool::Submit)?,
            ToolCall::LookupApi(name) => self.lookup_api(name),
            ToolCall::ReadKnowledge(id) => self.read_knowledge(id),
        };
        out.ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(out)
    }

    fn judge_tool(&mut self, s: &Sources, tool: Tool) -> Result<ToolOutcome, JudgeError> {
        let fields = match parse_fields(&s.fields, self.op) {
            Ok(f) => f,
            Err(e) => return Ok(ToolOutcome::text(format!("{}: not run: {e}", tool.name()))),
        };
        let candidate = Candidate::new(s.kernel.clone(), s.tiling.clone(), fields);
        let (rendered, evaluation) = match tool {
            Tool::Compile => {
                let prepared = self.prepared()?;
                let compiled = judge::compile(prepared, &candidate)?;
                let diags = compiled.diagnostics.clone();
                let head = if compiled.ok() {
                    "compile: OK (policy and compile passed)".to_string()
                } else {
                    "compile: FAILED".to_string()
                };
                (render::rendered(head, &diags, &[], None), None)
            }
            Tool::RunTests => {
                let prepared = self.prepared()?;
                let compiled = judge::compile(prepared, &candidate)?;
                if !compiled.ok() {
                    let d = compiled.diagnostics.clone();
                    (
                        render::rendered("run_tests: FAILED to compile".into(), &d, &[], None),
                        None,
                    )
                } else {
                    let ran = judge::run(prepared, &compiled, &prepared.declared())?;
                    let mut diags: Vec<Diagnostic> = compiled.diagnostics.clone();
                    diags.extend(ran.diagnostics.iter().cloned());
                    let mut shapes: Vec<ShapeResult> = prepared
                        .declared()
                        .iter()
                        .map(|&i| blank_result(prepared, i))
                        .collect();
                    for r in &ran.shapes {
                        let mut c = judge::verify(prepared, r);
                        judge::profile(prepared, r, &mut c);
                        diags.extend(c.diagnostics.iter().cloned());
                        if let Some(slot) = prepared.declared().iter().position(|&i| i == c.shape) {
                            shapes[slot] = c.result;
                        }
                    }
                    let errors = diags.iter().any(|d| d.severity == judge::Severity::Error);
                    let passed = !errors
                        && shapes.iter().all(|s| {
                            matches!(
                                s.status,
                                judge::ShapeStatus::Passed | judge::ShapeStatus::SkippedEmpty
                            )
                        });
                    let head = if passed {
                        "run_tests: PASSED on every declared shape (submit runs held-out and stress shapes too)".to_string()
                    } else {
                        "run_tests: FAILED".to_string()
                    };
                    (render::rendered(head, &diags, &shapes, None), None)
                }
            }
            Tool::Submit => {
                let ev = judge::evaluate(self.op, &candidate, &self.eval)?;
                let head = if ev.accepted() {
                    "submit: ACCEPTED".to_string()
                } else if ev.suspect_performance {
                    "submit: NOT ACCEPTED (verified, but the profile is implausible)".to_string()
                } else {
                    format!("submit: NOT ACCEPTED ({})", ev.outcome.label())
                };
                (
                    render::rendered(head, &ev.diagnostics, &ev.shapes, Some(&ev)),
                    Some(ev),
                )
            }
        };
        let Rendered { mut text, kinds } = rendered;
        let mut chunks = Vec::new();
        if !kinds.is_empty() {
            let (k, c) = render::repair_knowledge(self.kb, self.pattern, self.mode, &kinds);
            if !k.is_empty() {
                text.push_str("\n\n# Knowledge for these errors\n");
                text.push_str(&k);
                text.push('\n');
            }
            chunks = c;
        }
        Ok(ToolOutcome {
            text,
            candidate: Some(candidate),
            evaluation,
            kinds,
            chunks,
            ms: 0.0,
        })
    }

    fn read_knowledge(&self, id: &str) -> ToolOutcome {
        let id = id.trim();
        let level = level_of(id);
        if let Some(l) = level {
            if !self.mode.allows(l) {
                return ToolOutcome::text(format!(
                    "read_knowledge: `{id}` is not available in knowledge mode `{}`",
                    self.mode
                ));
            }
        }
        match self.kb.read(id) {
            Some(text) => {
                let mut o = ToolOutcome::text(text.to_string());
                let digest = self
                    .kb
                    .chunk(id)
                    .map(|c| c.digest.clone())
                    .unwrap_or_else(|| Digest::of(text.as_bytes()).to_hex());
                o.chunks.push((id.to_string(), digest));
                o
            }
            None => {
                let ids: Vec<&str> = self
                    .kb
                    .chunks
                    .iter()
                    .filter(|c| self.mode.allows(c.level))
                    .map(|c| c.id.as_str())
                    .collect();
                ToolOutcome::text(format!(
                    "read_knowledge: no chunk `{id}`. Chunks: {}{}",
                    ids.join(", "),
                    if self.mode.allows(Level::L5) {
                        "; exemplar files: L5.<pattern>.kernel, .tiling, .spec"
                    } else {
                        ""
                    }
                ))
            }
        }
    }

    fn lookup_api(&self, name: &str) -> ToolOutcome {
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return ToolOutcome::text(format!(
                "lookup_api: `{name}` is not an API name (letters, digits and `_` only)"
            ));
        }
        // The L4 card that names it.
        if self.mode.allows(Level::L4) {
            for c in self.kb.chunks.iter().filter(|c| c.level == Level::L4) {
                if mentions(&c.body, name) {
                    let mut o = ToolOutcome::text(format!("API card {}:\n{}", c.id, c.body));
                    o.chunks.push((c.id.clone(), c.digest.clone()));
                    return o;
                }
            }
        }
        let include = self.sim_include.clone().or_else(|| {
            self.small
                .as_ref()
                .map(|p| p.toolchain.include.clone())
                .or_else(|| {
                    agenticcann_build::toolchain::sim::SimToolchain::from_env()
                        .ok()
                        .map(|t| t.include)
                })
        });
        match include {
            Some(dir) => match declarations(&dir, name) {
                Some(text) => ToolOutcome::text(format!(
                    "No API card names `{name}`; its declaration in the simulator's headers:\n{text}"
                )),
                None => ToolOutcome::text(format!(
                    "lookup_api: `{name}` is neither on an API card nor declared in the simulator's headers \
                     (it does not exist in this Ascend C API)"
                )),
            },
            None => ToolOutcome::text(format!(
                "lookup_api: no API card names `{name}` (the simulator's headers are not available)"
            )),
        }
    }
}

#[derive(Clone, Copy)]
enum Tool {
    Compile,
    RunTests,
    Submit,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Compile => "compile",
            Tool::RunTests => "run_tests",
            Tool::Submit => "submit",
        }
    }
}

fn blank_result(prepared: &Prepared, i: usize) -> ShapeResult {
    let s = &prepared.shapes[i];
    ShapeResult {
        dims: s.dims.clone(),
        origin: s.plan.origin.clone(),
        status: if s.empty {
            judge::ShapeStatus::SkippedEmpty
        } else {
            judge::ShapeStatus::NotRun
        },
        block_dim: 0,
        workspace_bytes: 0,
        outputs: Vec::new(),
        profile: None,
    }
}

/// The level of a chunk id (`L2.align32` → L2, `L5.softmax.kernel` → L5).
fn level_of(id: &str) -> Option<Level> {
    let n = id
        .strip_prefix('L')?
        .split('.')
        .next()?
        .parse::<i64>()
        .ok()?;
    Level::from_number(n)
}

/// Whether `text` contains `name` as a whole identifier.
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Declarations of `name` in the headers under `dir`: each line where the identifier is
/// declared (followed by `(`, `<`, `{` or `;`, or after `class`/`struct`/`enum`), with
/// the comment lines just above it; at most 12 declarations, 4000 characters.
fn declarations(dir: &Path, name: &str) -> Option<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "h") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = String::new();
    let mut found = 0;
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let rel = f.strip_prefix(dir).unwrap_or(&f).display().to_string();
        for (i, line) in lines.iter().enumerate() {
            if !is_declaration(line, name) {
                continue;
            }
            let mut start = i;
            while start > 0 && lines[start - 1].trim_start().starts_with("//") && i - start < 6 {
                start -= 1;
            }
            out.push_str(&format!("{rel}:{}:\n", i + 1));
            for l in &lines[start..=i.min(lines.len() - 1)] {
                out.push_str(l);
                out.push('\n');
            }
            // A declaration continued on the next lines (parameters).
            let mut j = i;
            while j + 1 < lines.len()
                && j - i < 4
                && !lines[j].contains(')')
                && lines[j].contains('(')
            {
                j += 1;
                out.push_str(lines[j]);
                out.push('\n');
            }
            found += 1;
            if found >= 12 || out.len() > 4000 {
                out.truncate(4000);
                return Some(out);
            }
        }
    }
    (found > 0).then_some(out)
}

fn is_declaration(line: &str, name: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("//") || t.starts_with('*') || t.starts_with("/*") || t.starts_with('#') {
        return false;
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (i, _) in line.match_indices(name) {
        let before = line[..i].chars().next_back();
        if before.is_some_and(ident) || before == Some('.') || before == Some('>') {
            continue;
        }
        let rest = line[i + name.len()..].trim_start();
        let Some(next) = rest.chars().next() else {
            continue;
        };
        if next.is_ascii_alphanumeric() || next == '_' {
            continue;
        }
        let head = line[..i].trim_end();
        let typed = head.ends_with("class")
            || head.ends_with("struct")
            || head.ends_with("enum")
            || head.ends_with("enum class");
        // `Type name(` with a return type before it: a function declaration or definition.
        let has_type = head.split_whitespace().last().is_some_and(|w| {
            w.chars()
                .last()
                .is_some_and(|c| ident(c) || c == '>' || c == '*' || c == '&')
        });
        if typed || (matches!(next, '(' | '<') && has_type) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_of_ids() {
        assert_eq!(level_of("L2.align32"), Some(Level::L2));
        assert_eq!(level_of("L5.softmax.kernel"), Some(Level::L5));
        assert_eq!(level_of("nope"), None);
    }

    #[test]
    fn mentions_whole_identifiers_only() {
        assert!(mentions("use DataCopyPad(dst", "DataCopyPad"));
        assert!(!mentions("use DataCopyPad(dst", "DataCopy"));
        assert!(mentions("DataCopy(x, y, n)", "DataCopy"));
    }

    #[test]
    fn declarations_are_recognized() {
        assert!(is_declaration(
            "inline void DataCopyPad(const LocalTensor<T>& dst,",
            "DataCopyPad"
        ));
        assert!(is_declaration("class TQue {", "TQue"));
        assert!(!is_declaration("  DataCopyPad(x, y, p);", "DataCopyPad"));
        assert!(!is_declaration("// DataCopyPad(x)", "DataCopyPad"));
    }
}
