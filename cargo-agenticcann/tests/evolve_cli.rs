//! `cargo agenticcann evolve` driven as a binary: exit statuses, `--llm none` (the offline
//! tiling search alone), an external agent (a shell script), a scripted server, a replay of
//! a whole search with the server gone, and a killed run resumed.

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

/// The honest fp16 add of the judge's corpus (kernel.cpp, tiling.cpp).
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agenticcann-build/tests/judge/honest/add_f16")
}

/// Its tiling fields in the agent's file format.
fn fields_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agenticcann-evolve/tests/agent_support/add_f16/tiling_fields.txt")
}

fn good_args() -> Value {
    let read = |f: &str| std::fs::read_to_string(fixture().join(f)).unwrap();
    let fields = std::fs::read_to_string(fields_file()).unwrap();
    json!({"kernel": read("kernel.cpp"), "tiling": read("tiling.cpp"), "fields": fields})
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
    // Pending results go to the user cache: each test has its own.
    c.env("AGENTICCANN_CACHE_DIR", root.join("cache"))
}

/// The last line of `--message-format json` output: the op's message (the lines before it
/// are the loop's events).
fn last_json(out: &str) -> Value {
    let line = out.trim().lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `candidates.jsonl` of an op in a run folder, without the judge's wall times (`compile_s`,
/// `run_s`), which differ from run to run.
fn candidate_lines(run: &Path) -> Vec<Value> {
    op_candidate_lines(run, "add_f16")
}

/// As [`candidate_lines`], of `op`.
fn op_candidate_lines(run: &Path, op: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(run.join(op).join("candidates.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("compile_s");
            o.remove("run_s");
            v
        })
        .collect()
}

/// The honest kernel with more cores on small inputs: faster on n=4096.
fn more_cores_answer() -> String {
    let read = |f: &str| std::fs::read_to_string(fixture().join(f)).unwrap();
    let tiling = read("tiling.cpp").replace("(total + 2047) / 2048", "(total + 511) / 512");
    format!(
        "```cpp kernel.cpp\n{}```\n\n```cpp tiling.cpp\n{tiling}```\n",
        read("kernel.cpp")
    )
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
    // Without a model, a seed or a tiling search nothing would run.
    for tiling in [&["--no-tiling-search"][..], &["--tiling-variants", "0"][..]] {
        let (code, _, err) = run(evolve(&root)
            .args(["--llm", "none", "--no-offline-seed"])
            .args(tiling));
        assert_eq!(code, Some(2), "{tiling:?}: {err}");
        assert!(err.contains("leaves nothing to run"), "{err}");
    }
    assert!(
        !root.join("target").exists(),
        "a refused run made a run folder"
    );
}

#[test]
fn llm_none_runs_the_offline_seed_and_the_tiling_search() {
    let root = setup("llm-none");
    let (code, out, err) = run(evolve(&root)
        .args([
            "--llm",
            "none",
            "--generations",
            "2",
            "--tiling-variants",
            "2",
            "--run-dir",
        ])
        .arg(root.join("run")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("add_f16: FEASIBLE, 2 generation(s)"), "{out}");
    assert!(out.contains("0 tokens"), "{out}");
    assert!(out.contains("offline seed (synth::search"), "{out}");
    let lines = candidate_lines(&root.join("run"));
    assert_eq!(lines[0]["phase"], "offline", "{lines:#?}");
    assert!(
        lines[1..].iter().all(|l| l["phase"] == "tiling"),
        "{lines:#?}"
    );
    assert!(lines.iter().all(|l| l["mode"] == "none"), "{lines:#?}");
    // The best kernel is pending review in the user cache and in the run folder.
    let pending: Vec<_> = std::fs::read_dir(root.join("cache/pending"))
        .unwrap()
        .collect();
    assert_eq!(pending.len(), 1);
    let svg = std::fs::read_to_string(root.join("run/progress.svg")).unwrap();
    assert!(svg.contains("no tokens spent (no model)"), "{svg}");
    // run.json records every setting that shapes the run.
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("run/run.json")).unwrap()).unwrap();
    assert_eq!(info["mode"], "none");
    assert_eq!(info["generations"], 2);
    assert_eq!(info["tiling_variants"], 2);
    assert_eq!(info["tiling_search"], true);
    assert_eq!(info["offline_seed"], true);

    // A replay of it (without --llm none, other flags at their defaults) runs it again
    // offline with the recorded settings: the same candidates.
    let (code, out, err) = run(evolve(&root)
        .arg("--replay")
        .arg(root.join("run"))
        .arg("--run-dir")
        .arg(root.join("again")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("replay: the recorded run asked no model (--llm none)"),
        "{out}"
    );
    assert!(out.contains("--generations 2 (given 3)"), "{out}");
    assert!(out.contains("--tiling-variants 2 (given 12)"), "{out}");
    assert_eq!(candidate_lines(&root.join("again")), lines);
}

/// Issue 16: with no model at all, the tiling search alone improves the offline seed of the
/// build fixture's rms_norm and the table says so. (In the cost model: 50 rows on 48 cores
/// leave two cores with a second row, run while the first rows shared HBM; 25 cores with two
/// rows each finish sooner, since 25 cores' MTE bandwidth already saturates HBM. The size of
/// the gain rests on the uncalibrated per-core DMA bandwidth of the SoC profile.)
#[test]
fn llm_none_improves_the_fixture_rms_norm_through_tiling_alone() {
    let root = setup("llm-none-rms-norm");
    let fixture_manifest =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/build-fixture/Cargo.toml");
    let mut c = Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "evolve", "--manifest-path"])
        .arg(&fixture_manifest)
        .args([
            "--op",
            "rms_norm",
            "--llm",
            "none",
            "--generations",
            "1",
            "--run-dir",
        ])
        .arg(root.join("run"))
        .env("AGENTICCANN_CACHE_DIR", root.join("cache"));
    for v in KEY_VARS {
        c = c.env_remove(v);
    }
    let (code, out, err) = run(c);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("the offline tiling search alone improved the offline seed 1."),
        "{out}"
    );
    assert!(
        out.contains("cols=4096,rows=50 "),
        "the shape it improved: {out}"
    );
    let lines = op_candidate_lines(&root.join("run"), "rms_norm");
    let seed = lines.iter().find(|l| l["phase"] == "offline").unwrap();
    let best = lines
        .iter()
        .filter(|l| l["fitness"].is_number())
        .min_by(|a, b| {
            a["fitness"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["fitness"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(best["phase"], "tiling", "{best:#}");
    assert!(best["fitness"].as_f64() < seed["fitness"].as_f64());
}

#[test]
fn an_external_agent_script_gets_its_kernel_accepted() {
    let root = setup("agent-command");
    let script = root.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\ncp {f}/kernel.cpp {f}/tiling.cpp {t} .\nagc-compile >/dev/null\nagc-submit\n",
            f = fixture().display(),
            t = fields_file().display()
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
    // Also pending in the user cache, for `review` and `accept`.
    let cached = v["pending"][1].as_str().unwrap();
    assert!(
        Path::new(cached).starts_with(root.join("cache")),
        "{cached}"
    );
    assert!(Path::new(cached).join("entry/manifest.toml").is_file());
    assert!(v["offline_time_us"][0]["us"].as_f64().unwrap() > 0.0);
    assert!(v["time_us"][0]["us"].as_f64().unwrap() > 0.0);
    snapbox::assert_data_eq!(
        common::structure(&v, &["accepted", "reason", "tool", "knowledge_mode"]),
        snapbox::file!["snapshots/evolve_op.json": Text]
    );
}

#[test]
fn an_external_agent_run_accepts_into_the_crate_and_refuses_flags_it_would_ignore() {
    let root = setup("agent-command-accept");
    let script = root.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\ncp {f}/kernel.cpp {f}/tiling.cpp {t} .\nagc-submit\n",
            f = fixture().display(),
            t = fields_file().display()
        ),
    )
    .unwrap();
    let agent = format!("sh {}", script.display());
    // Flags of a model or of later generations mean nothing to an external agent: a usage
    // error naming the flag, before anything runs.
    for extra in [
        &["--generations", "3"][..],
        &["--model", "m"][..],
        &["--token-budget", "100"][..],
        &["--no-tiling-search"][..],
    ] {
        let (code, out, err) = run(evolve(&root)
            .args(["--op", "add_f16", "--agent-command", &agent])
            .args(extra));
        assert_eq!(code, Some(2), "{extra:?}\n{out}\n{err}");
        assert!(
            err.contains(extra[0]) && err.contains("--agent-command"),
            "{err}"
        );
    }
    assert!(
        !root.join("target").exists(),
        "a refused run made a run folder"
    );

    let (code, out, err) = run(evolve(&root)
        .args([
            "--op",
            "add_f16",
            "--message-format",
            "json",
            "--no-offline-seed",
        ])
        .args(["--accept", "--agent-command", &agent, "--run-dir"])
        .arg(root.join("run")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["accepted"], true, "{v:#}");
    let entry = PathBuf::from(
        v["accepted_into"]
            .as_str()
            .unwrap_or_else(|| panic!("{v:#}")),
    );
    assert_eq!(entry.parent(), Some(root.join("kernels").as_path()));
    let manifest_digest =
        agenticcann_build::store::Digest::of_file(&entry.join("manifest.toml")).unwrap();
    let lock = agenticcann_build::store::Lock::read(&root.join("agenticcann.lock"))
        .unwrap()
        .unwrap();
    assert_eq!(lock.get("add_f16").unwrap().manifest, manifest_digest);
    // The run folder keeps its copy; the user cache's pending result (what `review` shows)
    // was accepted, so it is no longer pending.
    let pending: Vec<&str> = v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(pending.len(), 2, "{v:#}");
    assert!(Path::new(pending[0]).starts_with(root.join("run")));
    assert!(Path::new(pending[0]).join("manifest.toml").is_file());
    assert!(Path::new(pending[1]).starts_with(root.join("cache")));
    assert!(
        !Path::new(pending[1]).exists(),
        "still pending after --accept"
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
            "--generations",
            "1",
            "--no-tiling-search",
            "--base-url",
        ])
        .arg(server.base_url())
        .args(["--model", "scripted", "--run-dir"])
        .arg(root.join("a")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let a = last_json(&out);
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
            "--generations",
            "1",
            "--no-tiling-search",
            "--replay",
        ])
        .arg(root.join("a"))
        .arg("--run-dir")
        .arg(root.join("b")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let b = last_json(&out);
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
        .args([
            "--op",
            "add_f16",
            "--no-offline-baseline",
            "--generations",
            "1",
        ])
        .args(["--no-tiling-search", "--base-url"])
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

/// The flags of a small two-generation search over the scripted server: no offline seed and
/// no tiling search, so every candidate is the model's.
const SEARCH: [&str; 10] = [
    "--op",
    "add_f16",
    "--no-offline-seed",
    "--no-tiling-search",
    "--generations",
    "2",
    "--population",
    "1",
    "--repairs",
    "0",
];

#[test]
fn a_whole_search_replays_to_the_same_lines_and_the_same_kernel() {
    let root = setup("search-replay");
    let mut server = ScriptedServer::start(vec![
        Step::call("submit", good_args(), 1000, 200),
        Step::text(&more_cores_answer(), 3000, 700),
        // The tuning request: the parent again (a duplicate, judged once).
        Step::text(
            &format!(
                "```cpp tiling.cpp\n{}```\n",
                std::fs::read_to_string(fixture().join("tiling.cpp")).unwrap()
            ),
            400,
            50,
        ),
    ])
    .unwrap();
    let (code, out, err) = run(evolve(&root)
        .args(SEARCH)
        .args([
            "--message-format",
            "json",
            "--model",
            "scripted",
            "--base-url",
        ])
        .arg(server.base_url())
        .arg("--run-dir")
        .arg(root.join("a")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    server.stop();
    let a = last_json(&out);
    let table = &a["search"];
    assert_eq!(table["total_tokens"], 1000 + 200 + 3000 + 700 + 400 + 50);
    assert_eq!(table["tokens_by_phase"]["mutation"]["prompt"], 3000);
    assert_eq!(table["tokens_by_phase"]["tuning"]["completion"], 50);
    assert_eq!(table["best"]["phase"], "mutation", "{table:#}");
    assert!(
        table["speedup_vs_first"].as_f64().unwrap() > 1.0,
        "{table:#}"
    );
    let lines_a = candidate_lines(&root.join("a"));
    assert_eq!(
        lines_a
            .iter()
            .map(|l| l["phase"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["init", "mutation", "tuning"]
    );
    assert_eq!(lines_a[2]["verdict"], "duplicate");
    // Every candidate was an event on stdout before the op's message.
    assert_eq!(out.matches("\"event\":\"candidate\"").count(), 3);

    let (code, out, err) = run(evolve(&root)
        .args(SEARCH)
        .args(["--message-format", "json", "--replay"])
        .arg(root.join("a"))
        .arg("--run-dir")
        .arg(root.join("b")));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let b = last_json(&out);
    assert_eq!(b["search"]["total_tokens"], table["total_tokens"]);
    assert_eq!(candidate_lines(&root.join("b")), lines_a);
    let key = a["key"].as_str().unwrap();
    for f in ["kernel.cpp", "tiling.cpp", "manifest.toml"] {
        let read =
            |d: &str| std::fs::read(root.join(d).join("add_f16/best").join(key).join(f)).unwrap();
        if f == "manifest.toml" {
            // The provenance names the model (the replay's description differs); the code
            // digests must not.
            let text = |d: &str| String::from_utf8(read(d)).unwrap();
            let digests = |t: String| {
                t.lines()
                    .filter(|l| l.contains("sha256"))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            };
            assert_eq!(digests(text("a")), digests(text("b")));
        } else {
            assert_eq!(read("a"), read("b"), "{f} byte for byte");
        }
    }
}

#[test]
fn a_run_killed_mid_generation_resumes_from_its_run_folder() {
    let root = setup("search-resume");
    // The mutation request hangs: the run is killed while it waits.
    let mut first = ScriptedServer::start(vec![
        Step::call("submit", good_args(), 1000, 200),
        Step::slow(
            std::time::Duration::from_secs(120),
            Step::text(&more_cores_answer(), 3000, 700),
        ),
    ])
    .unwrap();
    let run_dir = root.join("run");
    let mut child = std::process::Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "evolve", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .args(SEARCH)
        .args(["--model", "scripted", "--base-url"])
        .arg(first.base_url())
        .arg("--run-dir")
        .arg(&run_dir)
        .env("AGENTICCANN_CACHE_DIR", root.join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while first.requests().len() < 2 {
        assert!(
            t0.elapsed().as_secs() < 600,
            "the run never reached generation 2"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    first.stop();
    let before = candidate_lines(&run_dir);
    assert_eq!(before.len(), 1, "generation 1 was recorded: {before:#?}");

    // Run the same command again against a server that only knows the rest of the script.
    let mut second = ScriptedServer::start(vec![
        Step::text(&more_cores_answer(), 3000, 700),
        Step::text("no files in this answer", 400, 50),
    ])
    .unwrap();
    let (code, out, err) = run(evolve(&root)
        .args(SEARCH)
        .args([
            "--message-format",
            "json",
            "--model",
            "scripted",
            "--base-url",
        ])
        .arg(second.base_url())
        .arg("--run-dir")
        .arg(&run_dir));
    assert_eq!(code, Some(0), "{out}\n{err}");
    // It says it resumes, and from where.
    let resuming: Vec<Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == "resuming")
        .collect();
    assert_eq!(resuming.len(), 1, "{out}");
    assert_eq!(resuming[0]["candidates"], 1);
    assert!(resuming[0]["record"]
        .as_str()
        .unwrap()
        .ends_with("candidates.jsonl"));
    // Generation 1's answer came from the recording: the new server got only the rest.
    assert_eq!(second.requests().len(), 2);
    second.stop();
    let after = candidate_lines(&run_dir);
    assert_eq!(
        after[0], before[0],
        "the finished candidate is kept as it was"
    );
    assert_eq!(
        after
            .iter()
            .map(|l| l["phase"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["init", "mutation", "tuning"]
    );
    assert_eq!(after[2]["verdict"], "not_applied", "{:#?}", after[2]);
    assert_eq!(last_json(&out)["search"]["best"]["id"], 2);
}

#[test]
fn a_run_killed_during_the_generation_1_agent_keeps_its_offline_seed() {
    let root = setup("g1-resume");
    let args = [
        "--op",
        "add_f16",
        "--no-tiling-search",
        "--generations",
        "1",
        "--model",
        "scripted",
    ];
    // The agent's first request hangs: the run is killed while it waits.
    let mut first = ScriptedServer::start(vec![Step::slow(
        std::time::Duration::from_secs(120),
        Step::call("submit", good_args(), 1000, 200),
    )])
    .unwrap();
    let run_dir = root.join("run");
    let mut child = std::process::Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "evolve", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .args(args)
        .arg("--base-url")
        .arg(first.base_url())
        .arg("--run-dir")
        .arg(&run_dir)
        .env("AGENTICCANN_CACHE_DIR", root.join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while first.requests().is_empty() {
        assert!(
            t0.elapsed().as_secs() < 600,
            "the agent never asked the model"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    first.stop();
    // The seed was committed before the agent started.
    let before = candidate_lines(&run_dir);
    assert_eq!(before.len(), 1, "{before:#?}");
    assert_eq!(before[0]["phase"], "offline");
    assert!(before[0]["fitness"].is_number(), "{:#}", before[0]);

    let mut second =
        ScriptedServer::start(vec![Step::call("submit", good_args(), 1000, 200)]).unwrap();
    let (code, out, err) = run(evolve(&root)
        .args(args)
        .args(["--message-format", "json", "--base-url"])
        .arg(second.base_url())
        .arg("--run-dir")
        .arg(&run_dir));
    assert_eq!(code, Some(0), "{out}\n{err}");
    second.stop();
    let resuming: Vec<Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == "resuming")
        .collect();
    assert_eq!(resuming.len(), 1, "{out}");
    assert_eq!(resuming[0]["candidates"], 1);
    let after = candidate_lines(&run_dir);
    assert_eq!(after[0], before[0], "the seed is re-traced as it was");
    assert_eq!(
        after
            .iter()
            .map(|l| l["phase"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["offline", "init"]
    );
}
