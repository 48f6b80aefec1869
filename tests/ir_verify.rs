//! The verifier rejects each kind of broken program with a message naming the place.

use zkbc::ir::{self, verify, BlockId, Function, Program, Terminator, Type};

fn violations(program: &Program) -> Vec<String> {
    match verify::verify_program(program) {
        Ok(()) => Vec::new(),
        Err(e) => e.0.iter().map(ToString::to_string).collect(),
    }
}

/// Parses `text` and asserts the verifier reports exactly `expected`.
fn check(text: &str, expected: &[&str]) {
    let program = ir::parse_program(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(violations(&program), expected, "for:\n{text}");
}

#[test]
fn missing_terminator() {
    check(
        "fn main f0 {\nb0():\n    jmp b1()\nb1():\n    v0 = add u8 1, u8 2\nb2():\n    return\n}\n",
        &[
            "fn main, b1: block b1 has no terminator",
            "fn main, b2: block b2 is unreachable from the entry",
        ],
    );
}

#[test]
fn jump_argument_count() {
    check(
        "fn main f0 {\nb0():\n    jmp b1(u8 1)\nb1():\n    return\n}\n",
        &["fn main, b0: jump to b1 passes 1 argument(s), but it has 0 parameter(s)"],
    );
}

#[test]
fn jump_argument_type() {
    check(
        "fn main f0 {\nb0():\n    jmp b1(u8 1)\nb1(v0: field):\n    return\n}\n",
        &["fn main, b0: argument 0 of the jump to b1 has type u8, but parameter v0 has type field"],
    );
}

#[test]
fn jump_to_entry() {
    check(
        "fn main f0 {\nb0():\n    jmp b0()\n}\n",
        &["fn main, b0: jump to the entry block b0"],
    );
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
fn unreachable_block() {
    check(
        "fn main f0 {\nb0():\n    return\nb1():\n    return\n}\n",
        &["fn main, b1: block b1 is unreachable from the entry"],
    );
}

#[test]
fn use_not_dominated_by_definition() {
    // v1 is defined on one arm of the branch and used after the join.
    check(
        "fn main f0 -> field {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    v1 = add field 1, field 2
    jmp b2()
b2():
    return v1
}
",
        &["fn main, b2: use of v1 in the terminator is not dominated by its definition (b1, inst 0)"],
    );
}

#[test]
fn use_before_definition_in_a_block() {
    check(
        "fn main f0 -> field {
b0():
    v1 = add v2, field 1
    v2 = add field 1, field 2
    return v1
}
",
        &["fn main, b0, inst 0: use of v2 is not dominated by its definition (b0, inst 1)"],
    );
}

#[test]
fn parameter_used_outside_its_dominance() {
    check(
        "fn main f0 -> field {
b0(v0: u1):
    br v0, b1(field 1), b2()
b1(v1: field):
    jmp b2()
b2():
    return v1
}
",
        &["fn main, b2: use of v1 in the terminator is not dominated by its definition (a parameter of b1)"],
    );
}

#[test]
fn operand_types() {
    check(
        "fn main f0 {
b0(v0: field, v1: u32, v2: &field, v3: [u8; 2]):
    v4 = add v0, v1
    v5 = udiv v0, v0
    v6 = div v1, v1
    assert v1
    v7 = load v0
    store v1 at v2
    v8 = array_get v0, u32 0
    v9 = array_get v3, field 0
    v10 = make_array [v0, v1] : field
    v11 = select v0, v0, v0
    v12 = select u1 1, v0, v1
    v13 = not v0
    v14 = shl v0, u32 1
    v15 = from_bits v3 to u8
    v16 = array_set v3, u32 0, v0
    br v0, b1(), b1()
b1():
    return
}
",
        &[
            "fn main, b0, inst 0: `add` operands have different types field and u32",
            "fn main, b0, inst 1: `udiv` is not defined on field",
            "fn main, b0, inst 2: `div` is not defined on u32",
            "fn main, b0, inst 3: `assert` condition has type u32, not u1",
            "fn main, b0, inst 4: `load` from field, which is not a reference",
            "fn main, b0, inst 5: `store` of a u32 into a &field",
            "fn main, b0, inst 6: `array_get` on field, which is not an array",
            "fn main, b0, inst 7: array index has type field, not uN",
            "fn main, b0, inst 8: `make_array` element 1 has type u32, not field",
            "fn main, b0, inst 9: `select` condition has type field, not u1",
            "fn main, b0, inst 10: `select` arms have different types field and u32",
            "fn main, b0, inst 11: `not` needs a uN value, found field",
            "fn main, b0, inst 12: `shl` needs a uN value, found field",
            "fn main, b0, inst 13: `from_bits` to u8 needs [u1; 8], found [u8; 2]",
            "fn main, b0, inst 14: `array_set` of a field into [u8; 2]",
            "fn main, b0: `br` condition has type field, not u1",
        ],
    );
}

#[test]
fn return_types() {
    check(
        "fn main f0 -> field {\nb0():\n    return u8 1, u8 2\n}\n",
        &["fn main, b0: `return` of (u8, u8) in a function returning (field)"],
    );
}

#[test]
fn call_signature() {
    check(
        "fn main f0 {
b0():
    v0 = call f1(u8 1)
    return
}

fn g f1 -> field {
b0(v0: field):
    return v0
}
",
        &["fn main, b0, inst 0: call of f1 (field) with arguments of types (u8)"],
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

#[test]
fn hint_signature() {
    check(
        "fn main f0 {
b0(v0: u8):
    v1 = hint f1(v0)
    return
}

fn inverse f1 -> field {
b0(v0: field):
    return v0
}
",
        &["fn main, b0, inst 0: hint of f1 (field) with arguments of types (u8)"],
    );
}

#[test]
fn guard_of_a_hint_or_log_is_not_u1() {
    check(
        r#"fn main f0 {
b0(v0: field, v1: u8):
    v2 = hint f1(v0) if v1
    log "{}", v0 if v0
    return
}

fn square f1 -> field {
b0(v0: field):
    v1 = mul v0, v0
    return v1
}
"#,
        &[
            "fn main, b0, inst 0: `hint` guard has type u8, not u1",
            "fn main, b0, inst 1: `log` guard has type field, not u1",
        ],
    );
}

#[test]
fn bound_of_a_non_field() {
    check(
        "fn main f0 {
b0(v0: u8):
    v1 = bound v0, 252
    return
}
",
        &["fn main, b0, inst 0: `bound` of u8, not a field element"],
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
