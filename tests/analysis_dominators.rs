//! The fast dominator and post-dominator trees agree with the definition-level reference on
//! random CFGs.

use zkbc::analysis::DomTree;
use zkbc::ir::Function;
use zkbc_testkit::random_cfg::{random_cfg, CfgConfig};
use zkbc_testkit::reference::RefCfg;

/// Compares both trees with the reference on every pair of blocks; returns how many pairs are
/// related (so the caller can check the test exercises real dominance).
fn check(func: &Function) -> (usize, usize) {
    let reference = RefCfg::new(func);
    let dom = DomTree::dominators(func);
    let pdom = DomTree::post_dominators(func);
    let (mut n_dom, mut n_pdom) = (0, 0);
    for &a in &func.layout {
        assert_eq!(
            dom.contains(a),
            reference.is_reachable(a),
            "{a} in dominator tree\n{func:?}"
        );
        assert_eq!(
            pdom.contains(a),
            reference.reaches_exit(a),
            "{a} in post-dominator tree"
        );
        for &b in &func.layout {
            let want = reference.dominates(a, b);
            assert_eq!(dom.dominates(a, b), want, "{a} dom {b} in {}", func.name);
            n_dom += usize::from(want && a != b);
            let want = reference.post_dominates(a, b);
            assert_eq!(pdom.dominates(a, b), want, "{a} pdom {b} in {}", func.name);
            n_pdom += usize::from(want && a != b);
        }
        // The immediate dominator is the strict dominator closest to the block.
        if let Some(i) = dom.idom(a) {
            assert!(reference.dominates(i, a) && i != a);
            for &c in &func.layout {
                if c != a && reference.dominates(c, a) {
                    assert!(reference.dominates(c, i), "{c} dom idom({a}) = {i}");
                }
            }
        }
    }
    (n_dom, n_pdom)
}

#[test]
fn dominators_agree_with_reference_on_random_cfgs() {
    let config = CfgConfig::default();
    let (mut n_dom, mut n_pdom, mut n_unreachable, mut n_no_exit) = (0, 0, 0, 0);
    for seed in 0..1500 {
        let func = random_cfg(seed, &config);
        let (d, p) = check(&func);
        n_dom += d;
        n_pdom += p;
        let reference = RefCfg::new(&func);
        n_unreachable += func
            .layout
            .iter()
            .filter(|b| !reference.is_reachable(**b))
            .count();
        n_no_exit += func
            .layout
            .iter()
            .filter(|b| !reference.reaches_exit(**b))
            .count();
    }
    // The sample exercises strict dominance, unreachable blocks and infinite loops.
    assert!(n_dom > 1000 && n_pdom > 1000, "{n_dom} {n_pdom}");
    assert!(
        n_unreachable > 100 && n_no_exit > 100,
        "{n_unreachable} {n_no_exit}"
    );
}

#[test]
fn dominators_agree_with_reference_when_the_entry_has_predecessors() {
    let config = CfgConfig {
        entry_preds: true,
        max_blocks: 20,
        ..CfgConfig::default()
    };
    for seed in 0..1000 {
        check(&random_cfg(seed, &config));
    }
}
