//! A builder that appends instructions to a current block, Cranelift-`FunctionBuilder` style.
//!
//! ```
//! use zkbc::ir::{BinOp, Function, FunctionBuilder, Type};
//! let mut func = Function::new("main", vec![Type::Field]);
//! let mut b = FunctionBuilder::new(&mut func);
//! let entry = b.func().entry;
//! let x = b.add_block_param(entry, Type::Field);
//! b.switch_to_block(entry);
//! let y = b.binary(BinOp::Mul, x, x);
//! b.ret(vec![y]);
//! assert!(zkbc::ir::verify::verify_function(&func, None).is_ok());
//! ```

use super::entities::{BlockId, FuncId, InstId, SrcLoc, ValueId};
use super::function::Function;
use super::instructions::{BinOp, BlockCall, InstKind, Terminator};
use super::types::Type;
use crate::field::Fr;

/// Appends instructions at the end of a current block of a function.
pub struct FunctionBuilder<'f> {
    func: &'f mut Function,
    block: Option<BlockId>,
    loc: Option<SrcLoc>,
}

impl<'f> FunctionBuilder<'f> {
    /// A builder positioned nowhere; call [`FunctionBuilder::switch_to_block`] first.
    pub fn new(func: &'f mut Function) -> Self {
        FunctionBuilder {
            func,
            block: None,
            loc: None,
        }
    }

    /// The function being built.
    pub fn func(&mut self) -> &mut Function {
        self.func
    }

    /// A new empty block (added to the layout).
    pub fn create_block(&mut self) -> BlockId {
        self.func.create_block()
    }

    /// Adds a parameter to `block`.
    pub fn add_block_param(&mut self, block: BlockId, ty: Type) -> ValueId {
        self.func.append_block_param(block, ty)
    }

    /// Subsequent instructions go to the end of `block`.
    pub fn switch_to_block(&mut self, block: BlockId) {
        self.block = Some(block);
    }

    /// The block instructions are appended to.
    pub fn current_block(&self) -> Option<BlockId> {
        self.block
    }

    /// Whether the current block already has its terminator.
    pub fn is_terminated(&self) -> bool {
        self.block
            .is_some_and(|b| self.func.block(b).term.is_some())
    }

    /// The source location attached to subsequent instructions.
    pub fn set_loc(&mut self, loc: Option<SrcLoc>) {
        self.loc = loc;
    }

    /// The source location attached to the next instruction.
    pub fn loc(&self) -> Option<SrcLoc> {
        self.loc
    }

    /// A `field` constant.
    pub fn field(&mut self, value: Fr) -> ValueId {
        self.func.const_field(value)
    }

    /// A `uN` constant.
    pub fn uint(&mut self, width: u32, value: u64) -> ValueId {
        self.func.const_uint(width, value)
    }

    /// A `u1` constant.
    pub fn bool(&mut self, value: bool) -> ValueId {
        self.func.const_bool(value)
    }

    /// Appends any instruction; `call_returns` types the results of a call.
    pub fn inst(&mut self, kind: InstKind, call_returns: &[Type]) -> InstId {
        let block = self
            .block
            .expect("bug: FunctionBuilder used before switch_to_block");
        let inst = self.func.create_inst(kind, call_returns, self.loc);
        self.func.append_inst(block, inst);
        inst
    }

    fn single(&mut self, kind: InstKind) -> ValueId {
        let inst = self.inst(kind, &[]);
        self.func.inst(inst).results[0]
    }

    /// `OP a, b`
    pub fn binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> ValueId {
        self.single(InstKind::Binary { op, lhs, rhs })
    }

    /// `not a`
    pub fn not(&mut self, arg: ValueId) -> ValueId {
        self.single(InstKind::Not { arg })
    }

    /// `cast a to T` (checked)
    pub fn cast(&mut self, arg: ValueId, to: Type) -> ValueId {
        self.single(InstKind::Cast { arg, to })
    }

    /// `trunc a to T`
    pub fn truncate(&mut self, arg: ValueId, to: Type) -> ValueId {
        self.single(InstKind::Truncate { arg, to })
    }

    /// `select c, a, b`
    pub fn select(&mut self, cond: ValueId, then_value: ValueId, else_value: ValueId) -> ValueId {
        self.single(InstKind::Select {
            cond,
            then_value,
            else_value,
        })
    }

    /// `assert c[, "msg"]`
    pub fn assert(&mut self, cond: ValueId, msg: Option<String>) -> InstId {
        self.inst(InstKind::Assert { cond, msg }, &[])
    }

    /// `log "template", args` (see [`InstKind::Log`]).
    pub fn log(&mut self, template: String, args: Vec<ValueId>) -> InstId {
        self.inst(
            InstKind::Log {
                template: Box::new(template),
                args: args.into(),
                guard: None,
            },
            &[],
        )
    }

    /// `allocate T`
    pub fn allocate(&mut self, ty: Type) -> ValueId {
        self.single(InstKind::Allocate { ty })
    }

    /// `load p`
    pub fn load(&mut self, ptr: ValueId) -> ValueId {
        self.single(InstKind::Load { ptr })
    }

    /// `store v at p`
    pub fn store(&mut self, value: ValueId, ptr: ValueId) -> InstId {
        self.inst(InstKind::Store { ptr, value }, &[])
    }

    /// `make_array [..] : T`
    pub fn make_array(&mut self, elems: Vec<ValueId>, elem_ty: Type) -> ValueId {
        self.single(InstKind::MakeArray {
            elems: elems.into(),
            elem_ty,
        })
    }

    /// `array_get a, i`
    pub fn array_get(&mut self, array: ValueId, index: ValueId) -> ValueId {
        self.single(InstKind::ArrayGet { array, index })
    }

    /// `array_set a, i, v`
    pub fn array_set(&mut self, array: ValueId, index: ValueId, value: ValueId) -> ValueId {
        self.single(InstKind::ArraySet {
            array,
            index,
            value,
        })
    }

    /// `to_bits a`
    pub fn to_bits(&mut self, arg: ValueId) -> ValueId {
        self.single(InstKind::ToBits { arg })
    }

    /// `bound a, bits`
    pub fn bound(&mut self, arg: ValueId, bits: u32) -> ValueId {
        self.single(InstKind::Bound { arg, bits })
    }

    /// `from_bits a to T`
    pub fn from_bits(&mut self, arg: ValueId, to: Type) -> ValueId {
        self.single(InstKind::FromBits { arg, to })
    }

    /// `call fN(args)` with results typed `returns`.
    pub fn call(&mut self, func: FuncId, args: Vec<ValueId>, returns: &[Type]) -> Vec<ValueId> {
        let inst = self.inst(InstKind::Call { func, args }, returns);
        self.func.inst(inst).results.to_vec()
    }

    fn terminate(&mut self, term: Terminator) {
        let block = self
            .block
            .expect("bug: FunctionBuilder used before switch_to_block");
        let data = self.func.block_mut(block);
        assert!(data.term.is_none(), "bug: block {block} terminated twice");
        data.term = Some(term);
        data.term_loc = self.loc;
    }

    /// `jmp b(args)`
    pub fn jmp(&mut self, block: BlockId, args: Vec<ValueId>) {
        self.terminate(Terminator::Jmp(BlockCall { block, args }));
    }

    /// `br c, t(targs), e(eargs)`
    pub fn br(
        &mut self,
        cond: ValueId,
        then_block: BlockId,
        then_args: Vec<ValueId>,
        else_block: BlockId,
        else_args: Vec<ValueId>,
    ) {
        self.terminate(Terminator::Br {
            cond,
            then_dest: BlockCall {
                block: then_block,
                args: then_args,
            },
            else_dest: BlockCall {
                block: else_block,
                args: else_args,
            },
        });
    }

    /// `return vals`
    pub fn ret(&mut self, values: Vec<ValueId>) {
        self.terminate(Terminator::Return(values));
    }
}
