//! Backend selection and CANN toolkit discovery for `agenticcann`'s build script.
//!
//! Pure logic over an environment lookup and the file system, so the build script
//! (`build.rs`, through `#[path]`) and the tests (`tests/toolkit_discovery.rs`) use the
//! same code. Nothing here prints or exits; the build script decides how to report.

use std::fmt;
use std::path::{Path, PathBuf};

/// What `AGENTICCANN_BACKEND` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requested {
    /// CANN when a toolkit is found, else the simulator (the default).
    Auto,
    /// Always the simulator, even when a toolkit is installed.
    Sim,
    /// Always CANN; a missing toolkit is a build error listing every path searched.
    Cann,
}

impl Requested {
    /// Parses the value of `AGENTICCANN_BACKEND` (`None` or empty = auto; case-insensitive).
    pub fn parse(value: Option<&str>) -> Result<Requested, String> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Ok(Requested::Auto),
            Some("sim") => Ok(Requested::Sim),
            Some("cann") => Ok(Requested::Cann),
            Some(other) => Err(format!(
                "AGENTICCANN_BACKEND={other:?} is not a backend; use `cann`, `sim` or `auto`"
            )),
        }
    }
}

/// A CANN toolkit validated by probing `acl/acl.h` and `libascendcl.so`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolkit {
    /// The install root as found (e.g. `/usr/local/Ascend/ascend-toolkit/latest`).
    pub root: PathBuf,
    /// Directory holding `acl/acl.h`.
    pub include_dir: PathBuf,
    /// Directory holding `libascendcl.so` and `libruntime.so`.
    pub lib_dir: PathBuf,
}

/// One place discovery looked, and why it was not usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The candidate root.
    pub root: PathBuf,
    /// Where the candidate came from: an environment variable or "standard path".
    pub source: String,
    /// What was missing.
    pub problem: String,
}

impl fmt::Display for Searched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (from {}): {}",
            self.root.display(),
            self.source,
            self.problem
        )
    }
}

/// The standard install roots, in search order: the root-user installs
/// (`/usr/local/Ascend/ascend-toolkit/latest` for CANN ≤ 8, `/usr/local/Ascend/cann` for
/// newer packages), then the same two under `$HOME/Ascend` (non-root installs).
pub fn standard_roots(home: Option<&str>) -> Vec<PathBuf> {
    let mut roots = vec![
        PathBuf::from("/usr/local/Ascend/ascend-toolkit/latest"),
        PathBuf::from("/usr/local/Ascend/cann"),
    ];
    if let Some(home) = home.filter(|h| !h.is_empty()) {
        let home = Path::new(home);
        roots.push(home.join("Ascend/ascend-toolkit/latest"));
        roots.push(home.join("Ascend/cann"));
    }
    roots
}

/// Candidate roots in search order with their source: `ASCEND_TOOLKIT_HOME`,
/// `ASCEND_HOME_PATH` (both exported by the toolkit's `set_env.sh`), then `standard`.
pub fn candidates(
    env: &dyn Fn(&str) -> Option<String>,
    standard: &[PathBuf],
) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for var in ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"] {
        if let Some(v) = env(var).filter(|v| !v.is_empty()) {
            out.push((PathBuf::from(v), var.to_string()));
        }
    }
    for root in standard {
        out.push((root.clone(), "standard path".to_string()));
    }
    // The same root named twice (set_env.sh exports both variables) is probed once.
    let mut seen = Vec::new();
    out.retain(|(p, _)| {
        if seen.contains(p) {
            false
        } else {
            seen.push(p.clone());
            true
        }
    });
    out
}

/// Probes one root. A toolkit has `acl/acl.h` under `<root>/include` or
/// `<root>/<arch>-linux/include`, and `libascendcl.so` plus `libruntime.so` under
/// `<root>/lib64` or `<root>/<arch>-linux/lib64` (the top-level folders are symlinks
/// into the arch folder in the vendor's packages). `target_arch` is Cargo's
/// `CARGO_CFG_TARGET_ARCH` (`x86_64`, `aarch64`).
pub fn probe(root: &Path, target_arch: &str) -> Result<Toolkit, String> {
    if !root.is_dir() {
        return Err("no such directory".to_string());
    }
    let arch_dir = root.join(format!("{target_arch}-linux"));
    let include_dirs = [root.join("include"), arch_dir.join("include")];
    let lib_dirs = [root.join("lib64"), arch_dir.join("lib64")];
    let include_dir = include_dirs.iter().find(|d| d.join("acl/acl.h").is_file());
    let lib_dir = lib_dirs.iter().find(|d| d.join("libascendcl.so").is_file());
    let list = |dirs: &[PathBuf], file: &str| {
        dirs.iter()
            .map(|d| d.join(file).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let include_dir = include_dir.ok_or_else(|| {
        format!(
            "no acl/acl.h (looked for {})",
            list(&include_dirs, "acl/acl.h")
        )
    })?;
    let lib_dir = lib_dir.ok_or_else(|| {
        format!(
            "no libascendcl.so (looked for {})",
            list(&lib_dirs, "libascendcl.so")
        )
    })?;
    if !lib_dir.join("libruntime.so").is_file() {
        return Err(format!(
            "{} has libascendcl.so but no libruntime.so (needed by kernel launchers)",
            lib_dir.display()
        ));
    }
    Ok(Toolkit {
        root: root.to_path_buf(),
        include_dir: include_dir.clone(),
        lib_dir: lib_dir.clone(),
    })
}

/// Searches the candidates in order; the first valid toolkit wins.
pub fn find_toolkit(
    env: &dyn Fn(&str) -> Option<String>,
    target_arch: &str,
    standard: &[PathBuf],
) -> Result<Toolkit, Vec<Searched>> {
    let mut searched = Vec::new();
    for (root, source) in candidates(env, standard) {
        match probe(&root, target_arch) {
            Ok(tk) => return Ok(tk),
            Err(problem) => searched.push(Searched {
                root,
                source,
                problem,
            }),
        }
    }
    Err(searched)
}

/// The backend the whole build uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Link the `ascendc-sim` static library.
    Sim,
    /// Link `libascendcl` and `libruntime` from this toolkit.
    Cann(Toolkit),
}

/// Decides the backend once. Returns the decision and, in auto mode, the one-line
/// note the build script prints as a `cargo:warning`. An explicit `cann` request with
/// no usable toolkit is an error that lists every path searched and why it failed.
pub fn decide(
    requested: Requested,
    env: &dyn Fn(&str) -> Option<String>,
    target_arch: &str,
    standard: &[PathBuf],
) -> Result<(Decision, Option<String>), String> {
    match requested {
        Requested::Sim => Ok((Decision::Sim, None)),
        Requested::Cann => match find_toolkit(env, target_arch, standard) {
            Ok(tk) => Ok((Decision::Cann(tk), None)),
            Err(searched) => {
                let mut msg = String::from(
                    "AGENTICCANN_BACKEND=cann but no CANN toolkit was found. Searched:",
                );
                for s in &searched {
                    msg.push_str("\n  - ");
                    msg.push_str(&s.to_string());
                }
                msg.push_str(
                    "\nInstall the CANN toolkit and `source <install>/set_env.sh` (it exports \
                     ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH), or build with \
                     AGENTICCANN_BACKEND=sim.",
                );
                Err(msg)
            }
        },
        Requested::Auto => match find_toolkit(env, target_arch, standard) {
            Ok(tk) => {
                let note = format!(
                    "agenticcann: backend cann (CANN toolkit at {}; set AGENTICCANN_BACKEND=sim \
                     to use the simulator)",
                    tk.root.display()
                );
                Ok((Decision::Cann(tk), Some(note)))
            }
            Err(searched) => {
                let note = format!(
                    "agenticcann: backend sim (no CANN toolkit in {} places searched; \
                     set ASCEND_TOOLKIT_HOME or AGENTICCANN_BACKEND=cann to require one)",
                    searched.len()
                );
                Ok((Decision::Sim, Some(note)))
            }
        },
    }
}
