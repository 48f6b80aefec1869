//! The commands of the `zkbc` binary, grouped by what they work on, and what they share:
//! [`Exit`] (an error with its exit status), reading files and inputs, and running a program.
//! Each command's flags are an `Args` struct beside the function that runs it, which `main.rs`'s
//! `Command` names; `args.rs` holds the flag groups and help texts several commands share.
//!
//! - `ir_text.rs`: `interp`, `opt`, `verify` on text-format IR;
//! - `program.rs`: `compile`, `run`, `query`, `abi` on a program (.zok or IR);
//! - `circuit.rs`: `check`, `prove`, `export` on the R1CS instances of a run's blocks;
//! - `groth16.rs`: `setup`, `prove --backend groth16`, `verify-proof` on a one-circuit program;
//! - `report.rs`: `report` and `table`, the cost model's output;
//! - `profile.rs`: `profile`, the report's numbers by source line;
//! - `progress.rs`: the progress bars on stderr.

pub(crate) mod args;
pub(crate) mod circuit;
pub(crate) mod groth16;
pub(crate) mod ir_text;
pub(crate) mod profile;
pub(crate) mod program;
pub(crate) mod progress;
pub(crate) mod report;
pub(crate) mod spartan;

use anyhow::Context;
use progress::Progress;
use std::path::Path;
use zkbc::driver;
use zkbc::ir::{self, interp};

/// How blocks are lowered: at most `max_constraints` constraints a block (`--max-constraints`),
/// arrays in memory unless the environment sets `ZKBC_NO_MEMORY` (to anything but `0`: every
/// array then stays in the state, to compare). The library reads no environment: this does.
pub(crate) fn lower_options(max_constraints: usize) -> zkbc::r1cs::LowerOptions {
    zkbc::r1cs::LowerOptions {
        max_constraints,
        memory: std::env::var_os("ZKBC_NO_MEMORY").is_none_or(|v| v.is_empty() || v == "0"),
    }
}

/// An error with the exit status it implies.
pub(crate) struct Exit {
    pub(crate) code: u8,
    pub(crate) message: String,
}

pub(crate) fn user_error(message: impl Into<String>) -> Exit {
    Exit {
        code: 2,
        message: message.into(),
    }
}

/// A broken compiler invariant reached from the command line: exit status 1 with a message that
/// says it is a bug.
pub(crate) fn bug(message: String) -> Exit {
    Exit {
        code: 1,
        message: format!("internal error (a zkbc bug): {message}"),
    }
}

/// A file's text; `-` is standard input.
pub(crate) fn read(path: &Path) -> Result<String, Exit> {
    if path == Path::new("-") {
        let mut text = String::new();
        return std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map(|_| text)
            .map_err(|e| user_error(format!("cannot read standard input: {e}")));
    }
    std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(|e| user_error(format!("{e:#}")))
}

pub(crate) fn parse_ir(path: &Path) -> Result<ir::Program, Exit> {
    let text = read(path)?;
    ir::parse_program(&text).map_err(|e| user_error(format!("{}:{e}", path.display())))
}

pub(crate) fn read_json(path: &Path) -> Result<serde_json::Value, Exit> {
    let text = read(path)?;
    serde_json::from_str(&text).map_err(|e| {
        user_error(format!(
            "{}:{}:{}: malformed JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// The inputs already read from `source` (`None`: the empty default) in the program's
/// encoding; bad inputs are exit status 2.
pub(crate) fn inputs_in_encoding(
    compiled: &driver::Compilation,
    json: Option<serde_json::Value>,
    source: Option<&Path>,
) -> Result<Vec<interp::Val>, Exit> {
    let json = json.unwrap_or_else(|| compiled.default_inputs());
    compiled.inputs_from_json(&json).map_err(|e| {
        let source = source.map_or("inputs".into(), |p| p.display().to_string());
        user_error(format!("{source}: {e}"))
    })
}

/// Runs the program; a run-time failure is exit status 1 with `FILE:LINE:COL` when the failing
/// instruction has a source position.
pub(crate) fn execute(
    file: &Path,
    program: &ir::Program,
    values: &[interp::Val],
    max_steps: u64,
) -> Result<interp::Outcome, Exit> {
    let limits = interp::Limits {
        max_steps,
        ..interp::Limits::default()
    };
    interp::run(program, values, limits).map_err(|f| Exit {
        code: 1,
        message: run_failure_message(file, &program.files, &f),
    })
}

/// A run-time failure as a person reads it: `FILE:LINE:COL: what` (FILE is `file`, or the
/// imported module the failing operation is in, by the names `files` gives), then the source
/// line with a caret under the failing operation, and what the operation saw
/// (`= note: 10 < 3 is false`).
pub(crate) fn run_failure_message(file: &Path, files: &[String], f: &interp::Failure) -> String {
    let Some(loc) = f.src else {
        return format!("{}: {f}", file.display());
    };
    // A failure in an imported module points into that module's file.
    let (shown, source) = match files.get(loc.file as usize).filter(|_| loc.file > 0) {
        Some(name) => (name.clone(), zkbc::front::modules::module_text(name)),
        None => (
            file.display().to_string(),
            std::fs::read_to_string(file).ok(),
        ),
    };
    let mut out = format!("{shown}:{loc}: {}", f.kind);
    let line = source
        .as_deref()
        .and_then(|text| text.lines().nth((loc.line as usize).saturating_sub(1)));
    if let Some(line) = line.filter(|_| loc.line > 0) {
        let number = loc.line.to_string();
        let pad = " ".repeat(number.len());
        let indent: String = line
            .chars()
            .take((loc.col as usize).saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        out.push_str(&format!("\n{pad} |\n{number} | {line}\n{pad} | {indent}^"));
    }
    if let Some(detail) = &f.detail {
        out.push_str(&format!("\n  = note: {detail}"));
    }
    out
}

/// With `--log`, the lines of the run's `log(...)` statements on stderr.
pub(crate) fn print_log(outcome: &interp::Outcome, log: bool) {
    if log {
        for line in &outcome.log {
            eprintln!("{line}");
        }
    }
}

/// While alive, the progress spinner names each compile stage as it starts (`FILE: compiling:
/// merge`), so a long compile says where it is; dropped, stages are no longer announced.
pub(crate) struct StageNames;

impl StageNames {
    /// Announces stages on `progress` (nothing when the bar is never drawn).
    pub(crate) fn on(progress: &Progress, file: &Path) -> StageNames {
        if progress.is_enabled() {
            let prefix = format!("{}: compiling: ", file.display());
            zkbc::timing::observe_stages(Some(progress.message_setter(prefix)));
        }
        StageNames
    }
}

impl Drop for StageNames {
    fn drop(&mut self) {
        zkbc::timing::observe_stages(None);
    }
}
