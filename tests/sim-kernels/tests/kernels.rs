//! Every test kernel on several shapes — a 1-element tail, lengths not divisible by the core
//! count, fewer elements than cores — launched through the agenticcann runtime, compared
//! with an f64 reference computed from the same (low-precision) inputs, and required to
//! finish without a single diagnostic.
#![cfg(kernels_on_sim)]

use std::ffi::c_void;

use agenticcann::{Device, DeviceBuffer, DeviceRepr, Stream};
use half::f16;
use sim_kernels::*;

fn stream() -> Stream {
    Device::new(0).expect("device 0").stream().expect("stream")
}

/// Deterministic inputs in [lo, hi).
fn data(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}
fn halves(v: &[f32]) -> Vec<f16> {
    v.iter().map(|&x| f16::from_f32(x)).collect()
}
fn wide_h(v: &[f16]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}
fn wide_f(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}
fn dev<T: DeviceRepr>(s: &Stream, v: &[T]) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(s, v).expect("from_slice")
}
fn out<T: DeviceRepr>(s: &Stream, n: usize) -> DeviceBuffer<T> {
    DeviceBuffer::zeros(s, n).expect("zeros")
}
fn p<T: DeviceRepr>(b: &DeviceBuffer<T>) -> *mut c_void {
    b.as_raw_ptr() as *mut c_void
}

/// |got - want| <= atol + rtol * |want| for every element.
fn assert_close(what: &str, got: &[f64], want: &[f64], atol: f64, rtol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(
            ok,
            "{what}: element {i}: got {g}, want {w} (atol {atol}, rtol {rtol})"
        );
    }
}

/// The launches since the last call all succeeded without any diagnostic.
fn assert_clean(s: &Stream, what: &str) {
    let launches = s.take_launches().expect("take_launches");
    assert!(!launches.is_empty(), "{what}: no launch recorded");
    for l in launches {
        assert!(
            !l.failed,
            "{what}: launch of {} failed: {:?}",
            l.kernel, l.diagnostics
        );
        assert!(
            l.diagnostics.is_empty(),
            "{what}: {} reported {:?}",
            l.kernel,
            l.diagnostics
        );
        assert!(l.report.is_some(), "{what}: no cost report");
    }
}

/// (elements, blockDim, tile): 1 element; a 1-element tail tile; n < blockDim; n not
/// divisible by blockDim; several tiles per core.
const ELEMENTWISE: [(usize, u32, u32); 6] = [
    (1, 1, 64),
    (4097, 1, 1024),
    (5, 8, 64),
    (1000, 7, 128),
    (3 * 2048 + 13, 8, 256),
    (20_000, 48, 512),
];
/// (rows, cols, blockDim).
const ROWS: [(usize, usize, u32); 6] = [
    (1, 1, 1),
    (3, 7, 2),
    (19, 33, 8),
    (5, 1, 3),
    (21, 513, 4),
    (4, 4097, 3),
];

#[test]
fn add_fp16() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let (x, y) = (
            halves(&data(n, 1, -100.0, 100.0)),
            halves(&data(n, 2, -100.0, 100.0)),
        );
        let (dx, dy, mut dz) = (dev(&s, &x), dev(&s, &y), out::<f16>(&s, n));
        let t = AddTiling {
            totalLength: n as u32,
            tileLength: tile,
        };
        launch(&s, "add_custom", |r| unsafe {
            aclrtlaunch_add_custom(bd, r, p(&dx), p(&dy), dz.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(a, b)| a.to_f64() + b.to_f64())
            .collect();
        assert_close(
            &format!("add n={n} bd={bd}"),
            &wide_h(&dz.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "add");
    }
}

#[test]
fn leaky_relu_fp16() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let x = halves(&data(n, 3, -4.0, 4.0));
        let (dx, mut dy) = (dev(&s, &x), out::<f16>(&s, n));
        let t = LeakyReluTiling {
            totalLength: n as u32,
            tileLength: tile,
            alpha: 0.1,
        };
        launch(&s, "leaky_relu", |r| unsafe {
            aclrtlaunch_leaky_relu(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        // alpha is rounded to fp16 by the kernel (a half scalar).
        let a = f16::from_f32(0.1).to_f64();
        let want: Vec<f64> = x
            .iter()
            .map(|v| {
                let v = v.to_f64();
                if v >= 0.0 {
                    v
                } else {
                    a * v
                }
            })
            .collect();
        assert_close(
            &format!("leaky_relu n={n}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "leaky_relu");
    }
}

#[test]
fn cast_fp16_fp32_both_ways() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let x = halves(&data(n, 4, -1000.0, 1000.0));
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, n));
        let t = CastTiling {
            totalLength: n as u32,
            tileLength: tile,
        };
        launch(&s, "cast_f16_f32", |r| unsafe {
            aclrtlaunch_cast_f16_f32(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let up = dy.to_vec(&s).unwrap();
        assert_eq!(
            up,
            x.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
            "f16->f32 is exact, n={n}"
        );
        let f = data(n, 5, -70000.0, 70000.0);
        let (df, mut dh) = (dev(&s, &f), out::<f16>(&s, n));
        launch(&s, "cast_f32_f16", |r| unsafe {
            aclrtlaunch_cast_f32_f16(bd, r, p(&df), dh.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let down = dh.to_vec(&s).unwrap();
        // CAST_RINT = round to nearest even, what half::f16::from_f32 does (inf beyond 65520).
        let want: Vec<u16> = f.iter().map(|&v| f16::from_f32(v).to_bits()).collect();
        assert_eq!(
            down.iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
            want,
            "f32->f16 RNE, n={n}"
        );
        assert_clean(&s, "cast");
    }
}

#[test]
fn abs_with_unaligned_length() {
    let s = stream();
    for (n, bd) in [(1usize, 1u32), (17, 2), (1001, 7), (33, 48)] {
        let x = halves(&data(n, 6, -5.0, 5.0));
        let (dx, mut dy) = (dev(&s, &x), out::<f16>(&s, n));
        let t = AbsTiling {
            totalLength: n as u32,
        };
        launch(&s, "abs_unaligned", |r| unsafe {
            aclrtlaunch_abs_unaligned(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = x.iter().map(|v| v.to_f64().abs()).collect();
        assert_close(
            &format!("abs n={n}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            0.0,
            0.0,
        );
        assert_clean(&s, "abs");
    }
}

#[test]
fn reduce_sum_rows_with_work_buffer() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        let x = data(rows * cols, 7, -2.0, 2.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, rows));
        let t = ReduceRowsTiling {
            rows: rows as u32,
            cols: cols as u32,
        };
        launch(&s, "reduce_sum_rows", |r| unsafe {
            aclrtlaunch_reduce_sum_rows(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = x
            .chunks(cols)
            .map(|row| row.iter().map(|&v| v as f64).sum())
            .collect();
        assert_close(
            &format!("reduce_sum {rows}x{cols}"),
            &wide_f(&dy.to_vec(&s).unwrap()),
            &want,
            1e-4,
            1e-5,
        );
        assert_clean(&s, "reduce_sum_rows");
    }
}

#[test]
fn whole_reduce_max_in_mask_form() {
    let s = stream();
    for (rows, cols, bd) in [(1usize, 1usize, 1u32), (5, 7, 2), (19, 33, 8), (70, 64, 3)] {
        // All-negative rows (FC-11): a padded zero would win.
        let x = data(rows * cols, 8, -50.0, -1.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, rows));
        let t = WholeMaxTiling {
            rows: rows as u32,
            cols: cols as u32,
        };
        launch(&s, "whole_reduce_max", |r| unsafe {
            aclrtlaunch_whole_reduce_max(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = x
            .chunks(cols)
            .map(|row| row.iter().fold(f64::MIN, |m, &v| m.max(v as f64)))
            .collect();
        assert_close(
            &format!("whole_max {rows}x{cols}"),
            &wide_f(&dy.to_vec(&s).unwrap()),
            &want,
            0.0,
            0.0,
        );
        assert_clean(&s, "whole_reduce_max");
    }
}

#[test]
fn softmax_over_rows() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        let x = data(rows * cols, 9, -20.0, 20.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, rows * cols));
        let t = SoftmaxTiling {
            rows: rows as u32,
            cols: cols as u32,
        };
        launch(&s, "softmax_rows", |r| unsafe {
            aclrtlaunch_softmax_rows(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let mut want = Vec::new();
        for row in x.chunks(cols) {
            let m = row.iter().fold(f64::MIN, |m, &v| m.max(v as f64));
            let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
            want.extend(row.iter().map(|&v| (v as f64 - m).exp() / sum));
        }
        assert_close(
            &format!("softmax {rows}x{cols}"),
            &wide_f(&dy.to_vec(&s).unwrap()),
            &want,
            1e-6,
            1e-4,
        );
        assert_clean(&s, "softmax");
    }
}

fn rms_ref(x: &[f64], gamma: &[f64], cols: usize, eps: f64) -> Vec<f64> {
    let mut want = Vec::new();
    for row in x.chunks(cols) {
        let ms: f64 = row.iter().map(|v| v * v).sum::<f64>() / cols as f64;
        let r = 1.0 / (ms + eps).sqrt();
        want.extend(row.iter().zip(gamma).map(|(v, g)| v * r * g));
    }
    want
}

#[test]
fn rms_norm_fp16() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        // Values around 300 overflow fp16 when squared in fp16 (FC-19); the kernel squares in fp32.
        let x = halves(&data(rows * cols, 10, -300.0, 300.0));
        let g = halves(&data(cols, 11, 0.5, 1.5));
        let (dx, dg, mut dy) = (dev(&s, &x), dev(&s, &g), out::<f16>(&s, rows * cols));
        let t = RmsNormTiling {
            rows: rows as u32,
            cols: cols as u32,
            eps: 1e-6,
        };
        launch(&s, "rms_norm", |r| unsafe {
            aclrtlaunch_rms_norm(bd, r, p(&dx), p(&dg), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want = rms_ref(&wide_h(&x), &wide_h(&g), cols, 1e-6);
        assert_close(
            &format!("rms_norm {rows}x{cols}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "rms_norm");
    }
}

#[test]
fn layer_norm_fp32() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        // Offset inputs (mean 1000, spread 1): a one-pass variance would cancel (FC-20).
        let x = data(rows * cols, 12, 999.0, 1001.0);
        let g = data(cols, 13, 0.5, 1.5);
        let b = data(cols, 14, -1.0, 1.0);
        let (dx, dg, db, mut dy) = (
            dev(&s, &x),
            dev(&s, &g),
            dev(&s, &b),
            out::<f32>(&s, rows * cols),
        );
        let t = LayerNormTiling {
            rows: rows as u32,
            cols: cols as u32,
            eps: 1e-5,
        };
        launch(&s, "layer_norm", |r| unsafe {
            aclrtlaunch_layer_norm(
                bd,
                r,
                p(&dx),
                p(&dg),
                p(&db),
                dy.as_raw_mut_ptr(),
                tiling_ptr(&t),
            )
        })
        .unwrap();
        let mut want = Vec::new();
        for row in x.chunks(cols) {
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
            let rstd = 1.0 / (var + 1e-5).sqrt();
            want.extend(
                row.iter()
                    .enumerate()
                    .map(|(j, &v)| (v as f64 - mean) * rstd * g[j] as f64 + b[j] as f64),
            );
        }
        assert_close(
            &format!("layer_norm {rows}x{cols}"),
            &wide_f(&dy.to_vec(&s).unwrap()),
            &want,
            2e-3,
            1e-3,
        );
        assert_clean(&s, "layer_norm");
    }
}

#[test]
fn add_rms_norm_fp16() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        let x1 = halves(&data(rows * cols, 15, -3.0, 3.0));
        let x2 = halves(&data(rows * cols, 16, -3.0, 3.0));
        let g = halves(&data(cols, 17, 0.5, 1.5));
        let (d1, d2, dg) = (dev(&s, &x1), dev(&s, &x2), dev(&s, &g));
        let (mut dy, mut dsum) = (out::<f16>(&s, rows * cols), out::<f16>(&s, rows * cols));
        let t = AddRmsNormTiling {
            rows: rows as u32,
            cols: cols as u32,
            eps: 1e-6,
        };
        launch(&s, "add_rms_norm", |r| unsafe {
            aclrtlaunch_add_rms_norm(
                bd,
                r,
                p(&d1),
                p(&d2),
                p(&dg),
                dy.as_raw_mut_ptr(),
                dsum.as_raw_mut_ptr(),
                tiling_ptr(&t),
            )
        })
        .unwrap();
        // The sum is rounded to fp16 (it is an output) before the norm.
        let sum: Vec<f16> = x1
            .iter()
            .zip(&x2)
            .map(|(a, b)| f16::from_f64(a.to_f64() + b.to_f64()))
            .collect();
        assert_eq!(
            dsum.to_vec(&s).unwrap(),
            sum,
            "x1 + x2 in fp16, {rows}x{cols}"
        );
        let want = rms_ref(&wide_h(&sum), &wide_h(&g), cols, 1e-6);
        assert_close(
            &format!("add_rms_norm {rows}x{cols}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "add_rms_norm");
    }
}

#[test]
fn bias_add_broadcast_over_rows() {
    let s = stream();
    for (rows, cols, bd) in ROWS {
        let x = data(rows * cols, 18, -10.0, 10.0);
        let b = data(cols, 19, -1.0, 1.0);
        let (dx, db, mut dy) = (dev(&s, &x), dev(&s, &b), out::<f32>(&s, rows * cols));
        let tile_rows = (16384 / (cols.div_ceil(8) * 8 * 4)).clamp(1, 8) as u32;
        let t = BiasAddTiling {
            rows: rows as u32,
            cols: cols as u32,
            tileRows: tile_rows,
        };
        launch(&s, "bias_add_rows", |r| unsafe {
            aclrtlaunch_bias_add_rows(bd, r, p(&dx), p(&db), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| v as f64 + b[i % cols] as f64)
            .collect();
        assert_close(
            &format!("bias_add {rows}x{cols}"),
            &wide_f(&dy.to_vec(&s).unwrap()),
            &want,
            1e-5,
            1e-6,
        );
        assert_clean(&s, "bias_add_rows");
    }
}

#[test]
fn gelu_tanh_fp16() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let x = halves(&data(n, 20, -6.0, 6.0));
        let (dx, mut dy) = (dev(&s, &x), out::<f16>(&s, n));
        let t = GeluTiling {
            totalLength: n as u32,
            tileLength: tile,
        };
        launch(&s, "gelu_tanh", |r| unsafe {
            aclrtlaunch_gelu_tanh(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let k = (2.0 / std::f64::consts::PI).sqrt();
        let want: Vec<f64> = x
            .iter()
            .map(|v| {
                let v = v.to_f64();
                0.5 * v * (1.0 + (k * (v + 0.044715 * v * v * v)).tanh())
            })
            .collect();
        assert_close(
            &format!("gelu n={n}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "gelu");
    }
}

#[test]
fn swiglu_fp16() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let (g, u) = (
            halves(&data(n, 21, -8.0, 8.0)),
            halves(&data(n, 22, -2.0, 2.0)),
        );
        let (dg, du, mut dy) = (dev(&s, &g), dev(&s, &u), out::<f16>(&s, n));
        let t = SwiGluTiling {
            totalLength: n as u32,
            tileLength: tile,
        };
        launch(&s, "swiglu", |r| unsafe {
            aclrtlaunch_swiglu(bd, r, p(&dg), p(&du), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f64> = g
            .iter()
            .zip(&u)
            .map(|(g, u)| {
                let g = g.to_f64();
                g / (1.0 + (-g).exp()) * u.to_f64()
            })
            .collect();
        assert_close(
            &format!("swiglu n={n}"),
            &wide_h(&dy.to_vec(&s).unwrap()),
            &want,
            1e-3,
            1e-3,
        );
        assert_clean(&s, "swiglu");
    }
}

#[test]
fn relu_via_compare_and_select() {
    let s = stream();
    for (n, bd, _) in ELEMENTWISE {
        let x = data(n, 23, -1.0, 1.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, n));
        let t = ReluSelectTiling {
            totalLength: n as u32,
            tileLength: 256,
        };
        launch(&s, "relu_select", |r| unsafe {
            aclrtlaunch_relu_select(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f32> = x.iter().map(|&v| if v > 0.0 { v } else { 0.0 }).collect();
        assert_eq!(dy.to_vec(&s).unwrap(), want, "relu n={n}");
        assert_clean(&s, "relu_select");
    }
}

#[test]
fn hand_written_setflag_waitflag() {
    let s = stream();
    for (n, bd, tile) in ELEMENTWISE {
        let x = data(n, 24, -3.0, 3.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, n));
        let t = ScaleTiling {
            totalLength: n as u32,
            tileLength: tile,
            scale: 1.5,
        };
        launch(&s, "scale_flags", |r| unsafe {
            aclrtlaunch_scale_flags(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f32> = x.iter().map(|&v| v * 1.5).collect();
        assert_eq!(dy.to_vec(&s).unwrap(), want, "scale n={n}");
        assert_clean(&s, "scale_flags");
    }
}

#[test]
fn unaligned_gm_rows_with_datacopypad_fc08() {
    let s = stream();
    for (rows, rank, bd) in [(19usize, 12usize, 4u32), (7, 3, 2), (1, 12, 1)] {
        let x = data(rows * rank, 25, -1.0, 1.0);
        let (dx, mut dy) = (dev(&s, &x), out::<f32>(&s, rows * rank));
        let t = PadRowsTiling {
            rows: rows as u32,
            rank: rank as u32,
        };
        launch(&s, "pad_rows_fc08", |r| unsafe {
            aclrtlaunch_pad_rows_fc08(bd, r, p(&dx), dy.as_raw_mut_ptr(), tiling_ptr(&t))
        })
        .unwrap();
        let want: Vec<f32> = x.iter().map(|&v| v * 2.0).collect();
        assert_eq!(dy.to_vec(&s).unwrap(), want, "fc08 rows={rows} rank={rank}");
        assert_clean(&s, "pad_rows_fc08");
    }
}
