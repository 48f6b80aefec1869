//! Lowering, as text in and text out: the IR shape each source construct produces
//! (`UPDATE_EXPECT=1 cargo test --test all front_lower::` refreshes the snapshots).

use expect_test::{expect, Expect};

fn check(source: &str, expected: Expect) {
    let (program, _) = match zkbc::front::compile_source("t.zok", source) {
        Ok(r) => r,
        Err(d) => panic!("{}", d.render("t.zok", source)),
    };
    zkbc::ir::verify::verify_program(&program).expect("lowered IR verifies");
    expected.assert_eq(&program.normalized_text());
}

#[test]
fn mutable_local_in_memory_and_for_loop() {
    check(
        "def main(field a, u32 n) -> field {
    field mut x = a;
    for u32 i in 0..n {
        x = x * a;
    }
    return x;
}",
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u32):
                v2 = allocate field
                store v0 at v2
                jmp b1(u32 0)
            b1(v3: u32):
                v4 = lt v3, v1
                br v4, b3(), b2()
            b2():
                v5 = load v2
                return v5
            b3():
                v6 = load v2
                v7 = mul v6, v0
                store v7 at v2
                v8 = add v3, u32 1
                jmp b1(v8)
            }
        "#]],
    );
}

#[test]
fn if_statement_early_return_and_while() {
    check(
        "def main(u32 a) -> u32 {
    u32 mut i = 0;
    while i < a {
        if i == 3 {
            return i;
        } else {
            i = i + 1;
        }
    }
    return 100;
}",
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                v1 = allocate u32
                store u32 0 at v1
                jmp b1()
            b1():
                v2 = load v1
                v3 = lt v2, v0
                br v3, b3(), b2()
            b2():
                return u32 100
            b3():
                v4 = load v1
                v5 = eq v4, u32 3
                br v5, b6(), b4()
            b4():
                v6 = load v1
                v7 = add v6, u32 1
                store v7 at v1
                jmp b5()
            b5():
                jmp b1()
            b6():
                v8 = load v1
                return v8
            }
        "#]],
    );
}

#[test]
fn structs_are_flattened_and_arrays_of_structs_are_one_array_per_member() {
    check(
        "struct P { field x; bool b; }
def main(P[2] ps, u32 i) -> (field, bool) {
    P[2] mut qs = ps;
    qs[i].x = 7;
    return (qs[0].x, ps[i].b);
}",
        expect![[r#"
            fn main f0 -> field, u1 {
            b0(v0: [field; 2], v1: [u1; 2], v2: u32):
                v3 = allocate [field; 2]
                store v0 at v3
                v4 = allocate [u1; 2]
                store v1 at v4
                v5 = load v3
                v6 = load v4
                v7 = array_get v5, v2 @4:5
                v8 = array_get v6, v2 @4:5
                v9 = array_set v5, v2, field 7 @4:5
                v10 = array_set v6, v2, v8 @4:5
                store v9 at v3
                store v10 at v4
                v11 = load v3
                v12 = load v4
                v13 = array_get v11, u32 0 @5:13
                v14 = array_get v12, u32 0 @5:13
                v15 = array_get v0, v2 @5:22
                v16 = array_get v1, v2 @5:22
                return v13, v16
            }
        "#]],
    );
}

#[test]
fn conditional_that_can_fail_branches_and_safe_one_selects() {
    check(
        "def main(field a, field b, bool c) -> (field, field) {
    return (c ? a / b : a, c ? a * b : b);
}",
        expect![[r#"
            fn main f0 -> field, field {
            b0(v0: field, v1: field, v2: u1):
                br v2, b2(), b1()
            b1():
                jmp b3(v0)
            b2():
                v3 = div v0, v1 @2:17
                jmp b3(v3)
            b3(v4: field):
                v5 = mul v0, v1
                v6 = select v2, v5, v1
                return v4, v6
            }
        "#]],
    );
}

#[test]
fn calls_stay_calls_with_flattened_tuples() {
    check(
        "def f(field x) -> (field, u8) {
    return (x + 1, 2);
}
def main(field a) -> u8 {
    (field, u8) t = f(a);
    return t.1;
}",
        expect![[r#"
            fn f f0 -> field, u8 {
            b0(v0: field):
                v1 = add v0, field 1
                return v1, u8 2
            }

            fn main f1 -> u8 {
            b0(v0: field):
                v1, v2 = call f0(v0) @5:21
                return v2
            }
        "#]],
    );
}

/// Deep nesting up to the parser's limit compiles and runs, on a test thread's 2 MiB stack
/// (the front end's recursive passes run on their own large stack): a chain of 1000 additions
/// (each operator is a level of the tree), 1000 parentheses, 400 nested if-expressions. One
/// level more than the limit is a located error.
#[test]
fn deep_nesting_up_to_the_limit_compiles() {
    use zkbc::ir::interp::{self, Val};
    let x = || Val::Field(zkbc::field::Fr::from(3u64));
    let cases = [
        (format!("x{}", " + x".repeat(1000)), 3 * 1001),
        (format!("{}x{}", "(".repeat(1000), ")".repeat(1000)), 3),
        (
            format!(
                "{}x{}",
                "if x == 3 { ".repeat(400),
                " } else { 0 }".repeat(400)
            ),
            3,
        ),
    ];
    for (expr, expected) in cases {
        let src = format!("def main(field x) -> field {{\n    return {expr};\n}}\n");
        for level in [zkbc::opt::OptLevel::O0, zkbc::opt::OptLevel::O3] {
            let options = zkbc::driver::Options {
                opt_level: level,
                ..zkbc::driver::Options::default()
            };
            let compiled =
                zkbc::driver::compile("deep.zok", &src, &options).unwrap_or_else(|e| panic!("{e}"));
            let out = interp::run(&compiled.program, &[x()], interp::Limits::default()).unwrap();
            assert_eq!(
                out.outputs,
                vec![Val::Field(zkbc::field::Fr::from(expected as u64))]
            );
        }
    }
    let too_deep = format!(
        "def main(field x) -> field {{\n    return x{};\n}}\n",
        " + x".repeat(zkbc::front::parser::MAX_DEPTH)
    );
    let err = zkbc::front::compile_source("deep.zok", &too_deep).unwrap_err();
    assert!(
        err.message
            .contains("nested too deeply (the limit is 1024 levels)"),
        "{}",
        err.message
    );
}
