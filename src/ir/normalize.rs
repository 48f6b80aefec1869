//! Id normalization: a copy of a program whose ids depend only on its structure, so that two
//! programs can be compared as text. Blocks are numbered in reverse post-order from the entry
//! (unreachable blocks follow in layout order), values in order of definition (block parameters,
//! then instruction results), and arenas hold only what the layout uses.

use crate::fxhash::HashMap;

use super::entities::{BlockId, InstId, ValueId};
use super::function::{BlockData, Function, ValueDef};
use super::instructions::BlockCall;
use super::Program;

/// The program with every function normalized.
pub fn normalize_program(program: &Program) -> Program {
    Program {
        funcs: program.funcs.iter().map(normalize_function).collect(),
        main: program.main,
        files: program.files.clone(),
        frames: program.frames.clone(),
    }
}

/// The function with normalized ids.
pub fn normalize_function(func: &Function) -> Function {
    let mut order = func.reverse_post_order();
    let reachable: crate::fxhash::HashSet<BlockId> = order.iter().copied().collect();
    order.extend(
        func.layout
            .iter()
            .copied()
            .filter(|b| !reachable.contains(b)),
    );

    let block_map: HashMap<BlockId, BlockId> = order
        .iter()
        .enumerate()
        .map(|(i, b)| (*b, BlockId::new(i)))
        .collect();

    // Number every defined value first, so uses before definitions (in broken programs) work.
    // The values are made in `out`, which interns their types in its own table.
    let mut out = Function::without_blocks(func.name.clone(), func.returns.clone());
    out.entry = block_map[&func.entry];
    out.layout = (0..order.len()).map(BlockId::new).collect();
    let mut value_map: HashMap<ValueId, ValueId> = HashMap::default();
    for (new_b, &b) in order.iter().enumerate() {
        let block = func.block(b);
        for (k, &p) in block.params.iter().enumerate() {
            let n = out.push_value(
                func.value_type(p).clone(),
                ValueDef::Param(BlockId::new(new_b), k as u32),
            );
            value_map.insert(p, n);
        }
        for &i in &block.insts {
            let new_i = InstId::new(out.insts.len());
            let data = func.inst(i);
            for (k, &r) in data.results.iter().enumerate() {
                let n = out.push_value(
                    func.value_type(r).clone(),
                    ValueDef::Result(new_i, k as u32),
                );
                value_map.insert(r, n);
            }
            out.insts.push(data.clone());
        }
    }

    // Operands: defined values map directly; constants get fresh ids after the defined ones;
    // a dangling id (only in broken programs) is kept as it is.
    let map = |v: ValueId, out: &mut Function| -> ValueId {
        if let Some(&n) = value_map.get(&v) {
            return n;
        }
        match func.values.get(v.index()) {
            Some(data) => match data.def {
                ValueDef::Const(c) => {
                    out.make_const(func.type_data(data.ty).clone(), func.const_of(c))
                }
                _ => v,
            },
            None => v,
        }
    };
    let mut next_inst = 0;
    for &b in &order {
        let block = func.block(b);
        let params = block.params.iter().map(|p| value_map[p]).collect();
        let mut inst_ids = Vec::new();
        for _ in &block.insts {
            let id = InstId::new(next_inst);
            next_inst += 1;
            let mut kind = out.insts[id.index()].kind.clone();
            kind.map_operands(|v| map(v, &mut out));
            let data = &mut out.insts[id.index()];
            data.kind = kind;
            data.results = data.results.iter().map(|r| value_map[r]).collect();
            inst_ids.push(id);
        }
        let term = block.term.clone().map(|mut t| {
            t.map_operands(|v| map(v, &mut out));
            for call in t.block_calls_mut() {
                let BlockCall { block, .. } = call;
                *block = block_map.get(block).copied().unwrap_or(*block);
            }
            t
        });
        out.blocks.push(BlockData {
            params,
            insts: inst_ids,
            term,
            term_loc: block.term_loc,
            split: block.split,
        });
    }
    out
}

/// Whether `a` and `b` are the same program up to the numbers of their values: the same
/// functions with the same blocks (by id, in layout order), parameters, instructions and
/// terminators, where the values of `a` correspond one to one with those of `b` (a value is
/// paired with the one at the same place in `b` where it is first met, and must be there at
/// every later place; constants pair only with equal constants). Source locations are not
/// compared. Two programs that are the same in this sense run the same way: a cache of
/// execution counts keyed by programs can answer one with the other's (a candidate program
/// reached by two orders of merging, whose copies number their values differently).
pub fn same_up_to_value_names(a: &Program, b: &Program) -> bool {
    a.main == b.main
        && a.funcs.len() == b.funcs.len()
        && a.funcs
            .iter()
            .zip(&b.funcs)
            .all(|(f, g)| same_function(f, g))
}

fn same_function(f: &Function, g: &Function) -> bool {
    if f.name != g.name || f.returns != g.returns || f.entry != g.entry || f.layout != g.layout {
        return false;
    }
    let mut pairs: HashMap<ValueId, ValueId> = HashMap::default();
    let mut taken: crate::fxhash::HashSet<ValueId> = crate::fxhash::HashSet::default();
    let mut pair = |x: ValueId, y: ValueId| -> bool {
        if let Some(&z) = pairs.get(&x) {
            return z == y;
        }
        let (Some(vx), Some(vy)) = (f.values.get(x.index()), g.values.get(y.index())) else {
            return false;
        };
        if f.type_data(vx.ty) != g.type_data(vy.ty)
            || f.const_value(x) != g.const_value(y)
            || !taken.insert(y)
        {
            return false;
        }
        pairs.insert(x, y);
        true
    };
    let mut pair_all = |xs: &[ValueId], ys: &[ValueId]| {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| pair(*x, *y))
    };
    for &block in &f.layout {
        let (p, q) = (f.block(block), g.block(block));
        if !pair_all(&p.params, &q.params) || p.insts.len() != q.insts.len() {
            return false;
        }
        for (&i, &j) in p.insts.iter().zip(&q.insts) {
            let (x, y) = (f.inst(i), g.inst(j));
            let (mut kx, mut ky) = (x.kind.clone(), y.kind.clone());
            kx.map_operands(|_| ValueId::new(0));
            ky.map_operands(|_| ValueId::new(0));
            if kx != ky
                || x.no_wrap() != y.no_wrap()
                || !pair_all(&x.kind.operands(), &y.kind.operands())
                || !pair_all(&x.results, &y.results)
            {
                return false;
            }
        }
        match (&p.term, &q.term) {
            (Some(s), Some(t)) => {
                let (mut sx, mut ty) = (s.clone(), t.clone());
                sx.map_operands(|_| ValueId::new(0));
                ty.map_operands(|_| ValueId::new(0));
                if sx != ty || !pair_all(&s.operands(), &t.operands()) {
                    return false;
                }
            }
            (None, None) => {}
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::same_up_to_value_names;
    use crate::ir::parse_program;

    fn program(text: &str) -> crate::ir::Program {
        parse_program(text).expect("parses")
    }

    #[test]
    fn programs_compare_up_to_their_value_numbers_only() {
        let a = "fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = mul v0, v1\n    v3 = add v2, u32 7\n    jmp b1(v3)\nb1(v4: u32):\n    return v4\n}";
        // The same with every value numbered differently.
        let renamed = "fn main f0 -> u32 {\nb0(v10: u32, v11: u32):\n    v12 = mul v10, v11\n    v30 = add v12, u32 7\n    jmp b1(v30)\nb1(v5: u32):\n    return v5\n}";
        assert!(same_up_to_value_names(&program(a), &program(renamed)));
        // Another constant, swapped operands, a parameter used twice where two were, another
        // block: each a different program.
        for other in [
            "fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = mul v0, v1\n    v3 = add v2, u32 8\n    jmp b1(v3)\nb1(v4: u32):\n    return v4\n}",
            "fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = mul v1, v0\n    v3 = add v2, u32 7\n    jmp b1(v3)\nb1(v4: u32):\n    return v4\n}",
            "fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = mul v0, v0\n    v3 = add v2, u32 7\n    jmp b1(v3)\nb1(v4: u32):\n    return v4\n}",
            "fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = mul v0, v1\n    v3 = add v2, u32 7\n    jmp b2(v3)\nb2(v4: u32):\n    return v4\n}",
        ] {
            assert!(!same_up_to_value_names(&program(a), &program(other)), "{other}");
        }
    }
}
