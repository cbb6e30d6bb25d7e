//! The remote store against a real HTTP server (nginx with WebDAV PUT, started by each
//! test): fetch by key into the user cache, digest mismatches rejected, a server that is
//! down gives a clear error, AGENTICCANN_OFFLINE makes no request, and concurrent builds
//! sharing one cache directory leave it intact.

mod common;

use agenticcann_build::store::{
    Digest, Entry, Remote, RemoteError, RemoteOptions, Source, StoreError,
};
use agenticcann_build::ErrorKind;
use common::nginx::{free_port, Nginx};
use common::*;

/// Uploads the fixture's entries for `keys` to the server.
fn push(server: &Nginx, keys: &[&str]) {
    let remote = Remote::new(&server.url(), RemoteOptions::default()).unwrap();
    for k in keys {
        let e = Entry::load(&fixture_src().join("kernels").join(k)).unwrap();
        remote.push(&e).unwrap();
    }
}

/// A fixture copy with only `ops` and no kernels folder: every entry must come from the
/// remote.
fn remote_only(ops: &[&str]) -> Fixture {
    let f = Fixture::new(ops);
    std::fs::remove_dir_all(f.root().join("kernels")).unwrap();
    f
}

#[test]
fn fetches_by_key_from_a_real_server_into_the_user_cache() {
    let server = Nginx::start();
    push(&server, &[ADD_F32]);
    // The Bazel HTTP cache layout: /ac/<key> is the manifest, /cas/<sha256> each file.
    let manifest = std::fs::read(
        fixture_src()
            .join("kernels")
            .join(ADD_F32)
            .join("manifest.toml"),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(server.data().join("ac").join(ADD_F32)).unwrap(),
        manifest
    );
    let kernel = std::fs::read(
        fixture_src()
            .join("kernels")
            .join(ADD_F32)
            .join("kernel.cpp"),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(server.data().join("cas").join(Digest::of(&kernel).to_hex())).unwrap(),
        kernel
    );

    let f = remote_only(&["add_f32"]);
    let url = server.url();
    let r = f.builder().remote(Some(&url)).try_build().unwrap();
    assert_eq!(r.ops[0].source, Some(Source::Remote(url.clone())));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("fetched from the remote store")),
        "{:?}",
        r.warnings
    );
    let cached = f.root().join("cache").join(ADD_F32);
    assert_eq!(r.ops[0].entry_dir.as_deref(), Some(cached.as_path()));
    Entry::load(&cached).unwrap();

    // The next build finds it in the cache and asks the server nothing.
    let n = server.settled_request_count();
    let again = f.builder().remote(Some(&url)).try_build().unwrap();
    assert_eq!(again.ops[0].source, Some(Source::UserCache));
    assert_eq!(server.settled_request_count(), n);
}

#[test]
fn a_digest_mismatch_on_the_server_is_rejected_and_nothing_is_cached() {
    let server = Nginx::start();
    push(&server, &[ADD_F32]);
    let kernel = std::fs::read(
        fixture_src()
            .join("kernels")
            .join(ADD_F32)
            .join("kernel.cpp"),
    )
    .unwrap();
    let digest = Digest::of(&kernel);
    std::fs::write(
        server.data().join("cas").join(digest.to_hex()),
        b"// not the kernel\n",
    )
    .unwrap();

    let remote = Remote::new(&server.url(), RemoteOptions::default()).unwrap();
    match remote.fetch(&key(ADD_F32)).unwrap_err() {
        RemoteError::DigestMismatch {
            url,
            file,
            expected,
            actual,
        } => {
            assert_eq!(url, format!("{}/cas/{digest}", server.url()));
            assert_eq!(file, "kernel.cpp");
            assert_eq!(expected, digest);
            assert_eq!(actual, Digest::of(b"// not the kernel\n"));
        }
        other => panic!("{other}"),
    }

    let f = remote_only(&["add_f32"]);
    let e = f
        .builder()
        .remote(Some(&server.url()))
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Store);
    assert!(e.to_string().contains("does not match its digest"), "{e}");
    assert!(!f.root().join("cache").join(ADD_F32).exists());

    // A manifest served under the wrong key is rejected too.
    let other = std::fs::read(
        fixture_src()
            .join("kernels")
            .join(SOFTMAX)
            .join("manifest.toml"),
    )
    .unwrap();
    std::fs::write(server.data().join("ac").join(ADD_F32), other).unwrap();
    assert!(matches!(
        remote.fetch(&key(ADD_F32)).unwrap_err(),
        RemoteError::KeyMismatch { .. }
    ));
    // And a key the server does not have is a plain miss.
    assert!(remote.fetch(&key(RMS_NORM)).unwrap().is_none());
}

#[test]
fn a_server_that_is_down_is_a_clear_error() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let f = remote_only(&["add_f32"]);
    let t0 = std::time::Instant::now();
    let e = f.builder().remote(Some(&url)).try_build().unwrap_err();
    assert!(t0.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(e.kind(), ErrorKind::Store);
    let msg = e.to_string();
    assert!(
        msg.contains(&format!(
            "cannot reach the remote store: GET {url}/ac/{ADD_F32} failed"
        )),
        "{msg}"
    );
    assert!(msg.contains("AGENTICCANN_OFFLINE=1"), "{msg}");
    assert!(matches!(
        std::error::Error::source(&e).and_then(|s| s.downcast_ref::<StoreError>()),
        Some(StoreError::Remote(_))
    ));
}

#[test]
fn offline_makes_no_request() {
    let server = Nginx::start();
    push(&server, &[ADD_F32]);
    let before = server.settled_request_count();
    let f = remote_only(&["add_f32"]);
    let e = f
        .builder()
        .remote(Some(&server.url()))
        .offline(true)
        .try_build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Miss);
    assert!(e.to_string().contains("AGENTICCANN_OFFLINE is set"), "{e}");
    assert_eq!(server.settled_request_count(), before);
}

#[test]
fn concurrent_builds_sharing_one_cache_dir_do_not_corrupt_it() {
    let server = Nginx::start();
    push(&server, &[ADD_F32, SOFTMAX]);
    let cache = tempfile::tempdir().unwrap();
    let fixtures: Vec<Fixture> = (0..3)
        .map(|_| remote_only(&["add_f32", "softmax"]))
        .collect();
    let url = server.url();
    std::thread::scope(|s| {
        let handles: Vec<_> = fixtures
            .iter()
            .map(|f| {
                let (url, cache) = (&url, cache.path());
                s.spawn(move || f.builder().remote(Some(url)).cache_dir(cache).try_build())
            })
            .collect();
        for h in handles {
            let r = h.join().unwrap().unwrap();
            assert_eq!(r.ops.len(), 2);
        }
    });
    let mut names: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want = vec![ADD_F32.to_string(), SOFTMAX.to_string()];
    want.sort();
    assert_eq!(names, want, "leftover temporary folders or missing entries");
    for n in &names {
        Entry::load(&cache.path().join(n)).unwrap();
    }
}

#[test]
fn credentials_in_the_url_are_sent_as_basic_auth_and_never_shown() {
    let server = Nginx::start_with(Some(("builder", "s3cret")));
    let host = server.url().trim_start_matches("http://").to_string();
    let with = format!("http://builder:s3cret@{host}");
    let remote = Remote::new(&with, RemoteOptions::default()).unwrap();
    let e = Entry::load(&fixture_src().join("kernels").join(ADD_F32)).unwrap();
    remote.push(&e).unwrap();
    assert!(remote.fetch(&key(ADD_F32)).unwrap().is_some());

    let anonymous = Remote::new(&server.url(), RemoteOptions::default()).unwrap();
    match anonymous.fetch(&key(ADD_F32)).unwrap_err() {
        RemoteError::Status { status, .. } => assert_eq!(status, 401),
        other => panic!("{other}"),
    }
    let wrong = Remote::new(
        &format!("http://builder:nope@{host}"),
        RemoteOptions::default(),
    )
    .unwrap();
    let e = wrong.fetch(&key(ADD_F32)).unwrap_err().to_string();
    assert!(e.contains("HTTP 401") && !e.contains("nope"), "{e}");

    let f = remote_only(&["add_f32"]);
    let r = f.builder().remote(Some(&with)).try_build().unwrap();
    assert_eq!(r.ops[0].source, Some(Source::Remote(server.url())));
    assert!(
        r.warnings.iter().all(|w| !w.contains("s3cret")),
        "{:?}",
        r.warnings
    );
}
