//! The API forms the knowledge base teaches (L1 paradigm, L2 rules, L4 cards) compile against
//! the simulator's headers exactly as written there: a kernel using every one of them is
//! syntax-checked with the host compiler, and every simulator API name the chunks mention
//! must appear in that kernel (so a card that names a new API gets it checked too).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use agenticcann_evolve::knowledge::{KnowledgeBase, Level};

/// Each call in the form a chunk states it (chunk in the comment).
const KERNEL: &str = r#"
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cards(GM_ADDR x, GM_ADDR y) {
  // L1.paradigm
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  TBuf<TPosition::VECCALC> buf, work, red, bitsBuf, bfBuf;
  GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ half*)x + GetBlockIdx() * 64, 64);
  yGm.SetGlobalBuffer((__gm__ half*)y + GetBlockIdx() * 64, 64);
  pipe.InitBuffer(inQ, 2, 256);
  pipe.InitBuffer(outQ, 2, 256);
  pipe.InitBuffer(buf, 512);
  pipe.InitBuffer(work, 64);
  pipe.InitBuffer(red, 32);
  pipe.InitBuffer(bitsBuf, 32);
  pipe.InitBuffer(bfBuf, 256);
  uint32_t rows = 1, n = 46, bytes = n * sizeof(half);
  LocalTensor<half> t = inQ.AllocTensor<half>();
  // L4.datacopy
  DataCopy(t, xGm, 64);
  DataCopyPad(t, xGm, DataCopyExtParams{(uint16_t)rows, (uint32_t)bytes, 0, 0, 0}, {});
  inQ.EnQue(t);
  t = inQ.DeQue<half>();
  LocalTensor<float> f = buf.Get<float>();
  // L4.vector
  Cast(f, t, RoundMode::CAST_NONE, n);
  Add(f, f, f, n); Sub(f, f, f, n); Mul(f, f, f, n); Div(f, f, f, n); Max(f, f, f, n); Min(f, f, f, n);
  Exp(f, f, n); Ln(f, f, n); Sqrt(f, f, n); Rsqrt(f, f, n); Reciprocal(f, f, n); Abs(f, f, n); Relu(f, f, n);
  Adds(f, f, 1.0f, n); Muls(f, f, 0.5f, n); Maxs(f, f, 0.0f, n); Mins(f, f, 6.0f, n);
  // L2.types-api: scalars of the tensor's type; bf16 through float
  Muls(t, t, (half)0.5f, n);
  LocalTensor<bfloat16_t> b = bfBuf.Get<bfloat16_t>();
  Cast(b, f, RoundMode::CAST_RINT, n);
  Cast(f, b, RoundMode::CAST_NONE, n);
  // L2.reduce-float: work n/64 + 8 floats
  LocalTensor<float> w = work.Get<float>(n / 64 + 8);
  LocalTensor<float> r = red.Get<float>();
  ReduceSum(r, f, w, n);
  ReduceMax(r, f, w, n);
  float s = r.GetValue(0);
  Muls(f, f, s, n);
  // L4.select
  LocalTensor<uint8_t> bits = bitsBuf.Get<uint8_t>();
  CompareScalar(bits, t, (half)0, CMPMODE::NE, 128);
  LocalTensor<half> o = outQ.AllocTensor<half>();
  Select(o, bits, t, t, SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
  Cast(o, f, RoundMode::CAST_RINT, n);
  outQ.EnQue(o);
  inQ.FreeTensor(t);
  o = outQ.DeQue<half>();
  DataCopy(yGm, o, 64);
  DataCopyPad(yGm, o, DataCopyExtParams{(uint16_t)rows, (uint32_t)bytes, 0, 0, 0});
  outQ.FreeTensor(o);
  // L2.cross-core
  yGm.SetValue(0, (half)1.0f);
  DataCacheCleanAndInvalid<half>(yGm[0]);
  SyncAll();
}
"#;

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ascendc-sim/include")
}

fn cxx() -> String {
    agenticcann_build::env::var("CXX").unwrap_or_else(|| "g++".to_string())
}

#[test]
fn the_taught_api_forms_compile_against_the_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("cards.cpp");
    std::fs::write(&src, KERNEL).unwrap();
    let out = Command::new(cxx())
        .args(["-std=c++20", "-fsyntax-only", "-Wall", "-Werror"])
        .arg("-I")
        .arg(include_dir())
        .arg(&src)
        .output()
        .expect("a C++ compiler (g++, or $CXX)");
    assert!(
        out.status.success(),
        "the API forms of the knowledge base do not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Names declared by the simulator's headers: functions, types and enumerators, from
/// `name(`, `name<`, `class name`, `struct name` and `enum class name { a, b }` outside
/// comments.
fn declared_names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![include_dir()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("");
                let ws = words(code);
                for (i, w) in ws.iter().enumerate() {
                    let next = code[code.find(w.as_str()).unwrap_or(0) + w.len()..].trim_start();
                    if next.starts_with('(') || next.starts_with('<') {
                        names.insert(w.clone());
                    }
                    if i > 0 && matches!(ws[i - 1].as_str(), "class" | "struct") {
                        names.insert(w.clone());
                    }
                }
                if let Some(rest) = code.split("enum class").nth(1) {
                    if let Some(body) = rest.split('{').nth(1) {
                        names.extend(words(body.split('}').next().unwrap_or("")));
                    }
                }
            }
        }
    }
    names
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_api_the_chunks_name_is_in_the_checked_kernel() {
    let kb = KnowledgeBase::embedded().unwrap();
    let declared = declared_names();
    assert!(declared.contains("DataCopyPad") && declared.contains("VSEL_TENSOR_TENSOR_MODE"));
    let in_kernel: BTreeSet<String> = words(KERNEL).into_iter().collect();
    let mut named = BTreeSet::new();
    for c in kb
        .chunks
        .iter()
        .filter(|c| matches!(c.level, Level::L1 | Level::L2 | Level::L4))
    {
        for w in words(&c.body) {
            // API names start with a capital letter and have 3+ characters (`GM` and `UB`
            // are prose here, though TPosition has them).
            if w.len() >= 3
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && declared.contains(&w)
            {
                named.insert((w, c.id.clone()));
            }
        }
    }
    assert!(named.len() > 30, "too few API names found: {named:?}");
    let missing: Vec<&(String, String)> = named
        .iter()
        .filter(|(w, _)| !in_kernel.contains(w))
        .collect();
    assert!(
        missing.is_empty(),
        "APIs named by chunks but not exercised by the checked kernel: {missing:?}"
    );
}
