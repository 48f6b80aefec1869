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

use super::cost::Report;
use super::group_digits;
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
        let root = SVGBackend::with_string(&mut svg, (width_for(n), 480)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let caption = format!(
            "{} ({}): constraints per block, padded size and threshold {}",
            report.program,
            report.opt_level,
            group_digits(report.threshold.into())
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(16)
            .x_label_area_size(56)
            .y_label_area_size(80)
            .build_cartesian_2d((0..slots).into_segmented(), (bottom..top * 2.0).log_scale())
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
            .map_err(draw_err)?
            .label("padded size X_b = max(2, next_pow2(constraints))")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], PADDED.filled()));
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
            .map_err(draw_err)?
            .label("constraints")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], USED.filled()));
        let threshold = report.threshold as f64;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![
                    (SegmentValue::Exact(0), threshold),
                    (SegmentValue::Exact(slots), threshold),
                ],
                THRESHOLD.stroke_width(2),
            )))
            .map_err(draw_err)?
            .label(format!(
                "threshold {} (uniform padding)",
                group_digits(report.threshold.into())
            ))
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], THRESHOLD.stroke_width(2))
            });
        if report.blocks.iter().any(|b| b.executions == Some(0)) {
            // A legend-only entry: an empty series that explains the grey bars.
            chart
                .draw_series(std::iter::empty::<Rectangle<(SegmentValue<usize>, f64)>>())
                .map_err(draw_err)?
                .label("grey: block never ran")
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], IDLE_USED.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}
