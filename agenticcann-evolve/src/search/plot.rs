//! The run's chart as standalone SVG (`<run>/progress.svg`): per op, the best modelled time
//! per generation relative to its first generation (lower is better), and the tokens spent
//! per generation. Written by hand like the benchmark's charts (`bench::svg`): every label is
//! a `<text>` element, so no font files are needed and tests can read it.

use std::fmt::Write as _;

use super::GenerationLine;
use crate::bench::svg::esc;

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

/// One panel: polylines over generations 1..=n with a y range from 0 to `ymax`.
fn panel(
    s: &mut String,
    top: f64,
    title: &str,
    unit: &str,
    series: &[(&str, Vec<Option<f64>>)],
    generations: usize,
) {
    let (left, width, height) = (70.0, 520.0, 180.0);
    let ymax = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |a, b| a.max(*b))
        .max(1e-9)
        * 1.1;
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}" font-size="13" font-weight="bold">{}</text>"#,
        top - 8.0,
        esc(title)
    );
    let _ = writeln!(
        s,
        r##"<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" stroke="#888"/>"##
    );
    for k in 0..=4 {
        let v = ymax * f64::from(k) / 4.0;
        let y = top + height - height * f64::from(k) / 4.0;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{y:.1}" font-size="10" text-anchor="end">{v:.3} {}</text>"#,
            left - 4.0,
            esc(unit)
        );
    }
    let n = generations.max(1);
    let x_of = |g: usize| {
        if n == 1 {
            left + width / 2.0
        } else {
            left + width * (g as f64) / ((n - 1) as f64)
        }
    };
    for g in 0..n {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" font-size="10" text-anchor="middle">g{}</text>"#,
            x_of(g),
            top + height + 14.0,
            g + 1
        );
    }
    for (i, (name, values)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = values
            .iter()
            .enumerate()
            .filter_map(|(g, v)| {
                v.map(|v| format!("{:.1},{:.1}", x_of(g), top + height - height * v / ymax))
            })
            .collect();
        if !pts.is_empty() {
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
                pts.join(" ")
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="11" fill="{color}">{}</text>"#,
            left + width + 10.0,
            top + 14.0 + 14.0 * i as f64,
            esc(name)
        );
    }
}

/// The chart of a run: `ops` are (op name, its generation lines).
pub fn progress_svg(ops: &[(&str, &[GenerationLine])]) -> String {
    let generations = ops.iter().map(|(_, g)| g.len()).max().unwrap_or(1);
    let rel: Vec<(&str, Vec<Option<f64>>)> = ops
        .iter()
        .map(|(name, lines)| {
            let first = lines.iter().find_map(|l| l.best_us);
            (
                *name,
                lines
                    .iter()
                    .map(|l| match (l.best_us, first) {
                        (Some(b), Some(f)) if f > 0.0 => Some(b / f),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .collect();
    let tok: Vec<(&str, Vec<Option<f64>>)> = ops
        .iter()
        .map(|(name, lines)| {
            (
                *name,
                lines
                    .iter()
                    .map(|l| Some(l.generation_tokens as f64))
                    .collect(),
            )
        })
        .collect();
    let mut s = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"520\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
    );
    panel(
        &mut s,
        40.0,
        "Best modelled time per generation (relative to generation 1)",
        "x",
        &rel,
        generations,
    );
    panel(
        &mut s,
        300.0,
        "Tokens spent per generation",
        "tok",
        &tok,
        generations,
    );
    s.push_str("</svg>\n");
    s
}
