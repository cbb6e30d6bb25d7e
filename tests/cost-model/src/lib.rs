//! Test support for ascendc-sim's cost model.
//!
//! [`Script`] writes synthetic hook sequences (what the kernel-side simulator would
//! report to `CoreRecorder`) and [`replay`] runs them through the cost model in the
//! `trace_driver` executable that the build script compiles from
//! `ascendc-sim/src/cost/*.cpp`. [`Report`] is the cost model's `LaunchReport`
//! (report.h) as its JSON gives it. [`pipeline`] writes the trace of the canonical
//! TPipe/TQue kernel (CopyIn → Compute → CopyOut per tile, api-reference §1.4).

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

use serde::Deserialize;

/// Path of the `trace_driver` executable built by build.rs.
pub const TRACE_DRIVER: &str = env!("COST_TRACE_DRIVER");
/// The shipped profile folder, `ascendc-sim/profiles`.
pub const PROFILE_DIR: &str = env!("COST_PROFILE_DIR");

/// A value per pipe, as `LaunchReport::to_json` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerPipe {
    #[serde(rename = "S")]
    pub s: f64,
    #[serde(rename = "V")]
    pub v: f64,
    #[serde(rename = "MTE2")]
    pub mte2: f64,
    #[serde(rename = "MTE3")]
    pub mte3: f64,
}

/// `LaunchReport` (report.h): times in µs, bytes in bytes, bandwidth in GB/s. Unknown
/// fields are rejected, so a renamed or added field in `to_json` fails the tests.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub kernel: String,
    pub soc: String,
    pub block_dim: u32,
    pub physical_cores: u32,
    pub cores_used: u32,
    pub cost_accounting: bool,
    pub total_us: f64,
    pub launch_overhead_us: f64,
    pub floor_us: f64,
    pub pipe_busy_us: PerPipe,
    pub pipe_utilisation: PerPipe,
    pub gm_read_bytes: u64,
    pub gm_write_bytes: u64,
    pub hbm_bytes: u64,
    pub scalar_gm_accesses: u64,
    pub scalar_ub_accesses: u64,
    pub dma_transfers: u64,
    pub vector_instrs: u64,
    pub achieved_gbps: f64,
    pub roofline_fraction: f64,
    pub bound: String,
    pub core_min_us: f64,
    pub core_max_us: f64,
    pub imbalance: f64,
}

impl Report {
    /// Kernel time without the launch overhead, µs.
    pub fn body_us(&self) -> f64 {
        self.total_us - self.launch_overhead_us
    }
}

/// How the driver records the blocks' hooks before replaying them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    Forward,
    Reverse,
    /// One hook at a time, round robin over blocks.
    Interleave,
    Shuffle(u64),
}

/// Options of one driver run.
#[derive(Debug, Clone)]
pub struct Options {
    pub order: Order,
    /// Host threads recording blocks concurrently.
    pub threads: u32,
    /// Extra environment (e.g. `AGENTICCANN_SOC`).
    pub env: Vec<(String, String)>,
    /// Leave `AGENTICCANN_SIM_PROFILE_DIR` unset, so the profile folder compiled into
    /// the cost model is used.
    pub builtin_profile_dir: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            order: Order::Forward,
            threads: 1,
            env: Vec::new(),
            builtin_profile_dir: false,
        }
    }
}

/// A failed driver run.
#[derive(Debug, Clone)]
pub struct DriverError {
    /// 2: `std::logic_error` (a model bug such as a time below the floor); 3: any other error.
    pub status: i32,
    pub stderr: String,
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "trace_driver exited with {}: {}",
            self.status,
            self.stderr.trim()
        )
    }
}

/// Options that set environment variables.
pub fn with_env(vars: &[(&str, &str)]) -> Options {
    Options {
        env: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Options::default()
    }
}

/// Replays `script` with the shipped profiles (`AGENTICCANN_SOC` default Ascend910B1)
/// and returns one report per `finish`.
pub fn replay(script: &str, opts: &Options) -> Result<Vec<Report>, DriverError> {
    let mut cmd = Command::new(TRACE_DRIVER);
    let order = match &opts.order {
        Order::Forward => "forward".to_string(),
        Order::Reverse => "reverse".to_string(),
        Order::Interleave => "interleave".to_string(),
        Order::Shuffle(seed) => format!("shuffle:{seed}"),
    };
    cmd.args(["--order", &order, "--threads", &opts.threads.to_string()])
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env_remove("AGENTICCANN_SOC")
        .env_remove("AGENTICCANN_SIM_COST")
        .env_remove("AGENTICCANN_SIM_TRACE_LIMIT")
        .env_remove("AGENTICCANN_SIM_PROFILE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !opts.builtin_profile_dir {
        cmd.env("AGENTICCANN_SIM_PROFILE_DIR", PROFILE_DIR);
    }
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {TRACE_DRIVER}: {e}"));
    {
        let mut stdin = child.stdin.take().expect("piped stdin");
        // The driver may exit early on an error; a broken pipe is reported by its status.
        let _ = stdin.write_all(script.as_bytes());
    }
    let out = child.wait_with_output().expect("trace_driver output");
    if !out.status.success() {
        return Err(DriverError {
            status: out.status.code().unwrap_or(-1),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let text = String::from_utf8(out.stdout).expect("UTF-8 reports");
    Ok(text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad report JSON {l}: {e}")))
        .collect())
}

/// Replays `script` and returns the reports as `LaunchReport::to_text` prints them.
pub fn replay_text(script: &str) -> String {
    let mut child = Command::new(TRACE_DRIVER)
        .arg("--text")
        .env_remove("AGENTICCANN_SIM_PROFILE")
        .env_remove("AGENTICCANN_SOC")
        .env_remove("AGENTICCANN_SIM_COST")
        .env("AGENTICCANN_SIM_PROFILE_DIR", PROFILE_DIR)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {TRACE_DRIVER}: {e}"));
    let _ = child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(script.as_bytes());
    let out = child.wait_with_output().expect("trace_driver output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Replays a script holding exactly one launch; panics with the driver's message on error.
pub fn replay_one(script: &str) -> Report {
    replay_with(script, &Options::default())
}

/// As [`replay_one`] with options.
pub fn replay_with(script: &str, opts: &Options) -> Report {
    let mut r = replay(script, opts).unwrap_or_else(|e| panic!("{e}\nscript:\n{}", head(script)));
    assert_eq!(r.len(), 1, "expected one launch in the script");
    r.pop().unwrap()
}

fn head(s: &str) -> String {
    s.lines().take(40).collect::<Vec<_>>().join("\n")
}

/// Pipes as the driver names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    S,
    V,
    Mte2,
    Mte3,
}

impl Pipe {
    fn name(self) -> &'static str {
        match self {
            Pipe::S => "s",
            Pipe::V => "v",
            Pipe::Mte2 => "mte2",
            Pipe::Mte3 => "mte3",
        }
    }
}

/// Key of a queue buffer's hand-off event, as `queue_key` in cost.h.
pub fn queue_key(queue_id: u64, slot: u64, event: u64) -> u64 {
    (queue_id << 24) | (slot << 4) | event
}

/// A hook script for `trace_driver` (see cpp/trace_driver.cpp for the grammar).
#[derive(Debug, Default, Clone)]
pub struct Script {
    text: String,
}

impl Script {
    pub fn new() -> Self {
        Script::default()
    }
    fn line(&mut self, l: std::fmt::Arguments<'_>) -> &mut Self {
        self.text.write_fmt(l).unwrap();
        self.text.push('\n');
        self
    }
    pub fn launch(&mut self, block_dim: u32) -> &mut Self {
        self.line(format_args!("launch {block_dim}"))
    }
    pub fn block(&mut self, i: u32) -> &mut Self {
        self.line(format_args!("block {i}"))
    }
    pub fn scalar(&mut self, instrs: u32) -> &mut Self {
        self.line(format_args!("scalar {instrs}"))
    }
    /// A vector instruction: `class` and `dtype` as the driver names them (e.g.
    /// "simple", "f16"); `count_form` adds the mask set-up.
    pub fn vec(&mut self, class: &str, dtype: &str, repeats: u32, count_form: bool) -> &mut Self {
        let c = if count_form { " count" } else { "" };
        self.line(format_args!("vec {class} {dtype} {repeats}{c}"))
    }
    /// A DMA of `block_count` blocks of `block_bytes`, `stride` bytes apart in GM.
    pub fn dma(
        &mut self,
        pipe: Pipe,
        gm_addr: u64,
        block_count: u32,
        block_bytes: u64,
        stride: u64,
    ) -> &mut Self {
        self.line(format_args!(
            "dma {} {gm_addr} {block_count} {block_bytes} {stride}",
            pipe.name()
        ))
    }
    /// A contiguous copy of `bytes` at `gm_addr`.
    pub fn copy(&mut self, pipe: Pipe, gm_addr: u64, bytes: u64) -> &mut Self {
        self.dma(pipe, gm_addr, 1, bytes, bytes)
    }
    pub fn get(&mut self, ub: bool) -> &mut Self {
        self.line(format_args!("get {}", if ub { "ub" } else { "gm" }))
    }
    pub fn set(&mut self, ub: bool) -> &mut Self {
        self.line(format_args!("set {}", if ub { "ub" } else { "gm" }))
    }
    pub fn signal(&mut self, pipe: Pipe, key: u64) -> &mut Self {
        self.line(format_args!("signal {} {key}", pipe.name()))
    }
    pub fn wait(&mut self, pipe: Pipe, key: u64) -> &mut Self {
        self.line(format_args!("wait {} {key}", pipe.name()))
    }
    pub fn barrier(&mut self, pipe: Option<Pipe>) -> &mut Self {
        match pipe {
            Some(p) => self.line(format_args!("barrier {}", p.name())),
            None => self.line(format_args!("barrier all")),
        }
    }
    /// Cross-core: this block raises channel `chan` (CoreRecorder::xsignal).
    pub fn xsignal(&mut self, chan: u64) -> &mut Self {
        self.line(format_args!("xsignal {chan}"))
    }
    /// Cross-core: this block waits until `chan` has been raised `need` times.
    pub fn xwait(&mut self, chan: u64, need: u32) -> &mut Self {
        self.line(format_args!("xwait {chan} {need}"))
    }
    pub fn repeat(&mut self, n: u64) -> &mut Self {
        self.line(format_args!("repeat {n}"))
    }
    pub fn end(&mut self) -> &mut Self {
        self.line(format_args!("end"))
    }
    pub fn finish(&mut self, name: &str) -> &mut Self {
        self.line(format_args!("finish {name}"))
    }
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// One vector instruction per tile of a [`Pipeline`]: `repeats` is per tile.
#[derive(Debug, Clone)]
pub struct VecOp {
    pub class: &'static str,
    pub dtype: &'static str,
    pub repeats: u32,
}

/// The canonical elementwise kernel (api-reference §1.4): per tile, CopyIn of each
/// input (AllocTensor / DataCopy / EnQue), Compute (DeQue inputs, AllocTensor output,
/// vector ops, EnQue output, FreeTensor inputs), CopyOut (DeQue, DataCopy, FreeTensor),
/// with `buffer_num` buffers per queue.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub block_dim: u32,
    /// Tiles per block; `tiles[i]` for block i (lets tests build imbalanced splits).
    pub tiles: Vec<u32>,
    pub tile_bytes: u64,
    pub buffer_num: u32,
    pub inputs: u32,
    pub ops: Vec<VecOp>,
    /// Scalar instructions of API overhead per queue operation and per DataCopy.
    pub api_scalar: u32,
}

impl Pipeline {
    /// `block_dim` blocks of `tiles` tiles each, one f16 Add per tile over the whole tile.
    pub fn add_f16(block_dim: u32, tiles: u32, tile_bytes: u64, buffer_num: u32) -> Self {
        Pipeline {
            block_dim,
            tiles: vec![tiles; block_dim as usize],
            tile_bytes,
            buffer_num,
            inputs: 2,
            ops: vec![VecOp {
                class: "simple",
                dtype: "f16",
                repeats: tile_bytes.div_ceil(256) as u32,
            }],
            api_scalar: 4,
        }
    }

    /// The script of one launch named `name`.
    pub fn script(&self, name: &str) -> String {
        let mut s = Script::new();
        s.launch(self.block_dim);
        let out_q = 15u64;
        for b in 0..self.block_dim {
            s.block(b);
            let tiles = self.tiles[b as usize] as u64;
            let base = (b as u64) * 4 * tiles.max(1) * self.tile_bytes;
            for i in 0..tiles {
                let slot = i % self.buffer_num as u64;
                let reuse = i >= self.buffer_num as u64;
                let off = base + i * self.tile_bytes;
                // CopyIn
                for q in 0..self.inputs as u64 {
                    s.scalar(self.api_scalar);
                    if reuse {
                        s.wait(Pipe::Mte2, queue_key(q, slot, 1));
                    }
                    s.copy(Pipe::Mte2, (q << 36) + off, self.tile_bytes);
                    s.signal(Pipe::Mte2, queue_key(q, slot, 0));
                }
                // Compute
                for q in 0..self.inputs as u64 {
                    s.scalar(self.api_scalar);
                    s.wait(Pipe::V, queue_key(q, slot, 0));
                }
                if reuse {
                    s.wait(Pipe::V, queue_key(out_q, slot, 1));
                }
                for op in &self.ops {
                    s.vec(op.class, op.dtype, op.repeats, true);
                }
                s.signal(Pipe::V, queue_key(out_q, slot, 0));
                for q in 0..self.inputs as u64 {
                    s.signal(Pipe::V, queue_key(q, slot, 1));
                }
                // CopyOut
                s.scalar(self.api_scalar);
                s.wait(Pipe::Mte3, queue_key(out_q, slot, 0));
                s.copy(Pipe::Mte3, (out_q << 36) + off, self.tile_bytes);
                s.signal(Pipe::Mte3, queue_key(out_q, slot, 1));
            }
        }
        s.finish(name);
        s.text
    }
}

/// `LaunchResult` (launch.h) as its JSON gives it.
#[derive(Debug, Clone, Deserialize)]
pub struct LaunchResult {
    pub kernel: String,
    pub block_dim: u32,
    pub failed: bool,
    pub diagnostics: Vec<serde_json::Value>,
    pub report: Option<Report>,
}

impl LaunchResult {
    /// The cost report; panics with the diagnostics when the launch failed.
    pub fn report(&self) -> &Report {
        match (&self.report, self.failed) {
            (Some(r), false) => r,
            _ => panic!("launch of {} failed: {:#?}", self.kernel, self.diagnostics),
        }
    }
}

/// What one harness experiment produced.
#[derive(Debug, Clone, Deserialize)]
pub struct Experiment {
    /// "ok", or what was wrong with the kernel's output.
    pub check: String,
    /// Host wall time of each launch (simulation and cost model), seconds.
    pub wall_s: Vec<f64>,
    /// `aclrtEventElapsedTime` around the launches (experiment "events"), ms.
    pub event_ms: Option<f64>,
    pub results: Vec<LaunchResult>,
}

impl Experiment {
    /// The reports of every launch; panics when a launch failed or the output was wrong.
    pub fn reports(&self) -> Vec<&Report> {
        assert_eq!(self.check, "ok", "kernel output is wrong");
        self.results.iter().map(LaunchResult::report).collect()
    }
    /// The report of a single-launch experiment.
    pub fn report(&self) -> &Report {
        let r = self.reports();
        assert_eq!(r.len(), 1);
        r[0]
    }
    /// Sum of the launches' times, µs (as host code timing the sequence would see).
    pub fn total_us(&self) -> f64 {
        self.reports().iter().map(|r| r.total_us).sum()
    }
}

extern "C" {
    fn cm_run(
        experiment: *const std::ffi::c_char,
        params: *const u64,
        n: usize,
        out: *mut u8,
        cap: usize,
    ) -> i64;
}

static HARNESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs a harness experiment (cpp/harness.cpp): "add" [n, block_dim, tile, buffer_num,
/// tail_split], "copy" [n, block_dim, tile], "exp_ln" [n, block_dim, tile, rounds,
/// tail_split], "abs_vector"/"abs_scalar" [n, block_dim, tile], "rmsnorm_fused" /
/// "rmsnorm_eager" [rows, cols, block_dim], "events" [rows, cols, block_dim] (the eager
/// chain on an AscendCL stream between two events, then synchronously). Element counts in elements, tiles in
/// elements. Calls are serialised.
pub fn experiment(name: &str, params: &[u64]) -> Experiment {
    let _guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let cname = std::ffi::CString::new(name).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        // SAFETY: cm_run reads `params` (len n) and writes at most `cap` bytes to `out`.
        let n = unsafe {
            cm_run(
                cname.as_ptr(),
                params.as_ptr(),
                params.len(),
                buf.as_mut_ptr(),
                buf.len(),
            )
        };
        if n == -1 {
            panic!("unknown harness experiment {name}");
        }
        if n < 0 {
            buf.resize((-n) as usize, 0);
            continue;
        }
        let text = std::str::from_utf8(&buf[..n as usize]).expect("UTF-8");
        return serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("bad harness JSON ({e}): {text}"));
    }
}
