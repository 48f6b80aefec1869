//! Under-constrained detection (`zkbc check --soundness`): for every executed block, try to
//! make its instance accept something it must reject.
//!
//! For each block execution of a trace (the first [`SoundnessOptions::max_executions_per_block`]
//! of each block):
//!
//! 1. assign the block honestly: the same walk over the trace as
//!    [`check_trace`](super::check_trace) ([`for_each_execution`](super::for_each_execution));
//! 2. **outputs**: for each output-state leaf (the next label, the arguments or returned values),
//!    change it, keep every other instance value, and *repair* the witness: repeatedly pick a
//!    violated constraint `A·B = C` with a witness variable that occurs in only one of `A`, `B`,
//!    `C`, and solve the constraint for it. If the repair satisfies every constraint, the same
//!    input state accepts two different output states: the block is under-constrained;
//! 3. **witnesses**: for each witness, change it, keep the instance and that witness fixed and
//!    repair the others the same way. If that satisfies every constraint, the witness is not
//!    determined by the instance. This is not always a bug — a hint that no constraint needs
//!    (the inverse of zero in an `is_zero` gadget) may be free — so these findings are reported
//!    separately, and only when the freed witness occurs in a constraint with a constant `C`
//!    side, the shape of an assertion (`x · inv = 1`, `bit · (1 - bit) = 0`, `cond = 1`).
//!
//! The repair is a search, not a proof: a finding is a concrete satisfying assignment (so it is
//! real), but finding nothing does not prove a block sound. Every finding names the block, the
//! execution and the variable.

use crate::fxhash::HashMap;

use super::{BlockR1cs, CheckError};
use crate::field::Fr;
use crate::ir::interp::Outcome;
use crate::ir::{BlockId, FuncId, Program};
use ark_ff::{Field as _, Zero};
use std::fmt;

/// How much to try.
#[derive(Clone, Copy, Debug)]
pub struct SoundnessOptions {
    /// Executions of each block to try (the first ones in the trace).
    pub max_executions_per_block: usize,
    /// Also try changing each witness (step 3).
    pub witnesses: bool,
    /// How the executed blocks are lowered.
    pub lower: super::LowerOptions,
}

impl Default for SoundnessOptions {
    fn default() -> Self {
        SoundnessOptions {
            max_executions_per_block: 2,
            witnesses: true,
            lower: super::LowerOptions::default(),
        }
    }
}

/// What was changed in a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Output-state leaf `k` (0 is the next label).
    Output(usize),
    /// Witness variable `k` (0-based among the block's witnesses).
    Witness(usize),
}

/// An instance that still accepts after a change: a block that is under-constrained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The function's name.
    pub func: String,
    /// The block.
    pub block: BlockId,
    /// Index of the execution in the trace.
    pub step: usize,
    /// What was changed.
    pub changed: Changed,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.changed {
            Changed::Output(0) => "the next block label (output leaf 0)".to_string(),
            Changed::Output(k) => format!("output leaf {k}"),
            Changed::Witness(k) => format!("witness {k}"),
        };
        write!(
            f,
            "fn {}, {} (execution {} of the trace): {what} changed and the instance still accepts",
            self.func, self.block, self.step
        )
    }
}

/// What the check tried and found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SoundnessReport {
    /// Block executions tried.
    pub executions: usize,
    /// Output leaves changed.
    pub outputs_tried: usize,
    /// Witnesses changed.
    pub witnesses_tried: usize,
    /// Instances that still accepted.
    pub findings: Vec<Finding>,
}

/// Runs the check on every executed block of a successful run of `program` (which must be
/// lowerable: no calls, no memory).
pub fn check_soundness(
    program: &Program,
    outcome: &Outcome,
    options: SoundnessOptions,
) -> Result<SoundnessReport, CheckError> {
    let mut report = SoundnessReport::default();
    let mut tried: HashMap<(FuncId, BlockId), usize> = HashMap::default();
    // The same walk over the trace as `check_trace`: each execution's full assignment.
    let walk = super::CheckOptions {
        lower: options.lower,
        ..super::CheckOptions::default()
    };
    super::for_each_execution_opts(program, outcome, walk, |step, blk, asg| {
        let n_tried = tried.entry((blk.func_id(), blk.block())).or_insert(0);
        if *n_tried >= options.max_executions_per_block {
            return Ok(());
        }
        *n_tried += 1;
        if blk.first_unsatisfied(asg).is_some() {
            // Not this check's business: `check_trace` reports it as a compiler bug.
            return Ok(());
        }
        report.executions += 1;
        let solver = Solver::new(blk);
        let values = asg.full();
        let n_inst = asg.instance.len();
        let at = blk.layout().out_label_index();
        let finding = |changed| Finding {
            func: blk.func_name().to_string(),
            block: blk.block(),
            step,
            changed,
        };
        for k in at..n_inst {
            report.outputs_tried += 1;
            if solver.accepts_with_change(&values, 1 + k, n_inst) {
                report.findings.push(finding(Changed::Output(k - at)));
            }
        }
        if options.witnesses {
            for w in 0..asg.witness.len() {
                let var = 1 + n_inst + w;
                if !solver.in_assertion_shape[var] {
                    continue;
                }
                report.witnesses_tried += 1;
                if solver.accepts_with_change(&values, var, n_inst) {
                    report.findings.push(finding(Changed::Witness(w)));
                }
            }
        }
        Ok(())
    })?;
    Ok(report)
}

/// One constraint `A·B = C` as three sparse rows over variable indices
/// (`[1, instance.., witness..]`).
pub type Constraint = [Vec<(usize, Fr)>; 3];

/// The check on one hand-built instance: `constraints` over `[1, instance.., witness..]`, an
/// honest assignment that satisfies them, and the index in `instance` where the output state
/// starts. Returns what could be changed with the instance still accepting.
pub fn check_instance(
    constraints: Vec<Constraint>,
    instance: &[Fr],
    witness: &[Fr],
    out_start: usize,
    witnesses: bool,
) -> Vec<Changed> {
    let n_vars = 1 + instance.len() + witness.len();
    let solver = Solver::from_rows(constraints, n_vars);
    let mut values = vec![Fr::from(1u64)];
    values.extend_from_slice(instance);
    values.extend_from_slice(witness);
    assert!(
        solver.violated(&values).is_none(),
        "check_instance needs an honest assignment that satisfies the constraints"
    );
    let n_inst = instance.len();
    let mut found = Vec::new();
    for k in out_start..n_inst {
        if solver.accepts_with_change(&values, 1 + k, n_inst) {
            found.push(Changed::Output(k - out_start));
        }
    }
    if witnesses {
        for w in 0..witness.len() {
            let var = 1 + n_inst + w;
            if solver.in_assertion_shape[var] && solver.accepts_with_change(&values, var, n_inst) {
                found.push(Changed::Witness(w));
            }
        }
    }
    found
}

type Row = Vec<(usize, Fr)>;

/// The constraints of one block as rows over variable indices, with the repair search.
struct Solver {
    rows: Vec<[Row; 3]>,
    /// Per variable: occurs in a constraint whose `C` side is a constant.
    in_assertion_shape: Vec<bool>,
}

fn eval(row: &Row, v: &[Fr]) -> Fr {
    row.iter().map(|&(x, c)| v[x] * c).sum()
}

impl Solver {
    fn new(blk: &BlockR1cs<'_>) -> Solver {
        let n_vars = 1 + blk.n_instance() + blk.n_witness();
        let conv = |r: super::Row<'_>| -> Row { r.iter().map(|(x, c)| (x as usize, c)).collect() };
        let rows = (0..blk.n_constraints())
            .map(|k| {
                let (a, b, c) = blk.constraint(k);
                [conv(a), conv(b), conv(c)]
            })
            .collect();
        Solver::from_rows(rows, n_vars)
    }

    fn from_rows(all: Vec<Constraint>, n_vars: usize) -> Solver {
        let mut rows = Vec::with_capacity(all.len());
        let mut in_assertion_shape = vec![false; n_vars];
        for row in all {
            let c_constant = row[2].iter().all(|&(x, _)| x == 0);
            for side in &row {
                for &(x, _) in side {
                    if c_constant {
                        in_assertion_shape[x] = true;
                    }
                }
            }
            rows.push(row);
        }
        Solver {
            rows,
            in_assertion_shape,
        }
    }

    fn violated(&self, v: &[Fr]) -> Option<usize> {
        self.rows
            .iter()
            .position(|[a, b, c]| eval(a, v) * eval(b, v) != eval(c, v))
    }

    /// Changes variable `var` (by one, then to a pseudo-random value) and repairs the free
    /// witnesses (`index > n_inst`); true when some attempt satisfies every constraint.
    fn accepts_with_change(&self, honest: &[Fr], var: usize, n_inst: usize) -> bool {
        let deltas = [Fr::from(1u64), Fr::from(0x1234_5678_9abc_def1u64)];
        deltas.iter().any(|d| {
            let mut v = honest.to_vec();
            v[var] += d;
            self.repair(&mut v, var, n_inst)
        })
    }

    fn repair(&self, v: &mut [Fr], fixed: usize, n_inst: usize) -> bool {
        let free = |x: usize| x > n_inst && x != fixed;
        let mut solves = vec![0u32; v.len()];
        let budget = 4 * self.rows.len() + 16;
        for _ in 0..budget {
            let Some(k) = self.violated(v) else {
                return true;
            };
            let [a, b, c] = &self.rows[k];
            let sides = [a, b, c];
            // Candidates: a free variable that occurs in exactly one side, solved fewest times.
            let mut best: Option<(usize, usize, Fr)> = None;
            for (s, side) in sides.iter().enumerate() {
                for &(x, coeff) in side.iter() {
                    if !free(x) || coeff.is_zero() || solves[x] >= 3 {
                        continue;
                    }
                    let elsewhere = sides
                        .iter()
                        .enumerate()
                        .any(|(t, other)| t != s && other.iter().any(|&(y, _)| y == x));
                    if elsewhere {
                        continue;
                    }
                    if best.is_none_or(|(bx, _, _)| solves[x] < solves[bx]) {
                        best = Some((x, s, coeff));
                    }
                }
            }
            let Some((x, s, coeff)) = best else {
                return false;
            };
            // The side's value without x.
            let rest = |row: &Row, v: &[Fr]| -> Fr {
                row.iter()
                    .filter(|&&(y, _)| y != x)
                    .map(|&(y, c)| v[y] * c)
                    .sum()
            };
            let target = match s {
                2 => eval(a, v) * eval(b, v),
                0 => {
                    let Some(inv) = eval(b, v).inverse() else {
                        return false;
                    };
                    eval(c, v) * inv
                }
                _ => {
                    let Some(inv) = eval(a, v).inverse() else {
                        return false;
                    };
                    eval(c, v) * inv
                }
            };
            let value = (target - rest(sides[s], v)) * coeff.inverse().expect("nonzero");
            v[x] = value;
            solves[x] += 1;
        }
        false
    }
}
