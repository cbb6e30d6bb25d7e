//! The report's charts (`speedup.svg`, `roofline.svg`, `feasibility.svg`), drawn with plotters:
//! horizontal bars, one row per category, one bar per series, a dashed reference line.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Report;
use crate::chart::{svg_string, ChartError};

/// One series of bars.
struct Series<'a> {
    name: &'a str,
    color: RGBColor,
    values: Vec<Option<f64>>,
}

/// The x axis of a bar chart: `lo..hi`, log10 when `log`; `mark` is a dashed reference line.
struct Axis<'a> {
    desc: &'a str,
    lo: f64,
    hi: f64,
    log: bool,
    mark: Option<f64>,
}

impl Axis<'_> {
    /// Where `v` goes on the drawn axis, which is linear: a log axis is drawn in log10 of
    /// the value (plotters' own log axis puts its labels only at decades here). Values are
    /// clamped to the range.
    fn at(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        if self.log {
            v.log10()
        } else {
            v
        }
    }

    /// A tick's label.
    fn label(&self, drawn: f64) -> String {
        if self.log {
            let v = 10f64.powf(drawn);
            if v >= 9.95 {
                format!("{v:.0}")
            } else if v >= 0.995 {
                format!("{v:.1}")
            } else {
                format!("{v:.2}")
            }
        } else {
            format!("{drawn:.1}")
        }
    }

    /// A bar's value label.
    fn value(&self, v: f64) -> String {
        if self.log {
            format!("{v:.2}×")
        } else {
            format!("{:.0}%", v * 100.0)
        }
    }
}

/// A horizontal bar chart named `chart` (its file name, for errors). The y axis is in whole
/// units: each bar is two units high and each category `2 * series + 1` (one unit of gap),
/// drawn from the top; a category's name sits at the middle of its bars.
fn hbars(
    chart: &'static str,
    title: &str,
    categories: &[String],
    series: &[Series<'_>],
    axis: &Axis<'_>,
) -> Result<String, ChartError> {
    let n = categories.len().max(1) as i32;
    let m = series.len().max(1) as i32;
    let per = 2 * m + 1;
    let total = n * per;
    // The bottom of the bars of category `i` (from the top).
    let base = move |i: i32| (n - 1 - i) * per + 1;
    let row_px = 10 * m as u32 + 8;
    // Room above the bars for the legend: 20 px per series.
    let legend = (((20 * m + 14) * per) as u32).div_ceil(row_px) as i32;
    let height = 130 + row_px * n as u32 + (legend as u32 * row_px).div_ceil(per as u32);
    svg_string(chart, (900, height), |root| {
        let (x0, x1) = (axis.at(axis.lo), axis.at(axis.hi));
        let mut c = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .margin_right(60)
            .x_label_area_size(40)
            .y_label_area_size(300)
            .build_cartesian_2d(x0..x1, 0..total + legend)?;
        let name_of = |y: &i32| -> String {
            (0..n)
                .find(|i| base(*i) + m == *y)
                .and_then(|i| categories.get(i as usize))
                .cloned()
                .unwrap_or_default()
        };
        c.configure_mesh()
            .disable_y_mesh()
            .set_tick_mark_size(LabelAreaPosition::Left, 0)
            .y_labels((total + legend) as usize + 1)
            .x_desc(axis.desc)
            .x_labels(12)
            .x_label_formatter(&|v| axis.label(*v))
            .y_label_formatter(&name_of)
            .draw()?;
        for (k, se) in series.iter().enumerate() {
            let color = se.color;
            let mut bars = Vec::new();
            let mut labels = Vec::new();
            for (i, v) in se.values.iter().enumerate().take(n as usize) {
                // Series 0 on top of its category.
                let lo = base(i as i32) + 2 * (m - 1 - k as i32);
                let mid = lo + 1;
                match v {
                    Some(v) => {
                        let end = axis.at(*v);
                        bars.push(Rectangle::new([(x0, lo), (end, lo + 2)], color.filled()));
                        labels.push((axis.value(*v), end, mid, BLACK));
                    }
                    None => labels.push((" n/a".to_string(), x0, mid, RGBColor(0x88, 0x88, 0x88))),
                }
            }
            c.draw_series(bars)?.label(se.name).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
            });
            c.draw_series(labels.into_iter().map(|(t, x, y, col)| {
                Text::new(
                    t,
                    (x, y),
                    ("sans-serif", 10)
                        .into_font()
                        .color(&col)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                )
            }))?;
        }
        if let Some(mark) = axis.mark {
            let x = axis.at(mark);
            c.draw_series(DashedLineSeries::new(
                vec![(x, 0), (x, total)],
                4,
                3,
                RGBColor(0x44, 0x44, 0x44).stroke_width(1),
            ))?;
        }
        c.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        Ok(())
    })
}

/// Speedup per op against the eager recipe and the vendor-fused model (log scale; the dashed
/// line is 1×). Ops that are not counted (infeasible, unsupported, suspect) show no bars.
///
/// # Errors
/// [`ChartError`] when plotters rejects the layout.
pub fn speedup_svg(r: &Report) -> Result<String, ChartError> {
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
        "speedup.svg",
        "Speedup per op (cost model), geometric mean over shapes",
        &cats,
        &[
            Series {
                name: "vs eager recipe",
                color: RGBColor(0x2b, 0x6c, 0xb0),
                values: pick(|o| o.speedup_eager),
            },
            Series {
                name: "vs vendor-fused model",
                color: RGBColor(0xdd, 0x6b, 0x20),
                values: pick(|o| o.speedup_vendor),
            },
        ],
        &Axis {
            desc: "speedup (×, log scale; dashed = 1×)",
            lo,
            hi,
            log: true,
            mark: Some(1.0),
        },
    )
}

/// Fraction of the HBM roofline per op: the geometric mean over shapes and the largest shape.
///
/// # Errors
/// [`ChartError`] when plotters rejects the layout.
pub fn roofline_svg(r: &Report) -> Result<String, ChartError> {
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
        "roofline.svg",
        "Fraction of the HBM roofline per op (cost model)",
        &cats,
        &[
            Series {
                name: "geomean over shapes",
                color: RGBColor(0x2f, 0x85, 0x5a),
                values: gm,
            },
            Series {
                name: "largest shape",
                color: RGBColor(0x80, 0x5a, 0xd5),
                values: largest,
            },
        ],
        &Axis {
            desc: "roofline / kernel time (dashed = 80%)",
            lo: 0.0,
            hi: 1.0,
            log: false,
            mark: Some(0.8),
        },
    )
}

/// Feasibility per pattern (share of the pattern's ops accepted on every shape).
///
/// # Errors
/// [`ChartError`] when plotters rejects the layout.
pub fn feasibility_svg(r: &Report) -> Result<String, ChartError> {
    let cats: Vec<String> = r
        .patterns
        .iter()
        .map(|p| format!("{} ({}/{})", p.pattern, p.feasible, p.ops))
        .collect();
    hbars(
        "feasibility.svg",
        "Feasibility per pattern (offline proposer)",
        &cats,
        &[Series {
            name: "feasible",
            color: RGBColor(0x2b, 0x6c, 0xb0),
            values: r.patterns.iter().map(|p| Some(p.feasibility)).collect(),
        }],
        &Axis {
            desc: "feasible share (dashed = 80%)",
            lo: 0.0,
            hi: 1.0,
            log: false,
            mark: Some(0.8),
        },
    )
}
