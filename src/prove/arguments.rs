//! Grand products as product circuits: the permutation arguments between instances (the
//! memory check's two orders of accesses, the transition states between block executions).
//!
//! A chain proves `Π_k (r − fp(x_k))` over tuples `x_k` of `width` field elements with
//! `fp(x) = Σ_j β^j · x_j`: one execution per tuple, `z = [1, p, p', x_0 .. x_(width-1)]`, and
//! one constraint `p · (r − fp(x)) = p'`. Every chain of an instance starts at `p = 1`, and
//! each execution's `p` is the previous one's `p'`: [`chain_products`] checks those links (the
//! verifier reads the executions, as it does for every instance here) and gives each chain's
//! product. The constraint itself is proven by the same sumcheck as every block.

use super::{BlockInstance, SparseR1cs};
use crate::field::Fr;
use ark_ff::One;

/// `Σ_j β^j · x_j`.
pub fn fingerprint(x: &[Fr], beta: Fr) -> Fr {
    x.iter().rev().fold(Fr::from(0u64), |acc, v| acc * beta + v)
}

/// The product-circuit instance over `chains` (each a list of tuples of `width` elements,
/// shorter tuples padded with 0) for challenges `r`, `beta`.
pub fn product_instance(
    name: &str,
    width: usize,
    r: Fr,
    beta: Fr,
    chains: &[&[Vec<Fr>]],
) -> BlockInstance {
    let mut b = vec![(0, r)];
    let mut power = Fr::one();
    for j in 0..width {
        b.push((3 + j, -power));
        power *= beta;
    }
    let r1cs = SparseR1cs {
        num_instance: 2 + width,
        num_witness: 0,
        a: vec![vec![(1, Fr::one())]].into(),
        b: vec![b].into(),
        c: vec![vec![(2, Fr::one())]].into(),
    };
    let mut executions = Vec::new();
    for chain in chains {
        let mut p = Fr::one();
        for x in chain.iter() {
            let next = p * (r - fingerprint(x, beta));
            let mut z = Vec::with_capacity(3 + width);
            z.extend([Fr::one(), p, next]);
            z.extend(x.iter().copied());
            z.resize(3 + width, Fr::from(0u64));
            executions.push(z);
            p = next;
        }
    }
    BlockInstance {
        name: name.to_string(),
        source: None,
        state: None,
        r1cs,
        executions,
    }
}

/// Checks that the executions of `instance`, cut into chains of the given lengths, each start
/// at 1 and link `p'` to the next `p`; gives each chain's product.
pub fn chain_products(instance: &BlockInstance, lengths: &[usize]) -> Result<Vec<Fr>, String> {
    let total: usize = lengths.iter().sum();
    if total != instance.executions.len() {
        return Err(format!(
            "{}: {} executions for chains of {total}",
            instance.name,
            instance.executions.len()
        ));
    }
    let mut products = Vec::with_capacity(lengths.len());
    let mut at = 0;
    for (c, &len) in lengths.iter().enumerate() {
        let mut p = Fr::one();
        for k in at..at + len {
            let z = &instance.executions[k];
            if z.len() < 3 || z[1] != p {
                return Err(format!(
                    "{}: chain {c} does not link at execution {k}",
                    instance.name
                ));
            }
            p = z[2];
        }
        products.push(p);
        at += len;
    }
    Ok(products)
}

/// `r − fp(x)` for one boundary tuple.
pub fn factor(x: &[Fr], r: Fr, beta: Fr) -> Fr {
    r - fingerprint(x, beta)
}

/// `β^j` for `j < n`, for callers that build their own fingerprints.
pub fn powers(beta: Fr, n: usize) -> Vec<Fr> {
    let mut out = Vec::with_capacity(n);
    let mut p = Fr::one();
    for _ in 0..n {
        out.push(p);
        p *= beta;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::Field;

    fn tuples(xs: &[[u64; 2]]) -> Vec<Vec<Fr>> {
        xs.iter()
            .map(|t| t.iter().map(|&v| Fr::from(v)).collect())
            .collect()
    }

    #[test]
    fn equal_multisets_give_equal_products_and_satisfied_rows() {
        let a = tuples(&[[1, 2], [3, 4], [5, 6]]);
        let b = tuples(&[[5, 6], [1, 2], [3, 4]]);
        let (r, beta) = (Fr::from(1234567u64), Fr::from(7654321u64));
        let inst = product_instance("t", 2, r, beta, &[&a, &b]);
        assert_eq!(inst.first_unsatisfied(), None);
        let p = chain_products(&inst, &[3, 3]).unwrap();
        assert_eq!(p[0], p[1]);
        let c = tuples(&[[5, 6], [1, 2], [3, 5]]);
        let inst = product_instance("t", 2, r, beta, &[&a, &c]);
        let p = chain_products(&inst, &[3, 3]).unwrap();
        assert_ne!(p[0], p[1]);
        assert_eq!(
            fingerprint(&a[0], beta),
            Fr::from(1u64) + beta.pow([1]) * Fr::from(2u64)
        );
    }

    #[test]
    fn a_broken_link_is_found() {
        let a = tuples(&[[1, 2], [3, 4]]);
        let mut inst = product_instance("t", 2, Fr::from(9u64), Fr::from(5u64), &[&a]);
        inst.executions[1][1] += Fr::from(1u64);
        assert!(chain_products(&inst, &[2]).is_err());
    }
}
