//! The petgraph CFG, SCCs and natural loops: hand-written programs with their expected loop
//! forests, and the definition-level reference on random CFGs.

use expect_test::{expect, Expect};
use std::collections::HashSet;
use zkbc::analysis::loops::{is_cyclic, sccs};
use zkbc::analysis::{Cfg, Graph, LoopForest};
use zkbc::ir::{parse_program, BlockId, Function};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};
use zkbc_testkit::reference::{reachable, RefCfg};

fn main_of(text: &str) -> Function {
    parse_program(text)
        .expect("test program parses")
        .main_func()
        .clone()
}

fn check_loops(text: &str, expected: Expect) {
    let func = main_of(text);
    let forest = LoopForest::new(&func);
    let sccs: Vec<String> = forest
        .sccs()
        .iter()
        .map(|c| {
            let names: Vec<String> = c.iter().map(ToString::to_string).collect();
            format!("{{{}}}", names.join(" "))
        })
        .collect();
    let actual = format!(
        "{}sccs {}\nreducible {}\n",
        forest.display(),
        sccs.join(" "),
        forest.is_reducible()
    );
    expected.assert_eq(&actual);
    check_against_reference(&func);
}

#[test]
fn nested_counted_loops() {
    check_loops(
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):          ; outer header
    v3 = lt v1, v0
    br v3, b2(u32 0, v2), b5()
b2(v4: u32, v5: u32):          ; inner header
    v6 = lt v4, u32 3
    br v6, b3(), b4()
b3():                          ; inner body and latch
    v7 = add v5, v4
    v8 = add v4, u32 1
    jmp b2(v8, v7)
b4():                          ; outer latch
    v9 = add v1, u32 1
    jmp b1(v9, v5)
b5():
    return v2
}
",
        expect![[r#"
            loop0: header b1 blocks [b1, b2, b4, b3] latches [b4] exits [b1->b5] parent - depth 1
            loop1: header b2 blocks [b2, b3] latches [b3] exits [b2->b4] parent loop0 depth 2
            sccs {b0} {b1 b2 b3 b4} {b5}
            reducible true
        "#]],
    );
}

#[test]
fn loop_with_two_latches_and_an_early_return() {
    // A `while` loop whose body either continues from two places or returns.
    check_loops(
        "
fn main f0 -> u1 {
b0(v0: u1):
    jmp b1()
b1():
    br v0, b2(), b5()
b2():
    br v0, b3(), b4()
b3():
    br v0, b1(), b6()
b4():
    jmp b1()
b5():
    return v0
b6():
    return v0
}
",
        expect![[r#"
            loop0: header b1 blocks [b1, b2, b4, b3] latches [b4, b3] exits [b1->b5, b3->b6] parent - depth 1
            sccs {b0} {b1 b2 b3 b4} {b6} {b5}
            reducible true
        "#]],
    );
}

#[test]
fn self_loop_and_infinite_loop() {
    check_loops(
        "
fn main f0 {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    br v0, b1(), b3()
b2():
    jmp b2()
b3():
    return
}
",
        expect![[r#"
            loop0: header b2 blocks [b2] latches [b2] exits [] parent - depth 1
            loop1: header b1 blocks [b1] latches [b1] exits [b1->b3] parent - depth 1
            sccs {b0} {b1} {b3} {b2}
            reducible true
        "#]],
    );
}

#[test]
fn irreducible_cycle_has_no_natural_loop() {
    // b1 and b2 jump to each other and both are entered from b0.
    check_loops(
        "
fn main f0 {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    br v0, b2(), b3()
b2():
    jmp b1()
b3():
    return
}
",
        expect![[r#"
            sccs {b0} {b1 b2} {b3}
            reducible false
        "#]],
    );
}

/// Everything the CFG and the loop forest say, checked against definitions.
fn check_against_reference(func: &Function) -> (usize, usize) {
    let reference = RefCfg::new(func);
    let cfg = Cfg::new(func);
    // The CFG: edges, predecessors and reverse post-order.
    assert_eq!(
        cfg.reverse_post_order(),
        func.reverse_post_order().as_slice()
    );
    for &b in &func.layout {
        let mut want = func.successors(b);
        want.dedup();
        if want.len() == 2 && want[0] == want[1] {
            want.pop();
        }
        assert_eq!(cfg.successors(b), want.as_slice());
        let preds: Vec<BlockId> = func
            .layout
            .iter()
            .copied()
            .filter(|p| func.successors(*p).contains(&b))
            .collect();
        assert_eq!(cfg.predecessors(b), preds.as_slice());
        assert_eq!(cfg.block(cfg.node(b).unwrap()), b);
    }
    assert_eq!(cfg.graph().edge_count(), cfg.edges().len());

    // SCCs: a partition into mutually reachable sets, in topological order.
    let comps = sccs(&cfg);
    let comp_of = |b: BlockId| comps.iter().position(|c| c.contains(&b)).unwrap();
    let n_listed: usize = comps.iter().map(Vec::len).sum();
    assert_eq!(n_listed, func.layout.len());
    for &a in &func.layout {
        for &b in &func.layout {
            assert_eq!(comp_of(a) == comp_of(b), reference.mutually_reachable(a, b));
            if reference.reaches(a, b) {
                assert!(comp_of(a) <= comp_of(b), "{a} reaches {b}: order");
            }
        }
    }
    for c in &comps {
        let cyclic = c.len() > 1 || reference.successors(c[0]).contains(&c[0]);
        assert_eq!(is_cyclic(&cfg, c), cyclic);
    }

    // Natural loops.
    let forest = LoopForest::new(func);
    let back = reference.back_edges();
    let headers: HashSet<BlockId> = back.iter().map(|e| e.1).collect();
    assert_eq!(forest.loops().len(), headers.len());
    for id in forest.ids() {
        let l = forest.get(id);
        let want: HashSet<BlockId> = reference.natural_loop(l.header).into_iter().collect();
        let got: HashSet<BlockId> = l.blocks.iter().copied().collect();
        assert_eq!(got, want, "body of {id} in {}", func.name);
        assert_eq!(l.blocks[0], l.header);
        let mut want_back: Vec<_> = back.iter().filter(|e| e.1 == l.header).copied().collect();
        let mut got_back = l.back_edges.clone();
        want_back.sort();
        got_back.sort();
        assert_eq!(got_back, want_back);
        let latches: HashSet<BlockId> = l.latches.iter().copied().collect();
        assert_eq!(latches, want_back.iter().map(|e| e.0).collect());
        let want_exits: Vec<(BlockId, BlockId)> = cfg
            .edges()
            .into_iter()
            .filter(|(a, b)| want.contains(a) && !want.contains(b))
            .collect();
        let mut got_exits = l.exits.clone();
        got_exits.sort();
        let mut want_exits = want_exits;
        want_exits.sort();
        assert_eq!(got_exits, want_exits);
        // The parent is the smallest other loop containing this one.
        let containing: Vec<_> = forest
            .ids()
            .filter(|&o| o != id && want.is_subset(&forest.get(o).blocks.iter().copied().collect()))
            .collect();
        let smallest = containing
            .iter()
            .copied()
            .min_by_key(|o| forest.get(*o).blocks.len());
        assert_eq!(l.parent, smallest);
        assert_eq!(l.depth, containing.len() + 1);
    }
    for &b in &func.layout {
        let n_containing = forest
            .ids()
            .filter(|&l| forest.get(l).blocks.contains(&b))
            .count();
        assert_eq!(forest.depth(b), n_containing, "depth of {b}");
        for l in forest.ids() {
            assert_eq!(forest.contains(l, b), forest.get(l).blocks.contains(&b));
        }
    }

    // Reducible iff the reachable graph minus back edges has no cycle.
    let reach = reachable(&reference.graph, reference.entry, None, None);
    let forward = Graph {
        succs: reference
            .graph
            .succs
            .iter()
            .enumerate()
            .map(|(n, ss)| {
                ss.iter()
                    .copied()
                    .filter(|&s| {
                        reach[n]
                            && s < reference.blocks.len()
                            && !back.contains(&(reference.blocks[n], reference.blocks[s]))
                    })
                    .collect()
            })
            .collect(),
    };
    let has_cycle = (0..reference.blocks.len()).any(|n| {
        forward.succs[n]
            .iter()
            .any(|&s| reachable(&forward, s, None, None)[n])
    });
    assert_eq!(forest.is_reducible(), !has_cycle, "{}", func.name);
    check_nested_order(func, &forest, &back);
    (forest.loops().len(), usize::from(has_cycle))
}

/// [`LoopForest::nested_order`]: the reverse post-order's blocks, each loop's consecutive and
/// every edge that is not a back edge going forward, in a reducible function; the reverse
/// post-order itself in an irreducible one.
fn check_nested_order(func: &Function, forest: &LoopForest, back: &[(BlockId, BlockId)]) {
    let rpo = func.reverse_post_order();
    let order = forest.nested_order(&rpo);
    if !forest.is_reducible() {
        assert_eq!(order, rpo, "{}", func.name);
        return;
    }
    let mut sorted = order.clone();
    sorted.sort();
    let mut want = rpo.clone();
    want.sort();
    assert_eq!(sorted, want, "a permutation of the reverse post-order");
    let position = |b: BlockId| order.iter().position(|&x| x == b).unwrap();
    for l in forest.loops() {
        let mut at: Vec<usize> = l.blocks.iter().map(|&b| position(b)).collect();
        at.sort();
        assert_eq!(at[0], position(l.header), "{}: the header first", func.name);
        assert_eq!(
            at[at.len() - 1] - at[0] + 1,
            at.len(),
            "{}: the loop of {} is consecutive in {order:?}",
            func.name,
            l.header
        );
    }
    for &a in &rpo {
        for b in func.successors(a) {
            if !back.contains(&(a, b)) {
                assert!(position(a) < position(b), "{}: {a} -> {b}", func.name);
            }
        }
    }
}

#[test]
fn nested_order_puts_each_loop_after_its_header() {
    // A depth-first search takes each loop's body first, so the reverse post-order lists
    // what follows a loop before its body.
    let func = main_of(
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = lt v1, v0
    br v3, b2(u32 0, v2), b5()
b2(v4: u32, v5: u32):
    v6 = lt v4, u32 3
    br v6, b3(), b4()
b3():
    v7 = add v5, v4
    v8 = add v4, u32 1
    jmp b2(v8, v7)
b4():
    v9 = add v1, u32 1
    jmp b1(v9, v5)
b5():
    return v2
}
",
    );
    let rpo = func.reverse_post_order();
    let show = |o: &[BlockId]| {
        o.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(show(&rpo), "b0 b1 b5 b2 b4 b3");
    let order = LoopForest::new(&func).nested_order(&rpo);
    assert_eq!(show(&order), "b0 b1 b2 b3 b4 b5");
}

#[test]
fn loops_agree_with_reference_on_random_cfgs() {
    let (mut n_loops, mut n_irreducible) = (0, 0);
    for seed in 0..1000 {
        let (l, i) = check_against_reference(&random_cfg(seed, &CfgConfig::default()));
        n_loops += l;
        n_irreducible += i;
    }
    assert!(
        n_loops > 500 && n_irreducible > 50,
        "{n_loops} {n_irreducible}"
    );
}

#[test]
fn loops_agree_with_reference_on_random_structured_cfgs() {
    let mut n_nested = 0;
    for seed in 0..300 {
        let func = random_structured_cfg(seed, &StructuredConfig::default());
        let (_, irreducible) = check_against_reference(&func);
        assert_eq!(irreducible, 0, "structured code is reducible");
        let forest = LoopForest::new(&func);
        n_nested += forest.loops().iter().filter(|l| l.depth > 1).count();
    }
    assert!(n_nested > 20, "{n_nested}");
}
