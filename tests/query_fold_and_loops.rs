//! Queries checked against the interpreter: the trip counts of `counted-loop` equal the
//! iterations the interpreter runs on the corpus, and the `fold_bits` pass leaves valid IR
//! that computes the same outputs.

use crate::common;
use expect_test::expect;
use std::collections::HashMap;
use zkbc::ir::interp::{self, Val};
use zkbc::ir::{parse_program, verify, Program};
use zkbc::query::patterns::{trip_count, Trips};
use zkbc::query::{find_matches, find_pattern, Facts};

/// The `fold_bits` pass on `program`: how many round trips it folded.
fn fold_bit_round_trips(program: &mut Program) -> usize {
    zkbc::opt::fold_bits::run(program).get("bit_round_trips_folded")
}

fn corpus() -> Vec<(String, Program, Vec<Val>)> {
    common::corpus()
        .into_iter()
        .map(|path| {
            let name = path.display().to_string();
            let source = std::fs::read_to_string(&path).unwrap();
            let (program, abi) = zkbc::front::compile_source(&name, &source).unwrap();
            let json = common::read_json(&path.with_extension("json"));
            let inputs = abi.inputs_from_json(&json).unwrap();
            (name, program, inputs)
        })
        .collect()
}

/// For every counted loop with an exact constant trip count N, entered from a preheader that
/// jumps to it, the interpreter runs the latch N times per run of the preheader.
#[test]
fn trip_counts_agree_with_the_interpreter_on_the_corpus() {
    let pattern = find_pattern("counted-loop").unwrap();
    let mut n_checked = 0;
    for (name, program, inputs) in corpus() {
        let outcome = interp::run(&program, &inputs, interp::Limits::default()).unwrap();
        let mut runs: HashMap<_, u64> = HashMap::new();
        for e in &outcome.trace {
            *runs.entry((e.func, e.block)).or_default() += 1;
        }
        for m in find_matches(&program, &pattern) {
            let facts = Facts::new(program.func(m.func));
            let Ok(Trips {
                n: trips,
                exact: true,
                ..
            }) = trip_count(&facts, &m.bindings)
            else {
                continue;
            };
            let block = |n: &str| m.bindings.get(n).unwrap().block();
            let (pre, latch) = (block("preheader"), block("latch"));
            let entries = runs.get(&(m.func, pre)).copied().unwrap_or(0);
            let latch_runs = runs.get(&(m.func, latch)).copied().unwrap_or(0);
            assert_eq!(latch_runs, trips * entries, "{name}: {}", m.text);
            n_checked += usize::from(entries > 0);
        }
    }
    assert!(n_checked >= 15, "only {n_checked} loops ran");
}

/// A loop block formation rotated (one block that tests its incremented counter at its end),
/// from a constant-bound loop too long to unroll: `counted-loop` finds it, its trip count is
/// the number of times the block runs, and the static counts of the report equal the run's.
#[test]
fn a_rotated_counted_loop_has_its_trip_count_and_static_counts() {
    for (n, start) in [(1000u32, 0u32), (999, 7), (1, 0)] {
        let source = format!(
            "def main(field x) -> field {{\n    field mut acc = x;\n    for u32 i in {start}..{n} {{\n        acc = acc * acc + x;\n    }}\n    return acc;\n}}\n"
        );
        let mut options = zkbc::driver::Options::default();
        options.opt.merge.max_unrolled = 100;
        let program = zkbc::driver::compile("loop.zok", &source, &options)
            .unwrap()
            .program;
        let pattern = find_pattern("counted-loop").unwrap();
        let matches = find_matches(&program, &pattern);
        let inputs = vec![Val::Field(zkbc::field::Fr::from(3u64))];
        let outcome = interp::run(&program, &inputs, interp::Limits::default()).unwrap();
        let mut runs: HashMap<_, u64> = HashMap::new();
        for e in &outcome.trace {
            *runs.entry((e.func, e.block)).or_default() += 1;
        }
        let statics = zkbc::cost::static_executions(&program);
        for (block, ran) in &runs {
            assert_eq!(statics[block], Some(*ran), "{n} from {start}:\n{program}");
        }
        if n - start < 2 {
            continue;
        }
        let [m] = &matches[..] else {
            panic!("{n} from {start}: {} matches\n{program}", matches.len());
        };
        let facts = Facts::new(program.func(m.func));
        let trips = trip_count(&facts, &m.bindings).unwrap();
        assert!(trips.at_end && trips.exact, "{trips:?}\n{program}");
        let header = m.bindings.get("header").unwrap().block();
        assert_eq!(u64::from(n - start), trips.n);
        assert_eq!(runs[&(m.func, header)], trips.n, "{program}");
    }
}

fn run(program: &Program, inputs: &[Val]) -> Vec<Val> {
    interp::run(program, inputs, interp::Limits::default())
        .unwrap()
        .outputs
}

#[test]
fn fold_bit_round_trips_keeps_outputs_and_removes_the_decomposition() {
    let mut program = parse_program(
        "
fn main f0 -> u32, field, u8 {
b0(v0: u32, v1: field, v2: u8):
    v3 = to_bits v0
    v4 = from_bits v3 to u32
    v5 = add v4, u32 7
    v6 = to_bits v1
    v7 = from_bits v6 to field
    v8 = to_bits v2
    v9 = from_bits v8 to u8
    v10 = array_get v8, u32 0 @3:1
    v11 = cast v10 to u8 @3:1
    v12 = add v9, v11
    return v5, v7, v12
}
",
    )
    .unwrap();
    let field = |s: &str| Val::Field(zkbc::field::parse_dec(s).unwrap());
    let p_minus_1 = "21888242871839275222246405745257275088548364400416034343698204186575808495616";
    let cases = [
        vec![Val::UInt(0), field("0"), Val::UInt(0)],
        vec![Val::UInt(u32::MAX.into()), field(p_minus_1), Val::UInt(255)],
        vec![Val::UInt(123_456), field("987654321"), Val::UInt(129)],
    ];
    let before: Vec<_> = cases.iter().map(|c| run(&program, c)).collect();
    assert_eq!(fold_bit_round_trips(&mut program), 3);
    verify::verify_program(&program).unwrap();
    let after: Vec<_> = cases.iter().map(|c| run(&program, c)).collect();
    assert_eq!(before, after);
    // The u8's bits are still read, so its to_bits stays; the other two are gone.
    expect![[r#"
        fn main f0 -> u32, field, u8 {
        b0(v0: u32, v1: field, v2: u8):
            v3 = add v0, u32 7
            v4 = to_bits v2
            v5 = array_get v4, u32 0 @3:1
            v6 = cast v5 to u8 @3:1
            v7 = add v2, v6
            return v3, v1, v7
        }
    "#]]
    .assert_eq(&program.normalized_text());
    // A second run finds nothing left to fold.
    assert_eq!(fold_bit_round_trips(&mut program), 0);
}

#[test]
fn fold_bit_round_trips_on_the_corpus_keeps_outputs() {
    for (name, mut program, inputs) in corpus() {
        let before = run(&program, &inputs);
        let n = fold_bit_round_trips(&mut program);
        verify::verify_program(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(run(&program, &inputs), before, "{name} after {n} folds");
    }
}

#[test]
fn fold_bit_round_trips_on_a_zok_program() {
    let source = "
import \"utils/casts/u32_to_bits\" as to_bits;
import \"utils/casts/u32_from_bits\" as from_bits;
def main(u32 x, u32 y) -> u32 {
    u32 z = from_bits(to_bits(x + y));
    return z * 2;
}
";
    let (mut program, abi) = zkbc::front::compile_source("rt.zok", source).unwrap();
    let inputs = abi
        .inputs_from_json(&serde_json::json!({"x": "4000000000", "y": "500000000"}))
        .unwrap();
    let before = run(&program, &inputs);
    assert_eq!(fold_bit_round_trips(&mut program), 1);
    verify::verify_program(&program).unwrap();
    assert_eq!(run(&program, &inputs), before);
    expect![[r#"
        fn main f0 -> u32 {
        b0(v0: u32, v1: u32):
            v2 = add v0, v1
            v3 = mul v2, u32 2
            return v3
        }
    "#]]
    .assert_eq(&program.normalized_text());
}

/// The `bits-round-trip` idiom is used by the optimizer: `-O2` runs `fold_bits`, so a source
/// round trip through bits costs nothing, and the program computes the same.
#[test]
fn o2_folds_source_bit_round_trips() {
    let source = "def main(u32 x, u8 y) -> (u32, u8) {\n    bool[32] b = u32_to_bits(x);\n    return (u32_from_bits(b) + 1, u8_from_bits(u8_to_bits(y)));\n}\n";
    let compile = |level| {
        let options = zkbc::driver::Options {
            opt_level: level,
            ..Default::default()
        };
        zkbc::driver::compile("round_trip.zok", source, &options).unwrap()
    };
    let o0 = compile(zkbc::opt::OptLevel::O0);
    let o2 = compile(zkbc::opt::OptLevel::O2);
    let text = o2.program.to_string();
    assert!(o0.program.to_string().contains("to_bits"));
    assert!(
        !text.contains("to_bits") && !text.contains("from_bits"),
        "{text}"
    );
    let inputs = serde_json::json!({"x": "4294967295", "y": "200"});
    for c in [&o0, &o2] {
        let values = c.inputs_from_json(&inputs).unwrap();
        let out = zkbc::ir::interp::run(&c.program, &values, Default::default()).unwrap();
        assert_eq!(
            c.outputs_to_json(&out.outputs),
            serde_json::json!({"outputs": ["0", "200"]})
        );
    }
    let report = o2
        .opt_report
        .runs
        .iter()
        .filter(|r| r.name == "fold_bits")
        .map(|r| r.stats.get("bit_round_trips_folded"))
        .sum::<usize>();
    assert_eq!(report, 2);
}
