//! The knowledge base of the repository (`knowledge/`) and the machinery around it: loading
//! and validation, phase assembly and its token budgets, repair routing, and the L5
//! exemplar format (with generated exemplars in a copy of the knowledge base).

use std::path::{Path, PathBuf};

use agenticcann_build::env::Env;
use agenticcann_build::judge::Stage;
use agenticcann_build::kinds;
use agenticcann_build::spec::{Pattern, Spec};
use agenticcann_evolve::knowledge::{
    self, assemble, tokens, CheckOptions, Exemplar, ExemplarStatus, KnowledgeBase, KnowledgeSource,
    Level, OmitReason, Phase, StructureOnly, DIR_ENV, SKELETON_MAX_TOKENS,
};

/// The knowledge base compiled into the crate (what an installed cargo-agenticcann uses).
fn kb() -> KnowledgeBase {
    KnowledgeBase::embedded().unwrap_or_else(|e| panic!("{e}"))
}

/// The repository's `knowledge/` folder.
fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../knowledge")
}

#[test]
fn the_embedded_base_is_the_source_folder() {
    let embedded = kb();
    let disk = KnowledgeBase::load(&source_root()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(embedded.source, KnowledgeSource::Embedded);
    assert_eq!(disk.source, KnowledgeSource::Dir(source_root()));
    let digests = |kb: &KnowledgeBase| -> Vec<(String, String)> {
        kb.chunks
            .iter()
            .map(|c| (c.id.clone(), c.digest.clone()))
            .chain(
                kb.exemplars
                    .iter()
                    .flat_map(|e| &e.files)
                    .map(|f| (f.id.clone(), f.digest.clone())),
            )
            .collect()
    };
    assert!(digests(&embedded).len() > 20);
    assert_eq!(digests(&embedded), digests(&disk));
}

#[test]
fn the_source_is_the_option_then_the_environment_then_the_embedded_copy() {
    let mut env = Env::process(false);
    env.set(DIR_ENV, None);
    assert_eq!(
        KnowledgeSource::resolve(None, &env),
        KnowledgeSource::Embedded
    );
    env.set(DIR_ENV, Some("/from/env"));
    assert_eq!(
        KnowledgeSource::resolve(None, &env),
        KnowledgeSource::Dir(PathBuf::from("/from/env"))
    );
    assert_eq!(
        KnowledgeSource::resolve(Some(Path::new("/from/flag")), &env),
        KnowledgeSource::Dir(PathBuf::from("/from/flag"))
    );
    // A folder that is not there is a load error naming it, not the embedded copy.
    let err = KnowledgeBase::open(&KnowledgeSource::Dir(PathBuf::from("/no/such/knowledge")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("/no/such/knowledge is not a folder"), "{err}");
}

/// Every kind some L2 chunk names.
fn covered(kb: &KnowledgeBase) -> Vec<&'static str> {
    kinds::ALL
        .iter()
        .map(|k| k.name)
        .filter(|k| {
            kb.chunks
                .iter()
                .any(|c| c.level == Level::L2 && c.prevents(k))
        })
        .collect()
}

#[test]
fn the_knowledge_base_loads_with_every_level_and_pattern() {
    let kb = kb();
    for level in [Level::L0, Level::L1, Level::L2, Level::L3, Level::L4] {
        assert!(
            kb.chunks.iter().any(|c| c.level == level),
            "no {level} chunk"
        );
    }
    for p in Pattern::ALL {
        assert!(kb.pattern_def(p).is_some(), "patterns.toml lacks {p}");
        assert_eq!(
            kb.chunks_for(Level::L3, p).count(),
            1,
            "one L3 strategy per pattern ({p})"
        );
        assert!(
            kb.chunks_for(Level::L4, p).count() >= 2,
            "API cards for {p}"
        );
    }
    // The rules of the issue each exist and name kinds.
    for (id, kind) in [
        ("L2.align32", "ub_misaligned"),
        ("L2.ub-budget", "ub_capacity_exceeded"),
        ("L2.queues", "queue_alloc_beyond_depth"),
        ("L2.core-split", "gm_out_of_bounds"),
        ("L2.reduce-float", "reduce_work_buffer_too_small"),
        ("L2.max-shift", "nonfinite_mismatch"),
        ("L2.limits", "repeat_out_of_range"),
        ("L2.types-api", "unknown_api"),
        ("L2.variance", "nonfinite_mismatch"),
    ] {
        let c = kb.chunk(id).unwrap_or_else(|| panic!("no chunk {id}"));
        assert!(c.prevents(kind), "{id} does not name {kind}");
        assert_eq!(kb.read(id), Some(c.body.as_str()));
    }
    // Every simulator kind a kernel can cause, every compiler class of an honest mistake, and
    // the policy and run kinds an honest kernel can hit, have a rule.
    let covered = covered(&kb);
    for k in kinds::ALL {
        let needed = match (k.origin, k.stage) {
            (kinds::Origin::Simulator, _) => !matches!(
                k.name,
                "kernel_exception" | "profile_invalid" | "cost_model_error" | "internal_error"
            ),
            (kinds::Origin::Compiler, _) => {
                !matches!(k.name, "compiler_limit" | "other" | "pch_unavailable")
            }
            (kinds::Origin::Policy, _) => matches!(
                k.name,
                "forbidden_include" | "heap_allocation" | "exceptions" | "missing_entry_point"
            ),
            (kinds::Origin::Judge, Stage::Run) => {
                matches!(k.name, "timeout" | "tiling_block_dim" | "guard_overwritten")
            }
            (kinds::Origin::Judge, Stage::Verify) => matches!(
                k.name,
                "wrong_result" | "nonfinite_mismatch" | "unwritten_output"
            ),
            (kinds::Origin::Judge, _) => false,
        };
        if needed {
            assert!(covered.contains(&k.name), "no L2 rule names {}", k.name);
        }
    }
}

#[test]
fn digests_are_sha256_of_the_files() {
    let kb = kb();
    for c in &kb.chunks {
        let bytes = std::fs::read(source_root().join(&c.path)).unwrap();
        assert_eq!(c.digest, knowledge::chunk::sha256_hex(&bytes), "{}", c.id);
    }
    // sha256("abc"), FIPS 180-2 test vector.
    assert_eq!(
        knowledge::chunk::sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn phases_select_their_levels() {
    let kb = kb();
    for p in Pattern::ALL {
        let levels = |phase: Phase, diags: &[&str]| -> Vec<Level> {
            let prompt = assemble(&kb, phase, p, diags).unwrap();
            let mut l: Vec<Level> = prompt.chunks.iter().map(|c| c.level).collect();
            l.dedup();
            l
        };
        assert_eq!(
            levels(Phase::Init, &[]),
            [
                Level::L0,
                Level::L1,
                Level::L2,
                Level::L3,
                Level::L4,
                Level::L5
            ]
        );
        assert_eq!(
            levels(Phase::Mutation, &[]),
            [Level::L2, Level::L3, Level::L4]
        );
        assert_eq!(levels(Phase::Tuning, &[]), [Level::L3]);
        assert_eq!(
            levels(Phase::Repair, &["ub_misaligned"]),
            [Level::L2, Level::L5]
        );
        assert_eq!(levels(Phase::Repair, &[]), [Level::L5]);
        // Only chunks for the pattern.
        let init = assemble(&kb, Phase::Init, p, &[]).unwrap();
        for c in &init.chunks {
            assert!(
                kb.chunk(&c.id).unwrap().patterns.contains(p),
                "{} in {p}",
                c.id
            );
        }
        // Every pattern has its exemplar: init and repair end with its skeleton and the
        // pointer to the full files, nothing is missing, no reserve is added.
        let ex = kb
            .exemplar(p)
            .unwrap_or_else(|| panic!("no exemplar for {p}"));
        for phase in [Phase::Init, Phase::Repair] {
            let prompt = assemble(&kb, phase, p, &[]).unwrap();
            assert!(
                prompt.omitted.is_empty(),
                "{p} {phase}: {:?}",
                prompt.omitted
            );
            assert_eq!(prompt.worst_case_tokens(), prompt.tokens);
            assert!(prompt.text.contains(&ex.skeleton.body));
            assert!(prompt.text.ends_with(&Exemplar::pointer_line(p)));
            assert_eq!(prompt.chunks.last().unwrap().id, format!("L5.{p}"));
        }
        for suffix in ["kernel", "tiling", "spec", "manifest"] {
            let id = format!("L5.{p}.{suffix}");
            assert!(kb.read(&id).is_some_and(|t| !t.is_empty()), "{id}");
        }
    }
    let tuning = assemble(&kb, Phase::Tuning, Pattern::Softmax, &[]).unwrap();
    assert!(
        tuning.text.contains("online max and sum"),
        "{}",
        tuning.text
    );
}

#[test]
fn accounting_matches_the_text() {
    let kb = kb();
    let p = assemble(&kb, Phase::Init, Pattern::Normalization, &[]).unwrap();
    assert_eq!(p.tokens, tokens::count(&p.text));
    assert_eq!(p.budget, 800);
    for c in &p.chunks {
        let chunk = kb.chunk(&c.id).unwrap();
        assert!(
            p.text.contains(&chunk.body),
            "{} missing from the text",
            c.id
        );
        assert_eq!(c.digest, chunk.digest);
        assert_eq!(c.tokens, tokens::count(&chunk.body));
    }
    assert!(p.text.starts_with("# Hardware\n"));
}

#[test]
fn budgets_hold_on_every_pattern_and_phase() {
    let kb = kb();
    let all = covered(&kb);
    for p in Pattern::ALL {
        for phase in Phase::ALL {
            let diags: Vec<&str> = if phase == Phase::Repair {
                all.clone()
            } else {
                vec![]
            };
            let prompt = assemble(&kb, phase, p, &diags).unwrap();
            assert!(
                prompt.worst_case_tokens() <= phase.budget(),
                "{p} {phase}: {} tokens (worst case) over {}",
                prompt.worst_case_tokens(),
                phase.budget()
            );
        }
        // A single diagnostic always gets every rule written for it.
        for kind in &all {
            let prompt = assemble(&kb, Phase::Repair, p, &[kind]).unwrap();
            assert!(
                prompt
                    .omitted
                    .iter()
                    .all(|o| o.reason != OmitReason::OverBudget),
                "{kind} {p}"
            );
            assert!(prompt.within_budget());
        }
    }
    let strict_options = CheckOptions {
        require_exemplars: true,
    };
    let report = knowledge::check(&kb, &StructureOnly, strict_options);
    assert!(report.is_ok(), "{report:#?}");
    assert_eq!(report.budgets.len(), 24);
    assert_eq!(report.exemplars.len(), 6);
    assert!(report
        .exemplars
        .iter()
        .all(|(_, s)| matches!(s, ExemplarStatus::Verified(_))));
    // Without one exemplar, the check passes only when exemplars are not required.
    let (_tmp, root) = scratch_kb();
    std::fs::remove_dir_all(root.join("L5/fusion")).unwrap();
    let partial = KnowledgeBase::load(&root).unwrap_or_else(|e| panic!("{e}"));
    let lax = knowledge::check(&partial, &StructureOnly, CheckOptions::default());
    assert!(lax.is_ok(), "{lax:#?}");
    assert!(lax
        .exemplars
        .contains(&(Pattern::Fusion, ExemplarStatus::Missing)));
    for phase in [Phase::Init, Phase::Repair] {
        let prompt = assemble(&partial, phase, Pattern::Fusion, &[]).unwrap();
        assert!(prompt
            .omitted
            .iter()
            .any(|o| o.id == "L5.fusion" && o.reason == OmitReason::NotWritten));
        assert_eq!(
            prompt.worst_case_tokens(),
            prompt.tokens + SKELETON_MAX_TOKENS
        );
    }
    let strict = knowledge::check(&partial, &StructureOnly, strict_options);
    assert!(
        !strict.is_ok(),
        "missing exemplars fail with require_exemplars"
    );
}

#[test]
fn repair_routes_diagnostics_to_rules_in_order() {
    let kb = kb();
    let p = assemble(
        &kb,
        Phase::Repair,
        Pattern::Normalization,
        &["reduce_work_buffer_too_small", "ub_misaligned"],
    )
    .unwrap();
    let ids: Vec<&str> = p.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["L2.reduce-float", "L2.align32", "L5.normalization"]);
    assert!(p.text.starts_with("# Rules\n"));
    // The pattern's own rules for a kind, when it has some ...
    let p = assemble(
        &kb,
        Phase::Repair,
        Pattern::Softmax,
        &["nonfinite_mismatch"],
    )
    .unwrap();
    let ids: Vec<&str> = p.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["L2.max-shift", "L2.reduce-float", "L5.softmax"]);
    // ... else those of other patterns: the diagnostic decides.
    let p = assemble(
        &kb,
        Phase::Repair,
        Pattern::Elementwise,
        &["nonfinite_mismatch"],
    )
    .unwrap();
    let ids: Vec<&str> = p.chunks.iter().map(|c| c.id.as_str()).collect();
    assert!(
        ids.contains(&"L2.max-shift") && ids.contains(&"L2.variance"),
        "{ids:?}"
    );
    // No rule, no error: reported; the prompt is the exemplar alone.
    let p = assemble(&kb, Phase::Repair, Pattern::Softmax, &["kernel_exception"]).unwrap();
    let ids: Vec<&str> = p.chunks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["L5.softmax"]);
    assert_eq!(p.unmatched_kinds, ["kernel_exception"]);
    // Unknown kinds are an error naming the kind.
    let e = assemble(&kb, Phase::Repair, Pattern::Softmax, &["ub_misalign"]).unwrap_err();
    assert!(e.to_string().contains("`ub_misalign`"), "{e}");
    // Other phases ignore diagnostics.
    let a = assemble(&kb, Phase::Tuning, Pattern::Softmax, &["ub_misaligned"]).unwrap();
    let b = assemble(&kb, Phase::Tuning, Pattern::Softmax, &[]).unwrap();
    assert_eq!(a, b);
}

// ---- a copy of the knowledge base, for exemplars and broken chunks ----

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dst = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn scratch_kb() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("knowledge");
    copy_dir(&source_root(), &root);
    (dir, root)
}

/// One small op per pattern for test exemplars.
fn exemplar_op(p: Pattern) -> &'static str {
    match p {
        Pattern::Elementwise => "inputs = { x = \"f16[n]\" }\noutputs = { y = \"f16[n]\" }\nreference = \"y = max(x, 0)\"\nshapes = [{ n = 64 }]",
        Pattern::Broadcast => "inputs = { x = \"f16[r, 32]\", b = \"f16[32]\" }\noutputs = { y = \"f16[r, 32]\" }\nreference = \"y = x + b\"\nshapes = [{ r = 3 }]",
        Pattern::Reduction => "inputs = { x = \"f32[r, 32]\" }\noutputs = { y = \"f32[r]\" }\nreference = \"y = sum(x, axis=-1)\"\nshapes = [{ r = 3 }]",
        Pattern::Normalization => "inputs = { x = \"f16[r, 32]\", g = \"f16[32]\" }\noutputs = { y = \"f16[r, 32]\" }\nreference = \"y = x * rsqrt(mean(x * x, axis=-1, keepdims=true) + 1e-6) * g\"\nshapes = [{ r = 3 }]",
        Pattern::Softmax => "inputs = { x = \"f32[r, 32]\" }\noutputs = { y = \"f32[r, 32]\" }\nreference = \"y = exp(x - max(x, axis=-1, keepdims=true)) / sum(exp(x - max(x, axis=-1, keepdims=true)), axis=-1, keepdims=true)\"\nshapes = [{ r = 3 }]",
        Pattern::Fusion => "inputs = { x = \"f16[r, 32]\", b = \"f16[32]\" }\noutputs = { y = \"f16[r, 32]\" }\nreference = \"y = sigmoid(x + b)\"\nshapes = [{ r = 3 }]",
    }
}

/// A skeleton body whose prompt section is as close to `target` tokens as lines allow.
fn skeleton_body(p: Pattern, target: usize) -> String {
    let section = |body: &str| format!("# Exemplar\n{body}\n{}", Exemplar::pointer_line(p));
    let line =
        "- CopyIn: DataCopyPad row; Compute: Cast to float, ReduceSum, Muls, Cast back; CopyOut.";
    let mut body = format!("Skeleton of the {p} exemplar.");
    loop {
        let next = format!("{body}\n{line}");
        if tokens::count(&section(&next)) > target {
            break;
        }
        body = next;
    }
    let mut words = body.clone();
    for w in ["x", "y", "z", "w", "v", "u", "t", "s", "r", "q"] {
        let next = format!("{words} {w}");
        if tokens::count(&section(&next)) > target {
            break;
        }
        words = next;
    }
    words
}

/// Writes a structurally valid exemplar for `p` into `root/L5/<p>/` with a skeleton of
/// `target` tokens in a prompt.
fn write_exemplar(root: &Path, p: Pattern, target: usize) {
    let dir = root.join("L5").join(p.as_str());
    std::fs::create_dir_all(dir.join("entry")).unwrap();
    let body = skeleton_body(p, target);
    std::fs::write(
        dir.join("skeleton.md"),
        format!("+++\nid = \"L5.{p}\"\nlevel = 5\npatterns = [\"{p}\"]\nsummary = \"test exemplar\"\n+++\n{body}\n"),
    )
    .unwrap();
    let spec = format!(
        "[package]\nname = \"ex\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n\
         [package.metadata.agenticcann.ops.ex_{p}]\n{}\n",
        exemplar_op(p)
    );
    std::fs::write(dir.join("spec.toml"), &spec).unwrap();
    let op = Spec::from_manifest_path(&dir.join("spec.toml"))
        .unwrap()
        .unwrap()
        .ops
        .remove(0);
    let kernel = "// test data: not compiled\n";
    let tiling = "// test data: not compiled\n";
    std::fs::write(dir.join("entry/kernel.cpp"), kernel).unwrap();
    std::fs::write(dir.join("entry/tiling.cpp"), tiling).unwrap();
    std::fs::write(
        dir.join("entry/manifest.toml"),
        format!(
            "format = 1\nkey = \"{}\"\nop = \"{}\"\n[files]\n\"kernel.cpp\" = \"{}\"\n\"tiling.cpp\" = \"{}\"\n\
             [tiling]\nfields = [{{ name = \"rows\", type = \"uint32_t\" }}]\n[provenance]\nproposer = \"hand\"\n",
            op.key().to_hex(),
            op.name,
            knowledge::chunk::sha256_hex(kernel.as_bytes()),
            knowledge::chunk::sha256_hex(tiling.as_bytes()),
        ),
    )
    .unwrap();
}

#[test]
fn budgets_hold_with_exemplars_of_the_maximum_size() {
    let (_tmp, root) = scratch_kb();
    for p in Pattern::ALL {
        write_exemplar(&root, p, SKELETON_MAX_TOKENS);
    }
    let kb = KnowledgeBase::load(&root).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kb.exemplars.len(), 6);
    let all = covered(&kb);
    for p in Pattern::ALL {
        let ex = kb.exemplar(p).unwrap();
        let section = knowledge::assemble::assemble(&kb, Phase::Repair, p, &[]).unwrap();
        assert!(
            section.tokens <= SKELETON_MAX_TOKENS && section.tokens >= SKELETON_MAX_TOKENS - 12,
            "{}",
            section.tokens
        );
        for phase in Phase::ALL {
            let diags: Vec<&str> = if phase == Phase::Repair {
                all.clone()
            } else {
                vec![]
            };
            let prompt = assemble(&kb, phase, p, &diags).unwrap();
            assert!(prompt
                .omitted
                .iter()
                .all(|o| o.reason != OmitReason::NotWritten));
            assert_eq!(prompt.worst_case_tokens(), prompt.tokens);
            assert!(
                prompt.tokens <= phase.budget(),
                "{p} {phase}: {} > {}",
                prompt.tokens,
                phase.budget()
            );
            if phase.uses_exemplar() {
                assert!(prompt.text.contains(&ex.skeleton.body));
                assert!(
                    prompt.text.ends_with(&Exemplar::pointer_line(p)),
                    "{}",
                    prompt.text
                );
                assert_eq!(prompt.chunks.last().unwrap().id, format!("L5.{p}"));
            }
        }
        // The full files are readable by id.
        assert_eq!(
            kb.read(&format!("L5.{p}.kernel")),
            Some("// test data: not compiled\n")
        );
        assert!(kb
            .read(&format!("L5.{p}.spec"))
            .unwrap()
            .contains(&format!("ex_{p}")));
        assert!(kb
            .read(&format!("L5.{p}.manifest"))
            .unwrap()
            .starts_with("format = 1"));
        assert_eq!(ex.file("tiling").unwrap().id, format!("L5.{p}.tiling"));
    }
    let report = knowledge::check(
        &kb,
        &StructureOnly,
        CheckOptions {
            require_exemplars: true,
        },
    );
    assert!(report.is_ok(), "{report:#?}");
    assert!(report
        .exemplars
        .iter()
        .all(|(_, s)| matches!(s, ExemplarStatus::Verified(_))));
}

#[test]
fn exemplar_format_violations_are_reported() {
    let (_tmp, root) = scratch_kb();
    // Over the skeleton limit.
    write_exemplar(&root, Pattern::Softmax, SKELETON_MAX_TOKENS + 30);
    // A manifest whose key is not the spec's, and a stray file.
    write_exemplar(&root, Pattern::Reduction, 100);
    let m = root.join("L5/reduction/entry/manifest.toml");
    let text = std::fs::read_to_string(&m).unwrap();
    let key_line = text
        .lines()
        .find(|l| l.starts_with("key"))
        .unwrap()
        .to_string();
    std::fs::write(
        &m,
        text.replace(&key_line, &format!("key = \"{}\"", "0".repeat(64))),
    )
    .unwrap();
    std::fs::write(root.join("L5/reduction/notes.txt"), "x").unwrap();
    // A spec that routes elsewhere.
    write_exemplar(&root, Pattern::Broadcast, 100);
    std::fs::write(
        root.join("L5/broadcast/spec.toml"),
        format!(
            "[package]\nname = \"ex\"\nversion = \"0.1.0\"\n[package.metadata.agenticcann]\nsoc = \"Ascend910B1\"\n\
             [package.metadata.agenticcann.ops.ex]\n{}\n",
            exemplar_op(Pattern::Elementwise)
        ),
    )
    .unwrap();
    let e = KnowledgeBase::load(&root).unwrap_err();
    let text = e.to_string();
    for needle in [
        "L5/softmax/skeleton.md: ",
        "over the 200-token limit",
        "L5/reduction/entry/manifest.toml: key:",
        "L5/reduction/notes.txt: unexpected file",
        "L5/broadcast/spec.toml: op `ex` routes to `elementwise`, not `broadcast`",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
}

#[test]
fn broken_chunks_are_reported_with_their_files() {
    let (_tmp, root) = scratch_kb();
    let write = |rel: &str, text: &str| std::fs::write(root.join(rel), text).unwrap();
    write(
        "L2/oops.md",
        "+++\nid = \"L2.oops\"\nlevel = 2\npatterns = [\"*\"]\nerror_kinds = [\"no_such_kind\"]\nsummary = \"s\"\n+++\nbody\n",
    );
    write("L3/misplaced.md", "+++\nid = \"L3.misplaced\"\nlevel = 4\npatterns = [\"softmax\"]\nsummary = \"s\"\n+++\nbody\n");
    write("L4/notes.txt", "stray");
    write("stray.md", "stray");
    std::fs::remove_file(root.join("L3/fusion.md")).unwrap();
    let e = KnowledgeBase::load(&root).unwrap_err();
    let text = e.to_string();
    for needle in [
        "L2/oops.md: error_kinds: unknown kind `no_such_kind`",
        "L3/misplaced.md: level: L4 but the file is in the L3 folder",
        "L4/notes.txt: unexpected file",
        "stray.md: unexpected entry",
        "L3: no L3 chunk for pattern `fusion`",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    // patterns.toml must define every pattern.
    let (_tmp2, root2) = scratch_kb();
    let p = root2.join("patterns.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let cut = text.find("[elementwise]").unwrap();
    std::fs::write(&p, &text[..cut]).unwrap();
    let e = KnowledgeBase::load(&root2).unwrap_err();
    assert!(
        e.to_string()
            .contains("patterns.toml: no table for pattern `elementwise`"),
        "{e}"
    );
    // A missing root.
    let e = KnowledgeBase::load(Path::new("/nonexistent/knowledge")).unwrap_err();
    assert!(e.to_string().contains("is not a folder"), "{e}");
}

/// The repair phase accepts every kind the registry holds (simulator, compiler classifier,
/// policy, judge) for every pattern: a real failure never makes assembling fail, whether or
/// not an L2 rule names it (a kind without one is recorded as unmatched).
#[test]
fn repair_accepts_every_registered_kind() {
    let kb = kb();
    for p in Pattern::ALL {
        for k in kinds::ALL {
            assemble(&kb, Phase::Repair, p, &[k.name])
                .unwrap_or_else(|e| panic!("repair for {p} on `{}`: {e}", k.name));
        }
    }
    // The policy's most common rejections route to a rule.
    for kind in ["raw_gm_access", "raw_pointer", "bulk_memory"] {
        let prompt = assemble(&kb, Phase::Repair, Pattern::Elementwise, &[kind]).unwrap();
        assert!(
            prompt.chunks.iter().any(|c| c.id.starts_with("L2.")),
            "no L2 rule for {kind}"
        );
    }
}
