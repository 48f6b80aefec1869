//! One circuit with a declared interface, as the `export` module doc describes it: a one-block
//! program's `.r1cs`, `.sym` and `.wtns` with its wires in circom's order (the constant one,
//! public outputs, public inputs, private inputs, the rest).

use super::r1cs::{write_r1cs_to, Visibility};
use super::{check_file_name, write_file_with, ExportError, WtnsWriter};
use crate::field::Fr;
use crate::prove::BlockInstance;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The interface of a one-block program: which variables of its `z` are main's outputs and
/// inputs, public or private, and every variable's name (for `.sym`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Variables holding main's outputs, in order (all public).
    pub outputs: Vec<usize>,
    /// Variables holding main's public inputs, in parameter order.
    pub public_inputs: Vec<usize>,
    /// Variables holding main's private inputs, in parameter order.
    pub private_inputs: Vec<usize>,
    /// A name per variable of `z` (index 0, the constant one, is not written).
    pub names: Vec<String>,
}

/// Writes `DIR/NAME.r1cs`, `DIR/NAME.sym` and, when the block ran, `DIR/NAME.wtns` for a
/// one-block program with the wires in circom's order (see the module docs); returns the paths
/// written. At most one execution: main's one block runs once.
pub fn write_circuit(
    dir: &Path,
    name: &str,
    block: &BlockInstance,
    interface: &Interface,
) -> Result<Vec<PathBuf>, ExportError> {
    check_file_name(name)?;
    block.validate().map_err(ExportError::Instance)?;
    let n = block.r1cs.num_vars();
    // new_of[old]: the circuit's wire of each variable of z.
    let mut order = vec![0];
    order.extend(&interface.outputs);
    order.extend(&interface.public_inputs);
    order.extend(&interface.private_inputs);
    let mut placed = vec![false; n];
    for &v in &order {
        if v >= n || std::mem::replace(&mut placed[v], true) {
            return Err(ExportError::BadInterface(format!(
                "variable {v} is out of range or listed twice"
            )));
        }
    }
    order.extend((0..n).filter(|&v| !placed[v]));
    if interface.names.len() != n {
        return Err(ExportError::BadInterface(format!(
            "{} names for {n} variables",
            interface.names.len()
        )));
    }
    let mut new_of = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    if block.executions.len() > 1 {
        return Err(ExportError::BadInterface(format!(
            "a one-block program runs its block once, not {} times",
            block.executions.len()
        )));
    }
    let vis = Visibility {
        pub_out: interface.outputs.len(),
        pub_in: interface.public_inputs.len(),
        prv_in: interface.private_inputs.len(),
    };
    // Each file is written as it is made: the circuit's rows are renumbered one at a time.
    let r1cs_path = dir.join(format!("{name}.r1cs"));
    write_file_with(dir, &r1cs_path, |out, io| {
        write_r1cs_to(out, &block.r1cs, vis, Some(&new_of), io)
    })?;
    let sym_path = dir.join(format!("{name}.sym"));
    write_file_with(dir, &sym_path, |out, io| {
        for (new, &old) in order.iter().enumerate().skip(1) {
            writeln!(out, "{new},{new},0,{}", interface.names[old]).map_err(io)?;
        }
        Ok(())
    })?;
    let mut written = vec![r1cs_path, sym_path];
    if let Some(z) = block.executions.first() {
        let mut wtns = WtnsWriter::create(dir, name, n)?;
        let permuted: Vec<Fr> = order.iter().map(|&old| z[old]).collect();
        wtns.push(&[&permuted])?;
        written.push(wtns.finish()?.0);
    }
    Ok(written)
}
