//! The offline proposer (`agenticcann_build::synth`) through the judge: every op of the
//! example project, the whole operator suite with its feasibility table (tails, rows longer
//! than UB, odd row counts), and (ignored, a benchmark) the fused-vs-eager ratios.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agenticcann_build::judge::{evaluate, evaluate_many, Candidate, EvalOptions, Evaluation};
use agenticcann_build::spec::{OpSpec, Pattern, Spec};
use agenticcann_build::synth::{
    eager, eager_time, propose, search, synthesize, variants, RowStats, SynthOptions, TilingParams,
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn eval_options() -> EvalOptions {
    EvalOptions {
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge")),
        ..EvalOptions::default()
    }
}

/// Proposes and judges `ops` (in parallel); returns the failures' reports.
fn judge_all(ops: &[&OpSpec]) -> Vec<(String, Evaluation)> {
    let cands: Vec<_> = ops
        .iter()
        .map(|op| {
            (
                *op,
                propose(op, &SynthOptions::default())
                    .unwrap_or_else(|e| panic!("{}: {e}", op.name)),
            )
        })
        .collect();
    let pairs: Vec<_> = cands.iter().map(|(o, c)| (*o, c)).collect();
    let evs = evaluate_many(&pairs, &eval_options());
    let mut out = Vec::new();
    for ((op, _), ev) in cands.iter().zip(evs) {
        let ev = ev.unwrap_or_else(|e| panic!("{}: judge error {e}", op.name));
        out.push((op.name.clone(), ev));
    }
    out
}

fn only(filter: &str, name: &str) -> bool {
    filter.is_empty() || filter.split(',').any(|f| name.contains(f))
}

#[test]
fn every_example_project_op_is_verified() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    let filter = agenticcann_build::env::var("SYNTH_TEST_OPS").unwrap_or_default();
    // The fused ops; the `eager_*` primitives (the example's cost baseline) are judged when
    // their entries are written and run end to end in the example's own tests.
    let ops: Vec<&OpSpec> = spec
        .ops
        .iter()
        .filter(|o| !o.name.starts_with("eager_") && only(&filter, &o.name))
        .collect();
    assert!(filter.is_empty() || !ops.is_empty());
    if filter.is_empty() {
        assert_eq!(ops.len(), 14, "the example declares 14 fused ops");
    }
    let results = judge_all(&ops);
    let mut failed = Vec::new();
    for (name, ev) in &results {
        if !ev.accepted() {
            failed.push(format!("{name}:\n{}", ev.render()));
            if let Some(d) = agenticcann_build::env::var("SYNTH_DUMP") {
                let op = spec.op(name).unwrap();
                let c = propose(op, &SynthOptions::default()).unwrap();
                std::fs::write(format!("{d}/{name}.kernel.cpp"), &c.kernel).unwrap();
                std::fs::write(format!("{d}/{name}.tiling.cpp"), &c.tiling).unwrap();
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Regression: at this seed the judge once rejected the example's honest fp32
/// `bias_residual_layer_norm_f16` kernel on the `offset` stress shape (every input near
/// 1000, so `norm·gamma + beta` cancels to O(1)): its conditioning slack came from two
/// uniform(−1, 1) perturbation trials whose terms nearly cancelled for that element.
#[test]
fn honest_layer_norm_on_offset_inputs_is_accepted_at_a_once_failing_seed() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("bias_residual_layer_norm_f16").unwrap();
    let dir = repo()
        .join("example-project/kernels")
        .join(op.key().to_hex());
    let (candidate, _) = Candidate::load(&dir, op).unwrap();
    let options = EvalOptions {
        seed: Some(8460051555583224328),
        ..eval_options()
    };
    let ev = evaluate(op, &candidate, &options).unwrap();
    assert!(ev.accepted(), "{}", ev.render());
}

fn suite() -> Vec<agenticcann_evolve::suite::SuiteOp> {
    agenticcann_evolve::suite::load(&agenticcann_evolve::suite::default_dir()).unwrap()
}

/// Writes the proposal of every suite and example op matching `SYNTH_TEST_OPS` to
/// `SYNTH_DUMP` (debugging aid; does nothing without both).
#[test]
fn dump_proposals() {
    let (Some(dir), Some(filter)) = (
        agenticcann_build::env::var("SYNTH_DUMP"),
        agenticcann_build::env::var("SYNTH_TEST_OPS"),
    ) else {
        return;
    };
    for s in suite() {
        if only(&filter, &s.op.name) {
            if let Ok(c) = propose(&s.op, &SynthOptions::default()) {
                std::fs::write(format!("{dir}/{}.kernel.cpp", s.op.name), &c.kernel).unwrap();
                std::fs::write(format!("{dir}/{}.tiling.cpp", s.op.name), &c.tiling).unwrap();
            }
        }
    }
}

#[test]
fn proposals_are_deterministic_and_use_no_raw_pointers() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    for op in &spec.ops {
        let a = propose(op, &SynthOptions::default()).unwrap();
        let b = propose(op, &SynthOptions::default()).unwrap();
        assert_eq!(a, b, "{}: two proposals differ", op.name);
        for bad in ["GetPhyAddr", "*p_", "p_x[", "->"] {
            assert!(
                !a.kernel.contains(bad),
                "{}: kernel uses `{bad}`:\n{}",
                op.name,
                a.kernel
            );
        }
    }
}

#[test]
fn tiling_parameters_are_validated_and_change_the_tiling() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("bias_add_f16").unwrap();
    for buffer_num in [0, 4] {
        let bad = SynthOptions {
            params: TilingParams {
                buffer_num,
                ..TilingParams::default()
            },
            ..SynthOptions::default()
        };
        assert!(propose(op, &bad).is_err(), "buffer_num {buffer_num}");
    }
    let single = SynthOptions {
        params: TilingParams {
            buffer_num: 1,
            max_tile_elems: 4096,
            max_blocks: 4,
            ..TilingParams::default()
        },
        ..SynthOptions::default()
    };
    let a = propose(op, &SynthOptions::default()).unwrap();
    let b = propose(op, &single).unwrap();
    assert_eq!(a.kernel, b.kernel, "parameters live in the tiling function");
    assert_ne!(a.tiling, b.tiling);
    assert!(b.tiling.contains("const uint64_t BN = 1;"));
}

/// Row tiles are prefetched: with two buffers per queue, tile t+1's copy-in runs under
/// tile t's compute (the per-row scalar reads stall the scalar unit, so without the
/// prefetch MTE2 would wait for them); with one buffer it cannot. Same kernel, same tiles.
#[test]
fn row_tiles_prefetch_so_double_buffering_overlaps_copy_in() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.rms_norm]
inputs = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes = [{ rows = 64 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    let time = |buffer_num: u32| {
        let o = SynthOptions {
            params: TilingParams {
                buffer_num,
                max_tile_elems: 4096,
                max_blocks: 2,
                ..TilingParams::default()
            },
            ..SynthOptions::default()
        };
        let s = synthesize(&spec.ops[0], &o, &fast).unwrap();
        let p = s.evaluation.shapes[0].profile.clone().unwrap();
        (p.time_us, p.bound.to_string())
    };
    let (double, bound) = time(2);
    let (single, _) = time(1);
    assert!(
        single > 1.3 * double,
        "double buffered {double:.2} us ({bound} bound) vs single {single:.2} us"
    );
}

/// Triple buffering: a `buffer_num` 3 kernel declares its queues with depth 3 and `BN`
/// (3, from the tiling) buffers each, counts all three in the tiling's UB budget, prefetches
/// whole-row tiles two ahead, and is accepted by the judge where the UB, not the requested
/// tile, limits the tile (as many rows per tile as fit: a budget short of the third buffer
/// would overflow the 192 KiB UB, which the simulator rejects). The search tries it.
#[test]
fn triple_buffered_variant_has_three_buffer_queues_and_fits_the_ub() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.ln]
inputs  = { x = "f32[rows, 768]", gamma = "f32[768]", beta = "f32[768]" }
outputs = { y = "f32[rows, 768]" }
attrs   = { eps = 1e-5 }
reference = '''
mu  = mean(x, axis=-1, keepdims=true)
d   = x - mu
var = mean(d * d, axis=-1, keepdims=true)
y   = d * rsqrt(var + eps) * gamma + beta
'''
shapes  = [{ rows = 1920 }]
init    = { gamma = "uniform(0.5, 1.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let op = &spec.ops[0];
    let o = SynthOptions {
        params: TilingParams {
            buffer_num: 3,
            max_tile_elems: 65536,
            tiles_per_core: 1,
            ..TilingParams::default()
        },
        ..SynthOptions::default()
    };
    let c = propose(op, &o).unwrap();
    assert!(c.tiling.contains("const uint64_t BN = 3;"), "{}", c.tiling);
    for (q, dir) in [("iq_x", "VECIN"), ("oq_y", "VECOUT")] {
        assert!(
            c.kernel
                .contains(&format!("TQue<TPosition::{dir}, 3> {q};")),
            "{q}:\n{}",
            c.kernel
        );
        assert!(
            c.kernel.contains(&format!("pipe.InitBuffer({q}, BN, ")),
            "{q}:\n{}",
            c.kernel
        );
        assert!(
            c.tiling
                .lines()
                .any(|l| l.trim_start().starts_with("b += (BN) * ")
                    && l.ends_with(&format!("// {q}"))),
            "{q} in the UB budget:\n{}",
            c.tiling
        );
    }
    assert!(
        c.kernel.contains("if (BN > 2 && T < myRows) {"),
        "{}",
        c.kernel
    );
    assert!(c.kernel.contains("row0 + (BN - 1) * T"), "{}", c.kernel);
    let ev = evaluate(op, &c, &eval_options()).unwrap();
    assert!(ev.accepted(), "{}", ev.render());
    let v = variants(&SynthOptions::default());
    assert!(v.iter().any(|o| o.params.buffer_num == 3));
    assert!(v.len() <= 30, "{} variants", v.len());
}

#[test]
fn unsupported_references_are_clear_errors() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.total]
inputs = { x = "f32[n, 4]" }
outputs = { y = "f32[]" }
reference = "y = sum(x)"
shapes = [{ n = 3 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let err = propose(&spec.ops[0], &SynthOptions::default()).unwrap_err();
    assert!(err.to_string().contains("every axis"), "{err}");
}

#[test]
fn entry_is_written_in_the_store_layout_and_loads_back() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    let op = spec.op("l2_normalize_f32").unwrap();
    let s = synthesize(op, &SynthOptions::default(), &eval_options()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let entry = agenticcann_build::store::write_entry(dir.path(), &s.draft(op)).unwrap();
    assert_eq!(entry.dir, dir.path().join(op.key().to_hex()));
    let (c, e) = agenticcann_build::judge::Candidate::load(&entry.dir, op).unwrap();
    assert_eq!(c, s.candidate);
    assert!(e.manifest.verification.is_some());
    assert!(e.manifest.performance.is_some());
}

#[test]
fn eager_decomposition_has_one_kernel_per_primitive() {
    let spec = Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap();
    // e = word + pos + token_type (2), mu (1), d (1), d*d (1), var (1), var+eps (1),
    // rsqrt (1), d*r (1), *gamma (1), +beta (1) = 11.
    let op = spec.op("embed_layer_norm_f32").unwrap();
    let k = eager(op, &SynthOptions::default()).unwrap();
    assert_eq!(
        k.len(),
        11,
        "{:?}",
        k.iter()
            .map(|k| k.op.reference.to_canonical_source())
            .collect::<Vec<_>>()
    );
    for kernel in &k {
        assert_eq!(kernel.op.reference.statements.len(), 1);
    }
}

/// The issue's acceptance: every op of the operator suite (`tests/specs/`, 37 specs: tails
/// H = 46 f16, N = 513, 13243 elements; rows longer than UB, softmax over 151936 f16; odd
/// row counts) gets a kernel from the offline proposer that the judge accepts — 100% for
/// elementwise, broadcast, reduction, normalization and softmax, at least 80% for fusion.
/// Prints the table: `cargo test -p agenticcann-build --test synth -- --nocapture
/// suite_feasibility` (`SYNTH_TEST_OPS=a,b` narrows it to ops whose names contain a or b).
#[test]
fn suite_feasibility() {
    let filter = agenticcann_build::env::var("SYNTH_TEST_OPS").unwrap_or_default();
    let all: Vec<_> = suite()
        .into_iter()
        .filter(|s| only(&filter, &s.op.name))
        .collect();
    let ops: Vec<&OpSpec> = all.iter().map(|s| &s.op).collect();
    let mut table: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    let mut proposable = Vec::new();
    for s in &all {
        let e = table.entry(s.label.as_str().to_string()).or_default();
        e.0 += 1;
        match propose(&s.op, &SynthOptions::default()) {
            Ok(_) => proposable.push(&s.op),
            Err(err) => e.2.push(format!("{}: {err}", s.op.name)),
        }
    }
    let _ = ops;
    let results = judge_all(&proposable);
    for (name, ev) in &results {
        let label = all.iter().find(|s| &s.op.name == name).unwrap().label;
        let e = table.get_mut(label.as_str()).unwrap();
        if ev.accepted() {
            e.1 += 1;
        } else {
            e.2.push(format!("{name}: {}", ev.render()));
        }
    }
    println!("pattern        verified / total");
    let mut fails = Vec::new();
    for p in Pattern::ALL {
        if let Some((n, ok, f)) = table.get(p.as_str()) {
            println!(
                "{:<14} {ok:>3} / {n:<3} ({:.0}%)",
                p.as_str(),
                100.0 * *ok as f64 / *n as f64
            );
            for x in f {
                println!(
                    "    FAIL {}",
                    x.lines().take(6).collect::<Vec<_>>().join("\n         ")
                );
            }
            let need = if p == Pattern::Fusion { 0.8 } else { 1.0 };
            if (*ok as f64) < need * *n as f64 {
                fails.push(p.as_str());
            }
        }
    }
    assert!(fails.is_empty(), "below target: {fails:?}");
}

/// Fused vs eager for RMSNorm and LayerNorm [2048, 4096] f16 (published 910B ratios: 6.19×
/// and 2.68×). `cargo test -p agenticcann-build --test synth -- --ignored --nocapture
/// fused_vs_eager`.
#[test]
#[ignore]
fn fused_vs_eager() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.rms_norm]
inputs = { x = "f16[rows, 4096]", gamma = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes = [{ rows = 2048 }]
init = { gamma = "uniform(0.5, 1.5)" }
[package.metadata.agenticcann.ops.layer_norm]
inputs = { x = "f16[rows, 4096]", gamma = "f16[4096]", beta = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs = { eps = 1e-5 }
reference = """
mu = mean(x, axis=-1, keepdims=true)
d = x - mu
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
"""
shapes = [{ rows = 2048 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    for (op, target) in [(&spec.ops[0], 6.19), (&spec.ops[1], 2.68)] {
        let s = synthesize(op, &SynthOptions::default(), &fast).unwrap();
        let sh = &s.evaluation.shapes[0];
        let p = sh.profile.as_ref().unwrap();
        let eager = eager_time(op, &SynthOptions::default(), &fast).unwrap();
        let ratio = eager.shapes[0].1 / p.time_us;
        let fused_bytes = p.gm_read_bytes + p.gm_write_bytes;
        println!(
            "{}: fused {:.1} us ({} bound, {:.0}% of roofline, {} GM bytes), eager {:.1} us over {} kernels ({} GM bytes): {:.2}x vs eager (published 910B: {target}x); traffic ratio {:.2}x",
            op.name,
            p.time_us,
            p.bound,
            100.0 * p.roofline_fraction,
            fused_bytes,
            eager.shapes[0].1,
            eager.kernels,
            eager.bytes[0],
            ratio,
            eager.bytes[0] as f64 / fused_bytes as f64
        );
        if ratio < target {
            println!(
                "  gap: the eager kernels here compute in fp32 inside each kernel and keep f16 tensors in GM, so eager moves only {:.2}x the fused bytes (PyTorch's eager RMSNorm upcasts to fp32 tensors and runs more kernels); the fused kernel reaches {:.0}% of the HBM roofline ({} bound)",
                eager.bytes[0] as f64 / fused_bytes as f64,
                100.0 * p.roofline_fraction,
                p.bound
            );
        }
        assert!(ratio > 1.0, "the fused kernel must beat eager");
    }
}

/// Issue 17: row statistics over a whole tile (`RowStats::Tile`: masked column folds for
/// rows up to 2040 elements, count-form folds beyond, a `C`-lane mask under 64) are exact
/// for every row length — 1, under 64, one group, a tail group, longer than 2040 — and
/// agree with the per-row form on the judge's declared, held-out and stress shapes; on a
/// prefill shape they are faster.
#[test]
fn tile_row_statistics_are_exact_for_any_row_length_and_faster() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.ln]
inputs = { x = "f32[rows, h]", gamma = "f32[h]", beta = "f32[h]" }
outputs = { y = "f32[rows, h]" }
attrs = { eps = 1e-5 }
reference = """
mu = mean(x, axis=-1, keepdims=true)
d = x - mu
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
"""
shapes = [{ rows = 37, h = 1 }, { rows = 9, h = 5 }, { rows = 20, h = 64 }, { rows = 13, h = 100 }, { rows = 6, h = 2100 }, { rows = 256, h = 768 }]
[package.metadata.agenticcann.ops.lsm]
inputs = { x = "f16[rows, h]" }
outputs = { y = "f16[rows, h]" }
reference = """
z = x - max(x, axis=-1, keepdims=true)
y = z - log(sum(exp(z), axis=-1, keepdims=true))
"""
shapes = [{ rows = 37, h = 1 }, { rows = 9, h = 5 }, { rows = 20, h = 64 }, { rows = 13, h = 100 }, { rows = 6, h = 2100 }, { rows = 256, h = 768 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let with = |row_stats| SynthOptions {
        row_stats,
        ..SynthOptions::default()
    };
    let mut cands = Vec::new();
    for op in &spec.ops {
        for rs in [RowStats::Tile, RowStats::PerRow] {
            let c = propose(op, &with(rs)).unwrap();
            assert_eq!(
                c.kernel.contains("TileReduce("),
                rs == RowStats::Tile,
                "{}: {rs:?}",
                op.name
            );
            cands.push((op, rs, c));
        }
    }
    let pairs: Vec<_> = cands.iter().map(|(o, _, c)| (*o, c)).collect();
    let evs = evaluate_many(&pairs, &eval_options());
    let mut prefill = BTreeMap::new();
    for ((op, rs, _), ev) in cands.iter().zip(evs) {
        let ev = ev.unwrap();
        assert!(ev.accepted(), "{} {rs:?}:\n{}", op.name, ev.render());
        let t = ev
            .shapes
            .iter()
            .find(|s| s.dims.get("h") == Some(&768) && s.dims.get("rows") == Some(&256))
            .and_then(|s| s.profile.as_ref())
            .map(|p| p.time_us)
            .unwrap();
        prefill.insert((op.name.clone(), format!("{rs:?}")), t);
    }
    for op in ["ln", "lsm"] {
        let tile = prefill[&(op.to_string(), "Tile".to_string())];
        let row = prefill[&(op.to_string(), "PerRow".to_string())];
        assert!(tile < row, "{op}: tile {tile:.2} us vs per row {row:.2} us");
    }
}

/// Issue 17: mish `x·tanh(log(1 + exp(x)))` under `fast_math` is one exp and one division
/// (`x·n/(n + 2)`, `n = w(w + 2)`, `w = exp(min(x, 20))`), accepted by the judge on every
/// shape including the stress inputs, and faster than the exact lowering.
#[test]
fn fast_math_mish_is_one_exp_accepted_and_faster() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.mish]
inputs = { x = "f16[n]" }
outputs = { y = "f16[n]" }
reference = "y = x * tanh(log(1 + exp(x)))"
shapes = [{ n = 65536 }, { n = 13243 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let op = &spec.ops[0];
    let exact = propose(op, &SynthOptions::default()).unwrap();
    let fast = propose(
        op,
        &SynthOptions {
            fast_math: true,
            ..SynthOptions::default()
        },
    )
    .unwrap();
    assert!(exact.kernel.contains("Tanh("));
    assert!(!fast.kernel.contains("Tanh(") && !fast.kernel.contains("Ln("));
    assert_eq!(fast.kernel.matches("Exp(").count(), 1, "{}", fast.kernel);
    let evs = evaluate_many(&[(op, &exact), (op, &fast)], &eval_options());
    let t: Vec<f64> = evs
        .into_iter()
        .map(|ev| {
            let ev = ev.unwrap();
            assert!(ev.accepted(), "{}", ev.render());
            ev.shapes[0].profile.as_ref().unwrap().time_us
        })
        .collect();
    assert!(t[1] < t[0], "fast {:.2} us vs exact {:.2} us", t[1], t[0]);
}

/// Issue 17: the variant search is deterministic and picks the fastest accepted variant
/// (no variant it timed is faster than its choice).
#[test]
fn search_picks_the_fastest_accepted_variant_deterministically() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.rms]
inputs = { x = "f16[rows, 1024]", gamma = "f16[1024]" }
outputs = { y = "f16[rows, 1024]" }
attrs = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes = [{ rows = 96 }]
init = { gamma = "uniform(0.5, 1.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let op = &spec.ops[0];
    let base = SynthOptions::default();
    let v = variants(&base);
    assert_eq!(v[0], base);
    assert_eq!(v, variants(&base));
    let a = search(op, &base, &eval_options()).unwrap();
    let b = search(op, &base, &eval_options()).unwrap();
    assert_eq!(a.options, b.options);
    assert_eq!(a.best.candidate, b.best.candidate);
    assert!(a.best.evaluation.accepted());
    let best: f64 = a
        .tried
        .iter()
        .find(|(o, _)| *o == a.options)
        .and_then(|(_, t)| *t)
        .unwrap();
    assert!(a.tried.len() >= 2, "{:?}", a.tried);
    for (o, t) in &a.tried {
        if let Some(t) = t {
            assert!(
                *t >= best,
                "{o:?} at {t:.2} us beats the choice at {best:.2} us"
            );
        }
    }
}

/// A row input mapped periodically onto the domain (GroupNorm's `gamma[heads, C]` against
/// `x[tokens, heads, C]`: domain row `r` reads tensor row `r % heads`) is copied in one
/// DataCopyPad per run of consecutive tensor rows, not one per row: accepted where tiles
/// and cores start mid-period (small tiles, 7 heads), and no slower than the same kernel
/// with `gamma` a full `[tokens, heads, C]` tensor (the same bytes in one burst per tile).
#[test]
fn periodic_row_inputs_are_copied_in_runs() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.gn]
inputs  = { x = "f16[tokens, heads, 64]", gamma = "f16[heads, 64]", beta = "f16[heads, 64]" }
outputs = { y = "f16[tokens, heads, 64]" }
attrs   = { eps = 1e-5 }
reference = '''
d = x - mean(x, axis=-1, keepdims=true)
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
'''
shapes  = [{ tokens = 5, heads = 7 }, { tokens = 128, heads = 40 }]
init    = { gamma = "uniform(0.5, 1.5)" }
[package.metadata.agenticcann.ops.gn_full]
inputs  = { x = "f16[tokens, heads, 64]", gamma = "f16[tokens, heads, 64]", beta = "f16[tokens, heads, 64]" }
outputs = { y = "f16[tokens, heads, 64]" }
attrs   = { eps = 1e-5 }
reference = '''
d = x - mean(x, axis=-1, keepdims=true)
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
'''
shapes  = [{ tokens = 128, heads = 40 }]
init    = { gamma = "uniform(0.5, 1.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    // Three rows per tile over two cores: tiles start at every phase of the 7-row period.
    let small = SynthOptions {
        params: TilingParams {
            max_tile_elems: 3 * 64,
            max_blocks: 2,
            ..TilingParams::default()
        },
        ..SynthOptions::default()
    };
    let c = propose(&spec.ops[0], &small).unwrap();
    assert!(
        c.kernel
            .contains("uint32_t nr = (t.d_heads) - rr % (t.d_heads);"),
        "{}",
        c.kernel
    );
    let ev = evaluate(&spec.ops[0], &c, &eval_options()).unwrap();
    assert!(ev.accepted(), "{}", ev.render());
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    let time = |op: &OpSpec| {
        let s = synthesize(op, &SynthOptions::default(), &fast).unwrap();
        let r = s
            .evaluation
            .shapes
            .iter()
            .find(|r| r.dims.get("tokens") == Some(&128))
            .unwrap();
        r.profile.clone().unwrap().time_us
    };
    let (mapped, full) = (time(&spec.ops[0]), time(&spec.ops[1]));
    assert!(
        mapped <= 1.05 * full,
        "mapped gamma/beta {mapped:.2} us vs full-size {full:.2} us"
    );
}

/// Add+LayerNorm that also writes the residual sum `h` (GPT-2's block) keeps whole rows
/// resident at hidden 4096 f16 with two buffers: the second output's row temporary is the
/// chunked path's alone and the `[C]` gamma/beta take one buffer each (they are copied in
/// once per core), so the UB budget fits and the kernel costs about what the one-output
/// op does plus its extra copy-out (it took the chunked path at 2.6x before).
#[test]
fn second_output_keeps_rows_resident() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.aln_h]
inputs  = { x = "f16[rows, 4096]", residual = "f16[rows, 4096]", gamma = "f16[4096]", beta = "f16[4096]" }
outputs = { h = "f16[rows, 4096]", y = "f16[rows, 4096]" }
attrs   = { eps = 1e-5 }
reference = '''
h = x + residual
d = h - mean(h, axis=-1, keepdims=true)
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
'''
shapes  = [{ rows = 128 }]
init    = { gamma = "uniform(0.5, 1.5)" }
[package.metadata.agenticcann.ops.aln]
inputs  = { x = "f16[rows, 4096]", residual = "f16[rows, 4096]", gamma = "f16[4096]", beta = "f16[4096]" }
outputs = { y = "f16[rows, 4096]" }
attrs   = { eps = 1e-5 }
reference = '''
h = x + residual
d = h - mean(h, axis=-1, keepdims=true)
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
'''
shapes  = [{ rows = 128 }]
init    = { gamma = "uniform(0.5, 1.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let c = propose(&spec.ops[0], &SynthOptions::default()).unwrap();
    assert!(
        c.tiling
            .contains("b += ((R != 0 ? 1u : BN)) * (((TL) * 2) + 31) / 32 * 32;  // iq_gamma"),
        "{}",
        c.tiling
    );
    assert!(
        c.tiling
            .contains("b += (1) * (((R != 0 ? 8 : TL) * 4) + 31) / 32 * 32;  // tb1"),
        "{}",
        c.tiling
    );
    let time = |op: &OpSpec| {
        let s = synthesize(op, &SynthOptions::default(), &eval_options()).unwrap();
        s.evaluation.shapes[0].profile.clone().unwrap().time_us
    };
    let (two, one) = (time(&spec.ops[0]), time(&spec.ops[1]));
    assert!(
        two <= 1.25 * one,
        "with h: {two:.2} us, without: {one:.2} us"
    );
}

/// The wide body (`RowStats::Wide`): short rows (GroupNorm's 64, attention's 128 and 7,
/// LayerNorm with `[C]` vectors, a per-row output) are accepted on every declared,
/// held-out and stress shape, and run faster than the row loops of `RowStats::Tile` on
/// the many-row shapes, where those loops issue one instruction per row.
#[test]
fn wide_rows_are_exact_and_beat_row_loops() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.gn]
inputs  = { x = "bf16[tokens, heads, 64]", gamma = "bf16[heads, 64]", beta = "bf16[heads, 64]" }
outputs = { y = "bf16[tokens, heads, 64]" }
attrs   = { eps = 1e-5 }
reference = '''
mu  = mean(x, axis=-1, keepdims=true)
d   = x - mu
var = mean(d * d, axis=-1, keepdims=true)
y   = d * rsqrt(var + eps) * gamma + beta
'''
shapes  = [{ tokens = 7, heads = 7 }, { tokens = 128, heads = 40 }]
init    = { gamma = "uniform(0.5, 1.5)" }
[package.metadata.agenticcann.ops.sm]
inputs  = { scores = "f16[heads, q, kv]", mask = "f16[1, q, kv]" }
outputs = { y = "f16[heads, q, kv]" }
reference = '''
s = scores + mask
e = exp(s - max(s, axis=-1, keepdims=true))
y = e / sum(e, axis=-1, keepdims=true)
'''
shapes  = [{ heads = 8, q = 7, kv = 7 }, { heads = 32, q = 128, kv = 128 }]
init    = { mask = "uniform(-8, 0)" }
[package.metadata.agenticcann.ops.ln]
inputs  = { x = "f16[rows, hidden]", gamma = "f16[hidden]", beta = "f16[hidden]" }
outputs = { y = "f16[rows, hidden]", scale = "f16[rows, 1]" }
attrs   = { eps = 1e-5 }
reference = '''
mu = mean(x, axis=-1, keepdims=true)
d  = x - mu
y  = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * (gamma + 1.0) + beta
scale = max(abs(y), axis=-1, keepdims=true) / 127
'''
shapes  = [{ rows = 3, hidden = 200 }, { rows = 4096, hidden = 128 }]
init    = { gamma = "uniform(-0.5, 0.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let wide = SynthOptions {
        row_stats: RowStats::Wide,
        ..SynthOptions::default()
    };
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    let big = |ev: &Evaluation| {
        ev.shapes
            .iter()
            .map(|r| r.profile.clone().unwrap().time_us)
            .fold(0.0f64, f64::max)
    };
    for op in &spec.ops {
        let c = propose(op, &wide).unwrap();
        assert!(c.kernel.contains("WideBin("), "{}: {}", op.name, c.kernel);
        let ev = evaluate(op, &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}: {}", op.name, ev.render());
        let t_wide = big(&evaluate(op, &c, &fast).unwrap());
        let tile = propose(op, &SynthOptions::default()).unwrap();
        let t_tile = big(&evaluate(op, &tile, &fast).unwrap());
        assert!(
            t_wide < t_tile * 0.8,
            "{}: wide {t_wide:.2} us, row loops {t_tile:.2} us",
            op.name
        );
    }
}

/// Few rows too long for UB are split over several blocks (the tiling's `split`), and a
/// `sum(exp(x − max))` is accumulated online in the max's pass: each block reduces its slice, the partials meet in the GM workspace after a `SyncAll`, and
/// every block of the row folds them in the same order. Sums, maxima and shifted means
/// (LayerNorm at offset 1000 in the stress shapes) stay exact on every declared, held-out
/// and stress shape, and one row runs much faster than on one core. (logsumexp's row is
/// 262145 halves: at 65537, once a row's reductions fold with simple vector ops, one core
/// reads it in about the time the split spends in its three DMA round trips, SyncAll and
/// combine — 10.0 against 12.7 us.)
#[test]
fn long_rows_are_split_across_cores() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.sm]
inputs  = { x = "f32[rows, cols]" }
outputs = { y = "f32[rows, cols]" }
reference = "y = exp(x - max(x, axis=-1, keepdims=true)) / sum(exp(x - max(x, axis=-1, keepdims=true)), axis=-1, keepdims=true)"
shapes  = [{ rows = 1, cols = 151936 }, { rows = 3, cols = 100001 }]
[package.metadata.agenticcann.ops.lse]
inputs  = { x = "f16[rows, 262145]" }
outputs = { y = "f16[rows, 1]" }
reference = '''
m = max(x, axis=-1, keepdims=true)
y = m + log(sum(exp(x - m), axis=-1, keepdims=true))
'''
shapes  = [{ rows = 1 }, { rows = 5 }]
[package.metadata.agenticcann.ops.ln]
inputs  = { x = "f16[rows, hidden]", gamma = "f16[hidden]" }
outputs = { y = "f16[rows, hidden]" }
attrs   = { eps = 1e-5 }
reference = '''
d = x - mean(x, axis=-1, keepdims=true)
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma
'''
shapes  = [{ rows = 1, hidden = 131072 }, { rows = 2, hidden = 70001 }]
init    = { gamma = "uniform(0.5, 1.5)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    let one_core = SynthOptions {
        params: TilingParams {
            max_blocks: 1,
            ..TilingParams::default()
        },
        ..SynthOptions::default()
    };
    for op in &spec.ops {
        let c = propose(op, &SynthOptions::default()).unwrap();
        assert!(c.kernel.contains("SyncAll();"), "{}: {}", op.name, c.kernel);
        // Softmax's and logsumexp's sum(exp(x - max)) is accumulated online in the max's
        // pass: one loop over the chunks for both statistics (LayerNorm keeps one per level).
        let loops = c.kernel.matches("for (uint32_t off = c0;").count();
        let want = match op.name.as_str() {
            "sm" => 2,
            "lse" => 1,
            _ => 3,
        };
        assert_eq!(loops, want, "{}: {}", op.name, c.kernel);
        let ev = evaluate(op, &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}: {}", op.name, ev.render());
        let first = |ev: &Evaluation| ev.shapes[0].profile.clone().unwrap();
        let split = first(&evaluate(op, &c, &fast).unwrap());
        assert!(
            split.block_dim > 1,
            "{}: {} blocks",
            op.name,
            split.block_dim
        );
        let single = first(&evaluate(op, &propose(op, &one_core).unwrap(), &fast).unwrap());
        assert_eq!(single.block_dim, 1);
        assert!(
            split.time_us < 0.7 * single.time_us,
            "{}: split {:.2} us, one core {:.2} us",
            op.name,
            split.time_us,
            single.time_us
        );
    }
}

/// Last-axis slices of inputs are GM views (issue 18): packed SwiGLU and GeGLU over
/// `[R, 2·I]` (vLLM `SiluAndMul`) with an odd `I`, an aligned one, rows too long for UB
/// (chunked), and a row mean over a view, are accepted on every declared, held-out and stress
/// shape; the halves are read
/// with one strided DataCopyPad per tile, not a copy per row.
#[test]
fn packed_glu_slices_are_read_as_gm_views() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.swiglu_packed]
inputs  = { x = "bf16[rows, 74]" }
outputs = { y = "bf16[rows, 37]" }
reference = "y = x[..., :37] * sigmoid(x[..., :37]) * x[..., 37:]"
shapes  = [{ rows = 1 }, { rows = 7 }, { rows = 130 }]
eager = { source = "HF (chunk, silu, mul)", calls = { s = "aclnnSilu" }, recipe = '''
g = x[..., :37]
s = g * sigmoid(g)
y = s * x[..., 37:]
''' }
[package.metadata.agenticcann.ops.geglu_packed]
inputs  = { x = "f16[tokens, heads, 512]" }
outputs = { y = "f16[tokens, heads, 256]" }
reference = '''
g = x[..., 0:256]
y = 0.5 * g * (1 + tanh(0.7978845608028654 * (g + 0.044715 * g * g * g))) * x[..., 256:512]
'''
shapes  = [{ tokens = 3, heads = 2 }, { tokens = 16, heads = 4 }]
[package.metadata.agenticcann.ops.swiglu_long]
inputs  = { x = "f32[rows, 80002]" }
outputs = { y = "f32[rows, 40001]" }
reference = "y = x[..., :40001] * sigmoid(x[..., :40001]) * x[..., -40001:]"
shapes  = [{ rows = 1 }, { rows = 3 }]
[package.metadata.agenticcann.ops.centered_view]
inputs  = { x = "f16[rows, 100]" }
outputs = { y = "f16[rows, 60]" }
reference = "y = x[..., 40:] - mean(x[..., 40:], axis=-1, keepdims=true)"
shapes  = [{ rows = 1 }, { rows = 37 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    for op in &spec.ops {
        let c = propose(op, &SynthOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            c.kernel.contains("g_x__c"),
            "{}: no view:\n{}",
            op.name,
            c.kernel
        );
        assert!(!c.kernel.contains("*p_"), "{}: raw pointer", op.name);
        let ev = evaluate(op, &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}: {}", op.name, ev.render());
    }
    // The tile-wide row body reads views the same way.
    let wide = SynthOptions {
        row_stats: RowStats::Wide,
        ..SynthOptions::default()
    };
    let c = propose(&spec.ops[3], &wide).unwrap();
    let ev = evaluate(&spec.ops[3], &c, &eval_options()).unwrap();
    assert!(ev.accepted(), "wide: {}", ev.render());
    // The resident tiles read each half with a GM-side stride of the other half's bytes.
    let c = propose(&spec.ops[0], &SynthOptions::default()).unwrap();
    assert!(c.kernel.contains("(74u - C) * 2u"), "{}", c.kernel);
    // The HF eager recipe: chunk is a view (no launch), silu is one vendor call, the mul
    // one launch reading the second half through its view.
    let ks = eager(&spec.ops[0], &SynthOptions::default()).unwrap();
    assert_eq!(
        ks.len(),
        1,
        "{:?}",
        ks.iter()
            .map(|k| k.op.reference.to_canonical_source())
            .collect::<Vec<_>>()
    );
    let ev = evaluate(&ks[0].op, &ks[0].candidate, &eval_options()).unwrap();
    assert!(ev.accepted(), "{}", ev.render());
}

/// A last-axis `concat` of elementwise expressions over slices (rotate-half RoPE, issue 18)
/// is written in column segments, each an elementwise program over views of the inputs'
/// segment columns (`cos[..., :D/2]` of a `[tokens, 1, D]` or `[D]` operand is a view too),
/// stored through an output view with a GM-side destination stride: accepted on every
/// declared, held-out and stress shape, for head dim 128 and for an odd half width (3).
#[test]
fn rotate_half_concat_is_written_in_segments() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.rope_half]
inputs  = { x = "f16[tokens, heads, 128]", cos = "f16[tokens, 1, 128]", sin = "f16[tokens, 1, 128]" }
outputs = { y = "f16[tokens, heads, 128]" }
reference = "y = x * cos + concat(-x[..., 64:], x[..., :64], axis=-1) * sin"
shapes  = [{ tokens = 1, heads = 8 }, { tokens = 7, heads = 32 }]
init    = { cos = "uniform(-1, 1)", sin = "uniform(-1, 1)" }
[package.metadata.agenticcann.ops.rope_odd]
inputs  = { x = "f32[rows, 6]", cos = "f32[6]", sin = "f32[6]" }
outputs = { y = "f32[rows, 6]" }
reference = '''
r = concat(-x[..., 3:], x[..., :3], axis=-1)
y = x * cos + r * sin
'''
shapes  = [{ rows = 1 }, { rows = 37 }]
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    for op in &spec.ops {
        let c = propose(op, &SynthOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            c.kernel.contains("g_y__c0_"),
            "{}: no output view:\n{}",
            op.name,
            c.kernel
        );
        let ev = evaluate(op, &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}: {}", op.name, ev.render());
    }
}

/// What the proposer still refuses among the shape and indexing constructs (issue 18) is a
/// clear `Unsupported` naming the construct, never a panic: strided and indexed subscripts,
/// slices of leading axes and of computed values, concats along other axes or with too many
/// segments or with reductions, iota, argmax and take_along_axis, integer outputs.
#[test]
fn indexing_constructs_the_proposer_refuses_are_named() {
    let op = |name: &str, inputs: &str, outputs: &str, reference: &str| {
        format!(
            "[package.metadata.agenticcann.ops.{name}]\ninputs = {{ {inputs} }}\noutputs = {{ {outputs} }}\nreference = \"{reference}\"\nshapes = [{{ rows = 2 }}]\n"
        )
    };
    let cases = [
        (
            op(
                "strided",
                "x = \"f32[rows, 8]\"",
                "y = \"f32[rows, 4]\"",
                "y = x[..., ::2]",
            ),
            "strided slice (step 2)",
        ),
        (
            op(
                "indexed",
                "x = \"f32[rows, 8]\"",
                "y = \"f32[rows]\"",
                "y = x[..., 3]",
            ),
            "integer index",
        ),
        (
            op(
                "lead",
                "x = \"f32[4, rows, 8]\"",
                "y = \"f32[2, rows, 8]\"",
                "y = x[1:3]",
            ),
            "slice of axis 0",
        ),
        (
            op(
                "computed",
                "x = \"f32[rows, 8]\"",
                "y = \"f32[rows, 4]\"",
                "y = (x * 2)[..., :4]",
            ),
            "subscript of a computed value",
        ),
        (
            op(
                "cat0",
                "x = \"f32[2, rows, 8]\"",
                "y = \"f32[4, rows, 8]\"",
                "y = concat(x, x, axis=0)",
            ),
            "concat along axis 0",
        ),
        (
            op(
                "many",
                "x = \"f32[rows, 40]\"",
                "y = \"f32[rows, 40]\"",
                "y = concat(x[..., 39:], x[..., :39], axis=-1)",
            ),
            "needs 40 segments",
        ),
        (
            op(
                "catred",
                "x = \"f32[rows, 8]\"",
                "y = \"f32[rows, 8]\"",
                "y = concat(x[..., 4:], x[..., :4], axis=-1) - max(x, axis=-1, keepdims=true)",
            ),
            "a reduction in an op with a last-axis concat",
        ),
        (
            op(
                "io",
                "x = \"f32[rows, 8]\"",
                "y = \"f32[rows, 8]\"",
                "y = x + iota(x, axis=-1)",
            ),
            "iota",
        ),
        (
            op(
                "am",
                "x = \"f32[rows, 8]\"",
                "y = \"i32[rows]\"",
                "y = argmax(x, axis=-1)",
            ),
            "argmax",
        ),
        (
            op(
                "take",
                "x = \"f32[rows, 8]\", i = \"i32[rows, 1]\"",
                "y = \"f32[rows, 1]\"",
                "y = take_along_axis(x, i, axis=-1)",
            ),
            "take_along_axis",
        ),
        (
            op(
                "intout",
                "x = \"f32[rows, 8]\"",
                "y = \"i32[rows, 4]\"",
                "y = cast(x[..., :4], i32)",
            ),
            "dtype i32",
        ),
    ];
    for (text, want) in cases {
        let m = format!(
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n{text}"
        );
        let spec = Spec::from_manifest_str(&m, None)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .unwrap();
        let err = propose(&spec.ops[0], &SynthOptions::default())
            .expect_err(&text)
            .to_string();
        assert!(err.contains(want), "{text}: `{err}` does not name `{want}`");
    }
}

/// Reductions over a leading axis (`sum(x, axis=1)` of `[batch, seq, hidden]`, sentence
/// pooling) run in column slabs: (output row, slab) units spread over the cores, the
/// reduced axis read in tiles of several GM rows per DataCopyPad (a GM stride between
/// them) and folded in halves. Exact on every declared, held-out and stress shape for sums,
/// maxima, means, an elementwise operand (`x * x`), a per-row operand (`x * mask` with
/// `mask[batch, seq, 1]`, evaluated row by row) and a reduction over axis 0; one batch row
/// uses many cores and runs far faster than on one.
#[test]
fn leading_axis_reductions_run_in_column_slabs() {
    let m = r#"
[package]
name = "x"
version = "0.1.0"
[package.metadata.agenticcann]
soc = "Ascend910B1"
[package.metadata.agenticcann.ops.pool]
inputs  = { x = "f16[batch, seq, hidden]" }
outputs = { y = "f16[batch, hidden]" }
reference = "y = sum(x, axis=1)"
shapes  = [{ batch = 1, seq = 128, hidden = 4096 }, { batch = 3, seq = 33, hidden = 1029 }]
[package.metadata.agenticcann.ops.sq]
inputs  = { x = "bf16[batch, seq, hidden]" }
outputs = { y = "f32[batch, hidden]" }
reference = "y = mean(x * x, axis=1)"
shapes  = [{ batch = 1, seq = 64, hidden = 2048 }, { batch = 5, seq = 7, hidden = 999 }]
[package.metadata.agenticcann.ops.colmax]
inputs  = { x = "f32[seq, hidden]" }
outputs = { y = "f32[hidden]" }
reference = "y = max(x, axis=0)"
shapes  = [{ seq = 300, hidden = 1000 }, { seq = 5, hidden = 17 }]
[package.metadata.agenticcann.ops.masked]
inputs  = { x = "f32[batch, seq, hidden]", mask = "f32[batch, seq, 1]" }
outputs = { y = "f32[batch, hidden]" }
reference = "y = sum(x * mask, axis=1) / max(sum(mask, axis=1), 1e-9)"
shapes  = [{ batch = 1, seq = 128, hidden = 1024 }, { batch = 4, seq = 9, hidden = 100 }]
init    = { mask = "bernoulli(0.8)" }
"#;
    let spec = Spec::from_manifest_str(m, None).unwrap().unwrap();
    let fast = EvalOptions {
        held_out: false,
        stress: false,
        ..eval_options()
    };
    let one_core = SynthOptions {
        params: TilingParams {
            max_blocks: 1,
            ..TilingParams::default()
        },
        ..SynthOptions::default()
    };
    for op in &spec.ops {
        let c = propose(op, &SynthOptions::default()).unwrap();
        assert!(
            c.tiling.contains("tiling->resident = 2;"),
            "{}: {}",
            op.name,
            c.tiling
        );
        // Several rows of the reduced axis per copy, with the GM gap between them.
        assert!(
            c.kernel
                .contains("DataCopyExtParams{static_cast<uint16_t>(kbN)"),
            "{}: {}",
            op.name,
            c.kernel
        );
        let ev = evaluate(op, &c, &eval_options()).unwrap();
        assert!(ev.accepted(), "{}: {}", op.name, ev.render());
        let first = |ev: &Evaluation| ev.shapes[0].profile.clone().unwrap();
        let slabs = first(&evaluate(op, &c, &fast).unwrap());
        assert!(
            slabs.block_dim > 8,
            "{}: {} blocks",
            op.name,
            slabs.block_dim
        );
        let single = first(&evaluate(op, &propose(op, &one_core).unwrap(), &fast).unwrap());
        assert_eq!(single.block_dim, 1);
        // The masked pooling reads its per-row mask values with scalar GetValue on every
        // core (its own row loop and `sum(mask)`'s), which more cores do not shorten.
        let bound = if op.name == "masked" { 0.7 } else { 0.5 };
        assert!(
            slabs.time_us < bound * single.time_us,
            "{}: slabs {:.2} us, one core {:.2} us",
            op.name,
            slabs.time_us,
            single.time_us
        );
    }
}
