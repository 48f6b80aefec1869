//! Dropping the constants nothing uses from a function's value arena.
//!
//! Unrolling a loop folds its counter in every iteration: `i + 1` of iteration `k` is the
//! constant `k + 1`, a value of its own that the next iteration folds again and nothing else
//! reads. A loop of a million iterations leaves a million such values (32 bytes each, and more
//! in every pass that keeps something per value). [`drop_unused_constants`] removes them and
//! renumbers the values that stay, in their order.
//!
//! A constant is dropped only when no instruction of the arena and no block (laid out or not)
//! reads it, so every id left anywhere in the function stays valid.

use super::entities::ValueId;
use super::function::{ConstRef, Function, ValueDef};

/// No new id: the value is dropped.
const DROPPED: u32 = u32::MAX;

/// How many constants of `func` no instruction, block parameter list or terminator reads.
pub fn count_unused_constants(func: &Function) -> usize {
    let used = used_values(func);
    func.values
        .iter()
        .zip(&used)
        .filter(|(data, used)| matches!(data.def, ValueDef::Const(_)) && !**used)
        .count()
}

/// Removes the constants nothing reads and renumbers the other values (keeping their order),
/// and the field constants no kept value holds. Returns how many values were removed.
pub fn drop_unused_constants(func: &mut Function) -> usize {
    let used = used_values(func);
    let mut new_id = vec![DROPPED; func.values.len()];
    let mut kept = 0u32;
    for (i, data) in func.values.iter().enumerate() {
        if used[i] || !matches!(data.def, ValueDef::Const(_)) {
            new_id[i] = kept;
            kept += 1;
        }
    }
    let removed = func.values.len() - kept as usize;
    if removed == 0 {
        return 0;
    }
    drop(used);
    // A fresh arena of the exact size, so that the memory of the old one is returned.
    let mut values = Vec::with_capacity(kept as usize);
    values.extend(
        func.values
            .iter()
            .zip(&new_id)
            .filter(|(_, n)| **n != DROPPED)
            .map(|(data, _)| data.clone()),
    );
    func.values = values;
    drop_unused_field_consts(func);
    let map = |v: ValueId| {
        let n = new_id[v.index()];
        debug_assert_ne!(n, DROPPED, "bug: a dropped constant is read");
        ValueId::new(n as usize)
    };
    for data in &mut func.insts {
        data.kind.map_operands(map);
        data.results.iter_mut().for_each(|v| *v = map(*v));
    }
    for block in &mut func.blocks {
        block.params.iter_mut().for_each(|v| *v = map(*v));
        if let Some(term) = block.term.as_mut() {
            term.map_operands(map);
        }
    }
    removed
}

/// Which values an instruction of the arena, a block's parameter list or a block's terminator
/// mentions.
fn used_values(func: &Function) -> Vec<bool> {
    let mut used = vec![false; func.values.len()];
    for data in &func.insts {
        data.kind.for_each_operand(|v| used[v.index()] = true);
    }
    for block in &func.blocks {
        if let Some(term) = &block.term {
            for v in term.operands() {
                used[v.index()] = true;
            }
        }
    }
    used
}

/// Compacts [`Function::field_consts`] to the entries the values still hold.
fn drop_unused_field_consts(func: &mut Function) {
    let mut new_index = vec![DROPPED; func.field_consts.len()];
    let mut kept = Vec::new();
    for data in &mut func.values {
        if let ValueDef::Const(ConstRef::Field(k)) = &mut data.def {
            let slot = &mut new_index[*k as usize];
            if *slot == DROPPED {
                *slot = kept.len() as u32;
                kept.push(func.field_consts[*k as usize]);
            }
            *k = *slot;
        }
    }
    if kept.len() < func.field_consts.len() {
        func.field_consts = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::interp::{run, Limits, Val};
    use crate::ir::{parse_program, verify::verify_program, Program};

    fn outputs(program: &Program) -> Vec<Val> {
        let inputs = [Val::Field(2u64.into()), Val::UInt(4)];
        run(program, &inputs, Limits::default())
            .expect("runs")
            .outputs
    }

    const PROGRAM: &str = "\
fn main f0 -> field {
b0(v0: field, v1: u32):
    v2 = add v0, field 3
    v3 = lt v1, u32 10
    v4 = add v2, field 3
    jmp b1(v4)
b1(v5: field):
    v6 = mul v5, v5
    return v6
}
";

    #[test]
    fn drops_only_unread_constants_and_keeps_behaviour() {
        let mut program = parse_program(PROGRAM).expect("parses");
        let func = program.func_mut(program.main);
        // Constants nobody reads.
        let dead_uint = func.const_uint(32, 7);
        let dead_field = func.const_field(crate::field::Fr::from(11u64));
        let before = outputs(&program);
        let func = program.func_mut(program.main);
        assert!(dead_uint.index() < func.values.len() && dead_field.index() < func.values.len());
        let n_values = func.values.len();
        assert_eq!(count_unused_constants(func), 2);
        assert_eq!(drop_unused_constants(func), 2);
        assert_eq!(func.values.len(), n_values - 2);
        assert_eq!(count_unused_constants(func), 0);
        // The constants read (field 3 twice or once, u32 10) are still there, and the field
        // table holds only what the kept values refer to.
        for data in &func.values {
            if let ValueDef::Const(ConstRef::Field(k)) = data.def {
                assert!((k as usize) < func.field_consts.len());
            }
        }
        verify_program(&program).expect("still valid");
        assert_eq!(outputs(&program), before);
        // Nothing more to drop: the program prints the same after a second pass.
        let printed = program.to_string();
        assert_eq!(drop_unused_constants(program.func_mut(program.main)), 0);
        assert_eq!(program.to_string(), printed);
    }
}
