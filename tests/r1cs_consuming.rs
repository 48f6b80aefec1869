//! The lowering that consumes a monolithic circuit's instructions (`r1cs::stats_consuming`,
//! what `zkbc report` and `zkbc table` use) gives the sizes the borrowing lowering
//! (`r1cs::stats`) gives: on every corpus program compiled as one circuit, and on a block of
//! several arena chunks whose walk frees the first chunk before it lowers an assertion whose
//! fused comparison was defined there. A `--monolithic` measurement that consumes its program
//! reports what one that keeps it reports, source lines included.

use crate::common;

use common::corpus;
use zkbc::driver;
use zkbc::ir::arena::chunk_of;
use zkbc::ir::{InstKind, Program, ValueDef};
use zkbc::opt::OptLevel;
use zkbc::r1cs;
use zkbc::report::measure::{measure, Merging, Settings};

/// `text` compiled as one circuit at -O3 and made lowerable, or the compile error (a runtime
/// loop bound has no monolithic circuit).
fn monolithic(name: &str, text: &str) -> Result<Program, String> {
    let mut options = driver::Options {
        opt_level: OptLevel::O3,
        ..driver::Options::default()
    };
    options.opt.merge.monolithic = true;
    options.opt.merge.max_unrolled = 10_000_000;
    let mut c = driver::compile(name, text, &options).map_err(|e| e.to_string())?;
    driver::legalize_for_r1cs(&mut c.program).map_err(|e| e.to_string())?;
    Ok(c.program)
}

/// Both lowerings of `p`, consuming every one-block function; the consumed `main` is left
/// without instructions.
fn both(name: &str, p: &Program) {
    let borrowed = r1cs::stats(p).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut q = p.clone();
    let consumed = r1cs::stats_consuming(&mut q, 0, r1cs::LowerOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(consumed, borrowed, "{name}");
    if p.main_func().layout.len() == 1 {
        let main = q.main_func();
        assert!(main.insts.is_empty(), "{name}: main kept its instructions");
        assert!(main.block(main.entry).insts.is_empty(), "{name}");
    }
}

#[test]
fn consuming_and_borrowing_lowering_agree_on_the_corpus() {
    let mut compared = 0;
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        match monolithic(&name, &text) {
            Ok(p) => {
                both(&name, &p);
                compared += 1;
            }
            Err(e) => assert!(e.contains("not a compile-time constant"), "{name}: {e}"),
        }
    }
    // 28 of the 44 corpus programs have constant loop bounds.
    assert!(
        compared >= 28,
        "only {compared} corpus programs compiled as one circuit"
    );
}

/// `c` (an `and` of two `eq`s, fused into the final assertion) is defined before 40,000
/// iterations of two instructions each: more than one chunk of the arena lies between.
const CHUNKS: &str = "def main(private field x, private field y) -> field {
    bool c = x == y && x * y == 9;
    field mut acc = x;
    for u32 i in 0..40000 {
        acc = acc * acc + y;
    }
    assert(c);
    return acc;
}";

#[test]
fn a_walk_over_several_chunks_frees_what_an_assertion_fused() {
    let p = monolithic("chunks.zok", CHUNKS).unwrap();
    let main = p.main_func();
    assert_eq!(main.layout.len(), 1);
    let insts = &main.block(main.entry).insts;
    let (assert_id, cond) = insts
        .iter()
        .find_map(|&i| match main.inst(i).kind {
            InstKind::Assert { cond, .. } => Some((i, cond)),
            _ => None,
        })
        .expect("the assertion");
    let ValueDef::Result(def, _) = main.value(cond).def else {
        panic!("the asserted value is not an instruction's result");
    };
    assert!(
        chunk_of(def.index()) < chunk_of(assert_id.index()),
        "the fused `and` ({def}) and the assertion ({assert_id}) share a chunk: the test \
         would not free it first"
    );
    both("chunks.zok", &p);
}

#[test]
fn a_measurement_that_consumes_its_program_reports_what_one_that_keeps_it_reports() {
    let inputs = serde_json::json!(["3", "3"]);
    for inputs in [None, Some(&inputs)] {
        let settings = |keep_ir| Settings {
            merging: Merging::Monolithic,
            keep_ir,
            ..Settings::default()
        };
        let kept = measure("chunks.zok", CHUNKS, inputs, &settings(true), &|_| {}).unwrap();
        let consumed = measure("chunks.zok", CHUNKS, inputs, &settings(false), &|_| {}).unwrap();
        assert_eq!(consumed.report, kept.report, "inputs: {inputs:?}");
        assert!(
            kept.report.blocks[0]
                .source
                .as_deref()
                .is_some_and(|s| s.contains("chunks.zok")),
            "{:?}",
            kept.report.blocks[0].source
        );
        // The consumed program really gave its instructions up.
        assert!(consumed.compilation.program.main_func().insts.is_empty());
        assert!(!kept.compilation.program.main_func().insts.is_empty());
    }
}
