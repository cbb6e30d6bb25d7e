//! What an evaluation found, as data: [`Evaluation`] (serializes to JSON with serde) and its
//! concise human rendering ([`Evaluation::render`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// serde helpers: JSON has no NaN or infinity; serde_json writes them as `null`, and they
/// read back as NaN.
mod nonfinite {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer};

    pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    pub fn map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
        Ok(BTreeMap::<String, Option<f64>>::deserialize(d)?
            .into_iter()
            .map(|(k, v)| (k, v.unwrap_or(f64::NAN)))
            .collect())
    }
}

/// Every kind of diagnostic the judge itself emits (policy, compile, run, verify, profile):
/// the non-simulator part of [`crate::kinds::ALL`], the one registry. Run-stage diagnostics
/// also carry the simulator's own kinds ([`crate::kinds::SIMULATOR`]).
pub const KINDS: &[crate::kinds::ErrorKind] = crate::kinds::JUDGE;

/// The stage of the judge that produced a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The source policy, before any compiler ran.
    Policy,
    /// Compiling and linking the candidate with the harness.
    Compile,
    /// Running the harness process: tiling, launch, simulator diagnostics, limits.
    Run,
    /// Comparing outputs with the golden outputs; input integrity.
    Verify,
    /// Checking the cost-model profile for plausibility.
    Profile,
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Recorded; does not by itself reject the candidate.
    Warning,
    /// Rejects the candidate.
    Error,
}

/// One finding, structured so that the knowledge base can route on `kind`.
///
/// `kind` is one of [`crate::kinds::ALL`] (stable snake_case identifiers, each with its
/// stage; new ones may be added there).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The stage that found it.
    pub stage: Stage,
    /// Stable snake_case identifier (see above).
    pub kind: String,
    /// Error or warning.
    pub severity: Severity,
    /// One readable sentence.
    pub message: String,
    /// Source file (`kernel.cpp`, `tiling.cpp`) when the finding points into one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Index into [`Evaluation::shapes`] when the finding is about one shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<usize>,
    /// The numbers involved, by name.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "nonfinite::map"
    )]
    pub numbers: BTreeMap<String, f64>,
    /// Supporting lines (trimmed compiler output, the offending source line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error of `kind` found by `stage`.
    pub fn error(stage: Stage, kind: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            stage,
            kind: kind.to_string(),
            severity: Severity::Error,
            message: message.into(),
            file: None,
            line: None,
            shape: None,
            numbers: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// A warning of `kind` found by `stage`.
    pub fn warning(stage: Stage, kind: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(stage, kind, message)
        }
    }

    /// Sets the source location.
    pub fn at(mut self, file: &str, line: u32) -> Diagnostic {
        self.file = Some(file.to_string());
        self.line = (line > 0).then_some(line);
        self
    }

    /// Sets the shape index.
    pub fn for_shape(mut self, shape: usize) -> Diagnostic {
        self.shape = Some(shape);
        self
    }

    /// Adds a named number.
    pub fn number(mut self, name: &str, value: f64) -> Diagnostic {
        self.numbers.insert(name.to_string(), value);
        self
    }

    /// Adds a supporting line.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// `error[kind] file:line: message` (with the shape index when set).
    pub fn headline(&self) -> String {
        self.headline_on(&self.shape.into_iter().collect::<Vec<_>>())
    }

    /// [`headline`](Self::headline) for this finding on each of `shapes` (indices into
    /// [`Evaluation::shapes`]): `(shape #3)`, `(shapes #0, #1, #4)`, or for more than
    /// [`SHAPES_LISTED`] shapes `(on 34 shapes: #0, #1, … #33)`.
    pub fn headline_on(&self, shapes: &[usize]) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut s = format!("{sev}[{}]", self.kind);
        if let Some(f) = &self.file {
            let _ = write!(s, " {f}");
            if let Some(l) = self.line {
                let _ = write!(s, ":{l}");
            }
        }
        match shapes {
            [] => {}
            [i] => {
                let _ = write!(s, " (shape #{i})");
            }
            _ if shapes.len() <= SHAPES_LISTED => {
                let list: Vec<String> = shapes.iter().map(|i| format!("#{i}")).collect();
                let _ = write!(s, " (shapes {})", list.join(", "));
            }
            _ => {
                let head: Vec<String> = shapes[..SHAPES_LISTED - 1]
                    .iter()
                    .map(|i| format!("#{i}"))
                    .collect();
                let _ = write!(
                    s,
                    " (on {} shapes: {}, … #{})",
                    shapes.len(),
                    head.join(", "),
                    shapes[shapes.len() - 1]
                );
            }
        }
        let _ = write!(s, ": {}", self.message);
        s
    }

    /// Whether this compares an output with the golden output (the verify stage's findings
    /// other than `input_modified`).
    pub fn compares_outputs(&self) -> bool {
        self.stage == Stage::Verify && self.kind != "input_modified"
    }

    /// Whether `self` and `other` are the same finding apart from the shape: same stage,
    /// kind, severity, location and message (numbers and notes may differ).
    fn same_finding(&self, other: &Diagnostic) -> bool {
        self.stage == other.stage
            && self.kind == other.kind
            && self.severity == other.severity
            && self.file == other.file
            && self.line == other.line
            && self.message == other.message
    }
}

/// How many shape indices a grouped headline lists before it shortens to "on N shapes".
pub const SHAPES_LISTED: usize = 6;

/// `diagnostics` with the same finding on several shapes ([`Diagnostic::same_finding`])
/// merged into one, in the order each first appears: each group is its first diagnostic and
/// the shapes it was found on (empty for a finding not about a shape). For the human report
/// only; the JSON keeps one diagnostic per shape.
fn group_by_shape<'a>(
    diagnostics: impl IntoIterator<Item = &'a Diagnostic>,
) -> Vec<(&'a Diagnostic, Vec<usize>)> {
    let mut groups: Vec<(&Diagnostic, Vec<usize>)> = Vec::new();
    for d in diagnostics {
        let found = groups
            .iter_mut()
            .find(|(g, _)| g.same_finding(d) && g.shape.is_some() == d.shape.is_some());
        match found {
            Some((_, shapes)) => {
                if let Some(i) = d.shape {
                    if !shapes.contains(&i) {
                        shapes.push(i);
                    }
                }
            }
            None => groups.push((d, d.shape.into_iter().collect())),
        }
    }
    groups
}

/// The verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The source policy rejected the candidate; no compiler ran.
    Rejected,
    /// The candidate did not compile or link.
    CompileError,
    /// Running failed: a simulator diagnostic, the tiling function, a crash, a limit.
    RuntimeError,
    /// It ran, but an output (or an input's integrity) is wrong on some shape.
    WrongResult,
    /// Correct on every shape. See [`Evaluation::suspect_performance`]: a verified
    /// candidate with a suspect profile is not accepted.
    Verified,
}

impl Outcome {
    /// The lowercase label used in reports (`verified`, `wrong result`, …).
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Rejected => "rejected by policy",
            Outcome::CompileError => "compile error",
            Outcome::RuntimeError => "runtime error",
            Outcome::WrongResult => "wrong result",
            Outcome::Verified => "verified",
        }
    }
}

/// Why a shape is in the verification set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ShapeOrigin {
    /// Declared in the spec's `shapes`.
    Declared,
    /// A shape the candidate never saw (`reason`: `one`, `tail`, `not_divisible`, `odd`,
    /// `zero`, `unaligned`, and the tiling regimes `many_per_core` — several UB-sized tiles
    /// per core and a partial one — and `beyond_ub` — one unit of work more than UB holds).
    HeldOut {
        /// Which rule made it.
        reason: String,
    },
    /// A declared shape with ill-conditioned inputs (`scenario`: `wide`, `large`,
    /// `offset`, `negative`, `constant`).
    Stress {
        /// The input scenario.
        scenario: String,
    },
}

impl ShapeOrigin {
    /// The held-out reasons that probe a tiling regime (see
    /// [`plan_shapes`](super::verify::plan_shapes)): a tiling function may decline them.
    pub const REGIMES: &'static [&'static str] = &["many_per_core", "beyond_ub"];

    /// Whether this is a regime shape ([`REGIMES`](Self::REGIMES)).
    pub fn is_regime(&self) -> bool {
        matches!(self, ShapeOrigin::HeldOut { reason } if Self::REGIMES.contains(&reason.as_str()))
    }

    /// `declared`, `held-out <reason>`, `stress <scenario>`.
    pub fn label(&self) -> String {
        match self {
            ShapeOrigin::Declared => "declared".into(),
            ShapeOrigin::HeldOut { reason } => format!("held-out {reason}"),
            ShapeOrigin::Stress { scenario } => format!("stress {scenario}"),
        }
    }
}

/// What happened on one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeStatus {
    /// Every output within tolerance, inputs unchanged.
    Passed,
    /// Ran, but wrong (see the diagnostics for this shape).
    Failed,
    /// The launch or the tiling failed, or the process died on this shape.
    Error,
    /// Never ran (the process died on an earlier shape, or an earlier stage failed).
    NotRun,
    /// Zero elements: the launch is skipped by contract (no tiling call, no kernel); or an
    /// empty input with non-empty outputs that the tiling function declined (a warning).
    SkippedEmpty,
    /// A regime shape ([`ShapeOrigin::is_regime`]) the tiling function declined (returned
    /// non-zero): the kernel does not support these dims, and a launch with them returns an
    /// error naming them (a warning, not a wrong result).
    Declined,
}

/// Error metrics of one output on one shape (compared in f64 against the golden output
/// rounded to the output's dtype).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputMetrics {
    /// The output's name.
    pub name: String,
    /// Elements compared.
    pub elements: u64,
    /// Elements outside tolerance (`|out - golden| > atol + rtol·|golden|`, or NaN/Inf not
    /// at the same positions).
    pub mismatches: u64,
    /// Of the mismatches, elements where exactly one of output/golden is NaN or ±Inf, or
    /// the infinities differ.
    pub nonfinite_mismatches: u64,
    /// Elements still holding the poison pattern written before the launch.
    pub unwritten: u64,
    /// Largest |out - golden| over finite pairs.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub max_abs_err: f64,
    /// Largest |out - golden| / |golden| over finite pairs with golden ≠ 0.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub max_rel_err: f64,
    /// Mean of |out - golden| / (|golden| + 1e-7) over finite pairs (MERE, field cases C.1).
    #[serde(deserialize_with = "nonfinite::f64")]
    pub mere: f64,
    /// ‖out − golden‖₂ / ‖golden‖₂ over finite pairs (0 when the golden norm is 0).
    #[serde(deserialize_with = "nonfinite::f64")]
    pub norm_rel_err: f64,
    /// The tolerance applied.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub atol: f64,
    /// The tolerance applied.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub rtol: f64,
    /// Per-element slack added to the tolerance for the conditioning of the reference on
    /// these inputs (largest over the elements; 0 except for stress shapes).
    #[serde(default, deserialize_with = "nonfinite::f64")]
    pub max_slack: f64,
    /// The first mismatching element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<Mismatch>,
}

/// One element that is outside tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Row-major multi-index.
    pub index: Vec<usize>,
    /// The output's value.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub got: f64,
    /// The golden value.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub want: f64,
}

/// The cost model's account of one shape, and the judge's plausibility checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeProfile {
    /// Modelled kernel time, µs (median over repeats; the model is deterministic).
    #[serde(deserialize_with = "nonfinite::f64")]
    pub time_us: f64,
    /// The model's own floor for the bytes the kernel moved, µs.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub floor_us: f64,
    /// The judge's floor: the op's minimal bytes (every input read once, every output
    /// written once) at the profile's peak HBM bandwidth, plus launch overhead, µs.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub min_floor_us: f64,
    /// `min_floor_us / time_us`: the fraction of the roofline reached (≤ 1 for an honest
    /// kernel).
    #[serde(deserialize_with = "nonfinite::f64")]
    pub roofline_fraction: f64,
    /// The pipe that bounds the kernel (`MTE2`, `V`, `MTE3`, `scalar`, `launch`).
    pub bound: String,
    /// Bytes moved GM→UB over all cores.
    pub gm_read_bytes: u64,
    /// Bytes moved UB→GM over all cores.
    pub gm_write_bytes: u64,
    /// GM bytes the op must move at least (sum of input and output sizes).
    pub min_bytes: u64,
    /// Blocks launched.
    pub block_dim: u32,
    /// Per pipe (`S`, `V`, `MTE2`, `MTE3`): the fraction of the slowest core's body time the
    /// pipe was busy, 0–1 (what a mutation prompt shows as the pipe busy fractions).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub pipe_busy: BTreeMap<String, f64>,
}

/// One shape's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeResult {
    /// The named dimensions.
    pub dims: BTreeMap<String, u64>,
    /// Why this shape was run.
    pub origin: ShapeOrigin,
    /// What happened.
    pub status: ShapeStatus,
    /// What the tiling function chose (0 when it did not run).
    pub block_dim: u32,
    /// Workspace the tiling function asked for, bytes.
    pub workspace_bytes: u64,
    /// Per output error metrics (empty when the shape did not run).
    pub outputs: Vec<OutputMetrics>,
    /// The cost-model profile (when the launch succeeded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ShapeProfile>,
}

/// Which isolation the run process had (what the platform allowed).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Isolation {
    /// Ran in its own process (always true when a run happened).
    pub separate_process: bool,
    /// Resource limits applied with setrlimit (`cpu`, `as`, `fsize`, `core`, `nofile`).
    pub rlimits: Vec<String>,
    /// Wall-clock limit enforced by killing the process group.
    pub wall_timeout: bool,
    /// A fresh user + network namespace (no network interfaces but loopback-down).
    pub network_namespace: bool,
    /// A scratch directory as working directory, deleted afterwards.
    pub scratch_dir: bool,
    /// Human-readable notes (why a namespace was not available).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where time went, milliseconds of wall clock.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Source policy.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub policy_ms: f64,
    /// Inputs and golden outputs.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub golden_ms: f64,
    /// Compile and link (including a precompiled-header build when it was missing).
    #[serde(deserialize_with = "nonfinite::f64")]
    pub compile_ms: f64,
    /// The harness process.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub run_ms: f64,
    /// Comparing outputs.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub verify_ms: f64,
    /// Whole evaluation.
    #[serde(deserialize_with = "nonfinite::f64")]
    pub total_ms: f64,
    /// Whether the kernel compile used a cached precompiled header.
    pub pch: bool,
}

/// The judge's verdict on one candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The op's name.
    pub op: String,
    /// The op's content key (64 hex).
    pub key: String,
    /// The SoC profile used.
    pub soc: String,
    /// `sim` (the only backend the judge runs today).
    pub backend: String,
    /// Seed of the inputs (fresh per evaluation unless given).
    pub seed: u64,
    /// The verdict.
    pub outcome: Outcome,
    /// The profile is implausible (time below the roofline floor, too few bytes moved, an
    /// impossible speedup): not accepted even when verified.
    pub suspect_performance: bool,
    /// Every finding, in stage order.
    pub diagnostics: Vec<Diagnostic>,
    /// Every shape, declared first, then held-out, then stress.
    pub shapes: Vec<ShapeResult>,
    /// The isolation the run had.
    pub isolation: Isolation,
    /// Where time went.
    pub timings: Timings,
}

impl Evaluation {
    /// Verified and not suspect: the only result the store accepts.
    pub fn accepted(&self) -> bool {
        self.outcome == Outcome::Verified && !self.suspect_performance
    }

    /// The error diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// The kind of the first error, if any (what the knowledge base routes on).
    pub fn first_error_kind(&self) -> Option<&str> {
        self.errors().next().map(|d| d.kind.as_str())
    }

    /// A concise multi-line report for terminals and logs.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let verdict = match (self.outcome, self.suspect_performance) {
            (Outcome::Verified, true) => "VERIFIED but SUSPECT performance (not accepted)".into(),
            (o, _) => o.label().to_uppercase(),
        };
        let _ = writeln!(
            s,
            "judge {} (key {}…, {}, {}, seed {}): {verdict}",
            self.op,
            &self.key[..self.key.len().min(16)],
            self.soc,
            self.backend,
            self.seed
        );
        const MAX_DIAGS: usize = 12;
        // An output comparison on a shape whose run failed (a fault, a limit) compares what
        // the outputs held when it stopped: its numbers say nothing, the run's finding does.
        let run_failed = |d: &Diagnostic| {
            d.shape
                .and_then(|i| self.shapes.get(i))
                .is_some_and(|sh| sh.status == ShapeStatus::Error)
        };
        let (hidden, shown): (Vec<&Diagnostic>, Vec<&Diagnostic>) = self
            .diagnostics
            .iter()
            .partition(|d| d.compares_outputs() && run_failed(d));
        let groups = group_by_shape(shown);
        for (d, shapes) in groups.iter().take(MAX_DIAGS) {
            let _ = writeln!(s, "  {}", d.headline_on(shapes));
            for n in d.notes.iter().take(6) {
                let _ = writeln!(s, "      {n}");
            }
        }
        if groups.len() > MAX_DIAGS {
            let _ = writeln!(
                s,
                "  … {} more diagnostics (--message-format json shows all)",
                groups.len() - MAX_DIAGS
            );
        }
        if !hidden.is_empty() {
            let _ = writeln!(
                s,
                "  ({} output comparison{} on shapes whose run failed left out; --message-format json shows them)",
                hidden.len(),
                if hidden.len() == 1 { "" } else { "s" }
            );
        }
        for (i, sh) in self.shapes.iter().enumerate() {
            let dims: Vec<String> = sh.dims.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let dims = if dims.is_empty() {
                "(fixed)".to_string()
            } else {
                dims.join(",")
            };
            let status = match sh.status {
                ShapeStatus::Passed => "ok",
                ShapeStatus::Failed => "FAIL",
                ShapeStatus::Error => "ERROR",
                ShapeStatus::NotRun => "not run",
                ShapeStatus::SkippedEmpty => "empty",
                ShapeStatus::Declined => "declined",
            };
            let _ = write!(
                s,
                "  #{i:<2} {dims:<24} {:<18} {status:<7}",
                sh.origin.label()
            );
            // Error magnitudes only where the outputs are comparable: a shape whose run
            // failed (a fault, a limit) may still have outputs read back, but their numbers
            // say nothing (a fault's untouched output looked like "abs 0 rel 0").
            let compared = matches!(sh.status, ShapeStatus::Passed | ShapeStatus::Failed);
            if compared && !sh.outputs.is_empty() {
                let worst = sh
                    .outputs
                    .iter()
                    .map(|o| (o.max_abs_err, o.max_rel_err))
                    .fold((0.0f64, 0.0f64), |a, b| (a.0.max(b.0), a.1.max(b.1)));
                let _ = write!(s, " abs {:.2e} rel {:.2e}", worst.0, worst.1);
            }
            if let Some(p) = &sh.profile {
                let _ = write!(
                    s,
                    "  {:.2} us  roofline {:.2}  {}  blocks {}",
                    p.time_us, p.roofline_fraction, p.bound, p.block_dim
                );
            }
            // No padding left at the end of a row without numbers.
            while s.ends_with(' ') {
                s.pop();
            }
            s.push('\n');
        }
        let iso = &self.isolation;
        if iso.separate_process {
            let _ = writeln!(
                s,
                "  isolation: separate process, rlimits [{}], wall timeout {}, network namespace {}",
                iso.rlimits.join(","),
                if iso.wall_timeout { "yes" } else { "no" },
                if iso.network_namespace { "yes" } else { "no" }
            );
        }
        for n in &iso.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        let t = &self.timings;
        let _ = writeln!(
            s,
            "  time: compile {:.0} ms{}, run {:.0} ms, total {:.0} ms",
            t.compile_ms,
            if t.pch { " (cached PCH)" } else { "" },
            t.run_ms,
            t.total_ms
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(status: ShapeStatus, abs: f64) -> ShapeResult {
        ShapeResult {
            dims: BTreeMap::from([("n".to_string(), 64)]),
            origin: ShapeOrigin::Declared,
            status,
            block_dim: 1,
            workspace_bytes: 0,
            outputs: vec![OutputMetrics {
                name: "y".into(),
                elements: 64,
                mismatches: 0,
                nonfinite_mismatches: 0,
                unwritten: 0,
                max_abs_err: abs,
                max_rel_err: abs,
                mere: 0.0,
                norm_rel_err: 0.0,
                atol: 1e-3,
                rtol: 1e-3,
                max_slack: 0.0,
                first_mismatch: None,
            }],
            profile: None,
        }
    }

    fn evaluation(diagnostics: Vec<Diagnostic>, shapes: Vec<ShapeResult>) -> Evaluation {
        Evaluation {
            op: "add_f16".into(),
            key: "0".repeat(64),
            soc: "Ascend910B1".into(),
            backend: "sim".into(),
            seed: 1,
            outcome: Outcome::RuntimeError,
            suspect_performance: false,
            diagnostics,
            shapes,
            isolation: Isolation::default(),
            timings: Timings::default(),
        }
    }

    fn fault(shape: usize) -> Diagnostic {
        Diagnostic::error(Stage::Run, "ub_out_of_range", "read past the end of UB")
            .at("kernel.cpp", 42)
            .for_shape(shape)
            .number("shape_bytes", shape as f64)
            .note("  x = in.DeQue();")
    }

    #[test]
    fn the_same_finding_on_many_shapes_prints_once_with_its_shapes() {
        let mut diags: Vec<Diagnostic> = (0..34).map(fault).collect();
        // Another message on two shapes, a finding without a shape, and one on one shape.
        diags.push(
            Diagnostic::error(Stage::Verify, "wrong_result", "output `y` differs").for_shape(3),
        );
        diags.push(
            Diagnostic::error(Stage::Verify, "wrong_result", "output `y` differs").for_shape(5),
        );
        diags.push(Diagnostic::warning(Stage::Policy, "too_large", "no shape"));
        diags.push(fault(7).at("kernel.cpp", 43));
        let mut shapes: Vec<ShapeResult> =
            (0..34).map(|_| shape(ShapeStatus::Error, 0.0)).collect();
        shapes[3].status = ShapeStatus::Failed;
        shapes[5].status = ShapeStatus::Failed;
        let text = evaluation(diags.clone(), shapes).render();
        let lines: Vec<&str> = text.lines().collect();
        let faults: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("kernel.cpp:42"))
            .collect();
        assert_eq!(faults.len(), 1, "{text}");
        assert!(
            faults[0].contains("(on 34 shapes: #0, #1, #2, #3, #4, … #33): read past the end"),
            "{text}"
        );
        assert!(
            text.contains("error[wrong_result] (shapes #3, #5): output `y` differs"),
            "{text}"
        );
        assert!(text.contains("warning[too_large]: no shape"), "{text}");
        assert!(
            text.contains("error[ub_out_of_range] kernel.cpp:43 (shape #7)"),
            "{text}"
        );
        // The note prints once, under its group.
        assert_eq!(text.matches("x = in.DeQue();").count(), 2, "{text}");
        // The data keeps every diagnostic.
        let ev = evaluation(diags, Vec::new());
        assert_eq!(ev.diagnostics.len(), 38);
        assert_eq!(
            ev.diagnostics.iter().filter(|d| d.line == Some(42)).count(),
            34
        );
    }

    #[test]
    fn a_shape_without_comparable_outputs_prints_no_error_magnitudes() {
        let compared = |i: usize| {
            Diagnostic::error(
                Stage::Verify,
                "wrong_result",
                format!("output `y`: abs {i}"),
            )
            .for_shape(i)
        };
        let modified =
            Diagnostic::error(Stage::Verify, "input_modified", "input `x` changed").for_shape(0);
        let ev = evaluation(
            vec![fault(0), compared(0), modified, compared(1)],
            vec![
                shape(ShapeStatus::Error, 0.0),
                shape(ShapeStatus::Failed, 0.5),
                shape(ShapeStatus::Passed, 1e-4),
            ],
        );
        let text = ev.render();
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("n=64")).collect();
        assert_eq!(rows.len(), 3, "{text}");
        assert!(
            rows[0].contains("ERROR") && !rows[0].contains("abs"),
            "{text}"
        );
        assert!(
            rows[1].contains("FAIL") && rows[1].contains("abs 5.00e-1"),
            "{text}"
        );
        assert!(
            rows[2].contains("ok") && rows[2].contains("abs 1.00e-4"),
            "{text}"
        );
        // The comparison on the shape whose run failed is left out and counted; the one on
        // the failed shape and the input check stay.
        assert!(!text.contains("output `y`: abs 0"), "{text}");
        assert!(text.contains("(shape #1): output `y`: abs 1"), "{text}");
        assert!(text.contains("input `x` changed"), "{text}");
        assert!(
            text.contains("(1 output comparison on shapes whose run failed left out;"),
            "{text}"
        );
        assert_eq!(ev.diagnostics.len(), 4);
    }
}
