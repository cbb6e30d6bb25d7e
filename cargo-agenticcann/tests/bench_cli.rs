//! `cargo agenticcann bench` as a binary: the usage errors that stop it before anything is
//! judged (the benchmark itself is tested on a small subset in agenticcann-evolve's
//! `tests/bench.rs`).

use snapbox::cmd::{cargo_bin, Command};

fn bench() -> Command {
    Command::new(cargo_bin!("cargo-agenticcann")).args(["agenticcann", "bench"])
}

const KEY_VARS: [&str; 5] = [
    "AGENTICCANN_LLM_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "AGENTICCANN_LLM_BASE_URL",
    "AGENTICCANN_LLM_MODEL",
];

fn llm_bench() -> Command {
    let mut c = bench();
    for v in KEY_VARS {
        c = c.env_remove(v);
    }
    c
}

#[test]
fn an_llm_proposer_without_a_key_for_a_remote_endpoint_exits_3() {
    for p in ["llm", "both"] {
        let out = llm_bench()
            .args(["--proposer", p, "--base-url", "https://api.example.com/v1"])
            .args(["--filter", "^relu_f16$"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "--proposer {p}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("AGENTICCANN_LLM_API_KEY"), "{err}");
    }
}

/// The honest fp16 add of the judge's corpus as a model's tool arguments.
fn good_args() -> serde_json::Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("../agenticcann-build/tests/judge/honest/add_f16");
    let read = |f: &str| std::fs::read_to_string(fixture.join(f)).unwrap();
    let fields = std::fs::read_to_string(
        root.join("../agenticcann-evolve/tests/agent_support/add_f16/tiling_fields.txt"),
    )
    .unwrap();
    serde_json::json!({"kernel": read("kernel.cpp"), "tiling": read("tiling.cpp"), "fields": fields})
}

/// The committed suite with one more elementwise op, `add_f16`, whose kernel the scripted
/// model writes.
fn suite_with_add(dir: &std::path::Path) -> std::path::PathBuf {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/suite");
    let suite = dir.join("suite");
    for entry in walk(&src) {
        let rel = entry.strip_prefix(&src).unwrap();
        let to = suite.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let manifest = suite.join("elementwise/Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str(
        "\n[package.metadata.agenticcann.ops.add_f16]\n\
         inputs = { x = \"f16[n]\", y = \"f16[n]\" }\n\
         outputs = { z = \"f16[n]\" }\n\
         reference = \"z = x + y\"\n\
         shapes = [{ n = 4096 }, { n = 100000 }]\n\
         pattern = \"elementwise\"\n\
         eager = { source = \"test\", vendor = \"aclnnAdd\" }\n",
    );
    std::fs::write(&manifest, text).unwrap();
    suite
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name()
                .is_some_and(|n| n == "target" || n == "kernels")
            {
                continue;
            }
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn llm_and_both_run_an_evolve_search_per_op_and_report_its_accounting() {
    use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_add(dir.path());
    let mut server = ScriptedServer::start(vec![
        Step::call("compile", good_args(), 1000, 200),
        Step::call("submit", good_args(), 1500, 250),
    ])
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = llm_bench()
        .args(["--proposer", "both", "--filter", "^add_f16$", "--seed", "7"])
        .args(["--generations", "1", "--model", "scripted", "--base-url"])
        .arg(server.base_url())
        .arg("--suite")
        .arg(&suite)
        .arg("--run-dir")
        .arg(dir.path().join("run"))
        .arg("--out")
        .arg(&out_dir)
        .env("AGENTICCANN_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    server.stop();
    assert_eq!(
        server.requests().len(),
        2,
        "one agent conversation of two turns"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let op = &v["ops"][0];
    assert_eq!(op["name"], "add_f16");
    assert_eq!(op["status"], "feasible", "{op:#}");
    assert!(
        op["kernel_from"]
            .as_str()
            .unwrap()
            .starts_with("init: agent step"),
        "the model's kernel, not an offline one: {op:#}"
    );
    // Tokens: the script's usage sums, all in the generation-1 agent's phase.
    assert_eq!(op["tokens"], serde_json::json!({"init": 2950}), "{op:#}");
    assert_eq!(op["speedup_first"], 1.0);
    // Side by side: the offline proposer's kernel for the same op, and its own report.
    assert!(op["speedup_offline"].as_f64().unwrap() > 0.0, "{op:#}");
    let off: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("offline/results.json")).unwrap(),
    )
    .unwrap();
    // The offline column is the variant the offline search chose.
    assert!(
        off["ops"][0]["kernel_from"]
            .as_str()
            .unwrap()
            .starts_with("offline tile="),
        "{off:#}"
    );
    assert_eq!(off["meta"]["proposer"], "offline");
    let proposer = v["meta"]["proposer"].as_str().unwrap();
    assert!(
        proposer.contains("scripted") && proposer.contains("1 generation(s)"),
        "{proposer}"
    );
    let md = std::fs::read_to_string(out_dir.join("RESULTS.md")).unwrap();
    assert!(md.contains("## The search per op"), "{md}");
    assert!(md.contains("init 2950"), "{md}");
    // The exchanges are recorded in the run folder.
    assert!(dir.path().join("run/llm").is_dir());
}

#[test]
fn bad_filters_are_usage_errors() {
    let out = bench().args(["--filter", "(unclosed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --filter"));
    let out = bench()
        .args(["--filter", "^no_such_op_anywhere$"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no op of"));
}

#[test]
fn a_suite_folder_that_is_not_a_suite_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("nonsense")).unwrap();
    let out = bench().arg("--suite").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a pattern folder"), "{err}");
}
