//! The cost-model profile of one shape, and the judge's plausibility checks on it.
//!
//! The simulator's launch records (`ascendc_sim_stream_take_launches`, `LaunchResult::to_json`
//! in `ascendc_sim/launch.h`, `LaunchReport` in `ascendc_sim/report.h`) are read with serde,
//! tolerant of fields added later. The model is deterministic, so one launch per shape is
//! its time; [`median`] folds repeats when several are given.
//!
//! Suspect (not accepted, even when the outputs are right):
//! - `below_roofline_floor`: modelled time below the op's floor — its minimal bytes (every
//!   input read once, every output written once) at the profile's peak HBM bandwidth, plus
//!   the launch overhead. No honest kernel is faster than the memory it must move.
//! - `too_few_bytes`: the launch moved fewer bytes through DMA and scalar GM accesses than
//!   the outputs hold (or the inputs, for reads) — the results came from outside the
//!   simulated data path, so its time means nothing.
//! - `impossible_speedup`: faster than a reference time by more than the allowed factor.

use serde::Deserialize;

use super::report::{Diagnostic, ShapeProfile, Stage};
use crate::toolchain::sim::SocProfile;

/// One simulator diagnostic as the C API writes it (`Diagnostic::to_json`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SimDiagnostic {
    /// Stable snake_case kind.
    pub kind: String,
    /// `error` or `warning`.
    #[serde(default)]
    pub severity: String,
    /// The API that found it.
    #[serde(default)]
    pub api: String,
    /// Kernel source file.
    #[serde(default)]
    pub file: String,
    /// Line (0 = unknown).
    #[serde(default)]
    pub line: u32,
    /// Block index (−1 = not in a core).
    #[serde(default = "minus_one")]
    pub core: i32,
    /// One sentence.
    #[serde(default)]
    pub message: String,
    /// Named numbers (`null` for non-finite values).
    #[serde(default)]
    pub numbers: serde_json::Map<String, serde_json::Value>,
}

fn minus_one() -> i32 {
    -1
}

/// The parts of the cost model's `LaunchReport` the judge uses (µs, bytes).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SimReport {
    /// Modelled kernel time, µs.
    pub total_us: f64,
    /// Fixed launch cost, µs.
    pub launch_overhead_us: f64,
    /// The model's floor for the bytes moved, µs.
    pub floor_us: f64,
    /// Bytes GM→UB.
    pub gm_read_bytes: u64,
    /// Bytes UB→GM.
    pub gm_write_bytes: u64,
    /// Scalar GetValue/SetValue on GM.
    pub scalar_gm_accesses: u64,
    /// `MTE2`, `V`, `MTE3`, `scalar`, `launch`.
    pub bound: String,
    /// False when the cost model was off.
    pub cost_accounting: Option<bool>,
    /// Per pipe (`S`, `V`, `MTE2`, `MTE3`): busy time of the slowest core over its body
    /// time, 0–1 (the cost model's `pipe_utilisation`).
    pub pipe_utilisation: std::collections::BTreeMap<String, f64>,
}

/// One launch record.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LaunchRecord {
    /// Kernel name.
    #[serde(default)]
    pub kernel: String,
    /// Blocks launched.
    #[serde(default)]
    pub block_dim: u32,
    /// An error diagnostic stopped a core.
    #[serde(default)]
    pub failed: bool,
    /// Errors and warnings.
    #[serde(default)]
    pub diagnostics: Vec<SimDiagnostic>,
    /// The cost report (null when failed).
    #[serde(default)]
    pub report: Option<SimReport>,
}

impl SimDiagnostic {
    /// As a judge diagnostic of [`Stage::Run`].
    pub fn to_diagnostic(&self, shape: usize) -> Diagnostic {
        let mut d = if self.severity == "warning" {
            Diagnostic::warning(Stage::Run, &self.kind, self.message.clone())
        } else {
            Diagnostic::error(Stage::Run, &self.kind, self.message.clone())
        };
        if !self.file.is_empty() {
            let file = self.file.rsplit('/').next().unwrap_or(&self.file);
            d = d.at(file, self.line);
        }
        d = d.for_shape(shape);
        if self.core >= 0 {
            d = d.number("core", self.core as f64);
        }
        for (k, v) in &self.numbers {
            d = d.number(k, v.as_f64().unwrap_or(f64::NAN));
        }
        if !self.api.is_empty() {
            d = d.note(format!("api: {}", self.api));
        }
        d
    }
}

/// Parses the launch records of one shape.
///
/// # Errors
/// The serde message when the JSON is malformed.
pub fn parse_launches(json: &str) -> Result<Vec<LaunchRecord>, String> {
    serde_json::from_str(json).map_err(|e| format!("unreadable launch records: {e}"))
}

/// The median of `v` (NaN when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Inputs of the plausibility checks for one shape.
#[derive(Clone, Copy, Debug)]
pub struct ShapeBytes {
    /// Σ input tensor bytes.
    pub input_bytes: u64,
    /// Σ output tensor bytes.
    pub output_bytes: u64,
    /// Largest element size over the tensors (scalar GM accesses count this much each).
    pub max_elem_bytes: u64,
}

/// The profile of one successful launch and the suspect diagnostics (warnings are not
/// produced: every finding here makes the evaluation suspect).
pub fn profile_shape(
    report: &SimReport,
    block_dim: u32,
    bytes: ShapeBytes,
    soc: &SocProfile,
    reference: Option<(&str, f64)>,
    max_speedup: f64,
    shape: usize,
) -> (ShapeProfile, Vec<Diagnostic>) {
    let min_bytes = bytes.input_bytes + bytes.output_bytes;
    // bytes / (GB/s · 1e9) s = bytes / (GB/s · 1e3) µs.
    let overhead = if report.launch_overhead_us > 0.0 {
        report.launch_overhead_us
    } else {
        soc.launch_overhead_us
    };
    let min_floor_us = min_bytes as f64 / (soc.hbm_peak_gbps * 1e3) + overhead;
    let time_us = report.total_us;
    let p = ShapeProfile {
        time_us,
        floor_us: report.floor_us,
        min_floor_us,
        roofline_fraction: if time_us > 0.0 {
            min_floor_us / time_us
        } else {
            f64::INFINITY
        },
        bound: report.bound.clone(),
        gm_read_bytes: report.gm_read_bytes,
        gm_write_bytes: report.gm_write_bytes,
        min_bytes,
        block_dim,
        pipe_busy: report.pipe_utilisation.clone(),
    };
    let mut d = Vec::new();
    let suspect =
        |kind: &str, msg: String| Diagnostic::error(Stage::Profile, kind, msg).for_shape(shape);
    if report.cost_accounting == Some(false) {
        d.push(suspect(
            "below_roofline_floor",
            "the cost model was off (AGENTICCANN_SIM_COST=off): no time to judge".into(),
        ));
        return (p, d);
    }
    // A relative slack for float rounding in the model's sums.
    if time_us < min_floor_us * (1.0 - 1e-6) {
        d.push(
            suspect(
                "below_roofline_floor",
                format!(
                    "modelled time {time_us:.3} us is below the roofline floor {min_floor_us:.3} us ({min_bytes} bytes at {} GB/s + {overhead} us launch)",
                    soc.hbm_peak_gbps
                ),
            )
            .number("time_us", time_us)
            .number("floor_us", min_floor_us),
        );
    }
    let scalar = report
        .scalar_gm_accesses
        .saturating_mul(bytes.max_elem_bytes);
    if report.gm_write_bytes.saturating_add(scalar) < bytes.output_bytes {
        d.push(
            suspect(
                "too_few_bytes",
                format!(
                    "the launch wrote {} bytes to GM through DataCopy (+{scalar} by scalar access) but the outputs hold {} bytes: results produced outside the simulated data path",
                    report.gm_write_bytes, bytes.output_bytes
                ),
            )
            .number("gm_write_bytes", report.gm_write_bytes as f64)
            .number("output_bytes", bytes.output_bytes as f64),
        );
    }
    if report.gm_read_bytes.saturating_add(scalar) < bytes.input_bytes {
        d.push(
            suspect(
                "too_few_bytes",
                format!(
                    "the launch read {} bytes from GM through DataCopy (+{scalar} by scalar access) but the inputs hold {} bytes",
                    report.gm_read_bytes, bytes.input_bytes
                ),
            )
            .number("gm_read_bytes", report.gm_read_bytes as f64)
            .number("input_bytes", bytes.input_bytes as f64),
        );
    }
    if let Some((name, r)) = reference {
        if time_us > 0.0 && r / time_us > max_speedup {
            d.push(
                suspect(
                    "impossible_speedup",
                    format!(
                        "{:.1}x faster than {name} ({r:.3} us → {time_us:.3} us); more than {max_speedup}x is a bug to report, not a result",
                        r / time_us
                    ),
                )
                .number("speedup", r / time_us),
            );
        }
    }
    (p, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soc() -> SocProfile {
        SocProfile {
            aiv_cores: 48,
            ub_bytes: 196608,
            max_block_dim: 65535,
            hbm_peak_gbps: 1600.0,
            launch_overhead_us: 5.0,
        }
    }

    #[test]
    fn parses_simulator_json() {
        let json = r#"[{"kernel":"agc_x","block_dim":8,"failed":true,"diagnostics":[{"kind":"gm_out_of_bounds","severity":"error","api":"DataCopy","file":"kernel.cpp","line":31,"core":3,"message":"m","numbers":{"bytes":64,"x":null}}],"report":null,"extra":1}]"#;
        let l = parse_launches(json).unwrap();
        assert!(l[0].failed && l[0].report.is_none());
        let d = l[0].diagnostics[0].to_diagnostic(2);
        assert_eq!(
            (d.kind.as_str(), d.line, d.shape),
            ("gm_out_of_bounds", Some(31), Some(2))
        );
        assert_eq!(d.numbers["bytes"], 64.0);
        assert!(d.numbers["x"].is_nan());
        let ok = r#"[{"kernel":"k","block_dim":1,"failed":false,"diagnostics":[],"report":{"total_us":7.5,"floor_us":5.1,"gm_read_bytes":4096,"gm_write_bytes":4096,"bound":"MTE2","pipe_busy_us":{"S":1,"V":1,"MTE2":1,"MTE3":1}}}]"#;
        let l = parse_launches(ok).unwrap();
        assert_eq!(l[0].report.as_ref().unwrap().total_us, 7.5);
        assert!(parse_launches("{").is_err());
    }

    #[test]
    fn plausibility() {
        let bytes = ShapeBytes {
            input_bytes: 1 << 20,
            output_bytes: 1 << 20,
            max_elem_bytes: 4,
        };
        let honest = SimReport {
            total_us: 10.0,
            launch_overhead_us: 5.0,
            floor_us: 6.3,
            gm_read_bytes: 1 << 20,
            gm_write_bytes: 1 << 20,
            bound: "MTE2".into(),
            ..SimReport::default()
        };
        let (p, d) = profile_shape(
            &honest,
            48,
            bytes,
            &soc(),
            Some(("the reference", 12.0)),
            20.0,
            0,
        );
        assert!(d.is_empty(), "{d:?}");
        assert!((p.min_floor_us - (2.0 * 1048576.0 / 1.6e6 + 5.0)).abs() < 1e-9);
        assert!(p.roofline_fraction > 0.6 && p.roofline_fraction <= 1.0);
        // Too fast for the bytes the op must move.
        let fast = SimReport {
            total_us: 5.5,
            ..honest.clone()
        };
        let (_, d) = profile_shape(&fast, 48, bytes, &soc(), None, 20.0, 0);
        assert_eq!(d[0].kind, "below_roofline_floor");
        // Output written behind the model's back.
        let sneaky = SimReport {
            gm_write_bytes: 0,
            ..honest.clone()
        };
        let (_, d) = profile_shape(&sneaky, 48, bytes, &soc(), None, 20.0, 0);
        assert_eq!(d[0].kind, "too_few_bytes");
        let (_, d) = profile_shape(
            &honest,
            48,
            bytes,
            &soc(),
            Some(("the reference", 1000.0)),
            20.0,
            0,
        );
        assert_eq!(d[0].kind, "impossible_speedup");
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0]), 2.5);
    }
}
