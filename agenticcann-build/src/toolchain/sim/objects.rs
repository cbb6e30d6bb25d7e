//! The build's side of the simulator toolchain: every entry's translation units
//! ([`super::unit`]) compiled with [`SimToolchain::compile_command`] (the judge's flags,
//! byte for byte), in parallel, and archived into one static library.
//!
//! Objects are content-addressed: each is named by a fingerprint of its unit source, the
//! bytes of the entry file and header it includes, the compiler command and the simulator's
//! headers. An object whose fingerprint exists is reused, so a build with nothing changed
//! compiles nothing, and switching back and forth between two versions of a kernel recompiles
//! nothing either. Objects of a unit that are no longer current are deleted.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::SimToolchain;
use crate::toolchain::ToolchainError;

/// Bump to invalidate every cached object (a change in how units are compiled).
const FINGERPRINT_VERSION: &str = "agenticcann-sim-object/2";

/// One translation unit to compile.
#[derive(Clone, Debug)]
pub struct Unit {
    /// File stem, unique in the build (`agc_<key16>_kernel`).
    pub name: String,
    /// The unit's source text ([`super::unit::kernel_unit`], [`super::unit::tiling_unit`]).
    pub source: String,
    /// Files the source includes whose content must be part of the fingerprint (the entry
    /// file and its generated header).
    pub inputs: Vec<PathBuf>,
    /// What the unit is, for errors (`kernel of op `rms_norm` (key …)`).
    pub what: String,
}

/// Where and how to build.
#[derive(Clone, Debug)]
pub struct ObjectOptions {
    /// The toolchain (compiler, simulator headers, extra flags), as the judge uses it.
    pub toolchain: SimToolchain,
    /// Where sources, objects and the library go (`$OUT_DIR/agenticcann/sim`).
    pub out_dir: PathBuf,
    /// Target triple (Cargo's `TARGET`), for the archiver.
    pub target: String,
    /// Host triple (Cargo's `HOST`).
    pub host: String,
    /// Parallel compiler processes (Cargo's `NUM_JOBS`, else the available parallelism).
    pub jobs: usize,
    /// Let `cc` print its `cargo:rerun-if-env-changed` lines for the archiver (`AR`, …).
    pub cargo_metadata: bool,
}

/// What [`ObjectBuilder::compile`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileReport {
    /// Every object, in unit order.
    pub objects: Vec<PathBuf>,
    /// Units compiled now.
    pub compiled: Vec<String>,
    /// Units whose object was reused.
    pub reused: Vec<String>,
    /// Compiler warnings of the units compiled now (unit, text).
    pub warnings: Vec<(String, String)>,
    /// The command line of every unit (unit, program and arguments), compiled now or not.
    pub commands: Vec<(String, Vec<String>)>,
}

/// Compiles units into content-addressed objects and archives them.
#[derive(Debug)]
pub struct ObjectBuilder {
    opts: ObjectOptions,
    headers_fingerprint: blake3::Hash,
}

impl ObjectBuilder {
    /// Checks the simulator's headers and fingerprints them.
    ///
    /// # Errors
    /// When the simulator's include folder has no `kernel_operator.h` or cannot be read.
    pub fn new(opts: ObjectOptions) -> Result<ObjectBuilder, ToolchainError> {
        let sim_include = &opts.toolchain.include;
        if !sim_include.join("kernel_operator.h").is_file() {
            return Err(ToolchainError::new(format!(
                "the simulator's include folder {} has no kernel_operator.h (it comes from \
                 agenticcann's build script as DEP_AGENTICCANN_SIM_INCLUDE)",
                sim_include.display()
            )));
        }
        let headers_fingerprint = fingerprint_tree(sim_include)?;
        Ok(ObjectBuilder {
            opts,
            headers_fingerprint,
        })
    }

    /// The folder of generated sources, `<out>/src`.
    pub fn src_dir(&self) -> PathBuf {
        self.opts.out_dir.join("src")
    }

    /// The include folder of the stub header, `<out>/include`.
    pub fn include_dir(&self) -> PathBuf {
        self.opts.out_dir.join("include")
    }

    /// The compiler command line (without source and output), for fingerprints and logs.
    pub fn command_line(&self) -> Vec<String> {
        std::iter::once(self.opts.toolchain.cxx.display().to_string())
            .chain(self.opts.toolchain.compile_args(&self.include_dir()))
            .collect()
    }

    fn fingerprint(&self, unit: &Unit) -> Result<String, ToolchainError> {
        let mut h = blake3::Hasher::new();
        h.update(FINGERPRINT_VERSION.as_bytes());
        h.update(self.headers_fingerprint.as_bytes());
        for a in self.command_line() {
            h.update(a.as_bytes());
            h.update(b"\0");
        }
        h.update(unit.source.as_bytes());
        for p in &unit.inputs {
            let bytes = std::fs::read(p)
                .map_err(|e| ToolchainError::new(format!("cannot read {}: {e}", p.display())))?;
            h.update(p.as_os_str().as_encoded_bytes());
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        Ok(h.finalize().to_hex()[..16].to_string())
    }

    /// Writes the stub header and every unit's source, then compiles the units whose object
    /// is not current, `jobs` at a time.
    ///
    /// # Errors
    /// The first failing compile (in unit order): what it was, the command and the
    /// compiler's output; file system errors naming the path.
    pub fn compile(&self, units: &[Unit]) -> Result<CompileReport, ToolchainError> {
        let obj_dir = self.opts.out_dir.join("obj");
        for d in [self.src_dir(), obj_dir.clone(), self.include_dir()] {
            std::fs::create_dir_all(&d).map_err(|e| ToolchainError::io("create", &d, e))?;
        }
        write_if_changed(
            &self.include_dir().join("agenticcann_tiling.h"),
            super::unit::STUB_HEADER.as_bytes(),
        )?;
        let mut plan = Vec::new();
        for u in units {
            let src = self.src_dir().join(format!("{}.cpp", u.name));
            write_if_changed(&src, u.source.as_bytes())?;
            let fp = self.fingerprint(u)?;
            let obj = obj_dir.join(format!("{}-{fp}.o", u.name));
            remove_stale_objects(&obj_dir, &u.name, &obj);
            plan.push((u, src, obj));
        }
        let todo: Vec<usize> = (0..plan.len()).filter(|&i| !plan[i].2.is_file()).collect();
        let results: Mutex<Vec<(usize, Result<String, ToolchainError>)>> = Mutex::new(Vec::new());
        let next = AtomicUsize::new(0);
        let workers = self.opts.jobs.clamp(1, todo.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&idx) = todo.get(i) else { break };
                    let (u, src, obj) = &plan[idx];
                    let r = self.compile_one(u, src, obj);
                    let failed = r.is_err();
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((idx, r));
                    if failed {
                        // Let the units already started finish; start no new one.
                        next.store(todo.len(), Ordering::SeqCst);
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_by_key(|(i, _)| *i);
        let mut report = CompileReport::default();
        for (idx, r) in results {
            let name = plan[idx].0.name.clone();
            let warnings = r?;
            if !warnings.trim().is_empty() {
                report.warnings.push((name.clone(), warnings));
            }
            report.compiled.push(name);
        }
        for (i, (u, src, obj)) in plan.iter().enumerate() {
            if !todo.contains(&i) {
                report.reused.push(u.name.clone());
            }
            report.objects.push(obj.clone());
            let cmd = self
                .opts
                .toolchain
                .compile_command(&self.include_dir(), src, obj);
            report.commands.push((u.name.clone(), command_words(&cmd)));
        }
        Ok(report)
    }

    fn compile_one(&self, unit: &Unit, src: &Path, obj: &Path) -> Result<String, ToolchainError> {
        let tmp = obj.with_extension(format!("o.tmp{}", std::process::id()));
        let mut cmd = self
            .opts
            .toolchain
            .compile_command(&self.include_dir(), src, &tmp);
        let out = cmd.output().map_err(|e| {
            ToolchainError::new(format!(
                "compiling the {}: {}",
                unit.what,
                crate::toolchain::cannot_run_compiler(&self.opts.toolchain.cxx, &e)
            ))
        })?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            let _ = std::fs::remove_file(&tmp);
            return Err(ToolchainError::new(format!(
                "compiling the {} failed ({}):\n{}\n{}",
                unit.what,
                out.status,
                shell_line(&cmd),
                trim_output(&stderr, 80)
            )));
        }
        std::fs::rename(&tmp, obj).map_err(|e| ToolchainError::io("rename into place", obj, e))?;
        Ok(stderr)
    }

    /// Archives `objects` into `<out>/lib/lib<name>.a` (atomically, and only when the set of
    /// objects changed) and returns the library folder.
    ///
    /// # Errors
    /// When the archiver fails or a file cannot be written.
    pub fn archive(&self, name: &str, objects: &[PathBuf]) -> Result<PathBuf, ToolchainError> {
        let lib_dir = self.opts.out_dir.join("lib");
        std::fs::create_dir_all(&lib_dir).map_err(|e| ToolchainError::io("create", &lib_dir, e))?;
        let lib = lib_dir.join(format!("lib{name}.a"));
        let stamp = lib_dir.join(format!("lib{name}.objects"));
        let list: String = objects
            .iter()
            .map(|o| format!("{}\n", o.display()))
            .collect();
        if lib.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(list.as_str()) {
            return Ok(lib_dir);
        }
        let tmp = lib_dir.join(format!("lib{name}.a.tmp{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        let mut cmd = cc::Build::new()
            .target(&self.opts.target)
            .host(&self.opts.host)
            .cargo_metadata(self.opts.cargo_metadata)
            .cargo_warnings(false)
            .try_get_archiver()
            .map_err(|e| ToolchainError::new(format!("no archiver: {e}")))?;
        cmd.arg("crs").arg(&tmp).args(objects);
        let out = cmd
            .output()
            .map_err(|e| ToolchainError::new(format!("cannot run the archiver: {e}")))?;
        if !out.status.success() {
            return Err(ToolchainError::new(format!(
                "archiving {} failed:\n{}\n{}",
                lib.display(),
                shell_line(&cmd),
                trim_output(&String::from_utf8_lossy(&out.stderr), 40)
            )));
        }
        std::fs::rename(&tmp, &lib)
            .map_err(|e| ToolchainError::io("rename into place", &lib, e))?;
        write_if_changed(&stamp, list.as_bytes())?;
        Ok(lib_dir)
    }
}

/// blake3 over every file under `dir` (relative path and contents), sorted.
pub fn fingerprint_tree(dir: &Path) -> Result<blake3::Hash, ToolchainError> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|e| ToolchainError::io("read", &d, e))?;
        for e in rd {
            let e = e.map_err(|e| ToolchainError::io("read", &d, e))?;
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut h = blake3::Hasher::new();
    for f in files {
        let bytes = std::fs::read(&f).map_err(|e| ToolchainError::io("read", &f, e))?;
        h.update(
            f.strip_prefix(dir)
                .unwrap_or(&f)
                .as_os_str()
                .as_encoded_bytes(),
        );
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.finalize())
}

/// Writes `bytes` to `path` unless it already holds exactly them (keeps mtimes of unchanged
/// generated files stable). Atomic: temporary file + rename.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), ToolchainError> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| ToolchainError::io("create", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| ToolchainError::io("create a temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| ToolchainError::io("write", tmp.path(), e))?;
    tmp.persist(path)
        .map_err(|e| ToolchainError::io("rename into place", path, e.error))?;
    Ok(())
}

fn remove_stale_objects(obj_dir: &Path, unit: &str, keep: &Path) {
    let prefix = format!("{unit}-");
    if let Ok(rd) = std::fs::read_dir(obj_dir) {
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if p != keep && name.starts_with(&prefix) && name.ends_with(".o") {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// The program and arguments of `cmd`, as text.
pub fn command_words(cmd: &Command) -> Vec<String> {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn shell_line(cmd: &Command) -> String {
    command_words(cmd).join(" ")
}

/// The first `max` lines of compiler output, with a count of the rest.
pub fn trim_output(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.trim_end().to_string();
    }
    format!(
        "{}\n… ({} more lines)",
        lines[..max].join("\n"),
        lines.len() - max
    )
}
