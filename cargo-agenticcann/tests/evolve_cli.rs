//! `cargo agenticcann evolve` driven as a binary: exit statuses, `--llm none`, an external
//! agent (a shell script), a scripted server, and a replay of its run with the server gone.

use std::path::{Path, PathBuf};

use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
use serde_json::{json, Value};
use snapbox::cmd::{cargo_bin, Command};

mod common;

const MANIFEST: &str = r#"[package]
name = "evolve-cli"
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

const KEY_VARS: [&str; 5] = [
    "AGENTICCANN_LLM_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "AGENTICCANN_LLM_BASE_URL",
    "AGENTICCANN_LLM_MODEL",
];

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agenticcann-evolve/tests/agent_support/add_f16")
}

fn good_args() -> Value {
    let read = |f: &str| std::fs::read_to_string(fixture().join(f)).unwrap();
    json!({"kernel": read("kernel.cpp"), "tiling": read("tiling.cpp"), "fields": read("tiling_fields.txt")})
}

fn setup(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("evolve-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("Cargo.toml"), MANIFEST).unwrap();
    root
}

fn evolve(root: &Path) -> Command {
    let mut c = Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "evolve", "--manifest-path"])
        .arg(root.join("Cargo.toml"));
    for v in KEY_VARS {
        c = c.env_remove(v);
    }
    c
}

fn run(c: Command) -> (Option<i32>, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_remote_endpoint_without_a_key_exits_3_naming_the_variables() {
    let root = setup("no-key");
    let (code, out, err) = run(evolve(&root)
        .args([
            "--op",
            "add_f16",
            "--base-url",
            "https://api.example.com/v1",
            "--no-offline-baseline",
        ])
        .arg("--run-dir")
        .arg(root.join("run")));
    assert_eq!(code, Some(3), "{out}\n{err}");
    for v in [
        "AGENTICCANN_LLM_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENAI_API_KEY",
    ] {
        assert!(err.contains(v), "{err}");
    }
    assert!(
        !root.join("run").exists(),
        "nothing is written before the key check"
    );
    // The default endpoint is remote too.
    let (code, _, err) = run(evolve(&root).args(["--op", "add_f16"]));
    assert_eq!(code, Some(3), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let root = setup("usage");
    let (code, _, err) = run(evolve(&root).args(["--knowledge", "everything"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("api+constraints"), "{err}");
    let (code, _, err) = run(evolve(&root).args(["--op", "nope", "--llm", "none"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("no op `nope`") && err.contains("add_f16"),
        "{err}"
    );
    let (code, _, err) = run(evolve(&root).args(["--tool-protocol", "smoke"]));
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run(evolve(&root).args(["--max-steps", "0"]));
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run(evolve(&root).arg("--replay").arg(root.join("missing")));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a run folder"), "{err}");
}

#[test]
fn llm_none_reports_the_offline_seed() {
    let root = setup("llm-none");
    let (code, out, err) = run(evolve(&root)
        .args(["--llm", "none", "--run-dir"])
        .arg(root.join("run")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("add_f16: generation 1 needs a model"), "{out}");
    assert!(out.contains("n=4096: offline proposer"), "{out}");
}

#[test]
fn an_external_agent_script_gets_its_kernel_accepted() {
    let root = setup("agent-command");
    let script = root.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\ncp {f}/kernel.cpp {f}/tiling.cpp {f}/tiling_fields.txt .\nagc-compile >/dev/null\nagc-submit\n",
            f = fixture().display()
        ),
    )
    .unwrap();
    let (code, out, err) = run(evolve(&root)
        .args([
            "--op",
            "add_f16",
            "--message-format",
            "json",
            "--agent-command",
        ])
        .arg(format!("sh {}", script.display()))
        .arg("--run-dir")
        .arg(root.join("run")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["accepted"], true);
    assert_eq!(v["summary"]["steps"], 2);
    assert_eq!(
        v["summary"]["total_tokens"],
        Value::Null,
        "tokens are not measured"
    );
    assert_eq!(v["summary"]["stop"]["reason"], "accepted");
    let pending = v["pending"][0].as_str().unwrap();
    assert!(Path::new(pending).join("manifest.toml").is_file());
    assert!(v["offline_time_us"][0]["us"].as_f64().unwrap() > 0.0);
    assert!(v["time_us"][0]["us"].as_f64().unwrap() > 0.0);
    snapbox::assert_data_eq!(
        common::structure(&v, &["accepted", "reason", "tool", "knowledge_mode"]),
        snapbox::file!["snapshots/evolve_op.json": Text]
    );
}

#[test]
fn a_scripted_server_run_is_recorded_and_replayed_without_it() {
    let root = setup("server");
    let mut server = ScriptedServer::start(vec![
        Step::call("compile", good_args(), 1000, 200),
        Step::call("submit", good_args(), 1500, 250),
    ])
    .unwrap();
    let (code, out, err) = run(evolve(&root)
        .args([
            "--op",
            "add_f16",
            "--message-format",
            "json",
            "--no-offline-baseline",
            "--base-url",
        ])
        .arg(server.base_url())
        .args(["--model", "scripted", "--run-dir"])
        .arg(root.join("a")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let a: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(a["accepted"], true);
    assert_eq!(a["summary"]["total_tokens"], 2950);
    assert_eq!(a["summary"]["steps"], 2);
    server.stop();

    let (code, out, err) = run(evolve(&root)
        .args([
            "--op",
            "add_f16",
            "--message-format",
            "json",
            "--no-offline-baseline",
            "--replay",
        ])
        .arg(root.join("a"))
        .arg("--run-dir")
        .arg(root.join("b")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let b: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(b["summary"]["candidates"], a["summary"]["candidates"]);
    assert_eq!(b["summary"]["total_tokens"], a["summary"]["total_tokens"]);
    assert_eq!(b["time_us"], a["time_us"]);
    let conv =
        |d: &str| std::fs::read_to_string(root.join(d).join("add_f16/conversation.json")).unwrap();
    assert_eq!(conv("a"), conv("b"));

    // The key never reaches the run folder: a run with a key set.
    let mut server =
        ScriptedServer::start(vec![Step::call("submit", good_args(), 10, 10)]).unwrap();
    let secret = "sk-test-0123456789abcdef-never-written";
    let (code, out, err) = run(evolve(&root)
        .env("AGENTICCANN_LLM_API_KEY", secret)
        .args(["--op", "add_f16", "--no-offline-baseline", "--base-url"])
        .arg(server.base_url())
        .arg("--run-dir")
        .arg(root.join("c")));
    server.stop();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(!out.contains(secret) && !err.contains(secret));
    let mut stack = vec![root.join("c")];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files += 1;
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(secret),
                    "{} holds the key",
                    p.display()
                );
            }
        }
    }
    assert!(files > 5, "{files}");
}
