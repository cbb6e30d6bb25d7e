//! The remote store, spoken in the Bazel HTTP cache protocol (docs/store-format.md §1):
//! `GET/HEAD/PUT <base>/ac/<key>` holds an entry's `manifest.toml`, `<base>/cas/<sha256>`
//! holds each file by its digest. Any server of that protocol serves it (bazel-remote,
//! nginx with WebDAV `PUT`, an S3 gateway).
//!
//! Everything fetched is untrusted: the manifest must parse and carry the requested key,
//! every file must hash to its digest, and bodies are capped at [`MAX_BODY_BYTES`].
//! Requests are blocking (build scripts are synchronous) with a connect timeout and a total
//! timeout per request ([`RemoteOptions`]).

use std::time::Duration;

use super::digest::Digest;
use super::entry::Entry;
use super::manifest::{Manifest, ManifestError};
use crate::key::Key;

/// The largest body accepted for one manifest or file (16 MiB; kernel sources are a few
/// KiB).
pub const MAX_BODY_BYTES: u64 = 16 << 20;

/// Timeouts of the remote client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Time to establish a connection (default 5 s).
    pub connect_timeout: Duration,
    /// Time for one whole request, body included (default 30 s).
    pub timeout: Duration,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(30),
        }
    }
}

/// A remote store failure, naming the URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// `AGENTICCANN_REMOTE` is not an http(s) URL.
    #[error("AGENTICCANN_REMOTE=`{url}` is not a valid remote store URL: {message}")]
    InvalidUrl {
        /// The value.
        url: String,
        /// Why.
        message: String,
    },
    /// This build of agenticcann-build has no HTTP client (feature `remote` off).
    #[error("AGENTICCANN_REMOTE=`{url}` is set, but agenticcann-build was built without its `remote` feature; enable it or unset AGENTICCANN_REMOTE")]
    Disabled {
        /// The configured URL.
        url: String,
    },
    /// The server could not be reached or did not answer in time.
    #[error("cannot reach the remote store: {action} {url} failed: {message}. Check that the server is up and AGENTICCANN_REMOTE is right, or set AGENTICCANN_OFFLINE=1 to build from the crate's kernels/ folder and the user cache only")]
    Unreachable {
        /// `GET`, `HEAD` or `PUT`.
        action: &'static str,
        /// The URL.
        url: String,
        /// The client's error chain.
        message: String,
    },
    /// The server answered with an unexpected status.
    #[error("remote store: {action} {url} returned HTTP {status}")]
    Status {
        /// `GET`, `HEAD` or `PUT`.
        action: &'static str,
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// A body is larger than [`MAX_BODY_BYTES`].
    #[error("remote store: {url} sent more than {MAX_BODY_BYTES} bytes")]
    TooLarge {
        /// The URL.
        url: String,
    },
    /// A fetched file does not hash to the digest it was requested by.
    #[error("remote store: {url} (file `{file}` of the entry) does not match its digest: expected sha256 {expected}, received {actual}; the fetched entry is rejected")]
    DigestMismatch {
        /// The URL.
        url: String,
        /// The file's name in the manifest.
        file: String,
        /// The digest in the manifest (and the URL).
        expected: Digest,
        /// The digest of the bytes received.
        actual: Digest,
    },
    /// The fetched manifest is for another key.
    #[error("remote store: {url} holds a manifest for key {actual}, not {expected}; the fetched entry is rejected")]
    KeyMismatch {
        /// The URL.
        url: String,
        /// The key requested.
        expected: Key,
        /// The key in the manifest.
        actual: Key,
    },
    /// The fetched manifest is invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

/// An entry fetched and verified, not yet written anywhere.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchedEntry {
    /// The manifest's text as served (its sha256 is the manifest digest).
    pub manifest_text: String,
    /// The parsed manifest.
    pub manifest: Manifest,
    /// Every file of `[files]`: name and verified bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A client of one remote store.
pub struct Remote {
    /// The base URL without credentials (used in requests and every message).
    base: String,
    /// User and password from the URL, sent as basic auth.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    auth: Option<(String, Option<String>)>,
    #[cfg(feature = "remote")]
    client: reqwest::blocking::Client,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("base", &self.base).finish()
    }
}

/// Splits `scheme://user:password@host/…` into the URL without credentials and the
/// credentials (sent as given, without percent-decoding).
pub(crate) fn split_credentials(url: &str) -> (String, Option<(String, Option<String>)>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let creds = match userinfo.split_once(':') {
                Some((u, p)) => (u.to_string(), Some(p.to_string())),
                None => (userinfo.to_string(), None),
            };
            (format!("{scheme}://{host}{path}"), Some(creds))
        }
        None => (url.to_string(), None),
    }
}

/// The error chain of `e` on one line: `outer: inner: innermost`.
#[cfg_attr(not(feature = "remote"), allow(dead_code))]
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !out.contains(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
        cur = s.source();
    }
    out
}

impl Remote {
    /// A client for the store at `url` (`http://host:port/prefix`; a trailing `/` is
    /// ignored; user and password in the URL are sent as basic auth).
    ///
    /// # Errors
    /// [`RemoteError::InvalidUrl`] for anything but an http(s) URL,
    /// [`RemoteError::Disabled`] without the `remote` feature.
    pub fn new(url: &str, options: RemoteOptions) -> Result<Remote, RemoteError> {
        let (plain, auth) = split_credentials(url.trim());
        let trimmed = plain.trim_end_matches('/');
        if !(trimmed.starts_with("http://") || trimmed.starts_with("https://"))
            || trimmed.len() <= "https://".len()
        {
            return Err(RemoteError::InvalidUrl {
                url: trimmed.to_string(),
                message: "expected http://host[:port][/prefix] or https://…".into(),
            });
        }
        #[cfg(feature = "remote")]
        {
            let client = reqwest::blocking::Client::builder()
                .connect_timeout(options.connect_timeout)
                .timeout(options.timeout)
                .user_agent(concat!("agenticcann-build/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| RemoteError::InvalidUrl {
                    url: trimmed.to_string(),
                    message: chain(&e),
                })?;
            Ok(Remote {
                base: trimmed.to_string(),
                auth,
                client,
            })
        }
        #[cfg(not(feature = "remote"))]
        {
            let _ = (options, auth);
            Err(RemoteError::Disabled {
                url: trimmed.to_string(),
            })
        }
    }

    /// The base URL without a trailing `/` and without credentials.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// `<base>/ac/<key>`.
    pub fn ac_url(&self, key: &Key) -> String {
        format!("{}/ac/{key}", self.base)
    }

    /// `<base>/cas/<digest>`.
    pub fn cas_url(&self, digest: &Digest) -> String {
        format!("{}/cas/{digest}", self.base)
    }

    /// Fetches the entry of `key`: the manifest from `/ac/<key>`, then every file from
    /// `/cas/<digest>`, each verified. `Ok(None)` when the server has no manifest for the key
    /// (HTTP 404).
    ///
    /// # Errors
    /// [`RemoteError::Unreachable`] when the server is down or slow,
    /// [`RemoteError::Status`] for other statuses (a missing file of a present manifest
    /// included), [`RemoteError::Manifest`] / [`RemoteError::KeyMismatch`] /
    /// [`RemoteError::DigestMismatch`] for content that fails verification.
    pub fn fetch(&self, key: &Key) -> Result<Option<FetchedEntry>, RemoteError> {
        let url = self.ac_url(key);
        let Some(bytes) = self.get(&url)? else {
            return Ok(None);
        };
        let manifest_text = String::from_utf8(bytes).map_err(|e| ManifestError {
            origin: url.clone(),
            message: format!("not UTF-8: {e}"),
        })?;
        let manifest = Manifest::from_toml_str(&manifest_text, &url)?;
        if manifest.key != *key {
            return Err(RemoteError::KeyMismatch {
                url,
                expected: *key,
                actual: manifest.key,
            });
        }
        let mut files = Vec::new();
        for (name, digest) in &manifest.files {
            let url = self.cas_url(digest);
            let bytes = self.get(&url)?.ok_or_else(|| RemoteError::Status {
                action: "GET",
                url: url.clone(),
                status: 404,
            })?;
            let actual = Digest::of(&bytes);
            if actual != *digest {
                return Err(RemoteError::DigestMismatch {
                    url,
                    file: name.clone(),
                    expected: *digest,
                    actual,
                });
            }
            files.push((name.clone(), bytes));
        }
        Ok(Some(FetchedEntry {
            manifest_text,
            manifest,
            files,
        }))
    }

    /// True when the server has a manifest for `key` (`HEAD /ac/<key>`).
    ///
    /// # Errors
    /// As [`fetch`](Self::fetch) for transport and status errors.
    pub fn contains(&self, key: &Key) -> Result<bool, RemoteError> {
        self.head(&self.ac_url(key))
    }

    /// Uploads a verified entry: every file to `/cas/<digest>` (skipping those the server
    /// has), then the manifest to `/ac/<key>` last, so a reader never sees a manifest whose
    /// files are missing. Used by `cargo agenticcann push`; build scripts never write.
    ///
    /// # Errors
    /// [`super::StoreError`] when a file changed since the entry was loaded, or the
    /// server refuses.
    pub fn push(&self, entry: &Entry) -> Result<(), super::StoreError> {
        for (name, digest) in &entry.manifest.files {
            let url = self.cas_url(digest);
            if self.head(&url)? {
                continue;
            }
            let bytes = entry.read_verified(name)?;
            self.put(&url, bytes)?;
        }
        let mp = entry.manifest_path();
        let manifest = std::fs::read(&mp).map_err(|e| super::StoreError::io("read", &mp, e))?;
        let actual = Digest::of(&manifest);
        if actual != entry.manifest_digest {
            return Err(super::StoreError::DigestMismatch {
                path: mp,
                expected: entry.manifest_digest,
                actual,
            });
        }
        self.put(&self.ac_url(&entry.key()), manifest)?;
        Ok(())
    }

    #[cfg(feature = "remote")]
    fn with_auth(
        &self,
        rb: reqwest::blocking::RequestBuilder,
    ) -> reqwest::blocking::RequestBuilder {
        match &self.auth {
            Some((user, password)) => rb.basic_auth(user, password.as_deref()),
            None => rb,
        }
    }

    #[cfg(feature = "remote")]
    fn get(&self, url: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        use std::io::Read;
        let resp =
            self.with_auth(self.client.get(url))
                .send()
                .map_err(|e| RemoteError::Unreachable {
                    action: "GET",
                    url: url.to_string(),
                    message: chain(&e),
                })?;
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(RemoteError::Status {
                action: "GET",
                url: url.to_string(),
                status: status.as_u16(),
            });
        }
        if resp.content_length().is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(RemoteError::TooLarge {
                url: url.to_string(),
            });
        }
        let mut body = Vec::new();
        resp.take(MAX_BODY_BYTES + 1)
            .read_to_end(&mut body)
            .map_err(|e| RemoteError::Unreachable {
                action: "GET",
                url: url.to_string(),
                message: chain(&e),
            })?;
        if body.len() as u64 > MAX_BODY_BYTES {
            return Err(RemoteError::TooLarge {
                url: url.to_string(),
            });
        }
        Ok(Some(body))
    }

    #[cfg(feature = "remote")]
    fn head(&self, url: &str) -> Result<bool, RemoteError> {
        let resp =
            self.with_auth(self.client.head(url))
                .send()
                .map_err(|e| RemoteError::Unreachable {
                    action: "HEAD",
                    url: url.to_string(),
                    message: chain(&e),
                })?;
        match resp.status() {
            s if s.is_success() => Ok(true),
            reqwest::StatusCode::NOT_FOUND => Ok(false),
            s => Err(RemoteError::Status {
                action: "HEAD",
                url: url.to_string(),
                status: s.as_u16(),
            }),
        }
    }

    #[cfg(feature = "remote")]
    fn put(&self, url: &str, body: Vec<u8>) -> Result<(), RemoteError> {
        let resp = self
            .with_auth(self.client.put(url))
            .body(body)
            .send()
            .map_err(|e| RemoteError::Unreachable {
                action: "PUT",
                url: url.to_string(),
                message: chain(&e),
            })?;
        if resp.status().is_success() {
            Ok(())
        } else {
            Err(RemoteError::Status {
                action: "PUT",
                url: url.to_string(),
                status: resp.status().as_u16(),
            })
        }
    }

    #[cfg(not(feature = "remote"))]
    fn get(&self, url: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        Err(RemoteError::Disabled { url: url.into() })
    }

    #[cfg(not(feature = "remote"))]
    fn head(&self, url: &str) -> Result<bool, RemoteError> {
        Err(RemoteError::Disabled { url: url.into() })
    }

    #[cfg(not(feature = "remote"))]
    fn put(&self, url: &str, _body: Vec<u8>) -> Result<(), RemoteError> {
        Err(RemoteError::Disabled { url: url.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_messages() {
        assert_eq!(
            split_credentials("https://bob:s3cret@cache.example:8080/p"),
            (
                "https://cache.example:8080/p".to_string(),
                Some(("bob".to_string(), Some("s3cret".to_string())))
            )
        );
        assert_eq!(
            split_credentials("http://h/a@b"),
            ("http://h/a@b".to_string(), None)
        );
        let e = Remote::new("ftp://bob:s3cret@h", RemoteOptions::default()).unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
        #[cfg(feature = "remote")]
        {
            let r =
                Remote::new("http://bob:s3cret@127.0.0.1:9/", RemoteOptions::default()).unwrap();
            assert_eq!(r.url(), "http://127.0.0.1:9");
            assert!(!format!("{r:?}").contains("s3cret"));
        }
    }

    #[test]
    fn rejects_non_http_urls() {
        for bad in ["", "ftp://x", "localhost:8080", "http://"] {
            let e = Remote::new(bad, RemoteOptions::default()).unwrap_err();
            assert!(matches!(e, RemoteError::InvalidUrl { .. }), "{bad}: {e}");
        }
    }

    #[cfg(feature = "remote")]
    #[test]
    fn builds_bazel_cache_urls() {
        let r = Remote::new("http://127.0.0.1:9/cache/", RemoteOptions::default()).unwrap();
        let k = Key::from_bytes([0xab; 32]);
        assert_eq!(r.ac_url(&k), format!("http://127.0.0.1:9/cache/ac/{k}"));
        let d = Digest::from_bytes([1; 32]);
        assert_eq!(r.cas_url(&d), format!("http://127.0.0.1:9/cache/cas/{d}"));
    }
}
