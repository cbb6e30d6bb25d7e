//! The judge's own reference points (issue 13 D.8): the offline proposer's kernel, judged
//! once per op and cached, is what `impossible_speedup` compares a candidate against.

use std::path::PathBuf;

use agenticcann_build::judge::reference::{self, ReferenceSource};
use agenticcann_build::judge::{evaluate, EvalOptions};
use agenticcann_build::spec::Spec;
use agenticcann_build::synth::{propose, SynthOptions};

const MANIFEST: &str = r#"
[package]
name = "reference-fixture"
version = "0.0.0"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.add_f32]
inputs = { x = "f32[n]", y = "f32[n]" }
outputs = { z = "f32[n]" }
reference = "z = x + y"
shapes = [{ n = 4096 }, { n = 65536 }]
"#;

fn options(cache: &std::path::Path) -> EvalOptions {
    EvalOptions {
        cache_dir: Some(cache.to_path_buf()),
        seed: Some(7),
        held_out: false,
        stress: false,
        ..EvalOptions::default()
    }
}

fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge-reference")
}

#[test]
fn the_reference_is_the_offline_kernel_and_is_cached() {
    let spec = Spec::from_manifest_str(MANIFEST, None).unwrap().unwrap();
    let op = spec.op("add_f32").unwrap();
    // The same cache as the other test (one PCH build); both write the same reference file
    // (same op, seed and toolchain), with the same content.
    let cache = shared_cache();
    let opts = options(&cache);
    let r = reference::reference_times(op, &opts)
        .unwrap()
        .expect("add lowers");
    assert_eq!(r.source, ReferenceSource::Offline);
    assert_eq!(r.times.len(), 2, "one time per declared shape: {r:?}");
    assert!(r.times.iter().all(|(_, t)| *t > 0.0));
    // The larger shape takes longer (the times are per shape, not one number repeated).
    let t = |n: u64| r.times.iter().find(|(d, _)| d["n"] == n).unwrap().1;
    assert!(t(65536) > t(4096), "{r:?}");

    // Cached: one file for this op and toolchain under reference/ (a target folder kept
    // from a build with other simulator headers holds files of other toolchains beside it),
    // read back as is.
    let file = reference::cache_path(op, &opts).unwrap();
    assert_eq!(file.parent().unwrap(), cache.join("reference"));
    assert!(file.is_file(), "{} was not written", file.display());
    let again = reference::reference_times(op, &opts).unwrap().unwrap();
    assert_eq!(again, r);

    // A torn cache file is recomputed, not an error and not trusted.
    std::fs::write(&file, "{ not json").unwrap();
    let recomputed = reference::reference_times(op, &opts).unwrap().unwrap();
    assert_eq!(recomputed.source, ReferenceSource::Offline);
    assert!(
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&file).unwrap()).is_ok()
    );
}

#[test]
fn impossible_speedup_runs_against_the_derived_reference() {
    let spec = Spec::from_manifest_str(MANIFEST, None).unwrap().unwrap();
    let op = spec.op("add_f32").unwrap();
    let cache = shared_cache();
    let candidate = propose(op, &SynthOptions::default()).unwrap();

    // The offline kernel against itself: speedup 1, accepted at the default bound.
    let ev = evaluate(
        op,
        &candidate,
        &EvalOptions {
            derive_reference: true,
            ..options(&cache)
        },
    )
    .unwrap();
    assert!(ev.accepted(), "{}", ev.render());

    // With a bound below 1 the same kernel is "too fast": the check ran, against the
    // offline proposer's kernel, on every declared shape.
    let ev = evaluate(
        op,
        &candidate,
        &EvalOptions {
            derive_reference: true,
            max_speedup: 0.5,
            ..options(&cache)
        },
    )
    .unwrap();
    assert!(!ev.accepted());
    assert!(ev.suspect_performance);
    let hits: Vec<_> = ev
        .diagnostics
        .iter()
        .filter(|d| d.kind == "impossible_speedup")
        .collect();
    assert_eq!(hits.len(), 2, "{}", ev.render());
    assert!(
        hits[0].message.contains("the offline proposer's kernel"),
        "{}",
        hits[0].message
    );

    // Without derive_reference (a library caller's default) there is no reference.
    let ev = evaluate(
        op,
        &candidate,
        &EvalOptions {
            max_speedup: 0.5,
            ..options(&cache)
        },
    )
    .unwrap();
    assert!(ev.accepted(), "{}", ev.render());
}
