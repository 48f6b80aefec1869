//! The compile-and-run helpers `tests/calls_kept.rs` and `tests/inline_cost.rs` share.

use zkbc::driver;
use zkbc::ir::interp::{self, Val};
use zkbc::opt::calls::Inline;
use zkbc::opt::OptLevel;

/// `text` compiled at `level` with `--inline inline`.
pub fn compile(name: &str, text: &str, level: OptLevel, inline: Inline) -> driver::Compilation {
    let options = driver::Options {
        opt_level: level,
        inline,
        ..driver::Options::default()
    };
    driver::compile(name, text, &options).unwrap_or_else(|e| panic!("{name} {level:?}: {e}"))
}

/// Outputs, or the failure's kind: what the inlining modes must agree on.
pub fn run(c: &driver::Compilation, inputs: &serde_json::Value) -> Result<Vec<Val>, String> {
    let values = c.inputs_from_json(inputs)?;
    interp::run(&c.program, &values, interp::Limits::default())
        .map(|o| o.outputs)
        .map_err(|f| f.kind.to_string())
}
