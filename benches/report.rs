//! Benchmarks of the report stage on a large synthetic program: the cost model, and each output
//! form. Run with `cargo bench --bench report`.

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
use zkbc::report::{aggregate, svg, table, to_json, BlockCost, ProgramCost};

/// A program of `n` blocks with sizes and executions spread over several powers of two.
fn synthetic(n: u64) -> ProgramCost {
    ProgramCost {
        program: format!("synthetic{n}"),
        opt_level: "O2".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: (0..n)
            .map(|i| BlockCost {
                label: format!("b{i}"),
                source: None,
                constraints: (i * 7919) % 5000,
                witness_vars: (i * 104_729) % 6000,
                io_vars: 16,
                accesses: 0,
                read_only_accesses: 0,
                executions: Some((i * 31) % 1000),
            })
            .collect(),
        outputs: Some(serde_json::json!(["0"])),
        satisfied: Some(true),
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    }
}

fn bench_report(c: &mut Criterion) {
    let cost = synthetic(10_000);
    let report = cost.report().expect("small counts");
    let small = synthetic(200).report().expect("small counts");
    let many: Vec<_> = (0..500).map(|_| small.clone()).collect();
    c.bench_function("report/cost_model_10k_blocks", |b| {
        b.iter(|| black_box(&cost).report())
    });
    c.bench_function("report/json_10k_blocks", |b| {
        b.iter(|| to_json(black_box(&report)))
    });
    c.bench_function("report/table_10k_blocks", |b| {
        b.iter(|| table::render(black_box(&report)))
    });
    c.bench_function("report/svg_200_blocks", |b| {
        b.iter(|| svg::render(black_box(&small)))
    });
    c.bench_function("report/aggregate_csv_500_reports", |b| {
        b.iter(|| aggregate::csv(black_box(&many)))
    });
}

criterion_group!(benches, bench_report);
criterion_main!(benches);
