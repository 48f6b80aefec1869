//! Dropping the constants nothing uses from a function's value arena.
//!
//! Unrolling a loop folds its counter in every iteration: `i + 1` of iteration `k` is the
//! constant `k + 1`, a value of its own that the next iteration folds again and nothing else
//! reads. A loop of a million iterations leaves a million such values (16 bytes each, and more
//! in every pass that keeps something per value). [`drop_unused_constants`] removes them and
//! renumbers the values that stay, in their order.
//!
//! A constant is dropped only when no instruction of the arena and no block (laid out or not)
//! reads it, so every id left anywhere in the function stays valid. The function's table of types
//! is not changed: the values that stay keep their type ids.

use super::entities::ValueId;
use super::function::{ConstRef, Function, ValueDef};

/// No new id: the value is dropped.
const DROPPED: u32 = u32::MAX;

/// Removes the constants nothing reads and renumbers the other values (keeping their order),
/// and the field and wide integer constants no kept value holds. Returns how many values were
/// removed.
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
    // A fresh arena, so that the memory of the old one is returned.
    func.values = func
        .values
        .iter()
        .zip(&new_id)
        .filter(|(_, n)| **n != DROPPED)
        .map(|(data, _)| *data)
        .collect();
    drop_unused_table_consts(func);
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

/// Compacts [`Function::field_consts`] and [`Function::uint_consts`] to the entries the values
/// still hold.
fn drop_unused_table_consts(func: &mut Function) {
    let mut new_field = vec![DROPPED; func.field_consts.len()];
    let mut new_uint = vec![DROPPED; func.uint_consts.len()];
    let mut kept_field = Vec::new();
    let mut kept_uint = Vec::new();
    for data in &mut func.values {
        match &mut data.def {
            ValueDef::Const(ConstRef::Field(k)) => {
                *k = keep(&mut new_field, &mut kept_field, &func.field_consts, *k);
            }
            ValueDef::Const(ConstRef::Wide(k)) => {
                *k = keep(&mut new_uint, &mut kept_uint, &func.uint_consts, *k);
            }
            _ => {}
        }
    }
    if kept_field.len() < func.field_consts.len() {
        func.field_consts = kept_field;
    }
    if kept_uint.len() < func.uint_consts.len() {
        func.uint_consts = kept_uint;
    }
}

/// The new index of entry `k` of `table`, copied into `kept` the first time it is met.
fn keep<T: Copy>(new_index: &mut [u32], kept: &mut Vec<T>, table: &[T], k: u32) -> u32 {
    let slot = &mut new_index[k as usize];
    if *slot == DROPPED {
        *slot = kept.len() as u32;
        kept.push(table[k as usize]);
    }
    *slot
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

    /// How many constants of `func` no instruction, block parameter list or terminator reads.
    fn count_unused_constants(func: &Function) -> usize {
        let used = used_values(func);
        func.values
            .iter()
            .zip(&used)
            .filter(|(data, used)| matches!(data.def, ValueDef::Const(_)) && !**used)
            .count()
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
        let dead_wide = func.const_uint(64, 1 << 40);
        let before = outputs(&program);
        let func = program.func_mut(program.main);
        assert!(dead_uint.index() < func.values.len() && dead_field.index() < func.values.len());
        assert!(matches!(
            func.value(dead_wide).def,
            ValueDef::Const(ConstRef::Wide(_))
        ));
        assert_eq!(func.uint_consts.len(), 1);
        let n_values = func.values.len();
        assert_eq!(count_unused_constants(func), 3);
        assert_eq!(drop_unused_constants(func), 3);
        assert_eq!(func.values.len(), n_values - 3);
        assert!(func.uint_consts.is_empty());
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

    #[test]
    fn renumbers_the_wide_integers_that_stay() {
        use crate::ir::{BinOp, Const, InstKind, Type};
        let mut func = Function::new("f", vec![]);
        let dead = func.const_uint(64, 1 << 40);
        let small = func.const_uint(64, 3);
        let wide = func.const_uint(64, (1 << 41) + 5);
        assert!(matches!(
            func.value(small).def,
            ValueDef::Const(ConstRef::Small(3))
        ));
        assert!(matches!(
            func.value(wide).def,
            ValueDef::Const(ConstRef::Wide(1))
        ));
        // An instruction of the arena (not laid out) reads `small` and `wide`.
        let kind = InstKind::Binary {
            op: BinOp::Add,
            lhs: wide,
            rhs: small,
        };
        let inst = func.create_inst(kind, &[], None);
        assert_eq!(func.value_type(func.inst(inst).results[0]), &Type::UInt(64));
        assert_eq!(drop_unused_constants(&mut func), 1);
        assert!(dead.index() < func.values.len());
        assert_eq!(func.uint_consts, vec![(1 << 41) + 5]);
        let InstKind::Binary { lhs, rhs, .. } = func.inst(inst).kind else {
            panic!("still a binary operation")
        };
        assert_eq!(func.const_value(lhs), Some(Const::UInt((1 << 41) + 5)));
        assert_eq!(func.const_value(rhs), Some(Const::UInt(3)));
        assert_eq!(func.value_type(lhs), &Type::UInt(64));
    }
}
