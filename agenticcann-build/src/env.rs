//! The one way agenticcann-build reads environment variables: [`Env::get`] prints
//! `cargo:rerun-if-env-changed=<NAME>` (once per name) for every read, so Cargo re-runs the
//! build script exactly when an input changes.
//!
//! Variables read by [`crate::Builder`] (see the crate docs for their meaning):
//! `CARGO_MANIFEST_DIR`, `OUT_DIR`, `TARGET`, `HOST`, `NUM_JOBS`, `DOCS_RS`,
//! `DEP_AGENTICCANN_BACKEND`, `DEP_AGENTICCANN_SIM_INCLUDE`, `DEP_AGENTICCANN_TOOLKIT`,
//! `AGENTICCANN_CACHE_DIR` (else `XDG_CACHE_HOME`, `HOME`), `AGENTICCANN_REMOTE`,
//! `AGENTICCANN_OFFLINE`; the `cc` and
//! `cmake` crates read their own (`CXX`, `CXXFLAGS`, …) and print their own rerun lines.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// Environment access that records and announces every read.
#[derive(Debug, Default)]
pub struct Env {
    /// Values that replace the process environment (`Some`) or hide a variable (`None`).
    overrides: BTreeMap<String, Option<String>>,
    /// Print `cargo:rerun-if-env-changed` lines to stdout.
    emit: bool,
    read: RefCell<BTreeSet<String>>,
}

impl Env {
    /// The process environment; reads print rerun lines when `emit` (build scripts).
    pub fn process(emit: bool) -> Env {
        Env {
            overrides: BTreeMap::new(),
            emit,
            read: RefCell::new(BTreeSet::new()),
        }
    }

    /// Replaces (or with `None`, hides) `name` for reads through this `Env`.
    pub fn set(&mut self, name: &str, value: Option<&str>) {
        self.overrides
            .insert(name.to_string(), value.map(str::to_string));
    }

    /// The value of `name`, `None` when unset, empty or not Unicode. Prints
    /// `cargo:rerun-if-env-changed=<name>` the first time `name` is read.
    pub fn get(&self, name: &str) -> Option<String> {
        if self.read.borrow_mut().insert(name.to_string()) && self.emit {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "cargo:rerun-if-env-changed={name}");
        }
        let v = match self.overrides.get(name) {
            Some(v) => v.clone(),
            None => std::env::var(name).ok(),
        };
        v.filter(|v| !v.is_empty())
    }

    /// True when `name` is set to something other than `0`, `false`, `no` or `off`.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| {
            !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "" | "0" | "false" | "no" | "off"
            )
        })
    }

    /// Every name read so far, sorted.
    pub fn names_read(&self) -> Vec<String> {
        self.read.borrow().iter().cloned().collect()
    }

    /// A lookup closure over this `Env` (for APIs that take `&dyn Fn(&str) -> Option<String>`).
    pub fn lookup(&self) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| self.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_records_reads() {
        let mut env = Env::process(false);
        env.set("AGENTICCANN_TEST_A", Some("1"));
        env.set("PATH", None);
        env.set("AGENTICCANN_TEST_EMPTY", Some(""));
        assert_eq!(env.get("AGENTICCANN_TEST_A").as_deref(), Some("1"));
        assert_eq!(env.get("PATH"), None);
        assert_eq!(env.get("AGENTICCANN_TEST_EMPTY"), None);
        assert!(env.flag("AGENTICCANN_TEST_A"));
        env.set("AGENTICCANN_TEST_A", Some("false"));
        assert!(!env.flag("AGENTICCANN_TEST_A"));
        assert_eq!(
            env.names_read(),
            vec!["AGENTICCANN_TEST_A", "AGENTICCANN_TEST_EMPTY", "PATH"]
        );
    }
}
