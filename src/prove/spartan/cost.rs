//! The Spartan prover's time predicted from what `zkbc report` counts: a least-squares fit
//! ([`FIT`]) of the prover's measured time over the corpus and standard-library programs
//! against four features ([`Features`]):
//!
//! - **cells**, the report's sumcheck cells (block + transition + memory): the outer
//!   sumcheck and the grand products pay per cell;
//! - **committed**, the cells of the committed tables: per block that ran, its padded
//!   executions times its row `next_pow2(1 + io + witness [+ 1, the clock, with memory])`, and
//!   with memory the pair table, `next_pow2(entries) · next_pow2(13 + bits(accesses))` (its
//!   `12 + T` wires, `T` about the access count's bits), and the read-only list's pair table,
//!   `next_pow2(entries) · 16` (9 wires): the Hyrax commitment's MSMs, the
//!   inner sumcheck's `w̃(r_e, ·)` and the opening's combined rows pay per committed cell;
//! - **tables**, the tables committed (blocks that ran, plus the pair tables): each pays a
//!   fixed cost, its opening's mask commitments (an MSM up to `2^10` wide per term), its
//!   transcript fork and its sumchecks' per-round work;
//! - **nonzeros**, the executed matrix entries: per block, its executions times the nonzero
//!   entries of its `A, B, C` ([`nonzeros`]). Computing `Az, Bz, Cz` for the outer sumcheck
//!   pays per entry, and after linear constraints are substituted away a row may hold hundreds
//!   (a Poseidon block of 3,891 constraints run once: 4,096 cells, 330 ms), which no cell count
//!   sees.
//!
//! `benches/spartan_fit.py` measures and fits (medians of five runs; docs/prover.md has the
//! fit, its R² and residuals): refitted 2026-12-06 on one thread's CPU time of the
//! zero-knowledge prover, `ms = 19.7 + 1.7e-5·cells + 4.8e-4·committed + 12.3·tables +
//! 3.6e-4·nonzeros`, R² 0.984 over 54 programs (median |residual|/time 0.06). The features are
//! nearly collinear (committed ≈ cells in most programs), so the split between them means
//! little; per table about 12 ms is the fixed cost a small program pays. The prediction is for the machine and the day named in
//! [`FIT`], with the thread count it names; on another machine only the proportions carry over.

use crate::prove::BlockInstance;

/// One block as the report counts it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockCounts {
    /// Executions in the run (0: never ran, nothing committed).
    pub executions: u64,
    /// Executions padded to a power of two.
    pub padded_executions: u64,
    /// Instance wires besides the constant.
    pub io_vars: u64,
    /// Witness wires.
    pub witness_vars: u64,
    /// Nonzero entries of the block's `A, B, C`.
    pub nonzeros: u64,
}

/// What the prover's time is fitted to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// The report's sumcheck cells.
    pub cells: f64,
    /// Cells of the committed tables.
    pub committed: f64,
    /// Committed tables.
    pub tables: f64,
    /// Executed nonzero matrix entries.
    pub nonzeros: f64,
}

impl Features {
    /// The features of a run: its blocks, the report's sumcheck cells, and the memory's
    /// entries (public entries and accesses of both lists; 0 without memory) and accesses,
    /// and of these the read-only list's entries and accesses.
    pub fn new(
        blocks: impl IntoIterator<Item = BlockCounts>,
        cells: u128,
        memory_entries: u128,
        memory_accesses: u128,
        read_only: (u128, u128),
    ) -> Features {
        let memory = memory_entries > 0;
        let (ro_entries, ro_accesses) = read_only;
        let memory_entries = memory_entries.saturating_sub(ro_entries);
        let memory_accesses = memory_accesses.saturating_sub(ro_accesses);
        let mut committed = 0f64;
        let mut tables = 0f64;
        let mut nonzeros = 0f64;
        for b in blocks {
            if b.executions == 0 || b.padded_executions == 0 {
                continue;
            }
            nonzeros += b.executions as f64 * b.nonzeros as f64;
            let row = (1 + b.io_vars + b.witness_vars + u64::from(memory)).next_power_of_two();
            committed += b.padded_executions as f64 * row as f64;
            tables += 1.0;
        }
        if memory_entries > 0 {
            let bits = 128 - memory_accesses.leading_zeros();
            let row = (13 + bits).next_power_of_two();
            committed += memory_entries.next_power_of_two() as f64 * f64::from(row);
            tables += 1.0;
        }
        if ro_entries > 0 {
            // The read-only pair table's row: `[1, a, s, v, w, a', s', v', w']`, 9 wires.
            committed += ro_entries.next_power_of_two() as f64 * 16.0;
            tables += 1.0;
        }
        Features {
            cells: cells as f64,
            committed,
            tables,
            nonzeros,
        }
    }
}

/// The nonzero entries of a block's `A, B, C`.
pub fn nonzeros(block: &BlockInstance) -> u64 {
    block
        .r1cs
        .matrices()
        .into_iter()
        .map(|(_, m)| m.rows().map(|r| r.len() as u64).sum::<u64>())
        .sum()
}

/// A fitted linear model `ms = intercept + per_cell·cells + per_committed·committed +
/// per_table·tables + per_nonzero·nonzeros`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Milliseconds.
    pub intercept_ms: f64,
    /// Milliseconds per sumcheck cell.
    pub per_cell_ms: f64,
    /// Milliseconds per committed cell.
    pub per_committed_ms: f64,
    /// Milliseconds per committed table.
    pub per_table_ms: f64,
    /// Milliseconds per executed nonzero matrix entry.
    pub per_nonzero_ms: f64,
    /// R² of the fit over its programs.
    pub r_squared: f64,
    /// How many programs it was fitted on.
    pub programs: usize,
    /// The machine, threads and day the times were measured on.
    pub measured_on: &'static str,
}

impl Fit {
    /// The predicted prover time in milliseconds (never below zero).
    pub fn predict_ms(&self, f: &Features) -> f64 {
        (self.intercept_ms
            + self.per_cell_ms * f.cells
            + self.per_committed_ms * f.committed
            + self.per_table_ms * f.tables
            + self.per_nonzero_ms * f.nonzeros)
            .max(0.0)
    }
}

/// The fit of docs/prover.md (`RAYON_NUM_THREADS=1 benches/spartan_fit.py`, the prover's CPU
/// time, five runs per program, medians, weights 1/time): the 47 corpus programs with inputs
/// and 7 standard-library programs, the zero-knowledge prover (format v3) with fixed-base
/// tables and its own MSM. The intercept is mostly building the fixed-base tables (~20 ms).
pub const FIT: Fit = Fit {
    intercept_ms: 19.71,
    per_cell_ms: 1.6948e-5,
    per_committed_ms: 4.8196e-4,
    per_table_ms: 12.340,
    per_nonzero_ms: 3.5543e-4,
    r_squared: 0.984,
    programs: 54,
    measured_on: "the project's shared 2-core machine (one rayon thread, the prover's CPU \
                  time, load ~9), 2026-12-06",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_count_committed_rows_and_tables_as_the_fit_script_does() {
        // Two blocks, one never ran; with memory the clock widens the rows and the pair
        // table adds next_pow2(5) · next_pow2(13 + bits(3)) = 8 · 16 cells.
        let blocks = [
            BlockCounts {
                executions: 3,
                padded_executions: 4,
                io_vars: 6,
                witness_vars: 9,
                nonzeros: 10,
            },
            BlockCounts::default(),
        ];
        let plain = Features::new(blocks, 100, 0, 0, (0, 0));
        assert_eq!(
            plain,
            Features {
                cells: 100.0,
                committed: 64.0,
                tables: 1.0,
                nonzeros: 30.0,
            }
        );
        let with_memory = Features::new(blocks, 100, 5, 3, (0, 0));
        assert_eq!(with_memory.committed, 4.0 * 32.0 + 8.0 * 16.0);
        assert_eq!(with_memory.tables, 2.0);
    }

    #[test]
    fn the_fit_predicts_more_time_for_more_work() {
        let small = Features {
            cells: 1e3,
            committed: 1e3,
            tables: 1.0,
            nonzeros: 1e3,
        };
        let large = Features {
            cells: 1e6,
            committed: 1e6,
            tables: 20.0,
            nonzeros: 1e6,
        };
        assert!(FIT.predict_ms(&large) > FIT.predict_ms(&small));
        let fit = FIT;
        assert!(fit.r_squared >= 0.95, "R² {}", fit.r_squared);
        assert!(!fit.measured_on.is_empty());
    }
}
