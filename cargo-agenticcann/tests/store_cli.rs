//! `cargo agenticcann status`, `verify`, `push` and `fetch` driven as a binary over a crate
//! whose `kernels/` folder holds entries made from the judge's corpus.

use std::path::{Path, PathBuf};

use agenticcann_build::spec::Spec;
use agenticcann_build::store::{
    install_entry, lock, Digest, Manifest, Proposer, Provenance, TilingField,
};
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agenticcann-build/tests/judge")
}

/// A crate declaring two corpus ops, `add_f16` and `rms_norm_f16`, with the honest entry of
/// `add_f16` (or, with `hostile`, a wrong one) in its `kernels/` folder and none for
/// `rms_norm_f16`. Returns the crate folder.
fn setup(name: &str, case: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("store-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let specs = std::fs::read_to_string(corpus().join("specs.toml")).unwrap();
    // Keep only the two ops (the header and their tables).
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
    assert_eq!(spec.ops.len(), 2);
    let dir = corpus().join(case);
    let toml: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let op = spec.op("add_f16").unwrap();
    assert_eq!(toml["op"].as_str(), Some("add_f16"));
    let fields: Vec<TilingField> = toml["fields"].clone().try_into().unwrap();
    let kernel = std::fs::read(dir.join("kernel.cpp")).unwrap();
    let tiling = std::fs::read(dir.join("tiling.cpp")).unwrap();
    let m = Manifest::new(
        op.key(),
        Some(&op.name),
        Digest::of(&kernel),
        Digest::of(&tiling),
        fields,
        Provenance::new(Proposer::Hand),
    );
    install_entry(
        &spec.kernels_dir(),
        &m.to_toml_string(),
        &[("kernel.cpp", &kernel), ("tiling.cpp", &tiling)],
    )
    .unwrap();
    root
}

fn cmd(root: &Path, sub: &str) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", sub, "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        // An empty user cache of its own; the judge's PCH lives in the shared one below.
        .env("AGENTICCANN_CACHE_DIR", root.join("cache"))
        .env_remove("AGENTICCANN_REMOTE")
        .env_remove("AGENTICCANN_OFFLINE")
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn status_names_each_ops_source_and_lock_state() {
    let root = setup("status", "honest/add_f16");
    let out = cmd(&root, "status")
        .args(["--message-format", "json"])
        .output()
        .unwrap();
    let objs = json_lines(&out.stdout);
    // rms_norm_f16 has no kernel anywhere: exit 1.
    assert_eq!(out.status.code(), Some(1), "{objs:?}");
    assert_eq!(objs.len(), 2);
    let add = objs.iter().find(|o| o["op"] == "add_f16").unwrap();
    assert_eq!(add["source"], "crate");
    assert_eq!(add["proposer"], "hand");
    assert_eq!(add["lock"], "unpinned");
    let rms = objs.iter().find(|o| o["op"] == "rms_norm_f16").unwrap();
    assert_eq!(rms["source"], "none");
    assert!(rms["entry"].is_null());

    // Pinned to another manifest digest: the entry is not the pinned one.
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("add_f16").unwrap();
    let mut l = lock::Lock::default();
    l.set("add_f16", op.key(), Digest::of(b"another manifest"));
    l.write_atomic(&lock::lock_path_of(&root.join("Cargo.toml")))
        .unwrap();
    let out = cmd(&root, "status").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("backend: "), "{text}");
    let line = text.lines().find(|l| l.starts_with("add_f16")).unwrap();
    assert!(
        line.contains("crate (hand)") && line.contains("MISMATCH"),
        "{text}"
    );
}

#[test]
fn status_shows_the_kernel_a_build_synthesized_into_out_dir() {
    // The build's offline proposer fills a store miss in OUT_DIR: status must say so, not
    // `none`, while still reporting that the store lacks it.
    let root = setup("status-out-dir", "honest/add_f16");
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let hex = spec.op("add_f16").unwrap().key().to_hex();
    let out_store = root
        .join("target/debug/build")
        .join(format!("{}-0123456789abcdef", spec.package))
        .join("out/agenticcann/synth");
    std::fs::create_dir_all(&out_store).unwrap();
    std::fs::rename(root.join("kernels").join(&hex), out_store.join(&hex)).unwrap();
    // Another package's build folder with the same key is not this crate's.
    let other = root.join("target/debug/build/other-0123/out/agenticcann/synth");
    std::fs::create_dir_all(&other).unwrap();
    let out = cmd(&root, "status")
        .env_remove("CARGO_TARGET_DIR")
        .args(["--message-format", "json"])
        .output()
        .unwrap();
    let objs = json_lines(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{objs:?}");
    let add = objs.iter().find(|o| o["op"] == "add_f16").unwrap();
    assert_eq!(add["source"], "synthesized", "{add}");
    assert_eq!(add["entry"], out_store.join(&hex).display().to_string());
    assert_eq!(add["proposer"], "hand");
    let rms = objs.iter().find(|o| o["op"] == "rms_norm_f16").unwrap();
    assert_eq!(rms["source"], "none");
    let out = cmd(&root, "status")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("synth --op OP --out kernels --lock"),
        "{text}"
    );
}

#[test]
fn verify_rejudges_the_pinned_entries() {
    let root = setup("verify", "honest/add_f16");
    // Nothing pinned: a usage error that says what to do.
    let out = cmd(&root, "verify").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--all"), "{stderr}");

    let out = cmd(&root, "verify")
        .args(["--all", "--seed", "3", "--message-format", "json"])
        .env("AGENTICCANN_CACHE_DIR", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    let objs = json_lines(&out.stdout);
    // add_f16 is accepted; rms_norm_f16 has no entry: exit 1.
    assert_eq!(out.status.code(), Some(1), "{objs:?}");
    let add = objs.iter().find(|o| o["op"] == "add_f16").unwrap();
    assert_eq!(add["accepted"], true, "{add}");
    assert_eq!(add["evaluation"]["outcome"], "verified");
    let rms = objs.iter().find(|o| o["op"] == "rms_norm_f16").unwrap();
    assert_eq!(rms["accepted"], false);
    assert!(
        rms["problem"].as_str().unwrap().contains("no entry"),
        "{rms}"
    );

    // A wrong kernel: not accepted.
    let bad = setup("verify-bad", "hostile/copy_input");
    let out = cmd(&bad, "verify")
        .args(["--op", "add_f16", "--seed", "3"])
        .env("AGENTICCANN_CACHE_DIR", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("add_f16: NOT ACCEPTED"), "{text}");
}

#[test]
fn push_and_fetch_without_a_remote_are_unavailable() {
    let root = setup("no-remote", "honest/add_f16");
    for sub in ["push", "fetch"] {
        let out = cmd(&root, sub).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(3), "{sub}: {stderr}");
        assert!(stderr.contains("AGENTICCANN_REMOTE"), "{sub}: {stderr}");
    }
}
