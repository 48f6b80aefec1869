//! Control flow of a generated function: `if`/`else` diamonds, counted loops (reducible) and
//! two-entry cycles (irreducible).

use super::gen::{Gen, SCALARS};
use zkbc::ir::{BinOp, BlockCall, InstKind, Terminator, Type, ValueId};

impl Gen<'_> {
    /// `if c { .. } else { .. }` with a join block taking up to two parameters; sometimes the
    /// two sides pass the same reference (never in a promotable program); sometimes the else
    /// side returns instead.
    pub(super) fn diamond(&mut self) {
        let cond = self.pick(&Type::BOOL);
        let mut join_types: Vec<Type> = (0..self.rng.below(3))
            .map(|_| self.rng.pick(&SCALARS[..3]))
            .collect();
        // (mem2reg never promotes a reference passed to a block: none in a promotable program)
        let shared_ref = if !self.promotable && self.rng.chance(30) {
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
        // Sometimes the else side returns early (never both: the join would be unreachable).
        let early_return = self.rng.chance(10);
        for side in [then_block, else_block] {
            self.block = side;
            self.scopes.push(Vec::new());
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.body(n);
            self.depth -= 1;
            if early_return && side == else_block {
                let values = self.return_values();
                self.terminate(Terminator::Return(values));
                self.scopes.pop();
                continue;
            }
            let mut args: Vec<ValueId> = join_types
                .iter()
                .filter(|t| t.is_scalar())
                .map(|t| self.pick(t))
                .collect();
            if let Some(r) = shared_ref {
                // Both parameters bound to one reference on this side: they alias.
                let other = if self.rng.chance(50) {
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
    /// loop-carried scalars or references (scalars only in a promotable program), and sometimes
    /// a `break` from the body.
    pub(super) fn counted_loop(&mut self) {
        let bound = if self.rng.chance(50) {
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
                if !self.promotable && self.rng.chance(25) {
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
        self.loops += 1;
        let n = 1 + self.rng.below(4) as usize;
        self.body(n);
        if self.rng.chance(30) {
            // `if b { break }`: a second exit, from the body, binding the exit's parameters
            // to values of this iteration; more statements before the latch.
            let b = self.pick(&Type::BOOL);
            let out: Vec<ValueId> = carried.iter().map(|t| self.pick(t)).collect();
            let latch = self.func.create_block();
            self.terminate(Terminator::Br {
                cond: b,
                then_dest: BlockCall {
                    block: exit,
                    args: out,
                },
                else_dest: BlockCall {
                    block: latch,
                    args: vec![],
                },
            });
            self.block = latch;
            let n = self.rng.below(3) as usize;
            self.body(n);
        }
        self.depth -= 1;
        self.loops -= 1;
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

    /// An irreducible loop: blocks `a` and `b` jump to each other and the current block enters
    /// the cycle at either, so neither dominates the other. A counter passed around the cycle
    /// leaves it (from either block, to one exit block) once it reaches a bound below 6; up to
    /// two scalars or references (scalars only in a promotable program) are carried around the
    /// cycle and out of it.
    ///
    /// ```text
    /// br c, a(0, x..), b(0, x..)
    /// a(i, ..): body; br i < n, b(i + 1, ..), exit(..)
    /// b(i, ..): body; br i < n, a(i + 1, ..), exit(..)
    /// ```
    pub(super) fn irreducible_loop(&mut self) {
        let bound = if self.rng.chance(50) {
            self.func.const_uint(32, self.rng.below(4))
        } else {
            let n = self.pick(&Type::U32);
            let six = self.func.const_uint(32, 6);
            self.inst(InstKind::Binary {
                op: BinOp::URem,
                lhs: n,
                rhs: six,
            })
        };
        let carried: Vec<Type> = (0..self.rng.below(3))
            .map(|_| {
                if !self.promotable && self.rng.chance(25) {
                    Type::reference(Type::Field)
                } else {
                    self.rng.pick(&SCALARS[..3])
                }
            })
            .collect();
        let entry_cond = self.pick(&Type::BOOL);
        let zero = self.func.const_uint(32, 0);
        let init: Vec<ValueId> = std::iter::once(zero)
            .chain(carried.iter().map(|t| self.pick(t)).collect::<Vec<_>>())
            .collect();
        let a = self.func.create_block();
        let b = self.func.create_block();
        let exit = self.func.create_block();
        self.terminate(Terminator::Br {
            cond: entry_cond,
            then_dest: BlockCall {
                block: a,
                args: init.clone(),
            },
            else_dest: BlockCall {
                block: b,
                args: init,
            },
        });
        for (this, other) in [(a, b), (b, a)] {
            self.block = this;
            let i = self.func.append_block_param(this, Type::U32);
            let params: Vec<ValueId> = carried
                .iter()
                .map(|t| self.func.append_block_param(this, t.clone()))
                .collect();
            self.scopes.push(std::iter::once(i).chain(params).collect());
            self.depth += 1;
            self.loops += 1;
            let n = self.rng.below(4) as usize;
            self.body(n);
            self.depth -= 1;
            self.loops -= 1;
            let one = self.func.const_uint(32, 1);
            let next = self.inst(InstKind::Binary {
                op: BinOp::Add,
                lhs: i,
                rhs: one,
            });
            let more = self.inst(InstKind::Binary {
                op: BinOp::Lt,
                lhs: i,
                rhs: bound,
            });
            let around: Vec<ValueId> = std::iter::once(next)
                .chain(carried.iter().map(|t| self.pick(t)).collect::<Vec<_>>())
                .collect();
            let out: Vec<ValueId> = carried.iter().map(|t| self.pick(t)).collect();
            self.terminate(Terminator::Br {
                cond: more,
                then_dest: BlockCall {
                    block: other,
                    args: around,
                },
                else_dest: BlockCall {
                    block: exit,
                    args: out,
                },
            });
            self.scopes.pop();
        }
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
