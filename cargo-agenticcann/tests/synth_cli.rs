//! `cargo agenticcann synth` driven as a binary: propose, judge, write the entry, pin it.

use std::path::PathBuf;

use agenticcann_build::spec::Spec;
use agenticcann_build::store::{Digest, Entry, Lock};
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

mod common;

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
    assert_eq!(v["eager_time_us"], Value::Null);
    snapbox::assert_data_eq!(
        common::structure(&v, &["op", "mode", "accepted", "outcome"]),
        snapbox::file!["snapshots/synth_fused.json": Text]
    );
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
fn an_entry_written_into_the_crate_kernels_folder_wakes_the_next_build() {
    use std::time::{Duration, SystemTime};
    // A build registers kernels/ only when it exists; synth creating it must bump Cargo.toml
    // (always registered) or the next `cargo build` would keep the kernel it had.
    let root = setup("wake");
    let manifest = root.join("Cargo.toml");
    let past = SystemTime::now() - Duration::from_secs(3600);
    let set_past = || {
        std::fs::File::options()
            .write(true)
            .open(&manifest)
            .unwrap()
            .set_modified(past)
            .unwrap()
    };
    let mtime = || std::fs::metadata(&manifest).unwrap().modified().unwrap();
    let run = |out: &std::path::Path| {
        let o = synth(&root)
            .args([
                "--op",
                "scale_add",
                "--no-eager-ratio",
                "--seed",
                "3",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
    };
    // Elsewhere: the build does not look there, nothing to wake.
    set_past();
    run(&root.join("elsewhere"));
    assert_eq!(mtime(), past);
    // Into the crate's (missing) kernels folder, without --lock.
    assert!(!root.join("kernels").exists());
    run(&root.join("kernels"));
    assert!(
        mtime() > past + Duration::from_secs(1800),
        "Cargo.toml not bumped"
    );
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), MANIFEST);
    assert!(!root.join("agenticcann.lock").exists());
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

#[test]
fn an_entry_in_place_is_kept_unless_replaced_and_a_bad_lock_stops_first() {
    let root = setup("occupied");
    let kernels = root.join("kernels");
    let run = |extra: &[&str]| {
        synth(&root)
            .args(["--op", "scale_add", "--no-eager-ratio", "--seed", "4"])
            .args(["--lock", "--out"])
            .arg(&kernels)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    assert_eq!(first.status.code(), Some(0));
    let lock_file = root.join("agenticcann.lock");
    let key = Lock::read(&lock_file)
        .unwrap()
        .unwrap()
        .get("scale_add")
        .unwrap()
        .key;
    let dir = kernels.join(key.to_hex());
    // Another (hand-edited, still consistent) kernel in place for the key.
    let kernel = std::fs::read_to_string(dir.join("kernel.cpp")).unwrap() + "// edited\n";
    std::fs::write(dir.join("kernel.cpp"), &kernel).unwrap();
    let manifest = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    assert!(
        Entry::load(&dir).is_err(),
        "the edited kernel no longer matches its digest"
    );
    let fixed = manifest.replace(
        &Digest::of(kernel.trim_end_matches("// edited\n").as_bytes()).to_hex(),
        &Digest::of(kernel.as_bytes()).to_hex(),
    );
    std::fs::write(dir.join("manifest.toml"), &fixed).unwrap();
    let hand = Entry::load(&dir).unwrap();
    let pinned_before = std::fs::read(&lock_file).unwrap();

    // Kept: exit 1, the in-place kernel untouched, the lock not changed.
    let out = run(&[]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("already holds a different kernel"),
        "{stderr}"
    );
    assert!(stderr.contains("--replace"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("kernel.cpp")).unwrap(),
        kernel
    );
    assert_eq!(std::fs::read(&lock_file).unwrap(), pinned_before);

    // Replaced: exit 0, the proposer's kernel in place and pinned.
    let out = run(&["--replace"]);
    assert_eq!(out.status.code(), Some(0));
    let now = Entry::load(&dir).unwrap();
    assert_ne!(now.manifest_digest, hand.manifest_digest);
    let lock = Lock::read(&lock_file).unwrap().unwrap();
    assert_eq!(lock.get("scale_add").unwrap().manifest, now.manifest_digest);

    // A lock that cannot be parsed stops the run before anything is judged or written.
    std::fs::remove_dir_all(&kernels).unwrap();
    std::fs::write(&lock_file, "version = 1\n[[op]]\nname = 3\n").unwrap();
    let out = run(&[]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("agenticcann.lock"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!kernels.exists());
    assert_eq!(
        std::fs::read_to_string(&lock_file).unwrap(),
        "version = 1\n[[op]]\nname = 3\n"
    );
}

/// `--eager`: one kernel per primitive (`x * 2`, then `+ y`), each judged, the times summed
/// per declared shape; the accepted kernels are written under --out.
#[test]
fn eager_judges_every_primitive_and_sums_their_times() {
    let root = setup("eager");
    let out = synth(&root)
        .args(["--op", "scale_add", "--eager", "--seed", "3"])
        .args(["--message-format", "json", "--out"])
        .arg(root.join("kernels"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["mode"], "eager");
    assert_eq!(v["accepted"], true);
    assert_eq!(v["kernels"], 2);
    let evaluations = v["evaluations"].as_array().unwrap();
    assert_eq!(evaluations.len(), 2);
    let declared_us = |ev: &Value| -> f64 {
        ev["shapes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["origin"]["kind"] == "declared")
            .map(|s| s["profile"]["time_us"].as_f64().unwrap())
            .sum()
    };
    let sum: f64 = evaluations.iter().map(declared_us).sum();
    let total = v["time_us"][0]["us"].as_f64().unwrap();
    assert!(
        total > 0.0 && (total - sum).abs() < 1e-9 * sum.max(1.0),
        "{total} vs {sum}"
    );
    assert_eq!(v["time_us"][0]["dims"], serde_json::json!({ "n": 4096 }));
    // Each primitive is an op of its own, so its entry has its own key.
    let written: Vec<_> = std::fs::read_dir(root.join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 2, "{written:?}");
    for dir in &written {
        Entry::load(dir).unwrap();
    }
    snapbox::assert_data_eq!(
        common::structure(&v, &["op", "mode", "accepted", "kernels", "outcome"]),
        snapbox::file!["snapshots/synth_eager.json": Text]
    );
}
