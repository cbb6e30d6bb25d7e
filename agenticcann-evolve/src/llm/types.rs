//! The chat-completions data model: messages, tool specs and calls, requests, responses and
//! token usage.
//!
//! The serde form of every type here is the OpenAI chat-completions wire format
//! (<https://platform.openai.com/docs/api-reference/chat/create>), which DeepSeek, vLLM,
//! llama.cpp's `llama-server` and Ollama's `/v1` endpoint accept too. So a [`ChatRequest`]
//! serializes to the request body as is (the client adds `"stream": false`), and the same
//! JSON is what recordings hash ([`super::record`]).
//!
//! Tool calls keep their `arguments` as the JSON *text* the model produced (the wire format
//! carries it as a string, and a model may send text that is not JSON); parse it with
//! [`ToolCall::arguments_json`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a conversation, tagged by its `role`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// The model's instructions (role, rules).
    System {
        /// The text.
        content: String,
    },
    /// The user's (here: the agent's) turn.
    User {
        /// The text.
        content: String,
    },
    /// The model's turn: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The result of one tool call, answering the call with id `tool_call_id`.
    Tool {
        /// The [`ToolCall::id`] this answers.
        tool_call_id: String,
        /// The tool's result, as text for the model.
        content: String,
    },
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message::Assistant(AssistantMessage {
            content: Some(content.into()),
            ..AssistantMessage::default()
        })
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message::Tool {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
        }
    }

    /// The role's wire name: `system`, `user`, `assistant` or `tool`.
    pub fn role(&self) -> &'static str {
        match self {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool { .. } => "tool",
        }
    }

    /// The message's text (`None` for an assistant turn with tool calls only).
    pub fn text(&self) -> Option<&str> {
        match self {
            Message::System { content }
            | Message::User { content }
            | Message::Tool { content, .. } => Some(content),
            Message::Assistant(a) => a.content.as_deref(),
        }
    }
}

/// The model's turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The text of the answer; `None` (JSON `null`) when the model only called tools.
    #[serde(default)]
    pub content: Option<String>,
    /// The tool calls, in the order the model made them (empty: none; JSON `null` reads as
    /// none).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_empty"
    )]
    pub tool_calls: Vec<ToolCall>,
    /// The reasoning text of reasoning models (DeepSeek's `reasoning_content`), when sent.
    /// Kept in recordings, but [`super::LlmClient`] leaves it out of the request body it
    /// sends (DeepSeek rejects it in input messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
    Ok(Option::<Vec<ToolCall>>::deserialize(d)?.unwrap_or_default())
}

/// A tool the model may call, described by a JSON Schema of its arguments.
///
/// Wire form: `{"type": "function", "function": {"name", "description", "parameters"}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "wire::ToolSpec", into = "wire::ToolSpec")]
pub struct ToolSpec {
    /// The function name the model calls (`compile`, `run_tests`, …).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// A JSON Schema object of the arguments (`{"type": "object", "properties": …}`).
    pub parameters: Value,
}

/// One call of a tool by the model.
///
/// Wire form: `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "wire::ToolCall", into = "wire::ToolCall")]
pub struct ToolCall {
    /// The call's id, echoed by the [`Message::Tool`] that answers it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the JSON text the model sent (possibly not valid JSON).
    pub arguments: String,
}

impl ToolCall {
    /// A call of `name` with `arguments` (serialized compactly).
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: &Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }

    /// The arguments parsed as JSON; an error naming the tool and the parse failure when
    /// the model sent text that is not a JSON value. An empty string means `{}`.
    pub fn arguments_json(&self) -> Result<Value, super::LlmError> {
        if self.arguments.trim().is_empty() {
            return Ok(Value::Object(Default::default()));
        }
        serde_json::from_str(&self.arguments).map_err(|e| {
            super::LlmError::protocol(
                super::ProtocolError::BadArguments {
                    tool: self.name.clone(),
                    detail: e.to_string(),
                    excerpt: super::excerpt(&self.arguments),
                },
                Usage::default(),
            )
        })
    }
}

/// Which tool the model must call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "wire::ToolChoice", into = "wire::ToolChoice")]
pub enum ToolChoice {
    /// The model decides (`"auto"`).
    Auto,
    /// No tool calls (`"none"`).
    None,
    /// At least one tool call (`"required"`).
    Required,
    /// This tool (`{"type": "function", "function": {"name": …}}`).
    Named(String),
}

/// One chat-completions request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model name the server knows (`deepseek-chat`, `gpt-4o`, …).
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools offered (empty: none; the field is then omitted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// The tool choice; omitted when `None` (the server's default, `auto` with tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Sampling temperature (0 = greedy); omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The answer's token limit; omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The sampling seed (servers that support it are then reproducible); omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl ChatRequest {
    /// A request for `model` with `messages`, no tools and server defaults otherwise.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            model: model.into(),
            messages,
            tools: Vec::new(),
            tool_choice: None,
            temperature: None,
            max_tokens: None,
            seed: None,
        }
    }

    /// The canonical JSON of the request: its serde form with object keys sorted, compact.
    /// Requests carry no credentials (the key lives in the client), so this is what
    /// recordings hash and store.
    pub fn canonical_json(&self) -> String {
        // `canonical` sorts keys itself, whether or not serde_json's `preserve_order` is on.
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        canonical(&v)
    }
}

/// `v` as compact JSON with every object's keys sorted (recursively).
pub fn canonical(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sort(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

/// Why the model stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FinishReason {
    /// A natural end (`"stop"`).
    Stop,
    /// The token limit cut the answer (`"length"`).
    Length,
    /// The model called tools (`"tool_calls"`, also the legacy `"function_call"`).
    ToolCalls,
    /// A content filter removed the answer (`"content_filter"`).
    ContentFilter,
    /// Any other value the server sent (kept verbatim; empty when absent).
    Other(String),
}

impl From<String> for FinishReason {
    fn from(s: String) -> FinishReason {
        match s.as_str() {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "content_filter" => FinishReason::ContentFilter,
            _ => FinishReason::Other(s),
        }
    }
}

impl From<FinishReason> for String {
    fn from(f: FinishReason) -> String {
        match f {
            FinishReason::Stop => "stop".into(),
            FinishReason::Length => "length".into(),
            FinishReason::ToolCalls => "tool_calls".into(),
            FinishReason::ContentFilter => "content_filter".into(),
            FinishReason::Other(s) => s,
        }
    }
}

/// Tokens billed for one call (or summed over many).
///
/// From the response's `usage`: `prompt_tokens`, `completion_tokens`,
/// `prompt_tokens_details.cached_tokens` (DeepSeek: `prompt_cache_hit_tokens`) and
/// `completion_tokens_details.reasoning_tokens`. When a server sends no `usage`, the client
/// counts prompt and completion with the `cl100k_base` tokenizer
/// ([`crate::knowledge::tokens`]) and sets `estimated`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens.
    pub prompt: u64,
    /// Output tokens (including reasoning tokens, as servers count them).
    pub completion: u64,
    /// Input tokens served from the server's prompt cache (0 when not reported).
    pub cached: u64,
    /// Output tokens spent on reasoning (0 when not reported).
    pub reasoning: u64,
    /// True when any part of this figure was counted by us, not reported by the server.
    pub estimated: bool,
}

impl Usage {
    /// `prompt + completion`.
    pub fn total(&self) -> u64 {
        self.prompt + self.completion
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.prompt += o.prompt;
        self.completion += o.completion;
        self.cached += o.cached;
        self.reasoning += o.reasoning;
        self.estimated |= o.estimated;
    }
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(mut self, o: Usage) -> Usage {
        self += o;
        self
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), |a, b| a + b)
    }
}

/// The model's answer to one [`ChatRequest`] (the first choice).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The assistant's turn (append it as [`Message::Assistant`] to continue).
    pub message: AssistantMessage,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Tokens of this call.
    pub usage: Usage,
    /// The model name the server reported (`None` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The wire shapes behind the `from`/`into` conversions above.
mod wire {
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    fn function() -> String {
        "function".to_string()
    }

    #[derive(Clone, Serialize, Deserialize)]
    pub struct ToolSpec {
        #[serde(rename = "type", default = "function")]
        kind: String,
        function: FunctionSpec,
    }

    #[derive(Clone, Serialize, Deserialize)]
    struct FunctionSpec {
        name: String,
        #[serde(default)]
        description: String,
        #[serde(default)]
        parameters: Value,
    }

    impl From<ToolSpec> for super::ToolSpec {
        fn from(w: ToolSpec) -> Self {
            super::ToolSpec {
                name: w.function.name,
                description: w.function.description,
                parameters: w.function.parameters,
            }
        }
    }

    impl From<super::ToolSpec> for ToolSpec {
        fn from(t: super::ToolSpec) -> Self {
            ToolSpec {
                kind: function(),
                function: FunctionSpec {
                    name: t.name,
                    description: t.description,
                    parameters: t.parameters,
                },
            }
        }
    }

    #[derive(Clone, Serialize, Deserialize)]
    pub struct ToolCall {
        #[serde(default)]
        id: String,
        #[serde(rename = "type", default = "function")]
        kind: String,
        function: FunctionCall,
    }

    #[derive(Clone, Serialize, Deserialize)]
    struct FunctionCall {
        #[serde(default)]
        name: String,
        /// A string on the wire; some servers send an object, which we keep as its JSON.
        #[serde(default)]
        arguments: Value,
    }

    impl From<ToolCall> for super::ToolCall {
        fn from(w: ToolCall) -> Self {
            let arguments = match w.function.arguments {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            };
            super::ToolCall {
                id: w.id,
                name: w.function.name,
                arguments,
            }
        }
    }

    impl From<super::ToolCall> for ToolCall {
        fn from(t: super::ToolCall) -> Self {
            ToolCall {
                id: t.id,
                kind: function(),
                function: FunctionCall {
                    name: t.name,
                    arguments: Value::String(t.arguments),
                },
            }
        }
    }

    #[derive(Clone, Serialize, Deserialize)]
    #[serde(untagged)]
    pub enum ToolChoice {
        Mode(String),
        Named {
            #[serde(rename = "type", default = "function")]
            kind: String,
            function: Name,
        },
    }

    #[derive(Clone, Serialize, Deserialize)]
    pub struct Name {
        name: String,
    }

    impl From<ToolChoice> for super::ToolChoice {
        fn from(w: ToolChoice) -> Self {
            match w {
                ToolChoice::Mode(m) => match m.as_str() {
                    "none" => super::ToolChoice::None,
                    "required" => super::ToolChoice::Required,
                    _ => super::ToolChoice::Auto,
                },
                ToolChoice::Named { function, .. } => super::ToolChoice::Named(function.name),
            }
        }
    }

    impl From<super::ToolChoice> for ToolChoice {
        fn from(t: super::ToolChoice) -> Self {
            match t {
                super::ToolChoice::Auto => ToolChoice::Mode("auto".into()),
                super::ToolChoice::None => ToolChoice::Mode("none".into()),
                super::ToolChoice::Required => ToolChoice::Mode("required".into()),
                super::ToolChoice::Named(name) => ToolChoice::Named {
                    kind: function(),
                    function: Name { name },
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_serializes_to_the_wire_format() {
        let mut req = ChatRequest::new(
            "m",
            vec![
                Message::system("s"),
                Message::user("u"),
                Message::Assistant(AssistantMessage {
                    content: None,
                    tool_calls: vec![ToolCall::new("c1", "compile", &json!({"kernel": "k"}))],
                    reasoning_content: None,
                }),
                Message::tool("c1", "ok"),
            ],
        );
        req.tools.push(ToolSpec {
            name: "compile".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        });
        req.tool_choice = Some(ToolChoice::Named("compile".into()));
        req.seed = Some(7);
        let v = serde_json::to_value(&req).unwrap();
        assert_eq!(
            v,
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "user", "content": "u"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "compile", "arguments": "{\"kernel\":\"k\"}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "ok"}
                ],
                "tools": [{"type": "function", "function":
                    {"name": "compile", "description": "d", "parameters": {"type": "object"}}}],
                "tool_choice": {"type": "function", "function": {"name": "compile"}},
                "seed": 7
            })
        );
        let back: ChatRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, req);
    }

    #[test]
    fn canonical_json_sorts_keys() {
        let req = ChatRequest::new("m", vec![Message::user("x")]);
        assert_eq!(
            req.canonical_json(),
            r#"{"messages":[{"content":"x","role":"user"}],"model":"m"}"#
        );
    }

    #[test]
    fn bad_arguments_name_the_tool() {
        let c = ToolCall {
            id: "1".into(),
            name: "submit".into(),
            arguments: "{not json".into(),
        };
        let e = c.arguments_json().unwrap_err().to_string();
        assert!(e.contains("submit"), "{e}");
        assert_eq!(
            ToolCall::new("1", "t", &json!({"a": 1}))
                .arguments_json()
                .unwrap(),
            json!({"a": 1})
        );
    }

    #[test]
    fn usage_sums() {
        let a = Usage {
            prompt: 1,
            completion: 2,
            cached: 3,
            reasoning: 4,
            estimated: false,
        };
        let b = Usage {
            estimated: true,
            ..a
        };
        let s: Usage = [a, b].into_iter().sum();
        assert_eq!(
            (s.prompt, s.completion, s.cached, s.reasoning),
            (2, 4, 6, 8)
        );
        assert!(s.estimated);
        assert_eq!(s.total(), 6);
    }
}
