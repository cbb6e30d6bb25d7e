//! Loop overhead per candidate (issue 16's benchmark; not a timed test).
//!
//! Records a three-generation search of the fp16 add with an in-process scripted model (the
//! agent's submit, a mutation, tuning and repair answers, the offline seed and the tiling
//! search), then replays the recording end to end twice (`llm::open_replay`, no model
//! latency) and reports, per replay:
//!
//! - wall time, judge time (every evaluation and the agent's tool calls, `SearchRun::
//!   judge_seconds`) and model time (`model_seconds`: for a replay, reading the recording);
//! - the loop overhead: wall − judge − model, i.e. prompt assembly, skeleton extraction,
//!   diff application, population bookkeeping, the run folder's records, per candidate;
//! - overhead as a share of the judge's time per candidate. The target is below 5 %: the
//!   program exits 1 when a replay is above it.
//!
//! Judging runs one candidate at a time (`jobs = 1`), so judge time is wall time spent
//! judging and the subtraction is meaningful.
//!
//! Run: `cargo bench -p agenticcann-evolve --bench loop_overhead`.

#[path = "../tests/agent_support/mod.rs"]
mod agent_support;

use std::path::{Path, PathBuf};

use agent_support::{args, call, good, op, text, Scripted};
use agenticcann_evolve::knowledge::KnowledgeBase;
use agenticcann_evolve::llm::{open_replay, with_protocol, Recorder, ToolProtocol};
use agenticcann_evolve::search::{run_search, AgentMode, SearchConfig, SearchRun};

const TARGET: f64 = 0.05;

fn files_answer((k, t, f): &(String, String, String)) -> String {
    format!(
        "```cpp kernel.cpp\n{k}```\n\n```cpp tiling.cpp\n{t}```\n\n```text tiling_fields.txt\n{f}```\n"
    )
}

/// The honest kernel with more cores on small inputs (faster on n=4096).
fn more_cores() -> (String, String, String) {
    let (k, t, f) = good();
    (
        k,
        t.replace("(total + 2047) / 2048", "(total + 511) / 512"),
        f,
    )
}

fn config(run_dir: &Path) -> SearchConfig {
    let mut agent = agent_support::config();
    agent.eval.jobs = 1;
    let mut c = SearchConfig::new(agent, run_dir);
    c.mode = AgentMode::Adaptive;
    c.generations = 3;
    c.population = 1;
    c.repairs = 1;
    c.jobs = 1;
    c.tiling_limit = 4;
    c
}

fn fresh(dir: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    dir.to_path_buf()
}

fn report(what: &str, run: &SearchRun) -> f64 {
    let n = run.population.next_id().saturating_sub(1).max(1) as f64;
    let overhead = (run.seconds - run.judge_seconds - run.model_seconds).max(0.0);
    let share = overhead / run.judge_seconds.max(1e-9);
    println!(
        "{what:<9} candidates {n:>3}  wall {:>7.2} s  judge {:>7.2} s ({:>6.3} s/candidate)  model {:>6.3} s  \
         loop overhead {:>7.1} ms/candidate = {:>5.2}% of the judge's time",
        run.seconds,
        run.judge_seconds,
        run.judge_seconds / n,
        run.model_seconds,
        1000.0 * overhead / n,
        100.0 * share
    );
    share
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-loop-overhead");
    let kb = KnowledgeBase::embedded().expect("the embedded knowledge base");
    let op = op();

    // The recording.
    let a = fresh(&root.join("a"));
    let script = Scripted::new(vec![
        call("submit", &args(&good()).to_string(), 1000, 200),
        text(&files_answer(&more_cores()), 3000, 700),
        text("no files in this answer", 400, 50),
    ]);
    let recorder = Recorder::new(script, a.join("llm")).expect("the recorder");
    let model = with_protocol(recorder, ToolProtocol::Native);
    let recorded = run_search(&op, &kb, Some(&model), &config(&a), &mut |_| {}).expect("record");
    assert!(
        recorded.best().is_some(),
        "the recorded run accepted a kernel"
    );
    report("recorded", &recorded);

    let mut worst: f64 = 0.0;
    for i in 1..=2 {
        let b = fresh(&root.join(format!("replay{i}")));
        let model = open_replay(&a.join("llm"), ToolProtocol::Native).expect("the recording");
        let run = run_search(&op, &kb, Some(&*model), &config(&b), &mut |_| {}).expect("replay");
        assert_eq!(
            run.population.next_id(),
            recorded.population.next_id(),
            "the replay judged the recorded run's candidates"
        );
        worst = worst.max(report(&format!("replay {i}"), &run));
    }
    println!(
        "target: loop overhead below {:.0}% of the judge's time per candidate: {}",
        100.0 * TARGET,
        if worst < TARGET { "met" } else { "NOT met" }
    );
    if worst >= TARGET {
        std::process::exit(1);
    }
}
