//! The report as an SVG chart of where the prover pays, drawn with plotters' SVG backend.
//!
//! One horizontal bar per block, largest first, labelled with the block and the source lines it
//! came from (`b7 bubble_sort.zok:6-9`). A bar's length is the block's sumcheck cells
//! `Q_b · X_b` (executions padded, times the padded instance size): the pale part is padding,
//! the dark part inside it the useful work `exec_b · cons_b`, so a block run 64 times weighs 64
//! times what it weighs run once. The transition check and the memory check, when they cost
//! anything, are bars of their own (dark: the state words or the memory-check constraints). A
//! block whose executions are unknown (a report without inputs) is drawn for one execution,
//! grey and marked `runs ? times`; a block that never ran costs no cell and is listed, marked
//! `never ran`, with no bar. Vertical lines mark the totals: this pipeline's sumcheck cells (solid) and
//! the baselines `--no-merge` and `--monolithic` (dashed) when the report has them. The cells
//! axis is logarithmic (blocks span orders of magnitude).
//!
//! Plotters measures text with its built-in approximate font (the `ttf` feature is off), so the
//! SVG needs no font file to be produced; the viewer renders the `<text>` with a sans-serif font.

use super::group_digits;
use crate::cost::Report;
use plotters::coord::ranged1d::SegmentValue;
use plotters::element::DashedPathElement;
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

const PADDING: RGBColor = RGBColor(158, 202, 225);
const USEFUL: RGBColor = RGBColor(33, 102, 172);
const CHECK_PADDING: RGBColor = RGBColor(253, 208, 162);
const CHECK_USEFUL: RGBColor = RGBColor(217, 72, 1);
const UNKNOWN: RGBColor = RGBColor(200, 200, 200);
const TOTAL: RGBColor = RGBColor(0, 0, 0);
const NO_MERGE: RGBColor = RGBColor(203, 24, 29);
const MONOLITHIC: RGBColor = RGBColor(106, 61, 154);

/// Height of one row of the legend.
const LEGEND_ROW: i32 = 20;

/// Height of one bar's slot, in pixels.
const SLOT: u32 = 26;

/// What a legend entry shows before its text.
enum Swatch {
    Bar(RGBColor),
    Line(RGBColor),
}

/// One bar of the chart.
struct Bar {
    /// The y-axis label.
    label: String,
    /// The bar's length: cells (for one execution when `known` is false).
    cells: u128,
    /// The dark part: the useful work within `cells`.
    useful: u128,
    /// Whether `cells` is the real count (executions known).
    known: bool,
    /// Whether the bar is a check (transitions, memory) rather than a block.
    check: bool,
}

/// Draws the legend entries left to right in `area`, wrapping rows.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(Swatch, String)],
) -> Result<(), SvgError>
where
    DB::ErrorType: 'static,
{
    let style = TextStyle::from(("sans-serif", 13).into_font()).color(&BLACK);
    let (width, _) = area.dim_in_pixel();
    let left = 16i32;
    let (mut x, mut y) = (left, 8i32);
    for (swatch, text) in entries {
        let (w, _) = area.estimate_text_size(text, &style).map_err(draw_err)?;
        let entry_width = 22 + w as i32;
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

/// The bars: blocks and checks with cells, largest first; blocks that never ran after them.
fn bars(report: &Report) -> Vec<Bar> {
    let mut bars = Vec::new();
    for b in &report.blocks {
        let label = match &b.source {
            Some(source) => format!("{} {source}", b.label),
            None => b.label.clone(),
        };
        let padded = u128::from(b.padded_constraints);
        let (cells, useful, known) = match (b.executions, b.sumcheck_cells) {
            (Some(e), Some(cells)) => (cells, u128::from(e) * u128::from(b.constraints), true),
            _ => (padded, u128::from(b.constraints), false),
        };
        let label = match b.executions {
            Some(0) => format!("{label} (never ran)"),
            Some(_) => label,
            None => format!("{label} (runs ? times)"),
        };
        bars.push(Bar {
            label,
            cells,
            useful,
            known,
            check: false,
        });
    }
    let t = &report.totals;
    if let Some(cells) = t.transition_cells.filter(|c| *c > 0) {
        bars.push(Bar {
            label: "transitions".into(),
            cells,
            useful: t.state_words.unwrap_or(0).min(cells),
            known: true,
            check: true,
        });
    }
    if let Some(cells) = t.memory_cells.filter(|c| *c > 0) {
        bars.push(Bar {
            label: "memory check".into(),
            cells,
            useful: t.memory_constraints.unwrap_or(0).min(cells),
            known: true,
            check: true,
        });
    }
    // Largest first; a block that never ran (no cell) last; ties in report order.
    bars.sort_by_key(|b| std::cmp::Reverse(b.cells));
    bars
}

/// The reference lines: label, total cells, colour, dashed.
fn references(report: &Report) -> Vec<(String, u128, RGBColor, bool)> {
    let mut lines = Vec::new();
    if let Some(total) = report.totals.sumcheck_cells {
        lines.push((
            format!("this pipeline: {} cells in all", group_digits(total)),
            total,
            TOTAL,
            false,
        ));
    }
    if let Some(b) = &report.baselines {
        if let Some(c) = b.no_merge_cells {
            lines.push((
                format!("--no-merge: {} cells", group_digits(c)),
                c,
                NO_MERGE,
                true,
            ));
        }
        if let Some(c) = b.monolithic_cells {
            lines.push((
                format!("--monolithic: {} cells", group_digits(c)),
                c,
                MONOLITHIC,
                true,
            ));
        }
    }
    lines
}

/// The chart of the report's cells as an SVG document.
pub fn render(report: &Report) -> Result<String, SvgError> {
    let bars = bars(report);
    let references = references(report);
    let slots = bars.len().max(1);
    let top = bars
        .iter()
        .map(|b| b.cells)
        .chain(references.iter().map(|r| r.1))
        .chain([2])
        .max()
        .unwrap_or(2) as f64;
    // Bars start at 1/2 so that a bar of one cell still shows on a log axis.
    let left = 0.5f64;
    let label_chars = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(8);
    let label_width = (label_chars as u32 * 7 + 16).clamp(80, 520);

    let mut legend = vec![
        (
            Swatch::Bar(PADDING),
            "padding: Q_b·X_b − exec_b·cons_b".to_string(),
        ),
        (Swatch::Bar(USEFUL), "useful: exec_b·cons_b".to_string()),
    ];
    if bars.iter().any(|b| b.check) {
        legend.push((
            Swatch::Bar(CHECK_USEFUL),
            "transition / memory check".to_string(),
        ));
    }
    if bars.iter().any(|b| !b.known) {
        legend.push((
            Swatch::Bar(UNKNOWN),
            "runs ? times: one execution".to_string(),
        ));
    }
    for (text, _, color, _) in &references {
        legend.push((Swatch::Line(*color), text.clone()));
    }
    let legend_rows = (legend.len() as u32).div_ceil(3);
    let legend_height = legend_rows * LEGEND_ROW as u32 + 16;

    let mut svg = String::new();
    {
        let width = 960u32;
        let height = (120 + SLOT * slots as u32 + legend_height).min(8000);
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        // The legend gets its own strip under the plot, so that it never hides a bar.
        let (plot_area, legend_area) = root.split_vertically(height - legend_height);
        let caption = format!(
            "{} ({}): sumcheck cells per block, largest first",
            report.program, report.opt_level
        );
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(caption, ("sans-serif", 18))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(label_width)
            // A segmented range `0..k` has k + 1 slots: one per bar, the first bar at the top.
            .build_cartesian_2d(
                (left..top * 2.0).log_scale(),
                (0..slots - 1).into_segmented(),
            )
            .map_err(draw_err)?;

        let slot_of = |i: usize| slots - 1 - i;
        let label_of = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(s) => bars
                .get(slots - 1 - *s)
                .map_or(String::new(), |b| b.label.clone()),
            _ => String::new(),
        };
        let x_label = |v: &f64| {
            if *v >= 1.0 {
                group_digits(v.round() as u128)
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(slots)
            .y_label_formatter(&label_of)
            .x_label_formatter(&x_label)
            .x_desc("sumcheck cells (log scale)")
            .axis_desc_style(("sans-serif", 14))
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(draw_err)?;

        let bar = |i: usize, to: u128, color: RGBColor, margin: u32| {
            let s = slot_of(i);
            let mut r = Rectangle::new(
                [
                    (left, SegmentValue::Exact(s)),
                    (to as f64, SegmentValue::Exact(s + 1)),
                ],
                color.filled(),
            );
            r.set_margin(margin, margin, 0, 0);
            r
        };
        let pale = |b: &Bar| match (b.known, b.check) {
            (false, _) => UNKNOWN,
            (true, true) => CHECK_PADDING,
            (true, false) => PADDING,
        };
        let dark = |b: &Bar| if b.check { CHECK_USEFUL } else { USEFUL };
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .filter(|(_, b)| b.cells > 0)
                    .map(|(i, b)| bar(i, b.cells, pale(b), 3)),
            )
            .map_err(draw_err)?;
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .filter(|(_, b)| b.useful > 0)
                    .map(|(i, b)| bar(i, b.useful, dark(b), 8)),
            )
            .map_err(draw_err)?;
        for (_, cells, color, dashed) in &references {
            let points = vec![
                (*cells as f64, SegmentValue::Exact(0)),
                (*cells as f64, SegmentValue::Last),
            ];
            if *dashed {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        points,
                        6,
                        4,
                        color.stroke_width(2),
                    )))
                    .map_err(draw_err)?;
            } else {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        points,
                        color.stroke_width(2),
                    )))
                    .map_err(draw_err)?;
            }
        }
        draw_legend(&legend_area, &legend)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}
