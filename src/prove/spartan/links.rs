//! What a committed table proves besides its R1CS: the challenges of the fingerprints, the
//! chain's state tuples, the entry's public tuple and the memory tuples, each as weights on a
//! table row.

use super::{memory, Statement};
use crate::field::Fr;
use crate::prove::transcript::Transcript;
use ark_ff::{Field, One, Zero};

/// The challenges drawn once the commitments are fixed: `r, β` for the states' fingerprints,
/// `r_mem, β_mem` for the memory entries'.
#[derive(Clone, Copy, Debug)]
pub(super) struct Challenges {
    pub(super) r: Fr,
    pub(super) beta: Fr,
    pub(super) r_mem: Fr,
    pub(super) beta_mem: Fr,
}

impl Challenges {
    pub(super) fn draw(t: &mut Transcript) -> Challenges {
        Challenges {
            r: t.challenge(b"r"),
            beta: t.challenge(b"beta"),
            r_mem: t.challenge(b"r memory"),
            beta_mem: t.challenge(b"beta memory"),
        }
    }
}

/// `(wire, β^k)` for a tuple's wires, `k` from `from`.
pub(super) fn tuple_weights(
    wires: impl Iterator<Item = usize>,
    beta: Fr,
    from: u64,
) -> Vec<(usize, Fr)> {
    let mut p = beta.pow([from]);
    wires
        .map(|w| {
            let out = (w, p);
            p *= beta;
            out
        })
        .collect()
}

/// What a committed table proves besides its R1CS: the chain its executions form (input and
/// output tuples, as weights on a table row), the entry's public tuple, and the memory tuples
/// of its accesses.
pub(super) struct Links {
    pub(super) chain: [Vec<(usize, Fr)>; 2],
    /// The chain's challenge: a leaf is `r_chain − fp(tuple)`.
    pub(super) r_chain: Fr,
    /// The entry block's `(z[0], public inputs.., clock)`, checked at execution 0, whose input
    /// leaf is 1.
    pub(super) public: Option<Vec<(usize, Fr)>>,
    /// One tuple per access, in order; a leaf is `r_mem − fp(tuple)`.
    pub(super) memory: Vec<Vec<(usize, Fr)>>,
    pub(super) r_mem: Fr,
    /// The verifier's value of the public tuple (zero for the prover, who does not use it).
    pub(super) public_value: Fr,
}

/// A block's links. States are `(z[0], clock, label, values..)` with memory, `(z[0], label,
/// values..)` without; an output's clock is the input's plus the block's read-write accesses
/// (times `z[0]`): read-only accesses carry no time.
pub(super) fn block_links(st: &Statement, idx: usize, ch: &Challenges) -> Links {
    let block = &st.blocks[idx];
    let s = block.state.expect("validated");
    let clock = st.memory.as_ref().map(|_| block.r1cs.num_vars());
    let accesses = st.memory.as_ref().map_or(&[][..], |m| &m.accesses[idx][..]);
    let o = u64::from(clock.is_some());
    let mut input = vec![(0, Fr::one())];
    let mut output = vec![(0, Fr::one())];
    if let Some(c) = clock {
        input.push((c, ch.beta));
        output.push((c, ch.beta));
        let timed = accesses.iter().filter(|a| !a.read_only).count();
        output.push((0, ch.beta * Fr::from(timed as u64)));
    }
    let ins = std::iter::once(s.input_label()).chain(s.input_values());
    input.extend(tuple_weights(ins, ch.beta, 1 + o));
    let outs = std::iter::once(s.output_label()).chain(s.output_values());
    output.extend(tuple_weights(outs, ch.beta, 1 + o));
    let public = (idx == st.entry).then(|| {
        let wires = std::iter::once(0)
            .chain(st.public_inputs.iter().copied())
            .chain(clock);
        tuple_weights(wires, ch.beta, 0)
    });
    // `k` counts the block's read-write accesses: the timestamp of one is the clock plus its
    // position among them.
    let mut k = 0;
    let memory = accesses
        .iter()
        .map(|a| {
            let tuple = memory::access_tuple(a, k, clock.expect("memory"), ch);
            k += usize::from(!a.read_only);
            tuple
        })
        .collect();
    Links {
        chain: [input, output],
        r_chain: ch.r,
        public,
        memory,
        r_mem: ch.r_mem,
        public_value: Fr::zero(),
    }
}

/// The pair table's links: a chain from the first entry to the sentinel, under the memory's
/// challenges; no accesses of its own.
pub(super) fn pair_links(ch: &Challenges) -> Links {
    Links {
        chain: memory::pair_tuples(ch),
        r_chain: ch.r_mem,
        public: None,
        memory: Vec::new(),
        r_mem: ch.r_mem,
        public_value: Fr::zero(),
    }
}

/// The read-only pair table's links: its chain from the head to its sentinel.
pub(super) fn ro_pair_links(ch: &Challenges) -> Links {
    Links {
        chain: memory::ro_pair_tuples(ch),
        ..pair_links(ch)
    }
}

/// A tuple's weights as a dense column functional of length `y`.
pub(super) fn dense(weights: &[(usize, Fr)], y: usize, scale: Fr, into: &mut [Fr]) {
    debug_assert_eq!(into.len(), y);
    for &(w, c) in weights {
        into[w] += scale * c;
    }
}

pub(super) fn fp(z: &[Fr], weights: &[(usize, Fr)]) -> Fr {
    weights.iter().map(|&(w, c)| c * z[w]).sum()
}

/// `fp` of the final state `(1, clock, 0, outputs)` (no clock without memory).
pub(super) fn final_fingerprint(outputs: &[Fr], beta: Fr, clock: Option<u64>) -> Fr {
    let mut acc = Fr::one();
    let mut p = beta;
    if let Some(c) = clock {
        acc += p * Fr::from(c);
        p *= beta;
    }
    p *= beta; // the return label is 0
    for o in outputs {
        acc += p * o;
        p *= beta;
    }
    acc
}
