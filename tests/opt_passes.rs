//! Pass tests as text in, text out: each runs the named passes on an IR program, snapshots the
//! normalized result (`UPDATE_EXPECT=1 cargo test` refreshes the snapshots), and runs the
//! interpreter before and after on the given inputs, which must give the same outputs (or the
//! same failure).

use expect_test::expect;
#[path = "common/passes.rs"]
mod passes;
use passes::check_pass;
use zkbc::ir::parse_program;
use zkbc::opt::{optimize, Options};

#[test]
fn mem2reg_promotes_a_loop_counter() {
    check_pass(
        "mem2reg,dce,simplify_cfg",
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = allocate u32
    store u32 0 at v1
    jmp b1(u32 0)
b1(v2: u32):
    v3 = lt v2, v0
    br v3, b2(), b3()
b2():
    v4 = load v1
    v5 = add v4, v2
    store v5 at v1
    v6 = add v2, u32 1
    jmp b1(v6)
b3():
    v8 = load v1
    return v8
}",
        &[r#"["0"]"#, r#"["5"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1(u32 0, u32 0)
            b1(v1: u32, v2: u32):
                v3 = lt v1, v0
                br v3, b3(), b2()
            b2():
                return v2
            b3():
                v4 = add v2, v1
                v5 = add v1, u32 1
                jmp b1(v5, v4)
            }
        "#]],
    );
}

// ---- mem2reg: the aliasing and loop patterns of the seed note ----

#[test]
fn mem2reg_keeps_a_value_untouched_by_a_loop_known_after_it() {
    // The seed's first loop example, with the reference escaping into an array so that only the
    // known-value analysis (not promotion) can forward the load after the loop.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field, &field {
b0(v0: u32):
    v1 = allocate field
    store field 7 at v1
    v2 = make_array [v1] : &field
    jmp b1(u32 0)
b1(v3: u32):
    v4 = lt v3, v0
    br v4, b2(), b3()
b2():
    v5 = add v3, u32 1
    jmp b1(v5)
b3():
    v6 = load v1
    v7 = array_get v2, u32 0
    return v6, v7
}",
        &[r#"["0"]"#, r#"["3"]"#],
        expect![[r#"
            fn main f0 -> field, &field {
            b0(v0: u32):
                v1 = allocate field
                store field 7 at v1
                v2 = make_array [v1] : &field
                jmp b1(u32 0)
            b1(v3: u32):
                v4 = lt v3, v0
                br v4, b3(), b2()
            b2():
                v5 = array_get v2, u32 0
                return field 7, v5
            b3():
                v6 = add v3, u32 1
                jmp b1(v6)
            }
        "#]],
    );
}

#[test]
fn mem2reg_does_not_forward_a_value_changed_in_a_loop() {
    // The seed's counter-example: `foo = i` inside the loop; the assertion must still fail on
    // the second iteration, and the value after the loop is the last one stored.
    check_pass(
        "mem2reg",
        "
fn main f0 -> u32, &u32 {
b0(v0: u32):
    v1 = allocate u32
    store u32 7 at v1
    v20 = make_array [v1] : &u32
    jmp b1(u32 0)
b1(v2: u32):
    v3 = lt v2, v0
    br v3, b2(), b3()
b2():
    v4 = add v2, u32 1
    v5 = load v1
    v6 = eq v5, u32 7
    assert v6
    store v4 at v1
    jmp b1(v4)
b3():
    v7 = load v1
    v21 = array_get v20, u32 0
    return v7, v21
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["2"]"#],
        expect![[r#"
            fn main f0 -> u32, &u32 {
            b0(v0: u32):
                v1 = allocate u32
                store u32 7 at v1
                v2 = make_array [v1] : &u32
                jmp b1(u32 0)
            b1(v3: u32):
                v4 = lt v3, v0
                br v4, b3(), b2()
            b2():
                v5 = load v1
                v6 = array_get v2, u32 0
                return v5, v6
            b3():
                v7 = add v3, u32 1
                v8 = load v1
                v9 = eq v8, u32 7
                assert v9
                store v7 at v1
                jmp b1(v7)
            }
        "#]],
    );
}

#[test]
fn mem2reg_reference_in_reference_then_call() {
    // `c` holds `a`; the callee writes through `*c`: `a` is not known after the call.
    check_pass(
        "mem2reg",
        "
fn set f1 {
b0(v0: &&field):
    v1 = load v0
    store field 5 at v1
    return
}
fn main f0 -> field {
b0(v0: field):
    v1 = allocate field
    store v0 at v1
    v2 = allocate &field
    store v1 at v2
    call f1(v2)
    v3 = load v1
    return v3
}",
        &[r#"["1"]"#],
        expect![[r#"
            fn set f0 {
            b0(v0: &&field):
                v1 = load v0
                store field 5 at v1
                return
            }

            fn main f1 -> field {
            b0(v0: field):
                v1 = allocate field
                store v0 at v1
                v2 = allocate &field
                store v1 at v2
                call f0(v2)
                v3 = load v1
                return v3
            }
        "#]],
    );
}

#[test]
fn mem2reg_block_parameters_bound_to_one_allocation_alias() {
    check_pass(
        "mem2reg",
        "
fn main f0 -> field {
b0(v0: u1):
    v1 = allocate field
    v2 = allocate field
    br v0, b1(v1, v1), b1(v1, v2)
b1(v3: &field, v4: &field):
    store field 1 at v3
    store field 2 at v4
    v5 = load v3
    return v5
}",
        &[r#"[true]"#, r#"[false]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u1):
                v1 = allocate field
                v2 = allocate field
                br v0, b1(v1, v1), b1(v1, v2)
            b1(v3: &field, v4: &field):
                store field 1 at v3
                store field 2 at v4
                v5 = load v3
                return v5
            }
        "#]],
    );
}

#[test]
fn mem2reg_array_of_references_written_through_a_dynamic_index() {
    // The seed's aliasing example: `*v2[i] = 5` may write either cell.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field, field {
b0(v0: u32):
    v1 = allocate field
    store field 0 at v1
    v2 = allocate field
    store field 0 at v2
    v3 = make_array [v1, v2] : &field
    v4 = urem v0, u32 2
    v5 = array_get v3, v4
    store field 5 at v5
    v6 = load v1
    v7 = load v2
    return v6, v7
}",
        &[r#"["0"]"#, r#"["1"]"#],
        expect![[r#"
            fn main f0 -> field, field {
            b0(v0: u32):
                v1 = allocate field
                store field 0 at v1
                v2 = allocate field
                store field 0 at v2
                v3 = make_array [v1, v2] : &field
                v4 = urem v0, u32 2
                v5 = array_get v3, v4
                store field 5 at v5
                v6 = load v1
                v7 = load v2
                return v6, v7
            }
        "#]],
    );
}

#[test]
fn mem2reg_store_inside_a_loop_read_after_it() {
    check_pass(
        "mem2reg,dce,simplify_cfg",
        "
fn main f0 -> field {
b0(v0: u32):
    v1 = allocate field
    store field 1 at v1
    jmp b1(u32 0)
b1(v2: u32):
    v3 = lt v2, v0
    br v3, b2(), b3()
b2():
    v4 = load v1
    v5 = mul v4, field 2
    store v5 at v1
    v6 = add v2, u32 1
    jmp b1(v6)
b3():
    v7 = load v1
    return v7
}",
        &[r#"["0"]"#, r#"["4"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                jmp b1(u32 0, field 1)
            b1(v1: u32, v2: field):
                v3 = lt v1, v0
                br v3, b3(), b2()
            b2():
                return v2
            b3():
                v4 = mul v2, field 2
                v5 = add v1, u32 1
                jmp b1(v5, v4)
            }
        "#]],
    );
}

#[test]
fn mem2reg_nested_loops() {
    // The seed's breaking example: acc += array[i][j] over nested loops, then assert acc != 0.
    check_pass(
        "mem2reg,dce,simplify_cfg",
        "
fn main f0 -> field {
b0(v100: u32):
    v2 = allocate field
    store field 0 at v2
    v6 = make_array [field 1, field 2] : field
    v9 = make_array [field 3, field 4] : field
    v10 = make_array [v6, v9] : [field; 2]
    jmp b1(u32 0)
b1(v0: u32):
    v13 = lt v0, v100
    br v13, b3(), b2()
b3():
    jmp b4(u32 0)
b4(v1: u32):
    v18 = lt v1, u32 2
    br v18, b6(), b5()
b6():
    v21 = load v2
    v22 = array_get v10, v0
    v23 = array_get v22, v1
    v24 = add v21, v23
    store v24 at v2
    v25 = add v1, u32 1
    jmp b4(v25)
b5():
    v20 = add v0, u32 1
    jmp b1(v20)
b2():
    v14 = load v2
    v15 = eq v14, field 0
    v16 = not v15
    assert v16
    return v14
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["2"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                v1 = make_array [field 1, field 2] : field
                v2 = make_array [field 3, field 4] : field
                v3 = make_array [v1, v2] : [field; 2]
                jmp b1(u32 0, field 0)
            b1(v4: u32, v5: field):
                v6 = lt v4, v0
                br v6, b3(u32 0, v5), b2()
            b2():
                v7 = eq v5, field 0
                v8 = not v7
                assert v8
                return v5
            b3(v9: u32, v10: field):
                v11 = lt v9, u32 2
                br v11, b5(), b4()
            b4():
                v12 = add v4, u32 1
                jmp b1(v12, v10)
            b5():
                v13 = array_get v3, v4
                v14 = array_get v13, v9
                v15 = add v10, v14
                v16 = add v9, u32 1
                jmp b3(v16, v15)
            }
        "#]],
    );
}

#[test]
fn mem2reg_store_only_an_alias_reads_reaches_the_read() {
    // `a` is read only through `*c`, after a join where its value is not known. The stores to
    // `a` must reach that read: once `*c` is forwarded to `a`, `a` is promoted and its two
    // values meet in a block parameter.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = allocate field
    store v0 at v2
    v3 = allocate &field
    store v2 at v3
    br v1, b1(), b2()
b1():
    store field 9 at v2
    jmp b3()
b2():
    jmp b3()
b3():
    v4 = load v3
    v5 = load v4
    return v5
}",
        &[r#"["4", true]"#, r#"["4", false]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u1):
                v2 = allocate &field
                br v1, b2(), b1()
            b1():
                jmp b3(v0)
            b2():
                jmp b3(field 9)
            b3(v3: field):
                return v3
            }
        "#]],
    );
}

#[test]
fn mem2reg_forwards_through_an_alias_and_drops_dead_stores() {
    check_pass(
        "mem2reg,dce",
        "
fn main f0 -> field {
b0(v0: field):
    v2 = allocate field
    store v0 at v2
    v3 = allocate &field
    store v2 at v3
    v4 = load v3
    v5 = load v4
    return v5
}",
        &[r#"["4"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field):
                return v0
            }
        "#]],
    );
}

#[test]
fn mem2reg_allocation_in_a_loop_is_not_one_cell() {
    // Each iteration allocates a new cell and stashes it in `c`; the next iteration reads the
    // previous cell through `c`. The allocation site stands for many cells: no strong update.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field {
b0(v0: u32):
    v1 = allocate field
    store field 100 at v1
    v2 = allocate &field
    store v1 at v2
    jmp b1(u32 0, field 0)
b1(v3: u32, v4: field):
    v5 = lt v3, v0
    br v5, b2(), b3()
b2():
    v6 = load v2
    v7 = load v6
    v8 = allocate field
    v9 = cast v3 to field
    store v9 at v8
    store v8 at v2
    v10 = add v4, v7
    v11 = add v3, u32 1
    jmp b1(v11, v10)
b3():
    v12 = load v2
    v13 = load v12
    v14 = add v4, v13
    return v14
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["3"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                v1 = allocate field
                store field 100 at v1
                v2 = allocate &field
                store v1 at v2
                jmp b1(u32 0, field 0)
            b1(v3: u32, v4: field):
                v5 = lt v3, v0
                br v5, b3(), b2()
            b2():
                v6 = load v2
                v7 = load v6
                v8 = add v4, v7
                return v8
            b3():
                v9 = load v2
                v10 = load v9
                v11 = allocate field
                v12 = cast v3 to field
                store v12 at v11
                store v11 at v2
                v13 = add v4, v10
                v14 = add v3, u32 1
                jmp b1(v14, v13)
            }
        "#]],
    );
}

#[test]
fn mem2reg_older_cell_of_a_loop_allocation_is_not_the_newest() {
    // `r` is the cell of the previous iteration; a new cell (still zero) is allocated before
    // reading `r`, which may hold 5: the new cell's zero must not be forwarded to the load.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field {
b0(v0: u32):
    v1 = allocate field
    jmp b1(u32 0, v1, field 0)
b1(v2: u32, v3: &field, v4: field):
    v5 = lt v2, v0
    br v5, b2(), b5()
b2():
    v6 = allocate field
    v7 = load v3
    v8 = add v4, v7
    v9 = eq v7, field 0
    br v9, b3(), b4()
b3():
    store field 5 at v6
    jmp b4()
b4():
    v10 = add v2, u32 1
    jmp b1(v10, v6, v8)
b5():
    return v4
}",
        &[r#"["0"]"#, r#"["2"]"#, r#"["5"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                v1 = allocate field
                jmp b1(u32 0, v1, field 0)
            b1(v2: u32, v3: &field, v4: field):
                v5 = lt v2, v0
                br v5, b3(), b2()
            b2():
                return v4
            b3():
                v6 = allocate field
                v7 = load v3
                v8 = add v4, v7
                v9 = eq v7, field 0
                br v9, b4(), b5()
            b4():
                store field 5 at v6
                jmp b5()
            b5():
                v10 = add v2, u32 1
                jmp b1(v10, v6, v8)
            }
        "#]],
    );
}

#[test]
fn mem2reg_callee_stores_an_escaped_reference_into_an_escaped_cell() {
    // `v3` holds `v2` before the call; the callee stores `v1` into `v3`'s cell, so `v4` is `v1`
    // and the result is 1. The store of 0 at `v2` must not be forwarded to `load v4`.
    check_pass(
        "mem2reg",
        "
fn main f0 -> field {
b0():
    v1 = allocate field
    store field 1 at v1
    v2 = allocate field
    v3 = allocate &field
    store v2 at v3
    call f1(v3, v1)
    v4 = load v3
    store field 0 at v2
    v5 = load v4
    return v5
}
fn redirect f1 {
b0(v0: &&field, v1: &field):
    store v1 at v0
    return
}",
        &["[]"],
        expect![[r#"
            fn main f0 -> field {
            b0():
                v0 = allocate field
                store field 1 at v0
                v1 = allocate field
                v2 = allocate &field
                store v1 at v2
                call f1(v2, v0)
                v3 = load v2
                store field 0 at v1
                v4 = load v3
                return v4
            }

            fn redirect f1 {
            b0(v0: &&field, v1: &field):
                store v1 at v0
                return
            }
        "#]],
    );
}

// ---- inline ----

#[test]
fn inline_replaces_calls_and_drops_the_callee() {
    check_pass(
        "inline",
        "
fn abs_diff f1 -> u32 {
b0(v0: u32, v1: u32):
    v2 = lt v0, v1
    br v2, b1(), b2()
b1():
    v3 = sub v1, v0
    return v3
b2():
    v4 = sub v0, v1
    return v4
}
fn main f0 -> u32 {
b0(v0: u32, v1: u32):
    v2 = call f1(v0, v1)
    v3 = call f1(v2, u32 10)
    v4 = add v3, u32 1
    return v4
}",
        &[r#"["3", "5"]"#, r#"["20", "5"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32, v1: u32):
                jmp b1()
            b1():
                v2 = lt v0, v1
                br v2, b3(), b2()
            b2():
                v3 = sub v0, v1
                jmp b4(v3)
            b3():
                v4 = sub v1, v0
                jmp b4(v4)
            b4(v5: u32):
                jmp b5()
            b5():
                v6 = lt v5, u32 10
                br v6, b7(), b6()
            b6():
                v7 = sub v5, u32 10
                jmp b8(v7)
            b7():
                v8 = sub u32 10, v5
                jmp b8(v8)
            b8(v9: u32):
                v10 = add v9, u32 1
                return v10
            }
        "#]],
    );
}

#[test]
fn inline_refuses_recursion() {
    let mut program = parse_program(
        "
fn f f1 -> u32 {
b0(v0: u32):
    v1 = call f2(v0)
    return v1
}
fn g f2 -> u32 {
b0(v0: u32):
    v1 = call f1(v0)
    return v1
}
fn main f0 -> u32 {
b0(v0: u32):
    v1 = call f1(v0)
    return v1
}",
    )
    .unwrap();
    let err = optimize(
        &mut program,
        &zkbc::opt::OptLevel::O2.pipeline(),
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        zkbc::opt::OptError::Recursion(vec!["f".into(), "g".into()])
    );
    assert_eq!(
        err.to_string(),
        "recursion is not supported: f, g call each other"
    );
}

// ---- sccp ----

#[test]
fn sccp_folds_a_constant_branch_and_removes_the_dead_side() {
    check_pass(
        "sccp",
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = add u32 2, u32 3
    v2 = lt v1, u32 4
    br v2, b1(), b2()
b1():
    return v0
b2():
    v3 = mul v0, v1
    return v3
}",
        &[r#"["7"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1()
            b1():
                v1 = mul v0, u32 5
                return v1
            }
        "#]],
    );
}

#[test]
fn sccp_parameters_see_only_executable_edges() {
    // x stays 1 around the loop: the edge that would set it to 2 is never executable.
    check_pass(
        "sccp",
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 1)
b1(v1: u32, v2: u32):
    v3 = lt v1, v0
    br v3, b2(), b5()
b2():
    v4 = eq v2, u32 1
    br v4, b3(), b4()
b3():
    v5 = add v1, v2
    jmp b1(v5, v2)
b4():
    jmp b1(v1, u32 2)
b5():
    v6 = mul v2, u32 10
    return v6
}",
        &[r#"["0"]"#, r#"["5"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1(u32 0, u32 1)
            b1(v1: u32, v2: u32):
                v3 = lt v1, v0
                br v3, b3(), b2()
            b2():
                return u32 10
            b3():
                jmp b4()
            b4():
                v4 = add v1, u32 1
                jmp b1(v4, u32 1)
            }
        "#]],
    );
}

#[test]
fn sccp_folds_with_the_interpreter_semantics() {
    // u8 wrap-around, field inverse, shifts past the width, checked casts that fit, arrays.
    check_pass(
        "sccp",
        "
fn main f0 -> u8, field, u32, u32, field, u1 {
b0():
    v0 = add u8 250, u8 10
    v1 = div field 1, field 2
    v2 = shl u32 1, u32 40
    v3 = cast field 7 to u32
    v4 = make_array [field 3, field 4] : field
    v5 = array_get v4, u32 1
    v6 = to_bits u8 5
    v7 = array_get v6, u32 7
    return v0, v1, v2, v3, v5, v7
}",
        &["[]"],
        expect![[r#"
            fn main f0 -> u8, field, u32, u32, field, u1 {
            b0():
                v0 = make_array [field 3, field 4] : field
                v1 = to_bits u8 5
                return u8 4, field -10944121435919637611123202872628637544274182200208017171849102093287904247808, u32 0, u32 7, field 4, u1 1
            }
        "#]],
    );
}

#[test]
fn sccp_keeps_operations_that_must_fail() {
    // Division by zero, a failing assertion, a cast that does not fit and an index out of
    // bounds are behaviour: they stay. The true assertion goes.
    check_pass(
        "sccp",
        "
fn main f0 -> u32 {
b0(v0: u32):
    assert u1 1
    v1 = urem v0, u32 4
    br u1 1, b1(v1), b5(v1)
b1(v2: u32):
    v3 = eq v2, u32 0
    br v3, b2(), b3()
b2():
    v4 = udiv u32 1, u32 0
    return v4
b3():
    v5 = eq v2, u32 1
    br v5, b4(), b6()
b4():
    assert u1 0, \"boom\"
    return u32 1
b6():
    v6 = eq v2, u32 2
    br v6, b7(), b8()
b7():
    v7 = cast field -1 to u32
    return v7
b8():
    v8 = make_array [u32 1] : u32
    v9 = array_get v8, u32 3
    return v9
b5(v10: u32):
    return v10
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["2"]"#, r#"["3"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                v1 = urem v0, u32 4
                jmp b1(v1)
            b1(v2: u32):
                v3 = eq v2, u32 0
                br v3, b7(), b2()
            b2():
                v4 = eq v2, u32 1
                br v4, b6(), b3()
            b3():
                v5 = eq v2, u32 2
                br v5, b5(), b4()
            b4():
                v6 = make_array [u32 1] : u32
                v7 = array_get v6, u32 3
                return v7
            b5():
                v8 = cast field -1 to u32
                return v8
            b6():
                assert u1 0, "boom"
                return u32 1
            b7():
                v9 = udiv u32 1, u32 0
                return v9
            }
        "#]],
    );
}
