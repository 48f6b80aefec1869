//! Control dependence: both relations of `analysis::cdg` against their brute-force definitions
//! on random CFGs, and on small programs where they agree and where they differ.

use expect_test::{expect, Expect};
use zkbc::analysis::ControlDependence;
use zkbc::ir::{parse_program, Function};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};
use zkbc_testkit::reference::RefCfg;

/// Compares both relations with the reference on every pair of blocks; returns the number of
/// dependences of each kind and how many pairs the two relations disagree on.
fn check(func: &Function) -> (usize, usize, usize) {
    let reference = RefCfg::new(func);
    let fow = ControlDependence::new(func);
    let seed = ControlDependence::seed(func);
    let mut n_differ = 0;
    for &a in &func.layout {
        for &b in &func.layout {
            let want = reference.fow_control_dependent(a, b);
            assert_eq!(
                fow.depends_on(b, a),
                want,
                "{b} cd {a} (FOW) in {}",
                func.name
            );
            let want_seed = reference.seed_control_dependent(a, b);
            assert_eq!(
                seed.depends_on(b, a),
                want_seed,
                "{b} cd {a} (seed) in {}",
                func.name
            );
            n_differ += usize::from(want != want_seed);
        }
    }
    (fow.edges().len(), seed.edges().len(), n_differ)
}

#[test]
fn control_dependence_agrees_with_definitions_on_random_cfgs() {
    let (mut n_fow, mut n_seed, mut n_self) = (0, 0, 0);
    for seed in 0..1200 {
        let func = random_cfg(seed, &CfgConfig::default());
        let (f, s, _) = check(&func);
        n_fow += f;
        n_seed += s;
        n_self += ControlDependence::new(&func)
            .edges()
            .iter()
            .filter(|(a, b)| a == b)
            .count();
    }
    assert!(
        n_fow > 2000 && n_seed > 2000 && n_self > 100,
        "{n_fow} {n_seed} {n_self}"
    );
}

#[test]
fn control_dependence_agrees_with_definitions_on_structured_cfgs() {
    let mut n_differ = 0;
    for seed in 0..300 {
        n_differ += check(&random_structured_cfg(seed, &StructuredConfig::default())).2;
    }
    // The two definitions are different relations even on structured code.
    assert!(n_differ > 100, "{n_differ}");
}

fn check_text(text: &str, expected: Expect) {
    let func = parse_program(text).unwrap().main_func().clone();
    check(&func);
    let actual = format!(
        "post-dominance:\n{}seed cuts:\n{}",
        ControlDependence::new(&func).display(),
        ControlDependence::seed(&func).display()
    );
    expected.assert_eq(&actual);
}

#[test]
fn if_else_diamond_both_definitions_agree() {
    check_text(
        "
fn main f0 {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    jmp b3()
b2():
    jmp b3()
b3():
    return
}
",
        expect![[r#"
            post-dominance:
            b0 -> b1 b2
            seed cuts:
            b0 -> b1 b2
        "#]],
    );
}

#[test]
fn code_after_a_while_loop_depends_on_it_only_by_the_seed_definition() {
    // b1 is the loop header, b2 the body, b3 the code after the loop.
    check_text(
        "
fn main f0 {
b0(v0: u1):
    jmp b1()
b1():
    br v0, b2(), b3()
b2():
    jmp b1()
b3():
    return
}
",
        expect![[r#"
            post-dominance:
            b1 -> b1 b2
            seed cuts:
            b1 -> b2 b3
        "#]],
    );
}

#[test]
fn nested_if_depends_on_both_branches_only_by_the_seed_definition() {
    check_text(
        "
fn main f0 {
b0(v0: u1):
    br v0, b1(), b3()
b1():
    br v0, b2(), b3()
b2():
    jmp b3()
b3():
    return
}
",
        expect![[r#"
            post-dominance:
            b0 -> b1
            b1 -> b2
            seed cuts:
            b0 -> b1 b2
            b1 -> b2
        "#]],
    );
}
