//! Writing a candidate kernel as a store entry with its real provenance: a [`Draft`] is the
//! op, the candidate, who made it (proposer, model, generation, parent, tokens by phase,
//! knowledge chunks with their digests) and the judge's evaluation; [`write_entry`] installs
//! it atomically, [`replace_entry`] replaces an entry in place through a staged copy.

use std::path::Path;

use super::digest::Digest;
use super::entry::{install_entry, reinstall_entry, Entry};
use super::error::StoreError;
use super::manifest::{Manifest, Provenance, KERNEL_FILE, TILING_FILE};
use crate::judge::{Candidate, Evaluation};
use crate::spec::OpSpec;

/// An entry to write: `op`'s `candidate`, with its provenance and (when judged) the
/// evaluation whose verification and performance records go into the manifest.
#[derive(Clone, Debug)]
pub struct Draft<'a> {
    /// The op the candidate implements (gives the key and the informational op name).
    pub op: &'a OpSpec,
    /// The kernel and tiling sources and the tiling struct's fields.
    pub candidate: &'a Candidate,
    /// Who made it and how (`[provenance]`).
    pub provenance: Provenance,
    /// The judge's evaluation; its records are written only when it accepted the candidate
    /// ([`Evaluation::verification_record`], [`Evaluation::performance_record`]).
    pub evaluation: Option<&'a Evaluation>,
}

impl Draft<'_> {
    /// The manifest of the entry: key, op name, the digests of `kernel.cpp` and
    /// `tiling.cpp`, the tiling fields, the provenance and the judge's records.
    pub fn manifest(&self) -> Manifest {
        let mut manifest = Manifest::new(
            self.op.key(),
            Some(&self.op.name),
            Digest::of(self.candidate.kernel.as_bytes()),
            Digest::of(self.candidate.tiling.as_bytes()),
            self.candidate.tiling_fields.clone(),
            self.provenance.clone(),
        );
        if let Some(ev) = self.evaluation {
            manifest.verification = ev.verification_record();
            manifest.performance = ev.performance_record();
        }
        manifest
    }

    fn files(&self) -> [(&'static str, &[u8]); 2] {
        [
            (KERNEL_FILE, self.candidate.kernel.as_bytes()),
            (TILING_FILE, self.candidate.tiling.as_bytes()),
        ]
    }
}

/// Writes `draft` as the entry `root/<key>/` atomically (staged in a temporary folder,
/// verified, renamed into place). An entry already in place for the key is kept and
/// returned as it is; [`Entry::holds`] tells whether it holds this candidate.
///
/// # Errors
/// [`StoreError::Io`] for file-system failures; [`StoreError::DigestMismatch`] (or another
/// load error) when the entry already in place is corrupt (never replaced silently).
pub fn write_entry(root: &Path, draft: &Draft<'_>) -> Result<Entry, StoreError> {
    install_entry(root, &draft.manifest().to_toml_string(), &draft.files())
}

/// Like [`write_entry`], but an entry already in place for the key (valid or corrupt) is
/// replaced: the new one is staged and verified first, the old one moved aside and deleted
/// only once the new one is in place (nothing is lost when a step fails).
///
/// # Errors
/// As [`write_entry`], except that a corrupt entry in place is replaced.
pub fn replace_entry(root: &Path, draft: &Draft<'_>) -> Result<Entry, StoreError> {
    reinstall_entry(root, &draft.manifest().to_toml_string(), &draft.files())
}
