//! The one simulator toolchain: the host C++ compiler against `ascendc-sim`, used by the
//! build (every entry compiled into the crate's static library, [`objects`]) and by the judge
//! (one candidate compiled and linked with its run harness, `judge::compile`).
//!
//! Both compile the **same translation units** ([`unit`]: the entry's source included inside
//! `namespace agcns_<key16>_kernel`, the allowed headers first, the ABI `static_assert`, the
//! `aclrtlaunch_agc_<key16>` launcher) with the **same flags**
//! ([`SimToolchain::compile_args`]: [`FLAGS`], then [`SimToolchain::extra_flags`], then the
//! include folders). "The judge accepted it" therefore means "this is the object the crate
//! links". The judge adds only a precompiled header of `kernel_operator.h` built with those
//! same flags (GCC refuses a header built with different ones, `-Winvalid-pch` says so)
//! and a small glue unit of its own that calls the launcher.
//!
//! [`SimToolchain`] describes where everything is: the compiler (`AGENTICCANN_CXX`, else
//! `CXX`, else `g++`), the headers, `libascendc_sim.a` and the SoC profiles.

pub mod objects;
pub mod unit;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

pub use objects::{
    command_words, fingerprint_tree, trim_output, write_if_changed, CompileReport, ObjectBuilder,
    ObjectOptions, Unit,
};

use crate::env::Env;

/// Flags of every simulator compile, build and judge alike: C++20 at `-O2` (simulation speed
/// matters even in debug builds; the judge judges the object the crate links), position
/// independent (the library may end up in a shared object), and compiler messages the judge
/// can parse (no colour, no caret lines, one line per message).
pub const FLAGS: &[&str] = &[
    "-std=c++20",
    "-O2",
    "-fPIC",
    "-pthread",
    "-fdiagnostics-color=never",
    "-fno-diagnostics-show-caret",
    "-fmessage-length=0",
    "-fmax-errors=20",
    "-ftemplate-backtrace-limit=3",
];

/// The simulator toolchain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimToolchain {
    /// The C++20 compiler (g++ ≥ 12 or clang ≥ 16).
    pub cxx: PathBuf,
    /// `ascendc-sim/include` (holds `kernel_operator.h`, `acl/`, `ascendc_sim/`).
    pub include: PathBuf,
    /// The folder holding `libascendc_sim.a`.
    pub lib_dir: PathBuf,
    /// The folder of SoC profiles (`<soc>.toml`).
    pub profiles: PathBuf,
    /// Flags after [`FLAGS`] (`Builder::flag`); the judge uses them too, so a kernel is
    /// judged as it is built.
    pub extra_flags: Vec<String>,
}

/// The toolchain cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolchainError {
    /// A location is unknown: neither its environment variable nor a path baked in at build
    /// time.
    #[error("the simulator {what} is unknown: set {var} (agenticcann-build was built without ascendc-sim's link metadata)")]
    Unknown {
        /// `include dir`, `library dir` or `profile dir`.
        what: &'static str,
        /// The environment variable that sets it.
        var: &'static str,
    },
    /// A location does not hold what it should.
    #[error("the simulator {what} `{path}` is missing {missing} (set {var} to a valid location)")]
    Missing {
        /// What it is.
        what: &'static str,
        /// The path tried.
        path: PathBuf,
        /// The file expected in it.
        missing: &'static str,
        /// The environment variable that sets it.
        var: &'static str,
    },
}

/// A SoC profile that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SoC profile {path}: {message}")]
pub struct SocProfileError {
    /// The profile file.
    pub path: PathBuf,
    /// What is wrong (unreadable, not TOML, a missing field).
    pub message: String,
}

impl SimToolchain {
    /// The toolchain from the process environment, else from the paths Cargo gave this
    /// crate's build script (see `build.rs`):
    /// - `AGENTICCANN_CXX`, else `CXX`, else `g++`;
    /// - `AGENTICCANN_SIM_INCLUDE`, else the baked `DEP_ASCENDC_SIM_INCLUDE`;
    /// - `AGENTICCANN_SIM_LIB_DIR`, else the baked `DEP_ASCENDC_SIM_LIB_DIR`;
    /// - `AGENTICCANN_SIM_PROFILES`, else the baked `DEP_ASCENDC_SIM_PROFILES`.
    ///
    /// # Errors
    /// A location that is unknown or lacks `kernel_operator.h`, `libascendc_sim.a` or
    /// `Ascend910B1.toml`.
    pub fn from_env() -> Result<SimToolchain, ToolchainError> {
        let t = Self::from_env_in(&Env::process(false), None)?;
        t.check()?;
        Ok(t)
    }

    /// The toolchain as [`from_env`](Self::from_env), reading through `env` (in a build
    /// script each read prints its `cargo:rerun-if-env-changed` line), with `include` (the
    /// build's `DEP_AGENTICCANN_SIM_INCLUDE`) in place of `AGENTICCANN_SIM_INCLUDE` when
    /// given. Not [`check`](Self::check)ed.
    ///
    /// # Errors
    /// [`ToolchainError::Unknown`] for a location neither set nor baked in.
    pub fn from_env_in(
        env: &Env,
        include: Option<PathBuf>,
    ) -> Result<SimToolchain, ToolchainError> {
        let cxx = env
            .get("AGENTICCANN_CXX")
            .or_else(|| env.get("CXX"))
            .map_or_else(|| PathBuf::from("g++"), PathBuf::from);
        // Absolute: the compilers run in scratch folders.
        let pick = |var: &'static str, baked: Option<&'static str>, what: &'static str| {
            env.get(var)
                .map(PathBuf::from)
                .or_else(|| baked.map(PathBuf::from))
                .map(|p| std::path::absolute(&p).unwrap_or(p))
                .ok_or(ToolchainError::Unknown { what, var })
        };
        let include = match include {
            Some(p) => std::path::absolute(&p).unwrap_or(p),
            None => pick(
                "AGENTICCANN_SIM_INCLUDE",
                option_env!("AGENTICCANN_BUILD_SIM_INCLUDE"),
                "include dir",
            )?,
        };
        Ok(SimToolchain {
            cxx,
            include,
            lib_dir: pick(
                "AGENTICCANN_SIM_LIB_DIR",
                option_env!("AGENTICCANN_BUILD_SIM_LIB_DIR"),
                "library dir",
            )?,
            profiles: pick(
                "AGENTICCANN_SIM_PROFILES",
                option_env!("AGENTICCANN_BUILD_SIM_PROFILES"),
                "profile dir",
            )?,
            extra_flags: Vec::new(),
        })
    }

    /// Checks that each folder holds what it should.
    ///
    /// # Errors
    /// [`ToolchainError::Missing`] naming the folder and the file.
    pub fn check(&self) -> Result<(), ToolchainError> {
        for (what, dir, missing, var) in [
            (
                "include dir",
                &self.include,
                "kernel_operator.h",
                "AGENTICCANN_SIM_INCLUDE",
            ),
            (
                "library dir",
                &self.lib_dir,
                "libascendc_sim.a",
                "AGENTICCANN_SIM_LIB_DIR",
            ),
            (
                "profile dir",
                &self.profiles,
                "Ascend910B1.toml",
                "AGENTICCANN_SIM_PROFILES",
            ),
        ] {
            if !dir.join(missing).is_file() {
                return Err(ToolchainError::Missing {
                    what,
                    path: dir.clone(),
                    missing,
                    var,
                });
            }
        }
        Ok(())
    }

    /// The arguments of every compile of a translation unit, after the compiler and before
    /// `-c <source> -o <object>`: [`FLAGS`], [`extra_flags`](Self::extra_flags), then
    /// `-I <stub_include>` (the folder holding [`unit::STUB_HEADER`] as
    /// `agenticcann_tiling.h`) and `-I <simulator include>`.
    pub fn compile_args(&self, stub_include: &Path) -> Vec<String> {
        FLAGS
            .iter()
            .map(|s| s.to_string())
            .chain(self.extra_flags.iter().cloned())
            .chain([
                "-I".to_string(),
                stub_include.display().to_string(),
                "-I".to_string(),
                self.include.display().to_string(),
            ])
            .collect()
    }

    /// The compiler command of one unit: `cxx`, [`compile_args`](Self::compile_args),
    /// `-c source -o object`.
    pub fn compile_command(&self, stub_include: &Path, source: &Path, object: &Path) -> Command {
        let mut cmd = Command::new(&self.cxx);
        cmd.args(self.compile_args(stub_include))
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(object)
            // ASCII quotes in messages, whatever the user's locale.
            .env("LC_ALL", "C");
        cmd
    }

    /// `libascendc_sim.a`.
    pub fn library(&self) -> PathBuf {
        self.lib_dir.join("libascendc_sim.a")
    }

    /// A digest (64 hex) of everything a compiled object depends on besides its own
    /// source: every file under the include folder (path and bytes), the library, the
    /// compiler's identity (`--version`) and the flags. Computed once per process and
    /// toolchain.
    pub fn digest(&self) -> String {
        static CACHE: OnceLock<Mutex<HashMap<SimToolchain, String>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(d) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(self) {
            return d.clone();
        }
        let mut h = blake3::Hasher::new();
        h.update(b"agenticcann-sim-toolchain-2\0");
        let mut files = Vec::new();
        walk(&self.include, &mut files);
        files.sort();
        for f in &files {
            h.update(
                f.strip_prefix(&self.include)
                    .unwrap_or(f)
                    .to_string_lossy()
                    .as_bytes(),
            );
            h.update(b"\0");
            h.update(&std::fs::read(f).unwrap_or_default());
            h.update(b"\0");
        }
        // The library by size and modification time (hashing tens of MB per process is
        // not worth it; a rebuilt library has a new mtime).
        if let Ok(m) = std::fs::metadata(self.library()) {
            h.update(format!("{}:{:?}", m.len(), m.modified().ok()).as_bytes());
        }
        let version = Command::new(&self.cxx)
            .arg("--version")
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default();
        h.update(self.cxx.to_string_lossy().as_bytes());
        h.update(&version);
        for f in FLAGS
            .iter()
            .copied()
            .chain(self.extra_flags.iter().map(String::as_str))
        {
            h.update(f.as_bytes());
            h.update(b"\0");
        }
        let d = h.finalize().to_hex().to_string();
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.clone(), d.clone());
        d
    }

    /// The numbers the judge needs from the profile of `soc` (`<profiles>/<soc>.toml`).
    ///
    /// # Errors
    /// [`SocProfileError`] naming the file when it is missing or lacks a field.
    pub fn soc_profile(&self, soc: &str) -> Result<SocProfile, SocProfileError> {
        SocProfile::load(&self.profiles.join(format!("{soc}.toml")))
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

/// What the judge reads from a simulator SoC profile (`ascendc-sim/profiles/<soc>.toml`,
/// profile format 1; the simulator's cost model owns the format).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SocProfile {
    /// AIV (vector) cores (`[soc] aiv_cores`).
    pub aiv_cores: u32,
    /// Unified Buffer per core, bytes (`[soc] ub_bytes`).
    pub ub_bytes: u32,
    /// Largest blockDim (`[soc] max_block_dim`).
    pub max_block_dim: u32,
    /// Peak HBM bandwidth, GB/s (1e9 B/s) (`[hbm] peak_gbps`).
    pub hbm_peak_gbps: f64,
    /// Fixed cost of one launch, µs (`[launch] overhead_us`).
    pub launch_overhead_us: f64,
}

impl SocProfile {
    /// Reads the fields above from `path`.
    ///
    /// # Errors
    /// [`SocProfileError`] naming the file and the missing or malformed field.
    pub fn load(path: &Path) -> Result<SocProfile, SocProfileError> {
        let err = |message: String| SocProfileError {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let v: toml::Table = text.parse().map_err(|e| err(format!("not TOML: {e}")))?;
        let num = |table: &str, key: &str| -> Result<f64, SocProfileError> {
            v.get(table)
                .and_then(|t| t.get(key))
                .and_then(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                .ok_or_else(|| err(format!("no number [{table}] {key}")))
        };
        Ok(SocProfile {
            aiv_cores: num("soc", "aiv_cores")? as u32,
            ub_bytes: num("soc", "ub_bytes")? as u32,
            max_block_dim: num("soc", "max_block_dim")? as u32,
            hbm_peak_gbps: num("hbm", "peak_gbps")?,
            launch_overhead_us: num("launch", "overhead_us")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baked_toolchain_is_usable_and_profiles_load() {
        let t = SimToolchain::from_env().unwrap();
        assert!(t.include.join("kernel_operator.h").is_file());
        assert_eq!(t.digest(), t.digest());
        assert_eq!(t.digest().len(), 64);
        let p = t.soc_profile("Ascend910B1").unwrap();
        assert_eq!(p.aiv_cores, 48);
        assert!(p.hbm_peak_gbps > 100.0 && p.launch_overhead_us > 0.0);
        let e = t.soc_profile("Nope").unwrap_err().to_string();
        assert!(e.contains("Nope.toml"), "{e}");
        let bad = SimToolchain {
            include: PathBuf::from("/nonexistent"),
            ..t.clone()
        };
        let e = bad.check().unwrap_err().to_string();
        assert!(
            e.contains("/nonexistent") && e.contains("AGENTICCANN_SIM_INCLUDE"),
            "{e}"
        );
        // Extra flags change the digest (the PCH and harness caches are keyed by it).
        let flagged = SimToolchain {
            extra_flags: vec!["-DAGC_TEST=1".into()],
            ..t.clone()
        };
        assert_ne!(flagged.digest(), t.digest());
        assert!(flagged.compile_args(Path::new("/stub")).ends_with(&[
            "-DAGC_TEST=1".into(),
            "-I".into(),
            "/stub".into(),
            "-I".into(),
            t.include.display().to_string()
        ]));
    }

    /// The compiler comes from `AGENTICCANN_CXX`, else `CXX`, else `g++`, and every read is
    /// announced (so a build script re-runs when one changes).
    #[test]
    fn compiler_choice_and_announced_reads() {
        let mut env = Env::process(false);
        env.set("AGENTICCANN_CXX", None);
        env.set("CXX", Some("/opt/clang++"));
        env.set("AGENTICCANN_SIM_LIB_DIR", Some("/lib-dir"));
        env.set("AGENTICCANN_SIM_PROFILES", Some("/profiles"));
        let t = SimToolchain::from_env_in(&env, Some(PathBuf::from("/inc"))).unwrap();
        assert_eq!(t.cxx, PathBuf::from("/opt/clang++"));
        assert_eq!(
            (
                t.include.as_path(),
                t.lib_dir.as_path(),
                t.profiles.as_path()
            ),
            (
                Path::new("/inc"),
                Path::new("/lib-dir"),
                Path::new("/profiles")
            )
        );
        env.set("AGENTICCANN_CXX", Some("/usr/bin/g++-13"));
        let t = SimToolchain::from_env_in(&env, None).unwrap();
        assert_eq!(t.cxx, PathBuf::from("/usr/bin/g++-13"));
        env.set("AGENTICCANN_CXX", None);
        env.set("CXX", None);
        assert_eq!(
            SimToolchain::from_env_in(&env, None).unwrap().cxx,
            PathBuf::from("g++")
        );
        let read = env.names_read();
        for v in [
            "AGENTICCANN_CXX",
            "CXX",
            "AGENTICCANN_SIM_INCLUDE",
            "AGENTICCANN_SIM_LIB_DIR",
            "AGENTICCANN_SIM_PROFILES",
        ] {
            assert!(
                read.iter().any(|r| r == v),
                "{v} not read through Env: {read:?}"
            );
        }
    }
}
