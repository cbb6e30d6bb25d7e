//! The evolution loop end to end with part 1's scripted OpenAI-compatible server on
//! 127.0.0.1 and the real client: generations, repair, the drift guard by mode, token
//! accounting, and the run folder's record.

mod agent_support;

use agent_support::*;
use agenticcann_evolve::knowledge::{route, KnowledgeBase, Level};
use agenticcann_evolve::llm::client::{ClientOptions, LlmClient};
use agenticcann_evolve::llm::protocol::with_protocol;
use agenticcann_evolve::llm::testing::{ScriptedServer, Step};
use agenticcann_evolve::llm::ToolProtocol;
use agenticcann_evolve::search::population::CandidateLine;
use agenticcann_evolve::search::{run_search, AgentMode, SearchConfig, SearchRun};

fn client(server: &ScriptedServer) -> LlmClient {
    LlmClient::new(&server.base_url(), None, ClientOptions::default()).unwrap()
}

fn run_dir(name: &str) -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("search")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A search config without the token-free parts, so every candidate is the model's.
fn config(name: &str, mode: AgentMode, generations: u32) -> SearchConfig {
    let mut c = SearchConfig::new(agent_support::config(), run_dir(name));
    c.mode = mode;
    c.generations = generations;
    c.population = 1;
    c.repairs = 1;
    c.offline_seed = false;
    c.tiling_search = false;
    c.tuning = false;
    c.jobs = 2;
    c
}

/// The honest kernel with more cores on small inputs (512 elements per core at least
/// instead of 2048): faster on n=4096, the same elsewhere.
fn more_cores() -> (String, String, String) {
    let (k, t, f) = good();
    let t2 = t.replace("(total + 2047) / 2048", "(total + 511) / 512");
    assert_ne!(t, t2, "the change must be made");
    (k, t2, f)
}

/// The honest kernel single-buffered: correct, but its queues' depth (the pipeline
/// skeleton) changed.
fn single_buffered() -> (String, String, String) {
    let (k, t, f) = good();
    let k2 = k.replace(
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 1;",
    );
    assert_ne!(k, k2, "the change must be made");
    (k2, t, f)
}

/// An answer holding the files as fenced blocks labelled with their names.
fn files_answer((k, t, f): &(String, String, String)) -> String {
    format!(
        "Here is the faster kernel.\n\n```cpp kernel.cpp\n{k}```\n\n```cpp tiling.cpp\n{t}```\n\n```text tiling_fields.txt\n{f}```\n"
    )
}

fn search(server: &ScriptedServer, cfg: &SearchConfig) -> (SearchRun, Vec<CandidateLine>) {
    let kb = KnowledgeBase::embedded().unwrap();
    let model = with_protocol(client(server), ToolProtocol::Native);
    let mut events = Vec::new();
    let run = run_search(&op(), &kb, Some(&model), cfg, &mut |e| {
        events.push(serde_json::to_string(&e).unwrap())
    })
    .unwrap();
    let text = std::fs::read_to_string(cfg.run_dir.join("add_f16/candidates.jsonl")).unwrap();
    let lines: Vec<CandidateLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.contains("\"candidate\""))
            .count(),
        lines.len(),
        "one event per recorded candidate"
    );
    (run, lines)
}

#[test]
fn two_generations_improve_the_agents_seed_and_tokens_are_the_servers_sums() {
    let cfg = config("improve", AgentMode::Adaptive, 2);
    let server = ScriptedServer::start(vec![
        Step::call("submit", args(&good()), 1000, 200),
        Step::text(&files_answer(&more_cores()), 3000, 800),
    ])
    .unwrap();
    let (run, lines) = search(&server, &cfg);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!((lines[0].phase.as_str(), lines[0].generation), ("init", 1));
    assert_eq!(
        (
            lines[1].phase.as_str(),
            lines[1].generation,
            lines[1].parent
        ),
        ("mutation", 2, Some(1))
    );
    let (seed, child) = (lines[0].fitness.unwrap(), lines[1].fitness.unwrap());
    assert!(
        child < seed,
        "the child ({child} us) beats its parent ({seed} us)"
    );
    assert_eq!(run.best().unwrap().line.id, 2);
    assert_eq!(run.first_feasible, Some(1));
    // Tokens: exact sums of what the server reported, by phase.
    assert_eq!(run.usage.prompt, server.usage_sent().prompt);
    assert_eq!(run.usage.completion, server.usage_sent().completion);
    assert_eq!(run.tokens_by_phase["init"].total(), 1200);
    assert_eq!(run.tokens_by_phase["mutation"].total(), 3800);
    assert_eq!(lines[1].tokens.prompt + lines[1].tokens.completion, 3800);
    // The mutation prompt: the parent, its profile, the mutation knowledge, no tools.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let m = reqs[1].json();
    assert!(m
        .get("tools")
        .is_none_or(|t| t.as_array().is_none_or(Vec::is_empty)));
    let user = m["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("# Parent kernel"), "{user}");
    assert!(user.contains("# Knowledge (phase mutation)"), "{user}");
    assert!(user.contains("bound "), "the profile summary: {user}");
    assert!(user.contains("pipes busy"), "{user}");
    assert!(
        user.contains("tile_length = 4096"),
        "the parent's own files: {user}"
    );
    // The generations' record.
    assert_eq!(run.generations.len(), 2);
    assert_eq!(run.generations[1].best_id, Some(2));
}

#[test]
fn a_faulty_child_is_repaired_with_the_l2_rule_for_its_kind_in_the_prompt() {
    let cfg = config("repair", AgentMode::Adaptive, 2);
    let server = ScriptedServer::start(vec![
        Step::call("submit", args(&good()), 100, 10),
        Step::text(&files_answer(&ub_overflow()), 100, 10),
        Step::text(&files_answer(&more_cores()), 100, 10),
    ])
    .unwrap();
    let (run, lines) = search(&server, &cfg);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    let faulty = &lines[1];
    assert_eq!(faulty.phase, "mutation");
    assert!(!faulty.accepted && faulty.fitness.is_none(), "{faulty:#?}");
    assert!(!faulty.kinds.is_empty(), "{faulty:#?}");
    let fixed = &lines[2];
    assert_eq!((fixed.phase.as_str(), fixed.parent), ("repair", Some(2)));
    assert!(fixed.accepted, "{fixed:#?}");
    assert_eq!(run.best().unwrap().line.id, 3);
    // The repair prompt carries the child's diagnostics and the L2 rule for its kind.
    let kb = KnowledgeBase::embedded().unwrap();
    let kind = &faulty.kinds[0];
    let rule = kb
        .chunks
        .iter()
        .find(|c| c.level == Level::L2 && c.prevents(kind))
        .unwrap_or_else(|| panic!("an L2 chunk for {kind}"));
    let reqs = server.requests();
    let user = reqs[2].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.contains("# Knowledge (phase repair)"), "{user}");
    assert!(
        user.contains(rule.body.trim()),
        "the L2 rule {} in: {user}",
        rule.id
    );
    assert!(user.contains(kind.as_str()), "{user}");
    assert!(
        user.contains("tile_length = 40000"),
        "the faulty child's own files: {user}"
    );
    assert!(route(&op()) == run.pattern);
    assert_eq!(run.tokens_by_phase["repair"].total(), 110);
}

#[test]
fn a_drifting_child_is_rejected_unjudged_in_fixloop_mode() {
    let mut cfg = config("drift-fixloop", AgentMode::Fixloop, 2);
    cfg.repairs = 0;
    let server = ScriptedServer::start(vec![
        Step::text(&files_answer(&good()), 100, 10),
        Step::text(&files_answer(&single_buffered()), 100, 10),
    ])
    .unwrap();
    let (run, lines) = search(&server, &cfg);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(lines[0].phase, "single");
    assert!(lines[0].accepted, "{:#?}", lines[0]);
    let child = &lines[1];
    assert_eq!(child.verdict, "drift_rejected", "{child:#?}");
    let drift = child.drift.as_ref().unwrap();
    assert!(drift.rejected);
    assert!(
        drift.reasons.iter().any(|r| r.contains("inQueueX")),
        "the reason names the queue: {drift:?}"
    );
    assert!(
        run.population.get(2).unwrap().evaluation.is_none(),
        "never judged"
    );
    assert_eq!((child.compile_s, child.run_s), (0.0, 0.0));
}

#[test]
fn a_drifting_child_is_judged_and_accepted_in_tool_mode() {
    let cfg = config("drift-tool", AgentMode::Tool, 2);
    let server = ScriptedServer::start(vec![
        Step::call("submit", args(&good()), 100, 10),
        Step::call("submit", args(&single_buffered()), 100, 10),
    ])
    .unwrap();
    let (_run, lines) = search(&server, &cfg);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    let child = &lines[1];
    assert_eq!((child.phase.as_str(), child.parent), ("mutation", Some(1)));
    assert!(child.accepted, "{child:#?}");
    let drift = child.drift.as_ref().unwrap();
    assert!(!drift.rejected && !drift.reasons.is_empty(), "{drift:?}");
    // The tool-mode agent got the parent in its task.
    let reqs = server.requests();
    let user = reqs[1].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.contains("# Parent kernel"), "{user}");
}

#[test]
fn guarded_mutation_prompts_go_to_model_written_parents_not_the_offline_seed() {
    let mut cfg = config("model-parents", AgentMode::Adaptive, 2);
    cfg.offline_seed = true;
    cfg.repairs = 0;
    // Generation 1: the agent's kernel, single-buffered (slower than the offline seed).
    // Generation 2: one mutation of it that keeps its skeleton.
    let (k, _, _) = single_buffered();
    let (_, t, f) = more_cores();
    let server = ScriptedServer::start(vec![
        Step::call("submit", args(&single_buffered()), 100, 10),
        Step::text(&files_answer(&(k, t, f)), 100, 10),
    ])
    .unwrap();
    let (run, lines) = search(&server, &cfg);
    let seed = lines
        .iter()
        .find(|l| l.phase == "offline")
        .expect("the offline seed");
    let agent = lines
        .iter()
        .find(|l| l.phase == "init")
        .expect("the agent's kernel");
    assert!(
        seed.fitness.unwrap() < agent.fitness.unwrap(),
        "the test needs the offline seed to be the best parent: {lines:#?}"
    );
    assert!(!run.population.model_written(seed.id));
    assert!(run.population.model_written(agent.id));
    // One mutation prompt, of the model's kernel; none of the offline seed.
    let mutations: Vec<&CandidateLine> = lines.iter().filter(|l| l.phase == "mutation").collect();
    assert_eq!(mutations.len(), 1, "{lines:#?}");
    assert_eq!(mutations[0].parent, Some(agent.id));
    assert!(mutations[0].accepted, "{:#?}", mutations[0]);
    assert_eq!(server.requests().len(), 2);
}
