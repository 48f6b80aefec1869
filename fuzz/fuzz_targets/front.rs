//! ZoKrates source through the lexer, parser, type checker and lowering: every input gives a
//! diagnostic (which must render with a valid position) or a program that the IR verifier
//! accepts. Nothing may panic, hang or exhaust memory.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    match zkbc::front::compile_source("fuzz.zok", source) {
        Ok((program, _abi)) => {
            if let Err(e) = zkbc::ir::verify::verify_program(&program) {
                panic!("lowered IR does not verify:\n{e}\n{program}");
            }
        }
        Err(diagnostic) => {
            let _ = diagnostic.render("fuzz.zok", source);
        }
    }
});
