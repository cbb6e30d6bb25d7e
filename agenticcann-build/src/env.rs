//! The one way agenticcann reads environment variables.
//!
//! - [`Env::get`] (build scripts, through [`crate::Builder`]) prints
//!   `cargo:rerun-if-env-changed=<NAME>` (once per name) for every read, so Cargo re-runs the
//!   build script exactly when an input changes.
//! - [`var`] / [`var_os`] read the process environment directly, for tools and libraries
//!   outside a build script (the CLI, the judge's defaults); they print nothing.
//! - [`parse_flag`] is the one boolean parser: every boolean variable (`AGENTICCANN_OFFLINE`,
//!   `AGENTICCANN_NO_SYNTH`, …) goes through it, through [`Env::flag`] or [`flag`].
//!
//! This module is the only place that calls `std::env::var` / `var_os`: the workspace's
//! `clippy.toml` disallows them everywhere else (the pattern of cc-rs).
//!
//! Variables read by [`crate::Builder`] (see the crate docs for their meaning):
//! `CARGO_MANIFEST_DIR`, `OUT_DIR`, `TARGET`, `HOST`, `NUM_JOBS`, `DOCS_RS`,
//! `DEP_AGENTICCANN_BACKEND`, `DEP_AGENTICCANN_SIM_INCLUDE`, `DEP_AGENTICCANN_TOOLKIT`,
//! `AGENTICCANN_CACHE_DIR` (else `XDG_CACHE_HOME`, `HOME`), `AGENTICCANN_REMOTE`,
//! `AGENTICCANN_OFFLINE`, `AGENTICCANN_NO_SYNTH`; on the simulator backend the toolchain's
//! `AGENTICCANN_CXX`, `CXX`, `AGENTICCANN_SIM_LIB_DIR` and `AGENTICCANN_SIM_PROFILES`
//! ([`crate::toolchain::sim::SimToolchain::from_env_in`]). The `cmake` crate reads its own
//! on the CANN backend and prints its own rerun lines.
//!
//! Variables of the LLM client (`agenticcann_evolve::llm::settings`, read with [`var`]):
//! [`LLM_BASE_URL`], [`LLM_MODEL`] and the key from the first of [`LLM_API_KEY`],
//! [`DEEPSEEK_API_KEY`], [`OPENAI_API_KEY`].

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::Write;

/// The LLM endpoint's base URL (`https://api.deepseek.com`, `http://127.0.0.1:8080/v1`).
pub const LLM_BASE_URL: &str = "AGENTICCANN_LLM_BASE_URL";
/// The LLM's model name (`deepseek-chat`).
pub const LLM_MODEL: &str = "AGENTICCANN_LLM_MODEL";
/// The LLM API key; tried before [`DEEPSEEK_API_KEY`] and [`OPENAI_API_KEY`].
pub const LLM_API_KEY: &str = "AGENTICCANN_LLM_API_KEY";
/// DeepSeek's conventional key variable (second choice for the LLM key).
pub const DEEPSEEK_API_KEY: &str = "DEEPSEEK_API_KEY";
/// OpenAI's conventional key variable (third choice for the LLM key).
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";

/// The value of `name` in the process environment; `None` when unset, empty or not Unicode.
/// Prints no rerun line: in a build script, read through [`Env::get`] instead.
#[allow(clippy::disallowed_methods)] // The one helper that may read the environment.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The raw value of `name` (any bytes, e.g. a path); `None` when unset or empty.
#[allow(clippy::disallowed_methods)] // The one helper that may read the environment.
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The one boolean parser of environment values: `0`, `false`, `no`, `off` (any case,
/// surrounding blanks ignored) and the empty string are false; any other value is true.
pub fn parse_flag(value: &str) -> bool {
    !matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "" | "0" | "false" | "no" | "off"
    )
}

/// Whether the process variable `name` is set to a true value ([`parse_flag`]); unset is
/// false.
pub fn flag(name: &str) -> bool {
    var(name).is_some_and(|v| parse_flag(&v))
}

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
            None => var(name),
        };
        v.filter(|v| !v.is_empty())
    }

    /// True when `name` is set to a true value ([`parse_flag`]: anything but `0`, `false`,
    /// `no` or `off`). Announced like [`get`](Self::get).
    pub fn flag(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| parse_flag(&v))
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

    #[test]
    fn every_false_spelling_is_false() {
        for v in [
            "0", "false", "FALSE", "False", "no", "No", "off", "OFF", " off ", "", "  ",
        ] {
            assert!(!parse_flag(v), "{v:?} must mean false");
        }
        for v in ["1", "true", "yes", "on", "ON", "2", "anything"] {
            assert!(parse_flag(v), "{v:?} must mean true");
        }
        let mut env = Env::process(false);
        for v in ["off", "0", "false", "no"] {
            env.set("AGENTICCANN_TEST_FLAG", Some(v));
            assert!(!env.flag("AGENTICCANN_TEST_FLAG"), "{v}");
        }
        env.set("AGENTICCANN_TEST_FLAG", None);
        assert!(!env.flag("AGENTICCANN_TEST_FLAG"), "unset");
    }
}
