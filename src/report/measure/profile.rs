//! What `zkbc profile` measures: the program as `zkbc report` measures it (the same compile,
//! run and cost model, so the totals are the report's), with every block's constraints
//! attributed to where they come from as it is lowered (block formation's lowerings record
//! them; a block no one lowered is lowered by `r1cs::attribute`), and the text of every
//! source file the locations name.
//!
//! ```text
//! profile(name, source, inputs?, &Settings)
//!   measure::measure_attributing (keep_ir, no baselines)
//!       ─▶ Report (executions, padded sizes, totals)
//!        + constraints per instruction and pseudo-origin, recorded as formation and the
//!          report lowered each block (r1cs::StatsCache::attributing)
//!   front::modules::module_text              ─▶ the files' text (for `--format annotate`)
//! ```
//!
//! Architecture invariant: this module sequences stages; the attribution is `r1cs`'s, the
//! sharing out over lines and stacks is `report::profile`'s.

use super::{self as measure, MeasureError, Measurement, Settings, Stage};
use crate::r1cs::{self, BlockAttribution};

/// A measured program with its constraints attributed.
#[derive(Debug)]
pub struct Profiled {
    /// The measurement `zkbc report` would print (its program kept).
    pub measurement: Measurement,
    /// Per block (in the report's order), constraints by origin.
    pub blocks: Vec<BlockAttribution>,
    /// The text of each file of [`crate::ir::Program::files`] (`None` where it cannot be
    /// read; file 0 is `source`).
    pub texts: Vec<Option<String>>,
}

/// Measures `source` as [`measure::measure`] does (without the baselines, which change no
/// total) and attributes every block's constraints.
pub fn profile(
    file_name: &str,
    source: &str,
    inputs: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &dyn Fn(Stage),
) -> Result<Profiled, MeasureError> {
    let settings = Settings {
        keep_ir: true,
        baselines: false,
        ..settings.clone()
    };
    let measurement = measure::measure_attributing(file_name, source, inputs, &settings, progress)?;
    attribute(measurement, source)
}

/// Attributes the constraints of a measured program (measured with `keep_ir`; `source`: the
/// text of the file compiled) and reads the text of every file its locations name. What
/// `zkbc report --top` prints comes from here, without measuring again.
pub fn attribute(mut measurement: Measurement, source: &str) -> Result<Profiled, MeasureError> {
    let program = &measurement.compilation.program;
    let blocks = match measurement.attribution.take() {
        Some(blocks) => blocks,
        None => {
            r1cs::attribute(program, measurement.compilation.lower).map_err(MeasureError::Lower)?
        }
    };
    // The attribution lowers the blocks the report lowered: a difference is a bug.
    let report = &measurement.report;
    let same = blocks.len() == report.blocks.len()
        && blocks
            .iter()
            .zip(&report.blocks)
            .all(|(a, b)| a.total() == b.constraints);
    if !same {
        return Err(MeasureError::Lower(r1cs::LowerError::Unsupported {
            func: program.main_func().name.clone(),
            block: crate::ir::BlockId(0),
            inst: None,
            what: "an attribution whose counts differ from the report's (a compiler bug)".into(),
        }));
    }
    // IR text has no file list: its locations are in file 0, the file compiled.
    let n_files = program.files.len().max(1);
    let texts = (0..n_files)
        .map(|k| match k {
            0 => Some(source.to_string()),
            _ => crate::front::modules::module_text(&program.files[k]),
        })
        .collect();
    Ok(Profiled {
        measurement,
        blocks,
        texts,
    })
}
