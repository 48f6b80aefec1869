//! No under-constrained outputs anywhere in the corpus: for every block of every corpus
//! program (each block's first execution, at -O0 and at -O3), changing any value of the output
//! state — the next block's label, its arguments and live-ins, or the returned values — makes the
//! block's instance unsatisfied. The honest assignment satisfies it (checked first).

use crate::common;
use common::corpus;

use std::collections::HashSet;
use zkbc::driver;
use zkbc::field::Fr;
use zkbc::ir::interp;
use zkbc::opt::OptLevel;
use zkbc::r1cs;

#[test]
fn changing_any_output_state_value_is_rejected_in_every_corpus_block() {
    let (mut blocks, mut changes) = (0, 0);
    let mut failures = Vec::new();
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
                .unwrap();
        for level in [OptLevel::O0, OptLevel::O3] {
            let options = driver::Options {
                opt_level: level,
                ..driver::Options::default()
            };
            let mut compiled = driver::compile(&name, &text, &options).unwrap();
            driver::legalize_for_r1cs(&mut compiled.program).unwrap();
            let values = compiled.inputs_from_json(&json).unwrap();
            let outcome =
                interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
            let mut seen = HashSet::new();
            r1cs::for_each_execution(&compiled.program, &outcome, |step, blk, asg| {
                if !seen.insert((blk.func_id(), blk.block())) {
                    return Ok(());
                }
                blocks += 1;
                if let Some(k) = blk.first_unsatisfied(asg) {
                    failures.push(format!(
                        "{name} {level:?} {}: honest execution {step} fails constraint {k}",
                        blk.block()
                    ));
                    return Ok(());
                }
                let layout = blk.layout();
                let at = layout.out_label_index();
                for pos in at..layout.width() {
                    let mut changed = asg.clone();
                    changed.instance[pos] += Fr::from(1u64);
                    changes += 1;
                    if blk.first_unsatisfied(&changed).is_none() {
                        failures.push(format!(
                            "{name} {level:?} {}: output-state variable {pos} (of {}) can change",
                            blk.block(),
                            layout.width()
                        ));
                    }
                }
                Ok(())
            })
            .unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{blocks} blocks, {changes} output-state changes, all rejected");
    assert!(
        blocks > 150 && changes > 500,
        "{blocks} blocks, {changes} changes"
    );
}
