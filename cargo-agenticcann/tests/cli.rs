//! `cargo agenticcann check` driven as a binary over the fixture crates in `fixtures/`.

use std::path::{Path, PathBuf};

use agenticcann_build::spec::Spec;
use serde_json::Value;
use snapbox::cmd::{cargo_bin, Command};
use snapbox::str;

mod common;

/// Fields of `check` messages whose values the snapshots keep.
const CHECK_KEEP: [&str; 8] = [
    "package",
    "op",
    "ok",
    "pattern",
    "pattern_guessed",
    "soc",
    "arch",
    "field",
];

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
        .canonicalize()
        .unwrap()
}

/// `cargo-agenticcann agenticcann check <args>`, as cargo runs the subcommand.
fn check(args: &[&str]) -> Command {
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "check"])
        .args(args)
}

fn manifest(rel: &str) -> String {
    fixture(rel).join("Cargo.toml").display().to_string()
}

/// Runs with `--message-format json` and returns the exit code and the objects.
fn json(args: &[&str]) -> (i32, Vec<Value>) {
    let out = check(args)
        .args(["--message-format", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let objects = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (out.status.code().unwrap(), objects)
}

fn by_op<'a>(objects: &'a [Value], op: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["op"] == op)
        .unwrap_or_else(|| panic!("no object for {op}"))
}

#[test]
fn valid_crate_human_output() {
    check(&["--manifest-path", &manifest("valid")])
        .assert()
        .code(0)
        .stdout_eq(str![[r#"
fixture-valid rms_norm: ok  key [..]  pattern normalization (guessed)
fixture-valid layer_norm: ok  key [..]  pattern normalization
fixture-valid softmax: ok  key [..]  pattern softmax (guessed)
fixture-valid gelu: ok  key [..]  pattern elementwise (guessed)
fixture-valid gelu_tanh: ok  key [..]  pattern elementwise (guessed)
fixture-valid silu: ok  key [..]  pattern elementwise (guessed)
fixture-valid swiglu: ok  key [..]  pattern elementwise (guessed)
fixture-valid add_rms_norm: ok  key [..]  pattern fusion (guessed)
fixture-valid relu_mask: ok  key [..]  pattern fusion (guessed)

"#]])
        .stderr_eq(str![[r#"
checked 9 ops in 1 of 1 package: 9 valid, 0 invalid

"#]]);
    // `cargo metadata --no-deps` leaves nothing behind in the fixture.
    assert!(!fixture("valid").join("Cargo.lock").exists());
    assert!(!fixture("valid").join("target").exists());
}

#[test]
fn valid_crate_json_output() {
    let (code, objects) = json(&["--manifest-path", &manifest("valid")]);
    assert_eq!(code, 0);
    assert_eq!(objects.len(), 9);
    let spec = Spec::from_manifest_path(&fixture("valid").join("Cargo.toml"))
        .unwrap()
        .unwrap();
    for o in &objects {
        assert_eq!(o["package"], "fixture-valid");
        assert_eq!(o["ok"], true);
        assert_eq!(o["errors"], serde_json::json!([]));
        assert_eq!(o["soc"], "Ascend910B1");
        assert_eq!(o["arch"], "dav-c220-vec");
        let op = spec.op(o["op"].as_str().unwrap()).unwrap();
        assert_eq!(o["key"], op.key().to_string());
        assert!(o["manifest_path"].as_str().unwrap().ends_with("Cargo.toml"));
    }
    let rms = by_op(&objects, "rms_norm");
    assert_eq!(rms["evaluated_shape"], serde_json::json!({ "rows": 1 }));
    assert_eq!(rms["pattern"], "normalization");
    assert_eq!(rms["pattern_guessed"], true);
    let ln = by_op(&objects, "layer_norm");
    assert_eq!(
        ln["evaluated_shape"],
        serde_json::json!({ "rows": 3, "hidden": 384 })
    );
    assert_eq!(ln["pattern_guessed"], false);
    assert_eq!(
        by_op(&objects, "relu_mask")["evaluated_shape"],
        serde_json::json!({})
    );
    snapbox::assert_data_eq!(
        common::structure(ln, &CHECK_KEEP),
        snapbox::file!["snapshots/check_valid_op.json": Text]
    );
}

#[test]
fn invalid_crate_reports_each_class_with_field_and_reason() {
    let (code, objects) = json(&["--manifest-path", &manifest("invalid")]);
    assert_eq!(code, 1);
    assert_eq!(objects.len(), 14);
    let good = by_op(&objects, "good");
    assert_eq!(good["ok"], true);
    assert_eq!(good["key"].as_str().unwrap().len(), 64);
    snapbox::assert_data_eq!(
        common::structure(by_op(&objects, "unknown_dtype"), &CHECK_KEEP),
        snapbox::file!["snapshots/check_invalid_op.json": Text]
    );
    let expect = [
        ("unknown_dtype", "inputs.x", "unknown dtype `f61`"),
        ("undefined_name", "reference", "undefined name `z`"),
        (
            "unknown_function",
            "reference",
            "unknown function `softplus`",
        ),
        ("wrong_arity", "reference", "`clamp` takes 3 arguments"),
        ("bad_axis", "reference", "axis 2 is out of range"),
        (
            "output_shape_mismatch",
            "reference",
            "computes `y` with shape [rows, 1]",
        ),
        ("duplicate_name", "outputs.x", "duplicate name `x`"),
        ("nonfinite_attr", "attrs.eps", "must be finite"),
        (
            "dim_conflict",
            "reference",
            "`n` is used with two different sizes",
        ),
        (
            "parse_error",
            "reference",
            "expected an expression, found `)`",
        ),
        ("missing_shapes", "shapes", "needs shapes"),
        ("unknown_field", "refrence", "unknown field `refrence`"),
        ("bad_init", "init.x", "input is i32"),
    ];
    for (op, field, needle) in expect {
        let o = by_op(&objects, op);
        assert_eq!(o["ok"], false, "{op}");
        assert_eq!(o["key"], Value::Null, "{op}");
        assert_eq!(o["package"], "fixture-invalid");
        let errors = o["errors"].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e["field"] == field && e["message"].as_str().unwrap().contains(needle)),
            "{op}: {errors:?}"
        );
    }
    let parse = &by_op(&objects, "parse_error")["errors"][0];
    assert_eq!(parse["line"], 2);
    assert_eq!(parse["column"], 13);
    assert_eq!(
        parse["snippet"],
        "  |\n2 | y = t * (2 +)\n  |             ^"
    );
}

#[test]
fn invalid_crate_human_output_shows_carets() {
    // Every error line names the manifest and the op.
    let m = manifest("invalid");
    let out = check(&["--manifest-path", &m]).assert().code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("fixture-invalid good: ok  key "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "fixture-invalid parse_error: invalid\n    error: {m}: op `parse_error`: reference: expected an expression, found `)`\n     --> reference line 2, column 13\n        |\n      2 | y = t * (2 +)\n        |             ^\n"
        )),
        "{stdout}"
    );
    assert!(stdout.contains(&format!(
        "fixture-invalid unknown_dtype: invalid\n    error: {m}: op `unknown_dtype`: inputs.x: unknown dtype `f61`"
    )));
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(
        stderr,
        "checked 14 ops in 1 of 1 package: 1 valid, 13 invalid\n"
    );
}

#[test]
fn warnings_for_unused_inputs_and_non_finite_outputs() {
    let dir = std::env::temp_dir().join(format!("agenticcann-cli-warn-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        r#"[package]
name = "warn"
version = "0.1.0"
edition = "2021"
[workspace]
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.log_op]
inputs = { x = "f32[8]", unused = "f32[8]" }
outputs = { y = "f32[8]" }
attrs = { k = 2 }
reference = "y = log(x)"
"#,
    )
    .unwrap();
    let (code, objects) = json(&[
        "--manifest-path",
        &dir.join("Cargo.toml").display().to_string(),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "warnings do not make a spec invalid");
    let w = objects[0]["warnings"].as_array().unwrap();
    let fields: Vec<&str> = w.iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["inputs.unused", "attrs.k", "reference"]);
    assert!(
        w[2]["message"].as_str().unwrap().contains("non-finite"),
        "{w:?}"
    );
}

#[test]
fn unknown_soc_invalidates_every_op() {
    let (code, objects) = json(&["--manifest-path", &manifest("invalid-soc")]);
    assert_eq!(code, 1);
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["op"], "scale");
    assert_eq!(objects[0]["errors"][0]["field"], "soc");
    assert!(objects[0]["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("unknown SoC `Ascend999Z`"));
}

#[test]
fn workspace_defaults_and_package_selection() {
    let root = manifest("workspace-defaults");
    let (code, all) = json(&["--manifest-path", &root, "--workspace"]);
    assert_eq!(code, 0);
    let ops: Vec<(String, String)> = all
        .iter()
        .map(|o| {
            (
                o["package"].as_str().unwrap().into(),
                o["op"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        ops,
        [
            ("fixture-ws-a".into(), "scale".into()),
            ("fixture-ws-b".into(), "scale".into()),
            ("fixture-ws-b".into(), "scale_strict".into())
        ]
    );
    // a takes the workspace SoC; b overrides it; the arch is in the key.
    assert_eq!(all[0]["soc"], "Ascend910B2");
    assert_eq!(all[1]["soc"], "Ascend310P3");
    assert_eq!(all[1]["arch"], "dav-m200-vec");
    assert_ne!(all[0]["key"], all[1]["key"]);
    // Tolerance and init are verification settings, not part of the key.
    assert_eq!(all[1]["key"], all[2]["key"]);
    // Defaults: a takes the workspace's f16 tolerance and init; b's package rtol overrides
    // the workspace's; b's op values override both.
    let out = |o: &Value| {
        (
            o["outputs"][0]["atol"].clone(),
            o["outputs"][0]["rtol"].clone(),
        )
    };
    assert_eq!(out(&all[0]), (5e-3.into(), 4e-3.into()));
    assert_eq!(out(&all[1]), (5e-3.into(), 1e-2.into()));
    assert_eq!(out(&all[2]), (1e-4.into(), 1e-4.into()));
    assert_eq!(all[0]["inputs"][0]["init"], "normal(0, 0.5)");
    assert_eq!(all[2]["inputs"][0]["init"], "uniform(-2, 2)");
    assert_eq!(all[0]["inputs"][0]["decl"], "f16[n]");

    // A virtual root without flags: its default members (all three).
    let (_, default) = json(&["--manifest-path", &root]);
    assert_eq!(default.len(), 3);
    // A member's manifest without flags: that member only.
    let (_, a) = json(&["--manifest-path", &manifest("workspace-defaults/a")]);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["package"], "fixture-ws-a");
    // -p and --exclude.
    let (_, b) = json(&["--manifest-path", &root, "-p", "fixture-ws-b"]);
    assert_eq!(b.len(), 2);
    assert!(b.iter().all(|o| o["package"] == "fixture-ws-b"));
    let (_, not_b) = json(&[
        "--manifest-path",
        &root,
        "--workspace",
        "--exclude",
        "fixture-ws-b",
    ]);
    assert_eq!(not_b.len(), 1);
    assert_eq!(not_b[0]["package"], "fixture-ws-a");
    // A member without ops prints nothing and is valid.
    let (code, c) = json(&["--manifest-path", &root, "-p", "fixture-ws-c"]);
    assert_eq!((code, c.len()), (0, 0));
}

#[test]
fn current_directory_selects_its_package() {
    let out = check(&["--message-format", "json"])
        .current_dir(fixture("workspace-defaults/b"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2);
    assert!(stdout
        .lines()
        .all(|l| l.contains("\"package\":\"fixture-ws-b\"")));
}

#[test]
fn usage_errors_exit_2() {
    check(&["--no-such-flag"]).assert().code(2);
    check(&["--message-format", "xml"]).assert().code(2);
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann"])
        .assert()
        .code(2);
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "frobnicate"])
        .assert()
        .code(2);
    check(&["--manifest-path", &manifest("valid"), "-p", "nope"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: package `nope` not found in the workspace (members: fixture-valid)

"#]]);
    check(&["--manifest-path", "/nonexistent/Cargo.toml"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: cannot load the workspace with `cargo metadata`: [..]
...
"#]]);
}

#[test]
fn help_and_version() {
    let out = check(&["--help"]).assert().code(0);
    let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for flag in [
        "--manifest-path",
        "--package",
        "--workspace",
        "--exclude",
        "--message-format",
        "Exit status: 0",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    Command::new(cargo_bin!("cargo-agenticcann"))
        .args(["agenticcann", "--version"])
        .assert()
        .code(0)
        .stdout_eq(str![[r#"
cargo-agenticcann [..]

"#]]);
}

#[test]
fn runs_as_a_cargo_subcommand() {
    // `cargo agenticcann check` finds `cargo-agenticcann` on PATH and passes `agenticcann`
    // as the first argument.
    let bin_dir = cargo_bin!("cargo-agenticcann")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &agenticcann_build::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let cargo = agenticcann_build::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "agenticcann",
            "check",
            "--manifest-path",
            &manifest("valid"),
            "--message-format",
            "json",
        ])
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 9);
}

/// A reader that closes the pipe at once (`check … | true`) does not turn a verdict into
/// success: an invalid crate still exits 1 and a valid one 0, with no panic.
#[test]
fn closed_stdout_keeps_the_verdict() {
    use std::process::{Command as Std, Stdio};
    let run = |rel: &str| {
        let mut child = Std::new(cargo_bin!("cargo-agenticcann"))
            .args(["agenticcann", "check", "--manifest-path", &manifest(rel)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before the child writes its first line.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run("invalid");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (code, stderr) = run("valid");
    assert_eq!(code, Some(0), "{stderr}");
}

/// A standard error whose reader left (`2>&1 | head` after the reader quit) or that is
/// closed (`2>&-`) does not turn a run into a panic (exit 101): the summary and `error:`
/// lines are dropped and the exit status is the verdict (1 invalid, 0 valid) or the usage
/// error (2).
#[test]
fn closed_stderr_keeps_the_verdict() {
    use std::process::{Command as Std, Stdio};
    let broken_pipe = |manifest_path: &str| {
        let mut child = Std::new(cargo_bin!("cargo-agenticcann"))
            .args(["agenticcann", "check", "--manifest-path", manifest_path])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end of standard error before the child writes to it.
        drop(child.stderr.take());
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let missing = fixture("valid").join("no-such-crate/Cargo.toml");
    for (path, want) in [
        (manifest("invalid"), 1),
        (manifest("valid"), 0),
        (missing.display().to_string(), 2),
    ] {
        let (code, stdout) = broken_pipe(&path);
        assert_eq!(code, Some(want), "{path}: {stdout}");
    }
    // The same with the descriptor closed by the shell.
    let closed = Std::new("sh")
        .arg("-c")
        .arg("exec \"$0\" agenticcann check --manifest-path \"$1\" 2>&-")
        .arg(cargo_bin!("cargo-agenticcann"))
        .arg(manifest("invalid"))
        .output()
        .unwrap();
    assert_eq!(closed.status.code(), Some(1), "{closed:?}");
}
