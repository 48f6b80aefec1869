//! Prover time against sumcheck cells.
//!
//! Each case is one synthetic block (`zkbc::prove::synthetic`) of `Q` executions and `X`
//! constraints, `Q·X` from 2^10 to 2^20 cells, in square and lopsided shapes and one with
//! padding. Criterion measures `prove`; afterwards the bench prints, per case, the median time
//! per proof, the split of one timed proof (digest / tables / rounds) and the time to verify
//! it, then the least-squares line `time = a + b·cells` with R². Run with
//! `cargo bench --bench prove`.

/// The allocator the `zkbc` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, Throughput};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zkbc::prove::{
    fit::{linear_fit, median},
    prove, prove_timed, synthetic, total_cells, verify, BlockInstance,
};

/// (constraints, executions): padded cells 2^10 … 2^20.
const CASES: &[(usize, usize)] = &[
    (32, 32),
    (64, 64),
    (2048, 8),
    (128, 128),
    (16, 4096),
    (256, 256),
    (512, 512),
    (600, 300),
    (1024, 1024),
];

/// Seconds per proof, every measured batch, per case label.
static SAMPLES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

fn label(cons: usize, execs: usize) -> String {
    format!("{cons}x{execs}")
}

fn bench_prove(c: &mut Criterion) {
    let mut group = c.benchmark_group("prove");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for &(cons, execs) in CASES {
        let blocks = vec![synthetic::block("b", cons, execs, 7)];
        group.throughput(Throughput::Elements(total_cells(&blocks) as u64));
        let id = label(cons, execs);
        group.bench_with_input(BenchmarkId::from_parameter(&id), &blocks, |b, blocks| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(prove(blocks).expect("synthetic blocks are well formed"));
                }
                let elapsed = start.elapsed();
                let per_proof = elapsed.as_secs_f64() / iters as f64;
                SAMPLES
                    .lock()
                    .expect("no panics while holding the lock")
                    .entry(id.clone())
                    .or_default()
                    .push(per_proof);
                elapsed
            })
        });
    }
    group.finish();
}

fn summarize() {
    let mut samples = SAMPLES.lock().expect("no panics while holding the lock");
    let threads = rayon::current_num_threads();
    println!("\nprover time against sumcheck cells ({threads} rayon threads)");
    println!(
        "{:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "case", "cells", "median ms", "ns/cell", "digest ms", "tables ms", "rounds ms", "verify ms"
    );
    let mut points = Vec::new();
    for &(cons, execs) in CASES {
        let id = label(cons, execs);
        let Some(times) = samples.get_mut(&id) else {
            continue; // filtered out on the command line
        };
        let blocks: Vec<BlockInstance> = vec![synthetic::block("b", cons, execs, 7)];
        let cells = total_cells(&blocks);
        let t = median(times);
        let (proof, timing) = prove_timed(&blocks).expect("synthetic blocks are well formed");
        let split = timing.blocks[0];
        let start = Instant::now();
        verify(&blocks, &proof).expect("honest proofs verify");
        let verify_time = start.elapsed();
        println!(
            "{:>10} {:>10} {:>12.3} {:>10.1} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            id,
            cells,
            t * 1e3,
            t * 1e9 / cells as f64,
            split.digest.as_secs_f64() * 1e3,
            split.tables.as_secs_f64() * 1e3,
            split.rounds.as_secs_f64() * 1e3,
            verify_time.as_secs_f64() * 1e3,
        );
        points.push((cells as f64, t));
    }
    if let Some(fit) = linear_fit(&points) {
        println!(
            "fit: time = {:.4} ms + {:.2} ns · cells   R² = {:.5}  ({} cases)",
            fit.intercept * 1e3,
            fit.slope * 1e9,
            fit.r_squared,
            points.len()
        );
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_prove(&mut criterion);
    criterion.final_summary();
    summarize();
}
