//! `main` as one circuit with its declared interface: for a program that is one block (what
//! `--monolithic` compiles), which variables of the block's instance are main's outputs, its
//! public inputs and its private inputs, each named by its source path (`main.d[1]`,
//! `main.s.x`, `main.~out[0]`). `export` writes the circuit with exactly the outputs and the
//! public inputs as public wires ([`crate::export::write_circuit`]).
//!
//! The block's instance is `z = [1, in_label, in.., out_label, out..]` (`r1cs::StateLayout`):
//! main's entry block has no live-in values, so `in` is main's parameters flattened to scalar
//! leaves in order (a struct member by member, an array element by element), and a block that
//! returns has the returned leaves first in `out`. The circuit has no block interface: the two
//! constraints pinning the labels (`in_label = L`, `out_label = 0`) and the labels themselves
//! are left out, so it counts what a one-circuit compiler such as ZoKrates counts.

use super::Compilation;
use crate::export::Interface;
use crate::front::typed::Type;
use crate::ir::{interp, Program};
use crate::{prove, r1cs};

/// Why a program has no one-circuit form.
pub fn not_one_block(program: &Program) -> Option<String> {
    let circuit = program.circuit_funcs();
    let others = circuit
        .iter()
        .enumerate()
        .filter(|&(i, &c)| c && i != program.main.index())
        .count();
    let main = program.main_func();
    if others > 0 || main.has_calls() {
        return Some("main calls other functions (compile with --monolithic)".into());
    }
    if main.layout.len() != 1 {
        return Some(format!(
            "main is {} blocks, not one (compile with --monolithic)",
            main.layout.len()
        ));
    }
    None
}

/// Why [`main_circuit`] failed: the block does not lower (the user's: too large, unsupported),
/// or the program is not one block or its shapes disagree.
#[derive(Debug)]
pub enum CircuitError {
    /// Lowering or assigning the block failed.
    Check(r1cs::CheckError),
    /// Not a one-block program, or a mismatch between main's signature and its block.
    Shape(String),
}

impl std::fmt::Display for CircuitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CircuitError::Check(e) => write!(f, "{e}"),
            CircuitError::Shape(why) => f.write_str(why),
        }
    }
}

/// The one block of `compilation` (legalized, see [`not_one_block`]) as an instance, with its
/// execution when `outcome` is given, and its interface.
pub fn main_circuit(
    compilation: &Compilation,
    outcome: Option<&interp::Outcome>,
) -> Result<(prove::BlockInstance, Interface), CircuitError> {
    let program = &compilation.program;
    if let Some(why) = not_one_block(program) {
        return Err(CircuitError::Shape(why));
    }
    let blocks = r1cs::lower_function_opts(program, program.main, compilation.lower)
        .map_err(|e| CircuitError::Check(r1cs::CheckError::Lower(e)))?;
    let shape = |why: &str| CircuitError::Shape(why.to_string());
    let [block] = &blocks[..] else {
        return Err(shape("a one-block main lowered to several instances"));
    };
    let layout = block.layout();
    let [exit] = &layout.exits[..] else {
        return Err(shape("main's block does not return"));
    };
    if exit.target.is_some() || layout.live_leaves != 0 {
        return Err(shape("main's one block jumps or reads live-in values"));
    }
    let (inputs, outputs) = interface_names(compilation);
    if inputs.len() != layout.param_leaves || outputs.len() != exit.arg_leaves {
        return Err(CircuitError::Shape(format!(
            "main's signature has {} input and {} output leaves, its block {} and {}",
            inputs.len(),
            outputs.len(),
            layout.param_leaves,
            exit.arg_leaves
        )));
    }

    // z = [1, in_label, params.., out_label, out..], then the witness.
    let n_instance = block.n_instance();
    let n = 1 + n_instance + block.n_witness();
    let first_in = 2;
    let out_label = first_in + layout.param_leaves;
    let first_out = out_label + 1;
    let mut names: Vec<String> = (0..n)
        .map(|v| match v {
            0 => "one".to_string(),
            1 => "main.~in_label".into(),
            v if v == out_label => "main.~out_label".into(),
            v if v > n_instance => format!("main.~w[{}]", v - n_instance - 1),
            // Inputs and outputs are named below; what is left of `out` pads it.
            v => format!("main.~out_pad[{}]", v.saturating_sub(first_out)),
        })
        .collect();
    let mut interface = Interface::default();
    for (k, (name, public)) in inputs.into_iter().enumerate() {
        let v = first_in + k;
        names[v] = name;
        if public {
            interface.public_inputs.push(v);
        } else {
            interface.private_inputs.push(v);
        }
    }
    for (k, name) in outputs.into_iter().enumerate() {
        let v = first_out + k;
        names[v] = name;
        interface.outputs.push(v);
    }
    interface.names = names;

    // The lowered block goes before the run lowers it again: only its matrices stay.
    let r1cs = super::sparse_r1cs(block);
    drop(blocks);
    let mut executions = Vec::new();
    if let Some(outcome) = outcome {
        let opts = r1cs::CheckOptions {
            lower: compilation.lower,
            ..r1cs::CheckOptions::default()
        };
        r1cs::for_each_execution_opts(program, outcome, opts, |_, _, asg| {
            executions.push(asg.full());
            Ok(())
        })
        .map_err(CircuitError::Check)?;
    }
    let instance = prove::BlockInstance {
        name: "main".into(),
        source: None,
        state: None,
        r1cs,
        executions,
    };
    Ok(without_labels(instance, interface, &[1, out_label]))
}

/// The circuit without the block interface: the constraints that only pin a label to a
/// constant (`in_label = L`, `out_label = 0`) are dropped, and so is each label that nothing
/// else reads. A one-block circuit has no transition for the labels to check; a label that
/// another constraint reads (none does today) keeps its constraint.
fn without_labels(
    mut instance: prove::BlockInstance,
    interface: Interface,
    labels: &[usize],
) -> (prove::BlockInstance, Interface) {
    let r1cs = &mut instance.r1cs;
    let only = |row: prove::MatrixRow<'_>, label: usize| row.vars().all(|v| v == 0 || v == label);
    let pins = |k: usize, label: usize| {
        only(r1cs.a.row(k), label) && only(r1cs.b.row(k), label) && only(r1cs.c.row(k), label)
    };
    // The variables read by some constraint that pins no label.
    let mut used = vec![false; r1cs.num_vars()];
    for k in (0..r1cs.num_constraints()).filter(|&k| !labels.iter().any(|&l| pins(k, l))) {
        for row in [r1cs.a.row(k), r1cs.b.row(k), r1cs.c.row(k)] {
            for v in row.vars() {
                used[v] = true;
            }
        }
    }
    // A label nothing else reads goes, with the constraints pinning it.
    let dropped: Vec<usize> = labels.iter().copied().filter(|&l| !used[l]).collect();
    let keep_row: Vec<bool> = (0..r1cs.num_constraints())
        .map(|k| !dropped.iter().any(|&l| pins(k, l)))
        .collect();
    let new_of: Vec<Option<usize>> = {
        let mut next = 0;
        (0..r1cs.num_vars())
            .map(|v| {
                (!dropped.contains(&v)).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    for m in [&mut r1cs.a, &mut r1cs.b, &mut r1cs.c] {
        m.retain_rows(
            |k| keep_row[k],
            |v| new_of[v].expect("a kept row reads kept variables"),
        );
    }
    r1cs.num_instance -= dropped.len();
    for z in &mut instance.executions {
        let mut v = 0;
        z.retain(|_| {
            v += 1;
            new_of[v - 1].is_some()
        });
    }
    let map = |vars: Vec<usize>| -> Vec<usize> {
        vars.into_iter()
            .map(|v| new_of[v].expect("inputs and outputs are kept"))
            .collect()
    };
    let interface = Interface {
        outputs: map(interface.outputs),
        public_inputs: map(interface.public_inputs),
        private_inputs: map(interface.private_inputs),
        names: interface
            .names
            .into_iter()
            .enumerate()
            .filter(|(v, _)| new_of[*v].is_some())
            .map(|(_, n)| n)
            .collect(),
    };
    (instance, interface)
}

/// Main's inputs (name, declared public) and outputs, one per scalar leaf in the order of the
/// block's state. IR programs have no declarations: every input is `main.in[k]`, private.
/// Whether each of main's input leaves is public, in order, and how many output leaves main
/// has.
pub fn input_visibility(compilation: &Compilation) -> (Vec<bool>, usize) {
    let (inputs, outputs) = interface_names(compilation);
    (inputs.into_iter().map(|(_, p)| p).collect(), outputs.len())
}

fn interface_names(compilation: &Compilation) -> (Vec<(String, bool)>, Vec<String>) {
    let Some(abi) = &compilation.abi else {
        let main = compilation.program.main_func();
        let leaves = |tys: &[crate::ir::Type]| -> u64 { tys.iter().map(|t| t.leaf_count()).sum() };
        let params: Vec<crate::ir::Type> = main
            .block(main.entry)
            .params
            .iter()
            .map(|&p| main.value_type(p).clone())
            .collect();
        let inputs = (0..leaves(&params))
            .map(|k| (format!("main.in[{k}]"), false))
            .collect();
        let outputs = (0..leaves(&main.returns))
            .map(|k| format!("main.~out[{k}]"))
            .collect();
        return (inputs, outputs);
    };
    let mut inputs = Vec::new();
    for p in &abi.params {
        for value in leaf_names(&format!("main.{}", p.name), &p.ty) {
            inputs.extend(value.into_iter().map(|name| (name, p.public)));
        }
    }
    let mut outputs = Vec::new();
    for (j, ty) in abi.outputs.iter().enumerate() {
        for value in leaf_names(&format!("main.~out[{j}]"), ty) {
            outputs.extend(value);
        }
    }
    (inputs, outputs)
}

/// The scalar names of a value of source type `ty` at `path`, grouped by IR value in the
/// front end's flattening (`front::irgen::ir_leaves`): a struct is its members' values, an
/// array of a compound type is one IR array per leaf of the element type, and an IR array's
/// scalars are in index order.
fn leaf_names(path: &str, ty: &Type) -> Vec<Vec<String>> {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) => vec![vec![path.to_string()]],
        Type::Struct(s) => s
            .fields
            .iter()
            .flat_map(|(name, t)| leaf_names(&format!("{path}.{name}"), t))
            .collect(),
        Type::Tuple(ts) => ts
            .iter()
            .enumerate()
            .flat_map(|(i, t)| leaf_names(&format!("{path}.{i}"), t))
            .collect(),
        Type::Array(elem, n) => {
            let per_index: Vec<Vec<Vec<String>>> = (0..*n)
                .map(|i| leaf_names(&format!("{path}[{i}]"), elem))
                .collect();
            let values = per_index.first().map_or(0, Vec::len);
            (0..values)
                .map(|k| {
                    per_index
                        .iter()
                        .flat_map(|leaves| leaves[k].iter().cloned())
                        .collect()
                })
                .collect()
        }
    }
}
