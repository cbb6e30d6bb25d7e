//! The tool protocols as [`ChatModel`] wrappers, so the agent is protocol-agnostic: it always
//! sends `tools` and reads `tool_calls`.
//!
//! - [`TextProtocol`]: for servers and small models without function calling. The request's
//!   tools are described in the system prompt ([`tools_prompt`]); the model calls one tool
//!   by ending its answer with one fenced block
//!   ```` ```json {"tool": NAME, "arguments": {…}} ````; long string arguments (source
//!   files) may be fenced blocks labelled with a language and a file name
//!   (```` ```cpp kernel.cpp ````), the argument's value then being that file name.
//!   Earlier tool calls and results in the conversation are rewritten as text (a result
//!   becomes a user message), as such servers may reject the `tool` role.
//! - [`AutoProtocol`]: native first; switches to text for good when the server rejects
//!   `tools` (HTTP 400/422 whose body mentions tools) or its first answer to a request with
//!   tools has no calls (a chat template that drops `tools` does that silently). The tokens
//!   of a native answer discarded by the switch are added to the text answer's usage, so
//!   the sums still equal the server's.
//!
//! Stack a [`super::record::Recorder`] *inside* these wrappers (`Auto(Recorder(client))`) so
//! recordings hold the requests as sent; replay then reproduces the switch as well.

use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::{Map, Value};

use super::types::{
    AssistantMessage, ChatRequest, ChatResponse, FinishReason, Message, ToolCall, ToolChoice,
    ToolSpec,
};
use super::{excerpt, ChatModel, LlmError, ProtocolError, ToolProtocol};

/// A fenced block of an answer: its info string's language and file name, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FencedBlock {
    /// The first word of the info string (`cpp`, `json`; empty when none), lower-case.
    pub lang: String,
    /// The second word of the info string (`kernel.cpp`), when given.
    pub file: Option<String>,
    /// The text between the fences (ending in a newline unless empty).
    pub text: String,
    /// False when the answer ended before the closing fence (a cut answer).
    pub closed: bool,
    /// 1-based line of the opening fence in the text (so a caller can read the line before
    /// it, e.g. a file name written above the block).
    pub line: usize,
}

/// A text-protocol answer taken apart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextAnswer {
    /// The tool called and its arguments (file names already replaced by file contents).
    pub call: Option<(String, Value)>,
    /// The blocks labelled with a file name, in order.
    pub files: Vec<FencedBlock>,
}

/// Every fenced block of `text` (CommonMark-style backtick fences of 3 or more, indented by
/// at most 3 spaces; the closing fence has at least as many backticks).
pub fn fenced_blocks(text: &str) -> Vec<FencedBlock> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Option<String>, String, usize)> = None;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let indent = bare.len() - bare.trim_start_matches(' ').len();
        let t = &bare[indent..];
        let ticks = t.len() - t.trim_start_matches('`').len();
        match &mut open {
            None => {
                if indent <= 3 && ticks >= 3 {
                    let info = t[ticks..].trim();
                    let mut words = info.split_whitespace();
                    let lang = words.next().unwrap_or("").to_ascii_lowercase();
                    let file = words.next().map(str::to_string);
                    open = Some((ticks, lang, file, String::new(), number + 1));
                }
            }
            Some((n, _, _, body, _)) => {
                if indent <= 3 && ticks >= *n && t[ticks..].trim().is_empty() {
                    let (_, lang, file, text, line) = open.take().unwrap_or_default();
                    out.push(FencedBlock {
                        lang,
                        file,
                        text,
                        closed: true,
                        line,
                    });
                } else {
                    body.push_str(bare);
                    body.push('\n');
                }
            }
        }
    }
    if let Some((_, lang, file, text, line)) = open {
        out.push(FencedBlock {
            lang,
            file,
            text,
            closed: false,
            line,
        });
    }
    out
}

/// Takes a text-protocol answer apart. A tool block is an unlabelled-file `json` block (or,
/// leniently, an answer that is nothing but a JSON object) holding
/// `{"tool": NAME, "arguments": {…}}` (`"name"` is accepted for `"tool"`). Errors: more than
/// one tool block, a `json` block that does not parse, a call without a tool name or with
/// arguments that are not an object.
pub fn parse_text_answer(text: &str) -> Result<TextAnswer, ProtocolError> {
    let blocks = fenced_blocks(text);
    let files: Vec<FencedBlock> = blocks
        .iter()
        .filter(|b| b.file.is_some())
        .cloned()
        .collect();
    // `json` blocks without a file name are tool blocks; an unlabelled block (or an answer
    // that is nothing but JSON) counts only when it parses as an object naming a tool.
    let names_a_tool = |t: &str| {
        serde_json::from_str::<Value>(t.trim()).is_ok_and(|v| {
            v.get("tool")
                .or_else(|| v.get("name"))
                .is_some_and(Value::is_string)
        })
    };
    let mut candidates: Vec<&str> = blocks
        .iter()
        .filter(|b| b.file.is_none())
        .filter(|b| b.lang == "json" || (b.lang.is_empty() && names_a_tool(&b.text)))
        .map(|b| b.text.as_str())
        .collect();
    let trimmed = text.trim();
    if blocks.is_empty() && trimmed.starts_with('{') && names_a_tool(trimmed) {
        candidates.push(trimmed);
    }
    let mut calls = Vec::new();
    for c in candidates {
        let v: Value = serde_json::from_str(c.trim()).map_err(|e| ProtocolError::BadToolBlock {
            detail: format!("not JSON ({e})"),
            excerpt: excerpt(c.trim()),
        })?;
        let Some(obj) = v.as_object() else {
            return Err(ProtocolError::BadToolBlock {
                detail: "not a JSON object".into(),
                excerpt: excerpt(c.trim()),
            });
        };
        let name = obj
            .get("tool")
            .or_else(|| obj.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| ProtocolError::BadToolBlock {
                detail: "no string field `tool`".into(),
                excerpt: excerpt(c.trim()),
            })?;
        let args = match obj.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::Object(m)) => Value::Object(m.clone()),
            // A JSON text inside a string, as the native wire format carries it.
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(m)) => Value::Object(m),
                _ => {
                    return Err(ProtocolError::BadToolBlock {
                        detail: "`arguments` is not an object".into(),
                        excerpt: excerpt(c.trim()),
                    })
                }
            },
            Some(_) => {
                return Err(ProtocolError::BadToolBlock {
                    detail: "`arguments` is not an object".into(),
                    excerpt: excerpt(c.trim()),
                })
            }
        };
        calls.push((name.to_string(), args));
    }
    if calls.len() > 1 {
        return Err(ProtocolError::SeveralToolBlocks { count: calls.len() });
    }
    let call = calls.pop().map(|(name, mut args)| {
        if let Value::Object(m) = &mut args {
            for v in m.values_mut() {
                if let Value::String(s) = v {
                    if let Some(f) = files.iter().find(|f| f.file.as_deref() == Some(s.trim())) {
                        *v = Value::String(f.text.clone());
                    }
                }
            }
        }
        (name, args)
    });
    Ok(TextAnswer { call, files })
}

/// The system-prompt section that describes `tools` and the text calling convention.
pub fn tools_prompt(tools: &[ToolSpec]) -> String {
    let mut s = String::from(
        "## Tools\n\n\
         You can call one tool per answer. To call a tool, end your answer with exactly one \
         fenced block labelled json that holds the tool's name and its arguments:\n\n\
         ```json\n{\"tool\": \"NAME\", \"arguments\": {\"ARGUMENT\": \"VALUE\"}}\n```\n\n\
         Put long text arguments, such as source files, in their own fenced blocks labelled \
         with a language and a file name (for example ```cpp kernel.cpp) and give the file \
         name as the argument's value. The tool's result comes back in the next message. \
         An answer without a json block ends your turn.\n\nThe tools:\n",
    );
    for t in tools {
        s.push_str(&format!(
            "\n### {}\n\n{}\n\nArguments (JSON Schema): {}\n",
            t.name,
            t.description.trim(),
            t.parameters
        ));
    }
    if let Some(t) = tools.first() {
        // One concrete call (small models copy examples far better than they follow rules).
        let arg = t
            .parameters
            .get("properties")
            .and_then(Value::as_object)
            .and_then(|p| {
                p.iter()
                    .find(|(_, v)| v.get("type").and_then(Value::as_str) == Some("string"))
            })
            .map(|(k, _)| k.clone());
        s.push_str(&format!("\nFor example, a call of `{}`:\n\n", t.name));
        match arg {
            Some(a) => s.push_str(&format!(
                "```text {a}.txt\nthe text of {a}\n```\n\n```json\n{{\"tool\": {}, \"arguments\": {{{}: \"{a}.txt\"}}}}\n```\n",
                Value::String(t.name.clone()),
                Value::String(a.clone())
            )),
            None => s.push_str(&format!(
                "```json\n{{\"tool\": {}, \"arguments\": {{}}}}\n```\n",
                Value::String(t.name.clone())
            )),
        }
    }
    s
}

/// `req` rewritten for the text protocol: tools in the system prompt, no `tools` field, tool
/// calls and results in the history as text.
pub fn to_text_request(req: &ChatRequest) -> ChatRequest {
    let mut out = req.clone();
    out.tools.clear();
    out.tool_choice = None;
    let mut section = tools_prompt(&req.tools);
    match &req.tool_choice {
        Some(ToolChoice::Required) => section.push_str("\nThis answer must call a tool.\n"),
        Some(ToolChoice::Named(n)) => {
            section.push_str(&format!("\nThis answer must call the tool `{n}`.\n"))
        }
        Some(ToolChoice::None) => section.push_str("\nDo not call a tool in this answer.\n"),
        _ => {}
    }
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    let mut names: Vec<(String, String)> = Vec::new();
    let mut system_done = req.tools.is_empty();
    for m in &req.messages {
        match m {
            Message::System { content } if !system_done => {
                messages.push(Message::system(format!(
                    "{}\n\n{section}",
                    content.trim_end()
                )));
                system_done = true;
            }
            Message::Assistant(a) if !a.tool_calls.is_empty() => {
                for c in &a.tool_calls {
                    names.push((c.id.clone(), c.name.clone()));
                }
                let text = match a.content.as_deref() {
                    Some(t) if !t.trim().is_empty() => t.to_string(),
                    _ => a
                        .tool_calls
                        .iter()
                        .map(|c| {
                            let args = c
                                .arguments_json()
                                .unwrap_or(Value::String(c.arguments.clone()));
                            format!(
                                "```json\n{{\"tool\": {}, \"arguments\": {}}}\n```",
                                Value::String(c.name.clone()),
                                args
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                };
                messages.push(Message::assistant(text));
            }
            Message::Assistant(a) => messages.push(Message::Assistant(AssistantMessage {
                content: a.content.clone(),
                tool_calls: Vec::new(),
                reasoning_content: None,
            })),
            Message::Tool {
                tool_call_id,
                content,
            } => {
                let name = names
                    .iter()
                    .rev()
                    .find(|(id, _)| id == tool_call_id)
                    .map_or("the tool", |(_, n)| n.as_str());
                messages.push(Message::user(format!("Result of `{name}`:\n\n{content}")));
            }
            other => messages.push(other.clone()),
        }
    }
    if !system_done {
        messages.insert(0, Message::system(section));
    }
    out.messages = messages;
    out
}

/// The call id of a text-protocol call: `call_text_<n>`, n = 1 + the number of assistant
/// turns before it (deterministic, so replays match).
fn text_call_id(req: &ChatRequest) -> String {
    let n = req
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Assistant(_)))
        .count();
    format!("call_text_{}", n + 1)
}

/// `resp` to the text request made from `req`, with its tool block turned into a call.
fn from_text_response(req: &ChatRequest, mut resp: ChatResponse) -> Result<ChatResponse, LlmError> {
    if req.tools.is_empty() {
        return Ok(resp);
    }
    let content = resp.message.content.clone().unwrap_or_default();
    let answer = parse_text_answer(&content).map_err(|e| LlmError::protocol(e, resp.usage))?;
    if let Some((name, args)) = answer.call {
        resp.message.tool_calls = vec![ToolCall::new(text_call_id(req), name, &args)];
        resp.finish_reason = FinishReason::ToolCalls;
    }
    Ok(resp)
}

/// The text protocol over any [`ChatModel`].
#[derive(Debug)]
pub struct TextProtocol<M> {
    inner: M,
}

impl<M: ChatModel> TextProtocol<M> {
    /// Wraps `inner`.
    pub fn new(inner: M) -> Self {
        TextProtocol { inner }
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.inner
    }
}

impl<M: ChatModel> ChatModel for TextProtocol<M> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let resp = self.inner.chat(&to_text_request(req))?;
        from_text_response(req, resp)
    }

    fn describe(&self) -> String {
        format!("{} [text tool protocol]", self.inner.describe())
    }
}

/// The native protocol: the request as is (a pass-through, for symmetry).
#[derive(Debug)]
pub struct NativeProtocol<M> {
    inner: M,
}

impl<M: ChatModel> NativeProtocol<M> {
    /// Wraps `inner`.
    pub fn new(inner: M) -> Self {
        NativeProtocol { inner }
    }
}

impl<M: ChatModel> ChatModel for NativeProtocol<M> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.inner.chat(req)
    }

    fn describe(&self) -> String {
        format!("{} [native tool protocol]", self.inner.describe())
    }
}

const UNDECIDED: u8 = 0;
const NATIVE: u8 = 1;
const TEXT: u8 = 2;

/// Native first, text once the server shows it cannot do tools (see the module docs).
///
/// While undecided, calls with tools run one at a time, so parallel callers see one
/// decision (and a replay of a parallel run meets the same requests).
#[derive(Debug)]
pub struct AutoProtocol<M> {
    inner: M,
    mode: AtomicU8,
    deciding: std::sync::Mutex<()>,
}

impl<M: ChatModel> AutoProtocol<M> {
    /// Wraps `inner`, undecided.
    pub fn new(inner: M) -> Self {
        AutoProtocol {
            inner,
            mode: AtomicU8::new(UNDECIDED),
            deciding: std::sync::Mutex::new(()),
        }
    }

    /// The protocol chosen so far (`None` before the first request with tools).
    pub fn decided(&self) -> Option<ToolProtocol> {
        match self.mode.load(Ordering::SeqCst) {
            NATIVE => Some(ToolProtocol::Native),
            TEXT => Some(ToolProtocol::Text),
            _ => None,
        }
    }

    fn text(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.mode.store(TEXT, Ordering::SeqCst);
        let resp = self.inner.chat(&to_text_request(req))?;
        from_text_response(req, resp)
    }
}

/// Whether an HTTP error says the server does not take `tools` / `tool_choice`.
fn rejects_tools(e: &LlmError) -> bool {
    match e {
        LlmError::Rejected {
            status: 400 | 422,
            body,
            ..
        } => {
            let b = body.to_ascii_lowercase();
            b.contains("tool") || b.contains("function")
        }
        _ => false,
    }
}

impl<M: ChatModel> ChatModel for AutoProtocol<M> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mode = self.mode.load(Ordering::SeqCst);
        if mode == TEXT {
            return self.text(req);
        }
        if req.tools.is_empty() || mode == NATIVE {
            return self.inner.chat(req);
        }
        let _one_at_a_time = self.deciding.lock().unwrap_or_else(|p| p.into_inner());
        match self.mode.load(Ordering::SeqCst) {
            TEXT => return self.text(req),
            NATIVE => return self.inner.chat(req),
            _ => {}
        }
        match self.inner.chat(req) {
            Err(e) if rejects_tools(&e) => self.text(req),
            Err(e) => Err(e),
            Ok(r) if !r.message.tool_calls.is_empty() => {
                self.mode.store(NATIVE, Ordering::SeqCst);
                Ok(r)
            }
            Ok(r) if req.tool_choice == Some(ToolChoice::None) => Ok(r),
            Ok(r) => {
                // No calls: maybe the model already wrote a text-protocol block.
                let content = r.message.content.clone().unwrap_or_default();
                if let Ok(TextAnswer { call: Some(_), .. }) = parse_text_answer(&content) {
                    self.mode.store(TEXT, Ordering::SeqCst);
                    return from_text_response(req, r);
                }
                let spent = r.usage;
                match self.text(req) {
                    Ok(mut t) => {
                        t.usage += spent;
                        Ok(t)
                    }
                    Err(LlmError::Protocol { error, usage }) => Err(LlmError::Protocol {
                        error,
                        usage: usage + spent,
                    }),
                    Err(e) => Err(e),
                }
            }
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} [auto tool protocol{}]",
            self.inner.describe(),
            self.decided().map_or(String::new(), |p| format!(": {p}"))
        )
    }
}

/// `inner` behind the wrapper `protocol` names, boxed.
pub fn with_protocol<'a, M: ChatModel + 'a>(
    inner: M,
    protocol: ToolProtocol,
) -> Box<dyn ChatModel + 'a> {
    match protocol {
        ToolProtocol::Native => Box::new(NativeProtocol::new(inner)),
        ToolProtocol::Text => Box::new(TextProtocol::new(inner)),
        ToolProtocol::Auto => Box::new(AutoProtocol::new(inner)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_a_call_with_a_file() {
        let a = "I'll compile it.\n\n```cpp kernel.cpp\n#include \"kernel_operator.h\"\nint x;\n```\n\n```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\": \"kernel.cpp\", \"n\": 3}}\n```\n";
        let t = parse_text_answer(a).unwrap();
        let (name, args) = t.call.unwrap();
        assert_eq!(name, "compile");
        assert_eq!(
            args,
            json!({"kernel": "#include \"kernel_operator.h\"\nint x;\n", "n": 3})
        );
        assert_eq!(t.files.len(), 1);
        assert_eq!(t.files[0].lang, "cpp");
        assert_eq!(t.files[0].file.as_deref(), Some("kernel.cpp"));
    }

    #[test]
    fn no_block_is_no_call_and_bad_blocks_are_errors() {
        assert_eq!(parse_text_answer("All done.").unwrap().call, None);
        let e = parse_text_answer("```json\n{\"tool\": \"x\",\n```").unwrap_err();
        assert!(matches!(e, ProtocolError::BadToolBlock { .. }), "{e}");
        let e = parse_text_answer("```json\n{\"arguments\": {}}\n```").unwrap_err();
        assert!(e.to_string().contains("`tool`"), "{e}");
        let two = "```json\n{\"tool\": \"a\"}\n```\n```json\n{\"tool\": \"b\"}\n```";
        assert_eq!(
            parse_text_answer(two).unwrap_err(),
            ProtocolError::SeveralToolBlocks { count: 2 }
        );
        let bare = parse_text_answer("{\"name\": \"submit\", \"arguments\": {}}").unwrap();
        assert_eq!(bare.call.unwrap().0, "submit");
    }

    #[test]
    fn longer_fences_and_unclosed_blocks() {
        let b = fenced_blocks("````md notes.md\n```json\n{}\n```\n````\n```cpp k.cpp\nint");
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].text, "```json\n{}\n```\n");
        assert!(b[0].closed && !b[1].closed);
        assert_eq!((b[0].line, b[1].line), (1, 6));
    }

    #[test]
    fn the_prompt_example_parses_as_a_call() {
        let tools = [ToolSpec {
            name: "compile".into(),
            description: "Compiles.".into(),
            parameters: json!({"type": "object", "properties": {"kernel": {"type": "string"}}}),
        }];
        let p = tools_prompt(&tools);
        let example = &p[p.find("For example").unwrap()..];
        let (name, args) = parse_text_answer(example).unwrap().call.unwrap();
        assert_eq!(name, "compile");
        assert_eq!(args, json!({"kernel": "the text of kernel\n"}));
    }

    #[test]
    fn history_becomes_text() {
        let mut req = ChatRequest::new(
            "m",
            vec![
                Message::system("You write kernels."),
                Message::user("go"),
                Message::Assistant(AssistantMessage {
                    content: None,
                    tool_calls: vec![ToolCall::new("c9", "compile", &json!({"kernel": "k"}))],
                    reasoning_content: None,
                }),
                Message::tool("c9", "error: line 3"),
            ],
        );
        req.tools.push(ToolSpec {
            name: "compile".into(),
            description: "Compiles.".into(),
            parameters: json!({"type": "object"}),
        });
        req.tool_choice = Some(ToolChoice::Required);
        let t = to_text_request(&req);
        assert!(t.tools.is_empty() && t.tool_choice.is_none());
        let sys = t.messages[0].text().unwrap();
        assert!(sys.starts_with("You write kernels.") && sys.contains("### compile"));
        assert!(sys.contains("must call a tool"));
        assert_eq!(
            t.messages[2].text().unwrap(),
            "```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\":\"k\"}}\n```"
        );
        assert_eq!(
            t.messages[3],
            Message::user("Result of `compile`:\n\nerror: line 3")
        );
        assert_eq!(text_call_id(&req), "call_text_2");
    }
}
