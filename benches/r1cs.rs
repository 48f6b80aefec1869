//! R1CS lowering benchmarks: one generated block of over a million constraints (lowering speed
//! and peak memory per constraint), and constraint counting over many blocks in parallel
//! against sequential. Run with `cargo bench --bench r1cs`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use zkbc::field::Fr;
use zkbc::ir::{BinOp, BlockId, FuncId, Function, FunctionBuilder, Program, Type};
use zkbc::r1cs;

/// Counts live heap bytes and their peak, to measure memory per constraint, over the allocator
/// the `zkbc` binary uses (mimalloc).
struct Counting;

static INNER: mimalloc::MiMalloc = mimalloc::MiMalloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { INNER.alloc(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { INNER.dealloc(ptr, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One block of `steps` rounds; each round is 7 field multiplications (1 constraint each) and
/// one checked cast of the running product to u8 (8 booleans): 15 constraints per round.
fn big_block(steps: usize) -> Program {
    let mut func = Function::new("main", vec![Type::Field]);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.func().entry;
    let body = b.create_block();
    let x = b.add_block_param(entry, Type::Field);
    let p = b.add_block_param(body, Type::Field);
    b.switch_to_block(entry);
    b.jmp(body, vec![x]);
    b.switch_to_block(body);
    let mut acc = p;
    let mut sum = b.field(Fr::from(0u64));
    for _ in 0..steps {
        for _ in 0..7 {
            acc = b.binary(BinOp::Mul, acc, p);
        }
        let byte = b.cast(acc, Type::UInt(8));
        let wide = b.cast(byte, Type::Field);
        sum = b.binary(BinOp::Add, sum, wide);
    }
    let out = b.binary(BinOp::Add, sum, acc);
    b.ret(vec![out]);
    Program {
        funcs: vec![func],
        main: FuncId(0),
        files: Vec::new(),
        frames: Default::default(),
    }
}

/// `n_blocks` blocks in a chain, each `rounds` rounds of the above.
fn many_blocks(n_blocks: usize, rounds: usize) -> Program {
    let mut func = Function::new("main", vec![Type::Field]);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.func().entry;
    let x = b.add_block_param(entry, Type::Field);
    b.switch_to_block(entry);
    let mut arg = x;
    for _ in 0..n_blocks {
        let next = b.create_block();
        let p = b.add_block_param(next, Type::Field);
        b.jmp(next, vec![arg]);
        b.switch_to_block(next);
        let mut acc = p;
        for _ in 0..rounds {
            for _ in 0..7 {
                acc = b.binary(BinOp::Mul, acc, p);
            }
            let byte = b.cast(acc, Type::UInt(8));
            let wide = b.cast(byte, Type::Field);
            acc = b.binary(BinOp::Add, acc, wide);
        }
        arg = acc;
    }
    b.ret(vec![arg]);
    Program {
        funcs: vec![func],
        main: FuncId(0),
        files: Vec::new(),
        frames: Default::default(),
    }
}

fn lowering(c: &mut Criterion) {
    // ZKBC_BENCH_ROUNDS shrinks the block for a quick look; the default is over 10^6 constraints.
    let steps = std::env::var("ZKBC_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(70_000);
    let program = big_block(steps);
    let blk = r1cs::lower_block(&program, program.main, BlockId(1)).unwrap();
    let n = blk.n_constraints();
    assert!(
        steps < 70_000 || n >= 1_000_000,
        "the generated block has {n} constraints"
    );
    drop(blk);
    // Peak heap during one lowering, above what the IR already holds.
    // (Counting only from here, so frees of older blocks never underflow the live count.)
    LIVE.store(1 << 40, Ordering::Relaxed);
    PEAK.store(1 << 40, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let before = 1usize << 40;
    let blk = r1cs::lower_block(&program, program.main, BlockId(1)).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let kept = LIVE.load(Ordering::Relaxed).saturating_sub(before);
    COUNTING.store(false, Ordering::Relaxed);
    eprintln!(
        "r1cs/lower_block: {n} constraints, {} witnesses; peak {:.0} bytes/constraint, result {:.0} bytes/constraint",
        blk.n_witness(),
        peak as f64 / n as f64,
        kept as f64 / n as f64
    );
    drop(blk);
    let mut group = c.benchmark_group("r1cs");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(2));
    group.bench_function(format!("lower_block_{n}_constraints"), |bench| {
        bench.iter(|| {
            black_box(
                r1cs::lower_block(&program, program.main, BlockId(1))
                    .unwrap()
                    .n_constraints(),
            )
        })
    });
    group.finish();
}

fn counting(c: &mut Criterion) {
    let program = many_blocks(64, 2_000);
    let total: usize = r1cs::stats(&program)
        .unwrap()
        .iter()
        .map(|s| s.constraints)
        .sum();
    eprintln!(
        "r1cs/stats: 65 blocks, {total} constraints, {} threads",
        rayon::current_num_threads()
    );
    let mut group = c.benchmark_group("r1cs_stats");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(2));
    group.bench_function("sequential", |bench| {
        bench.iter(|| black_box(r1cs::stats_sequential(&program).unwrap().len()))
    });
    group.bench_function("parallel", |bench| {
        bench.iter(|| black_box(r1cs::stats(&program).unwrap().len()))
    });
    group.finish();
}

criterion_group!(benches, lowering, counting);
criterion_main!(benches);
