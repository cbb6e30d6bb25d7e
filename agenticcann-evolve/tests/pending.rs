//! Pending results (`agenticcann_evolve::pending`) on real files: the judge's honest
//! `add_f16` kernel, evaluated once by the real judge, recorded, listed, accepted into a temp
//! crate and rejected.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agenticcann_build::judge::{evaluate, Candidate, EvalOptions, Evaluation};
use agenticcann_build::spec::Spec;
use agenticcann_build::store::{lock, Digest, Draft, Lock, Proposer, Provenance, TilingField};
use agenticcann_evolve::pending::{self, PendingError, PendingMeta, Replace};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agenticcann-build/tests/judge")
}

/// A crate declaring the corpus op `add_f16` (and `rms_norm_f16`), in a fresh temp folder.
fn crate_dir() -> (tempfile::TempDir, PathBuf, Spec) {
    let dir = tempfile::tempdir().unwrap();
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
    let manifest = dir.path().join("Cargo.toml");
    std::fs::write(&manifest, keep).unwrap();
    let spec = Spec::from_manifest_path(&manifest).unwrap().unwrap();
    (dir, manifest, spec)
}

/// The honest corpus kernel of `add_f16` with the real judge's evaluation (judged once).
fn judged() -> &'static (Candidate, Evaluation) {
    static ONCE: OnceLock<(Candidate, Evaluation)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let (_d, _m, spec) = crate_dir();
        let op = spec.op("add_f16").unwrap();
        let case = corpus().join("honest/add_f16");
        let toml: toml::Table = std::fs::read_to_string(case.join("case.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let fields: Vec<TilingField> = toml["fields"].clone().try_into().unwrap();
        let c = Candidate::new(
            std::fs::read_to_string(case.join("kernel.cpp")).unwrap(),
            std::fs::read_to_string(case.join("tiling.cpp")).unwrap(),
            fields,
        );
        let ev = evaluate(
            op,
            &c,
            &EvalOptions {
                seed: Some(7),
                ..EvalOptions::default()
            },
        )
        .unwrap();
        assert!(ev.accepted(), "{}", ev.render());
        (c, ev)
    })
}

fn provenance(generation: u64) -> Provenance {
    let mut p = Provenance::new(Proposer::Llm);
    p.model = Some("scripted".into());
    p.generation = Some(generation);
    p.parent = Some("c1".into());
    p
}

fn draft<'a>(spec: &'a Spec, generation: u64) -> Draft<'a> {
    let (c, ev) = judged();
    Draft {
        op: spec.op("add_f16").unwrap(),
        candidate: c,
        provenance: provenance(generation),
        evaluation: Some(ev),
    }
}

fn meta(d: &Draft<'_>) -> PendingMeta {
    let mut m = PendingMeta::of_draft(d, Path::new("target/run"), "2026-12-02T10:00:00Z");
    m.baseline_us = Some(
        m.time_us
            .iter()
            .map(|(s, t)| (s.clone(), t * 2.0))
            .collect(),
    );
    m
}

#[test]
fn write_list_find_round_trip_and_write_replaces() {
    let (_d, _m, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    let m = meta(&d);
    // The metadata carries the judge's times of the declared shapes.
    assert_eq!(
        m.time_us.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(),
        ["n=4096", "n=100000"]
    );
    let key = spec.op("add_f16").unwrap().key().to_hex();
    let dir = pending::write(root.path(), &d, &m).unwrap();
    assert_eq!(dir, root.path().join(&key));
    let all = pending::list(root.path()).unwrap();
    assert_eq!(all.len(), 1);
    same_meta(&all[0].meta, &m);
    assert_eq!(all[0].entry.manifest.provenance.generation, Some(2));
    assert!(all[0].entry.holds(&judged().0));
    same_times(&all[0].time_us(), &m.time_us);
    let found = pending::find(root.path(), &key.to_uppercase())
        .unwrap()
        .unwrap();
    assert_eq!(found, all[0]);
    // No other op's result.
    let other = spec.op("rms_norm_f16").unwrap().key().to_hex();
    assert_eq!(pending::find(root.path(), &other).unwrap(), None);
    assert!(matches!(
        pending::find(root.path(), "xyz"),
        Err(PendingError::BadKey(_))
    ));

    // A newer result for the key replaces the older one, leaving no staging folders.
    let d3 = draft(&spec, 3);
    let mut m3 = meta(&d3);
    m3.generation = 3;
    pending::write(root.path(), &d3, &m3).unwrap();
    let all = pending::list(root.path()).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].meta.generation, 3);
    assert_eq!(all[0].entry.manifest.provenance.generation, Some(3));
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);

    // The speedup vs the metadata's baseline (twice the time) is 2.
    let cmp = pending::compare(None, &all[0]);
    assert!((cmp.vs_baseline.unwrap() - 2.0).abs() < 1e-9, "{cmp:?}");
    assert_eq!(cmp.vs_current, None);
    assert!(cmp.shapes.iter().all(|s| s.bound.is_some()));
}

#[test]
fn write_refuses_a_mismatched_key_and_an_unjudged_draft() {
    let (_d, _m, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    let mut m = meta(&d);
    m.key = spec.op("rms_norm_f16").unwrap().key().to_hex();
    let e = pending::write(root.path(), &d, &m).unwrap_err();
    assert!(matches!(e, PendingError::KeyMismatch { .. }), "{e}");
    let unjudged = Draft {
        evaluation: None,
        ..draft(&spec, 2)
    };
    let e = pending::write(root.path(), &unjudged, &meta(&d)).unwrap_err();
    assert!(
        e.to_string().contains("only a kernel the judge accepted"),
        "{e}"
    );
    assert_eq!(pending::list(root.path()).unwrap(), vec![]);
}

#[test]
fn accept_writes_the_crate_entry_and_the_lock_and_removes_the_pending() {
    let (_d, manifest, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    let files = ["manifest.toml", "kernel.cpp", "tiling.cpp"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(p.entry.dir.join(f)).unwrap())
        .collect();
    let accepted = pending::accept_into(&p, &spec, &manifest, Replace::Generated).unwrap();
    let key = spec.op("add_f16").unwrap().key();
    assert_eq!(accepted.entry, spec.kernels_dir().join(key.to_hex()));
    // The crate entry is the pending entry, byte for byte, and loads.
    for (f, bytes) in files.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(accepted.entry.join(f)).unwrap(),
            bytes,
            "{f}"
        );
    }
    let entry = agenticcann_build::store::Entry::load(&accepted.entry).unwrap();
    assert_eq!(entry.manifest_digest, p.entry.manifest_digest);
    // The lock parses and pins the key and the manifest's sha256.
    let lock = Lock::read(&lock::lock_path_of(&manifest)).unwrap().unwrap();
    let pin = lock.get("add_f16").unwrap();
    assert_eq!(pin.key, key);
    assert_eq!(
        pin.manifest,
        Digest::of(&std::fs::read(accepted.entry.join("manifest.toml")).unwrap())
    );
    assert_eq!(lock.ops.len(), 1);
    assert_eq!(accepted.pins, vec![pin.clone()]);
    // The pending result is gone, and nothing is left in its root.
    assert_eq!(pending::list(root.path()).unwrap(), vec![]);
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    // The pending entry's provenance went into the crate.
    assert_eq!(entry.manifest.provenance.proposer, Proposer::Llm);
    assert_eq!(entry.manifest.provenance.generation, Some(2));
}

#[test]
fn accept_keeps_a_hand_written_or_unreadable_entry_unless_replace_is_asked() {
    let (_d, manifest, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let key = spec.op("add_f16").unwrap().key();
    let crate_entry = spec.kernels_dir().join(key.to_hex());
    // A hand-written entry in the crate, pinned.
    let mut hand = draft(&spec, 1);
    hand.provenance = Provenance::new(Proposer::Hand);
    pending::write(root.path(), &hand, &meta(&hand)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    pending::accept(&p, &spec, &manifest, Replace::Generated).unwrap();
    let lock_before = std::fs::read(lock::lock_path_of(&manifest)).unwrap();
    let manifest_before = std::fs::read(crate_entry.join("manifest.toml")).unwrap();

    // A model's result for the same key: refused, nothing in the crate changes, the result
    // stays pending.
    let d = draft(&spec, 2);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    let e = pending::accept(&p, &spec, &manifest, Replace::Generated).unwrap_err();
    assert!(matches!(e, PendingError::WouldReplace { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("hand-written") && text.contains("--replace"),
        "{text}"
    );
    assert!(text.contains(&crate_entry.display().to_string()), "{text}");
    assert_eq!(
        std::fs::read(crate_entry.join("manifest.toml")).unwrap(),
        manifest_before
    );
    assert_eq!(
        std::fs::read(lock::lock_path_of(&manifest)).unwrap(),
        lock_before
    );
    assert_eq!(pending::list(root.path()).unwrap().len(), 1);

    // An entry whose manifest cannot be read is kept the same way.
    std::fs::write(crate_entry.join("manifest.toml"), b"not = [toml").unwrap();
    let e = pending::accept(&p, &spec, &manifest, Replace::Generated).unwrap_err();
    assert!(e.to_string().contains("cannot be read"), "{e}");
    std::fs::write(crate_entry.join("manifest.toml"), &manifest_before).unwrap();

    // Asked to replace: the model's kernel goes in.
    let entry = pending::accept(&p, &spec, &manifest, Replace::Any).unwrap();
    let loaded = agenticcann_build::store::Entry::load(&entry).unwrap();
    assert_eq!(loaded.manifest.provenance.proposer, Proposer::Llm);

    // A generated entry is replaced without asking.
    let d = draft(&spec, 3);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    let entry = pending::accept(&p, &spec, &manifest, Replace::Generated).unwrap();
    let loaded = agenticcann_build::store::Entry::load(&entry).unwrap();
    assert_eq!(loaded.manifest.provenance.generation, Some(3));
}

#[test]
fn reject_removes_the_pending_and_writes_nothing_in_the_crate() {
    let (dir, manifest, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    pending::reject(&p).unwrap();
    assert_eq!(pending::list(root.path()).unwrap(), vec![]);
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    assert!(!spec.kernels_dir().exists());
    assert!(!lock::lock_path_of(&manifest).exists());
    // Only Cargo.toml in the crate.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn broken_folders_are_reported_with_their_path_and_do_not_hide_the_others() {
    let (_d, _m, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    let good = pending::write(root.path(), &d, &meta(&d)).unwrap();
    // A corrupt pending.json under another key.
    let corrupt = root.path().join("0".repeat(64));
    copy_dir(&good, &corrupt);
    std::fs::write(corrupt.join("pending.json"), "{ not json").unwrap();
    // A half-deleted folder: pending.json without its entry.
    let half = root.path().join("1".repeat(64));
    std::fs::create_dir_all(&half).unwrap();
    let json = std::fs::read_to_string(good.join("pending.json")).unwrap();
    let key = spec.op("add_f16").unwrap().key().to_hex();
    std::fs::write(
        half.join("pending.json"),
        json.replace(&key, &"1".repeat(64)),
    )
    .unwrap();
    // A stray folder that is not a key.
    std::fs::create_dir_all(root.path().join("notes")).unwrap();

    let all = pending::scan(root.path()).unwrap();
    assert_eq!(all.len(), 4);
    let errors: Vec<String> = all
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    let corrupt_json = corrupt.join("pending.json").display().to_string();
    assert!(
        errors
            .iter()
            .any(|e| e.contains(&corrupt_json) && e.contains("invalid pending result")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains(&half.display().to_string())
                && e.contains("entry/manifest.toml is missing")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("notes")), "{errors:?}");
    // The good one is still there.
    let ok: Vec<_> = all.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(ok.len(), 1);
    assert_eq!(ok[0].dir, good);
    // The strict list names the first broken folder; find of the corrupt key names its file.
    assert!(pending::list(root.path()).is_err());
    let e = pending::find(root.path(), &"0".repeat(64)).unwrap_err();
    assert!(e.to_string().contains(&corrupt_json), "{e}");
}

#[test]
fn accept_refuses_a_tampered_kernel_and_writes_nothing() {
    let (_d, manifest, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    // Edited after it was reviewed.
    let kernel = p.entry.dir.join("kernel.cpp");
    let mut text = std::fs::read_to_string(&kernel).unwrap();
    text.push_str("\n// tampered\n");
    std::fs::write(&kernel, text).unwrap();
    let e = pending::accept(&p, &spec, &manifest, Replace::Generated).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&kernel.display().to_string()) && msg.contains("does not match its digest"),
        "{msg}"
    );
    assert!(!spec.kernels_dir().exists());
    assert!(!lock::lock_path_of(&manifest).exists());
    // The pending result stays (for a look), and now fails to load.
    assert!(p.dir.exists());
    assert!(pending::find(root.path(), &p.meta.key).is_err());
}

#[test]
fn accept_refuses_a_result_the_crate_does_not_declare() {
    let (_d, _m, spec) = crate_dir();
    let root = tempfile::tempdir().unwrap();
    let d = draft(&spec, 2);
    pending::write(root.path(), &d, &meta(&d)).unwrap();
    let p = pending::list(root.path()).unwrap().remove(0);
    let other = tempfile::tempdir().unwrap();
    let other_manifest = other.path().join("Cargo.toml");
    std::fs::write(
        &other_manifest,
        "[package]\nname = \"other\"\nversion = \"0.1.0\"\n\n[package.metadata.agenticcann]\n\
         soc = \"Ascend910B1\"\n\n[package.metadata.agenticcann.ops.sub]\n\
         inputs = { x = \"f16[n]\", y = \"f16[n]\" }\noutputs = { z = \"f16[n]\" }\n\
         reference = \"z = x - y\"\nshapes = [{ n = 4096 }]\n",
    )
    .unwrap();
    let other_spec = Spec::from_manifest_path(&other_manifest).unwrap().unwrap();
    let e = pending::accept(&p, &other_spec, &other_manifest, Replace::Generated).unwrap_err();
    assert!(matches!(e, PendingError::NotDeclared { .. }), "{e}");
    assert!(p.dir.exists());
    assert!(!other_spec.kernels_dir().exists());
}

/// Equal metadata, times within JSON's round trip (serde_json's default float parsing may
/// differ from the written value in the last bit).
fn same_meta(a: &PendingMeta, b: &PendingMeta) {
    same_times(&a.time_us, &b.time_us);
    same_times(
        a.baseline_us.as_deref().unwrap_or_default(),
        b.baseline_us.as_deref().unwrap_or_default(),
    );
    assert_eq!(a.baseline_us.is_some(), b.baseline_us.is_some());
    let strip = |m: &PendingMeta| PendingMeta {
        time_us: vec![],
        baseline_us: None,
        ..m.clone()
    };
    assert_eq!(strip(a), strip(b));
}

fn same_times(a: &[(String, f64)], b: &[(String, f64)]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for ((da, ta), (db, tb)) in a.iter().zip(b) {
        assert_eq!(da, db);
        assert!((ta - tb).abs() <= 1e-12 * tb.abs(), "{a:?} vs {b:?}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}
