//! The prover's input: one sparse R1CS instance per block and the assignments of its executions.
//!
//! This is deliberately plain data, independent of how `r1cs::lower` builds its instances: a
//! matrix is a list of rows (stored compressed, [`SparseMatrix`]), a row a list of
//! `(variable, coefficient)` pairs sorted by variable,
//! over the assignment vector `z = [1, instance..., witness...]` (index 0 is the constant one).
//! One execution of a block is one full `z`.

use crate::field::Fr;
use crate::fxhash::FxMap as FxHashMap;
use ark_ff::One;
use std::fmt;

/// One row of a sparse matrix: `(variable index into z, coefficient)`, strictly increasing in the
/// variable index. A [`SparseMatrix`] is built from rows like this and hands them back as
/// [`MatrixRow`]s.
pub type SparseRow = Vec<(usize, Fr)>;

/// A sparse matrix in compressed rows, each coefficient stored once: an entry is a variable
/// and the index of its coefficient, 8 bytes, where a `Vec` per row of `(usize, Fr)` took 48
/// bytes per entry and a heap block per row. A circuit's coefficients are few (1, −1, powers
/// of two, its constants), so Keccak-256's 150,000 constraints take 7 MB instead of 40 MB.
#[derive(Clone, Default)]
pub struct SparseMatrix {
    /// One past the last entry of each row.
    ends: Vec<u32>,
    /// Each entry's variable.
    vars: Vec<u32>,
    /// Each entry's coefficient, an index into `coeffs`.
    coeff_ids: Vec<u32>,
    /// The distinct coefficients.
    coeffs: Vec<Fr>,
    /// Where each coefficient is in `coeffs`.
    coeff_index: FxHashMap<Fr, u32>,
}

impl SparseMatrix {
    /// An empty matrix.
    pub fn new() -> SparseMatrix {
        SparseMatrix::default()
    }

    /// Appends a row (its entries as given: sorting is the caller's, and [`SparseR1cs::validate`]
    /// checks it).
    ///
    /// # Panics
    /// When the matrix would hold 2^32 entries, or a variable is 2^32 or more (no exported format
    /// and no prover here reaches either).
    pub fn push_row(&mut self, row: impl IntoIterator<Item = (usize, Fr)>) {
        for (var, coeff) in row {
            let id = match self.coeff_index.get(&coeff) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(self.coeffs.len()).expect("2^32 coefficients");
                    self.coeffs.push(coeff);
                    self.coeff_index.insert(coeff, id);
                    id
                }
            };
            self.vars
                .push(u32::try_from(var).expect("a variable index below 2^32"));
            self.coeff_ids.push(id);
        }
        let end = u32::try_from(self.vars.len()).expect("fewer than 2^32 entries in a matrix");
        self.ends.push(end);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the matrix has no rows.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Row `k`.
    ///
    /// # Panics
    /// When `k` is not a row.
    pub fn row(&self, k: usize) -> MatrixRow<'_> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        let end = self.ends[k] as usize;
        MatrixRow {
            vars: &self.vars[start..end],
            coeff_ids: &self.coeff_ids[start..end],
            coeffs: &self.coeffs,
        }
    }

    /// The rows in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = MatrixRow<'_>> + '_ {
        (0..self.len()).map(|k| self.row(k))
    }

    /// Keeps the rows `keep` says to keep, in order, with each entry's variable `v` renumbered
    /// to `renumber(v)` (which must keep each row sorted), in place.
    pub fn retain_rows(&mut self, keep: impl Fn(usize) -> bool, renumber: impl Fn(usize) -> usize) {
        let (mut rows, mut entries, mut start) = (0, 0, 0);
        for k in 0..self.ends.len() {
            let end = self.ends[k] as usize;
            if keep(k) {
                for e in start..end {
                    self.vars[entries] = u32::try_from(renumber(self.vars[e] as usize))
                        .expect("a variable index below 2^32");
                    self.coeff_ids[entries] = self.coeff_ids[e];
                    entries += 1;
                }
                self.ends[rows] = entries as u32;
                rows += 1;
            }
            start = end;
        }
        self.ends.truncate(rows);
        self.vars.truncate(entries);
        self.coeff_ids.truncate(entries);
    }

    /// The rows as plain vectors (for tests and small systems).
    pub fn to_rows(&self) -> Vec<SparseRow> {
        self.rows().map(|r| r.iter().collect()).collect()
    }

    /// Drops the coefficient index, which only appending needs (a matrix that is complete).
    pub fn shrink(&mut self) {
        self.coeff_index = FxHashMap::default();
        self.ends.shrink_to_fit();
        self.vars.shrink_to_fit();
        self.coeff_ids.shrink_to_fit();
        self.coeffs.shrink_to_fit();
    }

    /// The compressed rows as they are stored: each row's end, each entry's variable and
    /// coefficient index, the distinct coefficients (a verifier key's encoding,
    /// `prove::spartan::key`).
    pub fn raw_parts(&self) -> (&[u32], &[u32], &[u32], &[Fr]) {
        (&self.ends, &self.vars, &self.coeff_ids, &self.coeffs)
    }

    /// The matrix of [`SparseMatrix::raw_parts`], or why those parts are not one: the ends
    /// must not decrease and end at the entry count, every coefficient index must name a
    /// coefficient. (Whether the rows are sorted and their variables in range is
    /// [`SparseR1cs::validate`]'s.)
    pub fn from_raw_parts(
        ends: Vec<u32>,
        vars: Vec<u32>,
        coeff_ids: Vec<u32>,
        coeffs: Vec<Fr>,
    ) -> Result<SparseMatrix, String> {
        if vars.len() != coeff_ids.len()
            || ends.windows(2).any(|w| w[0] > w[1])
            || ends.last().map_or(0, |&e| e as usize) != vars.len()
        {
            return Err("the matrix's row ends do not cover its entries".into());
        }
        if coeff_ids.iter().any(|&c| c as usize >= coeffs.len()) {
            return Err("a matrix entry names a coefficient the matrix does not have".into());
        }
        Ok(SparseMatrix {
            ends,
            vars,
            coeff_ids,
            coeffs,
            coeff_index: FxHashMap::default(),
        })
    }

    /// Heap bytes held (the statement of memory per entry in `docs/performance.md`).
    pub fn heap_bytes(&self) -> usize {
        4 * (self.ends.capacity() + self.vars.capacity() + self.coeff_ids.capacity())
            + 32 * self.coeffs.capacity()
            + 40 * self.coeff_index.capacity()
    }
}

impl FromIterator<SparseRow> for SparseMatrix {
    fn from_iter<I: IntoIterator<Item = SparseRow>>(rows: I) -> SparseMatrix {
        let mut m = SparseMatrix::new();
        for row in rows {
            m.push_row(row);
        }
        m
    }
}

impl From<Vec<SparseRow>> for SparseMatrix {
    fn from(rows: Vec<SparseRow>) -> SparseMatrix {
        rows.into_iter().collect()
    }
}

impl PartialEq for SparseMatrix {
    fn eq(&self, other: &SparseMatrix) -> bool {
        self.len() == other.len() && self.rows().zip(other.rows()).all(|(a, b)| a == b)
    }
}

impl Eq for SparseMatrix {}

impl fmt::Debug for SparseMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.rows()).finish()
    }
}

/// One row of a [`SparseMatrix`]: `(variable, coefficient)` entries in the order pushed.
#[derive(Clone, Copy)]
pub struct MatrixRow<'a> {
    vars: &'a [u32],
    coeff_ids: &'a [u32],
    coeffs: &'a [Fr],
}

impl<'a> MatrixRow<'a> {
    /// The entries.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (usize, Fr)> + 'a {
        let coeffs = self.coeffs;
        self.vars
            .iter()
            .zip(self.coeff_ids)
            .map(move |(&v, &c)| (v as usize, coeffs[c as usize]))
    }

    /// The variables of the entries.
    pub fn vars(&self) -> impl ExactSizeIterator<Item = usize> + 'a {
        self.vars.iter().map(|&v| v as usize)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether the row has no entries.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

impl PartialEq for MatrixRow<'_> {
    fn eq(&self, other: &MatrixRow<'_>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for MatrixRow<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A rank-1 constraint system `Az ∘ Bz = Cz` in sparse row form.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SparseR1cs {
    /// Instance (public, input/output) variables, not counting the constant one at index 0.
    pub num_instance: usize,
    /// Witness (private) variables; they follow the instance variables in `z`.
    pub num_witness: usize,
    /// The rows of A, one per constraint.
    pub a: SparseMatrix,
    /// The rows of B, one per constraint.
    pub b: SparseMatrix,
    /// The rows of C, one per constraint.
    pub c: SparseMatrix,
}

/// Which of the three matrices; used in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Matrix {
    /// The left factor A.
    A,
    /// The right factor B.
    B,
    /// The product side C.
    C,
}

impl fmt::Display for Matrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Matrix::A => "A",
            Matrix::B => "B",
            Matrix::C => "C",
        })
    }
}

impl SparseR1cs {
    /// Length of an assignment `z`: the constant one, the instance and the witness variables.
    pub fn num_vars(&self) -> usize {
        1 + self.num_instance + self.num_witness
    }

    /// Number of constraints (rows of A; a validated system has as many rows in B and C).
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// The three matrices with their names.
    pub fn matrices(&self) -> [(Matrix, &SparseMatrix); 3] {
        [
            (Matrix::A, &self.a),
            (Matrix::B, &self.b),
            (Matrix::C, &self.c),
        ]
    }

    /// Checks the shape: equal row counts, every row strictly sorted, every variable in range.
    pub fn validate(&self) -> Result<(), ShapeError> {
        if self.b.len() != self.a.len() || self.c.len() != self.a.len() {
            return Err(ShapeError::RowCounts {
                a: self.a.len(),
                b: self.b.len(),
                c: self.c.len(),
            });
        }
        let num_vars = self.num_vars();
        for (matrix, rows) in self.matrices() {
            for (row, entries) in rows.rows().enumerate() {
                let mut previous = None;
                for var in entries.vars() {
                    if var >= num_vars {
                        return Err(ShapeError::VariableOutOfRange {
                            matrix,
                            row,
                            var,
                            num_vars,
                        });
                    }
                    if previous.is_some_and(|p| p >= var) {
                        return Err(ShapeError::UnsortedRow { matrix, row });
                    }
                    previous = Some(var);
                }
            }
        }
        Ok(())
    }

    /// `⟨row, z⟩`; `z` must have [`num_vars`](Self::num_vars) entries.
    pub fn dot(row: MatrixRow<'_>, z: &[Fr]) -> Fr {
        row.iter().map(|(var, coeff)| coeff * z[var]).sum()
    }

    /// The first constraint that `z` violates, or `None` when `z` satisfies every constraint.
    /// `z` must have [`num_vars`](Self::num_vars) entries (a validated execution does).
    pub fn first_unsatisfied(&self, z: &[Fr]) -> Option<usize> {
        (0..self.num_constraints()).find(|&row| {
            Self::dot(self.a.row(row), z) * Self::dot(self.b.row(row), z)
                != Self::dot(self.c.row(row), z)
        })
    }
}

/// The transition state of a block instance: after the constant 1 (wire 0), the instance
/// variables are the input label, `input_state` input values, `accesses` memory-access values,
/// the output label and `output_state` output values, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateWires {
    /// Values of the input state after its label.
    pub input_state: usize,
    /// Values of the block's memory accesses (address, value, and whether it writes).
    pub accesses: usize,
    /// Values of the output state after its label.
    pub output_state: usize,
}

impl StateWires {
    /// The wire of the input label.
    pub fn input_label(&self) -> usize {
        1
    }

    /// The wires of the input state's values.
    pub fn input_values(&self) -> std::ops::Range<usize> {
        2..2 + self.input_state
    }

    /// The wires of the memory accesses.
    pub fn access_values(&self) -> std::ops::Range<usize> {
        let start = 2 + self.input_state;
        start..start + self.accesses
    }

    /// The wire of the output label.
    pub fn output_label(&self) -> usize {
        2 + self.input_state + self.accesses
    }

    /// The wires of the output state's values.
    pub fn output_values(&self) -> std::ops::Range<usize> {
        let start = self.output_label() + 1;
        start..start + self.output_state
    }

    /// How many instance variables (wires after the constant 1) this describes.
    pub fn width(&self) -> usize {
        2 + self.input_state + self.accesses + self.output_state
    }
}

/// A block's instance and the assignments of its executions (one full `z` per execution, from
/// the run's block trace).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BlockInstance {
    /// The block's name, for messages and file names (e.g. `b3`).
    pub name: String,
    /// The source lines the block came from (`bubble_sort.zok:6-9`), when known.
    pub source: Option<String>,
    /// What its instance variables mean, for a block of a program (`None` for other
    /// instances: the memory and transition arguments, synthetic blocks).
    pub state: Option<StateWires>,
    /// The block's constraint system.
    pub r1cs: SparseR1cs,
    /// One assignment `z = [1, instance..., witness...]` per execution.
    pub executions: Vec<Vec<Fr>>,
}

/// The padded dimensions of a block in the data-parallel sumcheck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockShape {
    /// Constraints of the instance (`cons_b`).
    pub num_constraints: usize,
    /// Executions of the block (`exec_b`).
    pub num_executions: usize,
    /// Length of `z`.
    pub num_vars: usize,
    /// Padded executions `Q_b = next_pow2(exec_b)`, 0 when the block never ran.
    pub padded_executions: usize,
    /// Padded constraints `X_b = max(2, next_pow2(cons_b))`.
    pub padded_constraints: usize,
}

impl BlockShape {
    /// Sumcheck cells `Q_b · X_b`: the length of each dense table the prover folds.
    pub fn cells(&self) -> usize {
        self.padded_executions * self.padded_constraints
    }

    /// Variables of the execution dimension, `log2 Q_b` (0 for a block that never ran).
    pub fn execution_vars(&self) -> usize {
        self.padded_executions.max(1).trailing_zeros() as usize
    }

    /// Variables of the constraint dimension, `log2 X_b`.
    pub fn constraint_vars(&self) -> usize {
        self.padded_constraints.trailing_zeros() as usize
    }

    /// Sumcheck rounds for this block: `log2 Q_b + log2 X_b`, or 0 for a block that never ran.
    pub fn rounds(&self) -> usize {
        if self.num_executions == 0 {
            0
        } else {
            self.execution_vars() + self.constraint_vars()
        }
    }
}

/// Dense tables above this many cells are refused: 2^32 cells of four tables would need over
/// 500 GiB, so a larger request is a mistake, not a workload.
pub const MAX_CELLS: usize = 1 << 32;

impl BlockInstance {
    /// The padded dimensions.
    pub fn shape(&self) -> BlockShape {
        let num_executions = self.executions.len();
        let num_constraints = self.r1cs.num_constraints();
        BlockShape {
            num_constraints,
            num_executions,
            num_vars: self.r1cs.num_vars(),
            padded_executions: crate::padding::padded_executions(num_executions as u64)
                .map_or(usize::MAX, |q| q as usize),
            padded_constraints: crate::padding::padded_constraints(num_constraints as u64)
                .map_or(usize::MAX, |x| x as usize),
        }
    }

    /// Checks the matrices (see [`SparseR1cs::validate`]), that every execution has one entry
    /// per variable with the constant one first, and that the padded tables are not absurdly
    /// large ([`MAX_CELLS`]). Satisfaction is *not* checked: proving an unsatisfied execution
    /// is allowed and yields a proof the verifier rejects.
    pub fn validate(&self) -> Result<(), InstanceError> {
        let fail = |error| InstanceError {
            block: self.name.clone(),
            error,
        };
        self.r1cs.validate().map_err(fail)?;
        let num_vars = self.r1cs.num_vars();
        for (execution, z) in self.executions.iter().enumerate() {
            if z.len() != num_vars {
                return Err(fail(ShapeError::ExecutionLength {
                    execution,
                    expected: num_vars,
                    found: z.len(),
                }));
            }
            if !z[0].is_one() {
                return Err(fail(ShapeError::ConstantNotOne { execution }));
            }
        }
        let (q, x) = (
            crate::padding::next_pow2(self.executions.len() as u64)
                .and_then(|q| usize::try_from(q).ok()),
            crate::padding::padded_constraints(self.r1cs.num_constraints() as u64)
                .and_then(|x| usize::try_from(x).ok()),
        );
        match q.zip(x).and_then(|(q, x)| q.checked_mul(x)) {
            Some(cells) if cells <= MAX_CELLS => Ok(()),
            _ => Err(fail(ShapeError::TooLarge {
                executions: self.executions.len(),
                constraints: self.r1cs.num_constraints(),
            })),
        }
    }

    /// The first `(execution, constraint)` that is not satisfied, or `None` when every
    /// execution satisfies every constraint. Call on a validated instance.
    pub fn first_unsatisfied(&self) -> Option<(usize, usize)> {
        self.executions
            .iter()
            .enumerate()
            .find_map(|(e, z)| self.r1cs.first_unsatisfied(z).map(|row| (e, row)))
    }
}

/// A malformed instance or execution, found by [`BlockInstance::validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// A, B and C do not have one row per constraint each.
    RowCounts {
        /// Rows of A.
        a: usize,
        /// Rows of B.
        b: usize,
        /// Rows of C.
        c: usize,
    },
    /// A row's variable indices are not strictly increasing.
    UnsortedRow {
        /// The matrix.
        matrix: Matrix,
        /// The row (constraint) index.
        row: usize,
    },
    /// A row names a variable past the end of `z`.
    VariableOutOfRange {
        /// The matrix.
        matrix: Matrix,
        /// The row (constraint) index.
        row: usize,
        /// The variable named.
        var: usize,
        /// Length of `z`.
        num_vars: usize,
    },
    /// An execution's assignment has the wrong length.
    ExecutionLength {
        /// The execution index.
        execution: usize,
        /// Length of `z` the instance expects.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// An execution's assignment does not start with the constant one.
    ConstantNotOne {
        /// The execution index.
        execution: usize,
    },
    /// The padded tables would exceed [`MAX_CELLS`].
    TooLarge {
        /// Executions given.
        executions: usize,
        /// Constraints given.
        constraints: usize,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::RowCounts { a, b, c } => write!(
                f,
                "A, B and C must have one row per constraint, found {a}, {b} and {c} rows"
            ),
            ShapeError::UnsortedRow { matrix, row } => write!(
                f,
                "row {row} of {matrix} is not sorted by variable (or names a variable twice)"
            ),
            ShapeError::VariableOutOfRange {
                matrix,
                row,
                var,
                num_vars,
            } => write!(
                f,
                "row {row} of {matrix} names variable {var}, but z has only {num_vars} entries"
            ),
            ShapeError::ExecutionLength {
                execution,
                expected,
                found,
            } => write!(
                f,
                "execution {execution} assigns {found} variables, the instance has {expected}"
            ),
            ShapeError::ConstantNotOne { execution } => {
                write!(f, "execution {execution} does not start with the constant 1")
            }
            ShapeError::TooLarge {
                executions,
                constraints,
            } => write!(
                f,
                "{executions} executions of {constraints} constraints exceed {MAX_CELLS} padded cells"
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

/// A [`ShapeError`] in a named block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceError {
    /// The block's name.
    pub block: String,
    /// What is wrong.
    pub error: ShapeError,
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {}: {}", self.block, self.error)
    }
}

impl std::error::Error for InstanceError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_gives_back_its_rows_and_stores_each_coefficient_once() {
        let (one, two, seven) = (Fr::one(), Fr::from(2u64), Fr::from(7u64));
        let rows: Vec<SparseRow> = vec![
            vec![(0, one), (3, two)],
            vec![],
            vec![(1, two), (2, one), (9, seven)],
            vec![(4, -one)],
        ];
        let mut m = SparseMatrix::from(rows.clone());
        assert_eq!(m.len(), 4);
        assert_eq!(m.to_rows(), rows);
        assert_eq!(m.row(2).len(), 3);
        assert!(m.row(1).is_empty());
        assert_eq!(m.row(2).vars().collect::<Vec<_>>(), vec![1, 2, 9]);
        // 1, 2, 7 and -1: four distinct coefficients for six entries.
        assert_eq!(m.coeffs.len(), 4);
        let before = m.clone();
        m.shrink();
        assert_eq!(m, before);
        let mut kept = m.clone();
        kept.retain_rows(|k| k != 1 && k != 3, |v| v + 10);
        assert_eq!(
            kept.to_rows(),
            vec![
                vec![(10, one), (13, two)],
                vec![(11, two), (12, one), (19, seven)]
            ]
        );
        // Equality is by entries, not by how the coefficients happen to be numbered.
        let reversed: SparseMatrix = rows.iter().rev().cloned().collect();
        let mut again: Vec<SparseRow> = reversed.to_rows();
        again.reverse();
        assert_eq!(SparseMatrix::from(again), m);
        assert_ne!(reversed, m);
    }
}
