//! The offline tiling search (`agenticcann_evolve::search::tiling`) through the judge:
//! the offline grid of rms_norm compiles and beats build.rs's seed, and a parent's
//! constants give one-literal variants. `measure_rms_norm_grid` (ignored) prints the
//! measurement behind the grid's choice of axes.

use std::path::{Path, PathBuf};

use agenticcann_build::judge::policy::lexer::lex;
use agenticcann_build::judge::{
    evaluate_many, Candidate, EvalOptions, Evaluation, Outcome, ShapeOrigin,
};
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::TilingField;
use agenticcann_build::synth::{code_key, search, SynthOptions};
use agenticcann_evolve::search::tiling::{
    offline_grid, parent_variants, TilingVariant, VariantOrigin,
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fast judge: declared shapes only, a fixed seed, the test binary's own cache.
fn quick() -> EvalOptions {
    EvalOptions {
        seed: Some(16),
        held_out: false,
        stress: false,
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge")),
        ..EvalOptions::default()
    }
}

fn rms_norm(manifest: &str) -> OpSpec {
    let spec = Spec::from_manifest_path(&repo().join(manifest))
        .unwrap()
        .unwrap();
    spec.require_op("rms_norm").unwrap().clone()
}

/// Declared-shape times in µs, in the spec's order; `None` unless accepted with a profile
/// for every declared shape.
fn declared_times(ev: &Evaluation) -> Option<Vec<f64>> {
    if !ev.accepted() {
        return None;
    }
    ev.shapes
        .iter()
        .filter(|s| s.origin == ShapeOrigin::Declared)
        .map(|s| s.profile.as_ref().map(|p| p.time_us))
        .collect()
}

/// Evaluations of variants, in their order (judge errors fail the test).
fn judge(op: &OpSpec, vs: &[TilingVariant]) -> Vec<Evaluation> {
    let pairs: Vec<(&OpSpec, &Candidate)> = vs.iter().map(|v| (op, &v.candidate)).collect();
    evaluate_many(&pairs, &quick())
        .into_iter()
        .zip(vs)
        .map(|(ev, v)| ev.unwrap_or_else(|e| panic!("{}: judge error {e}", v.label)))
        .collect()
}

/// The judge corpus' honest fp16 add (agenticcann-build/tests/judge/honest/add_f16) and its op.
fn honest_add_f16() -> (OpSpec, Candidate) {
    let corpus = repo().join("agenticcann-build/tests/judge");
    let spec = Spec::from_manifest_path(&corpus.join("specs.toml"))
        .unwrap()
        .unwrap();
    let dir = corpus.join("honest/add_f16");
    #[derive(serde::Deserialize)]
    struct Case {
        fields: Vec<TilingField>,
    }
    let case: Case =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let c = Candidate::new(
        std::fs::read_to_string(dir.join("kernel.cpp")).unwrap(),
        std::fs::read_to_string(dir.join("tiling.cpp")).unwrap(),
        case.fields,
    );
    (spec.require_op("add_f16").unwrap().clone(), c)
}

/// The tokens of `a` and `b` that differ, as (old, new) texts; `None` when the token counts
/// differ (more than literals changed).
fn changed_tokens(a: &str, b: &str) -> Option<Vec<(String, String)>> {
    let (ta, tb) = (lex(a.as_bytes()).unwrap(), lex(b.as_bytes()).unwrap());
    if ta.len() != tb.len() {
        return None;
    }
    Some(
        ta.iter()
            .zip(&tb)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| {
                assert_eq!(x.kind, y.kind, "{} became {}", x.text, y.text);
                (x.text.clone(), y.text.clone())
            })
            .collect(),
    )
}

/// Every variant of a parent differs from it in exactly one integer literal (and only in
/// that literal's bytes), the honest add's constants are all found, and the judge accepts
/// the variants (they are tilings of the same correct kernel).
#[test]
fn parent_variants_change_exactly_one_literal() {
    let (op, parent) = honest_add_f16();
    let vs = parent_variants(&parent, 16);
    let labels: Vec<&str> = vs.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "parent: tile_length 4096→8192 (tiling.cpp)",
            "parent: tile_length 4096→2048 (tiling.cpp)",
            "parent: BUFFER_NUM 2→1 (kernel.cpp)",
        ]
    );
    for v in &vs {
        assert_eq!(v.origin, VariantOrigin::Parent);
        assert_eq!(v.candidate.tiling_fields, parent.tiling_fields);
        let mut changed = changed_tokens(&parent.kernel, &v.candidate.kernel).unwrap();
        changed.extend(changed_tokens(&parent.tiling, &v.candidate.tiling).unwrap());
        assert_eq!(changed.len(), 1, "{}: {changed:?}", v.label);
        let (old, new) = &changed[0];
        assert!(
            v.label.contains(&format!("{old}→{new}")),
            "{}: {old} → {new}",
            v.label
        );
        // Only the literal's bytes: same length of everything around it.
        let (pk, vk) = (
            parent.kernel.len() + parent.tiling.len(),
            v.candidate.kernel.len() + v.candidate.tiling.len(),
        );
        assert_eq!(vk + old.len(), pk + new.len(), "{}", v.label);
    }
    assert_eq!(parent_variants(&parent, 1).len(), 1);
    for (v, ev) in vs.iter().zip(judge(&op, &vs)) {
        assert!(ev.accepted(), "{}:\n{}", v.label, ev.render());
    }
}

/// The offline grid of the build fixture's rms_norm: distinct candidates (by code without
/// comments) that all compile; judged on the declared shapes, some are accepted, and the
/// fastest beats build.rs's seed (`synth::search` of the default options) on the sum of
/// declared-shape times: fewer cores than rows for the 50 rows of 4096 (see
/// `measure_rms_norm_grid`).
#[test]
fn offline_grid_beats_the_build_seed_on_rms_norm() {
    let op = rms_norm("tests/build-fixture/Cargo.toml");
    // The default and its one-change neighbours up to the first reduced core count.
    let grid = offline_grid(&op, 8);
    assert_eq!(grid.len(), 8);
    assert_eq!(grid, offline_grid(&op, 8), "deterministic");
    let keys: Vec<_> = grid.iter().map(|v| code_key(&v.candidate)).collect();
    for (i, k) in keys.iter().enumerate() {
        assert!(!keys[..i].contains(k), "{} repeats", grid[i].label);
    }
    for v in &grid {
        let VariantOrigin::Offline(o) = &v.origin else {
            panic!("{}: not offline", v.label)
        };
        assert_eq!(
            v.candidate,
            agenticcann_build::synth::propose(&op, o).unwrap()
        );
    }
    let evs = judge(&op, &grid);
    for (v, ev) in grid.iter().zip(&evs) {
        assert!(
            !matches!(ev.outcome, Outcome::Rejected | Outcome::CompileError),
            "{}:\n{}",
            v.label,
            ev.render()
        );
    }
    let timed: Vec<(f64, &str)> = grid
        .iter()
        .zip(&evs)
        .filter_map(|(v, ev)| Some((declared_times(ev)?.iter().sum(), v.label.as_str())))
        .collect();
    assert!(!timed.is_empty(), "no grid variant accepted");
    let (best, label) = timed
        .iter()
        .copied()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    let seed = search(&op, &SynthOptions::default(), &quick()).unwrap();
    let seed_sum: f64 = declared_times(&seed.best.evaluation).unwrap().iter().sum();
    assert!(
        best < seed_sum,
        "best grid variant `{label}` at {best:.3} µs does not beat the seed ({:?}) at {seed_sum:.3} µs",
        seed.options
    );
}

/// Prints seed vs grid per declared shape of rms_norm in `TILING_MANIFEST` (default
/// tests/build-fixture/Cargo.toml) over the first `TILING_LIMIT` (default 40) grid
/// variants. Run: `cargo test -p agenticcann-evolve --test tiling_search -- --ignored
/// --nocapture measure`.
#[test]
#[ignore = "a measurement (minutes of judge runs), not a check"]
fn measure_rms_norm_grid() {
    let manifest = agenticcann_build::env::var("TILING_MANIFEST")
        .unwrap_or_else(|| "tests/build-fixture/Cargo.toml".into());
    let limit: usize = agenticcann_build::env::var("TILING_LIMIT")
        .map_or(40, |s| s.parse().expect("TILING_LIMIT is a number"));
    let op = rms_norm(&manifest);
    let seed = search(&op, &SynthOptions::default(), &quick()).unwrap();
    let seed_t = declared_times(&seed.best.evaluation).unwrap();
    println!(
        "{manifest}: rms_norm shapes {:?}",
        op.shapes
            .iter()
            .map(|b| format!("{b:?}"))
            .collect::<Vec<_>>()
    );
    println!(
        "seed (synth::search: {:?}): {:?} sum {:.3}",
        seed.options,
        seed_t,
        seed_t.iter().sum::<f64>()
    );
    // `TILING_BLOCKS=24,32`: the default options at these block counts instead of the grid.
    let grid: Vec<TilingVariant> = match agenticcann_build::env::var("TILING_BLOCKS") {
        Some(list) => list
            .split(',')
            .map(|b| {
                let mut o = SynthOptions::default();
                o.params.max_blocks = b.trim().parse().expect("TILING_BLOCKS: numbers");
                TilingVariant {
                    label: format!("blocks={b}"),
                    candidate: agenticcann_build::synth::propose(&op, &o).unwrap(),
                    origin: VariantOrigin::Offline(o),
                }
            })
            .collect(),
        None => offline_grid(&op, limit),
    };
    let evs = judge(&op, &grid);
    let mut rows: Vec<(f64, String)> = Vec::new();
    for (v, ev) in grid.iter().zip(&evs) {
        let line = match declared_times(ev) {
            Some(t) => {
                let blocks: Vec<u32> = ev
                    .shapes
                    .iter()
                    .filter(|s| s.origin == ShapeOrigin::Declared)
                    .filter_map(|s| s.profile.as_ref().map(|p| p.block_dim))
                    .collect();
                let sum: f64 = t.iter().sum();
                rows.push((
                    sum,
                    format!(
                        "{sum:9.3} {:?} blocks {blocks:?} {}",
                        t.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>(),
                        v.label
                    ),
                ));
                continue;
            }
            None => format!("rejected: {}", ev.outcome.label()),
        };
        println!("{line}  {}", v.label);
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, r) in rows {
        println!("{r}");
    }
}

/// Writes the seed's sources of rms_norm in `TILING_MANIFEST` to `TILING_DUMP` (a folder).
#[test]
#[ignore = "a debugging aid"]
fn dump_rms_norm_seed() {
    let (Some(m), Some(dir)) = (
        agenticcann_build::env::var("TILING_MANIFEST"),
        agenticcann_build::env::var("TILING_DUMP"),
    ) else {
        return;
    };
    let op = rms_norm(&m);
    let c = agenticcann_build::synth::propose(&op, &SynthOptions::default()).unwrap();
    std::fs::write(format!("{dir}/kernel.cpp"), &c.kernel).unwrap();
    std::fs::write(format!("{dir}/tiling.cpp"), &c.tiling).unwrap();
    let ev = agenticcann_build::judge::evaluate(&op, &c, &quick()).unwrap();
    for s in &ev.shapes {
        println!("{:?} {:?}", s.dims, s.profile);
    }
}
