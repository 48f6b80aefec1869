//! The pass manager's options, which a pass test of `tests/opt/*.ir` (run by
//! `tests/filetests.rs`) cannot state: `print_after` records the program after a pass, `skip`
//! leaves a pass out, and the report times every run.

use zkbc::ir::parse_program;
use zkbc::opt::{optimize, Options};

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
