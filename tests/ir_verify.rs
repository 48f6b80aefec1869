//! The verifier rejects each kind of broken program with a message naming the place. The
//! programs that can be written as text are files, `tests/verify/*.ir` (run by
//! `tests/filetests.rs`); here are the ones only a tampered `Program` value shows (a definition
//! recorded twice, an operand outside the arena, ...) and the random-CFG property test.

use zkbc::ir::{self, verify, BlockId, Function, Program, Terminator, Type};

fn violations(program: &Program) -> Vec<String> {
    match verify::verify_program(program) {
        Ok(()) => Vec::new(),
        Err(e) => e.0.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn jump_outside_the_function() {
    let mut program = ir::parse_program("fn main f0 {\nb0():\n    return\n}\n").unwrap();
    let f = &mut program.funcs[0];
    f.blocks[0].term = Some(Terminator::Jmp(ir::BlockCall {
        block: BlockId(5),
        args: vec![],
    }));
    assert_eq!(
        violations(&program),
        ["fn main, b0: jump to b5, which is not a block of the function"]
    );
}

#[test]
fn value_defined_twice_and_instruction_laid_out_twice() {
    let mut program = ir::parse_program(
        "fn main f0 {\nb0():\n    v0 = add u8 1, u8 2\n    jmp b1()\nb1():\n    return\n}\n",
    )
    .unwrap();
    let f = &mut program.funcs[0];
    let inst = f.blocks[0].insts[0];
    f.blocks[1].insts.push(inst);
    assert_eq!(
        violations(&program),
        [
            "fn main, b1, inst 0: instruction i0 is laid out twice",
            "fn main, b1, inst 0: value v0 is defined more than once",
        ]
    );
}

#[test]
fn recorded_definition_disagrees() {
    let mut program =
        ir::parse_program("fn main f0 {\nb0(v0: u8, v1: u8):\n    return\n}\n").unwrap();
    let f = &mut program.funcs[0];
    f.blocks[0].params.swap(0, 1);
    assert_eq!(
        violations(&program),
        [
            "fn main, b0: parameter v1 records definition Param(BlockId(0), 1), not parameter 0 of b0",
            "fn main, b0: parameter v0 records definition Param(BlockId(0), 0), not parameter 1 of b0",
        ]
    );
}

#[test]
fn entry_not_laid_out() {
    let mut f = Function::new("main", vec![]);
    f.layout.clear();
    let program = Program {
        funcs: vec![f],
        main: ir::FuncId(0),
        files: Vec::new(),
        frames: Default::default(),
    };
    assert_eq!(
        violations(&program),
        ["fn main: entry block b0 is not laid out"]
    );
}

#[test]
fn operand_outside_the_arena() {
    let mut program =
        ir::parse_program("fn main f0 -> field {\nb0(v0: field):\n    return v0\n}\n").unwrap();
    let f = &mut program.funcs[0];
    f.blocks[0].term = Some(Terminator::Return(vec![ir::ValueId(99)]));
    assert_eq!(
        violations(&program),
        ["fn main, b0: use of v99, which is not in the value arena"]
    );
}

#[test]
fn result_type_disagrees_with_the_instruction() {
    let mut program = ir::parse_program(
        "fn main f0 -> field {\nb0(v0: field):\n    v1 = add v0, v0\n    return v0\n}\n",
    )
    .unwrap();
    program.funcs[0].set_value_type(ir::ValueId(1), Type::U32);
    assert_eq!(
        violations(&program),
        ["fn main, b0, inst 0: `add` defines (field), but its results have types (u32)"]
    );
}

/// The verifier's own dominance (`ir::dom`) against the definition: on random CFGs, a use in
/// block `b` of the parameter of block `a` is reported as not dominated exactly when some path
/// from the entry reaches `b` avoiding `a`.
#[test]
fn dominance_violations_match_the_definition_on_random_cfgs() {
    use zkbc::ir::InstKind;
    use zkbc_testkit::random_cfg::{random_cfg, remove_unreachable, CfgConfig};
    use zkbc_testkit::reference::RefCfg;
    let (mut n_dominated, mut n_not) = (0, 0);
    for seed in 0..300 {
        let mut func = random_cfg(seed, &CfgConfig::default());
        remove_unreachable(&mut func);
        verify::verify_function(&func, None)
            .unwrap_or_else(|e| panic!("seed {seed}: the random CFG is invalid:\n{e}"));
        let reference = RefCfg::new(&func);
        for &a in &func.layout {
            let param = func.block(a).params[0];
            for &b in &func.layout {
                let mut with_use = func.clone();
                let inst = with_use.create_inst(InstKind::Not { arg: param }, &[], None);
                with_use.append_inst(b, inst);
                let violations = match verify::verify_function(&with_use, None) {
                    Ok(()) => Vec::new(),
                    Err(e) => e.0,
                };
                let reported = violations
                    .iter()
                    .any(|v| v.message.contains("is not dominated by its definition"));
                let dominates = reference.dominates(a, b);
                assert_eq!(reported, !dominates, "seed {seed}: {a} dom {b}");
                assert_eq!(violations.len(), usize::from(!dominates), "{violations:?}");
                if dominates {
                    n_dominated += 1;
                } else {
                    n_not += 1;
                }
            }
        }
    }
    // Both outcomes occur often.
    assert!(n_dominated > 1000 && n_not > 1000, "{n_dominated} {n_not}");
}
