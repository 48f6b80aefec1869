//! Every kind of compile error a user can make, each asserting the message and the
//! line:column it points at.

use zkbc::front::check_source;

/// Compiles `src` expecting an error; returns "LINE:COL message".
fn err(src: &str) -> String {
    match check_source(src) {
        Ok(_) => panic!("expected a compile error for:\n{src}"),
        Err(d) => format!("{} {}", d.line_col(src), d.message),
    }
}

#[test]
fn unexpected_token() {
    assert_eq!(
        err("def main() -> field {\n    return 1\n}\n"),
        "3:1 expected `;`, found `}`"
    );
}

#[test]
fn unterminated_comment() {
    assert_eq!(
        err("def main() {\n  /* never closed\n  return;\n}\n"),
        "2:3 unterminated block comment"
    );
}

#[test]
fn unexpected_character() {
    assert_eq!(
        err("def main() {\n  field a = 1 @ 2;\n}\n"),
        "2:15 unexpected character `@`"
    );
}

#[test]
fn unknown_variable() {
    assert_eq!(
        err("def main(field a) -> field {\n    return a + b;\n}\n"),
        "2:16 unknown variable `b`"
    );
}

#[test]
fn unknown_function() {
    assert_eq!(
        err("def main(field a) -> field {\n    return sqrt(a);\n}\n"),
        "2:12 unknown function `sqrt`"
    );
}

#[test]
fn binary_type_mismatch() {
    assert_eq!(
        err("def main(field a, u32 b) -> field {\n    return a + b;\n}\n"),
        "2:12 mismatched types in `+`: `field` and `u32`"
    );
}

#[test]
fn wrong_argument_count() {
    assert_eq!(
        err("def f(field x) -> field { return x; }\ndef main() -> field {\n    return f(1, 2);\n}\n"),
        "3:12 function `f` takes 1 argument but 2 were given"
    );
}

#[test]
fn argument_type_mismatch() {
    assert_eq!(
        err("def f(u32 x) -> u32 { return x; }\ndef main(field a) -> u32 {\n    return f(a);\n}\n"),
        "3:14 mismatched types: expected `u32`, found `field`"
    );
}

#[test]
fn assign_to_immutable() {
    assert_eq!(
        err("def main() -> field {\n    field x = 1;\n    x = 2;\n    return x;\n}\n"),
        "3:5 cannot assign to immutable variable `x`"
    );
}

#[test]
fn non_constant_array_size() {
    assert_eq!(
        err("def main(u32 n) {\n    field[n] a = [0; 3];\n    return;\n}\n"),
        "2:11 array size must be a compile-time constant"
    );
}

#[test]
fn recursion() {
    assert_eq!(
        err("def f(field x) -> field {\n    return g(x);\n}\ndef g(field x) -> field {\n    return f(x);\n}\ndef main() -> field {\n    return f(1);\n}\n"),
        "5:12 recursive call to `f`"
    );
}

#[test]
fn missing_return() {
    assert_eq!(
        err("def main(bool c) -> field {\n    if c {\n        return 1;\n    }\n}\n"),
        "5:1 function `main` may finish without returning a `field`"
    );
}

#[test]
fn return_type_mismatch() {
    assert_eq!(
        err("def main(bool c) -> field {\n    return c;\n}\n"),
        "2:12 mismatched return type: expected `field`, found `bool`"
    );
}

#[test]
fn index_on_non_array() {
    assert_eq!(
        err("def main(field a) -> field {\n    return a[0];\n}\n"),
        "2:12 cannot index into a value of type `field`"
    );
}

#[test]
fn unknown_struct_field() {
    assert_eq!(
        err("struct P { field x; field y; }\ndef main(P p) -> field {\n    return p.z;\n}\n"),
        "3:14 struct `P` has no field `z`"
    );
}

#[test]
fn literal_out_of_range() {
    assert_eq!(
        err("def main() -> u8 {\n    u8 x = 256;\n    return x;\n}\n"),
        "2:12 integer literal `256` is out of range for `u8`"
    );
    assert_eq!(
        err("def main() -> field {\n    return 21888242871839275222246405745257275088548364400416034343698204186575808495617;\n}\n"),
        "2:12 integer literal `21888242871839275222246405745257275088548364400416034343698204186575808495617` is out of range for `field`"
    );
}

#[test]
fn duplicate_definition() {
    assert_eq!(
        err("struct P { field x; }\nstruct P { field y; }\ndef main() {\n    return;\n}\n"),
        "2:8 duplicate definition of `P`"
    );
    assert_eq!(
        err("def f(field x) -> field { return x; }\ndef f(field y) -> field { return y; }\ndef main() {\n    return;\n}\n"),
        "2:5 duplicate definition of function `f`"
    );
}

#[test]
fn condition_not_bool() {
    assert_eq!(
        err("def main(field a) {\n    while a { }\n    return;\n}\n"),
        "2:11 the condition of `while` must be a `bool`, found `field`"
    );
    assert_eq!(
        err("def main(u32 a) {\n    if a { return; }\n}\n"),
        "2:8 the condition of `if` must be a `bool`, found `u32`"
    );
}

#[test]
fn main_missing() {
    assert_eq!(
        err("def f() -> field {\n    return 1;\n}\n"),
        "1:1 the program has no `main` function"
    );
}

#[test]
fn bad_hex_width() {
    assert_eq!(
        err("def main() -> u32 {\n    return 0xfff;\n}\n"),
        "2:12 a hexadecimal literal must have 2, 4, 8 or 16 digits, found 3"
    );
}

#[test]
fn assert_not_bool() {
    assert_eq!(
        err("def main(field a) {\n    assert(a, \"must hold\");\n    return;\n}\n"),
        "2:12 the condition of `assert` must be a `bool`, found `field`"
    );
}

#[test]
fn constant_index_out_of_bounds() {
    assert_eq!(
        err("def main(field[3] a) -> field {\n    return a[3];\n}\n"),
        "2:14 index 3 is out of bounds for an array of length 3"
    );
}

#[test]
fn unknown_type_and_import() {
    assert_eq!(
        err("def main(Point p) {\n    return;\n}\n"),
        "1:10 unknown type `Point`"
    );
    assert_eq!(
        err("import \"hashes/sha256/no_such_module\" as sha;\ndef main() {\n    return;\n}\n"),
        "1:1 cannot resolve import of `hashes/sha256/no_such_module`"
    );
}

#[test]
fn missing_struct_member_and_bad_assign_target() {
    assert_eq!(
        err("struct P { field x; field y; }\ndef main() -> P {\n    return P { x: 1 };\n}\n"),
        "3:12 missing field `y` in a value of struct `P`"
    );
    assert_eq!(
        err("def main(field mut a) {\n    a + 1 = 2;\n    return;\n}\n"),
        "2:5 invalid left-hand side of assignment"
    );
}

#[test]
fn nesting_too_deep() {
    let src = format!(
        "def main() -> field {{\n    return {}1{};\n}}\n",
        "(".repeat(2000),
        ")".repeat(2000)
    );
    let e = err(&src);
    assert!(
        e.starts_with("2:") && e.contains("nested too deeply"),
        "{e}"
    );
}

#[test]
fn render_has_caret_under_span() {
    let src = "def main(field a) -> field {\n    return a + b;\n}\n";
    let d = check_source(src).unwrap_err();
    assert_eq!(
        d.render("t.zok", src),
        "error: unknown variable `b`\n --> t.zok:2:16\n  |\n2 |     return a + b;\n  |                ^\n"
    );
}

#[test]
fn generic_parameter_not_inferable() {
    // The expected type fixes `N` where there is one (`field[2] z = zeros();`, as in ZoKrates);
    // an index gives none.
    assert_eq!(
        err("def zeros<N>() -> field[N] {\n    return [0; N];\n}\ndef main() -> field {\n    return zeros()[0];\n}\n"),
        "5:12 cannot infer the generic parameter `N` of `zeros`"
    );
    assert!(check_source("def zeros<N>() -> field[N] {\n    return [0; N];\n}\ndef main() -> field[2] {\n    return zeros();\n}\n").is_ok());
}

#[test]
fn generic_struct_and_alias_errors() {
    assert_eq!(
        err("struct Bar<N> {\n    field[N] c;\n}\ndef main(Bar<2, 3> b) {\n    return;\n}\n"),
        "4:10 type `Bar` takes 1 generic argument but 2 were given"
    );
    assert_eq!(
        err("type Grid<N> = field[N][N];\ndef main(Grid g) {\n    return;\n}\n"),
        "2:10 type `Grid` needs generic arguments"
    );
    assert_eq!(
        err("struct Bar<N> {\n    field[N] c;\n    bool d;\n}\ndef main() -> bool {\n    return Bar { d: true }.d;\n}\n"),
        "6:12 cannot infer the generic parameter `N` of struct `Bar`"
    );
}

#[test]
fn log_asm_and_cast_errors() {
    assert_eq!(
        err("def main(field x) {\n    log(\"{} {}\", x);\n    return;\n}\n"),
        "2:5 the format string has 2 `{}` but 1 value is given"
    );
    assert_eq!(
        err("def main(field x) {\n    field mut y = 0;\n    asm {\n        y = x;\n    }\n    return;\n}\n"),
        "4:10 expected `<--`, `<==` or `===` in `asm`, found `=`"
    );
    assert_eq!(
        err("from \"utils/casts.zok\" import cast;\ndef main(u64 x) -> u32 {\n    u32 y = cast(x);\n    return y;\n}\n"),
        "3:13 `cast` from `u64` to `u32` is not supported"
    );
    // A field's bits are only reachable as `(x >> k) & 1` inside an `asm` hint.
    assert!(err("def main(field x) -> field {\n    return (x >> 1) & 1;\n}\n").contains("2:"));
}

#[test]
fn generic_recursion_is_bounded() {
    let e = err("def f<N>(field[N] a) -> field {\n    return f([0; N + 1]);\n}\ndef main() -> field {\n    return f([1]);\n}\n");
    assert!(e.contains("instantiated too deeply"), "{e}");
}
