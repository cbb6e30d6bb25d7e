//! The LLM client against the scripted OpenAI-compatible server (a real HTTP server on
//! 127.0.0.1): tool calls, the text and auto protocols, retries and their waits, errors,
//! timeouts and token accounting.

use std::time::{Duration, Instant, SystemTime};

use agenticcann_evolve::llm::accounting::estimate_usage;
use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
use agenticcann_evolve::llm::{
    AutoProtocol, ChatModel, ChatRequest, ClientOptions, FinishReason, Ledger, LlmClient, LlmError,
    Message, ProtocolError, TextProtocol, ToolChoice, ToolProtocol, ToolSpec, Usage,
};
use secrecy::SecretString;
use serde_json::json;

const KEY: &str = "sk-test-DO-NOT-LEAK-7f3a";

fn fast() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        max_retries: 3,
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(80),
        retry_after_cap: Duration::from_secs(5),
        max_concurrent: 4,
    }
}

fn client(server: &ScriptedServer, options: ClientOptions) -> LlmClient {
    LlmClient::new(
        &server.base_url(),
        Some(SecretString::from(KEY.to_string())),
        options,
    )
    .unwrap()
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "compile".into(),
            description: "Compiles the kernel; returns diagnostics.".into(),
            parameters: json!({"type": "object",
                "properties": {"kernel": {"type": "string"}}, "required": ["kernel"]}),
        },
        ToolSpec {
            name: "submit".into(),
            description: "Runs the full judge.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        },
    ]
}

fn request(user: &str) -> ChatRequest {
    let mut r = ChatRequest::new(
        "scripted-model",
        vec![
            Message::system("You write Ascend C kernels."),
            Message::user(user),
        ],
    );
    r.tools = tools();
    r.temperature = Some(0.0);
    r.seed = Some(42);
    r
}

fn usage(prompt: u64, completion: u64) -> Usage {
    Usage {
        prompt,
        completion,
        ..Usage::default()
    }
}

#[test]
fn tool_call_round_trip() {
    let server = ScriptedServer::start(vec![
        Step::call("compile", json!({"kernel": "int x;"}), 120, 17),
        Step::text("The kernel compiles.", 180, 6).with_details(64, 2),
    ])
    .unwrap();
    let c = client(&server, fast());
    let ledger = Ledger::new();
    let mut req = request("Write a kernel.");
    let r1 = c.chat(&req).unwrap();
    ledger.add("init", "c1", r1.usage);
    assert_eq!(r1.finish_reason, FinishReason::ToolCalls);
    assert_eq!(r1.message.tool_calls.len(), 1);
    let call = &r1.message.tool_calls[0];
    assert_eq!(call.name, "compile");
    assert_eq!(call.arguments_json().unwrap(), json!({"kernel": "int x;"}));
    req.messages.push(Message::Assistant(r1.message.clone()));
    req.messages
        .push(Message::tool(call.id.clone(), "no diagnostics"));
    let r2 = c.chat(&req).unwrap();
    ledger.add("init", "c1", r2.usage);
    assert_eq!(r2.message.content.as_deref(), Some("The kernel compiles."));
    assert_eq!(r2.finish_reason, FinishReason::Stop);
    assert_eq!(r2.model.as_deref(), Some("scripted"));

    // What went over the wire.
    let got = server.requests();
    assert_eq!(got.len(), 2);
    assert!(
        got[0].path.ends_with("/v1/chat/completions"),
        "{}",
        got[0].path
    );
    assert_eq!(
        got[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let b0 = got[0].json();
    assert_eq!(b0["stream"], json!(false));
    assert_eq!(b0["model"], json!("scripted-model"));
    assert_eq!(b0["seed"], json!(42));
    assert_eq!(b0["tools"][0]["type"], json!("function"));
    assert_eq!(b0["tools"][0]["function"]["name"], json!("compile"));
    let b1 = got[1].json();
    let msgs = b1["messages"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], json!("assistant"));
    assert_eq!(msgs[2]["tool_calls"][0]["id"], json!(call.id));
    assert_eq!(
        msgs[2]["tool_calls"][0]["function"]["arguments"],
        json!("{\"kernel\":\"int x;\"}")
    );
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": call.id, "content": "no diagnostics"})
    );

    // Token sums: exact, and equal to what the server reported.
    assert_eq!(
        ledger.total(),
        Usage {
            prompt: 300,
            completion: 23,
            cached: 64,
            reasoning: 2,
            estimated: false
        }
    );
    assert_eq!(ledger.total(), server.usage_sent());
    assert_eq!(ledger.by_phase()["init"], server.usage_sent());
}

#[test]
fn text_protocol_end_to_end() {
    let answer = "Here is the kernel.\n\n```cpp kernel.cpp\n#include \"kernel_operator.h\"\nextern \"C\" __global__ __aicore__ void add() {}\n```\n\n```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\": \"kernel.cpp\"}}\n```\n";
    let server = ScriptedServer::start(vec![
        Step::text(answer, 300, 80),
        Step::text(
            "Submitting.\n```json\n{\"tool\": \"submit\", \"arguments\": {}}\n```",
            400,
            9,
        ),
    ])
    .unwrap();
    let m = TextProtocol::new(client(&server, fast()));
    let mut req = request("Write an add kernel.");
    let r1 = m.chat(&req).unwrap();
    assert_eq!(r1.finish_reason, FinishReason::ToolCalls);
    let call = r1.message.tool_calls[0].clone();
    assert_eq!(call.name, "compile");
    assert_eq!(
        call.arguments_json().unwrap(),
        json!({"kernel": "#include \"kernel_operator.h\"\nextern \"C\" __global__ __aicore__ void add() {}\n"})
    );
    req.messages.push(Message::Assistant(r1.message.clone()));
    req.messages
        .push(Message::tool(call.id.clone(), "compiled: 0 diagnostics"));
    let r2 = m.chat(&req).unwrap();
    assert_eq!(r2.message.tool_calls[0].name, "submit");
    assert_ne!(r2.message.tool_calls[0].id, call.id);

    let got = server.requests();
    let b0 = got[0].json();
    assert!(
        b0.get("tools").is_none() && b0.get("tool_choice").is_none(),
        "{b0}"
    );
    let sys = b0["messages"][0]["content"].as_str().unwrap();
    assert!(sys.starts_with("You write Ascend C kernels."), "{sys}");
    assert!(
        sys.contains("### compile") && sys.contains("### submit"),
        "{sys}"
    );
    assert!(sys.contains("\"required\":[\"kernel\"]"), "{sys}");
    let b1 = got[1].json();
    let msgs = b1["messages"].as_array().unwrap();
    assert_eq!(msgs[2], json!({"role": "assistant", "content": answer}));
    assert_eq!(
        msgs[3],
        json!({"role": "user", "content": "Result of `compile`:\n\ncompiled: 0 diagnostics"})
    );
    assert!(msgs.iter().all(|m| m["role"] != json!("tool")));
    assert_eq!(r1.usage + r2.usage, server.usage_sent());
}

#[test]
fn text_protocol_bad_block_is_an_error_that_keeps_the_tokens() {
    let server = ScriptedServer::start(vec![Step::text(
        "```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\": }\n```",
        50,
        12,
    )])
    .unwrap();
    let m = TextProtocol::new(client(&server, fast()));
    let e = m.chat(&request("x")).unwrap_err();
    match &e {
        LlmError::Protocol {
            error: ProtocolError::BadToolBlock { detail, .. },
            usage: u,
        } => {
            assert!(detail.contains("not JSON"), "{detail}");
            assert_eq!(*u, usage(50, 12));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.usage(), server.usage_sent());
}

#[test]
fn auto_falls_back_to_text_when_tools_are_rejected() {
    let server = ScriptedServer::start(vec![
        Step::status(
            400,
            r#"{"error":{"message":"tools param requires --jinja flag"}}"#,
        ),
        Step::text(
            "```json\n{\"tool\": \"submit\", \"arguments\": {}}\n```",
            30,
            5,
        ),
        Step::text(
            "```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\": \"k\"}}\n```",
            40,
            6,
        ),
    ])
    .unwrap();
    let m = AutoProtocol::new(client(&server, fast()));
    assert_eq!(m.decided(), None);
    let r = m.chat(&request("x")).unwrap();
    assert_eq!(r.message.tool_calls[0].name, "submit");
    assert_eq!(m.decided(), Some(ToolProtocol::Text));
    let r2 = m.chat(&request("y")).unwrap();
    assert_eq!(r2.message.tool_calls[0].name, "compile");
    let got = server.requests();
    assert_eq!(got.len(), 3);
    assert!(got[0].json().get("tools").is_some());
    assert!(got[1].json().get("tools").is_none());
    assert!(
        got[2].json().get("tools").is_none(),
        "stays on text once decided"
    );
}

#[test]
fn auto_falls_back_to_text_when_the_answer_has_no_calls() {
    let server = ScriptedServer::start(vec![
        Step::text("I will write the kernel now.", 25, 7),
        Step::text(
            "```json\n{\"tool\": \"submit\", \"arguments\": {}}\n```",
            60,
            9,
        ),
    ])
    .unwrap();
    let m = AutoProtocol::new(client(&server, fast()));
    let r = m.chat(&request("x")).unwrap();
    assert_eq!(r.message.tool_calls[0].name, "submit");
    assert_eq!(m.decided(), Some(ToolProtocol::Text));
    // The discarded native answer's tokens are counted too.
    assert_eq!(r.usage, usage(85, 16));
    assert_eq!(r.usage, server.usage_sent());
}

#[test]
fn auto_stays_native_when_calls_come_back() {
    let server = ScriptedServer::start(vec![
        Step::call("submit", json!({}), 10, 2),
        Step::text("Done.", 11, 1),
    ])
    .unwrap();
    let m = AutoProtocol::new(client(&server, fast()));
    m.chat(&request("x")).unwrap();
    assert_eq!(m.decided(), Some(ToolProtocol::Native));
    let r = m.chat(&request("y")).unwrap();
    assert!(r.message.tool_calls.is_empty());
    assert_eq!(
        server.requests().len(),
        2,
        "a plain answer later is not re-asked"
    );
}

#[test]
fn retries_wait_for_retry_after_then_back_off() {
    let server = ScriptedServer::start(vec![
        Step::too_many_requests("1"),
        Step::status(503, "overloaded"),
        Step::status(502, "bad gateway"),
        Step::text("ok", 5, 1),
    ])
    .unwrap();
    let c = client(&server, fast());
    let r = c.chat(&request("x")).unwrap();
    assert_eq!(r.message.content.as_deref(), Some("ok"));
    let got = server.requests();
    assert_eq!(got.len(), 4);
    let gap = |i: usize| got[i].at.duration_since(got[i - 1].at);
    // Retry-After: 1 second, honoured.
    assert!(gap(1) >= Duration::from_millis(950), "{:?}", gap(1));
    assert!(gap(1) < Duration::from_millis(1900), "{:?}", gap(1));
    // Then the backoff (20 ms doubling, capped at 80 ms, plus jitter below the delay).
    assert!(gap(2) < Duration::from_millis(600), "{:?}", gap(2));
    assert!(gap(3) < Duration::from_millis(600), "{:?}", gap(3));
    // Every attempt sent the same body.
    assert!(got.iter().all(|g| g.body == got[0].body));
}

#[test]
fn retry_after_http_date_and_cap() {
    let at = SystemTime::now() + Duration::from_secs(2);
    let server = ScriptedServer::start(vec![
        Step::Status {
            status: 429,
            retry_after: Some(httpdate::fmt_http_date(at)),
            body: "slow down".into(),
        },
        Step::too_many_requests("3600"),
        Step::text("ok", 1, 1),
    ])
    .unwrap();
    let opts = ClientOptions {
        retry_after_cap: Duration::from_millis(300),
        ..fast()
    };
    let c = client(&server, opts);
    c.chat(&request("x")).unwrap();
    let got = server.requests();
    let g1 = got[1].at.duration_since(got[0].at);
    let g2 = got[2].at.duration_since(got[1].at);
    // The date is whole seconds, so the wait is the cap (300 ms) here too.
    assert!(
        g1 >= Duration::from_millis(250) && g1 < Duration::from_millis(900),
        "{g1:?}"
    );
    assert!(
        g2 >= Duration::from_millis(250) && g2 < Duration::from_millis(900),
        "{g2:?}"
    );
}

#[test]
fn retry_after_http_date_is_honoured() {
    let at = SystemTime::now() + Duration::from_secs(2);
    let server = ScriptedServer::start(vec![
        Step::Status {
            status: 503,
            retry_after: Some(httpdate::fmt_http_date(at)),
            body: "maintenance".into(),
        },
        Step::text("ok", 1, 1),
    ])
    .unwrap();
    let c = client(&server, fast());
    c.chat(&request("x")).unwrap();
    let got = server.requests();
    let g = got[1].at.duration_since(got[0].at);
    // HTTP-dates have second resolution: the wait is between 1 and 2 s.
    assert!(
        g >= Duration::from_millis(900) && g < Duration::from_millis(2600),
        "{g:?}"
    );
}

#[test]
fn no_retry_on_client_errors_and_the_error_says_which() {
    for (status, word) in [
        (400, "Bad Request"),
        (401, "API key"),
        (403, "Forbidden"),
        (404, "base URL"),
    ] {
        let server = ScriptedServer::start(vec![
            Step::status(status, "{\"error\": \"nope\"}"),
            Step::text("never reached", 1, 1),
        ])
        .unwrap();
        let c = client(&server, fast());
        let e = c.chat(&request("x")).unwrap_err();
        assert_eq!(e.status(), Some(status));
        assert!(matches!(e, LlmError::Rejected { .. }), "{e:?}");
        let s = e.to_string();
        assert!(
            s.contains(&format!("HTTP {status}")) && s.contains(word),
            "{s}"
        );
        assert!(s.contains("not retried") && s.contains("nope"), "{s}");
        assert_eq!(
            server.requests().len(),
            1,
            "HTTP {status} must not be retried"
        );
    }
}

#[test]
fn gives_up_after_the_retries() {
    let server = ScriptedServer::start(vec![
        Step::status(500, "boom 1"),
        Step::status(500, "boom 2"),
        Step::status(500, "boom 3"),
        Step::text("too late", 1, 1),
    ])
    .unwrap();
    let c = client(
        &server,
        ClientOptions {
            max_retries: 2,
            ..fast()
        },
    );
    let e = c.chat(&request("x")).unwrap_err();
    match &e {
        LlmError::GaveUp { attempts, last } => {
            assert_eq!(*attempts, 3);
            assert_eq!(last.status(), Some(500));
            assert!(last.to_string().contains("boom 3"), "{last}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn a_key_echoed_by_the_server_is_redacted() {
    let server = ScriptedServer::start(vec![Step::status(
        401,
        &format!("{{\"error\": \"Incorrect API key provided: {KEY}\"}}"),
    )])
    .unwrap();
    let c = client(&server, fast());
    let e = c.chat(&request("x")).unwrap_err();
    let all = format!("{e} {e:?} {}", serde_json::to_string(&e).unwrap());
    assert!(!all.contains(KEY), "{all}");
    assert!(all.contains("<redacted>"), "{all}");
    assert!(!format!("{c:?}").contains(KEY));
}

#[test]
fn malformed_bodies_are_errors_naming_what_is_wrong() {
    let cases = [
        ("this is not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ("{\"choices\": []}", "`choices` is empty"),
        ("{\"object\": \"chat.completion\"}", "no `choices`"),
        ("{\"choices\": [{\"finish_reason\": \"stop\"}]}", "no `message`"),
        (
            "{\"choices\": [{\"message\": {\"content\": 5}}]}",
            "`message` does not parse",
        ),
        (
            "{\"choices\": [{\"message\": {\"content\": \"x\"}}], \"usage\": {\"prompt_tokens\": \"many\"}}",
            "usage.prompt_tokens",
        ),
    ];
    let server = ScriptedServer::start(
        cases
            .iter()
            .map(|(b, _)| Step::Raw(b.to_string()))
            .collect(),
    )
    .unwrap();
    let c = client(&server, fast());
    for (body, want) in cases {
        let e = c.chat(&request("x")).unwrap_err();
        assert!(matches!(e, LlmError::Malformed { .. }), "{body}: {e:?}");
        assert!(e.to_string().contains(want), "{body}: {e}");
    }
    assert_eq!(
        server.requests().len(),
        cases.len(),
        "malformed bodies are not retried"
    );
}

#[test]
fn a_truncated_body_is_an_error() {
    let server = ScriptedServer::start(vec![Step::truncated(25)]).unwrap();
    let c = client(&server, fast());
    let e = c.chat(&request("x")).unwrap_err();
    assert!(matches!(e, LlmError::Truncated { .. }), "{e:?}");
    assert!(e.to_string().contains("truncated response"), "{e}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_slow_answer_times_out() {
    let server = ScriptedServer::start(vec![Step::slow(
        Duration::from_millis(2500),
        Step::text("late", 1, 1),
    )])
    .unwrap();
    let c = client(
        &server,
        ClientOptions {
            timeout: Duration::from_millis(400),
            ..fast()
        },
    );
    let t = Instant::now();
    let e = c.chat(&request("x")).unwrap_err();
    let took = t.elapsed();
    match &e {
        LlmError::Timeout {
            after_ms, stage, ..
        } => {
            assert_eq!(*after_ms, 400);
            assert_eq!(stage, "read");
        }
        other => panic!("{other:?}"),
    }
    assert!(took < Duration::from_millis(2000), "{took:?}");
    assert_eq!(server.requests().len(), 1, "read timeouts are not retried");
}

#[test]
fn connection_refused_is_retried_then_named() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = LlmClient::new(
        &format!("http://127.0.0.1:{port}/v1"),
        None,
        ClientOptions {
            max_retries: 1,
            ..fast()
        },
    )
    .unwrap();
    let e = c.chat(&request("x")).unwrap_err();
    match &e {
        LlmError::GaveUp { attempts: 2, last } => {
            assert!(matches!(**last, LlmError::Connect { .. }), "{last:?}");
            assert!(
                last.to_string().contains(&format!("127.0.0.1:{port}")),
                "{last}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_dropped_connection_is_retried() {
    let server = ScriptedServer::start(vec![Step::Close, Step::text("ok", 3, 1)]).unwrap();
    let c = client(&server, fast());
    assert_eq!(
        c.chat(&request("x")).unwrap().message.content.as_deref(),
        Some("ok")
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn missing_usage_is_estimated_and_marked() {
    let server =
        ScriptedServer::start(vec![Step::text("hello world", 0, 0).without_usage()]).unwrap();
    let c = client(&server, fast());
    let req = request("Count my tokens.");
    let r = c.chat(&req).unwrap();
    assert!(r.usage.estimated);
    assert_eq!(r.usage, estimate_usage(&req, &r.message));
    assert_eq!(r.usage.completion, 2, "\"hello world\" is 2 cl100k tokens");
    assert!(r.usage.prompt > 20, "{:?}", r.usage);
    assert_eq!(server.usage_sent(), Usage::default());
    let ledger = Ledger::new();
    ledger.add("init", "c1", r.usage);
    ledger.add("init", "c1", usage(10, 1));
    assert!(ledger.total().estimated, "an estimate taints the sum");
}

#[test]
fn the_concurrency_limit_holds() {
    let server = ScriptedServer::start(
        (0..6)
            .map(|i| Step::slow(Duration::from_millis(150), Step::text("ok", 10 + i, 1)))
            .collect(),
    )
    .unwrap();
    let c = client(
        &server,
        ClientOptions {
            max_concurrent: 2,
            ..fast()
        },
    );
    let ledger = Ledger::new();
    std::thread::scope(|s| {
        for i in 0..6 {
            let (c, ledger) = (&c, &ledger);
            s.spawn(move || {
                let r = c.chat(&request(&format!("job {i}"))).unwrap();
                ledger.add("init", &format!("c{i}"), r.usage);
            });
        }
    });
    assert_eq!(server.requests().len(), 6);
    assert!(server.max_in_flight() <= 2, "{}", server.max_in_flight());
    assert_eq!(server.max_in_flight(), 2);
    assert_eq!(ledger.total(), server.usage_sent());
    assert_eq!(ledger.by_candidate().len(), 6);
}

#[test]
fn tool_choice_goes_over_the_wire() {
    let server = ScriptedServer::start(vec![Step::call("submit", json!({}), 1, 1)]).unwrap();
    let c = client(&server, fast());
    let mut req = request("x");
    req.tool_choice = Some(ToolChoice::Required);
    req.max_tokens = Some(256);
    c.chat(&req).unwrap();
    let b = server.requests()[0].json();
    assert_eq!(b["tool_choice"], json!("required"));
    assert_eq!(b["max_tokens"], json!(256));
    assert_eq!(b["temperature"], json!(0.0));
}

#[test]
fn settings_from_the_environment_drive_the_client() {
    use agenticcann_evolve::llm::settings::{resolve, Flags, Metadata};
    let server =
        ScriptedServer::start(vec![Step::text("hi", 2, 1), Step::text("hi", 2, 1)]).unwrap();
    let base = server.base_url();
    // Localhost, no key anywhere: allowed, and no Authorization header is sent.
    let env = |name: &str| match name {
        "AGENTICCANN_LLM_BASE_URL" => Some(base.clone()),
        "AGENTICCANN_LLM_MODEL" => Some("env-model".to_string()),
        _ => None,
    };
    let meta = Metadata {
        tool_protocol: Some(ToolProtocol::Text),
        timeout_s: Some(3.0),
        ..Metadata::default()
    };
    let s = resolve(&Flags::default(), &env, &meta).unwrap();
    assert_eq!(s.client.timeout, Duration::from_secs(3));
    assert_eq!(s.tool_protocol, ToolProtocol::Text);
    let c = LlmClient::from_settings(&s).unwrap();
    c.chat(&ChatRequest::new(s.model.clone(), vec![Message::user("x")]))
        .unwrap();
    let got = server.requests();
    assert_eq!(got[0].header("authorization"), None);
    assert_eq!(got[0].json()["model"], json!("env-model"));
    // A key from the second variable is sent as a bearer token.
    let env2 = |name: &str| match name {
        "AGENTICCANN_LLM_BASE_URL" => Some(base.clone()),
        "DEEPSEEK_API_KEY" => Some(KEY.to_string()),
        _ => None,
    };
    let s = resolve(&Flags::default(), &env2, &Metadata::default()).unwrap();
    assert_eq!(s.api_key_var, Some("DEEPSEEK_API_KEY"));
    assert!(!format!("{s:?} {}", s.describe()).contains(KEY));
    LlmClient::from_settings(&s)
        .unwrap()
        .chat(&ChatRequest::new(s.model.clone(), vec![Message::user("x")]))
        .unwrap();
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[test]
fn parallel_callers_see_one_auto_decision() {
    let block = "```json\n{\"tool\": \"submit\", \"arguments\": {}}\n```";
    let mut steps = vec![Step::status(
        400,
        "{\"error\": \"tools are not supported\"}",
    )];
    steps.extend((0..4).map(|_| Step::slow(Duration::from_millis(50), Step::text(block, 10, 2))));
    let server = ScriptedServer::start(steps).unwrap();
    let m = AutoProtocol::new(client(&server, fast()));
    std::thread::scope(|s| {
        for i in 0..4 {
            let m = &m;
            s.spawn(move || {
                let r = m.chat(&request(&format!("job {i}"))).unwrap();
                assert_eq!(r.message.tool_calls[0].name, "submit");
            });
        }
    });
    let got = server.requests();
    assert_eq!(got.len(), 5);
    let with_tools = got
        .iter()
        .filter(|g| g.json().get("tools").is_some())
        .count();
    assert_eq!(with_tools, 1, "only the first call tries native tools");
}
