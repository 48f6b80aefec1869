//! The report as an SVG bar chart, drawn with plotters' SVG backend.
//!
//! One slot per block along x, in report order. Each slot has a wide pale bar up to the block's
//! padded size `X_b` and a narrow dark bar inside it up to its constraint count `cons_b`, so the
//! pale part above the dark bar is the padding of one execution. A horizontal red line marks
//! THRESHOLD, the size every block would pad to under the uniform model. The y axis is
//! logarithmic (block sizes span orders of magnitude); a block with no constraint has no dark bar.
//! Blocks that never ran (`executions = 0`) are drawn grey: they cost no cell.
//!
//! Plotters measures text with its built-in approximate font (the `ttf` feature is off), so the
//! SVG needs no font file to be produced; the viewer renders the `<text>` with a sans-serif font.

use super::group_digits;
use crate::cost::Report;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use std::fmt;

/// Why the chart could not be drawn (a plotters drawing error; not expected when drawing into a
/// string).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SvgError(pub String);

impl fmt::Display for SvgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot draw the SVG chart: {}", self.0)
    }
}

impl std::error::Error for SvgError {}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> SvgError {
    SvgError(e.to_string())
}

const PADDED: RGBColor = RGBColor(158, 202, 225);
const USED: RGBColor = RGBColor(33, 102, 172);
const IDLE_PADDED: RGBColor = RGBColor(220, 220, 220);
const IDLE_USED: RGBColor = RGBColor(150, 150, 150);
const THRESHOLD: RGBColor = RGBColor(203, 24, 29);

/// Height of the legend strip under the plot, in pixels.
const LEGEND_HEIGHT: u32 = 2 * LEGEND_ROW as u32 + 12;

/// Height of one row of the legend.
const LEGEND_ROW: i32 = 20;

/// What a legend entry shows before its text.
enum Swatch {
    Bar(RGBColor),
    Line(RGBColor),
}

/// Draws the legend entries in one row, left to right, in `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(Swatch, String)],
) -> Result<(), SvgError>
where
    DB::ErrorType: 'static,
{
    let style = TextStyle::from(("sans-serif", 13).into_font()).color(&BLACK);
    let (width, _) = area.dim_in_pixel();
    let left = 96i32;
    let (mut x, mut y) = (left, 8i32);
    for (swatch, text) in entries {
        let (w, _) = area.estimate_text_size(text, &style).map_err(draw_err)?;
        let entry_width = 22 + w as i32;
        // Wrap to a second row rather than run off the picture.
        if x > left && x + entry_width > width as i32 - 8 {
            x = left;
            y += LEGEND_ROW;
        }
        match swatch {
            Swatch::Bar(color) => {
                area.draw(&Rectangle::new([(x, y), (x + 16, y + 12)], color.filled()))
            }
            Swatch::Line(color) => area.draw(&PathElement::new(
                vec![(x, y + 6), (x + 16, y + 6)],
                color.stroke_width(2),
            )),
        }
        .map_err(draw_err)?;
        area.draw_text(text, &style, (x + 22, y - 1))
            .map_err(draw_err)?;
        x += entry_width + 24;
    }
    Ok(())
}

/// Width of the chart for `n` blocks: enough room per slot for its label, within bounds.
fn width_for(n: usize) -> u32 {
    let per_block = 48u32;
    (160 + per_block.saturating_mul(n as u32)).clamp(640, 4000)
}

/// The chart of the report's blocks as an SVG document.
pub fn render(report: &Report) -> Result<String, SvgError> {
    let n = report.blocks.len();
    let slots = n.max(1);
    let labels: Vec<&str> = report.blocks.iter().map(|b| b.label.as_str()).collect();
    let top = report
        .blocks
        .iter()
        .map(|b| b.padded_constraints)
        .chain([report.threshold, 2])
        .max()
        .unwrap_or(2) as f64;
    // Bars start at 1/2 so that a block with one constraint still shows a bar on a log axis.
    let bottom = 0.5f64;

    let mut svg = String::new();
    {
        let (width, height) = (width_for(n), 480);
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        // The legend gets its own strip under the plot, so that it never hides a bar.
        let (plot_area, legend_area) = root.split_vertically(height - LEGEND_HEIGHT);
        let caption = format!(
            "{} ({}): constraints per block against padded size and threshold",
            report.program, report.opt_level
        );
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(caption, ("sans-serif", 18))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            // A segmented range `0..k` has k + 1 slots: one per block.
            .build_cartesian_2d(
                (0..slots - 1).into_segmented(),
                (bottom..top * 2.0).log_scale(),
            )
            .map_err(draw_err)?;

        let label_of = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).map_or(String::new(), |s| s.to_string()),
            _ => String::new(),
        };
        let y_label = |v: &f64| {
            if *v >= 1.0 {
                group_digits(v.round() as u128)
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(slots)
            .x_label_formatter(&label_of)
            .y_label_formatter(&y_label)
            .x_desc("block")
            .y_desc("constraints (log scale)")
            .axis_desc_style(("sans-serif", 14))
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(draw_err)?;

        let idle = |i: usize| report.blocks[i].executions == Some(0);
        chart
            .draw_series(report.blocks.iter().enumerate().map(|(i, b)| {
                let color = if idle(i) { IDLE_PADDED } else { PADDED };
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), bottom),
                        (SegmentValue::Exact(i + 1), b.padded_constraints as f64),
                    ],
                    color.filled(),
                );
                bar.set_margin(0, 0, 4, 4);
                bar
            }))
            .map_err(draw_err)?;
        chart
            .draw_series(
                report
                    .blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.constraints > 0)
                    .map(|(i, b)| {
                        let color = if idle(i) { IDLE_USED } else { USED };
                        let mut bar = Rectangle::new(
                            [
                                (SegmentValue::Exact(i), bottom),
                                (SegmentValue::Exact(i + 1), b.constraints as f64),
                            ],
                            color.filled(),
                        );
                        bar.set_margin(0, 0, 12, 12);
                        bar
                    }),
            )
            .map_err(draw_err)?;
        let threshold = report.threshold as f64;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![
                    (SegmentValue::Exact(0), threshold),
                    (SegmentValue::Last, threshold),
                ],
                THRESHOLD.stroke_width(2),
            )))
            .map_err(draw_err)?;

        let mut legend = vec![
            (
                Swatch::Bar(PADDED),
                "padded size X_b = max(2, next_pow2(constraints))".to_string(),
            ),
            (Swatch::Bar(USED), "constraints".to_string()),
            (
                Swatch::Line(THRESHOLD),
                format!(
                    "threshold {} (uniform padding)",
                    group_digits(report.threshold.into())
                ),
            ),
        ];
        if report.blocks.iter().any(|b| b.executions == Some(0)) {
            legend.push((Swatch::Bar(IDLE_USED), "grey: never ran".to_string()));
        }
        draw_legend(&legend_area, &legend)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}
