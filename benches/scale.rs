//! Compiling at scale (issue 21): `for u32 i in 0..N { acc = acc * acc + x; }` compiled to one
//! circuit, as `zkbc report --monolithic` without inputs compiles it, for N = 10^5 and 10^6
//! (and 10^7 with `ZKBC_BENCH_1E7=1`: it takes minutes).
//!
//! - `scale/end_to_end/N`: `report::measure::measure` (compile, lower, count, the `--no-merge`
//!   baseline), what `zkbc report --monolithic` runs;
//! - `scale/front/N`, `scale/opt/N`, `scale/lower/N`: the front end, the `-O3 --monolithic`
//!   pipeline on its IR, and lowering the one block (`r1cs::stats`, which borrows the IR).
//!
//! Before the timings, one end-to-end run per N prints its stages (`zkbc::timing`, as
//! `--time-passes` prints them) and the peak resident memory per constraint. Peak memory is the
//! process's high-water mark reset before the run, so it includes what the bench itself holds
//! (the source text), which is small. Run with `cargo bench --bench scale`.

/// The allocator the `zkbc` binary uses.
#[global_allocator]
static GLOBAL: allocator::Allocator = allocator::Allocator;
// The binary's allocator settings (`src/allocator.rs`, not part of the library).
#[path = "../src/allocator.rs"]
#[macro_use]
mod allocator;
configure_allocator_before_main!();

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;
use zkbc::ir::Program;
use zkbc::opt::{self, OptLevel};
use zkbc::report::measure::{measure, Merging, Settings};
use zkbc::{front, r1cs, timing};

/// The program of issue 21 with `n` iterations.
fn source(n: u64) -> String {
    format!(
        "def main(private field x) -> field {{\n    field mut acc = x;\n    for u32 i in 0..{n} {{\n        acc = acc * acc + x;\n    }}\n    return acc;\n}}\n"
    )
}

/// `--monolithic` with room for the whole unrolled loop, the program not kept (as `zkbc report`
/// keeps it: the lowering frees the instructions behind it).
fn settings() -> Settings {
    Settings {
        merging: Merging::Monolithic,
        max_unrolled: usize::MAX,
        keep_ir: false,
        ..Settings::default()
    }
}

fn sizes() -> Vec<u64> {
    let mut sizes = vec![100_000, 1_000_000];
    if std::env::var_os("ZKBC_BENCH_1E7").is_some_and(|v| v == "1") {
        sizes.push(10_000_000);
    }
    sizes
}

/// One end-to-end run with its stages recorded: prints the stage table and bytes per constraint.
fn print_stages(n: u64) {
    timing::enable();
    let _ = timing::take();
    let src = source(n);
    let constraints = timing::stage("end to end", || {
        measure("scale.zok", &src, None, &settings(), &|_| {})
            .expect("the program measures")
            .report
            .totals
            .constraints
    });
    let records = timing::take();
    let peak = records[0].peak_rss.unwrap_or(0);
    println!("N = {n}: {constraints} constraints");
    print!("{}", timing::table(&records));
    println!(
        "N = {n}: {:.1} s, peak {} = {:.0} bytes per constraint\n",
        records[0].time.as_secs_f64(),
        timing::format_bytes(peak),
        peak as f64 / constraints as f64
    );
}

/// The front end's IR and the optimized program of size `n`.
fn programs(n: u64) -> (Program, Program) {
    let (front_ir, _) = front::compile_source("scale.zok", &source(n)).expect("compiles");
    let mut optimized = front_ir.clone();
    optimize(&mut optimized);
    (front_ir, optimized)
}

fn optimize(program: &mut Program) {
    let mut options = opt::Options::default();
    options.merge.monolithic = true;
    options.merge.max_unrolled = usize::MAX;
    opt::optimize(program, &OptLevel::O3.pipeline(), &options).expect("merges");
}

fn bench_scale(c: &mut Criterion) {
    let sizes = sizes();
    for &n in &sizes {
        print_stages(n);
    }
    let mut group = c.benchmark_group("scale");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(100));
    group.measurement_time(Duration::from_secs(5));
    for &n in &sizes {
        let src = source(n);
        group.bench_function(format!("end_to_end/{n}"), |b| {
            b.iter(|| measure("scale.zok", black_box(&src), None, &settings(), &|_| {}))
        });
        group.bench_function(format!("front/{n}"), |b| {
            b.iter(|| front::compile_source("scale.zok", black_box(&src)))
        });
        let (front_ir, optimized) = programs(n);
        group.bench_function(format!("opt/{n}"), |b| {
            b.iter_batched(
                || front_ir.clone(),
                |mut p| optimize(&mut p),
                criterion::BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("lower/{n}"), |b| {
            b.iter(|| r1cs::stats(black_box(&optimized)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_scale);
criterion_main!(benches);
