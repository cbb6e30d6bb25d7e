//! Running a compiled candidate: the plan and input files the harness reads, the sandboxed
//! process, and reading back what it wrote per shape.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

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
/// The I/O error with the path.
pub fn write_plan(
    dir: &Path,
    params: &[PlanParam],
    shapes: &[PlanShape],
    max_workspace: u64,
) -> Result<(), String> {
    let w = |p: &Path, b: &[u8]| {
        std::fs::write(p, b).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
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

/// What the harness wrote about one shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeRun {
    /// The harness began this shape.
    pub begun: bool,
    /// The harness finished this shape.
    pub finished: bool,
    /// `key value` lines of `s<i>.status` (repeated keys keep every value).
    pub status: Vec<(String, String)>,
    /// `s<i>.launch.json`, when written.
    pub launches: Option<String>,
    /// `s<i>_p<k>.out` per output parameter index.
    pub outputs: BTreeMap<usize, Vec<u8>>,
}

impl ShapeRun {
    /// The first value of `key` as a number.
    pub fn get(&self, key: &str) -> Option<i64> {
        self.status
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.split_whitespace().next()?.parse().ok())
    }

    /// Every value of `key`.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.status
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads what the harness wrote for `n` shapes.
pub fn read_results(dir: &Path, n: usize, params: &[PlanParam]) -> Vec<ShapeRun> {
    let progress = std::fs::read_to_string(dir.join("progress.txt")).unwrap_or_default();
    let mut runs = vec![ShapeRun::default(); n];
    for line in progress.lines() {
        let mut it = line.split_whitespace();
        let (Some(tag), Some(i)) = (it.next(), it.next().and_then(|v| v.parse::<usize>().ok()))
        else {
            continue;
        };
        if let Some(r) = runs.get_mut(i) {
            match tag {
                "begin" => r.begun = true,
                "end" => r.finished = true,
                _ => {}
            }
        }
    }
    for (i, r) in runs.iter_mut().enumerate() {
        if !r.begun {
            continue;
        }
        if let Ok(s) = std::fs::read_to_string(dir.join(format!("s{i}.status"))) {
            r.status = s
                .lines()
                .filter_map(|l| {
                    let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                    (!k.is_empty()).then(|| (k.to_string(), v.to_string()))
                })
                .collect();
        }
        r.launches = std::fs::read_to_string(dir.join(format!("s{i}.launch.json"))).ok();
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
        let r = read_results(dir.path(), 2, &params);
        assert!(r[0].begun && !r[0].finished && !r[1].begun);
        assert_eq!(r[0].get("block_dim"), Some(8));
        assert_eq!(r[0].all("input_changed").count(), 2);
    }
}
