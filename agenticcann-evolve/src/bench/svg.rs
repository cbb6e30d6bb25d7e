//! The report's charts as standalone SVG: horizontal bars, every label a `<text>` element (no
//! font files or font rasterisation needed, so the text is there for any viewer and for
//! tests to read).

use std::fmt::Write as _;

use super::Report;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One series of bars.
struct Series<'a> {
    name: &'a str,
    color: &'a str,
    values: Vec<Option<f64>>,
}

/// A horizontal bar chart: one row per category, one bar per series; `log` = log10 x axis
/// from `lo` to `hi`; `mark` draws a dashed reference line.
fn hbars(
    title: &str,
    axis: &str,
    categories: &[String],
    series: &[Series<'_>],
    (lo, hi): (f64, f64),
    log: bool,
    mark: Option<f64>,
) -> String {
    let label_w = 300.0;
    let plot_w = 560.0;
    let bar_h = 9.0;
    let row_h = bar_h * series.len() as f64 + 6.0;
    let top = 46.0;
    let height = top + row_h * categories.len() as f64 + 50.0;
    let width = label_w + plot_w + 30.0;
    let pos = |v: f64| -> f64 {
        let f = if log {
            (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10())
        } else {
            (v.max(lo) - lo) / (hi - lo)
        };
        label_w + plot_w * f.clamp(0.0, 1.0)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="10" y="18" font-size="14" font-weight="bold">{}</text>"#,
        esc(title)
    );
    // Legend.
    let mut lx = label_w;
    for se in series {
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.0}" y="26" width="10" height="10" fill="{}"/><text x="{:.0}" y="35">{}</text>"#,
            se.color,
            lx + 14.0,
            esc(se.name)
        );
        lx += 20.0 + 7.0 * se.name.len() as f64;
    }
    // Ticks.
    let ticks: Vec<f64> = if log {
        let mut t = Vec::new();
        let mut v = 10f64.powf(lo.log10().floor());
        while v <= hi * 1.0001 {
            for m in [1.0, 2.0, 5.0] {
                let x = v * m;
                if x >= lo * 0.9999 && x <= hi * 1.0001 {
                    t.push(x);
                }
            }
            v *= 10.0;
        }
        t
    } else {
        (0..=5).map(|i| lo + (hi - lo) * i as f64 / 5.0).collect()
    };
    let bottom = top + row_h * categories.len() as f64;
    for t in &ticks {
        let x = pos(*t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{top:.0}" x2="{x:.1}" y2="{bottom:.0}" stroke="#ddd"/><text x="{x:.1}" y="{:.0}" text-anchor="middle">{}</text>"##,
            bottom + 14.0,
            if log {
                format!("{t}")
            } else {
                format!("{t:.1}")
            }
        );
    }
    if let Some(m) = mark {
        let x = pos(m);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{top:.0}" x2="{x:.1}" y2="{bottom:.0}" stroke="#444" stroke-dasharray="4,3"/>"##
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.0}" y="{:.0}" text-anchor="middle">{}</text>"#,
        label_w + plot_w / 2.0,
        bottom + 32.0,
        esc(axis)
    );
    for (i, c) in categories.iter().enumerate() {
        let y0 = top + row_h * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 6.0,
            y0 + row_h / 2.0 + 4.0,
            esc(c)
        );
        for (k, se) in series.iter().enumerate() {
            let y = y0 + 3.0 + bar_h * k as f64;
            match se.values.get(i).copied().flatten() {
                Some(v) => {
                    let x1 = pos(v);
                    let x0 = if log { pos(lo) } else { pos(lo.max(0.0)) };
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {v:.3}</title></rect><text x="{:.1}" y="{:.1}" font-size="8">{}</text>"#,
                        (x1 - x0).max(0.5),
                        bar_h - 1.0,
                        se.color,
                        esc(&format!("{c} {}", se.name)),
                        x1 + 2.0,
                        y + bar_h - 2.0,
                        if log {
                            format!("{v:.2}×")
                        } else {
                            format!("{:.0}%", v * 100.0)
                        }
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" font-size="8" fill="#888">n/a</text>"##,
                        label_w + 2.0,
                        y + bar_h - 2.0
                    );
                }
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

/// Speedup per op against the eager recipe and the vendor-fused model (log scale; the dashed
/// line is 1×). Ops that are not counted (infeasible, unsupported, suspect) show no bars.
pub fn speedup_svg(r: &Report) -> String {
    let cats: Vec<String> = r
        .ops
        .iter()
        .map(|o| format!("{} ({})", o.name, o.status.label()))
        .collect();
    let pick = |f: fn(&super::OpResult) -> Option<f64>| -> Vec<Option<f64>> {
        r.ops
            .iter()
            .map(|o| if o.counted() { f(o) } else { None })
            .collect()
    };
    let all: Vec<f64> = r
        .ops
        .iter()
        .flat_map(|o| [o.speedup_eager, o.speedup_vendor])
        .flatten()
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all.iter().copied().fold(1.0f64, f64::min).min(0.1);
    let hi = all.iter().copied().fold(1.0f64, f64::max).max(10.0);
    hbars(
        "Speedup per op (cost model), geometric mean over shapes",
        "speedup (×, log scale; dashed = 1×)",
        &cats,
        &[
            Series {
                name: "vs eager recipe",
                color: "#2b6cb0",
                values: pick(|o| o.speedup_eager),
            },
            Series {
                name: "vs vendor-fused model",
                color: "#dd6b20",
                values: pick(|o| o.speedup_vendor),
            },
        ],
        (lo, hi),
        true,
        Some(1.0),
    )
}

/// Fraction of the HBM roofline per op: the geometric mean over shapes and the largest shape.
pub fn roofline_svg(r: &Report) -> String {
    let cats: Vec<String> = r.ops.iter().map(|o| o.name.clone()).collect();
    let gm: Vec<Option<f64>> = r
        .ops
        .iter()
        .map(|o| {
            if o.counted() {
                super::geomean(o.shapes.iter().map(|s| s.roofline_fraction))
            } else {
                None
            }
        })
        .collect();
    let largest: Vec<Option<f64>> = r
        .ops
        .iter()
        .map(|o| {
            o.counted()
                .then(|| {
                    o.shapes
                        .iter()
                        .max_by_key(|s| s.bytes)
                        .map(|s| s.roofline_fraction)
                })
                .flatten()
        })
        .collect();
    hbars(
        "Fraction of the HBM roofline per op (cost model)",
        "roofline / kernel time (dashed = 80%)",
        &cats,
        &[
            Series {
                name: "geomean over shapes",
                color: "#2f855a",
                values: gm,
            },
            Series {
                name: "largest shape",
                color: "#805ad5",
                values: largest,
            },
        ],
        (0.0, 1.0),
        false,
        Some(0.8),
    )
}

/// Feasibility per pattern (share of the pattern's ops accepted on every shape).
pub fn feasibility_svg(r: &Report) -> String {
    let cats: Vec<String> = r
        .patterns
        .iter()
        .map(|p| format!("{} ({}/{})", p.pattern, p.feasible, p.ops))
        .collect();
    hbars(
        "Feasibility per pattern (offline proposer)",
        "feasible share (dashed = 80%)",
        &cats,
        &[Series {
            name: "feasible",
            color: "#2b6cb0",
            values: r.patterns.iter().map(|p| Some(p.feasibility)).collect(),
        }],
        (0.0, 1.0),
        false,
        Some(0.8),
    )
}
