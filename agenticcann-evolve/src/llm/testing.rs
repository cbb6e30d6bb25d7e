//! **For tests.** [`ScriptedServer`]: a real OpenAI-compatible HTTP server on
//! `127.0.0.1:<free port>`, in threads, answering `POST …/chat/completions` from a script of
//! [`Step`]s, one step per request, in order. It keeps every request it got
//! ([`ScriptedServer::requests`]) so a test can check what the client sent, and the usage it
//! reported ([`ScriptedServer::usage_sent`]) so a test can check the client's sums.
//!
//! Steps cover what real servers do: tool calls, text answers, statuses with `Retry-After`,
//! malformed bodies, bodies cut short (a `Content-Length` larger than what is sent), answers
//! slower than the client's timeout, responses without `usage`, and connections closed
//! without an answer. When the script runs out, the server answers HTTP 410 (not retried)
//! saying so.
//!
//! Plain `std::net` and one thread per connection; every response closes its connection.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::types::Usage;

/// One scripted answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// HTTP 200 with a chat-completions body: `content`, the `tool_calls` (name, arguments
    /// object; ids `call_<request>_<k>`), and `usage` (`None`: the field is left out). The
    /// finish reason is `tool_calls` when there are calls, else `stop`.
    Reply {
        /// The assistant's text (`None`: JSON `null`).
        content: Option<String>,
        /// The calls.
        tool_calls: Vec<(String, Value)>,
        /// `prompt_tokens`, `completion_tokens`, `cached_tokens`, `reasoning_tokens`.
        usage: Option<[u64; 4]>,
    },
    /// An HTTP status with a body and optionally a `Retry-After` header value.
    Status {
        /// The status code.
        status: u16,
        /// The `Retry-After` value (`"1"`, an HTTP-date).
        retry_after: Option<String>,
        /// The body.
        body: String,
    },
    /// HTTP 200 with this body verbatim (`Content-Type: application/json`).
    Raw(String),
    /// HTTP 200 declaring `Content-Length` = `body.len() + missing`, sending `body` and
    /// closing.
    Truncated {
        /// What is sent.
        body: String,
        /// Bytes declared but never sent.
        missing: usize,
    },
    /// Waits `delay` after reading the request, then plays `then` (the client may have
    /// given up by then).
    Slow {
        /// The wait.
        delay: Duration,
        /// The answer after it.
        then: Box<Step>,
    },
    /// Closes the connection after reading the request, without answering.
    Close,
}

impl Step {
    /// A text answer with usage `prompt`/`completion` tokens.
    pub fn text(content: &str, prompt: u64, completion: u64) -> Step {
        Step::Reply {
            content: Some(content.to_string()),
            tool_calls: Vec::new(),
            usage: Some([prompt, completion, 0, 0]),
        }
    }

    /// An answer calling `calls` (name, arguments) with usage `prompt`/`completion`.
    pub fn calls(calls: &[(&str, Value)], prompt: u64, completion: u64) -> Step {
        Step::Reply {
            content: None,
            tool_calls: calls
                .iter()
                .map(|(n, a)| (n.to_string(), a.clone()))
                .collect(),
            usage: Some([prompt, completion, 0, 0]),
        }
    }

    /// An answer calling one tool.
    pub fn call(name: &str, arguments: Value, prompt: u64, completion: u64) -> Step {
        Step::calls(&[(name, arguments)], prompt, completion)
    }

    /// This reply without the `usage` field (no-op for other steps).
    pub fn without_usage(mut self) -> Step {
        if let Step::Reply { usage, .. } = &mut self {
            *usage = None;
        }
        self
    }

    /// This reply with cached and reasoning token counts (no-op for other steps).
    pub fn with_details(mut self, cached: u64, reasoning: u64) -> Step {
        if let Step::Reply { usage: Some(u), .. } = &mut self {
            u[2] = cached;
            u[3] = reasoning;
        }
        self
    }

    /// HTTP `status` with `body`.
    pub fn status(status: u16, body: &str) -> Step {
        Step::Status {
            status,
            retry_after: None,
            body: body.to_string(),
        }
    }

    /// HTTP 429 with `Retry-After: retry_after`.
    pub fn too_many_requests(retry_after: &str) -> Step {
        Step::Status {
            status: 429,
            retry_after: Some(retry_after.to_string()),
            body: r#"{"error":{"message":"rate limited","type":"rate_limit"}}"#.to_string(),
        }
    }

    /// `then` after `delay`.
    pub fn slow(delay: Duration, then: Step) -> Step {
        Step::Slow {
            delay,
            then: Box::new(then),
        }
    }

    /// A valid reply body cut `missing` bytes before its declared end.
    pub fn truncated(missing: usize) -> Step {
        let full = reply_body(0, &Step::text("this answer will be cut", 5, 5));
        let keep = full.len().saturating_sub(missing.max(1));
        Step::Truncated {
            body: full[..keep].to_string(),
            missing: missing.max(1),
        }
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Received {
    /// `POST`, …
    pub method: String,
    /// The request target (`/v1/chat/completions`).
    pub path: String,
    /// Headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
    /// When the request was complete.
    pub at: Instant,
}

impl Received {
    /// The first header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Value::Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

struct Shared {
    script: Mutex<VecDeque<Step>>,
    served: AtomicUsize,
    received: Mutex<Vec<Received>>,
    usage: Mutex<Usage>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    stop: AtomicBool,
}

/// The scripted server (see the module docs). Stops when dropped.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts a server on `127.0.0.1:0` playing `steps`.
    pub fn start(steps: Vec<Step>) -> std::io::Result<ScriptedServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script: Mutex::new(steps.into()),
            served: AtomicUsize::new(0),
            received: Mutex::new(Vec::new()),
            usage: Mutex::new(Usage::default()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let s = shared.clone();
        let accept = std::thread::Builder::new()
            .name("scripted-llm-server".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if s.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = conn {
                        let s2 = s.clone();
                        let _ = std::thread::Builder::new()
                            .name("scripted-llm-conn".into())
                            .spawn(move || handle(stream, &s2));
                    }
                }
            })?;
        Ok(ScriptedServer {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// `http://127.0.0.1:<port>/v1`, the base URL to give the client.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends steps to the script.
    pub fn push(&self, steps: impl IntoIterator<Item = Step>) {
        lock(&self.shared.script).extend(steps);
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Received> {
        lock(&self.shared.received).clone()
    }

    /// Steps not played yet.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// The sum of the `usage` of every reply sent (replies without `usage` add nothing).
    pub fn usage_sent(&self) -> Usage {
        *lock(&self.shared.usage)
    }

    /// The most requests that were being answered at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }

    /// Stops accepting connections and waits for the accept thread.
    pub fn stop(&mut self) {
        if let Some(h) = self.accept.take() {
            self.shared.stop.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
            let _ = h.join();
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn handle(stream: TcpStream, s: &Shared) {
    if s.stop.load(Ordering::SeqCst) {
        return;
    }
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(req) = read_request(&stream) else {
        return;
    };
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let index = s.served.fetch_add(1, Ordering::SeqCst);
    let chat = req.method == "POST" && req.path.ends_with("/chat/completions");
    lock(&s.received).push(req);
    let step = if chat {
        lock(&s.script).pop_front()
    } else {
        Some(Step::status(
            404,
            "not found: only POST …/chat/completions is scripted",
        ))
    };
    let step = step.unwrap_or_else(|| {
        Step::status(
            410,
            &format!(
                "scripted server: the script ran out before request {}",
                index + 1
            ),
        )
    });
    play(stream, s, index, &step);
}

/// Plays `step` on `stream`. A request stops counting as in flight just before its first
/// response byte is written: once the client has the response it may send its next request,
/// and that one must not overlap this one's bookkeeping (max_in_flight would count three
/// requests under a limit of two).
fn play(mut stream: TcpStream, s: &Shared, index: usize, step: &Step) {
    if let Step::Slow { delay, then } = step {
        std::thread::sleep(*delay);
        return play(stream, s, index, then);
    }
    s.in_flight.fetch_sub(1, Ordering::SeqCst);
    match step {
        Step::Slow { .. } => unreachable!("played above"),
        Step::Close => {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Step::Reply { usage, .. } => {
            let body = reply_body(index, step);
            if let Some(u) = usage {
                let mut sum = lock(&s.usage);
                *sum += Usage {
                    prompt: u[0],
                    completion: u[1],
                    cached: u[2],
                    reasoning: u[3],
                    estimated: false,
                };
            }
            respond(&mut stream, 200, &[], body.as_bytes(), body.len());
        }
        Step::Status {
            status,
            retry_after,
            body,
        } => {
            let headers: Vec<(&str, &str)> = retry_after
                .as_deref()
                .map(|r| vec![("Retry-After", r)])
                .unwrap_or_default();
            respond(&mut stream, *status, &headers, body.as_bytes(), body.len());
        }
        Step::Raw(body) => respond(&mut stream, 200, &[], body.as_bytes(), body.len()),
        Step::Truncated { body, missing } => {
            respond(&mut stream, 200, &[], body.as_bytes(), body.len() + missing)
        }
    }
}

/// The chat-completions body of a [`Step::Reply`] answering request `index` (0-based).
fn reply_body(index: usize, step: &Step) -> String {
    let Step::Reply {
        content,
        tool_calls,
        usage,
    } = step
    else {
        return String::new();
    };
    let calls: Vec<Value> = tool_calls
        .iter()
        .enumerate()
        .map(|(k, (name, args))| {
            json!({"id": format!("call_{}_{}", index + 1, k + 1), "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    let mut body = json!({
        "id": format!("chatcmpl-scripted-{}", index + 1),
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message,
                     "finish_reason": if tool_calls.is_empty() { "stop" } else { "tool_calls" }}],
    });
    if let Some(u) = usage {
        body["usage"] = json!({
            "prompt_tokens": u[0], "completion_tokens": u[1], "total_tokens": u[0] + u[1],
            "prompt_tokens_details": {"cached_tokens": u[2]},
            "completion_tokens_details": {"reasoning_tokens": u[3]},
        });
    }
    body.to_string()
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
    declared: usize,
) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\nConnection: close\r\n"
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client may still send so the close is clean, briefly.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 1024];
    let _ = stream.read(&mut sink);
}

fn read_request(stream: &TcpStream) -> Option<Received> {
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
        at: Instant::now(),
    })
}
