//! Random IR programs for differential testing of the passes: a program and its optimized form
//! must give the same outputs on the same inputs (or fail with the same kind of failure).
//!
//! [`random_program`] builds, from a seed, a well-typed program that the verifier accepts and
//! that always terminates: straight-line `field`, `u1`, `u8` and `u32` arithmetic (including
//! divisions by values that may be zero, checked casts that may not fit, shifts, bit
//! decompositions), `if`/`else` diamonds whose join block takes parameters, loops with a
//! constant bound or a bound computed from an input (`n % 5`), nested up to depth 2, arrays with
//! dynamic (possibly out-of-bounds) indices, locals through `allocate`/`load`/`store`,
//! references stored in references, arrays of references indexed dynamically, block parameters
//! bound to the same reference, calls of a helper function that reads and writes through a
//! reference argument, and assertions that sometimes fail. Every allocated cell is stored to at
//! once, so no program ever loads a reference that does not exist.
//!
//! The generator carries its own small PRNG (SplitMix64) so that it needs no dependency.

use crate::field::Fr;
use crate::ir::interp::{self, FailureKind, Limits, Val};
use crate::ir::{
    BinOp, BlockCall, BlockId, FuncId, Function, InstKind, Program, Terminator, Type, ValueId,
};
use std::rc::Rc;

/// A SplitMix64 pseudo-random generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
}

/// A generated program with the inputs to run it on.
#[derive(Clone, Debug)]
pub struct RandomProgram {
    /// The program (verified).
    pub program: Program,
    /// Input vectors for `main`.
    pub inputs: Vec<Vec<Val>>,
}

/// The program of `seed`, with three input vectors.
pub fn random_program(seed: u64) -> RandomProgram {
    let mut rng = Rng::new(seed);
    let with_helper = rng.percent(50);
    let mut funcs = Vec::new();
    let helper = if with_helper {
        let mut g = Gen::new(
            &mut rng,
            "helper",
            vec![Type::Field, Type::U32, Type::reference(Type::Field)],
            vec![Type::Field, Type::U32],
            None,
        );
        g.body(6);
        let f = g.finish();
        funcs.push(f);
        Some(FuncId(0))
    } else {
        None
    };
    let main_params = vec![
        Type::Field,
        Type::U32,
        Type::UInt(8),
        Type::array(Type::U32, 3),
    ];
    let helper_sig = helper.map(|id| (id, funcs[0].param_types(), funcs[0].returns.clone()));
    let mut g = Gen::new(
        &mut rng,
        "main",
        main_params.clone(),
        vec![Type::Field, Type::U32, Type::Field],
        helper_sig,
    );
    g.body(14);
    let main = g.finish();
    let main_id = FuncId::new(funcs.len());
    funcs.push(main);
    let program = Program {
        funcs,
        main: main_id,
        files: Vec::new(),
    };
    if let Err(e) = crate::ir::verify::verify_program(&program) {
        panic!("bug: random program {seed} is invalid:\n{e}\n{program}");
    }
    let inputs = (0..3)
        .map(|_| {
            main_params
                .iter()
                .map(|t| random_input(&mut rng, t))
                .collect()
        })
        .collect();
    RandomProgram { program, inputs }
}

fn random_input(rng: &mut Rng, ty: &Type) -> Val {
    match ty {
        Type::Field => Val::Field(match rng.below(4) {
            0 => Fr::from(0u64),
            1 => -Fr::from(rng.below(5)),
            _ => Fr::from(rng.below(20)),
        }),
        Type::UInt(w) => {
            let v = match rng.below(5) {
                0 => 0,
                1 => u64::MAX,
                _ => rng.below(12),
            };
            Val::UInt(crate::ir::wrap(v, *w))
        }
        Type::Array(elem, n) => {
            Val::Array(Rc::new((0..*n).map(|_| random_input(rng, elem)).collect()))
        }
        Type::Ref(_) => panic!("bug: reference input"),
    }
}

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

const SCALARS: [Type; 4] = [Type::Field, Type::U32, Type::UInt(8), Type::BOOL];

struct Gen<'r> {
    rng: &'r mut Rng,
    func: Function,
    block: BlockId,
    /// Values usable at the current point, innermost region last.
    scopes: Vec<Vec<ValueId>>,
    depth: usize,
    budget: usize,
    helper: Option<(FuncId, Vec<Type>, Vec<Type>)>,
}

impl<'r> Gen<'r> {
    fn new(
        rng: &'r mut Rng,
        name: &str,
        params: Vec<Type>,
        returns: Vec<Type>,
        helper: Option<(FuncId, Vec<Type>, Vec<Type>)>,
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
            helper,
        }
    }

    fn finish(mut self) -> Function {
        let returns = self.func.returns.clone();
        let values = returns
            .iter()
            .enumerate()
            .map(|(k, t)| {
                // Observe memory: the last field result is read through a reference if any.
                if k == 2 {
                    if let Some(r) = self.existing(&Type::reference(Type::Field)) {
                        return self.inst(InstKind::Load { ptr: r });
                    }
                }
                self.pick(t)
            })
            .collect();
        self.terminate(Terminator::Return(values));
        self.func
    }

    // ---- building blocks ----

    fn inst(&mut self, kind: InstKind) -> ValueId {
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

    fn terminate(&mut self, term: Terminator) {
        self.func.block_mut(self.block).term = Some(term);
    }

    fn jmp(&mut self, block: BlockId, args: Vec<ValueId>) {
        self.terminate(Terminator::Jmp(BlockCall { block, args }));
    }

    fn visible(&self, ty: &Type) -> Vec<ValueId> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|v| self.func.value_type(*v) == ty)
            .collect()
    }

    fn existing(&mut self, ty: &Type) -> Option<ValueId> {
        let vals = self.visible(ty);
        if vals.is_empty() {
            None
        } else {
            Some(self.rng.pick(&vals))
        }
    }

    fn constant(&mut self, ty: &Type) -> ValueId {
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
    fn pick(&mut self, ty: &Type) -> ValueId {
        if ty.is_scalar() {
            if self.rng.percent(70) {
                if let Some(v) = self.existing(ty) {
                    return v;
                }
            }
            return self.constant(ty);
        }
        if let Some(v) = self.existing(ty) {
            if self.rng.percent(80) {
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
            Type::Ref(inner) => {
                let init = self.pick(inner);
                let r = self.inst(InstKind::Allocate {
                    ty: (**inner).clone(),
                });
                self.inst(InstKind::Store {
                    ptr: r,
                    value: init,
                });
                r
            }
            _ => unreachable!(),
        }
    }

    fn index(&mut self) -> ValueId {
        let i = self.pick(&Type::U32);
        if self.rng.percent(95) {
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

    fn body(&mut self, n: usize) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt();
        }
    }

    fn stmt(&mut self) {
        let control = self.depth < 2;
        match self.rng.below(if control { 21 } else { 17 }) {
            0..=3 => self.arith(),
            4 => self.compare(),
            5 => self.convert(),
            6 => self.array(),
            7 | 8 => self.local(),
            9 | 10 => self.store(),
            11 => self.load(),
            12 => self.ref_in_ref(),
            13 => self.array_of_refs(),
            14 => self.assert(),
            15 => self.call(),
            16 => self.stash(),
            17 | 18 => self.diamond(),
            _ => self.counted_loop(),
        }
    }

    fn arith(&mut self) {
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

    fn compare(&mut self) {
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

    fn convert(&mut self) {
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

    fn array(&mut self) {
        let ty = self
            .rng
            .pick(&[Type::array(Type::Field, 3), Type::array(Type::U32, 3)]);
        let array = self.pick(&ty);
        let index = self.index();
        if self.rng.percent(50) {
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

    fn ref_type(&mut self) -> Type {
        self.rng.pick(&[
            Type::reference(Type::Field),
            Type::reference(Type::Field),
            Type::reference(Type::U32),
            Type::reference(Type::array(Type::Field, 3)),
        ])
    }

    fn local(&mut self) {
        let ty = self.ref_type();
        let inner = ty.pointee().expect("bug: ref type").clone();
        let init = self.pick(&inner);
        let r = self.inst(InstKind::Allocate { ty: inner });
        self.inst(InstKind::Store {
            ptr: r,
            value: init,
        });
    }

    fn store(&mut self) {
        let ty = self.ref_type();
        let ptr = self.pick(&ty);
        let value = if ty == Type::reference(Type::array(Type::Field, 3)) && self.rng.percent(60) {
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
            if inner == Type::Field && self.rng.percent(50) {
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

    fn load(&mut self) {
        let ty = self.ref_type();
        let ptr = self.pick(&ty);
        self.inst(InstKind::Load { ptr });
    }

    /// `c: &&field` holding a reference; loads and stores through the loaded reference.
    fn ref_in_ref(&mut self) {
        let rr = Type::reference(Type::reference(Type::Field));
        let c = self.pick(&rr);
        if self.rng.percent(40) {
            let r = self.pick(&Type::reference(Type::Field));
            self.inst(InstKind::Store { ptr: c, value: r });
        }
        let inner = self.inst(InstKind::Load { ptr: c });
        if self.rng.percent(60) {
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
    /// cells).
    fn stash(&mut self) {
        let c = self.pick(&Type::reference(Type::reference(Type::Field)));
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
    fn array_of_refs(&mut self) {
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
        if self.rng.percent(60) {
            let v = self.pick(&Type::Field);
            self.inst(InstKind::Store { ptr: r, value: v });
        } else {
            self.inst(InstKind::Load { ptr: r });
        }
    }

    fn assert(&mut self) {
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

    fn call(&mut self) {
        let Some((f, params, returns)) = self.helper.clone() else {
            return self.arith();
        };
        let args = params.iter().map(|t| self.pick(t)).collect();
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

    /// `if c { .. } else { .. }` with a join block taking up to two parameters; sometimes the
    /// two sides pass the same reference.
    fn diamond(&mut self) {
        let cond = self.pick(&Type::BOOL);
        let mut join_types: Vec<Type> = (0..self.rng.below(3))
            .map(|_| self.rng.pick(&SCALARS[..3]))
            .collect();
        let shared_ref = if self.rng.percent(30) {
            let r = self.pick(&Type::reference(Type::Field));
            join_types.push(Type::reference(Type::Field));
            join_types.push(Type::reference(Type::Field));
            Some(r)
        } else {
            None
        };
        let then_block = self.func.create_block();
        let else_block = self.func.create_block();
        let join = self.func.create_block();
        self.terminate(Terminator::Br {
            cond,
            then_dest: BlockCall {
                block: then_block,
                args: vec![],
            },
            else_dest: BlockCall {
                block: else_block,
                args: vec![],
            },
        });
        for side in [then_block, else_block] {
            self.block = side;
            self.scopes.push(Vec::new());
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.body(n);
            self.depth -= 1;
            let mut args: Vec<ValueId> = join_types
                .iter()
                .filter(|t| t.is_scalar())
                .map(|t| self.pick(t))
                .collect();
            if let Some(r) = shared_ref {
                // Both parameters bound to one reference on this side: they alias.
                let other = if self.rng.percent(50) {
                    r
                } else {
                    self.pick(&Type::reference(Type::Field))
                };
                args.push(r);
                args.push(other);
            }
            self.scopes.pop();
            self.jmp(join, args);
        }
        self.block = join;
        let params: Vec<ValueId> = join_types
            .into_iter()
            .map(|t| self.func.append_block_param(join, t))
            .collect();
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .extend(params);
    }

    /// `for i in 0..bound`, the bound a constant or `n % 5` of a visible `u32`, with up to two
    /// loop-carried scalars.
    fn counted_loop(&mut self) {
        let bound = if self.rng.percent(50) {
            self.func.const_uint(32, self.rng.below(4))
        } else {
            let n = self.pick(&Type::U32);
            let five = self.func.const_uint(32, 5);
            self.inst(InstKind::Binary {
                op: BinOp::URem,
                lhs: n,
                rhs: five,
            })
        };
        let carried: Vec<Type> = (0..self.rng.below(3))
            .map(|_| {
                // A carried reference: iterations may read cells of earlier iterations.
                if self.rng.percent(25) {
                    Type::reference(Type::Field)
                } else {
                    self.rng.pick(&SCALARS[..3])
                }
            })
            .collect();
        let init: Vec<ValueId> = carried.iter().map(|t| self.pick(t)).collect();
        let header = self.func.create_block();
        let body = self.func.create_block();
        let exit = self.func.create_block();
        let zero = self.func.const_uint(32, 0);
        self.jmp(header, std::iter::once(zero).chain(init).collect());
        self.block = header;
        let i = self.func.append_block_param(header, Type::U32);
        let params: Vec<ValueId> = carried
            .iter()
            .map(|t| self.func.append_block_param(header, t.clone()))
            .collect();
        self.scopes.push(vec![i]);
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .extend(&params);
        let c = self.inst(InstKind::Binary {
            op: BinOp::Lt,
            lhs: i,
            rhs: bound,
        });
        self.terminate(Terminator::Br {
            cond: c,
            then_dest: BlockCall {
                block: body,
                args: vec![],
            },
            else_dest: BlockCall {
                block: exit,
                args: params.clone(),
            },
        });
        self.block = body;
        self.depth += 1;
        let n = 1 + self.rng.below(4) as usize;
        self.body(n);
        self.depth -= 1;
        let one = self.func.const_uint(32, 1);
        let next = self.inst(InstKind::Binary {
            op: BinOp::Add,
            lhs: i,
            rhs: one,
        });
        let updates: Vec<ValueId> = carried.iter().map(|t| self.pick(t)).collect();
        self.jmp(header, std::iter::once(next).chain(updates).collect());
        self.scopes.pop();
        self.block = exit;
        let results: Vec<ValueId> = carried
            .into_iter()
            .map(|t| self.func.append_block_param(exit, t))
            .collect();
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .extend(results);
    }
}
