//! IR text through the parser, printer, verifier and (when it verifies) the interpreter with
//! zero inputs and a small step limit: nothing may panic, hang or exhaust memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zkbc::ir::{self, interp};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(program) = ir::parse_program(text) else { return };
    let printed = program.to_string();
    let reparsed = ir::parse_program(&printed).expect("printed IR parses");
    assert_eq!(reparsed.normalized_text(), program.normalized_text());
    if ir::verify::verify_program(&program).is_err() {
        return;
    }
    let inputs: Vec<interp::Val> = program
        .main_func()
        .param_types()
        .iter()
        .map(interp::Val::zero)
        .collect();
    let limits = interp::Limits { max_steps: 10_000, max_call_depth: 64 };
    let _ = interp::run(&program, &inputs, limits);
});
