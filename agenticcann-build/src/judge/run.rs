//! Running a compiled candidate: the plan and input files the harness reads, the sandboxed
//! process, and reading back what it wrote per shape.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::error::JudgeError;
use super::profile::{parse_launches, LaunchRecord};
use super::report::{Diagnostic, Isolation, Stage};
use super::sandbox::{self, Limits, RunOutput, Termination};

/// One GM tensor parameter as the harness sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanParam {
    /// Output (written by the kernel) or input.
    pub output: bool,
    /// Bytes per element.
    pub elem_bytes: usize,
    /// One element of poison (outputs; ignored for inputs).
    pub poison: Vec<u8>,
}

/// One shape to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanShape {
    /// Named dimension sizes in tiling order (`OpSpec::named_dims`).
    pub dims: Vec<u64>,
    /// Elements of each parameter.
    pub counts: Vec<u64>,
    /// Raw bytes of each input parameter (empty for outputs).
    pub inputs: Vec<Vec<u8>>,
}

/// The text of `plan.txt` (format in `harness.cpp`).
pub fn plan_text(params: &[PlanParam], shapes: &[PlanShape], max_workspace: u64) -> String {
    let mut s = format!("params {}\n", params.len());
    for (k, p) in params.iter().enumerate() {
        let poison = if p.output {
            p.poison.clone()
        } else {
            vec![0; p.elem_bytes]
        };
        let hex: String = poison.iter().map(|b| format!("{b:02x}")).collect();
        s.push_str(&format!(
            "param {k} {} {} {hex}\n",
            if p.output { "out" } else { "in" },
            p.elem_bytes
        ));
    }
    s.push_str(&format!(
        "max_workspace {max_workspace}\nshapes {}\n",
        shapes.len()
    ));
    for (i, sh) in shapes.iter().enumerate() {
        s.push_str(&format!("shape {i} dims {}", sh.dims.len()));
        for d in &sh.dims {
            s.push_str(&format!(" {d}"));
        }
        s.push_str(" counts");
        for c in &sh.counts {
            s.push_str(&format!(" {c}"));
        }
        s.push('\n');
    }
    s
}

/// Writes `plan.txt` and the input files into `dir`.
///
/// # Errors
/// [`JudgeError::Io`] naming the path.
pub fn write_plan(
    dir: &Path,
    params: &[PlanParam],
    shapes: &[PlanShape],
    max_workspace: u64,
) -> Result<(), JudgeError> {
    let w = |p: &Path, b: &[u8]| std::fs::write(p, b).map_err(|e| JudgeError::io("write", p, e));
    w(
        &dir.join("plan.txt"),
        plan_text(params, shapes, max_workspace).as_bytes(),
    )?;
    for (i, sh) in shapes.iter().enumerate() {
        for (k, p) in params.iter().enumerate() {
            if !p.output {
                w(&dir.join(format!("s{i}_p{k}.in")), &sh.inputs[k])?;
            }
        }
    }
    Ok(())
}

/// How far the harness got with one shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunState {
    /// Not launched by contract: an output has zero elements (no tiling call, no kernel).
    SkippedEmpty,
    /// Never begun (the process died on an earlier shape, or the shape was not asked for).
    #[default]
    NotRun,
    /// Begun but not finished: the process died on this shape.
    Died,
    /// Finished; the fields below hold what the harness wrote.
    Finished,
}

/// An input the kernel changed (`input_changed <param> <bytes> <first element>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputChange {
    /// The kernel parameter index (`OpSpec::kernel_params` order).
    pub param: usize,
    /// Bytes that differ after the run.
    pub bytes: u64,
    /// The first element that differs.
    pub first_element: u64,
}

/// Guard bytes past a tensor that changed (`guard <param> <bytes>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardOverwrite {
    /// The kernel parameter index.
    pub param: usize,
    /// Guard bytes changed.
    pub bytes: u64,
}

/// What the harness wrote about one shape, parsed (protocol in `harness.cpp`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeRun {
    /// The shape's index in [`Prepared::shapes`](super::Prepared::shapes).
    pub shape: usize,
    /// How far the harness got.
    pub state: RunState,
    /// The tiling function's return value (`tiling_rc`); `None` when it did not return.
    pub tiling_rc: Option<i64>,
    /// The blockDim the tiling function chose.
    pub block_dim: u32,
    /// The workspace the tiling function asked for, bytes.
    pub workspace_bytes: u64,
    /// `error <kind>` lines of the harness: `tiling_block_dim`, `workspace_too_large`,
    /// `workspace_alloc`.
    pub errors: Vec<String>,
    /// The launcher's queueing code (`launch_rc`); `None` when not launched.
    pub launch_rc: Option<i64>,
    /// `aclrtSynchronizeStream`'s code.
    pub sync_rc: Option<i64>,
    /// The simulator's launch records (`s<i>.launch.json`), parsed.
    pub launches: Vec<LaunchRecord>,
    /// Why the launch records could not be parsed, when they could not.
    pub launches_error: Option<String>,
    /// Inputs the kernel changed.
    pub input_changes: Vec<InputChange>,
    /// Tensors whose guard bytes changed.
    pub guards: Vec<GuardOverwrite>,
    /// `s<i>_p<k>.out` per output parameter index `k`.
    pub outputs: BTreeMap<usize, Vec<u8>>,
}

impl ShapeRun {
    /// Whether the kernel was launched on this shape.
    pub fn launched(&self) -> bool {
        self.launch_rc.is_some()
    }

    /// Whether the launch failed (queueing, synchronize or a failed launch record).
    pub fn launch_failed(&self) -> bool {
        self.launch_rc.is_some_and(|c| c != 0)
            || self.sync_rc.unwrap_or(0) != 0
            || self.launches.iter().any(|x| x.failed)
    }

    /// Parses one `s<i>.status` text into the fields above.
    pub fn parse_status(&mut self, text: &str) {
        let num = |v: &str| {
            v.split_whitespace()
                .next()
                .and_then(|x| x.parse::<i64>().ok())
        };
        let nums = |v: &str| -> Vec<u64> {
            v.split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        };
        for line in text.lines() {
            let (k, v) = line.split_once(' ').unwrap_or((line, ""));
            match k {
                "tiling_rc" => self.tiling_rc = num(v),
                "block_dim" => {
                    self.block_dim = num(v).unwrap_or(0).clamp(0, u32::MAX as i64) as u32
                }
                "workspace" => self.workspace_bytes = num(v).unwrap_or(0).max(0) as u64,
                "error" => self.errors.push(v.trim().to_string()),
                "launch_rc" => self.launch_rc = num(v),
                "sync_rc" => self.sync_rc = num(v),
                "input_changed" => {
                    if let [param, bytes, first_element] = nums(v)[..] {
                        self.input_changes.push(InputChange {
                            param: param as usize,
                            bytes,
                            first_element,
                        });
                    }
                }
                "guard" => {
                    if let [param, bytes] = nums(v)[..] {
                        self.guards.push(GuardOverwrite {
                            param: param as usize,
                            bytes,
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// Reads what the harness wrote in `dir` for its `n` shapes (harness order); `shapes[i]` is
/// the [`Prepared`](super::Prepared) index of harness shape `i`.
pub fn read_results(dir: &Path, shapes: &[usize], params: &[PlanParam]) -> Vec<ShapeRun> {
    let progress = std::fs::read_to_string(dir.join("progress.txt")).unwrap_or_default();
    let mut runs: Vec<ShapeRun> = shapes
        .iter()
        .map(|&shape| ShapeRun {
            shape,
            ..ShapeRun::default()
        })
        .collect();
    for line in progress.lines() {
        let mut it = line.split_whitespace();
        let (Some(tag), Some(i)) = (it.next(), it.next().and_then(|v| v.parse::<usize>().ok()))
        else {
            continue;
        };
        if let Some(r) = runs.get_mut(i) {
            match tag {
                "begin" if r.state == RunState::NotRun => r.state = RunState::Died,
                "end" => r.state = RunState::Finished,
                _ => {}
            }
        }
    }
    for (i, r) in runs.iter_mut().enumerate() {
        if r.state == RunState::NotRun {
            continue;
        }
        if let Ok(s) = std::fs::read_to_string(dir.join(format!("s{i}.status"))) {
            r.parse_status(&s);
        }
        if let Ok(json) = std::fs::read_to_string(dir.join(format!("s{i}.launch.json"))) {
            match parse_launches(&json) {
                Ok(l) => r.launches = l,
                Err(m) => r.launches_error = Some(m),
            }
        }
        for (k, p) in params.iter().enumerate() {
            if p.output {
                if let Ok(b) = std::fs::read(dir.join(format!("s{i}_p{k}.out"))) {
                    r.outputs.insert(k, b);
                }
            }
        }
    }
    runs
}

/// The memory an ELF64 little-endian program's loadable segments need (Σ `p_memsz` of
/// `PT_LOAD`), bytes: static arrays count here before the program runs. `None` when `exe`
/// is not such a file.
pub fn image_bytes(exe: &Path) -> Option<u64> {
    let b = std::fs::read(exe).ok()?;
    if b.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let u16_at = |o: usize| Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?));
    let phoff = u64_at(0x20)? as usize;
    let phentsize = u16_at(0x36)? as usize;
    let phnum = u16_at(0x38)? as usize;
    let mut total = 0u64;
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if u32_at(ph)? == 1 {
            total = total.saturating_add(u64_at(ph + 0x28)?);
        }
    }
    Some(total)
}

/// Runs the candidate program `exe` in `dir` under `limits`, with only the environment the
/// simulator needs (`AGENTICCANN_SOC`, `AGENTICCANN_SIM_PROFILE_DIR`).
///
/// # Errors
/// The program could not be started (`ENOMEM` when its static memory exceeds the address
/// space limit).
pub fn run_candidate(
    exe: &Path,
    dir: &Path,
    soc: &str,
    profiles: &Path,
    limits: &Limits,
    isolate_network: bool,
) -> std::io::Result<RunOutput> {
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("AGENTICCANN_SOC", soc)
        .env("AGENTICCANN_SIM_PROFILE_DIR", profiles);
    sandbox::run(cmd, dir, limits, isolate_network)
}

/// The diagnostic for a process that did not finish its plan, attributed to `shape` (the
/// shape that was running), and whether it is the candidate's fault (false: a judge bug).
/// `candidate_ran`: some shape began, so the candidate's code has run.
pub fn termination_diagnostic(
    out: &RunOutput,
    shape: Option<usize>,
    candidate_ran: bool,
) -> Option<(Diagnostic, bool)> {
    let err_text = out.stderr.trim();
    let tail: String = err_text
        .lines()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    let mem = err_text.contains("bad_alloc")
        || err_text.contains("Cannot allocate memory")
        || err_text.contains("aclrtMalloc of");
    let (kind, msg, candidate_fault) = match out.termination {
        Termination::Exited { code: 0 } => return None,
        Termination::TimedOut => (
            "timeout",
            format!(
                "the run did not finish within {:.0} s (a hang: a loop that never ends?)",
                out.wall.as_secs_f64()
            ),
            true,
        ),
        Termination::CpuLimit => (
            "cpu_limit",
            "the run exceeded its CPU time limit".to_string(),
            true,
        ),
        Termination::OutputLimit => (
            "output_limit",
            "the run wrote more than its output limit".to_string(),
            true,
        ),
        _ if mem => (
            "memory_limit",
            "the run exceeded its memory limit (an allocation failed)".to_string(),
            true,
        ),
        Termination::Signaled { signal } => (
            "crash",
            format!(
                "the run was killed by signal {signal} ({})",
                signal_name(signal)
            ),
            true,
        ),
        // Before any shape began, a harness error is the judge's (plan, profile); after the
        // candidate's code ran, memory it corrupted may be the cause.
        Termination::Exited { code: 2 } if err_text.contains("harness error") => (
            "harness_error",
            "the judge's harness stopped".to_string(),
            candidate_ran,
        ),
        Termination::Exited { code } => (
            "process_exit",
            format!("the process exited with status {code} before finishing"),
            true,
        ),
    };
    let mut d = Diagnostic::error(Stage::Run, kind, msg)
        .number("wall_s", out.wall.as_secs_f64())
        .number("max_rss_bytes", out.max_rss_bytes as f64);
    if let Some(s) = shape {
        d = d.for_shape(s);
    }
    if !tail.is_empty() {
        d = d.note(tail);
    }
    Some((d, candidate_fault))
}

fn signal_name(s: i32) -> &'static str {
    match s {
        libc::SIGSEGV => "SIGSEGV: invalid memory access",
        libc::SIGBUS => "SIGBUS: bus error",
        libc::SIGABRT => "SIGABRT: abort",
        libc::SIGFPE => "SIGFPE: arithmetic exception",
        libc::SIGILL => "SIGILL: illegal instruction",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTRAP => "SIGTRAP",
        _ => "signal",
    }
}

/// Merges the isolation of a run into the evaluation's record.
pub fn isolation_of(out: &RunOutput) -> Isolation {
    out.isolation.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminations_are_classified() {
        let out = |termination, stderr: &str| RunOutput {
            termination,
            stdout: String::new(),
            stderr: stderr.to_string(),
            output_truncated: false,
            wall: std::time::Duration::from_millis(5),
            max_rss_bytes: 0,
            isolation: Isolation::default(),
        };
        let kind = |o: &RunOutput, ran| {
            termination_diagnostic(o, Some(3), ran).map(|(d, fault)| (d.kind, d.shape, fault))
        };
        assert_eq!(kind(&out(Termination::Exited { code: 0 }, ""), true), None);
        assert_eq!(
            kind(&out(Termination::TimedOut, ""), true),
            Some(("timeout".into(), Some(3), true))
        );
        assert_eq!(
            kind(&out(Termination::CpuLimit, ""), true).unwrap().0,
            "cpu_limit"
        );
        assert_eq!(
            kind(&out(Termination::OutputLimit, ""), true).unwrap().0,
            "output_limit"
        );
        assert_eq!(
            kind(
                &out(
                    Termination::Signaled {
                        signal: libc::SIGSEGV
                    },
                    ""
                ),
                true
            )
            .unwrap()
            .0,
            "crash"
        );
        let oom = out(
            Termination::Signaled {
                signal: libc::SIGABRT,
            },
            "terminate called after throwing an instance of 'std::bad_alloc'",
        );
        assert_eq!(kind(&oom, true).unwrap().0, "memory_limit");
        let harness = out(Termination::Exited { code: 2 }, "harness error: bad plan");
        assert!(
            !kind(&harness, false).unwrap().2,
            "before the candidate ran: the judge's fault"
        );
        assert!(
            kind(&harness, true).unwrap().2,
            "after: possibly the candidate's"
        );
        assert_eq!(
            kind(&out(Termination::Exited { code: 7 }, ""), true)
                .unwrap()
                .0,
            "process_exit"
        );
    }

    #[test]
    fn image_size_of_this_test_binary() {
        let exe = std::env::current_exe().unwrap();
        let n = image_bytes(&exe).unwrap();
        assert!(n > 4096 && n < (1 << 32), "{n}");
        assert_eq!(image_bytes(Path::new("/nonexistent")), None);
    }

    #[test]
    fn plan_format() {
        let params = vec![
            PlanParam {
                output: false,
                elem_bytes: 2,
                poison: vec![],
            },
            PlanParam {
                output: true,
                elem_bytes: 4,
                poison: vec![1, 2, 0xc0, 0x7f],
            },
        ];
        let shapes = vec![PlanShape {
            dims: vec![3, 5],
            counts: vec![15, 15],
            inputs: vec![vec![0; 30], vec![]],
        }];
        assert_eq!(
            plan_text(&params, &shapes, 1024),
            "params 2\nparam 0 in 2 0000\nparam 1 out 4 0102c07f\nmax_workspace 1024\nshapes 1\nshape 0 dims 2 3 5 counts 15 15\n"
        );
        let dir = tempfile::tempdir().unwrap();
        write_plan(dir.path(), &params, &shapes, 0).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("s0_p0.in")).unwrap().len(),
            30
        );
        std::fs::write(dir.path().join("progress.txt"), "begin 0\n").unwrap();
        std::fs::write(
            dir.path().join("s0.status"),
            "tiling_rc 0\nblock_dim 8\ninput_changed 0 4 1\ninput_changed 1 2 0\n",
        )
        .unwrap();
        let r = read_results(dir.path(), &[4, 7], &params);
        assert_eq!((r[0].shape, r[1].shape), (4, 7));
        assert_eq!((r[0].state, r[1].state), (RunState::Died, RunState::NotRun));
        assert_eq!(r[0].block_dim, 8);
        assert_eq!(r[0].tiling_rc, Some(0));
        assert_eq!(
            r[0].input_changes,
            vec![
                InputChange {
                    param: 0,
                    bytes: 4,
                    first_element: 1
                },
                InputChange {
                    param: 1,
                    bytes: 2,
                    first_element: 0
                }
            ]
        );
        assert!(!r[0].launched());
    }
}
