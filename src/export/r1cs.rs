//! The `.r1cs` file (version 1) of a constraint system, as the `export` module doc lays it out:
//! streamed row by row, each variable renumbered to its wire when a circuit asks for circom's
//! order.

use super::{
    check_file_name, container_head, count_u32, prime_bytes, section_head, write_file_with,
    ExportError, N8,
};
use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use crate::prove::SparseR1cs;
use std::path::{Path, PathBuf};

/// Writes `DIR/NAME.r1cs` alone (a block export writes each block's system as soon as the
/// block first runs, then streams its executions into a [`WtnsWriter`](super::WtnsWriter)).
pub fn write_r1cs(dir: &Path, name: &str, r1cs: &SparseR1cs) -> Result<PathBuf, ExportError> {
    check_file_name(name)?;
    let path = dir.join(format!("{name}.r1cs"));
    let vis = Visibility {
        pub_out: 0,
        pub_in: r1cs.num_instance,
        prv_in: 0,
    };
    write_file_with(dir, &path, |out, io| {
        write_r1cs_to(out, r1cs, vis, None, io)
    })?;
    Ok(path)
}

/// The `.r1cs` file of a constraint system (see the module docs for the layout): every instance
/// variable a public input. The system should be validated (rows sorted, variables in range);
/// this only checks the 32-bit counts.
pub fn r1cs_bytes(r1cs: &SparseR1cs) -> Result<Vec<u8>, ExportError> {
    r1cs_bytes_with(
        r1cs,
        Visibility {
            pub_out: 0,
            pub_in: r1cs.num_instance,
            prv_in: 0,
        },
    )
}

/// How many wires after the constant one are public outputs, public inputs and private inputs
/// (in that order); the rest are internal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Visibility {
    pub(super) pub_out: usize,
    pub(super) pub_in: usize,
    pub(super) prv_in: usize,
}

fn r1cs_bytes_with(r1cs: &SparseR1cs, vis: Visibility) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    write_r1cs_to(&mut out, r1cs, vis, None, &|e| ExportError::Io {
        path: PathBuf::new(),
        source: e,
    })?;
    Ok(out)
}

/// Writes the `.r1cs` file of `r1cs` to `out` as it goes, without building it in memory: each
/// variable `v` is wire `wire_of[v]` (the identity without `wire_of`), each row re-sorted by
/// wire. `io` says which file a write error was about.
pub(super) fn write_r1cs_to(
    out: &mut impl std::io::Write,
    r1cs: &SparseR1cs,
    vis: Visibility,
    wire_of: Option<&[usize]>,
    io: &dyn Fn(std::io::Error) -> ExportError,
) -> Result<(), ExportError> {
    let n_wires = count_u32("wires", r1cs.num_vars())?;
    let n_pub_out = count_u32("wires", vis.pub_out)?;
    let n_pub_in = count_u32("wires", vis.pub_in)?;
    let n_prv_in = count_u32("wires", vis.prv_in)?;
    let n_constraints = count_u32("constraints", r1cs.num_constraints())?;

    let mut header = Vec::with_capacity(4 + 32 + 4 * 4 + 8 + 4);
    header.extend_from_slice(&N8.to_le_bytes());
    header.extend_from_slice(&prime_bytes());
    header.extend_from_slice(&n_wires.to_le_bytes());
    header.extend_from_slice(&n_pub_out.to_le_bytes());
    header.extend_from_slice(&n_pub_in.to_le_bytes());
    header.extend_from_slice(&n_prv_in.to_le_bytes());
    header.extend_from_slice(&u64::from(n_wires).to_le_bytes()); // nLabels
    header.extend_from_slice(&n_constraints.to_le_bytes());

    // The constraints section: per row of A, B and C, a term count, then 4 + 32 bytes a term.
    let matrices = [&r1cs.a, &r1cs.b, &r1cs.c];
    let mut constraints_size = 0u64;
    for m in matrices {
        for row in m.rows() {
            count_u32("terms in one row", row.len())?;
            constraints_size += 4 + 36 * row.len() as u64;
        }
    }
    let map_size = 8 * u64::from(n_wires);

    let mut head = Vec::with_capacity(12 + 12 + header.len() + 12);
    container_head(&mut head, b"r1cs", 1, 3);
    section_head(&mut head, 1, header.len() as u64);
    head.extend_from_slice(&header);
    section_head(&mut head, 2, constraints_size);
    out.write_all(&head).map_err(io)?;

    let mut terms: Vec<(usize, Fr)> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    for k in 0..r1cs.num_constraints() {
        bytes.clear();
        for m in matrices {
            terms.clear();
            match wire_of {
                Some(w) => {
                    terms.extend(m.row(k).iter().map(|(v, c)| (w[v], c)));
                    terms.sort_unstable_by_key(|&(v, _)| v);
                }
                None => terms.extend(m.row(k).iter()),
            }
            write_lc(&mut bytes, &terms)?;
        }
        out.write_all(&bytes).map_err(io)?;
    }

    let mut map = Vec::with_capacity(12 + 8 * 4096);
    section_head(&mut map, 3, map_size);
    for wire in 0..u64::from(n_wires) {
        map.extend_from_slice(&wire.to_le_bytes());
        if map.len() >= 8 * 4096 {
            out.write_all(&map).map_err(io)?;
            map.clear();
        }
    }
    out.write_all(&map).map_err(io)?;
    Ok(())
}

fn write_lc(out: &mut Vec<u8>, row: &[(usize, Fr)]) -> Result<(), ExportError> {
    out.extend_from_slice(&count_u32("terms in one row", row.len())?.to_le_bytes());
    for (var, coeff) in row {
        out.extend_from_slice(&count_u32("wires", *var)?.to_le_bytes());
        out.extend_from_slice(&fr_to_bytes_le(coeff));
    }
    Ok(())
}
