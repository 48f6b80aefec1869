//! Prover time against the report's sumcheck cells over the corpus: every `circuits/*.zok`
//! with inputs, compiled at the default `-O3`, proved with the arguments between its blocks
//! (memory check, transition permutation; `driver::proof`). Criterion measures each proof;
//! afterwards the bench prints, per program, the report's cells (block + transition + memory),
//! the instances' own cells and the median time, then the least-squares line
//! `time = a + b·cells` against the report's cells, with R². Run with
//! `cargo bench --bench prove_corpus`.

/// The allocator the `zkbc` binary uses.
#[global_allocator]
static GLOBAL: allocator::Allocator = allocator::Allocator;
// The binary's allocator settings (`src/allocator.rs`, not part of the library).
#[path = "../src/allocator.rs"]
#[macro_use]
mod allocator;
configure_allocator_before_main!();

use criterion::{BenchmarkId, Criterion};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zkbc::driver;
use zkbc::ir::interp;
use zkbc::prove::{
    fit::{linear_fit, median},
    prove, total_cells,
};
use zkbc::report::measure;

/// Seconds per proof, every measured batch, per program.
static SAMPLES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

struct Case {
    name: String,
    report_cells: u128,
    memory_cells: u128,
    proof: driver::proof::ProofInstances,
}

fn cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("circuits/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "zok") && p.with_extension("json").exists())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let name = file.file_stem().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&file).expect("readable");
            let inputs: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(file.with_extension("json")).expect("readable"),
            )
            .expect("JSON");
            let settings = measure::Settings {
                baselines: false,
                ..measure::Settings::default()
            };
            let m = measure::measure(
                &format!("{name}.zok"),
                &text,
                Some(&inputs),
                &settings,
                &|_| {},
            )
            .expect("the corpus measures");
            let program = &m.compilation.program;
            let values = m.compilation.inputs_from_json(&inputs).expect("inputs fit");
            let outcome =
                interp::run(program, &values, interp::Limits::default()).expect("the corpus runs");
            let lower = m.compilation.lower;
            let proof = driver::proof::proof_instances(program, &outcome, lower).expect("assigns");
            Case {
                name,
                report_cells: m.report.totals.sumcheck_cells.expect("a run"),
                memory_cells: m.report.totals.memory_cells.unwrap_or(0),
                proof,
            }
        })
        .collect()
}

fn main() {
    let cases = cases();
    let mut criterion = Criterion::default().configure_from_args();
    {
        let mut group = criterion.benchmark_group("prove_corpus");
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(800));
        for case in &cases {
            group.bench_with_input(BenchmarkId::from_parameter(&case.name), case, |b, case| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        std::hint::black_box(prove(&case.proof.instances).expect("well formed"));
                    }
                    let elapsed = start.elapsed();
                    SAMPLES
                        .lock()
                        .expect("no panics while holding the lock")
                        .entry(case.name.clone())
                        .or_default()
                        .push(elapsed.as_secs_f64() / iters as f64);
                    elapsed
                })
            });
        }
        group.finish();
    }
    criterion.final_summary();
    let mut samples = SAMPLES.lock().expect("no panics while holding the lock");
    println!(
        "\nprover time against the report's sumcheck cells ({} rayon threads)",
        rayon::current_num_threads()
    );
    println!(
        "{:<22} {:>12} {:>12} {:>14} {:>11}",
        "program", "report cells", "memory cells", "instance cells", "median ms"
    );
    let mut points = Vec::new();
    for case in &cases {
        let Some(times) = samples.get_mut(&case.name) else {
            continue; // filtered out on the command line
        };
        let t = median(times);
        println!(
            "{:<22} {:>12} {:>12} {:>14} {:>11.3}",
            case.name,
            case.report_cells,
            case.memory_cells,
            total_cells(&case.proof.instances),
            t * 1e3
        );
        points.push((case.report_cells as f64, t));
    }
    if let Some(fit) = linear_fit(&points) {
        println!(
            "fit: time = {:.4} ms + {:.2} ns · report cells   R² = {:.4}  ({} programs)",
            fit.intercept * 1e3,
            fit.slope * 1e9,
            fit.r_squared,
            points.len()
        );
    }
}
