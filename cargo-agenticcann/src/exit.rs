//! The exit statuses of `cargo agenticcann`, one meaning each for every subcommand.

use std::fmt;
use std::process::ExitCode;

/// Success: every spec valid, every candidate accepted, everything checked holds.
pub const OK: u8 = 0;
/// A verdict against the input: an invalid spec, a rejected or infeasible kernel, an
/// occupied entry, a knowledge base that fails its checks.
pub const REJECTED: u8 = 1;
/// A usage error (unknown op, package, phase; unreadable manifest or workspace) or a judge
/// that cannot run (no simulator toolchain, I/O): nothing was judged.
pub const USAGE: u8 = 2;
/// The LLM endpoint or the network is unavailable (reserved for `evolve`); return an
/// [`Unavailable`] error to get it.
pub const UNAVAILABLE: u8 = 3;

/// What a subcommand's `run` returns when it finished its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// [`OK`].
    Ok,
    /// [`REJECTED`].
    Rejected,
}

impl Status {
    /// [`Status::Ok`] when `ok`, else [`Status::Rejected`].
    pub fn of(ok: bool) -> Status {
        if ok {
            Status::Ok
        } else {
            Status::Rejected
        }
    }
}

impl Status {
    /// The exit status: [`OK`] or [`REJECTED`].
    pub fn code(self) -> u8 {
        match self {
            Status::Ok => OK,
            Status::Rejected => REJECTED,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s.code())
    }
}

/// An error meaning the LLM endpoint or the network cannot be reached: `main` exits with
/// [`UNAVAILABLE`] when one is anywhere in an error's chain (other errors exit with
/// [`USAGE`]).
#[derive(Debug)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// The exit status of an error that ended a subcommand: [`UNAVAILABLE`] or [`USAGE`].
pub fn of_error(e: &anyhow::Error) -> u8 {
    if e.chain().any(|c| c.is::<Unavailable>()) {
        UNAVAILABLE
    } else {
        USAGE
    }
}

/// Standard output for a subcommand's report: a reader that closed the pipe early (`| head`)
/// does not end the run, so the subcommand finishes its work and its exit status is its
/// verdict, not [`OK`] by default. After the first `BrokenPipe` every write is dropped.
pub fn stdout() -> Stdout {
    Stdout {
        inner: std::io::stdout().lock(),
        closed: false,
    }
}

/// See [`stdout`].
pub struct Stdout {
    inner: std::io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    fn tolerate(&mut self, r: std::io::Result<()>) -> std::io::Result<()> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.closed {
            let r = self.inner.write_all(buf);
            self.tolerate(r)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.tolerate(r)
    }
}

/// Standard error for progress, summaries, warnings and the final `error:` line. A write to
/// a standard error that is closed or whose reader left (`2>&-`, `2>&1 | head`) is dropped:
/// `eprintln!` would panic there (exit 101) and hide the subcommand's status. Any error is
/// dropped, not only `BrokenPipe`: there is nowhere left to report it. Print with
/// [`stderr!`](crate::stderr!).
pub fn stderr() -> Stderr {
    Stderr(std::io::stderr().lock())
}

/// See [`stderr`].
pub struct Stderr(std::io::StderrLock<'static>);

impl std::io::Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

/// `eprintln!` that never panics: one line to [`exit::stderr`](crate::exit::stderr), dropped
/// when standard error is closed or broken.
#[macro_export]
macro_rules! stderr {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::exit::stderr(), $($arg)*);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unavailable_anywhere_in_the_chain_exits_3() {
        let e = anyhow::Error::new(Unavailable("no LLM at http://127.0.0.1:1".into()))
            .context("evolve cannot start");
        assert_eq!(of_error(&e), UNAVAILABLE);
        assert_eq!(of_error(&anyhow::anyhow!("no op `x`")), USAGE);
        assert_eq!(Status::of(false).code(), REJECTED);
        assert_eq!(Status::of(true).code(), OK);
    }
}
