//! The cost model against its definitions (DESIGN.md, "Cost model and report"; docs/report.md):
//! hand-computed examples with the arithmetic in comments, a second implementation written here
//! straight from the definitions and compared on random inputs, and property tests of the
//! invariants the numbers must satisfy.

use proptest::prelude::*;
use zkbc::report::{Baselines, BlockCost, CostError, ProgramCost, Report};

fn block(label: &str, constraints: u64, executions: Option<u64>) -> BlockCost {
    BlockCost {
        label: label.to_string(),
        source: None,
        constraints,
        witness_vars: constraints + 1,
        io_vars: 4,
        accesses: 0,
        read_only_accesses: 0,
        executions,
    }
}

fn program(blocks: Vec<BlockCost>, min_block_size: u64, monolithic: Option<u64>) -> ProgramCost {
    ProgramCost {
        program: "example".into(),
        opt_level: "O1".into(),
        field_cmp: "complete".into(),
        min_block_size,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks,
        outputs: None,
        satisfied: None,
        monolithic_constraints: monolithic,
        monolithic_none: monolithic
            .is_none()
            .then(|| "a loop bound is a run-time value".into()),
        baselines: None,
    }
}

fn report(cost: &ProgramCost) -> Report {
    cost.report().expect("small inputs have a report")
}

/// A loop program: entry, loop header, loop body, exit (the shape of examples/ir/sum_loop.ir run
/// with n = 5).
fn loop_program(monolithic: Option<u64>) -> ProgramCost {
    program(
        vec![
            block("b0", 3, Some(1)),
            block("b1", 5, Some(6)),
            block("b2", 2, Some(5)),
            block("b3", 0, Some(1)),
        ],
        1024,
        monolithic,
    )
}

#[test]
fn loop_program_by_hand() {
    let r = report(&loop_program(None));
    // max cons = 5, next_pow2(5) = 8, THRESHOLD = max(1024, 8) = 1024.
    assert_eq!(r.threshold, 1024);
    // X_b = max(2, next_pow2(cons_b)): 3 -> 4, 5 -> 8, 2 -> 2, 0 -> max(2, 1) = 2.
    let x: Vec<u64> = r.blocks.iter().map(|b| b.padded_constraints).collect();
    assert_eq!(x, [4, 8, 2, 2]);
    // Q_b = next_pow2(exec_b): 1 -> 1, 6 -> 8, 5 -> 8, 1 -> 1.
    let q: Vec<Option<u64>> = r.blocks.iter().map(|b| b.padded_executions).collect();
    assert_eq!(q, [Some(1), Some(8), Some(8), Some(1)]);
    // Per block Q_b·X_b: 4, 64, 16, 2.
    let cells: Vec<Option<u128>> = r.blocks.iter().map(|b| b.sumcheck_cells).collect();
    assert_eq!(cells, [Some(4), Some(64), Some(16), Some(2)]);
    let t = &r.totals;
    assert_eq!(t.blocks, 4);
    // Σ cons_b = 3 + 5 + 2 + 0 = 10.
    assert_eq!(t.constraints, 10);
    // Σ exec_b·cons_b = 1·3 + 6·5 + 5·2 + 1·0 = 43.
    assert_eq!(t.executed_constraints, Some(43));
    // Σ exec_b = 1 + 6 + 5 + 1 = 13.
    assert_eq!(t.transitions, Some(13));
    // Σ Q_b·X_b = 4 + 64 + 16 + 2 = 86.
    assert_eq!(t.block_cells, Some(86));
    // The transition permutation: Σ exec_b·io_b = 13·4 = 52 state words, and
    // Σ Q_b·max(2, next_pow2(io_b)) = (1 + 8 + 8 + 1)·4 = 72 cells.
    assert_eq!(t.state_words, Some(52));
    assert_eq!(t.transition_cells, Some(72));
    // No memory access: no memory-checking instance.
    assert_eq!(t.memory_accesses, Some(0));
    assert_eq!(t.memory_cells, Some(0));
    // 86 + 72 + 0.
    assert_eq!(t.sumcheck_cells, Some(158));
    // Σ Q_b·THRESHOLD = (1 + 8 + 8 + 1)·1024 = 18432.
    assert_eq!(t.uniform_cells, Some(18432));
    // 1 − (43 + 52)/158.
    assert_eq!(t.padding_waste, Some(63.0 / 158.0));
    // ⌈log2 4⌉ + log2 max Q (8) + log2 max X (8) = 2 + 3 + 3 = 8.
    assert_eq!(t.rounds, Some(8));
    // No monolithic circuit, so no monolithic cells. (next_pow2(43) = 64 is no lower bound:
    // the 43 executed constraints include the loop control of 6 header runs, which a one-block
    // circuit would not have.)
    assert_eq!(t.monolithic_cells, None);
    assert!(!t.monolithic_exact);
    assert_eq!(
        t.monolithic_none.as_deref(),
        Some("a loop bound is a run-time value")
    );
}

#[test]
fn monolithic_count_is_padded_like_a_block() {
    // C = 100: max(2, next_pow2(100)) = 128, exact.
    let t = report(&loop_program(Some(100))).totals;
    assert_eq!(t.monolithic_cells, Some(128));
    assert!(t.monolithic_exact);
    // C = 0 and C = 1 still pad to 2.
    assert_eq!(
        report(&loop_program(Some(0))).totals.monolithic_cells,
        Some(2)
    );
    assert_eq!(
        report(&loop_program(Some(1))).totals.monolithic_cells,
        Some(2)
    );
}

#[test]
fn single_block_with_a_tiny_min_block_size() {
    // One block, 1 constraint, run once, MIN_BLOCK_SIZE = 1.
    let r = report(&program(vec![block("b0", 1, Some(1))], 1, Some(1)));
    // THRESHOLD = max(1, next_pow2(1)) = 1, while X = max(2, 1) = 2.
    assert_eq!(r.threshold, 1);
    assert_eq!(r.blocks[0].padded_constraints, 2);
    let t = &r.totals;
    // Σ Q·X = 1·2 = 2; Σ Q·THRESHOLD = 1·1 = 1: the uniform model is smaller here, because
    // THRESHOLD is below the floor of 2 that every X_b has. One execution has no transition.
    assert_eq!(t.transition_cells, Some(0));
    assert_eq!(t.sumcheck_cells, Some(2));
    assert_eq!(t.uniform_cells, Some(1));
    // 1 − 1/2.
    assert_eq!(t.padding_waste, Some(0.5));
    // ⌈log2 1⌉ + log2 1 + log2 2 = 0 + 0 + 1.
    assert_eq!(t.rounds, Some(1));
    assert_eq!(t.monolithic_cells, Some(2));
}

#[test]
fn nothing_executed_costs_nothing() {
    // The only block has 7 constraints and never ran.
    let r = report(&program(vec![block("b0", 7, Some(0))], 1024, None));
    assert_eq!(r.blocks[0].padded_constraints, 8);
    assert_eq!(r.blocks[0].padded_executions, Some(0));
    let t = &r.totals;
    assert_eq!(t.constraints, 7);
    assert_eq!(t.executed_constraints, Some(0));
    assert_eq!(t.transitions, Some(0));
    assert_eq!(t.sumcheck_cells, Some(0));
    assert_eq!(t.uniform_cells, Some(0));
    // No cell at all, so no cell is padding; no instance, so no round.
    assert_eq!(t.padding_waste, Some(0.0));
    assert_eq!(t.rounds, Some(0));
    // No monolithic circuit was given: none.
    assert_eq!(t.monolithic_cells, None);
}

#[test]
fn no_blocks_at_all() {
    let r = report(&program(Vec::new(), 1024, Some(0)));
    // THRESHOLD = max(1024, next_pow2(0) = 1).
    assert_eq!(r.threshold, 1024);
    let t = &r.totals;
    assert_eq!(t.blocks, 0);
    assert_eq!(t.constraints, 0);
    assert_eq!(t.sumcheck_cells, Some(0));
    assert_eq!(t.padding_waste, Some(0.0));
    assert_eq!(t.rounds, Some(0));
    assert_eq!(t.monolithic_cells, Some(2));
}

#[test]
fn zero_constraint_blocks_are_all_padding() {
    // cons = 0 run 3 times: X = 2, Q = 4, 8 block cells, none used; the transitions add
    // 4·4 = 16 cells for 3·4 = 12 state words: waste is 1 − 12/24.
    let t = report(&program(vec![block("b0", 0, Some(3))], 1024, None)).totals;
    assert_eq!(t.block_cells, Some(8));
    assert_eq!(t.sumcheck_cells, Some(24));
    assert_eq!(t.executed_constraints, Some(0));
    assert_eq!(t.padding_waste, Some(0.5));
}

#[test]
fn unknown_executions_make_execution_totals_unknown() {
    let blocks = vec![block("b0", 3, Some(1)), block("b1", 5, None)];
    let r = report(&program(blocks.clone(), 1024, Some(40)));
    assert_eq!(r.threshold, 1024);
    assert_eq!(r.blocks[1].padded_constraints, 8);
    assert_eq!(r.blocks[1].padded_executions, None);
    assert_eq!(r.blocks[1].sumcheck_cells, None);
    // The known block still has its own numbers.
    assert_eq!(r.blocks[0].sumcheck_cells, Some(4));
    let t = &r.totals;
    assert_eq!(t.constraints, 8);
    assert_eq!(t.executed_constraints, None);
    assert_eq!(t.transitions, None);
    assert_eq!(t.sumcheck_cells, None);
    assert_eq!(t.uniform_cells, None);
    assert_eq!(t.padding_waste, None);
    assert_eq!(t.rounds, None);
    // The monolithic circuit does not depend on executions: max(2, next_pow2(40)) = 64.
    assert_eq!(t.monolithic_cells, Some(64));
    assert!(t.monolithic_exact);
    // Without it there is none, known executions or not.
    let t = report(&program(blocks, 1024, None)).totals;
    assert_eq!(t.monolithic_cells, None);
    assert!(!t.monolithic_exact);
}

#[test]
fn counts_without_a_u64_power_of_two_are_errors() {
    let big = (1u64 << 63) + 1;
    let err = program(vec![block("b7", big, Some(1))], 1024, None)
        .report()
        .expect_err("2^63 + 1 constraints have no u64 power of two");
    assert!(matches!(err, CostError::TooLarge { what: "constraints", value, .. } if value == big));
    assert!(err.to_string().contains("2^63"), "{err}");

    let err = program(vec![block("b7", 1, Some(u64::MAX))], 1024, None)
        .report()
        .expect_err("u64::MAX executions have no u64 power of two");
    assert_eq!(
        err,
        CostError::TooLarge {
            label: "b7".into(),
            what: "executions",
            value: u64::MAX
        }
    );

    let err = program(vec![block("b0", 1, Some(1))], 1024, Some(u64::MAX))
        .report()
        .expect_err("the monolithic count is padded too");
    assert!(matches!(err, CostError::TooLarge { ref label, .. } if label == "monolithic"));
}

#[test]
fn totals_beyond_u128_are_errors_not_wrapped() {
    // 2^63 constraints run 2^63 times: 2^126 executed constraints per block. Three blocks sum
    // to 3·2^126 < 2^128; a fourth reaches 2^128, which u128 cannot hold.
    let huge = 1u64 << 63;
    let three = vec![block("b0", huge, Some(huge)); 3];
    let t = report(&program(three.clone(), 1024, Some(1))).totals;
    assert_eq!(t.executed_constraints, Some(3u128 << 126));
    assert_eq!(t.block_cells, Some(3u128 << 126));
    // Without a monolithic count there is no monolithic total to overflow (an earlier "lower
    // bound", next_pow2(3·2^126) = 2^128, did).
    let t = report(&program(three.clone(), 1024, None)).totals;
    assert_eq!(t.monolithic_cells, None);
    let mut four = three;
    four.push(block("b3", huge, Some(huge)));
    let err = program(four, 1024, None)
        .report()
        .expect_err("2^128 overflows");
    assert_eq!(
        err,
        CostError::Overflow {
            total: "executed_constraints"
        }
    );
}

/// The definitions once more, written as plainly as possible and independently of cost.rs:
/// powers of two by doubling, logarithms by halving, sums in u128, waste as 1 − E/S.
mod reference {
    use super::*;

    pub fn pow2_at_least(n: impl Into<u128>) -> u128 {
        let n = n.into();
        let mut p = 1u128;
        while p < n {
            p *= 2;
        }
        p
    }

    pub fn log2_exact(p: u128) -> u32 {
        let (mut k, mut v) = (0, p);
        while v > 1 {
            assert_eq!(v % 2, 0, "{p} is not a power of two");
            v /= 2;
            k += 1;
        }
        k
    }

    pub fn log2_ceil(n: u128) -> u32 {
        let mut k = 0;
        while (1u128 << k) < n {
            k += 1;
        }
        k
    }

    /// Checks every number of `r` against `cost`.
    pub fn check(cost: &ProgramCost, r: &Report) {
        let max_cons = cost.blocks.iter().map(|b| b.constraints).max().unwrap_or(0);
        let threshold = pow2_at_least(max_cons).max(u128::from(cost.min_block_size));
        assert_eq!(u128::from(r.threshold), threshold, "threshold");
        assert_eq!(r.blocks.len(), cost.blocks.len());

        let known = cost.blocks.iter().all(|b| b.executions.is_some());
        let (mut cons, mut exec_cons, mut trans, mut cells, mut uniform) =
            (0u128, 0u128, 0u128, 0u128, 0u128);
        let (mut words, mut trans_cells, mut accesses) = (0u128, 0u128, 0u128);
        let (mut max_q, mut max_x) = (0u128, 0u128);
        for (b, rb) in cost.blocks.iter().zip(&r.blocks) {
            let x = pow2_at_least(b.constraints).max(2);
            assert_eq!(rb.label, b.label);
            assert_eq!(rb.constraints, b.constraints);
            assert_eq!(rb.witness_vars, b.witness_vars);
            assert_eq!(rb.io_vars, b.io_vars);
            assert_eq!(rb.executions, b.executions);
            assert_eq!(u128::from(rb.padded_constraints), x, "X of {}", b.label);
            cons += u128::from(b.constraints);
            max_x = max_x.max(x);
            match b.executions {
                Some(e) => {
                    let q = if e == 0 { 0 } else { pow2_at_least(e) };
                    assert_eq!(
                        rb.padded_executions.map(u128::from),
                        Some(q),
                        "Q of {}",
                        b.label
                    );
                    assert_eq!(rb.sumcheck_cells, Some(q * x));
                    exec_cons += u128::from(e) * u128::from(b.constraints);
                    trans += u128::from(e);
                    cells += q * x;
                    uniform += q * threshold;
                    words += u128::from(e) * u128::from(b.io_vars);
                    trans_cells += q * pow2_at_least(b.io_vars).max(2);
                    accesses += u128::from(e) * u128::from(b.accesses);
                    max_q = max_q.max(q);
                }
                None => {
                    assert_eq!(rb.padded_executions, None);
                    assert_eq!(rb.sumcheck_cells, None);
                }
            }
        }
        let t = &r.totals;
        assert_eq!(t.blocks as usize, cost.blocks.len());
        assert_eq!(t.constraints, cons);
        if known {
            assert_eq!(t.executed_constraints, Some(exec_cons));
            assert_eq!(t.transitions, Some(trans));
            assert_eq!(t.block_cells, Some(cells));
            // One block execution has no transition to check.
            if trans <= 1 {
                words = 0;
                trans_cells = 0;
            }
            assert_eq!(t.state_words, Some(words));
            assert_eq!(t.transition_cells, Some(trans_cells));
            // The memory check: the addresses and the accesses are its entries; the pair
            // instance (6 + T constraints, T = bits of the largest timestamp) runs on every
            // adjacent pair, the grand product (1 constraint, padded to 2) on every entry of
            // both orders.
            let (entries, mem_constraints, mem_cells) = if accesses == 0 {
                (0, 0, 0)
            } else {
                let entries = accesses + u128::from(cost.memory_size);
                let pair = 6 + u128::from(log2_ceil(accesses + 1));
                (
                    entries,
                    (entries - 1) * pair + 2 * entries,
                    pow2_at_least(entries - 1) * pow2_at_least(pair).max(2)
                        + pow2_at_least(2 * entries) * 2,
                )
            };
            assert_eq!(t.memory_accesses, Some(accesses));
            assert_eq!(t.memory_entries, Some(entries));
            assert_eq!(t.memory_constraints, Some(mem_constraints));
            assert_eq!(t.memory_cells, Some(mem_cells));
            let total = cells + trans_cells + mem_cells;
            assert_eq!(t.sumcheck_cells, Some(total));
            assert_eq!(t.uniform_cells, Some(uniform));
            let work = exec_cons + words + mem_constraints;
            let waste = if cells == 0 {
                0.0
            } else {
                1.0 - work as f64 / total as f64
            };
            let got = t.padding_waste.expect("known waste");
            assert!((got - waste).abs() < 1e-12, "waste {got} vs {waste}");
            let rounds = if cells == 0 {
                0
            } else {
                log2_ceil(cost.blocks.len() as u128) + log2_exact(max_q) + log2_exact(max_x)
            };
            assert_eq!(t.rounds, Some(rounds));
        } else {
            assert_eq!(t.executed_constraints, None);
            assert_eq!(t.transitions, None);
            assert_eq!(t.sumcheck_cells, None);
            assert_eq!(t.uniform_cells, None);
            assert_eq!(t.padding_waste, None);
            assert_eq!(t.rounds, None);
        }
        match cost.monolithic_constraints {
            Some(c) => {
                assert_eq!(t.monolithic_cells, Some(pow2_at_least(c).max(2)));
                assert!(t.monolithic_exact);
            }
            None => {
                // No one-block circuit: nothing, not a bound from the executed constraints.
                assert_eq!(t.monolithic_cells, None);
                assert!(!t.monolithic_exact);
                assert_eq!(t.monolithic_none, cost.monolithic_none);
            }
        }
        assert_eq!(r.baselines, cost.baselines);
    }
}

#[test]
fn hand_examples_agree_with_the_reference() {
    for cost in [
        loop_program(None),
        loop_program(Some(100)),
        program(vec![block("b0", 1, Some(1))], 1, Some(1)),
        program(vec![block("b0", 7, Some(0))], 1024, None),
        program(Vec::new(), 1024, None),
        program(
            vec![block("b0", 3, Some(1)), block("b1", 5, None)],
            1024,
            Some(40),
        ),
    ] {
        reference::check(&cost, &report(&cost));
    }
}

fn arb_block(unknown: bool) -> impl Strategy<Value = BlockCost> {
    // Constraint counts up to 2^20 and executions up to 2^16 (some zero, some unknown when
    // allowed): large enough to cross powers of two, far from overflow.
    let executions = if unknown {
        prop_oneof![Just(None), (0u64..=70_000).prop_map(Some)].boxed()
    } else {
        prop_oneof![Just(Some(0)), (0u64..=70_000).prop_map(Some)].boxed()
    };
    (
        0u64..=1 << 20,
        0u64..1000,
        0u64..64,
        prop_oneof![Just(0u64), 0u64..8],
        executions,
    )
        .prop_map(|(c, w, io, acc, e)| BlockCost {
            label: format!("b{c}"),
            source: None,
            constraints: c,
            witness_vars: w,
            io_vars: io,
            accesses: acc,
            read_only_accesses: 0,
            executions: e,
        })
}

/// Baselines as `report::measure` gives them: cells, or none with a reason, or unknown.
fn arb_baselines() -> impl Strategy<Value = Option<Baselines>> {
    let cells = || {
        prop_oneof![
            (0u128..1 << 40).prop_map(|c| (Some(c), None)),
            Just((None, Some("a loop bound is a run-time value".to_string()))),
            Just((None, None)),
        ]
    };
    prop::option::of((cells(), cells()).prop_map(|((n, nn), (m, mn))| Baselines {
        no_merge_cells: n,
        no_merge_none: nn,
        monolithic_cells: m,
        monolithic_none: mn,
    }))
}

fn arb_program(unknown: bool) -> impl Strategy<Value = ProgramCost> {
    (
        prop::collection::vec(arb_block(unknown), 0..12),
        prop_oneof![Just(1u64), Just(2), Just(1024), Just(32768), 0u64..5000],
        prop::option::of(0u64..1 << 24),
        arb_baselines(),
    )
        .prop_map(|(blocks, min, mono, baselines)| {
            let memory_size = blocks.iter().map(|b| b.accesses * 100).sum();
            ProgramCost {
                baselines,
                memory_size,
                ..program(blocks, min, mono)
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_the_reference(cost in arb_program(true)) {
        reference::check(&cost, &report(&cost));
    }

    #[test]
    fn invariants_hold(cost in arb_program(false)) {
        let r = report(&cost);
        let t = &r.totals;
        let cells = t.sumcheck_cells.expect("all executions known");
        let executed = t.executed_constraints.expect("all executions known");
        let waste = t.padding_waste.expect("all executions known");
        // E <= S, since exec_b <= Q_b and cons_b <= X_b.
        prop_assert!(cells >= executed);
        prop_assert!((0.0..=1.0).contains(&waste), "waste {waste}");
        // Waste is below 1 as soon as one executed block has a constraint.
        let useful = cost.blocks.iter().any(|b| b.constraints > 0 && b.executions > Some(0));
        if useful {
            prop_assert!(waste < 1.0, "waste {waste}");
        }
        // THRESHOLD bounds every block and MIN_BLOCK_SIZE.
        prop_assert!(r.threshold >= cost.min_block_size);
        prop_assert!(r.blocks.iter().all(|b| b.constraints <= r.threshold));
        // When THRESHOLD is also >= every X_b (true whenever it is >= 2), uniform >= the
        // block instances' cells.
        let block_cells = t.block_cells.expect("known");
        if r.blocks.iter().all(|b| b.padded_constraints <= r.threshold) {
            prop_assert!(t.uniform_cells.expect("known") >= block_cells);
        }
        // The total is every instance the prover pays for.
        prop_assert_eq!(
            cells,
            block_cells + t.transition_cells.expect("known") + t.memory_cells.expect("known")
        );
        for b in &r.blocks {
            let x = b.padded_constraints;
            let q = b.padded_executions.expect("known");
            let e = b.executions.expect("known");
            // Padding never more than doubles (beyond the floor of 2).
            prop_assert!(x.is_power_of_two() && x >= 2 && x >= b.constraints);
            prop_assert!(x == 2 || x < 2 * b.constraints);
            prop_assert!(q == 0 || (q.is_power_of_two() && q >= e && q < 2 * e));
            prop_assert_eq!(q == 0, e == 0);
        }
        // The per-block cells add up to the block instances' total.
        prop_assert_eq!(r.blocks.iter().map(|b| b.sumcheck_cells.expect("known")).sum::<u128>(), block_cells);
        // The proof has room for every cell: Σ Q·X <= 2^⌈log2 n⌉ · max Q · max X = 2^rounds.
        prop_assert!(block_cells <= 1u128 << t.rounds.expect("known"));
        // The monolithic count is the padded count of the one block, or there is none.
        prop_assert_eq!(t.monolithic_exact, t.monolithic_cells.is_some());
        if let Some(mono) = t.monolithic_cells {
            prop_assert!(mono.is_power_of_two() && mono >= 2);
        }
        prop_assert!(t.transitions.expect("known") >= r.blocks.iter().filter(|b| b.executions > Some(0)).count() as u128);
    }

    #[test]
    fn json_round_trips(cost in arb_program(true)) {
        let r = report(&cost);
        let text = zkbc::report::to_json(&r);
        let back: Report = serde_json::from_str(&text).expect("our own JSON parses");
        // Floats may differ in the last bit after a text round trip; everything else is exact.
        let (mut a, mut b) = (r.clone(), back);
        let close = match (a.totals.padding_waste, b.totals.padding_waste) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-15,
            (x, y) => x == y,
        };
        prop_assert!(close);
        a.totals.padding_waste = None;
        b.totals.padding_waste = None;
        prop_assert_eq!(a, b);
    }
}
