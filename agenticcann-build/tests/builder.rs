//! `Builder` driven in-process over copies of tests/build-fixture: no-op rebuilds compile
//! nothing, a changed kernel recompiles only itself, tampered files and spec changes are the
//! documented errors, the lock is checked, documentation builds emit stubs only.

mod common;

use agenticcann_build::store::{Digest, Lock, LOCK_FILE};
use agenticcann_build::{Builder, ErrorKind};
use common::*;

#[test]
fn second_build_compiles_nothing_and_an_edit_recompiles_only_its_unit() {
    let f = Fixture::new(&[]);
    let first = f.builder().try_build().unwrap();
    assert_eq!(first.compiled.len(), 10, "{first:?}");
    assert!(first.reused.is_empty());
    assert_eq!(first.ops.len(), 5);

    // Exactly the inputs: the manifest, the four entries' three files, the simulator headers.
    let mut rerun = first.rerun_if_changed.clone();
    rerun.sort();
    let mut want = vec![f.root().join("Cargo.toml"), sim_include()];
    for k in [ADD_F16, ADD_F32, RMS_NORM, SOFTMAX, STAGE_COPY] {
        for file in ["manifest.toml", "kernel.cpp", "tiling.cpp"] {
            want.push(f.entry(k).join(file));
        }
    }
    want.sort();
    assert_eq!(rerun, want);

    let before = mtimes(&f.out());
    let second = f.builder().try_build().unwrap();
    assert!(second.compiled.is_empty(), "{:?}", second.compiled);
    assert_eq!(second.reused.len(), 10);
    assert_eq!(
        mtimes(&f.out()),
        before,
        "a no-op build rewrote files in OUT_DIR"
    );

    // A real change to one kernel recompiles that unit only.
    let k = f.entry(ADD_F32).join("kernel.cpp");
    let text = std::fs::read_to_string(&k).unwrap() + "// touched\n";
    f.edit_entry_file(ADD_F32, "kernel.cpp", &text);
    let third = f.builder().try_build().unwrap();
    assert_eq!(
        third.compiled,
        vec!["agc_88f0c1ab39c04e8e_kernel".to_string()]
    );
    assert_eq!(third.reused.len(), 9);
}

#[test]
fn a_tampered_kernel_file_fails_the_build_naming_the_file() {
    let f = Fixture::new(&["rms_norm", "softmax"]);
    let k = f.entry(RMS_NORM).join("kernel.cpp");
    let mut text = std::fs::read_to_string(&k).unwrap();
    text = text.replace("1.0f / sqrtf", "2.0f / sqrtf");
    std::fs::write(&k, &text).unwrap();
    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Store);
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("op `rms_norm` (key {RMS_NORM}): ")),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{} does not match its digest", k.display())),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("found {}", Digest::of(text.as_bytes()))),
        "{msg}"
    );
    // Nothing was compiled.
    assert!(!f.out().join("agenticcann/sim/obj").exists());
}

#[test]
fn a_miss_is_synthesized_into_out_dir_with_a_warning() {
    let f = Fixture::new(&["softmax"]);
    f.set_reference("softmax", "m = max(x, axis=-1, keepdims=true)\ne = exp(2 * (x - m))\ny = e / sum(e, axis=-1, keepdims=true)");
    let report = f.builder().synth_on_miss(true).try_build().unwrap();
    let op = report.ops.iter().find(|o| o.name == "softmax").unwrap();
    assert_eq!(
        op.source,
        Some(agenticcann_build::store::Source::Synthesized)
    );
    let dir = op.entry_dir.clone().unwrap();
    assert!(dir.starts_with(f.out()), "{} not in OUT_DIR", dir.display());
    assert!(
        !f.entry(&op.key.to_hex()).exists(),
        "the crate's kernels/ folder is never written"
    );
    let m = agenticcann_build::store::Entry::load_with_key(&dir, &op.key).unwrap();
    assert!(m.manifest.verification.is_some(), "the judge verified it");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("op `softmax`") && w.contains("offline proposer")),
        "{:?}",
        report.warnings
    );
    // A second build reuses the cached entry.
    let again = f.builder().synth_on_miss(true).try_build().unwrap();
    assert_eq!(
        again
            .ops
            .iter()
            .find(|o| o.name == "softmax")
            .unwrap()
            .entry_dir,
        Some(dir)
    );
}

#[test]
fn a_spec_change_without_a_kernel_is_the_miss_error() {
    let f = Fixture::new(&["softmax"]);
    let mut lock = Lock::default();
    let old = key(SOFTMAX);
    lock.set(
        "softmax",
        old,
        Digest::of(&std::fs::read(f.entry(SOFTMAX).join("manifest.toml")).unwrap()),
    );
    lock.write_atomic(&f.root().join(LOCK_FILE)).unwrap();
    f.set_reference("softmax", "m = max(x, axis=-1, keepdims=true)\ne = exp(2 * (x - m))\ny = e / sum(e, axis=-1, keepdims=true)");

    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Miss);
    let msg = e.to_string();
    let spec = agenticcann_build::spec::Spec::from_manifest_path(&f.root().join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let new = spec.ops[0].key();
    assert_ne!(new, old);
    assert!(msg.starts_with("no kernel for op `softmax`"), "{msg}");
    assert!(msg.contains(&format!("op `softmax`, key {new}")), "{msg}");
    assert!(
        msg.contains(&format!("{}", f.entry(&new.to_hex()).display())),
        "{msg}"
    );
    assert!(msg.contains("(user cache)"), "{msg}");
    assert!(
        msg.contains("no remote: AGENTICCANN_REMOTE is not set"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!(
            "agenticcann.lock pins `softmax` to key {old}: the spec changed"
        )),
        "{msg}"
    );
    assert!(
        msg.contains("cargo agenticcann synth --op softmax --out kernels --lock"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!(
            "cargo agenticcann judge --op softmax --lock kernels/{new}"
        )),
        "{msg}"
    );
}

#[test]
fn the_lock_pins_manifests_and_reports_stale_pins() {
    let f = Fixture::new(&["add_f32"]);
    let lock_path = f.root().join(LOCK_FILE);
    let manifest = std::fs::read(f.entry(ADD_F32).join("manifest.toml")).unwrap();

    let mut lock = Lock::default();
    lock.set("add_f32", key(ADD_F32), Digest::of(&manifest));
    lock.set("gone", key(SOFTMAX), Digest::of(b"x"));
    lock.write_atomic(&lock_path).unwrap();
    let ok = f.builder().try_build().unwrap();
    assert!(ok.rerun_if_changed.contains(&lock_path));
    assert_eq!(
        ok.warnings,
        vec![
            "agenticcann.lock: op `gone` is pinned but no longer declared (stale pin)".to_string()
        ]
    );

    lock.set("add_f32", key(ADD_F32), Digest::of(b"another manifest"));
    lock.write_atomic(&lock_path).unwrap();
    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Lock);
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("{} pins op `add_f32`", lock_path.display())),
        "{msg}"
    );
    assert!(
        msg.contains(&format!(
            "cargo agenticcann judge --op add_f32 --lock {}",
            f.entry(ADD_F32).display()
        )),
        "{msg}"
    );

    std::fs::write(&lock_path, "version = 1\n[[op]]\nname = 3\n").unwrap();
    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Lock);
    assert!(e.to_string().contains("invalid lock file"), "{e}");
}

#[test]
fn documentation_builds_emit_stubs_only() {
    let f = Fixture::new(&[]);
    // A tampered entry does not matter: documentation builds look nothing up.
    std::fs::write(f.entry(ADD_F16).join("kernel.cpp"), "garbage").unwrap();
    let r = f.builder().docs_only(true).try_build().unwrap();
    assert_eq!(r.backend, None);
    assert!(r.compiled.is_empty());
    let text = std::fs::read_to_string(&r.ops_rs).unwrap();
    assert!(text.contains("pub fn rms_norm<"), "{text}");
    assert!(text.contains("a docs.rs build (DOCS_RS), which compiles none"));
    assert!(!text.contains("mod ffi"));
    assert!(!f.out().join("agenticcann").exists());
}

#[test]
fn compile_errors_name_the_op_key_and_compiler_output() {
    let f = Fixture::new(&["add_f32"]);
    let k = f.entry(ADD_F32).join("kernel.cpp");
    let text = std::fs::read_to_string(&k)
        .unwrap()
        .replace("Add(z, x, y, n);", "Add(z, x, y, n)");
    f.edit_entry_file(ADD_F32, "kernel.cpp", &text);
    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Toolchain);
    let msg = e.to_string();
    assert!(
        msg.contains(&format!(
            "compiling the kernel of op `add_f32` (key {ADD_F32}"
        )),
        "{msg}"
    );
    assert!(msg.contains("kernel.cpp:"), "{msg}");
    assert!(msg.contains("error: expected ';'"), "{msg}");
}

#[test]
fn a_missing_compiler_names_the_op_and_the_install_line() {
    let f = Fixture::new(&["add_f32"]);
    let missing = f.root().join("no-such-g++");
    let e = f
        .builder()
        .env_override("AGENTICCANN_CXX", Some(missing.to_str().unwrap()))
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Toolchain);
    let msg = e.to_string();
    assert!(msg.contains("sudo apt-get install g++"), "{msg}");
    assert!(msg.contains("op `add_f32`"), "{msg}");
    assert!(msg.contains("no-such-g++"), "{msg}");
}

#[test]
fn outside_a_build_script_missing_settings_are_named() {
    let f = Fixture::new(&["add_f32"]);
    let e = Builder::new()
        .cargo_metadata(false)
        .manifest_dir(f.root())
        .env_override("OUT_DIR", None)
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Env);
    assert!(e.to_string().starts_with("OUT_DIR is not set"), "{e}");

    let mut b = Builder::new();
    b.cargo_metadata(false)
        .manifest_dir(f.root())
        .out_dir(f.out())
        .cache_dir(f.root().join("cache"))
        .offline(true)
        .docs_only(false)
        .env_override("DEP_AGENTICCANN_BACKEND", None);
    let e = b.try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Env);
    assert!(
        e.to_string()
            .contains("add `agenticcann` to this crate's [dependencies]"),
        "{e}"
    );
}

#[test]
fn two_ops_with_one_key_share_one_entry_and_one_compile() {
    let f = Fixture::new(&["add_f32"]);
    let p = f.root().join("Cargo.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    // The same op under another name, inputs listed in another order: the same key.
    let text = text.replace(
        "[package.metadata.agenticcann.ops.add_f32]",
        "[package.metadata.agenticcann.ops.plus]\ninputs = { y = \"f32[n]\", x = \"f32[n]\" }\noutputs = { z = \"f32[n]\" }\nreference = \"z = x + y\"\nshapes = [{ n = 1 }]\n\n[package.metadata.agenticcann.ops.add_f32]",
    );
    std::fs::write(&p, text).unwrap();
    let r = f.builder().try_build().unwrap();
    assert_eq!(r.ops.len(), 2);
    assert_eq!(r.ops[0].key, r.ops[1].key);
    assert_eq!(r.compiled.len(), 2, "{:?}", r.compiled);
    let ops = std::fs::read_to_string(&r.ops_rs).unwrap();
    // Each wrapper keeps its own manifest order of arguments.
    assert!(ops.contains("pub fn plus<TY, TX, TZ>("), "{ops}");
    assert!(ops.contains("pub fn add_f32<TX, TY, TZ>("), "{ops}");
}

#[test]
fn a_crate_without_ops_gets_an_empty_ops_module() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let r = Builder::new()
        .manifest_dir(dir.path())
        .out_dir(dir.path().join("out"))
        .cargo_metadata(false)
        .try_build()
        .unwrap();
    assert!(r.ops.is_empty());
    assert_eq!(r.backend, None);
    assert!(std::fs::read_to_string(&r.ops_rs)
        .unwrap()
        .starts_with("// This crate declares no ops"));
}

#[test]
fn an_invalid_spec_is_a_spec_error() {
    let f = Fixture::new(&["add_f32"]);
    f.set_reference("add_f32", "z = x + w");
    let e = f.builder().try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Spec);
    assert!(
        e.to_string().contains("op `add_f32`, field `reference`"),
        "{e}"
    );
}
