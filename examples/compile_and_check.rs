//! Library use from a file: compile a ZoKrates program, lower every block to R1CS, run it on
//! its inputs, check every executed block's instance, and print what the prover pays for.
//!
//! `cargo run --example compile_and_check -- circuits/cold_branch.zok circuits/cold_branch.json`
//! (the two arguments default to these). It fails unless every executed block is satisfied.

use zkbc::{measure, MeasureSettings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .unwrap_or_else(|| "circuits/cold_branch.zok".into());
    let inputs = args
        .next()
        .unwrap_or_else(|| "circuits/cold_branch.json".into());
    let source = std::fs::read_to_string(&file)?;
    let inputs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&inputs)?)?;
    let settings = MeasureSettings {
        baselines: false,
        ..MeasureSettings::default()
    };
    let measured = measure(&file, &source, Some(&inputs), &settings, &|_| {})?;
    let report = &measured.report;
    println!("{}: {} blocks", report.program, report.totals.blocks);
    for block in &report.blocks {
        println!(
            "  {:<12} {:>6} constraints, {:>4} executions",
            block.label,
            block.constraints,
            block.executions.unwrap_or(0)
        );
    }
    println!(
        "outputs:        {}",
        report.outputs.clone().unwrap_or_default()
    );
    println!(
        "every execution satisfied: {}",
        report.satisfied == Some(true)
    );
    println!(
        "sumcheck cells: {}",
        report
            .totals
            .sumcheck_cells
            .map_or("unknown".into(), |c| c.to_string())
    );
    if report.satisfied != Some(true) {
        return Err("an executed block's instance is not satisfied".into());
    }
    Ok(())
}
