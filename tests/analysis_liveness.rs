//! Live-in and live-out sets on hand-written IR, each also checked against the path definition
//! of liveness.

use expect_test::{expect, Expect};
use zkbc::analysis::Liveness;
use zkbc::ir::{parse_program, BlockId, Function, ValueDef, ValueId};
use zkbc_testkit::reference::{reachable, RefCfg};

/// Prints the parsed program (its ids are the ones the sets use) followed by the sets.
fn check(text: &str, expected: Expect) {
    let program = parse_program(text).expect("test program parses");
    let func = program.main_func();
    let live = Liveness::new(func);
    check_definition(func, &live);
    expected.assert_eq(&format!("{program}--\n{}", live.display(func)));
}

/// `v` is live-in at `b` iff `b` does not define `v` and some block `u` that reads `v` before
/// defining anything called `v` is reachable from `b` without passing through `v`'s defining
/// block (SSA: passing it would redefine `v`).
fn check_definition(func: &Function, live: &Liveness) {
    let reference = RefCfg::new(func);
    let def_block = |v: ValueId| -> Option<BlockId> {
        match func.value(v).def {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i, _) => func.inst_blocks().get(&i).copied(),
            ValueDef::Const(_) => None,
        }
    };
    let reads = |u: BlockId, v: ValueId| {
        let data = func.block(u);
        data.insts
            .iter()
            .any(|i| func.inst(*i).kind.operands().contains(&v))
            || data
                .term
                .as_ref()
                .is_some_and(|t| t.operands().contains(&v))
    };
    for (index, data) in func.values.iter().enumerate() {
        let v = ValueId::new(index);
        if matches!(data.def, ValueDef::Const(_)) {
            continue;
        }
        let d = def_block(v).expect("non-constant values are laid out");
        for &b in &func.layout {
            let from_b = reachable(
                &reference.graph,
                reference.node[&b],
                (b != d).then(|| reference.node[&d]),
                None,
            );
            let want_in = b != d
                && func
                    .layout
                    .iter()
                    .any(|&u| reads(u, v) && u != d && from_b[reference.node[&u]]);
            assert_eq!(live.live_in(b).contains(&v), want_in, "{v} live-in at {b}");
            let want_out = reference
                .successors(b)
                .iter()
                .any(|s| live.live_in(*s).contains(&v));
            assert_eq!(
                live.live_out(b).contains(&v),
                want_out,
                "{v} live-out at {b}"
            );
        }
    }
}

#[test]
fn loop_carried_values_are_block_parameters() {
    // v0 and v1 are live around the loop; v2 and v3 are parameters of b1, so they are live-out of
    // b2 only through the jump's arguments v5 and v6, which b2 defines.
    check(
        "
fn main f0 -> field {
b0(v0: field, v1: u32):
    jmp b1(field 0, u32 0)
b1(v2: field, v3: u32):
    v4 = lt v3, v1
    br v4, b2(), b3()
b2():
    v5 = add v2, v0
    v6 = add v3, u32 1
    jmp b1(v5, v6)
b3():
    return v2
}
",
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u32):
                jmp b1(field 0, u32 0)
            b1(v2: field, v3: u32):
                v4 = lt v3, v1
                br v4, b2(), b3()
            b2():
                v5 = add v2, v0
                v6 = add v3, u32 1
                jmp b1(v5, v6)
            b3():
                return v2
            }
            --
            b0: in {} out {v0, v1}
            b1: in {v0, v1} out {v0, v1, v2, v3}
            b2: in {v0, v1, v2, v3} out {v0, v1}
            b3: in {v2} out {}
        "#]],
    );
}

#[test]
fn value_used_on_one_arm_is_live_only_there() {
    check(
        "
fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = mul v0, v0
    br v1, b1(), b2(v0)
b1():
    v3 = add v2, field 1
    jmp b3(v3)
b2(v4: field):
    jmp b3(v4)
b3(v5: field):
    return v5
}
",
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u1):
                v2 = mul v0, v0
                br v1, b1(), b2(v0)
            b1():
                v3 = add v2, field 1
                jmp b3(v3)
            b2(v4: field):
                jmp b3(v4)
            b3(v5: field):
                return v5
            }
            --
            b0: in {} out {v2}
            b1: in {v2} out {}
            b2: in {} out {}
            b3: in {} out {}
        "#]],
    );
}

#[test]
fn value_defined_before_nested_loops_and_used_after_is_live_throughout() {
    check(
        "
fn main f0 -> u32 {
b0(v0: u32, v1: u32):
    v2 = mul v1, u32 2
    jmp b1(u32 0)
b1(v3: u32):
    v4 = lt v3, v0
    br v4, b2(u32 0), b5()
b2(v5: u32):
    v6 = lt v5, v3
    br v6, b3(), b4()
b3():
    v7 = add v5, u32 1
    jmp b2(v7)
b4():
    v8 = add v3, u32 1
    jmp b1(v8)
b5():
    v9 = add v2, v3
    return v9
}
",
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32, v1: u32):
                v2 = mul v1, u32 2
                jmp b1(u32 0)
            b1(v3: u32):
                v4 = lt v3, v0
                br v4, b2(u32 0), b5()
            b2(v5: u32):
                v6 = lt v5, v3
                br v6, b3(), b4()
            b3():
                v7 = add v5, u32 1
                jmp b2(v7)
            b4():
                v8 = add v3, u32 1
                jmp b1(v8)
            b5():
                v9 = add v2, v3
                return v9
            }
            --
            b0: in {} out {v0, v2}
            b1: in {v0, v2} out {v0, v2, v3}
            b2: in {v0, v2, v3} out {v0, v2, v3, v5}
            b3: in {v0, v2, v3, v5} out {v0, v2, v3}
            b4: in {v0, v2, v3} out {v0, v2}
            b5: in {v2, v3} out {}
        "#]],
    );
}

#[test]
fn early_return_and_assert_uses() {
    // v1 is used by the assert in b2 and by the return in b3; b1 returns early and needs nothing.
    check(
        "
fn main f0 -> u1 {
b0(v0: u1, v1: u1):
    br v0, b1(), b2()
b1():
    return u1 0
b2():
    assert v1
    v2 = not v1
    jmp b3()
b3():
    v3 = and v1, v2
    return v3
}
",
        expect![[r#"
            fn main f0 -> u1 {
            b0(v0: u1, v1: u1):
                br v0, b1(), b2()
            b1():
                return u1 0
            b2():
                assert v1
                v2 = not v1
                jmp b3()
            b3():
                v3 = and v1, v2
                return v3
            }
            --
            b0: in {} out {v1}
            b1: in {} out {}
            b2: in {v1} out {v1, v2}
            b3: in {v1, v2} out {}
        "#]],
    );
}
