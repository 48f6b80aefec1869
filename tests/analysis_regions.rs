//! SESE regions and the region tree against the brute-force definition on random CFGs, and the
//! tree of small programs.

use expect_test::{expect, Expect};
use std::collections::BTreeSet;
use zkbc::analysis::RegionTree;
use zkbc::ir::{parse_program, BlockId, Function};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};
use zkbc_testkit::reference::RefCfg;

/// Checks the regions of `func` against the definitions; returns (all, canonical) counts.
fn check(func: &Function) -> (usize, usize) {
    let reference = RefCfg::new(func);
    let tree = RegionTree::new(func);
    assert_eq!(
        tree.all_sese_regions(),
        reference.sese_regions(),
        "SESE regions of {}",
        func.name
    );
    let canonical: BTreeSet<_> = tree.regions().iter().map(|r| (r.entry, r.exit)).collect();
    let want: BTreeSet<_> = reference.canonical_sese_regions().into_iter().collect();
    assert_eq!(canonical, want, "canonical regions of {}", func.name);
    assert_eq!(canonical.len(), tree.regions().len(), "no duplicates");
    for r in tree.regions() {
        assert_eq!(
            r.blocks,
            reference.sese_blocks(r.entry, r.exit),
            "blocks of {}..{}",
            r.entry,
            r.exit
        );
        assert!(!r.blocks.is_empty());
    }
    // Canonical regions are nested or disjoint, and the parent is the smallest container.
    for a in tree.ids() {
        let ra = tree.get(a);
        let sa: BTreeSet<BlockId> = ra.blocks.iter().copied().collect();
        let mut containers = Vec::new();
        for b in tree.ids() {
            let sb: BTreeSet<BlockId> = tree.get(b).blocks.iter().copied().collect();
            assert!(
                sa.is_disjoint(&sb) || sa.is_subset(&sb) || sb.is_subset(&sa),
                "{a} and {b} overlap in {}",
                func.name
            );
            if a != b && sa.is_subset(&sb) {
                containers.push((sb.len(), b));
            }
        }
        match ra.parent {
            None => assert!(
                containers.iter().all(|(n, _)| *n == sa.len()),
                "{a} has a strictly larger container"
            ),
            Some(p) => {
                let smallest = containers.iter().map(|c| c.0).min().unwrap();
                assert_eq!(tree.get(p).blocks.len(), smallest);
                assert!(tree.get(p).children.contains(&a));
            }
        }
    }
    // The innermost region of a block contains it and none of its children does.
    for &b in &func.layout {
        match tree.innermost(b) {
            Some(r) => {
                assert!(tree.get(r).blocks.contains(&b));
                for c in &tree.get(r).children {
                    assert!(!tree.get(*c).blocks.contains(&b));
                }
            }
            None => assert!(tree.regions().iter().all(|r| !r.blocks.contains(&b))),
        }
    }
    (reference.sese_regions().len(), canonical.len())
}

#[test]
fn regions_agree_with_definition_on_random_cfgs() {
    let (mut n_all, mut n_canonical) = (0, 0);
    for seed in 0..1000 {
        let (a, c) = check(&random_cfg(seed, &CfgConfig::default()));
        n_all += a;
        n_canonical += c;
    }
    assert!(
        n_all > n_canonical && n_canonical > 1000,
        "{n_all} {n_canonical}"
    );
}

#[test]
fn regions_agree_with_definition_on_random_structured_cfgs() {
    let mut n_nested = 0;
    for seed in 0..300 {
        let func = random_structured_cfg(seed, &StructuredConfig::default());
        check(&func);
        let tree = RegionTree::new(&func);
        n_nested += tree.regions().iter().filter(|r| r.parent.is_some()).count();
    }
    assert!(n_nested > 300, "{n_nested}");
}

fn check_text(text: &str, expected: Expect) {
    let func = parse_program(text).unwrap().main_func().clone();
    check(&func);
    expected.assert_eq(&RegionTree::new(&func).display());
}

#[test]
fn if_else_inside_a_loop() {
    check_text(
        "
fn main f0 {
b0(v0: u1):
    jmp b1()
b1():
    br v0, b2(), b6()
b2():
    br v0, b3(), b4()
b3():
    jmp b5()
b4():
    jmp b5()
b5():
    jmp b1()
b6():
    return
}
",
        expect![[r#"
            r0 start->b0 .. b0->b1 {b0}
            r1 b0->b1 .. b1->b6 {b1, b2, b3, b4, b5}
              r3 b1->b2 .. b5->b1 {b2, b3, b4, b5}
                r4 b2->b3 .. b3->b5 {b3}
                r5 b2->b4 .. b4->b5 {b4}
            r2 b1->b6 .. b6->end {b6}
        "#]],
    );
}

#[test]
fn early_return_breaks_the_enclosing_region() {
    // The `if` in b1 returns from one arm: b1..b3 has two exits, so only the pieces are regions.
    check_text(
        "
fn main f0 {
b0(v0: u1):
    jmp b1()
b1():
    br v0, b2(), b3()
b2():
    return
b3():
    jmp b4()
b4():
    return
}
",
        expect![[r#"
            r0 start->b0 .. b0->b1 {b0}
            r1 b1->b2 .. b2->end {b2}
            r2 b1->b3 .. b3->b4 {b3}
            r3 b3->b4 .. b4->end {b4}
        "#]],
    );
}
