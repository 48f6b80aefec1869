//! Prints the random IR program of a seed (`cargo run --example random_ir -- SEED`) and what the
//! `O2` pipeline makes of it: the tool to look at what the differential tests exercise.

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let generated = zkbc::opt::random::random_program(seed);
    println!("{}", generated.program);
    let mut optimized = generated.program.clone();
    let report = zkbc::opt::optimize_level(&mut optimized, zkbc::opt::OptLevel::O2)
        .expect("random programs do not recurse");
    print!("{}", report.timing_table());
    println!("{optimized}");
    for input in &generated.inputs {
        let run = zkbc::ir::interp::run(&optimized, input, Default::default());
        println!("{:?}", run.map(|o| o.outputs).map_err(|f| f.kind));
    }
}
