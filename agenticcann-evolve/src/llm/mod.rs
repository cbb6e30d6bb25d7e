//! The LLM client: OpenAI-compatible chat completions with tools, over blocking `reqwest`
//! (`../shared/DESIGN.md` §8, issue 15).
//!
//! - [`types`]: the messages, tool specs, tool calls, requests, responses and usage (their
//!   serde form is the wire format).
//! - [`ChatModel`]: the one interface the agent talks to. Implementations: the HTTP client,
//!   the tool-protocol wrappers, the recorder and the replayer, stacked as needed.
//! - [`LlmError`]: every way a call fails, each naming what went wrong. Errors are plain data
//!   (`Clone`, serde) so a recording can store them and a replay return the same error.
//!
//! - [`client`]: [`LlmClient`], the HTTP client (timeouts, retries, concurrency limit).
//! - [`settings`]: flags > environment > workspace metadata > DeepSeek defaults.
//! - [`protocol`]: the `native`, `text` and `auto` tool protocols as wrappers.
//! - [`accounting`]: usage estimates and the [`Ledger`] by phase and candidate.
//! - [`record`]: the [`Recorder`] and [`Replayer`] of every exchange.
//! - [`testing`]: a scripted OpenAI-compatible server for tests.
//!
//! A run stacks them as `protocol(Recorder(LlmClient))` (or `protocol(Replayer)` for
//! `--replay`), so recordings hold the requests exactly as sent.
//!
//! The API key never appears in a `Debug`/`Display` form, an error or a recording.

pub mod accounting;
pub mod client;
pub mod protocol;
pub mod record;
pub mod settings;
pub mod testing;
pub mod types;

pub use accounting::Ledger;
pub use client::{ClientOptions, LlmClient};
pub use protocol::{with_protocol, AutoProtocol, NativeProtocol, TextProtocol};
pub use record::{Recorder, Replayer, Resume};
pub use settings::{resolve, Flags, Metadata, Settings};

use serde::{Deserialize, Serialize};
pub use types::{
    AssistantMessage, ChatRequest, ChatResponse, FinishReason, Message, ToolCall, ToolChoice,
    ToolSpec, Usage,
};

/// The model a run talks to: an [`LlmClient`] for `settings`, recorded into `record_dir`
/// when given, behind the tool protocol of `settings` (`protocol(Recorder(client))`).
pub fn open(
    settings: &Settings,
    record_dir: Option<&std::path::Path>,
) -> Result<Box<dyn ChatModel>, LlmError> {
    let client = LlmClient::from_settings(settings)?;
    Ok(match record_dir {
        Some(dir) => with_protocol(Recorder::new(client, dir)?, settings.tool_protocol),
        None => with_protocol(client, settings.tool_protocol),
    })
}

/// The model of a run that may be resuming: as [`open`] with `record_dir`, but the answers
/// already recorded there are served first ([`Resume`]), so running an interrupted command
/// again asks the endpoint only what the first run did not get an answer to. Returns the model
/// and how many recorded answers it will serve first (0: a fresh run).
pub fn open_resumable(
    settings: &Settings,
    record_dir: &std::path::Path,
) -> Result<(Box<dyn ChatModel>, usize), LlmError> {
    let client = LlmClient::from_settings(settings)?;
    let resume = Resume::new(client, record_dir)?;
    let recorded = resume.remaining();
    Ok((with_protocol(resume, settings.tool_protocol), recorded))
}

/// The model of `--replay DIR`: the recording in `dir` (no network) behind `protocol`, which
/// must be the protocol of the recorded run for its requests to match.
pub fn open_replay(
    dir: &std::path::Path,
    protocol: ToolProtocol,
) -> Result<Box<dyn ChatModel>, LlmError> {
    Ok(with_protocol(Replayer::open(dir)?, protocol))
}

/// A chat model: one request in, the model's answer (or why there is none) out.
///
/// Implementations are thread-safe so candidates can run in parallel against one client
/// (the HTTP client limits its own concurrency).
pub trait ChatModel: Send + Sync {
    /// Sends `req` and returns the first choice of the answer.
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError>;

    /// A one-line description for logs and manifests (endpoint and model; never a key).
    fn describe(&self) -> String {
        "chat model".to_string()
    }
}

impl<T: ChatModel + ?Sized> ChatModel for &T {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).chat(req)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}

impl<T: ChatModel + ?Sized> ChatModel for Box<T> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).chat(req)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}

impl<T: ChatModel + ?Sized> ChatModel for std::sync::Arc<T> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).chat(req)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}

/// How tools reach the model (`--tool-protocol`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolProtocol {
    /// Native first; falls back to [`Text`](Self::Text) when the server rejects `tools` or
    /// answers a tool request without calls.
    #[default]
    Auto,
    /// The `tools` request field and `tool_calls` in responses.
    Native,
    /// Tools described in the prompt; a call is one fenced ```` ```json ```` block
    /// `{"tool": NAME, "arguments": {…}}`; files are fenced blocks labelled with their name.
    Text,
}

impl std::str::FromStr for ToolProtocol {
    type Err = LlmError;
    fn from_str(s: &str) -> Result<Self, LlmError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ToolProtocol::Auto),
            "native" => Ok(ToolProtocol::Native),
            "text" => Ok(ToolProtocol::Text),
            other => Err(LlmError::Config(format!(
                "tool protocol `{other}` is not one of auto, native, text"
            ))),
        }
    }
}

impl std::fmt::Display for ToolProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ToolProtocol::Auto => "auto",
            ToolProtocol::Native => "native",
            ToolProtocol::Text => "text",
        })
    }
}

/// Everything that can go wrong in a call. Each variant names the endpoint or the part that
/// failed; none carries a credential.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum LlmError {
    /// The TCP/TLS connection failed (refused, DNS, TLS).
    #[error("cannot connect to {url}: {detail}")]
    Connect {
        /// The URL requested.
        url: String,
        /// The transport's message.
        detail: String,
    },
    /// No (complete) answer within the timeout.
    #[error("no answer from {url} within {after_ms} ms ({stage} timeout)")]
    Timeout {
        /// The URL requested.
        url: String,
        /// The timeout that expired, in milliseconds.
        after_ms: u64,
        /// `connect` or `read`.
        stage: String,
    },
    /// An HTTP status that is retried (408, 409, 429, 5xx), as the last attempt saw it.
    #[error("{url} answered HTTP {status}: {body}")]
    Status {
        /// The URL requested.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// An HTTP status that is never retried (400, 401, 403, 404 and other 4xx).
    #[error("{url} answered HTTP {status} {meaning} (not retried): {body}")]
    Rejected {
        /// The URL requested.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// What the status means here (`Unauthorized: the API key is missing or wrong`, …).
        meaning: String,
        /// The start of the response body.
        body: String,
    },
    /// The body is not a chat-completions response (not JSON, no `choices`, wrong types).
    #[error("malformed response from {url}: {detail}; body starts: {excerpt}")]
    Malformed {
        /// The URL requested.
        url: String,
        /// What was wrong.
        detail: String,
        /// The start of the body.
        excerpt: String,
    },
    /// The body ended before its declared length (connection closed mid-answer).
    #[error("truncated response from {url}: {detail}")]
    Truncated {
        /// The URL requested.
        url: String,
        /// How much arrived of how much was declared, or the transport's message.
        detail: String,
    },
    /// Retries ran out; `last` is the final attempt's error.
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp {
        /// Attempts made (including the first).
        attempts: u32,
        /// The last attempt's error.
        last: Box<LlmError>,
    },
    /// A remote endpoint and no key in any of the variables.
    #[error("no API key for the remote endpoint {base_url}: set {} (localhost endpoints need none)", .vars.join(" or "))]
    MissingApiKey {
        /// The endpoint.
        base_url: String,
        /// The variables looked at, in order.
        vars: Vec<String>,
    },
    /// Bad settings (a base URL that does not parse, an unknown tool protocol, …).
    #[error("LLM settings: {0}")]
    Config(String),
    /// The answer arrived but breaks the tool protocol (bad tool block, bad arguments).
    /// `usage` holds the tokens the call still cost.
    #[error("{error}")]
    Protocol {
        /// What was wrong.
        error: ProtocolError,
        /// Tokens of the call that produced the bad answer.
        #[serde(default)]
        usage: Usage,
    },
    /// Replay: the request is not in the recording.
    #[error(
        "request {hash} is not in the recording {dir}; closest recorded request {closest}:\n{diff}"
    )]
    NotRecorded {
        /// The request's hash.
        hash: String,
        /// The recording folder.
        dir: String,
        /// The closest recorded request's hash (`none` when the recording is empty).
        closest: String,
        /// A line diff of the canonical requests (`-` recorded, `+` this request).
        diff: String,
    },
    /// Reading or writing a recording failed.
    #[error("recording {path}: {detail}")]
    Recording {
        /// The file or folder.
        path: String,
        /// What failed.
        detail: String,
    },
}

impl LlmError {
    /// A protocol error of a call that cost `usage`.
    pub fn protocol(error: ProtocolError, usage: Usage) -> LlmError {
        LlmError::Protocol { error, usage }
    }

    /// The tokens this failed call still cost (non-zero only for [`LlmError::Protocol`]).
    pub fn usage(&self) -> Usage {
        match self {
            LlmError::Protocol { usage, .. } => *usage,
            LlmError::GaveUp { last, .. } => last.usage(),
            _ => Usage::default(),
        }
    }

    /// The HTTP status behind this error, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Status { status, .. } | LlmError::Rejected { status, .. } => Some(*status),
            LlmError::GaveUp { last, .. } => last.status(),
            _ => None,
        }
    }
}

/// An answer that breaks the tool protocol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProtocolError {
    /// A tool call's `arguments` is not JSON (or not an object).
    #[error(
        "arguments of the `{tool}` call are not a JSON object: {detail}; they start: {excerpt}"
    )]
    BadArguments {
        /// The tool called.
        tool: String,
        /// The parse error.
        detail: String,
        /// The start of the arguments.
        excerpt: String,
    },
    /// Text protocol: the fenced `json` block is not `{"tool": NAME, "arguments": {…}}`.
    #[error("the tool block is not {{\"tool\": NAME, \"arguments\": {{...}}}}: {detail}; it starts: {excerpt}")]
    BadToolBlock {
        /// What was wrong.
        detail: String,
        /// The start of the block.
        excerpt: String,
    },
    /// Text protocol: more than one tool block in one answer (one call per turn).
    #[error("the answer has {count} ```json tool blocks; send exactly one per turn")]
    SeveralToolBlocks {
        /// Blocks found.
        count: usize,
    },
    /// A call of a tool that was not offered.
    #[error("the model called `{name}`, which is not one of the tools offered ({offered})")]
    UnknownTool {
        /// The name called.
        name: String,
        /// The tools offered, comma-separated.
        offered: String,
    },
    /// A tool request (`tool_choice` required or named) answered without any call.
    #[error("the model answered without a tool call although one was required")]
    NoToolCall,
}

/// At most the first 300 characters of `s` (cut at a character boundary), with `…` when cut;
/// for error messages that quote a body.
pub fn excerpt(s: &str) -> String {
    const MAX: usize = 300;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_round_trip_through_json() {
        let e = LlmError::GaveUp {
            attempts: 3,
            last: Box::new(LlmError::Status {
                url: "http://h/chat/completions".into(),
                status: 503,
                body: "busy".into(),
            }),
        };
        let j = serde_json::to_string(&e).unwrap();
        let back: LlmError = serde_json::from_str(&j).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.status(), Some(503));
        assert!(e.to_string().contains("HTTP 503"), "{e}");
        let p = LlmError::protocol(
            ProtocolError::SeveralToolBlocks { count: 2 },
            Usage {
                prompt: 5,
                ..Usage::default()
            },
        );
        let back: LlmError = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back.usage().prompt, 5);
    }

    #[test]
    fn missing_key_names_the_variables() {
        let e = LlmError::MissingApiKey {
            base_url: "https://api.deepseek.com".into(),
            vars: vec!["AGENTICCANN_LLM_API_KEY".into(), "DEEPSEEK_API_KEY".into()],
        };
        let s = e.to_string();
        assert!(
            s.contains("AGENTICCANN_LLM_API_KEY or DEEPSEEK_API_KEY"),
            "{s}"
        );
    }

    #[test]
    fn excerpt_cuts_at_char_boundaries() {
        let s = "é".repeat(400);
        let e = excerpt(&s);
        assert_eq!(e.chars().count(), 301);
        assert_eq!(excerpt("short"), "short");
    }

    #[test]
    fn tool_protocol_parses() {
        assert_eq!("TEXT".parse::<ToolProtocol>().unwrap(), ToolProtocol::Text);
        assert!("json"
            .parse::<ToolProtocol>()
            .unwrap_err()
            .to_string()
            .contains("json"));
    }
}
