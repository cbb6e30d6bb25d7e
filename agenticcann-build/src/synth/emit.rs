//! C++ emission of a lowered op: `kernel.cpp` (Ascend C, API calls only: no GM pointer
//! arithmetic or dereference) and `tiling.cpp`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use super::lower::{prod_code, Access, Bin, Level, Lowered, Op, Program, Un};
use super::{RowStats, SynthError, SynthOptions, TilingParams};
use crate::spec::reference::{BinaryOp, ReduceOp};
use crate::spec::{Dim, Dtype, OpSpec};
use crate::store::{FieldType, TilingField};

mod mid;

fn cty(d: Dtype) -> &'static str {
    match d {
        Dtype::F16 => "half",
        Dtype::Bf16 => "bfloat16_t",
        Dtype::I32 => "int32_t",
        Dtype::I8 => "int8_t",
        Dtype::U8 | Dtype::Bool => "uint8_t",
        Dtype::F32 => "float",
    }
}

fn zero(d: Dtype) -> &'static str {
    match d {
        Dtype::F16 => "static_cast<half>(0.0f)",
        Dtype::Bf16 => "ToBfloat16(0.0f)",
        Dtype::F32 => "0.0f",
        _ => "0",
    }
}

fn to_f(d: Dtype, e: &str) -> String {
    match d {
        Dtype::Bf16 => format!("ToFloat({e})"),
        Dtype::F32 => e.to_string(),
        _ => format!("static_cast<float>({e})"),
    }
}

fn from_f(d: Dtype, e: &str) -> String {
    match d {
        Dtype::F16 => format!("static_cast<half>({e})"),
        Dtype::Bf16 => format!("ToBfloat16({e})"),
        _ => e.to_string(),
    }
}

fn flit(v: f64) -> String {
    let f = v as f32;
    if f.is_nan() {
        "(0.0f / 0.0f)".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "INFINITY".into()
        } else {
            "(-INFINITY)".into()
        }
    } else {
        format!("{:e}f", f)
    }
}

fn cmp_mode(op: BinaryOp, swapped: bool) -> &'static str {
    let op = if swapped {
        match op {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::Gt => BinaryOp::Lt,
            BinaryOp::Le => BinaryOp::Ge,
            BinaryOp::Ge => BinaryOp::Le,
            o => o,
        }
    } else {
        op
    };
    match op {
        BinaryOp::Lt => "CMPMODE::LT",
        BinaryOp::Gt => "CMPMODE::GT",
        BinaryOp::Le => "CMPMODE::LE",
        BinaryOp::Ge => "CMPMODE::GE",
        BinaryOp::Eq => "CMPMODE::EQ",
        _ => "CMPMODE::NE",
    }
}

/// Where the emitted code runs: `Resident` = whole rows in UB (a tile of rows, inputs
/// loaded once), `Chunked` = one row at a time in chunks of `K`, `Flat` = element ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Resident,
    Chunked,
    Flat,
}

/// One UB buffer of the kernel: InitBuffer in the kernel and the same size in the tiling's
/// UB budget.
struct Buf {
    /// Member name.
    name: String,
    /// `TQue<VECIN, D>`, `TQue<VECOUT, D>` (D = [`queue_depth`]) or `TBuf<VECCALC>`.
    decl: String,
    /// Number of buffers (C++ expression over `BN`).
    num: String,
    /// Bytes per buffer (C++ expression over `T`, `P`, `K`, `TL`, `LIN`, `BN`).
    bytes: String,
}

/// Per-program emission state.
struct Prog<'a> {
    p: &'a Program,
    /// Name prefix of this program's buffers and scalars.
    pre: String,
    stage: Vec<u32>,
}

impl<'a> Prog<'a> {
    fn new(p: &'a Program, pre: &str) -> Prog<'a> {
        let mut stage = vec![0u32; p.nodes.len()];
        for (i, n) in p.nodes.iter().enumerate() {
            stage[i] = match &n.op {
                Op::Const(_) | Op::Input { .. } | Op::RedMid { .. } => 0,
                Op::Un(_, a) => stage[*a],
                Op::Bin(_, a, b) => stage[*a].max(stage[*b]),
                Op::Where(c, a, b) => stage[*c].max(stage[*a]).max(stage[*b]),
                Op::RedLast(_, a) => stage[*a] + 1,
            };
        }
        Prog {
            p,
            pre: pre.to_string(),
            stage,
        }
    }

    fn level(&self, i: usize) -> Level {
        self.p.nodes[i].level
    }

    /// Scalar expression of a non-row node.
    fn sv(&self, i: usize) -> String {
        match &self.p.nodes[i].op {
            Op::Const(v) => flit(*v),
            _ => format!("{}s{i}", self.pre),
        }
    }

    /// The row inputs (Row or Vec access) read by the Row nodes in `set`.
    fn inputs_of(&self, set: &BTreeSet<usize>) -> Vec<usize> {
        set.iter()
            .copied()
            .filter(|&i| {
                matches!(
                    &self.p.nodes[i].op,
                    Op::Input {
                        access: Access::Row { .. } | Access::Vec,
                        ..
                    }
                )
            })
            .collect()
    }

    /// Row nodes needed to compute `roots` (stopping at non-row nodes and accumulators).
    fn closure(&self, roots: &[usize]) -> BTreeSet<usize> {
        self.closure_until(roots, &BTreeSet::new())
    }

    /// [`closure`](Self::closure) that also stops at the nodes of `stop` (already computed:
    /// they are in the set, their operands are not unless something else needs them).
    fn closure_until(&self, roots: &[usize], stop: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut set = BTreeSet::new();
        let mut stack: Vec<usize> = roots.to_vec();
        while let Some(i) = stack.pop() {
            if self.level(i) != Level::Row || !set.insert(i) {
                continue;
            }
            if stop.contains(&i) {
                continue;
            }
            match &self.p.nodes[i].op {
                Op::Un(_, a) => stack.push(*a),
                Op::Bin(_, a, b) => stack.extend([*a, *b]),
                Op::Where(c, a, b) => stack.extend([*c, *a, *b]),
                _ => {}
            }
        }
        set
    }
}

/// Result of emission.
pub(crate) struct Emitted {
    pub kernel: String,
    pub tiling: String,
    pub fields: Vec<TilingField>,
}

struct Emitter<'a> {
    op: &'a OpSpec,
    lw: &'a Lowered,
    params: &'a TilingParams,
    bufs: Vec<Buf>,
    ntemps: usize,
    /// Code lines of Process.
    body: String,
    uses_mask: bool,
    uses_reduce: bool,
    uses_shift: bool,
    compensate: bool,
    scalar_lo: BTreeSet<usize>,
    /// Row statistics of whole-row tiles computed tile-wide ([`RowStats::Tile`]).
    tile: bool,
    /// The kernel calls `TileReduce` (its buffers and member function are emitted).
    uses_tile: bool,
    /// Row operations of a resident tile are issued tile-wide ([`RowStats::Wide`]): the
    /// kernel has the wide body for rows of at most 2040 elements and the [`RowStats::Tile`]
    /// body for longer ones.
    has_wide: bool,
    /// The wide body is being emitted.
    wide: bool,
    /// Leading-axis reductions in column slabs ([`mid::slab_ok`]): the tiling's `resident`
    /// is 2, `chunk` the slab width and `tile_rows` the rows of the reduced axis per copy.
    slab: bool,
    /// Emitting the wide body's per-row values as vectors over the tile's rows: per-row
    /// nodes are operands held in UB (`rsb{i}`), as row nodes are in a row loop.
    scalar_vec: bool,
    /// Row temporaries the wide body uses (whole tiles, `LIN` elements, when resident).
    wide_temps: usize,
    /// Floats per block and reduction level in the row-split workspace (0: the kernel has
    /// no chunked reductions, so no split combines partials): three per reduction of the
    /// level with the most (value, error sum, shift), rounded up to 8 (one 32-byte block).
    split_nw: usize,
    /// Reduction levels of the chunked path (workspace slots per block).
    split_levels: usize,
    /// `[C]` vector inputs of a tile-statistics kernel issued before the row loop and not
    /// dequeued yet (queue, fp32 view, dtype): the first tile dequeues them right before
    /// the first level that reads them, so its earlier levels do not wait for their copy.
    pending_vecs: Vec<(String, String, Dtype)>,
}

/// The depth (template argument) of the kernel's queues: 2, or the buffer count when it
/// is larger (a queue may hold that many enqueued tensors; api-reference §2.5: depth
/// "generally ≤ 4"). The buffer count itself is `BN`, from the tiling.
fn queue_depth(p: &TilingParams) -> u32 {
    p.buffer_num.max(2)
}

fn w(s: &mut String, indent: usize, line: &str) {
    for _ in 0..indent {
        s.push_str("  ");
    }
    s.push_str(line);
    s.push('\n');
}

impl<'a> Emitter<'a> {
    fn fail(&self, reason: impl Into<String>) -> SynthError {
        SynthError::Unsupported {
            op: self.op.name.clone(),
            reason: reason.into(),
        }
    }

    fn add_buf(&mut self, name: String, decl: impl Into<String>, num: &str, bytes: String) {
        if !self.bufs.iter().any(|b| b.name == name) {
            self.bufs.push(Buf {
                name,
                decl: decl.into(),
                num: num.to_string(),
                bytes,
            });
        }
    }

    fn in_dtype(&self, name: &str) -> Dtype {
        self.lw.dtypes.get(name).copied().unwrap_or(Dtype::F32)
    }

    /// Declares the buffers of a row input of program `pg` and returns (queue, fp32 view
    /// name, dtype).
    fn input_bufs(&mut self, pg: &Prog, i: usize, len: &str) -> (String, String, Dtype) {
        let Op::Input { name, .. } = &pg.p.nodes[i].op else {
            unreachable!("input_bufs on a non-input")
        };
        let d = self.in_dtype(name);
        let q = format!("iq_{}{name}", pg.pre);
        let f = format!("f_{}{name}", pg.pre);
        // A `[C]` vector shared by every row is copied in once per core when rows are
        // resident: one buffer, not BN (in chunked mode each chunk takes a copy, so BN).
        let num = match &pg.p.nodes[i].op {
            Op::Input {
                access: Access::Vec,
                ..
            } => "(R != 0 ? 1u : BN)",
            _ => "BN",
        };
        self.add_buf(
            q.clone(),
            format!("TQue<TPosition::VECIN, {}>", queue_depth(self.params)),
            num,
            format!("({len}) * {}", d.size_bytes()),
        );
        if d.size_bytes() == 1 {
            self.add_buf(
                format!("hb_{}{name}", pg.pre),
                "TBuf<TPosition::VECCALC>",
                "1",
                format!("({len}) * 2"),
            );
        }
        if d != Dtype::F32 {
            self.add_buf(
                format!("fb_{}{name}", pg.pre),
                "TBuf<TPosition::VECCALC>",
                "1",
                format!("({len}) * 4"),
            );
        }
        (q, f, d)
    }

    /// Emits GM→UB copies of the row inputs `ins` (alloc + DataCopyPad + EnQue), then their
    /// DeQue + Cast to fp32. `gm(i)` gives the GM element offset of one burst; bursts
    /// `nb` (C++), burst length `n` elements (C++), UB pitch `pitch` elements.
    #[allow(clippy::too_many_arguments)]
    fn emit_loads(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        ins: &[usize],
        len: &str,
        mode: Mode,
        rowvar: &str,
        coloff: &str,
    ) {
        let deq = self.emit_issue(s, ind, pg, ins, len, mode, rowvar, coloff, ("row0", "nt"));
        self.emit_consume(s, ind, deq, false);
    }

    /// The first half of [`emit_loads`](Self::emit_loads): alloc + DataCopyPad + EnQue of
    /// each input. Whole-row (resident) tiles start at row `tile.0` and hold `tile.1` rows
    /// (C++ names). Returns what [`emit_consume`](Self::emit_consume) dequeues.
    #[allow(clippy::too_many_arguments)]
    fn emit_issue(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        ins: &[usize],
        len: &str,
        mode: Mode,
        rowvar: &str,
        coloff: &str,
        tile: (&str, &str),
    ) -> Vec<(String, String, Dtype, &'static str)> {
        let (row0, nt) = tile;
        let mut deq = Vec::new();
        for &i in ins {
            let (q, f, d) = self.input_bufs(pg, i, len);
            let Op::Input { access, name } = &pg.p.nodes[i].op else {
                continue;
            };
            let ty = cty(d);
            let sz = d.size_bytes();
            w(
                s,
                ind,
                &format!("LocalTensor<{ty}> q_{f} = {q}.AllocTensor<{ty}>();"),
            );
            let pad = format!("DataCopyPadExtParams<{ty}>{{false, 0, 0, {}}}", zero(d));
            match (mode, access) {
                (
                    Mode::Resident,
                    Access::Row {
                        offset,
                        contiguous,
                        run,
                        pitch,
                    },
                ) => {
                    let dst_stride = format!("(P * {sz}u - (C * {sz}u + 31u) / 32u * 32u) / 32u");
                    let src_stride = view_src_stride(pitch.as_deref(), sz);
                    if *contiguous {
                        let off = offset.replace("ROW", row0);
                        w(s, ind, &format!("DataCopyPad(q_{f}, g_{name}[{off}], DataCopyExtParams{{static_cast<uint16_t>({nt}), C * {sz}u, {src_stride}, {dst_stride}, 0}}, {pad});"));
                    } else if let Some(run) = run {
                        // One burst per contiguous run of tensor rows (period `run`).
                        w(s, ind, &format!("for (uint32_t j = 0; j < {nt};) {{"));
                        w(s, ind + 1, &format!("uint32_t rr = {row0} + j;"));
                        w(s, ind + 1, &format!("uint32_t nr = {run} - rr % {run};"));
                        w(s, ind + 1, &format!("if (nr > {nt} - j) nr = {nt} - j;"));
                        let off = offset.replace("ROW", "rr");
                        w(s, ind + 1, &format!("DataCopyPad(q_{f}[j * P], g_{name}[{off}], DataCopyExtParams{{static_cast<uint16_t>(nr), C * {sz}u, {src_stride}, {dst_stride}, 0}}, {pad});"));
                        w(s, ind + 1, "j += nr;");
                        w(s, ind, "}");
                    } else {
                        w(s, ind, &format!("for (uint32_t j = 0; j < {nt}; j++) {{"));
                        let off = offset.replace("ROW", &format!("{row0} + j"));
                        w(s, ind + 1, &format!("DataCopyPad(q_{f}[j * P], g_{name}[{off}], DataCopyExtParams{{1, C * {sz}u, 0, 0, 0}}, {pad});"));
                        w(s, ind, "}");
                    }
                }
                (Mode::Resident, _) => {
                    // Vec input loaded once (offset 0).
                    w(s, ind, &format!("DataCopyPad(q_{f}, g_{name}[0], DataCopyExtParams{{1, C * {sz}u, 0, 0, 0}}, {pad});"));
                }
                (Mode::Chunked, Access::Row { offset, .. }) => {
                    let off = offset.replace("ROW", rowvar);
                    w(s, ind, &format!("DataCopyPad(q_{f}, g_{name}[{off} + {coloff}], DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}}, {pad});"));
                }
                (Mode::Chunked, _) => {
                    w(s, ind, &format!("DataCopyPad(q_{f}, g_{name}[{coloff}], DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}}, {pad});"));
                }
                (Mode::Flat, _) => {
                    w(s, ind, &format!("DataCopyPad(q_{f}, g_{name}[{coloff}], DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}}, {pad});"));
                }
            }
            w(s, ind, &format!("{q}.EnQue(q_{f});"));
            let cnt = match (mode, access) {
                (Mode::Resident, Access::Row { .. }) => "nt * P",
                (Mode::Resident, _) => "P",
                _ => "n",
            };
            deq.push((q, f, d, cnt));
        }
        deq
    }

    /// The second half of [`emit_loads`](Self::emit_loads): DeQue of each input issued by
    /// [`emit_issue`](Self::emit_issue) and its Cast to fp32 (freeing the queue tensor);
    /// fp32 inputs stay in their queue until [`emit_frees`](Self::emit_frees). With
    /// `declare`, the queue tensor's variable is declared here (the issue was in another
    /// scope).
    fn emit_consume(
        &mut self,
        s: &mut String,
        ind: usize,
        deq: Vec<(String, String, Dtype, &'static str)>,
        declare: bool,
    ) {
        for (q, f, d, cnt) in deq {
            let ty = cty(d);
            if d == Dtype::F32 {
                w(
                    s,
                    ind,
                    &format!("LocalTensor<float> {f} = {q}.DeQue<float>();"),
                );
            } else {
                let fb = f.replacen("f_", "fb_", 1);
                let decl = if declare {
                    format!("LocalTensor<{ty}> ")
                } else {
                    String::new()
                };
                w(s, ind, &format!("{decl}q_{f} = {q}.DeQue<{ty}>();"));
                w(
                    s,
                    ind,
                    &format!("LocalTensor<float> {f} = {fb}.Get<float>();"),
                );
                w(
                    s,
                    ind,
                    &format!("Cast({f}, q_{f}, RoundMode::CAST_NONE, {cnt});"),
                );
                w(s, ind, &format!("{q}.FreeTensor(q_{f});"));
            }
        }
    }

    /// Dequeues the [`pending_vecs`](Emitter::pending_vecs) (casting non-fp32 ones into
    /// their fp32 views) in the first tile only.
    fn emit_pending_vecs(&mut self, s: &mut String, ind: usize) {
        if self.pending_vecs.is_empty() {
            return;
        }
        w(s, ind, "if (t0 == 0) {");
        for (q, f, d) in std::mem::take(&mut self.pending_vecs) {
            if d == Dtype::F32 {
                w(s, ind + 1, &format!("{f} = {q}.DeQue<float>();"));
            } else {
                let ty = cty(d);
                w(s, ind + 1, &format!("q_{f} = {q}.DeQue<{ty}>();"));
                w(
                    s,
                    ind + 1,
                    &format!("Cast({f}, q_{f}, RoundMode::CAST_NONE, P);"),
                );
                w(s, ind + 1, &format!("{q}.FreeTensor(q_{f});"));
            }
        }
        w(s, ind, "}");
    }

    /// Frees the fp32 inputs held in queues.
    fn emit_frees(&self, s: &mut String, ind: usize, pg: &Prog, ins: &[usize]) {
        for &i in ins {
            let Op::Input { name, .. } = &pg.p.nodes[i].op else {
                continue;
            };
            if self.in_dtype(name) == Dtype::F32 {
                w(
                    s,
                    ind,
                    &format!("iq_{}{name}.FreeTensor(f_{}{name});", pg.pre, pg.pre),
                );
            }
        }
    }

    /// Emits the scalar code of the non-row node `i`.
    fn emit_scalar(&mut self, s: &mut String, ind: usize, pg: &Prog, i: usize, rowvar: &str) {
        let v = format!("{}s{i}", pg.pre);
        let line = match &pg.p.nodes[i].op {
            Op::Const(_) | Op::RedLast(..) | Op::RedMid { .. } => return,
            Op::Input { name, access } => {
                let d = self.in_dtype(name);
                let off = match access {
                    Access::RowScalar(o) => o.replace("ROW", rowvar),
                    _ => "0".into(),
                };
                format!(
                    "float {v} = {};",
                    to_f(d, &format!("g_{name}.GetValue({off})"))
                )
            }
            Op::Un(u, a) => {
                let x = pg.sv(*a);
                let e = match u {
                    Un::Neg => format!("-({x})"),
                    Un::Exp => format!("expf({x})"),
                    Un::Log => format!("logf({x})"),
                    Un::Sqrt => format!("sqrtf({x})"),
                    Un::Rsqrt => format!("1.0f / sqrtf({x})"),
                    Un::Tanh => format!("tanhf({x})"),
                    Un::Erf => format!("erff({x})"),
                    Un::Sigmoid => format!("1.0f / (1.0f + expf(-({x})))"),
                    Un::Abs => format!("fabsf({x})"),
                };
                format!("float {v} = {e};")
            }
            Op::Bin(b, l, r) => {
                let (x, y) = (pg.sv(*l), pg.sv(*r));
                let e = match b {
                    Bin::Add => format!("{x} + {y}"),
                    Bin::Sub => format!("{x} - {y}"),
                    Bin::Mul => format!("{x} * {y}"),
                    Bin::Div => format!("{x} / {y}"),
                    Bin::Pow => format!("powf({x}, {y})"),
                    Bin::Max => format!("(({x}) != ({x}) || ({x}) > ({y})) ? ({x}) : ({y})"),
                    Bin::Min => format!("(({x}) != ({x}) || ({x}) < ({y})) ? ({x}) : ({y})"),
                    Bin::Cmp(c) => format!("(({x}) {} ({y})) ? 1.0f : 0.0f", c.symbol()),
                };
                format!("float {v} = {e};")
            }
            Op::Where(c, a, b) => format!(
                "float {v} = ({} != 0.0f) ? ({}) : ({});",
                pg.sv(*c),
                pg.sv(*a),
                pg.sv(*b)
            ),
        };
        w(s, ind, &line);
    }

    /// Emits the vector code of the row nodes `set` (in order), given views of the inputs
    /// and accumulators in `views`; adds the view of every computed node. Temporaries are
    /// allocated linearly and reused once their node is dead; `keep` nodes stay alive.
    ///
    /// With `self.compensate` (f32 outputs), sums of rows and shifts of rows by a per-row
    /// scalar carry their exact rounding error (TwoSum) in a second buffer that is folded
    /// back in before any other use, so centring `x + y − mean` loses no precision.
    #[allow(clippy::too_many_arguments)]
    fn emit_rows(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        set: &BTreeSet<usize>,
        keep: &[usize],
        views: &mut HashMap<usize, String>,
    ) -> Result<HashMap<usize, String>, SynthError> {
        self.emit_rows_to(s, ind, pg, set, keep, views, &HashMap::new())
    }

    /// [`emit_rows`](Self::emit_rows) where the nodes in `dest` are computed into the
    /// given views (tile buffers) instead of temporaries, unless they are compensated sums.
    #[allow(clippy::too_many_arguments)]
    fn emit_rows_to(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        set: &BTreeSet<usize>,
        keep: &[usize],
        views: &mut HashMap<usize, String>,
        dest: &HashMap<usize, String>,
    ) -> Result<HashMap<usize, String>, SynthError> {
        let operands = |i: usize| -> Vec<usize> {
            match &pg.p.nodes[i].op {
                Op::Un(_, a) => vec![*a],
                Op::Bin(_, a, b) => vec![*a, *b],
                Op::Where(c, a, b) => vec![*c, *a, *b],
                _ => vec![],
            }
        };
        let mut last: HashMap<usize, usize> = HashMap::new();
        for &i in set {
            for o in operands(i) {
                last.insert(o, i);
            }
        }
        for &k in keep {
            last.insert(k, usize::MAX);
        }
        let mut free: Vec<usize> = Vec::new();
        let mut used = 0usize;
        let mut alloc = |free: &mut Vec<usize>| -> usize {
            if let Some(t) = free.pop() {
                t
            } else {
                used += 1;
                used - 1
            }
        };
        let mut owner: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut lo: HashMap<usize, String> = HashMap::new();
        for &i in set {
            if views.contains_key(&i) {
                continue;
            }
            let ops = operands(i);
            if ops.is_empty() {
                return Err(self.fail("internal: a row node without a view"));
            }
            let row = |j: usize| pg.level(j) == Level::Row;
            // Compensated sums: row ± row (TwoSum), when a use can cancel the sum (another
            // sum or shift, a sum or mean over the row). Any other use folds the error
            // term straight back in, and round(hi + lo) = hi: the error would be wasted.
            let comp = self.compensate
                && match &pg.p.nodes[i].op {
                    Op::Bin(Bin::Add | Bin::Sub, a, b) => row(*a) && row(*b),
                    _ => false,
                }
                && pg.p.nodes.iter().any(|u| match &u.op {
                    Op::Bin(Bin::Add | Bin::Sub, a, b) => *a == i || *b == i,
                    Op::RedLast(ReduceOp::Sum | ReduceOp::Mean, a) => *a == i,
                    _ => false,
                });
            // Row ± per-row scalar (a shift by a mean): `x + c` first (exact when x and -c
            // are within a factor of two, else its rounding is relative to the result),
            // then x's own error term and the scalar's low part, so a centring
            // `x − mean` keeps the precision TwoSum would, in at most three instructions.
            let shift_of = match &pg.p.nodes[i].op {
                Op::Bin(b @ (Bin::Add | Bin::Sub), a, c)
                    if self.compensate && row(*a) && pg.level(*c) == Level::RowScalar =>
                {
                    Some((*b == Bin::Sub, *a, *c))
                }
                _ => None,
            };
            // Fold the error terms of the operands in (in place) unless this is a sum.
            if !comp {
                for &o in &ops {
                    if shift_of.is_some_and(|(_, x, _)| x == o) {
                        continue;
                    }
                    if let Some(l) = lo.remove(&o) {
                        let h = &views[&o];
                        w(s, ind, &format!("Add({h}, {h}, {l}, n);"));
                    }
                }
            }
            // A wide operation reading a one-row vector operand with repeat stride 0 must
            // not overwrite it in place (row 0's result would be read by row 1).
            let wide_vec_operand = self.wide
                && !vecish(pg, i)
                && ops
                    .iter()
                    .any(|&o| pg.level(o) == Level::Row && vecish(pg, o));
            let hl = comp
                || wide_vec_operand
                || matches!(
                    pg.p.nodes[i].op,
                    Op::Un(Un::Tanh | Un::Erf | Un::Sigmoid, _)
                        | Op::Where(..)
                        | Op::Bin(Bin::Cmp(_), ..)
                );
            let dying: Vec<usize> = ops
                .iter()
                .filter(|o| last.get(o) == Some(&i))
                .flat_map(|o| owner.get(o).cloned().unwrap_or_default())
                .collect();
            let mut dying: Vec<usize> = dying;
            dying.dedup();
            let into = dest.get(&i).filter(|_| !comp).cloned();
            let (d, mut mine) = if let Some(v) = into {
                (v, Vec::new())
            } else {
                let t = if !hl && !dying.is_empty() {
                    dying.remove(0)
                } else {
                    alloc(&mut free)
                };
                (format!("tmp{t}"), vec![t])
            };
            if comp {
                let tl = alloc(&mut free);
                let tb = alloc(&mut free);
                let (l, bb) = (format!("tmp{tl}"), format!("tmp{tb}"));
                let Op::Bin(b, x, y) = &pg.p.nodes[i].op else {
                    unreachable!()
                };
                let a = views[x].clone();
                let sub = *b == Bin::Sub;
                if row(*y) {
                    let bv = views[y].clone();
                    let f = if sub { "Sub" } else { "Add" };
                    w(s, ind, &format!("{f}({d}, {a}, {bv}, n);"));
                    w(s, ind, &format!("Sub({bb}, {d}, {a}, n);"));
                    w(s, ind, &format!("Sub({l}, {d}, {bb}, n);"));
                    w(s, ind, &format!("Sub({l}, {a}, {l}, n);"));
                    if sub {
                        w(s, ind, &format!("Add({bb}, {bv}, {bb}, n);"));
                        w(s, ind, &format!("Sub({l}, {l}, {bb}, n);"));
                    } else {
                        w(s, ind, &format!("Sub({bb}, {bv}, {bb}, n);"));
                        w(s, ind, &format!("Add({l}, {l}, {bb}, n);"));
                    }
                    if let Some(yl) = lo.get(y) {
                        w(s, ind, &format!("{f}({l}, {l}, {yl}, n);"));
                    }
                } else {
                    let c = pg.sv(*y);
                    let c = if sub { format!("-({c})") } else { c };
                    w(s, ind, &format!("Adds({d}, {a}, {c}, n);"));
                    w(s, ind, &format!("Sub({bb}, {d}, {a}, n);"));
                    w(s, ind, &format!("Sub({l}, {d}, {bb}, n);"));
                    w(s, ind, &format!("Sub({l}, {a}, {l}, n);"));
                    w(s, ind, &format!("Muls({bb}, {bb}, -1.0f, n);"));
                    w(s, ind, &format!("Adds({bb}, {bb}, {c}, n);"));
                    w(s, ind, &format!("Add({l}, {l}, {bb}, n);"));
                    if self.scalar_lo.contains(y) {
                        let sl = if sub {
                            format!("-s{y}_lo")
                        } else {
                            format!("s{y}_lo")
                        };
                        w(s, ind, &format!("Adds({l}, {l}, {sl}, n);"));
                    }
                }
                if let Some(xl) = lo.get(x) {
                    w(s, ind, &format!("Add({l}, {l}, {xl}, n);"));
                }
                free.push(tb);
                mine.push(tl);
                lo.insert(i, l);
            } else {
                self.emit_row_op(s, ind, pg, i, &d, views)?;
                if let Some((sub, x, c)) = shift_of {
                    if let Some(xl) = lo.get(&x) {
                        w(s, ind, &format!("Add({d}, {d}, {xl}, n);"));
                    }
                    if self.scalar_lo.contains(&c) {
                        let sl = if sub {
                            format!("-s{c}_lo")
                        } else {
                            format!("s{c}_lo")
                        };
                        w(s, ind, &format!("Adds({d}, {d}, {sl}, n);"));
                    }
                }
            }
            views.insert(i, d);
            owner.insert(i, mine.clone());
            free.extend(dying.iter().copied().filter(|x| !mine.contains(x)));
            for &o in &ops {
                if last.get(&o) == Some(&i) {
                    lo.remove(&o);
                    for tt in owner.get(&o).cloned().unwrap_or_default() {
                        if !mine.contains(&tt) && !free.contains(&tt) {
                            free.push(tt);
                        }
                    }
                }
            }
        }
        // Roots leave with their error terms (the caller folds or reduces them).
        let mut out = HashMap::new();
        for &k in keep {
            if let Some(l) = lo.remove(&k) {
                out.insert(k, l);
            }
        }
        self.ntemps = self.ntemps.max(used);
        Ok(out)
    }

    /// A row operation of the wide body ([`RowStats::Wide`]) that one count-form instruction
    /// over the whole tile (`n = nt · P`) cannot do. A node the same for every row (from
    /// `[C]` vectors and uniform values, [`vecish`]) is computed over one row (`n = C`). A
    /// full row against a per-row value (its `Brcb` broadcast `bcb{j}`, one 32-byte block
    /// per row) or against such a vector is one masked instruction per 64-column group
    /// with repeat = row (`WideBin`). None: the ordinary count-form code does it.
    fn emit_wide_op(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        i: usize,
        d: &str,
        views: &HashMap<usize, String>,
    ) -> Result<Option<()>, SynthError> {
        if vecish(pg, i) {
            w(s, ind, "{");
            w(s, ind + 1, "const uint32_t n = C;");
            self.wide = false;
            let r = self.emit_row_op(s, ind + 1, pg, i, d, views);
            self.wide = true;
            r?;
            w(s, ind, "}");
            return Ok(Some(()));
        }
        let Op::Bin(b, l, r) = &pg.p.nodes[i].op else {
            return Ok(None);
        };
        let mode = |j: usize| match pg.level(j) {
            Level::RowScalar => Some(1u32),
            Level::Row if vecish(pg, j) => Some(2),
            Level::Row => Some(0),
            Level::Uniform => None,
        };
        let (Some(ml), Some(mr)) = (mode(*l), mode(*r)) else {
            return Ok(None);
        };
        if ml == 0 && mr == 0 {
            return Ok(None);
        }
        // A row divided by a per-row value is multiplied by its broadcast reciprocal.
        if *b == Bin::Div && mr == 1 {
            let x = views.get(l).cloned().unwrap_or_default();
            w(
                s,
                ind,
                &format!("WideBin(2, {d}, {x}, {ml}, brb{r}, 1, nt);"),
            );
            return Ok(Some(()));
        }
        let k = match b {
            Bin::Add => 0,
            Bin::Sub => 1,
            Bin::Mul => 2,
            Bin::Div => 3,
            Bin::Max => 4,
            Bin::Min => 5,
            Bin::Pow | Bin::Cmp(_) => {
                return Err(self.fail("internal: a wide operation the wide check excludes"))
            }
        };
        let view = |j: usize, m: u32| {
            if m == 1 {
                format!("bcb{j}")
            } else {
                views.get(&j).cloned().unwrap_or_default()
            }
        };
        w(
            s,
            ind,
            &format!(
                "WideBin({k}, {d}, {}, {ml}, {}, {mr}, nt);",
                view(*l, ml),
                view(*r, mr)
            ),
        );
        Ok(Some(()))
    }

    fn emit_row_op(
        &mut self,
        s: &mut String,
        ind: usize,
        pg: &Prog,
        i: usize,
        d: &str,
        views: &HashMap<usize, String>,
    ) -> Result<(), SynthError> {
        let sv = self.scalar_vec;
        let row = |j: usize| pg.level(j) == Level::Row || (sv && pg.level(j) == Level::RowScalar);
        let v = |j: usize| views.get(&j).cloned().unwrap_or_default();
        if self.wide && !sv && pg.level(i) == Level::Row {
            if let Some(done) = self.emit_wide_op(s, ind, pg, i, d, views)? {
                return Ok(done);
            }
        }
        match &pg.p.nodes[i].op {
            Op::Un(u, a) => {
                let x = v(*a);
                match u {
                    Un::Neg => w(s, ind, &format!("Muls({d}, {x}, -1.0f, n);")),
                    Un::Exp => w(s, ind, &format!("Exp({d}, {x}, n);")),
                    Un::Log => w(s, ind, &format!("Ln({d}, {x}, n);")),
                    Un::Sqrt => w(s, ind, &format!("Sqrt({d}, {x}, n);")),
                    Un::Abs => w(s, ind, &format!("Abs({d}, {x}, n);")),
                    Un::Rsqrt => {
                        w(s, ind, &format!("Sqrt({d}, {x}, n);"));
                        w(s, ind, &format!("Reciprocal({d}, {d}, n);"));
                    }
                    Un::Tanh => w(s, ind, &format!("Tanh({d}, {x}, n);")),
                    Un::Erf => w(s, ind, &format!("Erf({d}, {x}, n);")),
                    Un::Sigmoid => w(s, ind, &format!("Sigmoid({d}, {x}, n);")),
                }
            }
            Op::Bin(b, l, r) => {
                let (l, r) = (*l, *r);
                match (row(l), row(r)) {
                    (true, true) => {
                        let (x, y) = (v(l), v(r));
                        let f = match b {
                            Bin::Add => "Add",
                            Bin::Sub => "Sub",
                            Bin::Mul => "Mul",
                            Bin::Div => "Div",
                            Bin::Max => "Max",
                            Bin::Min => "Min",
                            Bin::Pow => "Power",
                            Bin::Cmp(c) => {
                                self.uses_mask = true;
                                w(
                                    s,
                                    ind,
                                    &format!(
                                        "Compare(maskb, {x}, {y}, {}, n64);",
                                        cmp_mode(*c, false)
                                    ),
                                );
                                w(s, ind, &format!("Duplicate({d}, 1.0f, n);"));
                                w(s, ind, &format!("Select({d}, maskb, {d}, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);"));
                                return Ok(());
                            }
                        };
                        w(s, ind, &format!("{f}({d}, {x}, {y}, n);"));
                    }
                    (true, false) => {
                        let (x, c) = (v(l), pg.sv(r));
                        match b {
                            Bin::Add => w(s, ind, &format!("Adds({d}, {x}, {c}, n);")),
                            Bin::Sub => w(s, ind, &format!("Adds({d}, {x}, -({c}), n);")),
                            Bin::Mul => w(s, ind, &format!("Muls({d}, {x}, {c}, n);")),
                            Bin::Div => w(s, ind, &format!("Muls({d}, {x}, 1.0f / ({c}), n);")),
                            Bin::Max => w(s, ind, &format!("Maxs({d}, {x}, {c}, n);")),
                            Bin::Min => w(s, ind, &format!("Mins({d}, {x}, {c}, n);")),
                            Bin::Pow => match &pg.p.nodes[r].op {
                                Op::Const(e) if *e == 2.0 => {
                                    w(s, ind, &format!("Mul({d}, {x}, {x}, n);"))
                                }
                                Op::Const(e) if *e == 0.5 => {
                                    w(s, ind, &format!("Sqrt({d}, {x}, n);"))
                                }
                                Op::Const(e) if *e == 1.0 => {
                                    w(s, ind, &format!("Muls({d}, {x}, 1.0f, n);"))
                                }
                                _ => w(
                                    s,
                                    ind,
                                    &format!("Power({d}, {x}, static_cast<float>({c}), n);"),
                                ),
                            },
                            Bin::Cmp(cm) => {
                                self.uses_mask = true;
                                w(s, ind, &format!("CompareScalar(maskb, {x}, static_cast<float>({c}), {}, n64);", cmp_mode(*cm, false)));
                                w(s, ind, &format!("Duplicate({d}, 1.0f, n);"));
                                w(s, ind, &format!("Select({d}, maskb, {d}, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);"));
                            }
                        }
                    }
                    (false, true) => {
                        let (c, y) = (pg.sv(l), v(r));
                        match b {
                            Bin::Add => w(s, ind, &format!("Adds({d}, {y}, {c}, n);")),
                            Bin::Sub => {
                                w(s, ind, &format!("Muls({d}, {y}, -1.0f, n);"));
                                w(s, ind, &format!("Adds({d}, {d}, {c}, n);"));
                            }
                            Bin::Mul => w(s, ind, &format!("Muls({d}, {y}, {c}, n);")),
                            Bin::Div => {
                                w(s, ind, &format!("Reciprocal({d}, {y}, n);"));
                                w(s, ind, &format!("Muls({d}, {d}, {c}, n);"));
                            }
                            Bin::Max => w(s, ind, &format!("Maxs({d}, {y}, {c}, n);")),
                            Bin::Min => w(s, ind, &format!("Mins({d}, {y}, {c}, n);")),
                            Bin::Pow => w(
                                s,
                                ind,
                                &format!("Power({d}, static_cast<float>({c}), {y}, n);"),
                            ),
                            Bin::Cmp(cm) => {
                                self.uses_mask = true;
                                w(s, ind, &format!("CompareScalar(maskb, {y}, static_cast<float>({c}), {}, n64);", cmp_mode(*cm, true)));
                                w(s, ind, &format!("Duplicate({d}, 1.0f, n);"));
                                w(s, ind, &format!("Select({d}, maskb, {d}, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);"));
                            }
                        }
                    }
                    (false, false) => return Err(self.fail("internal: scalar node as a row")),
                }
            }
            Op::Where(c, a, b) => {
                let (c, a, b) = (*c, *a, *b);
                if row(c) {
                    self.uses_mask = true;
                    w(
                        s,
                        ind,
                        &format!("CompareScalar(maskb, {}, 0.0f, CMPMODE::NE, n64);", v(c)),
                    );
                    match (row(a), row(b)) {
                        (true, true) => w(s, ind, &format!("Select({d}, maskb, {}, {}, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);", v(a), v(b))),
                        (true, false) => w(s, ind, &format!("Select({d}, maskb, {}, static_cast<float>({}), SELMODE::VSEL_TENSOR_SCALAR_MODE, n);", v(a), pg.sv(b))),
                        (false, true) => {
                            // Invert the mask: select b where cond == 0.
                            w(s, ind, &format!("CompareScalar(maskb, {}, 0.0f, CMPMODE::EQ, n64);", v(c)));
                            w(s, ind, &format!("Select({d}, maskb, {}, static_cast<float>({}), SELMODE::VSEL_TENSOR_SCALAR_MODE, n);", v(b), pg.sv(a)));
                        }
                        (false, false) => {
                            w(s, ind, &format!("Duplicate({d}, static_cast<float>({}), n);", pg.sv(a)));
                            w(s, ind, &format!("Select({d}, maskb, {d}, static_cast<float>({}), SELMODE::VSEL_TENSOR_SCALAR_MODE, n);", pg.sv(b)));
                        }
                    }
                } else {
                    let cs = pg.sv(c);
                    let fill = |j: usize| -> String {
                        if row(j) {
                            format!("Muls({d}, {}, 1.0f, n);", v(j))
                        } else {
                            format!("Duplicate({d}, static_cast<float>({}), n);", pg.sv(j))
                        }
                    };
                    w(
                        s,
                        ind,
                        &format!(
                            "if (({cs}) != 0.0f) {{ {} }} else {{ {} }}",
                            fill(a),
                            fill(b)
                        ),
                    );
                }
            }
            _ => return Err(self.fail("internal: unexpected row node")),
        }
        Ok(())
    }

    /// Emits a last-axis reduction of the row view `x` over `n` elements. Means are shifted
    /// by the row's first element `k` (`mean(x) = k + sum(x − k)/C`), so rows with a large
    /// common offset lose no precision in fp32. Sets the scalar `acc` (`first`) or
    /// accumulates into it (later chunks).
    #[allow(clippy::too_many_arguments)]
    fn emit_reduce(
        &mut self,
        s: &mut String,
        ind: usize,
        op: ReduceOp,
        x: &str,
        acc: &str,
        kvar: &str,
        first: bool,
    ) {
        self.uses_reduce = true;
        let f = match op {
            ReduceOp::Sum | ReduceOp::Mean => "ReduceSum",
            ReduceOp::Max => "ReduceMax",
            ReduceOp::Min => "ReduceMin",
        };
        let src = if op == ReduceOp::Mean {
            self.uses_shift = true;
            if first {
                w(s, ind, &format!("{kvar} = {x}.GetValue(0);"));
            }
            w(s, ind, &format!("Adds(shiftb, {x}, -{kvar}, n);"));
            "shiftb".to_string()
        } else {
            x.to_string()
        };
        let _ = f;
        // A shifted copy is folded in place; anything else through the fold scratch.
        let scr = if src == "shiftb" { "shiftb" } else { "rfoldb" };
        w(
            s,
            ind,
            &format!(
                "RowReduce(redb, {src}, {scr}, static_cast<uint32_t>(n), {});",
                reduce_kind(op)
            ),
        );
        let val = "redb.GetValue(0)";
        if first {
            w(s, ind, &format!("{acc} = {val};"));
        } else {
            match op {
                ReduceOp::Sum | ReduceOp::Mean => w(s, ind, &format!("{acc} += {val};")),
                ReduceOp::Max => w(
                    s,
                    ind,
                    &format!("{{ float v_ = {val}; if (v_ > {acc} || v_ != v_) {acc} = v_; }}"),
                ),
                ReduceOp::Min => w(
                    s,
                    ind,
                    &format!("{{ float v_ = {val}; if (v_ < {acc} || v_ != v_) {acc} = v_; }}"),
                ),
            }
        }
    }
}

/// Declares `s{i}` (and, for compensated means, its error `s{i}_lo`) from the reduction's
/// accumulators `a{i}` (shifted sum or max/min), `b{i}` (sum of error terms), `k{i}` (shift).
fn emit_reduce_final(
    e: &mut Emitter,
    s: &mut String,
    ind: usize,
    i: usize,
    op: ReduceOp,
    has_lo: bool,
) {
    if has_lo && op == ReduceOp::Mean {
        w(
            s,
            ind,
            &format!("float t{i} = (a{i} + b{i}) / static_cast<float>(C);"),
        );
        w(s, ind, &format!("float s{i} = k{i} + t{i};"));
        w(s, ind, &format!("float v{i} = s{i} - k{i};"));
        w(
            s,
            ind,
            &format!("float s{i}_lo = (k{i} - (s{i} - v{i})) + (t{i} - v{i});"),
        );
        e.scalar_lo.insert(i);
    } else if has_lo {
        w(
            s,
            ind,
            &format!("float s{i} = k{i} * static_cast<float>(C) + (a{i} + b{i});"),
        );
    } else {
        w(
            s,
            ind,
            &format!(
                "float s{i} = {};",
                reduce_final(op, &format!("a{i}"), &format!("k{i}"))
            ),
        );
    }
}

/// `RowReduce`'s / `TileReduce`'s kind of a reduction: 0 sum (and mean), 1 max, 2 min.
fn reduce_kind(op: ReduceOp) -> u8 {
    match op {
        ReduceOp::Sum | ReduceOp::Mean => 0,
        ReduceOp::Max => 1,
        ReduceOp::Min => 2,
    }
}

/// The final value of a reduction from its accumulator `a` and shift `k`.
fn reduce_final(op: ReduceOp, a: &str, k: &str) -> String {
    match op {
        ReduceOp::Mean => format!("{k} + {a} / static_cast<float>(C)"),
        ReduceOp::Sum => a.to_string(),
        _ => a.to_string(),
    }
}

fn out_bufs(e: &mut Emitter, mode: Mode) {
    for (name, d, node) in &e.lw.outputs {
        let lvl = e.lw.prog.nodes[*node].level;
        let sz = d.size_bytes();
        let len = if lvl == Level::Row || full_output(e, name) {
            "LIN".to_string()
        } else if mode == Mode::Resident {
            "T + 32".to_string()
        } else {
            "32".to_string()
        };
        let decl = format!("TQue<TPosition::VECOUT, {}>", queue_depth(e.params));
        e.add_buf(format!("oq_{name}"), decl, "BN", format!("({len}) * {sz}"));
    }
}

/// True when the output has a full row per domain row (rank = domain rank, last = cols).
fn full_output(e: &Emitter, name: &str) -> bool {
    if e.lw.out_views.iter().any(|v| v.name == name) {
        return true;
    }
    let Some(o) = e.op.output(name) else {
        return false;
    };
    let s = &o.decl.shape;
    s.rank() == e.lw.prog.lead.len() + 1
        && s.dims.last() == Some(&e.lw.prog.cols)
        && e.lw.prog.cols != Dim::Fixed(1)
}

/// Emits the body of one domain row (resident or chunked).
fn emit_row_body(
    e: &mut Emitter,
    s: &mut String,
    ind: usize,
    mode: Mode,
) -> Result<(), SynthError> {
    let lw = e.lw;
    let pg = Prog::new(&lw.prog, "");
    let n_nodes = lw.prog.nodes.len();
    let max_red = (0..n_nodes)
        .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)))
        .map(|i| pg.stage[i])
        .max()
        .unwrap_or(0);
    let final_pass = max_red + 1;
    // Stage-0 scalars.
    emit_scalars_of_stage(e, s, ind, &pg, 0, "r");
    // Leading-axis reductions (resident only).
    let mut acc_views: HashMap<usize, String> = HashMap::new();
    for i in 0..n_nodes {
        if let Op::RedMid {
            op,
            sub,
            count,
            inner,
        } = &lw.prog.nodes[i].op
        {
            if mode != Mode::Resident {
                return Err(e.fail("internal: leading-axis reduction in chunked mode"));
            }
            let row_level = lw.prog.nodes[i].level == Level::Row;
            let init = match op {
                ReduceOp::Max => "(-INFINITY)",
                ReduceOp::Min => "INFINITY",
                _ => "0.0f",
            };
            let acc = format!("acc{i}");
            if row_level {
                e.add_buf(
                    format!("accb{i}"),
                    "TBuf<TPosition::VECCALC>",
                    "1",
                    "(P + 64) * 4".into(),
                );
                w(
                    s,
                    ind,
                    &format!("LocalTensor<float> {acc} = accb{i}.Get<float>();"),
                );
                w(s, ind, &format!("Duplicate({acc}, {init}, n);"));
            } else {
                w(s, ind, &format!("float s{i} = {init};"));
            }
            let count_k = count.clone();
            w(
                s,
                ind,
                &format!("for (uint32_t k = 0; k < {count_k}; k++) {{"),
            );
            let sind = ind + 1;
            w(
                s,
                sind,
                &format!("uint32_t rm = ((r / {inner}) * {count_k} + k) * {inner} + r % {inner};"),
            );
            let spg = Prog::new(sub, &format!("m{i}_"));
            // Sub-program scalars (all stage 0).
            for j in 0..sub.nodes.len() {
                if sub.nodes[j].level != Level::Row {
                    e.emit_scalar(s, sind, &spg, j, "rm");
                }
            }
            if sub.nodes[sub.root].level == Level::Row {
                let set = spg.closure(&[sub.root]);
                let ins = spg.inputs_of(&set);
                e.emit_loads(s, sind, &spg, &ins, "P + 64", Mode::Chunked, "rm", "0u");
                let mut views = HashMap::new();
                for &j in &ins {
                    let Op::Input { name, .. } = &sub.nodes[j].op else {
                        continue;
                    };
                    views.insert(j, format!("f_{}{name}", spg.pre));
                }
                let los = e.emit_rows(s, sind, &spg, &set, &[sub.root], &mut views)?;
                let x = views[&sub.root].clone();
                if let Some(l) = los.get(&sub.root) {
                    w(s, sind, &format!("Add({x}, {x}, {l}, n);"));
                }
                if row_level {
                    let f = match op {
                        ReduceOp::Max => "Max",
                        ReduceOp::Min => "Min",
                        _ => "Add",
                    };
                    w(s, sind, &format!("{f}({acc}, {acc}, {x}, n);"));
                } else {
                    return Err(e.fail("a leading-axis reduction of rows into a per-row scalar"));
                }
                e.emit_frees(s, sind, &spg, &ins);
            } else {
                let x = spg.sv(sub.root);
                let lhs = format!("s{i}");
                match op {
                    ReduceOp::Max => w(s, sind, &format!("if ({x} > {lhs}) {lhs} = {x};")),
                    ReduceOp::Min => w(s, sind, &format!("if ({x} < {lhs}) {lhs} = {x};")),
                    _ => w(s, sind, &format!("{lhs} += {x};")),
                }
                if row_level {
                    return Err(e.fail("a leading-axis reduction of scalars into a row"));
                }
            }
            w(s, ind, "}");
            if *op == ReduceOp::Mean {
                if row_level {
                    w(
                        s,
                        ind,
                        &format!("Muls({acc}, {acc}, 1.0f / static_cast<float>({count_k}), n);"),
                    );
                } else {
                    w(
                        s,
                        ind,
                        &format!("s{i} = s{i} / static_cast<float>({count_k});"),
                    );
                }
            }
            if row_level {
                acc_views.insert(i, acc);
            }
        }
    }
    // Scalars that depend only on leading-axis reductions (stage 0, emitted after them).
    emit_scalars_after_mid(e, s, ind, &pg);
    let input_view = |pg: &Prog, j: usize, mode: Mode| -> Option<String> {
        if let Op::Input { name, access } = &pg.p.nodes[j].op {
            match (mode, access) {
                (Mode::Resident, Access::Row { .. }) => Some(format!("f_{name}[o]")),
                (_, Access::Row { .. } | Access::Vec) => Some(format!("f_{name}")),
                _ => None,
            }
        } else {
            None
        }
    };
    // Chunked rows: `sum(exp(w − max(w)))` is accumulated online in the max's pass (one
    // pass over GM and one split round fewer).
    let fused: Vec<(usize, usize)> = if mode == Mode::Chunked {
        online_pairs(&pg)
    } else {
        Vec::new()
    };
    for pass in 1..=final_pass {
        let reds: Vec<usize> = (0..n_nodes)
            .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)) && pg.stage[i] == pass)
            .collect();
        // The reductions this pass's loop computes itself, and the online sums it carries.
        let own: Vec<usize> = reds
            .iter()
            .copied()
            .filter(|&i| !fused.iter().any(|&(_, t)| t == i))
            .collect();
        let carried: Vec<(usize, usize)> = fused
            .iter()
            .copied()
            .filter(|&(m, _)| own.contains(&m))
            .collect();
        let roots = level_roots(lw, &own, pass == final_pass, &[]);
        // A pass whose reductions were all carried by the previous one reads nothing, nor
        // does a last pass with no full-row output (logsumexp).
        let skip = mode == Mode::Chunked
            && if pass < final_pass {
                own.is_empty()
            } else {
                roots.is_empty()
            };
        let set = pg.closure(&roots);
        let ins: Vec<usize> = pg.inputs_of(&set);
        let mut views: HashMap<usize, String> = acc_views.clone();
        for &j in &ins {
            if let Some(v) = input_view(&pg, j, mode) {
                views.insert(j, v);
            }
        }
        let mut ind2 = ind;
        if skip {
            if pass < final_pass {
                for &i in &reds {
                    emit_reduce_final(e, s, ind, i, ReduceOp::Sum, false);
                }
                emit_scalars_of_stage(e, s, ind, &pg, pass, "r");
            }
            continue;
        }
        // The copy-in of the chunk at column `at` (C++), in a block opened by `open`.
        let issue_at = |e: &mut Emitter, s: &mut String, ind: usize, open: &str, at: &str| {
            w(s, ind, open);
            w(s, ind + 1, &format!("const uint32_t offN = {at};"));
            w(s, ind + 1, "{");
            w(s, ind + 2, "const uint32_t off = offN;");
            w(
                s,
                ind + 2,
                "const uint32_t n = (c1 - off < K) ? (c1 - off) : K;",
            );
            let _ = e.emit_issue(
                s,
                ind + 2,
                &pg,
                &ins,
                "LIN",
                Mode::Chunked,
                "r",
                "off",
                ("r", "1u"),
            );
            w(s, ind + 1, "}");
            w(s, ind, "}");
        };
        if mode == Mode::Chunked {
            for i in own.iter().copied().chain(carried.iter().map(|&(_, t)| t)) {
                w(
                    s,
                    ind,
                    &format!("float a{i} = 0.0f, k{i} = 0.0f, b{i} = 0.0f;"),
                );
                w(s, ind, &format!("(void)k{i}; (void)b{i};"));
            }
            // Chunks are prefetched: chunk k+1's copy-in is issued before chunk k's
            // compute (with one buffer per queue, right after chunk k frees it), so MTE2
            // overlaps the vector work and the reductions' scalar reads.
            if !ins.is_empty() {
                issue_at(e, s, ind, "if (c0 < c1) {", "c0");
            }
            w(s, ind, "for (uint32_t off = c0; off < c1; off += K) {");
            ind2 = ind + 1;
            w(s, ind2, "uint32_t n = (c1 - off < K) ? (c1 - off) : K;");
            w(s, ind2, "uint32_t n64 = (n + 63u) / 64u * 64u;");
            w(s, ind2, "(void)n64;");
            if !ins.is_empty() {
                issue_at(e, s, ind2, "if (BN > 1 && K < c1 - off) {", "off + K");
                let mut probe = String::new();
                let deq = e.emit_issue(
                    &mut probe,
                    ind2,
                    &pg,
                    &ins,
                    "LIN",
                    Mode::Chunked,
                    "r",
                    "off",
                    ("r", "1u"),
                );
                e.emit_consume(s, ind2, deq, true);
            }
        }
        let mut los = HashMap::new();
        if !set.is_empty() || !roots.is_empty() {
            los = e.emit_rows(s, ind2, &pg, &set, &roots, &mut views)?;
        }
        if pass < final_pass {
            for &i in &own {
                let Op::RedLast(op, a) = &lw.prog.nodes[i].op else {
                    continue;
                };
                let x = views[a].clone();
                let lo_view = los.get(a).cloned();
                let summing = matches!(op, ReduceOp::Sum | ReduceOp::Mean);
                if let (Some(l), false) = (&lo_view, summing) {
                    w(s, ind2, &format!("Add({x}, {x}, {l}, n);"));
                }
                if carried.iter().any(|&(m, _)| m == i) {
                    w(s, ind2, &format!("const float pm{i} = a{i};"));
                    w(s, ind2, &format!("(void)pm{i};"));
                }
                if mode == Mode::Chunked {
                    w(s, ind2, "if (off == c0) {");
                    e.emit_reduce(
                        s,
                        ind2 + 1,
                        *op,
                        &x,
                        &format!("a{i}"),
                        &format!("k{i}"),
                        true,
                    );
                    w(s, ind2, "} else {");
                    e.emit_reduce(
                        s,
                        ind2 + 1,
                        *op,
                        &x,
                        &format!("a{i}"),
                        &format!("k{i}"),
                        false,
                    );
                    w(s, ind2, "}");
                } else {
                    w(
                        s,
                        ind2,
                        &format!("float a{i} = 0.0f, k{i} = 0.0f, b{i} = 0.0f;"),
                    );
                    w(s, ind2, &format!("(void)k{i}; (void)b{i};"));
                    e.emit_reduce(s, ind2, *op, &x, &format!("a{i}"), &format!("k{i}"), true);
                }
                if let (Some(l), true) = (&lo_view, summing) {
                    w(
                        s,
                        ind2,
                        &format!("RowReduce(redb, {l}, rfoldb, static_cast<uint32_t>(n), 0);"),
                    );
                    w(s, ind2, &format!("b{i} += redb.GetValue(0);"));
                }
                if mode != Mode::Chunked {
                    emit_reduce_final(e, s, ind2, i, *op, lo_view.is_some() && summing);
                }
            }
            // The online sums: this chunk's Σ exp(w − m) at the running max m, and the
            // earlier chunks' sum rescaled by exp(m_before − m).
            for &(m, t) in &carried {
                let Op::RedLast(_, wv) = &lw.prog.nodes[m].op else {
                    continue;
                };
                let x = views[wv].clone();
                e.uses_reduce = true;
                e.add_buf(
                    "fubuf0".into(),
                    "TBuf<TPosition::VECCALC>",
                    "1",
                    "(R != 0 ? 8 : TL) * 4".into(),
                );
                w(s, ind2, &format!("Adds(fub0, {x}, -a{m}, n);"));
                w(s, ind2, "Exp(fub0, fub0, n);");
                w(
                    s,
                    ind2,
                    "RowReduce(redb, fub0, fub0, static_cast<uint32_t>(n), 0);",
                );
                w(s, ind2, &format!("if (off == c0) a{t} = redb.GetValue(0); else a{t} = a{t} * expf(pm{m} - a{m}) + redb.GetValue(0);"));
            }
        } else {
            // Row outputs.
            for (name, d, node) in &lw.outputs {
                if !full_output(e, name) {
                    continue;
                }
                let dst = if mode == Mode::Resident {
                    format!("o_{name}[o]")
                } else {
                    w(
                        s,
                        ind2,
                        &format!(
                            "LocalTensor<{}> o_{name} = oq_{name}.AllocTensor<{}>();",
                            cty(*d),
                            cty(*d)
                        ),
                    );
                    format!("o_{name}")
                };
                if let Some(l) = los.get(node) {
                    let h = &views[node];
                    w(s, ind2, &format!("Add({h}, {h}, {l}, n);"));
                }
                emit_store(s, ind2, &pg, *node, &views, &dst, *d);
                if mode == Mode::Chunked {
                    let sz = d.size_bytes();
                    w(s, ind2, &format!("oq_{name}.EnQue(o_{name});"));
                    w(
                        s,
                        ind2,
                        &format!("o_{name} = oq_{name}.DeQue<{}>();", cty(*d)),
                    );
                    let pitch = lw.out_pitch(e.op, name).unwrap_or_else(|| "C".into());
                    w(s, ind2, &format!("DataCopyPad(g_{name}[r * {pitch} + off], o_{name}, DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}});"));
                    w(s, ind2, &format!("oq_{name}.FreeTensor(o_{name});"));
                }
            }
        }
        if mode == Mode::Chunked {
            e.emit_frees(s, ind2, &pg, &ins);
            if !ins.is_empty() {
                issue_at(e, s, ind2, "if (BN == 1 && K < c1 - off) {", "off + K");
            }
            w(s, ind, "}");
            if !own.is_empty() {
                emit_split_combine(e, s, ind, &own, &carried, pass)?;
            }
            for &i in &reds {
                let Op::RedLast(op, a) = &lw.prog.nodes[i].op else {
                    continue;
                };
                let has_lo = los.contains_key(a) && matches!(op, ReduceOp::Sum | ReduceOp::Mean);
                emit_reduce_final(e, s, ind, i, *op, has_lo);
            }
        }
        if pass < final_pass {
            emit_scalars_of_stage(e, s, ind, &pg, pass, "r");
        }
    }
    // Per-row scalar outputs.
    for (name, d, node) in &lw.outputs {
        if full_output(e, name) {
            continue;
        }
        let val = pg.sv(*node);
        if mode == Mode::Resident {
            w(
                s,
                ind,
                &format!("o_{name}.SetValue(j, {});", from_f(*d, &val)),
            );
        } else {
            let ty = cty(*d);
            let sz = d.size_bytes();
            // A split row's value is written by its first part only.
            w(s, ind, "if (part == 0) {");
            let ind = ind + 1;
            w(
                s,
                ind,
                &format!("LocalTensor<{ty}> o_{name} = oq_{name}.AllocTensor<{ty}>();"),
            );
            w(
                s,
                ind,
                &format!("o_{name}.SetValue(0, {});", from_f(*d, &val)),
            );
            w(s, ind, &format!("oq_{name}.EnQue(o_{name});"));
            w(s, ind, &format!("o_{name} = oq_{name}.DeQue<{ty}>();"));
            w(
                s,
                ind,
                &format!(
                    "DataCopyPad(g_{name}[r], o_{name}, DataCopyExtParams{{1, {sz}u, 0, 0, 0}});"
                ),
            );
            w(s, ind, &format!("oq_{name}.FreeTensor(o_{name});"));
            w(s, ind - 1, "}");
        }
    }
    Ok(())
}

/// The `(max, sum)` reduction pairs of the form `m = max(w)`, `sum(exp(w − m))` (softmax,
/// log-softmax, logsumexp): the chunked path accumulates the sum online in the max's pass,
/// at the running max, rescaling the earlier chunks' sum by `exp(m_before − m)` when the max
/// grows (and a split row's parts by `exp(m_p − m)`), so it reads the row once for both.
fn online_pairs(pg: &Prog) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (t, n) in pg.p.nodes.iter().enumerate() {
        let Op::RedLast(ReduceOp::Sum, e) = &n.op else {
            continue;
        };
        let Op::Un(Un::Exp, d) = &pg.p.nodes[*e].op else {
            continue;
        };
        let Op::Bin(Bin::Sub, wv, m) = &pg.p.nodes[*d].op else {
            continue;
        };
        if matches!(&pg.p.nodes[*m].op, Op::RedLast(ReduceOp::Max, x) if x == wv)
            && pg.stage[t] == pg.stage[*m] + 1
        {
            out.push((*m, t));
        }
    }
    out
}

/// Combines the partial reductions of a row split over `SPL` blocks (the tiling's `split`,
/// only for chunked rows when there are at most half as many rows as cores): after the
/// level's chunk loop over its columns `[c0, c1)`, every block writes its accumulators
/// (value `a`, error sum `b`, shift `k`) to its slot of the GM workspace (slot per level and
/// block, `split_nw` floats), all blocks meet at `SyncAll`, and each reads its row's `SPL`
/// slots and folds them in part order, so every block of the row gets the same values:
/// sums add, max/min keep the first NaN, a mean's shifted sums are re-based on part 0's
/// shift (`Σ_p a_p + n_p·(k_p − k_0)`, `n_p` the part's column count).
fn emit_split_combine(
    e: &mut Emitter,
    s: &mut String,
    ind: usize,
    own: &[usize],
    carried: &[(usize, usize)],
    pass: u32,
) -> Result<(), SynthError> {
    let lw = e.lw;
    let nw = e.split_nw;
    let reds: Vec<usize> = own
        .iter()
        .copied()
        .chain(carried.iter().map(|&(_, t)| t))
        .collect();
    if nw < 3 * reds.len() {
        return Err(e.fail("internal: row-split workspace smaller than a level's partials"));
    }
    let slot = pass - 1;
    e.add_buf(
        "xoq".into(),
        "TQue<TPosition::VECOUT, 1>",
        "1",
        format!("{nw} * 4"),
    );
    e.add_buf(
        "xiq".into(),
        "TQue<TPosition::VECIN, 1>",
        "1",
        format!("(R != 0 ? {nw} : 64 * {nw}) * 4"),
    );
    w(s, ind, "if (SPL > 1) {");
    let i1 = ind + 1;
    w(s, i1, "LocalTensor<float> xo = xoq.AllocTensor<float>();");
    for (q, &i) in reds.iter().enumerate() {
        w(
            s,
            i1,
            &format!(
                "xo.SetValue({}, a{i}); xo.SetValue({}, b{i}); xo.SetValue({}, k{i});",
                3 * q,
                3 * q + 1,
                3 * q + 2
            ),
        );
    }
    w(s, i1, "xoq.EnQue(xo);");
    w(s, i1, "xo = xoq.DeQue<float>();");
    let used = 3 * reds.len();
    w(s, i1, &format!("DataCopyPad(g_ws[({slot}u * blocks + idx) * {nw}u], xo, DataCopyExtParams{{1, {used}u * 4u, 0, 0, 0}});"));
    w(s, i1, "xoq.FreeTensor(xo);");
    w(s, i1, "SyncAll();");
    w(s, i1, "LocalTensor<float> xi = xiq.AllocTensor<float>();");
    w(s, i1, &format!("DataCopyPad(xi, g_ws[({slot}u * blocks + ridx * SPL) * {nw}u], DataCopyExtParams{{1, SPL * {nw}u * 4u, 0, 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});"));
    w(s, i1, "xiq.EnQue(xi);");
    w(s, i1, "xi = xiq.DeQue<float>();");
    for (q, &i) in reds.iter().enumerate() {
        let Op::RedLast(op, _) = &lw.prog.nodes[i].op else {
            continue;
        };
        if carried.iter().any(|&(_, t)| t == i) {
            continue;
        }
        let (va, vb, vk) = (3 * q, 3 * q + 1, 3 * q + 2);
        match op {
            ReduceOp::Sum => {
                w(s, i1, &format!("a{i} = 0.0f; b{i} = 0.0f;"));
                w(s, i1, &format!("for (uint32_t p = 0; p < SPL; p++) {{ a{i} += xi.GetValue(p * {nw}u + {va}u); b{i} += xi.GetValue(p * {nw}u + {vb}u); }}"));
            }
            ReduceOp::Mean => {
                w(
                    s,
                    i1,
                    &format!("k{i} = xi.GetValue({vk}u); a{i} = 0.0f; b{i} = 0.0f;"),
                );
                w(s, i1, &format!("for (uint32_t p = 0; p < SPL; p++) {{ const uint32_t lo_ = p * t.slice, np_ = (t.slice < C - lo_) ? t.slice : C - lo_; a{i} += xi.GetValue(p * {nw}u + {va}u) + static_cast<float>(np_) * (xi.GetValue(p * {nw}u + {vk}u) - k{i}); b{i} += xi.GetValue(p * {nw}u + {vb}u); }}"));
            }
            ReduceOp::Max | ReduceOp::Min => {
                let cmp = if *op == ReduceOp::Max { ">" } else { "<" };
                w(s, i1, &format!("a{i} = xi.GetValue({va}u);"));
                w(s, i1, &format!("for (uint32_t p = 1; p < SPL; p++) {{ float v_ = xi.GetValue(p * {nw}u + {va}u); if (v_ {cmp} a{i} || v_ != v_) a{i} = v_; }}"));
            }
        }
    }
    // Online sums: each part's Σ exp(w − m_p), rescaled to the row's max.
    for &(m, t) in carried {
        let qm = reds.iter().position(|&r| r == m).unwrap_or(0);
        let qt = reds.iter().position(|&r| r == t).unwrap_or(0);
        let (vm, vt) = (3 * qm, 3 * qt);
        w(s, i1, &format!("a{t} = 0.0f;"));
        w(s, i1, &format!("for (uint32_t p = 0; p < SPL; p++) {{ a{t} += xi.GetValue(p * {nw}u + {vt}u) * expf(xi.GetValue(p * {nw}u + {vm}u) - a{m}); }}"));
    }
    w(s, i1, "xiq.FreeTensor(xi);");
    w(s, ind, "}");
    Ok(())
}

/// The per-row variables of iteration `j` of a loop over a resident tile's rows.
fn open_row(s: &mut String, ind: usize) {
    w(s, ind, "uint32_t r = row0 + j;");
    w(s, ind, "uint32_t o = j * P;");
    w(s, ind, "uint32_t n = C;");
    w(s, ind, "uint32_t n64 = (n + 63u) / 64u * 64u;");
    w(s, ind, "(void)r; (void)o; (void)n64;");
}

/// True when a resident tile is computed as one span of `nt · P` elements: no reductions,
/// no per-row values and no `[C]` vectors (each would need a per-row operand), every
/// output a full row.
fn tile_flat(e: &Emitter) -> bool {
    let lw = e.lw;
    lw.prog.nodes.iter().all(|n| match &n.op {
        Op::RedLast(..) | Op::RedMid { .. } => false,
        Op::Input {
            access: Access::Vec,
            ..
        } => false,
        _ => n.level != Level::RowScalar,
    }) && lw
        .outputs
        .iter()
        .all(|(name, _, node)| lw.prog.nodes[*node].level == Level::Row && full_output(e, name))
}

/// How a tile-wide reduction's rows get their shift (means are shifted by the row's first
/// element, see [`Emitter::emit_reduce`]).
#[derive(Clone, Debug, PartialEq)]
enum Shift {
    /// No shift: sums, max/min, and means of values that cannot cancel (squares, exp, abs).
    None,
    /// The first element of the row of this GM input, read through the DCache (no wait
    /// for the vector pipe): a C++ expression of `r`.
    Gm(String),
    /// The first element of the operand's row in UB (waits for the vector pipe).
    Ub,
}

/// True when node `i` is non-negative by construction (a mean of it needs no shift).
fn nonneg(pg: &Prog, i: usize) -> bool {
    match &pg.p.nodes[i].op {
        Op::Bin(Bin::Mul, a, b) => a == b,
        Op::Un(Un::Exp | Un::Abs | Un::Sqrt | Un::Sigmoid, _) => true,
        _ => false,
    }
}

/// Emits the compute of a resident tile with tile-wide row statistics
/// ([`RowStats::Tile`]): one loop over the tile's rows per reduction level; after each
/// loop the level's reductions run over the whole tile (`TileReduce`) and their results
/// are read into per-row arrays (`A{i}`: value, `B{i}`: error sum, `K{i}`: shift), from
/// which every later loop recomputes the row's scalars.
///
/// A row node an earlier level computes anyway and a later level needs again (Add+RMSNorm's
/// `h = x + residual`) is not recomputed: the earlier loop writes it over the tile of a row
/// input that nothing else reads (`f_x`), and later loops read it from there. A full-row
/// output complete after an earlier level (that same `h`) is cast and copied out right after
/// that level's loop, so its MTE3 transfer overlaps the later levels; the names of such
/// outputs are returned (the caller copies out only the others).
fn emit_tile_body(e: &mut Emitter, s: &mut String, ind: usize) -> Result<Vec<String>, SynthError> {
    let lw = e.lw;
    let pg = Prog::new(&lw.prog, "");
    let n_nodes = lw.prog.nodes.len();
    // Consumers of every node, over the whole program.
    let mut users: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for (i, n) in lw.prog.nodes.iter().enumerate() {
        let ops: Vec<usize> = match &n.op {
            Op::Un(_, a) => vec![*a],
            Op::Bin(_, a, b) => vec![*a, *b],
            Op::Where(c, a, b) => vec![*c, *a, *b],
            Op::RedLast(_, a) => vec![*a],
            _ => vec![],
        };
        for o in ops {
            users.entry(o).or_default().insert(i);
        }
    }
    let output_node = |i: usize| lw.outputs.iter().any(|(_, _, n)| *n == i);
    // Row nodes already computed into a tile by an earlier level: node -> its view.
    let mut carried: HashMap<usize, String> = HashMap::new();
    let mut early: Vec<String> = Vec::new();
    let reds_of = |pass: u32| -> Vec<usize> {
        (0..n_nodes)
            .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)) && pg.stage[i] == pass)
            .collect()
    };
    let max_red = (0..n_nodes)
        .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)))
        .map(|i| pg.stage[i])
        .max()
        .unwrap_or(0);
    let final_pass = max_red + 1;
    e.uses_tile = true;
    // Whether each reduction carries an error sum (known once its level is emitted).
    let mut has_lo: HashMap<usize, bool> = HashMap::new();
    for i in (0..n_nodes).filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..))) {
        w(s, ind, &format!("float A{i}[256], B{i}[256], K{i}[256];"));
    }
    for pass in 1..=final_pass {
        let reds = reds_of(pass);
        let roots = level_roots(lw, &reds, pass == final_pass, &early);
        let stop: BTreeSet<usize> = carried.keys().copied().collect();
        let set = pg.closure_until(&roots, &stop);
        let ins: Vec<usize> = pg.inputs_of(&set);
        // Row nodes of this level that a later level needs too, each with a row input only
        // it reads (and no output): computed over that input's tile, kept for later.
        let later: BTreeSet<usize> = {
            let mut l = BTreeSet::new();
            for q in pass + 1..=final_pass {
                let r = level_roots(lw, &reds_of(q), q == final_pass, &[]);
                l.extend(pg.closure_until(&r, &stop));
            }
            l
        };
        let mut carry: HashMap<usize, String> = HashMap::new();
        if pass < final_pass && !e.compensate {
            for &i in &set {
                if stop.contains(&i) || !later.contains(&i) {
                    continue;
                }
                let ops: Vec<usize> = match &pg.p.nodes[i].op {
                    Op::Un(_, a) => vec![*a],
                    Op::Bin(_, a, b) => vec![*a, *b],
                    Op::Where(c, a, b) => vec![*c, *a, *b],
                    _ => continue,
                };
                let host = ops.iter().copied().find(|&o| {
                    matches!(
                        &pg.p.nodes[o].op,
                        Op::Input {
                            access: Access::Row { .. },
                            ..
                        }
                    ) && !output_node(o)
                        && users.get(&o).is_some_and(|u| u.len() == 1)
                        && carry.values().all(|v| {
                            let Op::Input { name, .. } = &pg.p.nodes[o].op else {
                                return false;
                            };
                            *v != format!("f_{name}[o]")
                        })
                });
                if let Some(h) = host {
                    let Op::Input { name, .. } = &pg.p.nodes[h].op else {
                        continue;
                    };
                    carry.insert(i, format!("f_{name}[o]"));
                }
            }
        }
        // Per reduction: its shift and where its rows are, tile-wide: an input's tile
        // (`f_x`) or a tile buffer (`rtb{k}`) the loop writes.
        let mut plans: Vec<(usize, ReduceOp, usize, Shift, String)> = Vec::new();
        let mut tile_of: HashMap<usize, String> = HashMap::new();
        let mut slot = 0usize;
        for &i in &reds {
            let Op::RedLast(op, a) = &lw.prog.nodes[i].op else {
                continue;
            };
            let row_input = match &lw.prog.nodes[*a].op {
                Op::Input {
                    name,
                    access: Access::Row { offset, .. },
                } => Some((name.clone(), offset.clone())),
                _ => None,
            };
            let shift = if *op != ReduceOp::Mean || nonneg(&pg, *a) {
                Shift::None
            } else if let Some((name, offset)) = &row_input {
                let d = e.in_dtype(name);
                Shift::Gm(to_f(
                    d,
                    &format!("g_{name}.GetValue({})", offset.replace("ROW", "r")),
                ))
            } else {
                Shift::Ub
            };
            let tile = match (&shift, &row_input) {
                (Shift::None, Some((name, _))) => format!("f_{name}"),
                _ => {
                    if let Some(t) = tile_of.get(a).filter(|_| shift == Shift::None) {
                        t.clone()
                    } else {
                        let t = format!("rtb{slot}");
                        slot += 1;
                        if shift == Shift::None {
                            tile_of.insert(*a, t.clone());
                        }
                        t
                    }
                }
            };
            plans.push((i, *op, *a, shift, tile));
        }
        // Error sums need their own tile buffers.
        let lo_base = slot;
        for k in 0..slot {
            e.add_buf(
                format!("rtbuf{k}"),
                "TBuf<TPosition::VECCALC>",
                "1",
                "(R != 0 ? LIN : 8) * 4".into(),
            );
        }
        for k in 0..plans.len() {
            e.add_buf(
                format!("stbuf{k}"),
                "TBuf<TPosition::VECCALC>",
                "1",
                "(R != 0 ? T + 8 : 8) * 4".into(),
            );
        }
        let reads_vec = ins.iter().any(|&j| {
            matches!(
                &pg.p.nodes[j].op,
                Op::Input {
                    access: Access::Vec,
                    ..
                }
            )
        });
        if reads_vec || pass == final_pass {
            e.emit_pending_vecs(s, ind);
        }
        w(s, ind, "for (uint32_t j = 0; j < nt; j++) {");
        let ind2 = ind + 1;
        open_row(s, ind2);
        emit_scalars_of_stage(e, s, ind2, &pg, 0, "r");
        for q in 1..pass {
            for i in reds_of(q) {
                let Op::RedLast(op, _) = &lw.prog.nodes[i].op else {
                    continue;
                };
                w(
                    s,
                    ind2,
                    &format!("float a{i} = A{i}[j], b{i} = B{i}[j], k{i} = K{i}[j];"),
                );
                w(s, ind2, &format!("(void)b{i}; (void)k{i};"));
                emit_reduce_final(e, s, ind2, i, *op, has_lo.get(&i).copied().unwrap_or(false));
            }
            emit_scalars_of_stage(e, s, ind2, &pg, q, "r");
        }
        let mut views: HashMap<usize, String> = HashMap::new();
        for &j in &ins {
            if let Op::Input { name, access } = &pg.p.nodes[j].op {
                let v = match access {
                    Access::Row { .. } => format!("f_{name}[o]"),
                    _ => format!("f_{name}"),
                };
                views.insert(j, v);
            }
        }
        // Reduction operands computed straight into their tile buffer when unshifted.
        let mut dest: HashMap<usize, String> = HashMap::new();
        for (_, _, a, shift, tile) in &plans {
            if *shift == Shift::None && tile.starts_with("rtb") && !views.contains_key(a) {
                dest.entry(*a).or_insert_with(|| format!("{tile}[o]"));
            }
        }
        // fp32 outputs are computed straight into the output tile.
        if pass == final_pass {
            for (name, d, node) in &lw.outputs {
                if *d == Dtype::F32
                    && full_output(e, name)
                    && pg.level(*node) == Level::Row
                    && !views.contains_key(node)
                {
                    dest.entry(*node).or_insert_with(|| format!("o_{name}[o]"));
                }
            }
        }
        // Nodes carried to later levels are computed over their host input's tile.
        carry.retain(|i, v| {
            if views.contains_key(i) || dest.contains_key(i) {
                return false;
            }
            dest.insert(*i, v.clone());
            true
        });
        for (&i, v) in &carried {
            views.insert(i, v.clone());
        }
        let los = if !set.is_empty() || !roots.is_empty() {
            e.emit_rows_to(s, ind2, &pg, &set, &roots, &mut views, &dest)?
        } else {
            HashMap::new()
        };
        for (i, v) in carry {
            if views.get(&i) == Some(&v) && !los.contains_key(&i) {
                carried.insert(i, v);
            }
        }
        // Full-row outputs complete at this level: cast into the output tile now. Only
        // from a view that later instructions of the row do not overwrite (a row input's
        // tile, or a carried node over one; temporaries are reused within the row), and
        // without compensated sums (their error terms are folded in elsewhere).
        let mut early_now: Vec<String> = Vec::new();
        if pass < final_pass && !e.compensate {
            for (name, d, node) in &lw.outputs {
                if full_output(e, name)
                    && pg.level(*node) == Level::Row
                    && views.get(node).is_some_and(|v| v.starts_with("f_"))
                    && !los.contains_key(node)
                    && !early.contains(name)
                {
                    emit_store(s, ind2, &pg, *node, &views, &format!("o_{name}[o]"), *d);
                    early_now.push(name.clone());
                }
            }
        }
        if pass < final_pass {
            for (k, (i, op, a, shift, tile)) in plans.iter().enumerate() {
                let x = views[a].clone();
                let lo_view = los.get(a).cloned();
                let summing = matches!(op, ReduceOp::Sum | ReduceOp::Mean);
                if let (Some(l), false) = (&lo_view, summing) {
                    w(s, ind2, &format!("Add({x}, {x}, {l}, n);"));
                }
                match shift {
                    Shift::None => w(s, ind2, &format!("K{i}[j] = 0.0f;")),
                    Shift::Gm(k) => w(s, ind2, &format!("K{i}[j] = {k};")),
                    Shift::Ub => w(s, ind2, &format!("K{i}[j] = {x}.GetValue(0);")),
                }
                let td = format!("{tile}[o]");
                if x != td && !tile.starts_with("f_") {
                    match shift {
                        Shift::None => w(s, ind2, &format!("Muls({td}, {x}, 1.0f, n);")),
                        _ => w(s, ind2, &format!("Adds({td}, {x}, -K{i}[j], n);")),
                    }
                }
                if let (Some(l), true) = (&lo_view, summing) {
                    let b = lo_base + k;
                    e.add_buf(
                        format!("rtbuf{b}"),
                        "TBuf<TPosition::VECCALC>",
                        "1",
                        "(R != 0 ? LIN : 8) * 4".into(),
                    );
                    e.add_buf(
                        format!("stbuf{b}"),
                        "TBuf<TPosition::VECCALC>",
                        "1",
                        "(R != 0 ? T + 8 : 8) * 4".into(),
                    );
                    w(s, ind2, &format!("Muls(rtb{b}[o], {l}, 1.0f, n);"));
                }
                has_lo.insert(*i, lo_view.is_some() && summing);
            }
        } else {
            for (name, d, node) in &lw.outputs {
                if !full_output(e, name) || early.contains(name) {
                    continue;
                }
                if let Some(l) = los.get(node) {
                    let h = &views[node];
                    w(s, ind2, &format!("Add({h}, {h}, {l}, n);"));
                }
                let dst = format!("o_{name}[o]");
                if views.get(node) != Some(&dst) {
                    emit_store(s, ind2, &pg, *node, &views, &dst, *d);
                }
            }
            for (name, d, node) in &lw.outputs {
                if full_output(e, name) {
                    continue;
                }
                let val = pg.sv(*node);
                w(
                    s,
                    ind2,
                    &format!("o_{name}.SetValue(j, {});", from_f(*d, &val)),
                );
            }
        }
        w(s, ind, "}");
        // Outputs complete at this level leave now; MTE3 copies them under later levels.
        for name in early_now {
            let (_, d, _) = lw.outputs.iter().find(|(n, _, _)| *n == name).unwrap();
            emit_tile_copy_out(s, ind, &name, *d, true, lw.out_pitch(e.op, &name));
            early.push(name);
        }
        if pass < final_pass {
            // The level's statistics over the whole tile, then one batch of scalar reads.
            for (k, (i, op, _, _, tile)) in plans.iter().enumerate() {
                let kind = match op {
                    ReduceOp::Sum | ReduceOp::Mean => 0,
                    ReduceOp::Max => 1,
                    ReduceOp::Min => 2,
                };
                w(s, ind, &format!("TileReduce(stb{k}, {tile}, nt, {kind});"));
                if has_lo.get(i).copied().unwrap_or(false) {
                    w(
                        s,
                        ind,
                        &format!("TileReduce(stb{}, rtb{}, nt, 0);", lo_base + k, lo_base + k),
                    );
                }
            }
            w(s, ind, "for (uint32_t j = 0; j < nt; j++) {");
            for (k, (i, ..)) in plans.iter().enumerate() {
                w(s, ind + 1, &format!("A{i}[j] = stb{k}.GetValue(j);"));
                if has_lo.get(i).copied().unwrap_or(false) {
                    w(
                        s,
                        ind + 1,
                        &format!("B{i}[j] = stb{}.GetValue(j);", lo_base + k),
                    );
                } else {
                    w(s, ind + 1, &format!("B{i}[j] = 0.0f;"));
                }
            }
            w(s, ind, "}");
        }
    }
    Ok(early)
}

/// The row nodes a reduction level computes: the operands of its reductions `reds`, or at
/// the last level (`last`) the row-level outputs, but those named in `done` (copied out
/// after an earlier level).
fn level_roots(lw: &Lowered, reds: &[usize], last: bool, done: &[String]) -> Vec<usize> {
    if last {
        lw.outputs
            .iter()
            .filter(|(name, _, _)| !done.contains(name))
            .map(|(_, _, n)| *n)
            .filter(|&n| lw.prog.nodes[n].level == Level::Row)
            .collect()
    } else {
        reds.iter()
            .map(|&i| match &lw.prog.nodes[i].op {
                Op::RedLast(_, a) => *a,
                _ => i,
            })
            .collect()
    }
}

/// True when row node `j` is the same for every row of the tile: computed from `[C]`
/// vector inputs and uniform values only (`γ + 1`).
fn vecish(pg: &Prog, j: usize) -> bool {
    if pg.level(j) != Level::Row {
        return false;
    }
    let ok = |a: usize| pg.level(a) == Level::Uniform || vecish(pg, a);
    match &pg.p.nodes[j].op {
        Op::Input {
            access: Access::Vec,
            ..
        } => true,
        Op::Un(_, a) => vecish(pg, *a),
        Op::Bin(_, a, b) => ok(*a) && ok(*b),
        Op::Where(c, a, b) => ok(*c) && ok(*a) && ok(*b),
        _ => false,
    }
}

/// Whether the wide body ([`RowStats::Wide`]) can compute the program: no per-row GM
/// inputs (`[R, 1]`), comparisons and selects only between full rows and uniform values,
/// powers only of full rows by uniform exponents, no per-row value against a one-row
/// vector, and no comparison or select of one-row vectors. The outputs are checked by the
/// caller (full outputs must be full rows).
fn wide_ok(lw: &Lowered) -> bool {
    let pg = Prog::new(&lw.prog, "");
    let special = |j: usize| pg.level(j) == Level::RowScalar || vecish(&pg, j);
    lw.prog.nodes.iter().enumerate().all(|(i, n)| match &n.op {
        Op::Input {
            access: Access::RowScalar(_),
            ..
        }
        | Op::RedMid { .. } => false,
        Op::Where(c, a, b) => {
            n.level == Level::Uniform || (!vecish(&pg, i) && ![*c, *a, *b].into_iter().any(special))
        }
        Op::Bin(b, l, r) => match n.level {
            Level::Uniform => true,
            Level::RowScalar => !matches!(b, Bin::Cmp(_)),
            Level::Row => {
                let (l, r) = (*l, *r);
                let elementwise = matches!(b, Bin::Cmp(_) | Bin::Pow);
                let mixed = (pg.level(l) == Level::RowScalar && vecish(&pg, r))
                    || (pg.level(r) == Level::RowScalar && vecish(&pg, l));
                !mixed && !(elementwise && (vecish(&pg, i) || special(l) || special(r)))
            }
        },
        _ => true,
    })
}

/// The resident tile's body for [`RowStats::Wide`] (rows of at most 2040 elements): per
/// reduction level, the level's row nodes over the whole tile at once (`n = nt · P`,
/// `WideBin` for per-row values and `[C]` vectors), the level's statistics by `TileReduce`,
/// then the per-row values of the level (finished reductions, `rsqrt(var + eps)`) as
/// vector operations over the tile's rows into `rsb{i}` (`nt8` lanes), each broadcast by
/// `Brcb` into `bcb{i}` when a row operation reads it (its reciprocal `rrb{i}` into `brb{i}`
/// when rows are divided by it). No row loop and no scalar reads.
fn emit_wide_body(e: &mut Emitter, s: &mut String, ind: usize) -> Result<(), SynthError> {
    let lw = e.lw;
    let pg = Prog::new(&lw.prog, "");
    let n_nodes = lw.prog.nodes.len();
    let reds_of = |pass: u32| -> Vec<usize> {
        (0..n_nodes)
            .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)) && pg.stage[i] == pass)
            .collect()
    };
    let final_pass = (0..n_nodes)
        .filter(|&i| matches!(lw.prog.nodes[i].op, Op::RedLast(..)))
        .map(|i| pg.stage[i])
        .max()
        .unwrap_or(0)
        + 1;
    // Per-row values some row operation reads (they get a Brcb broadcast), and those
    // rows are divided by (their reciprocal is broadcast: a multiply instead of a divide).
    let mut broadcast: BTreeSet<usize> = BTreeSet::new();
    let mut recip: BTreeSet<usize> = BTreeSet::new();
    for n in &lw.prog.nodes {
        if n.level != Level::Row {
            continue;
        }
        if let Op::Bin(b, l, r) = &n.op {
            for (j, divisor) in [(*l, false), (*r, *b == Bin::Div)] {
                if pg.level(j) == Level::RowScalar {
                    if divisor {
                        recip.insert(j);
                    } else {
                        broadcast.insert(j);
                    }
                }
            }
        }
    }
    e.uses_tile = true;
    w(
        s,
        ind,
        "const uint32_t o = 0, n = nt * P, n64 = (n + 63u) / 64u * 64u;",
    );
    w(s, ind, "const uint32_t nt8 = (nt + 7u) / 8u * 8u;");
    w(s, ind, "(void)o; (void)n64; (void)nt8;");
    let row_buf = "(R != 0 ? T + 8 : 8) * 4";
    for pass in 1..=final_pass {
        let reds = reds_of(pass);
        let roots = level_roots(lw, &reds, pass == final_pass, &[]);
        let set = pg.closure(&roots);
        let ins: Vec<usize> = pg.inputs_of(&set);
        // Per reduction: its operand's tile, an input's (`f_x`) or a tile buffer.
        let mut plans: Vec<(usize, ReduceOp, usize, String)> = Vec::new();
        let mut tile_of: HashMap<usize, String> = HashMap::new();
        for &i in &reds {
            let Op::RedLast(op, a) = &lw.prog.nodes[i].op else {
                continue;
            };
            let tile = match &lw.prog.nodes[*a].op {
                Op::Input {
                    name,
                    access: Access::Row { .. },
                } => format!("f_{name}"),
                _ => {
                    let k = tile_of.len();
                    tile_of
                        .entry(*a)
                        .or_insert_with(|| format!("rtb{k}"))
                        .clone()
                }
            };
            plans.push((i, *op, *a, tile));
        }
        for k in 0..tile_of.len() {
            e.add_buf(
                format!("rtbuf{k}"),
                "TBuf<TPosition::VECCALC>",
                "1",
                "(R != 0 ? LIN : 8) * 4".into(),
            );
        }
        for k in 0..plans.len() {
            e.add_buf(
                format!("stbuf{k}"),
                "TBuf<TPosition::VECCALC>",
                "1",
                row_buf.into(),
            );
        }
        let reads_vec = ins.iter().any(|&j| {
            matches!(
                &pg.p.nodes[j].op,
                Op::Input {
                    access: Access::Vec,
                    ..
                }
            )
        });
        if reads_vec || pass == final_pass {
            e.emit_pending_vecs(s, ind);
        }
        let mut views: HashMap<usize, String> = HashMap::new();
        for &j in &ins {
            if let Op::Input { name, access } = &pg.p.nodes[j].op {
                let v = match access {
                    Access::Row { .. } => format!("f_{name}[o]"),
                    _ => format!("f_{name}"),
                };
                views.insert(j, v);
            }
        }
        let mut dest: HashMap<usize, String> = HashMap::new();
        for (_, _, a, tile) in &plans {
            if tile.starts_with("rtb") && !views.contains_key(a) {
                dest.entry(*a).or_insert_with(|| format!("{tile}[o]"));
            }
        }
        if !set.is_empty() {
            e.emit_rows_to(s, ind, &pg, &set, &roots, &mut views, &dest)?;
        }
        if pass < final_pass {
            for (k, (i, op, a, tile)) in plans.iter().enumerate() {
                let td = format!("{tile}[o]");
                if views[a] != td && !tile.starts_with("f_") {
                    w(s, ind, &format!("Muls({td}, {}, 1.0f, n);", views[a]));
                }
                let kind = match op {
                    ReduceOp::Sum | ReduceOp::Mean => 0,
                    ReduceOp::Max => 1,
                    ReduceOp::Min => 2,
                };
                w(s, ind, &format!("TileReduce(stb{k}, {tile}, nt, {kind});"));
                let f = if *op == ReduceOp::Mean {
                    "1.0f / static_cast<float>(C)"
                } else {
                    "1.0f"
                };
                e.add_buf(
                    format!("rsbuf{i}"),
                    "TBuf<TPosition::VECCALC>",
                    "1",
                    row_buf.into(),
                );
                w(s, ind, &format!("Muls(rsb{i}, stb{k}, {f}, nt8);"));
            }
            // The level's other per-row values, as vectors over the rows.
            let mut sviews: HashMap<usize, String> = HashMap::new();
            for j in 0..n_nodes {
                if pg.level(j) == Level::RowScalar && pg.stage[j] <= pass {
                    sviews.insert(j, format!("rsb{j}"));
                }
            }
            w(s, ind, "{");
            w(s, ind + 1, "const uint32_t n = nt8;");
            for j in 0..n_nodes {
                if pg.level(j) != Level::RowScalar
                    || pg.stage[j] != pass
                    || matches!(lw.prog.nodes[j].op, Op::RedLast(..))
                {
                    continue;
                }
                e.add_buf(
                    format!("rsbuf{j}"),
                    "TBuf<TPosition::VECCALC>",
                    "1",
                    row_buf.into(),
                );
                e.scalar_vec = true;
                let r = e.emit_row_op(s, ind + 1, &pg, j, &format!("rsb{j}"), &sviews);
                e.scalar_vec = false;
                r?;
            }
            w(s, ind, "}");
            for j in 0..n_nodes {
                if recip.contains(&j) && pg.stage[j] == pass {
                    e.add_buf(
                        format!("rrbuf{j}"),
                        "TBuf<TPosition::VECCALC>",
                        "1",
                        row_buf.into(),
                    );
                    e.add_buf(
                        format!("brbuf{j}"),
                        "TBuf<TPosition::VECCALC>",
                        "1",
                        "(R != 0 ? (T + 8) * 8 : 8) * 4".into(),
                    );
                    w(s, ind, &format!("Reciprocal(rrb{j}, rsb{j}, nt8);"));
                    w(
                        s,
                        ind,
                        &format!(
                            "Brcb(brb{j}, rrb{j}, static_cast<uint8_t>(nt8 / 8u), BrcbRepeatParams(1, 8));"
                        ),
                    );
                }
                if broadcast.contains(&j) && pg.stage[j] == pass {
                    e.add_buf(
                        format!("bcbuf{j}"),
                        "TBuf<TPosition::VECCALC>",
                        "1",
                        "(R != 0 ? (T + 8) * 8 : 8) * 4".into(),
                    );
                    w(
                        s,
                        ind,
                        &format!(
                            "Brcb(bcb{j}, rsb{j}, static_cast<uint8_t>(nt8 / 8u), BrcbRepeatParams(1, 8));"
                        ),
                    );
                }
            }
        } else {
            for (name, d, node) in &lw.outputs {
                let dst = format!("o_{name}[o]");
                if full_output(e, name) {
                    if views.get(node) != Some(&dst) {
                        emit_store(s, ind, &pg, *node, &views, &dst, *d);
                    }
                } else if pg.level(*node) == Level::RowScalar {
                    match d {
                        Dtype::F32 => w(s, ind, &format!("Muls(o_{name}, rsb{node}, 1.0f, nt);")),
                        _ => w(
                            s,
                            ind,
                            &format!("Cast(o_{name}, rsb{node}, RoundMode::CAST_RINT, nt);"),
                        ),
                    }
                } else {
                    let v = pg.sv(*node);
                    w(
                        s,
                        ind,
                        &format!("Duplicate(o_{name}, {}, nt);", from_f(*d, &v)),
                    );
                }
            }
        }
    }
    Ok(())
}

/// The copy-out of a resident tile's output `name` (EnQue, DeQue, DataCopyPad of `nt` rows
/// or values, FreeTensor).
///
/// `pitch` is the GM row pitch of an output segment view (`Lowered::out_pitch`): its rows
/// are written `pitch - C` elements apart, a GM-side `dstStride` in bytes (api-reference
/// §3.2: UB→GM DataCopyPad's GM-side stride is in bytes, its UB-side one in 32-byte blocks).
fn emit_tile_copy_out(
    s: &mut String,
    ind: usize,
    name: &str,
    d: Dtype,
    full: bool,
    pitch: Option<String>,
) {
    let ty = cty(d);
    let sz = d.size_bytes();
    w(s, ind, &format!("oq_{name}.EnQue(o_{name});"));
    w(s, ind, &format!("o_{name} = oq_{name}.DeQue<{ty}>();"));
    if full {
        let (unit, dst_stride) = match &pitch {
            Some(p) => (p.clone(), format!("({p} - C) * {sz}u")),
            None => ("C".into(), "0".into()),
        };
        w(s, ind, &format!("DataCopyPad(g_{name}[row0 * {unit}], o_{name}, DataCopyExtParams{{static_cast<uint16_t>(nt), C * {sz}u, (P * {sz}u - (C * {sz}u + 31u) / 32u * 32u) / 32u, {dst_stride}, 0}});"));
    } else {
        w(s, ind, &format!("DataCopyPad(g_{name}[row0], o_{name}, DataCopyExtParams{{1, nt * {sz}u, 0, 0, 0}});"));
    }
    w(s, ind, &format!("oq_{name}.FreeTensor(o_{name});"));
}

fn emit_store(
    s: &mut String,
    ind: usize,
    pg: &Prog,
    node: usize,
    views: &HashMap<usize, String>,
    dst: &str,
    d: Dtype,
) {
    if pg.level(node) == Level::Row {
        let v = &views[&node];
        match d {
            Dtype::F32 => w(s, ind, &format!("Muls({dst}, {v}, 1.0f, n);")),
            _ => w(
                s,
                ind,
                &format!("Cast({dst}, {v}, RoundMode::CAST_RINT, n);"),
            ),
        }
    } else {
        let v = pg.sv(node);
        w(s, ind, &format!("Duplicate({dst}, {}, n);", from_f(d, &v)));
    }
}

fn emit_scalars_of_stage(
    e: &mut Emitter,
    s: &mut String,
    ind: usize,
    pg: &Prog,
    stage: u32,
    rowvar: &str,
) {
    for i in 0..pg.p.nodes.len() {
        let n = &pg.p.nodes[i];
        if n.level == Level::RowScalar && pg.stage[i] == stage && !depends_on_mid(pg, i) {
            e.emit_scalar(s, ind, pg, i, rowvar);
        }
    }
}

fn emit_scalars_after_mid(e: &mut Emitter, s: &mut String, ind: usize, pg: &Prog) {
    for i in 0..pg.p.nodes.len() {
        let n = &pg.p.nodes[i];
        if n.level == Level::RowScalar && pg.stage[i] == 0 && depends_on_mid(pg, i) {
            e.emit_scalar(s, ind, pg, i, "r");
        }
    }
}

fn depends_on_mid(pg: &Prog, i: usize) -> bool {
    match &pg.p.nodes[i].op {
        Op::RedMid { .. } => true,
        Op::Un(_, a) => depends_on_mid(pg, *a),
        Op::Bin(_, a, b) => depends_on_mid(pg, *a) || depends_on_mid(pg, *b),
        Op::Where(c, a, b) => {
            depends_on_mid(pg, *c) || depends_on_mid(pg, *a) || depends_on_mid(pg, *b)
        }
        _ => false,
    }
}

/// Emits kernel.cpp and tiling.cpp for a lowered op.
pub(crate) fn emit(
    op: &OpSpec,
    lw: &Lowered,
    options: &SynthOptions,
) -> Result<Emitted, SynthError> {
    let has_red = lw
        .prog
        .nodes
        .iter()
        .any(|n| matches!(n.op, Op::RedLast(..)));
    let has_mid_any = lw
        .prog
        .nodes
        .iter()
        .any(|n| matches!(n.op, Op::RedMid { .. }));
    let mut e = Emitter {
        op,
        lw,
        params: &options.params,
        tile: options.row_stats != RowStats::PerRow && has_red && !has_mid_any && !lw.flat,
        uses_tile: false,
        has_wide: false,
        wide: false,
        slab: false,
        wide_temps: 0,
        split_nw: 0,
        split_levels: 0,
        scalar_vec: false,
        pending_vecs: Vec::new(),
        bufs: Vec::new(),
        ntemps: 0,
        body: String::new(),
        uses_mask: false,
        uses_reduce: false,
        uses_shift: false,
        compensate: lw.outputs.iter().any(|(_, d, _)| *d == Dtype::F32),
        scalar_lo: BTreeSet::new(),
    };
    e.has_wide = options.row_stats == RowStats::Wide
        && e.tile
        && !e.compensate
        && wide_ok(lw)
        && lw.outputs.iter().all(|(name, _, node)| {
            let lvl = lw.prog.nodes[*node].level;
            if full_output(&e, name) {
                lvl == Level::Row && !vecish(&Prog::new(&lw.prog, ""), *node)
            } else {
                lvl != Level::Row
            }
        });
    let has_mid = lw
        .prog
        .nodes
        .iter()
        .any(|n| matches!(n.op, Op::RedMid { .. }));
    if !lw.flat && !has_mid && has_red {
        let pgs = Prog::new(&lw.prog, "");
        let mut per_level: BTreeMap<u32, usize> = BTreeMap::new();
        for (i, n) in lw.prog.nodes.iter().enumerate() {
            if matches!(n.op, Op::RedLast(..)) {
                *per_level.entry(pgs.stage[i]).or_default() += 1;
            }
        }
        // An online sum travels with its max (the chunked path's `online_pairs`).
        for (m, _) in online_pairs(&pgs) {
            *per_level.entry(pgs.stage[m]).or_default() += 1;
        }
        let most = per_level.values().copied().max().unwrap_or(0);
        e.split_nw = (3 * most).div_ceil(8) * 8;
        e.split_levels = per_level.len();
    }
    let pg = Prog::new(&lw.prog, "");
    let mut body = String::new();
    let s = &mut body;
    // Uniform scalars (kernel-wide).
    for i in 0..lw.prog.nodes.len() {
        if lw.prog.nodes[i].level == Level::Uniform {
            e.emit_scalar(s, 1, &pg, i, "0u");
        }
    }
    // Row temporaries the resident path uses (the rest are the chunked path's alone).
    let mut res_temps = usize::MAX;
    e.slab = !lw.flat && mid::slab_ok(&e, lw);
    if e.slab {
        mid::emit_slab_body(&mut e, s)?;
    } else if lw.flat {
        out_bufs(&mut e, Mode::Flat);
        w(
            s,
            1,
            "uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();",
        );
        w(s, 1, "(void)blocks;");
        w(s, 1, "uint32_t e0 = idx * t.per_core;");
        w(
            s,
            1,
            "uint32_t e1 = (e0 + t.per_core < t.total) ? e0 + t.per_core : t.total;",
        );
        w(s, 1, "for (uint32_t off = e0; off < e1; off += K) {");
        w(s, 2, "uint32_t n = (e1 - off < K) ? (e1 - off) : K;");
        w(s, 2, "uint32_t n64 = (n + 63u) / 64u * 64u;");
        w(s, 2, "(void)n64;");
        let roots: Vec<usize> = lw.outputs.iter().map(|(_, _, n)| *n).collect();
        let set = pg.closure(&roots);
        let ins = pg.inputs_of(&set);
        e.emit_loads(s, 2, &pg, &ins, "LIN", Mode::Flat, "0u", "off");
        let mut views = HashMap::new();
        for &j in &ins {
            if let Op::Input { name, .. } = &lw.prog.nodes[j].op {
                views.insert(j, format!("f_{name}"));
            }
        }
        let los = e.emit_rows(s, 2, &pg, &set, &roots, &mut views)?;
        for (k, l) in &los {
            let h = &views[k];
            w(s, 2, &format!("Add({h}, {h}, {l}, n);"));
        }
        for (name, d, node) in &lw.outputs {
            let ty = cty(*d);
            let sz = d.size_bytes();
            w(
                s,
                2,
                &format!("LocalTensor<{ty}> o_{name} = oq_{name}.AllocTensor<{ty}>();"),
            );
            emit_store(s, 2, &pg, *node, &views, &format!("o_{name}"), *d);
            w(s, 2, &format!("oq_{name}.EnQue(o_{name});"));
            w(s, 2, &format!("o_{name} = oq_{name}.DeQue<{ty}>();"));
            w(s, 2, &format!("DataCopyPad(g_{name}[off], o_{name}, DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}});"));
            w(s, 2, &format!("oq_{name}.FreeTensor(o_{name});"));
        }
        e.emit_frees(s, 2, &pg, &ins);
        w(s, 1, "}");
    } else {
        w(
            s,
            1,
            "uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();",
        );
        // A row split over SPL blocks (chunked rows, few rows: the tiling's `split`): block
        // idx takes columns [c0, c1) of row idx / SPL.
        w(
            s,
            1,
            "const uint32_t SPL = t.split, part = idx % SPL, ridx = idx / SPL, rblocks = blocks / SPL;",
        );
        w(
            s,
            1,
            "const uint32_t c0 = part * t.slice, c1 = (t.slice < C - c0) ? c0 + t.slice : C;",
        );
        w(s, 1, "(void)part; (void)c0; (void)c1;");
        w(
            s,
            1,
            "uint32_t base = t.rows / rblocks, rem = t.rows % rblocks;",
        );
        w(s, 1, "uint32_t myRows = base + (ridx < rem ? 1u : 0u);");
        w(
            s,
            1,
            "uint32_t start = ridx * base + (ridx < rem ? ridx : rem);",
        );
        w(s, 1, "if (myRows == 0) return;");
        // Resident.
        out_bufs(&mut e, Mode::Resident);
        w(s, 1, "if (t.resident != 0) {");
        // Vec inputs once.
        let all: BTreeSet<usize> = (0..lw.prog.nodes.len()).collect();
        let vecs: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| {
                matches!(
                    &lw.prog.nodes[i].op,
                    Op::Input {
                        access: Access::Vec,
                        ..
                    }
                )
            })
            .collect();
        let rows_in: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| {
                matches!(
                    &lw.prog.nodes[i].op,
                    Op::Input {
                        access: Access::Row { .. },
                        ..
                    }
                )
            })
            .collect();
        // Vec inputs: one padded row (TL = P + 64) loaded once per core; in chunked mode the
        // same buffers (TL = K) take each chunk.
        // Row tiles are prefetched: tile t+1's copy-in is issued before tile t's compute
        // (or, with one buffer per queue and fp32 inputs held in their queue, right after
        // tile t frees them), so MTE2 overlaps the vector work even though the per-row
        // scalar reads stall the scalar unit.
        // The copy-in of one row tile, in a block opened by `open`: it starts at row `row`
        // and holds min(T, `left`) rows. Nothing without row inputs.
        let issue_tile =
            |e: &mut Emitter, s: &mut String, ind: usize, open: &str, row: &str, left: &str| {
                if rows_in.is_empty() {
                    return Vec::new();
                }
                w(s, ind, open);
                w(s, ind + 1, &format!("uint32_t rowN = {row};"));
                w(
                    s,
                    ind + 1,
                    &format!("uint32_t ntN = ({left} < T) ? ({left}) : T;"),
                );
                let deq = e.emit_issue(
                    s,
                    ind + 1,
                    &pg,
                    &rows_in,
                    "LIN",
                    Mode::Resident,
                    "rowN",
                    "0u",
                    ("rowN", "ntN"),
                );
                w(s, ind, "}");
                deq
            };
        // With three buffers per queue (a kernel emitted for `buffer_num` 3) the copy-in
        // runs BN − 1 tiles ahead: tiles 0 and 1 before the loop, tile t + BN − 1 at the
        // start of tile t, so MTE2 has the next two tiles queued while the vector pipe is
        // held at tile t's statistics read-back. The same kernel is correct for BN 1 or 2.
        let deep = e.params.buffer_num > 2;
        let next = if deep {
            ("row0 + (BN - 1) * T", "myRows - t0 - (BN - 1) * T")
        } else {
            ("row0 + T", "myRows - t0 - T")
        };
        let deq = issue_tile(&mut e, s, 2, "{", "start", "myRows");
        // The vectors after the first row tile: MTE2 runs in order, so their small copies
        // land right behind it instead of delaying it, and their casts overlap its copy.
        if e.tile {
            let issued = e.emit_issue(
                s,
                2,
                &pg,
                &vecs,
                "TL",
                Mode::Resident,
                "0u",
                "0u",
                ("row0", "nt"),
            );
            for (q, f, d, _) in issued {
                if d == Dtype::F32 {
                    w(s, 2, &format!("LocalTensor<float> {f};"));
                } else {
                    let fb = f.replacen("f_", "fb_", 1);
                    w(
                        s,
                        2,
                        &format!("LocalTensor<float> {f} = {fb}.Get<float>();"),
                    );
                }
                e.pending_vecs.push((q, f, d));
            }
        } else {
            e.emit_loads(s, 2, &pg, &vecs, "TL", Mode::Resident, "0u", "0u");
        }
        if deep {
            issue_tile(
                &mut e,
                s,
                2,
                "if (BN > 2 && T < myRows) {",
                "start + T",
                "myRows - T",
            );
        }
        w(s, 2, "for (uint32_t t0 = 0; t0 < myRows; t0 += T) {");
        w(s, 3, "uint32_t nt = (myRows - t0 < T) ? (myRows - t0) : T;");
        w(s, 3, "uint32_t row0 = start + t0;");
        e.emit_consume(s, 3, deq, true);
        let ahead = if deep {
            "if (BN > 1 && t0 + (BN - 1) * T < myRows) {"
        } else {
            "if (BN > 1 && t0 + T < myRows) {"
        };
        issue_tile(&mut e, s, 3, ahead, next.0, next.1);
        for (name, d, _) in &lw.outputs {
            let ty = cty(*d);
            w(
                s,
                3,
                &format!("LocalTensor<{ty}> o_{name} = oq_{name}.AllocTensor<{ty}>();"),
            );
        }
        let mut early: Vec<String> = Vec::new();
        if e.has_wide {
            // The wide body for rows within the 255-block repeat stride, the tile body
            // (row loops) for longer ones; each copies its own outputs out.
            let pending = e.pending_vecs.clone();
            let before = e.ntemps;
            e.ntemps = 0;
            w(s, 3, "if (P <= 2040u) {");
            let mut rb = String::new();
            e.wide = true;
            let r = emit_wide_body(&mut e, &mut rb, 4);
            e.wide = false;
            r?;
            s.push_str(&rb);
            for (name, d, _) in &lw.outputs {
                emit_tile_copy_out(
                    s,
                    4,
                    name,
                    *d,
                    full_output(&e, name),
                    lw.out_pitch(op, name),
                );
            }
            e.wide_temps = e.ntemps;
            e.ntemps = e.ntemps.max(before);
            e.pending_vecs = pending;
            w(s, 3, "} else {");
            let mut rb = String::new();
            let tile_early = emit_tile_body(&mut e, &mut rb, 4)?;
            s.push_str(&rb);
            for (name, d, _) in &lw.outputs {
                if !tile_early.contains(name) {
                    emit_tile_copy_out(
                        s,
                        4,
                        name,
                        *d,
                        full_output(&e, name),
                        lw.out_pitch(op, name),
                    );
                }
            }
            w(s, 3, "}");
            early = lw.outputs.iter().map(|(n, _, _)| n.clone()).collect();
        } else if e.tile {
            let mut rb = String::new();
            early = emit_tile_body(&mut e, &mut rb, 3)?;
            s.push_str(&rb);
        } else if tile_flat(&e) {
            // Elementwise over whole tiles: every operand is a tile of `nt` rows at pitch
            // P, so one count-form instruction per node covers the tile (the pad lanes
            // between rows compute garbage that is never copied out). Its temporaries hold
            // a tile.
            w(s, 3, "{");
            w(s, 4, "const uint32_t j = 0, r = row0, o = 0, n = nt * P;");
            w(s, 4, "const uint32_t n64 = (n + 63u) / 64u * 64u;");
            w(s, 4, "(void)j; (void)r; (void)o; (void)n64;");
            let before = e.ntemps;
            e.ntemps = 0;
            let mut rb = String::new();
            emit_row_body(&mut e, &mut rb, 4, Mode::Resident)?;
            s.push_str(&rb);
            e.wide_temps = e.ntemps;
            e.ntemps = e.ntemps.max(before);
            w(s, 3, "}");
        } else {
            w(s, 3, "for (uint32_t j = 0; j < nt; j++) {");
            open_row(s, 4);
            let mut rb = String::new();
            emit_row_body(&mut e, &mut rb, 4, Mode::Resident)?;
            s.push_str(&rb);
            w(s, 3, "}");
        }
        for (name, d, _) in &lw.outputs {
            if !early.contains(name) {
                emit_tile_copy_out(
                    s,
                    3,
                    name,
                    *d,
                    full_output(&e, name),
                    lw.out_pitch(op, name),
                );
            }
        }
        e.emit_frees(s, 3, &pg, &rows_in);
        issue_tile(
            &mut e,
            s,
            3,
            "if (BN == 1 && t0 + T < myRows) {",
            "row0 + T",
            "myRows - t0 - T",
        );
        w(s, 2, "}");
        e.emit_frees(s, 2, &pg, &vecs);
        res_temps = e.ntemps;
        w(s, 1, "} else {");
        if has_mid {
            w(s, 2, "return;");
        } else {
            w(s, 2, "for (uint32_t r = start; r < start + myRows; r++) {");
            let mut cb = String::new();
            emit_row_body(&mut e, &mut cb, 3, Mode::Chunked)?;
            s.push_str(&cb);
            w(s, 2, "}");
        }
        w(s, 1, "}");
    }
    // Shared buffers. Row temporaries only the chunked path uses (its register allocation
    // can need more than the resident path's, e.g. a second output kept while the next is
    // computed) take no UB room when rows are resident; tb0 stays whole where it is the
    // tile's fold scratch.
    let res_temps = if e.uses_tile {
        res_temps.max(1)
    } else {
        res_temps
    };
    for t in 0..e.ntemps {
        let bytes = if t < e.wide_temps {
            "(R != 0 ? LIN : TL) * 4"
        } else if t < res_temps {
            "(TL) * 4"
        } else {
            "(R != 0 ? 8 : TL) * 4"
        };
        e.add_buf(
            format!("tb{t}"),
            "TBuf<TPosition::VECCALC>",
            "1",
            bytes.into(),
        );
    }
    // With tile-wide row statistics only the chunked path (R == 0) reduces row by row.
    let chunk_only = |tile: bool, bytes: &str| -> String {
        if tile {
            format!("(R != 0 ? 32 : {bytes})")
        } else {
            bytes.to_string()
        }
    };
    if e.uses_reduce {
        e.add_buf(
            "redbuf".into(),
            "TBuf<TPosition::VECCALC>",
            "1",
            "32".into(),
        );
        // The fold scratch of `RowReduce`: half a row (or chunk) plus one 64-lane group.
        let b = chunk_only(e.tile, "((TL) / 2 + 64) * 4");
        e.add_buf("rfoldbuf".into(), "TBuf<TPosition::VECCALC>", "1", b);
    }
    if e.uses_tile {
        // One 64-lane group per row of the tile, and one padded row for the per-row folds
        // of rows longer than 2040 elements.
        e.add_buf(
            "accbuf".into(),
            "TBuf<TPosition::VECCALC>",
            "1",
            "(R != 0 ? T * 64 + 64 : 8) * 4".into(),
        );
        // The fold scratch is the first row temporary when there is one (free while the
        // tile reduces).
        if e.ntemps == 0 {
            e.add_buf(
                "foldbuf".into(),
                "TBuf<TPosition::VECCALC>",
                "1",
                "(R != 0 ? TL : 8) * 4".into(),
            );
        }
    }
    if e.uses_shift {
        let b = chunk_only(e.tile, "(TL) * 4");
        e.add_buf("shiftbuf".into(), "TBuf<TPosition::VECCALC>", "1", b);
    }
    if e.uses_mask {
        // The wide body compares whole tiles.
        let bytes = if e.has_wide {
            "((R != 0 ? LIN : TL) / 8 + 64)"
        } else {
            "((TL) / 8 + 64)"
        };
        e.add_buf(
            "maskbuf".into(),
            "TBuf<TPosition::VECCALC>",
            "1",
            bytes.into(),
        );
    }
    e.body = body;
    Ok(finish(e))
}

fn finish(e: Emitter) -> Emitted {
    let op = e.op;
    let lw = e.lw;
    let flat = lw.flat;
    // Tiling fields.
    let mut fields: Vec<TilingField> = Vec::new();
    let u32f = |n: &str| TilingField {
        name: n.to_string(),
        ty: FieldType::U32,
    };
    if flat {
        for n in ["total", "per_core", "chunk", "buf_num"] {
            fields.push(u32f(n));
        }
    } else {
        for n in [
            "rows",
            "cols",
            "tile_rows",
            "chunk",
            "resident",
            "buf_num",
            "split",
            "slice",
        ] {
            fields.push(u32f(n));
        }
    }
    let named = op.named_dims();
    for d in &named {
        fields.push(u32f(&format!("d_{d}")));
    }
    // Kernel.
    let mut k = String::new();
    let _ = writeln!(
        k,
        "// Generated by agenticcann_build::synth (offline proposer) for op `{}`.",
        op.name
    );
    let _ = writeln!(k, "// Reference:");
    for line in op.reference.to_canonical_source().lines() {
        let _ = writeln!(k, "//   {line}");
    }
    let _ = writeln!(
        k,
        "// Layout: {}; fp32 compute; GM accessed only through DataCopyPad and GlobalTensor.",
        if flat {
            "element-flat split over the cores, double-buffered tiles of `chunk` elements"
        } else if e.slab {
            "units of (output row, column slab of `chunk` elements) split over the cores; the reduced axis read in tiles of `tile_rows` rows, one DataCopyPad each"
        } else {
            "rows split over the cores; whole rows resident in UB in tiles of `tile_rows` rows, or rows in chunks of `chunk` elements"
        }
    );
    k.push_str("#include \"kernel_operator.h\"\n#include \"agenticcann_tiling.h\"\n\nusing namespace AscendC;\n\n");
    k.push_str("class SynthKernel {\n public:\n");
    let params = op.kernel_params();
    let args: Vec<String> = params
        .iter()
        .map(|p| format!("GM_ADDR p_{}", p.name))
        .collect();
    let _ = writeln!(
        k,
        "  __aicore__ inline void Init({}, const AgcTiling& tiling) {{",
        args.join(", ")
    );
    k.push_str("    t = tiling;\n");
    for p in &params {
        let ty = cty(p.decl.dtype);
        let size = prod_code(&p.decl.shape.dims);
        let _ = writeln!(
            k,
            "    g_{}.SetGlobalBuffer((__gm__ {ty}*)p_{}, {size});",
            p.name, p.name
        );
    }
    let (view_init, view_decl) = view_globals(op, lw);
    k.push_str(&view_init);
    k.push_str(&sizes_code(flat, e.slab, "    "));
    for b in &e.bufs {
        if b.decl.starts_with("TBuf") {
            let _ = writeln!(k, "    pipe.InitBuffer({}, {});", b.name, round32(&b.bytes));
        } else {
            let _ = writeln!(
                k,
                "    pipe.InitBuffer({}, {}, {});",
                b.name,
                b.num,
                round32(&b.bytes)
            );
        }
    }
    for tmp in 0..e.ntemps {
        let _ = writeln!(k, "    tmp{tmp} = tb{tmp}.Get<float>();");
    }
    if e.uses_reduce {
        k.push_str("    redb = redbuf.Get<float>();\n    rfoldb = rfoldbuf.Get<float>();\n");
    }
    if e.uses_shift {
        k.push_str("    shiftb = shiftbuf.Get<float>();\n");
    }
    if e.uses_tile {
        k.push_str("    accb = accbuf.Get<float>();\n");
        k.push_str(if e.ntemps > 0 {
            "    foldb = tb0.Get<float>();\n"
        } else {
            "    foldb = foldbuf.Get<float>();\n"
        });
    }
    let tile_views: Vec<String> = e
        .bufs
        .iter()
        .filter_map(|b| {
            [
                "rtbuf", "stbuf", "rsbuf", "bcbuf", "rrbuf", "brbuf", "fubuf",
            ]
            .iter()
            .find_map(|p| b.name.strip_prefix(p).map(|k| format!("{}b{k}", &p[..2])))
        })
        .collect();
    for v in &tile_views {
        let _ = writeln!(k, "    {v} = {}buf{}.Get<float>();", &v[..2], &v[3..]);
    }
    if e.uses_mask {
        k.push_str("    maskb = maskbuf.Get<uint8_t>();\n");
    }
    k.push_str("  }\n\n");
    if e.split_nw > 0 {
        // The row-split partials: `split_levels` slots of `split_nw` floats per block.
        let _ = writeln!(
            k,
            "  __aicore__ inline void SetWorkspace(GM_ADDR w) {{\n    if (t.split > 1) g_ws.SetGlobalBuffer((__gm__ float*)w, {}u * GetBlockNum() * {}u);\n  }}\n",
            e.split_levels, e.split_nw
        );
    }
    k.push_str("  __aicore__ inline void Process() {\n");
    k.push_str(&e.body);
    k.push_str("  }\n\n private:\n");
    if e.uses_tile || e.uses_reduce {
        k.push_str(FOLD_OPS);
    }
    if e.uses_tile {
        k.push_str(TILE_REDUCE);
    }
    if e.uses_reduce {
        k.push_str(ROW_REDUCE);
    }
    if e.has_wide {
        k.push_str(WIDE_BIN);
    }
    k.push_str("  TPipe pipe;\n  AgcTiling t;\n");
    k.push_str("  uint32_t C = 0, P = 0, T = 0, K = 0, BN = 0, TL = 0, LIN = 0, R = 0;\n");
    for b in &e.bufs {
        let _ = writeln!(k, "  {} {};", b.decl, b.name);
    }
    for p in &params {
        let _ = writeln!(k, "  GlobalTensor<{}> g_{};", cty(p.decl.dtype), p.name);
    }
    k.push_str(&view_decl);
    if e.split_nw > 0 {
        k.push_str("  GlobalTensor<float> g_ws;\n");
    }
    for tmp in 0..e.ntemps {
        let _ = writeln!(k, "  LocalTensor<float> tmp{tmp};");
    }
    if e.uses_reduce {
        k.push_str("  LocalTensor<float> redb, rfoldb;\n");
    }
    if e.uses_shift {
        k.push_str("  LocalTensor<float> shiftb;\n");
    }
    if e.uses_tile {
        k.push_str("  LocalTensor<float> accb, foldb;\n");
    }
    for v in &tile_views {
        let _ = writeln!(k, "  LocalTensor<float> {v};");
    }
    if e.uses_mask {
        k.push_str("  LocalTensor<uint8_t> maskb;\n");
    }
    k.push_str("};\n\n");
    let names: Vec<String> = params
        .iter()
        .map(|p| format!("GM_ADDR p_{}", p.name))
        .collect();
    let call: Vec<String> = params.iter().map(|p| format!("p_{}", p.name)).collect();
    let _ = writeln!(
        k,
        "extern \"C\" __global__ __aicore__ void AGC_KERNEL({}, GM_ADDR workspace, AgcTiling tiling) {{",
        names.join(", ")
    );
    k.push_str("  (void)workspace;\n  SynthKernel op;\n");
    let _ = writeln!(k, "  op.Init({}, tiling);", call.join(", "));
    if e.split_nw > 0 {
        k.push_str("  op.SetWorkspace(workspace);\n");
    }
    k.push_str("  op.Process();\n}\n");
    // The fp32 views of f16 inputs: `f_x` names come from `fb_x.Get`; ensure the buffers'
    // tensors are declared where used (emit_loads does that).
    let tiling = tiling_code(&e, &fields, &named);
    Emitted {
        kernel: k,
        tiling,
        fields,
    }
}

/// The kernel's tile-wide row reduction ([`RowStats::Tile`]): `dst[j]` = sum (kind 0), max
/// (1) or min (2) of `x[j·P + c]` over `c < C`, for the `nt ≤ 255` rows of a tile at pitch
/// `P`. Rows of at most 2040 elements (a repeat stride of `P/8 ≤ 255` blocks, api-reference
/// §4.1) fold into one 64-lane group per row with one masked instruction per 64-column
/// group for all rows (repeat = row), longer rows by halving count-form folds of each row;
/// then one `WholeReduce*` per tile (per row for long rows). Rows under 64 elements reduce
/// straight from the tile with a `C`-lane mask. Only lanes `c < C` are read.
const FOLD_OPS: &str = r#"  __aicore__ inline void TileOp(int kind, const LocalTensor<float>& d, const LocalTensor<float>& a,
                                const LocalTensor<float>& b, uint32_t lanes, uint32_t rep,
                                const BinaryRepeatParams& p) {
    uint64_t m = static_cast<uint64_t>(lanes);
    if (kind == 0) Add(d, a, b, m, rep, p);
    else if (kind == 1) Max(d, a, b, m, rep, p);
    else Min(d, a, b, m, rep, p);
  }
  __aicore__ inline void FoldOp(int kind, const LocalTensor<float>& d, const LocalTensor<float>& a,
                                const LocalTensor<float>& b, uint32_t count) {
    int32_t c = static_cast<int32_t>(count);
    if (kind == 0) Add(d, a, b, c);
    else if (kind == 1) Max(d, a, b, c);
    else Min(d, a, b, c);
  }
  __aicore__ inline void WholeOp(int kind, const LocalTensor<float>& d, const LocalTensor<float>& x, uint32_t lanes,
                                 uint32_t rep, uint32_t srcRep) {
    int32_t m = static_cast<int32_t>(lanes), r = static_cast<int32_t>(rep), sr = static_cast<int32_t>(srcRep);
    if (kind == 0) WholeReduceSum(d, x, m, r, 1, 1, sr);
    else if (kind == 1) WholeReduceMax(d, x, m, r, 1, 1, sr, ReduceOrder::ORDER_ONLY_VALUE);
    else WholeReduceMin(d, x, m, r, 1, 1, sr, ReduceOrder::ORDER_ONLY_VALUE);
  }
"#;

/// `TileReduce`, over the operations of [`FOLD_OPS`].
const TILE_REDUCE: &str = r#"  __aicore__ inline void TileReduce(const LocalTensor<float>& dst, const LocalTensor<float>& x, uint32_t nt, int kind) {
    const uint32_t G = C / 64u, tl = C % 64u;
    if (P <= 2040u) {
      const uint8_t rs = static_cast<uint8_t>(P / 8u);
      if (G == 0u) {
        WholeOp(kind, dst, x, tl, nt, rs);
        return;
      }
      if (G == 1u && tl == 0u) {
        WholeOp(kind, dst, x, 64u, nt, rs);
        return;
      }
      if (G >= 2u) {
        TileOp(kind, accb, x, x[64], 64u, nt, BinaryRepeatParams(1, 1, 1, 8, rs, rs));
      } else {
        Adds(accb, x, 0.0f, static_cast<uint64_t>(64), nt, UnaryRepeatParams(1, 1, 8, rs));
      }
      for (uint32_t g = 2u; g < G; g++) {
        TileOp(kind, accb, accb, x[g * 64u], 64u, nt, BinaryRepeatParams(1, 1, 1, 8, 8, rs));
      }
      if (tl > 0u) {
        TileOp(kind, accb, accb, x[G * 64u], tl, nt, BinaryRepeatParams(1, 1, 1, 8, 8, rs));
      }
      WholeOp(kind, dst, accb, 64u, nt, 8u);
      return;
    }
    for (uint32_t j = 0; j < nt; j++) {
      LocalTensor<float> row = x[j * P];
      const uint32_t h = G / 2u * 64u;
      FoldOp(kind, foldb, row, row[h], h);
      if (G % 2u) FoldOp(kind, foldb, foldb, row[2u * h], 64u);
      if (tl > 0u) FoldOp(kind, foldb, foldb, row[G * 64u], tl);
      uint32_t len = h;
      while (len > 64u) {
        const uint32_t g = len / 64u, hh = g / 2u * 64u;
        FoldOp(kind, foldb, foldb, foldb[hh], hh);
        if (g % 2u) FoldOp(kind, foldb, foldb, foldb[2u * hh], 64u);
        len = hh;
      }
      WholeOp(kind, dst[j], foldb, 64u, 1u, 8u);
    }
  }
"#;

/// One row (or chunk) of `n` fp32 elements reduced to `dst[0]` (`kind` 0 sum, 1 max, 2
/// min): halving count-form folds (the simple vector ops' 64 fp32 lanes per cycle) into
/// `scr` down to one 64-lane group, then one `WholeReduce` — instead of the count-form
/// `ReduceSum`/`ReduceMax`, whose repeat-wise reductions run at the WholeReduce rate (64/7
/// fp32 elements per cycle, api-reference §4.2). `scr` holds at least n / 2 + 64 floats
/// and may be `x` itself (x is then overwritten). Sums are pairwise.
const ROW_REDUCE: &str = r#"  __aicore__ inline void RowReduce(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                   const LocalTensor<float>& scr, uint32_t n, int kind) {
    const uint32_t G = n / 64u, tl = n % 64u;
    if (G == 0u) {
      WholeOp(kind, dst, x, tl, 1u, 8u);
      return;
    }
    if (G == 1u && tl == 0u) {
      WholeOp(kind, dst, x, 64u, 1u, 8u);
      return;
    }
    uint32_t len = 64u;
    if (G == 1u) {
      Adds(scr, x, 0.0f, static_cast<int32_t>(64));
    } else {
      len = G / 2u * 64u;
      FoldOp(kind, scr, x, x[len], len);
      if (G % 2u) FoldOp(kind, scr, scr, x[2u * len], 64u);
    }
    if (tl > 0u) FoldOp(kind, scr, scr, x[G * 64u], tl);
    while (len > 64u) {
      const uint32_t g = len / 64u, hh = g / 2u * 64u;
      FoldOp(kind, scr, scr, scr[hh], hh);
      if (g % 2u) FoldOp(kind, scr, scr, scr[2u * hh], 64u);
      len = hh;
    }
    WholeOp(kind, dst, scr, 64u, 1u, 8u);
  }
"#;

/// The wide body's binary operation ([`RowStats::Wide`]) on fp32 tiles at pitch `P ≤ 2040`
/// over the `nt ≤ 255` rows of a tile, one masked instruction per 64-column group with
/// repeat = row: `op` 0 Add, 1 Sub, 2 Mul, 3 Div, 4 Max, 5 Min; each operand's mode is 0 (a
/// tile: repeat stride `P/8` blocks), 1 (one 32-byte block per row, a `Brcb` broadcast:
/// block stride 0, repeat stride 1) or 2 (one row read by every row: repeat stride 0).
/// Only lanes `c < C` are written (api-reference §4.1: repeat strides of at most 255 blocks).
const WIDE_BIN: &str = r#"  __aicore__ inline void WideBin(int op, const LocalTensor<float>& d, const LocalTensor<float>& a, int am,
                                 const LocalTensor<float>& b, int bm, uint32_t nt) {
    const uint8_t rs = static_cast<uint8_t>(P / 8u);
    const uint8_t ab = am == 1 ? 0 : 1, bb = bm == 1 ? 0 : 1;
    const uint8_t ar = am == 0 ? rs : (am == 1 ? 1 : 0), br = bm == 0 ? rs : (bm == 1 ? 1 : 0);
    const BinaryRepeatParams p(1, ab, bb, rs, ar, br);
    const uint8_t rep = static_cast<uint8_t>(nt);
    for (uint32_t c0 = 0; c0 < C; c0 += 64u) {
      const uint64_t m = C - c0 < 64u ? C - c0 : 64u;
      const LocalTensor<float> x = am == 1 ? a : a[c0];
      const LocalTensor<float> y = bm == 1 ? b : b[c0];
      if (op == 0) Add(d[c0], x, y, m, rep, p);
      else if (op == 1) Sub(d[c0], x, y, m, rep, p);
      else if (op == 2) Mul(d[c0], x, y, m, rep, p);
      else if (op == 3) Div(d[c0], x, y, m, rep, p);
      else if (op == 4) Max(d[c0], x, y, m, rep, p);
      else Min(d[c0], x, y, m, rep, p);
    }
  }
"#;

/// The GM-side `srcStride` of a multi-row DataCopyPad of a view whose rows are `pitch`
/// elements apart (`C` elements read per row): the gap in bytes between the end of one row's
/// burst and the start of the next (api-reference §3.2: DataCopyPad's GM-side stride is in
/// bytes, its UB-side stride in 32-byte blocks). `0` for a tensor whose rows are `C` long.
fn view_src_stride(pitch: Option<&str>, sz: usize) -> String {
    match pitch {
        Some(p) => format!("({p} - C) * {sz}u"),
        None => "0".into(),
    }
}

/// The kernel's views (`lower::View`): each a `GlobalTensor` of its parent's dtype, the
/// parent's tensor from element `first` on (`GlobalTensor::operator[]`, no raw pointers).
/// Returns (the lines of `Init`, the member declarations).
fn view_globals(op: &OpSpec, lw: &Lowered) -> (String, String) {
    let mut init = String::new();
    let mut decl = String::new();
    for v in lw.views.iter().chain(&lw.out_views) {
        let Some(dtype) = op
            .input(&v.parent)
            .map(|p| p.decl.dtype)
            .or_else(|| op.output(&v.parent).map(|p| p.decl.dtype))
        else {
            continue;
        };
        let ty = cty(dtype);
        let _ = writeln!(init, "    g_{} = g_{}[{}];", v.name, v.parent, v.first);
        let _ = writeln!(decl, "  GlobalTensor<{ty}> g_{};", v.name);
    }
    (init, decl)
}

fn round32(bytes: &str) -> String {
    format!("(({bytes}) + 31) / 32 * 32")
}

/// The derived sizes, the same in the kernel and the tiling function.
fn sizes_code(flat: bool, slab: bool, ind: &str) -> String {
    let mut s = String::new();
    if slab {
        let _ = writeln!(s, "{ind}C = t.cols; P = (C + 15u) / 16u * 16u; T = t.tile_rows; K = t.chunk; BN = t.buf_num;");
        let _ = writeln!(s, "{ind}TL = K; LIN = T * K; R = 2;");
    } else if flat {
        let _ = writeln!(s, "{ind}C = 0; P = 0; T = 1; K = t.chunk; BN = t.buf_num;");
        let _ = writeln!(s, "{ind}TL = K; LIN = K; R = 0;");
    } else {
        let _ = writeln!(s, "{ind}C = t.cols; P = (C + 15u) / 16u * 16u; T = t.tile_rows; K = t.chunk; BN = t.buf_num;");
        let _ = writeln!(s, "{ind}TL = t.resident != 0 ? P + 64u : K;");
        let _ = writeln!(s, "{ind}LIN = t.resident != 0 ? T * P + 64u : K;");
        let _ = writeln!(s, "{ind}R = t.resident != 0 ? 1u : 0u;");
    }
    s
}

fn tiling_code(e: &Emitter, fields: &[TilingField], named: &[String]) -> String {
    let op = e.op;
    let lw = e.lw;
    let p = e.params;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by agenticcann_build::synth for op `{}`: UB budget from the platform,",
        op.name
    );
    let _ = writeln!(
        s,
        "// tunable parameters: max tile elements {}, buffers {}, max blocks {}, tiles per core {}.",
        p.max_tile_elems, p.buffer_num, p.max_blocks, p.tiles_per_core
    );
    s.push_str("#include \"agenticcann_tiling.h\"\n#include <cstdint>\n\n");
    // A local struct mirror of the kernel's size variables.
    s.push_str("namespace {\nstruct Sizes {\n  uint64_t C, P, T, K, BN, TL, LIN, R;\n};\n");
    s.push_str("uint64_t ub_bytes(const Sizes& z) {\n  const uint64_t C = z.C, P = z.P, T = z.T, K = z.K, BN = z.BN, TL = z.TL, LIN = z.LIN, R = z.R;\n  (void)C; (void)P; (void)T; (void)K; (void)BN; (void)TL; (void)LIN; (void)R;\n  uint64_t b = 0;\n");
    for b in &e.bufs {
        let _ = writeln!(
            s,
            "  b += ({}) * {};  // {}",
            b.num,
            round32(&b.bytes),
            b.name
        );
    }
    s.push_str("  return b;\n}\n}  // namespace\n\n");
    s.push_str("extern \"C\" int AGC_TILING_FN(const AgcPlatform* platform, const uint64_t* dims, uint32_t num_dims,\n                             AgcTiling* tiling, uint32_t* block_dim, uint64_t* workspace_bytes) {\n");
    let _ = writeln!(s, "  if (num_dims != {}) return 1;", named.len());
    for (i, d) in named.iter().enumerate() {
        let _ = writeln!(
            s,
            "  if (dims[{i}] == 0 || dims[{i}] > 0xFFFFFFFFull) return 1;"
        );
        let _ = writeln!(s, "  const uint64_t d_{d} = dims[{i}];");
    }
    let dimexpr = |d: &Dim| -> String {
        match d {
            Dim::Fixed(n) => format!("{n}ull"),
            Dim::Named(n) => format!("d_{n}"),
        }
    };
    let prod64 = |ds: &[Dim]| -> String {
        if ds.is_empty() {
            "1ull".into()
        } else {
            ds.iter().map(&dimexpr).collect::<Vec<_>>().join(" * ")
        }
    };
    let _ = writeln!(
        s,
        "  const uint64_t budget = platform->ub_bytes > 1024 ? platform->ub_bytes - 1024 : 0;"
    );
    let _ = writeln!(
        s,
        "  const uint64_t cores = platform->aiv_cores < {} ? platform->aiv_cores : {};",
        p.max_blocks, p.max_blocks
    );
    let _ = writeln!(s, "  const uint64_t BN = {};", p.buffer_num);
    s.push_str("  uint64_t ws = 0;\n");
    let _ = writeln!(s, "  const uint64_t max_tile = {};", p.max_tile_elems);
    if lw.flat {
        let mut all = lw.prog.lead.clone();
        all.push(lw.prog.cols.clone());
        let _ = writeln!(s, "  const uint64_t total = {};", prod64(&all));
        s.push_str("  if (total > 0xFFFFFFFFull) return 1;\n");
        s.push_str("  const uint64_t units = (total + 63) / 64;\n");
        s.push_str(
            "  uint64_t blocks = units < cores ? units : cores;\n  if (blocks == 0) blocks = 1;\n",
        );
        s.push_str("  const uint64_t per = (units + blocks - 1) / blocks * 64;\n  blocks = (total + per - 1) / per;\n");
        s.push_str("  uint64_t lo = 1, hi = (max_tile / 64) > 0 ? max_tile / 64 : 1;\n  if (hi > per / 64) hi = per / 64;\n  if (hi == 0) hi = 1;\n");
        s.push_str("  auto fits = [&](uint64_t k) { Sizes z{0, 0, 1, k * 64, BN, k * 64, k * 64, 0}; return ub_bytes(z) <= budget; };\n");
        s.push_str("  if (!fits(1)) return 1;\n  while (lo < hi) { uint64_t mid = (lo + hi + 1) / 2; if (fits(mid)) lo = mid; else hi = mid - 1; }\n");
        let _ = writeln!(
            s,
            "  // Even chunks: as few as fit, at least {} per core (copy-in and copy-out overlap\n  // compute; a short last chunk would not shorten the pipeline's fill or drain).\n  {{\n    const uint64_t units_pc = per / 64;\n    uint64_t nch = (units_pc + lo - 1) / lo;\n    if (nch < {}) nch = {} < units_pc ? {} : units_pc;\n    if (nch == 0) nch = 1;\n    lo = (units_pc + nch - 1) / nch;\n  }}",
            p.tiles_per_core, p.tiles_per_core, p.tiles_per_core, p.tiles_per_core
        );
        s.push_str("  tiling->total = static_cast<uint32_t>(total);\n  tiling->per_core = static_cast<uint32_t>(per);\n  tiling->chunk = static_cast<uint32_t>(lo * 64);\n  tiling->buf_num = static_cast<uint32_t>(BN);\n");
    } else if e.slab {
        let _ = writeln!(s, "  const uint64_t rows = {};", prod64(&lw.prog.lead));
        let _ = writeln!(s, "  const uint64_t C = {};", dimexpr(&lw.prog.cols));
        s.push_str("  if (rows > 0xFFFFFFFFull || C > 0xFFFFFFFFull || rows * C > 0xFFFFFFFFull) return 1;\n");
        // The longest reduced axis: the most rows one tile needs.
        let counts: Vec<String> = lw
            .prog
            .nodes
            .iter()
            .filter_map(|n| match &n.op {
                Op::RedMid { count, .. } => Some(match count.strip_prefix("t.") {
                    Some(dim) => dim.to_string(),
                    None => format!("{}ull", count.trim_end_matches('u')),
                }),
                _ => None,
            })
            .collect();
        let _ = writeln!(s, "  uint64_t cnt = 1;");
        for c in &counts {
            let _ = writeln!(s, "  if ({c} > cnt) cnt = {c};");
        }
        s.push_str("  const uint64_t P = (C + 15) / 16 * 16;\n");
        s.push_str("  auto fits = [&](uint64_t w, uint64_t kb) { Sizes z{C, P, kb, w, BN, w, kb * w, 2}; return ub_bytes(z) <= budget; };\n");
        s.push_str("  if (!fits(16, 1)) return 1;\n");
        // The widest slab with one row of the reduced axis in UB, at most max_tile.
        s.push_str("  uint64_t wmax = P < max_tile ? P : max_tile / 16 * 16;\n  if (wmax < 16) wmax = 16;\n  while (wmax > 16 && !fits(wmax, 1)) wmax -= 16;\n");
        // Balance: the fewest columns on the busiest core, ceil(units / cores) slabs of w;
        // ties go to the wider slab (fewer, longer bursts). Slabs of at least 64 elements
        // where the row allows it (128-byte bursts for 16-bit data).
        // GM bytes one column of one reduced row costs (every reduction's row inputs), and
        // a unit's fixed cost in bytes at one core's MTE2 rate: its first copy's completion
        // latency and its store's (mte2_latency_ns + mte3_latency_ns of the profile, 0.8 us,
        // at about 30 GB/s per core: 24 KiB).
        let mut bpe = 0;
        for n in &lw.prog.nodes {
            if let Op::RedMid { sub, .. } = &n.op {
                for m in &sub.nodes {
                    if let Op::Input {
                        name,
                        access: Access::Row { .. },
                    } = &m.op
                    {
                        bpe += e.in_dtype(name).size_bytes();
                    }
                }
            }
        }
        let _ = writeln!(
            s,
            "  const uint64_t bpe = {}, unit_bytes = 24576;",
            bpe.max(1)
        );
        s.push_str(
            "  const uint64_t wlo = wmax < 64 ? wmax : 64;\n  uint64_t W = wlo, best = ~0ull;\n",
        );
        s.push_str("  for (uint64_t w = wlo; w <= wmax; w += 16) {\n    const uint64_t units = rows * ((C + w - 1) / w);\n    const uint64_t cost = (units + cores - 1) / cores * (w * cnt * bpe + unit_bytes);\n    if (cost <= best) { best = cost; W = w; }\n  }\n");
        let _ = writeln!(
            s,
            "  // Rows of the reduced axis per tile: as many as fit and max_tile allows, at most\n  // ceil(cnt / {}) so that copy-in overlaps compute, at most 4095 (blockCount).\n  uint64_t kmax = max_tile / W;\n  if (kmax == 0) kmax = 1;\n  const uint64_t tpc = {};\n  const uint64_t kc = (cnt + tpc - 1) / tpc;\n  if (kmax > kc) kmax = kc;\n  if (kmax > 4095) kmax = 4095;\n  if (kmax == 0) kmax = 1;\n  uint64_t lo = 1, hi = kmax;\n  while (lo < hi) {{ uint64_t mid = (lo + hi + 1) / 2; if (fits(W, mid)) lo = mid; else hi = mid - 1; }}",
            p.tiles_per_core, p.tiles_per_core
        );
        s.push_str("  const uint64_t units = rows * ((C + W - 1) / W);\n  uint64_t blocks = units < cores ? units : cores;\n  if (blocks == 0) blocks = 1;\n");
        s.push_str("  tiling->rows = static_cast<uint32_t>(rows);\n  tiling->cols = static_cast<uint32_t>(C);\n  tiling->buf_num = static_cast<uint32_t>(BN);\n");
        s.push_str("  tiling->split = 1;\n  tiling->slice = static_cast<uint32_t>(C);\n  tiling->resident = 2;\n  tiling->tile_rows = static_cast<uint32_t>(lo);\n  tiling->chunk = static_cast<uint32_t>(W);\n");
    } else {
        let _ = writeln!(s, "  const uint64_t rows = {};", prod64(&lw.prog.lead));
        let _ = writeln!(s, "  const uint64_t C = {};", dimexpr(&lw.prog.cols));
        s.push_str("  if (rows > 0xFFFFFFFFull || C > 0xFFFFFFFFull || rows * C > 0xFFFFFFFFull) return 1;\n");
        s.push_str(
            "  uint64_t blocks = rows < cores ? rows : cores;\n  if (blocks == 0) blocks = 1;\n",
        );
        s.push_str("  const uint64_t per = (rows + blocks - 1) / blocks;\n");
        s.push_str("  const uint64_t P = (C + 15) / 16 * 16;\n");
        s.push_str("  auto fits_res = [&](uint64_t T) { Sizes z{C, P, T, 0, BN, P + 64, T * P + 64, 1}; return ub_bytes(z) <= budget; };\n");
        s.push_str("  auto fits_chunk = [&](uint64_t k) { Sizes z{C, P, 1, k * 64, BN, k * 64, k * 64, 0}; return ub_bytes(z) <= budget; };\n");
        s.push_str("  uint64_t tmax = max_tile / P;\n  if (tmax > per) tmax = per;\n  if (tmax > 255) tmax = 255;\n");
        let _ = writeln!(
            s,
            "  // Aim for {} tiles per core so copy-in overlaps compute.\n  const uint64_t tpc = {};\n  if (tpc > 1 && tmax > (per + tpc - 1) / tpc) tmax = (per + tpc - 1) / tpc;\n  if (tmax == 0) tmax = 1;",
            p.tiles_per_core, p.tiles_per_core
        );
        s.push_str("  tiling->rows = static_cast<uint32_t>(rows);\n  tiling->cols = static_cast<uint32_t>(C);\n  tiling->buf_num = static_cast<uint32_t>(BN);\n");
        s.push_str("  tiling->split = 1;\n  tiling->slice = static_cast<uint32_t>(C);\n");
        s.push_str("  if (fits_res(1)) {\n    uint64_t lo = 1, hi = tmax;\n    while (lo < hi) { uint64_t mid = (lo + hi + 1) / 2; if (fits_res(mid)) lo = mid; else hi = mid - 1; }\n");
        s.push_str("    tiling->resident = 1;\n    tiling->tile_rows = static_cast<uint32_t>(lo);\n    tiling->chunk = static_cast<uint32_t>(C);\n  } else {\n");
        let has_mid = lw
            .prog
            .nodes
            .iter()
            .any(|n| matches!(n.op, Op::RedMid { .. }));
        if has_mid {
            s.push_str("    (void)fits_chunk;\n    return 1;  // a leading-axis reduction needs whole rows in UB\n");
        } else {
            s.push_str("    uint64_t lo = 1, hi = (C + 63) / 64;\n    if (hi > max_tile / 64) hi = max_tile / 64 > 0 ? max_tile / 64 : 1;\n    if (!fits_chunk(1)) return 1;\n");
            s.push_str("    while (lo < hi) { uint64_t mid = (lo + hi + 1) / 2; if (fits_chunk(mid)) lo = mid; else hi = mid - 1; }\n");
            s.push_str("    tiling->resident = 0;\n    tiling->tile_rows = 1;\n    tiling->chunk = static_cast<uint32_t>(lo * 64);\n");
            // Few long rows: split each row over several blocks (at most 64, every block
            // resident at once for the SyncAll), slices of whole 64-element groups.
            let _ = writeln!(
                s,
                "    if (rows * 2 <= cores) {{\n      uint64_t sp = cores / rows;\n      const uint64_t units = (C + 63) / 64;\n      if (sp > units) sp = units;\n      if (sp > 64) sp = 64;\n      if (sp > 1) {{\n        const uint64_t slice = (units + sp - 1) / sp * 64;\n        sp = (C + slice - 1) / slice;\n        tiling->split = static_cast<uint32_t>(sp);\n        tiling->slice = static_cast<uint32_t>(slice);\n        if (tiling->chunk > slice) tiling->chunk = static_cast<uint32_t>(slice);\n        blocks = rows * sp;\n        ws = {}ull * blocks * {}ull * 4ull;\n      }}\n    }}",
                e.split_levels, e.split_nw
            );
        }
        s.push_str("  }\n");
    }
    for d in named {
        let _ = writeln!(s, "  tiling->d_{d} = static_cast<uint32_t>(d_{d});");
    }
    let _ = fields;
    s.push_str(
        "  *block_dim = static_cast<uint32_t>(blocks);\n  *workspace_bytes = ws;\n  return 0;\n}\n",
    );
    s
}
