//! What the judge evaluates: a candidate's sources and tiling layout, as a store entry holds
//! them (docs/store-format.md), and the records an accepted evaluation adds to a manifest.

use std::path::{Path, PathBuf};

use super::report::{Evaluation, Outcome, ShapeOrigin, ShapeStatus};
use crate::spec::OpSpec;
use crate::store::{
    Entry, MeasuredShape, Performance, StoreError, TilingField, Verification, VerifiedShape,
    KERNEL_FILE, TILING_FILE,
};

/// One candidate kernel: `kernel.cpp`, `tiling.cpp` and the tiling struct's fields (the
/// `[tiling] fields` of its manifest), from which the judge generates its
/// `agenticcann_tiling.h`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Device code (Ascend C), `kernel.cpp`.
    pub kernel: String,
    /// The host tiling function, `tiling.cpp`.
    pub tiling: String,
    /// The tiling struct's fields, in order.
    pub tiling_fields: Vec<TilingField>,
}

/// A candidate that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    /// The entry folder is not a valid entry for the op (manifest, key or digests).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A source file is not UTF-8.
    #[error("{path} is not UTF-8 text: {source}")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where decoding failed.
        source: std::string::FromUtf8Error,
    },
}

impl Candidate {
    /// A candidate from its parts.
    pub fn new(
        kernel: impl Into<String>,
        tiling: impl Into<String>,
        tiling_fields: Vec<TilingField>,
    ) -> Candidate {
        Candidate {
            kernel: kernel.into(),
            tiling: tiling.into(),
            tiling_fields,
        }
    }

    /// The candidate held by a loaded entry; its files are re-read and checked against
    /// their digests.
    ///
    /// # Errors
    /// [`CandidateError::Store`] for a missing or changed file, [`CandidateError::NotUtf8`].
    pub fn from_entry(entry: &Entry) -> Result<Candidate, CandidateError> {
        let text = |name: &str| -> Result<String, CandidateError> {
            let bytes = entry.read_verified(name)?;
            String::from_utf8(bytes).map_err(|source| CandidateError::NotUtf8 {
                path: entry.dir.join(name),
                source,
            })
        };
        Ok(Candidate {
            kernel: text(KERNEL_FILE)?,
            tiling: text(TILING_FILE)?,
            tiling_fields: entry.manifest.tiling.fields.clone(),
        })
    }

    /// Loads the entry in `dir` (any folder name) for `op` — its manifest's key must be the
    /// op's key and every file must match its digest — and returns the candidate with the
    /// entry.
    ///
    /// # Errors
    /// As [`Entry::load_with_key`] and [`from_entry`](Self::from_entry).
    pub fn load(dir: &Path, op: &OpSpec) -> Result<(Candidate, Entry), CandidateError> {
        let entry = Entry::load_with_key(dir, &op.key())?;
        Ok((Candidate::from_entry(&entry)?, entry))
    }

    /// The candidate in the entry folder `dir` for `op` as its files are now, without the
    /// digest check of [`load`](Self::load): for re-judging an entry whose `kernel.cpp` or
    /// `tiling.cpp` was edited after it was written (`cargo agenticcann judge --update`).
    /// The manifest must still parse and carry the op's key; its `[tiling] fields` are used.
    ///
    /// # Errors
    /// [`CandidateError::Store`] for a manifest that cannot be read or parsed, another key
    /// ([`StoreError::KeyMismatch`]) or a missing file; [`CandidateError::NotUtf8`].
    pub fn load_edited(dir: &Path, op: &OpSpec) -> Result<Candidate, CandidateError> {
        let manifest_path = dir.join(crate::store::MANIFEST_FILE);
        let bytes =
            std::fs::read(&manifest_path).map_err(|e| StoreError::io("read", &manifest_path, e))?;
        let text = String::from_utf8(bytes).map_err(|source| CandidateError::NotUtf8 {
            path: manifest_path.clone(),
            source,
        })?;
        let manifest =
            crate::store::Manifest::from_toml_str(&text, &manifest_path.display().to_string())
                .map_err(StoreError::Manifest)?;
        if manifest.key != op.key() {
            return Err(StoreError::KeyMismatch {
                manifest: manifest_path,
                expected: op.key(),
                actual: manifest.key,
            }
            .into());
        }
        let text = |name: &str| -> Result<String, CandidateError> {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).map_err(|e| StoreError::io("read", &path, e))?;
            String::from_utf8(bytes).map_err(|source| CandidateError::NotUtf8 { path, source })
        };
        Ok(Candidate {
            kernel: text(KERNEL_FILE)?,
            tiling: text(TILING_FILE)?,
            tiling_fields: manifest.tiling.fields,
        })
    }

    /// The entry's generated `agenticcann_tiling.h` for `op` (docs/store-format.md §6).
    pub fn header(&self, op: &OpSpec) -> String {
        crate::codegen::tiling_header_for(&op.key(), &self.tiling_fields, &op.named_dims())
    }
}

impl Evaluation {
    /// The manifest's `[verification]` record: the declared shapes with their largest
    /// errors over all outputs. `None` unless the evaluation was accepted.
    pub fn verification_record(&self) -> Option<Verification> {
        if !self.accepted() {
            return None;
        }
        let shapes = self
            .shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared && s.status == ShapeStatus::Passed)
            .map(|s| VerifiedShape {
                dims: s.dims.clone(),
                max_abs_err: s.outputs.iter().map(|o| o.max_abs_err).reduce(f64::max),
                max_rel_err: s.outputs.iter().map(|o| o.max_rel_err).reduce(f64::max),
                extra: toml::Table::new(),
            })
            .collect();
        Some(Verification {
            backend: self.backend.clone(),
            soc: self.soc.clone(),
            // A TOML integer is an i64: a seed above i64::MAX (only ever given explicitly;
            // fresh seeds have 63 bits) would make the manifest unreadable, so it is left out.
            seed: i64::try_from(self.seed).is_ok().then_some(self.seed),
            shapes,
            extra: toml::Table::new(),
        })
    }

    /// The manifest's `[performance]` record: the cost-model time of each declared shape.
    /// `None` unless the evaluation was accepted.
    pub fn performance_record(&self) -> Option<Performance> {
        if self.outcome != Outcome::Verified || self.suspect_performance {
            return None;
        }
        let shapes = self
            .shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared)
            .filter_map(|s| {
                let p = s.profile.as_ref()?;
                Some(MeasuredShape {
                    dims: s.dims.clone(),
                    time_us: Some(p.time_us),
                    roofline_fraction: Some(p.roofline_fraction),
                    bound: Some(p.bound.clone()),
                    extra: toml::Table::new(),
                })
            })
            .collect();
        Some(Performance {
            backend: self.backend.clone(),
            soc: self.soc.clone(),
            shapes,
            extra: toml::Table::new(),
        })
    }
}
