//! The operator suite (`tests/specs/`): ops labelled by compute pattern, with the shapes
//! LLM inference uses plus deliberately awkward ones. It checks the router and the offline
//! proposer, and grows into the benchmark.
//!
//! ```text
//! tests/specs/<pattern>/Cargo.toml   a package (its own workspace root) whose
//!                                    [package.metadata.agenticcann.ops.*] are the suite's
//!                                    ops labelled <pattern>
//! tests/specs/<pattern>/src/lib.rs   empty, so cargo can read the package
//! ```
//!
//! Each folder is an ordinary manifest, so `cargo agenticcann check --manifest-path
//! tests/specs/<pattern>/Cargo.toml` and `knowledge show` work on it as on any crate.

use std::fmt;
use std::path::{Path, PathBuf};

use agenticcann_build::spec::{OpSpec, Pattern, Spec};

/// One op of the suite.
#[derive(Clone, Debug)]
pub struct SuiteOp {
    /// The pattern it is labelled with (its folder).
    pub label: Pattern,
    /// The manifest that declares it.
    pub manifest_path: PathBuf,
    /// The validated op.
    pub op: OpSpec,
}

/// The error of [`load`]: every problem, each naming its file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SuiteError {
    /// The suite folder.
    pub dir: PathBuf,
    /// Every problem, one line each.
    pub problems: Vec<String>,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operator suite {} is invalid:", self.dir.display())?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

/// The suite folder of the source tree this crate was built from (`tests/specs`).
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/specs")
}

/// Loads every op of the suite in `dir`, in [`Pattern::ALL`] order, then manifest order.
///
/// # Errors
/// A [`SuiteError`] listing every problem: an entry of `dir` that is not a pattern folder,
/// a pattern without a folder or without ops, a manifest that does not load, an invalid op,
/// or an op name used twice in the suite.
pub fn load(dir: &Path) -> Result<Vec<SuiteOp>, SuiteError> {
    let mut problems = Vec::new();
    match std::fs::read_dir(dir) {
        Err(e) => problems.push(format!("cannot read {}: {e}", dir.display())),
        Ok(rd) => {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if name.parse::<Pattern>().is_err() || !e.path().is_dir() {
                    problems.push(format!("{name}: not a pattern folder (expected one of elementwise, broadcast, reduction, normalization, softmax, fusion)"));
                }
            }
        }
    }
    let mut ops: Vec<SuiteOp> = Vec::new();
    for label in Pattern::ALL {
        let manifest_path = dir.join(label.as_str()).join("Cargo.toml");
        match Spec::from_manifest_path(&manifest_path) {
            Ok(Some(spec)) if spec.ops.is_empty() => {
                problems.push(format!("{}: no ops", manifest_path.display()))
            }
            Ok(Some(spec)) => ops.extend(spec.ops.into_iter().map(|op| SuiteOp {
                label,
                manifest_path: manifest_path.clone(),
                op,
            })),
            Ok(None) => problems.push(format!(
                "{}: no [package.metadata.agenticcann]",
                manifest_path.display()
            )),
            Err(e) => problems.push(e.to_string()),
        }
    }
    for (i, a) in ops.iter().enumerate() {
        if let Some(b) = ops[..i].iter().find(|b| b.op.name == a.op.name) {
            problems.push(format!(
                "op `{}` is declared in {} and {}",
                a.op.name,
                b.manifest_path.display(),
                a.manifest_path.display()
            ));
        }
    }
    if problems.is_empty() {
        Ok(ops)
    } else {
        Err(SuiteError {
            dir: dir.to_path_buf(),
            problems,
        })
    }
}
