//! `analysis::repeats` against the seed's definitions, computed another way: on every corpus and
//! application program (after `mem2reg, dce`, as `zkbc query --pattern interface` reads them),
//! each copy's non-constant inputs are exactly the values the PDG's data edges bring into it
//! from outside, its outputs are values a statement outside reads, the copies hold the same
//! instructions, and the control flow enters a copy only at its first statement. Hand-written
//! programs show what is not a repeat.

use crate::common;

use std::collections::BTreeSet;
use zkbc::analysis::repeats::{find_repeats, Repeat, Stmt};
use zkbc::analysis::{Cfg, DepKind, Pdg, PdgNode};
use zkbc::ir::{Function, Program, ValueId};

fn promoted(mut program: Program) -> Program {
    let pipeline = zkbc::opt::Pipeline::from_names(&["mem2reg", "dce"]).unwrap();
    zkbc::opt::optimize(&mut program, &pipeline, &zkbc::opt::Options::default()).unwrap();
    program
}

fn program_of(path: &std::path::Path) -> Program {
    let source = std::fs::read_to_string(path).unwrap();
    let name = path.display().to_string();
    let (program, _) = zkbc::front::compile_source(&name, &source)
        .unwrap_or_else(|d| panic!("{}", d.render(&name, &source)));
    promoted(program)
}

/// The PDG nodes of one copy: its instructions and terminators, and the parameters of the
/// blocks it holds but the one it starts at (whose parameters the jumps from outside bind).
fn nodes(func: &Function, copy: &[Stmt]) -> BTreeSet<PdgNode> {
    let mut out = BTreeSet::new();
    for (k, s) in copy.iter().enumerate() {
        match s {
            Stmt::Params(b) if k > 0 => {
                out.extend(func.block(*b).params.iter().map(|p| PdgNode::Param(*p)))
            }
            Stmt::Params(_) => {}
            Stmt::Inst(i) => {
                out.insert(PdgNode::Inst(*i));
            }
            Stmt::Term(b) => {
                out.insert(PdgNode::Term(*b));
            }
        }
    }
    out
}

/// The values a PDG node defines.
fn defines(func: &Function, n: PdgNode) -> Vec<ValueId> {
    match n {
        PdgNode::Param(v) => vec![v],
        PdgNode::Inst(i) => func.inst(i).results.to_vec(),
        PdgNode::Term(_) => Vec::new(),
    }
}

/// The values a PDG node reads (a parameter reads nothing itself: its jumps do).
fn reads(func: &Function, n: PdgNode) -> Vec<ValueId> {
    match n {
        PdgNode::Param(_) => Vec::new(),
        PdgNode::Inst(i) => func.inst(i).kind.operands(),
        PdgNode::Term(b) => func.block(b).term.as_ref().unwrap().operands(),
    }
}

/// Checks one repeat of `func` against the PDG; returns how many copies were checked.
fn check_repeat(func: &Function, pdg: &Pdg, cfg: &Cfg, r: &Repeat) -> usize {
    let data = pdg.edges(DepKind::Data);
    let opcodes = |copy: &[Stmt]| -> Vec<String> {
        copy.iter()
            .map(|s| match s {
                Stmt::Inst(i) => func.inst(*i).kind.opcode().to_string(),
                other => format!("{other:?}").split('(').next().unwrap().to_string(),
            })
            .collect()
    };
    let first = opcodes(&r.copies[0]);
    for (c, copy) in r.copies.iter().enumerate() {
        assert_eq!(opcodes(copy), first, "copy {c} of {}", func.name);
        let inside = nodes(func, copy);
        // Inputs: what the data edges bring in, against the repeat's non-constant inputs.
        let mut brought = BTreeSet::new();
        let mut taken = BTreeSet::new();
        for (from, to) in &data {
            let (fi, ti) = (inside.contains(from), inside.contains(to));
            let flowing: Vec<ValueId> = defines(func, *from)
                .into_iter()
                .filter(|v| reads(func, *to).contains(v))
                .collect();
            if !fi && ti {
                brought.extend(flowing);
            } else if fi && !ti {
                taken.extend(flowing);
            }
        }
        // The parameters of the block a copy starts at are its inputs (bound from outside).
        if let Some(Stmt::Params(b)) = copy.first() {
            for p in &func.block(*b).params {
                if inside.iter().any(|n| reads(func, *n).contains(p)) {
                    brought.insert(*p);
                }
            }
        }
        let inputs: BTreeSet<ValueId> = r
            .inputs
            .iter()
            .map(|slot| slot[c])
            .filter(|v| !func.is_const(*v))
            .collect();
        assert_eq!(inputs, brought, "inputs of copy {c} of {}", func.name);
        let outputs: BTreeSet<ValueId> = r.outputs.iter().map(|slot| slot[c]).collect();
        assert!(
            taken.is_subset(&outputs),
            "outputs of copy {c} of {}: {taken:?} not in {outputs:?}",
            func.name
        );
        // Entered only at the first statement.
        for (k, s) in copy.iter().enumerate() {
            if let (Stmt::Params(b), true) = (s, k > 0) {
                for p in cfg.predecessors(*b) {
                    assert!(
                        copy.contains(&Stmt::Term(*p)),
                        "{b} of copy {c} of {} entered from {p}",
                        func.name
                    );
                }
            }
        }
    }
    // Every output slot is read outside by some copy.
    for slot in &r.outputs {
        assert!(slot.iter().enumerate().any(|(c, v)| {
            let inside = nodes(func, &r.copies[c]);
            data.iter().any(|(from, to)| {
                inside.contains(from) && !inside.contains(to) && reads(func, *to).contains(v)
            })
        }));
    }
    r.copies.len()
}

#[test]
fn every_repeat_of_the_corpus_and_applications_agrees_with_the_pdg() {
    let mut files = common::corpus();
    files.extend(common::zok_files("circuits/apps"));
    let (mut repeats, mut copies) = (0, 0);
    for file in &files {
        let program = program_of(file);
        for fid in program.func_ids() {
            let func = program.func(fid);
            let found = find_repeats(func);
            if found.is_empty() {
                continue;
            }
            let (pdg, cfg) = (Pdg::new(func), Cfg::new(func));
            for r in &found {
                assert!(r.copies.len() >= 2 && r.insts() >= 4, "{}", file.display());
                copies += check_repeat(func, &pdg, &cfg, r);
                repeats += 1;
            }
        }
    }
    assert!(
        repeats >= 20 && copies >= 200,
        "{repeats} repeats, {copies} copies"
    );
}

/// The generator writes the depth-32 path out as 32 levels (`circuits/apps/generate.py`): one
/// repeat of 32 copies, the running hash carried from level to level, one output.
#[test]
fn a_path_written_out_level_by_level_is_one_repeat_per_level() {
    let program = program_of(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("circuits/apps/poseidon_merkle32_unrolled.zok"),
    );
    let main = program.main_func();
    let found = find_repeats(main);
    let levels = found
        .iter()
        .find(|r| r.copies.len() == 32)
        .expect("a repeat of 32 copies");
    assert_eq!(levels.carried(main), 1);
    assert_eq!(levels.outputs.len(), 1);
    // The level's two hashes (one per direction) are calls of the same function.
    let calls = levels.copies[0]
        .iter()
        .filter(|s| matches!(s, Stmt::Inst(i) if main.inst(*i).kind.opcode() == "call"))
        .count();
    assert_eq!(calls, 2);
}

fn repeats_of_ir(text: &str) -> Vec<Repeat> {
    let program = zkbc::ir::parse_program(text).unwrap();
    zkbc::ir::verify::verify_program(&program).unwrap();
    find_repeats(program.main_func())
}

/// Three copies of `mul, add, mul, add`: a repeat; with a `store` in each, none (an impure
/// statement is in no region), and with the middle copy subtracting, no three-copy repeat.
#[test]
fn impure_or_different_copies_are_not_repeats() {
    let copy = |k: usize, op: &str, store: bool| {
        let (a, b, c, d) = (4 * k + 2, 4 * k + 3, 4 * k + 4, 4 * k + 5);
        let prev = if k == 0 {
            "v0".to_string()
        } else {
            format!("v{}", 4 * k + 1)
        };
        let mut s = format!(
            "    v{a} = mul {prev}, {prev}\n    v{b} = {op} v{a}, v0\n    v{c} = mul v{b}, v{b}\n    v{d} = add v{c}, v0\n"
        );
        if store {
            s += &format!("    store v{d} at v1\n");
        }
        s
    };
    let program = |ops: [&str; 3], store: bool| {
        let mut s = "fn main f0 -> field {\nb0(v0: field):\n    v1 = allocate field\n".to_string();
        for (k, op) in ops.iter().enumerate() {
            s += &copy(k, op, store);
        }
        s + "    return v13\n}\n"
    };
    let text = program(["add", "add", "add"], false);
    let pure = repeats_of_ir(&text);
    assert_eq!(pure.len(), 1);
    assert_eq!(pure[0].copies.len(), 3);
    let parsed = zkbc::ir::parse_program(&text).unwrap();
    assert_eq!(pure[0].carried(parsed.main_func()), 1);
    assert!(repeats_of_ir(&program(["add", "add", "add"], true)).is_empty());
    assert!(repeats_of_ir(&program(["add", "sub", "add"], false))
        .iter()
        .all(|r| r.copies.len() < 3));
}

/// Copies that are whole blocks: each starts at its block's parameter, which the jump from the
/// copy before binds, so that parameter is an input (the PDG's data edge into it comes from the
/// jump outside the copy).
#[test]
fn a_copy_starting_at_a_block_takes_its_parameters_as_inputs() {
    let mut text = "fn main f0 -> field {\nb0(v0: field):\n    jmp b1(field 1)\n".to_string();
    for k in 0..3 {
        let (p, a, b, c, d) = (5 * k + 1, 5 * k + 2, 5 * k + 3, 5 * k + 4, 5 * k + 5);
        text += &format!(
            "b{}(v{p}: field):\n    v{a} = mul v{p}, v{p}\n    v{b} = add v{a}, v0\n    \
             v{c} = mul v{b}, v{b}\n    v{d} = add v{c}, v0\n    jmp b{}(v{d})\n",
            k + 1,
            k + 2
        );
    }
    text += "b4(v16: field):\n    return v16\n}\n";
    let program = zkbc::ir::parse_program(&text).unwrap();
    zkbc::ir::verify::verify_program(&program).unwrap();
    let main = program.main_func();
    let found = find_repeats(main);
    assert_eq!(found.len(), 1, "{found:?}");
    let r = &found[0];
    assert_eq!(r.copies.len(), 3);
    assert!(matches!(r.copies[0][0], Stmt::Params(b) if b.to_string() == "b1"));
    let first: BTreeSet<String> = r.inputs.iter().map(|s| s[0].to_string()).collect();
    assert_eq!(first, BTreeSet::from(["v0".to_string(), "v1".to_string()]));
    check_repeat(main, &Pdg::new(main), &Cfg::new(main), r);
}
