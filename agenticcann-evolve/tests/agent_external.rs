//! An external coding agent in place of the model: a shell script that writes a known-good
//! kernel into its work folder and calls the tool executables.

mod agent_support;

use std::path::PathBuf;

use agent_support::*;
use agenticcann_evolve::agent::external::run_external;
use agenticcann_evolve::agent::StopReason;
use agenticcann_evolve::knowledge::KnowledgeBase;

#[test]
fn a_scripted_agent_submits_a_kernel_through_the_tools() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let dir = scratch("external");
    let script = dir.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\ntest -f TASK.md\ntest -f KNOWLEDGE.md\n\
             grep -q 'AGC_KERNEL(GM_ADDR x, GM_ADDR y, GM_ADDR z' TASK.md\n\
             agc-read-knowledge L2.ub-budget > read.txt\n\
             {cp}\n\
             ./agc-compile > compile.txt\n\
             agc-submit > submit.txt\n\
             echo done\n",
            cp = cp_good()
        ),
    )
    .unwrap();
    let mut cfg = config();
    cfg.run_dir = Some(dir.join("run"));
    let run = run_external(&op, &kb, &format!("sh {}", script.display()), &cfg, None).unwrap();
    assert_eq!(run.stop, StopReason::Accepted, "{:#?}", run.step_records);
    assert_eq!(run.steps, 3);
    assert!(!run.tokens_measured);
    assert_eq!(run.usage.total(), 0);
    assert_eq!(
        run.candidates.len(),
        2,
        "the left files were submitted: not judged again"
    );
    assert!(run.first_accepted().is_some());
    let work = dir.join("run/add_f16/work");
    let compile = std::fs::read_to_string(work.join("compile.txt")).unwrap();
    assert!(compile.starts_with("compile: OK"), "{compile}");
    let submit = std::fs::read_to_string(work.join("submit.txt")).unwrap();
    assert!(submit.starts_with("submit: ACCEPTED"), "{submit}");
    let read = std::fs::read_to_string(work.join("read.txt")).unwrap();
    assert!(read.contains("192 KiB"), "{read}");
    assert!(run.knowledge.iter().any(|k| k.id == "L2.ub-budget"));
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("run/add_f16/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["total_tokens"], serde_json::Value::Null);
}

#[test]
fn the_tools_enforce_the_step_limit_and_missing_files_fail_clearly() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let dir = scratch("external-limit");
    let script = dir.join("agent.sh");
    // No files yet: the first compile fails with a clear message (exit 2); then the step
    // limit (2) makes the third call refuse (exit 3).
    std::fs::write(
        &script,
        "#!/bin/sh\n./agc-compile > c1.txt 2>&1; echo $? > s1\n\
         ./agc-read-knowledge > c2.txt 2>&1; echo $? > s2\n\
         ./agc-read-knowledge L2.align32 > c3.txt 2>&1; echo $? > s3\n",
    )
    .unwrap();
    let mut cfg = config();
    cfg.budgets.max_steps = 2;
    let work = dir.join("work");
    let run = run_external(
        &op,
        &kb,
        &format!("sh {}", script.display()),
        &cfg,
        Some(&work),
    )
    .unwrap();
    assert_eq!(run.stop, StopReason::StepBudget, "{:#?}", run.step_records);
    assert_eq!(run.steps, 2);
    assert_eq!(run.failed_steps, 2);
    let read = |f: &str| std::fs::read_to_string(work.join(f)).unwrap();
    assert_eq!(read("s1").trim(), "2");
    assert!(
        read("c1.txt").contains("there is no kernel.cpp"),
        "{}",
        read("c1.txt")
    );
    assert_eq!(read("s2").trim(), "2");
    assert!(
        read("c2.txt").contains("give the chunk id"),
        "{}",
        read("c2.txt")
    );
    assert_eq!(read("s3").trim(), "3");
    assert!(
        read("c3.txt").contains("session is over"),
        "{}",
        read("c3.txt")
    );
}

#[test]
fn an_agent_that_exits_without_submitting_is_reported_and_its_files_judged() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let dir = scratch("external-exit");
    let script = dir.join("agent.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\n{cp}\necho giving up\nexit 4\n", cp = cp_good()),
    )
    .unwrap();
    let run = run_external(
        &op,
        &kb,
        &format!("sh {}", script.display()),
        &config(),
        Some(&dir.join("w")),
    )
    .unwrap();
    // The left files are judged once (tool `final`) and are a kernel that is accepted.
    assert_eq!(run.steps, 0);
    assert_eq!(run.candidates.len(), 1);
    assert_eq!(run.candidates[0].tool, "final");
    assert_eq!(run.stop, StopReason::Accepted);

    let script2 = dir.join("agent2.sh");
    std::fs::write(&script2, "#!/bin/sh\necho nothing to do\nexit 4\n").unwrap();
    let run = run_external(
        &op,
        &kb,
        &format!("sh {}", script2.display()),
        &config(),
        Some(&dir.join("w2")),
    )
    .unwrap();
    match &run.stop {
        StopReason::AgentExited(m) => {
            assert!(m.contains("exit status: 4"), "{m}");
            assert!(m.contains("nothing to do"), "{m}");
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn what_the_agent_leaves_running_is_killed_with_it() {
    let kb = KnowledgeBase::embedded().unwrap();
    let op = op();
    let dir = scratch("external-leftover");
    let script = dir.join("agent.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nsleep 600 &\necho $! > bg.pid\nexit 0\n",
    )
    .unwrap();
    let work = dir.join("w");
    let run = run_external(
        &op,
        &kb,
        &format!("sh {}", script.display()),
        &config(),
        Some(&work),
    )
    .unwrap();
    assert!(
        matches!(run.stop, StopReason::AgentExited(_)),
        "{:?}",
        run.stop
    );
    let pid = std::fs::read_to_string(work.join("bg.pid")).unwrap();
    let stat = PathBuf::from("/proc").join(pid.trim()).join("stat");
    // Gone, or a zombie waiting for its new parent to reap it.
    let mut alive = true;
    for _ in 0..100 {
        alive = std::fs::read_to_string(&stat).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        });
        if !alive {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive, "the background `sleep` {} still runs", pid.trim());
}
