//! Instructions, terminators and constants of the block IR.

use super::entities::{BlockId, FuncId, ValueId};
use super::types::Type;
use crate::field::Fr;
use std::fmt;
use thin_vec::ThinVec;

/// A compile-time constant. Its type (and so the width of an integer) is the type of the value
/// that holds it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Const {
    /// A field element.
    Field(Fr),
    /// An unsigned integer (`u1` to `u64`), always below `2^width`.
    UInt(u64),
}

/// Binary operations. Operands have the same type except the shift amount of `shl`/`shr`,
/// which may be any `uN`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    /// `field` or `uN` addition (`uN` wraps mod 2^N).
    Add,
    /// `field` or `uN` subtraction (`uN` wraps mod 2^N).
    Sub,
    /// `field` or `uN` multiplication (`uN` wraps mod 2^N).
    Mul,
    /// Field division: multiplication by the inverse; fails when the divisor is zero.
    Div,
    /// `uN` integer division; fails when the divisor is zero.
    UDiv,
    /// `uN` remainder; fails when the divisor is zero.
    URem,
    /// Equality of two scalars, giving `u1`.
    Eq,
    /// Less-than on `uN`, or on the canonical integer values of field elements; gives `u1`.
    Lt,
    /// Less-or-equal, as `lt`.
    Le,
    /// Bitwise and on `uN` (logical on `u1`).
    And,
    /// Bitwise or on `uN` (logical on `u1`).
    Or,
    /// Bitwise xor on `uN` (logical on `u1`).
    Xor,
    /// Left shift of a `uN`; bits shifted past the width are dropped; an amount `>= N` gives 0.
    Shl,
    /// Logical right shift of a `uN`; an amount `>= N` gives 0.
    Shr,
}

impl BinOp {
    /// Every binary operation, in text-format order.
    pub const ALL: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::UDiv,
        BinOp::URem,
        BinOp::Eq,
        BinOp::Lt,
        BinOp::Le,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
    ];

    /// The opcode's name in the text format.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::UDiv => "udiv",
            BinOp::URem => "urem",
            BinOp::Eq => "eq",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
        }
    }

    /// The operation named `name` in the text format.
    pub fn from_name(name: &str) -> Option<BinOp> {
        BinOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the result is `u1` (a comparison) rather than the operands' type.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Lt | BinOp::Le)
    }

    /// Whether the operation can fail at run time (division by zero).
    pub fn can_fail(self) -> bool {
        matches!(self, BinOp::Div | BinOp::UDiv | BinOp::URem)
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The operation of an instruction. Results are stored beside it in
/// [`crate::ir::InstData::results`].
///
/// An `InstKind` is 32 bytes (an instruction, 56): the operand lists of the rare `make_array`,
/// `log` and `hint` are [`ThinVec`]s, one pointer each, and a `log`'s template is boxed.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstKind {
    /// `vR = OP a, b`
    Binary {
        /// The operation.
        op: BinOp,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// `vR = not a`: bitwise complement of a `uN` (logical not of a `u1`).
    Not {
        /// The operand.
        arg: ValueId,
    },
    /// `vR = cast a to T`: a checked conversion between scalars. To `field` it is exact; to `uN`
    /// it fails when the (canonical) value is `>= 2^N`.
    Cast {
        /// The value converted.
        arg: ValueId,
        /// The target type.
        to: Type,
    },
    /// `vR = trunc a to uN`: the low `N` bits of a scalar's (canonical) value; never fails.
    Truncate {
        /// The value converted.
        arg: ValueId,
        /// The target type, some `uN`.
        to: Type,
    },
    /// `vR = select c, a, b`: `a` if the `u1` `c` is 1, else `b`.
    Select {
        /// The condition, `u1`.
        cond: ValueId,
        /// Chosen when `cond` is 1.
        then_value: ValueId,
        /// Chosen when `cond` is 0.
        else_value: ValueId,
    },
    /// `assert c` or `assert c, "msg"`: fails when the `u1` `c` is 0 (`constrain`).
    Assert {
        /// The asserted condition.
        cond: ValueId,
        /// The user's message, if any.
        msg: Option<String>,
    },
    /// `vR = allocate T`: a fresh memory cell holding a `T`, giving `&T`. Reading it before any
    /// store gives the zero value of `T`.
    Allocate {
        /// The type of the cell's contents.
        ty: Type,
    },
    /// `vR = load p`: the current contents of the cell `p`.
    Load {
        /// The reference read.
        ptr: ValueId,
    },
    /// `store v at p`: replaces the contents of the cell `p` with `v`.
    Store {
        /// The reference written.
        ptr: ValueId,
        /// The stored value.
        value: ValueId,
    },
    /// `vR = make_array [a, b, ...] : T`: an array of the elements, of type `[T; n]`.
    MakeArray {
        /// The elements, in order.
        elems: ThinVec<ValueId>,
        /// The element type (needed for empty arrays).
        elem_ty: Type,
    },
    /// `vR = array_get a, i`: element `i` (any `uN`); fails when `i` is out of bounds.
    ArrayGet {
        /// The array.
        array: ValueId,
        /// The index.
        index: ValueId,
    },
    /// `vR = array_set a, i, v`: a copy of `a` with element `i` replaced by `v`; fails when `i` is
    /// out of bounds. Arrays are values: `a` itself is unchanged.
    ArraySet {
        /// The array.
        array: ValueId,
        /// The index.
        index: ValueId,
        /// The new element.
        value: ValueId,
    },
    /// `vR = to_bits a`: the bits of a `uN` as `[u1; N]`, most significant first (a `field` gives
    /// 254 bits of its canonical value).
    ToBits {
        /// The value decomposed.
        arg: ValueId,
    },
    /// `vR = from_bits a to T`: the `uN` or `field` whose bits, most significant first, are the
    /// `u1` array `a`.
    FromBits {
        /// The bits.
        arg: ValueId,
        /// The result type.
        to: Type,
    },
    /// `log "template", args [if g]`: prints a line when the interpreter is asked to (`zkbc run
    /// --log`); otherwise a no-op that costs no constraints. Each `{}` of the template takes the
    /// next argument, a scalar or an array (`{{` and `}}` are literal braces). With a guard
    /// `if g` (a `u1`, added when block merging predicates the log) nothing is printed unless
    /// `g` is 1. Kept by DCE like a store.
    Log {
        /// The line with `{}` for each argument (boxed: one pointer keeps `InstKind` at 32 bytes).
        template: Box<String>,
        /// The printed scalars.
        args: ThinVec<ValueId>,
        /// The `u1` that must be 1 for the line to be printed; none prints always.
        guard: Option<ValueId>,
    },
    /// `v = bound a, k`: the field element `a`, failing unless its canonical value is below
    /// `2^k` (`k ≤ 253`). ZoKrates' incomplete field comparison (`--field-cmp zokrates`) bounds
    /// both operands at `2^252` this way, which then compares in `k + 1` constraints.
    Bound {
        /// The value.
        arg: ValueId,
        /// The bound's exponent.
        bits: u32,
    },
    /// `vR, ... = hint fN(args) [if g]`: an unconstrained witness (an `asm` block's `x <-- e`):
    /// the interpreter runs `fN` on `args` (without recording its blocks) and the results are
    /// whatever it returns — all zeros when it fails; R1CS lowering allocates free witness
    /// variables for them and constrains nothing. Only later code (the `asm` block's own `===`)
    /// binds them. `ret` are the result types (`fN`'s return types). With a guard `if g` (a
    /// `u1`, added when block merging predicates the hint) `fN` runs only when `g` is 1; when
    /// `g` is 0 the results are zeros.
    Hint {
        /// The function computing the hint.
        func: FuncId,
        /// Its arguments.
        args: ThinVec<ValueId>,
        /// The result types.
        ret: ThinVec<Type>,
        /// The `u1` that must be 1 for `func` to run; none runs always.
        guard: Option<ValueId>,
    },
    /// `vR, ... = call fN(args)`: calls another function of the program.
    Call {
        /// The callee.
        func: FuncId,
        /// The arguments, bound to the callee's entry block parameters.
        args: Vec<ValueId>,
    },
}

/// What the rest of the compiler reads of an instruction kind besides its operands: its name
/// and its effects ([`InstKind::info`]). One exhaustive `match` gives all of it, so a new kind
/// is described in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstInfo {
    /// The opcode's name in the text format.
    pub opcode: &'static str,
    /// Whether it can fail at run time (the text format writes its source location).
    pub can_fail: bool,
    /// Whether it does something besides computing its results: it may fail, writes memory,
    /// prints, or calls. DCE keeps such instructions.
    pub side_effects: bool,
}

/// Visits every operand of an instruction kind, in text order, as `&ValueId` or `&mut
/// ValueId` by how `$kind` is borrowed: one list for [`InstKind::for_each_operand`] and
/// [`InstKind::map_operands`].
macro_rules! visit_operands {
    ($kind:expr, $f:ident) => {
        match $kind {
            InstKind::Binary { lhs, rhs, .. } => {
                $f(lhs);
                $f(rhs);
            }
            InstKind::Not { arg }
            | InstKind::Cast { arg, .. }
            | InstKind::Truncate { arg, .. }
            | InstKind::Bound { arg, .. }
            | InstKind::ToBits { arg }
            | InstKind::FromBits { arg, .. } => $f(arg),
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => {
                $f(cond);
                $f(then_value);
                $f(else_value);
            }
            InstKind::Assert { cond, .. } => $f(cond),
            InstKind::Allocate { .. } => {}
            InstKind::Load { ptr } => $f(ptr),
            InstKind::Store { ptr, value } => {
                $f(value);
                $f(ptr);
            }
            InstKind::MakeArray { elems, .. } => elems.into_iter().for_each($f),
            InstKind::ArrayGet { array, index } => {
                $f(array);
                $f(index);
            }
            InstKind::ArraySet {
                array,
                index,
                value,
            } => {
                $f(array);
                $f(index);
                $f(value);
            }
            InstKind::Call { args, .. } => args.into_iter().for_each($f),
            InstKind::Hint { args, guard, .. } | InstKind::Log { args, guard, .. } => {
                args.into_iter().for_each(&mut $f);
                guard.into_iter().for_each($f);
            }
        }
    };
}

impl InstKind {
    /// The kind's name and effects (see [`InstInfo`]).
    pub fn info(&self) -> InstInfo {
        // (opcode, can fail, other side effects)
        let (opcode, can_fail, effects) = match self {
            InstKind::Binary { op, .. } => (op.name(), op.can_fail(), false),
            InstKind::Not { .. } => ("not", false, false),
            InstKind::Cast { .. } => ("cast", true, false),
            InstKind::Truncate { .. } => ("trunc", false, false),
            InstKind::Select { .. } => ("select", false, false),
            InstKind::Assert { .. } => ("assert", true, false),
            InstKind::Log { .. } => ("log", false, true),
            InstKind::Allocate { .. } => ("allocate", false, false),
            InstKind::Load { .. } => ("load", false, false),
            InstKind::Store { .. } => ("store", false, true),
            InstKind::MakeArray { .. } => ("make_array", false, false),
            InstKind::ArrayGet { .. } => ("array_get", true, false),
            InstKind::ArraySet { .. } => ("array_set", true, false),
            InstKind::ToBits { .. } => ("to_bits", false, false),
            InstKind::FromBits { .. } => ("from_bits", false, false),
            InstKind::Call { .. } => ("call", true, true),
            InstKind::Hint { .. } => ("hint", false, false),
            InstKind::Bound { .. } => ("bound", true, false),
        };
        InstInfo {
            opcode,
            can_fail,
            side_effects: can_fail || effects,
        }
    }

    /// The kind whose text is plain, `opcode a, b, ...` (its operands in text order and nothing
    /// else: what the printer writes for every kind it has no other form for), its operands
    /// taken from `next`; `None` when `opcode` is not such a kind. The parser reads these kinds
    /// by this function alone.
    pub fn plain<E>(
        opcode: &str,
        mut next: impl FnMut() -> Result<ValueId, E>,
    ) -> Option<Result<InstKind, E>> {
        // Fields are written in text order: a struct expression evaluates them in that order.
        let mut read = || -> Result<Option<InstKind>, E> {
            if let Some(op) = BinOp::from_name(opcode) {
                return Ok(Some(InstKind::Binary {
                    op,
                    lhs: next()?,
                    rhs: next()?,
                }));
            }
            Ok(Some(match opcode {
                "not" => InstKind::Not { arg: next()? },
                "select" => InstKind::Select {
                    cond: next()?,
                    then_value: next()?,
                    else_value: next()?,
                },
                "load" => InstKind::Load { ptr: next()? },
                "array_get" => InstKind::ArrayGet {
                    array: next()?,
                    index: next()?,
                },
                "array_set" => InstKind::ArraySet {
                    array: next()?,
                    index: next()?,
                    value: next()?,
                },
                "to_bits" => InstKind::ToBits { arg: next()? },
                _ => return Ok(None),
            }))
        };
        read().transpose()
    }

    /// The opcode's name in the text format.
    pub fn opcode(&self) -> &'static str {
        self.info().opcode
    }

    /// The values the instruction reads, in text order.
    pub fn operands(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(v));
        out
    }

    /// Calls `f` on every operand, in text order.
    pub fn for_each_operand(&self, mut f: impl FnMut(ValueId)) {
        let mut visit = |v: &ValueId| f(*v);
        visit_operands!(self, visit)
    }

    /// Replaces every operand `v` by `f(v)`.
    pub fn map_operands(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        let mut visit = |v: &mut ValueId| *v = f(*v);
        visit_operands!(self, visit)
    }

    /// Whether the instruction does something besides computing its results: it may fail, writes
    /// memory, prints, or calls. DCE keeps such instructions.
    pub fn has_side_effects(&self) -> bool {
        self.info().side_effects
    }

    /// Whether the instruction can fail at run time (the text format writes its source location).
    pub fn can_fail(&self) -> bool {
        self.info().can_fail
    }
}

/// A jump target with the arguments bound to the target block's parameters: `bN(a, b)`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockCall {
    /// The target block.
    pub block: BlockId,
    /// One argument per parameter of `block`.
    pub args: Vec<ValueId>,
}

/// How a block ends.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Terminator {
    /// `jmp bN(args)`
    Jmp(BlockCall),
    /// `br c, bT(args), bE(args)`: to `bT` when the `u1` `c` is 1, else to `bE`.
    Br {
        /// The condition.
        cond: ValueId,
        /// Taken when `cond` is 1.
        then_dest: BlockCall,
        /// Taken when `cond` is 0.
        else_dest: BlockCall,
    },
    /// `return a, b, ...`: leaves the function with these values.
    Return(Vec<ValueId>),
}

impl Terminator {
    /// The successor blocks, in text order (a `br` to the same block twice lists it twice).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jmp(dest) => vec![dest.block],
            Terminator::Br {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest.block, else_dest.block],
            Terminator::Return(_) => Vec::new(),
        }
    }

    /// The jump targets with their arguments.
    pub fn block_calls(&self) -> Vec<&BlockCall> {
        match self {
            Terminator::Jmp(dest) => vec![dest],
            Terminator::Br {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            Terminator::Return(_) => Vec::new(),
        }
    }

    /// The jump targets with their arguments, mutably.
    pub fn block_calls_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            Terminator::Jmp(dest) => vec![dest],
            Terminator::Br {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            Terminator::Return(_) => Vec::new(),
        }
    }

    /// Every value the terminator reads, in text order.
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Terminator::Jmp(dest) => dest.args.clone(),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => std::iter::once(*cond)
                .chain(then_dest.args.iter().copied())
                .chain(else_dest.args.iter().copied())
                .collect(),
            Terminator::Return(values) => values.clone(),
        }
    }

    /// Replaces every operand `v` by `f(v)`.
    pub fn map_operands(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        match self {
            Terminator::Jmp(dest) => dest.args.iter_mut().for_each(|v| *v = f(*v)),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                *cond = f(*cond);
                then_dest.args.iter_mut().for_each(|v| *v = f(*v));
                else_dest.args.iter_mut().for_each(|v| *v = f(*v));
            }
            Terminator::Return(values) => values.iter_mut().for_each(|v| *v = f(*v)),
        }
    }
}
