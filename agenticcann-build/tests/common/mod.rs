//! Shared helpers of the Builder tests: copies of tests/build-fixture in temporary folders,
//! driven in-process with every setting explicit.
#![allow(dead_code)]

pub mod nginx;

use std::path::{Path, PathBuf};

use agenticcann_build::key::Key;
use agenticcann_build::store::{Digest, Manifest};
use agenticcann_build::toolchain::Backend;
use agenticcann_build::Builder;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn fixture_src() -> PathBuf {
    repo().join("tests/build-fixture")
}

pub fn sim_include() -> PathBuf {
    repo().join("ascendc-sim/include")
}

/// The fixture's keys by op name.
pub const ADD_F16: &str = "d5f1e5d0a6b872726ebee49eaed4b7d08a2d905280be0f08d9e19f3015f8fff1";
pub const ADD_F32: &str = "88f0c1ab39c04e8eb94d22c6ac2365f40453cbe34dde8e9299e8a323558c3735";
pub const RMS_NORM: &str = "95ea08cc1c93d469bd09b66abcfe4688b3a32e500b1b0fcd7e0296d56384a11b";
pub const SOFTMAX: &str = "2af6db43b5e7d6b5817fdb6b667a775296fc963cf6a8ae308da00ceada2c188e";
pub const STAGE_COPY: &str = "deaab678226562358c5d22d36c7a07667645ac80e4387af2c7f1ce140b951bf8";

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A copy of the fixture crate (Cargo.toml and kernels/) keeping only `ops` (all when
/// empty), with the copy's path-independent manifest.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new(ops: &[&str]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(fixture_src().join("Cargo.toml")).unwrap();
        let mut t: toml::Table = text.parse().unwrap();
        if !ops.is_empty() {
            let table = t["package"]["metadata"]["agenticcann"]["ops"]
                .as_table()
                .unwrap()
                .clone();
            let kept: toml::Table = table
                .into_iter()
                .filter(|(k, _)| ops.contains(&k.as_str()))
                .collect();
            t["package"]["metadata"]["agenticcann"]
                .as_table_mut()
                .unwrap()
                .insert("ops".into(), toml::Value::Table(kept));
        }
        std::fs::write(dir.path().join("Cargo.toml"), toml::to_string(&t).unwrap()).unwrap();
        copy_dir(&fixture_src().join("kernels"), &dir.path().join("kernels"));
        Fixture { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn out(&self) -> PathBuf {
        self.root().join("out")
    }

    pub fn entry(&self, key: &str) -> PathBuf {
        self.root().join("kernels").join(key)
    }

    /// A builder over this copy: simulator backend, no remote, a private cache, no cargo
    /// output.
    pub fn builder(&self) -> Builder {
        let mut b = Builder::new();
        b.manifest_dir(self.root())
            .out_dir(self.out())
            .backend(Backend::Sim)
            .sim_include(sim_include())
            .cache_dir(self.root().join("cache"))
            .remote(None)
            .offline(false)
            .synth_on_miss(false)
            .docs_only(false)
            .jobs(2)
            .cargo_metadata(false);
        b
    }

    /// Rewrites `file` of the entry `key` and updates its digest in the manifest (a
    /// legitimate edit, as `cargo agenticcann judge --lock` would record it).
    pub fn edit_entry_file(&self, key: &str, file: &str, text: &str) {
        let dir = self.entry(key);
        std::fs::write(dir.join(file), text).unwrap();
        let mp = dir.join("manifest.toml");
        let mut m = Manifest::from_toml_str(&std::fs::read_to_string(&mp).unwrap(), "m").unwrap();
        m.files
            .insert(file.to_string(), Digest::of(text.as_bytes()));
        std::fs::write(&mp, m.to_toml_string()).unwrap();
    }

    /// Replaces the reference of `op` in the copy's Cargo.toml.
    pub fn set_reference(&self, op: &str, reference: &str) {
        let p = self.root().join("Cargo.toml");
        let mut t: toml::Table = std::fs::read_to_string(&p).unwrap().parse().unwrap();
        t["package"]["metadata"]["agenticcann"]["ops"][op]
            .as_table_mut()
            .unwrap()
            .insert("reference".into(), toml::Value::String(reference.into()));
        std::fs::write(&p, toml::to_string(&t).unwrap()).unwrap();
    }
}

pub fn key(hex: &str) -> Key {
    hex.parse().unwrap()
}

/// Modification times of every file under `dir`, sorted by path.
pub fn mtimes(dir: &Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.clone(),
                    std::fs::metadata(&p).unwrap().modified().unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}
