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

/// One panel: polylines over generations 1..=n with a y range from 0 to `ymax`; axis labels
/// are written by `label`. A panel whose values are all zero (or absent) says `empty`
/// instead of drawing an axis of zeros.
fn panel(
    s: &mut String,
    top: f64,
    title: &str,
    label: fn(f64) -> String,
    series: &[(&str, Vec<Option<f64>>)],
    generations: usize,
    empty: &str,
) {
    let (left, width, height) = (70.0, 520.0, 180.0);
    let peak = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |a, b| a.max(*b));
    let ymax = peak.max(1e-9) * 1.1;
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
    if peak <= 0.0 {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="12" text-anchor="middle" fill="#555">{}</text>"##,
            left + width / 2.0,
            top + height / 2.0,
            esc(empty)
        );
        return;
    }
    for k in 0..=4 {
        let v = ymax * f64::from(k) / 4.0;
        let y = top + height - height * f64::from(k) / 4.0;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{y:.1}" font-size="10" text-anchor="end">{}</text>"#,
            left - 4.0,
            esc(&label(v))
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
        |v| format!("{v:.3}x"),
        &rel,
        generations,
        "no feasible kernel",
    );
    panel(
        &mut s,
        300.0,
        "Tokens spent per generation",
        |v| format!("{v:.0} tok"),
        &tok,
        generations,
        "no tokens spent (no model)",
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let svg = progress_svg(&[("rms_norm", &offline)]);
        assert!(svg.contains("no tokens spent (no model)"), "{svg}");
        assert!(!svg.contains(" tok<"), "{svg}");
        // The time panel: relative to generation 1, three decimals.
        assert!(svg.contains(">1.100x<"), "{svg}");

        let model = [line(1, Some(10.0), 1000), line(2, Some(9.0), 500)];
        let svg = progress_svg(&[("add", &model)]);
        assert!(!svg.contains("no tokens spent"), "{svg}");
        assert!(svg.contains(">1100 tok<"), "{svg}");
        assert!(!svg.contains(".000 tok"), "{svg}");
    }

    #[test]
    fn a_run_without_a_feasible_kernel_says_so() {
        let none = [line(1, None, 300)];
        let svg = progress_svg(&[("x", &none)]);
        assert!(svg.contains("no feasible kernel"), "{svg}");
    }
}
