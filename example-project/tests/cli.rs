//! The `example-project` binary as a user runs it.

use std::process::Command;

use example_project::fetch::resolve_model_dir;
use example_project::ops::KERNELS_UNAVAILABLE;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_example-project"))
}

#[test]
fn usage_errors_exit_2() {
    let out = bin().args(["--fetch-only", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["--dtype", "bf16"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: f32, f16"));
}

#[test]
fn a_model_dir_without_a_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("--model-dir").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--model-dir: ")
            && err.contains("is missing config.json, tokenizer.json, model.safetensors"),
        "{err}"
    );
}

fn real_model_dir() -> std::path::PathBuf {
    match resolve_model_dir(None, false) {
        Ok(m) => m.dir,
        Err(e) => panic!("the real all-MiniLM-L6-v2 model is needed for this test: {e}"),
    }
}

#[test]
fn json_lines_on_kernels_without_notice() {
    let out = bin()
        .arg("--model-dir")
        .arg(real_model_dir())
        .args([
            "--json",
            "--dtype",
            "f16",
            "Paris is in France.",
            "Tokyo is in Japan.",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains(KERNELS_UNAVAILABLE));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("{\"sentence\":\"Paris is in France.\",\"embedding\":["));
    for l in lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let e: Vec<f64> = serde_json::from_value(v["embedding"].clone()).unwrap();
        assert_eq!(e.len(), 384);
        let norm = e.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
    }
}

#[test]
fn human_output_has_the_similarity_matrix() {
    let out = bin()
        .arg("--model-dir")
        .arg(real_model_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("cosine similarity"), "{stdout}");
    assert!(stdout.contains("matrix products: host (ndarray + matrixmultiply sgemm)"));
    assert!(stdout.contains("[5] I love eating fresh strawberries in the summer."));
    assert!(
        stdout.contains("vector ops: fused agenticcann kernels"),
        "{stdout}"
    );
    assert!(stdout.contains("vector part total"), "{stdout}");
    // Diagonal of the 6 x 6 matrix.
    assert_eq!(stdout.matches(" 1.000").count(), 6, "{stdout}");
}
