//! `cargo agenticcann synth` driven as a binary: propose, judge, write the entry, pin it.

use std::path::PathBuf;

use agenticcann_build::spec::Spec;
use agenticcann_build::store::{Digest, Entry, Lock};
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

const MANIFEST: &str = r#"[package]
name = "synth-cli"
version = "0.1.0"
edition = "2021"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.scale_add]
inputs  = { x = "f32[n]", y = "f32[n]" }
outputs = { z = "f32[n]" }
reference = "z = x * 2 + y"
shapes  = [{ n = 4096 }]
"#;

fn setup(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("synth-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("Cargo.toml"), MANIFEST).unwrap();
    root
}

fn synth(root: &std::path::Path) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "synth", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        // Share the precompiled header with the other tests.
        .env("AGENTICCANN_CACHE_DIR", env!("CARGO_TARGET_TMPDIR"))
}

#[test]
fn out_and_lock_write_a_verified_entry_and_pin_it() {
    let root = setup("lock");
    let out = synth(&root)
        .args(["--op", "scale_add", "--no-eager-ratio", "--seed", "3"])
        .args(["--message-format", "json", "--lock", "--out"])
        .arg(root.join("kernels"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["accepted"], true);
    assert_eq!(v["mode"], "fused");
    let key = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap()
        .op("scale_add")
        .unwrap()
        .key();
    assert_eq!(v["key"], key.to_hex());
    let dir = root.join("kernels").join(key.to_hex());
    assert_eq!(v["entry"], dir.display().to_string());
    let entry = Entry::load(&dir).unwrap();
    let lock = Lock::read(&root.join("agenticcann.lock")).unwrap().unwrap();
    let pin = lock.get("scale_add").unwrap();
    assert_eq!(pin.key, key);
    assert_eq!(pin.manifest, entry.manifest_digest);
    assert_eq!(
        pin.manifest,
        Digest::of_file(&dir.join("manifest.toml")).unwrap()
    );
}

#[test]
fn lock_needs_out_and_refuses_eager() {
    let root = setup("usage");
    for extra in [&["--lock"][..], &["--lock", "--eager", "--out", "k"][..]] {
        let out = synth(&root)
            .args(["--op", "scale_add"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("--lock"), "{stderr}");
    }
    assert!(!root.join("agenticcann.lock").exists());
    assert!(!root.join("k").exists());
}
