//! Witness generation from the interpreter's block trace, and the check that it satisfies the
//! block's instance.
//!
//! For every block execution of the trace the block's instance is assigned by re-running its
//! lowering on the input state, the output state is then overwritten with what the *interpreter*
//! says the block produced (next label and arguments, or returned values), and every row must
//! hold: evaluated directly over the block's rows ([`Checker::Direct`], the default), or by
//! emitting the instance into an ark-relations `gr1cs` system whose `which_is_unsatisfied` must
//! be `None` ([`Checker::Ark`], an independent cross-check). So a gadget that computes a
//! different result than the interpreter shows up as an unsatisfied block, with the row. Live-in leaves (values not passed as parameters) are carried from
//! the previous execution's output state.

use super::memory::{check_memory, AccessKind, MemoryEntry, MemoryError, MemoryTrace};
use super::{block_label, lower_with, return_label, Assignment, BlockR1cs, LowerError};
use crate::field::Fr;
use crate::ir::interp::{Exit, Outcome, Val};
use crate::ir::{BlockId, FuncId, Program};
use ark_ff::{One, Zero};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Flattens a value to its scalar leaves (arrays in index order).
pub fn flatten_val(v: &Val, out: &mut Vec<Fr>) -> Result<(), String> {
    match v {
        Val::Field(x) => out.push(*x),
        Val::UInt(n) => out.push(Fr::from(*n)),
        Val::Array(items) => {
            for i in items.iter() {
                flatten_val(i, out)?;
            }
        }
        Val::Ref(_) => return Err("a reference cannot be part of a block's state".into()),
    }
    Ok(())
}

/// How one block fared in a checked trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockCheck {
    /// The function.
    pub func: FuncId,
    /// The block.
    pub block: BlockId,
    /// How many times it ran (every run was satisfied).
    pub executions: usize,
    /// Its constraint count.
    pub constraints: usize,
}

/// A trace whose every block execution satisfied its instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Block executions checked.
    pub executions: usize,
    /// Per executed block, in order of first execution.
    pub blocks: Vec<BlockCheck>,
    /// The run's memory: initial entries and accesses (empty when no array lives in memory).
    pub memory: MemoryTrace,
}

/// Why a trace does not check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// A block could not be lowered or assigned.
    Lower(LowerError),
    /// A block execution does not satisfy its instance: a compiler bug.
    Unsatisfied {
        /// The function's name.
        func: String,
        /// The block.
        block: BlockId,
        /// Index of the execution in the trace.
        step: usize,
        /// The constraint: `#k` (the block's k-th row) from the direct checker, what
        /// ark-relations' `which_is_unsatisfied` reports from the other.
        constraint: String,
    },
    /// The memory-checking instance rejects the run's accesses: a compiler bug.
    Memory(MemoryError),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Lower(e) => write!(f, "{e}"),
            CheckError::Unsatisfied {
                func,
                block,
                step,
                constraint,
            } => write!(
                f,
                "fn {func}, {block} (execution {step} of the trace) does not satisfy its R1CS instance: constraint {constraint} fails"
            ),
            CheckError::Memory(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<LowerError> for CheckError {
    fn from(e: LowerError) -> Self {
        CheckError::Lower(e)
    }
}

/// How an execution's satisfaction is decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checker {
    /// Every row `⟨a, z⟩ · ⟨b, z⟩ = ⟨c, z⟩` evaluated directly over the block's packed rows.
    #[default]
    Direct,
    /// The instance built as an ark-relations constraint system and asked
    /// `which_is_unsatisfied`: an independent implementation, slower (`check --cross-check`).
    Ark,
}

/// Assigns and checks every block execution of a successful run, evaluating the rows directly.
pub fn check_trace(program: &Program, outcome: &Outcome) -> Result<CheckReport, CheckError> {
    check_trace_with(program, outcome, Checker::Direct)
}

/// [`check_trace`] with the given checker.
pub fn check_trace_with(
    program: &Program,
    outcome: &Outcome,
    checker: Checker,
) -> Result<CheckReport, CheckError> {
    let report = for_each_execution(program, outcome, |step, blk, asg| {
        let unsat = match checker {
            Checker::Direct => blk.first_unsatisfied(asg).map(|k| format!("#{k}")),
            Checker::Ark => {
                blk.to_ark(asg)
                    .which_is_unsatisfied()
                    .map_err(|e| LowerError::BadState {
                        block: blk.block(),
                        message: format!("ark-relations: {e}"),
                    })?
            }
        };
        match unsat {
            Some(constraint) => Err(CheckError::Unsatisfied {
                func: blk.func_name().to_string(),
                block: blk.block(),
                step,
                constraint,
            }),
            None => Ok(()),
        }
    })?;
    check_memory(&report.memory).map_err(CheckError::Memory)?;
    Ok(report)
}

/// Flattens the values that are part of a state (those not in memory).
fn flatten_state(vals: &[Val], in_memory: &[bool], out: &mut Vec<Fr>) -> Result<(), String> {
    for (k, v) in vals.iter().enumerate() {
        if !in_memory.get(k).copied().unwrap_or(false) {
            flatten_val(v, out)?;
        }
    }
    Ok(())
}

/// Assigns every block execution of a successful run — the input state from the trace, the
/// output state (next label and arguments, or returned values) from the trace too, every other
/// variable by the gadgets — and hands each `(trace step, instance, assignment)` to `visit` in
/// trace order. [`check_trace`] checks each; the prover and the exporter collect them.
pub fn for_each_execution<'p>(
    program: &'p Program,
    outcome: &Outcome,
    mut visit: impl FnMut(usize, &BlockR1cs<'p>, &Assignment) -> Result<(), CheckError>,
) -> Result<CheckReport, CheckError> {
    // Each circuit function's memory plan, and where its addresses and segments start in the
    // program's memory.
    let circuit = program.circuit_funcs();
    let mut infos = HashMap::new();
    let mut offsets = HashMap::new();
    let mut memory = MemoryTrace::default();
    let (mut addr_off, mut seg_off) = (0u64, 0u64);
    for f in program.func_ids().filter(|f| circuit[f.index()]) {
        let info = Arc::new(super::live::FuncInfo::new(program.func(f)));
        offsets.insert(f, (addr_off, seg_off));
        for (s, seg) in info.memory.segments.iter().enumerate() {
            for k in 0..seg.len {
                memory.inits.push(MemoryEntry {
                    addr: Fr::from(addr_off + seg.base + k),
                    seg: seg_off + s as u64,
                    value: seg
                        .init
                        .as_ref()
                        .and_then(|v| v.get(k as usize).copied())
                        .unwrap_or_else(Fr::zero),
                    rw: Fr::one(),
                    ts: 0,
                });
            }
        }
        addr_off += info.memory.size;
        seg_off += info.memory.segments.len() as u64;
        infos.insert(f, info);
    }
    // The last value written of every spilled scalar.
    let mut spilled: HashMap<(FuncId, crate::ir::ValueId), Fr> = HashMap::new();
    let mut cache: HashMap<(FuncId, BlockId), BlockR1cs<'_>> = HashMap::new();
    let mut order: Vec<(FuncId, BlockId)> = Vec::new();
    let mut runs: HashMap<(FuncId, BlockId), usize> = HashMap::new();
    // Live-in leaves the previous execution passed to the block it jumped to.
    let mut carried: Option<(BlockId, Vec<Fr>)> = None;
    for (step, entry) in outcome.trace.iter().enumerate() {
        let key = (entry.func, entry.block);
        let func =
            program
                .funcs
                .get(entry.func.index())
                .ok_or_else(|| LowerError::NoSuchBlock {
                    func: entry.func.to_string(),
                    block: entry.block,
                })?;
        if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(key) {
            let info = infos
                .entry(entry.func)
                .or_insert_with(|| Arc::new(super::live::FuncInfo::new(func)))
                .clone();
            let main_entry = entry.func == program.main && entry.block == func.entry;
            slot.insert(lower_with(func, entry.func, info, entry.block, main_entry)?);
            order.push(key);
        }
        *runs.entry(key).or_insert(0) += 1;
        let blk = &cache[&key];
        let layout = blk.layout();
        let bad = |message: String| LowerError::BadState {
            block: entry.block,
            message,
        };
        let mut leaves = Vec::new();
        flatten_state(&entry.params, &layout.memory_params, &mut leaves).map_err(bad)?;
        match carried.take() {
            Some((b, live)) if b == entry.block => leaves.extend(live),
            _ if layout.live_leaves == 0 => {}
            _ => {
                return Err(bad("live-in values without a predecessor in the trace".into()).into())
            }
        }
        let mut hints = Vec::new();
        for h in &entry.hints {
            flatten_val(h, &mut hints).map_err(bad)?;
        }
        let spill_values = layout
            .spill_reads
            .iter()
            .map(|v| {
                spilled.get(&(entry.func, *v)).copied().ok_or_else(|| {
                    bad(format!("{v} is read from memory before any block wrote it"))
                })
            })
            .collect::<Result<Vec<Fr>, _>>()?;
        let mut asg = blk.assign_with(&leaves, &hints, &entry.accesses, &spill_values)?;
        for &(k, v) in &layout.spill_writes {
            spilled.insert((entry.func, v), asg.instance[layout.accesses[k].value]);
        }
        let (label, values, target) = match &entry.exit {
            Exit::Jump(b, args) => (block_label(*b), args, Some(*b)),
            Exit::Return(vals) => (return_label(), vals, None),
        };
        let in_memory: &[bool] = layout
            .exits
            .iter()
            .find(|e| e.target == target)
            .map(|e| e.memory_args.as_slice())
            .unwrap_or(&[]);
        let mut out = Vec::new();
        flatten_state(values, in_memory, &mut out).map_err(bad)?;
        if out.len() > layout.out_leaves {
            return Err(bad(format!(
                "the trace leaves with {} values, the output state has {}",
                out.len(),
                layout.out_leaves
            ))
            .into());
        }
        let at = layout.out_label_index();
        asg.instance[at] = label;
        asg.instance[at + 1..at + 1 + out.len()].copy_from_slice(&out);
        let (addr_off, seg_off) = offsets.get(&entry.func).copied().unwrap_or_default();
        for a in &layout.accesses {
            memory.accesses.push(MemoryEntry {
                addr: asg.instance[a.addr] + Fr::from(addr_off),
                seg: seg_off + u64::from(a.seg),
                value: asg.instance[a.value],
                rw: match (a.kind, a.rw) {
                    (AccessKind::Read, _) => Fr::zero(),
                    (AccessKind::Write, _) => Fr::one(),
                    (AccessKind::Guarded, Some(k)) => asg.instance[k],
                    (AccessKind::Guarded, None) => Fr::zero(),
                },
                ts: memory.accesses.len() as u64 + 1,
            });
            memory.steps.push(step);
        }
        visit(step, blk, &asg)?;
        if let Some(t) = target {
            if let Some(exit) = layout.exits.iter().find(|e| e.target == Some(t)) {
                let start = at + 1 + exit.arg_leaves;
                carried = Some((t, asg.instance[start..start + exit.live_leaves].to_vec()));
            }
        }
    }
    Ok(CheckReport {
        executions: outcome.trace.len(),
        blocks: order
            .into_iter()
            .map(|key| BlockCheck {
                func: key.0,
                block: key.1,
                executions: runs[&key],
                constraints: cache[&key].n_constraints(),
            })
            .collect(),
        memory,
    })
}
