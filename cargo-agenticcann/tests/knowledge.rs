//! `cargo agenticcann knowledge show|check` driven as a binary, and `check` over the
//! operator suite.

use std::path::{Path, PathBuf};

use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
        .canonicalize()
        .unwrap()
}

fn agenticcann(args: &[&str]) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .arg("agenticcann")
        .args(args)
        .env_remove("AGENTICCANN_KNOWLEDGE_DIR")
}

fn suite_manifest(pattern: &str) -> String {
    repo("tests/specs")
        .join(pattern)
        .join("Cargo.toml")
        .display()
        .to_string()
}

fn json_of(cmd: Command) -> (i32, Value) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (out.status.code().unwrap(), v)
}

#[test]
fn knowledge_check_passes_and_prints_the_budget_table() {
    let out = agenticcann(&["knowledge", "check"]).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for needle in [
        "pattern",
        "init",
        "mutation",
        "repair",
        "tuning",
        "normalization",
        "/800",
        "/100",
        "\nok\n",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in\n{stdout}");
    }
    let (code, v) = json_of(agenticcann(&[
        "knowledge",
        "check",
        "--message-format",
        "json",
    ]));
    assert_eq!(code, 0);
    assert_eq!(v["ok"], true);
    let budgets = v["budgets"].as_array().unwrap();
    assert_eq!(budgets.len(), 24);
    for b in budgets {
        assert!(
            b["worst_case"].as_u64().unwrap() <= b["budget"].as_u64().unwrap(),
            "{b}"
        );
    }
    // Until part 2 writes them, exemplars are missing; requiring them fails.
    assert_eq!(v["exemplars"][0]["status"], "missing");
    agenticcann(&["knowledge", "check", "--require-exemplars"])
        .assert()
        .code(1);
}

#[test]
fn knowledge_check_reports_a_broken_knowledge_base() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("patterns.toml"), "[softmax]\n").unwrap();
    let out = agenticcann(&[
        "knowledge",
        "check",
        "--knowledge-dir",
        dir.path().to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("L0: missing folder"), "{stdout}");
    assert!(stdout.contains("patterns.toml: [softmax]"), "{stdout}");
}

#[test]
fn knowledge_show_for_an_op_of_the_suite() {
    let m = suite_manifest("normalization");
    let out = agenticcann(&[
        "knowledge",
        "show",
        "--op",
        "rms_norm_f16",
        "--phase",
        "init",
        "--manifest-path",
        &m,
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for needle in [
        "# Hardware\n",
        "# Rules\n",
        "--- accounting ---",
        "op:      rms_norm_f16 (package suite-normalization)",
        "pattern: normalization (last-axis mean broadcast back over rows shaped [rows, 4096])",
        "phase:   init",
        "(cl100k_base), budget 800",
        "L2.reduce-float",
        "sha256 ",
        "omitted: L5.normalization — not written yet (reserve 200 tokens)",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in\n{stdout}");
    }
    let (code, v) = json_of(agenticcann(&[
        "knowledge",
        "show",
        "--op",
        "add_rms_norm_bf16",
        "--phase",
        "repair",
        "--error",
        "ub_misaligned",
        "--error",
        "kernel_exception",
        "--manifest-path",
        &m,
        "--message-format",
        "json",
    ]));
    assert_eq!(code, 0);
    assert_eq!(v["pattern"], "normalization");
    assert_eq!(v["routing"]["rule"], "Declared");
    assert_eq!(v["phase"], "repair");
    assert_eq!(v["tokenizer"], "cl100k_base");
    assert_eq!(v["chunks"][0]["id"], "L2.align32");
    assert_eq!(v["chunks"][0]["digest"].as_str().unwrap().len(), 64);
    assert_eq!(v["unmatched_kinds"][0], "kernel_exception");
    assert_eq!(v["omitted"][0]["reason"], "not_written");
    assert!(v["tokens"].as_u64().unwrap() <= v["budget"].as_u64().unwrap());
    assert!(v["text"].as_str().unwrap().starts_with("# Rules\n"));
}

#[test]
fn knowledge_show_for_a_pattern_and_bad_input() {
    let (code, v) = json_of(agenticcann(&[
        "knowledge",
        "show",
        "--pattern",
        "softmax",
        "--phase",
        "tuning",
        "--message-format",
        "json",
    ]));
    assert_eq!(code, 0);
    assert_eq!(v["op"], Value::Null);
    assert_eq!(v["chunks"].as_array().unwrap().len(), 1);
    assert!(v["tokens"].as_u64().unwrap() <= 100);

    let m = suite_manifest("softmax");
    let err = |args: &[&str]| {
        let out = agenticcann(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let e = err(&[
        "knowledge",
        "show",
        "--pattern",
        "softmax",
        "--phase",
        "polish",
    ]);
    assert!(e.contains("unknown phase `polish`"), "{e}");
    let e = err(&["knowledge", "show", "--pattern", "rows", "--phase", "init"]);
    assert!(e.contains("unknown pattern `rows`"), "{e}");
    let e = err(&[
        "knowledge",
        "show",
        "--pattern",
        "softmax",
        "--phase",
        "repair",
        "--error",
        "oops",
    ]);
    assert!(e.contains("unknown diagnostic kind `oops`"), "{e}");
    let e = err(&[
        "knowledge",
        "show",
        "--op",
        "nope",
        "--phase",
        "init",
        "--manifest-path",
        &m,
    ]);
    assert!(
        e.contains("no op `nope`") && e.contains("log_softmax_bf16"),
        "{e}"
    );
    // --op or --pattern is required.
    let out = agenticcann(&["knowledge", "show", "--phase", "init"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_passes_on_every_suite_package() {
    for p in [
        "elementwise",
        "broadcast",
        "reduction",
        "normalization",
        "softmax",
        "fusion",
    ] {
        let out = agenticcann(&["check", "--manifest-path", &suite_manifest(p)])
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{p}: {stdout}");
        for line in stdout.lines() {
            assert!(line.contains(&format!("pattern {p}")), "{p}: {line}");
        }
        assert!(!repo("tests/specs").join(p).join("Cargo.lock").exists());
    }
}
