//! Pass tests of the passes late in the pipeline (dce, simplify_cfg, the pipeline itself,
//! remat, gvn), as text in, text out, like `tests/opt_passes.rs` (split from it): each runs
//! the named passes on an IR program, snapshots the normalized result (`UPDATE_EXPECT=1 cargo
//! test` refreshes the snapshots), and runs the interpreter before and after on the given
//! inputs, which must give the same outputs (or the same failure).

use expect_test::expect;
#[path = "common/passes.rs"]
mod passes;
use passes::check_pass;
use zkbc::ir::parse_program;
use zkbc::opt::{optimize, Options};

// ---- dce and simplify_cfg ----

#[test]
fn dce_removes_dead_values_and_dead_parameter_cycles() {
    check_pass(
        "dce",
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = mul v0, v0
    v2 = udiv v0, u32 3
    jmp b1(u32 0, v1)
b1(v3: u32, v4: u32):
    v5 = lt v3, v0
    br v5, b2(), b3()
b2():
    v6 = add v4, u32 1
    v7 = add v3, u32 1
    jmp b1(v7, v6)
b3():
    return v3
}",
        &[r#"["3"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                v1 = udiv v0, u32 3
                jmp b1(u32 0)
            b1(v2: u32):
                v3 = lt v2, v0
                br v3, b3(), b2()
            b2():
                return v2
            b3():
                v4 = add v2, u32 1
                jmp b1(v4)
            }
        "#]],
    );
}

#[test]
fn simplify_cfg_removes_forwarders_and_merges_blocks() {
    check_pass(
        "simplify_cfg",
        "
fn main f0 -> u32 {
b0(v0: u1):
    br v0, b1(), b2()
b1():
    jmp b3(u32 1)
b2():
    jmp b3(u32 2)
b3(v1: u32):
    jmp b4()
b4():
    v3 = add v1, u32 1
    br v0, b5(v3), b5(v3)
b5(v4: u32):
    return v4
}",
        &[r#"[true]"#, r#"[false]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u1):
                br v0, b1(u32 1), b1(u32 2)
            b1(v1: u32):
                v2 = add v1, u32 1
                return v2
            }
        "#]],
    );
}

// ---- pipeline ----

#[test]
fn o2_turns_locals_in_a_loop_into_block_parameters_and_folds_constants() {
    check_pass(
        "inline,mem2reg,sccp,dce,simplify_cfg,mem2reg,sccp,dce,simplify_cfg",
        "
fn step f1 -> field {
b0(v0: field, v1: u32):
    v2 = lt v1, u32 100
    br v2, b1(), b2()
b1():
    v3 = add v0, field 1
    return v3
b2():
    return v0
}
fn main f0 -> field {
b0(v0: u32):
    v1 = allocate field
    store field 0 at v1
    v2 = allocate u32
    store u32 0 at v2
    jmp b1()
b1():
    v3 = load v2
    v4 = lt v3, v0
    br v4, b2(), b3()
b2():
    v5 = load v1
    v6 = call f1(v5, u32 3)
    store v6 at v1
    v7 = add v3, u32 1
    store v7 at v2
    jmp b1()
b3():
    v8 = load v1
    return v8
}",
        &[r#"["0"]"#, r#"["4"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                jmp b1(field 0, u32 0)
            b1(v1: field, v2: u32):
                v3 = lt v2, v0
                br v3, b3(), b2()
            b2():
                return v1
            b3():
                v4 = add v1, field 1
                v5 = add v2, u32 1
                jmp b1(v4, v5)
            }
        "#]],
    );
}

#[test]
fn print_after_and_skip() {
    let mut program = parse_program(
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = allocate u32
    store v0 at v1
    v2 = load v1
    v3 = mul u32 2, u32 3
    v4 = add v2, v3
    return v4
}",
    )
    .unwrap();
    let options = Options {
        print_after: vec!["mem2reg".into()],
        skip: vec!["sccp".into()],
        verify: true,
        ..Options::default()
    };
    let report = optimize(&mut program, &zkbc::opt::OptLevel::O2.pipeline(), &options).unwrap();
    assert!(report.runs.iter().all(|r| r.name != "sccp"));
    assert_eq!(report.runs[0].name, "inline");
    assert_eq!(
        report.printed.len(),
        2,
        "mem2reg runs twice: once changing, once not"
    );
    assert!(report.printed[0]
        .0
        .starts_with("after mem2reg (round 1): allocations_promoted=1"));
    assert!(!report.printed[0].1.contains("load"));
    // sccp skipped: the constant multiplication is still there.
    assert!(program.to_string().contains("u32 2, u32 3"));
    assert!(report.timing_table().contains("mem2reg"));
}

#[test]
fn ranges_marks_a_counted_increment_and_compares_by_equality() {
    check_pass(
        "ranges",
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = lt v1, u32 10
    br v3, b2(), b3()
b2():
    v4 = add v1, u32 1
    v5 = add v2, v0
    jmp b1(v4, v5)
b3():
    return v2
}",
        &[r#"["7"]"#, r#"["4294967295"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1(u32 0, u32 0)
            b1(v1: u32, v2: u32):
                v3 = eq v1, u32 10
                br v3, b3(), b2()
            b2():
                v4 = add nuw v1, u32 1
                v5 = add v2, v0
                jmp b1(v4, v5)
            b3():
                return v2
            }
        "#]],
    );
}

#[test]
fn ranges_decides_comparisons_and_casts_that_fit() {
    check_pass(
        "ranges,sccp,dce,simplify_cfg",
        "
fn main f0 -> u8, u32 {
b0(v0: u32):
    v1 = lt v0, u32 200
    br v1, b1(), b2()
b1():
    v2 = cast v0 to u8
    v3 = lt v0, u32 300
    v4 = select v3, u32 1, u32 2
    return v2, v4
b2():
    v5 = sub v0, u32 200
    v6 = le v0, u32 199
    v7 = select v6, u32 5, v5
    return u8 0, v7
}",
        &[r#"["0"]"#, r#"["199"]"#, r#"["200"]"#, r#"["4294967295"]"#],
        expect![[r#"
            fn main f0 -> u8, u32 {
            b0(v0: u32):
                v1 = lt v0, u32 200
                br v1, b2(), b1()
            b1():
                v2 = sub nuw v0, u32 200
                return u8 0, v2
            b2():
                v3 = cast nuw v0 to u8
                return v3, u32 1
            }
        "#]],
    );
}

/// Known bits (`analysis::known_bits`): a concatenation `(x << 8) + (y & 255)` cannot carry
/// although the shifted side's interval is every `u32`; `(y | 1) == 4` is false (bit 0 is 1 on
/// one side, 0 on the other); `(x & 0xF0F0) << 16` fits (the mask's interval says so too).
#[test]
fn ranges_uses_known_bits_for_concatenations_and_parities() {
    check_pass(
        "ranges",
        "
fn main f0 -> u32, u1, u32 {
b0(v0: u32, v1: u32):
    v2 = shl v0, u32 8
    v3 = and v1, u32 255
    v4 = add v2, v3
    v5 = or v1, u32 1
    v6 = eq v5, u32 4
    v7 = and v0, u32 61680
    v8 = shl v7, u32 16
    return v4, v6, v8
}",
        &[
            r#"["0", "0"]"#,
            r#"["4294967295", "4294967295"]"#,
            r#"["305419896", "4"]"#,
        ],
        expect![[r#"
            fn main f0 -> u32, u1, u32 {
            b0(v0: u32, v1: u32):
                v2 = shl v0, u32 8
                v3 = and v1, u32 255
                v4 = add nuw v2, v3
                v5 = or v1, u32 1
                v6 = eq v5, u32 4
                v7 = and v0, u32 61680
                v8 = shl nuw v7, u32 16
                return v4, u1 0, v8
            }
        "#]],
    );
}

#[test]
fn indvars_clamps_a_runtime_bound_once_per_entry() {
    check_pass(
        "indvars",
        "
fn main f0 -> u32, u32 {
b0(v0: u32, v1: u32):
    jmp b1(v0, u32 0)
b1(v2: u32, v3: u32):
    v4 = lt v2, v1
    br v4, b2(), b3()
b2():
    v5 = add v2, u32 1
    v6 = add v3, v2
    jmp b1(v5, v6)
b3():
    return v2, v3
}",
        &[
            r#"["3", "10"]"#,
            r#"["10", "3"]"#,
            r#"["5", "5"]"#,
            r#"["4294967290", "4294967295"]"#,
        ],
        expect![[r#"
            fn main f0 -> u32, u32 {
            b0(v0: u32, v1: u32):
                v2 = lt v1, v0
                v3 = select v2, v0, v1
                jmp b1(v0, u32 0)
            b1(v4: u32, v5: u32):
                v6 = eq v4, v3
                br v6, b3(), b2()
            b2():
                v7 = add nuw v4, u32 1
                v8 = add v5, v4
                jmp b1(v7, v8)
            b3():
                return v4, v5
            }
        "#]],
    );
}

#[test]
fn indvars_takes_an_increment_on_some_paths_only() {
    // KMP's shape: `i` advances on one branch and stays on the other.
    check_pass(
        "indvars",
        "
fn main f0 -> u32 {
b0(v0: u32, v1: u32):
    jmp b1(u32 0, u32 0)
b1(v2: u32, v3: u32):
    v4 = lt v2, v0
    br v4, b2(), b5()
b2():
    v5 = lt v3, v1
    br v5, b3(), b4()
b3():
    v6 = add v3, u32 1
    jmp b1(v2, v6)
b4():
    v7 = add v2, u32 1
    jmp b1(v7, u32 0)
b5():
    return v3
}",
        &[r#"["4", "2"]"#, r#"["0", "9"]"#, r#"["3", "0"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32, v1: u32):
                jmp b1(u32 0, u32 0)
            b1(v2: u32, v3: u32):
                v4 = eq v2, v0
                br v4, b5(), b2()
            b2():
                v5 = lt v3, v1
                br v5, b4(), b3()
            b3():
                v6 = add nuw v2, u32 1
                jmp b1(v6, u32 0)
            b4():
                v7 = add v3, u32 1
                jmp b1(v2, v7)
            b5():
                return v3
            }
        "#]],
    );
}

#[test]
fn indvars_leaves_a_loop_stepping_by_two() {
    check_pass(
        "indvars",
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0)
b1(v1: u32):
    v2 = lt v1, v0
    br v2, b2(), b3()
b2():
    v3 = add v1, u32 2
    jmp b1(v3)
b3():
    return v1
}",
        &[r#"["7"]"#, r#"["8"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1(u32 0)
            b1(v1: u32):
                v2 = lt v1, v0
                br v2, b3(), b2()
            b2():
                return v1
            b3():
                v3 = add v1, u32 2
                jmp b1(v3)
            }
        "#]],
    );
}

#[test]
fn strength_turns_power_of_two_division_and_remainder_into_shift_and_mask() {
    check_pass(
        "strength",
        "
fn main f0 -> u64, u64, u64, u64, u32 {
b0(v0: u64, v1: u32):
    v2 = urem v0, u64 2
    v3 = udiv v0, u64 8
    v4 = udiv v0, u64 1
    v5 = mul v0, u64 4
    v6 = udiv v1, u32 3
    return v2, v3, v4, v5, v6
}",
        &[
            r#"["0", "0"]"#,
            r#"["27", "10"]"#,
            r#"["18446744073709551615", "4294967295"]"#,
        ],
        expect![[r#"
            fn main f0 -> u64, u64, u64, u64, u32 {
            b0(v0: u64, v1: u32):
                v2 = and v0, u64 1
                v3 = shr v0, u64 3
                v4 = udiv v0, u64 1
                v5 = shl v0, u64 2
                v6 = udiv v1, u32 3
                return v2, v3, v0, v5, v6
            }
        "#]],
    );
}

// ---- remat ----

#[test]
fn remat_copies_a_constant_array_into_the_loop_body() {
    // const_array_local.zok: the array built before the loop is read in its body.
    check_pass(
        "remat,dce",
        "
fn main f0 -> field {
b0(v0: u32):
    v1 = make_array [field 3, field 1, field 4] : field
    jmp b1(u32 0, field 0)
b1(v2: u32, v3: field):
    v4 = eq v2, v0
    br v4, b3(), b2()
b2():
    v5 = array_get v1, v2 @1:1
    v6 = add v3, v5
    v7 = add v2, u32 1
    jmp b1(v7, v6)
b3():
    return v3
}",
        &[r#"["0"]"#, r#"["3"]"#, r#"["4"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32):
                jmp b1(u32 0, field 0)
            b1(v1: u32, v2: field):
                v3 = eq v1, v0
                br v3, b3(), b2()
            b2():
                v4 = make_array [field 3, field 1, field 4] : field
                v5 = array_get v4, v1 @1:1
                v6 = add v2, v5
                v7 = add v1, u32 1
                jmp b1(v7, v6)
            b3():
                return v2
            }
        "#]],
    );
}

#[test]
fn remat_copies_nested_constant_arrays_once_per_block() {
    // Both uses in b1 share one copy; the inner array is copied first.
    check_pass(
        "remat,dce",
        "
fn main f0 -> field, [u32; 2] {
b0(v0: u1, v1: u32):
    v2 = make_array [u32 1, u32 2] : u32
    v3 = make_array [v2, v2] : [u32; 2]
    br v0, b1(), b2()
b1():
    v4 = array_get v3, v1 @1:1
    v5 = array_get v3, u32 0 @1:2
    v6 = array_get v5, v1 @1:3
    v7 = cast v6 to field
    return v7, v4
b2():
    return field 0, v2
}",
        &[
            r#"[true, "0"]"#,
            r#"[true, "1"]"#,
            r#"[true, "2"]"#,
            r#"[false, "0"]"#,
        ],
        expect![[r#"
            fn main f0 -> field, [u32; 2] {
            b0(v0: u1, v1: u32):
                br v0, b2(), b1()
            b1():
                v2 = make_array [u32 1, u32 2] : u32
                return field 0, v2
            b2():
                v3 = make_array [u32 1, u32 2] : u32
                v4 = make_array [v3, v3] : [u32; 2]
                v5 = array_get v4, v1 @1:1
                v6 = array_get v4, u32 0 @1:2
                v7 = array_get v6, v1 @1:3
                v8 = cast v7 to field
                return v8, v5
            }
        "#]],
    );
}

#[test]
fn remat_leaves_an_array_that_is_not_constant() {
    check_pass(
        "remat,dce",
        "
fn main f0 -> field {
b0(v0: u32, v1: field):
    v2 = make_array [field 3, v1, field 4] : field
    jmp b1(u32 0, field 0)
b1(v3: u32, v4: field):
    v5 = eq v3, v0
    br v5, b3(), b2()
b2():
    v6 = array_get v2, v3 @1:1
    v7 = add v4, v6
    v8 = add v3, u32 1
    jmp b1(v8, v7)
b3():
    return v4
}",
        &[r#"["0", "7"]"#, r#"["3", "7"]"#, r#"["4", "7"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32, v1: field):
                v2 = make_array [field 3, v1, field 4] : field
                jmp b1(u32 0, field 0)
            b1(v3: u32, v4: field):
                v5 = eq v3, v0
                br v5, b3(), b2()
            b2():
                v6 = array_get v2, v3 @1:1
                v7 = add v4, v6
                v8 = add v3, u32 1
                jmp b1(v8, v7)
            b3():
                return v4
            }
        "#]],
    );
}

#[test]
fn remat_makes_a_parameter_always_bound_to_one_constant_array_that_array() {
    // Every jump into b1 passes [1, 2] (built twice) or b1's own parameter: the parameter is
    // that constant, copied into b1 and b2, where it is used. The array that differs (b3's
    // parameter, [1, 3] on one edge) stays a parameter.
    check_pass(
        "remat,dce",
        "
fn main f0 -> u32 {
b0(v0: u32, v1: u1):
    v2 = make_array [u32 1, u32 2] : u32
    v12 = make_array [u32 1, u32 3] : u32
    br v1, b1(v2, u32 0), b3(v12)
b1(v3: [u32; 2], v4: u32):
    v5 = eq v4, v0
    br v5, b3(v3), b2()
b2():
    v6 = make_array [u32 1, u32 2] : u32
    v7 = array_get v3, u32 1 @1:1
    v8 = add v4, v7
    v9 = lt v8, u32 5
    br v9, b1(v3, v8), b1(v6, v8)
b3(v10: [u32; 2]):
    v11 = array_get v10, u32 0 @1:2
    return v11
}",
        &[
            r#"["0", true]"#,
            r#"["4", true]"#,
            // 6 is reached through the jump that passes the array built in b2.
            r#"["6", true]"#,
            r#"["0", false]"#,
        ],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32, v1: u1):
                v2 = make_array [u32 1, u32 3] : u32
                br v1, b1(u32 0), b3(v2)
            b1(v3: u32):
                v4 = make_array [u32 1, u32 2] : u32
                v5 = eq v3, v0
                br v5, b3(v4), b2()
            b2():
                v6 = make_array [u32 1, u32 2] : u32
                v7 = array_get v6, u32 1 @1:1
                v8 = add v3, v7
                v9 = lt v8, u32 5
                br v9, b1(v8), b1(v8)
            b3(v10: [u32; 2]):
                v11 = array_get v10, u32 0 @1:2
                return v11
            }
        "#]],
    );
}

// ---- gvn ----

#[test]
fn gvn_replaces_a_repeated_array_get_and_a_commuted_add() {
    // After merging, one block reads the same element twice and adds in both orders. The
    // out-of-bounds index fails at the first read, before and after.
    check_pass(
        "gvn",
        "
fn main f0 -> u32, u32 {
b0(v0: [u32; 3], v1: u32):
    v2 = array_get v0, v1 @1:1
    v3 = add v2, v1
    v4 = array_get v0, v1 @2:1
    v5 = add v1, v4
    v6 = mul v3, v5
    v7 = add v1, u32 1
    v8 = add u32 1, v1
    v9 = sub v7, v8
    return v6, v9
}",
        &[
            r#"[["1", "2", "3"], "0"]"#,
            r#"[["1", "2", "3"], "2"]"#,
            r#"[["1", "2", "3"], "3"]"#,
        ],
        expect![[r#"
            fn main f0 -> u32, u32 {
            b0(v0: [u32; 3], v1: u32):
                v2 = array_get v0, v1 @1:1
                v3 = add v2, v1
                v4 = mul v3, v3
                v5 = add v1, u32 1
                v6 = sub v5, v5
                return v4, v6
            }
        "#]],
    );
}

#[test]
fn gvn_reuses_a_value_of_a_dominating_block_but_not_across_the_arms_of_a_diamond() {
    // b1's `mul` is b0's; b2 and b3 compute the same `add`, but neither dominates the other,
    // so both stay (and so does the join's, which neither arm dominates).
    check_pass(
        "gvn",
        "
fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = mul v0, v0
    br v1, b1(), b2()
b1():
    v3 = mul v0, v0
    v4 = add v3, field 1
    jmp b3(v4)
b2():
    v5 = add field 1, v2
    jmp b3(v5)
b3(v6: field):
    v7 = add v2, field 1
    v8 = add v6, v7
    return v8
}",
        &[r#"["3", true]"#, r#"["3", false]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u1):
                v2 = mul v0, v0
                br v1, b2(), b1()
            b1():
                v3 = add field 1, v2
                jmp b3(v3)
            b2():
                v4 = add v2, field 1
                jmp b3(v4)
            b3(v5: field):
                v6 = add v2, field 1
                v7 = add v5, v6
                return v7
            }
        "#]],
    );
}

#[test]
fn gvn_keeps_the_first_of_two_adds_with_its_own_nuw() {
    // `add nuw` then `add`: the `add` goes, `nuw` stays. `add` then `add nuw`: the `add nuw`
    // goes and the first keeps no flag (its `nuw` would be a claim about paths through the
    // second only).
    check_pass(
        "gvn",
        "
fn main f0 -> u32, u32, u32, u32 {
b0(v0: u32):
    v1 = lt v0, u32 100
    br v1, b1(), b2()
b1():
    v2 = add nuw v0, u32 1
    v3 = add v0, u32 1
    v4 = add v0, u32 2
    v5 = add nuw v0, u32 2
    return v2, v3, v4, v5
b2():
    return u32 0, u32 0, u32 0, u32 0
}",
        &[r#"["0"]"#, r#"["99"]"#, r#"["100"]"#],
        expect![[r#"
            fn main f0 -> u32, u32, u32, u32 {
            b0(v0: u32):
                v1 = lt v0, u32 100
                br v1, b2(), b1()
            b1():
                return u32 0, u32 0, u32 0, u32 0
            b2():
                v2 = add nuw v0, u32 1
                v3 = add v0, u32 2
                return v2, v2, v3, v3
            }
        "#]],
    );
}

#[test]
fn gvn_shares_a_read_only_array_only_within_its_block() {
    // b1's copy of the constant array (what `remat` makes) is not replaced by b0's, which
    // dominates it: that would carry the array from b0 to b1 again. b1's second copy, only read,
    // is b1's first; its read at a constant index is the element itself.
    check_pass(
        "gvn",
        "
fn main f0 -> field, field {
b0(v0: u32):
    v1 = make_array [field 3, field 1] : field
    v2 = array_get v1, v0 @1:1
    jmp b1()
b1():
    v3 = make_array [field 3, field 1] : field
    v4 = make_array [field 3, field 1] : field
    v5 = array_get v3, v0 @2:1
    v6 = array_get v4, v0 @3:1
    v8 = array_get v4, u32 1 @3:1
    v7 = add v5, v6
    v9 = add v7, v8
    return v2, v9
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["2"]"#],
        expect![[r#"
            fn main f0 -> field, field {
            b0(v0: u32):
                v1 = make_array [field 3, field 1] : field
                v2 = array_get v1, v0 @1:1
                jmp b1()
            b1():
                v3 = make_array [field 3, field 1] : field
                v4 = make_array [field 3, field 1] : field
                v5 = array_get v3, v0 @2:1
                v6 = array_get v4, v0 @3:1
                v7 = add v5, v6
                v8 = add v7, field 1
                return v2, v8
            }
        "#]],
    );
}

#[test]
fn gvn_keeps_two_arrays_that_start_equal_and_are_written_apart() {
    // `a = [0; 2]; b = [0; 2];`, each then written: two array families, which stay two (one
    // value would be live after a write of the other, and leave memory). A read at a constant
    // index through the writes of the block is the value written.
    check_pass(
        "gvn",
        "
fn main f0 -> u32, u32 {
b0(v0: u32, v1: u32):
    v2 = make_array [u32 0, u32 0] : u32
    v3 = make_array [u32 0, u32 0] : u32
    v4 = array_set v2, u32 0, v0 @1:1
    v5 = array_set v3, u32 0, v1 @2:1
    v6 = array_set v4, u32 1, v1 @3:1
    v7 = array_get v6, u32 0 @4:1
    v8 = array_get v5, v1 @5:1
    return v7, v8
}",
        &[r#"["5", "0"]"#, r#"["5", "1"]"#, r#"["5", "2"]"#],
        expect![[r#"
            fn main f0 -> u32, u32 {
            b0(v0: u32, v1: u32):
                v2 = make_array [u32 0, u32 0] : u32
                v3 = make_array [u32 0, u32 0] : u32
                v4 = array_set v2, u32 0, v0 @1:1
                v5 = array_set v3, u32 0, v1 @2:1
                v6 = array_set v4, u32 1, v1 @3:1
                v7 = array_get v5, v1 @5:1
                return v0, v7
            }
        "#]],
    );
}

#[test]
fn gvn_keeps_two_hints_whose_zeros_are_observed() {
    // Each hint gives zeros where its guard is 0, and here both results are returned whatever
    // the guards: one hint under `v1 or v2` would return 6 instead of 3. The two stay two.
    check_pass(
        "gvn",
        "
fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = not v1
    v3 = hint f1(v0) if v1
    v4 = hint f1(v0) if v2
    v5 = add v3, v4
    return v5
}

fn root f1 -> field {
b0(v0: field):
    v1 = mul v0, field 0
    v2 = add v1, field 3
    return v2
}",
        &[r#"["9", "0"]"#, r#"["9", "1"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u1):
                v2 = not v1
                v3 = hint f1(v0) if v1
                v4 = hint f1(v0) if v2
                v5 = add v3, v4
                return v5
            }

            fn root f1 -> field {
            b0(v0: field):
                v1 = mul v0, field 0
                v2 = add v1, field 3
                return v2
            }
        "#]],
    );
}

#[test]
fn gvn_shares_a_hint_of_two_arms_under_the_union_of_their_guards() {
    // After predication, both arms run `hint f1(v0)`, under complementary guards. Each arm
    // observes its hint only under its own guard (its assertion is `or (not g), ..`, the join
    // selects by the guard), so one hint under `v1 or v2` serves both, and the second arm's
    // check of it is numbered as the first's.
    check_pass(
        "gvn",
        "
fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = not v1
    v3 = hint f1(v0) if v1
    v4 = mul v3, v3
    v5 = eq v4, v0
    v6 = or v2, v5
    assert v6, \"root\" @1:1
    v7 = hint f1(v0) if v2
    v8 = mul v7, v7
    v9 = eq v8, v0
    v10 = or v1, v9
    assert v10, \"root\" @2:1
    v11 = add v3, field 1
    v12 = select v1, v11, v7
    return v12
}

fn root f1 -> field {
b0(v0: field):
    v1 = mul v0, field 0
    v2 = add v1, field 3
    return v2
}",
        &[r#"["9", "0"]"#, r#"["9", "1"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u1):
                v2 = not v1
                v3 = or v1, v2
                v4 = hint f1(v0) if v3
                v5 = mul v4, v4
                v6 = eq v5, v0
                v7 = or v2, v6
                assert v7, "root" @1:1
                v8 = or v1, v6
                assert v8, "root" @2:1
                v9 = add v4, field 1
                v10 = select v1, v9, v4
                return v10
            }

            fn root f1 -> field {
            b0(v0: field):
                v1 = mul v0, field 0
                v2 = add v1, field 3
                return v2
            }
        "#]],
    );
}
