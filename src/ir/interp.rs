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

use super::entities::{BlockId, FuncId, SrcLoc, ValueId};
use super::function::{wrap, Function, Program};
use super::instructions::{BinOp, Const, InstKind, Terminator};
use super::types::Type;
use crate::field::{self, Fr};
use ark_ff::Zero;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A run-time value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Val {
    /// A field element.
    Field(Fr),
    /// An unsigned integer (its width is the static type's).
    UInt(u64),
    /// An array (shared; `array_set` copies).
    Array(Rc<Vec<Val>>),
    /// A reference: an index into the interpreter's memory.
    Ref(usize),
}

impl Val {
    /// The zero value of a type (what a fresh `allocate` holds).
    pub fn zero(ty: &Type) -> Val {
        match ty {
            Type::Field => Val::Field(Fr::zero()),
            Type::UInt(_) => Val::UInt(0),
            Type::Array(elem, n) => Val::Array(Rc::new(vec![Val::zero(elem); *n as usize])),
            Type::Ref(_) => Val::Ref(usize::MAX),
        }
    }

    /// The field element, for a `Field`.
    pub fn as_field(&self) -> Option<Fr> {
        match self {
            Val::Field(x) => Some(*x),
            _ => None,
        }
    }

    /// The integer, for a `UInt`.
    pub fn as_uint(&self) -> Option<u64> {
        match self {
            Val::UInt(n) => Some(*n),
            _ => None,
        }
    }

    /// A scalar as a field element (integers embed); `None` for arrays and references.
    pub fn to_field(&self) -> Option<Fr> {
        match self {
            Val::Field(x) => Some(*x),
            Val::UInt(n) => Some(Fr::from(*n)),
            _ => None,
        }
    }

    /// Reads a value of type `ty` from JSON: field and `uN` as decimal strings or JSON integers,
    /// `u1` as `true`/`false` (or 0/1), arrays as JSON arrays. The message names what is wrong.
    pub fn from_json(ty: &Type, json: &serde_json::Value) -> Result<Val, String> {
        use serde_json::Value as J;
        let text = match json {
            J::String(s) => Some(s.trim().to_string()),
            J::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
            _ => None,
        };
        match ty {
            Type::Field => {
                let t = text.ok_or_else(|| {
                    format!("expected a field element (decimal string), found {json}")
                })?;
                field::parse_dec(&t).map(Val::Field).ok_or_else(|| {
                    format!("`{t}` is not a field element (a decimal integer in [0, p))")
                })
            }
            Type::UInt(1) => match json {
                J::Bool(b) => Ok(Val::UInt(u64::from(*b))),
                _ => match text.as_deref() {
                    Some("0") | Some("false") => Ok(Val::UInt(0)),
                    Some("1") | Some("true") => Ok(Val::UInt(1)),
                    _ => Err(format!("expected a bool (true or false), found {json}")),
                },
            },
            Type::UInt(w) => {
                let t =
                    text.ok_or_else(|| format!("expected a u{w} (decimal string), found {json}"))?;
                let n: u64 = t
                    .parse()
                    .map_err(|_| format!("`{t}` is not a u{w} value"))?;
                if *w < 64 && n >> w != 0 {
                    return Err(format!("{n} does not fit in u{w}"));
                }
                Ok(Val::UInt(n))
            }
            Type::Array(elem, n) => {
                let J::Array(items) = json else {
                    return Err(format!("expected an array of {n} elements, found {json}"));
                };
                if items.len() != *n as usize {
                    return Err(format!(
                        "expected an array of {n} elements, found {}",
                        items.len()
                    ));
                }
                let vals = items
                    .iter()
                    .enumerate()
                    .map(|(i, it)| {
                        Val::from_json(elem, it).map_err(|e| format!("element {i}: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Val::Array(Rc::new(vals)))
            }
            Type::Ref(_) => Err("references cannot be inputs".into()),
        }
    }

    /// The JSON encoding of a value of type `ty` (the inverse of [`Val::from_json`]).
    pub fn to_json(&self, ty: &Type) -> serde_json::Value {
        use serde_json::Value as J;
        match (self, ty) {
            (Val::Field(x), _) => J::String(field::to_dec(x)),
            (Val::UInt(n), Type::UInt(1)) => J::Bool(*n != 0),
            (Val::UInt(n), _) => J::String(n.to_string()),
            (Val::Array(items), Type::Array(elem, _)) => {
                J::Array(items.iter().map(|v| v.to_json(elem)).collect())
            }
            (Val::Array(items), _) => {
                J::Array(items.iter().map(|v| v.to_json(&Type::Field)).collect())
            }
            (Val::Ref(r), _) => J::String(format!("&{r}")),
        }
    }
}

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

/// One input per parameter of `main`, each a value of its type.
fn check_inputs(program: &Program, inputs: &[Val]) -> Result<(), Failure> {
    let main = program.main_func();
    let bad = |m: String| Failure {
        kind: FailureKind::BadInputs(m),
        func: main.name.clone(),
        block: None,
        inst: None,
        src: None,
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

/// Parses JSON inputs for `main`: an array with one entry per parameter, in order.
pub fn inputs_from_json(program: &Program, json: &serde_json::Value) -> Result<Vec<Val>, String> {
    let types = program.main_func().param_types();
    let serde_json::Value::Array(items) = json else {
        return Err(
            "the inputs of an IR program are a JSON array, one entry per parameter of main".into(),
        );
    };
    if items.len() != types.len() {
        return Err(format!(
            "main takes {} input(s), {} given",
            types.len(),
            items.len()
        ));
    }
    types
        .iter()
        .zip(items)
        .enumerate()
        .map(|(k, (ty, item))| Val::from_json(ty, item).map_err(|e| format!("input {k}: {e}")))
        .collect()
}

/// Whether `v` is a value of type `ty` (integers below 2^width, arrays of the right length).
pub fn fits(v: &Val, ty: &Type) -> bool {
    match (v, ty) {
        (Val::Field(_), Type::Field) => true,
        (Val::UInt(n), Type::UInt(w)) => wrap(*n, *w) == *n,
        (Val::Array(items), Type::Array(elem, len)) => {
            items.len() == *len as usize && items.iter().all(|i| fits(i, elem))
        }
        (Val::Ref(_), Type::Ref(_)) => true,
        _ => false,
    }
}

struct Machine<'p> {
    program: &'p Program,
    limits: Limits,
    steps: u64,
    memory: Vec<Val>,
    /// Record the trace (`run`), or only count block executions (`count_blocks`).
    record: bool,
    trace: Vec<TraceEntry>,
    counts: HashMap<(FuncId, BlockId), u64>,
    /// Hint calls being run: their blocks are neither traced nor counted.
    in_hint: usize,
    log: Vec<String>,
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
            counts: HashMap::new(),
            in_hint: 0,
            log: Vec::new(),
        }
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
            let trace_index = self.trace.len();
            if self.record {
                self.trace.push(TraceEntry {
                    func: fid,
                    block,
                    params: params.clone(),
                    exit: Exit::Return(Vec::new()),
                    hints: Vec::new(),
                });
            } else if self.in_hint == 0 {
                *self.counts.entry((fid, block)).or_insert(0) += 1;
            }
            for (pos, &i) in data.insts.iter().enumerate() {
                self.step().map_err(|k| fail(k, Some(pos), None))?;
                let inst = func.inst(i);
                if let InstKind::Hint {
                    func: callee,
                    args,
                    ret,
                } = &inst.kind
                {
                    let args = args
                        .iter()
                        .map(|a| value_of(func, &env, *a))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|k| fail(k, Some(pos), inst.loc))?;
                    let results = self.hint(*callee, args, ret, depth)?;
                    if self.record {
                        self.trace[trace_index]
                            .hints
                            .extend(results.iter().cloned());
                    }
                    for (r, v) in inst.results.iter().zip(results) {
                        env[r.index()] = Some(v);
                    }
                    continue;
                }
                if inst.no_wrap && !no_wrap_holds(func, &env, &inst.kind) {
                    let op = inst.kind.opcode().to_string();
                    return Err(fail(Fail::NoWrapViolated(op), Some(pos), inst.loc));
                }
                let results = self
                    .exec(func, &env, &inst.kind, depth)
                    .map_err(|e| match e {
                        Exec::Fail(k) => fail(k, Some(pos), inst.loc),
                        Exec::Nested(f) => *f,
                    })?;
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
                        self.trace[trace_index].exit = Exit::Return(vals.clone());
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
                self.trace[trace_index].exit = Exit::Jump(next, params.clone());
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
            });
        }
        let mark = self.trace.len();
        let log_mark = self.log.len();
        self.in_hint += 1;
        let result = self.call(fid, args, depth + 1);
        self.in_hint -= 1;
        self.trace.truncate(mark);
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
            InstKind::Log { template, args } => {
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

/// The number of `{}` slots of a `log` template, or `None` when a brace is unpaired (`{{` and
/// `}}` are literal braces).
pub fn template_slots(template: &str) -> Option<usize> {
    let mut n = 0;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
            }
            ('{', Some('}')) => {
                chars.next();
                n += 1;
            }
            ('{' | '}', _) => return None,
            _ => {}
        }
    }
    Some(n)
}

/// A `log` line: the template with each `{}` replaced by the next value, written as ZoKrates'
/// `log` writes it: a field as a quoted decimal (`"42"`), a bool as `true`/`false`, a `uN` as a
/// quoted hexadecimal of N/4 digits (`"0x0000002a"`), an array as `[a,b]`. `None` when the
/// template does not have one slot per value.
pub fn render_log(template: &str, values: &[(Val, Type)]) -> Option<String> {
    if template_slots(template) != Some(values.len()) {
        return None;
    }
    let mut out = String::new();
    let mut values = values.iter();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                out.push(c);
            }
            ('{', Some('}')) => {
                chars.next();
                let (v, ty) = values.next()?;
                log_value(v, ty, &mut out)?;
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

fn log_value(v: &Val, ty: &Type, out: &mut String) -> Option<()> {
    match (v, ty) {
        (Val::UInt(b), Type::UInt(1)) => out.push_str(if *b == 1 { "true" } else { "false" }),
        (Val::UInt(u), Type::UInt(w)) => {
            out.push_str(&format!("\"0x{u:0width$x}\"", width = (*w as usize) / 4))
        }
        (Val::Field(f), _) => out.push_str(&format!("\"{}\"", field::to_dec(f))),
        (Val::Array(items), Type::Array(elem, _)) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                log_value(item, elem, out)?;
            }
            out.push(']');
        }
        _ => return None,
    }
    Some(())
}

/// A failure of the current instruction, or one already located in a callee.
enum Exec {
    Fail(Fail),
    Nested(Box<Failure>),
}

/// Evaluates an instruction that neither touches memory nor calls (everything except
/// `allocate`, `load`, `store` and `call`, for which it gives `None`) on operand values given by
/// `get`: the interpreter's own semantics, shared with constant folding so that the two can never
/// disagree. An `Err` is the failure the instruction has at run time on these operands.
pub fn eval_pure(
    func: &Function,
    kind: &InstKind,
    get: &mut dyn FnMut(super::ValueId) -> Result<Val, FailureKind>,
) -> Option<Result<Vec<Val>, FailureKind>> {
    if matches!(
        kind,
        InstKind::Allocate { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Call { .. }
            | InstKind::Hint { .. }
    ) {
        return None;
    }
    Some(eval_pure_inner(func, kind, get))
}

fn eval_pure_inner(
    func: &Function,
    kind: &InstKind,
    get: &mut dyn FnMut(super::ValueId) -> Result<Val, FailureKind>,
) -> Result<Vec<Val>, FailureKind> {
    let mut get = |v: &super::ValueId| get(*v);
    let ty = |v: &super::ValueId| func.value_type(*v);
    let invalid = |m: &str| Fail::InvalidProgram(m.to_string());
    let one = |v: Val| Ok(vec![v]);
    match kind {
        InstKind::Binary { op, lhs, rhs } => one(binary(*op, &get(lhs)?, &get(rhs)?, ty(lhs))?),
        InstKind::Not { arg } => match (get(arg)?, ty(arg)) {
            (Val::UInt(n), Type::UInt(w)) => one(Val::UInt(wrap(!n, *w))),
            _ => Err(invalid("`not` of a non-integer")),
        },
        InstKind::Cast { arg, to } => {
            let v = get(arg)?;
            let x = v
                .to_field()
                .ok_or_else(|| invalid("`cast` of a non-scalar"))?;
            match to {
                Type::Field => one(Val::Field(x)),
                Type::UInt(w) => match field::to_u64_checked(&x, *w) {
                    Some(n) => one(Val::UInt(n)),
                    None => Err(Fail::ConversionDoesNotFit {
                        value: field::to_dec(&x),
                        to: to.clone(),
                    }),
                },
                _ => Err(invalid("`cast` to a non-scalar")),
            }
        }
        InstKind::Bound { arg, bits } => {
            let v = get(arg)?;
            let x = v
                .to_field()
                .ok_or_else(|| invalid("`bound` of a non-scalar"))?;
            if crate::field::num_bits(&x) > *bits {
                return Err(Fail::IncompleteComparison {
                    value: crate::field::to_dec(&x),
                    bits: *bits,
                });
            }
            one(v)
        }
        InstKind::Truncate { arg, to } => {
            let w = to
                .uint_width()
                .ok_or_else(|| invalid("`trunc` to a non-integer"))?;
            let n = match get(arg)? {
                Val::UInt(n) => n,
                Val::Field(x) => {
                    let bits = field::low_bits(&x, 64);
                    bits.iter()
                        .rev()
                        .fold(0u64, |acc, b| (acc << 1) | u64::from(*b))
                }
                _ => return Err(invalid("`trunc` of a non-scalar")),
            };
            one(Val::UInt(wrap(n, w)))
        }
        InstKind::Select {
            cond,
            then_value,
            else_value,
        } => {
            let c = get(cond)?;
            one(if c == Val::UInt(1) {
                get(then_value)?
            } else {
                get(else_value)?
            })
        }
        InstKind::Assert { cond, msg } => {
            if get(cond)? == Val::UInt(1) {
                Ok(vec![])
            } else {
                Err(Fail::AssertionFailed(msg.clone()))
            }
        }
        InstKind::MakeArray { elems, .. } => {
            let vals = elems.iter().map(get).collect::<Result<Vec<_>, _>>()?;
            one(Val::Array(Rc::new(vals)))
        }
        InstKind::ArrayGet { array, index } => {
            let (items, i) = array_index(&get(array)?, &get(index)?)?;
            one(items[i].clone())
        }
        InstKind::ArraySet {
            array,
            index,
            value,
        } => {
            let (items, i) = array_index(&get(array)?, &get(index)?)?;
            let mut copy = (*items).clone();
            copy[i] = get(value)?;
            one(Val::Array(Rc::new(copy)))
        }
        InstKind::ToBits { arg } => {
            let (bits, n) = match (get(arg)?, ty(arg)) {
                (Val::UInt(v), Type::UInt(w)) => {
                    ((0..*w).map(|k| (v >> k) & 1 == 1).collect::<Vec<_>>(), *w)
                }
                (Val::Field(x), _) => (
                    field::low_bits(&x, super::FIELD_BITS as usize),
                    super::FIELD_BITS,
                ),
                _ => return Err(invalid("`to_bits` of a non-scalar")),
            };
            let msb_first = (0..n as usize)
                .rev()
                .map(|k| Val::UInt(u64::from(bits[k])))
                .collect();
            one(Val::Array(Rc::new(msb_first)))
        }
        InstKind::FromBits { arg, to } => {
            let Val::Array(items) = get(arg)? else {
                return Err(invalid("`from_bits` of a non-array"));
            };
            match to {
                Type::UInt(w) => {
                    let n = items
                        .iter()
                        .fold(0u64, |acc, b| (acc << 1) | b.as_uint().unwrap_or(0));
                    one(Val::UInt(wrap(n, *w)))
                }
                _ => {
                    let two = Fr::from(2u64);
                    let x = items.iter().fold(Fr::zero(), |acc, b| {
                        acc * two + Fr::from(b.as_uint().unwrap_or(0))
                    });
                    one(Val::Field(x))
                }
            }
        }
        InstKind::Allocate { .. }
        | InstKind::Load { .. }
        | InstKind::Store { .. }
        | InstKind::Call { .. }
        | InstKind::Hint { .. } => Err(invalid("bug: memory or call instruction in eval_pure")),
        // Printing is the interpreter's business; as a value computation it is nothing.
        InstKind::Log { .. } => Ok(vec![]),
    }
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

fn array_index(array: &Val, index: &Val) -> Result<(Rc<Vec<Val>>, usize), Fail> {
    let (Val::Array(items), Val::UInt(i)) = (array, index) else {
        return Err(Fail::InvalidProgram(
            "array access on a non-array or with a non-integer index".into(),
        ));
    };
    if (*i as usize) < items.len() && *i < u64::from(u32::MAX) {
        Ok((items.clone(), *i as usize))
    } else {
        Err(Fail::IndexOutOfBounds {
            index: *i,
            len: items.len(),
        })
    }
}

/// Evaluates a binary operation on constant operands: the interpreter's semantics, shared with
/// constant folding so that the two can never disagree. `ty` is the left operand's type.
pub fn binary(op: BinOp, a: &Val, b: &Val, ty: &Type) -> Result<Val, FailureKind> {
    let bool_val = |c: bool| Val::UInt(u64::from(c));
    match (a, b) {
        (Val::Field(x), Val::Field(y)) => Ok(match op {
            BinOp::Add => Val::Field(*x + y),
            BinOp::Sub => Val::Field(*x - y),
            BinOp::Mul => Val::Field(*x * y),
            BinOp::Div => Val::Field(*x * field::inverse(y).ok_or(FailureKind::DivisionByZero)?),
            BinOp::Eq => bool_val(x == y),
            BinOp::Lt => bool_val(field::cmp_canonical(x, y).is_lt()),
            BinOp::Le => bool_val(field::cmp_canonical(x, y).is_le()),
            _ => {
                return Err(FailureKind::InvalidProgram(format!(
                    "`{op}` on field elements"
                )))
            }
        }),
        (Val::UInt(x), Val::UInt(y)) => {
            let w = ty
                .uint_width()
                .ok_or_else(|| FailureKind::InvalidProgram(format!("`{op}` on {ty}")))?;
            let (x, y) = (*x, *y);
            Ok(match op {
                BinOp::Add => Val::UInt(wrap(x.wrapping_add(y), w)),
                BinOp::Sub => Val::UInt(wrap(x.wrapping_sub(y), w)),
                BinOp::Mul => Val::UInt(wrap(x.wrapping_mul(y), w)),
                BinOp::UDiv => Val::UInt(x.checked_div(y).ok_or(FailureKind::DivisionByZero)?),
                BinOp::URem => Val::UInt(x.checked_rem(y).ok_or(FailureKind::DivisionByZero)?),
                BinOp::Eq => bool_val(x == y),
                BinOp::Lt => bool_val(x < y),
                BinOp::Le => bool_val(x <= y),
                BinOp::And => Val::UInt(x & y),
                BinOp::Or => Val::UInt(x | y),
                BinOp::Xor => Val::UInt(x ^ y),
                BinOp::Shl => Val::UInt(if y >= u64::from(w) {
                    0
                } else {
                    wrap(x << y, w)
                }),
                BinOp::Shr => Val::UInt(if y >= u64::from(w) { 0 } else { x >> y }),
                BinOp::Div => return Err(FailureKind::InvalidProgram("`div` on integers".into())),
            })
        }
        _ => Err(FailureKind::InvalidProgram(format!(
            "`{op}` on mismatched operands"
        ))),
    }
}
