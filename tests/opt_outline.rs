//! The `outline` pass against the interpreter: every corpus and application program with
//! inputs gives the same outputs after `mem2reg, dce` and after `mem2reg, dce, outline` (each
//! straight-line region written out several times replaced by calls of one new function), and
//! the outlined program verifies. Programs written out round by round or level by level are
//! outlined.

use crate::common;

use std::path::Path;
use zkbc::driver::{self, Options};
use zkbc::ir::interp;
use zkbc::opt::{optimize, OptLevel, Pipeline};

fn run(
    compiled: &driver::Compilation,
    program: &zkbc::ir::Program,
    inputs: &serde_json::Value,
) -> serde_json::Value {
    let values = compiled.inputs_from_json(inputs).unwrap();
    let out =
        interp::run(program, &values, interp::Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    compiled.outputs_to_json(&out.outputs)
}

fn passes(program: &mut zkbc::ir::Program, names: &[&str]) -> zkbc::opt::Report {
    optimize(
        program,
        &Pipeline::from_names(names).unwrap(),
        &zkbc::opt::Options::default(),
    )
    .unwrap()
}

#[test]
fn outlined_programs_compute_what_they_computed() {
    let mut files = common::corpus();
    files.extend(common::zok_files("circuits/apps"));
    let (mut checked, mut outlined, mut calls) = (0, 0, 0);
    for file in files {
        let inputs = file.with_extension("json");
        if !inputs.exists() {
            continue;
        }
        let inputs = common::read_json(&inputs);
        let source = std::fs::read_to_string(&file).unwrap();
        let options = Options {
            opt_level: OptLevel::O0,
            ..Options::default()
        };
        let name = file.display().to_string();
        let compiled = driver::compile(&name, &source, &options).unwrap();
        let mut before = compiled.program.clone();
        passes(&mut before, &["mem2reg", "dce"]);
        let mut after = before.clone();
        let report = passes(&mut after, &["outline"]);
        zkbc::ir::verify::verify_program(&after)
            .unwrap_or_else(|e| panic!("{name}: invalid after outline:\n{e}"));
        for run in &report.runs {
            outlined += run.stats.get("regions_outlined");
            calls += run.stats.get("copies_called");
        }
        assert_eq!(
            run(&compiled, &after, &inputs),
            run(&compiled, &before, &inputs),
            "{name}"
        );
        checked += 1;
    }
    assert!(
        checked >= 40 && outlined >= 10 && calls >= 100,
        "{checked} programs, {outlined} regions, {calls} calls"
    );
}

/// `circuits/apps/poseidon_rounds.zok` writes its 57 partial rounds out one after another:
/// outlined, `permute` calls one new function for them.
#[test]
fn rounds_written_out_become_calls_of_one_function() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/apps/poseidon_rounds.zok");
    let source = std::fs::read_to_string(&file).unwrap();
    let options = Options {
        opt_level: OptLevel::O0,
        ..Options::default()
    };
    let mut program = driver::compile("poseidon_rounds.zok", &source, &options)
        .unwrap()
        .program;
    passes(&mut program, &["mem2reg", "dce", "outline"]);
    let permute = program.funcs.iter().find(|f| f.name == "permute").unwrap();
    let mut callees = std::collections::BTreeMap::new();
    for &b in &permute.layout {
        for &i in &permute.block(b).insts {
            if let zkbc::ir::InstKind::Call { func, .. } = permute.inst(i).kind {
                *callees.entry(program.func(func).name.clone()).or_insert(0) += 1;
            }
        }
    }
    assert!(callees.values().any(|&n| n >= 57), "{callees:?}");
}
