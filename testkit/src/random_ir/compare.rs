//! The differential oracle: two programs run on the same inputs must agree.

use zkbc::ir::interp::{self, FailureKind, Limits, Val};
use zkbc::ir::Program;

/// The step limit of a compared run. Generated programs terminate well within it; a run of the
/// unoptimized program that reaches it means the generator is broken.
pub const MAX_STEPS: u64 = 1_000_000;

/// Runs both programs on every input and describes the first difference: outputs must be equal,
/// or both runs must fail with the same kind of failure; and both must print the same `log`
/// lines, in the same order (up to the failure, for a failed run).
pub fn compare_runs(before: &Program, after: &Program, inputs: &[Vec<Val>]) -> Result<(), String> {
    let limits = Limits {
        max_steps: MAX_STEPS,
        ..Limits::default()
    };
    for input in inputs {
        let (a, log_a) = interp::run_logged(before, input, limits);
        let (b, log_b) = interp::run_logged(after, input, limits);
        let same = match (&a, &b) {
            (Ok(x), Ok(y)) => x == y,
            (Err(x), Err(y)) => x.kind == y.kind,
            _ => false,
        };
        if !same {
            return Err(format!(
                "inputs {input:?}: before {:?}, after {:?}",
                a.as_ref().map_err(|f| &f.kind),
                b.as_ref().map_err(|f| &f.kind)
            ));
        }
        if log_a != log_b {
            return Err(format!(
                "inputs {input:?}: the log changed\nbefore: {log_a:?}\nafter:  {log_b:?}"
            ));
        }
        if let Err(f) = &a {
            if matches!(
                f.kind,
                FailureKind::InvalidProgram(_) | FailureKind::StepLimit(_)
            ) {
                return Err(format!("the generated program itself is broken: {f}"));
            }
        }
    }
    Ok(())
}
