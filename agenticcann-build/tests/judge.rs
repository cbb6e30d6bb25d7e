//! The judge on its corpus (tests/judge/): honest kernels adapted from the simulator's suite
//! must be verified; every hostile kernel must be rejected or contained with the right
//! classification; broken ones must fail to compile with the right error kind and line. Each case is a folder with `kernel.cpp`, `tiling.cpp` and `case.toml`
//! (`op`, tiling `fields`, `[expect] outcome/kinds`, optional `[options]`); the ops are in
//! `tests/judge/specs.toml`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use agenticcann_build::judge::{
    evaluate, Candidate, EvalOptions, Evaluation, Outcome, Severity, ShapeOrigin, ShapeStatus,
};
use agenticcann_build::spec::Spec;
use agenticcann_build::store::TilingField;
use serde::Deserialize;

#[derive(Deserialize)]
struct Expect {
    outcome: String,
    kinds: Vec<String>,
    #[serde(default)]
    declared_shapes_pass: bool,
    #[serde(default)]
    suspect: bool,
    /// The line of the first error of the first expected kind.
    line: Option<u32>,
    /// Kinds that must not be among the errors.
    #[serde(default)]
    absent: Vec<String>,
}

#[derive(Deserialize, Default)]
struct CaseOptions {
    wall_seconds: Option<u64>,
    memory_mib: Option<u64>,
    output_mib: Option<u64>,
}

#[derive(Deserialize)]
struct Case {
    op: String,
    fields: Vec<TilingField>,
    expect: Expect,
    #[serde(default)]
    options: CaseOptions,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/judge")
}

fn spec() -> &'static Spec {
    static S: OnceLock<Spec> = OnceLock::new();
    S.get_or_init(|| {
        Spec::from_manifest_path(&corpus().join("specs.toml"))
            .unwrap()
            .unwrap()
    })
}

/// Shared by every test of this binary (and across runs): the precompiled header and the
/// harness object are built once.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge")
}

fn evaluate_case(name: &str) -> (Case, Evaluation) {
    let dir = corpus().join(name);
    let case: Case =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let op = spec()
        .op(&case.op)
        .unwrap_or_else(|| panic!("{name}: no op {}", case.op));
    let kernel = std::fs::read_to_string(dir.join("kernel.cpp")).unwrap();
    let tiling = std::fs::read_to_string(dir.join("tiling.cpp")).unwrap();
    let mut opts = EvalOptions {
        cache_dir: Some(cache_dir()),
        ..EvalOptions::default()
    };
    if let Some(s) = case.options.wall_seconds {
        opts.run_limits.wall = Duration::from_secs(s);
    }
    if let Some(m) = case.options.memory_mib {
        opts.run_limits.memory_bytes = m << 20;
    }
    if let Some(m) = case.options.output_mib {
        opts.run_limits.file_bytes = m << 20;
    }
    let candidate = Candidate::new(kernel, tiling, case.fields.clone());
    let ev =
        evaluate(op, &candidate, &opts).unwrap_or_else(|e| panic!("{name}: the judge failed: {e}"));
    (case, ev)
}

fn run_case(name: &str) {
    let (case, ev) = evaluate_case(name);
    let report = ev.render();
    if agenticcann_build::env::var_os("JUDGE_SHOW").is_some() {
        println!("{report}");
    }
    let outcome = serde_json::to_value(ev.outcome).unwrap();
    assert_eq!(
        outcome.as_str(),
        Some(case.expect.outcome.as_str()),
        "{name}:\n{report}"
    );
    for k in &case.expect.kinds {
        assert!(
            ev.errors().any(|d| &d.kind == k),
            "{name}: no `{k}` error:\n{report}"
        );
    }
    for k in &case.expect.absent {
        assert!(
            !ev.errors().any(|d| &d.kind == k),
            "{name}: an unexpected `{k}` error:\n{report}"
        );
    }
    assert_eq!(
        ev.suspect_performance, case.expect.suspect,
        "{name}:\n{report}"
    );
    if let Some(line) = case.expect.line {
        let first = ev
            .errors()
            .find(|d| d.kind == case.expect.kinds[0])
            .unwrap();
        assert_eq!(first.line, Some(line), "{name}:\n{report}");
    }
    if ev.outcome == Outcome::Verified && !case.expect.suspect {
        assert!(ev.accepted(), "{name}: verified but suspect:\n{report}");
        assert!(
            ev.shapes.iter().all(|s| matches!(
                s.status,
                ShapeStatus::Passed | ShapeStatus::SkippedEmpty
            ) || (s.status == ShapeStatus::Declined
                && s.origin.is_regime())),
            "{report}"
        );
        // Every verified launch has a plausible profile.
        for s in ev.shapes.iter().filter(|s| s.status == ShapeStatus::Passed) {
            let p = s
                .profile
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no profile:\n{report}"));
            assert!(
                p.time_us >= p.min_floor_us && p.roofline_fraction <= 1.0,
                "{name}:\n{report}"
            );
        }
    } else {
        assert!(!ev.accepted());
    }
    if case.expect.declared_shapes_pass {
        for s in ev
            .shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared)
        {
            assert_eq!(s.status, ShapeStatus::Passed, "{name}:\n{report}");
        }
        assert!(
            ev.shapes
                .iter()
                .any(|s| matches!(s.origin, ShapeOrigin::HeldOut { .. })
                    && s.status == ShapeStatus::Failed),
            "{name}: no held-out shape failed:\n{report}"
        );
    }
    // The JSON form round-trips.
    let json = serde_json::to_string(&ev).unwrap();
    let back: Evaluation = serde_json::from_str(&json).unwrap();
    assert_eq!(back.outcome, ev.outcome);
    assert_eq!(back.diagnostics.len(), ev.diagnostics.len());
}

macro_rules! cases {
    ($($test:ident => $path:literal,)*) => {
        $(#[test] fn $test() { run_case($path) })*
        const CASES: &[&str] = &[$($path),*];
    };
}

cases! {
    broken_illegal_cast => "broken/illegal_cast",
    broken_no_matching_function => "broken/no_matching_function",
    broken_signature_mismatch => "broken/signature_mismatch",
    broken_syntax => "broken/syntax",
    broken_tiling_unknown_field => "broken/tiling_unknown_field",
    broken_type_mismatch => "broken/type_mismatch",
    broken_unknown_api => "broken/unknown_api",
    broken_wrong_template_args => "broken/wrong_template_args",
    honest_add_f16 => "honest/add_f16",
    honest_rms_norm_f16 => "honest/rms_norm_f16",
    honest_rms_norm_f32 => "honest/rms_norm_f32",
    honest_softmax_f32 => "honest/softmax_f32",
    honest_layer_norm_f32 => "honest/layer_norm_f32",
    honest_abs_f16 => "honest/abs_f16",
    honest_add_rms_norm_f16 => "honest/add_rms_norm_f16",
    honest_bias_add_f32 => "honest/bias_add_f32",
    honest_cast_f16_f32 => "honest/cast_f16_f32",
    honest_cast_f32_f16 => "honest/cast_f32_f16",
    honest_gelu_tanh_f16 => "honest/gelu_tanh_f16",
    honest_leaky_relu_f16 => "honest/leaky_relu_f16",
    honest_pad_rows_f32 => "honest/pad_rows_f32",
    honest_reduce_sum_rows_f32 => "honest/reduce_sum_rows_f32",
    honest_relu_f32 => "honest/relu_f32",
    honest_scale_f32 => "honest/scale_f32",
    honest_swiglu_f16 => "honest/swiglu_f16",
    honest_row_max_f32 => "honest/row_max_f32",
    hostile_all_zeros => "hostile/all_zeros",
    hostile_copy_input => "hostile/copy_input",
    hostile_cstdlib_via_macro => "hostile/cstdlib_via_macro",
    hostile_f16_compute_for_f32 => "hostile/f16_compute_for_f32",
    hostile_fails_heldout_tail => "hostile/fails_heldout_tail",
    hostile_hidden_many_tiles_path => "hostile/hidden_many_tiles_path",
    hostile_fopen_in_tiling => "hostile/fopen_in_tiling",
    hostile_fork_call => "hostile/fork_call",
    hostile_hardcoded_shape => "hostile/hardcoded_shape",
    hostile_huge_static => "hostile/huge_static",
    hostile_huge_workspace => "hostile/huge_workspace",
    hostile_inline_asm => "hostile/inline_asm",
    hostile_modify_input => "hostile/modify_input",
    hostile_nan_one_lane => "hostile/nan_one_lane",
    hostile_raw_write_past_output => "hostile/raw_write_past_output",
    hostile_print_flood => "hostile/print_flood",
    hostile_raw_pointer_compute => "hostile/raw_pointer_compute",
    hostile_read_past_input => "hostile/read_past_input",
    hostile_spin_forever => "hostile/spin_forever",
    hostile_system_call => "hostile/system_call",
    hostile_token_pasting_system => "hostile/token_pasting_system",
    hostile_write_past_output => "hostile/write_past_output",
    hostile_ub_phyaddr_loop => "hostile/ub_phyaddr_loop",
    hostile_vector_loop_forever => "hostile/vector_loop_forever",
    hostile_memset_output => "hostile/memset_output",
}

#[test]
fn every_case_folder_has_a_test() {
    let mut found = Vec::new();
    for group in ["broken", "honest", "hostile"] {
        for e in std::fs::read_dir(corpus().join(group)).unwrap() {
            let e = e.unwrap();
            if e.path().is_dir() {
                found.push(format!("{group}/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

/// Writes the honest add entry as a store entry (manifest with digests), loads it back as a
/// candidate, and checks the records an accepted evaluation gives the manifest; a changed
/// file is refused before anything is compiled.
#[test]
fn store_entry_round_trip() {
    use agenticcann_build::store::{install_entry, Digest, Manifest, Proposer, Provenance};
    let op = spec().op("add_f16").unwrap();
    let dir = corpus().join("honest/add_f16");
    let case: Case =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let kernel = std::fs::read(dir.join("kernel.cpp")).unwrap();
    let tiling = std::fs::read(dir.join("tiling.cpp")).unwrap();
    let manifest = Manifest::new(
        op.key(),
        Some("add_f16"),
        Digest::of(&kernel),
        Digest::of(&tiling),
        case.fields.clone(),
        Provenance::new(Proposer::Hand),
    );
    let root = tempfile::tempdir().unwrap();
    let entry = install_entry(
        root.path(),
        &manifest.to_toml_string(),
        &[("kernel.cpp", &kernel), ("tiling.cpp", &tiling)],
    )
    .unwrap();
    let (candidate, _) = Candidate::load(&entry.dir, op).unwrap();
    assert_eq!(candidate.tiling_fields, case.fields);
    let opts = EvalOptions {
        cache_dir: Some(cache_dir()),
        seed: Some(7),
        stress: false,
        ..EvalOptions::default()
    };
    let ev = evaluate(op, &candidate, &opts).unwrap();
    assert!(ev.accepted(), "{}", ev.render());
    assert_eq!(ev.seed, 7);
    let v = ev.verification_record().unwrap();
    assert_eq!((v.backend.as_str(), v.seed), ("sim", Some(7)));
    assert_eq!(v.shapes.len(), op.shapes.len());
    let p = ev.performance_record().unwrap();
    assert!(p
        .shapes
        .iter()
        .all(|s| s.time_us.unwrap() > 0.0 && s.bound.is_some()));
    // A kernel edited after its manifest was written is not evaluated.
    std::fs::write(entry.dir.join("kernel.cpp"), b"// changed\n").unwrap();
    let e = Candidate::load(&entry.dir, op).unwrap_err().to_string();
    assert!(e.contains("kernel.cpp"), "{e}");
    // The wrong op's entry is refused by key.
    let other = spec().op("abs_f16").unwrap();
    assert!(Candidate::load(&entry.dir, other).is_err());
}

/// `evaluate_many` on 2 jobs gives, in input order, what one-by-one evaluation gives.
#[test]
fn many_candidates_in_parallel_match_sequential_results() {
    let load = |name: &str| {
        let dir = corpus().join(name);
        let case: Case =
            toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
        let op = spec().op(&case.op).unwrap();
        let c = Candidate::new(
            std::fs::read_to_string(dir.join("kernel.cpp")).unwrap(),
            std::fs::read_to_string(dir.join("tiling.cpp")).unwrap(),
            case.fields,
        );
        (op, c)
    };
    let loaded = [
        load("honest/relu_f32"),
        load("hostile/copy_input"),
        load("honest/scale_f32"),
    ];
    let items: Vec<_> = loaded.iter().map(|(o, c)| (*o, c)).collect();
    let opts = EvalOptions {
        cache_dir: Some(cache_dir()),
        seed: Some(99),
        stress: false,
        jobs: 2,
        ..EvalOptions::default()
    };
    let par = agenticcann_build::judge::evaluate_many(&items, &opts);
    let outcomes: Vec<Outcome> = par.iter().map(|r| r.as_ref().unwrap().outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Verified, Outcome::WrongResult, Outcome::Verified]
    );
    for ((op, c), p) in items.iter().zip(&par) {
        let p = p.as_ref().unwrap();
        let s = evaluate(op, c, &opts).unwrap();
        assert_eq!(p.op, s.op);
        assert_eq!(p.shapes, s.shapes, "{}", p.render());
    }
}

/// A row max into a non-empty output: the judge's zero-column held-out shape has no
/// reference value (max over nothing), so it is left out with a `reference_undefined`
/// warning instead of failing the judge for every candidate (it used to be
/// `JudgeError::Reference`, which callers take for a broken judge).
#[test]
fn a_held_out_shape_without_a_reference_value_is_left_out_with_a_warning() {
    let manifest = r#"[package]
name = "row-max"
version = "0.1.0"
edition = "2021"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.row_max]
inputs = { x = "f32[rows, cols]" }
outputs = { y = "f32[rows]" }
reference = "y = max(x, axis=-1)"
shapes = [{ rows = 8, cols = 64 }]
"#;
    let spec = Spec::from_manifest_str(manifest, None).unwrap().unwrap();
    let op = spec.require_op("row_max").unwrap();
    let prepared = agenticcann_build::judge::Prepared::new(op, &EvalOptions::default())
        .expect("the judge prepares the op");
    assert!(
        prepared
            .skipped
            .iter()
            .all(|d| d.kind == "reference_undefined" && d.severity == Severity::Warning),
        "{:#?}",
        prepared.skipped
    );
    assert!(
        !prepared.skipped.is_empty(),
        "the zero-column shape is planned and left out"
    );
    // Every shape that stays has a reference value; the declared one stays.
    assert!(prepared
        .shapes
        .iter()
        .any(|s| s.plan.origin == ShapeOrigin::Declared));
    assert!(prepared
        .shapes
        .iter()
        .all(|s| s.empty || !s.golden.is_empty()));
}

/// `EvalOptions::cascade`: a kernel that fails on the declared shapes is reported on them
/// and never runs the held-out and stress shapes; an honest one runs everything, with the
/// same verdict and shapes as without the cascade.
#[test]
fn the_cascade_runs_held_out_shapes_only_after_the_declared_ones_verify() {
    let dir = corpus().join("honest/add_f16");
    let case: Case =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let op = spec().op(&case.op).unwrap();
    let kernel = std::fs::read_to_string(dir.join("kernel.cpp")).unwrap();
    let tiling = std::fs::read_to_string(dir.join("tiling.cpp")).unwrap();
    let opts = |cascade: bool| EvalOptions {
        cache_dir: Some(cache_dir()),
        seed: Some(3),
        cascade,
        ..EvalOptions::default()
    };
    let honest = Candidate::new(kernel.clone(), tiling.clone(), case.fields.clone());
    let plain = evaluate(op, &honest, &opts(false)).unwrap();
    let cascaded = evaluate(op, &honest, &opts(true)).unwrap();
    assert!(
        plain.accepted() && cascaded.accepted(),
        "{}",
        cascaded.render()
    );
    let statuses = |ev: &Evaluation| {
        ev.shapes
            .iter()
            .map(|s| (s.dims.clone(), s.status))
            .collect::<Vec<_>>()
    };
    assert_eq!(statuses(&plain), statuses(&cascaded));

    // Tiles larger than the Unified Buffer: every declared shape fails at run time.
    let faulty_tiling = tiling.replace(
        "tiling->tile_length = 4096;",
        "tiling->tile_length = 40000;",
    );
    assert_ne!(faulty_tiling, tiling, "the fault must be injected");
    let faulty = Candidate::new(kernel, faulty_tiling, case.fields.clone());
    let ev = evaluate(op, &faulty, &opts(true)).unwrap();
    assert_eq!(ev.outcome, Outcome::RuntimeError, "{}", ev.render());
    // (A zero-size shape never launches: it is `empty` either way.)
    assert!(
        ev.shapes
            .iter()
            .filter(|s| s.origin != ShapeOrigin::Declared)
            .all(|s| matches!(s.status, ShapeStatus::NotRun | ShapeStatus::SkippedEmpty)),
        "{:?}",
        statuses(&ev)
    );
    assert!(ev
        .diagnostics
        .iter()
        .filter_map(|d| d.shape)
        .all(|i| ev.shapes[i].origin == ShapeOrigin::Declared));
}
