//! The drift guard on real kernels: the honest judge corpus, the example project's kernels
//! and the offline proposer's kernels, each compared with itself and with edited copies
//! (tuning edits keep the skeleton; depth, queue, entry and stage edits change it).

use std::path::{Path, PathBuf};

use agenticcann_build::spec::Spec;
use agenticcann_build::synth::{propose, SynthOptions, TilingParams};
use agenticcann_evolve::search::skeleton::{compare, extract, Skeleton, SkeletonError, Stage};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn honest(name: &str) -> String {
    let p = repo()
        .join("agenticcann-build/tests/judge/honest")
        .join(name)
        .join("kernel.cpp");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn kernels_in(dir: &str) -> Vec<(String, String)> {
    let mut entries: Vec<_> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries
        .into_iter()
        .map(|e| e.join("kernel.cpp"))
        .filter(|k| k.is_file())
        .map(|k| {
            let text = std::fs::read_to_string(&k).unwrap();
            (k.display().to_string(), text)
        })
        .collect()
}

fn example_spec() -> Spec {
    Spec::from_manifest_path(&repo().join("example-project/Cargo.toml"))
        .unwrap()
        .unwrap()
}

/// The offline proposer's kernels for every op of the example project and the operator
/// suite (`tests/specs/`) it lowers, with `params`.
fn synth_kernels(params: &TilingParams) -> Vec<(String, String)> {
    let options = SynthOptions {
        params: params.clone(),
        ..SynthOptions::default()
    };
    let suite = agenticcann_evolve::suite::load(&agenticcann_evolve::suite::default_dir())
        .unwrap_or_else(|e| panic!("{e}"));
    example_spec()
        .ops
        .into_iter()
        .chain(suite.into_iter().map(|s| s.op))
        .collect::<Vec<_>>()
        .iter()
        .filter_map(|op| {
            propose(op, &options)
                .ok()
                .map(|c| (format!("synth:{}", op.name), c.kernel))
        })
        .collect()
}

/// `(label, kernel.cpp)` of every kernel in the corpora.
fn corpus() -> Vec<(String, String)> {
    let mut out = kernels_in("agenticcann-build/tests/judge/honest");
    out.extend(kernels_in("example-project/kernels"));
    out.extend(synth_kernels(&TilingParams::default()));
    out
}

/// `text` with `from` replaced by `to`, which must occur.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the kernel");
    text.replace(from, to)
}

fn skeleton(text: &str) -> Skeleton {
    extract(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The reasons `child` drifts from `parent`, joined (panics when it does not drift).
fn drift(parent: &str, child: &str) -> String {
    compare(&skeleton(parent), &skeleton(child))
        .expect("the child should drift")
        .reasons
        .join("\n")
}

fn same(parent: &str, child: &str) {
    if let Some(d) = compare(&skeleton(parent), &skeleton(child)) {
        panic!("unexpected drift: {d}");
    }
}

#[test]
fn every_corpus_kernel_has_a_skeleton_equal_to_itself() {
    let corpus = corpus();
    assert!(corpus.len() > 80, "only {} kernels found", corpus.len());
    let mut with_loops = 0;
    for (label, text) in &corpus {
        let s = extract(text).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(
            s.entry
                .starts_with("extern \"C\" __global__ __aicore__ void AGC_KERNEL("),
            "{label}: {}",
            s.entry
        );
        assert!(!s.buffers.is_empty(), "{label}: no buffers");
        // Every kernel moves data in and out; when it loops, its loops do.
        for l in &s.stages {
            assert!(!l.stages.is_empty(), "{label}: empty stage loop");
        }
        if !s.stages.is_empty() {
            with_loops += 1;
            let all: Vec<Stage> = s.stages.iter().flat_map(|l| l.stages.clone()).collect();
            for st in [Stage::CopyIn, Stage::Compute, Stage::CopyOut] {
                assert!(all.contains(&st), "{label}: no {st} in any loop:\n{s}");
            }
        }
        assert_eq!(compare(&s, &s), None, "{label}");
        // The run folder's records hold skeletons as JSON.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(
            serde_json::from_str::<Skeleton>(&json).unwrap(),
            s,
            "{label}"
        );
        assert_eq!(extract(text).unwrap(), s, "{label}: not deterministic");
    }
    // Only single-tile kernels (abs_f16) have no loop.
    assert!(
        with_loops + 2 >= corpus.len(),
        "{with_loops} of {}",
        corpus.len()
    );
}

#[test]
fn the_add_kernel_reads_as_expected() {
    let s = skeleton(&honest("add_f16"));
    assert_eq!(
        s.entry,
        "extern \"C\" __global__ __aicore__ void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, AgcTiling tiling)"
    );
    let b: Vec<_> = s
        .buffers
        .iter()
        .map(|b| {
            (
                b.kind.as_str(),
                b.position.as_str(),
                b.depth,
                b.name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        b,
        [
            ("TQue", "VECIN", Some(2), "inQueueX"),
            ("TQue", "VECIN", Some(2), "inQueueY"),
            ("TQue", "VECOUT", Some(2), "outQueueZ"),
        ]
    );
    assert_eq!(s.stages.len(), 1);
    assert_eq!(s.stages[0].function, "Process");
    assert_eq!(
        s.stages[0].stages,
        [Stage::CopyIn, Stage::Compute, Stage::CopyOut]
    );
    // TBuf positions and the loop of a TBuf-only kernel (hand-written synchronisation).
    let s = skeleton(&honest("scale_f32"));
    assert!(s
        .buffers
        .iter()
        .all(|b| b.kind == "TBuf" && b.position == "VECCALC" && b.depth.is_none()));
    assert_eq!(
        s.stages[0].stages,
        [Stage::CopyIn, Stage::Compute, Stage::CopyOut]
    );
}

#[test]
fn tuning_edits_keep_the_skeleton() {
    // A tile constant.
    let k = honest("row_max_f32");
    same(&k, &edit(&k, "TILE_ROWS = 64", "TILE_ROWS = 32"));
    let k = honest("reduce_sum_rows_f32");
    same(&k, &edit(&k, "ROWS_PER_TILE = 8", "ROWS_PER_TILE = 4"));
    // Buffer sizes and counts of InitBuffer, and an expression.
    let k = honest("rms_norm_f16");
    let child = edit(
        &k,
        "pipe.InitBuffer(inQ, 2, pitchH * sizeof(half));",
        "pipe.InitBuffer(inQ, 1, 2 * pitchH * sizeof(half));",
    );
    same(
        &k,
        &edit(&child, "1.0f / sqrtf(ms + eps_)", "1.0f / sqrtf(eps_ + ms)"),
    );
    // Renaming queues and members; `auto` for a tensor's type.
    let k = honest("add_f16");
    same(
        &k,
        &edit(&edit(&k, "inQueueX", "xQueue"), "length_", "len_"),
    );
    same(&k, &edit(&k, "LocalTensor<half> ", "auto "));
    // Comments and layout.
    same(
        &k,
        &edit(
            &k,
            "  __aicore__ inline void Process() {",
            "// tuned\n__aicore__ inline void Process()\n{",
        ),
    );
}

#[test]
fn the_offline_proposers_tiling_variants_keep_the_skeleton() {
    let base = synth_kernels(&TilingParams::default());
    assert!(!base.is_empty());
    for params in [
        TilingParams {
            buffer_num: 1,
            ..TilingParams::default()
        },
        TilingParams {
            max_tile_elems: 4096,
            tiles_per_core: 4,
            ..TilingParams::default()
        },
    ] {
        let other = synth_kernels(&params);
        assert_eq!(other.len(), base.len());
        for ((label, a), (_, b)) in base.iter().zip(&other) {
            if let Some(d) = compare(&skeleton(a), &skeleton(b)) {
                panic!("{label} with {params:?}: {d}");
            }
        }
    }
}

#[test]
fn a_depth_change_is_drift_also_through_a_constant() {
    let k = honest("add_f16");
    let d = drift(&k, &edit(&k, "BUFFER_NUM = 2", "BUFFER_NUM = 1"));
    for q in ["inQueueX", "inQueueY", "outQueueZ"] {
        assert!(d.contains(&format!("{q} changed depth 2 → 1")), "{d}");
    }
    // Replacing the constant by its literal is not.
    same(
        &k,
        &edit(
            &k,
            "TQue<TPosition::VECOUT, BUFFER_NUM> outQueueZ",
            "TQue<TPosition::VECOUT, 2> outQueueZ",
        ),
    );
    let k = honest("rms_norm_f16");
    let d = drift(
        &k,
        &edit(
            &k,
            "TQue<TPosition::VECIN, 2> inQ;",
            "TQue<TPosition::VECIN, 1> inQ;",
        ),
    );
    assert_eq!(d, "the queue TQue inQ changed depth 2 → 1");
}

#[test]
fn a_removed_added_or_moved_buffer_is_drift() {
    let k = honest("rms_norm_f16");
    let d = drift(&k, &edit(&k, "  TQue<TPosition::VECOUT, 2> outQ;\n", ""));
    assert!(d.contains("outQ") && d.contains("removed"), "{d}");
    let d = drift(
        &k,
        &edit(
            &k,
            "TBuf<TPosition::VECCALC> xfBuf,",
            "TBuf<TPosition::VECCALC> tmpBuf, xfBuf,",
        ),
    );
    assert!(d.contains("tmpBuf") && d.contains("added"), "{d}");
    let d = drift(
        &k,
        &edit(
            &k,
            "TQue<TPosition::VECOUT, 2> outQ;",
            "TQue<TPosition::VECIN, 2> outQ;",
        ),
    );
    assert!(d.contains("outQ changed position VECOUT → VECIN"), "{d}");
    let d = drift(
        &k,
        &edit(
            &k,
            "TQue<TPosition::VECOUT, 2> outQ;",
            "TBuf<TPosition::VECOUT> outQ;",
        ),
    );
    assert!(d.contains("outQ changed from TQue to TBuf"), "{d}");
}

#[test]
fn an_entry_change_is_drift() {
    let k = honest("add_f16");
    let d = drift(
        &k,
        &edit(
            &k,
            "GM_ADDR z, GM_ADDR workspace",
            "GM_ADDR z, GM_ADDR extra, GM_ADDR workspace",
        ),
    );
    assert!(
        d.contains("entry signature changed") && d.contains("GM_ADDR extra"),
        "{d}"
    );
    // Whitespace alone is not.
    same(
        &k,
        &edit(
            &k,
            "GM_ADDR z, GM_ADDR workspace,\n",
            "GM_ADDR z,GM_ADDR   workspace,\n",
        ),
    );
}

#[test]
fn a_stage_change_is_drift() {
    let k = honest("add_f16");
    let d = drift(&k, &edit(&k, "      CopyOut(i, n);\n", ""));
    assert_eq!(d, "stage loop 1 (in Process) lost CopyOut");
    // Stages recognised inside called functions: CopyIn that no longer reads GM.
    let d = drift(&k, &edit(&k, "      CopyIn(i, n);\n", ""));
    assert!(d.contains("lost CopyIn"), "{d}");
    // The loop removed (one tile per core) changes the number of stage loops.
    let child = edit(
        &k,
        "    for (uint32_t i = 0; i < loops; i++) {\n      uint32_t n = (i + 1) * tile_ <= length_ ? tile_ : length_ - i * tile_;",
        "    {\n      uint32_t i = 0, n = length_;",
    );
    let d = drift(&k, &child);
    assert!(d.contains("number of stage loops changed 1 → 0"), "{d}");
    // A second pass over the data adds a stage loop.
    let child = edit(
        &k,
        "      CopyOut(i, n);\n    }\n",
        "      CopyOut(i, n);\n    }\n    for (uint32_t i = 0; i < loops; i++) { CopyIn(i, tile_); }\n",
    );
    let d = drift(&k, &child);
    assert!(d.contains("number of stage loops changed 1 → 2"), "{d}");
    // Reordering stages inside the loop is a schedule change, not drift.
    let child = edit(
        &k,
        "      CopyIn(i, n);\n      Compute(n);\n",
        "      Compute(n);\n      CopyIn(i, n);\n",
    );
    same(&k, &child);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let k = honest("add_f16");
    let e = extract(&edit(
        &k,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = $2;",
    ))
    .unwrap_err();
    assert!(matches!(e, SkeletonError::Lex { line: 8, .. }), "{e:?}");
    assert!(e.to_string().contains("line 8"), "{e}");
    assert!(matches!(
        extract("int é;"),
        Err(SkeletonError::Lex { line: 1, .. })
    ));
    assert_eq!(
        extract("int main() { return 0; }"),
        Err(SkeletonError::NoEntry)
    );
    let two = format!("{k}\nextern \"C\" __global__ __aicore__ void other(GM_ADDR x) {{}}\n");
    assert!(matches!(
        extract(&two),
        Err(SkeletonError::MultipleEntries { .. })
    ));
    // The broken and hostile corpora: an error or a skeleton, never a panic.
    for dir in ["broken", "hostile"] {
        let kernels = kernels_in(&format!("agenticcann-build/tests/judge/{dir}"));
        assert!(kernels.len() > 5, "{dir}");
        for (_, text) in kernels {
            let _ = extract(&text);
        }
    }
    // Every cut of every honest kernel: an error or a skeleton, never a panic.
    for (label, text) in kernels_in("agenticcann-build/tests/judge/honest") {
        for cut in (0..text.len()).step_by(37) {
            if text.is_char_boundary(cut) {
                let _ = extract(&text[..cut]);
            }
        }
        let cut = &text[..text.len() / 2];
        assert!(
            extract(cut).is_err(),
            "{label}: half a kernel has a skeleton"
        );
    }
}

#[test]
fn define_constants_queue_binds_and_default_tbufs() {
    let src = r#"
#include "kernel_operator.h"
#define DEPTH 2
using namespace AscendC;
constexpr uint32_t TILE = 256;
class K {
 public:
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < 4; ++i) {
      LocalTensor<float> a = q.AllocTensor<float>();
      DataCopy(a, xGm[i * TILE], TILE);
      q.EnQue(a);
      a = q.DeQue<float>();
      Adds(a, a, 1.0f, TILE);
      DataCopy(yGm[i * TILE], a, TILE);
      q.FreeTensor(a);
    }
  }
  AscendC::TQueBind<TPosition::VECIN, TPosition::VECOUT, DEPTH> q;
  TBuf<> scratch;
  GlobalTensor<float> xGm, yGm;
};
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) { K op; op.Process(); }
"#;
    let s = skeleton(src);
    assert_eq!(
        s.entry,
        "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y)"
    );
    assert_eq!(s.buffers.len(), 2);
    assert_eq!(
        (
            s.buffers[0].kind.as_str(),
            s.buffers[0].position.as_str(),
            s.buffers[0].depth
        ),
        ("TQueBind", "VECIN->VECOUT", Some(2))
    );
    assert_eq!(
        (s.buffers[1].kind.as_str(), s.buffers[1].position.as_str()),
        ("TBuf", "")
    );
    assert_eq!(s.stages.len(), 1);
    assert_eq!(
        s.stages[0].stages,
        [Stage::CopyIn, Stage::Compute, Stage::CopyOut]
    );
    let d = drift(src, &edit(src, "#define DEPTH 2", "#define DEPTH 1"));
    assert!(d.contains("q changed depth 2 → 1"), "{d}");
    // An unreached function's loop is not part of the skeleton.
    let dead = edit(src, "  AscendC::TQueBind", "  __aicore__ inline void Unused() { for (;;) { Adds(a, a, 1.0f, 8); } }\n  AscendC::TQueBind");
    same(src, &dead);
}

#[test]
fn the_skeleton_prints_for_a_prompt() {
    let s = skeleton(&honest("rms_norm_f16"));
    let text = s.to_string();
    assert!(text.contains("TQue inQ (VECIN, depth 2)"), "{text}");
    assert!(text.contains("TBuf xfBuf (VECCALC)"), "{text}");
    assert!(
        text.contains("stage loop 1 (in Process): CopyIn, Compute, CopyOut"),
        "{text}"
    );
}

#[test]
fn a_pathological_call_tree_is_an_error_or_a_skeleton_quickly() {
    // f0 calls f1 twice, f1 calls f2 twice, …: 2^25 inlined calls without a budget.
    let mut src = String::from("class K {\n public:\n");
    for i in (0..25).rev() {
        let next = if i == 24 {
            "for (int j = 0; j < 2; j++) { DataCopy(a, g, 8); }".to_string()
        } else {
            format!("f{}(); f{}();", i + 1, i + 1)
        };
        src.push_str(&format!("  void f{i}() {{ {next} }}\n"));
    }
    src.push_str("  LocalTensor<float> a;\n  GlobalTensor<float> g;\n};\n");
    src.push_str("extern \"C\" __global__ __aicore__ void k() { K op; op.f0(); }\n");
    let t = std::time::Instant::now();
    let r = extract(&src);
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    assert_eq!(r, Err(SkeletonError::TooComplex));
    // Inside a loop the same tree is read once per function.
    let looped = src.replace("op.f0();", "for (;;) { op.f0(); }");
    let s = extract(&looped).unwrap();
    assert_eq!(s.stages.len(), 1);
    assert_eq!(s.stages[0].stages, [Stage::CopyIn]);
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    for (open, close) in [
        ("for (;;) ", ""),
        ("if (a) ", ""),
        ("for (;;) { ", "}"),
        ("do ", " while (a);"),
    ] {
        let n = 20_000;
        let body = format!("{}DataCopy(l, g, 8);{}", open.repeat(n), close.repeat(n));
        let src = format!(
            "LocalTensor<float> l; GlobalTensor<float> g;\nextern \"C\" __global__ __aicore__ void k() {{ {body} }}\n"
        );
        // Run on a thread with a small stack, as the loop's workers may have.
        let r = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || extract(&src).map(|s| s.stages.len()))
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(
            matches!(r, Ok(0 | 1) | Err(SkeletonError::TooComplex)),
            "{open}: {r:?}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Token soup from the kernel vocabulary gives a skeleton or an error, never a panic.
    #[test]
    fn token_soup_is_a_skeleton_or_an_error(
        words in proptest::collection::vec(
            proptest::sample::select(vec![
                "{", "}", "(", ")", "[", "]", "<", ">", ">>", ",", ";", "=", ":", "::", ".", "->",
                "&", "*", "for", "while", "do", "if", "else", "auto", "const", "constexpr",
                "DataCopy", "DataCopyPad", "Add", "TQue", "TQueBind", "TBuf", "LocalTensor",
                "GlobalTensor", "TPosition", "VECIN", "2", "0x1", "x", "g", "Process",
                "extern \"C\" __global__ __aicore__ void k", "#define D 2\n", "\n",
            ]),
            0..120,
        ),
    ) {
        let src = words.join(" ");
        let _ = extract(&src);
    }

    /// Balanced token soup inside an entry and a loop, so the walk itself is exercised.
    #[test]
    fn balanced_soup_in_an_entry_is_a_skeleton_or_an_error(body in soup()) {
        let src = format!(
            "LocalTensor<float> l; GlobalTensor<float> g;\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x) {{ for (;;) {{ {body} }} {body} }}\n"
        );
        let _ = extract(&src);
    }
}

/// Token soup whose brackets are balanced.
fn soup() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = proptest::sample::select(vec![
        ",",
        ";",
        "=",
        ":",
        "::",
        ".",
        "->",
        "&",
        "*",
        "<",
        ">",
        ">>",
        "for",
        "while",
        "do",
        "if",
        "else",
        "auto",
        "const",
        "constexpr",
        "DataCopy",
        "Add",
        "TQue",
        "TBuf",
        "LocalTensor",
        "GlobalTensor",
        "TPosition",
        "VECIN",
        "2",
        "x",
        "l",
        "g",
        "k",
        "Process",
        "AllocTensor",
    ])
    .prop_map(str::to_string);
    leaf.prop_recursive(6, 200, 8, |inner| {
        (proptest::collection::vec(inner, 0..8), 0usize..7).prop_map(|(parts, shape)| {
            let p = parts.join(" ");
            match shape {
                0 => format!("( {p} )"),
                1 => format!("{{ {p} }}"),
                2 => format!("[ {p} ]"),
                3 => format!("for ( ; ; ) {{ {p} }}"),
                4 => format!("DataCopy ( l , g , {p} ) ;"),
                5 => format!("k ( {p} ) ; if ( x ) {p} else {{ {p} }}"),
                _ => format!("TQue < TPosition :: VECIN , {p} > q ; Add ( l , {p} ) ;"),
            }
        })
    })
}
