//! The run's chart (`<run>/progress.svg`), drawn with plotters: per op, the best modelled time
//! per generation relative to the op's first feasible generation (lower is better), and the
//! tokens spent per generation. A panel with nothing to draw says why (`no feasible kernel`,
//! `no tokens spent (no model)`) instead of an axis of zeros.

use plotters::prelude::*;

use super::GenerationLine;
use crate::chart::{svg_string, Area, ChartError, COLORS};

/// One op's values per generation (`None`: nothing to plot at that generation).
type Series<'a> = (&'a str, Vec<(u32, Option<f64>)>);

/// The caption, axis descriptions and label form of one panel.
struct Panel<'a> {
    caption: &'a str,
    y_desc: &'a str,
    empty: &'a str,
    /// Whole numbers on the y axis (token counts).
    whole: bool,
}

/// Draws one panel over generations `1..=generations`: a line per op and a legend.
fn panel(
    area: &Area<'_>,
    p: &Panel<'_>,
    series: &[Series<'_>],
    generations: u32,
) -> Result<(), Box<dyn std::error::Error>> {
    let values: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().filter_map(|(_, y)| *y))
        .filter(|y| y.is_finite())
        .collect();
    let n = generations.max(1);
    // Generations sit on whole numbers 1..=n; 0 and n + 1 are margins without a label.
    let x_range = 0u32..n + 1;
    let gen_label = move |g: &u32| {
        if (1..=n).contains(g) {
            format!("g{g}")
        } else {
            String::new()
        }
    };
    let x_labels = (n as usize + 2).min(40);
    if values.iter().all(|v| *v <= 0.0) {
        let mut chart = ChartBuilder::on(area)
            .caption(p.caption, ("sans-serif", 16))
            .margin(10)
            .build_cartesian_2d(x_range, 0f64..1f64)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_y_axis()
            .x_labels(x_labels)
            .x_label_formatter(&gen_label)
            .draw()?;
        chart.draw_series(std::iter::once(Text::new(
            p.empty.to_string(),
            (n.div_ceil(2).max(1), 0.5),
            ("sans-serif", 14)
                .into_font()
                .color(&RGBColor(0x55, 0x55, 0x55))
                .pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Center,
                )),
        )))?;
        return Ok(());
    }
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    let (lo, hi) = if p.whole {
        (0.0, (hi * 1.1).ceil().max(1.0))
    } else {
        let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.005).max(1e-6);
        ((lo - pad).max(0.0), hi + pad)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(p.caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, lo..hi)?;
    let whole = p.whole;
    chart
        .configure_mesh()
        .x_desc("generation")
        .y_desc(p.y_desc)
        .x_labels(x_labels)
        .x_label_formatter(&gen_label)
        .y_label_formatter(&|v| {
            if whole {
                format!("{v:.0}")
            } else {
                format!("{v:.3}x")
            }
        })
        .draw()?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(u32, f64)> = points
            .iter()
            .filter_map(|(g, y)| y.filter(|y| y.is_finite()).map(|y| (*g, y)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    Ok(())
}

/// The chart of a run: `ops` are (op name, its generation lines). Each op's times are divided
/// by its first accepted generation's, so ops of different sizes share one axis.
///
/// # Errors
/// [`ChartError`] when plotters rejects the layout (it draws into memory: no I/O).
pub fn progress_svg(ops: &[(&str, &[GenerationLine])]) -> Result<String, ChartError> {
    let generations = ops
        .iter()
        .flat_map(|(_, g)| g.iter().map(|l| l.generation))
        .max()
        .unwrap_or(1);
    let rel: Vec<Series<'_>> = ops
        .iter()
        .map(|(name, lines)| {
            let first = lines.iter().find_map(|l| l.best_us);
            let values = lines
                .iter()
                .map(|l| {
                    let r = match (l.best_us, first) {
                        (Some(b), Some(f)) if f > 0.0 => Some(b / f),
                        _ => None,
                    };
                    (l.generation, r)
                })
                .collect();
            (*name, values)
        })
        .collect();
    let tok: Vec<Series<'_>> = ops
        .iter()
        .map(|(name, lines)| {
            let values = lines
                .iter()
                .map(|l| (l.generation, Some(l.generation_tokens as f64)))
                .collect();
            (*name, values)
        })
        .collect();
    svg_string("progress.svg", (800, 640), |root| {
        let (top, bottom) = root.split_vertically(320);
        panel(
            &top,
            &Panel {
                caption: "Best modelled time per generation (relative to the first accepted)",
                y_desc: "best time / first",
                empty: "no feasible kernel",
                whole: false,
            },
            &rel,
            generations,
        )?;
        panel(
            &bottom,
            &Panel {
                caption: "Tokens spent per generation",
                y_desc: "tokens",
                empty: "no tokens spent (no model)",
                whole: true,
            },
            &tok,
            generations,
        )?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::svg_texts as texts;

    fn line(generation: u32, best_us: Option<f64>, generation_tokens: u64) -> GenerationLine {
        GenerationLine {
            generation,
            best_us,
            best_id: None,
            candidates: 0,
            tokens: 0,
            generation_tokens,
        }
    }

    #[test]
    fn a_run_without_tokens_says_so_and_token_axes_are_whole_numbers() {
        let offline = [line(1, Some(10.0), 0), line(2, Some(8.0), 0)];
        let svg = progress_svg(&[("rms_norm", &offline)]).unwrap();
        let t = texts(&svg);
        assert!(t.iter().any(|t| t == "no tokens spent (no model)"), "{t:?}");
        // The time panel is relative to generation 1: it spans 0.8x..1x, three decimals.
        let times: Vec<f64> = t
            .iter()
            .filter_map(|t| t.strip_suffix('x')?.parse().ok())
            .collect();
        assert!(times.len() >= 3, "{t:?}");
        assert!(times.iter().all(|v| (0.7..=1.1).contains(v)), "{times:?}");
        assert!(
            t.iter().any(|t| t == "rms_norm"),
            "the legend names the op: {t:?}"
        );
        assert!(
            t.iter().any(|t| t == "g1") && t.iter().any(|t| t == "g2"),
            "{t:?}"
        );
        assert!(!t.iter().any(|t| t == "g0" || t == "g3"), "{t:?}");
        // A point per generation in the time panel; the empty token panel draws none.
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");

        let model = [line(1, Some(10.0), 1000), line(2, Some(9.0), 500)];
        let svg = progress_svg(&[("add", &model)]).unwrap();
        let t = texts(&svg);
        assert!(!t.iter().any(|t| t.starts_with("no tokens spent")), "{t:?}");
        // Token ticks are whole numbers, up to at least the largest generation's 1000.
        let ticks: Vec<u64> = t.iter().filter_map(|t| t.parse().ok()).collect();
        assert!(ticks.iter().any(|v| *v >= 1000), "{t:?}");
        assert!(
            !t.iter()
                .any(|t| t.contains('.') && t.parse::<f64>().is_ok()),
            "{t:?}"
        );
    }

    #[test]
    fn a_run_without_a_feasible_kernel_says_so() {
        let none = [line(1, None, 300)];
        let svg = progress_svg(&[("x", &none)]).unwrap();
        assert!(
            texts(&svg).iter().any(|t| t == "no feasible kernel"),
            "{svg}"
        );
    }

    #[test]
    fn ops_get_one_line_each_and_a_missing_generation_is_a_gap_not_a_zero() {
        let a = [
            line(1, Some(4.0), 10),
            line(2, Some(3.0), 10),
            line(3, Some(2.0), 10),
        ];
        let b = [
            line(1, None, 10),
            line(2, Some(5.0), 10),
            line(3, Some(5.0), 10),
        ];
        let svg = progress_svg(&[("a", &a), ("b <&>", &b)]).unwrap();
        let t = texts(&svg);
        // Names are escaped.
        assert!(t.iter().any(|t| t == "b &lt;&amp;&gt;"), "{t:?}");
        // Points: a at g1..g3 and b at g2..g3 in the time panel (b's g1 is a gap, not a
        // zero), both at g1..g3 in the token panel.
        assert_eq!(svg.matches("<circle").count(), 3 + 2 + 3 + 3, "{svg}");
        let times: Vec<f64> = t
            .iter()
            .filter_map(|t| t.strip_suffix('x')?.parse().ok())
            .collect();
        assert!(times.iter().all(|v| *v > 0.4 && *v < 1.1), "{times:?}");
    }
}
