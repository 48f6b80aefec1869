//! Witness generation and checking throughput (issue 18): executed constraints per second
//! of `r1cs::check_trace` — every block lowered once, every execution assigned by its tape,
//! inverses batch-inverted per chunk, rows checked in parallel — with 1 and with 2 threads.
//!
//! - `witness/compiled/T/PROGRAM`: the default checker on a rayon pool of `T` threads;
//! - `witness/relowered/1/loop_10000`: the reference (the lowering re-run in witness mode for
//!   every execution, what `check` did before), on a short loop, for the ratio.
//!
//! The programs: the loop of issue 21 with a run-time bound (`for u32 i in 0..n { acc = acc *
//! acc + x; }`, one 8-constraint block per iteration) and `circuits/cobbl_sha256.zok` (large
//! merged blocks). Compiling and running happen once, outside the timing. Criterion reports
//! the throughput in elements (executed constraints, Σ executions × constraints) per second.
//! Run with `cargo bench --bench witness`.

/// The allocator the `zkbc` binary uses.
#[global_allocator]
static GLOBAL: allocator::Allocator = allocator::Allocator;
// The binary's allocator settings (`src/allocator.rs`, not part of the library).
#[path = "../src/allocator.rs"]
#[macro_use]
mod allocator;
configure_allocator_before_main!();

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};
use zkbc::driver;
use zkbc::ir::{interp, Program};
use zkbc::r1cs::{self, CheckOptions, Witnesses};

/// The loop with `n` iterations.
fn looped(n: u64) -> (String, String, serde_json::Value) {
    let src = "def main(private field x, u32 n) -> field {\n    field mut acc = x;\n    for u32 i in 0..n {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
    (
        format!("loop_{n}"),
        src.to_string(),
        serde_json::json!({"x": "3", "n": n}),
    )
}

fn corpus(name: &str) -> (String, String, serde_json::Value) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/circuits/");
    let src = std::fs::read_to_string(format!("{dir}{name}.zok")).expect("corpus program");
    let json = std::fs::read_to_string(format!("{dir}{name}.json")).expect("its inputs");
    (
        name.to_string(),
        src,
        serde_json::from_str(&json).expect("JSON"),
    )
}

/// The program compiled as `zkbc check` compiles it (block formation profiled on the inputs),
/// its run, and its executed constraints.
fn prepare(name: &str, src: &str, json: &serde_json::Value) -> (Program, interp::Outcome, u64) {
    let options = driver::Options {
        profile: Some(json.clone()),
        ..driver::Options::default()
    };
    let mut compiled = driver::compile(&format!("{name}.zok"), src, &options).expect("compiles");
    driver::legalize_for_r1cs(&mut compiled.program).expect("legalizes");
    let values = compiled.inputs_from_json(json).expect("inputs fit");
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).expect("runs");
    let report = r1cs::check_trace(&compiled.program, &outcome).expect("checks");
    let executed = report
        .blocks
        .iter()
        .map(|b| (b.executions * b.constraints) as u64)
        .sum();
    (compiled.program, outcome, executed)
}

fn check(program: &Program, outcome: &interp::Outcome, witnesses: Witnesses) {
    let opts = CheckOptions {
        witnesses,
        ..CheckOptions::default()
    };
    black_box(r1cs::check_trace_opts(program, outcome, opts).expect("checks"));
}

thread_local! {
    /// Each program compiled and run once per thread: a trace holds `Rc`s and cannot move to
    /// the pool's threads, so each prepares its own.
    static PREPARED: RefCell<HashMap<String, (Program, interp::Outcome)>> =
        RefCell::new(HashMap::new());
}

/// `iters` checks of the program (prepared once on this thread), timed.
fn timed(case: &(String, String, serde_json::Value), witnesses: Witnesses, iters: u64) -> Duration {
    PREPARED.with(|prepared| {
        let mut prepared = prepared.borrow_mut();
        let (program, outcome) = prepared.entry(case.0.clone()).or_insert_with(|| {
            let (program, outcome, _) = prepare(&case.0, &case.1, &case.2);
            (program, outcome)
        });
        let start = Instant::now();
        for _ in 0..iters {
            check(program, outcome, witnesses);
        }
        start.elapsed()
    })
}

fn bench_witness(c: &mut Criterion) {
    let mut group = c.benchmark_group("witness");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    let cases = [looped(100_000), corpus("cobbl_sha256"), looped(10_000)];
    let executed: Vec<u64> = cases
        .iter()
        .map(|(name, src, json)| {
            let (_, _, executed) = prepare(name, src, json);
            println!("{name}: {executed} executed constraints");
            executed
        })
        .collect();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        for (case, &executed) in cases.iter().zip(&executed).take(2) {
            group.throughput(Throughput::Elements(executed));
            group.bench_function(format!("compiled/{threads}/{}", case.0), |b| {
                b.iter_custom(|iters| pool.install(|| timed(case, Witnesses::Compiled, iters)))
            });
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    let short = &cases[2];
    group.throughput(Throughput::Elements(executed[2]));
    for (label, witnesses) in [
        ("compiled", Witnesses::Compiled),
        ("relowered", Witnesses::Relowered),
    ] {
        group.bench_function(format!("{label}/1/{}", short.0), |b| {
            b.iter_custom(|iters| pool.install(|| timed(short, witnesses, iters)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_witness);
criterion_main!(benches);
