//! [`LlmClient`]: `POST {base}/chat/completions` over blocking `reqwest` + rustls, with
//! timeouts, retries, a concurrency limit and a secret API key.
//!
//! - Timeouts: `connect_timeout` for the TCP/TLS connection, `timeout` for the whole
//!   exchange (request sent, answer generated and read; the answer is not streamed, so this
//!   is the longest a model may think).
//! - Retries (exponential backoff with jitter from the `backon` crate, at most
//!   `max_retries` after the first attempt) on connection errors and HTTP 408, 409, 429 and
//!   5xx. A `Retry-After` header (seconds or an HTTP-date, RFC 9110 §10.2.3) replaces the
//!   backoff delay for that wait, capped at `retry_after_cap`. HTTP 400, 401, 403, 404 (and
//!   any other 4xx) are never retried; the error names the status and what it means. Read
//!   timeouts, malformed and truncated bodies are not retried either: the model may still be
//!   generating (a resend would pay twice), and the loop treats them as a failed step.
//! - Concurrency: at most `max_concurrent` calls in flight per client (other callers wait).
//! - The key is a [`SecretString`]: sent only as `Authorization: Bearer …`, shown as
//!   `<redacted>` in `Debug`, never part of an error (errors quote the URL and the body,
//!   and the body is the server's).

use std::io::Read;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, SystemTime};

use backon::BackoffBuilder;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::accounting::estimate_usage;
use super::types::{AssistantMessage, ChatRequest, ChatResponse, FinishReason, Usage};
use super::{excerpt, ChatModel, LlmError};

/// The largest response body read (64 MiB); a larger one is [`LlmError::Malformed`].
pub const MAX_BODY: u64 = 64 << 20;

/// How an [`LlmClient`] connects and retries. [`Default`] gives the values documented on
/// each field.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientOptions {
    /// TCP/TLS connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Whole-exchange timeout: request, generation and the answer read (default 300 s).
    pub timeout: Duration,
    /// Retries after the first attempt (default 4).
    pub max_retries: u32,
    /// The first backoff delay (default 1 s); doubles per retry, plus jitter.
    pub min_backoff: Duration,
    /// The largest backoff delay (default 30 s).
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured (default 60 s); longer values wait this long.
    pub retry_after_cap: Duration,
    /// Calls in flight at once through one client (default 4).
    pub max_concurrent: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(300),
            max_retries: 4,
            min_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            retry_after_cap: Duration::from_secs(60),
            max_concurrent: 4,
        }
    }
}

/// The OpenAI-compatible HTTP client (a [`ChatModel`]).
pub struct LlmClient {
    http: reqwest::blocking::Client,
    base_url: String,
    url: String,
    key: Option<SecretString>,
    options: ClientOptions,
    slots: Semaphore,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("url", &self.url)
            .field(
                "api_key",
                &if self.key.is_some() {
                    "<redacted>"
                } else {
                    "<none>"
                },
            )
            .field("options", &self.options)
            .finish()
    }
}

impl LlmClient {
    /// A client for the server at `base_url` (`https://api.deepseek.com`,
    /// `http://127.0.0.1:8080/v1`, …; requests go to `{base_url}/chat/completions`).
    /// `api_key` is sent as a bearer token when given. Errors: a base URL that is not an
    /// `http`/`https` URL, or a TLS backend that fails to initialize.
    pub fn new(
        base_url: &str,
        api_key: Option<SecretString>,
        options: ClientOptions,
    ) -> Result<LlmClient, LlmError> {
        let base = base_url.trim_end_matches('/').to_string();
        let parsed = reqwest::Url::parse(&base)
            .map_err(|e| LlmError::Config(format!("base URL `{base}` does not parse: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(LlmError::Config(format!(
                "base URL `{base}` is not http or https"
            )));
        }
        let http = reqwest::blocking::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.timeout)
            .user_agent(concat!("agenticcann-evolve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("HTTP client: {}", chain(&e))))?;
        let max = options.max_concurrent.max(1);
        Ok(LlmClient {
            http,
            url: format!("{base}/chat/completions"),
            base_url: base,
            key: api_key,
            slots: Semaphore::new(max),
            options,
        })
    }

    /// A client from resolved [`super::settings::Settings`].
    pub fn from_settings(s: &super::settings::Settings) -> Result<LlmClient, LlmError> {
        LlmClient::new(&s.base_url, s.api_key.clone(), s.client.clone())
    }

    /// The base URL (without a trailing `/`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The options in force.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// One attempt: send, read, parse. `Err` carries the `Retry-After` delay if the server
    /// sent one.
    fn attempt(&self, body: &[u8], req: &ChatRequest) -> Result<ChatResponse, Failure> {
        let mut rb = self
            .http
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body.to_vec());
        if let Some(key) = &self.key {
            let mut value =
                reqwest::header::HeaderValue::from_str(&format!("Bearer {}", key.expose_secret()))
                    .map_err(|_| {
                        Attempt::plain(LlmError::Config(
                            "the API key holds characters not allowed in an HTTP header"
                                .to_string(),
                        ))
                    })?;
            value.set_sensitive(true);
            rb = rb.header(reqwest::header::AUTHORIZATION, value);
        }
        let mut resp = rb
            .send()
            .map_err(|e| Attempt::plain(self.transport(&e, false)))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let declared = resp.content_length();
        let mut bytes = Vec::new();
        let read = (&mut resp).take(MAX_BODY + 1).read_to_end(&mut bytes);
        if bytes.len() as u64 > MAX_BODY {
            return Err(Attempt::plain(LlmError::Malformed {
                url: self.url.clone(),
                detail: format!("the body is larger than {MAX_BODY} bytes"),
                excerpt: excerpt(&String::from_utf8_lossy(&bytes[..1024])),
            }));
        }
        if let Err(e) = read {
            let err = match e.get_ref().and_then(|i| i.downcast_ref::<reqwest::Error>()) {
                Some(re) if re.is_timeout() => self.transport(re, true),
                _ if e.kind() == std::io::ErrorKind::TimedOut => LlmError::Timeout {
                    url: self.url.clone(),
                    after_ms: self.options.timeout.as_millis() as u64,
                    stage: "read".into(),
                },
                _ => LlmError::Truncated {
                    url: self.url.clone(),
                    detail: format!(
                        "the body ended after {} of {} bytes ({})",
                        bytes.len(),
                        declared.map_or("an undeclared number of".to_string(), |d| d.to_string()),
                        io_chain(&e)
                    ),
                },
            };
            return Err(Attempt::plain(err));
        }
        if let Some(d) = declared {
            if (bytes.len() as u64) < d {
                return Err(Attempt::plain(LlmError::Truncated {
                    url: self.url.clone(),
                    detail: format!("the body ended after {} of {d} bytes", bytes.len()),
                }));
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            let body = excerpt(text.trim());
            let err = if retryable_status(status) {
                LlmError::Status {
                    url: self.url.clone(),
                    status,
                    body,
                }
            } else {
                LlmError::Rejected {
                    url: self.url.clone(),
                    status,
                    meaning: status_meaning(status).to_string(),
                    body,
                }
            };
            return Err(Box::new(Attempt { err, retry_after }));
        }
        parse_response(&self.url, &text, req).map_err(Attempt::plain)
    }

    fn transport(&self, e: &reqwest::Error, reading: bool) -> LlmError {
        if e.is_timeout() {
            let connect = e.is_connect() && !reading;
            LlmError::Timeout {
                url: self.url.clone(),
                after_ms: if connect {
                    self.options.connect_timeout
                } else {
                    self.options.timeout
                }
                .as_millis() as u64,
                stage: if connect { "connect" } else { "read" }.into(),
            }
        } else if e.is_connect() {
            LlmError::Connect {
                url: self.url.clone(),
                detail: chain(e),
            }
        } else if e.is_body() || e.is_decode() || reading {
            LlmError::Truncated {
                url: self.url.clone(),
                detail: chain(e),
            }
        } else {
            // The request went out but no response head came back (the server closed the
            // connection): a connection error as far as retrying goes.
            LlmError::Connect {
                url: self.url.clone(),
                detail: chain(e),
            }
        }
    }
}

impl LlmClient {
    /// `e` with every occurrence of the key replaced by `<redacted>` (a server may echo
    /// the key it rejected in its error body).
    fn scrub(&self, e: LlmError) -> LlmError {
        let Some(key) = self.key.as_ref().map(|k| k.expose_secret()) else {
            return e;
        };
        if key.is_empty() {
            return e;
        }
        fn walk(v: &mut Value, key: &str) {
            match v {
                Value::String(s) if s.contains(key) => *s = s.replace(key, "<redacted>"),
                Value::Array(a) => a.iter_mut().for_each(|x| walk(x, key)),
                Value::Object(m) => m.values_mut().for_each(|x| walk(x, key)),
                _ => {}
            }
        }
        let Ok(mut v) = serde_json::to_value(&e) else {
            return e;
        };
        walk(&mut v, key);
        serde_json::from_value(v).unwrap_or(e)
    }
}

impl ChatModel for LlmClient {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.send(req).map_err(|e| self.scrub(e))
    }

    fn describe(&self) -> String {
        format!("{} (OpenAI-compatible)", self.base_url)
    }
}

impl LlmClient {
    fn send(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut wire = serde_json::to_value(req)
            .map_err(|e| LlmError::Config(format!("request does not serialize: {e}")))?;
        if let Value::Object(m) = &mut wire {
            m.insert("stream".into(), Value::Bool(false));
            // Reasoning text is output only; servers reject it in input messages.
            if let Some(Value::Array(msgs)) = m.get_mut("messages") {
                for msg in msgs {
                    if let Value::Object(o) = msg {
                        o.remove("reasoning_content");
                    }
                }
            }
        }
        let body = serde_json::to_vec(&wire)
            .map_err(|e| LlmError::Config(format!("request does not serialize: {e}")))?;
        let _slot = self.slots.acquire();
        let mut backoff = backon::ExponentialBuilder::default()
            .with_min_delay(self.options.min_backoff)
            .with_max_delay(self.options.max_backoff)
            .with_max_times(self.options.max_retries as usize)
            .with_jitter()
            .build();
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            match self.attempt(&body, req) {
                Ok(r) => return Ok(r),
                Err(f) if retryable(&f.err) => match backoff.next() {
                    Some(delay) => {
                        let wait = match f.retry_after {
                            Some(ra) => ra.min(self.options.retry_after_cap),
                            None => delay,
                        };
                        std::thread::sleep(wait);
                    }
                    None => {
                        return Err(if attempts == 1 {
                            f.err
                        } else {
                            LlmError::GaveUp {
                                attempts,
                                last: Box::new(f.err),
                            }
                        });
                    }
                },
                Err(f) => return Err(f.err),
            }
        }
    }
}

/// An attempt's error and the server's `Retry-After` (boxed: the error is large).
type Failure = Box<Attempt>;

struct Attempt {
    err: LlmError,
    retry_after: Option<Duration>,
}

impl Attempt {
    fn plain(err: LlmError) -> Failure {
        Box::new(Attempt {
            err,
            retry_after: None,
        })
    }
}

/// Whether the client retries after `e`: connection errors and the retryable statuses.
fn retryable(e: &LlmError) -> bool {
    match e {
        LlmError::Connect { .. } => true,
        LlmError::Timeout { stage, .. } => stage == "connect",
        LlmError::Status { status, .. } => retryable_status(*status),
        _ => false,
    }
}

/// 408 Request Timeout, 409 Conflict, 429 Too Many Requests and every 5xx.
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// What a non-retried status means for a chat-completions call.
fn status_meaning(status: u16) -> &'static str {
    match status {
        400 => {
            "Bad Request: the server rejected the request (a model or field it does not support?)"
        }
        401 => "Unauthorized: the API key is missing or wrong",
        403 => "Forbidden: the API key may not use this model or endpoint",
        404 => "Not Found: check the base URL (it usually ends in /v1) and the model name",
        413 => "Payload Too Large: the conversation is too long for this server",
        422 => "Unprocessable Entity: the server rejected a field of the request",
        _ => "client error",
    }
}

/// The delay a `Retry-After` value asks for, relative to `now`: delta-seconds (`"120"`) or
/// an HTTP-date (`"Wed, 21 Oct 2026 07:28:00 GMT"`; a date in the past means no wait).
/// `None` when the value is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_secs_f64(secs.min(1e9)));
        }
        return None;
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses a chat-completions body into the first choice. `req` is used to estimate tokens
/// when the body has no `usage`.
pub fn parse_response(url: &str, text: &str, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
    let malformed = |detail: String| LlmError::Malformed {
        url: url.to_string(),
        detail,
        excerpt: excerpt(text.trim()),
    };
    let v: Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("the body is not JSON ({e})")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| malformed("the body is not a JSON object".into()))?;
    if let Some(err) = obj.get("error") {
        return Err(malformed(format!(
            "the server answered with an error object: {}",
            excerpt(&err.to_string())
        )));
    }
    let choice = obj
        .get("choices")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("no `choices` array".into()))?
        .first()
        .ok_or_else(|| malformed("`choices` is empty".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| malformed("the first choice has no `message`".into()))?;
    let message: AssistantMessage = serde_json::from_value(message.clone())
        .map_err(|e| malformed(format!("the first choice's `message` does not parse: {e}")))?;
    let finish_reason = match choice.get("finish_reason") {
        Some(Value::String(s)) => FinishReason::from(s.clone()),
        _ => FinishReason::Other(String::new()),
    };
    let usage = match obj.get("usage") {
        Some(u) if u.is_object() => parse_usage(u).map_err(malformed)?,
        _ => estimate_usage(req, &message),
    };
    Ok(ChatResponse {
        message,
        finish_reason,
        usage,
        model: obj.get("model").and_then(Value::as_str).map(str::to_string),
    })
}

/// The `usage` object: `prompt_tokens`, `completion_tokens`, the cached tokens
/// (`prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`) and the
/// reasoning tokens (`completion_tokens_details.reasoning_tokens`).
fn parse_usage(u: &Value) -> Result<Usage, String> {
    let count = |v: Option<&Value>, what: &str| -> Result<u64, String> {
        match v {
            None | Some(Value::Null) => Ok(0),
            Some(x) => x
                .as_u64()
                .ok_or_else(|| format!("`usage.{what}` is not a non-negative integer: {x}")),
        }
    };
    let prompt = count(u.get("prompt_tokens"), "prompt_tokens")?;
    let completion = count(u.get("completion_tokens"), "completion_tokens")?;
    let cached = match u.pointer("/prompt_tokens_details/cached_tokens") {
        Some(v) if !v.is_null() => count(Some(v), "prompt_tokens_details.cached_tokens")?,
        _ => count(u.get("prompt_cache_hit_tokens"), "prompt_cache_hit_tokens")?,
    };
    let reasoning = count(
        u.pointer("/completion_tokens_details/reasoning_tokens"),
        "completion_tokens_details.reasoning_tokens",
    )?;
    Ok(Usage {
        prompt,
        completion,
        cached,
        reasoning,
        estimated: false,
    })
}

/// The error and its sources, `: `-joined (reqwest's top-level message alone says little).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        let m = s.to_string();
        if !out.contains(&m) {
            out.push_str(": ");
            out.push_str(&m);
        }
        src = s.source();
    }
    out
}

fn io_chain(e: &std::io::Error) -> String {
    match e.get_ref() {
        Some(inner) => chain(inner),
        None => e.to_string(),
    }
}

/// A counting semaphore (std `Mutex` + `Condvar`).
struct Semaphore {
    free: Mutex<usize>,
    cv: Condvar,
}

struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    fn new(n: usize) -> Semaphore {
        Semaphore {
            free: Mutex::new(n),
            cv: Condvar::new(),
        }
    }

    fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|p| p.into_inner());
        *free += 1;
        self.0.cv.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = httpdate::parse_http_date("Tue, 01 Dec 2026 10:00:00 GMT").unwrap();
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after(" 0.5 ", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after("Tue, 01 Dec 2026 10:00:07 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after("Tue, 01 Dec 2026 09:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn statuses() {
        for s in [408, 409, 429, 500, 502, 503, 599] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable_status(s), "{s}");
        }
        assert!(status_meaning(401).contains("API key"));
    }

    #[test]
    fn usage_fields() {
        let u = parse_usage(&serde_json::json!({
            "prompt_tokens": 10, "completion_tokens": 4,
            "prompt_tokens_details": {"cached_tokens": 6},
            "completion_tokens_details": {"reasoning_tokens": 2}
        }))
        .unwrap();
        assert_eq!(
            (u.prompt, u.completion, u.cached, u.reasoning),
            (10, 4, 6, 2)
        );
        let d = parse_usage(&serde_json::json!({
            "prompt_tokens": 10, "completion_tokens": 4, "prompt_cache_hit_tokens": 3
        }))
        .unwrap();
        assert_eq!(d.cached, 3);
        assert!(parse_usage(&serde_json::json!({"prompt_tokens": -1})).is_err());
    }

    #[test]
    fn parses_null_tool_calls_and_missing_finish_reason() {
        let req = ChatRequest::new("m", vec![super::super::Message::user("hi")]);
        let r = parse_response(
            "u",
            r#"{"choices":[{"message":{"role":"assistant","content":"x","tool_calls":null}}],
                "usage":{"prompt_tokens":3,"completion_tokens":1}}"#,
            &req,
        )
        .unwrap();
        assert!(r.message.tool_calls.is_empty());
        assert_eq!(r.finish_reason, FinishReason::Other(String::new()));
        assert_eq!(
            (r.usage.prompt, r.usage.completion, r.usage.estimated),
            (3, 1, false)
        );
        let e = parse_response("u", r#"{"error":{"message":"overloaded"}}"#, &req).unwrap_err();
        assert!(e.to_string().contains("overloaded"), "{e}");
    }

    #[test]
    fn debug_redacts_the_key() {
        let c = LlmClient::new(
            "http://127.0.0.1:9",
            Some(SecretString::from("sk-very-secret")),
            ClientOptions::default(),
        )
        .unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("sk-very-secret"), "{d}");
        assert!(d.contains("<redacted>"), "{d}");
        assert!(LlmClient::new("ftp://x", None, ClientOptions::default()).is_err());
    }
}
