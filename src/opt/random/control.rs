//! Control flow of a generated function: `if`/`else` diamonds and counted loops.

use super::gen::{Gen, SCALARS};
use crate::ir::{BinOp, BlockCall, InstKind, Terminator, Type, ValueId};

impl Gen<'_> {
    /// `if c { .. } else { .. }` with a join block taking up to two parameters; sometimes the
    /// two sides pass the same reference.
    pub(super) fn diamond(&mut self) {
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
    pub(super) fn counted_loop(&mut self) {
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
