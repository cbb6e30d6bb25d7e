//! Running an untrusted program: its own process (and process group), resource limits set
//! with `setrlimit` before `exec`, a wall-clock timeout that kills the whole group, stdout
//! and stderr into size-limited files, and — where the platform allows — a fresh user and
//! network namespace, so the program has no network (Linux: `unshare(CLONE_NEWUSER |
//! CLONE_NEWNET)`; where that fails, e.g. user namespaces disabled, the run goes on without
//! it and [`Isolation`] says so).
//!
//! A crash, hang or limit hit is a [`Termination`], never an error of the caller; only a
//! failure to start the program at all is an `Err`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::report::Isolation;

/// Resource limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time; the process group is killed (SIGKILL) after it.
    pub wall: Duration,
    /// CPU seconds over all threads (`RLIMIT_CPU`: SIGXCPU, then SIGKILL one second later).
    pub cpu_seconds: u64,
    /// Address space, bytes (`RLIMIT_AS`): allocations beyond it fail.
    pub memory_bytes: u64,
    /// Largest file the process may write, bytes (`RLIMIT_FSIZE`: SIGXFSZ), which also
    /// bounds its stdout and stderr (they go to files).
    pub file_bytes: u64,
    /// Bytes of stdout and of stderr kept in [`RunOutput`].
    pub keep_output_bytes: usize,
}

impl Default for Limits {
    /// 120 s wall, 240 CPU-seconds, 4 GiB address space, 256 MiB per file, 64 KiB of
    /// each output stream kept.
    fn default() -> Limits {
        Limits {
            wall: Duration::from_secs(120),
            cpu_seconds: 240,
            memory_bytes: 4 << 30,
            file_bytes: 256 << 20,
            keep_output_bytes: 64 << 10,
        }
    }
}

/// How the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    /// It exited with this status.
    Exited {
        /// The exit status.
        code: i32,
    },
    /// A signal killed it (not one of the limit signals below).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// Killed after [`Limits::wall`].
    TimedOut,
    /// `RLIMIT_CPU` was hit (SIGXCPU, or SIGKILL at the hard limit).
    CpuLimit,
    /// `RLIMIT_FSIZE` was hit (SIGXFSZ): it wrote too much.
    OutputLimit,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// How it ended.
    pub termination: Termination,
    /// The first [`Limits::keep_output_bytes`] of stdout (lossy UTF-8).
    pub stdout: String,
    /// The first [`Limits::keep_output_bytes`] of stderr (lossy UTF-8).
    pub stderr: String,
    /// True when either stream was longer than what was kept.
    pub output_truncated: bool,
    /// Wall time.
    pub wall: Duration,
    /// Peak resident set, bytes (0 when unknown).
    pub max_rss_bytes: u64,
    /// What isolation applied.
    pub isolation: Isolation,
}

impl RunOutput {
    /// True when it exited with status 0.
    pub fn success(&self) -> bool {
        self.termination == Termination::Exited { code: 0 }
    }
}

/// Whether namespaces work here: 0 unknown, 1 yes, 2 no.
static NAMESPACES: AtomicU8 = AtomicU8::new(0);

/// Runs `cmd` in `dir` with `limits`; `isolate_network` asks for a network namespace.
/// stdout and stderr go to `dir/stdout.txt` and `dir/stderr.txt`; stdin is empty.
///
/// # Errors
/// The program could not be started (not found, not executable, `dir` unusable).
pub fn run(
    mut cmd: Command,
    dir: &Path,
    limits: &Limits,
    isolate_network: bool,
) -> io::Result<RunOutput> {
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let mut isolation = Isolation {
        separate_process: true,
        wall_timeout: true,
        scratch_dir: true,
        ..Isolation::default()
    };
    #[cfg(unix)]
    {
        isolation.rlimits = vec![
            "cpu".into(),
            "as".into(),
            "fsize".into(),
            "core".into(),
            "nofile".into(),
        ];
    }
    let want_ns =
        isolate_network && cfg!(target_os = "linux") && NAMESPACES.load(Ordering::Relaxed) != 2;
    let start = Instant::now();
    let mut child = match spawn(&mut cmd, dir, &out_path, &err_path, limits, want_ns) {
        Ok(c) => {
            if want_ns {
                NAMESPACES.store(1, Ordering::Relaxed);
                isolation.network_namespace = true;
            }
            c
        }
        Err(e)
            if want_ns
                && e.raw_os_error().is_some_and(|c| {
                    c == libc::EPERM || c == libc::EINVAL || c == libc::ENOSPC || c == libc::EUSERS
                }) =>
        {
            NAMESPACES.store(2, Ordering::Relaxed);
            isolation.notes.push(format!(
                "no network namespace: unshare(CLONE_NEWUSER|CLONE_NEWNET) failed: {e}"
            ));
            spawn(&mut cmd, dir, &out_path, &err_path, limits, false)?
        }
        Err(e) => return Err(e),
    };
    if isolate_network && !want_ns && NAMESPACES.load(Ordering::Relaxed) == 2 {
        isolation
            .notes
            .push("no network namespace: user namespaces are not available here".into());
    }
    let pid = child.id() as i32;
    let (termination, max_rss) = wait(pid, start, limits.wall, limits.cpu_seconds);
    // Reap through std too, so the Child does not warn; it is already reaped by wait4.
    let _ = child.try_wait();
    let wall = start.elapsed();
    let (stdout, t1) = read_head(&out_path, limits.keep_output_bytes);
    let (stderr, t2) = read_head(&err_path, limits.keep_output_bytes);
    Ok(RunOutput {
        termination,
        stdout,
        stderr,
        output_truncated: t1 || t2,
        wall,
        max_rss_bytes: max_rss,
        isolation,
    })
}

fn spawn(
    cmd: &mut Command,
    dir: &Path,
    out_path: &Path,
    err_path: &Path,
    limits: &Limits,
    namespaces: bool,
) -> io::Result<std::process::Child> {
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(File::create(out_path)?)
        .stderr(File::create(err_path)?);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let limits = *limits;
        // SAFETY: the closure runs in the forked child before exec and calls only
        // async-signal-safe system calls (setpgid, prctl, setrlimit, unshare).
        unsafe {
            cmd.pre_exec(move || child_setup(&limits, namespaces));
        }
    }
    cmd.spawn()
}

#[cfg(unix)]
fn child_setup(limits: &Limits, namespaces: bool) -> io::Result<()> {
    fn set(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> io::Result<()> {
        let r = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: plain system call with a valid pointer.
        if unsafe { libc::setrlimit(resource, &r) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    // SAFETY: plain system calls.
    unsafe {
        // Own process group: the timeout kills every process the program made.
        if libc::setpgid(0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        #[cfg(target_os = "linux")]
        {
            // Die with the judge.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0);
        }
    }
    set(libc::RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)?;
    set(libc::RLIMIT_AS, limits.memory_bytes, limits.memory_bytes)?;
    set(libc::RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes)?;
    set(libc::RLIMIT_CORE, 0, 0)?;
    set(libc::RLIMIT_NOFILE, 256, 256)?;
    #[cfg(target_os = "linux")]
    if namespaces {
        // SAFETY: plain system call; the child is single-threaded after fork.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let _ = namespaces;
    Ok(())
}

/// Waits for `pid` (polling `wait4`), killing its process group after `wall`. A SIGKILL
/// the judge did not send, with the CPU time at the limit, is the hard `RLIMIT_CPU`.
#[cfg(unix)]
fn wait(pid: i32, start: Instant, wall: Duration, cpu_limit: u64) -> (Termination, u64) {
    let mut killed_for_time = false;
    let mut sleep = Duration::from_micros(500);
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: zeroed rusage is a valid out-parameter.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointers; pid is our child.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            // ru_maxrss is in KiB on Linux.
            let rss = (usage.ru_maxrss.max(0) as u64) * 1024;
            // Anything left in the group (it should be nothing) goes too.
            // SAFETY: signalling our own child's process group.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let t = if killed_for_time {
                Termination::TimedOut
            } else if libc::WIFEXITED(status) {
                Termination::Exited {
                    code: libc::WEXITSTATUS(status),
                }
            } else if libc::WIFSIGNALED(status) {
                match libc::WTERMSIG(status) {
                    libc::SIGXCPU => Termination::CpuLimit,
                    libc::SIGXFSZ => Termination::OutputLimit,
                    // SIGKILL without our timeout: the hard CPU limit (or the OOM killer).
                    libc::SIGKILL if cpu_seconds(&usage) + 0.05 >= cpu_limit as f64 => {
                        Termination::CpuLimit
                    }
                    s => Termination::Signaled { signal: s },
                }
            } else {
                Termination::Signaled { signal: 0 }
            };
            return (t, rss);
        }
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return (Termination::Signaled { signal: 0 }, 0);
        }
        if !killed_for_time && start.elapsed() >= wall {
            killed_for_time = true;
            // SAFETY: signalling our own child's process group.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(10));
    }
}

#[cfg(unix)]
fn cpu_seconds(u: &libc::rusage) -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn read_head(path: &Path, keep: usize) -> (String, bool) {
    let Ok(mut f) = File::open(path) else {
        return (String::new(), false);
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::with_capacity(keep.min(len as usize));
    let _ = (&mut f).take(keep as u64).read_to_end(&mut buf);
    (
        String::from_utf8_lossy(&buf).into_owned(),
        len > keep as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn exit_codes_output_and_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(
            sh("echo hi; echo err >&2; exit 3"),
            dir.path(),
            &Limits::default(),
            true,
        )
        .unwrap();
        assert_eq!(out.termination, Termination::Exited { code: 3 });
        assert_eq!(out.stdout, "hi\n");
        assert_eq!(out.stderr, "err\n");
        assert!(out.isolation.separate_process);
        if out.isolation.network_namespace {
            // Only loopback exists in a fresh network namespace.
            let out = run(
                sh("cat /proc/net/dev | tail -n +3 | cut -d: -f1"),
                dir.path(),
                &Limits::default(),
                true,
            )
            .unwrap();
            assert_eq!(out.stdout.trim(), "lo", "{out:?}");
        } else {
            assert!(!out.isolation.notes.is_empty());
        }
    }

    #[test]
    fn hang_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            wall: Duration::from_millis(300),
            ..Limits::default()
        };
        let t = Instant::now();
        let out = run(sh("sleep 30 & sleep 30"), dir.path(), &limits, false).unwrap();
        assert_eq!(out.termination, Termination::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn cpu_file_and_memory_limits() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            cpu_seconds: 1,
            ..Limits::default()
        };
        let out = run(sh("while :; do :; done"), dir.path(), &limits, false).unwrap();
        assert_eq!(out.termination, Termination::CpuLimit);
        let limits = Limits {
            file_bytes: 4096,
            keep_output_bytes: 100,
            ..Limits::default()
        };
        let out = run(sh("exec yes"), dir.path(), &limits, false).unwrap();
        assert_eq!(out.termination, Termination::OutputLimit);
        assert_eq!(out.stdout.len(), 100);
        assert!(out.output_truncated);
        let limits = Limits {
            memory_bytes: 64 << 20,
            ..Limits::default()
        };
        // A shell variable of 200 MB cannot be built under a 64 MiB address space.
        let out = run(
            sh("x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}"),
            dir.path(),
            &limits,
            false,
        )
        .unwrap();
        assert!(
            !out.success() || out.stdout.trim() != "200000000",
            "{out:?}"
        );
    }

    #[test]
    fn missing_program_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(run(
            Command::new("/nonexistent/x"),
            dir.path(),
            &Limits::default(),
            false
        )
        .is_err());
    }
}
