//! Leading-axis reductions in column slabs (`sum(x, axis=1)` of `[batch, seq, hidden]`).
//!
//! The row layout gives each output row to one core and reads the reduced axis one GM row
//! at a time: `[1, 128, 4096]` ran on one core, 128 DataCopyPads back to back, each
//! waiting for its completion (11% of the HBM roofline). Here the work unit is a *slab*:
//! columns `[c0, c0 + n)` of one output row, `n ≤ K` (the tiling's `chunk`, a multiple of
//! 16 elements so every UB row pitch is whole 32-byte blocks). Units are spread over the
//! cores (the tiling picks `K` to balance them), and each unit reads the reduced axis in
//! tiles of `T` (the tiling's `tile_rows`) GM rows, one DataCopyPad per tile and input
//! (`blockCount` = rows, `srcStride` = the GM gap between them, bytes; api-reference §3.2),
//! prefetched one tile ahead. A tile of `kb` rows, pitch `K`, is evaluated with count-form
//! instructions over `kb · K` elements, folded in halves down to one row (⌈log₂ kb⌉
//! instructions) and added into the unit's fp32 accumulator.
//!
//! A sub-program with per-row values (`x * mask` with `mask[b, s, 1]`) is evaluated row
//! by row within the tile instead (each row's scalars read at its own GM row) and each row
//! is added into the accumulator directly.

use std::collections::{BTreeSet, HashMap};

use super::{cty, full_output, w, zero, Emitter, Mode, Prog};
use crate::spec::reference::ReduceOp;
use crate::spec::Dtype;
use crate::synth::lower::{Access, Level, Lowered, Op, Program};
use crate::synth::SynthError;

/// True when `lw` is emitted in column slabs: it has leading-axis reductions and no
/// last-axis one, every output is a full row, and each reduction's operand reads only
/// contiguous GM rows and per-row or uniform values (no `[C]` vectors inside it).
pub(super) fn slab_ok(e: &Emitter, lw: &Lowered) -> bool {
    let nodes = &lw.prog.nodes;
    if nodes.iter().any(|n| matches!(n.op, Op::RedLast(..)))
        || !nodes.iter().any(|n| matches!(n.op, Op::RedMid { .. }))
    {
        return false;
    }
    if !lw
        .outputs
        .iter()
        .all(|(name, _, node)| nodes[*node].level == Level::Row && full_output(e, name))
    {
        return false;
    }
    nodes.iter().all(|n| match &n.op {
        Op::RedMid { sub, .. } => sub.nodes.iter().all(|m| match &m.op {
            Op::Input {
                access: Access::Row { contiguous, .. },
                ..
            } => *contiguous,
            Op::Input {
                access: Access::Vec,
                ..
            } => false,
            _ => true,
        }),
        _ => true,
    })
}

/// Emits Process for a [`slab_ok`] program: the unit loop, the tiled reductions and the
/// row program over the accumulators, written to columns `[c0, c0 + n)` of row `r`.
pub(super) fn emit_slab_body(e: &mut Emitter, s: &mut String) -> Result<(), SynthError> {
    let lw = e.lw;
    let pg = Prog::new(&lw.prog, "");
    // Output queues: one slab each.
    for (name, d, _) in &lw.outputs {
        let decl = format!("TQue<TPosition::VECOUT, {}>", super::queue_depth(e.params));
        e.add_buf(
            format!("oq_{name}"),
            decl,
            "BN",
            format!("(TL) * {}", d.size_bytes()),
        );
    }
    w(
        s,
        1,
        "uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();",
    );
    w(
        s,
        1,
        "const uint32_t S = (C + K - 1u) / K, units = t.rows * S;",
    );
    w(
        s,
        1,
        "uint32_t base = units / blocks, rem = units % blocks;",
    );
    w(
        s,
        1,
        "uint32_t u0 = idx * base + (idx < rem ? idx : rem), u1 = u0 + base + (idx < rem ? 1u : 0u);",
    );
    w(s, 1, "for (uint32_t u = u0; u < u1; u++) {");
    let ind = 2;
    w(s, ind, "const uint32_t r = u / S, c0 = (u % S) * K;");
    w(s, ind, "const uint32_t n = (C - c0 < K) ? (C - c0) : K;");
    w(s, ind, "const uint32_t n64 = (n + 63u) / 64u * 64u;");
    w(s, ind, "(void)n64;");
    super::emit_scalars_of_stage(e, s, ind, &pg, 0, "r");
    let mut acc_views: HashMap<usize, String> = HashMap::new();
    for i in 0..lw.prog.nodes.len() {
        let Op::RedMid {
            op,
            sub,
            count,
            inner,
        } = &lw.prog.nodes[i].op
        else {
            continue;
        };
        let init = match op {
            ReduceOp::Max => "(-INFINITY)",
            ReduceOp::Min => "INFINITY",
            _ => "0.0f",
        };
        let fold = match op {
            ReduceOp::Max => "Max",
            ReduceOp::Min => "Min",
            _ => "Add",
        };
        let spg = Prog::new(sub, &format!("m{i}_"));
        let rm_of = |k: &str| format!("((r / {inner}) * {count} + ({k})) * {inner} + r % {inner}");
        if lw.prog.nodes[i].level != Level::Row {
            // A per-row value (`sum(mask, axis=1)` of `mask[b, s, 1]`): a scalar loop.
            if sub.nodes[sub.root].level == Level::Row {
                return Err(e.fail("a leading-axis reduction of rows into a per-row scalar"));
            }
            w(s, ind, &format!("float s{i} = {init};"));
            w(
                s,
                ind,
                &format!("for (uint32_t k = 0; k < {count}; k++) {{"),
            );
            w(s, ind + 1, &format!("const uint32_t rm = {};", rm_of("k")));
            for j in 0..sub.nodes.len() {
                e.emit_scalar(s, ind + 1, &spg, j, "rm");
            }
            let x = spg.sv(sub.root);
            let lhs = format!("s{i}");
            match op {
                ReduceOp::Max => w(s, ind + 1, &format!("if ({x} > {lhs}) {lhs} = {x};")),
                ReduceOp::Min => w(s, ind + 1, &format!("if ({x} < {lhs}) {lhs} = {x};")),
                _ => w(s, ind + 1, &format!("{lhs} += {x};")),
            }
            w(s, ind, "}");
            if *op == ReduceOp::Mean {
                w(
                    s,
                    ind,
                    &format!("s{i} = s{i} / static_cast<float>({count});"),
                );
            }
            continue;
        }
        if sub.nodes[sub.root].level != Level::Row {
            return Err(e.fail("a leading-axis reduction of scalars into a row"));
        }
        let acc = format!("acc{i}");
        e.add_buf(
            format!("accb{i}"),
            "TBuf<TPosition::VECCALC>",
            "1",
            "(TL) * 4".into(),
        );
        w(
            s,
            ind,
            &format!("LocalTensor<float> {acc} = accb{i}.Get<float>();"),
        );
        w(s, ind, &format!("Duplicate({acc}, {init}, n);"));
        let set = spg.closure(&[sub.root]);
        let ins = spg.inputs_of(&set);
        // Per-row values inside the operand: evaluate the tile row by row.
        let by_rows = sub.nodes.iter().any(|m| m.level == Level::RowScalar);
        let mut issued = Vec::new();
        for &j in &ins {
            let (q, f, d) = e.input_bufs(&spg, j, "LIN");
            let Op::Input {
                name,
                access: Access::Row { offset, .. },
            } = &sub.nodes[j].op
            else {
                return Err(e.fail("internal: a slab input that is not a GM row"));
            };
            issued.push((q, f, d, name.clone(), offset.clone()));
        }
        // The copy-in of the tile starting at row `k` of the reduced axis.
        let issue = |s: &mut String, ind: usize, open: &str, k: &str| {
            w(s, ind, open);
            w(s, ind + 1, &format!("const uint32_t kN = {k};"));
            w(
                s,
                ind + 1,
                &format!("const uint32_t kbN = ({count} - kN < T) ? ({count} - kN) : T;"),
            );
            w(
                s,
                ind + 1,
                &format!("const uint32_t rmA = {};", rm_of("kN")),
            );
            w(s, ind + 1, &format!("const uint32_t rmB = rmA + {inner};"));
            w(s, ind + 1, "(void)rmB;");
            for (q, f, d, name, offset) in &issued {
                let ty = cty(*d);
                let sz = d.size_bytes();
                let ga = offset.replace("ROW", "rmA");
                let gb = offset.replace("ROW", "rmB");
                let pad = format!("DataCopyPadExtParams<{ty}>{{false, 0, 0, {}}}", zero(*d));
                w(
                    s,
                    ind + 1,
                    &format!("LocalTensor<{ty}> q_{f} = {q}.AllocTensor<{ty}>();"),
                );
                w(
                    s,
                    ind + 1,
                    &format!(
                        "const uint32_t gap_{f} = kbN > 1u ? (({gb}) - ({ga}) - n) * {sz}u : 0u;"
                    ),
                );
                w(s, ind + 1, &format!("DataCopyPad(q_{f}, g_{name}[({ga}) + c0], DataCopyExtParams{{static_cast<uint16_t>(kbN), n * {sz}u, gap_{f}, (K * {sz}u - (n * {sz}u + 31u) / 32u * 32u) / 32u, 0}}, {pad});"));
                w(s, ind + 1, &format!("{q}.EnQue(q_{f});"));
            }
            w(s, ind, "}");
        };
        let deq: Vec<(String, String, Dtype, &'static str)> = issued
            .iter()
            .map(|(q, f, d, _, _)| (q.clone(), f.clone(), *d, "kb * K"))
            .collect();
        issue(s, ind, "{", "0u");
        w(
            s,
            ind,
            &format!("for (uint32_t k0 = 0; k0 < {count}; k0 += T) {{"),
        );
        let kind = ind + 1;
        w(
            s,
            kind,
            &format!("const uint32_t kb = ({count} - k0 < T) ? ({count} - k0) : T;"),
        );
        e.emit_consume(s, kind, deq, true);
        issue(
            s,
            kind,
            &format!("if (BN > 1 && k0 + T < {count}) {{"),
            "k0 + T",
        );
        let mut views: HashMap<usize, String> = HashMap::new();
        if by_rows {
            w(s, kind, "for (uint32_t j = 0; j < kb; j++) {");
            let jind = kind + 1;
            w(
                s,
                jind,
                &format!("const uint32_t rm = {};", rm_of("k0 + j")),
            );
            for j in 0..sub.nodes.len() {
                if sub.nodes[j].level != Level::Row {
                    e.emit_scalar(s, jind, &spg, j, "rm");
                }
            }
            for &j in &ins {
                let Op::Input { name, .. } = &sub.nodes[j].op else {
                    continue;
                };
                views.insert(j, format!("f_{}{name}[j * K]", spg.pre));
            }
            let x = eval_root(e, s, jind, &spg, sub, &set, &mut views)?;
            w(s, jind, &format!("{fold}({acc}, {acc}, {x}, n);"));
            w(s, kind, "}");
        } else {
            w(s, kind, "{");
            let tind = kind + 1;
            w(s, tind, "const uint32_t n = kb * K;");
            for j in 0..sub.nodes.len() {
                if sub.nodes[j].level != Level::Row {
                    e.emit_scalar(s, tind, &spg, j, "0u");
                }
            }
            for &j in &ins {
                let Op::Input { name, .. } = &sub.nodes[j].op else {
                    continue;
                };
                views.insert(j, format!("f_{}{name}", spg.pre));
            }
            let x = eval_root(e, s, tind, &spg, sub, &set, &mut views)?;
            // Rows [m − h, m) onto rows [0, h): the halves never overlap (m − h ≥ h).
            w(s, tind, "for (uint32_t m = kb; m > 1u;) {");
            w(s, tind + 1, "const uint32_t h = m / 2u;");
            w(
                s,
                tind + 1,
                &format!("{fold}({x}, {x}, {x}[(m - h) * K], h * K);"),
            );
            w(s, tind + 1, "m -= h;");
            w(s, tind, "}");
            w(s, kind, "}");
            // `n` is the slab's width again.
            w(s, kind, &format!("{fold}({acc}, {acc}, {x}, n);"));
        }
        e.emit_frees(s, kind, &spg, &ins);
        issue(
            s,
            kind,
            &format!("if (BN == 1 && k0 + T < {count}) {{"),
            "k0 + T",
        );
        w(s, ind, "}");
        if *op == ReduceOp::Mean {
            w(
                s,
                ind,
                &format!("Muls({acc}, {acc}, 1.0f / static_cast<float>({count}), n);"),
            );
        }
        acc_views.insert(i, acc);
    }
    super::emit_scalars_after_mid(e, s, ind, &pg);
    // The row program over the accumulators, on the slab.
    let roots: Vec<usize> = lw.outputs.iter().map(|(_, _, n)| *n).collect();
    let set = pg.closure(&roots);
    let ins: Vec<usize> = pg
        .inputs_of(&set)
        .into_iter()
        .filter(|j| !acc_views.contains_key(j))
        .collect();
    e.emit_loads(s, ind, &pg, &ins, "TL", Mode::Chunked, "r", "c0");
    let mut views = acc_views;
    for &j in &ins {
        if let Op::Input { name, .. } = &lw.prog.nodes[j].op {
            views.insert(j, format!("f_{name}"));
        }
    }
    let los = e.emit_rows(s, ind, &pg, &set, &roots, &mut views)?;
    for (k, l) in &los {
        let h = &views[k];
        w(s, ind, &format!("Add({h}, {h}, {l}, n);"));
    }
    for (name, d, node) in &lw.outputs {
        let ty = cty(*d);
        let sz = d.size_bytes();
        w(
            s,
            ind,
            &format!("LocalTensor<{ty}> o_{name} = oq_{name}.AllocTensor<{ty}>();"),
        );
        super::emit_store(s, ind, &pg, *node, &views, &format!("o_{name}"), *d);
        w(s, ind, &format!("oq_{name}.EnQue(o_{name});"));
        w(s, ind, &format!("o_{name} = oq_{name}.DeQue<{ty}>();"));
        w(s, ind, &format!("DataCopyPad(g_{name}[r * C + c0], o_{name}, DataCopyExtParams{{1, n * {sz}u, 0, 0, 0}});"));
        w(s, ind, &format!("oq_{name}.FreeTensor(o_{name});"));
    }
    e.emit_frees(s, ind, &pg, &ins);
    w(s, 1, "}");
    // Every row temporary holds a tile (the sub-programs' operands).
    e.wide_temps = e.ntemps;
    Ok(())
}

/// Evaluates `sub`'s root over `views` (compensation terms folded back in) and returns
/// its view.
fn eval_root(
    e: &mut Emitter,
    s: &mut String,
    ind: usize,
    spg: &Prog,
    sub: &Program,
    set: &BTreeSet<usize>,
    views: &mut HashMap<usize, String>,
) -> Result<String, SynthError> {
    let los = e.emit_rows(s, ind, spg, set, &[sub.root], views)?;
    let x = views[&sub.root].clone();
    if let Some(l) = los.get(&sub.root) {
        w(s, ind, &format!("Add({x}, {x}, {l}, n);"));
    }
    Ok(x)
}
