//! Where the simulator toolchain is: the host C++ compiler, the simulator's headers, its
//! static runtime library and its SoC profiles; and the few profile numbers the judge needs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The simulator toolchain the judge compiles candidates with.
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

impl SimToolchain {
    /// The toolchain from the environment, else from the paths Cargo gave this crate's build
    /// script (see `build.rs`):
    /// - `AGENTICCANN_CXX`, else `CXX`, else `g++`;
    /// - `AGENTICCANN_SIM_INCLUDE`, else the baked `DEP_ASCENDC_SIM_INCLUDE`;
    /// - `AGENTICCANN_SIM_LIB_DIR`, else the baked `DEP_ASCENDC_SIM_LIB_DIR`;
    /// - `AGENTICCANN_SIM_PROFILES`, else the baked `DEP_ASCENDC_SIM_PROFILES`.
    ///
    /// # Errors
    /// A location that is unknown or lacks `kernel_operator.h`, `libascendc_sim.a` or
    /// `Ascend910B1.toml`.
    pub fn from_env() -> Result<SimToolchain, ToolchainError> {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let cxx = env("AGENTICCANN_CXX")
            .or_else(|| env("CXX"))
            .unwrap_or_else(|| PathBuf::from("g++"));
        // Absolute: the compilers run in scratch folders.
        let pick = |var: &'static str, baked: Option<&'static str>, what: &'static str| {
            env(var)
                .or_else(|| baked.map(PathBuf::from))
                .map(|p| std::path::absolute(&p).unwrap_or(p))
                .ok_or(ToolchainError::Unknown { what, var })
        };
        let t = SimToolchain {
            cxx,
            include: pick(
                "AGENTICCANN_SIM_INCLUDE",
                option_env!("AGENTICCANN_BUILD_SIM_INCLUDE"),
                "include dir",
            )?,
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
        };
        t.check()?;
        Ok(t)
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

    /// `libascendc_sim.a`.
    pub fn library(&self) -> PathBuf {
        self.lib_dir.join("libascendc_sim.a")
    }

    /// A digest (64 hex) of everything a compiled object depends on besides its own
    /// source: every file under the include folder (path and bytes), the library, and the
    /// compiler's identity (`--version`). Computed once per process and toolchain.
    pub fn digest(&self) -> String {
        static CACHE: OnceLock<Mutex<HashMap<SimToolchain, String>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(d) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(self) {
            return d.clone();
        }
        let mut h = blake3::Hasher::new();
        h.update(b"agenticcann-judge-toolchain-1\0");
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
    /// A message naming the file when it is missing or lacks a field.
    pub fn soc_profile(&self, soc: &str) -> Result<SocProfile, String> {
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
    /// A message naming the file and the missing or malformed field.
    pub fn load(path: &Path) -> Result<SocProfile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read SoC profile {}: {e}", path.display()))?;
        let v: toml::Table = text
            .parse()
            .map_err(|e| format!("SoC profile {} is not TOML: {e}", path.display()))?;
        let num = |table: &str, key: &str| -> Result<f64, String> {
            v.get(table)
                .and_then(|t| t.get(key))
                .and_then(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                .ok_or_else(|| {
                    format!(
                        "SoC profile {} has no number [{table}] {key}",
                        path.display()
                    )
                })
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
        let e = t.soc_profile("Nope").unwrap_err();
        assert!(e.contains("Nope.toml"), "{e}");
        let bad = SimToolchain {
            include: PathBuf::from("/nonexistent"),
            ..t
        };
        let e = bad.check().unwrap_err().to_string();
        assert!(
            e.contains("/nonexistent") && e.contains("AGENTICCANN_SIM_INCLUDE"),
            "{e}"
        );
    }
}
