//! What `zkbc prove --backend spartan` proves of a block-based program
//! ([`crate::prove::spartan`]): the statement (every block of main, the entry, the public input
//! wires, the output count), which the verifier builds from the program alone, and the
//! prover's executions and public values from a run.

use crate::fxhash::HashMap;

use super::{block_instances_with, circuit, instance_name, sparse_r1cs, state_wires, Compilation};
use crate::field::Fr;
use crate::ir::interp;
use crate::prove::spartan::memory::{Access, Memory, Rw};
use crate::prove::spartan::Statement;
use crate::prove::BlockInstance;
use crate::r1cs::{self, memory::AccessKind};

/// The statement of a compiled, legalized program (no run): main's blocks, and its memory
/// (the initial entries and each block's accesses) when a block accesses memory. Refuses
/// programs whose circuit calls other functions.
pub fn statement(compilation: &Compilation) -> Result<Statement, String> {
    let program = &compilation.program;
    let circuit_funcs = program.circuit_funcs();
    if circuit_funcs
        .iter()
        .enumerate()
        .any(|(i, &c)| c && i != program.main.index())
        || program.main_func().has_calls()
    {
        return Err(
            "the spartan backend proves programs whose circuit is main alone, and main \
                    calls other functions"
                .into(),
        );
    }
    let lowered = r1cs::lower_function_opts(program, program.main, compilation.lower)
        .map_err(|e| e.to_string())?;
    let mut blocks = Vec::with_capacity(lowered.len());
    let mut accesses = Vec::with_capacity(lowered.len());
    for blk in &lowered {
        blocks.push(BlockInstance {
            name: instance_name(program, blk),
            source: program.block_source(blk.func_id(), blk.block()),
            state: Some(state_wires(blk)),
            r1cs: sparse_r1cs(blk),
            executions: Vec::new(),
        });
        // Slots index the instance vector without the constant: `z` is one further.
        let list: Vec<Access> = blk
            .layout()
            .accesses
            .iter()
            .map(|a| Access {
                seg: u64::from(a.seg),
                addr: a.addr + 1,
                value: a.value + 1,
                rw: match (a.kind, a.rw) {
                    (AccessKind::Read, _) | (AccessKind::Guarded, None) => Rw::Read,
                    (AccessKind::Write, _) => Rw::Write,
                    (AccessKind::Guarded, Some(k)) => Rw::Wire(k + 1),
                },
                read_only: a.read_only,
            })
            .collect();
        accesses.push(list);
    }
    drop(lowered);
    let memory = accesses.iter().any(|a| !a.is_empty()).then(|| {
        let (ro_inits, ro_size) = r1cs::initial_read_only_memory(program, compilation.lower);
        Memory {
            inits: r1cs::initial_memory(program, compilation.lower),
            ro_inits,
            ro_size,
            accesses,
            ..Memory::default()
        }
    });
    let main = program.main_func();
    let entry_name = super::instance_label(program, program.main, main.entry);
    let entry = blocks
        .iter()
        .position(|b| b.name == entry_name)
        .ok_or("main's entry block has no instance")?;
    let (visibility, num_outputs) = circuit::input_visibility(compilation);
    let state = blocks[entry]
        .state
        .ok_or("the entry block has no state wires")?;
    if visibility.len() != state.input_state {
        return Err(format!(
            "main has {} input leaves, its entry block {}",
            visibility.len(),
            state.input_state
        ));
    }
    let public_inputs = state
        .input_values()
        .zip(&visibility)
        .filter(|(_, &public)| public)
        .map(|(wire, _)| wire)
        .collect();
    Ok(Statement {
        blocks,
        entry,
        public_inputs,
        num_outputs,
        memory,
    })
}

/// The statement with the run's executions filled in, and the public values (main's outputs,
/// then its public inputs).
pub fn witness(
    compilation: &Compilation,
    outcome: &interp::Outcome,
    progress: Option<&dyn Fn(usize)>,
) -> Result<(Statement, Vec<Fr>), String> {
    let mut st = statement(compilation)?;
    let mut last_out: Vec<Fr> = Vec::new();
    // Each execution's clock: the accesses the run made before it, by block name.
    let mut clocks: HashMap<String, Vec<u64>> = HashMap::default();
    let mut clock = 0u64;
    let program = &compilation.program;
    let (executed, report) =
        block_instances_with(program, outcome, compilation.lower, progress, |blk, asg| {
            let l = blk.layout();
            let at = l.out_label_index() + 1;
            last_out = asg.instance[at..at + l.out_leaves].to_vec();
            clocks
                .entry(instance_name(program, blk))
                .or_default()
                .push(clock);
            // Read-only accesses carry no time: the clock counts the read-write ones.
            clock += l.accesses.iter().filter(|a| !a.read_only).count() as u64;
        })
        .map_err(|e| e.to_string())?;
    if let Some(m) = &mut st.memory {
        if report.memory.inits != m.inits
            || report.memory.ro_inits != m.ro_inits
            || report.memory.accesses.len() as u64 != clock
        {
            return Err("bug: the run's memory is not the statement's".into());
        }
        m.sorted = r1cs::memory::check::sorted(&report.memory);
        m.ro_sorted = r1cs::memory::check::sorted_read_only(&report.memory);
        m.clocks = st
            .blocks
            .iter()
            .map(|b| clocks.remove(&b.name).unwrap_or_default())
            .collect();
    }
    for inst in executed {
        let Some(block) = st.blocks.iter_mut().find(|b| b.name == inst.name) else {
            return Err(format!(
                "bug: block {} ran but is not in the program",
                inst.name
            ));
        };
        if block.r1cs != inst.r1cs {
            return Err(format!(
                "bug: block {} lowers differently with and without a run",
                inst.name
            ));
        }
        block.executions = inst.executions;
    }
    let first = st.blocks[st.entry]
        .executions
        .first()
        .ok_or("bug: the entry block never ran")?;
    if last_out.len() < st.num_outputs {
        return Err("bug: the last execution has fewer output leaves than main".into());
    }
    let mut public: Vec<Fr> = last_out[..st.num_outputs].to_vec();
    public.extend(st.public_inputs.iter().map(|&w| first[w]));
    Ok((st, public))
}
