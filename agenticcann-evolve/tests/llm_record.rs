//! Recording and replay: a run recorded against the scripted server replays byte for byte
//! with the server stopped; the key is in no file the run writes; a request missing from
//! the recording names its hash and how it differs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agenticcann_evolve::llm::record::{request_hash, EXCHANGES};
use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
use agenticcann_evolve::llm::{
    AutoProtocol, ChatModel, ChatRequest, ClientOptions, Ledger, LlmClient, LlmError, Message,
    Recorder, Replayer, ToolSpec,
};
use secrecy::SecretString;
use serde_json::json;

const KEY: &str = "sk-live-SECRET-a1b2c3d4e5";

fn options() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        max_retries: 2,
        min_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
        retry_after_cap: Duration::from_secs(2),
        max_concurrent: 2,
    }
}

fn base(user: &str) -> ChatRequest {
    let mut r = ChatRequest::new(
        "scripted-model",
        vec![
            Message::system("You write Ascend C kernels.\nUse DataCopy for GM<->UB."),
            Message::user(user),
        ],
    );
    r.tools = vec![ToolSpec {
        name: "compile".into(),
        description: "Compiles.".into(),
        parameters: json!({"type": "object", "properties": {"kernel": {"type": "string"}}}),
    }];
    r.seed = Some(7);
    r.temperature = Some(0.2);
    r
}

/// A small agent-like run: a tool call and its result, the same request asked twice, one
/// failing call. Returns its transcript (every outcome as a JSON line) and writes it, with
/// the ledger, into `run` like a real run folder would.
fn run(model: &dyn ChatModel, run: &Path) -> String {
    let ledger = Ledger::new();
    let mut transcript = String::new();
    let mut note = |label: &str, r: &Result<agenticcann_evolve::llm::ChatResponse, LlmError>| {
        let line = match r {
            Ok(resp) => json!({"step": label, "ok": resp}),
            Err(e) => json!({"step": label, "err": e, "text": e.to_string()}),
        };
        transcript.push_str(&line.to_string());
        transcript.push('\n');
    };
    let mut req = base("Write the add kernel.\nShape [1024].");
    let r1 = model.chat(&req);
    note("1", &r1);
    let r1 = r1.unwrap();
    ledger.add("init", "c1", r1.usage);
    let id = r1.message.tool_calls[0].id.clone();
    req.messages.push(Message::Assistant(r1.message));
    req.messages
        .push(Message::tool(id, "error: misaligned DataCopy at line 12"));
    let r2 = model.chat(&req);
    note("2", &r2);
    ledger.add("repair", "c1", r2.as_ref().unwrap().usage);
    // The same request again (a second sample): must replay the second answer.
    let r3 = model.chat(&req);
    note("3", &r3);
    ledger.add("repair", "c2", r3.as_ref().unwrap().usage);
    // A failing call is recorded and replayed as the same error.
    let r4 = model.chat(&base("Write the mul kernel."));
    note("4", &r4);
    assert!(r4.is_err());
    transcript.push_str(&serde_json::to_string(&ledger.entries()).unwrap());
    transcript.push('\n');
    std::fs::write(run.join("transcript.jsonl"), &transcript).unwrap();
    transcript
}

fn script() -> Vec<Step> {
    vec![
        Step::call("compile", json!({"kernel": "k v1"}), 500, 40),
        Step::call("compile", json!({"kernel": "k v2"}), 620, 44).with_details(400, 0),
        Step::text("Another idea: use double buffering.", 620, 12),
        Step::status(401, &format!("{{\"error\": \"invalid key {KEY}\"}}")),
    ]
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn record_run(dir: &Path) -> String {
    let server = ScriptedServer::start(script()).unwrap();
    let client = LlmClient::new(
        &server.base_url(),
        Some(SecretString::from(KEY.to_string())),
        options(),
    )
    .unwrap();
    let model = AutoProtocol::new(Recorder::new(client, dir.join("llm")).unwrap());
    let t = run(&model, dir);
    // The client did send the key, so its absence from the files below means something.
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(format!("Bearer {KEY}").as_str())));
    assert_eq!(server.remaining(), 0);
    t
}

#[test]
fn replay_with_the_server_stopped_reproduces_the_run_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let run1 = tmp.path().join("run1");
    std::fs::create_dir_all(&run1).unwrap();
    let t1 = record_run(&run1); // the server is dropped (stopped) when this returns

    // The key is in no file the run wrote.
    let written = files(&run1);
    assert!(written.len() >= 5, "{written:?}");
    for f in &written {
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "{} holds the key", f.display());
        assert!(
            !text.contains("a1b2c3d4e5"),
            "{} holds part of the key",
            f.display()
        );
        assert!(
            !text.to_ascii_lowercase().contains("bearer"),
            "{}",
            f.display()
        );
    }
    assert_eq!(
        std::fs::read_dir(run1.join("llm").join(EXCHANGES))
            .unwrap()
            .count(),
        4
    );

    // Replay (recording again, into a second run folder).
    let run2 = tmp.path().join("run2");
    std::fs::create_dir_all(&run2).unwrap();
    let replayer = Replayer::open(run1.join("llm")).unwrap();
    let model = AutoProtocol::new(Recorder::new(&replayer, run2.join("llm")).unwrap());
    let t2 = run(&model, &run2);
    assert_eq!(t1, t2);
    assert_eq!(replayer.remaining(), 0);
    let (f1, f2) = (files(&run1), files(&run2));
    assert_eq!(f1.len(), f2.len());
    for (a, b) in f1.iter().zip(&f2) {
        assert_eq!(
            a.strip_prefix(&run1).unwrap(),
            b.strip_prefix(&run2).unwrap()
        );
        assert_eq!(
            std::fs::read(a).unwrap(),
            std::fs::read(b).unwrap(),
            "{} differs",
            a.display()
        );
    }
    // The identical requests (steps 2 and 3) got their answers in recorded order, and the
    // error came back as the same error.
    assert!(t2.contains("k v2") && t2.contains("double buffering"));
    let lines: Vec<&str> = t2.lines().collect();
    assert!(lines[1].contains("k v2") && lines[2].contains("double buffering"));
    assert!(
        lines[3].contains("\"status\":401") && lines[3].contains("<redacted>"),
        "{}",
        lines[3]
    );
}

#[test]
fn a_request_missing_from_the_recording_names_its_hash_and_the_diff() {
    let tmp = tempfile::tempdir().unwrap();
    record_run(tmp.path());
    let replayer = Replayer::open(tmp.path().join("llm")).unwrap();
    let changed = base("Write the add kernel.\nShape [2048].");
    let e = replayer.chat(&changed).unwrap_err();
    let hash = request_hash(&changed);
    match &e {
        LlmError::NotRecorded {
            hash: h,
            closest,
            diff,
            ..
        } => {
            assert_eq!(h, &hash);
            assert_eq!(
                closest,
                &request_hash(&base("Write the add kernel.\nShape [1024]."))
            );
            assert!(
                diff.contains("-    Shape [1024].") && diff.contains("+    Shape [2048]."),
                "{diff}"
            );
            assert!(!diff.contains("-    Write the add kernel."), "{diff}");
        }
        other => panic!("{other:?}"),
    }
    let s = e.to_string();
    assert!(s.contains(&hash) && s.contains("Shape [2048]"), "{s}");
}

#[test]
fn identical_requests_replay_in_order_and_then_run_out() {
    let tmp = tempfile::tempdir().unwrap();
    let server =
        ScriptedServer::start(vec![Step::text("first", 1, 1), Step::text("second", 1, 1)]).unwrap();
    let client = LlmClient::new(&server.base_url(), None, options()).unwrap();
    let rec = Recorder::new(client, tmp.path()).unwrap();
    let req = ChatRequest::new("m", vec![Message::user("same")]);
    assert_eq!(
        rec.chat(&req).unwrap().message.content.as_deref(),
        Some("first")
    );
    assert_eq!(
        rec.chat(&req).unwrap().message.content.as_deref(),
        Some("second")
    );
    drop(rec);
    drop(server);
    let rep = Replayer::open(tmp.path()).unwrap();
    assert_eq!(
        rep.chat(&req).unwrap().message.content.as_deref(),
        Some("first")
    );
    assert_eq!(
        rep.chat(&req).unwrap().message.content.as_deref(),
        Some("second")
    );
    let e = rep.chat(&req).unwrap_err().to_string();
    assert!(
        e.contains(&request_hash(&req)) && e.contains("recorded 2 times"),
        "{e}"
    );
}

#[test]
fn an_edited_recording_is_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![Step::text("x", 1, 1)]).unwrap();
    let client = LlmClient::new(&server.base_url(), None, options()).unwrap();
    let rec = Recorder::new(client, tmp.path()).unwrap();
    rec.chat(&ChatRequest::new("m", vec![Message::user("hi")]))
        .unwrap();
    let f = files(tmp.path()).pop().unwrap();
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("\"hi\"", "\"hello\"");
    std::fs::write(&f, text).unwrap();
    let e = Replayer::open(tmp.path()).unwrap_err().to_string();
    assert!(
        e.contains(&f.display().to_string()) && e.contains("does not match"),
        "{e}"
    );
    let e = Replayer::open(tmp.path().join("nowhere"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a recording"), "{e}");
}

#[test]
fn no_temporary_files_are_left_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let server =
        ScriptedServer::start(vec![Step::text("a", 1, 1), Step::status(500, "x")]).unwrap();
    let client = LlmClient::new(
        &server.base_url(),
        None,
        ClientOptions {
            max_retries: 0,
            ..options()
        },
    )
    .unwrap();
    let rec = Recorder::new(client, tmp.path()).unwrap();
    rec.chat(&ChatRequest::new("m", vec![Message::user("1")]))
        .unwrap();
    rec.chat(&ChatRequest::new("m", vec![Message::user("2")]))
        .unwrap_err();
    let names: Vec<String> = files(tmp.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].starts_with("000001-") && names[1].starts_with("000002-"),
        "{names:?}"
    );
    // Continuing a recording numbers on.
    let client = LlmClient::new(&server.base_url(), None, options()).unwrap();
    let rec = Recorder::new(client, tmp.path()).unwrap();
    server.push([Step::text("b", 1, 1)]);
    rec.chat(&ChatRequest::new("m", vec![Message::user("3")]))
        .unwrap();
    assert!(files(tmp.path()).iter().any(|p| p
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("000003-")));
}

#[test]
fn open_and_open_replay_stack_the_protocol_over_the_recording() {
    use agenticcann_evolve::llm::settings::{resolve, Flags, Metadata};
    use agenticcann_evolve::llm::{open, open_replay, ToolProtocol};
    let tmp = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![Step::text(
        "```json\n{\"tool\": \"compile\", \"arguments\": {\"kernel\": \"k\"}}\n```",
        9,
        4,
    )])
    .unwrap();
    let flags = Flags {
        base_url: Some(server.base_url()),
        tool_protocol: Some(ToolProtocol::Text),
        ..Flags::default()
    };
    let settings = resolve(&flags, &|_| None, &Metadata::default()).unwrap();
    let model = open(&settings, Some(tmp.path())).unwrap();
    let req = base("Write the add kernel.");
    let live = model.chat(&req).unwrap();
    assert_eq!(live.message.tool_calls[0].name, "compile");
    // The recording holds the request as sent: text protocol, no `tools` field.
    let f = files(tmp.path()).pop().unwrap();
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert!(rec["request"].get("tools").is_none(), "{rec}");
    drop(server);
    let replayed = open_replay(tmp.path(), ToolProtocol::Text)
        .unwrap()
        .chat(&req)
        .unwrap();
    assert_eq!(replayed, live);
    // Replaying under another protocol sends other requests: not in the recording.
    let e = open_replay(tmp.path(), ToolProtocol::Native)
        .unwrap()
        .chat(&req)
        .unwrap_err();
    assert!(matches!(e, LlmError::NotRecorded { .. }), "{e}");
}

#[test]
fn the_auto_fallback_replays_too() {
    let tmp = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Step::status(400, "{\"error\": \"this model does not support tools\"}"),
        Step::text(
            "```json\n{\"tool\": \"compile\", \"arguments\": {}}\n```",
            20,
            3,
        ),
    ])
    .unwrap();
    let client = LlmClient::new(&server.base_url(), None, options()).unwrap();
    let live_model = AutoProtocol::new(Recorder::new(client, tmp.path()).unwrap());
    let req = base("Write the add kernel.");
    let live = live_model.chat(&req).unwrap();
    assert_eq!(live.message.tool_calls[0].name, "compile");
    drop(server);
    // Both the rejected native request and the text request are in the recording.
    assert_eq!(files(tmp.path()).len(), 2);
    let replay = AutoProtocol::new(Replayer::open(tmp.path()).unwrap());
    assert_eq!(replay.chat(&req).unwrap(), live);
    assert_eq!(replay.decided(), live_model.decided());
}
