//! The corpus: every `circuits/NAME.zok` compiles, its IR verifies, and running it on
//! `NAME.json` gives `NAME.expected.json` (computed outside zkbc by `circuits/expected.py`).

use crate::common;
use common::{corpus, read_json, run_and_compare};
use std::path::Path;
use zkbc::driver;
use zkbc::ir::{InstKind, Terminator};
use zkbc::opt::OptLevel;

const LEVELS: [OptLevel; 4] = [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3];

fn compile(file: &Path, level: OptLevel) -> Result<driver::Compilation, String> {
    let name = file.display().to_string();
    let source = std::fs::read_to_string(file).expect("readable program");
    let options = driver::Options {
        opt_level: level,
        ..driver::Options::default()
    };
    driver::compile(&name, &source, &options).map_err(|e| e.to_string())
}

/// Every corpus program gives its expected outputs at every optimization level.
#[test]
fn corpus_programs_compute_expected_outputs() {
    let files = corpus();
    assert!(files.len() >= 25, "only {} corpus programs", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let inputs = read_json(&file.with_extension("json"));
        let expected = read_json(&file.with_extension("expected.json"));
        for level in LEVELS {
            let compiled = match compile(file, level) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name} {level:?}: {e}"));
                    continue;
                }
            };
            if let Err(e) = zkbc::ir::verify::verify_program(&compiled.program) {
                failures.push(format!("{name} {level:?}: invalid IR:\n{e}"));
                continue;
            }
            let what = format!("{name} {level:?}");
            failures.extend(run_and_compare(&what, &compiled, &inputs, &expected));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// At -O2 the corpus has no memory operations left (every local of the corpus is non-escaping,
/// so mem2reg promotes it) and no branch on a constant (SCCP folds them).
#[test]
fn o2_leaves_no_memory_and_no_constant_branch() {
    let mut failures = Vec::new();
    for file in corpus() {
        let compiled = compile(&file, OptLevel::O2).unwrap();
        for func in &compiled.program.funcs {
            for &b in &func.layout {
                let block = func.block(b);
                for &i in &block.insts {
                    let kind = &func.inst(i).kind;
                    if matches!(
                        kind,
                        InstKind::Allocate { .. } | InstKind::Load { .. } | InstKind::Store { .. }
                    ) {
                        failures.push(format!("{}: {b} keeps `{}`", file.display(), kind.opcode()));
                    }
                }
                if let Some(Terminator::Br { cond, .. }) = &block.term {
                    if func.const_value(*cond).is_some() {
                        failures.push(format!("{}: {b} branches on a constant", file.display()));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Instruction and block counts per program per level, kept as a snapshot so that a change
/// in what the optimizer achieves shows in the diff (`UPDATE_EXPECT=1` refreshes it).
#[test]
fn instruction_and_block_counts() {
    let mut table =
        String::from("program                 O0 insts/blocks  O1            O2            O3\n");
    for file in corpus() {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let mut row = format!("{stem:<22}");
        for level in LEVELS {
            let p = compile(&file, level).unwrap().program;
            row.push_str(&format!("  {:>6}/{:<5}", p.n_insts(), p.n_blocks()));
        }
        table.push_str(row.trim_end());
        table.push('\n');
    }
    expect_test::expect_file!["snapshots/corpus_counts.txt"].assert_eq(&table);
}
