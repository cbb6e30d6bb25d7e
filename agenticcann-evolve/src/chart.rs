//! What the SVG charts share (`bench`'s speedup/roofline/feasibility charts and `evolve`'s
//! `progress.svg`): they are drawn with plotters' SVG backend into a string. plotters is built
//! without a font backend (no `ttf`, no fontconfig/freetype): SVG text is a `<text>` element
//! the viewer renders, so only label widths are estimated, and tests can read every label.

use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};

/// A chart could not be drawn. Drawing into a string has no I/O, so this means plotters
/// rejected the layout (for example an axis range it cannot map); the message says which.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart {chart}: {message}")]
pub struct ChartError {
    /// The chart's file name (`progress.svg`, `speedup.svg`, ...).
    pub chart: &'static str,
    /// plotters' error.
    pub message: String,
}

/// The drawing area of a chart.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The palette of series (one colour per op or per series, cycled).
pub(crate) const COLORS: [plotters::style::RGBColor; 6] = [
    plotters::style::RGBColor(0x1f, 0x77, 0xb4),
    plotters::style::RGBColor(0xd6, 0x27, 0x28),
    plotters::style::RGBColor(0x2c, 0xa0, 0x2c),
    plotters::style::RGBColor(0x94, 0x67, 0xbd),
    plotters::style::RGBColor(0xff, 0x7f, 0x0e),
    plotters::style::RGBColor(0x17, 0xbe, 0xcf),
];

/// Draws a `width` × `height` pixel chart with `draw` and returns the SVG document.
pub(crate) fn svg_string(
    chart: &'static str,
    (width, height): (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        let fail = |e: &dyn std::fmt::Display| ChartError {
            chart,
            message: e.to_string(),
        };
        root.fill(&plotters::style::WHITE).map_err(|e| fail(&e))?;
        draw(&root).map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(out)
}

/// The text of every `<text>` element of a chart drawn here, trimmed and still XML-escaped
/// (`&lt;` for `<`), in document order: what a test or a tool reads to check labels.
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}
