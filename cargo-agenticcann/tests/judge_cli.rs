//! `cargo agenticcann judge` driven as a binary over store entries made from the judge's
//! corpus (agenticcann-build/tests/judge/).

use std::path::{Path, PathBuf};

use agenticcann_build::spec::Spec;
use agenticcann_build::store::{
    install_entry, Digest, Manifest, Proposer, Provenance, TilingField,
};
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};

mod common;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agenticcann-build/tests/judge")
}

/// A crate folder whose Cargo.toml declares the corpus ops, with entries for `cases` under
/// `entries/<case name>`. Returns (crate dir, entry dirs).
fn setup(name: &str, cases: &[&str]) -> (PathBuf, Vec<PathBuf>) {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("judge-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(corpus().join("specs.toml"), root.join("Cargo.toml")).unwrap();
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let mut dirs = Vec::new();
    for case in cases {
        let dir = corpus().join(case);
        let toml: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let op = spec.op(toml["op"].as_str().unwrap()).unwrap();
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
        let store = root.join("entries").join(case.replace('/', "_"));
        let e = install_entry(
            &store,
            &m.to_toml_string(),
            &[("kernel.cpp", &kernel), ("tiling.cpp", &tiling)],
        )
        .unwrap();
        dirs.push(e.dir);
    }
    (root, dirs)
}

fn judge(root: &Path) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "judge", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        // Share the precompiled header with the library's tests.
        .env("AGENTICCANN_CACHE_DIR", env!("CARGO_TARGET_TMPDIR"))
}

#[test]
fn json_reports_every_dir_in_order_and_exits_1_unless_all_accepted() {
    let (root, dirs) = setup("mixed", &["honest/add_f16", "hostile/copy_input"]);
    let missing = root.join("entries/nothing-here");
    let out = judge(&root)
        .args([
            "--op",
            "add_f16",
            "--message-format",
            "json",
            "--seed",
            "5",
            "-j",
            "2",
        ])
        .arg(&dirs[0])
        .arg(&dirs[1])
        .arg(&missing)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let objs: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 3, "{stdout}");
    assert_eq!(objs[0]["evaluation"]["outcome"], "verified");
    assert_eq!(objs[0]["evaluation"]["seed"], 5);
    assert_eq!(objs[1]["evaluation"]["outcome"], "wrong_result");
    assert!(objs[1]["evaluation"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["kind"] == "wrong_result" && d["stage"] == "verify"));
    assert!(
        objs[2]["error"].as_str().unwrap().contains("manifest.toml"),
        "{}",
        objs[2]
    );
    assert!(
        stderr.contains("judged 3 candidates for `add_f16`: 1 accepted, 2 not"),
        "{stderr}"
    );
    snapbox::assert_data_eq!(
        common::structure(&objs[0], &["outcome", "kind", "status"]),
        snapbox::file!["snapshots/judge_entry.json": Text]
    );
    snapbox::assert_data_eq!(
        common::structure(&objs[2], &[]),
        snapbox::file!["snapshots/judge_entry_error.json": Text]
    );
}

#[test]
fn human_report_and_exit_0_for_an_honest_entry() {
    let (root, dirs) = setup("honest", &["honest/rms_norm_f16"]);
    // A relative cache folder works (the compilers run elsewhere).
    let out = judge(&root)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .env("AGENTICCANN_CACHE_DIR", ".")
        .args(["--op", "rms_norm_f16", "--keep-scratch"])
        .arg(&dirs[0])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("judge rms_norm_f16 (key "), "{stdout}");
    assert!(stdout.contains("VERIFIED"), "{stdout}");
    assert!(stdout.contains("held-out tail"), "{stdout}");
    assert!(stdout.contains("isolation: separate process"), "{stdout}");
    let kept = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("note: scratch kept at "))
        .unwrap();
    assert!(Path::new(kept).join("kernel_tu.cpp").is_file(), "{stdout}");
    std::fs::remove_dir_all(kept).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let (root, dirs) = setup("usage", &[]);
    assert!(dirs.is_empty());
    let out = judge(&root)
        .args(["--op", "nope", "somewhere"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no op `nope`") && stderr.contains("add_f16"),
        "{stderr}"
    );
    // An entry of another op is refused by key, as a per-dir error: a candidate that is
    // not accepted (1), not a usage error.
    let (root, dirs) = setup("wrong-op", &["honest/abs_f16"]);
    let out = judge(&root)
        .args(["--op", "add_f16"])
        .arg(&dirs[0])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("error:") && stdout.contains("key"),
        "{stdout}"
    );
}

/// A folder that does not exist (a typo) is reported in place, and with nothing judged the
/// exit status is 2 (usage), not the verdict 1, in both message formats.
#[test]
fn a_missing_folder_alone_is_a_usage_error() {
    let (root, _) = setup("missing-only", &[]);
    let missing = root.join("entries/nothing-here");
    for format in ["human", "json"] {
        let out = judge(&root)
            .args(["--op", "add_f16", "--message-format", format])
            .arg(&missing)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("nothing-here") && stdout.contains("manifest.toml"),
            "{format}: {stdout}"
        );
        assert!(
            stderr.contains("error: the folder given cannot be read as an entry of `add_f16`")
                && stderr.contains("nothing was judged"),
            "{format}: {stderr}"
        );
        assert!(!stderr.contains("judged 1 candidate"), "{format}: {stderr}");
        if format == "json" {
            let obj: Value = serde_json::from_str(stdout.trim()).unwrap();
            assert!(obj["error"].is_string(), "{obj}");
        }
    }
}

#[test]
fn lock_pins_an_accepted_entry_and_nothing_else() {
    let (root, dirs) = setup("lock", &["honest/add_f16", "hostile/copy_input"]);
    let lock = root.join("agenticcann.lock");
    // A rejected entry leaves no lock behind.
    let out = judge(&root)
        .args(["--op", "add_f16", "--lock"])
        .arg(&dirs[1])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!lock.exists());
    // More than one folder is a usage error.
    let out = judge(&root)
        .args(["--op", "add_f16", "--lock"])
        .args(&dirs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--lock pins one entry"), "{stderr}");
    // The accepted entry is pinned by key and manifest sha256.
    let out = judge(&root)
        .args(["--op", "add_f16", "--lock"])
        .arg(&dirs[0])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("pinned `add_f16` in"), "{stderr}");
    let pinned = agenticcann_build::store::Lock::read(&lock)
        .unwrap()
        .unwrap();
    let op = pinned.get("add_f16").unwrap();
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    assert_eq!(op.key, spec.op("add_f16").unwrap().key());
    assert_eq!(
        op.manifest,
        Digest::of_file(&dirs[0].join("manifest.toml")).unwrap()
    );
    // Pinning the same entry again leaves the file alone.
    let before = std::fs::metadata(&lock).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = judge(&root)
        .args(["--op", "add_f16", "--lock"])
        .arg(&dirs[0])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::metadata(&lock).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn update_rejudges_an_edited_entry_and_rewrites_it_only_when_accepted() {
    let (root, dirs) = setup("update", &["honest/add_f16"]);
    let dir = &dirs[0];
    let kernel = dir.join("kernel.cpp");
    let original = std::fs::read_to_string(&kernel).unwrap();
    // A real edit that keeps the kernel correct: the digest check refuses it as it is.
    let edited = original.replace("Add(z, x, y, n);", "Add(z, y, x, n);");
    assert_ne!(edited, original);
    std::fs::write(&kernel, &edited).unwrap();
    let out = judge(&root)
        .args(["--op", "add_f16"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("--update"),
        "the digest error names the way out: {text}"
    );

    // A folder not named by the key, or two folders: usage errors.
    let out = judge(&root)
        .args(["--op", "add_f16", "--update"])
        .arg(root.join("entries"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("named by the op's key"));

    // A broken edit is judged, rejected and leaves the entry as it was.
    let manifest_before = std::fs::read(dir.join("manifest.toml")).unwrap();
    let broken = original.replace("Add(z, x, y, n);", "Sub(z, x, y, n);");
    std::fs::write(&kernel, &broken).unwrap();
    let out = judge(&root)
        .args(["--op", "add_f16", "--update", "--lock"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("not rewritten"));
    assert_eq!(
        std::fs::read(dir.join("manifest.toml")).unwrap(),
        manifest_before
    );
    assert!(!root.join("agenticcann.lock").exists());

    // The good edit: accepted, rewritten with new digests and records, pinned.
    std::fs::write(&kernel, &edited).unwrap();
    let out = judge(&root)
        .args(["--op", "add_f16", "--update", "--lock"])
        .arg(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("rewrote"), "{stderr}");
    let spec = Spec::from_manifest_path(&root.join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let entry =
        agenticcann_build::store::Entry::load_with_key(dir, &spec.op("add_f16").unwrap().key())
            .unwrap();
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), edited);
    assert!(entry.manifest.verification.is_some());
    assert_eq!(entry.manifest.provenance.proposer, Proposer::Hand);
    let lock = agenticcann_build::store::Lock::read(&root.join("agenticcann.lock"))
        .unwrap()
        .unwrap();
    assert_eq!(lock.get("add_f16").unwrap().manifest, entry.manifest_digest);
    // Now a plain judge accepts it as it is.
    let out = judge(&root)
        .args(["--op", "add_f16"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
