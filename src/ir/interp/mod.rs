//! The reference interpreter: executes any stage of the IR on inputs, with a step limit, and
//! returns the outputs or a located failure. It records the block trace — for every block
//! execution, its function, block, parameter values and how it left (the next block with its
//! arguments, or the returned values) — from which the R1CS witness of every executed block is
//! computed.
//!
//! Semantics are those of the [`crate::ir`] module doc: `uN` arithmetic wraps mod 2^N, field
//! division multiplies by the inverse, field comparison compares canonical integers, and a
//! failing `assert`, a division by zero, an index out of bounds or a conversion that does not fit
//! stops the run with the instruction's location.
//!
//! `value` holds the values and their JSON forms, `eval` the semantics of every pure
//! instruction (shared with constant folding); this module runs programs.

mod eval;
mod value;

pub use eval::{binary, eval_pure, eval_pure_typed};
pub use value::{array_from_json, fits, inputs_from_json, render_log, template_slots, Val};

use crate::fxhash::HashMap;

use crate::field;
use crate::ir::entities::{BlockId, FuncId, InstId, SrcLoc, ValueId};
use crate::ir::function::{wrap, Function, Program};
use crate::ir::instructions::{BinOp, Const, InstKind, Terminator};
use crate::ir::types::Type;
use std::fmt;

/// How an executed block was left.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Exit {
    /// To `block` with these arguments.
    Jump(BlockId, Vec<Val>),
    /// Out of the function with these values.
    Return(Vec<Val>),
}

/// One block execution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TraceEntry {
    /// The function.
    pub func: FuncId,
    /// The block executed.
    pub block: BlockId,
    /// The values of its parameters on entry.
    pub params: Vec<Val>,
    /// How it was left.
    pub exit: Exit,
    /// The results of its `hint` instructions, in execution order (the unconstrained witnesses
    /// R1CS lowering cannot compute from the input state).
    pub hints: Vec<Val>,
    /// Every `array_get` and `array_set` on an array of scalars it executed, in order: what a
    /// block whose arrays live in memory reads and writes (see `r1cs::memory`).
    pub accesses: Vec<Access>,
}

/// One access to an array of scalars, as executed: the element index, the element's value
/// before the access, and for an `array_set` the value written. Which array (and so which
/// memory address) is the lowering's decision; the interpreter records every such access.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Access {
    /// The element index.
    pub index: u64,
    /// The element before the access (what an `array_get` returns).
    pub read: Val,
    /// The value an `array_set` wrote; `None` for a read.
    pub written: Option<Val>,
}

/// A successful run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// `main`'s return values.
    pub outputs: Vec<Val>,
    /// Every block execution in order (calls' blocks inline, in execution order).
    pub trace: Vec<TraceEntry>,
    /// Instructions and terminators executed.
    pub steps: u64,
    /// The lines the executed `log` instructions printed, in order.
    pub log: Vec<String>,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// An `assert` saw 0.
    AssertionFailed(Option<String>),
    /// `div`, `udiv` or `urem` by zero.
    DivisionByZero,
    /// `array_get`/`array_set` out of bounds.
    IndexOutOfBounds {
        /// The index.
        index: u64,
        /// The array length.
        len: usize,
    },
    /// A `cast` whose value does not fit the target type.
    ConversionDoesNotFit {
        /// The value, in decimal.
        value: String,
        /// The target type.
        to: Type,
    },
    /// A `bound` (ZoKrates' incomplete field comparison) on a value not below `2^bits`.
    IncompleteComparison {
        /// The value, in decimal.
        value: String,
        /// The bound's exponent.
        bits: u32,
    },
    /// More steps than allowed.
    StepLimit(u64),
    /// Calls nested deeper than allowed (recursion in IR text).
    CallDepth(usize),
    /// The inputs do not match `main`'s parameters.
    BadInputs(String),
    /// The program is not valid IR (the verifier would reject it).
    InvalidProgram(String),
    /// An instruction marked `nuw` wrapped (or a `nuw` cast did not fit): the range analysis
    /// that marked it was wrong. A compiler bug, never the program's fault.
    NoWrapViolated(String),
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::AssertionFailed(Some(m)) => write!(f, "assertion failed: {m}"),
            FailureKind::AssertionFailed(None) => write!(f, "assertion failed"),
            FailureKind::DivisionByZero => write!(f, "division by zero"),
            FailureKind::IndexOutOfBounds { index, len } => {
                write!(
                    f,
                    "index {index} out of bounds for an array of length {len}"
                )
            }
            FailureKind::ConversionDoesNotFit { value, to } => {
                write!(f, "value {value} does not fit in {to}")
            }
            FailureKind::IncompleteComparison { value, bits } => write!(
                f,
                "dynamic comparison is incomplete: {value} is not below 2^{bits}"
            ),
            FailureKind::StepLimit(n) => write!(f, "step limit of {n} exceeded"),
            FailureKind::CallDepth(n) => write!(f, "call depth limit of {n} exceeded"),
            FailureKind::BadInputs(m) => write!(f, "bad inputs: {m}"),
            FailureKind::InvalidProgram(m) => write!(f, "invalid program: {m}"),
            FailureKind::NoWrapViolated(op) => write!(
                f,
                "compiler bug: `{op} nuw` wrapped, so the range analysis that marked it is wrong"
            ),
        }
    }
}

/// A failed run: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The function's name (empty for input errors).
    pub func: String,
    /// The block.
    pub block: Option<BlockId>,
    /// The instruction's index in the block (`None`: the terminator or no instruction).
    pub inst: Option<usize>,
    /// The source position of the failing instruction, if it has one.
    pub src: Option<SrcLoc>,
    /// What the failing operation saw, when the interpreter can say more than the kind: the
    /// operand values of the comparison a failed assertion asserted (`10 < 3 is false`).
    pub detail: Option<Box<str>>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(src) = self.src {
            write!(f, " at {src}")?;
        } else if let Some(b) = self.block {
            write!(f, " in fn {}, {b}", self.func)?;
            if let Some(i) = self.inst {
                write!(f, ", inst {i}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// Array elements an `array_set` copies per step charged (see [`Limits::max_steps`]).
pub const COPY_ELEMENTS_PER_STEP: usize = 1;

/// Interpreter limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum instructions and terminators executed; an `array_set` on an array of `n`
    /// elements also counts `n / COPY_ELEMENTS_PER_STEP` steps for the copy it makes, so the
    /// limit bounds the running time, not just the instruction count.
    pub max_steps: u64,
    /// Maximum call depth.
    pub max_call_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 100_000_000,
            max_call_depth: 256,
        }
    }
}

/// Runs `main` on `inputs` (one per parameter, checked against the parameter types).
pub fn run(program: &Program, inputs: &[Val], limits: Limits) -> Result<Outcome, Failure> {
    check_inputs(program, inputs)?;
    let mut m = Machine::new(program, limits, true);
    let outputs = m.call(program.main, inputs.to_vec(), 0)?;
    Ok(Outcome {
        outputs,
        trace: m.trace,
        steps: m.steps,
        log: m.log,
    })
}

/// Runs `main` on `inputs` as [`run`] does, but hands every block execution to `sink` instead
/// of keeping the trace: an execution goes as soon as it and every execution before it in the
/// trace have finished (in `main` at the top level, at the end of each block; the blocks of a
/// call wait for the caller's block), in trace order. The outcome's `trace` is empty. A run
/// that fails may have handed over the executions before the failure.
pub fn run_with_sink(
    program: &Program,
    inputs: &[Val],
    limits: Limits,
    sink: &mut dyn FnMut(TraceEntry),
) -> Result<Outcome, Failure> {
    check_inputs(program, inputs)?;
    let mut m = Machine::new(program, limits, true);
    m.sink = Some(sink);
    let outputs = m.call(program.main, inputs.to_vec(), 0)?;
    Ok(Outcome {
        outputs,
        trace: Vec::new(),
        steps: m.steps,
        log: m.log,
    })
}

/// Runs `main` on `inputs` as [`run`] does, without recording the trace, and returns with the
/// outputs or the failure the lines the executed `log` instructions printed until then: what
/// differential tests compare, since a failed run's log is part of its behaviour too.
pub fn run_logged(
    program: &Program,
    inputs: &[Val],
    limits: Limits,
) -> (Result<Vec<Val>, Failure>, Vec<String>) {
    if let Err(f) = check_inputs(program, inputs) {
        return (Err(f), Vec::new());
    }
    let mut m = Machine::new(program, limits, false);
    let result = m.call(program.main, inputs.to_vec(), 0);
    (result, m.log)
}

/// One input per parameter of `main`, each a value of its type.
fn check_inputs(program: &Program, inputs: &[Val]) -> Result<(), Failure> {
    let main = program.main_func();
    let bad = |m: String| Failure {
        kind: FailureKind::BadInputs(m),
        func: main.name.clone(),
        block: None,
        inst: None,
        src: None,
        detail: None,
    };
    let types = main.param_types();
    if types.len() != inputs.len() {
        return Err(bad(format!(
            "main takes {} input(s), {} given",
            types.len(),
            inputs.len()
        )));
    }
    for (k, (ty, v)) in types.iter().zip(inputs).enumerate() {
        if !fits(v, ty) {
            return Err(bad(format!("input {k} is not a value of type {ty}")));
        }
    }
    Ok(())
}

/// How often each block of each function ran on `inputs`: what [`run`]'s trace would count,
/// without recording it (no input states are kept, so a long run needs no memory for them).
pub fn count_blocks(
    program: &Program,
    inputs: &[Val],
    limits: Limits,
) -> Result<HashMap<(FuncId, BlockId), u64>, Failure> {
    check_inputs(program, inputs)?;
    let mut m = Machine::new(program, limits, false);
    m.call(program.main, inputs.to_vec(), 0)?;
    Ok(m.counts)
}

/// Runs `program` on `inputs` and calls `observe` at the start of every block execution that
/// [`count_blocks`] counts, in execution order; the run stops as soon as `observe` breaks.
/// `Ok(true)`: the run ended (`main` returned); `Ok(false)`: `observe` stopped it.
pub fn observe_blocks(
    program: &Program,
    inputs: &[Val],
    limits: Limits,
    observe: &mut dyn FnMut(FuncId, BlockId) -> std::ops::ControlFlow<()>,
) -> Result<bool, Failure> {
    check_inputs(program, inputs)?;
    let mut m = Machine::new(program, limits, false);
    m.observer = Some(observe);
    match m.call(program.main, inputs.to_vec(), 0) {
        Ok(_) => Ok(true),
        Err(_) if m.stopped => Ok(false),
        Err(failure) => Err(failure),
    }
}

/// The operand values of the comparison a failed `assert` asserted, as `10 < 3 is false`.
fn assertion_detail(func: &Function, env: &[Option<Val>], kind: &InstKind) -> Option<Box<str>> {
    let InstKind::Assert { cond, .. } = kind else {
        return None;
    };
    let crate::ir::ValueDef::Result(def, _) = func.values.get(cond.index())?.def else {
        return None;
    };
    let (op, lhs, rhs) = match func.inst(def).kind {
        InstKind::Binary { op, lhs, rhs } if op.is_comparison() => (op, lhs, rhs),
        _ => return None,
    };
    let show = |v| match value_of(func, env, v).ok()? {
        Val::Field(x) => Some(x.to_string()),
        Val::UInt(n) => Some(n.to_string()),
        _ => None,
    };
    let symbol = match op {
        BinOp::Eq => "==",
        BinOp::Lt => "<",
        _ => "<=",
    };
    Some(format!("{} {symbol} {} is false", show(lhs)?, show(rhs)?).into())
}

/// The [`Access`] an executed `array_get`/`array_set` on an array of scalars made (`results`
/// are the instruction's, already computed, so the operands are known to be valid).
fn scalar_access(
    func: &Function,
    env: &[Option<Val>],
    kind: &InstKind,
    results: &[Val],
) -> Option<Access> {
    let (array, index, write) = match kind {
        InstKind::ArrayGet { array, index } => (*array, *index, false),
        InstKind::ArraySet { array, index, .. } => (*array, *index, true),
        _ => return None,
    };
    if !func.value_type(array).elem().is_some_and(Type::is_scalar) {
        return None;
    }
    let (Ok(Val::Array(items)), Ok(Val::UInt(i))) =
        (value_of(func, env, array), value_of(func, env, index))
    else {
        return None;
    };
    let read = items.get(i as usize)?.clone();
    let written = match (write, results.first()) {
        (true, Some(Val::Array(after))) => Some(after.get(i as usize)?.clone()),
        (true, _) => return None,
        (false, _) => None,
    };
    Some(Access {
        index: i,
        read,
        written,
    })
}

struct Machine<'p> {
    program: &'p Program,
    limits: Limits,
    steps: u64,
    memory: Vec<Val>,
    /// Record the trace (`run`), or only count block executions (`count_blocks`).
    record: bool,
    /// The executions recorded and not yet handed to the `sink` (all of them without one).
    trace: Vec<TraceEntry>,
    /// Where `trace` starts in the whole trace: the executions handed to the sink.
    base: usize,
    /// The executions (by place in the whole trace) whose block has not finished, outermost
    /// first: the sink gets the executions before the first of them.
    open: Vec<usize>,
    sink: Option<&'p mut dyn FnMut(TraceEntry)>,
    counts: HashMap<(FuncId, BlockId), u64>,
    /// Called at every block execution counted (`observe_blocks`): when it breaks, the run
    /// stops with `stopped` set.
    observer: Option<&'p mut dyn FnMut(FuncId, BlockId) -> std::ops::ControlFlow<()>>,
    /// The observer stopped the run (the failure that unwound it is not the program's).
    stopped: bool,
    /// Hint calls being run: their blocks are neither traced nor counted.
    in_hint: usize,
    log: Vec<String>,
    /// Each `make_array` of constants, made once (`None`: not all its elements are constants).
    /// Values are immutable (`array_set` copies), so every execution can share the first's:
    /// a loop body that rematerializes a table of 195 round constants otherwise builds it on
    /// every iteration.
    constant_arrays: HashMap<(FuncId, InstId), Option<Val>>,
}

/// A failure before its location is attached.
type Fail = FailureKind;

impl<'p> Machine<'p> {
    fn new(program: &'p Program, limits: Limits, record: bool) -> Machine<'p> {
        Machine {
            program,
            limits,
            steps: 0,
            memory: Vec::new(),
            record,
            trace: Vec::new(),
            base: 0,
            open: Vec::new(),
            sink: None,
            counts: HashMap::default(),
            observer: None,
            stopped: false,
            in_hint: 0,
            log: Vec::new(),
            constant_arrays: HashMap::default(),
        }
    }

    /// Hands the finished executions at the front of the trace to the sink (not inside a hint,
    /// whose executions are dropped when it ends).
    fn flush(&mut self) {
        if self.in_hint > 0 {
            return;
        }
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        let upto = self
            .open
            .first()
            .map_or(self.trace.len(), |&first| first - self.base);
        for entry in self.trace.drain(..upto) {
            sink(entry);
        }
        self.base += upto;
    }

    /// The trace entry of execution `index` (of the whole trace), not yet handed over.
    fn entry(&mut self, index: usize) -> &mut TraceEntry {
        &mut self.trace[index - self.base]
    }

    fn call(&mut self, fid: FuncId, args: Vec<Val>, depth: usize) -> Result<Vec<Val>, Failure> {
        let func = self.program.func(fid);
        let mut env: Vec<Option<Val>> = vec![None; func.values.len()];
        let mut block = func.entry;
        let mut params = args;
        loop {
            let fail = |kind: Fail, inst: Option<usize>, src: Option<SrcLoc>| Failure {
                kind,
                func: func.name.clone(),
                block: Some(block),
                inst,
                src,
                detail: None,
            };
            let data = func.block(block);
            if data.params.len() != params.len() {
                return Err(fail(
                    Fail::InvalidProgram(format!(
                        "{block} given {} argument(s) for {} parameter(s)",
                        params.len(),
                        data.params.len()
                    )),
                    None,
                    None,
                ));
            }
            for (p, v) in data.params.iter().zip(&params) {
                env[p.index()] = Some(v.clone());
            }
            let trace_index = self.base + self.trace.len();
            if self.record {
                self.open.push(trace_index);
                self.trace.push(TraceEntry {
                    func: fid,
                    block,
                    params: params.clone(),
                    exit: Exit::Return(Vec::new()),
                    hints: Vec::new(),
                    accesses: Vec::new(),
                });
            } else if self.in_hint == 0 {
                match self.observer.as_mut() {
                    Some(observe) => {
                        if observe(fid, block).is_break() {
                            self.stopped = true;
                            return Err(fail(Fail::StepLimit(self.limits.max_steps), None, None));
                        }
                    }
                    None => *self.counts.entry((fid, block)).or_insert(0) += 1,
                }
            }
            for (pos, &i) in data.insts.iter().enumerate() {
                self.step().map_err(|k| fail(k, Some(pos), None))?;
                let inst = func.inst(i);
                if let InstKind::Hint {
                    func: callee,
                    args,
                    ret,
                    guard,
                } = &inst.kind
                {
                    let args = args
                        .iter()
                        .map(|a| value_of(func, &env, *a))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|k| fail(k, Some(pos), inst.loc()))?;
                    let enabled = match guard {
                        Some(g) => guard_holds(func, &env, *g)
                            .map_err(|k| fail(k, Some(pos), inst.loc()))?,
                        None => true,
                    };
                    let results = if enabled {
                        self.hint(*callee, args, ret, depth)?
                    } else {
                        ret.iter().map(Val::zero).collect()
                    };
                    if self.record {
                        self.entry(trace_index)
                            .hints
                            .extend(results.iter().cloned());
                    }
                    for (r, v) in inst.results.iter().zip(results) {
                        env[r.index()] = Some(v);
                    }
                    continue;
                }
                if inst.no_wrap() && !no_wrap_holds(func, &env, &inst.kind) {
                    let op = inst.kind.opcode().to_string();
                    return Err(fail(Fail::NoWrapViolated(op), Some(pos), inst.loc()));
                }
                let made = match &inst.kind {
                    InstKind::MakeArray { elems, .. } => self
                        .constant_arrays
                        .entry((fid, i))
                        .or_insert_with(|| {
                            if !elems.iter().all(|e| func.is_const(*e)) {
                                return None;
                            }
                            let vals = elems.iter().map(|e| value_of(func, &env, *e));
                            let vals = vals.collect::<Result<Vec<_>, _>>().ok()?;
                            Some(Val::Array(std::rc::Rc::new(vals)))
                        })
                        .clone(),
                    _ => None,
                };
                let results = match made {
                    Some(array) => Ok(vec![array]),
                    None => self.exec(func, &env, &inst.kind, depth),
                };
                let results = results.map_err(|e| match e {
                    Exec::Fail(k) => {
                        let mut f = fail(k, Some(pos), inst.loc());
                        if matches!(f.kind, Fail::AssertionFailed(_)) {
                            f.detail = assertion_detail(func, &env, &inst.kind);
                        }
                        f
                    }
                    Exec::Nested(f) => *f,
                })?;
                if self.record {
                    if let Some(a) = scalar_access(func, &env, &inst.kind, &results) {
                        self.entry(trace_index).accesses.push(a);
                    }
                }
                for (r, v) in inst.results.iter().zip(results) {
                    env[r.index()] = Some(v);
                }
            }
            self.step().map_err(|k| fail(k, None, None))?;
            let get = |v: &super::ValueId| value_of(func, &env, *v);
            let term = data.term.as_ref().ok_or_else(|| {
                fail(
                    Fail::InvalidProgram(format!("{block} has no terminator")),
                    None,
                    None,
                )
            })?;
            let (next, args) = match term {
                Terminator::Return(values) => {
                    let vals = values
                        .iter()
                        .map(get)
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|k| fail(k, None, None))?;
                    if self.record {
                        self.entry(trace_index).exit = Exit::Return(vals.clone());
                        self.open.pop();
                        self.flush();
                    }
                    return Ok(vals);
                }
                Terminator::Jmp(dest) => (dest.block, &dest.args),
                Terminator::Br {
                    cond,
                    then_dest,
                    else_dest,
                } => {
                    let c = get(cond).map_err(|k| fail(k, None, None))?;
                    if c == Val::UInt(1) {
                        (then_dest.block, &then_dest.args)
                    } else {
                        (else_dest.block, &else_dest.args)
                    }
                }
            };
            params = args
                .iter()
                .map(get)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|k| fail(k, None, None))?;
            if self.record {
                self.entry(trace_index).exit = Exit::Jump(next, params.clone());
                self.open.pop();
                self.flush();
            }
            if next.index() >= func.blocks.len() {
                return Err(fail(
                    Fail::InvalidProgram(format!("jump to unknown block {next}")),
                    None,
                    None,
                ));
            }
            block = next;
        }
    }

    /// Charges the copy of an array of `len` elements: one step per [`COPY_ELEMENTS_PER_STEP`].
    fn charge_copy(&mut self, len: usize) -> Result<(), Fail> {
        self.steps = self
            .steps
            .saturating_add((len / COPY_ELEMENTS_PER_STEP) as u64);
        if self.steps > self.limits.max_steps {
            Err(Fail::StepLimit(self.limits.max_steps))
        } else {
            Ok(())
        }
    }

    /// Runs hint function `fid` on `args` without recording its blocks: its results, or zeros
    /// of the result types when it fails (a hint is unconstrained; only the code that uses it
    /// decides whether the program fails). Running out of steps is still a failure.
    fn hint(
        &mut self,
        fid: FuncId,
        args: Vec<Val>,
        ret: &[Type],
        depth: usize,
    ) -> Result<Vec<Val>, Failure> {
        if fid.index() >= self.program.funcs.len() {
            return Err(Failure {
                kind: Fail::InvalidProgram("hint of an unknown function".into()),
                func: self.program.func(self.program.main).name.clone(),
                block: None,
                inst: None,
                src: None,
                detail: None,
            });
        }
        // Nothing is handed over while a hint runs, so `base` stays where it is.
        let (mark, open_mark) = (self.trace.len(), self.open.len());
        let log_mark = self.log.len();
        self.in_hint += 1;
        let result = self.call(fid, args, depth + 1);
        self.in_hint -= 1;
        self.trace.truncate(mark);
        self.open.truncate(open_mark);
        self.log.truncate(log_mark);
        match result {
            Ok(vals) => Ok(vals),
            Err(f) if matches!(f.kind, Fail::StepLimit(_)) => Err(f),
            Err(_) => Ok(ret.iter().map(Val::zero).collect()),
        }
    }

    fn step(&mut self) -> Result<(), Fail> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            Err(Fail::StepLimit(self.limits.max_steps))
        } else {
            Ok(())
        }
    }

    fn exec(
        &mut self,
        func: &Function,
        env: &[Option<Val>],
        kind: &InstKind,
        depth: usize,
    ) -> Result<Vec<Val>, Exec> {
        let get = |v: &super::ValueId| value_of(func, env, *v).map_err(Exec::Fail);
        let invalid = |m: &str| Exec::Fail(Fail::InvalidProgram(m.to_string()));
        let one = |v: Val| Ok(vec![v]);
        // Copying is work: without this charge a loop over a large array runs in quadratic time
        // within the step limit (a loop over 2^20 elements would take hours).
        if let InstKind::ArraySet { array, .. } = kind {
            if let Ok(Val::Array(items)) = value_of(func, env, *array) {
                self.charge_copy(items.len()).map_err(Exec::Fail)?;
            }
        }
        match kind {
            InstKind::Allocate { ty } => {
                self.memory.push(Val::zero(ty));
                one(Val::Ref(self.memory.len() - 1))
            }
            InstKind::Load { ptr } => match get(ptr)? {
                Val::Ref(r) if r < self.memory.len() => one(self.memory[r].clone()),
                _ => Err(invalid("`load` through an invalid reference")),
            },
            InstKind::Store { ptr, value } => match get(ptr)? {
                Val::Ref(r) if r < self.memory.len() => {
                    self.memory[r] = get(value)?;
                    Ok(vec![])
                }
                _ => Err(invalid("`store` through an invalid reference")),
            },
            InstKind::Log {
                template,
                args,
                guard,
            } => {
                if let Some(g) = guard {
                    if !guard_holds(func, env, *g).map_err(Exec::Fail)? {
                        return Ok(vec![]);
                    }
                }
                let vals = args
                    .iter()
                    .map(|a| Ok((get(a)?, func.value_type(*a).clone())))
                    .collect::<Result<Vec<_>, _>>()?;
                let line = render_log(template, &vals)
                    .ok_or_else(|| invalid("`log` template does not match its arguments"))?;
                self.log.push(line);
                Ok(vec![])
            }
            InstKind::Call { func: callee, args } => {
                if callee.index() >= self.program.funcs.len() {
                    return Err(invalid("call of an unknown function"));
                }
                if depth + 1 > self.limits.max_call_depth {
                    return Err(Exec::Fail(Fail::CallDepth(self.limits.max_call_depth)));
                }
                let vals = args.iter().map(get).collect::<Result<Vec<_>, _>>()?;
                self.call(*callee, vals, depth + 1)
                    .map_err(|f| Exec::Nested(Box::new(f)))
            }
            _ => eval_pure(func, kind, &mut |v| value_of(func, env, v))
                .expect("bug: eval_pure rejects a pure instruction")
                .map_err(Exec::Fail),
        }
    }
}

/// Whether the `u1` guard `g` of a `log` or `hint` is 1.
fn guard_holds(func: &Function, env: &[Option<Val>], g: ValueId) -> Result<bool, Fail> {
    match value_of(func, env, g)? {
        Val::UInt(x) => Ok(x != 0),
        _ => Err(Fail::InvalidProgram(
            "the guard of a `log` or `hint` is not a u1".into(),
        )),
    }
}

/// Whether an instruction marked `nuw` keeps its promise on these operands: a `uN` `add`, `sub`,
/// `mul` or `shl` computes its exact integer result without wrapping, a `cast` fits its target.
fn no_wrap_holds(func: &Function, env: &[Option<Val>], kind: &InstKind) -> bool {
    let get = |v: ValueId| value_of(func, env, v).ok();
    match kind {
        InstKind::Binary { op, lhs, rhs } => {
            let (Some(Val::UInt(x)), Some(Val::UInt(y)), Some(w)) =
                (get(*lhs), get(*rhs), func.value_type(*lhs).uint_width())
            else {
                return false;
            };
            let max = u128::from(wrap(u64::MAX, w));
            let (x, y) = (u128::from(x), u128::from(y));
            match op {
                BinOp::Add => x + y <= max,
                BinOp::Sub => x >= y,
                BinOp::Mul => x * y <= max,
                BinOp::Shl => x == 0 || (y < u128::from(w) && (x << y) <= max),
                _ => false,
            }
        }
        InstKind::Cast { arg, to } => get(*arg).is_some_and(|v| fits_cast(&v, to)),
        _ => false,
    }
}

/// Whether a `cast` of `v` to `to` succeeds.
fn fits_cast(v: &Val, to: &Type) -> bool {
    match (v.to_field(), to) {
        (Some(_), Type::Field) => true,
        (Some(x), Type::UInt(w)) => field::to_u64_checked(&x, *w).is_some(),
        _ => false,
    }
}

/// A failure of the current instruction, or one already located in a callee.
enum Exec {
    Fail(Fail),
    Nested(Box<Failure>),
}

fn value_of(func: &Function, env: &[Option<Val>], v: super::ValueId) -> Result<Val, Fail> {
    if let Some(c) = func.const_value_checked(v) {
        return Ok(match c {
            Const::Field(x) => Val::Field(x),
            Const::UInt(n) => Val::UInt(n),
        });
    }
    env.get(v.index())
        .cloned()
        .flatten()
        .ok_or_else(|| Fail::InvalidProgram(format!("{v} used before it is defined")))
}
