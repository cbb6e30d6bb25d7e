//! What the simulator reports about kernel launches, as Rust data: structured
//! [`Diagnostic`]s (rules a kernel broke), the cost model's [`LaunchReport`], and the
//! [`LaunchRecord`] of each launch. They are parsed with serde from the JSON of the
//! simulator's C API (`ascendc_sim/capi.h`, produced by `LaunchResult::to_json`,
//! `Diagnostic::to_json` and `LaunchReport::to_json`).
//!
//! On the `cann` backend the hardware reports none of this: [`crate::Stream::take_launches`]
//! returns an empty list, and kernel failures carry no diagnostics.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Recorded, execution went on (e.g. a `DataCopy` length the hardware truncates).
    Warning,
    /// Stopped the core that broke the rule; the launch failed.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One hardware rule a kernel broke, found by the simulator.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Diagnostic {
    /// Stable snake_case identifier, e.g. `"ub_capacity_exceeded"`, `"gm_out_of_bounds"`.
    pub kind: String,
    /// Error (the core stopped) or warning.
    pub severity: Severity,
    /// The Ascend C API that found it, e.g. `"DataCopy"`, `"TPipe::InitBuffer"`.
    #[serde(default)]
    pub api: String,
    /// Kernel source file of the offending call (empty when unknown).
    #[serde(default)]
    pub file: String,
    /// Line of the offending call (0 when unknown).
    #[serde(default)]
    pub line: u32,
    /// Block index of the core, or -1 when the problem is not inside a core.
    #[serde(default = "minus_one")]
    pub core: i32,
    /// One readable sentence with the numbers.
    #[serde(default)]
    pub message: String,
    /// The numbers involved, by name (e.g. `("bytes", 40.0)`), in the simulator's order.
    #[serde(default, deserialize_with = "named_numbers")]
    pub numbers: Vec<(String, f64)>,
}

fn minus_one() -> i32 {
    -1
}

/// The simulator writes non-finite numbers as JSON `null`; they read back as NaN.
fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl Diagnostic {
    /// The number called `name`, if the diagnostic has one.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.numbers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// One line: `error[kind] file:line core N API: message`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.severity, self.kind)?;
        if !self.file.is_empty() {
            write!(f, " {}:{}", self.file, self.line)?;
        }
        if self.core >= 0 {
            write!(f, " core {}", self.core)?;
        }
        if !self.api.is_empty() {
            write!(f, " {}:", self.api)?;
        }
        write!(f, " {}", self.message)
    }
}

/// Accepts `{"name": value, ...}` (order kept) or `[["name", value], ...]`.
fn named_numbers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, f64)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(String, f64)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object of named numbers or an array of [name, number] pairs")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, Option<f64>>()? {
                out.push((k, v.unwrap_or(f64::NAN)));
            }
            Ok(out)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = seq.next_element::<(String, Option<f64>)>()? {
                out.push((k, v.unwrap_or(f64::NAN)));
            }
            Ok(out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }
    d.deserialize_any(V)
}

/// A value per pipe of an AIV core: scalar (S), vector (V), MTE2 (GM→UB), MTE3 (UB→GM).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PipeTimes {
    /// Scalar pipe.
    pub s: f64,
    /// Vector pipe.
    pub v: f64,
    /// MTE2: GM → UB transfers.
    pub mte2: f64,
    /// MTE3: UB → GM transfers.
    pub mte3: f64,
}

/// Accepts `[S, V, MTE2, MTE3]` or `{"S":..,"V":..,"MTE2":..,"MTE3":..}` (any case).
impl<'de> Deserialize<'de> for PipeTimes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PipeTimes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("[S, V, MTE2, MTE3] or an object keyed by pipe name")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PipeTimes, A::Error> {
                let mut v = [0.0; 4];
                for (i, slot) in v.iter_mut().enumerate() {
                    *slot = seq
                        .next_element::<Option<f64>>()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?
                        .unwrap_or(f64::NAN);
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(5, &self));
                }
                Ok(PipeTimes {
                    s: v[0],
                    v: v[1],
                    mte2: v[2],
                    mte3: v[3],
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PipeTimes, A::Error> {
                let mut p = PipeTimes::default();
                while let Some((k, val)) = map.next_entry::<String, Option<f64>>()? {
                    let val = val.unwrap_or(f64::NAN);
                    match k.to_ascii_lowercase().as_str() {
                        "s" | "scalar" => p.s = val,
                        "v" | "vector" => p.v = val,
                        "mte2" => p.mte2 = val,
                        "mte3" => p.mte3 = val,
                        other => {
                            return Err(de::Error::unknown_field(
                                other,
                                &["S", "V", "MTE2", "MTE3"],
                            ))
                        }
                    }
                }
                Ok(p)
            }
        }
        d.deserialize_any(V)
    }
}

/// The cost model's account of one launch (`ascendc_sim/report.h`). Times in µs, bytes
/// in bytes, bandwidth in GB/s (1e9 bytes per second).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default)]
pub struct LaunchReport {
    /// Kernel function name.
    pub kernel: String,
    /// SoC profile, e.g. `"Ascend910B1"`.
    pub soc: String,
    /// Blocks launched.
    pub block_dim: u32,
    /// AIV cores of the SoC.
    pub physical_cores: u32,
    /// Physical cores that ran at least one block.
    pub cores_used: u32,
    /// False when the simulator ran with `AGENTICCANN_SIM_COST=off`: only byte and access
    /// counts are filled, every time is 0.
    pub cost_accounting: bool,
    /// Modelled kernel time: slowest core plus launch overhead, µs. This is what the
    /// stream's modelled clock advances by, so Event timing measures it.
    #[serde(deserialize_with = "f64_or_nan")]
    pub total_us: f64,
    /// Fixed per-launch cost from the profile, µs.
    #[serde(deserialize_with = "f64_or_nan")]
    pub launch_overhead_us: f64,
    /// Physical floor: GM bytes / peak HBM bandwidth + launch overhead, µs.
    #[serde(deserialize_with = "f64_or_nan")]
    pub floor_us: f64,
    /// Busy time per pipe on the slowest core, µs.
    pub pipe_busy_us: PipeTimes,
    /// Busy time / kernel body time per pipe, in [0, 1].
    pub pipe_utilisation: PipeTimes,
    /// Bytes moved GM → UB over all cores.
    pub gm_read_bytes: u64,
    /// Bytes moved UB → GM over all cores.
    pub gm_write_bytes: u64,
    /// Bytes charged to HBM: GM bytes rounded out to whole bursts.
    pub hbm_bytes: u64,
    /// `DataCopy`/`DataCopyPad` transfers over all cores.
    pub dma_transfers: u64,
    /// Vector instructions over all cores.
    pub vector_instrs: u64,
    /// Scalar `GetValue`/`SetValue` on GM over all cores.
    pub scalar_gm_accesses: u64,
    /// Scalar `GetValue`/`SetValue` on UB over all cores.
    pub scalar_ub_accesses: u64,
    /// (read + write bytes) / kernel body time, GB/s.
    #[serde(deserialize_with = "f64_or_nan")]
    pub achieved_gbps: f64,
    /// floor_us / total_us, in (0, 1].
    #[serde(deserialize_with = "f64_or_nan")]
    pub roofline_fraction: f64,
    /// What bounds the launch: `"MTE2"`, `"V"`, `"MTE3"`, `"scalar"` or `"launch"`.
    pub bound: String,
    /// Fastest core's finish time without launch overhead, µs.
    #[serde(deserialize_with = "f64_or_nan")]
    pub core_min_us: f64,
    /// Slowest core's finish time without launch overhead, µs.
    #[serde(deserialize_with = "f64_or_nan")]
    pub core_max_us: f64,
    /// Slowest core / mean core time − 1 (0 = balanced).
    #[serde(deserialize_with = "f64_or_nan")]
    pub imbalance: f64,
}

impl Default for LaunchReport {
    fn default() -> Self {
        LaunchReport {
            kernel: String::new(),
            soc: String::new(),
            block_dim: 0,
            physical_cores: 0,
            cores_used: 0,
            cost_accounting: true,
            total_us: 0.0,
            launch_overhead_us: 0.0,
            floor_us: 0.0,
            pipe_busy_us: PipeTimes::default(),
            pipe_utilisation: PipeTimes::default(),
            gm_read_bytes: 0,
            gm_write_bytes: 0,
            hbm_bytes: 0,
            dma_transfers: 0,
            vector_instrs: 0,
            scalar_gm_accesses: 0,
            scalar_ub_accesses: 0,
            achieved_gbps: 0.0,
            roofline_fraction: 0.0,
            bound: String::new(),
            core_min_us: 0.0,
            core_max_us: 0.0,
            imbalance: 0.0,
        }
    }
}

/// One line: `add: 12.345 µs on Ascend910B1 (blockDim 8, MTE2-bound, 812.3 GB/s, 71% of roofline)`.
impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.cost_accounting {
            return write!(
                f,
                "{}: cost accounting off on {} (blockDim {}, {} B read, {} B written)",
                self.kernel, self.soc, self.block_dim, self.gm_read_bytes, self.gm_write_bytes
            );
        }
        write!(
            f,
            "{}: {:.3} µs on {} (blockDim {}, {}-bound, {:.1} GB/s, {:.0}% of roofline)",
            self.kernel,
            self.total_us,
            self.soc,
            self.block_dim,
            self.bound,
            self.achieved_gbps,
            self.roofline_fraction * 100.0
        )
    }
}

/// One kernel launch as the simulator ran it (`LaunchResult` in `ascendc_sim/launch.h`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LaunchRecord {
    /// Kernel function name.
    pub kernel: String,
    /// Blocks launched.
    pub block_dim: u32,
    /// An error diagnostic stopped at least one core.
    pub failed: bool,
    /// Errors and warnings, sorted by core then order.
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
    /// The cost model's report; `None` when the launch failed.
    #[serde(default)]
    pub report: Option<LaunchReport>,
}

impl LaunchRecord {
    /// The error diagnostics (those that stopped a core).
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }
}

/// `kernel `add` (blockDim 8) failed:` then one indented line per diagnostic; for a
/// successful launch, the report line then any warnings.
impl fmt::Display for LaunchRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.failed {
            let n = self.errors().count();
            write!(
                f,
                "kernel `{}` (blockDim {}) failed with {} error{}",
                self.kernel,
                self.block_dim,
                n,
                if n == 1 { "" } else { "s" }
            )?;
        } else if let Some(r) = &self.report {
            write!(f, "{r}")?;
        } else {
            write!(
                f,
                "kernel `{}` (blockDim {}) finished",
                self.kernel, self.block_dim
            )?;
        }
        for d in &self.diagnostics {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

/// The simulator's active SoC profile (`AGENTICCANN_SIM_PROFILE`, else the shipped
/// profile named by `AGENTICCANN_SOC`, default Ascend910B1; read by the simulator).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SimProfile {
    /// SoC name, e.g. `"Ascend910B1"`.
    pub soc: String,
    /// File the profile was loaded from.
    pub path: String,
    /// Unified Buffer per AIV core, bytes.
    pub ub_bytes: u32,
    /// AIV cores of the SoC.
    pub aiv_cores: u32,
    /// Largest blockDim a launch accepts.
    pub max_block_dim: u32,
}

/// The simulator's active profile. `Ok(None)` on the CANN backend; an error when the
/// profile cannot be loaded (the text names the file and the problem).
pub fn profile() -> crate::Result<Option<SimProfile>> {
    #[cfg(agenticcann_backend = "sim")]
    {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Answer {
            Err { error: String },
            Ok(SimProfile),
        }
        // SAFETY: the function takes no arguments and returns a string we own (or null).
        let json =
            unsafe { crate::result::take_sim_string(crate::sys::sim::ascendc_sim_profile_json()) }
                .ok_or_else(|| {
                    crate::Error::Sim("ascendc_sim_profile_json returned NULL".into())
                })?;
        match parse::<Answer>(&json, "profile")? {
            Answer::Ok(p) => Ok(Some(p)),
            Answer::Err { error } => Err(crate::Error::Sim(format!(
                "loading the SoC profile: {error}"
            ))),
        }
    }
    #[cfg(not(agenticcann_backend = "sim"))]
    {
        Ok(None)
    }
}

/// Parses simulator JSON, naming `what` in the error.
#[cfg(agenticcann_backend = "sim")]
pub(crate) fn parse<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> crate::Result<T> {
    serde_json::from_str(json).map_err(|e| {
        let excerpt: String = json.chars().take(200).collect();
        crate::Error::Sim(format!("cannot read the {what} JSON ({e}): {excerpt}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostic_parses_object_numbers_and_prints_one_line() {
        let d: Diagnostic = serde_json::from_str(
            r#"{"kind":"datacopy_truncated","severity":"warning","api":"DataCopy",
                "file":"add.cpp","line":42,"core":3,"message":"40 bytes is not a multiple of 32",
                "numbers":{"bytes":40,"kept":32}}"#,
        )
        .unwrap();
        assert_eq!(d.number("bytes"), Some(40.0));
        assert_eq!(
            d.numbers,
            vec![("bytes".into(), 40.0), ("kept".into(), 32.0)]
        );
        assert_eq!(
            d.to_string(),
            "warning[datacopy_truncated] add.cpp:42 core 3 DataCopy: 40 bytes is not a multiple of 32"
        );
    }

    #[test]
    fn diagnostic_accepts_pair_numbers_and_missing_location() {
        let d: Diagnostic = serde_json::from_str(
            r#"{"kind":"block_dim_invalid","severity":"error","message":"blockDim 0",
                "numbers":[["block_dim",0]]}"#,
        )
        .unwrap();
        assert_eq!(d.core, -1);
        assert_eq!(d.numbers, vec![("block_dim".into(), 0.0)]);
        assert_eq!(d.to_string(), "error[block_dim_invalid] blockDim 0");
    }

    #[test]
    fn report_accepts_both_pipe_layouts() {
        let a: LaunchReport =
            serde_json::from_str(r#"{"kernel":"k","total_us":3.5,"pipe_busy_us":[1,2,3,4]}"#)
                .unwrap();
        let b: LaunchReport = serde_json::from_str(
            r#"{"kernel":"k","total_us":3.5,"pipe_busy_us":{"S":1,"V":2,"MTE2":3,"MTE3":4}}"#,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.pipe_busy_us.mte2, 3.0);
        assert!(serde_json::from_str::<LaunchReport>(r#"{"pipe_busy_us":[1,2,3]}"#).is_err());
        assert!(serde_json::from_str::<LaunchReport>(r#"{"pipe_busy_us":{"L1":1}}"#).is_err());
    }

    #[test]
    fn null_numbers_read_as_nan() {
        let r: LaunchReport = serde_json::from_str(
            r#"{"kernel":"k","total_us":1,"achieved_gbps":null,"pipe_busy_us":{"S":null,"V":0,"MTE2":0,"MTE3":0}}"#,
        )
        .unwrap();
        assert!(r.achieved_gbps.is_nan() && r.pipe_busy_us.s.is_nan());
        let d: Diagnostic =
            serde_json::from_str(r#"{"kind":"k","severity":"error","numbers":{"x":null}}"#)
                .unwrap();
        assert!(d.number("x").unwrap().is_nan());
    }

    #[test]
    fn failed_record_displays_each_diagnostic_on_its_own_line() {
        let r: LaunchRecord = serde_json::from_str(
            r#"{"kernel":"bad","block_dim":2,"failed":true,"report":null,"diagnostics":[
                {"kind":"gm_out_of_bounds","severity":"error","api":"DataCopy","file":"bad.cpp",
                 "line":7,"core":1,"message":"read past the end","numbers":{}}]}"#,
        )
        .unwrap();
        assert_eq!(
            r.to_string(),
            "kernel `bad` (blockDim 2) failed with 1 error\n  \
             error[gm_out_of_bounds] bad.cpp:7 core 1 DataCopy: read past the end"
        );
    }
}
