//! The relations a proof's committed messages must satisfy, written once for the prover (over
//! its recording) and the verifier (over the proof): per table its sumchecks, products and
//! opening ([`table`]); across tables the transition chain ([`transition`]) and the memory
//! products ([`memory`]). Items enter a ledger in the order these functions read them, which
//! is the order the prover sent them (the ledger's proof pairs answers with items by position).

use super::links::Links;
use super::sumchecks::{chain, products, rounds};
use super::zk::{Form, ItemId, Source};
use super::{combined_row, opening_terms, Points};
use crate::field::Fr;
use crate::prove::mle::{eq_eval, eq_table, evaluate};
use crate::prove::SparseR1cs;
use ark_ff::{One, Zero};

/// A table's grand products, as items: the chain's input and output roots, and its memory
/// accesses' root.
pub(super) struct Ends {
    pub(super) chain: [ItemId; 2],
    pub(super) memory: Option<ItemId>,
}

/// A table's shape: `2^q` executions of rows of `y` values, committed in `2^row_vars` rows.
pub(super) struct TableShape {
    pub(super) q: usize,
    pub(super) y: usize,
    pub(super) row_vars: usize,
}

/// The relations of one table: the outer sumcheck (`Σ eq(τ,·)·(Az·Bz − Cz) = 0`, ending in
/// committed `Ãz, B̃z, C̃z` and their product), the inner sumcheck (ending in the committed
/// `w̃(r_e, r_j)`), the chain's and the memory's grand products, and the opening that ties
/// the claims on the leaves and on `w̃` to the committed table (parent module, steps 3–6).
pub(super) fn table(
    src: &mut dyn Source,
    r1cs: &SparseR1cs,
    shape: &TableShape,
    links: &Links,
) -> Result<Ends, String> {
    let TableShape { q, y, row_vars } = *shape;
    let x_vars = crate::padding::padded_constraints(r1cs.num_constraints() as u64)
        .map_or(64, u64::trailing_zeros) as usize;
    let tau: Vec<Fr> = (0..q + x_vars).map(|_| src.challenge(b"tau")).collect();
    let (ids, point) = rounds(src, q + x_vars, 4, b"outer round", b"r")?;
    let end = chain(src.ledger(), Form::constant(Fr::zero()), &ids, &point, 4);
    // Ãz, B̃z, C̃z and Ãz·B̃z.
    let ev = src.items(b"evaluations", 4, 1)?;
    src.ledger().require_product(ev[0], ev[1], ev[3]);
    let outer = Form::item(ev[3])
        .minus(Form::item(ev[2]))
        .scaled(eq_eval(&tau, &point));
    src.ledger().require_zero(end.minus(outer));
    let (r_e, r_x) = point.split_at(q);
    let gamma = src.challenge(b"gamma");
    let start = Form::item(ev[0])
        .plus(Form::item(ev[1]).scaled(gamma))
        .plus(Form::item(ev[2]).scaled(gamma * gamma));
    let (ids, r_j) = rounds(
        src,
        y.trailing_zeros() as usize,
        3,
        b"inner round",
        b"inner r",
    )?;
    let end = chain(src.ledger(), start, &ids, &r_j, 3);
    let w = src.items(b"witness evaluation", 1, 1)?[0];
    let m = evaluate(&combined_row(r1cs, r_x, gamma, y), &r_j);
    src.ledger()
        .require_zero(end.minus(Form::item(w).scaled(m)));
    let chained = products(src, 2, q)?;
    let accesses = if links.memory.is_empty() {
        None
    } else {
        let k = links.memory.len().next_power_of_two().trailing_zeros() as usize;
        Some(products(src, 1, k + q)?)
    };
    let kappa: [Fr; 4] = std::array::from_fn(|_| src.challenge(b"kappa"));
    // The value the opening must give: w̃ and the leaves' MLEs, κ-combined. The input leaves'
    // MLE is r·(1 − δ) + δ − y_in (the entry's execution 0 has the leaf 1), the outputs'
    // r − y_out.
    let r = links.r_chain;
    let rho = &chained.point;
    let delta = if links.public.is_some() {
        eq_eval(rho, &vec![Fr::zero(); q])
    } else {
        Fr::zero()
    };
    let [claim_in, claim_out] = [&chained.claims[0], &chained.claims[1]];
    let mut value = Form::item(w)
        .plus(
            Form::constant(r * (Fr::one() - delta) + delta)
                .minus(claim_in.clone())
                .scaled(kappa[0]),
        )
        .plus(Form::constant(r).minus(claim_out.clone()).scaled(kappa[1]));
    if links.public.is_some() {
        value = value.plus(Form::constant(kappa[2] * links.public_value));
    }
    let no_point = Vec::new();
    let rho_mem = accesses.as_ref().map_or(&no_point, |p| &p.point);
    if let Some(p) = &accesses {
        // The tree's MLE is r_mem·S + (1 − S) − y_mem, S the weight of the real accesses.
        let (rho_k, _) = p.point.split_at(p.point.len() - q);
        let s: Fr = eq_table(rho_k).iter().take(links.memory.len()).sum();
        let tree = Form::constant(links.r_mem * s + Fr::one() - s).minus(p.claims[0].clone());
        value = value.plus(tree.scaled(kappa[3]));
    }
    let at = Points {
        r_e,
        r_j: &r_j,
        rho,
        rho_mem,
    };
    let mut opened = Form::constant(Fr::zero());
    for term in opening_terms(row_vars, y, &at, links, kappa) {
        let id = src.rows(&term.left);
        opened = opened.plus(Form::vector(id, term.right));
    }
    src.ledger().require_zero(opened.minus(value));
    Ok(Ends {
        chain: [chained.roots[0], chained.roots[1]],
        memory: accesses.map(|p| p.roots[0]),
    })
}

/// `Π items` through committed partial products (one product proof each); `1` for none.
fn product_chain(
    src: &mut dyn Source,
    label: &'static [u8],
    items: &[ItemId],
) -> Result<Form, String> {
    let Some((&first, rest)) = items.split_first() else {
        return Ok(Form::constant(Fr::one()));
    };
    let partial = src.items(label, rest.len(), 1)?;
    let mut acc = first;
    for (&next, &p) in rest.iter().zip(&partial) {
        src.ledger().require_product(acc, next, p);
        acc = p;
    }
    Ok(Form::item(acc))
}

/// The transition: `Π_b in_b · last = Π_b out_b`, `last = r − fp(final state)`, over the
/// tables' committed roots.
pub(super) fn transition(
    src: &mut dyn Source,
    ins: &[ItemId],
    outs: &[ItemId],
    last: Fr,
) -> Result<(), String> {
    let all_in = product_chain(src, b"partial products in", ins)?;
    let all_out = product_chain(src, b"partial products out", outs)?;
    src.ledger()
        .require_zero(all_in.scaled(last).minus(all_out));
    Ok(())
}

/// The memory's public weights: `initial = r_m^(zero pairs)·Π leaf(public entries)` over
/// both lists and `unused = r_m^(zero slots)`, and per pair table the leaves of its sentinel
/// and of its first entry.
pub(super) struct MemoryConstants {
    pub(super) initial: Fr,
    pub(super) unused: Fr,
    pub(super) ends: Vec<(Fr, Fr)>,
}

/// The memory: each pair table chains from its list's first entry to its sentinel (`in·leaf(L)
/// = out·leaf(F)`), and the sorted entries of both lists are the public ones and the blocks'
/// accesses (`initial·Π_b mem_b = Π_lists in·unused`). `pairs` are the tables' `[in, out]`
/// roots, in the order of `k.ends`.
pub(super) fn memory(
    src: &mut dyn Source,
    pairs: &[[ItemId; 2]],
    accesses: &[ItemId],
    k: &MemoryConstants,
) -> Result<(), String> {
    if pairs.len() != k.ends.len() {
        return Err("the memory has a pair table per list".into());
    }
    let all = product_chain(src, b"partial memory products", accesses)?;
    let ins: Vec<ItemId> = pairs.iter().map(|p| p[0]).collect();
    let sorted = product_chain(src, b"partial sorted products", &ins)?;
    let l = src.ledger();
    for (&[sorted_in, sorted_out], &(sentinel, first)) in pairs.iter().zip(&k.ends) {
        l.require_zero(
            Form::item(sorted_in)
                .scaled(sentinel)
                .minus(Form::item(sorted_out).scaled(first)),
        );
    }
    l.require_zero(all.scaled(k.initial).minus(sorted.scaled(k.unused)));
    Ok(())
}
