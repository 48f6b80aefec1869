//! `zkbc run` and `zkbc compile` on source programs: outputs, exit statuses and located
//! messages.

use std::process::Command;

use crate::common;
use common::zkbc_text as zkbc;

const PROGRAM: &str = "def main(field a, u32 n) -> (field, u32) {
    field mut x = a;
    for u32 i in 0..n {
        x = x * a;
    }
    assert(n < 10, \"n too large\");
    return (x, n + 1);
}
";

#[test]
fn run_prints_outputs() {
    let dir = common::Scratch::new();
    let src = dir.file("p.zok", PROGRAM);
    let inputs = dir.file("p.json", r#"{"a": "3", "n": 2}"#);
    let (code, out, err) = zkbc(&["run", &src, "--inputs", &inputs]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out.trim(), r#"{"outputs":["27","3"]}"#);
}

#[test]
fn run_reports_failed_assertion_with_location() {
    let dir = common::Scratch::new();
    let src = dir.file("p.zok", PROGRAM);
    let inputs = dir.file("p.json", r#"{"a": "3", "n": 12}"#);
    let (code, out, err) = zkbc(&["run", &src, "--inputs", &inputs]);
    assert_eq!(code, 1);
    assert_eq!(out, "");
    // The location, the source line with a caret under the assertion, and the operands of
    // the comparison it asserted.
    assert_eq!(
        err.trim(),
        format!(
            "error: {src}:6:5: assertion failed: n too large\n  |\n6 |     \
             assert(n < 10, \"n too large\");\n  |     ^\n  = note: 12 < 10 is false"
        )
    );
}

#[test]
fn a_failure_in_an_imported_module_points_into_that_module() {
    let dir = common::Scratch::new();
    let helper = dir.file(
        "checks.zok",
        "// Checks.\ndef main(field x) {\n    assert(x != 0, \"x is zero\");\n    return;\n}\n",
    );
    let src = dir.file("main.zok",
        "import \"./checks\" as check;\n\ndef main(field x) -> field {\n    check(x);\n    return x;\n}\n",
    );
    let inputs = dir.file("p.json", r#"{"x": "0"}"#);
    let (code, _, err) = zkbc(&["run", &src, "--inputs", &inputs]);
    assert_eq!(code, 1, "{err}");
    // The module's own file, line and column, and its line under the caret.
    assert!(
        err.starts_with(&format!(
            "error: {helper}:3:5: assertion failed: x is zero\n"
        )),
        "{err}"
    );
    assert!(
        err.contains("3 |     assert(x != 0, \"x is zero\");\n  |     ^"),
        "{err}"
    );
}

#[test]
fn compile_error_exits_2_with_caret() {
    let dir = common::Scratch::new();
    let src = dir.file("p.zok", "def main() -> field {\n    return y;\n}\n");
    let (code, _, err) = zkbc(&["run", &src]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("error: unknown variable `y`\n --> {src}:2:12\n  |\n2 |     return y;\n  |            ^\n")
    );
}

#[test]
fn bad_inputs_exit_2() {
    let dir = common::Scratch::new();
    let src = dir.file("p.zok", PROGRAM);
    let inputs = dir.file("p.json", r#"{"a": "3"}"#);
    let (code, _, err) = zkbc(&["run", &src, "--inputs", &inputs]);
    assert_eq!(code, 2);
    assert!(err.contains("missing input `n` of type `u32`"), "{err}");
}

#[test]
fn compile_emits_ir_that_parses_back() {
    let dir = common::Scratch::new();
    let src = dir.file("p.zok", PROGRAM);
    let (code, out, err) = zkbc(&["compile", "-O0", &src, "--emit", "ir"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("fn main f0 -> field, u32 {"), "{out}");
    assert!(out.contains("allocate field"), "{out}");
    assert!(out.contains("assert"), "{out}");
    let parsed = zkbc::ir::parse_program(&out).expect("emitted IR parses");
    zkbc::ir::verify::verify_program(&parsed).expect("emitted IR verifies");
}

#[test]
fn compile_optimizes_by_default() {
    let dir = common::Scratch::new();
    // -O3 is the default: mem2reg has promoted the mutable local, so no memory is left.
    let src = dir.file("p.zok", PROGRAM);
    let (code, out, err) = zkbc(&["compile", &src]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(!out.contains("allocate") && !out.contains("load"), "{out}");
    let (code, _, err) = zkbc(&["compile", "-O7", &src]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown optimization level `7`"), "{err}");
}

/// `--field-cmp zokrates`: a comparison of two non-constant field elements fails (located) when
/// an operand is 2^252 or more, and `check` accepts the same program below that; the default
/// comparison is complete.
#[test]
fn field_cmp_zokrates_fails_at_2_pow_252() {
    let dir = common::Scratch::new();
    let src = dir.file(
        "p.zok",
        "def main(field a, field b) -> bool {\n    return a < b;\n}\n",
    );
    let big = dir.file("big.json",
        r#"{"a": "1", "b": "7237005577332262213973186563042994240829374041602535252466099000494570602496"}"#,
    );
    let small = dir.file("small.json", r#"{"a": "1", "b": "2"}"#);
    let (code, out, _) = zkbc(&["run", &src, "--inputs", &big]);
    assert_eq!((code, out.trim()), (0, r#"{"outputs":[true]}"#));
    let (code, out, err) = zkbc(&["run", "--field-cmp", "zokrates", &src, "--inputs", &big]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains(&format!("{src}:2:12: dynamic comparison is incomplete")),
        "{err}"
    );
    let (code, out, err) = zkbc(&["check", "--field-cmp", "zokrates", &src, "--inputs", &small]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = zkbc(&["run", "--field-cmp", "bogus", &src]);
    assert_eq!(code, 2, "{err}");
}

/// `zkbc compile x.zok | head`: when the reader closes the pipe, zkbc ends as a C tool does on
/// SIGPIPE, without a panic message.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let dir = common::Scratch::new();
    use std::io::Read;
    use std::process::Stdio;
    let src = "def main(bool[5000] a) {\n    assert(a == [true; 5000]);\n    return;\n}\n";
    let path = dir.file("long.zok", src);
    let mut child = Command::new(env!("CARGO_BIN_EXE_zkbc"))
        .args(["compile", &path, "-O0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zkbc runs");
    // Read one byte, then hang up: the rest of the (long) IR cannot be written.
    let mut stdout = child.stdout.take().expect("piped");
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("zkbc ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !out.status.success(),
        "the whole output could not have been written"
    );
}
