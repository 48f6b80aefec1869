//! Limits and hostile inputs: each gives a clear error (and exit status) instead of a hang, an
//! out-of-memory or a panic. Every case runs the real `zkbc` binary.

use std::path::Path;

use crate::common;

/// Writes `files` into a temporary directory, runs `zkbc ARGS` there, returns (status, stdout,
/// stderr).
fn zkbc_with_files(files: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    common::text(&common::zkbc_in(dir.path(), args))
}

const IO: &str = "def main(u8 a, field f, bool b, u32[2] xs) -> u8 {\n    return b ? a : 0;\n}\n";

fn run_io(inputs: &str) -> (i32, String) {
    let (code, _, err) = zkbc_with_files(
        &[("io.zok", IO), ("in.json", inputs)],
        &["run", "io.zok", "--inputs", "in.json"],
    );
    (code, err)
}

#[test]
fn inputs_out_of_range_for_their_type() {
    let p = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
    for (inputs, message) in [
        (
            r#"{"a":"256","f":"1","b":true,"xs":["1","2"]}"#,
            "error: in.json: input `a`: 256 does not fit in u8\n",
        ),
        (
            r#"{"a":"-1","f":"1","b":true,"xs":["1","2"]}"#,
            "error: in.json: input `a`: `-1` is not a u8 value\n",
        ),
        (
            &format!(r#"{{"a":"1","f":"{p}","b":true,"xs":["1","2"]}}"#),
            &format!("error: in.json: input `f`: `{p}` is not a field element (a decimal integer in [0, p))\n"),
        ),
        (
            r#"{"a":"1","f":"1","b":2,"xs":["1","2"]}"#,
            "error: in.json: input `b`: expected a bool (true or false), found 2\n",
        ),
        (
            r#"{"a":"1","f":"1","b":true,"xs":["1","4294967296"]}"#,
            "error: in.json: input `xs`: element 1: 4294967296 does not fit in u32\n",
        ),
    ] {
        let (code, err) = run_io(inputs);
        assert_eq!((code, err.as_str()), (2, message), "{inputs}");
    }
}

#[test]
fn inputs_missing_or_extra() {
    for (inputs, message) in [
        (
            r#"{"a":"1","f":"1","xs":["1","2"]}"#,
            "error: in.json: missing input `b` of type `bool`\n",
        ),
        (
            r#"{"a":"1","f":"1","b":true,"xs":["1","2"],"c":"3"}"#,
            "error: in.json: main has no parameter `c`\n",
        ),
        (
            r#"{"a":"1","f":"1","b":true,"xs":["1"]}"#,
            "error: in.json: input `xs`: expected an array of 2 elements, found 1\n",
        ),
        (
            r#"["1","1",true]"#,
            "error: in.json: main takes 4 argument(s), the inputs array has 3\n",
        ),
        (
            r#""1""#,
            "error: in.json: inputs must be a JSON object keyed by the parameter names of main, \
             or an array with one value per parameter\n",
        ),
    ] {
        let (code, err) = run_io(inputs);
        assert_eq!((code, err.as_str()), (2, message), "{inputs}");
    }
}

#[test]
fn malformed_json_inputs() {
    let (code, err) = run_io("{\"a\":\"1\",\n \"f\": }");
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: in.json:2:7: malformed JSON: expected value at line 2 column 7\n"
    );
    let (code, err) = run_io("");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: in.json:1:0: malformed JSON: EOF"),
        "{err}"
    );
}

const FOREVER: &str = "def main(u32 n) -> u32 {\n    u32 mut x = n;\n    while x != 0 {\n        x = x + 1;\n    }\n    return x;\n}\n";

#[test]
fn step_limit_on_run_check_and_interp() {
    let files = [("loop.zok", FOREVER), ("in.json", r#"{"n":"5"}"#)];
    for cmd in ["run", "check"] {
        let (code, _, err) = zkbc_with_files(
            &files,
            &[
                cmd,
                "loop.zok",
                "--inputs",
                "in.json",
                "--max-steps",
                "1000",
            ],
        );
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(
            err.starts_with("error: loop.zok") && err.contains("step limit of 1000 exceeded"),
            "{cmd}: {err}"
        );
    }
    let ir = "fn main f0 {\nb0():\n    jmp b1()\nb1():\n    jmp b1()\n}\n";
    let (code, _, err) = zkbc_with_files(
        &[("spin.ir", ir)],
        &["interp", "spin.ir", "--max-steps", "50"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("step limit of 50 exceeded"), "{err}");
}

/// An array of 10^8 elements is a compile error at its type, before anything is allocated.
#[test]
fn maximum_array_length() {
    let src = "def main(field x) -> field {\n    field[100000000] mut a = [0; 100000000];\n    a[0] = x;\n    return a[0];\n}\n";
    let (code, _, err) = zkbc_with_files(
        &[("big.zok", src), ("in.json", r#"{"x":"1"}"#)],
        &["run", "big.zok", "--inputs", "in.json"],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "error: type `field[100000000]` is too large (more than 1048576 elements)\n --> big.zok:2:5\n"
        ),
        "{err}"
    );
}

/// A loop over the largest array allowed copies the array at every `array_set` at -O0; the step
/// limit charges the copies, so it stops instead of running for hours.
#[test]
fn array_copies_count_against_the_step_limit() {
    let src = "def main(field x) -> field {\n    field[65536] mut a = [x; 65536];\n    for u32 i in 0..65536 {\n        a[i] = a[i] + 1;\n    }\n    return a[7];\n}\n";
    let start = std::time::Instant::now();
    let (code, _, err) = zkbc_with_files(
        &[("copy.zok", src), ("in.json", r#"{"x":"1"}"#)],
        &[
            "run",
            "-O0",
            "copy.zok",
            "--inputs",
            "in.json",
            "--max-steps",
            "2000000",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("step limit of 2000000 exceeded"), "{err}");
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

#[test]
fn the_limits_exist_where_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for cmd in ["run", "check", "interp"] {
        let out = common::zkbc_in(root, &[cmd, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--max-steps"), "{cmd}: {help}");
    }
}

/// `--monolithic` unrolling stops at `--max-unrolled` instructions with an error naming it.
#[test]
fn maximum_unrolled_size() {
    let src = "def main(field x) -> field {\n    field mut acc = x;\n    for u32 i in 0..1000000 {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
    let (code, _, err) = zkbc_with_files(
        &[("unroll.zok", src)],
        &[
            "compile",
            "unroll.zok",
            "--monolithic",
            "--max-unrolled",
            "10000",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: unroll.zok: cannot merge `main` into one block: unrolling its loops would emit more than 10000 instructions\n"
    );
}

/// Without `--max-unrolled`, `--monolithic` stops at the default of 1,000,000 instructions.
#[test]
fn maximum_unrolled_size_by_default() {
    let src = "def main(field x) -> field {\n    field mut acc = x;\n    for u32 i in 0..10000000 {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
    let (code, _, err) = zkbc_with_files(
        &[("unroll.zok", src)],
        &["compile", "unroll.zok", "--monolithic"],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: unroll.zok: cannot merge `main` into one block: unrolling its loops would emit more than 1000000 instructions\n"
    );
}

/// `zkbc report`'s one-circuit count (`monolithic cells`) is compiled under the user's
/// `--max-unrolled`, as the `--monolithic` baseline is: both are `none` for the same reason
/// (before, the count ignored the flag, so it could not be raised or lowered).
#[test]
fn the_one_circuit_count_honours_max_unrolled() {
    let src = "def main(field x) -> field {\n    field mut acc = x;\n    for u32 i in 0..100 {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
    let row = |out: &str, name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` row in:\n{out}"))
            .to_string()
    };
    let none = "none  (unrolling would emit more than 50 instructions (--max-unrolled))";
    let (code, out, err) = zkbc_with_files(
        &[("loop.zok", src)],
        &["report", "loop.zok", "--max-unrolled", "50"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(row(&out, "monolithic cells").ends_with(none), "{out}");
    assert!(row(&out, "--monolithic cells").ends_with(none), "{out}");
    let (code, out, err) = zkbc_with_files(
        &[("loop.zok", src)],
        &["report", "loop.zok", "--max-unrolled", "1000"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        row(&out, "monolithic cells").ends_with("(exact: the program as one block)"),
        "{out}"
    );
    assert!(!row(&out, "--monolithic cells").contains("none"), "{out}");
}

/// A block with more constraints than `--max-constraints` (here one loop unrolled into one
/// block: 2 constraints an iteration) is an error naming the block and the flag, on every
/// command that lowers; below the limit the same program checks.
#[test]
fn maximum_constraints_per_block() {
    let src = "def main(field x) -> field {\n    field mut acc = x;\n    for u32 i in 0..3000 {\n        acc = acc * acc * x;\n    }\n    return acc;\n}\n";
    let files = [("big.zok", src), ("in.json", "{\"x\": \"3\"}")];
    let message =
        "error: big.zok: fn main, b0 needs more than 5000 constraints, the limit for one \
                   block (raise it with --max-constraints, or split the work: without \
                   --monolithic, or with a smaller --min-block-size)\n";
    for cmd in ["check", "report", "prove", "export"] {
        let mut args = vec![cmd, "big.zok", "--inputs", "in.json", "--monolithic"];
        args.extend(["--max-constraints", "5000"]);
        if cmd == "export" {
            args.extend(["--out", "out"]);
        }
        let (code, _, err) = zkbc_with_files(&files, &args);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert_eq!(err, message, "{cmd}");
    }
    let (code, out, err) = zkbc_with_files(
        &files,
        &[
            "check",
            "big.zok",
            "--inputs",
            "in.json",
            "--monolithic",
            "--max-constraints",
            "7000",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("all 1 block executions satisfied"), "{out}");
    for cmd in ["compile", "check", "report", "prove", "export", "run"] {
        let out = common::zkbc(&[cmd, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--max-constraints"), "{cmd}: {help}");
    }
}
