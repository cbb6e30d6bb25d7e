//! Store entries on disk: loading verifies every digest, errors name the file, writes are
//! atomic, and lookup follows the documented order.

use std::path::Path;

use agenticcann_build::key::Key;
use agenticcann_build::store::{
    install_entry, reinstall_entry, Digest, Entry, FieldType, Manifest, Proposer, Provenance,
    Source, Store, StoreError, TilingField,
};

const KERNEL: &[u8] = b"// kernel\n";
const TILING: &[u8] = b"// tiling\n";

fn manifest(key: Key) -> Manifest {
    Manifest::new(
        key,
        Some("op"),
        Digest::of(KERNEL),
        Digest::of(TILING),
        vec![TilingField {
            name: "n".into(),
            ty: FieldType::U32,
        }],
        Provenance::new(Proposer::Hand),
    )
}

fn put(root: &Path, key: Key) -> Entry {
    install_entry(
        root,
        &manifest(key).to_toml_string(),
        &[("kernel.cpp", KERNEL), ("tiling.cpp", TILING)],
    )
    .unwrap()
}

#[test]
fn load_verifies_digests_and_names_the_tampered_file() {
    let root = tempfile::tempdir().unwrap();
    let key = Key::from_bytes([7; 32]);
    let e = put(root.path(), key);
    assert_eq!(e.dir, root.path().join(key.to_hex()));
    let again = Entry::load(&e.dir).unwrap();
    assert_eq!(again, e);
    assert_eq!(
        again.manifest_digest,
        Digest::of(&std::fs::read(e.manifest_path()).unwrap())
    );

    std::fs::write(e.kernel_path(), b"// kernel, edited\n").unwrap();
    let err = Entry::load(&e.dir).unwrap_err();
    match &err {
        StoreError::DigestMismatch {
            path,
            expected,
            actual,
        } => {
            assert_eq!(path, &e.kernel_path());
            assert_eq!(*expected, Digest::of(KERNEL));
            assert_eq!(*actual, Digest::of(b"// kernel, edited\n"));
        }
        other => panic!("{other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(&e.kernel_path().display().to_string()),
        "{text}"
    );
    assert!(
        text.contains("never rebuilds a changed entry silently"),
        "{text}"
    );

    std::fs::remove_file(e.kernel_path()).unwrap();
    let err = Entry::load(&e.dir).unwrap_err();
    assert!(
        matches!(err, StoreError::MissingFile { ref file, .. } if file == "kernel.cpp"),
        "{err}"
    );
}

#[test]
fn key_must_match_the_folder_and_the_spec() {
    let root = tempfile::tempdir().unwrap();
    let key = Key::from_bytes([1; 32]);
    let e = put(root.path(), key);
    let other = Key::from_bytes([2; 32]);
    let err = Entry::load_with_key(&e.dir, &other).unwrap_err();
    assert!(
        matches!(err, StoreError::KeyMismatch { expected, actual, .. } if expected == other && actual == key)
    );

    let not_a_key = root.path().join("rms_norm");
    std::fs::create_dir(&not_a_key).unwrap();
    assert!(matches!(
        Entry::load(&not_a_key).unwrap_err(),
        StoreError::NotAnEntry { .. }
    ));
}

#[test]
fn write_entry_rejects_files_that_do_not_match_and_leaves_nothing_behind() {
    let root = tempfile::tempdir().unwrap();
    let key = Key::from_bytes([3; 32]);
    let err = install_entry(
        root.path(),
        &manifest(key).to_toml_string(),
        &[("kernel.cpp", b"other"), ("tiling.cpp", TILING)],
    )
    .unwrap_err();
    assert!(matches!(err, StoreError::DigestMismatch { .. }), "{err}");
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
}

#[test]
fn write_keeps_an_entry_in_place_and_replace_swaps_it_without_leftovers() {
    let root = tempfile::tempdir().unwrap();
    let key = Key::from_bytes([4; 32]);
    let old = put(root.path(), key);
    let other_kernel: &[u8] = b"// another kernel\n";
    let mut m = manifest(key);
    m.files
        .insert("kernel.cpp".into(), Digest::of(other_kernel));
    let text = m.to_toml_string();
    let files: [(&str, &[u8]); 2] = [("kernel.cpp", other_kernel), ("tiling.cpp", TILING)];
    // install_entry keeps what is there.
    let kept = install_entry(root.path(), &text, &files).unwrap();
    assert_eq!(kept.manifest_digest, old.manifest_digest);
    // A replacement that does not verify leaves the old entry untouched.
    let bad: [(&str, &[u8]); 2] = [("kernel.cpp", b"tampered"), ("tiling.cpp", TILING)];
    let err = reinstall_entry(root.path(), &text, &bad).unwrap_err();
    assert!(matches!(err, StoreError::DigestMismatch { .. }), "{err}");
    assert_eq!(
        Entry::load(&old.dir).unwrap().manifest_digest,
        old.manifest_digest
    );
    // reinstall_entry swaps it, and only the entry folder remains.
    let new = reinstall_entry(root.path(), &text, &files).unwrap();
    assert_eq!(new.dir, old.dir);
    assert_ne!(new.manifest_digest, old.manifest_digest);
    assert_eq!(
        std::fs::read(new.dir.join("kernel.cpp")).unwrap(),
        other_kernel
    );
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);
    // Replacing with no entry in place just writes it.
    let key2 = Key::from_bytes([5; 32]);
    reinstall_entry(
        root.path(),
        &manifest(key2).to_toml_string(),
        &[("kernel.cpp", KERNEL), ("tiling.cpp", TILING)],
    )
    .unwrap();
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 2);
}

#[test]
fn concurrent_writers_of_one_key_leave_one_valid_entry() {
    let root = tempfile::tempdir().unwrap();
    let key = Key::from_bytes([4; 32]);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| put(root.path(), key));
        }
    });
    let names: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec![key.to_hex()]);
    Entry::load(&root.path().join(key.to_hex())).unwrap();
}

#[test]
fn lookup_order_crate_then_cache_and_a_bad_crate_entry_is_an_error() {
    let crate_dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let env = |name: &str| match name {
        "AGENTICCANN_CACHE_DIR" => Some(cache.path().display().to_string()),
        _ => None,
    };
    let store = Store::from_env(
        crate_dir.path().to_path_buf(),
        Path::new("/nonexistent"),
        &env,
    )
    .unwrap();
    assert_eq!(store.user_cache, cache.path());
    assert!(store.remote.is_none());

    let key = Key::from_bytes([5; 32]);
    assert!(store.lookup(&key).unwrap().is_none());
    put(cache.path(), key);
    assert_eq!(
        store.lookup(&key).unwrap().unwrap().source,
        Source::UserCache
    );
    let in_crate = put(crate_dir.path(), key);
    assert_eq!(
        store.lookup(&key).unwrap().unwrap().source,
        Source::CrateKernels
    );

    // A tampered crate entry does not fall through to the (intact) cached one.
    std::fs::write(in_crate.tiling_path(), b"// edited").unwrap();
    let err = store.lookup(&key).unwrap_err();
    assert!(
        matches!(err, StoreError::DigestMismatch { ref path, .. } if *path == in_crate.tiling_path())
    );
}

#[test]
fn offline_builds_no_remote_client() {
    let env = |name: &str| match name {
        "AGENTICCANN_REMOTE" => Some("http://127.0.0.1:1".to_string()),
        "AGENTICCANN_OFFLINE" => Some("1".to_string()),
        "AGENTICCANN_CACHE_DIR" => Some("/tmp/unused".to_string()),
        _ => None,
    };
    let store = Store::from_env("kernels".into(), Path::new("/tmp"), &env).unwrap();
    assert!(store.remote.is_none());
    let searched = store.searched(&Key::from_bytes([0; 32])).join("\n");
    assert!(
        searched.contains("AGENTICCANN_OFFLINE is set"),
        "{searched}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn user_cache_dir_follows_the_xdg_rules() {
    use agenticcann_build::store::user_cache_dir;
    let env = |xdg: Option<&'static str>, home: Option<&'static str>| {
        move |name: &str| match name {
            "XDG_CACHE_HOME" => xdg.map(str::to_string),
            "HOME" => home.map(str::to_string),
            _ => None,
        }
    };
    assert_eq!(
        user_cache_dir(&env(Some("/x/cache"), Some("/home/u"))),
        Some(Path::new("/x/cache/agenticcann/store").to_path_buf())
    );
    assert_eq!(
        user_cache_dir(&env(Some("relative"), Some("/home/u"))),
        Some(Path::new("/home/u/.cache/agenticcann/store").to_path_buf())
    );
    assert_eq!(user_cache_dir(&env(None, None)), None);
}

/// A one-op spec and a candidate for it (sources are never compiled here).
fn draft_parts() -> (
    agenticcann_build::spec::OpSpec,
    agenticcann_build::judge::Candidate,
) {
    let manifest = r#"
[package]
name = "demo"
version = "0.1.0"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.add]
inputs  = { x = "f16[n]", y = "f16[n]" }
outputs = { z = "f16[n]" }
reference = "z = x + y"
shapes  = [{ n = 7 }]
"#;
    let spec = agenticcann_build::spec::Spec::from_manifest_str(manifest, None)
        .unwrap()
        .unwrap();
    let op = spec.ops.into_iter().next().unwrap();
    let candidate = agenticcann_build::judge::Candidate::new(
        "// kernel\n",
        "// tiling\n",
        vec![TilingField {
            name: "n".into(),
            ty: FieldType::U32,
        }],
    );
    (op, candidate)
}

#[test]
fn a_draft_records_its_real_provenance_and_holds_tells_kernels_apart() {
    use agenticcann_build::store::{write_entry, Draft, KnowledgeRef, PhaseTokens};
    let (op, candidate) = draft_parts();
    let mut provenance = Provenance::new(Proposer::Llm);
    provenance.model = Some("qwen2.5-coder-32b".into());
    provenance.generation = Some(3);
    provenance.parent = Some("cand-17".into());
    provenance.tokens = Some(PhaseTokens {
        init: 1200,
        mutation: 300,
        repair: 0,
        tuning: 90,
    });
    provenance.knowledge = vec![KnowledgeRef {
        id: "L2.align32".into(),
        digest: "ab".repeat(32),
    }];
    let draft = Draft {
        op: &op,
        candidate: &candidate,
        provenance: provenance.clone(),
        evaluation: None,
    };
    let root = tempfile::tempdir().unwrap();
    let entry = write_entry(root.path(), &draft).unwrap();
    assert_eq!(entry.dir, root.path().join(op.key().to_hex()));
    assert_eq!(entry.manifest.provenance, provenance);
    assert_eq!(entry.manifest.op.as_deref(), Some("add"));
    assert_eq!(entry.manifest, draft.manifest());
    assert!(entry.holds(&candidate));

    // Another kernel for the same key: write_entry keeps the entry in place.
    let other = agenticcann_build::judge::Candidate::new(
        "// another kernel\n",
        "// tiling\n",
        candidate.tiling_fields.clone(),
    );
    let second = Draft {
        candidate: &other,
        ..draft.clone()
    };
    let kept = write_entry(root.path(), &second).unwrap();
    assert_eq!(kept, entry);
    assert!(!kept.holds(&other));
    let replaced = agenticcann_build::store::replace_entry(root.path(), &second).unwrap();
    assert!(replaced.holds(&other) && !replaced.holds(&candidate));
}

#[test]
fn manifests_without_the_optional_provenance_keep_their_bytes_and_digest() {
    // A manifest written before any optional provenance field existed loads, and writes
    // back byte for byte (so its digest, which locks pin, does not change).
    let text = manifest(Key::from_bytes([9; 32])).to_toml_string();
    let parsed = Manifest::from_toml_str(&text, "test").unwrap();
    assert_eq!(parsed.provenance, Provenance::new(Proposer::Hand));
    assert_eq!(parsed.to_toml_string(), text);
    assert!(!text.contains("model") && !text.contains("generation"));
}

#[test]
fn pin_writes_the_lock_next_to_the_manifest_once() {
    use agenticcann_build::store::lock::{check_pinnable, in_crate_kernels, lock_path_of, pin};
    use agenticcann_build::store::Lock;
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("Cargo.toml");
    std::fs::write(&manifest, "[package]\nname = \"x\"\n").unwrap();
    assert_eq!(check_pinnable(&manifest).unwrap(), lock_path_of(&manifest));
    let key = Key::from_bytes([3; 32]);
    let entry = put(&dir.path().join("kernels"), key);
    assert!(in_crate_kernels(
        &manifest,
        Path::new("kernels"),
        &entry.dir
    ));
    assert!(!in_crate_kernels(
        &manifest,
        Path::new("elsewhere"),
        &entry.dir
    ));

    let lock = pin(&manifest, "op", key, entry.manifest_digest).unwrap();
    assert_eq!(lock, dir.path().join("agenticcann.lock"));
    let read = Lock::read(&lock).unwrap().unwrap();
    assert_eq!(
        read.get("op").map(|p| (p.key, p.manifest)),
        Some((key, entry.manifest_digest))
    );
    // Pinning the same thing again leaves the file alone.
    let before = std::fs::metadata(&lock).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    pin(&manifest, "op", key, entry.manifest_digest).unwrap();
    assert_eq!(
        std::fs::metadata(&lock).unwrap().modified().unwrap(),
        before
    );

    // A lock that does not parse stops a pin before any work, and is left as it was.
    std::fs::write(&lock, "version = 99\n").unwrap();
    let err = check_pinnable(&manifest).unwrap_err().to_string();
    assert!(err.contains("version = 99"), "{err}");
    assert!(pin(&manifest, "op", key, entry.manifest_digest).is_err());
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "version = 99\n");
}
