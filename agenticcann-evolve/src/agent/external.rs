//! An external coding agent as the model (`--agent-command CMD`): CMD runs (through `sh -c`)
//! in a prepared work folder holding
//!
//! ```text
//! TASK.md               the system prompt and the task (ToolStyle::Executables)
//! KNOWLEDGE.md          the Init knowledge of the knowledge mode
//! agc-compile           policy + compile of kernel.cpp, tiling.cpp, tiling_fields.txt here
//! agc-run-tests         + run on the declared shapes
//! agc-submit            the full judge; exit 0 = accepted (the task ends)
//! agc-read-knowledge ID a knowledge chunk or exemplar file (not in knowledge mode none)
//! agc-lookup-api NAME   an API card or the simulator's declaration (not in mode none)
//! .agc/                 the tools' request and response folders
//! ```
//!
//! The tools are small POSIX shell scripts that hand each call to this process through the
//! `.agc/` folder (a request folder renamed into place, answered by a response folder
//! renamed into place) and wait for the answer; the judge runs here, with the same
//! [`Workbench`] as the chat agent, so the agent's tool results are the chat agent's. Every
//! call is a step; once [`Budgets::max_steps`](super::Budgets) calls were made, the tools
//! refuse (exit 3). The agent runs in its own process group and is killed when the time
//! budget runs out, or a few seconds after the task ended (accepted, step limit) if it does
//! not exit by itself. Exit statuses of the tools: 0 ok/passed/accepted, 1 failed, 2 a
//! missing file or argument, 3 the session is over.
//!
//! Tokens are not measured ([`AgentRun::tokens_measured`] is false). The files the agent
//! leaves (`kernel.cpp`, `tiling.cpp`, `tiling_fields.txt`) are collected; when they were
//! never submitted, the full judge evaluates them once (tool `final`, not a step).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agenticcann_build::spec::OpSpec;

use super::tools::{Sources, ToolCall, Workbench};
use super::{
    build_task, record, AgentConfig, AgentError, AgentRun, CallRecord, Ledger, StepRecord,
    StopReason, ToolStyle,
};
use crate::knowledge::{route, KnowledgeBase};
use crate::llm::Usage;

/// The tool executables, with the tool each calls and what it does.
pub const TOOLS: [(&str, &str, &str); 5] = [
    (
        "agc-compile",
        "compile",
        "policy + compile of kernel.cpp, tiling.cpp, tiling_fields.txt",
    ),
    (
        "agc-run-tests",
        "run_tests",
        "compile and run on the declared shapes",
    ),
    ("agc-submit", "submit", "the full judge (exit 0 = accepted)"),
    (
        "agc-read-knowledge",
        "read_knowledge",
        "a knowledge chunk by id",
    ),
    (
        "agc-lookup-api",
        "lookup_api",
        "an API card or declaration by name",
    ),
];

/// How long an agent may keep running after the task ended before it is killed.
pub const GRACE: Duration = Duration::from_secs(5);

const CALL_SCRIPT: &str = r#"#!/bin/sh
# Hands one tool call to cargo-agenticcann through this folder and prints its answer.
set -u
q="$(cd "$(dirname "$0")" && pwd)"
here="$(dirname "$q")"
tool="$1"; shift
id="$$.$(date +%s%N 2>/dev/null || date +%s)"
tmp="$q/tmp.$id"
mkdir "$tmp" || exit 3
printf '%s' "$tool" > "$tmp/tool"
printf '%s' "${1-}" > "$tmp/arg"
for f in kernel.cpp tiling.cpp tiling_fields.txt; do
  if [ -f "$here/$f" ]; then cp "$here/$f" "$tmp/$f"; fi
done
mv "$tmp" "$q/req.$id"
while [ ! -f "$q/resp.$id/status" ]; do
  if [ -f "$q/closed" ] && [ ! -d "$q/req.$id" ]; then
    echo "agc: the session is over" >&2
    exit 3
  fi
  sleep 0.05
done
cat "$q/resp.$id/output"
st="$(cat "$q/resp.$id/status")"
rm -rf "$q/resp.$id"
exit "$st"
"#;

fn io(what: &str, p: &Path, e: impl std::fmt::Display) -> AgentError {
    AgentError::External(format!("cannot {what} {}: {e}", p.display()))
}

fn write_exe(path: &Path, text: &str) -> Result<(), AgentError> {
    std::fs::write(path, text).map_err(|e| io("write", path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("make executable", path, e))?;
    }
    Ok(())
}

/// Prepares the work folder `work` for `op`: TASK.md, KNOWLEDGE.md, the tool executables
/// and `.agc/`. Returns the task.
///
/// # Errors
/// A file that cannot be written; knowledge that cannot be assembled; a judge that cannot
/// prepare the op.
pub fn prepare_work_folder(
    work: &Path,
    op: &OpSpec,
    kb: &KnowledgeBase,
    bench: &mut Workbench<'_>,
) -> Result<super::Task, AgentError> {
    let soc = bench.prepared()?.soc;
    let task = build_task(
        op,
        kb,
        route(op),
        bench.mode(),
        ToolStyle::Executables,
        Some(&soc),
    )?;
    let q = work.join(".agc");
    let _ = std::fs::remove_dir_all(&q);
    std::fs::create_dir_all(&q).map_err(|e| io("create", &q, e))?;
    let task_md = format!("{}\n\n{}", task.system, task.task);
    std::fs::write(work.join("TASK.md"), task_md).map_err(|e| io("write", work, e))?;
    let knowledge = if task.knowledge.is_empty() {
        "(knowledge mode `none`: no knowledge is given)\n".to_string()
    } else {
        format!("# Knowledge (phase init)\n\n{}\n", task.knowledge)
    };
    std::fs::write(work.join("KNOWLEDGE.md"), knowledge).map_err(|e| io("write", work, e))?;
    write_exe(&q.join("call"), CALL_SCRIPT)?;
    for (exe, tool, what) in TOOLS {
        if matches!(tool, "read_knowledge" | "lookup_api") && !bench.mode().has_knowledge_tools() {
            continue;
        }
        write_exe(
            &work.join(exe),
            &format!(
                "#!/bin/sh\n# {exe}: {what}.\nexec \"$(dirname \"$0\")/.agc/call\" {tool} \"$@\"\n"
            ),
        )?;
    }
    Ok(task)
}

struct Request {
    id: String,
    dir: PathBuf,
}

fn pending_requests(q: &Path) -> Vec<Request> {
    let mut v: Vec<Request> = std::fs::read_dir(q)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.strip_prefix("req.").map(|id| Request {
                id: id.to_string(),
                dir: e.path(),
            })
        })
        .collect();
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

fn respond(q: &Path, id: &str, output: &str, status: i32) -> Result<(), AgentError> {
    let tmp = q.join(format!("resp-tmp.{id}"));
    std::fs::create_dir_all(&tmp).map_err(|e| io("create", &tmp, e))?;
    let mut out = output.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    std::fs::write(tmp.join("output"), out).map_err(|e| io("write", &tmp, e))?;
    std::fs::write(tmp.join("status"), status.to_string()).map_err(|e| io("write", &tmp, e))?;
    let dst = q.join(format!("resp.{id}"));
    std::fs::rename(&tmp, &dst).map_err(|e| io("rename", &dst, e))
}

fn read_sources(dir: &Path, tool: &str) -> Result<Sources, String> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).map_err(|_| {
            format!("agc-{}: there is no {name} in the work folder (write kernel.cpp, tiling.cpp and tiling_fields.txt first)", tool.replace('_', "-"))
        })
    };
    Ok(Sources {
        kernel: read("kernel.cpp")?,
        tiling: read("tiling.cpp")?,
        fields: read("tiling_fields.txt")?,
    })
}

/// Kills the agent's process group (the group [`run_external`] created for it, whose id is
/// the agent's pid) and reaps the agent.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        let pid = child.id() as i32;
        // SAFETY: kill(2) has no memory effects; the target is the process group created
        // for the agent (`process_group(0)`), not yet reaped when the agent is still
        // running, or holding only the agent's leftovers.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(5)..].join(" | ")
}

/// Runs `command` as the generation-1 agent of `op` in the work folder `work` (created;
/// default `<run dir>/<op>/work` or a temporary folder), serving its tool calls until it
/// exits, the task ends or a budget runs out.
///
/// # Errors
/// [`AgentError`] when the work folder cannot be prepared, the command cannot be started,
/// or the judge cannot run.
pub fn run_external(
    op: &OpSpec,
    kb: &KnowledgeBase,
    command: &str,
    config: &AgentConfig,
    work: Option<&Path>,
) -> Result<AgentRun, AgentError> {
    let t0 = Instant::now();
    let pattern = route(op);
    let mode = config.knowledge;
    let mut bench = Workbench::new(
        op,
        kb,
        pattern,
        mode,
        config.eval.clone(),
        config.sim_include.clone(),
    );
    let temp;
    let work: PathBuf = match (work, &config.run_dir) {
        (Some(w), _) => w.to_path_buf(),
        (None, Some(d)) => d.join(&op.name).join("work"),
        (None, None) => {
            temp = tempfile::tempdir().map_err(|e| AgentError::External(e.to_string()))?;
            temp.path().to_path_buf()
        }
    };
    std::fs::create_dir_all(&work).map_err(|e| io("create", &work, e))?;
    let work = std::path::absolute(&work).unwrap_or(work);
    let task = prepare_work_folder(&work, op, kb, &mut bench)?;
    let recorder = match &config.run_dir {
        Some(d) => Some(record::OpFolder::create(d, op, &task).map_err(AgentError::Record)?),
        None => None,
    };
    let q = work.join(".agc");
    let log = match &recorder {
        Some(r) => r.dir.join("agent.log"),
        None => q.join("agent.log"),
    };
    let log_file = std::fs::File::create(&log).map_err(|e| io("create", &log, e))?;
    let log_err = log_file.try_clone().map_err(|e| io("open", &log, e))?;
    let path = match agenticcann_build::env::var_os("PATH") {
        Some(p) => {
            let mut v = vec![work.clone()];
            v.extend(std::env::split_paths(&p));
            std::env::join_paths(v).unwrap_or(p)
        }
        None => work.clone().into_os_string(),
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&work)
        .env("PATH", path)
        .env("AGC_WORK_DIR", &work)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log_file))
        .stderr(Stdio::from(log_err));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| AgentError::External(format!("cannot start `{command}`: {e}")))?;

    let mut ledger = Ledger::new(&task.chunks);
    let mut steps = 0u32;
    let mut failed_steps = 0u32;
    let mut step_records = Vec::new();
    let seeds = config.seeds.max(1);
    let mut ended: Option<(StopReason, Instant)> = None;
    let stop = loop {
        let exited = child.try_wait().ok().flatten();
        for req in pending_requests(&q) {
            let tool = std::fs::read_to_string(req.dir.join("tool")).unwrap_or_default();
            let arg = std::fs::read_to_string(req.dir.join("arg")).unwrap_or_default();
            if ended.is_some() || steps >= config.budgets.max_steps {
                if ended.is_none() {
                    ended = Some((StopReason::StepBudget, Instant::now()));
                }
                respond(
                    &q,
                    &req.id,
                    &format!(
                        "agc: the session is over ({}); no more tool calls",
                        ended.as_ref().map(|e| e.0.label()).unwrap_or("ended")
                    ),
                    3,
                )?;
                let _ = std::fs::remove_dir_all(&req.dir);
                continue;
            }
            steps += 1;
            let parsed = match tool.as_str() {
                "compile" | "run_tests" | "submit" => {
                    read_sources(&req.dir, &tool).map(|s| match tool.as_str() {
                        "compile" => ToolCall::Compile(s),
                        "run_tests" => ToolCall::RunTests(s),
                        _ => ToolCall::Submit(s),
                    })
                }
                "read_knowledge" | "lookup_api" if arg.trim().is_empty() => Err(format!(
                    "agc-{}: give the {} as the argument",
                    tool.replace('_', "-"),
                    if tool == "lookup_api" {
                        "API name"
                    } else {
                        "chunk id"
                    }
                )),
                "read_knowledge" => Ok(ToolCall::ReadKnowledge(arg.clone())),
                "lookup_api" => Ok(ToolCall::LookupApi(arg.clone())),
                other => Err(format!("agc: unknown tool `{other}`")),
            };
            let mut rec = StepRecord {
                step: steps,
                usage: Usage::default(),
                calls: Vec::new(),
                failed: None,
            };
            match parsed {
                Err(msg) => {
                    failed_steps += 1;
                    rec.failed = Some(msg.clone());
                    respond(&q, &req.id, &msg, 2)?;
                }
                Ok(call) => {
                    let out = bench.call(&call)?;
                    let (cand, _) = ledger.note(steps, call.name(), &out, 0);
                    if let (Some(r), Some(c)) = (&recorder, cand) {
                        r.candidate(&ledger.candidates[c - 1])
                            .map_err(AgentError::Record)?;
                    }
                    let ok = match &call {
                        ToolCall::Submit(_) => out.accepted(),
                        ToolCall::Compile(_) | ToolCall::RunTests(_) => {
                            out.kinds.is_empty()
                                && (out.text.contains(": OK") || out.text.contains(": PASSED"))
                        }
                        _ => true,
                    };
                    rec.calls.push(CallRecord {
                        tool: call.name().to_string(),
                        candidate: cand,
                        error: None,
                        chunks: out.chunks.iter().map(|c| c.0.clone()).collect(),
                        ms: out.ms,
                    });
                    let mut text = out.text.clone();
                    if ledger.accepted.len() >= seeds {
                        text.push_str("\nThe task is done: stop now.");
                        ended = Some((StopReason::Accepted, Instant::now()));
                    }
                    respond(&q, &req.id, &text, if ok { 0 } else { 1 })?;
                }
            }
            let _ = std::fs::remove_dir_all(&req.dir);
            if let Some(r) = &recorder {
                r.step(&rec).map_err(AgentError::Record)?;
            }
            step_records.push(rec);
        }
        if let Some(status) = exited {
            // Requests made just before the exit were answered above.
            break match ended.take() {
                Some((reason, _)) => reason,
                None if steps >= config.budgets.max_steps => StopReason::StepBudget,
                None => StopReason::AgentExited(format!("{status}; output: {}", tail(&log))),
            };
        }
        if let Some((_, at)) = &ended {
            if at.elapsed() >= GRACE {
                kill_group(&mut child);
                break ended.take().map(|e| e.0).expect("ended");
            }
        }
        if config.budgets.time.is_some_and(|b| t0.elapsed() >= b) {
            kill_group(&mut child);
            break StopReason::TimeBudget;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Whatever the agent left running in its process group goes with it.
    kill_group(&mut child);
    let _ = std::fs::write(q.join("closed"), "");
    // The files it left: judged once when they were never submitted.
    if let Ok(s) = read_sources(&work, "submit") {
        if let Ok(fields) = super::parse_fields(&s.fields, op) {
            let c = agenticcann_build::judge::Candidate::new(
                s.kernel.clone(),
                s.tiling.clone(),
                fields,
            );
            let digest = super::candidate_digest(&c);
            let submitted = ledger
                .candidates
                .iter()
                .any(|r| r.digest == digest && r.evaluation.is_some());
            if !submitted {
                let out = bench.call(&ToolCall::Submit(s))?;
                let (cand, _) = ledger.note(steps, "final", &out, 0);
                if let (Some(r), Some(c)) = (&recorder, cand) {
                    r.candidate(&ledger.candidates[c - 1])
                        .map_err(AgentError::Record)?;
                }
            }
        }
    }
    let stop = if stop != StopReason::Accepted && ledger.accepted.len() >= seeds {
        StopReason::Accepted
    } else {
        stop
    };
    let run = AgentRun {
        op: op.name.clone(),
        pattern,
        knowledge_mode: mode,
        stop,
        steps,
        failed_steps,
        usage: Usage::default(),
        tokens_measured: false,
        seconds: t0.elapsed().as_secs_f64(),
        knowledge: ledger.knowledge,
        candidates: ledger.candidates,
        step_records,
        messages: Vec::new(),
        model: format!("agent-command: {command}"),
    };
    if let Some(r) = &recorder {
        r.finish(&run).map_err(AgentError::Record)?;
    }
    Ok(run)
}
