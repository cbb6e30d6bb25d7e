//! Shared by the agent tests: a small op with a known-good kernel (the judge's honest fp16
//! add), a known fault (a tile too large for the Unified Buffer), and an in-process chat
//! model answering from a script.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Mutex;

use agenticcann_build::judge::EvalOptions;
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_evolve::agent::AgentConfig;
use agenticcann_evolve::llm::{
    AssistantMessage, ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, ToolCall, Usage,
};
use serde_json::json;

pub const MANIFEST: &str = r#"[package]
name = "agent-test"
version = "0.1.0"
edition = "2021"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.add_f16]
inputs = { x = "f16[n]", y = "f16[n]" }
outputs = { z = "f16[n]" }
reference = "z = x + y"
shapes = [{ n = 4096 }, { n = 100000 }]
"#;

pub fn op() -> OpSpec {
    Spec::from_manifest_str(MANIFEST, None)
        .unwrap()
        .unwrap()
        .require_op("add_f16")
        .unwrap()
        .clone()
}

/// The honest fp16 add of the judge's corpus (kernel.cpp, tiling.cpp): the one copy of the
/// kernel these tests use.
pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agenticcann-build/tests/judge/honest/add_f16")
}

/// This folder's `add_f16/`: the corpus kernel's tiling fields in the agent's file format
/// (`tiling_fields.txt`; the corpus keeps them in case.toml).
pub fn support() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/agent_support/add_f16")
}

/// A shell command copying the three files of the honest kernel into the current folder.
pub fn cp_good() -> String {
    format!(
        "cp {c}/kernel.cpp {c}/tiling.cpp {s}/tiling_fields.txt .",
        c = corpus().display(),
        s = support().display()
    )
}

fn file(name: &str) -> String {
    let p = if name == "tiling_fields.txt" {
        support()
    } else {
        corpus()
    }
    .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The honest kernel: (kernel.cpp, tiling.cpp, tiling_fields.txt).
pub fn good() -> (String, String, String) {
    (
        file("kernel.cpp"),
        file("tiling.cpp"),
        file("tiling_fields.txt"),
    )
}

/// The same kernel with tiles of 40000 elements: 3 queues x 2 buffers x 80000 bytes do not
/// fit the 192 KiB Unified Buffer (`ub_capacity_exceeded` at InitBuffer).
pub fn ub_overflow() -> (String, String, String) {
    let (k, t, f) = good();
    let t2 = t.replace(
        "tiling->tile_length = 4096;",
        "tiling->tile_length = 40000;",
    );
    assert_ne!(t, t2, "the fault must be injected");
    (k, t2, f)
}

pub fn args((k, t, f): &(String, String, String)) -> serde_json::Value {
    json!({"kernel": k, "tiling": t, "fields": f})
}

/// A response calling `tool` with `arguments` (JSON text), costing `prompt` + `completion`
/// tokens.
pub fn call(
    tool: &str,
    arguments: &str,
    prompt: u64,
    completion: u64,
) -> Result<ChatResponse, LlmError> {
    Ok(ChatResponse {
        message: AssistantMessage {
            content: None,
            tool_calls: vec![ToolCall {
                id: format!("call-{tool}"),
                name: tool.into(),
                arguments: arguments.into(),
            }],
            reasoning_content: None,
        },
        finish_reason: FinishReason::ToolCalls,
        usage: Usage {
            prompt,
            completion,
            ..Usage::default()
        },
        model: Some("scripted".into()),
    })
}

pub fn text(content: &str, prompt: u64, completion: u64) -> Result<ChatResponse, LlmError> {
    Ok(ChatResponse {
        message: AssistantMessage {
            content: Some(content.into()),
            tool_calls: Vec::new(),
            reasoning_content: None,
        },
        finish_reason: FinishReason::Stop,
        usage: Usage {
            prompt,
            completion,
            ..Usage::default()
        },
        model: Some("scripted".into()),
    })
}

/// Answers from a script, in order; records every request. Past the script's end it keeps
/// answering with the last entry.
pub struct Scripted {
    pub answers: Mutex<Vec<Result<ChatResponse, LlmError>>>,
    pub requests: Mutex<Vec<ChatRequest>>,
}

impl Scripted {
    pub fn new(mut answers: Vec<Result<ChatResponse, LlmError>>) -> Scripted {
        answers.reverse();
        Scripted {
            answers: Mutex::new(answers),
            requests: Mutex::new(Vec::new()),
        }
    }

    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl ChatModel for Scripted {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.requests.lock().unwrap().push(req.clone());
        let mut a = self.answers.lock().unwrap();
        if a.len() > 1 {
            a.pop().unwrap()
        } else {
            a.last().cloned().expect("a non-empty script")
        }
    }

    fn describe(&self) -> String {
        "scripted model".into()
    }
}

/// Agent settings for tests: judge seed 7, the default judge cache
/// (`$AGENTICCANN_CACHE_DIR/judge`, shared with the other tests).
pub fn config() -> AgentConfig {
    let mut c = AgentConfig::new("scripted");
    c.eval = EvalOptions {
        seed: Some(7),
        ..EvalOptions::default()
    };
    c
}

/// A fresh folder under the test target folder.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("agent")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
