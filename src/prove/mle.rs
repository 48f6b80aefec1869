//! Multilinear extensions over dense evaluation tables.
//!
//! A table `t` of length `2^n` is the multilinear polynomial `t̃(y_0, …, y_{n-1})` that equals
//! `t[i]` on the Boolean point whose bits, most significant first, are `y_0 … y_{n-1}`. So the
//! first variable splits the table into halves, and binding it to `r` is the halving fold
//! `t[i] ← t[i] + r·(t[i + half] − t[i])`.

use crate::field::Fr;
use ark_ff::{Field, One, Zero};
use rayon::prelude::*;

/// Below this many elements per task, rayon splits no further: a field multiplication is a few
/// tens of nanoseconds, so smaller tasks cost more to schedule than to run.
pub const MIN_PARALLEL_LEN: usize = 1 << 10;

/// The table of `eq(point, y)` over all Boolean `y`, i.e. `Π_i (point_i·y_i + (1−point_i)(1−y_i))`,
/// with `y_0` the most significant bit of the index. Length `2^point.len()`.
pub fn eq_table(point: &[Fr]) -> Vec<Fr> {
    let mut table = vec![Fr::one()];
    for &p in point {
        let mut next = vec![Fr::zero(); 2 * table.len()];
        next.par_chunks_mut(2)
            .with_min_len(MIN_PARALLEL_LEN)
            .zip(table.par_iter())
            .for_each(|(pair, &v)| {
                let high = v * p;
                pair[1] = high;
                pair[0] = v - high;
            });
        table = next;
    }
    table
}

/// `eq(x, y) = Π_i (x_i·y_i + (1−x_i)(1−y_i))` at two points of the same length.
pub fn eq_eval(x: &[Fr], y: &[Fr]) -> Fr {
    assert_eq!(
        x.len(),
        y.len(),
        "bug: eq_eval of points of different lengths"
    );
    x.iter()
        .zip(y)
        .map(|(&a, &b)| a * b + (Fr::one() - a) * (Fr::one() - b))
        .product()
}

/// Binds the first variable of `table` to `r`, halving its length, in parallel.
pub fn fold(table: &mut Vec<Fr>, r: Fr) {
    let half = table.len() / 2;
    let (low, high) = table.split_at_mut(half);
    low.par_iter_mut()
        .with_min_len(MIN_PARALLEL_LEN)
        .zip(high.par_iter())
        .for_each(|(l, &h)| *l += r * (h - *l));
    table.truncate(half);
}

/// Evaluates the multilinear extension of `table` at `point` (binding variables in order).
/// A reference implementation for tests; the prover folds in place instead.
pub fn evaluate(table: &[Fr], point: &[Fr]) -> Fr {
    assert_eq!(
        table.len(),
        1 << point.len(),
        "bug: table length is not 2^(point length)"
    );
    let mut table = table.to_vec();
    for &r in point {
        fold(&mut table, r);
    }
    table[0]
}

/// The value at `r` of the polynomial of degree ≤ 3 whose values at 0, 1, 2, 3 are `evals`
/// (Lagrange interpolation with the fixed nodes 0..3).
pub fn interpolate_cubic(evals: &[Fr; 4], r: Fr) -> Fr {
    let one = Fr::one();
    let two = Fr::from(2u64);
    let three = Fr::from(3u64);
    let (r0, r1, r2, r3) = (r, r - one, r - two, r - three);
    // The denominators Π_{j≠i}(i − j) are −6, 2, −2, 6.
    let inv2 = two.inverse().expect("2 is invertible");
    let inv6 = Fr::from(6u64).inverse().expect("6 is invertible");
    -evals[0] * r1 * r2 * r3 * inv6 + evals[1] * r0 * r2 * r3 * inv2
        - evals[2] * r0 * r1 * r3 * inv2
        + evals[3] * r0 * r1 * r2 * inv6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fr(v: u64) -> Fr {
        Fr::from(v)
    }

    #[test]
    fn eq_table_is_one_hot_on_boolean_points() {
        // point (1, 0, 1) is index 0b101 = 5 with the first variable most significant.
        let table = eq_table(&[fr(1), fr(0), fr(1)]);
        for (i, v) in table.iter().enumerate() {
            assert_eq!(*v, if i == 5 { fr(1) } else { fr(0) }, "index {i}");
        }
    }

    #[test]
    fn eq_table_agrees_with_eq_eval_and_evaluate() {
        let point = [fr(7), fr(11), fr(13)];
        let table = eq_table(&point);
        let y = [fr(3), fr(5), fr(9)];
        assert_eq!(evaluate(&table, &y), eq_eval(&point, &y));
        assert_eq!(table.iter().copied().sum::<Fr>(), fr(1));
    }

    #[test]
    fn evaluate_is_multilinear_in_msb_first_order() {
        // t̃(y0, y1) with t = [t00, t01, t10, t11]
        let t = [fr(2), fr(3), fr(5), fr(7)];
        let (y0, y1) = (fr(10), fr(100));
        let one = fr(1);
        let expected = t[0] * (one - y0) * (one - y1)
            + t[1] * (one - y0) * y1
            + t[2] * y0 * (one - y1)
            + t[3] * y0 * y1;
        assert_eq!(evaluate(&t, &[y0, y1]), expected);
    }

    #[test]
    fn cubic_interpolation_reproduces_a_cubic() {
        let g = |x: Fr| fr(4) + fr(3) * x - fr(2) * x * x + fr(9) * x * x * x;
        let evals = [g(fr(0)), g(fr(1)), g(fr(2)), g(fr(3))];
        for x in [0, 1, 2, 3, 4, 17, 1 << 40] {
            assert_eq!(interpolate_cubic(&evals, fr(x)), g(fr(x)), "x = {x}");
        }
    }
}
