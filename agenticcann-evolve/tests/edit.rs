//! Applying a model's answer to a parent candidate: whole files and SEARCH/REPLACE diffs,
//! on the offline proposer's candidate for an example op.

use std::path::Path;

use agenticcann_build::judge::Candidate;
use agenticcann_build::spec::{OpSpec, Spec};
use agenticcann_build::store::FieldType;
use agenticcann_build::synth::{propose, SynthOptions};
use agenticcann_evolve::knowledge::tokens;
use agenticcann_evolve::search::edit::{apply, format_instructions, EditError, EditFormat};
use proptest::prelude::*;

fn op() -> OpSpec {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../example-project/Cargo.toml");
    let spec = Spec::from_manifest_path(&manifest).unwrap().unwrap();
    spec.ops
        .into_iter()
        .find(|o| propose(o, &SynthOptions::default()).is_ok())
        .expect("an example op the offline proposer lowers")
}

fn parent(op: &OpSpec) -> Candidate {
    propose(op, &SynthOptions::default()).unwrap()
}

/// The first line of `text` that occurs exactly once and is not blank.
fn unique_line(text: &str) -> &str {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .find(|l| !l.trim().is_empty() && lines.iter().filter(|m| m == l).count() == 1)
        .copied()
        .expect("a unique line")
}

/// A line that occurs at least twice.
fn repeated_line(text: &str) -> &str {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .find(|l| !l.trim().is_empty() && lines.iter().filter(|m| m == l).count() >= 2)
        .copied()
        .expect("a repeated line")
}

/// `text` with its one line `old` replaced by `new` (whole lines).
fn with_line(text: &str, old: &str, new: &str) -> String {
    let mut out: String = text
        .lines()
        .map(|l| {
            if l == old {
                new.to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn block(file: &str, search: &str, replace: &str) -> String {
    format!("{file}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

#[test]
fn edit_formats_parse_and_print() {
    for f in [EditFormat::Whole, EditFormat::Diff] {
        assert_eq!(f.to_string().parse::<EditFormat>().unwrap(), f);
    }
    assert_eq!("whole".parse::<EditFormat>().unwrap(), EditFormat::Whole);
    assert_eq!(
        serde_json::to_string(&EditFormat::Diff).unwrap(),
        "\"diff\""
    );
    let e = "patch".parse::<EditFormat>().unwrap_err();
    assert!(
        e.to_string().contains("`patch`") && e.to_string().contains("whole"),
        "{e}"
    );
}

#[test]
fn the_instructions_are_short_and_name_the_files() {
    for f in [EditFormat::Whole, EditFormat::Diff] {
        let text = format_instructions(f);
        let n = tokens::count(text);
        assert!(n < 120, "{f}: {n} tokens");
        for file in ["kernel.cpp", "tiling.cpp", "tiling_fields.txt"] {
            assert!(text.contains(file), "{f}: {text}");
        }
    }
    assert!(format_instructions(EditFormat::Diff).contains("<<<<<<< SEARCH"));
}

#[test]
fn whole_files_replace_what_they_name_and_keep_the_rest() {
    let op = op();
    let p = parent(&op);
    let kernel = "// new kernel\nint k;\n";
    let tiling = "// new tiling\nint t;\n";
    let both = format!(
        "Here is the improved version.\n\n```cpp kernel.cpp\n{kernel}```\n\nand\n\n```cpp tiling.cpp\n{tiling}```\n"
    );
    let c = apply(EditFormat::Whole, &p, &both, &op).unwrap();
    assert_eq!((c.kernel.as_str(), c.tiling.as_str()), (kernel, tiling));
    assert_eq!(c.tiling_fields, p.tiling_fields);
    // One file, labelled on the line above the fence (several spellings).
    for label in [
        "kernel.cpp",
        "// kernel.cpp",
        "**kernel.cpp**",
        "`kernel.cpp`:",
        "Here is the updated `kernel.cpp`:",
    ] {
        let one = format!("{label}\n```cpp\n{kernel}```\n");
        let c = apply(EditFormat::Whole, &p, &one, &op).unwrap();
        assert_eq!(c.kernel, kernel, "{label}");
        assert_eq!(c.tiling, p.tiling, "{label}");
    }
    // Labelled by a comment on the block's first line (kept), or by a path.
    let c = apply(
        EditFormat::Whole,
        &p,
        &format!("```cpp\n// kernel.cpp\n{kernel}```\n"),
        &op,
    )
    .unwrap();
    assert_eq!(c.kernel, format!("// kernel.cpp\n{kernel}"));
    let c = apply(
        EditFormat::Whole,
        &p,
        &format!("```cpp ./tiling.cpp\n{tiling}```\n"),
        &op,
    )
    .unwrap();
    assert_eq!(c.tiling, tiling);
    // Labelled by the fence's language word; an unlabelled block is ignored.
    let c = apply(
        EditFormat::Whole,
        &p,
        &format!("```\nnot a file\n```\n```tiling.cpp\n{tiling}```\n"),
        &op,
    )
    .unwrap();
    assert_eq!(
        (c.kernel.as_str(), c.tiling.as_str()),
        (p.kernel.as_str(), tiling)
    );
}

#[test]
fn whole_fields_are_parsed_and_checked() {
    let op = op();
    let p = parent(&op);
    let ans = "```text tiling_fields.txt\nuint32_t total\nfloat scale\n```\n";
    let c = apply(EditFormat::Whole, &p, ans, &op).unwrap();
    let f: Vec<_> = c
        .tiling_fields
        .iter()
        .map(|f| (f.name.as_str(), f.ty))
        .collect();
    assert_eq!(f, [("total", FieldType::U32), ("scale", FieldType::F32)]);
    assert_eq!(
        (c.kernel.as_str(), c.tiling.as_str()),
        (p.kernel.as_str(), p.tiling.as_str())
    );
    let bad = "```text tiling_fields.txt\nuint16_t total\n```\n";
    let e = apply(EditFormat::Whole, &p, bad, &op).unwrap_err();
    assert!(
        matches!(&e, EditError::Fields(m) if m.contains("uint16_t")),
        "{e:?}"
    );
}

#[test]
fn whole_answers_without_usable_files_are_errors() {
    let op = op();
    let p = parent(&op);
    let e = apply(EditFormat::Whole, &p, "I would tile it differently.", &op).unwrap_err();
    assert_eq!(e, EditError::NoFiles);
    assert!(e.to_string().contains("```cpp kernel.cpp"), "{e}");
    let e = apply(EditFormat::Whole, &p, "```cpp\nint x;\n```\n", &op).unwrap_err();
    assert_eq!(e, EditError::NoFiles);
    let e = apply(EditFormat::Whole, &p, "```cpp kernel.h\nint x;\n```\n", &op).unwrap_err();
    assert!(
        matches!(&e, EditError::UnknownFile { name, line: 1 } if name == "kernel.h"),
        "{e:?}"
    );
    let e = apply(EditFormat::Whole, &p, "```cpp kernel.cpp\nint x;\n", &op).unwrap_err();
    assert!(
        matches!(&e, EditError::Cut { file, .. } if file == "kernel.cpp"),
        "{e:?}"
    );
    let twice = "```cpp kernel.cpp\nint a;\n```\n```cpp kernel.cpp\nint b;\n```\n";
    let e = apply(EditFormat::Whole, &p, twice, &op).unwrap_err();
    assert!(
        matches!(
            e,
            EditError::Duplicate {
                first: 1,
                second: 4,
                ..
            }
        ),
        "{e:?}"
    );
    let e = apply(EditFormat::Whole, &p, "```cpp kernel.cpp\n\n```\n", &op).unwrap_err();
    assert!(matches!(e, EditError::Empty { .. }), "{e:?}");
}

#[test]
fn crlf_answers_apply_as_lf() {
    let op = op();
    let p = parent(&op);
    let ans = "```cpp kernel.cpp\r\nint k;\r\nint j;\r\n```\r\n";
    let c = apply(EditFormat::Whole, &p, ans, &op).unwrap();
    assert_eq!(c.kernel, "int k;\nint j;\n");
    let line = unique_line(&p.kernel);
    let ans = block("kernel.cpp", line, "  // replaced").replace('\n', "\r\n");
    let c = apply(EditFormat::Diff, &p, &ans, &op).unwrap();
    assert_eq!(c.kernel, with_line(&p.kernel, line, "  // replaced"));
}

#[test]
fn diffs_apply_in_order_to_each_file() {
    let op = op();
    let p = parent(&op);
    let k1 = unique_line(&p.kernel);
    let t1 = unique_line(&p.tiling);
    let first_field = format!(
        "{} {}",
        p.tiling_fields[0].ty.c_name(),
        p.tiling_fields[0].name
    );
    let ans = format!(
        "I change the kernel and the tiling.\n\n```cpp\n{}{}```\n{}{}",
        block("kernel.cpp", k1, "  // step 1"),
        block("kernel.cpp", "  // step 1", "  // step 2\n  // step 2b"),
        block("tiling.cpp", t1, "// tiling changed"),
        block(
            "tiling_fields.txt",
            &first_field,
            &format!("{first_field}\nuint32_t extra_field")
        ),
    );
    let c = apply(EditFormat::Diff, &p, &ans, &op).unwrap();
    assert_eq!(
        c.kernel,
        with_line(&p.kernel, k1, "  // step 2\n  // step 2b")
    );
    assert_eq!(c.tiling, with_line(&p.tiling, t1, "// tiling changed"));
    assert_eq!(c.tiling_fields.len(), p.tiling_fields.len() + 1);
    assert_eq!(c.tiling_fields[1].name, "extra_field");
    // The file named on the fence's info string.
    let ans =
        format!("```cpp kernel.cpp\n<<<<<<< SEARCH\n{k1}\n=======\n// x\n>>>>>>> REPLACE\n```\n");
    let c = apply(EditFormat::Diff, &p, &ans, &op).unwrap();
    assert_eq!(c.kernel, with_line(&p.kernel, k1, "// x"));
    assert_eq!(c.tiling, p.tiling);
}

#[test]
fn trailing_whitespace_is_tolerated_and_nothing_else() {
    let op = op();
    let p = parent(&op);
    let line = unique_line(&p.kernel);
    let c = apply(
        EditFormat::Diff,
        &p,
        &block("kernel.cpp", &format!("{line}  \t"), "// new"),
        &op,
    )
    .unwrap();
    assert_eq!(c.kernel, with_line(&p.kernel, line, "// new"));
    // Different indentation is not the same line.
    let e = apply(
        EditFormat::Diff,
        &p,
        &block("kernel.cpp", &format!("  {line}"), "// new"),
        &op,
    )
    .unwrap_err();
    assert!(matches!(e, EditError::DiffNotApplied { .. }), "{e:?}");
}

#[test]
fn a_search_text_must_occur_exactly_once() {
    let op = op();
    let p = parent(&op);
    let ok = block("kernel.cpp", unique_line(&p.kernel), "// fine");
    let twice = block("kernel.cpp", repeated_line(&p.kernel), "// which one?");
    let e = apply(EditFormat::Diff, &p, &format!("{ok}{twice}"), &op).unwrap_err();
    match &e {
        EditError::DiffNotApplied {
            file,
            block,
            reason,
        } => {
            assert_eq!((file.as_str(), *block), ("kernel.cpp", 2));
            assert!(
                reason.contains("times") && reason.contains("unique"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("block 2 (kernel.cpp)"), "{e}");
    let missing = block("tiling.cpp", "this line is nowhere", "// x");
    let e = apply(EditFormat::Diff, &p, &missing, &op).unwrap_err();
    assert!(
        matches!(&e, EditError::DiffNotApplied { file, block: 1, reason } if file == "tiling.cpp" && reason.contains("do not occur")),
        "{e:?}"
    );
    // A diff that deletes the whole file.
    let all = p.kernel.trim_end_matches('\n');
    let e = apply(EditFormat::Diff, &p, &block("kernel.cpp", all, ""), &op).unwrap_err();
    assert!(
        matches!(&e, EditError::Empty { file } if file == "kernel.cpp"),
        "{e:?}"
    );
    let empty = "kernel.cpp\n<<<<<<< SEARCH\n=======\n// x\n>>>>>>> REPLACE\n";
    let e = apply(EditFormat::Diff, &p, empty, &op).unwrap_err();
    assert!(
        matches!(&e, EditError::DiffNotApplied { reason, .. } if reason.contains("empty")),
        "{e:?}"
    );
}

#[test]
fn malformed_markers_are_errors() {
    let op = op();
    let p = parent(&op);
    let line = unique_line(&p.kernel);
    let cases = [
        // No file named before the block.
        (
            format!("<<<<<<< SEARCH\n{line}\n=======\nx\n>>>>>>> REPLACE\n"),
            1,
            "names no file",
        ),
        // No closing marker.
        (
            format!("kernel.cpp\n<<<<<<< SEARCH\n{line}\n=======\nx\n"),
            2,
            "no `>>>>>>> REPLACE`",
        ),
        // REPLACE before the divider.
        (
            format!("kernel.cpp\n<<<<<<< SEARCH\n{line}\n>>>>>>> REPLACE\n"),
            4,
            "before `=======`",
        ),
        // A second SEARCH inside the replacement.
        (
            format!("kernel.cpp\n<<<<<<< SEARCH\n{line}\n=======\n<<<<<<< SEARCH\n"),
            5,
            "before `>>>>>>> REPLACE`",
        ),
        // A stray closing marker.
        (
            "kernel.cpp\n>>>>>>> REPLACE\n".to_string(),
            2,
            "outside a block",
        ),
    ];
    for (ans, want_line, what) in cases {
        match apply(EditFormat::Diff, &p, &ans, &op) {
            Err(EditError::Malformed { line, reason }) => {
                assert_eq!(line, want_line, "{ans}");
                assert!(reason.contains(what), "{reason}");
            }
            other => panic!("{ans}: {other:?}"),
        }
    }
    // A diff answer with no block at all.
    let e = apply(
        EditFormat::Diff,
        &p,
        "```cpp kernel.cpp\nint x;\n```\n",
        &op,
    )
    .unwrap_err();
    assert_eq!(e, EditError::NoFiles);
    // A block for a file a candidate does not have.
    let e = apply(
        EditFormat::Diff,
        &p,
        &block("agenticcann_tiling.h", "a", "b"),
        &op,
    )
    .unwrap_err();
    assert!(matches!(e, EditError::UnknownFile { line: 1, .. }), "{e:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A diff made from (parent, child), where the child replaces a unique line (with
    /// `before`/`after` lines of context) by new lines, gives the child.
    #[test]
    fn a_diff_made_from_parent_and_child_gives_the_child(
        pick in any::<prop::sample::Index>(),
        context in 0usize..3,
        new_lines in prop::collection::vec("[ -~&&[^<=>]]{0,40}", 0..4),
    ) {
        let op = op();
        let p = parent(&op);
        let lines: Vec<&str> = p.kernel.lines().collect();
        let unique: Vec<usize> = (0..lines.len())
            .filter(|&i| !lines[i].trim().is_empty() && lines.iter().filter(|l| **l == lines[i]).count() == 1)
            .collect();
        let at = unique[pick.index(unique.len())];
        let from = at.saturating_sub(context);
        let to = (at + context + 1).min(lines.len());
        let mut child_lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let replacement: Vec<String> = lines[from..at]
            .iter()
            .map(|l| l.to_string())
            .chain(new_lines.iter().cloned())
            .chain(lines[at + 1..to].iter().map(|l| l.to_string()))
            .collect();
        child_lines.splice(from..to, replacement.clone());
        let mut child = child_lines.join("\n");
        if p.kernel.ends_with('\n') {
            child.push('\n');
        }
        let search = lines[from..to].join("\n");
        let ans = format!(
            "kernel.cpp\n<<<<<<< SEARCH\n{search}\n=======\n{}>>>>>>> REPLACE\n",
            replacement.iter().map(|l| format!("{l}\n")).collect::<String>()
        );
        let c = apply(EditFormat::Diff, &p, &ans, &op).unwrap();
        prop_assert_eq!(c.kernel, child);
        prop_assert_eq!(c.tiling, p.tiling);
        prop_assert_eq!(c.tiling_fields, p.tiling_fields);
    }

    /// Any answer gives a candidate or an error, never a panic.
    #[test]
    fn any_answer_is_a_candidate_or_an_error(
        answer in r"(```[a-z]{0,4}( kernel\.cpp| tiling\.cpp| tiling_fields\.txt| x\.h)?\r?\n|<<<<<<< SEARCH\n|=======\n|>>>>>>> REPLACE\n|kernel\.cpp\n|File: é\n|[ -~é]{0,30}\r?\n){0,12}",
        diff in any::<bool>(),
    ) {
        let op = op();
        let p = parent(&op);
        let format = if diff { EditFormat::Diff } else { EditFormat::Whole };
        let _ = apply(format, &p, &answer, &op);
    }
}
