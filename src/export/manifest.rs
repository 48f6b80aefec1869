//! A block export's `manifest.json`, as the `export` module doc describes it: per block its
//! files and its state wires, then every execution in the order the program ran them, one line
//! each.

use super::{wtns_offset, ExportError};
use crate::prove::BlockInstance;
use std::path::{Path, PathBuf};

/// A block of a block export as its manifest names it: the instance (its executions are not
/// read) and how many executions its `.wtns` holds.
#[derive(Clone, Copy)]
pub struct ManifestBlock<'a> {
    /// The block's instance: name, source, system and state wires.
    pub instance: &'a BlockInstance,
    /// Executions written to `NAME.wtns` (0: no `.wtns`).
    pub executions: usize,
}

/// Writes `DIR/manifest.json` for the blocks of a block export (see the module docs):
/// `executions` lists, in the order the program ran them, each execution as (index into
/// `blocks`, execution number within it). Returns the path written.
pub fn write_manifest(
    dir: &Path,
    program: &str,
    blocks: &[ManifestBlock<'_>],
    executions: &[(usize, usize)],
) -> Result<PathBuf, ExportError> {
    use std::io::Write;
    let range = |r: std::ops::Range<usize>| serde_json::json!([r.start, r.len()]);
    let mut listed = Vec::with_capacity(blocks.len());
    for b in blocks {
        let inst = b.instance;
        let wires = match inst.state {
            Some(state) if state.width() == inst.r1cs.num_instance => serde_json::json!({
                "one": 0,
                "input_label": state.input_label(),
                "input_state": range(state.input_values()),
                "memory_accesses": range(state.access_values()),
                "output_label": state.output_label(),
                "output_state": range(state.output_values()),
            }),
            Some(state) => {
                return Err(ExportError::BadInterface(format!(
                    "block {}: its state describes {} instance variables, it has {}",
                    inst.name,
                    state.width(),
                    inst.r1cs.num_instance
                )))
            }
            None => serde_json::Value::Null,
        };
        listed.push(serde_json::json!({
            "name": inst.name,
            "source": inst.source,
            "r1cs": format!("{}.r1cs", inst.name),
            "constraints": inst.r1cs.num_constraints(),
            "public_wires": inst.r1cs.num_instance,
            "wires": wires,
            "witnesses": (b.executions > 0).then(|| format!("{}.wtns", inst.name)),
            "executions": b.executions,
        }));
    }
    // Pretty-printed but for `executions`, one line each: a run of 10^6 executions is 10^6
    // lines, not 6·10^6.
    let json = |v: &serde_json::Value| serde_json::to_string(v).expect("bug: JSON serializes");
    let pretty = serde_json::to_string_pretty(&serde_json::Value::Array(listed))
        .expect("bug: JSON values serialize")
        .replace('\n', "\n  ");
    let path = dir.join("manifest.json");
    let io = |source| ExportError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
    write!(
        out,
        "{{\n  \"format\": \"zkbc block export 2\",\n  \"program\": {},\n  \"field\": \"bn254\",\n  \
         \"blocks\": {pretty},\n  \"executions\": [",
        json(&program.into())
    )
    .map_err(io)?;
    let mut first = true;
    for &(i, k) in executions {
        let Some(b) = blocks.get(i) else { continue };
        let inst = b.instance;
        let line = format!(
            "{}\n    {{\"block\": {}, \"witness\": {}, \"execution\": {k}, \"offset\": {}}}",
            if first { "" } else { "," },
            json(&inst.name.as_str().into()),
            json(&format!("{}.wtns", inst.name).into()),
            wtns_offset(inst.r1cs.num_vars(), k)
        );
        out.write_all(line.as_bytes()).map_err(io)?;
        first = false;
    }
    out.write_all(if first { b"]\n}\n" } else { b"\n  ]\n}\n" })
        .map_err(io)?;
    out.flush().map_err(io)?;
    Ok(path)
}
