//! The generation-1 agent end to end over HTTP: a scripted OpenAI-compatible server on
//! 127.0.0.1, the real client, the tool protocols, the recorder and the replayer.

mod agent_support;

use agent_support::*;
use agenticcann_evolve::agent::{run_agent, AgentRun, StopReason};
use agenticcann_evolve::knowledge::KnowledgeBase;
use agenticcann_evolve::llm::client::{ClientOptions, LlmClient};
use agenticcann_evolve::llm::protocol::with_protocol;
use agenticcann_evolve::llm::record::{Recorder, Replayer};
use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
use agenticcann_evolve::llm::{ChatModel, ToolProtocol};
use serde_json::{json, Value};

fn client(server: &ScriptedServer) -> LlmClient {
    LlmClient::new(&server.base_url(), None, ClientOptions::default()).unwrap()
}

fn good_args() -> Value {
    args(&good())
}

/// The tool results the server received in its last request (native protocol).
fn last_tool_results(server: &ScriptedServer) -> Vec<String> {
    let reqs = server.requests();
    let last = reqs.last().unwrap().json();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["role"] == "tool"
                || (m["role"] == "user"
                    && m["content"]
                        .as_str()
                        .is_some_and(|c| c.starts_with("Result of")))
        })
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn native_tool_calls_reach_an_accepted_seed_and_tokens_match_the_server() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let server = ScriptedServer::start(vec![
        Step::call("compile", good_args(), 1500, 400),
        Step::call("submit", good_args(), 2100, 420),
    ])
    .unwrap();
    let model = with_protocol(client(&server), ToolProtocol::Native);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    assert_eq!(run.stop, StopReason::Accepted, "{:#?}", run.step_records);
    assert_eq!(run.steps, 2);
    assert_eq!(run.usage.prompt, server.usage_sent().prompt);
    assert_eq!(run.usage.completion, server.usage_sent().completion);
    assert_eq!(run.usage.total(), 1500 + 400 + 2100 + 420);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let first = reqs[0].json();
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "compile",
            "run_tests",
            "submit",
            "lookup_api",
            "read_knowledge"
        ]
    );
    assert!(last_tool_results(&server)[0].starts_with("compile: OK"));
}

#[test]
fn a_ub_overflow_is_repaired_over_http_with_the_l2_chunk_in_the_tool_result() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let server = ScriptedServer::start(vec![
        Step::call("submit", args(&ub_overflow()), 1000, 300),
        Step::call("submit", good_args(), 1800, 300),
    ])
    .unwrap();
    let model = with_protocol(client(&server), ToolProtocol::Native);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    assert_eq!(run.stop, StopReason::Accepted);
    let bad = &run.candidates[0];
    assert!(!bad.accepted());
    assert_eq!(bad.kinds, ["ub_capacity_exceeded"], "{}", bad.result);
    let result = &last_tool_results(&server)[0];
    assert!(
        result.starts_with("submit: NOT ACCEPTED (runtime error)"),
        "{result}"
    );
    let rule = kb.chunk("L2.ub-budget").unwrap();
    assert!(result.contains(rule.body.trim()), "{result}");
    assert!(run.candidates[1].accepted());
}

fn text_answer(tool: &str, files: bool) -> String {
    let (k, t, f) = good();
    if files {
        format!(
            "Here is the kernel.\n\n```cpp kernel.cpp\n{k}```\n\n```cpp tiling.cpp\n{t}```\n\n```text tiling_fields.txt\n{f}```\n\n```json\n{}\n```\n",
            json!({"tool": tool, "arguments": {"kernel": "kernel.cpp", "tiling": "tiling.cpp", "fields": "tiling_fields.txt"}})
        )
    } else {
        format!(
            "```json\n{}\n```\n",
            json!({"tool": tool, "arguments": {"kernel": k, "tiling": t, "fields": f}})
        )
    }
}

#[test]
fn the_text_protocol_works_end_to_end() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let server = ScriptedServer::start(vec![
        Step::text(&text_answer("run_tests", false), 1200, 700),
        Step::text("Let me think about it first.", 1300, 10),
        Step::text(&text_answer("submit", true), 1900, 720),
    ])
    .unwrap();
    let model = with_protocol(client(&server), ToolProtocol::Text);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    assert_eq!(run.stop, StopReason::Accepted, "{:#?}", run.step_records);
    assert_eq!(run.steps, 3);
    assert_eq!(run.failed_steps, 1, "the answer without a tool block");
    assert_eq!(run.usage.total(), server.usage_sent().total());
    let reqs = server.requests();
    for r in &reqs {
        let j = r.json();
        assert!(
            j.get("tools").is_none(),
            "the text protocol sends no `tools`"
        );
        assert!(j["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("submit"));
    }
    let last = reqs.last().unwrap().json();
    let texts: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Result of `run_tests`") && t.contains("run_tests: PASSED")),
        "{texts:#?}"
    );
    assert!(texts.iter().any(|t| t.contains("has no tool call")));
}

fn summary(run: &AgentRun) -> Value {
    json!({
        "stop": run.stop.label(),
        "steps": run.steps,
        "failed": run.failed_steps,
        "usage": [run.usage.prompt, run.usage.completion],
        "candidates": run.candidates.iter().map(|c| json!({
            "tool": c.tool, "digest": c.digest, "kinds": c.kinds, "result": c.result,
            "outcome": c.evaluation.as_ref().map(|e| e.outcome.label()),
            "accepted": c.accepted(),
        })).collect::<Vec<_>>(),
        "knowledge": run.knowledge.iter().map(|k| format!("{}:{}", k.id, k.digest)).collect::<Vec<_>>(),
        "messages": serde_json::to_value(&run.messages).unwrap(),
    })
}

#[test]
fn a_replay_reproduces_the_run_with_the_server_stopped() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let dir = scratch("replay");
    let mut server = ScriptedServer::start(vec![
        Step::call("run_tests", args(&ub_overflow()), 1000, 300),
        Step::call("read_knowledge", json!({"id": "L2.ub-budget"}), 1100, 20),
        Step::call("submit", good_args(), 1800, 300),
    ])
    .unwrap();
    let recorded = {
        let model = with_protocol(
            Recorder::new(client(&server), dir.join("llm")).unwrap(),
            ToolProtocol::Auto,
        );
        run_agent(&op, &kb, &model, &config()).unwrap()
    };
    assert_eq!(recorded.stop, StopReason::Accepted);
    server.stop();
    let replayer: Box<dyn ChatModel> =
        with_protocol(Replayer::open(dir.join("llm")).unwrap(), ToolProtocol::Auto);
    let replayed = run_agent(&op, &kb, &replayer, &config()).unwrap();
    assert_eq!(summary(&replayed), summary(&recorded));

    // A changed prompt (another knowledge mode) is not in the recording: the run stops and
    // says why.
    let replayer = with_protocol(Replayer::open(dir.join("llm")).unwrap(), ToolProtocol::Auto);
    let mut cfg = config();
    cfg.knowledge = agenticcann_evolve::agent::KnowledgeMode::None;
    let other = run_agent(&op, &kb, &replayer, &cfg).unwrap();
    match &other.stop {
        StopReason::ModelUnavailable(m) => assert!(m.contains("not in the recording"), "{m}"),
        s => panic!("{s:?}"),
    }
}
