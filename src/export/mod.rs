//! Export of block instances to the iden3 binary formats that circom writes and snarkjs reads:
//! `.r1cs` for a constraint system and `.wtns` for one assignment.
//!
//! # Wires
//!
//! Wire `i` is `z[i]` of `z = [1, instance..., witness...]`: wire 0 is the constant one, as
//! in circom. The instance variables (the block's transition state in and out) are all
//! *public inputs* (`nPubIn = num_instance`, `nPubOut = 0`): an instance does not say which
//! of its variables are outputs, and for a proving system both kinds are simply public. The
//! witness variables are internal wires (`nPrvIn = 0`). Every wire has the label of its own
//! index (`nLabels = nWires`).
//!
//! # `.r1cs` (version 1)
//!
//! All integers are little-endian; field elements are `n8 = 32` bytes, little-endian, in
//! *standard* form (the canonical integer in `[0, p)`, not Montgomery form: snarkjs reads them
//! with `fromRprLE`).
//!
//! ```text
//! "r1cs"  u32 version = 1  u32 nSections = 3
//! section := u32 type  u64 size  bytes[size]
//! 1 header:      u32 n8 = 32 · prime[n8] · u32 nWires · u32 nPubOut · u32 nPubIn · u32 nPrvIn
//!                · u64 nLabels · u32 mConstraints
//! 2 constraints: per constraint, A then B then C, each u32 nnz · nnz × (u32 wire, value[n8])
//! 3 wire map:    nWires × u64 label
//! ```
//!
//! # `.wtns` (version 2)
//!
//! ```text
//! "wtns"  u32 version = 2  u32 nSections = 2
//! 1 header:  u32 n8 = 32 · prime[n8] · u32 nWitness
//! 2 witness: nWitness × value[n8]
//! ```
//!
//! # A block's executions in one `.wtns` ([`write_block`], [`WtnsWriter`])
//!
//! A block that runs 100,000 times is one `NAME.r1cs` and one `NAME.wtns`, not 100,000
//! files. The `.wtns` is the same container with one more section per further execution, in
//! the order the program ran them:
//!
//! ```text
//! "wtns"  u32 version = 2  u32 nSections = 1 + E
//! 1 header:           u32 n8 = 32 · prime[n8] · u32 nWitness
//! 2 witness:          execution 0, nWitness × value[n8]
//! 3 more executions:  execution k (k = 1 .. E−1), nWitness × value[n8], one section each
//! ```
//!
//! Execution 0 is the file's one type-2 section, so snarkjs reads the file unchanged as a
//! witness of execution 0 (`snarkjs wtns check NAME.r1cs NAME.wtns`); it skips section types
//! it does not know. (Repeating type 2 would not do: snarkjs refuses a file with a duplicated
//! section.) Execution k's values start at byte [`wtns_offset`]`(nWitness, k)`, and the
//! file's first 64 bytes followed by a type-2 section holding them are a `.wtns` of that
//! execution alone, for a tool that reads only type 2 ([`single_wtns`]).
//!
//! `snarkjs r1cs info NAME.r1cs` reads the `.r1cs`, `snarkjs wtns check NAME.r1cs NAME.wtns`
//! checks an assignment against it; `tests/export_snarkjs.rs` runs both, on every execution.
//!
//! # The manifest of a block export ([`write_manifest`])
//!
//! `manifest.json` beside the files says what they are: the program, and per block its files
//! (`r1cs`, `witnesses`: the `.wtns` or null when it did not run, and `executions`, how many
//! it holds), the source lines it came from, and which wires are its transition state:
//! `input_label`, `input_state` (first wire and count), `memory_accesses`, `output_label`,
//! `output_state`; wire 0 is the constant one and every wire after the instance is private
//! witness. `executions` lists every execution in the order the program ran them, one per
//! line: `block`, `witness` (the file), `execution` (its number in the file: execution k is
//! the file's section k + 1, counting the header as section 0) and `offset` (the byte where
//! its values start). The output state of one is the input state of the next (the transition
//! the prover checks), and the last one's output label is 0 (return). Every instance wire is
//! public in the `.r1cs` files, so the state (and main's inputs in the entry block's) is
//! public to a proof of these blocks.
//!
//! # One circuit with a declared interface ([`write_circuit`])
//!
//! A program that is one block (`--monolithic`) is exported as the circuit of `main`, as circom
//! orders a circuit's wires: the constant one, then the public outputs, the public inputs, the
//! private inputs, and every other wire (the block's labels and its witness). The header says
//! `nPubOut`, `nPubIn` and `nPrvIn` accordingly, so a Groth16 setup on it makes exactly the
//! outputs and the public inputs public (`public.json`), and nothing else. `NAME.sym` names
//! each wire (`labelIdx,varIdx,componentIdx,name` per line, as circom writes it: `main.a`,
//! `main.d[1]`, `main.~out[0]`), so `snarkjs r1cs print NAME.r1cs NAME.sym` reads.

use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use crate::prove::{BlockInstance, InstanceError, SparseR1cs};
use ark_ff::{BigInteger, PrimeField};
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Bytes per field element in both formats.
const N8: u32 = 32;

/// Why an export failed.
#[derive(Debug)]
pub enum ExportError {
    /// The instance or an execution is malformed.
    Instance(InstanceError),
    /// A count does not fit the format's 32-bit field.
    TooLarge {
        /// What overflowed (`wires`, `constraints`, `terms in one row`).
        what: &'static str,
        /// Its value.
        count: usize,
    },
    /// The interface given for a one-block circuit does not fit its instance.
    BadInterface(String),
    /// The block name cannot be a file name (it must be non-empty ASCII letters, digits,
    /// `_`, `-` or `.`, not starting with `.`).
    BadName(String),
    /// Writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Instance(error) => write!(f, "{error}"),
            ExportError::TooLarge { what, count } => {
                write!(f, "{count} {what} do not fit the format's 32-bit count")
            }
            ExportError::BadInterface(why) => write!(f, "bug: circuit interface: {why}"),
            ExportError::BadName(name) => write!(
                f,
                "block name {name:?} cannot name a file (use letters, digits, _, - and .)"
            ),
            ExportError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::Instance(error) => Some(error),
            ExportError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Writes `DIR/NAME.r1cs` and, when the block ran, `DIR/NAME.wtns` holding every execution in
/// order (see the module docs), creating `dir` if needed, and returns the paths written, the
/// `.r1cs` first. The instance is validated first; satisfaction is not checked, so an
/// unsatisfied execution exports as it is.
pub fn write_block(
    dir: &Path,
    name: &str,
    block: &BlockInstance,
) -> Result<Vec<PathBuf>, ExportError> {
    check_file_name(name)?;
    block.validate().map_err(ExportError::Instance)?;
    let mut written = vec![write_r1cs(dir, name, &block.r1cs)?];
    if !block.executions.is_empty() {
        let mut wtns = WtnsWriter::create(dir, name, block.r1cs.num_vars())?;
        for z in &block.executions {
            wtns.push(&[z])?;
        }
        written.push(wtns.finish()?.0);
    }
    Ok(written)
}

/// Writes `DIR/NAME.r1cs` alone (a block export writes each block's system as soon as the
/// block first runs, then streams its executions into a [`WtnsWriter`]).
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

/// Creates `dir` if needed and writes `path` through a buffer with `write`, which is told how
/// to report an I/O error on this file.
fn write_file_with(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(
        &mut std::io::BufWriter<std::fs::File>,
        &dyn Fn(std::io::Error) -> ExportError,
    ) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let io = |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    write(&mut out, &io)?;
    std::io::Write::flush(&mut out).map_err(io)
}

/// The byte at which execution `k`'s values start in a block's `.wtns` of `n_witness` wires
/// (magic, version and count, 12 bytes; the header section, 12 + 40; then per execution a
/// 12-byte section header and its values).
pub fn wtns_offset(n_witness: usize, k: usize) -> u64 {
    let execution = 12 + 32 * n_witness as u64;
    12 + 52 + k as u64 * execution + 12
}

/// Writes a block's `.wtns` execution by execution, so a long run's witnesses are never held
/// whole: [`WtnsWriter::push`] appends one section, [`WtnsWriter::finish`] writes the section
/// count into the file's head.
pub struct WtnsWriter {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    n_witness: usize,
    executions: usize,
}

impl WtnsWriter {
    /// Creates `DIR/NAME.wtns` (and `dir` if needed) for assignments of `n_witness` wires and
    /// writes its head and header section.
    pub fn create(dir: &Path, name: &str, n_witness: usize) -> Result<WtnsWriter, ExportError> {
        check_file_name(name)?;
        let n = count_u32("wires", n_witness)?;
        std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(format!("{name}.wtns"));
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        let mut writer = WtnsWriter {
            path,
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            n_witness,
            executions: 0,
        };
        let mut head = Vec::with_capacity(64);
        // The section count is rewritten by `finish`.
        container_head(&mut head, b"wtns", 2, 1);
        section_head(&mut head, 1, 40);
        head.extend_from_slice(&N8.to_le_bytes());
        head.extend_from_slice(&prime_bytes());
        head.extend_from_slice(&n.to_le_bytes());
        writer.write(&head)?;
        Ok(writer)
    }

    /// Appends one execution, the concatenation of `parts` (e.g. `[1]`, the instance, the
    /// witness), which must be `n_witness` values.
    pub fn push(&mut self, parts: &[&[Fr]]) -> Result<(), ExportError> {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        if n != self.n_witness {
            return Err(ExportError::BadInterface(format!(
                "{}: an execution of {n} values in a file of {} wires",
                self.path.display(),
                self.n_witness
            )));
        }
        let kind: u32 = if self.executions == 0 { 2 } else { 3 };
        let mut section = Vec::with_capacity(12 + 32 * n);
        section_head(&mut section, kind, 32 * n as u64);
        for value in parts.iter().flat_map(|p| p.iter()) {
            for limb in value.into_bigint().0 {
                section.extend_from_slice(&limb.to_le_bytes());
            }
        }
        self.write(&section)?;
        self.executions += 1;
        Ok(())
    }

    /// Executions written so far.
    pub fn executions(&self) -> usize {
        self.executions
    }

    /// Writes the section count and closes the file; returns its path and executions.
    pub fn finish(mut self) -> Result<(PathBuf, usize), ExportError> {
        use std::io::{Seek, SeekFrom, Write};
        let sections = count_u32("sections", 1 + self.executions)?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ExportError::Io { path, source }
        };
        self.file.flush().map_err(io(&self.path))?;
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(8)).map_err(io(&self.path))?;
        file.write_all(&sections.to_le_bytes())
            .map_err(io(&self.path))?;
        Ok((self.path, self.executions))
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ExportError> {
        use std::io::Write;
        self.file
            .write_all(bytes)
            .map_err(|source| ExportError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

/// Execution `k` of a block's `.wtns` (the file's bytes) as a `.wtns` of its own, for tools
/// that read a witness from the type-2 section only; `None` when the file has no execution
/// `k` or is not a block's `.wtns`.
pub fn single_wtns(bytes: &[u8], k: usize) -> Option<Vec<u8>> {
    let u32_at = |p: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(p..p + 4)?.try_into().ok()?) as usize)
    };
    if bytes.get(..4)? != b"wtns" || u32_at(12)? != 1 || u32_at(24)? != N8 as usize {
        return None;
    }
    let n_witness = u32_at(60)?;
    if k + 1 >= u32_at(8)? {
        return None;
    }
    let at = usize::try_from(wtns_offset(n_witness, k)).ok()?;
    let values = bytes.get(at..at + 32 * n_witness)?;
    let mut out = bytes.get(..64)?.to_vec();
    out[8..12].copy_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.extend_from_slice(values);
    Some(out)
}

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
struct Visibility {
    pub_out: usize,
    pub_in: usize,
    prv_in: usize,
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
fn write_r1cs_to(
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

/// The `.wtns` file of one assignment `z` (wire i = `z[i]`).
pub fn wtns_bytes(z: &[Fr]) -> Result<Vec<u8>, ExportError> {
    let n_witness = count_u32("wires", z.len())?;
    let mut header = Vec::with_capacity(4 + 32 + 4);
    header.extend_from_slice(&N8.to_le_bytes());
    header.extend_from_slice(&prime_bytes());
    header.extend_from_slice(&n_witness.to_le_bytes());
    let mut values = Vec::with_capacity(32 * z.len());
    for value in z {
        values.extend_from_slice(&fr_to_bytes_le(value));
    }
    Ok(container(b"wtns", 2, &[(1, &header), (2, &values)]))
}

fn write_lc(out: &mut Vec<u8>, row: &[(usize, Fr)]) -> Result<(), ExportError> {
    out.extend_from_slice(&count_u32("terms in one row", row.len())?.to_le_bytes());
    for (var, coeff) in row {
        out.extend_from_slice(&count_u32("wires", *var)?.to_le_bytes());
        out.extend_from_slice(&fr_to_bytes_le(coeff));
    }
    Ok(())
}

/// The iden3 binary container: magic, version, section count, then each section as
/// `u32 type · u64 size · bytes`.
fn container(magic: &[u8; 4], version: u32, sections: &[(u32, &[u8])]) -> Vec<u8> {
    let size: usize = sections.iter().map(|(_, s)| 12 + s.len()).sum();
    let mut out = Vec::with_capacity(12 + size);
    container_head(&mut out, magic, version, sections.len() as u32);
    for (kind, bytes) in sections {
        section_head(&mut out, *kind, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }
    out
}

/// A container's head: magic, version and section count.
fn container_head(out: &mut Vec<u8>, magic: &[u8; 4], version: u32, sections: u32) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&sections.to_le_bytes());
}

/// A section's head: its type and the size of what follows.
fn section_head(out: &mut Vec<u8>, kind: u32, size: u64) {
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
}

/// p as 32 little-endian bytes.
fn prime_bytes() -> Vec<u8> {
    Fr::MODULUS.to_bytes_le()
}

fn count_u32(what: &'static str, count: usize) -> Result<u32, ExportError> {
    u32::try_from(count).map_err(|_| ExportError::TooLarge { what, count })
}

fn check_file_name(name: &str) -> Result<(), ExportError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ExportError::BadName(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_is_bn254_scalar_field_little_endian() {
        let p = prime_bytes();
        assert_eq!(p.len(), 32);
        // p = 0x30644e72…f0000001
        assert_eq!(p[0], 0x01);
        assert_eq!(p[31], 0x30);
    }

    #[test]
    fn file_names_are_checked() {
        assert!(check_file_name("b3").is_ok());
        assert!(check_file_name("main.b12-x_y").is_ok());
        for bad in ["", ".hidden", "../up", "a/b", "a b", "é"] {
            assert!(check_file_name(bad).is_err(), "{bad:?}");
        }
    }
}
