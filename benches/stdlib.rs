//! The compile of two standard-library yardsticks of ZoKrates 0.8.8 (`keccak256_u8_64.zok` and,
//! once `signatures/verifyEddsa` exists, `verifyEddsa.zok`, read from
//! `../shared/peers/zokrates-stdlib/yardsticks` at bench time) with zkbc's built-in library and
//! `--compat zokrates`: front end and `-O3` pipeline (`driver::compile`), legalization, and
//! every block lowered to R1CS (`driver::block_systems`) — source to constraint systems, what
//! ZoKrates' `compile` does (its times are in `yardsticks.tsv`); and the same with
//! `--monolithic`, the one circuit ZoKrates itself compiles. A yardstick that is absent or does
//! not compile is skipped with the reason printed.
//!
//! Before the timings, one run of each prints its peak resident memory: the process's
//! high-water mark reset before the run (as `--time-passes` measures a stage), so it includes
//! what the bench process already holds (criterion, the source text), which is small.
//!
//! Run with `cargo bench --bench stdlib`.

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
use std::path::{Path, PathBuf};
use std::time::Duration;
use zkbc::driver;
use zkbc::front::Compat;

/// The yardstick folder beside the crate or one of its ancestors.
fn yardsticks() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates-stdlib/yardsticks"))
        .find(|p| p.is_dir())
}

/// Source to the constraint systems of every block; the number of blocks.
fn compile(name: &str, source: &str, options: &driver::Options) -> Result<usize, String> {
    let mut compilation = driver::compile(name, source, options).map_err(|e| e.to_string())?;
    driver::legalize_for_r1cs(&mut compilation.program).map_err(|e| e.to_string())?;
    let systems = driver::block_systems(&compilation.program, compilation.lower)
        .map_err(|e| e.to_string())?;
    Ok(systems.len())
}

/// Runs `f` once as a recorded stage and prints its peak resident memory.
fn print_peak(what: &str, f: impl FnOnce() -> Result<(), String>) {
    zkbc::timing::enable();
    let _ = zkbc::timing::take();
    let result = zkbc::timing::stage(what, f);
    let records = zkbc::timing::take();
    match (result, records.first().and_then(|r| r.peak_rss)) {
        (Ok(()), Some(peak)) => println!(
            "{what}: peak {} resident, {:.2} s",
            zkbc::timing::format_bytes(peak),
            records[0].time.as_secs_f64()
        ),
        (Ok(()), None) => println!("{what}: no peak memory on this system"),
        (Err(e), _) => println!("{what}: {e}"),
    }
}

fn bench(c: &mut Criterion) {
    let Some(dir) = yardsticks() else {
        eprintln!("skipped: no shared/peers/zokrates-stdlib/yardsticks beside the crate");
        return;
    };
    let options = driver::Options {
        compat: Compat::Zokrates,
        field_cmp: zkbc::front::FieldCmp::Zokrates,
        ..driver::Options::default()
    };
    let mut group = c.benchmark_group("stdlib_compile");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for file in ["keccak256_u8_64.zok", "verifyEddsa.zok"] {
        let path = dir.join(file);
        let Ok(source) = std::fs::read_to_string(&path) else {
            eprintln!("skipped {file}: cannot read {}", path.display());
            continue;
        };
        let name = path.display().to_string();
        if let Err(e) = compile(&name, &source, &options) {
            eprintln!("skipped {file}: {e}");
            continue;
        }
        let mut one_circuit = options.clone();
        one_circuit.opt.merge.monolithic = true;
        for (label, options) in [("default", &options), ("--monolithic", &one_circuit)] {
            print_peak(&format!("{file} {label}"), || {
                compile(&name, &source, options).map(|_| ())
            });
        }
        group.bench_function(file, |b| {
            b.iter(|| black_box(compile(&name, black_box(&source), &options)))
        });
        group.bench_function(format!("{file} --monolithic"), |b| {
            b.iter(|| black_box(compile(&name, black_box(&source), &one_circuit)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
