//! Witness generation from the interpreter's block trace, and the check that it satisfies the
//! block's instance.
//!
//! Every executed block is lowered once, with its witness [`Tape`](super::Tape); every
//! execution of it is then assigned by running the tape on its input state
//! ([`Witnesses::Compiled`], the default; [`Witnesses::Relowered`] re-runs the lowering in
//! witness mode instead, the reference). The output state is then overwritten with what the
//! *interpreter* says the block produced (next label and arguments, or returned values), and
//! every row must hold: evaluated directly over the block's rows, compiled once per block
//! ([`Checker::Direct`], the default; `satisfy.rs`), or by emitting the instance into an
//! ark-relations `gr1cs` system whose `which_is_unsatisfied` must be `None`
//! ([`Checker::Ark`], an independent cross-check). So a
//! gadget that computes a different result than the interpreter shows up as an unsatisfied
//! block, with the row. Live-in leaves (values not passed as parameters) are carried from the
//! previous execution's output state.
//!
//! # Chunks
//!
//! The walk over the trace is sequential (an execution's live-ins, spilled scalars and memory
//! timestamps come from the ones before it), but it only runs tapes: executions are assigned
//! into a flat buffer, a *chunk* of up to [`CHUNK_EXECUTIONS`] executions or
//! [`CHUNK_VALUES`] values. A full chunk has its deferred inverses inverted in one batch, then
//! its rows are checked in parallel (rayon), and the first unsatisfied execution *in trace
//! order* is the one reported (`find_first`), so the result does not depend on the number of
//! threads. An error met while assigning is reported after the chunk's earlier executions are
//! checked, so it too is the first in trace order. [`check_trace_opts`] and [`check_run`]
//! check each full chunk on a thread of their own while the walk (and, streamed, the run)
//! fills the next ([`pipelined`]; called on a rayon worker, on the walk's thread as before):
//! one chunk is checked at a time, in trace order, and the checker stops at the first that
//! fails, so the error is the same; the walk fills one chunk while the one before is checked,
//! and a checked chunk comes back to be filled again.

use crate::fxhash::HashMap;

use super::fxhash::FxMap;
use super::memory::{check_memory, AccessKind, MemoryEntry, MemoryError, MemoryTrace};
use super::tape::{batch_invert, Inputs};
use super::{
    block_label, lower_with_tape, return_label, Assignment, BlockR1cs, LowerError, LowerOptions,
};
use crate::field::Fr;
use crate::ir::interp::{Exit, Outcome, TraceEntry, Val};
use crate::ir::{BlockId, FuncId, Program};
use ark_ff::{One, Zero};
use rayon::prelude::*;
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
    /// Every row `⟨a, z⟩ · ⟨b, z⟩ = ⟨c, z⟩` evaluated directly, over the block's rows compiled
    /// once for its many executions ([`BlockR1cs::first_unsatisfied_with`]).
    #[default]
    Direct,
    /// The instance built as an ark-relations constraint system and asked
    /// `which_is_unsatisfied`: an independent implementation, slower (`check --cross-check`).
    Ark,
}

/// How an execution's witness is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Witnesses {
    /// By the block's [`Tape`](super::Tape), compiled once.
    #[default]
    Compiled,
    /// By re-running the block's lowering in witness mode for every execution: the reference
    /// the tape is tested against (slow).
    Relowered,
}

/// Executions in one chunk at most.
pub const CHUNK_EXECUTIONS: usize = 4096;
/// Values (`z` slots) in one chunk at most, unless one execution alone has more.
pub const CHUNK_VALUES: usize = 1 << 18;

/// Executions checked one after another by one thread, sharing a scratch buffer.
const CHECK_SLICE: usize = 64;

/// What [`check_trace_opts`] does besides checking.
#[derive(Clone, Copy, Default)]
pub struct CheckOptions<'a> {
    /// How satisfaction is decided.
    pub checker: Checker,
    /// How witnesses are computed.
    pub witnesses: Witnesses,
    /// Called after each chunk with the number of executions done so far (a progress bar).
    pub progress: Option<&'a dyn Fn(usize)>,
    /// How the executed blocks are lowered.
    pub lower: LowerOptions,
}

/// Assigns and checks every block execution of a successful run, evaluating the rows directly.
pub fn check_trace(program: &Program, outcome: &Outcome) -> Result<CheckReport, CheckError> {
    check_trace_opts(program, outcome, CheckOptions::default())
}

/// [`check_trace`] with the given checker.
pub fn check_trace_with(
    program: &Program,
    outcome: &Outcome,
    checker: Checker,
) -> Result<CheckReport, CheckError> {
    check_trace_opts(
        program,
        outcome,
        CheckOptions {
            checker,
            ..CheckOptions::default()
        },
    )
}

/// [`check_trace`] with every option.
pub fn check_trace_opts(
    program: &Program,
    outcome: &Outcome,
    opts: CheckOptions<'_>,
) -> Result<CheckReport, CheckError> {
    let report = pipelined(program, opts, |walker| {
        for entry in &outcome.trace {
            walker.push(entry)?;
        }
        walker.finish()
    })?;
    check_memory(&report.memory).map_err(CheckError::Memory)?;
    Ok(report)
}

/// [`check_trace_opts`] of a run made now, streamed: `run` is given a sink for the run's block
/// executions in trace order (as [`crate::ir::interp::run_with_sink`] takes one), and each
/// chunk of them is checked as soon as it is full, so the trace is never held whole. Returns
/// what `run` returned and the check's result. After the first error the sink ignores what it
/// is given (the run goes on: whether it fails is for the caller to say first); the report's
/// `executions` then counts those checked.
pub fn check_run<R>(
    program: &Program,
    opts: CheckOptions<'_>,
    run: impl FnOnce(&mut dyn FnMut(TraceEntry)) -> R,
) -> (R, Result<CheckReport, CheckError>) {
    let mut ran = None;
    let checked = pipelined(program, opts, |walker| {
        let mut error = None;
        ran = Some(run(&mut |entry| {
            if error.is_none() {
                error = walker.push(&entry).err();
            }
        }));
        match error {
            Some(e) => {
                // Wait for the chunks already handed over: the error comes after them.
                walker.abandon();
                Err(e)
            }
            None => walker.finish(),
        }
    })
    .and_then(|report| {
        check_memory(&report.memory).map_err(CheckError::Memory)?;
        Ok(report)
    });
    (ran.expect("the run ran"), checked)
}

/// Walks a trace (`drive` pushes its executions into the walker) and checks each full chunk on
/// a thread of its own while the walk assigns the next: the walk (the run, when it is streamed,
/// and each execution's tape) is sequential, the check of a chunk is not, so the two overlap.
/// One chunk is checked at a time and in trace order, and the checker stops at the first
/// unsatisfied execution, so the error reported is the first in trace order, as when the
/// chunks are checked one after another.
fn pipelined<'p, 'a>(
    program: &'p Program,
    opts: CheckOptions<'a>,
    drive: impl for<'s> FnOnce(
        &mut Walker<'p, 'a, Pipelined<'p, 's>>,
    ) -> Result<CheckReport, CheckError>,
) -> Result<CheckReport, CheckError> {
    std::thread::scope(|scope| {
        // A chunk is handed over when the checker is done with the one before: the walk fills
        // one while one is checked (two buffers, reused).
        let (tx, rx) = std::sync::mpsc::sync_channel::<(Vec<Arc<BlockR1cs<'p>>>, Chunk)>(0);
        // Checked chunks come back, emptied, to be filled again (their buffers kept).
        let (back, recycled) = std::sync::mpsc::channel::<Chunk>();
        let checker = opts.checker;
        // Called on a rayon worker (a caller checking programs in parallel), the walk would
        // block that worker while its checker waits for the pool: there is no checker thread,
        // and each chunk is checked on the walk's thread, in the caller's pool.
        let handle = rayon::current_thread_index().is_none().then(|| {
            scope.spawn(move || -> Result<(), CheckError> {
                // The first failing chunk ends the loop, and with it the channel: the walk's
                // next hand-over fails and it asks for this result.
                for (blocks, mut chunk) in rx {
                    chunk.invert(&blocks);
                    check_chunk(checker, &blocks, &chunk)?;
                    chunk.entries.clear();
                    chunk.z.clear();
                    let _ = back.send(chunk);
                }
                Ok(())
            })
        });
        let sink = Pipelined {
            checker,
            to_checker: handle.is_some().then_some(tx),
            recycled,
            handle,
        };
        let mut walker = Walker::new(program, opts, sink);
        let result = drive(&mut walker);
        // Whatever `drive` did, the checker is done before the scope ends.
        walker.abandon();
        result
    })
}

/// The sink of [`pipelined`]: hands each chunk to the checker thread.
struct Pipelined<'p, 'scope> {
    checker: Checker,
    /// `None` without a checker thread, or once it was waited for.
    to_checker: Option<std::sync::mpsc::SyncSender<(Vec<Arc<BlockR1cs<'p>>>, Chunk)>>,
    /// Chunks the checker is done with.
    recycled: std::sync::mpsc::Receiver<Chunk>,
    handle: Option<std::thread::ScopedJoinHandle<'scope, Result<(), CheckError>>>,
}

impl<'p> Sink<'p> for Pipelined<'p, '_> {
    type Error = CheckError;

    fn flush(
        &mut self,
        blocks: &[Arc<BlockR1cs<'p>>],
        chunk: &mut Chunk,
    ) -> Result<(), CheckError> {
        if chunk.entries.is_empty() {
            return Ok(());
        }
        let Some(tx) = &self.to_checker else {
            // No checker thread (on a rayon worker, or settled already): checked here.
            chunk.invert(blocks);
            return check_chunk(self.checker, blocks, chunk);
        };
        let next = self.recycled.try_recv().unwrap_or_default();
        let full = std::mem::replace(chunk, next);
        if tx.send((blocks.to_vec(), full)).is_err() {
            // The checker stopped at an unsatisfied execution: its error.
            return self.settle();
        }
        Ok(())
    }

    fn settle(&mut self) -> Result<(), CheckError> {
        self.to_checker = None;
        match self.handle.take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => Ok(()),
        }
    }
}

/// Where the walk hands its chunks: [`Walker`] calls `flush` with each full chunk (and the last),
/// its inverses not yet done, and `settle` before it reports anything.
trait Sink<'p> {
    /// What a chunk may fail with.
    type Error;
    /// A chunk of assigned executions; it may be taken (the walker clears what is left).
    fn flush(
        &mut self,
        blocks: &[Arc<BlockR1cs<'p>>],
        chunk: &mut Chunk,
    ) -> Result<(), Self::Error>;
    /// Waits for every chunk handed over: the first error among them.
    fn settle(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A chunk handled at once, on the walk's thread.
struct Now<F, E>(F, std::marker::PhantomData<fn() -> E>);

impl<'p, E, F> Sink<'p> for Now<F, E>
where
    F: FnMut(&[Arc<BlockR1cs<'p>>], &Chunk) -> Result<(), E>,
{
    type Error = E;

    fn flush(&mut self, blocks: &[Arc<BlockR1cs<'p>>], chunk: &mut Chunk) -> Result<(), E> {
        chunk.invert(blocks);
        (self.0)(blocks, chunk)
    }
}

/// Checks a chunk of assigned executions with `checker`: the first unsatisfied one in trace
/// order is the error.
fn check_chunk(
    checker: Checker,
    blocks: &[Arc<BlockR1cs<'_>>],
    chunk: &Chunk,
) -> Result<(), CheckError> {
    let unsat = |blk: &BlockR1cs<'_>, step: usize, constraint: String| CheckError::Unsatisfied {
        func: blk.func_name().to_string(),
        block: blk.block(),
        step,
        constraint,
    };
    match checker {
        Checker::Direct => {
            // Executions in slices, each with its own scratch for the rows' values.
            let bad = chunk
                .entries
                .par_chunks(CHECK_SLICE)
                .find_map_first(|slice| {
                    let mut scratch = Vec::new();
                    slice.iter().find_map(|e| {
                        let blk = &blocks[e.block];
                        let z = &chunk.z[e.at..];
                        // A block's first execution is checked on its rows as stored: compiling
                        // them (`satisfy.rs`) pays only from the second on, and a large block is
                        // often run once (a Keccak or SHA-256 program as one block).
                        let bad = if e.first {
                            blk.first_unsatisfied_z(z)
                        } else {
                            blk.first_unsatisfied_with(z, &mut scratch)
                        };
                        bad.map(|k| unsat(blk, e.step, format!("#{k}")))
                    })
                });
            bad.map_or(Ok(()), Err)
        }
        Checker::Ark => {
            for e in &chunk.entries {
                let blk = &blocks[e.block];
                let asg = chunk.assignment(blk, e);
                let found = blk.to_ark(&asg).which_is_unsatisfied().map_err(|err| {
                    LowerError::BadState {
                        block: blk.block(),
                        message: format!("ark-relations: {err}"),
                    }
                })?;
                if let Some(constraint) = found {
                    return Err(unsat(blk, e.step, constraint));
                }
            }
            Ok(())
        }
    }
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
/// variable by the block's tape — and hands each `(trace step, instance, assignment)` to
/// `visit` in trace order. [`check_trace`] checks each; the prover and the exporter collect them.
pub fn for_each_execution<'p>(
    program: &'p Program,
    outcome: &Outcome,
    visit: impl FnMut(usize, &BlockR1cs<'p>, &Assignment) -> Result<(), CheckError>,
) -> Result<CheckReport, CheckError> {
    for_each_execution_opts(program, outcome, CheckOptions::default(), visit)
}

/// [`for_each_execution`] with the witnesses computed and the blocks lowered as `opts` says,
/// calling its `progress` after each chunk with the number of executions done (its `checker`
/// is not used: nothing is checked).
pub fn for_each_execution_opts<'p>(
    program: &'p Program,
    outcome: &Outcome,
    opts: CheckOptions<'_>,
    visit: impl FnMut(usize, &BlockR1cs<'p>, &Assignment) -> Result<(), CheckError>,
) -> Result<CheckReport, CheckError> {
    try_for_each_execution(program, outcome, opts, visit)
}

/// [`for_each_execution_opts`] whose `visit` may fail with an error of its own (writing a
/// file, say), which stops the walk and is returned as it is.
pub fn try_for_each_execution<'p, E: From<CheckError>>(
    program: &'p Program,
    outcome: &Outcome,
    opts: CheckOptions<'_>,
    mut visit: impl FnMut(usize, &BlockR1cs<'p>, &Assignment) -> Result<(), E>,
) -> Result<CheckReport, E> {
    walk(program, outcome, opts, |blocks, chunk| {
        for e in &chunk.entries {
            let blk = &blocks[e.block];
            visit(e.step, blk, &chunk.assignment(blk, e))?;
        }
        Ok(())
    })
}

/// One execution in a chunk.
struct Entry {
    /// Its index in the trace.
    step: usize,
    /// Its block, an index into the walk's blocks.
    block: usize,
    /// Where its `z` starts in the chunk's buffer.
    at: usize,
    /// Whether its tape left deferred inverses (a re-lowered execution has none).
    deferred: bool,
    /// Whether it is its block's first execution.
    first: bool,
}

/// Executions assigned but not yet checked (see the module doc).
#[derive(Default)]
struct Chunk {
    z: Vec<Fr>,
    entries: Vec<Entry>,
}

impl Chunk {
    fn assignment(&self, blk: &BlockR1cs<'_>, e: &Entry) -> Assignment {
        let (ni, nw) = (blk.n_instance(), blk.n_witness());
        let z = &self.z[e.at..];
        Assignment {
            instance: z[1..1 + ni].to_vec(),
            witness: z[1 + ni..1 + ni + nw].to_vec(),
        }
    }

    /// Inverts the deferred slots of every execution in one batch.
    fn invert(&mut self, blocks: &[Arc<BlockR1cs<'_>>]) {
        let mut dens = Vec::new();
        for e in self.entries.iter().filter(|e| e.deferred) {
            if let Some(t) = blocks[e.block].tape() {
                dens.extend(t.deferred().iter().map(|&d| self.z[e.at + d as usize]));
            }
        }
        if dens.is_empty() {
            return;
        }
        batch_invert(&mut dens);
        let mut it = dens.into_iter();
        for e in self.entries.iter().filter(|e| e.deferred) {
            if let Some(t) = blocks[e.block].tape() {
                for &d in t.deferred() {
                    self.z[e.at + d as usize] = it.next().expect("one inverse per slot");
                }
            }
        }
    }
}

/// The walk over the trace shared by the checker and [`for_each_execution`]: assigns every
/// execution into chunks and hands each full chunk, its inverses done, to `flush`.
fn walk<'p, E: From<CheckError>>(
    program: &'p Program,
    outcome: &Outcome,
    opts: CheckOptions<'_>,
    flush: impl FnMut(&[Arc<BlockR1cs<'p>>], &Chunk) -> Result<(), E>,
) -> Result<CheckReport, E> {
    let mut walker = Walker::new(program, opts, Now(flush, std::marker::PhantomData));
    for entry in &outcome.trace {
        walker.push(entry)?;
    }
    walker.finish()
}

/// [`walk`] one execution at a time, as they come.
struct Walker<'p, 'a, F> {
    w: Walk<'p>,
    chunk: Chunk,
    /// Executions pushed, and handed to `flush` in full chunks.
    steps: usize,
    done: usize,
    progress: Option<&'a dyn Fn(usize)>,
    flush: F,
}

impl<'p, 'a, F> Walker<'p, 'a, F>
where
    F: Sink<'p>,
    F::Error: From<CheckError>,
{
    fn new(program: &'p Program, opts: CheckOptions<'a>, flush: F) -> Self {
        Walker {
            w: Walk::new(program, opts.witnesses, opts.lower),
            chunk: Chunk::default(),
            steps: 0,
            done: 0,
            progress: opts.progress,
            flush,
        }
    }

    /// Assigns the next execution of the trace; hands the chunk over when it is full.
    fn push(&mut self, entry: &TraceEntry) -> Result<(), F::Error> {
        let step = self.steps;
        self.steps += 1;
        if let Err(e) = self.w.assign(step, entry, &mut self.chunk) {
            // The executions before it are checked first: an error among them comes first.
            self.flush.flush(&self.w.blocks, &mut self.chunk)?;
            self.flush.settle()?;
            return Err(e.into());
        }
        if self.chunk.entries.len() >= CHUNK_EXECUTIONS || self.chunk.z.len() >= CHUNK_VALUES {
            let n = self.chunk.entries.len();
            self.flush.flush(&self.w.blocks, &mut self.chunk)?;
            self.done += n;
            self.chunk.entries.clear();
            self.chunk.z.clear();
            if let Some(p) = self.progress {
                p(self.done);
            }
        }
        Ok(())
    }

    /// Waits for the chunks handed over, dropping their result: for a caller that has an error
    /// of its own already (`push` reported theirs first where there was one).
    fn abandon(&mut self) {
        let _ = self.flush.settle();
    }

    /// Hands the last chunk over; what was walked.
    fn finish(&mut self) -> Result<CheckReport, F::Error> {
        self.flush.flush(&self.w.blocks, &mut self.chunk)?;
        self.flush.settle()?;
        if let Some(p) = self.progress {
            p(self.steps);
        }
        let w = &self.w;
        Ok(CheckReport {
            executions: self.steps,
            blocks: w
                .order
                .iter()
                .map(|key| BlockCheck {
                    func: key.0,
                    block: key.1,
                    executions: w.runs[w.index[key]],
                    constraints: w.blocks[w.index[key]].n_constraints(),
                })
                .collect(),
            memory: std::mem::take(&mut self.w.memory),
        })
    }
}

/// The initial memory entries of `program` (one per address of every circuit function's
/// read-write segments, in address order): what a run's [`MemoryTrace::inits`] holds, known
/// without a run.
pub fn initial_memory(program: &Program, lower: LowerOptions) -> Vec<MemoryEntry> {
    memory_layout(program, lower).2.inits
}

/// The read-only list's public entries of `program` (each circuit function's head and the
/// elements of its read-only segments with constant contents, in address order): what a run's
/// [`MemoryTrace::ro_inits`] holds, known without a run; and the read-only list's addresses.
pub fn initial_read_only_memory(program: &Program, lower: LowerOptions) -> (Vec<MemoryEntry>, u64) {
    let (_, offsets, trace) = memory_layout(program, lower);
    let size = offsets.values().map(|o| o.ro_end).max().unwrap_or(0);
    (trace.ro_inits, size)
}

type FuncInfos = HashMap<FuncId, Arc<super::live::FuncInfo>>;

/// Where a function's memory starts in the program's: the read-write address, the segment
/// index and the read-only address.
#[derive(Clone, Copy, Debug, Default)]
struct Offsets {
    addr: u64,
    seg: u64,
    ro_addr: u64,
    /// The read-only address past the function's.
    ro_end: u64,
}

/// Each circuit function's info, where its addresses and segments start in the program's
/// memory, and the public entries of both lists (a trace without accesses).
fn memory_layout(
    program: &Program,
    lower: LowerOptions,
) -> (FuncInfos, FxMap<FuncId, Offsets>, MemoryTrace) {
    let circuit = program.circuit_funcs();
    let mut infos = HashMap::default();
    let mut offsets = FxMap::default();
    let mut trace = MemoryTrace::default();
    let mut off = Offsets::default();
    let entry = |addr: u64, seg: u64, value: Fr| MemoryEntry {
        addr: Fr::from(addr),
        seg,
        value,
        rw: Fr::one(),
        ts: 0,
    };
    for f in program.func_ids().filter(|f| circuit[f.index()]) {
        let info = Arc::new(super::live::FuncInfo::new(program.func(f), lower));
        let plan = &info.memory;
        offsets.insert(
            f,
            Offsets {
                ro_end: off.ro_addr + plan.ro_size,
                ..off
            },
        );
        if plan.ro_size > 0 {
            // The head: a public first entry of the function's read-only addresses.
            trace.ro_inits.push(entry(off.ro_addr, 0, Fr::zero()));
        }
        for (s, seg) in plan.segments.iter().enumerate() {
            let seg_id = off.seg + s as u64;
            if seg.read_only {
                let Some(init) = &seg.init else { continue };
                for (k, &v) in init.iter().enumerate() {
                    trace
                        .ro_inits
                        .push(entry(off.ro_addr + seg.base + k as u64, seg_id, v));
                }
                continue;
            }
            for k in 0..seg.len {
                let value = seg
                    .init
                    .as_ref()
                    .and_then(|v| v.get(k as usize).copied())
                    .unwrap_or_else(Fr::zero);
                trace
                    .inits
                    .push(entry(off.addr + seg.base + k, seg_id, value));
            }
        }
        off.addr += plan.size;
        off.ro_addr += plan.ro_size;
        off.seg += plan.segments.len() as u64;
        infos.insert(f, info);
    }
    trace.inits.sort_by_key(|e| e.addr);
    trace.ro_inits.sort_by_key(|e| e.addr);
    (infos, offsets, trace)
}

/// The state of the walk over a trace.
struct Walk<'p> {
    program: &'p Program,
    witnesses: Witnesses,
    lower: LowerOptions,
    /// Each circuit function's memory plan and live-ins.
    infos: HashMap<FuncId, Arc<super::live::FuncInfo>>,
    /// Where each function's addresses and segments start in the program's memory.
    offsets: FxMap<FuncId, Offsets>,
    memory: MemoryTrace,
    /// The last value written of every spilled scalar.
    spilled: FxMap<(FuncId, crate::ir::ValueId), Fr>,
    /// Every executed block, lowered once, in order of first execution (shared with the checker
    /// thread of [`pipelined`]).
    blocks: Vec<Arc<BlockR1cs<'p>>>,
    index: FxMap<(FuncId, BlockId), usize>,
    order: Vec<(FuncId, BlockId)>,
    runs: Vec<usize>,
    /// Live-in leaves the previous execution passed to the block it jumped to.
    carried: Option<(BlockId, Vec<Fr>)>,
    leaves: Vec<Fr>,
    hints: Vec<Fr>,
    spills: Vec<Fr>,
    out: Vec<Fr>,
}

impl<'p> Walk<'p> {
    fn new(program: &'p Program, witnesses: Witnesses, lower: LowerOptions) -> Walk<'p> {
        let (infos, offsets, memory) = memory_layout(program, lower);
        Walk {
            program,
            witnesses,
            lower,
            infos,
            offsets,
            memory,
            spilled: FxMap::default(),
            blocks: Vec::new(),
            index: FxMap::default(),
            order: Vec::new(),
            runs: Vec::new(),
            carried: None,
            leaves: Vec::new(),
            hints: Vec::new(),
            spills: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The index of the block `entry` executes, lowered on its first execution.
    fn block(&mut self, entry: &crate::ir::interp::TraceEntry) -> Result<usize, CheckError> {
        let key = (entry.func, entry.block);
        if let Some(&k) = self.index.get(&key) {
            return Ok(k);
        }
        let program = self.program;
        let func = super::func_of(program, entry.func, entry.block)?;
        let lower = self.lower;
        let info = self
            .infos
            .entry(entry.func)
            .or_insert_with(|| Arc::new(super::live::FuncInfo::new(func, lower)))
            .clone();
        let main_entry = entry.func == program.main && entry.block == func.entry;
        let blk = lower_with_tape(func, entry.func, info, entry.block, main_entry)?;
        let k = self.blocks.len();
        self.blocks.push(Arc::new(blk));
        self.index.insert(key, k);
        self.order.push(key);
        self.runs.push(0);
        Ok(k)
    }

    /// Assigns one execution into `chunk`.
    fn assign(
        &mut self,
        step: usize,
        entry: &TraceEntry,
        chunk: &mut Chunk,
    ) -> Result<(), CheckError> {
        let k = self.block(entry)?;
        self.runs[k] += 1;
        let blk = &self.blocks[k];
        let layout = blk.layout();
        let bad = |message: String| LowerError::BadState {
            block: entry.block,
            message,
        };
        self.leaves.clear();
        flatten_state(&entry.params, &layout.memory_params, &mut self.leaves).map_err(bad)?;
        match self.carried.take() {
            Some((b, live)) if b == entry.block => self.leaves.extend(live),
            _ if layout.live_leaves == 0 => {}
            _ => {
                return Err(bad("live-in values without a predecessor in the trace".into()).into())
            }
        }
        self.hints.clear();
        for h in &entry.hints {
            flatten_val(h, &mut self.hints).map_err(bad)?;
        }
        self.spills.clear();
        for v in &layout.spill_reads {
            let x = self
                .spilled
                .get(&(entry.func, *v))
                .copied()
                .ok_or_else(|| bad(format!("{v} is read from memory before any block wrote it")))?;
            self.spills.push(x);
        }
        let at = chunk.z.len();
        let deferred = match (self.witnesses, blk.tape()) {
            (Witnesses::Compiled, Some(tape)) => {
                check_sizes(blk, &self.leaves, &self.hints)?;
                chunk.z.resize(at + tape.n_slots(), Fr::zero());
                let inputs = Inputs {
                    leaves: &self.leaves,
                    hints: &self.hints,
                    accesses: &entry.accesses,
                    spills: &self.spills,
                };
                tape.eval(&inputs, &mut chunk.z[at..]);
                true
            }
            _ => {
                let asg =
                    blk.assign_with(&self.leaves, &self.hints, &entry.accesses, &self.spills)?;
                chunk.z.push(Fr::one());
                chunk.z.extend_from_slice(&asg.instance);
                chunk.z.extend_from_slice(&asg.witness);
                false
            }
        };
        // Instance variable `i` (0-based, without the constant) is `inst[i]`.
        let inst = &mut chunk.z[at + 1..];
        for &(a, v) in &layout.spill_writes {
            self.spilled
                .insert((entry.func, v), inst[layout.accesses[a].value]);
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
        self.out.clear();
        flatten_state(values, in_memory, &mut self.out).map_err(bad)?;
        if self.out.len() > layout.out_leaves {
            return Err(bad(format!(
                "the trace leaves with {} values, the output state has {}",
                self.out.len(),
                layout.out_leaves
            ))
            .into());
        }
        let out_at = layout.out_label_index();
        inst[out_at] = label;
        inst[out_at + 1..out_at + 1 + self.out.len()].copy_from_slice(&self.out);
        let off = self.offsets.get(&entry.func).copied().unwrap_or_default();
        for a in &layout.accesses {
            let rw = match (a.kind, a.rw) {
                (AccessKind::Read, _) => Fr::zero(),
                (AccessKind::Write, _) => Fr::one(),
                (AccessKind::Guarded, Some(k)) => inst[k],
                (AccessKind::Guarded, None) => Fr::zero(),
            };
            let seg = off.seg + u64::from(a.seg);
            let m = &mut self.memory;
            if a.read_only {
                m.ro_accesses.push(MemoryEntry {
                    addr: inst[a.addr] + Fr::from(off.ro_addr),
                    seg,
                    value: inst[a.value],
                    rw,
                    ts: 0,
                });
                m.ro_steps.push(step);
            } else {
                m.accesses.push(MemoryEntry {
                    addr: inst[a.addr] + Fr::from(off.addr),
                    seg,
                    value: inst[a.value],
                    rw,
                    ts: m.accesses.len() as u64 + 1,
                });
                m.steps.push(step);
            }
        }
        if let Some(t) = target {
            if let Some(exit) = layout.exits.iter().find(|e| e.target == Some(t)) {
                let start = out_at + 1 + exit.arg_leaves;
                let live = inst[start..start + exit.live_leaves].to_vec();
                self.carried = Some((t, live));
            }
        }
        chunk.entries.push(Entry {
            step,
            block: k,
            at,
            deferred,
            first: self.runs[k] == 1,
        });
        Ok(())
    }
}

/// The checks [`BlockR1cs::assign_with`] makes of an input state, for the tape.
fn check_sizes(blk: &BlockR1cs<'_>, leaves: &[Fr], hints: &[Fr]) -> Result<(), LowerError> {
    let layout = blk.layout();
    if hints.len() > layout.hint_leaves {
        return Err(LowerError::BadState {
            block: blk.block(),
            message: format!(
                "{} hint values given, the block has {}",
                hints.len(),
                layout.hint_leaves
            ),
        });
    }
    if leaves.len() != layout.in_leaves() {
        return Err(LowerError::BadState {
            block: blk.block(),
            message: format!(
                "{} input leaves given, the block's state has {}",
                leaves.len(),
                layout.in_leaves()
            ),
        });
    }
    Ok(())
}
