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

    // Exactly the inputs: the manifest, the store folder (so a new entry re-runs the script),
    // the entries' three files, the simulator headers.
    let mut rerun = first.rerun_if_changed.clone();
    rerun.sort();
    let mut want = vec![
        f.root().join("Cargo.toml"),
        f.root().join("kernels"),
        sim_include(),
    ];
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

/// `AGENTICCANN_CXX`, `CXX` and the simulator locations are read through the build's
/// environment reader, so each is announced with `cargo:rerun-if-env-changed`; the boolean
/// `AGENTICCANN_NO_SYNTH` too when the builder does not set it.
#[test]
fn toolchain_variables_are_announced_for_rerun() {
    let f = Fixture::new(&["add_f32"]);
    let report = f.builder().try_build().unwrap();
    for v in [
        "AGENTICCANN_CXX",
        "CXX",
        "AGENTICCANN_SIM_LIB_DIR",
        "AGENTICCANN_SIM_PROFILES",
    ] {
        assert!(
            report.env_read.iter().any(|r| r == v),
            "{v} not read through Env: {:?}",
            report.env_read
        );
    }
    // A miss with the proposer left to the environment: `off` means "do not turn it off".
    let f = Fixture::new(&["softmax"]);
    f.set_reference("softmax", "m = max(x, axis=-1, keepdims=true)\ne = exp(3 * (x - m))\ny = e / sum(e, axis=-1, keepdims=true)");
    // The fixture's builder with the proposer left to the environment.
    let from_env = |f: &Fixture| {
        let mut b = Builder::new();
        b.manifest_dir(f.root())
            .out_dir(f.out())
            .backend(agenticcann_build::toolchain::Backend::Sim)
            .sim_include(sim_include())
            .cache_dir(f.root().join("cache"))
            .remote(None)
            .offline(false)
            .docs_only(false)
            .jobs(2)
            .cargo_metadata(false);
        b
    };
    let mut b = from_env(&f);
    b.env_override("AGENTICCANN_NO_SYNTH", Some("1"));
    let e = b.try_build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Miss);
    assert!(e.to_string().contains("the offline proposer is off"), "{e}");
    for off in ["off", "0", "false", "no"] {
        let mut b = from_env(&f);
        b.env_override("AGENTICCANN_NO_SYNTH", Some(off))
            // The judge would need the compiler: a missing one proves the proposer ran.
            .env_override("AGENTICCANN_CXX", Some("/nonexistent/g++"));
        let e = b.try_build().unwrap_err();
        assert!(
            !e.to_string().contains("the offline proposer is off"),
            "AGENTICCANN_NO_SYNTH={off}: {e}"
        );
        assert!(e.to_string().contains("/nonexistent/g++"), "{e}");
    }
}

/// On a store miss the judge uses the build's own toolchain: a compiler chosen through the
/// builder (not the process environment) is the one the judge runs.
#[test]
fn a_miss_is_judged_with_the_builders_compiler() {
    let f = Fixture::new(&["softmax"]);
    f.set_reference("softmax", "m = max(x, axis=-1, keepdims=true)\ne = exp(2 * (x - m))\ny = e / sum(e, axis=-1, keepdims=true)");
    let missing = f.root().join("no-such-g++");
    let e = f
        .builder()
        .synth_on_miss(true)
        .env_override("AGENTICCANN_CXX", Some(missing.to_str().unwrap()))
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Miss);
    let msg = e.to_string();
    assert!(msg.contains("no-such-g++"), "{msg}");
    assert!(msg.contains("apt-get install g++"), "{msg}");
}

/// "The judge accepted it" means "this is the object the crate links": one entry compiled
/// by a build and by the judge gives the same translation unit (but the paths of the files
/// it includes), the same flags byte for byte, and the same preprocessed unit.
#[test]
fn the_judge_compiles_the_unit_and_flags_the_build_links() {
    use agenticcann_build::judge::{self, Candidate, EvalOptions, SimToolchain};
    use agenticcann_build::spec::Spec;

    let f = Fixture::new(&["add_f32"]);
    let report = f.builder().try_build().unwrap();
    let k16 = &ADD_F32[..16];
    let spec = Spec::from_manifest_path(&f.root().join("Cargo.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("add_f32").unwrap();
    let (candidate, _) = Candidate::load(&f.entry(ADD_F32), op).unwrap();
    let tc = SimToolchain {
        include: sim_include(),
        ..SimToolchain::from_env().unwrap()
    };
    let options = EvalOptions {
        toolchain: Some(tc.clone()),
        cache_dir: Some(f.root().join("judge-cache")),
        held_out: false,
        stress: false,
        ..EvalOptions::default()
    };
    let prepared = judge::Prepared::new(op, &options).unwrap();
    let compiled = judge::compile(&prepared, &candidate).unwrap();
    assert!(compiled.ok(), "{:#?}", compiled.diagnostics);

    for (unit, judge_cmd, judge_src) in [
        ("kernel", &compiled.kernel_command, "kernel_tu.cpp"),
        ("tiling", &compiled.tiling_command, "tiling_tu.cpp"),
    ] {
        let name = format!("agc_{k16}_{unit}");
        let build_cmd = &report
            .compile_commands
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no command for {name}: {:?}", report.compile_commands))
            .1;
        // The flags: everything before `-c`, the stub include folder named, the judge's
        // precompiled header (built with these same flags) left out.
        let flags = |cmd: &[String], stub: &std::path::Path| -> Vec<String> {
            let end = cmd.iter().position(|a| a == "-c").unwrap();
            let mut out = Vec::new();
            let mut i = 0;
            while i < end {
                if cmd[i] == "-Winvalid-pch" {
                    i += 1;
                    continue;
                }
                if cmd[i] == "-include" {
                    i += 2;
                    continue;
                }
                out.push(if std::path::Path::new(&cmd[i]) == stub {
                    "<stub include>".to_string()
                } else {
                    cmd[i].clone()
                });
                i += 1;
            }
            out
        };
        let build_stub = f.out().join("agenticcann/sim/include");
        let judge_stub = compiled.dir.join("include");
        let bf = flags(build_cmd, &build_stub);
        let jf = flags(judge_cmd, &judge_stub);
        assert_eq!(
            bf, jf,
            "{unit}: the build and the judge compile with different flags"
        );
        assert!(bf.contains(&"-O2".to_string()), "{bf:?}");

        // The unit's text, but the paths of the entry's files.
        let build_src = f.out().join(format!("agenticcann/sim/src/{name}.cpp"));
        let build_text = std::fs::read_to_string(&build_src).unwrap();
        let judge_text = std::fs::read_to_string(compiled.dir.join(judge_src)).unwrap();
        let entry_header = f
            .out()
            .join(format!("agenticcann/{ADD_F32}/agenticcann_tiling.h"));
        let norm = |t: &str, header: &std::path::Path, dir: &std::path::Path| {
            t.replace(&header.display().to_string(), "<header>")
                .replace(&dir.display().to_string(), "<entry>")
        };
        assert_eq!(
            norm(&build_text, &entry_header, &f.entry(ADD_F32)),
            norm(
                &judge_text,
                &compiled.dir.join("agenticcann_tiling.h"),
                &compiled.dir
            ),
            "{unit}: different translation units"
        );

        // The preprocessed unit, byte for byte (no line markers: paths differ).
        let preprocess = |cmd: &[String], src: &std::path::Path| -> Vec<u8> {
            let end = cmd.iter().position(|a| a == "-c").unwrap();
            let mut args: Vec<String> = Vec::new();
            let mut i = 1;
            while i < end {
                if cmd[i] == "-Winvalid-pch" {
                    i += 1;
                } else if cmd[i] == "-include" {
                    i += 2;
                } else {
                    args.push(cmd[i].clone());
                    i += 1;
                }
            }
            let out = std::process::Command::new(&cmd[0])
                .args(&args)
                .args(["-E", "-P"])
                .arg(src)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let b = preprocess(build_cmd, &build_src);
        let j = preprocess(judge_cmd, &compiled.dir.join(judge_src));
        assert!(b.len() > 1000, "{unit}: {} bytes", b.len());
        assert!(b == j, "{unit}: the preprocessed units differ");
    }
}
