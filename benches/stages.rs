//! Each stage of `zkbc report`, timed on the whole corpus (`circuits/*.zok`, one iteration
//! handles every program) and on one large generated program:
//!
//! - `front`: lexing, parsing, type checking and lowering to IR (`front::compile_source`);
//! - `passes`: the `-O3` pipeline on the front end's IR (`opt::optimize`);
//! - `lower`: every block to R1CS, rayon-parallel (`r1cs::stats`);
//! - `run_check`: the interpreter on the inputs and every executed block assigned and checked
//!   (`interp::run` + `r1cs::check_trace`);
//! - `report`: the cost model and the table and JSON forms from the measured counts;
//! - `measure`: all of it, as `zkbc report` runs it (`report::measure::measure`).
//!
//! Sample sizes are small so that each bench stays under a minute on a shared two-core machine.
//! Run with `cargo bench --bench stages` (add a name to filter, e.g. `stages -- corpus`).

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
use std::path::Path;
use std::time::Duration;
use zkbc::ir::{interp, Program};
use zkbc::opt::{self, OptLevel};
use zkbc::report::measure::{measure, Settings};
use zkbc::report::{table, to_json};
use zkbc::{driver, front, r1cs};

/// A program: name, source, inputs.
struct Case {
    name: String,
    source: String,
    inputs: serde_json::Value,
}

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("circuits/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "zok"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| Case {
            name: p.display().to_string(),
            source: std::fs::read_to_string(&p).expect("readable"),
            inputs: serde_json::from_str(
                &std::fs::read_to_string(p.with_extension("json")).expect("inputs"),
            )
            .expect("JSON"),
        })
        .collect()
}

/// `sections` repetitions of a counted loop, a `while` loop with a runtime bound, an `if`
/// statement and some u32 arithmetic: many blocks of varied sizes.
fn generated(sections: usize) -> Case {
    let mut src = String::from(
        "// Generated for benches/stages.rs.\n\
         def main(field x, u32 n) -> (field, u32) {\n    field mut acc = x;\n    u32 mut k = n;\n",
    );
    for s in 0..sections {
        src.push_str(&format!(
            "    for u32 i in 0..{trips} {{\n        acc = acc * acc + u32_to_field(i) + {s};\n        k = k + i * {m};\n    }}\n\
             \x20   u32 mut j = 0;\n    while j < n {{\n        k = (k ^ j) + {s};\n        j = j + 1;\n    }}\n\
             \x20   if k > {cut} {{\n        acc = acc * x;\n        k = k / 3;\n    }} else {{\n        acc = acc + x;\n        k = k * 7;\n    }}\n",
            trips = 2 + s % 5,
            m = s % 7 + 1,
            cut = 1000 * (s + 1),
        ));
    }
    src.push_str("    return (acc, k);\n}\n");
    Case {
        name: format!("generated{sections}.zok"),
        source: src,
        inputs: serde_json::json!({ "x": "3", "n": "4" }),
    }
}

/// The front end's IR of each case.
fn front_end(cases: &[Case]) -> Vec<Program> {
    cases
        .iter()
        .map(|c| {
            front::compile_source(&c.name, &c.source)
                .unwrap_or_else(|d| panic!("{}: {d:?}", c.name))
                .0
        })
        .collect()
}

/// Each case compiled at -O3 and legalized, with its interpreter inputs.
fn compiled(cases: &[Case]) -> Vec<(Program, Vec<interp::Val>)> {
    cases
        .iter()
        .map(|c| {
            let options = driver::Options {
                opt_level: OptLevel::O3,
                ..driver::Options::default()
            };
            let mut comp = driver::compile(&c.name, &c.source, &options).expect("compiles");
            driver::legalize_for_r1cs(&mut comp.program).expect("legalizes");
            let values = comp.inputs_from_json(&c.inputs).expect("inputs fit");
            (comp.program, values)
        })
        .collect()
}

fn bench_set(c: &mut Criterion, set: &str, cases: &[Case]) {
    let mut group = c.benchmark_group(set);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));

    group.bench_function("front", |b| b.iter(|| front_end(black_box(cases))));

    let unoptimized = front_end(cases);
    let pipeline = OptLevel::O3.pipeline();
    group.bench_function("passes", |b| {
        b.iter_batched(
            || unoptimized.clone(),
            |mut programs| {
                for p in &mut programs {
                    opt::optimize(p, &pipeline, &opt::Options::default()).expect("optimizes");
                }
                programs
            },
            criterion::BatchSize::LargeInput,
        )
    });

    let programs = compiled(cases);
    group.bench_function("lower", |b| {
        b.iter(|| {
            for (p, _) in &programs {
                black_box(r1cs::stats(p).expect("lowers"));
            }
        })
    });

    group.bench_function("run_check", |b| {
        b.iter(|| {
            for (p, values) in &programs {
                let outcome = interp::run(p, values, interp::Limits::default()).expect("runs");
                black_box(r1cs::check_trace(p, &outcome).expect("satisfied"));
            }
        })
    });

    let costs: Vec<_> = programs
        .iter()
        .zip(cases)
        .map(|((p, values), case)| {
            let stats = r1cs::stats(p).expect("lowers");
            let outcome = interp::run(p, values, interp::Limits::default()).expect("runs");
            let executions = zkbc::cost::traced_executions(&outcome);
            zkbc::cost::program_cost(&case.name, "O3", 1024, p, &stats, &executions)
        })
        .collect();
    group.bench_function("report", |b| {
        b.iter(|| {
            for cost in &costs {
                let r = cost.report().expect("fits");
                black_box((table::render(&r), to_json(&r)));
            }
        })
    });

    group.bench_function("measure", |b| {
        b.iter(|| {
            for case in cases {
                black_box(
                    measure(
                        &case.name,
                        &case.source,
                        Some(&case.inputs),
                        &Settings::default(),
                        &|_| {},
                    )
                    .expect("measures"),
                );
            }
        })
    });
    group.finish();
}

fn bench_stages(c: &mut Criterion) {
    bench_set(c, "corpus", &corpus());
    bench_set(c, "generated", &[generated(60)]);
}

criterion_group!(benches, bench_stages);
criterion_main!(benches);
