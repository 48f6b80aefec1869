//! The `zkbc interp` and `zkbc verify` commands: outputs, messages and exit statuses.

use crate::common;
use common::temp_file;
use common::zkbc_text as zkbc;

#[test]
fn interp_prints_outputs_as_json() {
    let inputs = temp_file("sum.json", r#"["7", 5]"#);
    let (code, stdout, stderr) = zkbc(&["interp", "examples/ir/sum_loop.ir", "--inputs", &inputs]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (0, "{\"outputs\":[\"35\"]}\n", "")
    );
}

#[test]
fn interp_runtime_failure_exits_1_with_location() {
    let inputs = temp_file("cast.json", r#"["256", true]"#);
    let (code, stdout, stderr) = zkbc(&[
        "interp",
        "tests/interp/checked_cast_and_assert.ir",
        "--inputs",
        &inputs,
    ]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: tests/interp/checked_cast_and_assert.ir: value 256 does not fit in u8 at 6:5\n"
    );
}

#[test]
fn interp_step_limit() {
    let (code, _, stderr) = zkbc(&[
        "interp",
        "tests/interp/infinite_loop.ir",
        "--max-steps",
        "50",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: tests/interp/infinite_loop.ir: step limit of 50 exceeded in fn main, b2\n"
    );
}

#[test]
fn malformed_inputs_exit_2() {
    let inputs = temp_file("bad.json", "[\"7\",");
    let (code, _, stderr) = zkbc(&["interp", "examples/ir/sum_loop.ir", "--inputs", &inputs]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: ")
            && stderr.contains("bad.json:1:5: malformed JSON: EOF while parsing"),
        "{stderr}"
    );

    let inputs = temp_file("short.json", "[\"7\"]");
    let (code, _, stderr) = zkbc(&["interp", "examples/ir/sum_loop.ir", "--inputs", &inputs]);
    assert_eq!(code, 2);
    assert!(
        stderr.ends_with("short.json: main takes 2 input(s), 1 given\n"),
        "{stderr}"
    );
}

#[test]
fn syntax_error_exits_2_with_line_and_column() {
    let file = temp_file(
        "bad.ir",
        "fn main f0 {\nb0():\n    v1 = mull u8 1, u8 2\n    return\n}\n",
    );
    let (code, _, stderr) = zkbc(&["verify", &file]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        format!("error: {file}:3:10: unknown opcode `mull`\n")
    );
}

#[test]
fn verify_lists_every_violation() {
    let file = temp_file(
        "broken.ir",
        "fn main f0 -> field {\nb0(v0: u32):\n    v1 = add v0, field 1\n    jmp b1(v1)\nb1():\n    return v1\n}\n",
    );
    let (code, stdout, stderr) = zkbc(&["verify", &file]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        format!(
            "error: {file}: invalid IR:\n\
             fn main, b0: jump to b1 passes 1 argument(s), but it has 0 parameter(s)\n\
             fn main, b0, inst 0: `add` operands have different types u32 and field\n\
             fn main, b1: `return` of (u32) in a function returning (field)\n"
        )
    );
    let (code, stdout, _) = zkbc(&["verify", "examples/ir/sum_loop.ir"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "examples/ir/sum_loop.ir: ok\n")
    );
}

#[test]
fn missing_file_exits_2() {
    let (code, _, stderr) = zkbc(&["verify", "no/such/file.ir"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot read no/such/file.ir: "),
        "{stderr}"
    );
}

#[test]
fn help_explains_the_commands() {
    let (code, stdout, _) = zkbc(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("interp") && stdout.contains("verify"),
        "{stdout}"
    );
}
