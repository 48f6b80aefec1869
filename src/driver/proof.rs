//! What `zkbc prove` proves: the block instances of a run and the arguments between them — the
//! memory check (`r1cs::memory`: per list, read-write and read-only, the pair instance over
//! the address-sorted entries and the grand product tying them to the execution order) and the transition permutation (a grand
//! product over every execution's input state against every execution's output state) — as
//! instances for the data-parallel sumcheck ([`crate::prove`]), and the links between them
//! that the verifier checks by reading the executions ([`verify_arguments`]).

use super::block_instances_with;
use crate::field::Fr;
use crate::ir::{interp, Program};
use crate::prove::{self, arguments, BlockInstance, Transcript};
use crate::r1cs::{self, memory::check as mem};
use ark_ff::Zero;

/// The instances of a proof and what links them.
#[derive(Clone, Debug)]
pub struct ProofInstances {
    /// The block instances, then the arguments' instances (`memory.pairs`, `memory.products`,
    /// `memory.read_only_pairs`, `memory.read_only_products`, `transitions.products`).
    pub instances: Vec<BlockInstance>,
    memory: Vec<MemoryArgument>,
    transitions: Option<TransitionArgument>,
}

#[derive(Clone, Debug)]
struct MemoryArgument {
    pairs: usize,
    products: usize,
    /// The execution order as the verifier knows it: the initial entries (from the program)
    /// and the accesses (read off the block instances' access variables).
    exec_order: Vec<Vec<Fr>>,
    /// Whether this is the read-only list (tuples `(addr, seg, value, rw)`, no `ts`).
    read_only: bool,
}

#[derive(Clone, Debug)]
struct TransitionArgument {
    products: usize,
    executions: usize,
    first_in: Vec<Fr>,
    last_out: Vec<Fr>,
    r: Fr,
    beta: Fr,
}

fn tuple(e: &mem::MemoryEntry) -> Vec<Fr> {
    vec![e.addr, Fr::from(e.seg), e.value, e.rw, Fr::from(e.ts)]
}

/// One memory list's instances, as [`push_memory_list`] adds them: its pair instance over the
/// sorted entries and the grand product of its tuples (`width` elements) in both orders.
struct MemoryList {
    /// The names of the pair and product instances.
    names: (&'static str, &'static str),
    width: usize,
    r1cs: prove::SparseR1cs,
    pairs: Vec<Vec<Fr>>,
    exec_order: Vec<Vec<Fr>>,
    sorted_order: Vec<Vec<Fr>>,
    challenges: (Fr, Fr),
    read_only: bool,
}

/// Adds a memory list's pair and product instances and returns its argument.
fn push_memory_list(instances: &mut Vec<BlockInstance>, list: MemoryList) -> MemoryArgument {
    let (r, beta) = list.challenges;
    instances.push(BlockInstance {
        name: list.names.0.into(),
        source: None,
        state: None,
        r1cs: list.r1cs,
        executions: list.pairs,
    });
    instances.push(arguments::product_instance(
        list.names.1,
        list.width,
        r,
        beta,
        &[&list.exec_order, &list.sorted_order],
    ));
    MemoryArgument {
        pairs: instances.len() - 2,
        products: instances.len() - 1,
        exec_order: list.exec_order,
        read_only: list.read_only,
    }
}

/// The block instances of a run (as [`super::block_instances`]) and the arguments' instances.
pub fn proof_instances(
    program: &Program,
    outcome: &interp::Outcome,
    lower: r1cs::LowerOptions,
) -> Result<ProofInstances, r1cs::CheckError> {
    proof_instances_with_progress(program, outcome, lower, None)
}

/// [`proof_instances`], calling `progress` with the block executions assigned so far (a
/// progress bar's position).
pub fn proof_instances_with_progress(
    program: &Program,
    outcome: &interp::Outcome,
    lower: r1cs::LowerOptions,
    progress: Option<&dyn Fn(usize)>,
) -> Result<ProofInstances, r1cs::CheckError> {
    let mut states_in: Vec<Vec<Fr>> = Vec::new();
    let mut states_out: Vec<Vec<Fr>> = Vec::new();
    let (mut instances, report) =
        block_instances_with(program, outcome, lower, progress, |blk, asg| {
            let l = blk.layout();
            states_in.push(asg.instance[..1 + l.in_leaves()].to_vec());
            let at = l.out_label_index();
            states_out.push(asg.instance[at..at + 1 + l.out_leaves].to_vec());
        })?;
    let mut memory = Vec::new();
    let trace = &report.memory;
    if !trace.accesses.is_empty() {
        let t_bits = trace.time_bits();
        let sorted = mem::sorted(trace);
        let exec = trace.exec_order();
        let (r, beta) = mem::challenges(&exec, &sorted);
        memory.push(push_memory_list(
            &mut instances,
            MemoryList {
                names: ("memory.pairs", "memory.products"),
                width: 5,
                r1cs: prove::spartan::memory::pair_r1cs(t_bits),
                pairs: sorted
                    .windows(2)
                    .map(|w| mem::pair_assignment(&w[0], &w[1], t_bits))
                    .collect(),
                exec_order: exec.iter().map(tuple).collect(),
                sorted_order: sorted.iter().map(tuple).collect(),
                challenges: (r, beta),
                read_only: false,
            },
        ));
    }
    if !trace.ro_accesses.is_empty() {
        let sorted = mem::sorted_read_only(trace);
        let exec = trace.ro_exec_order();
        let (r, beta) = mem::challenges_in(b"zkbc read-only memory check", &exec, &sorted);
        let ro_tuple = |e: &mem::MemoryEntry| vec![e.addr, Fr::from(e.seg), e.value, e.rw];
        memory.push(push_memory_list(
            &mut instances,
            MemoryList {
                names: ("memory.read_only_pairs", "memory.read_only_products"),
                width: 4,
                r1cs: prove::spartan::memory::ro_pair_r1cs(),
                pairs: sorted
                    .windows(2)
                    .map(|w| mem::ro_pair_assignment(&w[0], &w[1]))
                    .collect(),
                exec_order: exec.iter().map(ro_tuple).collect(),
                sorted_order: sorted.iter().map(ro_tuple).collect(),
                challenges: (r, beta),
                read_only: true,
            },
        ));
    }
    let mut transitions = None;
    if states_in.len() > 1 {
        let width = states_in
            .iter()
            .chain(&states_out)
            .map(Vec::len)
            .max()
            .unwrap_or(1);
        let mut t = Transcript::new(b"zkbc transition permutation");
        for s in states_in.iter().chain(&states_out) {
            t.append_fields(b"state", s);
        }
        let (r, beta) = (t.challenge(b"r"), t.challenge(b"beta"));
        let products = arguments::product_instance(
            "transitions.products",
            width,
            r,
            beta,
            &[&states_in, &states_out],
        );
        instances.push(products);
        transitions = Some(TransitionArgument {
            products: instances.len() - 1,
            executions: states_in.len(),
            first_in: states_in[0].clone(),
            last_out: states_out.last().cloned().unwrap_or_default(),
            r,
            beta,
        });
    }
    Ok(ProofInstances {
        instances,
        memory,
        transitions,
    })
}

/// The links between the instances that the sumcheck does not prove: each product chain
/// starts at 1 and continues execution to execution; the memory check's two orders have equal
/// products, its execution order is the initial entries and the blocks' accesses, its sorted
/// order is what the pair instance checks pair by pair, starting at address 0; every output
/// state but the last is some execution's input state and vice versa (the products with the
/// first input and the last output swapped in are equal).
pub fn verify_arguments(p: &ProofInstances) -> Result<(), String> {
    for m in &p.memory {
        // An entry's width in the product tuples and in a pair's variables.
        let width = if m.read_only { 4 } else { 5 };
        let products = &p.instances[m.products];
        let n = m.exec_order.len();
        let finals = arguments::chain_products(products, &[n, n])?;
        if finals[0] != finals[1] {
            return Err(
                "memory: the sorted accesses are not a permutation of the execution order".into(),
            );
        }
        let tuple_of = |k: usize| products.executions[k][3..3 + width].to_vec();
        if (0..n).any(|k| tuple_of(k) != m.exec_order[k]) {
            return Err(
                "memory: the product chain is not the execution order of the accesses".into(),
            );
        }
        let pairs = &p.instances[m.pairs];
        if pairs.executions.len() + 1 != n {
            return Err("memory: the pair instance does not cover the sorted list".into());
        }
        for (k, z) in pairs.executions.iter().enumerate() {
            let (e, next) = (1..1 + width, 1 + width..1 + 2 * width);
            if z[e] != tuple_of(n + k)[..] || z[next] != tuple_of(n + k + 1)[..] {
                return Err(format!(
                    "memory: pair {k} is not two adjacent sorted entries"
                ));
            }
        }
        // The read-write list starts at address 0 with time 0, the read-only one at address
        // 0 with a write.
        let first = tuple_of(n);
        let starts = match m.read_only {
            true => first[0].is_zero() && first[3] == Fr::from(1u64),
            false => first[0].is_zero() && first[4].is_zero(),
        };
        if !starts {
            return Err("memory: the sorted list does not start at address 0".into());
        }
    }
    if let Some(t) = &p.transitions {
        let products = &p.instances[t.products];
        let finals = arguments::chain_products(products, &[t.executions, t.executions])?;
        let ins = finals[0] * arguments::factor(&t.last_out, t.r, t.beta);
        let outs = finals[1] * arguments::factor(&t.first_in, t.r, t.beta);
        if ins != outs {
            return Err("transitions: the output states are not the next input states".into());
        }
    }
    Ok(())
}

/// Proves and verifies a run's instances with their arguments: the sumcheck proof and, when it
/// verifies, [`verify_arguments`].
pub fn prove_and_verify(p: &ProofInstances) -> Result<(), String> {
    let proof = prove::prove(&p.instances).map_err(|e| e.to_string())?;
    prove::verify(&p.instances, &proof).map_err(|e| e.to_string())?;
    verify_arguments(p)
}
