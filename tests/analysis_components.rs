//! Merge components against a search over every candidate tail, on random structured CFGs and
//! on small programs.

use expect_test::{expect, Expect};
use zkbc::analysis::MergeComponents;
use zkbc::fxhash::HashSet;
use zkbc::ir::{parse_program, BlockId, Function, InstKind};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};
use zkbc_testkit::reference::RefCfg;

fn calls(func: &Function) -> HashSet<BlockId> {
    func.layout
        .iter()
        .copied()
        .filter(|b| {
            func.block(*b)
                .insts
                .iter()
                .any(|i| matches!(func.inst(*i).kind, InstKind::Call { .. }))
        })
        .collect()
}

/// Compares every block's tail with the brute-force finder; returns the number of components.
fn check(func: &Function) -> usize {
    let reference = RefCfg::new(func);
    let comps = MergeComponents::new(func);
    let calls = calls(func);
    let tails = reference.merge_component_tails(&calls);
    let mut n = 0;
    for &h in &func.layout {
        let want = tails[&h];
        assert_eq!(
            comps.tail(h),
            want,
            "tail of {h} in {}\n{func:?}",
            func.name
        );
        if let Some(c) = comps.component(h) {
            n += 1;
            assert!(c.blocks.contains(&h) && c.blocks.contains(&c.tail));
        }
    }
    n
}

#[test]
fn components_agree_with_brute_force_on_random_structured_cfgs() {
    let config = StructuredConfig::default();
    let (mut n_comps, mut n_blocks) = (0, 0);
    for seed in 0..1200 {
        let func = random_structured_cfg(seed, &config);
        n_comps += check(&func);
        n_blocks += func.layout.len();
    }
    // Many blocks head components, many do not (loop headers, calls, early returns, arms).
    assert!(
        n_comps > 2000 && n_blocks - n_comps > 2000,
        "{n_comps} of {n_blocks}"
    );
}

#[test]
fn components_agree_with_brute_force_on_arbitrary_random_cfgs() {
    // Irreducible cycles, unreachable blocks and infinite loops included.
    let mut n_comps = 0;
    for seed in 0..1000 {
        n_comps += check(&random_cfg(seed, &CfgConfig::default()));
    }
    assert!(n_comps > 300, "{n_comps}");
}

fn check_text(text: &str, expected: Expect) {
    let program = parse_program(text).unwrap();
    let func = program.main_func();
    check(func);
    expected.assert_eq(&MergeComponents::new(func).display(func));
}

#[test]
fn if_else_and_counted_loop_are_components() {
    // b0 heads the `if` (join b3); b3 heads the loop, from its header b4 to the exit b6.
    check_text(
        "
fn main f0 -> u32 {
b0(v0: u1, v1: u32):
    br v0, b1(), b2()
b1():
    jmp b3(u32 1)
b2():
    jmp b3(u32 2)
b3(v2: u32):
    jmp b4(u32 0, v2)
b4(v3: u32, v4: u32):
    v5 = lt v3, u32 4
    br v5, b5(), b6()
b5():
    v6 = add v4, v1
    v7 = add v3, u32 1
    jmp b4(v7, v6)
b6():
    return v4
}
",
        expect![[r#"
            b0 -> b3 {b0, b1, b2, b3}
            b3 -> b6 {b3, b4, b5, b6}
        "#]],
    );
}

#[test]
fn early_return_and_call_break_components() {
    // The `if` in b0 returns early from b1; the `if` in b2 calls f1 in b3.
    check_text(
        "
fn main f0 {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    return
b2():
    br v0, b3(), b4()
b3():
    call f1()
    jmp b4()
b4():
    jmp b5()
b5():
    return
}

fn g f1 {
b0():
    return
}
",
        expect![[r#"
            b4 -> b5 {b4, b5}
        "#]],
    );
}
