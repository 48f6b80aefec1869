//! Random IR programs for differential testing of the passes: a program and its optimized form
//! must give the same outputs on the same inputs (or fail with the same kind of failure).
//!
//! [`random_program`] builds, from a seed, a well-typed program that the verifier accepts and
//! that always terminates: straight-line `field`, `u1`, `u8` and `u32` arithmetic (including
//! divisions by values that may be zero, checked casts that may not fit, shifts, bit
//! decompositions), `if`/`else` diamonds whose join block takes parameters, loops with a
//! constant bound or a bound computed from an input (`n % 5`), nested up to depth 2, arrays with
//! dynamic (possibly out-of-bounds) indices, locals through `allocate`/`load`/`store`,
//! references stored in references, arrays of references indexed dynamically, block parameters
//! bound to the same reference, calls of functions that read and write through reference
//! arguments (a reference to a reference, an array of references) and store references they
//! were given where the caller will read them, irreducible loops (a cycle of two blocks, both
//! entered from outside it), `hint`s of a function that may fail (with and without a guard
//! `if g`), `log`s of scalars and arrays (with and without a guard), and assertions that
//! sometimes fail. Every allocated cell is stored to at once, so no program ever loads a
//! reference that does not exist; every loop counts a fresh counter up to a bound below 6 and
//! no call is recursive, so every program terminates well within [`compare::MAX_STEPS`] (a
//! run of a generated program that reaches it is reported as a broken generator, never
//! discarded).
//!
//! [`random_lowerable_program`] builds programs of the same shapes whose memory mem2reg promotes
//! entirely once calls are inlined, so that R1CS lowering accepts every one: it leaves out
//! exactly what mem2reg cannot follow (an array of references, a reference passed to a block, a
//! reference stored into a cell where a later load may find one of several references: inside
//! a loop, or in a branch when the cell was allocated before it). The option draws nothing in
//! [`random_program`], whose seeds name the same programs as before it existed (long runs are
//! reported by seed range).
//!
//! The generator draws from the testkit's one [`Rng`] (SplitMix64).
//!
//! This module assembles programs and their inputs; `gen` builds a function's straight-line
//! statements, `control` its control flow (diamonds and loops), `compare` runs two programs
//! against each other.

mod compare;
mod control;
mod gen;

pub use compare::{compare_runs, MAX_STEPS};

use crate::Rng;
use gen::Gen;
use std::rc::Rc;
use zkbc::field::Fr;
use zkbc::ir::interp::Val;
use zkbc::ir::{FuncId, Program, Type};

/// A generated program with the inputs to run it on.
#[derive(Clone, Debug)]
pub struct RandomProgram {
    /// The program (verified).
    pub program: Program,
    /// Input vectors for `main`.
    pub inputs: Vec<Vec<Val>>,
}

/// The signature of a function a generated function may call or hint: its id, parameter types
/// and result types.
pub(crate) type Callee = (FuncId, Vec<Type>, Vec<Type>);

/// The program of `seed`, with three input vectors.
///
/// Its functions, each present or not by a draw of the seed, callees before callers (so no
/// call is recursive): `witness(field, u32) -> field, u32`, only ever run by `hint`s (with or
/// without a guard `if g`); `helper(field, u32, &field) -> field, u32`; `redirect(&&field,
/// &field, [&field; 2]) -> field, &field`, which may store a reference it was given into a
/// cell it was given and call `helper` (issue 20's first miscompilation was of this shape);
/// then `main(field, u32, u8, [u32; 3]) -> field, u32, field`, which may call both.
pub fn random_program(seed: u64) -> RandomProgram {
    generate(seed, false)
}

/// The program of `seed` whose memory mem2reg promotes entirely once calls are inlined, so
/// that R1CS lowering accepts it after `driver::legalize_for_r1cs`, with three input vectors.
///
/// The same shapes as [`random_program`] (calls passing references, references stored in
/// references, loops reducible and irreducible, hints, logs, arrays, failures) but for the
/// references mem2reg cannot follow: no array of references and no reference passed to a block
/// (a `redirect(&&field, &field) -> field, field` without the array parameter or the returned
/// reference, no reference joined after a diamond or carried by a loop); a reference is stored
/// into a cell of references only outside loops and into a cell allocated in the innermost
/// scope, so that every load of that cell gives one known reference (`redirect` is called only
/// there, and stores at its start); no cell of references is allocated inside a loop (nor in
/// `helper`, which may be called inside one). It is a different program from
/// `random_program(seed)`.
pub fn random_lowerable_program(seed: u64) -> RandomProgram {
    generate(seed, true)
}

fn generate(seed: u64, promotable: bool) -> RandomProgram {
    let mut rng = Rng::new(seed);
    let mut funcs = Vec::new();
    let add = |funcs: &mut Vec<zkbc::ir::Function>, f: zkbc::ir::Function| -> Callee {
        let sig = (FuncId::new(funcs.len()), f.param_types(), f.returns.clone());
        funcs.push(f);
        sig
    };
    let witness = if rng.chance(50) {
        let mut g = Gen::new(
            &mut rng,
            "witness",
            vec![Type::Field, Type::U32],
            vec![Type::Field, Type::U32],
            Vec::new(),
            None,
        );
        g.promotable = promotable;
        g.body(4);
        Some(add(&mut funcs, g.finish()))
    } else {
        None
    };
    let mut callees = Vec::new();
    if rng.chance(50) {
        let mut g = Gen::new(
            &mut rng,
            "helper",
            vec![Type::Field, Type::U32, Type::reference(Type::Field)],
            vec![Type::Field, Type::U32],
            Vec::new(),
            witness.clone(),
        );
        // `main` may call it inside a loop.
        (g.promotable, g.loops) = (promotable, 1);
        g.body(6);
        callees.push(add(&mut funcs, g.finish()));
    }
    if rng.chance(40) {
        let field_ref = Type::reference(Type::Field);
        let (params, returns) = if promotable {
            (
                vec![Type::reference(field_ref.clone()), field_ref],
                vec![Type::Field, Type::Field],
            )
        } else {
            (
                vec![
                    Type::reference(field_ref.clone()),
                    field_ref.clone(),
                    Type::array(field_ref.clone(), 2),
                ],
                vec![Type::Field, field_ref],
            )
        };
        let mut g = Gen::new(
            &mut rng,
            "redirect",
            params,
            returns,
            callees.clone(),
            witness.clone(),
        );
        // Called only outside loops (`Gen::call`).
        g.promotable = promotable;
        g.redirect();
        g.body(5);
        callees.push(add(&mut funcs, g.finish()));
    }
    let main_params = vec![
        Type::Field,
        Type::U32,
        Type::UInt(8),
        Type::array(Type::U32, 3),
    ];
    let mut g = Gen::new(
        &mut rng,
        "main",
        main_params.clone(),
        vec![Type::Field, Type::U32, Type::Field],
        callees,
        witness,
    );
    g.promotable = promotable;
    g.body(14);
    let main = g.finish();
    let main_id = FuncId::new(funcs.len());
    funcs.push(main);
    let program = Program {
        funcs,
        main: main_id,
        files: Vec::new(),
        frames: Default::default(),
    };
    if let Err(e) = zkbc::ir::verify::verify_program(&program) {
        panic!("bug: random program {seed} is invalid:\n{e}\n{program}");
    }
    let inputs = (0..3)
        .map(|_| {
            main_params
                .iter()
                .map(|t| random_input(&mut rng, t))
                .collect()
        })
        .collect();
    RandomProgram { program, inputs }
}

fn random_input(rng: &mut Rng, ty: &Type) -> Val {
    match ty {
        Type::Field => Val::Field(match rng.below(4) {
            0 => Fr::from(0u64),
            1 => -Fr::from(rng.below(5)),
            _ => Fr::from(rng.below(20)),
        }),
        Type::UInt(w) => {
            let v = match rng.below(5) {
                0 => 0,
                1 => u64::MAX,
                _ => rng.below(12),
            };
            Val::UInt(zkbc::ir::wrap(v, *w))
        }
        Type::Array(elem, n) => {
            Val::Array(Rc::new((0..*n).map(|_| random_input(rng, elem)).collect()))
        }
        Type::Ref(_) => panic!("bug: reference input"),
    }
}
