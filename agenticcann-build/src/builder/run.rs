//! The steps of a build: spec → store lookup → lock check → codegen → toolchain → link.

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::miss::{miss_message, Miss};
use super::{Builder, Error, ErrorKind};
use crate::codegen::{
    bindgen_ops_header, ops_header, ops_module, tiling_header, HeaderEntry, WrapperMode, WrapperOp,
};
use crate::env::Env;
use crate::key::Key;
use crate::spec::{OpSpec, Spec};
use crate::store::{lock_path, Entry, Lock, LockMismatch, Source, Store, StoreError};
use crate::toolchain::cann::{find_cmake_module, CannProject};
use crate::toolchain::sim::unit::{kernel_unit, tiling_unit, LauncherKind, STUB_HEADER};
use crate::toolchain::sim::{write_if_changed, ObjectBuilder, ObjectOptions, SimToolchain, Unit};
use crate::toolchain::Backend;

/// Bump when the bindgen invocation changes, so cached FFI is regenerated.
const FFI_STAMP_VERSION: &str = "agenticcann-ffi/1";

/// One op of a finished build.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltOp {
    /// The op's name.
    pub name: String,
    /// Its key.
    pub key: Key,
    /// Where its entry was found (`None` in documentation builds, which look nothing up).
    pub source: Option<Source>,
    /// The entry's folder.
    pub entry_dir: Option<PathBuf>,
}

/// What a successful build did.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildReport {
    /// The backend built for (`None` when nothing was compiled: no ops, or docs only).
    pub backend: Option<Backend>,
    /// Every op in manifest order.
    pub ops: Vec<BuiltOp>,
    /// Translation units compiled in this build.
    pub compiled: Vec<String>,
    /// Translation units whose object was reused.
    pub reused: Vec<String>,
    /// `$OUT_DIR/agenticcann_ops.rs`.
    pub ops_rs: PathBuf,
    /// Every file printed as `cargo:rerun-if-changed`.
    pub rerun_if_changed: Vec<PathBuf>,
    /// Every `cargo:warning` printed.
    pub warnings: Vec<String>,
    /// Every `cargo:` line printed (or that would have been).
    pub cargo_lines: Vec<String>,
    /// The compiler command of every simulator translation unit (unit, program and
    /// arguments): the same flags the judge compiles a candidate with.
    pub compile_commands: Vec<(String, Vec<String>)>,
    /// Every environment variable read, sorted: each was announced with
    /// `cargo:rerun-if-env-changed` (when printing Cargo lines).
    pub env_read: Vec<String>,
}

struct Ctx<'a> {
    b: &'a Builder,
    env: Env,
    emit: bool,
    lines: RefCell<Vec<String>>,
    report: RefCell<BuildReport>,
}

impl Ctx<'_> {
    fn cargo(&self, line: String) {
        if self.emit {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
        }
        self.lines.borrow_mut().push(line);
    }

    fn rerun_if_changed(&self, p: &Path) {
        // A missing path would make Cargo re-run the script on every build.
        if p.exists() {
            self.report
                .borrow_mut()
                .rerun_if_changed
                .push(p.to_path_buf());
            self.cargo(format!("cargo:rerun-if-changed={}", p.display()));
        }
    }

    fn warning(&self, text: &str) {
        for line in text.lines() {
            self.report.borrow_mut().warnings.push(line.to_string());
            self.cargo(format!("cargo:warning={line}"));
        }
    }

    /// A log line in the build script's output (shown by `cargo build -vv`).
    fn log(&self, text: &str) {
        if self.emit {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "agenticcann-build: {text}");
        }
    }

    fn path_setting(&self, set: &Option<PathBuf>, var: &str) -> Option<PathBuf> {
        set.clone().or_else(|| self.env.get(var).map(PathBuf::from))
    }

    /// The simulator toolchain the build compiles with and the judge judges with on a store
    /// miss: the headers `include` (the build's `DEP_AGENTICCANN_SIM_INCLUDE`; when `None`,
    /// as the judge finds them), the compiler, library and profiles as
    /// [`SimToolchain::from_env_in`] reads them (every read announced), and the extra flags
    /// of `Builder::flag`.
    fn sim_toolchain(&self, include: Option<PathBuf>) -> Result<SimToolchain, String> {
        let mut tc = SimToolchain::from_env_in(&self.env, include).map_err(|e| e.to_string())?;
        tc.extra_flags = self.b.flags.clone();
        Ok(tc)
    }

    fn required_path(&self, set: &Option<PathBuf>, var: &str, why: &str) -> Result<PathBuf, Error> {
        self.path_setting(set, var)
            .ok_or_else(|| Error::new(ErrorKind::Env, format!("{var} is not set: {why}")))
    }
}

fn store_err_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::Lock { .. } | StoreError::LockMismatch(_) => ErrorKind::Lock,
        _ => ErrorKind::Store,
    }
}

fn store_err(e: StoreError) -> Error {
    Error::with_source(store_err_kind(&e), e.to_string(), e)
}

/// The entry of `op` synthesized into `root` (an `OUT_DIR` store): reused when a valid entry
/// for the key is already there (so rebuilds do not re-verify), else proposed, judged with
/// the build's own toolchain `tc` (the flags the crate is compiled with) and written.
fn synth_entry(
    op: &OpSpec,
    root: &Path,
    out_dir: &Path,
    tc: Result<SimToolchain, String>,
) -> Result<Entry, String> {
    let dir = root.join(op.key().to_hex());
    if dir.join("manifest.toml").is_file() {
        if let Ok(e) = Entry::load_with_key(&dir, &op.key()) {
            return Ok(e);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let tc = tc?;
    tc.check().map_err(|e| e.to_string())?;
    let eval = crate::judge::EvalOptions {
        cache_dir: Some(out_dir.join("agenticcann").join("judge")),
        toolchain: Some(tc),
        ..crate::judge::EvalOptions::default()
    };
    // The fastest accepted variant of the offline proposer (issue 17).
    let s = crate::synth::search(op, &crate::synth::SynthOptions::default(), &eval)
        .map(|found| found.best)
        .map_err(|e| e.to_string())?;
    crate::store::write_entry(root, &s.draft(op)).map_err(|e| e.to_string())
}

fn host_triple() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "linux" => format!("{arch}-unknown-linux-gnu"),
        "macos" => format!("{arch}-apple-darwin"),
        "windows" => format!("{arch}-pc-windows-msvc"),
        os => format!("{arch}-unknown-{os}"),
    }
}

pub(super) fn run(b: &Builder) -> Result<BuildReport, Error> {
    let emit = b.cargo_metadata.unwrap_or(true);
    let mut env = Env::process(emit);
    for (name, value) in &b.env_overrides {
        env.set(name, value.as_deref());
    }
    let ctx = Ctx {
        b,
        env,
        emit,
        lines: RefCell::new(Vec::new()),
        report: RefCell::new(BuildReport {
            backend: None,
            ops: Vec::new(),
            compiled: Vec::new(),
            reused: Vec::new(),
            ops_rs: PathBuf::new(),
            rerun_if_changed: Vec::new(),
            warnings: Vec::new(),
            cargo_lines: Vec::new(),
            compile_commands: Vec::new(),
            env_read: Vec::new(),
        }),
    };
    let result = steps(&ctx);
    let mut report = ctx.report.into_inner();
    report.cargo_lines = ctx.lines.into_inner();
    report.env_read = ctx.env.names_read();
    result.map(|()| report)
}

fn steps(ctx: &Ctx<'_>) -> Result<(), Error> {
    let b = ctx.b;
    let manifest_dir = ctx.required_path(
        &b.manifest_dir,
        "CARGO_MANIFEST_DIR",
        "agenticcann_build::Builder runs in a build script (Cargo sets it), or give manifest_dir()",
    )?;
    let out_dir = ctx.required_path(
        &b.out_dir,
        "OUT_DIR",
        "agenticcann_build::Builder runs in a build script (Cargo sets it), or give out_dir()",
    )?;
    let ops_rs = out_dir.join("agenticcann_ops.rs");
    ctx.report.borrow_mut().ops_rs = ops_rs.clone();

    // 1. The spec.
    let manifest_path = manifest_dir.join("Cargo.toml");
    ctx.rerun_if_changed(&manifest_path);
    let spec = Spec::from_manifest_path(&manifest_path)
        .map_err(|e| Error::new(ErrorKind::Spec, e.to_string()))?;
    let Some(spec) = spec else {
        write_if_changed(
            &ops_rs,
            b"// This crate declares no ops ([package.metadata.agenticcann] is missing).\n",
        )
        .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
        return Ok(());
    };
    if let Some(ws) = &spec.workspace_manifest_path {
        ctx.rerun_if_changed(ws);
    }
    let docs = b
        .docs_rs
        .unwrap_or_else(|| ctx.env.get("DOCS_RS").is_some());
    if docs {
        let keys: Vec<Key> = spec.ops.iter().map(OpSpec::key).collect();
        let wops: Vec<WrapperOp> = spec
            .ops
            .iter()
            .zip(&keys)
            .map(|(op, key)| WrapperOp {
                op,
                key: *key,
                source: "the crate's store (not looked up in documentation builds)".into(),
            })
            .collect();
        for (op, key) in spec.ops.iter().zip(&keys) {
            ctx.report.borrow_mut().ops.push(BuiltOp {
                name: op.name.clone(),
                key: *key,
                source: None,
                entry_dir: None,
            });
        }
        let text = ops_module(&spec.package, spec.soc.name(), &wops, WrapperMode::DocsStub);
        write_if_changed(&ops_rs, text.as_bytes())
            .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
        return Ok(());
    }

    // 2. The lock and the store.
    let lock_file = lock_path(&manifest_dir);
    let lock = Lock::read(&lock_file).map_err(store_err)?;
    ctx.rerun_if_changed(&lock_file);
    let keys: Vec<Key> = spec.ops.iter().map(OpSpec::key).collect();
    if let Some(lock) = &lock {
        let current: Vec<(&str, Key)> = spec
            .ops
            .iter()
            .zip(&keys)
            .map(|(o, k)| (o.name.as_str(), *k))
            .collect();
        for s in lock.stale(&current) {
            match s.current {
                Some(now) => ctx.warning(&format!(
                    "agenticcann.lock: op `{}` is pinned to key {}, but its spec's key is now {} (stale pin; `cargo agenticcann synth --op {} --out kernels --lock` writes and pins a kernel for the new spec)",
                    s.name, s.locked, now, s.name
                )),
                None => ctx.warning(&format!(
                    "agenticcann.lock: op `{}` is pinned but no longer declared (stale pin)",
                    s.name
                )),
            }
        }
    }
    let cache = b.cache_dir.clone();
    let remote = b.remote.clone();
    let offline = b.offline;
    let env_lookup = |name: &str| -> Option<String> {
        match name {
            "AGENTICCANN_CACHE_DIR" if cache.is_some() => {
                cache.as_ref().map(|p| p.display().to_string())
            }
            "AGENTICCANN_REMOTE" if remote.is_some() => remote.clone().flatten(),
            "AGENTICCANN_OFFLINE" if offline.is_some() => {
                offline.map(|o| if o { "1".into() } else { "0".into() })
            }
            _ => ctx.env.get(name),
        }
    };
    let store = Store::from_env(
        spec.kernels_dir(),
        &out_dir.join("agenticcann").join("store"),
        &env_lookup,
    )
    .map_err(store_err)?;
    // The store folder itself, so that an entry written into it after this build (`cargo
    // agenticcann synth`, `evolve accept`) re-runs the script: Cargo scans a registered
    // folder recursively. A folder that does not exist yet cannot be registered (a missing
    // path re-runs the script on every build); the tools that create it bump the crate's
    // Cargo.toml instead ([`crate::store::touch_manifest`]).
    ctx.rerun_if_changed(&spec.kernels_dir());

    let mut entries: Vec<(usize, Entry, Source)> = Vec::new();
    let mut misses = Vec::new();
    for (i, (op, key)) in spec.ops.iter().zip(&keys).enumerate() {
        let found = store.lookup(key).map_err(|e| {
            let kind = store_err_kind(&e);
            Error::with_source(kind, format!("op `{}` (key {key}): {e}", op.name), e)
        })?;
        let Some(found) = found else {
            misses.push(Miss {
                op: op.name.clone(),
                key: *key,
            });
            continue;
        };
        if let Some(pin) = lock.as_ref().and_then(|l| l.get(&op.name)) {
            if pin.key == *key && pin.manifest != found.entry.manifest_digest {
                return Err(store_err(StoreError::LockMismatch(Box::new(
                    LockMismatch {
                        lock: lock_file.clone(),
                        op: op.name.clone(),
                        key: *key,
                        expected: pin.manifest,
                        actual: found.entry.manifest_digest,
                        manifest: found.entry.manifest_path(),
                    },
                ))));
            }
        }
        if let Source::Remote(url) = &found.source {
            ctx.warning(&format!(
                "op `{}`: kernel {} fetched from the remote store {url} into {}",
                op.name,
                key,
                found.entry.dir.display()
            ));
        }
        for p in found.entry.paths() {
            ctx.rerun_if_changed(&p);
        }
        ctx.report.borrow_mut().ops.push(BuiltOp {
            name: op.name.clone(),
            key: *key,
            source: Some(found.source.clone()),
            entry_dir: Some(found.entry.dir.clone()),
        });
        entries.push((i, found.entry, found.source));
    }
    if !misses.is_empty() {
        let synth = b
            .synth_on_miss
            .unwrap_or_else(|| !ctx.env.flag("AGENTICCANN_NO_SYNTH"));
        let message = || miss_message(&misses, &store, lock.as_ref(), &manifest_dir);
        if !synth {
            return Err(Error::new(
                ErrorKind::Miss,
                format!(
                    "{}\n\n(the offline proposer is off: AGENTICCANN_NO_SYNTH is set or Builder::synth_on_miss(false))",
                    message()
                ),
            ));
        }
        let root = out_dir.join("agenticcann").join("synth");
        let sim_include = ctx.path_setting(&b.sim_include, "DEP_AGENTICCANN_SIM_INCLUDE");
        for m in &misses {
            let Some((i, op)) = spec.ops.iter().enumerate().find(|(_, o)| o.name == m.op) else {
                continue;
            };
            let entry = synth_entry(op, &root, &out_dir, ctx.sim_toolchain(sim_include.clone())).map_err(|e| {
                Error::new(
                    ErrorKind::Miss,
                    format!(
                        "{}\n\nthe offline proposer could not produce a verified kernel for `{}`: {e}",
                        message(),
                        op.name
                    ),
                )
            })?;
            ctx.warning(&format!(
                "op `{}` (key {}) has no kernel in the store: using the offline proposer's verified baseline ({}); `cargo agenticcann synth --op {} --out kernels --lock` keeps it in the crate's kernels/ and pins it",
                op.name,
                m.key,
                entry.dir.display(),
                op.name
            ));
            ctx.report.borrow_mut().ops.push(BuiltOp {
                name: op.name.clone(),
                key: m.key,
                source: Some(Source::Synthesized),
                entry_dir: Some(entry.dir.clone()),
            });
            entries.push((i, entry, Source::Synthesized));
        }
        entries.sort_by_key(|(i, _, _)| *i);
        let order = |name: &str| spec.ops.iter().position(|o| o.name == name);
        ctx.report.borrow_mut().ops.sort_by_key(|o| order(&o.name));
    }
    if entries.is_empty() {
        write_if_changed(&ops_rs, b"// This crate declares no ops.\n")
            .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
        return Ok(());
    }

    // 3. Codegen: per-entry headers, the crate header, FFI, wrappers.
    let gen = out_dir.join("agenticcann");
    let mut unique: Vec<(&OpSpec, &Entry)> = Vec::new();
    for (i, e, _) in &entries {
        if !unique.iter().any(|(_, u)| u.key() == e.key()) {
            unique.push((&spec.ops[*i], e));
        }
    }
    let mut header_paths = Vec::new();
    for (op, e) in &unique {
        let p = gen.join(e.key().to_hex()).join("agenticcann_tiling.h");
        write_if_changed(&p, tiling_header(&e.manifest, op).as_bytes())
            .map_err(|err| Error::new(ErrorKind::Io, err.message))?;
        header_paths.push(p);
    }
    let hentries: Vec<HeaderEntry> = entries
        .iter()
        .map(|(i, e, _)| HeaderEntry {
            op: &spec.ops[*i],
            manifest: &e.manifest,
        })
        .collect();
    let crate_header =
        ops_header(&spec.package, &hentries).map_err(|m| Error::new(ErrorKind::Codegen, m))?;
    write_if_changed(&gen.join("agenticcann_ops.h"), crate_header.as_bytes())
        .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
    write_ffi(&out_dir, &crate_header)?;
    let wops: Vec<WrapperOp> = entries
        .iter()
        .map(|(i, e, source)| WrapperOp {
            op: &spec.ops[*i],
            key: e.key(),
            source: source.to_string(),
        })
        .collect();
    let text = ops_module(&spec.package, spec.soc.name(), &wops, WrapperMode::Launch);
    write_if_changed(&ops_rs, text.as_bytes()).map_err(|e| Error::new(ErrorKind::Io, e.message))?;

    // 4. Toolchain.
    let backend = match b.backend {
        Some(x) => x,
        None => {
            let v = ctx.env.get("DEP_AGENTICCANN_BACKEND").ok_or_else(|| {
                Error::new(
                    ErrorKind::Env,
                    "DEP_AGENTICCANN_BACKEND is not set: add `agenticcann` to this crate's \
                     [dependencies] (its build script tells agenticcann-build which backend \
                     the runtime links), or set the backend with Builder::backend()",
                )
            })?;
            Backend::parse(&v).ok_or_else(|| {
                Error::new(
                    ErrorKind::Env,
                    format!("DEP_AGENTICCANN_BACKEND={v:?} is not `sim` or `cann`"),
                )
            })?
        }
    };
    ctx.report.borrow_mut().backend = Some(backend);
    let lib_name = b
        .lib_name
        .clone()
        .unwrap_or_else(|| format!("agenticcann_{}", spec.package.replace('-', "_")));
    let target = b
        .target
        .clone()
        .or_else(|| ctx.env.get("TARGET"))
        .unwrap_or_else(host_triple);
    let host = b
        .host
        .clone()
        .or_else(|| ctx.env.get("HOST"))
        .unwrap_or_else(|| target.clone());
    let jobs = b
        .jobs
        .or_else(|| ctx.env.get("NUM_JOBS").and_then(|v| v.parse().ok()))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

    let sim_dir = gen.join(backend.to_string());
    let mut units = Vec::new();
    let launcher = match backend {
        Backend::Sim => LauncherKind::Sim,
        Backend::Cann => LauncherKind::Toolkit,
    };
    for ((op, e), header) in unique.iter().zip(&header_paths) {
        let key = e.key();
        let k16 = crate::codegen::names::key16(&key);
        let what = |part: &str| {
            format!(
                "{part} of op `{}` (key {key}, {})",
                op.name,
                e.dir.display()
            )
        };
        units.push(Unit {
            name: format!("agc_{k16}_kernel"),
            source: kernel_unit(&key, op, header, &e.kernel_path(), launcher)
                .map_err(|m| Error::new(ErrorKind::Codegen, m))?,
            inputs: vec![e.kernel_path(), header.clone()],
            what: what("kernel"),
        });
        units.push(Unit {
            name: format!("agc_{k16}_tiling"),
            source: tiling_unit(&key, op, header, &e.tiling_path())
                .map_err(|m| Error::new(ErrorKind::Codegen, m))?,
            inputs: vec![e.tiling_path(), header.clone()],
            what: what("host tiling"),
        });
    }

    match backend {
        Backend::Sim => {
            let sim_include = ctx.required_path(
                &b.sim_include,
                "DEP_AGENTICCANN_SIM_INCLUDE",
                "agenticcann's build script exports the simulator's headers; add `agenticcann` to [dependencies]",
            )?;
            ctx.rerun_if_changed(&sim_include);
            let toolchain = ctx
                .sim_toolchain(Some(sim_include))
                .map_err(|m| Error::new(ErrorKind::Env, m))?;
            let tc = ObjectBuilder::new(ObjectOptions {
                toolchain,
                out_dir: sim_dir,
                target,
                host,
                jobs,
                cargo_metadata: ctx.emit,
            })
            .map_err(|e| Error::new(ErrorKind::Toolchain, e.message))?;
            let rep = tc
                .compile(&units)
                .map_err(|e| Error::new(ErrorKind::Toolchain, e.message))?;
            for (unit, w) in &rep.warnings {
                ctx.warning(&format!(
                    "{unit}: compiler warnings:\n{}",
                    crate::toolchain::sim::trim_output(w, 10)
                ));
            }
            for c in &rep.compiled {
                ctx.log(&format!("compiled {c}"));
            }
            for r in &rep.reused {
                ctx.log(&format!("up to date {r}"));
            }
            let lib_dir = tc
                .archive(&lib_name, &rep.objects)
                .map_err(|e| Error::new(ErrorKind::Toolchain, e.message))?;
            ctx.cargo(format!(
                "cargo:rustc-link-search=native={}",
                lib_dir.display()
            ));
            ctx.cargo(format!("cargo:rustc-link-lib=static={lib_name}"));
            let mut r = ctx.report.borrow_mut();
            r.compiled = rep.compiled;
            r.reused = rep.reused;
            r.compile_commands = rep.commands;
        }
        Backend::Cann => {
            let toolkit = ctx.required_path(
                &b.toolkit,
                "DEP_AGENTICCANN_TOOLKIT",
                "agenticcann's build script exports the CANN toolkit root it found",
            )?;
            let module = find_cmake_module(&toolkit)
                .map_err(|e| Error::new(ErrorKind::Toolchain, e.message))?;
            let src_dir = sim_dir.join("src");
            let include_dir = sim_dir.join("include");
            write_if_changed(
                &include_dir.join("agenticcann_tiling.h"),
                STUB_HEADER.as_bytes(),
            )
            .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
            let mut kernel_sources = Vec::new();
            let mut tiling_sources = Vec::new();
            for u in &units {
                let p = src_dir.join(format!("{}.cpp", u.name));
                write_if_changed(&p, u.source.as_bytes())
                    .map_err(|e| Error::new(ErrorKind::Io, e.message))?;
                if u.name.ends_with("_kernel") {
                    kernel_sources.push(p);
                } else {
                    tiling_sources.push(p);
                }
            }
            let project = CannProject {
                package: spec.package.clone(),
                soc: spec.soc.name().to_string(),
                toolkit,
                cmake_module_dir: module,
                kernel_sources,
                tiling_sources,
                include_dir,
                kernels_lib: format!("{lib_name}_kernels"),
                tiling_lib: format!("{lib_name}_tiling"),
            };
            let install = project
                .build(&sim_dir.join("cmake"))
                .map_err(|e| Error::new(ErrorKind::Toolchain, e.message))?;
            for l in project.link_lines(&install) {
                ctx.cargo(l);
            }
        }
    }
    Ok(())
}

/// bindgen over the crate header, cached: skipped when the header (and bindgen setup) did
/// not change since the FFI was last written.
fn write_ffi(out_dir: &Path, header: &str) -> Result<(), Error> {
    let ffi = out_dir.join("agenticcann_ffi.rs");
    let stamp = out_dir.join("agenticcann").join("agenticcann_ffi.stamp");
    let want = blake3::hash(format!("{FFI_STAMP_VERSION}\n{header}").as_bytes())
        .to_hex()
        .to_string();
    if ffi.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    let rust = bindgen_ops_header(header).map_err(|m| Error::new(ErrorKind::Codegen, m))?;
    write_if_changed(&ffi, rust.as_bytes()).map_err(|e| Error::new(ErrorKind::Io, e.message))?;
    write_if_changed(&stamp, want.as_bytes()).map_err(|e| Error::new(ErrorKind::Io, e.message))?;
    Ok(())
}
