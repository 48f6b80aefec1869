//! Arrays in memory (`r1cs::memory`): what an access costs in its block, how narrow the
//! transition state gets, and that the memory-checking instance rejects a trace whose read
//! returns a stale value (and the transition check a changed state).

use crate::common;

use zkbc::driver;
use zkbc::ir::interp::{self, Val};
use zkbc::ir::{self};
use zkbc::r1cs::{self, CheckError};

/// An IR program: `b0` builds a constant `field[len]`; the loop `b1` runs 4 times adding
/// element `v0` of it (`read`), or `v0` itself as a field element (no read, no array: a free
/// conversion), to an accumulator; `b2` returns it.
fn two_blocks(len: usize, read: bool) -> String {
    let elems: Vec<String> = (0..len).map(|k| format!("field {}", k * 7 + 1)).collect();
    let (array_arg, array_param, term, arg) = if read {
        (
            "v2, ",
            format!("v3: [field; {len}], "),
            "    v7 = array_get v3, v4\n",
            "v3, ",
        )
    } else {
        ("", String::new(), "    v7 = cast v4 to field\n", "")
    };
    format!(
        "fn main f0 -> field {{\n\
         b0(v0: u32, v1: field):\n\
         \x20   v2 = make_array [{elems}] : field\n\
         \x20   jmp b1({array_arg}v0, field 0, u32 0)\n\
         b1({array_param}v4: u32, v5: field, v6: u32):\n\
         {term}\
         \x20   v8 = add v5, v7\n\
         \x20   v9 = add v6, u32 1\n\
         \x20   v10 = lt v9, u32 4\n\
         \x20   br v10, b1({arg}v4, v8, v9), b2(v8)\n\
         b2(v11: field):\n\
         \x20   return v11\n\
         }}\n",
        elems = elems.join(", ")
    )
}

fn program(text: &str) -> ir::Program {
    let p = ir::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ir::verify::verify_program(&p).unwrap_or_else(|e| panic!("{e}\n{text}"));
    p
}

fn block_stats(p: &ir::Program, block: u32) -> r1cs::BlockStats {
    r1cs::stats(p)
        .unwrap()
        .into_iter()
        .find(|s| s.block == ir::BlockId(block))
        .unwrap()
}

#[test]
fn a_run_time_index_read_of_field_1000_costs_at_most_10_constraints_in_its_block() {
    let with = program(&two_blocks(1000, true));
    let without = program(&two_blocks(1000, false));
    let (w, wo) = (block_stats(&with, 1), block_stats(&without, 1));
    let cost = w.constraints - wo.constraints;
    println!(
        "field[1000] read at a run-time index: {} constraints in its block ({} with, {} without), \
         {} memory access, state {} wires",
        cost, w.constraints, wo.constraints, w.accesses, w.state_vars
    );
    assert_eq!(w.accesses, 1, "the read is a memory access");
    assert!(cost <= 10, "the read costs {cost} constraints");
    assert!(
        w.state_vars < 10,
        "the array is not in the state: {} wires",
        w.state_vars
    );
    // The block's read returns what the interpreter returns, and the memory check holds.
    for index in [0u64, 1, 500, 999] {
        let outcome = interp::run(
            &with,
            &[Val::UInt(index), Val::Field(7u64.into())],
            interp::Limits::default(),
        )
        .unwrap();
        assert_eq!(
            outcome.outputs,
            vec![Val::Field((4 * (index * 7 + 1)).into())]
        );
        let report = r1cs::check_trace(&with, &outcome).unwrap();
        // The constant array is a read-only table: its 1,000 elements are public entries
        // after the list's head, and the 4 reads go to the read-only list.
        assert_eq!(report.memory.ro_accesses.len(), 4);
        assert_eq!(report.memory.ro_inits.len(), 1 + 1000);
        assert!(report.memory.accesses.is_empty() && report.memory.inits.is_empty());
    }
    // The same read of a short array stays in registers.
    let short = program(&two_blocks(8, true));
    assert_eq!(block_stats(&short, 1).accesses, 0);
}

/// Runs and checks `name` (a corpus program) on its inputs.
fn run_corpus(name: &str, text: &str, inputs: &str) -> (ir::Program, interp::Outcome) {
    let mut compiled = driver::compile(name, text, &driver::Options::default()).unwrap();
    driver::legalize_for_r1cs(&mut compiled.program).unwrap();
    let json: serde_json::Value = serde_json::from_str(inputs).unwrap();
    let values = compiled.inputs_from_json(&json).unwrap();
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
    (compiled.program, outcome)
}

fn corpus_file(name: &str) -> (String, String) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    (
        std::fs::read_to_string(dir.join(format!("{name}.zok"))).unwrap(),
        std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
    )
}

#[test]
fn a_stale_read_or_a_changed_transition_state_is_rejected() {
    let (text, inputs) = corpus_file("cobbl_find_min");
    let (program, outcome) = run_corpus("cobbl_find_min.zok", &text, &inputs);
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    let reads = report
        .memory
        .accesses
        .iter()
        .filter(|a| a.rw == 0u64.into())
        .count();
    assert!(
        reads > 100,
        "find_min reads its array from memory ({reads} reads)"
    );
    // Change the value one read returns: the block is satisfied (a read is a free witness in
    // its block), the memory check is not.
    let (step, k) = outcome
        .trace
        .iter()
        .enumerate()
        .find_map(|(s, e)| {
            e.accesses
                .iter()
                .position(|a| a.written.is_none())
                .filter(|_| s > 2)
                .map(|k| (s, k))
        })
        .expect("a read after the first blocks");
    let mut stale = outcome.clone();
    let old = stale.trace[step].accesses[k].read.clone();
    stale.trace[step].accesses[k].read = match old {
        Val::UInt(n) => Val::UInt(n ^ 1),
        Val::Field(x) => Val::Field(x + zkbc::field::Fr::from(1u64)),
        v => v,
    };
    match r1cs::check_trace(&program, &stale) {
        Err(CheckError::Memory(e)) => println!("stale read rejected: {e}"),
        other => panic!("a stale read must fail the memory check, got {other:?}"),
    }
    // Change one transition's state: the block that produced it no longer satisfies its
    // instance.
    let mut changed = outcome.clone();
    let (s, entry) = changed
        .trace
        .iter_mut()
        .enumerate()
        .find(|(_, e)| {
            matches!(&e.exit, interp::Exit::Jump(_, args) if args.iter().any(|a| matches!(a, Val::UInt(_))))
        })
        .expect("a jump with a scalar argument");
    if let interp::Exit::Jump(_, args) = &mut entry.exit {
        let a = args.iter_mut().find(|a| matches!(a, Val::UInt(_))).unwrap();
        if let Val::UInt(n) = a {
            *n ^= 1;
        }
    }
    match r1cs::check_trace(&program, &changed) {
        Err(CheckError::Unsatisfied { step, .. }) => assert_eq!(step, s),
        other => panic!("a changed transition state must be rejected, got {other:?}"),
    }
}

#[test]
fn find_min_at_1600_elements_keeps_a_state_under_50_wires() {
    let (text, _) = corpus_file("cobbl_find_min");
    let text = text
        .replace("u32[200]", "u32[1600]")
        .replace("[0; 200]", "[0; 1600]");
    let inputs = r#"{"low": "0", "b": "150", "c": "3", "high": "1600"}"#;
    let (program, outcome) = run_corpus("find_min_1600.zok", &text, inputs);
    let stats = r1cs::stats(&program).unwrap();
    let widest = stats.iter().map(|s| s.state_vars).max().unwrap();
    println!(
        "find_min at 1,600 elements: {} blocks, widest state {widest} wires",
        stats.len()
    );
    assert!(widest < 50, "the widest state has {widest} wires");
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    assert!(report.memory.accesses.len() >= 3200);
}

#[test]
fn prove_proves_the_memory_check_and_the_transitions_and_rejects_a_stale_read() {
    let (text, inputs) = corpus_file("cobbl_find_min");
    let (program, outcome) = run_corpus("cobbl_find_min.zok", &text, &inputs);
    let honest = driver::proof::proof_instances(&program, &outcome, Default::default()).unwrap();
    let names: Vec<&str> = honest.instances.iter().map(|i| i.name.as_str()).collect();
    for want in ["memory.pairs", "memory.products", "transitions.products"] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    driver::proof::prove_and_verify(&honest).expect("the honest proof verifies");

    // One read returns a stale value: every block is still satisfied, the memory check's pair
    // instance is not, so its sumcheck proof is rejected.
    let mut stale = outcome.clone();
    let (step, k) = stale
        .trace
        .iter()
        .enumerate()
        .skip(3)
        .find_map(|(s, e)| {
            e.accesses
                .iter()
                .position(|a| a.written.is_none())
                .map(|k| (s, k))
        })
        .expect("a read");
    if let Val::UInt(n) = &mut stale.trace[step].accesses[k].read {
        *n ^= 1;
    }
    let bad = driver::proof::proof_instances(&program, &stale, Default::default()).unwrap();
    let err = driver::proof::prove_and_verify(&bad).expect_err("a stale read is rejected");
    println!("prove rejects a stale read: {err}");
    assert!(err.contains("memory.pairs"), "{err}");
}

#[test]
fn scalars_carried_through_loops_are_spilled_and_read_back() {
    let (text, inputs) = corpus_file("cobbl_kmp_search");
    let (program, outcome) = run_corpus("cobbl_kmp_search.zok", &text, &inputs);
    let main = program.main;
    let blocks = r1cs::lower_function(&program, main).unwrap();
    let reads: usize = blocks.iter().map(|b| b.layout().spill_reads.len()).sum();
    let writes: usize = blocks.iter().map(|b| b.layout().spill_writes.len()).sum();
    println!("kmp_search: {writes} spilled scalar(s) written, {reads} read back");
    assert!(
        writes > 0 && reads > 0,
        "kmp_search spills (writes {writes}, reads {reads})"
    );
    // No spilled value is part of any state, and the run checks with them in memory.
    for b in &blocks {
        for v in b.layout().spill_reads.iter() {
            assert!(!b.layout().live_in.contains(v), "{v} is read and carried");
        }
    }
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    assert!(!report.memory.accesses.is_empty());
}

/// `POSEIDON_C`'s elements as the source writes them.
fn poseidon_constants(text: &str) -> Vec<zkbc::field::Fr> {
    let start = text.find("POSEIDON_C = [").expect("POSEIDON_C") + "POSEIDON_C = [".len();
    let end = start + text[start..].find(']').expect("the list's end");
    text[start..end]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a decimal constant"))
        .collect()
}

#[test]
fn poseidons_round_constants_are_a_read_only_table_checked_and_proved() {
    use zkbc::field::Fr;
    let (text, inputs) = corpus_file("cobbl_poseidon");
    let (program, outcome) = run_corpus("cobbl_poseidon.zok", &text, &inputs);
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    let m = &report.memory;
    let c = poseidon_constants(&text);
    assert_eq!(c.len(), 129);
    // The read-only list's public entries: its head, then the table in address order.
    assert_eq!(m.ro_inits.len(), 1 + c.len());
    assert_eq!(m.ro_inits[0].addr, Fr::from(0u64));
    let table: Vec<Fr> = m.ro_inits[1..].iter().map(|e| e.value).collect();
    assert_eq!(table, c);
    // 65 rounds (f + p = 8 + 57); with n = 1, ark reads c[r·t] = C[2r] once per round: 65
    // reads, in round order, and no write (the table's make_arrays write nothing).
    assert_eq!(m.ro_accesses.len(), 65);
    for (r, e) in m.ro_accesses.iter().enumerate() {
        assert_eq!(e.rw, Fr::from(0u64));
        assert_eq!(e.value, c[2 * r], "round {r}");
    }
    assert!(r1cs::memory::check_memory(m).is_ok());
    // A read returning another value (round 10's C[20] + 1) fails the read-only pair instance.
    let mut tampered = m.clone();
    tampered.ro_accesses[10].value += Fr::from(1u64);
    match r1cs::memory::check_memory(&tampered) {
        Err(r1cs::memory::MemoryError::ReadOnlyPair { rule, access, .. }) => {
            assert_eq!(rule, "a read returns the address's one write");
            assert_eq!(access, Some(11));
        }
        other => panic!("a tampered read-only read must fail, got {other:?}"),
    }
    // The probe's proof proves both lists' instances.
    let proof = driver::proof::proof_instances(&program, &outcome, Default::default()).unwrap();
    let names: Vec<&str> = proof.instances.iter().map(|i| i.name.as_str()).collect();
    for want in ["memory.read_only_pairs", "memory.read_only_products"] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    driver::proof::prove_and_verify(&proof).expect("the honest proof verifies");
}

/// The input array of `common::READ_ONLY_INPUT_TABLE`, read at run-time indices and never
/// written.
const INPUT_TABLE: &str = common::READ_ONLY_INPUT_TABLE;

#[test]
fn an_input_array_only_read_is_read_only_and_a_tampered_read_is_rejected() {
    use zkbc::field::Fr;
    // a[k] = 3k + 1; n = 6, j = 3: s = 1 + 4 + 7 + 10 + 13 + 16 = 51, plus a[3] = 10.
    let a: Vec<String> = (0..32).map(|k| (3 * k + 1).to_string()).collect();
    let inputs = serde_json::json!({"a": a, "n": "6", "j": "3"}).to_string();
    let (program, outcome) = run_corpus("input_table.zok", INPUT_TABLE, &inputs);
    assert_eq!(outcome.outputs, vec![Val::Field(Fr::from(61u64))]);
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    let m = &report.memory;
    // No read-write list; the read-only one: the head, 32 writes of the entry block, 7 reads.
    assert!(m.inits.is_empty() && m.accesses.is_empty(), "{m:?}");
    assert_eq!(m.ro_inits.len(), 1);
    assert_eq!(m.ro_accesses.len(), 32 + 7);
    let writes: Vec<Fr> = m
        .ro_accesses
        .iter()
        .filter(|e| e.rw == Fr::from(1u64))
        .map(|e| e.value)
        .collect();
    assert_eq!(
        writes,
        (0..32u64).map(|k| Fr::from(3 * k + 1)).collect::<Vec<_>>()
    );
    // The last read returns a[3] + 1 and the program returns 62: every block is satisfied,
    // the read-only list is not.
    let mut tampered = outcome.clone();
    let last = tampered.trace.last_mut().unwrap();
    let [read] = &mut last.accesses[..] else {
        panic!("the return block makes one access: {:?}", last.accesses)
    };
    assert_eq!(read.read, Val::Field(Fr::from(10u64)));
    read.read = Val::Field(Fr::from(11u64));
    last.exit = interp::Exit::Return(vec![Val::Field(Fr::from(62u64))]);
    match r1cs::check_trace(&program, &tampered) {
        Err(CheckError::Memory(r1cs::memory::MemoryError::ReadOnlyPair { rule, .. })) => {
            assert_eq!(rule, "a read returns the address's one write")
        }
        other => panic!("a tampered read-only read must fail the memory check, got {other:?}"),
    }
    // The probe proves the honest run and rejects the tampered one at the read-only pairs.
    let honest = driver::proof::proof_instances(&program, &outcome, Default::default()).unwrap();
    driver::proof::prove_and_verify(&honest).expect("the honest proof verifies");
    let bad = driver::proof::proof_instances(&program, &tampered, Default::default()).unwrap();
    let err = driver::proof::prove_and_verify(&bad).expect_err("a tampered read is rejected");
    assert!(err.contains("memory.read_only_pairs"), "{err}");
}

/// Compiles the shared input-table program (`common::READ_ONLY_INPUT_TABLE`: `n` run-time
/// iterations of a read `a[i]`, then `a[j]`) profiled on `n` iterations; returns the program as
/// compiled (its `main` carrying the predicted runs), its run and block counts.
fn table_profiled_on(n: u64) -> (ir::Program, interp::Outcome, zkbc::cost::BlockCounts) {
    let a: Vec<String> = (0..32).map(|k| (3 * k + 1).to_string()).collect();
    let json = serde_json::json!({"a": a, "n": n.to_string(), "j": "3"});
    let options = driver::Options {
        profile: Some(json.clone()),
        ..driver::Options::default()
    };
    let mut compiled =
        driver::compile("input_table.zok", common::READ_ONLY_INPUT_TABLE, &options).unwrap();
    driver::legalize_for_r1cs(&mut compiled.program).unwrap();
    let values = compiled.inputs_from_json(&json).unwrap();
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
    let counts = interp::count_blocks(&compiled.program, &values, interp::Limits::default())
        .unwrap()
        .into_iter()
        .collect();
    (compiled.program, outcome, counts)
}

/// The sumcheck cells of `program` with its blocks run `counts` times, lowered as it is.
fn cells(program: &ir::Program, counts: &zkbc::cost::BlockCounts) -> u128 {
    zkbc::cost::prediction_of(&r1cs::stats(program).unwrap(), counts).cells
}

#[test]
fn memory_or_registers_follows_the_profile() {
    // One iteration: carrying the 32 elements through three states costs less than 32 writes
    // to the read-only list (and its product) and two reads: the table stays in registers.
    // The plan without counts (a loop taken to run 16 times) would put it in memory, and the
    // same blocks would then cost more cells on this run.
    let (program, outcome, counts) = table_profiled_on(1);
    let main = program.main_func();
    assert!(
        main.predicted_runs.is_some(),
        "the compile gives main its runs"
    );
    assert!(main.layout.len() > 1, "the loop stays a loop");
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    let m = &report.memory;
    assert!(
        m.accesses.is_empty() && m.ro_accesses.is_empty(),
        "one iteration: registers, {m:?}"
    );
    let mut unweighed = program.clone();
    unweighed.funcs[unweighed.main.index()].predicted_runs = None;
    let other = r1cs::check_trace(&unweighed, &outcome).unwrap();
    assert_eq!(
        other.memory.ro_accesses.len(),
        32 + 2,
        "without counts: memory"
    );
    assert!(
        cells(&program, &counts) < cells(&unweighed, &counts),
        "registers cost less on one iteration: {} against {}",
        cells(&program, &counts),
        cells(&unweighed, &counts)
    );
    // Thirty-two iterations: the table is read 33 times; memory.
    let (program, outcome, counts) = table_profiled_on(32);
    let report = r1cs::check_trace(&program, &outcome).unwrap();
    assert_eq!(report.memory.ro_accesses.len(), 32 + 33);
    let mut in_registers = program.clone();
    // Weights of 0 for every block: nothing is worth an access, the table rides in states.
    let zero = program.main_func().layout.iter().map(|&b| (b, 0)).collect();
    in_registers.funcs[in_registers.main.index()].predicted_runs = Some(std::sync::Arc::new(zero));
    let regs = r1cs::check_trace(&in_registers, &outcome).unwrap();
    assert!(regs.memory.ro_accesses.is_empty(), "{:?}", regs.memory);
    assert!(
        cells(&program, &counts) < cells(&in_registers, &counts),
        "memory costs less on 32 iterations: {} against {}",
        cells(&program, &counts),
        cells(&in_registers, &counts)
    );
}
