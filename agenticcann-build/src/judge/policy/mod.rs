//! The source policy: what untrusted kernel and tiling sources may contain, checked on
//! preprocessing tokens (comments and literals understood, line splices and digraphs
//! resolved) before any compiler sees them (DESIGN §9).
//!
//! A candidate is rejected, with the line of each violation, when a file:
//! - is larger than the limits ([`PolicyLimits`]);
//! - includes anything but the allowed headers (kernel: `kernel_operator.h`,
//!   `agenticcann_tiling.h`; tiling: `agenticcann_tiling.h`, `<cstdint>`, `<cstddef>`,
//!   `<algorithm>`, `<cmath>`, `<climits>`, `<limits>`, `<type_traits>` — store-format §4/§5),
//!   or includes through a macro;
//! - uses a directive or operator that reaches other files or changes what the compiler
//!   reports (`#include_next`, `#import`, `#embed`, `#line`, `#pragma` other than `once`,
//!   `unroll`, `GCC unroll`, `GCC ivdep`, `_Pragma`, `__has_include`, `##` token pasting,
//!   which could assemble any forbidden name);
//! - contains inline assembly (`asm`, `__asm__`);
//! - names a system, process, file, network, environment, dynamic-loading, timing or
//!   thread facility (`system`, `popen`, `fork`, `exec*`, `fopen`, `open`, `socket`,
//!   `dlopen`, `syscall`, `getenv`, `thread`, …), allocates on the heap (`new`, `malloc`,
//!   containers), or uses exceptions (no heap, threads or exceptions exist on an AI Core);
//! - names the simulator's internals (`ascendc_sim`, AscendCL `acl*` calls, `GmAlloc`) or
//!   reopens `namespace std` / `namespace AscendC`;
//! - uses a reserved identifier (`__x`, `_X`) that is not on the allowlist (this closes
//!   `__builtin_*`, `__libc_*`, `_IO_*`, `__has_include`, `__attribute__((constructor))`-style
//!   back doors in one rule);
//! - declares an attribute outside a small allowlist (`aligned`, `always_inline`, …: no
//!   `constructor`, `section`, `alias`, …);
//! - has an `extern` other than its entry point (`extern "C" __global__ __aicore__ void
//!   AGC_KERNEL(` / `extern "C" int AGC_TILING_FN(`), or no entry point;
//! - defines or undefines the ABI macros (`AGC_*`, `AgcTiling`, `AgcPlatform`), or defines
//!   or undefines any macro before an `#include` (it would change what the headers mean);
//! - (kernels) reaches GM or UB memory through a raw pointer instead of the tensor API: see
//!   [`raw`] for the `raw_gm_access`, `raw_pointer` and `bulk_memory` rules.
//!
//! Every identifier is checked wherever it appears — code, macro bodies, `#if` lines — so a
//! macro cannot spell a forbidden call either (`#define X system` is rejected at `X`'s
//! definition).

pub mod lexer;
mod raw;

use std::collections::BTreeSet;

pub use lexer::{lex, LexError, Token, TokenKind};

use super::report::{Diagnostic, Stage};

/// Which file of a candidate a source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// `kernel.cpp`: device code.
    Kernel,
    /// `tiling.cpp`: the host tiling function.
    Tiling,
}

impl SourceKind {
    /// The file name in a store entry.
    pub fn file_name(self) -> &'static str {
        match self {
            SourceKind::Kernel => "kernel.cpp",
            SourceKind::Tiling => "tiling.cpp",
        }
    }

    /// The headers this file may include (store-format §4, §5): the one list the
    /// translation units pre-include ([`crate::toolchain::sim::unit`]).
    pub fn allowed_headers(self) -> &'static [&'static str] {
        match self {
            SourceKind::Kernel => crate::toolchain::sim::unit::KERNEL_ALLOWED_HEADERS,
            SourceKind::Tiling => crate::toolchain::sim::unit::TILING_ALLOWED_HEADERS,
        }
    }
}

/// Size limits of one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyLimits {
    /// Bytes (default 256 KiB for kernels, 64 KiB for tiling).
    pub max_bytes: usize,
    /// Lines (default 8000).
    pub max_lines: usize,
    /// Preprocessing tokens (default 60000).
    pub max_tokens: usize,
}

impl PolicyLimits {
    /// The defaults for `kind`.
    pub fn default_for(kind: SourceKind) -> PolicyLimits {
        PolicyLimits {
            max_bytes: match kind {
                SourceKind::Kernel => 256 * 1024,
                SourceKind::Tiling => 64 * 1024,
            },
            max_lines: 8000,
            max_tokens: 60_000,
        }
    }
}

/// Names that reach the operating system, the file system, the network, the environment,
/// dynamic loading, processes, clocks or threads; a kernel or tiling function needs none.
const FORBIDDEN_CALLS: &[&str] = &[
    "system",
    "popen",
    "pclose",
    "fork",
    "vfork",
    "clone",
    "clone3",
    "daemon",
    "execl",
    "execlp",
    "execle",
    "execv",
    "execvp",
    "execvpe",
    "execve",
    "execveat",
    "fexecve",
    "posix_spawn",
    "posix_spawnp",
    "waitpid",
    "waitid",
    "fopen",
    "fopen64",
    "freopen",
    "fdopen",
    "tmpfile",
    "tmpnam",
    "tempnam",
    "mkstemp",
    "mkdtemp",
    "open",
    "open64",
    "openat",
    "creat",
    "remove",
    "rename",
    "renameat",
    "unlink",
    "unlinkat",
    "link",
    "symlink",
    "mkdir",
    "rmdir",
    "chdir",
    "chroot",
    "chmod",
    "chown",
    "truncate",
    "ftruncate",
    "opendir",
    "readdir",
    "filesystem",
    "fstream",
    "ifstream",
    "ofstream",
    "basic_fstream",
    "filebuf",
    "socket",
    "socketpair",
    "connect",
    "accept",
    "accept4",
    "listen",
    "getaddrinfo",
    "gethostbyname",
    "sendmsg",
    "recvmsg",
    "dlopen",
    "dlmopen",
    "dlsym",
    "dlvsym",
    "syscall",
    "ioctl",
    "fcntl",
    "dup",
    "dup2",
    "dup3",
    "mmap",
    "mmap64",
    "munmap",
    "mprotect",
    "mremap",
    "brk",
    "sbrk",
    "ptrace",
    "prctl",
    "setrlimit",
    "getrlimit",
    "kill",
    "killpg",
    "tgkill",
    "signal",
    "sigaction",
    "alarm",
    "setitimer",
    "getenv",
    "secure_getenv",
    "setenv",
    "putenv",
    "unsetenv",
    "clearenv",
    "environ",
    "exit",
    "atexit",
    "at_quick_exit",
    "quick_exit",
    "setjmp",
    "longjmp",
    "sigsetjmp",
    "siglongjmp",
    "thread",
    "jthread",
    "async",
    "pthread_create",
    "pthread_kill",
    "sleep",
    "usleep",
    "nanosleep",
    "sleep_for",
    "sleep_until",
    "clock_gettime",
    "gettimeofday",
    "getpid",
    "getppid",
    "setuid",
    "setgid",
    "main",
];

/// Heap allocation: no heap exists on an AI Core.
const HEAP: &[&str] = &[
    "new",
    "delete",
    "malloc",
    "calloc",
    "realloc",
    "aligned_alloc",
    "posix_memalign",
    "memalign",
    "valloc",
    "pvalloc",
    "alloca",
    "free",
    "vector",
    "deque",
    "forward_list",
    "unordered_map",
    "unordered_set",
    "basic_string",
    "make_unique",
    "make_shared",
    "unique_ptr",
    "shared_ptr",
    "allocator",
];

/// Exceptions: the simulator uses them to stop a core; a kernel could swallow its own
/// errors with them, and none exist on an AI Core.
const EXCEPTIONS: &[&str] = &["try", "catch", "throw"];

/// The simulator's host-side machinery.
const SIM_INTERNALS: &[&str] = &[
    "GmAlloc",
    "GmFree",
    "SetKernelMode",
    "ICPU_RUN_KF",
    "ICPU_SET_TILING_KEY",
    "set_icpu_exit_on_error",
];

/// Reserved identifiers (double underscore, or underscore + capital) a kernel may use.
const RESERVED_ALLOWED: &[&str] = &[
    "__global__",
    "__aicore__",
    "__gm__",
    "__ubuf__",
    "__inline__",
    "__vector__",
    "__cube__",
    "__attribute__",
    "__restrict__",
    "__restrict",
    "__FILE__",
    "__LINE__",
    "__func__",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
    "__VA_ARGS__",
    "__VA_OPT__",
    "__NPU_ARCH__",
    "__CCE_AICORE__",
    "__CCE_KT_TEST__",
    "__DAV_C220_VEC__",
    "__DAV_M200_VEC__",
    "__cplusplus",
    "__builtin_expect",
    "__builtin_unreachable",
    "_Float16",
    "_Float32",
    "__fp16",
    "__bf16",
    // Attribute spellings (checked again by the attribute rule).
    "__aligned__",
    "__always_inline__",
    "__noinline__",
    "__unused__",
    "__packed__",
    "__maybe_unused__",
];

/// Attribute names allowed in `__attribute__((…))` and `[[…]]`.
const ATTRIBUTES_ALLOWED: &[&str] = &[
    "aligned",
    "always_inline",
    "noinline",
    "unused",
    "maybe_unused",
    "packed",
    "nodiscard",
    "likely",
    "unlikely",
    "fallthrough",
    "noreturn",
    "deprecated",
    "const",
    "pure",
    "hot",
    "cold",
    "flatten",
    "optimize",
    "no_unique_address",
];

const PRAGMAS_ALLOWED: &[&[&str]] = &[
    &["once"],
    &["unroll"],
    &["GCC", "unroll"],
    &["GCC", "ivdep"],
];

/// Checks one source file against the policy. Returns every violation (at most 50), each
/// an error [`Diagnostic`] of [`Stage::Policy`] with the file and line; empty = allowed.
pub fn check_source(kind: SourceKind, src: &[u8], limits: &PolicyLimits) -> Vec<Diagnostic> {
    let file = kind.file_name();
    let mut c = Checker {
        kind,
        file,
        src_lines: src.split(|&b| b == b'\n').collect(),
        out: Vec::new(),
        last_include: 0,
        seen: BTreeSet::new(),
    };
    if src.len() > limits.max_bytes {
        c.push(
            0,
            "too_large",
            format!(
                "{file} is {} bytes; the limit is {} bytes",
                src.len(),
                limits.max_bytes
            ),
        );
        return c.out;
    }
    let lines = c.src_lines.len();
    if lines > limits.max_lines {
        c.push(
            0,
            "too_large",
            format!(
                "{file} has {lines} lines; the limit is {}",
                limits.max_lines
            ),
        );
        return c.out;
    }
    let tokens = match lex(src) {
        Ok(t) => t,
        Err(e) => {
            c.push(e.line, "lexical", e.message);
            return c.out;
        }
    };
    if tokens.len() > limits.max_tokens {
        c.push(
            0,
            "too_large",
            format!(
                "{file} has {} tokens; the limit is {}",
                tokens.len(),
                limits.max_tokens
            ),
        );
        return c.out;
    }
    c.last_include = tokens
        .windows(2)
        .filter(|w| w[0].is_punct("#") && w[0].line_start && w[1].is_ident("include"))
        .map(|w| w[0].line)
        .max()
        .unwrap_or(0);
    c.check(&tokens);
    if kind == SourceKind::Kernel {
        c.raw_memory(&tokens);
    }
    c.out
}

struct Checker<'a> {
    kind: SourceKind,
    file: &'static str,
    src_lines: Vec<&'a [u8]>,
    out: Vec<Diagnostic>,
    /// Line of the last `#include` (0 = none).
    last_include: u32,
    /// (line, kind, name) already reported, to report a repeated name once per line.
    seen: BTreeSet<(u32, String)>,
}

impl Checker<'_> {
    fn push(&mut self, line: u32, kind: &str, message: String) {
        if self.out.len() >= 50 || !self.seen.insert((line, message.clone())) {
            return;
        }
        let mut d = Diagnostic::error(Stage::Policy, kind, message).at(self.file, line);
        if line > 0 {
            if let Some(text) = self.src_lines.get(line as usize - 1) {
                let t = String::from_utf8_lossy(text);
                let t = t.trim();
                let t: String = t.chars().take(160).collect();
                d = d.note(format!("{line} | {t}"));
            }
        }
        self.out.push(d);
    }

    fn check(&mut self, toks: &[Token]) {
        let mut entry_points = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.is_punct("#") && t.line_start {
                let end = toks[i + 1..]
                    .iter()
                    .position(|x| x.line_start)
                    .map_or(toks.len(), |p| i + 1 + p);
                self.directive(&toks[i..end]);
                // The directive's identifiers still go through the name rules below.
                for x in &toks[i + 1..end] {
                    if x.kind == TokenKind::Ident {
                        self.name(x);
                    } else if x.is_punct("##") {
                        self.push(
                            x.line,
                            "token_pasting",
                            "token pasting (`##`) is not allowed: it can assemble any forbidden name"
                                .into(),
                        );
                    }
                }
                i = end;
                continue;
            }
            match t.kind {
                TokenKind::Ident => {
                    if t.text == "extern" {
                        if self.entry_point(&toks[i..]) {
                            entry_points += 1;
                            if entry_points > 1 {
                                self.push(
                                    t.line,
                                    "forbidden_extern",
                                    "a second entry point: a candidate has exactly one".into(),
                                );
                            }
                        } else {
                            let want = match self.kind {
                                SourceKind::Kernel => {
                                    "extern \"C\" __global__ __aicore__ void AGC_KERNEL("
                                }
                                SourceKind::Tiling => "extern \"C\" int AGC_TILING_FN(",
                            };
                            self.push(
                                t.line,
                                "forbidden_extern",
                                format!("`extern` is allowed only for the entry point `{want}`"),
                            );
                        }
                    } else if t.text == "__attribute__" {
                        self.gnu_attribute(&toks[i..]);
                    } else if t.text == "namespace" && !(i > 0 && toks[i - 1].is_ident("using")) {
                        if let Some(n) = toks.get(i + 1) {
                            if n.is_ident("std") || n.is_ident("AscendC") {
                                self.push(
                                    n.line,
                                    "forbidden_namespace",
                                    format!("reopening `namespace {}` is not allowed", n.text),
                                );
                            }
                        }
                    }
                    self.name(t);
                }
                TokenKind::Punct if t.text == "##" => self.push(
                    t.line,
                    "token_pasting",
                    "token pasting (`##`) is not allowed: it can assemble any forbidden name"
                        .into(),
                ),
                TokenKind::Punct
                    if t.text == "[" && toks.get(i + 1).is_some_and(|n| n.is_punct("[")) =>
                {
                    self.std_attribute(&toks[i..]);
                }
                _ => {}
            }
            i += 1;
        }
        if entry_points == 0 {
            let want = match self.kind {
                SourceKind::Kernel => {
                    "extern \"C\" __global__ __aicore__ void AGC_KERNEL(GM_ADDR ..., GM_ADDR workspace, AgcTiling tiling)"
                }
                SourceKind::Tiling => {
                    "extern \"C\" int AGC_TILING_FN(const AgcPlatform*, const uint64_t*, uint32_t, AgcTiling*, uint32_t*, uint64_t*)"
                }
            };
            self.push(
                0,
                "missing_entry_point",
                format!("{} has no entry point; expected `{want}`", self.file),
            );
        }
    }

    /// Checks an identifier wherever it appears.
    fn name(&mut self, t: &Token) {
        let n = t.text.as_str();
        let line = t.line;
        if matches!(n, "asm" | "__asm" | "__asm__") {
            self.push(
                line,
                "inline_asm",
                format!("inline assembly (`{n}`) is not allowed"),
            );
        } else if FORBIDDEN_CALLS.contains(&n) {
            self.push(
                line,
                "forbidden_call",
                format!(
                    "`{n}` is not allowed: kernels and tiling functions may not reach the operating system, files, network, environment, processes, clocks or threads"
                ),
            );
        } else if HEAP.contains(&n) {
            self.push(
                line,
                "heap_allocation",
                format!("`{n}` is not allowed: there is no heap on an AI Core (use TPipe buffers, or fixed-size arrays in tiling)"),
            );
        } else if EXCEPTIONS.contains(&n) {
            self.push(
                line,
                "exceptions",
                format!("`{n}` is not allowed: exceptions do not exist on an AI Core"),
            );
        } else if n == "ascendc_sim"
            || n.starts_with("ASCENDC_SIM")
            || n.starts_with("aclrt")
            || (n.starts_with("acl") && n[3..].starts_with(|c: char| c.is_ascii_uppercase()))
            || SIM_INTERNALS.contains(&n)
        {
            self.push(
                line,
                "simulator_internals",
                format!("`{n}` is host runtime / simulator machinery, not kernel API"),
            );
        } else if n == "_Pragma" || n == "__pragma" {
            self.push(
                line,
                "preprocessor_trick",
                format!("`{n}` is not allowed (use one of the allowed #pragma lines)"),
            );
        } else if (n.starts_with("__")
            || (n.starts_with('_') && n[1..].starts_with(|c: char| c.is_ascii_uppercase())))
            && !RESERVED_ALLOWED.contains(&n)
        {
            let kind = if n.starts_with("__has_include") {
                "preprocessor_trick"
            } else {
                "reserved_identifier"
            };
            self.push(
                line,
                kind,
                format!("the reserved identifier `{n}` is not allowed (names starting with `__` or `_` + capital belong to the compiler and the C library)"),
            );
        }
    }

    /// `#` … up to the end of the logical line.
    fn directive(&mut self, d: &[Token]) {
        let line = d[0].line;
        let Some(name) = d.get(1) else {
            return; // null directive
        };
        if name.kind != TokenKind::Ident {
            self.push(
                line,
                "preprocessor_trick",
                format!("`# {}` is not a directive the policy allows", name.text),
            );
            return;
        }
        match name.text.as_str() {
            "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef" | "else" | "endif"
            | "error" | "warning" => {}
            "define" | "undef" => {
                if line < self.last_include {
                    self.push(
                        line,
                        "preprocessor_trick",
                        format!("`#{}` before an `#include`: macros may not change what the headers mean (put every #include first)", name.text),
                    );
                }
                if let Some(m) = d.get(2) {
                    let n = m.text.as_str();
                    if n.starts_with("AGC_")
                        || n.starts_with("AgcTiling")
                        || n == "AgcPlatform"
                        || n.starts_with("AGENTICCANN")
                    {
                        self.push(
                            m.line,
                            "abi_macro",
                            format!("`#{} {n}`: the entry-point and tiling names come from the generated header and may not be redefined", name.text),
                        );
                    }
                }
            }
            "include" => {
                let allowed = self.kind.allowed_headers();
                let header = match d.get(2) {
                    Some(h) if d.len() == 3 && h.kind == TokenKind::HeaderName => {
                        Some(h.text.clone())
                    }
                    Some(h)
                        if d.len() == 3 && h.kind == TokenKind::Str && h.text.starts_with('"') =>
                    {
                        Some(h.text.trim_matches('"').to_string())
                    }
                    _ => None,
                };
                match header {
                    Some(h) if allowed.contains(&h.as_str()) => {}
                    Some(h) => self.push(
                        line,
                        "forbidden_include",
                        format!(
                            "#include of `{h}` is not allowed in {}; allowed: {}",
                            self.file,
                            allowed.join(", ")
                        ),
                    ),
                    None => self.push(
                        line,
                        "forbidden_include",
                        "#include must name one allowed header literally (no macros, no extra tokens)".into(),
                    ),
                }
            }
            "pragma" => {
                let words: Vec<&str> = d[2..]
                    .iter()
                    .take_while(|t| t.kind == TokenKind::Ident)
                    .map(|t| t.text.as_str())
                    .collect();
                let ok = PRAGMAS_ALLOWED.iter().any(|p| {
                    words.len() >= p.len() && words[..p.len()] == **p && {
                        // Only a number may follow the allowed words.
                        d[2 + p.len()..].iter().all(|t| t.kind == TokenKind::Number)
                    }
                });
                if !ok {
                    self.push(
                        line,
                        "preprocessor_trick",
                        format!(
                            "`#pragma {}` is not allowed (allowed: once, unroll, GCC unroll, GCC ivdep)",
                            d[2..].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ")
                        ),
                    );
                }
            }
            other => self.push(
                line,
                "preprocessor_trick",
                format!("`#{other}` is not allowed"),
            ),
        }
    }

    /// True when `t` (starting at `extern`) is the file's entry point.
    fn entry_point(&self, t: &[Token]) -> bool {
        if !t
            .get(1)
            .is_some_and(|s| s.kind == TokenKind::Str && s.text == "\"C\"")
        {
            return false;
        }
        let (quals, name): (&[&str], &str) = match self.kind {
            SourceKind::Kernel => (
                &["__global__", "__aicore__", "void", "inline"],
                "AGC_KERNEL",
            ),
            SourceKind::Tiling => (&["int"], "AGC_TILING_FN"),
        };
        let mut j = 2;
        while let Some(x) = t.get(j) {
            if x.is_ident(name) {
                return t.get(j + 1).is_some_and(|p| p.is_punct("("));
            }
            if x.kind == TokenKind::Ident && quals.contains(&x.text.as_str()) {
                j += 1;
                continue;
            }
            return false;
        }
        false
    }

    /// `__attribute__ (( name, name(args) ))`: every name must be allowed.
    fn gnu_attribute(&mut self, t: &[Token]) {
        if !(t.get(1).is_some_and(|x| x.is_punct("(")) && t.get(2).is_some_and(|x| x.is_punct("(")))
        {
            self.push(
                t[0].line,
                "forbidden_attribute",
                "`__attribute__` must be followed by `((`".into(),
            );
            return;
        }
        let mut depth = 0i32;
        let mut expect_name = false;
        for (k, x) in t.iter().enumerate().skip(1) {
            if x.is_punct("(") {
                depth += 1;
                if depth == 2 {
                    expect_name = true;
                }
                continue;
            }
            if x.is_punct(")") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
                continue;
            }
            if depth == 2 && x.is_punct(",") {
                expect_name = true;
                continue;
            }
            if depth == 2 && expect_name {
                expect_name = false;
                self.attribute_name(x, k);
            }
        }
    }

    /// `[[ ns::name, name(args) ]]`.
    fn std_attribute(&mut self, t: &[Token]) {
        let mut depth = 0i32;
        let mut expect_name = true;
        let mut j = 2;
        while let Some(x) = t.get(j) {
            if x.is_punct("]") && depth == 0 {
                return;
            }
            if x.is_punct("(") {
                depth += 1;
            } else if x.is_punct(")") {
                depth -= 1;
            } else if depth == 0 && x.is_punct(",") {
                expect_name = true;
            } else if depth == 0 && expect_name && x.kind == TokenKind::Ident {
                // `using ns:` prefix or `ns::name`: check the last component.
                if x.text == "using" {
                    j += 1;
                    continue;
                }
                if t.get(j + 1).is_some_and(|n| n.is_punct("::")) {
                    j += 2;
                    continue;
                }
                expect_name = false;
                self.attribute_name(x, j);
            }
            j += 1;
        }
    }

    fn attribute_name(&mut self, x: &Token, _at: usize) {
        let bare = x.text.trim_start_matches("__").trim_end_matches("__");
        if !ATTRIBUTES_ALLOWED.contains(&bare) {
            self.push(
                x.line,
                "forbidden_attribute",
                format!(
                    "the attribute `{}` is not allowed (allowed: {})",
                    x.text,
                    ATTRIBUTES_ALLOWED.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests;
