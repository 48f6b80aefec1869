//! ZoKrates 0.8's language as its examples use it (issue 35): each feature on a small program
//! whose outputs are computed by hand in the comments, and each rule ZoKrates enforces as a
//! located error (the message and the line:column it points at).

use std::path::Path;
use zkbc::front::{self, FrontOptions};

/// Writes `files` (relative path, text) under a new temporary folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("folders");
        std::fs::write(p, text).expect("the file is written");
    }
    dir
}

/// Compiles `file` (`text`, its imports relative to it) and runs it on `inputs`; the outputs
/// as JSON text, or the rendered error.
fn run_file(file: &Path, text: &str, inputs: serde_json::Value) -> Result<String, String> {
    let name = file.display().to_string();
    let (program, abi) = front::compile_file(&name, text, &FrontOptions::default())
        .map_err(|d| d.render(&name, text))?;
    let values = abi.inputs_from_json(&inputs)?;
    let out =
        zkbc::ir::interp::run(&program, &values, Default::default()).map_err(|e| e.to_string())?;
    Ok(abi.outputs_to_json(&out.outputs).to_string())
}

/// Runs a one-file program.
fn run(text: &str, inputs: serde_json::Value) -> String {
    run_file(Path::new("main.zok"), text, inputs).unwrap_or_else(|e| panic!("{e}"))
}

/// Compiles a one-file program expecting an error; returns "LINE:COL message".
fn err(text: &str) -> String {
    match front::compile_source("main.zok", text) {
        Ok(_) => panic!("expected a compile error for:\n{text}"),
        Err(d) => format!("{} {}", d.line_col(text), d.message),
    }
}

// ---- features ----

#[test]
fn structs_and_type_aliases_through_import_aliases() {
    let dir = folder(&[
        (
            "types.zok",
            "struct Foo<N> {\n    field[N] a;\n}\nstruct Pt {\n    field x;\n    field y;\n}\n\
             type Pair = Foo<2>;\ntype Row<K> = Foo<K>;\ntype Word = u32;\n\
             def main() {\n    return;\n}\n",
        ),
        (
            "main.zok",
            "from \"./types.zok\" import Foo as F, Pair as P, Row as R, Pt as Point, Word as W;\n\
             import \"./types.zok\" as types;\n\
             def main(field x) -> (field, W) {\n\
             \x20   P p = P { a: [x, 2] };\n\
             \x20   R<3> r = R { a: [1, 2, 3] };\n\
             \x20   F<1> f = F { a: [x] };\n\
             \x20   Point q = Point { x: 5, y: x };\n\
             \x20   types();\n\
             \x20   return (p.a[0] * r.a[2] + f.a[0] + q.x * q.y, 7);\n}\n",
        ),
    ]);
    let main = dir.path().join("main.zok");
    let text = std::fs::read_to_string(&main).expect("main.zok");
    // x = 4: 4 * 3 + 4 + 5 * 4 = 36.
    assert_eq!(
        run_file(&main, &text, serde_json::json!({"x": "4"})),
        Ok(r#"{"outputs":["36","7"]}"#.to_string())
    );
}

#[test]
fn struct_literal_through_a_local_alias() {
    let src = "struct Foo<A, B> {\n    field[A] a;\n    field[B] b;\n}\n\
               type Bar = Foo<2, 1>;\ntype Sq<A> = Foo<A, A>;\n\
               def main(field x) -> field {\n    Bar bar = Bar { a: [x, 1], b: [3] };\n\
               \x20   Sq<1> s = Sq { a: [x], b: [x] };\n\
               \x20   return bar.a[0] + bar.b[0] + s.a[0] * s.b[0];\n}\n";
    // x = 5: 5 + 3 + 25 = 33.
    assert_eq!(
        run(src, serde_json::json!({"x": "5"})),
        r#"{"outputs":["33"]}"#
    );
    // Without an expected type, a generic alias's values cannot be inferred.
    assert_eq!(
        err(
            "struct Foo<A> {\n    field[A] a;\n}\ntype Sq<A> = Foo<A>;\n\
             def main() -> field {\n    return Sq { a: [1] }.a[0];\n}\n"
        ),
        "6:12 cannot infer the generic parameters of type alias `Sq` here"
    );
}

#[test]
fn overloads_by_parameter_and_return_type() {
    let src = "def foo() -> field {\n    return 1;\n}\ndef foo() -> u32 {\n    return 2;\n}\n\
               def foo(field a) -> field {\n    return a * 10;\n}\n\
               def foo(u32 a) -> field {\n    return 5;\n}\n\
               def main(field x) -> (field, u32, field, field) {\n    field a = foo();\n\
               \x20   u32 b = foo();\n    return (a, b, foo(x), foo(b));\n}\n";
    // x = 3: foo() as field 1, as u32 2, foo(3) = 30, foo(2u32) = 5.
    assert_eq!(
        run(src, serde_json::json!({"x": "3"})),
        r#"{"outputs":["1","2","30","5"]}"#
    );
    assert_eq!(
        err(
            "def foo() -> field {\n    return 1;\n}\ndef foo() -> u32 {\n    return 2;\n}\n\
             def main() {\n    foo();\n    return;\n}\n"
        ),
        "8:5 ambiguous call to `foo`"
    );
    assert_eq!(
        err(
            "def foo() -> field {\n    return 1;\n}\ndef foo() -> field {\n    return 2;\n}\n\
             def main() {\n    return;\n}\n"
        ),
        "4:5 duplicate definition of function `foo`"
    );
}

#[test]
fn constants_computed_by_calls() {
    let src = "def tri(u32 n) -> u32 {\n    u32 mut s = 0;\n    for u32 i in 0..n {\n        s = s + i;\n    }\n    return s;\n}\n\
               const u32 T = tri(5) + 1;\n\
               struct P {\n    field a;\n    bool b;\n}\n\
               const field[3] V = fill(7);\n\
               const P Q = mk(T);\n\
               def fill(field x) -> field[3] {\n    return [x, x + 1, x * 2];\n}\n\
               def mk(u32 t) -> P {\n    return P { a: u32_to_field(t), b: t > 10 };\n}\n\
               def main(field[T] xs) -> (u32, field, field, bool, field) {\n    return (T, V[2], Q.a, Q.b, xs[10]);\n}\n";
    // T = 0 + 1 + 2 + 3 + 4 + 1 = 11; V = [7, 8, 14]; Q = P { a: 11, b: 11 > 10 }; xs[10] = 10.
    let xs: Vec<String> = (0..11).map(|i| i.to_string()).collect();
    assert_eq!(
        run(src, serde_json::json!({ "xs": xs })),
        r#"{"outputs":["11","14","11",true,"10"]}"#
    );
    // A failure while computing a constant is an error at the constant's value.
    assert_eq!(
        err(
            "def half(u32 x) -> u32 {\n    assert(x % 2 == 0, \"odd\");\n    return x / 2;\n}\n\n\
             const u32 H = half(7);\n\ndef main() -> u32 {\n    return H;\n}\n"
        ),
        "6:15 the value of constant `H` cannot be computed: assertion failed: odd"
    );
}

#[test]
fn every_literal_suffix() {
    let src = "def main() -> field {\n    field a = 1_f + 2f;\n\
               \x20   u32 b = 3_u32 + 4u32;\n    u8 c = 5_u8 + 1u8;\n    u16 d = 6_u16 + 1u16;\n\
               \x20   u64 e = 7_u64 + 1u64;\n\
               \x20   return a + u32_to_field(b) + u8_to_field(c) + u16_to_field(d) + u64_to_field(e);\n}\n";
    // 3 + 7 + 6 + 7 + 8 = 31.
    assert_eq!(run(src, serde_json::json!({})), r#"{"outputs":["31"]}"#);
}

#[test]
fn generic_inference_through_empty_spreads() {
    let src = "def ones<N>() -> u64[N] {\n    u64[N] y = [...[0; N - 1], 1];\n    return y;\n}\n\
               def len<N>(field[N] a) -> u32 {\n    return N;\n}\n\
               def main() -> (u64[1], u64[3], u32) {\n\
               \x20   return (ones::<1>(), ones::<3>(), len([...[0; 0], ...[1, 2]]));\n}\n";
    // N = 1 spreads an empty array: [1]; N = 3: [0, 0, 1]; the spread of [0; 0] adds nothing: 2.
    assert_eq!(
        run(src, serde_json::json!({})),
        r#"{"outputs":[["1"],["0","0","1"],"2"]}"#
    );
}

#[test]
fn array_sizes_from_computed_values() {
    let src = "def sum(u32 a, u32 b) -> u32 {\n    return a + b;\n}\n\nconst u32 A = 2;\n\n\
               def main(field[A] a) -> field {\n    u32 length_sum = A + 3;\n    u32 n = sum(A, 3);\n\
               \x20   u32 m = n * 2;\n    field[m] c = [1; m];\n    field[sum(1, 1)] d = a;\n\
               \x20   field[length_sum] e = [2; length_sum];\n    field mut s = 0;\n\
               \x20   for u32 i in 0..m {\n        s = s + c[i];\n    }\n    return s + d[1] + e[4];\n}\n";
    // n = 5, m = 10: s = 10; d = a, d[1] = 7; e[4] = 2: 19.
    assert_eq!(
        run(src, serde_json::json!({"a": ["1", "7"]})),
        r#"{"outputs":["19"]}"#
    );
}

// ---- rules ----

#[test]
fn visibility_only_on_main() {
    assert_eq!(
        err("def mul(private field a) -> field {\n    return a * a;\n}\ndef main() {\n    return;\n}\n"),
        "1:9 `private` is allowed only on the parameters of `main`"
    );
    assert_eq!(
        err("def mul(field b, public field a) -> field {\n    return a * b;\n}\ndef main() {\n    return;\n}\n"),
        "1:18 `public` is allowed only on the parameters of `main`"
    );
}

#[test]
fn nothing_after_return() {
    assert_eq!(
        err("def main() -> field {\n    return 1;\n    field a = 2;\n}\n"),
        "3:5 unreachable statement after `return`"
    );
    assert_eq!(
        err("def main() {\n    if true {\n        return;\n        return;\n    }\n    return;\n}\n"),
        "4:9 unreachable statement after `return`"
    );
}

#[test]
fn log_is_reserved_and_needs_typed_values() {
    assert_eq!(
        err("def log() {\n    return;\n}\ndef main() {\n    return;\n}\n"),
        "1:5 `log` is reserved and cannot name a function"
    );
    assert_eq!(
        err("def main() {\n    log(\"{}\", 1 + 1);\n    return;\n}\n"),
        "2:15 `log` cannot print an integer literal whose type is not known"
    );
    // A typed literal is fine.
    assert_eq!(
        run(
            "def main() -> field {\n    log(\"{}\", 1f + 1);\n    return 1;\n}\n",
            serde_json::json!({})
        ),
        r#"{"outputs":["1"]}"#
    );
}

#[test]
fn operators_that_need_parentheses() {
    assert_eq!(
        err("def main() {\n    field a = - - 1;\n    return;\n}\n"),
        "2:17 a unary operator cannot follow another one"
    );
    assert_eq!(
        err("def main() {\n    field a = 1**2**3;\n    return;\n}\n"),
        "2:19 `**` cannot follow an exponent without parentheses"
    );
    // With parentheses: -(-1) + (2 ** 2) ** 3 = 1 + 64 = 65; 2 ** (1 ** 3) = 2.
    assert_eq!(
        run("def main() -> (field, field) {\n    return (-(-1) + (2 ** 2) ** 3, 2 ** (1 ** 3));\n}\n", serde_json::json!({})),
        r#"{"outputs":["65","2"]}"#
    );
}

#[test]
fn struct_generics_are_distinct_and_used() {
    assert_eq!(
        err("struct A<N, N> {\n    field[N] a;\n}\ndef main() {\n    return;\n}\n"),
        "1:13 duplicate generic parameter `N`"
    );
    assert_eq!(
        err("struct A<N> {}\ndef main() {\n    return;\n}\n"),
        "1:10 generic parameter `N` is not used in struct `A`"
    );
}

#[test]
fn generic_parameter_named_like_a_constant_above() {
    assert_eq!(
        err("const u32 N = 42;\ndef foo<N>(field[N] a) -> bool {\n    return true;\n}\ndef main() {\n    return;\n}\n"),
        "2:9 generic parameter `N` has the name of a constant"
    );
    // A constant defined below the function does not conflict (ZoKrates' array_generic_inference).
    assert_eq!(
        run(
            "def foo<N>(field[N] a) -> u32 {\n    return N;\n}\nconst u32 N = 3;\n\
             def main(field[N] a) -> u32 {\n    return foo(a);\n}\n",
            serde_json::json!({"a": ["1", "2", "3"]})
        ),
        r#"{"outputs":["3"]}"#
    );
}

#[test]
fn asm_assignments_of_a_field_at_constant_indices() {
    assert_eq!(
        err("def main(bool a) {\n    bool mut b = false;\n    asm {\n        b <-- a;\n    }\n    return;\n}\n"),
        "4:9 an `asm` assignment (`<--`) must assign a `field`, found `bool`"
    );
    assert_eq!(
        err("def main() {\n    field[2] mut a = [0; 2];\n    asm {\n        a <== [1, 2];\n    }\n    return;\n}\n"),
        "4:9 an `asm` assignment (`<==`) must assign a `field`, found `field[2]`"
    );
    assert_eq!(
        err("def main(field[2] mut a, u32 i) -> field[2] {\n    asm {\n        a[i] <== 42;\n    }\n    return a;\n}\n"),
        "3:11 an `asm` assignment cannot write at an index that depends on a run-time value"
    );
    // An index known once loops are unrolled is allowed: i = 0 sets a[1] = 1 * 42 + 1 * 1 = 43,
    // then i = 1 sets a[0] = 0 * 42 + 43 * 43 = 1849.
    assert_eq!(
        run("def main(field[2] mut a) -> field[2] {\n    for u32 i in 0..2 {\n        u32 j = 1 - i;\n\
             \x20       asm {\n            a[j] <== u32_to_field(j) * 42 + a[i] * a[i];\n        }\n    }\n    return a;\n}\n", serde_json::json!({"a": ["1", "2"]})),
        r#"{"outputs":[["1849","43"]]}"#
    );
    // A constant index: a[1] = 42.
    assert_eq!(
        run("def main(field[2] mut a) -> field[2] {\n    asm {\n        a[1] <== 42;\n    }\n    return a;\n}\n", serde_json::json!({"a": ["1", "2"]})),
        r#"{"outputs":[["1","42"]]}"#
    );
}

#[test]
fn embedded_functions_arguments() {
    assert_eq!(
        err("from \"EMBED\" import unpack;\ndef main() {\n    bool[2] bits = unpack(4);\n    return;\n}\n"),
        "3:27 the value 4 does not fit in 2 bits"
    );
    assert_eq!(
        err("from \"EMBED\" import bit_array_le;\ndef main(bool[1] a, bool[1] b) -> bool {\n    return bit_array_le(a, b);\n}\n"),
        "3:28 the second argument of `bit_array_le` must be a compile-time constant"
    );
    // unpack(3) into 2 bits is [true, true]; [false] <= [true] is true.
    assert_eq!(
        run(
            "from \"EMBED\" import unpack, bit_array_le;\ndef main() -> (bool[2], bool) {\n\
             \x20   return (unpack(3), bit_array_le([false], [true]));\n}\n",
            serde_json::json!({})
        ),
        r#"{"outputs":[[true,true],true]}"#
    );
}
