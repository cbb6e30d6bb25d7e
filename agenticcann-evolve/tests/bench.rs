//! The benchmark on a small subset (CI): three ops with small shapes — RMSNorm against its HF
//! eager recipe, LayerNorm against the vendor-fused model, SwiGLU with a vendor call inside its
//! recipe — through the offline proposer and the judge; the report's numbers, Markdown, JSON
//! and SVG; suspect detection. The whole suite is a benchmark (`cargo agenticcann bench`),
//! not a test.

use std::path::PathBuf;

use agenticcann_build::judge::SocProfile;
use agenticcann_build::spec::{Pattern, Spec};
use agenticcann_evolve::bench::{self, BenchOptions, Meta, OpStatus};
use agenticcann_evolve::suite::SuiteOp;

const OPS: &str = r#"
[package]
name = "bench-ci"
version = "0.0.0"

[package.metadata.agenticcann]
soc = "Ascend910B1"

[package.metadata.agenticcann.ops.rms_norm_f16]
inputs  = { x = "f16[rows, hidden]", gamma = "f16[hidden]" }
outputs = { y = "f16[rows, hidden]" }
attrs   = { eps = 1e-6 }
reference = "y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + eps) * gamma"
shapes  = [{ rows = 1, hidden = 256 }, { rows = 64, hidden = 256 }, { rows = 7, hidden = 259 }]
init    = { gamma = "uniform(0.5, 1.5)" }
eager = { source = "Llama (HF LlamaRMSNorm)", vendor = "aclnnRmsNorm", recipe = '''
xf = cast(x, f32)
v  = mean(xf ** 2, axis=-1, keepdims=true)
h  = xf * rsqrt(v + eps)
y  = gamma * cast(h, f16)
''' }

[package.metadata.agenticcann.ops.layer_norm_f16]
inputs  = { x = "f16[rows, 256]", gamma = "f16[256]", beta = "f16[256]" }
outputs = { y = "f16[rows, 256]" }
attrs   = { eps = 1e-5 }
reference = '''
mu = mean(x, axis=-1, keepdims=true)
d = x - mu
y = d * rsqrt(mean(d * d, axis=-1, keepdims=true) + eps) * gamma + beta
'''
shapes  = [{ rows = 1 }, { rows = 64 }]
init    = { gamma = "uniform(0.5, 1.5)" }
eager = { source = "GPT-2 (F.layer_norm)", vendor = "aclnnLayerNorm" }

[package.metadata.agenticcann.ops.swiglu_bf16]
inputs  = { gate = "bf16[rows, 512]", up = "bf16[rows, 512]" }
outputs = { y = "bf16[rows, 512]" }
reference = "y = gate * sigmoid(gate) * up"
shapes  = [{ rows = 1 }, { rows = 7 }]
eager = { source = "Llama (HF LlamaMLP)", calls = { s = "aclnnSilu" }, recipe = '''
s = gate * sigmoid(gate)
y = s * up
''' }
"#;

fn suite() -> Vec<SuiteOp> {
    let spec = Spec::from_manifest_str(OPS, None).unwrap().unwrap();
    let labels = [
        Pattern::Normalization,
        Pattern::Normalization,
        Pattern::Fusion,
    ];
    spec.ops
        .into_iter()
        .zip(labels)
        .map(|(op, label)| SuiteOp {
            label,
            manifest_path: PathBuf::from("bench-ci/Cargo.toml"),
            op,
        })
        .collect()
}

fn options() -> BenchOptions {
    let cache = Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge"));
    let mut o = BenchOptions::default();
    o.eval.cache_dir = cache.clone();
    o.eager_eval.cache_dir = cache;
    o.eval.seed = Some(7);
    o.eager_eval.seed = Some(7);
    o
}

#[test]
fn small_subset_report() {
    let suite = suite();
    let opts = options();
    let soc = bench::soc_of(&suite, &opts).unwrap();
    assert_eq!(soc.name, "Ascend910B1");
    assert_eq!(soc.digest.len(), 64);
    let mut seen = Vec::new();
    let results = bench::run(&suite, &opts, &soc.profile, &mut |r| {
        seen.push(r.name.clone())
    })
    .unwrap();
    assert_eq!(seen, ["rms_norm_f16", "layer_norm_f16", "swiglu_bf16"]);
    for r in &results {
        assert_eq!(r.status, OpStatus::Feasible, "{r:?}");
        // The offline search: several variants tried, the chosen one named, never slower
        // than the default proposal it started from.
        assert!(r.candidates > 1, "{r:?}");
        let from = r.kernel_from.as_deref().unwrap_or_default();
        assert!(from.starts_with("offline tile="), "{r:?}");
        assert!(r.speedup_first.unwrap() >= 1.0 - 1e-9, "{r:?}");
    }
    let rms = &results[0];
    assert_eq!(rms.eager_kind.as_deref(), Some("recipe"));
    assert_eq!(rms.eager_launches, Some(8));
    assert_eq!(rms.shapes.len(), 3);
    let s64 = &rms.shapes[1];
    assert_eq!(s64.rows, 64);
    // Bytes by hand at [64, 256]: fused 4·RH + 2·H = 66048; HF eager 36·RH + 24·R + 2·H.
    assert_eq!(s64.bytes, 66_048);
    assert_eq!(s64.eager_bytes, Some(36 * 64 * 256 + 24 * 64 + 2 * 256));
    // Eight launches cost at least eight launch overheads; the fused kernel pays one.
    let eager = s64.eager_us.unwrap();
    assert!(eager >= 8.0 * soc.profile.launch_overhead_us, "{eager}");
    assert!(rms.speedup_eager.unwrap() > 1.0, "{rms:?}");
    // The vendor-fused model is the roofline: never beaten by an honest kernel.
    for r in &results {
        for s in &r.shapes {
            assert!(s.roofline_fraction <= 1.0 + 1e-9, "{}: {s:?}", r.name);
            if let Some(v) = s.vendor_us {
                assert!(v <= s.time_us * (1.0 + 1e-9), "{}: {s:?}", r.name);
            }
        }
    }
    let ln = &results[1];
    assert_eq!(ln.eager_kind, None, "a vendor-only op has no eager column");
    assert!(ln.speedup_vendor.unwrap() <= 1.0);
    let sw = &results[2];
    assert_eq!(sw.eager_launches, Some(2), "silu vendor call + mul");
    assert!(sw.vendor.is_none() && sw.speedup_vendor.is_none());

    let info = &soc;
    let report = bench::summarize(results.clone(), Meta::collect(info, "offline", "test", 1.0));
    assert_eq!(report.meta.soc, "Ascend910B1");
    assert_eq!(report.meta.profile_digest, soc.digest);
    let norm = report
        .patterns
        .iter()
        .find(|p| p.pattern == "normalization")
        .unwrap();
    assert_eq!((norm.feasible, norm.ops), (2, 2));
    // fast_0 vs eager = feasible share of the ops with an eager column (rms, swiglu).
    let f0 = report
        .fast_p
        .iter()
        .find(|f| f.baseline == "eager" && f.p == 0.0)
        .unwrap();
    assert_eq!((f0.count, f0.ops), (2, 2));
    let md = bench::markdown(&report);
    for needle in [
        "rms_norm_f16",
        "aclnnLayerNorm",
        "## fast_p",
        "sha256",
        "vs eager",
    ] {
        assert!(md.contains(needle), "markdown lacks {needle}");
    }
    // The JSON reads back (floats to within their printed precision).
    let back: bench::Report = serde_json::from_str(&bench::json(&report)).unwrap();
    assert_eq!(back.meta, report.meta);
    assert_eq!(back.ops.len(), report.ops.len());
    for (a, b) in back.ops.iter().zip(&report.ops) {
        assert_eq!(
            (&a.name, a.status, a.eager_launches),
            (&b.name, b.status, b.eager_launches)
        );
        for (x, y) in a.shapes.iter().zip(&b.shapes) {
            assert_eq!(x.dims, y.dims);
            assert!((x.time_us - y.time_us).abs() <= 1e-9 * y.time_us);
        }
    }
    // The charts: every label is the text of a <text> element (plotters escapes it); one bar
    // (a filled <rect>) per counted op and series, named in the legend.
    let texts = agenticcann_evolve::chart::svg_texts;
    let svg = bench::speedup_svg(&report).unwrap();
    assert!(svg.starts_with("<svg"));
    let t = texts(&svg);
    assert!(t.iter().any(|t| t == "rms_norm_f16 (ok)"), "{t:?}");
    assert!(t.iter().any(|t| t == "vs eager recipe"), "{t:?}");
    assert!(t.iter().any(|t| t == "vs vendor-fused model"), "{t:?}");
    type Pick = fn(&bench::OpResult) -> Option<f64>;
    for (color, value) in [
        ("#2B6CB0", (|o| o.speedup_eager) as Pick),
        ("#DD6B20", |o| o.speedup_vendor),
    ] {
        let with = report
            .ops
            .iter()
            .filter(|o| o.counted() && value(o).is_some())
            .count();
        assert!(with > 0);
        // Bars, plus the legend's swatch.
        let bars = svg.matches(&format!(r#"fill="{color}""#)).count();
        assert_eq!(bars, with + 1, "{color} in {svg}");
    }
    // A bar's value label is its speedup.
    let eager = report.ops.iter().find_map(|o| o.speedup_eager).unwrap();
    assert!(t.contains(&format!("{eager:.2}×")), "{eager} in {t:?}");
    let roof = bench::roofline_svg(&report).unwrap();
    assert!(texts(&roof).iter().any(|t| t == "swiglu_bf16"), "{roof}");
    let feas = bench::feasibility_svg(&report).unwrap();
    assert!(
        texts(&feas).iter().any(|t| t == "normalization (2/2)"),
        "{feas}"
    );

    // Suspect detection: under a profile whose HBM is 10^4 times slower, every measured time
    // beats the roofline, so the kernel is reported SUSPECT and not counted.
    let slow = SocProfile {
        hbm_peak_gbps: soc.profile.hbm_peak_gbps / 1e4,
        ..soc.profile
    };
    let only_ln = &suite[1..2];
    let fake = bench::run(only_ln, &opts, &slow, &mut |_| {}).unwrap();
    assert_eq!(fake[0].status, OpStatus::Suspect, "{:?}", fake[0]);
    assert!(fake[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("below the roofline"));
    let report = bench::summarize(fake, Meta::collect(info, "offline", "test", 1.0));
    let p = &report.patterns.iter().find(|p| p.ops > 0).unwrap();
    assert_eq!((p.feasible, p.suspect), (0, 1));
    assert!(report.fast_p.iter().all(|f| f.count == 0));
}
