//! Phi dependence and the program dependence graph on hand-written IR.

use expect_test::expect;
use zkbc::analysis::pdg::phi_dependence;
use zkbc::analysis::{Cfg, ControlDependence, DepKind, Pdg, PdgNode};
use zkbc::ir::{parse_program, BlockId, ValueId};

const ABS_DIFF: &str = "
fn main f0 -> u32 {
b0(v0: u32, v1: u32):
    v2 = lt v0, v1
    br v2, b1(), b2()
b1():
    v3 = sub v1, v0
    jmp b3(v3)
b2():
    v4 = sub v0, v1
    jmp b3(v4)
b3(v5: u32):
    return v5
}
";

#[test]
fn join_parameter_depends_on_the_branch_that_chooses_its_value() {
    let program = parse_program(ABS_DIFF).unwrap();
    let func = program.main_func();
    let pdg = Pdg::new(func);
    expect![[r#"
        data v0 -> v2
        data v0 -> v3
        data v0 -> v4
        data v1 -> v2
        data v1 -> v3
        data v1 -> v4
        data v5 -> b3.term
        data v2 -> b0.term
        data v3 -> v5
        data v3 -> b1.term
        data v4 -> v5
        data v4 -> b2.term
        control b0.term -> v3
        control b0.term -> v4
        control b0.term -> b1.term
        control b0.term -> b2.term
        phi b0.term -> v5
    "#]]
    .assert_eq(&pdg.display(func));
    // The join b3 itself runs on both paths: no control dependence, only the phi one.
    let join = BlockId(3);
    let param = func.block(join).params[0];
    assert!(pdg.has_edge(
        PdgNode::Term(BlockId(0)),
        PdgNode::Param(param),
        DepKind::Phi
    ));
    assert!(!pdg.has_edge(
        PdgNode::Term(BlockId(0)),
        PdgNode::Param(param),
        DepKind::Control
    ));
    assert!(!pdg.has_edge(
        PdgNode::Term(BlockId(0)),
        PdgNode::Term(join),
        DepKind::Control
    ));
}

#[test]
fn loop_header_parameters_depend_on_the_loop_branch() {
    // The header's parameters get their value from the entry or from the latch; the latch runs
    // under the header's branch, so the parameters are phi dependent on it.
    let program = parse_program(
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
    )
    .unwrap();
    let func = program.main_func();
    let cfg = Cfg::new(func);
    let fow = phi_dependence(func, &cfg, &ControlDependence::new(func));
    let header = BlockId(1);
    let want: Vec<(BlockId, ValueId)> = func
        .block(header)
        .params
        .iter()
        .map(|p| (header, *p))
        .collect();
    assert_eq!(fow.into_iter().collect::<Vec<_>>(), want);
    // With the seed's control dependence the result is the same here: b2 depends on b1 only.
    let seed = phi_dependence(func, &cfg, &ControlDependence::seed(func));
    assert_eq!(seed.into_iter().collect::<Vec<_>>(), want);
}

#[test]
fn straight_line_code_has_only_data_edges() {
    let program = parse_program(
        "
fn main f0 -> field {
b0(v0: field):
    v1 = mul v0, v0
    jmp b1(v1)
b1(v2: field):
    v3 = add v2, field 1
    return v3
}
",
    )
    .unwrap();
    let pdg = Pdg::new(program.main_func());
    assert!(pdg.edges(DepKind::Control).is_empty());
    assert!(pdg.edges(DepKind::Phi).is_empty());
    assert_eq!(pdg.edges(DepKind::Data).len(), 5);
}

#[test]
fn a_parameter_chosen_by_the_branch_itself_depends_on_it() {
    // Both edges of b0's branch go to b1: no block is control dependent on it (b1 post-dominates
    // b0), but the branch alone decides whether v3 is 1 or 2.
    let program = parse_program(
        "
fn main f0 -> field {
b0(v0: u1):
    br v0, b1(field 1), b1(field 2)
b1(v3: field):
    return v3
}
",
    )
    .unwrap();
    let func = program.main_func();
    let pdg = Pdg::new(func);
    expect![[r#"
        data v0 -> b0.term
        data v3 -> b1.term
        phi b0.term -> v3
    "#]]
    .assert_eq(&pdg.display(func));
    let param = func.block(BlockId(1)).params[0];
    assert!(pdg.has_edge(
        PdgNode::Term(BlockId(0)),
        PdgNode::Param(param),
        DepKind::Phi
    ));
    // The same with the seed's control dependence.
    let cfg = Cfg::new(func);
    let seed = phi_dependence(func, &cfg, &ControlDependence::seed(func));
    assert_eq!(seed.into_iter().collect::<Vec<_>>(), [(BlockId(0), param)]);
}

#[test]
fn a_branch_two_levels_above_a_join_decides_its_parameter() {
    // b0 jumps to the join b4 directly or through b1, whose own branch picks b2 or b3: the join's
    // parameter depends on b1's branch (b2 and b3 are control dependent on it) and on b0's
    // (its edge to b4), though no predecessor of b4 is control dependent on b0.
    let program = parse_program(
        "
fn main f0 -> field {
b0(v0: u1, v1: u1):
    br v0, b1(), b4(field 0)
b1():
    br v1, b2(), b3()
b2():
    jmp b4(field 2)
b3():
    jmp b4(field 3)
b4(v2: field):
    return v2
}
",
    )
    .unwrap();
    let func = program.main_func();
    let cfg = Cfg::new(func);
    let param = func.block(BlockId(4)).params[0];
    let fow = phi_dependence(func, &cfg, &ControlDependence::new(func));
    assert_eq!(
        fow.into_iter().collect::<Vec<_>>(),
        [(BlockId(0), param), (BlockId(1), param)]
    );
}
