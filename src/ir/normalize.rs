//! Id normalization: a copy of a program whose ids depend only on its structure, so that two
//! programs can be compared as text. Blocks are numbered in reverse post-order from the entry
//! (unreachable blocks follow in layout order), values in order of definition (block parameters,
//! then instruction results), and arenas hold only what the layout uses.

use super::entities::{BlockId, InstId, ValueId};
use super::function::{BlockData, Function, InstData, Program, ValueData, ValueDef};
use super::instructions::BlockCall;
use std::collections::HashMap;

/// The program with every function normalized.
pub fn normalize_program(program: &Program) -> Program {
    Program {
        funcs: program.funcs.iter().map(normalize_function).collect(),
        main: program.main,
        files: program.files.clone(),
    }
}

/// The function with normalized ids.
pub fn normalize_function(func: &Function) -> Function {
    let mut order = func.reverse_post_order();
    let reachable: std::collections::HashSet<BlockId> = order.iter().copied().collect();
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
    let mut value_map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut values: Vec<ValueData> = Vec::new();
    let mut insts: Vec<InstData> = Vec::new();
    for (new_b, &b) in order.iter().enumerate() {
        let block = func.block(b);
        for (k, &p) in block.params.iter().enumerate() {
            value_map.insert(p, ValueId::new(values.len()));
            values.push(ValueData {
                ty: func.value_type(p).clone(),
                def: ValueDef::Param(BlockId::new(new_b), k),
            });
        }
        for &i in &block.insts {
            let new_i = InstId::new(insts.len());
            let data = func.inst(i);
            for (k, &r) in data.results.iter().enumerate() {
                value_map.insert(r, ValueId::new(values.len()));
                values.push(ValueData {
                    ty: func.value_type(r).clone(),
                    def: ValueDef::Result(new_i, k),
                });
            }
            insts.push(data.clone());
        }
    }

    let mut out = Function {
        name: func.name.clone(),
        returns: func.returns.clone(),
        entry: block_map[&func.entry],
        layout: (0..order.len()).map(BlockId::new).collect(),
        blocks: Vec::new(),
        insts,
        values,
    };
    // Operands: defined values map directly; constants get fresh ids after the defined ones;
    // a dangling id (only in broken programs) is kept as it is.
    let map = |v: ValueId, out: &mut Function| -> ValueId {
        if let Some(&n) = value_map.get(&v) {
            return n;
        }
        match func.values.get(v.index()) {
            Some(ValueData {
                ty,
                def: ValueDef::Const(c),
            }) => out.make_const(ty.clone(), *c),
            _ => v,
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
        });
    }
    out
}
