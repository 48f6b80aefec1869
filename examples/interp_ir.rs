//! Library use: parse a text-format IR program, verify it, run it in the reference interpreter
//! and print its outputs and block trace.
//!
//! `cargo run --example interp_ir`

use zkbc::ir::{self, interp};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = include_str!("ir/sum_loop.ir");
    let program = ir::parse_program(text)?;
    ir::verify::verify_program(&program)?;
    let inputs = interp::inputs_from_json(&program, &serde_json::json!(["7", "3"]))?;
    let outcome = interp::run(&program, &inputs, interp::Limits::default())?;
    println!("outputs: {:?}", outcome.outputs);
    for entry in &outcome.trace {
        println!("  {} {:?} -> {:?}", entry.block, entry.params, entry.exit);
    }
    Ok(())
}
