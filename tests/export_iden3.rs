//! The iden3 `.r1cs` / `.wtns` writers, read back by an independent parser written from the
//! format description (little-endian counts, 32-byte standard-form field elements).

use ark_ff::PrimeField;
use std::collections::BTreeMap;
use zkbc::export::{r1cs_bytes, single_wtns, write_block, wtns_bytes, wtns_offset, ExportError};
use zkbc::field::Fr;
use zkbc::prove::{BlockInstance, SparseR1cs, SparseRow};
use zkbc_testkit::synthetic;

/// A reader over a byte slice that fails the test on truncation.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        slice
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().unwrap())
    }
    fn field(&mut self) -> Fr {
        let bytes = self.take(32);
        // Standard form: the canonical integer, which must be below p.
        let value = Fr::from_le_bytes_mod_order(bytes);
        assert_eq!(zkbc::prove::transcript::fr_to_bytes_le(&value), bytes);
        value
    }
}

/// Magic, version and sections by type (each type once).
fn sections<'a>(bytes: &'a [u8], magic: &[u8; 4], version: u32) -> BTreeMap<u32, &'a [u8]> {
    let mut r = Reader { bytes, pos: 0 };
    assert_eq!(r.take(4), magic);
    assert_eq!(r.u32(), version);
    let n = r.u32();
    let mut out = BTreeMap::new();
    for _ in 0..n {
        let kind = r.u32();
        let size = r.u64() as usize;
        assert!(
            out.insert(kind, r.take(size)).is_none(),
            "section {kind} twice"
        );
    }
    assert_eq!(r.pos, bytes.len(), "trailing bytes");
    out
}

fn prime() -> Vec<u8> {
    use ark_ff::BigInteger;
    Fr::MODULUS.to_bytes_le()
}

/// Parses an `.r1cs` file back into (header counts, system).
fn read_r1cs(bytes: &[u8]) -> ([u32; 4], u64, SparseR1cs) {
    let sections = sections(bytes, b"r1cs", 1);
    assert_eq!(sections.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    let mut h = Reader {
        bytes: sections[&1],
        pos: 0,
    };
    assert_eq!(h.u32(), 32);
    assert_eq!(h.take(32), prime().as_slice());
    let counts = [h.u32(), h.u32(), h.u32(), h.u32()]; // wires, pubOut, pubIn, prvIn
    let labels = h.u64();
    let m = h.u32() as usize;
    assert_eq!(h.pos, sections[&1].len());

    let mut c = Reader {
        bytes: sections[&2],
        pos: 0,
    };
    let mut read_lc = || -> SparseRow {
        let nnz = c.u32();
        (0..nnz)
            .map(|_| (c.u32() as usize, c.field()))
            .collect::<Vec<_>>()
    };
    let mut r1cs = SparseR1cs {
        num_instance: (counts[1] + counts[2]) as usize,
        num_witness: (counts[0] - 1 - counts[1] - counts[2]) as usize,
        ..SparseR1cs::default()
    };
    for _ in 0..m {
        r1cs.a.push_row(read_lc());
        r1cs.b.push_row(read_lc());
        r1cs.c.push_row(read_lc());
    }
    assert_eq!(c.pos, sections[&2].len());

    let mut map = Reader {
        bytes: sections[&3],
        pos: 0,
    };
    for wire in 0..labels {
        assert_eq!(map.u64(), wire);
    }
    assert_eq!(map.pos, sections[&3].len());
    (counts, labels, r1cs)
}

fn read_wtns(bytes: &[u8]) -> Vec<Fr> {
    let sections = sections(bytes, b"wtns", 2);
    assert_eq!(sections.keys().copied().collect::<Vec<_>>(), [1, 2]);
    let mut h = Reader {
        bytes: sections[&1],
        pos: 0,
    };
    assert_eq!(h.u32(), 32);
    assert_eq!(h.take(32), prime().as_slice());
    let n = h.u32() as usize;
    assert_eq!(sections[&2].len(), 32 * n);
    let mut w = Reader {
        bytes: sections[&2],
        pos: 0,
    };
    (0..n).map(|_| w.field()).collect()
}

#[test]
fn r1cs_round_trips_with_circom_wire_layout() {
    let block = synthetic::block("b", 9, 2, 3);
    let bytes = r1cs_bytes(&block.r1cs).unwrap();
    let (counts, labels, back) = read_r1cs(&bytes);
    // wires = 1 + 2 instance + 8 witness; instance as public inputs; witness internal.
    assert_eq!(counts, [11, 0, 2, 0]);
    assert_eq!(labels, 11);
    assert_eq!(back, block.r1cs);
}

#[test]
fn header_bytes_are_exactly_as_specified() {
    // x·x = y over z = [1, x, y]: small enough to write out by hand.
    let r1cs = SparseR1cs {
        num_instance: 2,
        num_witness: 0,
        a: vec![vec![(1, Fr::from(1u64))]].into(),
        b: vec![vec![(1, Fr::from(1u64))]].into(),
        c: vec![vec![(2, Fr::from(2u64))]].into(),
    };
    let bytes = r1cs_bytes(&r1cs).unwrap();
    assert_eq!(&bytes[..12], b"r1cs\x01\0\0\0\x03\0\0\0");
    // Section 1 (header) of 64 bytes: n8, prime, 3 wires, 0 out, 2 pub in, 0 prv, 3 labels, 1.
    assert_eq!(&bytes[12..24], &[1, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&bytes[24..28], &[32, 0, 0, 0]);
    assert_eq!(&bytes[28..60], prime().as_slice());
    let tail: Vec<u8> = [3u32, 0, 2, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .chain(3u64.to_le_bytes())
        .chain(1u32.to_le_bytes())
        .collect();
    assert_eq!(&bytes[60..88], tail.as_slice());
    // Section 2: three LCs of one term, each 4 + 4 + 32 bytes.
    assert_eq!(&bytes[88..100], &[2, 0, 0, 0, 120, 0, 0, 0, 0, 0, 0, 0]);
    // C's coefficient 2 in standard (not Montgomery) form: 0x02 then zeros.
    let c_value = &bytes[100 + 80 + 8..100 + 120];
    assert_eq!(c_value[0], 2);
    assert!(c_value[1..].iter().all(|&b| b == 0));
    assert_eq!(bytes.len(), 100 + 120 + 12 + 3 * 8);
}

#[test]
fn wtns_round_trips() {
    let z = vec![Fr::from(1u64), -Fr::from(1u64), Fr::from(12345u64)];
    let bytes = wtns_bytes(&z).unwrap();
    assert_eq!(&bytes[..12], b"wtns\x02\0\0\0\x02\0\0\0");
    assert_eq!(read_wtns(&bytes), z);
}

/// A block's `.wtns` of several executions: the header, then each execution as a section of
/// its own in order (type 2 for the first, the one snarkjs reads; type 3 after), each
/// starting at `wtns_offset`.
fn read_block_wtns(bytes: &[u8]) -> Vec<Vec<Fr>> {
    let mut r = Reader { bytes, pos: 0 };
    assert_eq!(r.take(4), b"wtns");
    assert_eq!(r.u32(), 2);
    let n_sections = r.u32() as usize;
    assert_eq!(r.u32(), 1, "the header comes first");
    assert_eq!(r.u64(), 40);
    assert_eq!(r.u32(), 32);
    assert_eq!(r.take(32), prime().as_slice());
    let n = r.u32() as usize;
    let mut executions = Vec::new();
    for k in 0..n_sections - 1 {
        assert_eq!(
            r.u32(),
            if k == 0 { 2 } else { 3 },
            "section of execution {k}"
        );
        assert_eq!(r.u64() as usize, 32 * n);
        assert_eq!(r.pos as u64, wtns_offset(n, k));
        executions.push((0..n).map(|_| r.field()).collect());
    }
    assert_eq!(r.pos, bytes.len(), "trailing bytes");
    executions
}

#[test]
fn write_block_writes_one_r1cs_and_one_wtns_of_every_execution() {
    let dir = tempfile::tempdir().unwrap();
    let block = synthetic::block("ignored", 5, 3, 11);
    assert!(block.executions.len() > 1);
    let out = dir.path().join("nested");
    let paths = write_block(&out, "b7", &block).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["b7.r1cs", "b7.wtns"]);
    let (_, _, r1cs) = read_r1cs(&std::fs::read(&paths[0]).unwrap());
    assert_eq!(r1cs, block.r1cs);
    let bytes = std::fs::read(&paths[1]).unwrap();
    assert_eq!(read_block_wtns(&bytes), block.executions);
    // Each execution alone, as a one-witness file.
    for (k, z) in block.executions.iter().enumerate() {
        let single = single_wtns(&bytes, k).expect("execution k");
        assert_eq!(read_wtns(&single), *z);
        assert_eq!(single, wtns_bytes(z).unwrap());
    }
    assert_eq!(single_wtns(&bytes, block.executions.len()), None);
    // A block that never ran has no witness file.
    let mut idle = block.clone();
    idle.executions.clear();
    let paths = write_block(&dir.path().join("idle"), "b8", &idle).unwrap();
    assert_eq!(paths.len(), 1);
}

#[test]
fn write_block_refuses_bad_names_and_malformed_instances() {
    let dir = tempfile::tempdir().unwrap();
    let block = synthetic::block("b", 3, 1, 1);
    assert!(matches!(
        write_block(dir.path(), "../escape", &block),
        Err(ExportError::BadName(name)) if name == "../escape"
    ));
    let mut broken: BlockInstance = block.clone();
    broken.executions[0].pop();
    let error = write_block(dir.path(), "b", &broken).unwrap_err();
    assert_eq!(
        error.to_string(),
        "block b: execution 0 assigns 4 variables, the instance has 5"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
