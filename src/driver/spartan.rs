//! What `zkbc prove --backend spartan` proves of a block-based program
//! ([`crate::prove::spartan`]): the statement (every block of main, the entry, the public input
//! wires, the output count), which the verifier builds from the program alone, and the
//! prover's executions and public values from a run.

use super::{block_instances_with, block_systems, circuit, Compilation};
use crate::field::Fr;
use crate::ir::interp;
use crate::prove::spartan::Statement;

/// The statement of a compiled, legalized program (no run). Refuses programs the backend does
/// not prove: calls left in the circuit, memory accesses.
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
    let blocks = block_systems(program).map_err(|e| e.to_string())?;
    if let Some(b) = blocks
        .iter()
        .find(|b| b.state.is_some_and(|s| s.accesses > 0))
    {
        return Err(format!(
            "block {} reads or writes memory: the spartan backend does not prove memory \
             coherence yet (compile with --monolithic for Groth16, or use the probe)",
            b.name
        ));
    }
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
    let (executed, _) =
        block_instances_with(&compilation.program, outcome, progress, |blk, asg| {
            let l = blk.layout();
            let at = l.out_label_index() + 1;
            last_out = asg.instance[at..at + l.out_leaves].to_vec();
        })
        .map_err(|e| e.to_string())?;
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
