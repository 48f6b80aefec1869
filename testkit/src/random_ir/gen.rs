//! A function under construction and its straight-line statements: arithmetic, comparisons,
//! conversions, arrays, locals, references (to references, in arrays), assertions, calls,
//! hints and logs.

use super::Callee;
use crate::Rng;
use zkbc::field::Fr;
use zkbc::ir::{
    BinOp, BlockCall, BlockId, Function, InstKind, Terminator, Type, ValueDef, ValueId,
};

pub(super) const SCALARS: [Type; 4] = [Type::Field, Type::U32, Type::UInt(8), Type::BOOL];

pub(super) struct Gen<'r> {
    pub(super) rng: &'r mut Rng,
    pub(super) func: Function,
    pub(super) block: BlockId,
    /// Values usable at the current point, innermost region last.
    pub(super) scopes: Vec<Vec<ValueId>>,
    pub(super) depth: usize,
    pub(super) budget: usize,
    /// The functions a `call` may call.
    pub(super) callees: Vec<Callee>,
    /// The function a `hint` runs.
    pub(super) hint: Option<Callee>,
    /// `log`s built so far: each line starts with its number, so a moved line shows.
    pub(super) logs: usize,
    /// Whether mem2reg must be able to promote every allocation once calls are inlined
    /// ([`super::random_lowerable_program`]); false, it changes no draw, and `loops` is not
    /// read.
    pub(super) promotable: bool,
    /// Loops around the current point, counting one more for a function that may be called
    /// inside a loop: a cell allocated there has several instances, so mem2reg cannot know
    /// which reference a cell of references holds.
    pub(super) loops: usize,
}

impl<'r> Gen<'r> {
    pub(super) fn new(
        rng: &'r mut Rng,
        name: &str,
        params: Vec<Type>,
        returns: Vec<Type>,
        callees: Vec<Callee>,
        hint: Option<Callee>,
    ) -> Self {
        let mut func = Function::new(name, returns);
        let entry = func.entry;
        let params = params
            .into_iter()
            .map(|t| func.append_block_param(entry, t))
            .collect();
        Gen {
            rng,
            func,
            block: entry,
            scopes: vec![params],
            depth: 0,
            budget: 60,
            callees,
            hint,
            logs: 0,
            promotable: false,
            loops: 0,
        }
    }

    pub(super) fn finish(mut self) -> Function {
        let values = self.return_values();
        self.terminate(Terminator::Return(values));
        self.func
    }

    /// Values to return from the current point.
    pub(super) fn return_values(&mut self) -> Vec<ValueId> {
        let returns = self.func.returns.clone();
        returns
            .iter()
            .enumerate()
            .map(|(k, t)| {
                // Observe memory: the last field result is read through a reference if any.
                if k == 2 && *t == Type::Field {
                    if let Some(r) = self.existing(&Type::reference(Type::Field)) {
                        return self.inst(InstKind::Load { ptr: r });
                    }
                }
                self.pick(t)
            })
            .collect()
    }

    // ---- building blocks ----

    pub(super) fn inst(&mut self, kind: InstKind) -> ValueId {
        let i = self.func.create_inst(kind, &[], None);
        self.func.append_inst(self.block, i);
        let r = self.func.inst(i).results.first().copied();
        if let Some(r) = r {
            self.scopes.last_mut().expect("bug: no scope").push(r);
            r
        } else {
            ValueId(u32::MAX)
        }
    }

    pub(super) fn terminate(&mut self, term: Terminator) {
        self.func.block_mut(self.block).term = Some(term);
    }

    pub(super) fn jmp(&mut self, block: BlockId, args: Vec<ValueId>) {
        self.terminate(Terminator::Jmp(BlockCall { block, args }));
    }

    pub(super) fn visible(&self, ty: &Type) -> Vec<ValueId> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|v| self.func.value_type(*v) == ty)
            .collect()
    }

    pub(super) fn existing(&mut self, ty: &Type) -> Option<ValueId> {
        let vals = self.visible(ty);
        if vals.is_empty() {
            None
        } else {
            Some(self.rng.pick(&vals))
        }
    }

    pub(super) fn constant(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => {
                let x = match self.rng.below(5) {
                    0 => -Fr::from(self.rng.below(3) + 1),
                    _ => Fr::from(self.rng.below(10)),
                };
                self.func.const_field(x)
            }
            Type::UInt(w) => {
                let v = match self.rng.below(6) {
                    0 => u64::MAX,
                    _ => self.rng.below(10),
                };
                self.func.const_uint(*w, v)
            }
            _ => panic!("bug: constant of {ty}"),
        }
    }

    /// A value of type `ty`: a visible one, a constant, or a fresh one.
    pub(super) fn pick(&mut self, ty: &Type) -> ValueId {
        if ty.is_scalar() {
            if self.rng.chance(70) {
                if let Some(v) = self.existing(ty) {
                    return v;
                }
            }
            return self.constant(ty);
        }
        if let Some(v) = self.existing(ty) {
            if self.rng.chance(80) {
                return v;
            }
        }
        match ty {
            Type::Array(elem, n) => {
                let elems = (0..*n).map(|_| self.pick(elem)).collect();
                self.inst(InstKind::MakeArray {
                    elems,
                    elem_ty: (**elem).clone(),
                })
            }
            Type::Ref(inner) => self.allocate_cell(inner),
            _ => unreachable!(),
        }
    }

    /// A fresh cell holding a value of type `inner`.
    pub(super) fn allocate_cell(&mut self, inner: &Type) -> ValueId {
        assert!(
            !(self.promotable && self.loops > 0 && inner.contains_ref()),
            "bug: a cell of references allocated in a loop of a promotable program"
        );
        let init = self.pick(inner);
        let r = self.inst(InstKind::Allocate { ty: inner.clone() });
        self.inst(InstKind::Store {
            ptr: r,
            value: init,
        });
        r
    }

    /// Whether storing a reference into the cell `c` keeps every later load of `c` to one
    /// reference mem2reg knows (promotable programs): `c` was allocated in the innermost scope
    /// (so the store dominates every later load of `c` and no join mixes it with an older
    /// content) and no loop is around (so `c` has one instance).
    pub(super) fn may_store_into(&self, c: ValueId) -> bool {
        let allocated = match self.func.value(c).def {
            ValueDef::Result(i, _) => matches!(self.func.inst(i).kind, InstKind::Allocate { .. }),
            _ => false,
        };
        self.loops == 0 && allocated && self.scopes.last().is_some_and(|s| s.contains(&c))
    }

    /// A `&&field` cell a reference may be stored into (promotable programs, outside loops):
    /// one [`Gen::may_store_into`] allows, or a fresh one.
    pub(super) fn cell_for_reference(&mut self) -> ValueId {
        let rr = Type::reference(Type::reference(Type::Field));
        let own: Vec<ValueId> = self
            .visible(&rr)
            .into_iter()
            .filter(|&c| self.may_store_into(c))
            .collect();
        if !own.is_empty() && self.rng.chance(80) {
            return self.rng.pick(&own);
        }
        self.allocate_cell(rr.pointee().expect("bug: ref type"))
    }

    pub(super) fn index(&mut self) -> ValueId {
        let i = self.pick(&Type::U32);
        if self.rng.chance(95) {
            let three = self.func.const_uint(32, 3);
            self.inst(InstKind::Binary {
                op: BinOp::URem,
                lhs: i,
                rhs: three,
            })
        } else {
            i
        }
    }

    // ---- statements ----

    pub(super) fn body(&mut self, n: usize) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt();
        }
    }

    pub(super) fn stmt(&mut self) {
        let control = self.depth < 2;
        match self.rng.below(if control { 24 } else { 19 }) {
            0..=3 => self.arith(),
            4 => self.compare(),
            5 => self.convert(),
            6 => self.array(),
            7 | 8 => self.local(),
            9 | 10 => self.store(),
            11 => self.load(),
            12 => self.ref_in_ref(),
            // mem2reg never promotes a reference that is an element of an array.
            13 if self.promotable => self.ref_in_ref(),
            13 => self.array_of_refs(),
            14 => self.assert(),
            15 => self.call(),
            16 => self.stash(),
            17 => self.hint(),
            18 => self.log(),
            19 | 20 => self.diamond(),
            21 => self.irreducible_loop(),
            _ => self.counted_loop(),
        }
    }

    pub(super) fn arith(&mut self) {
        let ty = self.rng.pick(&SCALARS[..3]);
        let ops: &[BinOp] = if ty == Type::Field {
            &[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]
        } else {
            &[
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::UDiv,
                BinOp::URem,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
                BinOp::Shl,
                BinOp::Shr,
            ]
        };
        let op = self.rng.pick(ops);
        let lhs = self.pick(&ty);
        let rhs = if matches!(op, BinOp::Shl | BinOp::Shr) {
            let t = self.rng.pick(&[Type::U32, Type::UInt(8)]);
            self.pick(&t)
        } else {
            self.pick(&ty)
        };
        self.inst(InstKind::Binary { op, lhs, rhs });
    }

    pub(super) fn compare(&mut self) {
        let ty = self.rng.pick(&SCALARS);
        let op = self.rng.pick(&[BinOp::Eq, BinOp::Lt, BinOp::Le]);
        let (lhs, rhs) = (self.pick(&ty), self.pick(&ty));
        let c = self.inst(InstKind::Binary { op, lhs, rhs });
        match self.rng.below(3) {
            0 => {
                self.inst(InstKind::Not { arg: c });
            }
            1 => {
                let other = self.pick(&Type::BOOL);
                let op = self.rng.pick(&[BinOp::And, BinOp::Or, BinOp::Xor]);
                self.inst(InstKind::Binary {
                    op,
                    lhs: c,
                    rhs: other,
                });
            }
            _ => {
                let t = self.rng.pick(&SCALARS[..3]);
                let (a, b) = (self.pick(&t), self.pick(&t));
                self.inst(InstKind::Select {
                    cond: c,
                    then_value: a,
                    else_value: b,
                });
            }
        }
    }

    pub(super) fn convert(&mut self) {
        let from = self.rng.pick(&SCALARS);
        let arg = self.pick(&from);
        match self.rng.below(4) {
            0 => {
                let to = self.rng.pick(&SCALARS);
                self.inst(InstKind::Cast { arg, to });
            }
            1 => {
                let to = self.rng.pick(&[Type::UInt(8), Type::U32, Type::BOOL]);
                self.inst(InstKind::Truncate { arg, to });
            }
            2 => {
                let to = Type::Field;
                self.inst(InstKind::Cast { arg, to });
            }
            _ => {
                let arg = self.pick(&Type::UInt(8));
                let bits = self.inst(InstKind::ToBits { arg });
                let i = self.index();
                self.inst(InstKind::ArrayGet {
                    array: bits,
                    index: i,
                });
                let to = Type::UInt(8);
                self.inst(InstKind::FromBits { arg: bits, to });
            }
        }
    }

    pub(super) fn array(&mut self) {
        let ty = self
            .rng
            .pick(&[Type::array(Type::Field, 3), Type::array(Type::U32, 3)]);
        let array = self.pick(&ty);
        let index = self.index();
        if self.rng.chance(50) {
            self.inst(InstKind::ArrayGet { array, index });
        } else {
            let value = self.pick(ty.elem().expect("bug: array type"));
            self.inst(InstKind::ArraySet {
                array,
                index,
                value,
            });
        }
    }

    pub(super) fn ref_type(&mut self) -> Type {
        self.rng.pick(&[
            Type::reference(Type::Field),
            Type::reference(Type::Field),
            Type::reference(Type::U32),
            Type::reference(Type::array(Type::Field, 3)),
        ])
    }

    pub(super) fn local(&mut self) {
        let ty = self.ref_type();
        let inner = ty.pointee().expect("bug: ref type").clone();
        let init = self.pick(&inner);
        let r = self.inst(InstKind::Allocate { ty: inner });
        self.inst(InstKind::Store {
            ptr: r,
            value: init,
        });
    }

    pub(super) fn store(&mut self) {
        let ty = self.ref_type();
        let ptr = self.pick(&ty);
        let value = if ty == Type::reference(Type::array(Type::Field, 3)) && self.rng.chance(60) {
            // arr[i] = x on a local array: load, array_set, store.
            let arr = self.inst(InstKind::Load { ptr });
            let index = self.index();
            let x = self.pick(&Type::Field);
            self.inst(InstKind::ArraySet {
                array: arr,
                index,
                value: x,
            })
        } else {
            let inner = ty.pointee().expect("bug: ref type").clone();
            let v = self.pick(&inner);
            if inner == Type::Field && self.rng.chance(50) {
                let old = self.inst(InstKind::Load { ptr });
                self.inst(InstKind::Binary {
                    op: BinOp::Add,
                    lhs: old,
                    rhs: v,
                })
            } else {
                v
            }
        };
        self.inst(InstKind::Store { ptr, value });
    }

    pub(super) fn load(&mut self) {
        let ty = self.ref_type();
        let ptr = self.pick(&ty);
        self.inst(InstKind::Load { ptr });
    }

    /// `c: &&field` holding a reference; loads and stores through the loaded reference. In a
    /// promotable program, a reference is stored into `c` only where [`Gen::may_store_into`]
    /// allows, and inside a loop `c` is an existing cell (else this is a plain `load`).
    pub(super) fn ref_in_ref(&mut self) {
        let rr = Type::reference(Type::reference(Type::Field));
        let c = if self.promotable && self.loops > 0 {
            match self.existing(&rr) {
                Some(c) => c,
                None => return self.load(),
            }
        } else {
            self.pick(&rr)
        };
        if (!self.promotable || self.may_store_into(c)) && self.rng.chance(40) {
            let r = self.pick(&Type::reference(Type::Field));
            self.inst(InstKind::Store { ptr: c, value: r });
        }
        let inner = self.inst(InstKind::Load { ptr: c });
        if self.rng.chance(60) {
            let v = self.pick(&Type::Field);
            self.inst(InstKind::Store {
                ptr: inner,
                value: v,
            });
        } else {
            self.inst(InstKind::Load { ptr: inner });
        }
    }

    /// Reads the cell stashed in a `&&field` cell, then stashes a fresh cell holding a new value:
    /// in a loop, each iteration reads the cell of the previous one (one allocation site, many
    /// cells). A promotable program stashes only outside loops, into a cell
    /// [`Gen::may_store_into`] allows (inside a loop this is [`Gen::ref_in_ref`]).
    pub(super) fn stash(&mut self) {
        let c = if !self.promotable {
            self.pick(&Type::reference(Type::reference(Type::Field)))
        } else if self.loops == 0 {
            self.cell_for_reference()
        } else {
            return self.ref_in_ref();
        };
        let old = self.inst(InstKind::Load { ptr: c });
        let x = self.inst(InstKind::Load { ptr: old });
        let d = self.pick(&Type::Field);
        let y = self.inst(InstKind::Binary {
            op: BinOp::Add,
            lhs: x,
            rhs: d,
        });
        let fresh = self.inst(InstKind::Allocate { ty: Type::Field });
        self.inst(InstKind::Store {
            ptr: fresh,
            value: y,
        });
        self.inst(InstKind::Store {
            ptr: c,
            value: fresh,
        });
    }

    /// `[&field; 2]` written or read through a dynamic index.
    pub(super) fn array_of_refs(&mut self) {
        let ty = Type::array(Type::reference(Type::Field), 2);
        let arr = self.pick(&ty);
        let i = self.pick(&Type::U32);
        let two = self.func.const_uint(32, 2);
        let index = self.inst(InstKind::Binary {
            op: BinOp::URem,
            lhs: i,
            rhs: two,
        });
        let r = self.inst(InstKind::ArrayGet { array: arr, index });
        if self.rng.chance(60) {
            let v = self.pick(&Type::Field);
            self.inst(InstKind::Store { ptr: r, value: v });
        } else {
            self.inst(InstKind::Load { ptr: r });
        }
    }

    pub(super) fn assert(&mut self) {
        let ty = self.rng.pick(&[Type::U32, Type::Field, Type::UInt(8)]);
        let a = self.pick(&ty);
        let bound = match ty {
            Type::Field => self.func.const_field(Fr::from(1000u64)),
            Type::UInt(w) => self.func.const_uint(w, 200),
            _ => unreachable!(),
        };
        let op = self.rng.pick(&[BinOp::Lt, BinOp::Le]);
        let cond = self.inst(InstKind::Binary {
            op,
            lhs: a,
            rhs: bound,
        });
        let i = self.func.create_inst(
            InstKind::Assert {
                cond,
                msg: Some("bound".into()),
            },
            &[],
            None,
        );
        self.func.append_inst(self.block, i);
    }

    /// A call of one of the callees. In a promotable program, a callee that stores into a cell
    /// of references it is given (`redirect`) is called only outside loops, with a cell
    /// [`Gen::may_store_into`] allows.
    pub(super) fn call(&mut self) {
        let stores_refs = |params: &[Type]| {
            params
                .iter()
                .any(|t| t.pointee().is_some_and(Type::contains_ref))
        };
        let callees: Vec<Callee> = self
            .callees
            .iter()
            .filter(|(_, params, _)| !self.promotable || self.loops == 0 || !stores_refs(params))
            .cloned()
            .collect();
        if callees.is_empty() {
            return self.arith();
        }
        let (f, params, returns) = self.rng.pick(&callees);
        let args = params
            .iter()
            .map(|t| {
                if self.promotable && stores_refs(std::slice::from_ref(t)) {
                    self.cell_for_reference()
                } else {
                    self.pick(t)
                }
            })
            .collect();
        let i = self
            .func
            .create_inst(InstKind::Call { func: f, args }, &returns, None);
        self.func.append_inst(self.block, i);
        let results = self.func.inst(i).results.clone();
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .extend(results);
    }

    /// `hint witness(..)`, guarded by a visible `u1` half of the time: the function may fail
    /// (then the results are zeros) or run a loop.
    pub(super) fn hint(&mut self) {
        let Some((func, params, ret)) = self.hint.clone() else {
            return self.log();
        };
        let args = params.iter().map(|t| self.pick(t)).collect();
        let guard = if self.rng.chance(50) {
            Some(self.pick(&Type::BOOL))
        } else {
            None
        };
        let i = self.func.create_inst(
            InstKind::Hint {
                func,
                args,
                ret: ret.into(),
                guard,
            },
            &[],
            None,
        );
        self.func.append_inst(self.block, i);
        let results = self.func.inst(i).results.clone();
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .extend(results);
    }

    /// `log "<fn>#<n> {} {}", ..` of up to two scalars or arrays, guarded by a visible `u1` a
    /// third of the time.
    pub(super) fn log(&mut self) {
        self.logs += 1;
        let types = [
            Type::Field,
            Type::U32,
            Type::UInt(8),
            Type::BOOL,
            Type::array(Type::U32, 3),
            Type::array(Type::Field, 3),
        ];
        let args: Vec<ValueId> = (0..self.rng.below(3))
            .map(|_| {
                let t = self.rng.pick(&types);
                self.pick(&t)
            })
            .collect();
        let mut template = format!("{}#{}", self.func.name, self.logs);
        for _ in &args {
            template.push_str(" {}");
        }
        let guard = if self.rng.chance(33) {
            Some(self.pick(&Type::BOOL))
        } else {
            None
        };
        let i = self.func.create_inst(
            InstKind::Log {
                template: Box::new(template),
                args: args.into(),
                guard,
            },
            &[],
            None,
        );
        self.func.append_inst(self.block, i);
    }

    /// The start of `redirect(c: &&field, r: &field, rs: [&field; 2])`: stores `r` (or an
    /// element of `rs`) into `c`, so that the caller's later loads through `c` reach a cell the
    /// caller may know by another name.
    ///
    /// In a promotable program, `redirect(c: &&field, r: &field)` stores `r` or a fresh cell of
    /// its own into `c`: at its start, so on every path through it.
    pub(super) fn redirect(&mut self) {
        let params = self.scopes[0].clone();
        if self.promotable {
            let (c, r) = (params[0], params[1]);
            let value = if self.rng.chance(70) {
                r
            } else {
                self.allocate_cell(&Type::Field)
            };
            self.inst(InstKind::Store { ptr: c, value });
            return;
        }
        let (c, r, rs) = (params[0], params[1], params[2]);
        let value = if self.rng.chance(70) {
            r
        } else {
            let i = self.pick(&Type::U32);
            let two = self.func.const_uint(32, 2);
            let index = self.inst(InstKind::Binary {
                op: BinOp::URem,
                lhs: i,
                rhs: two,
            });
            self.inst(InstKind::ArrayGet { array: rs, index })
        };
        self.inst(InstKind::Store { ptr: c, value });
    }
}
