//! `cargo agenticcann review`, `accept`, `reject` and the `pending` column of `status`, driven
//! as a binary over a crate whose pending result is real: the judge's honest `add_f16` kernel
//! with the real judge's evaluation, recorded with `pending::write`; the crate's current
//! kernel (when it has one) is the offline proposer's, judged as well.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agenticcann_build::judge::{evaluate, Candidate, EvalOptions, Evaluation};
use agenticcann_build::spec::Spec;
use agenticcann_build::store::{
    lock, write_entry, Digest, Draft, Entry, PhaseTokens, Proposer, Provenance, TilingField,
};
use agenticcann_build::synth::{synthesize, SynthOptions, Synthesized};
use agenticcann_evolve::pending::{self, PendingMeta};
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agenticcann-build/tests/judge")
}

fn eval_options() -> EvalOptions {
    EvalOptions {
        seed: Some(5),
        // The judge's precompiled header, shared with the other CLI tests.
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge")),
        ..EvalOptions::default()
    }
}

/// A crate declaring the corpus ops `add_f16` and `rms_norm_f16`, in a fresh folder.
fn crate_at(name: &str) -> (PathBuf, Spec) {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("review-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let specs = std::fs::read_to_string(corpus().join("specs.toml")).unwrap();
    let mut keep = String::new();
    let mut on = true;
    for line in specs.lines() {
        if let Some(rest) = line.strip_prefix("[package.metadata.agenticcann.ops.") {
            on = rest.starts_with("add_f16]") || rest.starts_with("rms_norm_f16]");
        }
        if on {
            keep.push_str(line);
            keep.push('\n');
        }
    }
    std::fs::write(root.join("Cargo.toml"), keep).unwrap();
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    (root, spec)
}

/// The honest corpus kernel of `add_f16`, judged once.
fn honest(spec: &Spec) -> &'static (Candidate, Evaluation) {
    static ONCE: OnceLock<(Candidate, Evaluation)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = corpus().join("honest/add_f16");
        let toml: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let fields: Vec<TilingField> = toml["fields"].clone().try_into().unwrap();
        let c = Candidate::new(
            std::fs::read_to_string(dir.join("kernel.cpp")).unwrap(),
            std::fs::read_to_string(dir.join("tiling.cpp")).unwrap(),
            fields,
        );
        let ev = evaluate(spec.op("add_f16").unwrap(), &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}", ev.render());
        (c, ev)
    })
}

/// The offline proposer's kernel of `add_f16`, judged once.
fn offline(spec: &Spec) -> &'static Synthesized {
    static ONCE: OnceLock<Synthesized> = OnceLock::new();
    ONCE.get_or_init(|| {
        synthesize(
            spec.op("add_f16").unwrap(),
            &SynthOptions::default(),
            &eval_options(),
        )
        .unwrap()
    })
}

/// Records the honest kernel as the pending result of `add_f16` in `root`'s user cache, with
/// the offline kernel's times as the baseline. Returns the pending folder.
fn record_pending(root: &Path, spec: &Spec) -> PathBuf {
    let (c, ev) = honest(spec);
    let mut provenance = Provenance::new(Proposer::Llm);
    provenance.model = Some("scripted-model".into());
    provenance.generation = Some(2);
    provenance.parent = Some("c3".into());
    provenance.tokens = Some(PhaseTokens {
        init: 5000,
        mutation: 700,
        ..PhaseTokens::default()
    });
    let draft = Draft {
        op: spec.op("add_f16").unwrap(),
        candidate: c,
        provenance,
        evaluation: Some(ev),
    };
    let mut meta = PendingMeta::of_draft(&draft, Path::new("runs/1"), "2026-12-02T10:00:00Z");
    meta.baseline_us = Some(offline_times(spec));
    pending::write(&root.join("cache").join("pending"), &draft, &meta).unwrap()
}

fn offline_times(spec: &Spec) -> Vec<(String, f64)> {
    pending::performance_times(&offline(spec).evaluation.performance_record().unwrap())
}

fn honest_times(spec: &Spec) -> Vec<(String, f64)> {
    pending::performance_times(&honest(spec).1.performance_record().unwrap())
}

fn cmd(root: &Path, sub: &str) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", sub, "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .env("AGENTICCANN_CACHE_DIR", root.join("cache"))
        .env_remove("AGENTICCANN_REMOTE")
        .env_remove("AGENTICCANN_OFFLINE")
}

fn run(c: Command) -> (Option<i32>, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Equal within JSON's round trip (serde_json's default float parsing may be off by an ulp).
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn review_shows_diff_and_speedup_then_accept_writes_the_crate_entry() {
    let (root, spec) = crate_at("accept");
    let op = spec.op("add_f16").unwrap();
    // The crate's current kernel: the offline proposer's, with its records.
    let current = write_entry(&spec.kernels_dir(), &offline(&spec).draft(op)).unwrap();
    let dir = record_pending(&root, &spec);
    let expected = pending::speedup(&offline_times(&spec), &honest_times(&spec)).unwrap();

    // status: the pending column, with its speedup over the current kernel.
    let (code, stdout, stderr) = run(cmd(&root, "status").args(["--message-format", "json"]));
    let objs = json_lines(&stdout);
    assert_eq!(
        code,
        Some(1),
        "rms_norm_f16 has no kernel: {stdout}{stderr}"
    );
    let add = objs.iter().find(|o| o["op"] == "add_f16").unwrap();
    assert_eq!(add["proposer"], "offline");
    assert_eq!(add["pending"]["dir"], dir.display().to_string());
    assert_eq!(add["pending"]["basis"], "current");
    let s = add["pending"]["speedup"].as_f64().unwrap();
    assert!((s - expected).abs() < 1e-9, "{s} vs {expected}");
    let rms = objs.iter().find(|o| o["op"] == "rms_norm_f16").unwrap();
    assert!(rms["pending"].is_null());

    // review for people: the diff of the two real kernels, the profile and the speedups.
    let (code, stdout, stderr) = run(cmd(&root, "review"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("--- current/kernel.cpp\n+++ pending/kernel.cpp"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--- current/tiling.cpp\n+++ pending/tiling.cpp"),
        "{stdout}"
    );
    // A line only the pending kernel has is added, one only the current kernel has removed.
    let (pending_src, current_src) = (&honest(&spec).0.kernel, &offline(&spec).candidate.kernel);
    let only_new = pending_src
        .lines()
        .find(|l| !l.trim().is_empty() && !current_src.lines().any(|c| c == *l))
        .unwrap();
    let only_old = current_src
        .lines()
        .find(|l| !l.trim().is_empty() && !pending_src.lines().any(|c| c == *l))
        .unwrap();
    assert!(stdout.contains(&format!("\n+{only_new}\n")), "{stdout}");
    assert!(stdout.contains(&format!("\n-{only_old}\n")), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "speedup: {expected:.2}x vs current, {expected:.2}x vs offline seed"
        )),
        "{stdout}"
    );
    // The printed commands act on the crate reviewed, from any folder.
    assert!(
        stdout.contains("accept with `cargo agenticcann accept --manifest-path "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "current: crate (offline) {}",
            current.dir.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("verification: sim Ascend910B1, seed 5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("provenance: llm, model scripted-model, generation 2, parent c3, tokens init 5000 mutation 700"),
        "{stdout}"
    );
    assert!(
        stdout.contains("rms_norm_f16: no pending result"),
        "{stdout}"
    );

    // review as JSON: per-shape times from the records.
    let (code, stdout, _) = run(cmd(&root, "review").args(["add_f16", "--message-format", "json"]));
    assert_eq!(code, Some(0));
    let objs = json_lines(&stdout);
    assert_eq!(objs.len(), 1);
    let c = &objs[0]["comparison"];
    for (shape, (dims, t)) in c["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .zip(honest_times(&spec))
    {
        assert_eq!(shape["dims"], dims.as_str());
        close(shape["time_us"].as_f64().unwrap(), t);
        let cur = offline_times(&spec).iter().find(|o| o.0 == dims).unwrap().1;
        close(shape["current_us"].as_f64().unwrap(), cur);
    }
    assert_eq!(objs[0]["current"]["source"], "crate");
    assert_eq!(objs[0]["provenance"]["model"], "scripted-model");
    assert_eq!(objs[0]["meta"]["generation"], 2);

    // accept (every op with a pending result): the entry and the lock.
    let (code, stdout, stderr) = run(cmd(&root, "accept"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let entry_dir = spec.kernels_dir().join(op.key().to_hex());
    assert!(
        stdout.contains(&format!("add_f16: accepted: wrote {}", entry_dir.display())),
        "{stdout}"
    );
    let entry = Entry::load(&entry_dir).unwrap();
    assert!(entry.holds(&honest(&spec).0));
    assert_eq!(entry.manifest.provenance.proposer, Proposer::Llm);
    let lock_path = lock::lock_path_of(&root.join("Cargo.toml"));
    let l = lock::Lock::read(&lock_path).unwrap().unwrap();
    let pin = l.get("add_f16").unwrap();
    assert_eq!(pin.key, op.key());
    assert_eq!(
        pin.manifest,
        Digest::of(&std::fs::read(entry.manifest_path()).unwrap())
    );
    assert!(
        stdout.contains(&format!(
            "pinned {}: add_f16 = {} manifest {}",
            lock_path.display(),
            op.key(),
            pin.manifest
        )),
        "{stdout}"
    );
    assert!(!dir.exists());

    // status now: the crate's entry is the accepted one, pinned, nothing pending.
    let (_, stdout, _) = run(cmd(&root, "status").args(["--message-format", "json"]));
    let objs = json_lines(&stdout);
    let add = objs.iter().find(|o| o["op"] == "add_f16").unwrap();
    assert_eq!(add["source"], "crate");
    assert_eq!(add["proposer"], "llm");
    assert_eq!(add["lock"], "pinned");
    assert!(add["pending"].is_null());

    // Nothing pending any more: a named op is exit 1.
    let (code, stdout, _) = run(cmd(&root, "accept").arg("add_f16"));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("add_f16: not done: no pending result"),
        "{stdout}"
    );
}

#[test]
fn accept_keeps_a_hand_written_kernel_unless_replace_is_given() {
    let (root, spec) = crate_at("hand");
    let op = spec.op("add_f16").unwrap();
    let mut hand = offline(&spec).draft(op);
    hand.provenance = Provenance::new(Proposer::Hand);
    let current = write_entry(&spec.kernels_dir(), &hand).unwrap();
    let before = std::fs::read(current.manifest_path()).unwrap();
    let dir = record_pending(&root, &spec);

    let (code, stdout, stderr) = run(cmd(&root, "accept"));
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("add_f16: not done: ") && stdout.contains("hand-written"),
        "{stdout}"
    );
    assert!(stdout.contains("--replace"), "{stdout}");
    assert_eq!(std::fs::read(current.manifest_path()).unwrap(), before);
    assert!(!lock::lock_path_of(&root.join("Cargo.toml")).exists());
    assert!(dir.exists(), "the result stays pending");

    let (code, stdout, stderr) = run(cmd(&root, "accept").arg("--replace"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let entry = Entry::load(&spec.kernels_dir().join(op.key().to_hex())).unwrap();
    assert_eq!(entry.manifest.provenance.proposer, Proposer::Llm);
    assert!(!dir.exists());
}

#[test]
fn reject_drops_the_pending_result_and_writes_nothing() {
    let (root, spec) = crate_at("reject");
    let dir = record_pending(&root, &spec);

    // No current kernel: the diff is against nothing.
    let (code, stdout, stderr) = run(cmd(&root, "review").arg("add_f16"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("current: none\n"), "{stdout}");
    assert!(
        stdout.contains("--- /dev/null\n+++ pending/kernel.cpp"),
        "{stdout}"
    );
    assert!(stdout.contains("no current times"), "{stdout}");

    let (code, stdout, stderr) =
        run(cmd(&root, "reject").args(["add_f16", "--message-format", "json"]));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let objs = json_lines(&stdout);
    assert_eq!(objs[0]["action"], "rejected");
    assert_eq!(objs[0]["dropped"], dir.display().to_string());
    assert!(!dir.exists());
    assert!(!spec.kernels_dir().exists());
    assert!(!lock::lock_path_of(&root.join("Cargo.toml")).exists());

    // Nothing left: a named op is exit 1, the default is a note and exit 0, a typo exit 2.
    let (code, stdout, _) = run(cmd(&root, "reject").arg("add_f16"));
    assert_eq!(code, Some(1), "{stdout}");
    let (code, stdout, _) = run(cmd(&root, "accept"));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("no pending results"), "{stdout}");
    let (code, _, stderr) = run(cmd(&root, "accept").arg("add_f61"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("add_f61"), "{stderr}");
}

#[test]
fn a_corrupt_pending_result_is_reported_with_its_path() {
    let (root, spec) = crate_at("corrupt");
    let dir = record_pending(&root, &spec);
    let meta = dir.join("pending.json");
    std::fs::write(&meta, "{\"format\": 1,").unwrap();
    let (code, stdout, stderr) = run(cmd(&root, "review"));
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains(&meta.display().to_string()), "{stdout}");
    // The other op is still listed.
    assert!(
        stdout.contains("rms_norm_f16: no pending result"),
        "{stdout}"
    );
    let (_, stdout, _) = run(cmd(&root, "status"));
    assert!(stdout.contains("pending: BROKEN"), "{stdout}");
    // accept refuses it, naming the way out; the crate is untouched.
    let (code, stdout, _) = run(cmd(&root, "accept"));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!spec.kernels_dir().exists());
    assert!(
        stdout.contains("drop it with `cargo agenticcann reject add_f16`"),
        "{stdout}"
    );
    // reject reads nothing from it, so it drops even a result that no longer loads.
    let (code, stdout, stderr) =
        run(cmd(&root, "reject").args(["add_f16", "--message-format", "json"]));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let objs = json_lines(&stdout);
    assert_eq!(objs[0]["action"], "rejected");
    assert_eq!(objs[0]["dropped"], dir.display().to_string());
    assert!(!dir.exists());
    assert!(!spec.kernels_dir().exists());
}

#[test]
fn a_pending_kernel_edited_after_it_was_written_is_refused_and_can_be_rejected() {
    let (root, spec) = crate_at("edited");
    let dir = record_pending(&root, &spec);
    let kernel = dir.join("entry/kernel.cpp");
    let text = std::fs::read_to_string(&kernel).unwrap() + "// edited\n";
    std::fs::write(&kernel, text).unwrap();
    let (code, stdout, stderr) = run(cmd(&root, "accept").arg("add_f16"));
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("kernel.cpp"), "{stdout}");
    assert!(
        stdout.contains("cargo agenticcann reject add_f16"),
        "{stdout}"
    );
    assert!(!spec.kernels_dir().exists());
    let (code, stdout, stderr) = run(cmd(&root, "reject").arg("add_f16"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!dir.exists());
}
