//! Prover time and peak memory against sumcheck cells.
//!
//! Each case is one synthetic block (`zkbc_testkit::synthetic`) of `Q` executions and `X`
//! constraints, `Q·X` from 2^10 to 2^20 cells, in square and lopsided shapes and one with
//! padding. Criterion measures `prove`; afterwards the bench prints, per case, the median time
//! per proof, the split of one timed proof (digest / tables / rounds) and the time to verify
//! it, then the least-squares line `time = a + b·cells` with R².
//!
//! Then the memory: a counting allocator (over mimalloc, the `zkbc` binary's allocator)
//! tracks the live heap bytes and their peak. Per synthetic case it prints the instance's
//! own bytes per cell and the prover's peak *above* its input (what `prove` allocates at
//! most at once: its `Az`/`Bz`/`Cz`/`eq` tables and their folds) per cell. Then the loop
//! `acc = acc * acc + x` run `ZKBC_BENCH_PROVE_N` times (default 100,000), as `zkbc prove`
//! proves it: the heap peak while assigning the instances (witnesses, the memory and
//! transition arguments' instances) and while proving, per sumcheck cell of the whole proof.
//! Heap bytes are what the program asked for, not resident memory (the allocator's pages
//! and the binary are not counted); `/usr/bin/time` on `zkbc prove` gives the latter.
//! Run with `cargo bench --bench prove`; `cargo bench --bench prove -- memory` times no case
//! (the filter matches none) and prints the memory alone.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live heap bytes and their peak over the allocator the `zkbc` binary uses. Always
/// on (one relaxed add and max per allocation): the prover allocates few, large tables.
struct Counting;

static INNER: mimalloc::MiMalloc = mimalloc::MiMalloc;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { INNER.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { INNER.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { INNER.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { INNER.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result, the live heap bytes before it, and the peak live bytes
/// above that while it ran.
fn heap_peak<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    let peak = PEAK.load(Ordering::Relaxed);
    (out, before, peak.saturating_sub(before))
}

use criterion::{BenchmarkId, Criterion, Throughput};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zkbc::prove::{
    fit::{linear_fit, median},
    prove, prove_timed, total_cells, verify, BlockInstance,
};
use zkbc_testkit::synthetic;

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

/// Peak heap per cell of the synthetic cases and of the loop (see the module doc).
fn memory() {
    println!("\nprover peak heap per sumcheck cell (live bytes counted by the bench's allocator)");
    println!(
        "{:>10} {:>10} {:>16} {:>16}",
        "case", "cells", "instance B/cell", "prove peak B/cell"
    );
    for &(cons, execs) in CASES {
        let (blocks, _, input) = heap_peak(|| vec![synthetic::block("b", cons, execs, 7)]);
        let cells = total_cells(&blocks);
        let (proof, _, peak) = heap_peak(|| prove(&blocks).expect("well formed"));
        drop(proof);
        println!(
            "{:>10} {:>10} {:>16.1} {:>16.1}",
            label(cons, execs),
            cells,
            input as f64 / cells as f64,
            peak as f64 / cells as f64
        );
    }
    let n: u64 = std::env::var("ZKBC_BENCH_PROVE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let src = "def main(private field x, u32 n) -> field {\n    field mut acc = x;\n    for u32 i in 0..n {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
    let json = serde_json::json!({"x": "3", "n": n});
    let options = zkbc::driver::Options {
        profile: Some(json.clone()),
        ..zkbc::driver::Options::default()
    };
    let ((program, outcome), base, prepared) = heap_peak(|| {
        let mut compiled =
            zkbc::driver::compile("loop.zok", src, &options).expect("the loop compiles");
        zkbc::driver::legalize_for_r1cs(&mut compiled.program).expect("legalizes");
        let values = compiled.inputs_from_json(&json).expect("inputs fit");
        let limits = zkbc::ir::interp::Limits::default();
        let outcome = zkbc::ir::interp::run(&compiled.program, &values, limits).expect("runs");
        (compiled.program, outcome)
    });
    let after_run = LIVE.load(Ordering::Relaxed) - base;
    let (p, _, assigning) = heap_peak(|| {
        zkbc::driver::proof::proof_instances(&program, &outcome, Default::default())
            .expect("checks")
    });
    let cells = total_cells(&p.instances);
    let executed: usize = p
        .instances
        .iter()
        .map(|i| i.executions.len() * i.r1cs.num_constraints())
        .sum();
    let instances = LIVE.load(Ordering::Relaxed) - base - after_run;
    let (proof, _, proving) = heap_peak(|| prove(&p.instances).expect("well formed"));
    drop(proof);
    let per_cell = |b: usize| b as f64 / cells as f64;
    println!(
        "\nloop of {n} iterations: {} instances, {cells} sumcheck cells, {executed} executed \
         constraints",
        p.instances.len()
    );
    println!(
        "  compile + run: peak {:.1} MB, {:.1} MB held after (program and trace)",
        prepared as f64 / 1e6,
        after_run as f64 / 1e6
    );
    println!(
        "  assigning the instances: peak {:.1} MB above that ({:.1} B/cell), {:.1} MB held \
         ({:.1} B/cell)",
        assigning as f64 / 1e6,
        per_cell(assigning),
        instances as f64 / 1e6,
        per_cell(instances)
    );
    println!(
        "  proving: peak {:.1} MB above everything held ({:.1} B/cell); heap at the prover's \
         peak {:.1} MB ({:.1} B/cell)",
        proving as f64 / 1e6,
        per_cell(proving),
        (after_run + instances + proving) as f64 / 1e6,
        per_cell(after_run + instances + proving)
    );
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_prove(&mut criterion);
    criterion.final_summary();
    summarize();
    memory();
}
