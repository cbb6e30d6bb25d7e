//! The generation-1 agent's loop against an in-process scripted model: tool calls into the
//! real judge, repair knowledge in tool results, budgets, malformed answers.

mod agent_support;

use std::time::Duration;

use agent_support::*;
use agenticcann_evolve::agent::{run_agent, KnowledgeMode, StopReason};
use agenticcann_evolve::knowledge::KnowledgeBase;
use agenticcann_evolve::llm::{LlmError, Message, ProtocolError, Usage};

fn tool_texts(req: &agenticcann_evolve::llm::ChatRequest) -> Vec<String> {
    req.messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

fn user_texts(req: &agenticcann_evolve::llm::ChatRequest) -> Vec<String> {
    req.messages
        .iter()
        .filter_map(|m| match m {
            Message::User { content } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_agent_reaches_an_accepted_seed_through_tool_calls() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let good = args(&good()).to_string();
    let model = Scripted::new(vec![
        call("compile", &good, 1200, 300),
        call("run_tests", &good, 1600, 310),
        call("submit", &good, 2100, 320),
    ]);
    let dir = scratch("accepted");
    let mut cfg = config();
    cfg.run_dir = Some(dir.clone());
    let run = run_agent(&op, &kb, &model, &cfg).unwrap();
    assert_eq!(run.stop, StopReason::Accepted, "{:#?}", run.step_records);
    assert_eq!(run.steps, 3);
    assert_eq!(run.failed_steps, 0);
    // Token sums are exact.
    assert_eq!(
        run.usage,
        Usage {
            prompt: 1200 + 1600 + 2100,
            completion: 300 + 310 + 320,
            ..Usage::default()
        }
    );
    assert_eq!(run.candidates.len(), 3);
    let accepted = run.first_accepted().expect("an accepted candidate");
    assert_eq!(accepted.tool, "submit");
    assert_eq!(accepted.tokens_so_far, 4900 + 930);
    let ev = accepted.evaluation.as_ref().unwrap();
    assert!(ev.accepted());
    // The judge's seed is the configured one (a replay sees the same inputs).
    assert_eq!(ev.seed, 7);

    let reqs = model.requests();
    assert_eq!(reqs.len(), 3);
    // The opening: role and rules, then the task with the exact ABI and the Init knowledge.
    match &reqs[0].messages[0] {
        Message::System { content } => assert!(content.contains("Ascend C"), "{content}"),
        m => panic!("first message is {m:?}"),
    }
    let task = &user_texts(&reqs[0])[0];
    assert!(
        task.contains(
            "void AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, AgcTiling tiling)"
        ),
        "{task}"
    );
    assert!(
        task.contains("AGC_TILING_FN(const AgcPlatform* platform"),
        "{task}"
    );
    assert!(task.contains("dims[0] = n"), "{task}");
    assert!(task.contains("# Knowledge (phase init)"), "{task}");
    // The Init chunks are recorded with their digests.
    let init = agenticcann_evolve::knowledge::assemble(
        &kb,
        agenticcann_evolve::knowledge::Phase::Init,
        agenticcann_evolve::knowledge::route(&op),
        &[],
    )
    .unwrap();
    for c in &init.chunks {
        assert!(
            run.knowledge
                .iter()
                .any(|k| k.id == c.id && k.digest == c.digest),
            "{} missing from {:?}",
            c.id,
            run.knowledge
        );
    }
    // Tools are offered as functions.
    let names: Vec<&str> = reqs[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "compile",
            "run_tests",
            "submit",
            "lookup_api",
            "read_knowledge"
        ]
    );
    // Tool results written for a model.
    let results = tool_texts(&reqs[2]);
    assert!(results[0].starts_with("compile: OK"), "{}", results[0]);
    assert!(
        results[1].starts_with("run_tests: PASSED"),
        "{}",
        results[1]
    );
    assert!(
        results[1].contains("| 0 | n=4096 | declared | ok |"),
        "{}",
        results[1]
    );
    assert!(
        results[1].contains("# Profile (declared shapes, cost model)"),
        "{}",
        results[1]
    );
    assert!(results[1].contains("roofline fraction"), "{}", results[1]);

    // The run folder.
    let o = dir.join("add_f16");
    for f in [
        "task.md",
        "knowledge.json",
        "steps.jsonl",
        "conversation.json",
        "summary.json",
    ] {
        assert!(o.join(f).is_file(), "{f}");
    }
    assert!(o.join("candidates/003-submit/evaluation.json").is_file());
    let steps = std::fs::read_to_string(o.join("steps.jsonl")).unwrap();
    assert_eq!(steps.lines().count(), 3);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(o.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["accepted"], true);
    assert_eq!(summary["stop"]["reason"], "accepted");
    assert_eq!(summary["total_tokens"], 5830);

    let pending = agenticcann_evolve::agent::record::write_pending(&dir, &op, &run).unwrap();
    assert_eq!(pending.len(), 1);
    let entry = agenticcann_build::store::Entry::load_with_key(&pending[0], &op.key()).unwrap();
    assert_eq!(
        entry.manifest.provenance.proposer,
        agenticcann_build::store::Proposer::Llm
    );
    assert_eq!(entry.manifest.provenance.generation, Some(1));
    assert_eq!(entry.manifest.provenance.tokens.unwrap().init, 5830);
    assert!(entry.manifest.verification.is_some());
    assert!(!entry.manifest.provenance.knowledge.is_empty());
}

#[test]
fn a_ub_overflow_is_repaired_with_the_matching_l2_chunk_in_the_tool_result() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let model = Scripted::new(vec![
        call("run_tests", &args(&ub_overflow()).to_string(), 1000, 100),
        call("submit", &args(&good()).to_string(), 1500, 100),
    ]);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    assert_eq!(run.stop, StopReason::Accepted);
    assert_eq!(run.steps, 2);
    let first = &run.candidates[0];
    assert_eq!(first.kinds, ["ub_capacity_exceeded"], "{}", first.result);
    let reqs = model.requests();
    let result = &tool_texts(&reqs[1])[0];
    assert!(result.starts_with("run_tests: FAILED"), "{result}");
    // Once, though every shape reports it.
    assert_eq!(
        result.matches("error[ub_capacity_exceeded]").count(),
        1,
        "{result}"
    );
    assert!(
        result.contains("on shapes: #0 n=4096; #1 n=100000"),
        "{result}"
    );
    // The repair knowledge: the L2 rule that prevents the kind, and the pattern's exemplar.
    let rule = kb.chunk("L2.ub-budget").unwrap();
    assert!(result.contains("# Knowledge for these errors"), "{result}");
    assert!(result.contains(rule.body.trim()), "{result}");
    assert!(run
        .knowledge
        .iter()
        .any(|k| k.id == "L2.ub-budget" && k.digest == rule.digest));
}

#[test]
fn budgets_stop_the_run_with_the_right_reason() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let read = r#"{"id": "L2.align32"}"#;

    let model = Scripted::new(vec![call("read_knowledge", read, 10, 5)]);
    let mut cfg = config();
    cfg.budgets.max_steps = 3;
    let run = run_agent(&op, &kb, &model, &cfg).unwrap();
    assert_eq!(run.stop, StopReason::StepBudget);
    assert_eq!(run.steps, 3);
    assert_eq!(run.usage.total(), 45);

    let model = Scripted::new(vec![call("read_knowledge", read, 900, 100)]);
    let mut cfg = config();
    cfg.budgets.tokens = Some(2500);
    let run = run_agent(&op, &kb, &model, &cfg).unwrap();
    assert_eq!(run.stop, StopReason::TokenBudget);
    assert_eq!(
        run.steps, 3,
        "1000 tokens a step: the third step crosses 2500"
    );

    let model = Scripted::new(vec![call("read_knowledge", read, 1, 1)]);
    let mut cfg = config();
    cfg.budgets.time = Some(Duration::ZERO);
    let run = run_agent(&op, &kb, &model, &cfg).unwrap();
    assert_eq!(run.stop, StopReason::TimeBudget);
    assert_eq!(run.steps, 0);
    assert!(model.requests().is_empty());
}

#[test]
fn malformed_answers_are_failed_steps_with_a_message_back() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let model = Scripted::new(vec![
        call("submit", "{not json", 10, 1),
        call("frobnicate", "{}", 10, 1),
        call("compile", r#"{"kernel": "x"}"#, 10, 1),
        call(
            "compile",
            r#"{"kernel": "x", "tiling": "y", "fields": "uint32_t"}"#,
            10,
            1,
        ),
        call(
            "run_tests",
            r#"{"kernel": "kernel.cpp", "tiling": "y", "fields": "uint32_t n"}"#,
            10,
            1,
        ),
        text("I think the kernel is done.", 10, 1),
        Err(LlmError::protocol(
            ProtocolError::SeveralToolBlocks { count: 2 },
            Usage {
                prompt: 10,
                completion: 1,
                ..Usage::default()
            },
        )),
        Err(LlmError::Truncated {
            url: "http://127.0.0.1:1/chat/completions".into(),
            detail: "10 of 20 bytes".into(),
        }),
        call("submit", &args(&good()).to_string(), 10, 1),
    ]);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    assert_eq!(run.stop, StopReason::Accepted, "{:#?}", run.step_records);
    assert_eq!(run.steps, 9);
    // No tool call, the protocol error, the truncated body.
    assert_eq!(run.failed_steps, 3);
    // Tokens of the failed protocol call count too.
    assert_eq!(run.usage.total(), 8 * 11);
    let last = model.requests().pop().unwrap();
    let tools = tool_texts(&last);
    assert!(tools[0].contains("not valid JSON"), "{}", tools[0]);
    assert!(
        tools[1].contains("there is no tool `frobnicate`"),
        "{}",
        tools[1]
    );
    assert!(
        tools[1].contains("compile, run_tests, submit"),
        "{}",
        tools[1]
    );
    assert!(
        tools[2].contains("needs the argument `tiling`"),
        "{}",
        tools[2]
    );
    assert!(tools[3].contains("not `type name`"), "{}", tools[3]);
    assert!(
        tools[4].contains("a file name, but no fenced block labelled `kernel.cpp`"),
        "{}",
        tools[4]
    );
    let users = user_texts(&last);
    assert!(
        users.iter().any(|u| u.contains("has no tool call")),
        "{users:?}"
    );
    assert!(users.iter().any(|u| u.contains("tool blocks")), "{users:?}");
}

#[test]
fn an_unusable_endpoint_stops_the_run() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let model = Scripted::new(vec![Err(LlmError::Rejected {
        url: "https://api.example.com/chat/completions".into(),
        status: 401,
        meaning: "Unauthorized".into(),
        body: "bad key".into(),
    })]);
    let run = run_agent(&op, &kb, &model, &config()).unwrap();
    match &run.stop {
        StopReason::ModelUnavailable(m) => assert!(m.contains("401"), "{m}"),
        s => panic!("{s:?}"),
    }
    assert_eq!(run.steps, 1);
}

#[test]
fn seeds_collect_distinct_accepted_kernels() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let (k, t, f) = good();
    // A second kernel: the same with smaller tiles.
    let t2 = t.replace("tiling->tile_length = 4096;", "tiling->tile_length = 2048;");
    let model = Scripted::new(vec![
        call(
            "submit",
            &args(&(k.clone(), t.clone(), f.clone())).to_string(),
            1,
            1,
        ),
        call(
            "submit",
            &args(&(k.clone(), t.clone(), f.clone())).to_string(),
            1,
            1,
        ),
        call("submit", &args(&(k, t2, f)).to_string(), 1, 1),
    ]);
    let mut cfg = config();
    cfg.seeds = 2;
    let run = run_agent(&op, &kb, &model, &cfg).unwrap();
    assert_eq!(run.stop, StopReason::Accepted);
    assert_eq!(run.steps, 3);
    assert_eq!(run.accepted().count(), 2);
    let reqs = model.requests();
    let t = tool_texts(&reqs[2]);
    assert!(
        t[0].contains("1 of 2 distinct accepted kernels"),
        "{}",
        t[0]
    );
    assert!(t[1].contains("accepted before"), "{}", t[1]);
}

#[test]
fn knowledge_modes_shape_the_prompt_and_the_tools() {
    use agenticcann_evolve::agent::{build_task, chat_tools, ToolStyle};
    use agenticcann_evolve::knowledge::Level;
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let pattern = agenticcann_evolve::knowledge::route(&op);
    let level = |id: &str| kb.chunk(id).map(|c| c.level);
    let none = build_task(
        &op,
        &kb,
        pattern,
        KnowledgeMode::None,
        ToolStyle::Functions,
        None,
    )
    .unwrap();
    assert!(none.knowledge.is_empty() && none.chunks.is_empty());
    assert!(!none.user_message().contains("# Knowledge"));
    assert_eq!(chat_tools(KnowledgeMode::None).len(), 3);
    let api = build_task(
        &op,
        &kb,
        pattern,
        KnowledgeMode::Api,
        ToolStyle::Functions,
        None,
    )
    .unwrap();
    assert!(!api.chunks.is_empty());
    assert!(
        api.chunks.iter().all(|c| level(&c.id) == Some(Level::L4)),
        "{:?}",
        api.chunks
    );
    let ac = build_task(
        &op,
        &kb,
        pattern,
        KnowledgeMode::ApiConstraints,
        ToolStyle::Functions,
        None,
    )
    .unwrap();
    assert!(ac.chunks.iter().any(|c| level(&c.id) == Some(Level::L2)));
    assert!(ac
        .chunks
        .iter()
        .all(|c| matches!(level(&c.id), Some(Level::L2 | Level::L4))));
    let full = build_task(
        &op,
        &kb,
        pattern,
        KnowledgeMode::Full,
        ToolStyle::Functions,
        None,
    )
    .unwrap();
    let init = agenticcann_evolve::knowledge::assemble(
        &kb,
        agenticcann_evolve::knowledge::Phase::Init,
        pattern,
        &[],
    )
    .unwrap();
    assert_eq!(full.knowledge, init.text);
    assert_eq!(full.chunks.len(), init.chunks.len());
    assert_eq!(chat_tools(KnowledgeMode::Full).len(), 5);
    for m in ["full", "none", "api", "api+constraints"] {
        assert_eq!(m.parse::<KnowledgeMode>().unwrap().as_str(), m);
    }
    assert!("all".parse::<KnowledgeMode>().is_err());
}

#[test]
fn knowledge_tools_answer_by_mode() {
    use agenticcann_build::judge::EvalOptions;
    use agenticcann_evolve::agent::{ToolCall, Workbench};
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let pattern = agenticcann_evolve::knowledge::route(&op);
    let mut full = Workbench::new(
        &op,
        &kb,
        pattern,
        KnowledgeMode::Full,
        EvalOptions::default(),
        None,
    );
    let card = full
        .call(&ToolCall::LookupApi("DataCopyPad".into()))
        .unwrap();
    assert!(
        card.text.starts_with("API card L4.datacopy"),
        "{}",
        card.text
    );
    assert_eq!(card.chunks[0].0, "L4.datacopy");
    // Not on a card: the simulator's own declaration.
    let decl = full
        .call(&ToolCall::LookupApi("PipeBarrier".into()))
        .unwrap();
    assert!(decl.text.contains("PipeBarrier"), "{}", decl.text);
    assert!(decl.text.contains("simulator's headers"), "{}", decl.text);
    let missing = full.call(&ToolCall::LookupApi("NoSuchApi".into())).unwrap();
    assert!(missing.text.contains("does not exist"), "{}", missing.text);
    let chunk = full
        .call(&ToolCall::ReadKnowledge("L2.align32".into()))
        .unwrap();
    assert_eq!(chunk.text, kb.chunk("L2.align32").unwrap().body);
    let ex = full
        .call(&ToolCall::ReadKnowledge(format!("L5.{pattern}.kernel")))
        .unwrap();
    assert!(ex.text.contains("AGC_KERNEL"), "{}", ex.text);
    let unknown = full
        .call(&ToolCall::ReadKnowledge("L9.nope".into()))
        .unwrap();
    assert!(
        unknown.text.contains("no chunk `L9.nope`"),
        "{}",
        unknown.text
    );
    let mut api = Workbench::new(
        &op,
        &kb,
        pattern,
        KnowledgeMode::Api,
        EvalOptions::default(),
        None,
    );
    let refused = api
        .call(&ToolCall::ReadKnowledge("L2.align32".into()))
        .unwrap();
    assert!(
        refused
            .text
            .contains("not available in knowledge mode `api`"),
        "{}",
        refused.text
    );
    let mut none = Workbench::new(
        &op,
        &kb,
        pattern,
        KnowledgeMode::None,
        EvalOptions::default(),
        None,
    );
    let refused = none.call(&ToolCall::LookupApi("DataCopy".into())).unwrap();
    assert!(
        refused
            .text
            .contains("not available in knowledge mode `none`"),
        "{}",
        refused.text
    );
}
