//! One small bad kernel per diagnostic kind (`tests/bad_kernels.cpp`): the file is built with
//! the plain compiler line against this crate's `libascendc_sim.a`, every kernel runs, and
//! each must produce its diagnostic kind at the line marked `// expect: <kind>` — and the
//! FC-08 kernel (unaligned GM address for DataCopyPad) must produce none.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod support;

use support::diags;

/// Builds tests/bad_kernels.cpp once; returns the program.
fn program() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| support::build("bad_kernels.cpp", "bad_kernels", &["-Wall", "-Werror"]))
}

/// (case, kind, line) from the markers of tests/bad_kernels.cpp.
fn expectations() -> Vec<(String, String, u64)> {
    support::expectations("bad_kernels.cpp")
}

/// Runs every bad kernel on `threads` host threads; returns the program's output.
fn run(threads: &str) -> String {
    let run = Command::new(program())
        .env("AGENTICCANN_SIM_THREADS", threads)
        .output()
        .expect("running bad_kernels");
    assert!(
        run.status.success(),
        "bad_kernels exited with {:?}",
        run.status
    );
    String::from_utf8(run.stdout).expect("utf-8 output")
}

/// Runs the bad kernels once; returns (case name -> LaunchResult JSON).
fn results() -> &'static HashMap<String, Value> {
    static RESULTS: OnceLock<HashMap<String, Value>> = OnceLock::new();
    RESULTS.get_or_init(|| {
        run("2")
            .lines()
            .map(|l| {
                let v: Value =
                    serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}"));
                (v["name"].as_str().unwrap().to_string(), v["result"].clone())
            })
            .collect()
    })
}

#[test]
fn every_marked_kernel_reports_its_kind_at_its_line() {
    let res = results();
    let exp = expectations();
    assert!(
        exp.len() >= 25,
        "expected a marker per kind, found {}",
        exp.len()
    );
    for (case, kind, line) in exp {
        let r = res
            .get(&case)
            .unwrap_or_else(|| panic!("case {case} did not run"));
        let d = diags(r)
            .iter()
            .find(|d| d["kind"] == kind.as_str())
            .unwrap_or_else(|| panic!("{case}: no `{kind}` diagnostic in {r}"));
        assert_eq!(
            d["line"].as_u64(),
            Some(line),
            "{case}: `{kind}` points to the wrong line: {d}"
        );
        assert!(
            d["file"].as_str().unwrap().ends_with("bad_kernels.cpp"),
            "{case}: file {}",
            d["file"]
        );
        let core = if case == "gm_write_race" { 1 } else { 0 };
        assert_eq!(d["core"].as_i64(), Some(core), "{case}: core");
        let error = d["severity"] == "error";
        assert_eq!(
            r["failed"].as_bool(),
            Some(error),
            "{case}: failed flag vs severity"
        );
        assert!(!d["message"].as_str().unwrap().is_empty());
        if error {
            assert!(
                r["report"].is_null(),
                "{case}: a failed launch has no report"
            );
        }
    }
}

#[test]
fn results_do_not_depend_on_the_host_thread_count() {
    assert_eq!(
        run("1"),
        run("2"),
        "diagnostics and reports differ between 1 and 2 host threads"
    );
}

#[test]
fn warnings_do_not_stop_the_kernel() {
    let res = results();
    for case in [
        "datacopy_truncated",
        "compare_count_truncated",
        "mask_invalid",
    ] {
        let r = &res[case];
        assert_eq!(r["failed"], false, "{case}: {r}");
        assert!(r["report"].is_object(), "{case}: report present");
        assert_eq!(diags(r)[0]["severity"], "warning");
    }
    let d = &diags(&res["datacopy_truncated"])[0];
    assert_eq!(d["numbers"]["bytes"], 34);
    assert_eq!(d["numbers"]["copied_bytes"], 32);
}

#[test]
fn launch_level_errors() {
    let res = results();
    let r = &res["block_dim_invalid"];
    assert_eq!(r["failed"], true);
    assert_eq!(diags(r)[0]["kind"], "block_dim_invalid");
    let r = &res["kernel_exception"];
    assert_eq!(r["failed"], true);
    let d = &diags(r)[0];
    assert_eq!(d["kind"], "kernel_exception");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("tiling table missing"));
    // Three cores threw; the identical diagnostics are merged with a core count.
    assert_eq!(d["numbers"]["cores"], 3);
    assert_eq!(diags(r).len(), 1);
}

#[test]
fn unaligned_gm_address_for_datacopypad_is_legal_fc08() {
    let r = &results()["fc08_unaligned_gm_ok"];
    assert_eq!(r["failed"], false, "{r}");
    assert!(
        diags(r).is_empty(),
        "FC-08 must not produce a diagnostic: {r}"
    );
    assert!(r["report"]["total_us"].as_f64().unwrap() > 0.0);
}

#[test]
fn pad_lanes_reach_the_result_fc04() {
    let r = &results()["fc04_pad_lanes"];
    let d = &diags(r)[0];
    assert_eq!(d["kind"], "ub_uninitialized_read");
    assert_eq!(d["api"], "LocalTensor::GetValue");
}

#[test]
fn pipe_reset_after_every_tensor_is_freed_is_clean() {
    let r = &results()["pipe_reset_after_free_ok"];
    assert_eq!(r["failed"], false, "{r}");
    assert!(diags(r).is_empty(), "a clean Reset reported: {r}");
}

#[test]
fn aliasing_pipes_warn_then_an_overlapping_copy_fails() {
    let r = &results()["ub_overlap_in_flight"];
    let kinds: Vec<&str> = diags(r)
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["pipe_ub_alias", "ub_overlap_in_flight"], "{r}");
    let d = &diags(r)[1];
    assert_eq!(d["numbers"]["begin"], 0.0);
    assert_eq!(d["numbers"]["other_end"], 512.0);
    let r = &results()["pipe_reset_live_tensors"];
    assert_eq!(diags(r)[0]["numbers"]["enqueued"], 1.0, "{r}");
}

/// An unsynchronized access names the other instruction's line (the write or read it races
/// with): the line before each marker in these three kernels. The call site is kept with
/// each UB block's last access, not in a list that grows with every instruction issued.
#[test]
fn unsynchronized_accesses_name_the_other_instructions_line() {
    let res = results();
    let exp = expectations();
    for (case, verb) in [
        ("ub_unsynchronized_access", "wrote at"),
        ("ub_unsynchronized_war", "reads at"),
        ("ub_unsynchronized_out", "wrote at"),
    ] {
        let (_, _, line) = exp
            .iter()
            .find(|(c, _, _)| c == case)
            .unwrap_or_else(|| panic!("no marker for {case}"));
        let d = diags(&res[case])
            .iter()
            .find(|d| d["kind"] == "ub_unsynchronized_access")
            .unwrap_or_else(|| panic!("{case}: no diagnostic"));
        let msg = d["message"].as_str().unwrap();
        let other = format!("bad_kernels.cpp:{}", line - 1);
        assert!(
            msg.contains(verb) && msg.contains(&other),
            "{case}: `{verb} …{other}` not in: {msg}"
        );
    }
}
