//! A block export streamed to disk (`zkbc export` of a program with more than one block): each
//! executed block's `.r1cs` is written when the block first runs, and every execution is
//! appended to its block's `.wtns` as the walk over the trace assigns it, so a run of 10^6
//! executions is never held whole. `manifest.json` then says which file and byte hold each
//! execution, in run order (see [`crate::export`]).

use super::{instance_name, sparse_r1cs, state_wires};
use crate::export::{self, ExportError, ManifestBlock, WtnsWriter};
use crate::ir::{interp, Program};
use crate::{prove, r1cs};
use std::fmt;
use std::path::{Path, PathBuf};

/// What a block export wrote for one block.
#[derive(Clone, Debug)]
pub struct ExportedBlock {
    /// The block's instance name (the files' stem).
    pub name: String,
    /// Its constraints.
    pub constraints: usize,
    /// Executions in its `.wtns` (0: none was written).
    pub executions: usize,
}

/// What a block export wrote.
#[derive(Clone, Debug)]
pub struct BlockExport {
    /// Per block, in order of first execution (without a run: every block of the circuit).
    pub blocks: Vec<ExportedBlock>,
    /// The manifest's path.
    pub manifest: PathBuf,
}

/// Why a block export failed.
#[derive(Debug)]
pub enum BlockExportError {
    /// A block could not be lowered or assigned.
    Check(r1cs::CheckError),
    /// A file could not be written, or a block does not fit the formats.
    Export(ExportError),
}

impl fmt::Display for BlockExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockExportError::Check(e) => write!(f, "{e}"),
            BlockExportError::Export(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BlockExportError {}

impl From<r1cs::CheckError> for BlockExportError {
    fn from(e: r1cs::CheckError) -> Self {
        BlockExportError::Check(e)
    }
}

impl From<ExportError> for BlockExportError {
    fn from(e: ExportError) -> Self {
        BlockExportError::Export(e)
    }
}

/// Writes the block export of `program` into `dir`: with a run, every executed block's
/// `.r1cs` and `.wtns` (its executions in run order) and the manifest of the run; without one,
/// every block's `.r1cs` and a manifest with no executions. `progress` is told the executions
/// written so far. `program_name` is what the manifest calls the program.
pub fn export_blocks(
    program: &Program,
    outcome: Option<&interp::Outcome>,
    dir: &Path,
    program_name: &str,
    lower: r1cs::LowerOptions,
    progress: Option<&dyn Fn(usize)>,
) -> Result<BlockExport, BlockExportError> {
    let Some(outcome) = outcome else {
        let systems = super::block_systems(program, lower)
            .map_err(|e| BlockExportError::Check(r1cs::CheckError::Lower(e)))?;
        for inst in &systems {
            export::write_r1cs(dir, &inst.name, &inst.r1cs)?;
        }
        let blocks: Vec<ManifestBlock<'_>> = systems
            .iter()
            .map(|instance| ManifestBlock {
                instance,
                executions: 0,
            })
            .collect();
        let manifest = export::write_manifest(dir, program_name, &blocks, &[])?;
        return Ok(BlockExport {
            blocks: systems.iter().map(|i| exported(i, 0)).collect(),
            manifest,
        });
    };
    // Per block in order of first execution: its instance (no executions) and open `.wtns`.
    let mut instances: Vec<prove::BlockInstance> = Vec::new();
    let mut writers: Vec<WtnsWriter> = Vec::new();
    let mut index = crate::fxhash::FxMap::default();
    // Every execution in run order: (block, its number in the block's file).
    let mut order: Vec<(usize, usize)> = Vec::with_capacity(outcome.trace.len());
    let one = [crate::field::Fr::from(1u64)];
    r1cs::try_for_each_execution(
        program,
        outcome,
        r1cs::CheckOptions {
            progress,
            lower,
            ..r1cs::CheckOptions::default()
        },
        |_, blk, asg| -> Result<(), BlockExportError> {
            let key = (blk.func_id(), blk.block());
            let i = match index.get(&key) {
                Some(&i) => i,
                None => {
                    let inst = prove::BlockInstance {
                        name: instance_name(program, blk),
                        source: program.block_source(blk.func_id(), blk.block()),
                        state: Some(state_wires(blk)),
                        r1cs: sparse_r1cs(blk),
                        executions: Vec::new(),
                    };
                    export::write_r1cs(dir, &inst.name, &inst.r1cs)?;
                    writers.push(WtnsWriter::create(dir, &inst.name, inst.r1cs.num_vars())?);
                    instances.push(inst);
                    index.insert(key, instances.len() - 1);
                    instances.len() - 1
                }
            };
            order.push((i, writers[i].executions()));
            writers[i].push(&[&one, &asg.instance, &asg.witness])?;
            Ok(())
        },
    )?;
    let mut counts = Vec::with_capacity(writers.len());
    for writer in writers {
        counts.push(writer.finish()?.1);
    }
    let blocks: Vec<ManifestBlock<'_>> = instances
        .iter()
        .zip(&counts)
        .map(|(instance, &executions)| ManifestBlock {
            instance,
            executions,
        })
        .collect();
    let manifest = export::write_manifest(dir, program_name, &blocks, &order)?;
    Ok(BlockExport {
        blocks: instances
            .iter()
            .zip(&counts)
            .map(|(i, &n)| exported(i, n))
            .collect(),
        manifest,
    })
}

fn exported(inst: &prove::BlockInstance, executions: usize) -> ExportedBlock {
    ExportedBlock {
        name: inst.name.clone(),
        constraints: inst.r1cs.num_constraints(),
        executions,
    }
}
