//! The differential oracle: two programs run on the same inputs must agree.

use crate::ir::interp::{self, FailureKind, Limits, Val};
use crate::ir::Program;

/// Runs both programs on every input and describes the first difference: outputs must be equal,
/// or both runs must fail with the same kind of failure.
pub fn compare_runs(before: &Program, after: &Program, inputs: &[Vec<Val>]) -> Result<(), String> {
    let limits = Limits {
        max_steps: 1_000_000,
        ..Limits::default()
    };
    for input in inputs {
        let a = interp::run(before, input, limits).map(|o| o.outputs);
        let b = interp::run(after, input, limits).map(|o| o.outputs);
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
