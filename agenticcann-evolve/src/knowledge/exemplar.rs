//! L5 verified exemplars: the format part 2 of issue 7 fills in.
//!
//! One folder per pattern, `knowledge/L5/<pattern>/`:
//!
//! ```text
//! skeleton.md          the chunk prompts include: front matter id = "L5.<pattern>", level = 5,
//!                      patterns = ["<pattern>"]; body = a condensed outline of the kernel
//!                      (class layout, queues, the per-tile steps with their API calls, the
//!                      tiling fields) — at most SKELETON_MAX_TOKENS tokens as it appears in a
//!                      prompt (heading + body + pointer line)
//! spec.toml            a manifest in Cargo.toml form with exactly one op (loadable with
//!                      Spec::from_manifest_str, without a workspace); the op routes to
//!                      <pattern>
//! entry/manifest.toml  a complete store entry for that op (docs/store-format.md, format 1):
//! entry/kernel.cpp       key = the op's key, [files] digests of kernel.cpp and tiling.cpp,
//! entry/tiling.cpp       [tiling] fields, [provenance]; [verification] once judged
//! ```
//!
//! Prompts carry only the skeleton (a complete kernel alone is over 800 tokens) and a pointer
//! line naming the full files, which the agent reads through its "read a knowledge chunk"
//! tool by id: `L5.<pattern>.kernel`, `L5.<pattern>.tiling`, `L5.<pattern>.spec`,
//! `L5.<pattern>.manifest` ([`super::KnowledgeBase::read`]).
//!
//! Loading checks the structure (this module); that each exemplar compiles and verifies is
//! checked through an [`ExemplarJudge`] by `knowledge check`: [`JudgeExemplar`] runs the
//! evaluation judge ([`agenticcann_build::judge`]) on the entry, [`StructureOnly`] checks nothing more.

use std::path::{Path, PathBuf};

use agenticcann_build::spec::{OpSpec, Pattern, Spec};

use super::chunk::{self, sha256_hex, Chunk, Level, Patterns};
use super::files::Files;

/// The most tokens an exemplar's section may take in a prompt (heading, skeleton body and
/// pointer line). Init and Repair budgets reserve this much for patterns without an
/// exemplar yet, so budgets hold when exemplars are added.
pub const SKELETON_MAX_TOKENS: usize = 200;

/// The files of an exemplar folder besides `skeleton.md`: (id suffix, path in the folder).
pub const FILES: [(&str, &str); 4] = [
    ("spec", "spec.toml"),
    ("kernel", "entry/kernel.cpp"),
    ("tiling", "entry/tiling.cpp"),
    ("manifest", "entry/manifest.toml"),
];

/// A loaded exemplar.
#[derive(Clone, Debug)]
pub struct Exemplar {
    /// Its pattern.
    pub pattern: Pattern,
    /// The folder, relative to the knowledge root (`L5/normalization`).
    pub dir: PathBuf,
    /// The skeleton chunk (`L5.<pattern>`).
    pub skeleton: Chunk,
    /// The op of `spec.toml`.
    pub op: OpSpec,
    /// The other files in [`FILES`] order: id (`L5.<pattern>.kernel`), text, sha256 hex.
    pub files: Vec<ExemplarFile>,
}

/// One file of an exemplar, readable by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExemplarFile {
    /// `L5.<pattern>.<suffix>`.
    pub id: String,
    /// Path relative to the knowledge root.
    pub path: PathBuf,
    /// The file's text.
    pub text: String,
    /// sha256 of its bytes, lowercase hex.
    pub digest: String,
}

impl Exemplar {
    /// The file with id suffix `suffix` (`kernel`, `tiling`, `spec`, `manifest`).
    pub fn file(&self, suffix: &str) -> Option<&ExemplarFile> {
        let id = format!("{}.{suffix}", self.skeleton.id);
        self.files.iter().find(|f| f.id == id)
    }

    /// The pointer line prompts put after the skeleton.
    pub fn pointer_line(pattern: Pattern) -> String {
        pointer_line(pattern)
    }
}

/// `Full exemplar (read_chunk): L5.<p>.kernel, L5.<p>.tiling, L5.<p>.spec`.
pub(crate) fn pointer_line(pattern: Pattern) -> String {
    let id = format!("L5.{pattern}");
    format!("Full exemplar (read_chunk): {id}.kernel, {id}.tiling, {id}.spec")
}

/// Verifies an exemplar end to end (compile, verify, profile). `knowledge check` runs every
/// exemplar through one: [`JudgeExemplar`] (the evaluation judge) or [`StructureOnly`].
pub trait ExemplarJudge {
    /// A one-line summary on success (e.g. shapes verified and max errors), the failure
    /// otherwise.
    ///
    /// # Errors
    /// Why the exemplar is not a verified kernel for its spec.
    fn judge(&self, exemplar: &Exemplar) -> Result<String, String>;
}

/// Checks nothing beyond what loading checked; says so.
#[derive(Clone, Copy, Debug, Default)]
pub struct StructureOnly;

impl ExemplarJudge for StructureOnly {
    fn judge(&self, _exemplar: &Exemplar) -> Result<String, String> {
        Ok("structure checked; not compiled (no judge configured)".to_string())
    }
}

/// The evaluation judge ([`agenticcann_build::judge::evaluate`]) as an [`ExemplarJudge`]: the entry's
/// `kernel.cpp`, `tiling.cpp` and `[tiling] fields`, compiled against the simulator, run
/// on every declared, held-out and stress shape of the exemplar's spec with fresh inputs,
/// verified against the reference and profiled. Accepted means verified with a plausible
/// profile ([`Evaluation::accepted`](agenticcann_build::judge::Evaluation::accepted)).
#[derive(Clone, Debug, Default)]
pub struct JudgeExemplar {
    /// Options of every evaluation (seed, toolchain, cache folder, ...).
    pub options: agenticcann_build::judge::EvalOptions,
}

impl JudgeExemplar {
    /// The judge's full evaluation of `exemplar`.
    ///
    /// # Errors
    /// A message when the manifest does not parse or the judge cannot run (toolchain
    /// missing, cache not writable); the candidate's own faults are in the evaluation.
    pub fn evaluate(
        &self,
        exemplar: &Exemplar,
    ) -> Result<agenticcann_build::judge::Evaluation, String> {
        let text = |suffix: &str| {
            exemplar
                .file(suffix)
                .map(|f| f.text.as_str())
                .ok_or_else(|| format!("{}: no {suffix} file", exemplar.dir.display()))
        };
        let origin = exemplar.dir.join("entry/manifest.toml");
        let manifest = agenticcann_build::store::Manifest::from_toml_str(
            text("manifest")?,
            &origin.display().to_string(),
        )
        .map_err(|e| e.to_string())?;
        let candidate = agenticcann_build::judge::Candidate::new(
            text("kernel")?,
            text("tiling")?,
            manifest.tiling.fields,
        );
        agenticcann_build::judge::evaluate(&exemplar.op, &candidate, &self.options)
            .map_err(|e| format!("the judge cannot run: {e}"))
    }

    /// What [`ExemplarJudge::judge`] makes of an evaluation: for an accepted one,
    /// `verified on N shapes (D declared, H held-out, S stress), seed X; <dims>: <time> us,
    /// <fraction> of roofline, <bound>-bound; ...` (the declared shapes' profiles); else
    /// the verdict and the first three errors.
    ///
    /// # Errors
    /// The verdict and the first errors when `ev` is not accepted.
    pub fn summary(ev: &agenticcann_build::judge::Evaluation) -> Result<String, String> {
        use agenticcann_build::judge::ShapeOrigin;
        if !ev.accepted() {
            let errors: Vec<String> = ev.errors().take(3).map(|d| d.headline()).collect();
            return Err(format!(
                "{}{}: {}",
                ev.outcome.label(),
                if ev.suspect_performance {
                    " (suspect performance)"
                } else {
                    ""
                },
                errors.join("; ")
            ));
        }
        let count = |f: fn(&ShapeOrigin) -> bool| ev.shapes.iter().filter(|s| f(&s.origin)).count();
        let declared: Vec<String> = ev
            .shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared)
            .filter_map(|s| {
                let p = s.profile.as_ref()?;
                let dims: Vec<String> = s.dims.iter().map(|(k, v)| format!("{k}={v}")).collect();
                Some(format!(
                    "{}: {:.2} us, {:.2} of roofline, {}-bound",
                    dims.join(","),
                    p.time_us,
                    p.roofline_fraction,
                    p.bound
                ))
            })
            .collect();
        Ok(format!(
            "verified on {} shapes ({} declared, {} held-out, {} stress), seed {}; {}",
            ev.shapes.len(),
            count(|o| matches!(o, ShapeOrigin::Declared)),
            count(|o| matches!(o, ShapeOrigin::HeldOut { .. })),
            count(|o| matches!(o, ShapeOrigin::Stress { .. })),
            ev.seed,
            declared.join("; ")
        ))
    }
}

impl ExemplarJudge for JudgeExemplar {
    fn judge(&self, exemplar: &Exemplar) -> Result<String, String> {
        JudgeExemplar::summary(&self.evaluate(exemplar)?)
    }
}

/// [`JudgeExemplar`] that also writes each accepted exemplar's `[verification]` and
/// `[performance]` records into its `entry/manifest.toml` under the knowledge folder `root`
/// (`knowledge check --record`); the file is replaced atomically.
#[derive(Clone, Debug)]
pub struct RecordExemplar {
    /// The judge.
    pub judge: JudgeExemplar,
    /// The knowledge folder on disk the exemplars were loaded from.
    pub root: PathBuf,
}

impl ExemplarJudge for RecordExemplar {
    fn judge(&self, exemplar: &Exemplar) -> Result<String, String> {
        let ev = self.judge.evaluate(exemplar)?;
        let summary = JudgeExemplar::summary(&ev)?;
        let path = self.root.join(&exemplar.dir).join("entry/manifest.toml");
        let text = exemplar
            .file("manifest")
            .map(|f| f.text.as_str())
            .ok_or("no manifest")?;
        let mut manifest =
            agenticcann_build::store::Manifest::from_toml_str(text, &path.display().to_string())
                .map_err(|e| e.to_string())?;
        manifest.verification = ev.verification_record();
        manifest.performance = ev.performance_record();
        agenticcann_build::store::write_file_atomic(&path, manifest.to_toml_string().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("{summary} (records written to {})", path.display()))
    }
}

/// Loads the exemplar in `L5/<pattern>` of a knowledge base's `files`.
///
/// # Errors
/// Every problem as (path relative to root, message): missing or unexpected files, an
/// invalid skeleton chunk (see [`chunk::parse`]) or one over [`SKELETON_MAX_TOKENS`], a spec
/// that does not load, has other than one op or routes elsewhere, a manifest whose format,
/// key, op or file digests do not match.
pub(crate) fn load(files: &Files, pattern: Pattern) -> Result<Exemplar, Vec<(PathBuf, String)>> {
    let dir = PathBuf::from("L5").join(pattern.as_str());
    let mut problems: Vec<(PathBuf, String)> = Vec::new();
    let expected: Vec<&str> = std::iter::once("skeleton.md")
        .chain(FILES.iter().map(|(_, p)| *p))
        .collect();
    for entry in files.walk(&dir) {
        let rel = entry.strip_prefix(&dir).unwrap_or(entry).to_path_buf();
        let name = rel.to_string_lossy().replace('\\', "/");
        if !expected.contains(&name.as_str()) {
            problems.push((
                dir.join(&rel),
                format!(
                    "unexpected file (an exemplar folder holds {})",
                    expected.join(", ")
                ),
            ));
        }
    }
    let skeleton_rel = dir.join("skeleton.md");
    let id = format!("L5.{pattern}");
    let skeleton = match files.read(&skeleton_rel) {
        None => {
            problems.push((skeleton_rel.clone(), "missing file".to_string()));
            None
        }
        Some(bytes) => match chunk::parse(&skeleton_rel, bytes, &id, Level::L5) {
            Err(ps) => {
                problems.extend(ps.into_iter().map(|m| (skeleton_rel.clone(), m)));
                None
            }
            Ok(c) => {
                if c.patterns != Patterns::Some(vec![pattern]) {
                    problems.push((
                        skeleton_rel.clone(),
                        format!("patterns: must be [\"{pattern}\"]"),
                    ));
                }
                let tokens = super::tokens::count(&super::assemble::exemplar_section(&c, pattern));
                if tokens > SKELETON_MAX_TOKENS {
                    problems.push((
                        skeleton_rel.clone(),
                        format!("{tokens} tokens in a prompt, over the {SKELETON_MAX_TOKENS}-token limit of an exemplar skeleton"),
                    ));
                }
                Some(c)
            }
        },
    };
    let mut texts = Vec::new();
    for (suffix, rel) in FILES {
        let path = dir.join(rel);
        match files.read(&path) {
            None => problems.push((path, "missing file".to_string())),
            Some(bytes) => match String::from_utf8(bytes.to_vec()) {
                Err(_) => problems.push((path, "not UTF-8".to_string())),
                Ok(text) => texts.push(ExemplarFile {
                    id: format!("{id}.{suffix}"),
                    digest: sha256_hex(text.as_bytes()),
                    path,
                    text,
                }),
            },
        }
    }
    let files = texts;
    let op = load_op(&files, &dir, pattern, &mut problems);
    if let Some(op) = &op {
        check_manifest(&dir, op, &files, &mut problems);
    }
    match (skeleton, op) {
        (Some(skeleton), Some(op)) if problems.is_empty() => Ok(Exemplar {
            pattern,
            dir,
            skeleton,
            op,
            files,
        }),
        _ => Err(problems),
    }
}

fn load_op(
    files: &[ExemplarFile],
    dir: &Path,
    pattern: Pattern,
    problems: &mut Vec<(PathBuf, String)>,
) -> Option<OpSpec> {
    let rel = dir.join("spec.toml");
    // Read without a workspace: an exemplar's spec stands alone.
    let text = files.iter().find(|f| f.path == rel)?;
    let spec = match Spec::from_manifest_str(&text.text, None) {
        Ok(Some(s)) => s,
        Ok(None) => {
            problems.push((rel, "no [package.metadata.agenticcann]".to_string()));
            return None;
        }
        Err(e) => {
            problems.push((rel, e.to_string()));
            return None;
        }
    };
    if spec.ops.len() != 1 {
        problems.push((
            rel,
            format!("must declare exactly one op, not {}", spec.ops.len()),
        ));
        return None;
    }
    let op = spec.ops.into_iter().next().expect("one op");
    let routed = super::route(&op);
    if routed != pattern {
        problems.push((
            rel,
            format!("op `{}` routes to `{routed}`, not `{pattern}`", op.name),
        ));
    }
    Some(op)
}

fn check_manifest(
    dir: &Path,
    op: &OpSpec,
    files: &[ExemplarFile],
    problems: &mut Vec<(PathBuf, String)>,
) {
    let Some(manifest) = files.iter().find(|f| f.path.ends_with("manifest.toml")) else {
        return;
    };
    let rel = dir.join("entry/manifest.toml");
    let table: toml::Table = match manifest.text.parse() {
        Ok(t) => t,
        Err(e) => {
            problems.push((rel, format!("invalid TOML: {}", e.to_string().trim_end())));
            return;
        }
    };
    let mut bad = |m: String| problems.push((rel.clone(), m));
    if table.get("format").and_then(toml::Value::as_integer) != Some(1) {
        bad("format: must be 1 (docs/store-format.md)".to_string());
    }
    let key = op.key().to_hex();
    match table.get("key").and_then(toml::Value::as_str) {
        Some(k) if k == key => {}
        other => bad(format!("key: {other:?} is not the spec's key {key}")),
    }
    for name in ["kernel.cpp", "tiling.cpp"] {
        let want = files
            .iter()
            .find(|f| f.path.ends_with(name))
            .map(|f| f.digest.as_str());
        let have = table
            .get("files")
            .and_then(|f| f.get(name))
            .and_then(toml::Value::as_str);
        if want.is_some() && want != have {
            bad(format!(
                "files.\"{name}\": {have:?} is not the file's sha256 {}",
                want.unwrap_or("?")
            ));
        }
    }
    if table
        .get("tiling")
        .and_then(|t| t.get("fields"))
        .and_then(toml::Value::as_array)
        .is_none()
    {
        bad("tiling.fields: missing".to_string());
    }
}
