//! The compile stage: a candidate's kernel and tiling function through the **same
//! translation units a build compiles** ([`crate::toolchain::sim::unit`]: namespace, allowed
//! headers, ABI `static_assert`, launcher) with the same flags
//! ([`SimToolchain::compile_args`]), plus a small glue unit of the judge's own that calls the
//! entry's launcher and tiling function for the generic run [`harness`](ensure_harness)
//! (compiled once per toolchain, cached), then one link with `libascendc_sim.a`.
//!
//! A precompiled header of `kernel_operator.h` is built once per toolchain digest (which
//! covers the flags) into the cache folder (in a private temporary folder, then renamed into
//! place, so concurrent judges never see half a header) and used by every kernel compile.
//!
//! Compiler output is trimmed to the useful lines and classified into [`ErrorKind`]s, with
//! `kernel.cpp:line` / `tiling.cpp:line` locations.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::error::JudgeError;
use super::report::{Diagnostic, Stage};
use super::sandbox::{self, Limits, Termination};
use crate::codegen::launcher_params;
use crate::codegen::names::{launcher_symbol, tiling_struct, tiling_symbol};
use crate::key::Key;
use crate::spec::OpSpec;
use crate::toolchain::sim::unit::{self, include_path, LauncherKind};
use crate::toolchain::sim::{command_words, SimToolchain};

/// What kind of compile error a candidate has: the first error decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A name the compiler does not know: undeclared identifier, no such member, not a type
    /// (an API that does not exist, or is not in the simulator).
    UnknownApi,
    /// No overload matches the argument types or count.
    NoMatchingFunction,
    /// Template arguments that do not fit (wrong count or kind, deduction conflict).
    WrongTemplateArgs,
    /// A value of the wrong type: invalid conversion, invalid operands.
    TypeMismatch,
    /// Malformed code: `expected … before …`, stray characters.
    Syntax,
    /// A `static_assert` in the simulator's API failed (e.g. an illegal `Cast` pair).
    StaticAssert,
    /// The entry point's or tiling function's signature differs from the ABI.
    SignatureMismatch,
    /// Linking failed: undefined or multiply defined symbols.
    Linker,
    /// The compiler hit the time or memory limit.
    CompilerLimit,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// The snake_case name used as the diagnostic kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnknownApi => "unknown_api",
            ErrorKind::NoMatchingFunction => "no_matching_function",
            ErrorKind::WrongTemplateArgs => "wrong_template_args",
            ErrorKind::TypeMismatch => "type_mismatch",
            ErrorKind::Syntax => "syntax",
            ErrorKind::StaticAssert => "static_assert",
            ErrorKind::SignatureMismatch => "signature_mismatch",
            ErrorKind::Linker => "linker",
            ErrorKind::CompilerLimit => "compiler_limit",
            ErrorKind::Other => "other",
        }
    }

    /// Classifies one compiler or linker error message (the text after `error:`).
    pub fn classify(message: &str) -> ErrorKind {
        let m = message;
        let has = |s: &str| m.contains(s);
        if has("agenticcann-abi") {
            ErrorKind::SignatureMismatch
        } else if has("static assertion failed") || has("static_assert") {
            ErrorKind::StaticAssert
        } else if has("undefined reference")
            || has("multiple definition")
            || has("ld returned")
            || has("cannot find -l")
        {
            ErrorKind::Linker
        } else if has("was not declared")
            || has("has no member named")
            || has("is not a member of")
            || has("does not name a type")
            || has("undeclared")
            || has("not declared in this scope")
            || has("is not a type")
            || has("is not a namespace")
            || has("unknown type name")
        {
            ErrorKind::UnknownApi
        } else if has("wrong number of template arguments")
            || has("template argument")
            || has("type/value mismatch")
            || has("deduction/substitution")
            || has("could not deduce")
            || has("deduced conflicting")
        {
            ErrorKind::WrongTemplateArgs
        } else if has("no matching function")
            || has("no matching member function")
            || has("is ambiguous")
            || has("too many arguments")
            || has("too few arguments")
            || has("no matching constructor")
        {
            ErrorKind::NoMatchingFunction
        } else if has("invalid conversion")
            || has("cannot convert")
            || has("invalid operands")
            || has("no match for 'operator")
            || has("no match for ‘operator")
            || has("incompatible")
            || has("narrowing conversion")
            || has("invalid cast")
            || has("conversion from")
            || has("cannot bind")
            || has("discards qualifiers")
            || has("invalid static_cast")
            || has("invalid use of")
            || has("assignment of read-only")
        {
            ErrorKind::TypeMismatch
        } else if has("expected ")
            || has("stray ")
            || has("missing terminating")
            || has("unterminated")
            || has("before numeric constant")
            || has("extra qualification")
            || has("unqualified-id")
        {
            ErrorKind::Syntax
        } else {
            ErrorKind::Other
        }
    }
}

/// The judge's cache folder: `$AGENTICCANN_CACHE_DIR/judge`, else the platform cache
/// folder + `agenticcann/judge` (`$XDG_CACHE_HOME`, else `~/.cache`), else the temporary
/// folder + `agenticcann-judge`.
pub fn default_cache_dir() -> PathBuf {
    let env = |k: &str| crate::env::var_os(k).map(PathBuf::from);
    if let Some(d) = env("AGENTICCANN_CACHE_DIR") {
        return d.join("judge");
    }
    if let Some(d) = env("XDG_CACHE_HOME") {
        return d.join("agenticcann").join("judge");
    }
    if let Some(h) = env("HOME") {
        return h.join(".cache").join("agenticcann").join("judge");
    }
    std::env::temp_dir().join("agenticcann-judge")
}

/// A unique private folder under `cache` for building something before renaming it.
fn private_tmp(cache: &Path) -> Result<tempfile::TempDir, JudgeError> {
    std::fs::create_dir_all(cache).map_err(|e| JudgeError::io("create", cache, e))?;
    tempfile::Builder::new()
        .prefix(".tmp-")
        .tempdir_in(cache)
        .map_err(|e| JudgeError::io("create a folder in", cache, e))
}

fn compiler_limits() -> Limits {
    Limits {
        wall: Duration::from_secs(180),
        cpu_seconds: 300,
        memory_bytes: 6 << 30,
        file_bytes: 1 << 30,
        keep_output_bytes: 64 << 10,
    }
}

/// What one compiler process did.
struct CxxRun {
    ok: bool,
    /// stderr then stdout.
    text: String,
    termination: Termination,
}

/// Runs the compiler with `args` in `dir`.
///
/// # Errors
/// [`JudgeError::Compiler`] when it cannot be started (not installed: the message names
/// the install line).
fn run_cxx(
    tc: &SimToolchain,
    dir: &Path,
    args: &[String],
    limits: &Limits,
) -> Result<CxxRun, JudgeError> {
    let mut cmd = Command::new(&tc.cxx);
    // ASCII quotes in messages, whatever the user's locale.
    cmd.args(args).env("LC_ALL", "C");
    let out = sandbox::run(cmd, dir, limits, false).map_err(|e| JudgeError::Compiler {
        compiler: tc.cxx.clone(),
        message: crate::toolchain::cannot_run_compiler(&tc.cxx, &e),
    })?;
    let ok = out.success();
    let mut text = out.stderr;
    if !out.stdout.is_empty() {
        text.push_str(&out.stdout);
    }
    Ok(CxxRun {
        ok,
        text,
        termination: out.termination,
    })
}

/// The precompiled header for `tc` (built when missing): the path to pass to `-include`.
/// Built with [`SimToolchain::compile_args`], the flags of every unit.
///
/// # Errors
/// A message when the header cannot be built (the caller compiles without it).
pub fn ensure_pch(tc: &SimToolchain, cache: &Path) -> Result<PathBuf, String> {
    let digest = tc.digest();
    let dir = cache.join(format!("pch-{}", &digest[..32]));
    let header = dir.join("agc_pch.h");
    if dir.join("agc_pch.h.gch").is_file() {
        return Ok(header);
    }
    let tmp = private_tmp(cache).map_err(|e| e.to_string())?;
    std::fs::write(
        tmp.path().join("agc_pch.h"),
        "#include \"kernel_operator.h\"\n",
    )
    .map_err(|e| format!("cannot write the PCH source: {e}"))?;
    let mut args = tc.compile_args(tmp.path());
    args.extend([
        "-x".into(),
        "c++-header".into(),
        "agc_pch.h".into(),
        "-o".into(),
        "agc_pch.h.gch".into(),
    ]);
    let r = run_cxx(tc, tmp.path(), &args, &compiler_limits()).map_err(|e| e.to_string())?;
    if !r.ok {
        return Err(format!(
            "building the precompiled header failed:\n{}",
            trim(&r.text, 20)
        ));
    }
    let tmp_path = tmp.keep();
    match std::fs::rename(&tmp_path, &dir) {
        Ok(()) => {}
        Err(_) if dir.join("agc_pch.h.gch").is_file() => {
            // Another judge won the race: use its header.
            let _ = std::fs::remove_dir_all(&tmp_path);
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp_path);
            return Err(format!(
                "cannot move the precompiled header into {}: {e}",
                dir.display()
            ));
        }
    }
    Ok(header)
}

/// The run harness object for `tc` (compiled when missing).
///
/// # Errors
/// [`JudgeError::Harness`] when it does not compile (a bug or a broken toolchain, not the
/// candidate's fault), [`JudgeError::Compiler`], [`JudgeError::Io`].
pub fn ensure_harness(tc: &SimToolchain, cache: &Path) -> Result<PathBuf, JudgeError> {
    const SRC: &str = include_str!("harness.cpp");
    let mut h = blake3::Hasher::new();
    h.update(tc.digest().as_bytes());
    h.update(SRC.as_bytes());
    let digest = h.finalize().to_hex();
    let obj = cache.join(format!("harness-{}.o", &digest[..32]));
    if obj.is_file() {
        return Ok(obj);
    }
    let tmp = private_tmp(cache)?;
    let src = tmp.path().join("harness.cpp");
    std::fs::write(&src, SRC).map_err(|e| JudgeError::io("write", &src, e))?;
    let mut args = tc.compile_args(tmp.path());
    args.extend([
        "-c".into(),
        "harness.cpp".into(),
        "-o".into(),
        "harness.o".into(),
    ]);
    let r = run_cxx(tc, tmp.path(), &args, &compiler_limits())?;
    if !r.ok {
        return Err(JudgeError::Harness(format!(
            "compiling the judge's harness failed:\n{}",
            trim(&r.text, 30)
        )));
    }
    std::fs::rename(tmp.path().join("harness.o"), &obj)
        .map_err(|e| JudgeError::io("move the harness object into", cache, e))?;
    Ok(obj)
}

/// The judge's glue unit: the entry points the [harness](ensure_harness) calls
/// (`agc_judge_launch`, `agc_judge_tiling`, `agc_judge_tiling_bytes`) over the entry's
/// `aclrtlaunch_agc_<key16>` launcher and tiling function, which the shared units define.
/// Only the generated header is included: no candidate code is compiled here.
///
/// # Errors
/// As [`include_path`].
pub fn glue_unit(key: &Key, op: &OpSpec, header: &Path) -> Result<String, String> {
    let params = launcher_params(op);
    let gm = params.len() - 1; // the last is the workspace
    let decl: Vec<String> = params.iter().map(|p| format!("void* {p}")).collect();
    let args: Vec<String> = (0..gm)
        .map(|i| format!("gm[{i}]"))
        .chain(std::iter::once("workspace".to_string()))
        .collect();
    let st = tiling_struct(key);
    Ok(format!(
        r#"// The judge's glue for store entry {key} (op `{name}`). Generated by the agenticcann judge.
#include <cstdint>
#include <cstring>
#include "{header}"
extern "C" uint32_t {launcher}(uint32_t blockDim, void* stream, {decl}, {st} tiling);
extern "C" int {tiling_fn}(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims, {st}* tiling, uint32_t* block_dim, uint64_t* workspace_bytes);
extern "C" uint32_t agc_judge_tiling_bytes(void) {{ return sizeof({st}); }}
extern "C" int agc_judge_tiling(const void* p, const uint64_t* d, uint32_t n, void* t, uint32_t* b, uint64_t* w) {{
  return {tiling_fn}(static_cast<const AgcPlatform*>(p), d, n, static_cast<{st}*>(t), b, w);
}}
extern "C" uint32_t agc_judge_launch(uint32_t block_dim, void* stream, void* const* gm, void* workspace, const void* tiling) {{
  {st} t;
  std::memcpy(&t, tiling, sizeof t);
  return {launcher}(block_dim, stream, {args}, t);
}}
"#,
        name = op.name,
        header = include_path(header)?,
        launcher = launcher_symbol(key),
        tiling_fn = tiling_symbol(key),
        decl = decl.join(", "),
        args = args.join(", "),
    ))
}

/// The file names of a candidate in its scratch folder.
pub const KERNEL_UNIT: &str = "kernel_tu.cpp";
/// The tiling unit's file name in the scratch folder.
pub const TILING_UNIT: &str = "tiling_tu.cpp";
/// The glue unit's file name in the scratch folder.
pub const GLUE_UNIT: &str = "judge_glue.cpp";

/// A compiled candidate: the result of the compile stage ([`super::compile`]). Owns its
/// scratch folder (removed on drop unless kept).
#[derive(Debug)]
pub struct Compiled {
    pub(super) scratch: Option<tempfile::TempDir>,
    /// The scratch folder: the candidate's files, the units, objects and the program.
    pub dir: PathBuf,
    /// The linked program, when everything compiled.
    pub exe: Option<PathBuf>,
    /// Classified errors (none when `exe` is set), then warnings (e.g. `pch_unavailable`).
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the kernel compile used the precompiled header.
    pub pch: bool,
    /// Wall time of the stage, ms.
    pub ms: f64,
    /// The kernel's translation unit, byte for byte what a build compiles for the entry
    /// (but the paths of the included files).
    pub kernel_unit: String,
    /// The kernel unit's compiler command (program and arguments; the PCH's `-include`
    /// included).
    pub kernel_command: Vec<String>,
    /// The tiling unit's compiler command.
    pub tiling_command: Vec<String>,
}

impl Compiled {
    /// Whether the candidate compiled and linked.
    pub fn ok(&self) -> bool {
        self.exe.is_some()
    }

    /// Keeps the scratch folder after `self` is dropped and returns its path.
    pub fn keep(&mut self) -> PathBuf {
        if let Some(s) = self.scratch.take() {
            let _ = s.keep();
        }
        self.dir.clone()
    }
}

/// What to compile: the candidate's three files as text.
pub(super) struct Sources<'a> {
    pub kernel: &'a str,
    pub tiling: &'a str,
    pub header: &'a str,
}

/// Compiles one candidate's sources for `op` in a fresh scratch folder under
/// `scratch_root`: the kernel, tiling and glue units (concurrently), then the link with the
/// harness into `candidate`. `pch` is the header from [`ensure_pch`].
///
/// # Errors
/// [`JudgeError`] when the scratch folder cannot be written or the compiler cannot be
/// started; every problem of the candidate is a diagnostic of the returned [`Compiled`].
pub(super) fn compile_sources(
    tc: &SimToolchain,
    op: &OpSpec,
    src: &Sources<'_>,
    scratch_root: &Path,
    harness: &Path,
    pch: Option<&Path>,
) -> Result<Compiled, JudgeError> {
    let start = Instant::now();
    let key = op.key();
    let scratch = tempfile::Builder::new()
        .prefix("agc-judge-")
        .tempdir_in(scratch_root)
        .map_err(|e| JudgeError::io("create a scratch folder in", scratch_root, e))?;
    // Absolute: the units include the entry's files by path.
    let dir = std::path::absolute(scratch.path()).unwrap_or_else(|_| scratch.path().into());
    let stub = dir.join("include");
    let header = dir.join(unit::GENERATED_HEADER);
    let kernel = dir.join("kernel.cpp");
    let tiling = dir.join("tiling.cpp");
    let path_err = |m: String| JudgeError::Io {
        action: "include",
        path: dir.clone(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, m),
    };
    let kernel_unit =
        unit::kernel_unit(&key, op, &header, &kernel, LauncherKind::Sim).map_err(path_err)?;
    let tiling_unit = unit::tiling_unit(&key, op, &header, &tiling).map_err(path_err)?;
    let glue = glue_unit(&key, op, &header).map_err(path_err)?;
    std::fs::create_dir_all(&stub).map_err(|e| JudgeError::io("create", &stub, e))?;
    for (path, text) in [
        (stub.join(unit::GENERATED_HEADER), unit::STUB_HEADER),
        (kernel.clone(), src.kernel),
        (tiling.clone(), src.tiling),
        (header.clone(), src.header),
        (dir.join(KERNEL_UNIT), kernel_unit.as_str()),
        (dir.join(TILING_UNIT), tiling_unit.as_str()),
        (dir.join(GLUE_UNIT), glue.as_str()),
    ] {
        std::fs::write(&path, text).map_err(|e| JudgeError::io("write", &path, e))?;
    }

    let limits = compiler_limits();
    let command = |source: &str, object: &str, pch: Option<&Path>| -> Vec<String> {
        let mut a = tc.compile_args(&stub);
        if let Some(p) = pch {
            a.extend([
                "-Winvalid-pch".into(),
                "-include".into(),
                p.display().to_string(),
            ]);
        }
        a.extend(["-c".into(), source.into(), "-o".into(), object.into()]);
        a
    };
    let kernel_args = command(KERNEL_UNIT, "kernel.o", pch);
    let tiling_args = command(TILING_UNIT, "tiling.o", None);
    let glue_args = command(GLUE_UNIT, "glue.o", None);
    let words = |args: &[String]| {
        let mut c = Command::new(&tc.cxx);
        c.args(args);
        command_words(&c)
    };
    let kernel_command = words(&kernel_args);
    let tiling_command = words(&tiling_args);

    let (k, t, g) = std::thread::scope(|s| {
        let k = s.spawn(|| run_cxx(tc, &dir, &kernel_args, &limits));
        let g = s.spawn(|| run_cxx(tc, &dir, &glue_args, &limits));
        let t = run_cxx(tc, &dir, &tiling_args, &limits);
        let panicked = |_| Err(JudgeError::Harness("a compiler thread panicked".into()));
        (
            k.join().unwrap_or_else(panicked),
            t,
            g.join().unwrap_or_else(panicked),
        )
    });
    let mut diagnostics = Vec::new();
    let mut pch_used = pch.is_some();
    let mut ok = true;
    for (res, file) in [(k?, "kernel.cpp"), (t?, "tiling.cpp"), (g?, "kernel.cpp")] {
        if res.text.contains("not using") && res.text.contains(".gch") {
            pch_used = false;
        }
        if res.ok {
            continue;
        }
        ok = false;
        let text = &res.text;
        let term = res.termination;
        if matches!(
            term,
            Termination::TimedOut | Termination::CpuLimit | Termination::OutputLimit
        ) || (matches!(term, Termination::Signaled { .. }) && !text.contains("error"))
            || text.contains("virtual memory exhausted")
            || text.contains("out of memory")
        {
            diagnostics.push(
                Diagnostic::error(
                    Stage::Compile,
                    ErrorKind::CompilerLimit.as_str(),
                    format!("compiling {file} hit a compiler limit ({term:?})"),
                )
                .at(file, 0),
            );
        } else {
            let parsed = parse_errors(text, &dir);
            if parsed.is_empty() {
                diagnostics.push(
                    Diagnostic::error(Stage::Compile, "other", format!("compiling {file} failed"))
                        .note(trim(text, 12)),
                );
            } else {
                diagnostics.extend(parsed);
            }
        }
    }
    let mut compiled = Compiled {
        scratch: Some(scratch),
        dir: dir.clone(),
        exe: None,
        diagnostics,
        pch: pch_used,
        ms: 0.0,
        kernel_unit,
        kernel_command,
        tiling_command,
    };
    if ok {
        let link_args: Vec<String> = vec![
            "-pthread".into(),
            "-o".into(),
            "candidate".into(),
            harness.display().to_string(),
            "kernel.o".into(),
            "tiling.o".into(),
            "glue.o".into(),
            tc.library().display().to_string(),
        ];
        let r = run_cxx(tc, &dir, &link_args, &limits)?;
        if r.ok {
            compiled.exe = Some(dir.join("candidate"));
        } else {
            let mut parsed = parse_errors(&r.text, &dir);
            if parsed.is_empty() {
                parsed.push(
                    Diagnostic::error(Stage::Compile, "linker", "linking failed")
                        .note(trim(&r.text, 12)),
                );
            }
            compiled.diagnostics.extend(parsed);
        }
    }
    compiled.ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(compiled)
}

/// The first `n` lines of `text`.
fn trim(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut s = lines.iter().take(n).cloned().collect::<Vec<_>>().join("\n");
    if lines.len() > n {
        s.push_str(&format!("\n… {} more lines", lines.len() - n));
    }
    s
}

/// Parses GCC/ld output into classified error diagnostics (at most 10), with following
/// `note:` lines (at most 4 each) as notes. Paths in the scratch folder become bare file
/// names; locations in the generated wrappers map to the entry-point's file; an error inside
/// the simulator's headers (a `static_assert` of the API, a failed instantiation) is placed
/// at the candidate's line that instantiated it (`required from here`), with the header
/// location kept as a note.
pub fn parse_errors(text: &str, dir: &Path) -> Vec<Diagnostic> {
    let dir_prefix = format!("{}/", dir.display());
    let is_candidate = |f: &str| matches!(f, "kernel.cpp" | "tiling.cpp");
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut context: Option<String> = None; // "In function ..." lines
                                            // The innermost candidate location of the current instantiation chain.
    let mut required_from: Option<(String, u32)> = None;
    for raw in text.lines() {
        let line = raw.replace(&dir_prefix, "");
        if line.ends_with(':')
            && (line.contains("In function")
                || line.contains("In member function")
                || line.contains("In instantiation"))
        {
            context = Some(line.clone());
            required_from = None;
            continue;
        }
        if line.contains("required from") {
            let loc = line.split(": ").next().unwrap_or("").trim();
            let (file, ln) = parse_loc(loc);
            if is_candidate(&file) && ln > 0 {
                required_from = Some((file, ln));
            }
            continue;
        }
        if let Some((loc, msg)) =
            split_diag(&line, "error: ").or_else(|| split_diag(&line, "fatal error: "))
        {
            if out.len() >= 10 {
                continue;
            }
            let kind = ErrorKind::classify(msg);
            let (file, ln) = parse_loc(loc);
            let mut header_note = None;
            let (file, ln) = match file.as_str() {
                "kernel_tu.cpp" => ("kernel.cpp".to_string(), 0),
                "tiling_tu.cpp" => ("tiling.cpp".to_string(), 0),
                f if is_candidate(f) => (file, ln),
                _ => match required_from.take() {
                    Some((cf, cl)) => {
                        let short = file.rsplit('/').next().unwrap_or(&file).to_string();
                        header_note = Some(format!("in the simulator's {short}:{ln}"));
                        (cf, cl)
                    }
                    None => (file, ln),
                },
            };
            let mut d = Diagnostic::error(Stage::Compile, kind.as_str(), msg.trim().to_string());
            if !file.is_empty() {
                d = d.at(&file, ln);
            }
            if let Some(n) = header_note {
                d = d.note(n);
            }
            if let Some(c) = context.take() {
                d = d.note(c);
            }
            out.push(d);
        } else if let Some(msg) = line.strip_prefix("collect2: error: ") {
            if out.iter().all(|d| d.kind != "linker") {
                out.push(Diagnostic::error(Stage::Compile, "linker", msg.to_string()));
            }
        } else if line.contains("undefined reference to") || line.contains("multiple definition of")
        {
            if out.len() < 10 {
                let msg = line.rsplit(": ").next().unwrap_or(&line).to_string();
                out.push(Diagnostic::error(Stage::Compile, "linker", msg));
            }
        } else if let Some((loc, msg)) = split_diag(&line, "note: ") {
            if let Some(last) = out.last_mut() {
                if last.notes.len() < 4 {
                    let (file, ln) = parse_loc(loc);
                    let short = file.rsplit('/').next().unwrap_or(&file).to_string();
                    last.notes.push(if ln > 0 {
                        format!("note: {short}:{ln}: {msg}")
                    } else {
                        format!("note: {msg}")
                    });
                }
            }
        }
    }
    out
}

/// Splits `loc: <tag>msg` at the first occurrence of `tag` after a location.
fn split_diag<'a>(line: &'a str, tag: &str) -> Option<(&'a str, &'a str)> {
    let i = line.find(&format!(": {tag}"))?;
    Some((&line[..i], &line[i + 2 + tag.len()..]))
}

/// `file:line:col` → (file, line); unparsable parts give ("", 0) / line 0.
fn parse_loc(loc: &str) -> (String, u32) {
    let mut parts = loc.rsplitn(3, ':');
    let a = parts.next().unwrap_or("");
    let b = parts.next();
    let c = parts.next();
    match (c, b) {
        (Some(file), Some(line)) if line.parse::<u32>().is_ok() => {
            (file.to_string(), line.parse().unwrap_or(0))
        }
        _ => match (b, a.parse::<u32>()) {
            (Some(file), Ok(line)) => (file.to_string(), line),
            _ => (loc.to_string(), 0),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing compiler is named with the line that installs one.
    #[test]
    fn a_missing_compiler_names_the_install_line() {
        let dir = tempfile::tempdir().unwrap();
        let tc = SimToolchain {
            cxx: dir.path().join("no-such-g++"),
            include: dir.path().into(),
            lib_dir: dir.path().into(),
            profiles: dir.path().into(),
            extra_flags: Vec::new(),
        };
        let e = run_cxx(&tc, dir.path(), &["--version".into()], &compiler_limits())
            .err()
            .expect("no such compiler");
        assert!(matches!(e, JudgeError::Compiler { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("apt-get install g++"), "{e}");
        assert!(e.contains("no-such-g++"), "{e}");
    }

    #[test]
    fn classifies_gcc_messages() {
        let cases = [
            ("'DataCopyX' was not declared in this scope", ErrorKind::UnknownApi),
            ("'class AscendC::TPipe' has no member named 'Init'", ErrorKind::UnknownApi),
            ("no matching function for call to 'Add(AscendC::LocalTensor<float>&)'", ErrorKind::NoMatchingFunction),
            ("wrong number of template arguments (2, should be 1)", ErrorKind::WrongTemplateArgs),
            ("type/value mismatch at argument 1 in template parameter list", ErrorKind::WrongTemplateArgs),
            ("invalid conversion from 'int*' to 'int'", ErrorKind::TypeMismatch),
            ("cannot convert 'float' to 'half*'", ErrorKind::TypeMismatch),
            ("expected ';' before '}' token", ErrorKind::Syntax),
            ("static assertion failed: Cast: this source/destination dtype pair is not supported", ErrorKind::StaticAssert),
            ("static assertion failed: agenticcann-abi: the kernel must be", ErrorKind::SignatureMismatch),
            ("ld returned 1 exit status", ErrorKind::Linker),
            ("something else entirely", ErrorKind::Other),
        ];
        for (m, k) in cases {
            assert_eq!(ErrorKind::classify(m), k, "{m}");
        }
    }

    #[test]
    fn parses_locations_and_notes() {
        let dir = Path::new("/tmp/scratch-x");
        let text = "\
kernel.cpp: In function 'void agc_1(uint8_t*, uint8_t*)':
kernel.cpp:12:5: error: 'Foo' was not declared in this scope
/tmp/scratch-x/kernel.cpp:13:1: note: suggested alternative: 'For'
kernel_tu.cpp:4:15: error: static assertion failed: agenticcann-abi: the kernel must be `x`
/usr/bin/ld: kernel.o: in function `f': kernel.cpp:(.text+0x1): undefined reference to `bar'
collect2: error: ld returned 1 exit status
";
        let d = parse_errors(text, dir);
        assert_eq!(d.len(), 4, "{d:#?}");
        assert_eq!(d[0].kind, "unknown_api");
        assert_eq!(
            (d[0].file.as_deref(), d[0].line),
            (Some("kernel.cpp"), Some(12))
        );
        assert!(d[0].notes.iter().any(|n| n.contains("In function")));
        assert!(d[0]
            .notes
            .iter()
            .any(|n| n.contains("kernel.cpp:13: suggested")));
        assert_eq!(d[1].kind, "signature_mismatch");
        assert_eq!(
            (d[1].file.as_deref(), d[1].line),
            (Some("kernel.cpp"), None)
        );
        assert_eq!(d[2].kind, "linker");
        assert!(
            d[2].message.contains("undefined reference to `bar'"),
            "{}",
            d[2].message
        );
        assert_eq!(d[3].kind, "linker");
    }

    #[test]
    fn errors_in_simulator_headers_point_at_the_candidate_line() {
        let text = "\
/sim/include/ascendc_sim/vec_cast.h: In instantiation of 'void AscendC::Cast(...) [with T = bfloat16_t; U = half]':
kernel.cpp:55:9:   required from here
/sim/include/ascendc_sim/vec_cast.h:170:17: error: static assertion failed: Cast: this (source, destination) type pair is not supported on Ascend910B
";
        let d = parse_errors(text, Path::new("/tmp/x"));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind, "static_assert");
        assert_eq!(
            (d[0].file.as_deref(), d[0].line),
            (Some("kernel.cpp"), Some(55))
        );
        assert!(d[0].notes[0].contains("vec_cast.h:170"), "{:?}", d[0].notes);
    }
}
