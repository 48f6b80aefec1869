//! The block IR: SSA with block parameters (no phi instructions), as in Cranelift, MLIR and Noir.
//!
//! A [`Program`] is a list of [`Function`]s, one of them `main`. A function is a list of basic
//! blocks; the first laid-out block is not special, [`Function::entry`] is, and its parameters
//! are the function's parameters. Every block has parameters, straight-line instructions and one
//! terminator. Values are typed [`ValueId`]s defined once: by a block parameter, an instruction
//! result, or a constant written inline.
//!
//! # Types
//!
//! `field` (the BN254 scalar field, p = 21888…5617), `u1` (bool), `u8`, `u16`, `u32`, `u64`,
//! arrays `[T; N]` and references `&T`.
//!
//! # Text format
//!
//! ```text
//! program   := function*
//! function  := "fn" NAME FUNC_ID ("->" type ("," type)*)? "{" NEWLINE block* "}" NEWLINE
//! block     := BLOCK_ID "(" (VALUE_ID ":" type ("," VALUE_ID ":" type)*)? ")" ":" NEWLINE
//!              (inst NEWLINE)* terminator NEWLINE
//! inst      := (VALUE_ID ("," VALUE_ID)* "=")? op ("@" LINE ":" COL)?
//! op        := BINOP operand "," operand          BINOP = add sub mul div udiv urem eq lt le
//!            | "not" operand                             and or xor shl shr
//!            | "cast" operand "to" type  | "trunc" operand "to" type
//!            | "select" operand "," operand "," operand
//!            | "assert" operand ("," STRING)?
//!            | "allocate" type  | "load" operand  | "store" operand "at" operand
//!            | "make_array" "[" operands? "]" ":" type
//!            | "array_get" operand "," operand  | "array_set" operand "," operand "," operand
//!            | "to_bits" operand  | "from_bits" operand "to" type
//!            | "call" FUNC_ID "(" operands? ")"
//!            | "hint" FUNC_ID "(" operands? ")" ("if" operand)?
//!            | "log" STRING ("," operand)* ("if" operand)?
//!            | "bound" operand "," INT"
//! terminator:= "jmp" target  | "br" operand "," target "," target  | "return" operands?
//! target    := BLOCK_ID "(" operands? ")"
//! operand   := VALUE_ID | type INTEGER            e.g. v3, u32 5, field -1, u1 1
//! type      := "field" | "u1" | "u8" | "u16" | "u32" | "u64" | "[" type ";" INTEGER "]" | "&" type
//! ```
//!
//! `FUNC_ID`, `BLOCK_ID` and `VALUE_ID` are `f`, `b`, `v` followed by digits; the numbers are
//! names only (the parser renumbers). `main` is the function named `main`, else the first.
//! `;` starts a comment outside square brackets. Strings use `\"`, `\\`, `\n`, `\t`, `\u{..}`.
//! A field constant may be written negative (`field -1` is p-1). `@LINE:COL` is the source
//! position of an instruction that can fail, which run-time errors report (a `LINE` past
//! 2,097,151 or a `COL` past 4,095 is kept as that maximum: see [`PackedLoc`]).
//!
//! ```text
//! fn main f0 -> field {
//! b0(v0: field, v1: u32):
//!     jmp b1(field 0, u32 0)
//! b1(v2: field, v3: u32):
//!     v4 = lt v3, v1
//!     br v4, b2(), b3()
//! b2():
//!     v5 = add v2, v0
//!     v6 = add v3, u32 1
//!     jmp b1(v5, v6)
//! b3():
//!     return v2
//! }
//! ```
//!
//! # Semantics
//!
//! | instruction | meaning |
//! |---|---|
//! | `add sub mul a, b` | field arithmetic mod p; on `uN` wraps mod 2^N; operands of one type |
//! | `div a, b` | field only: `a * b^-1`; fails when `b = 0` |
//! | `udiv urem a, b` | `uN` integer quotient and remainder; fail when `b = 0` |
//! | `eq a, b` | `u1`: 1 when equal (scalars) |
//! | `lt le a, b` | `u1`: `uN` order, or the order of the canonical integers in `[0, p)` of field elements |
//! | `and or xor a, b` | bitwise on `uN` (logical on `u1`) |
//! | `shl shr a, k` | shift a `uN` by any `uN` amount `k`; bits leave the width; `k >= N` gives 0 |
//! | `not a` | bitwise complement of a `uN` (logical not on `u1`) |
//! | `cast a to T` | scalar conversion; to `field` exact; to `uN` fails unless the value is `< 2^N` |
//! | `bound a, k` | the field element `a`; fails unless its canonical value is below `2^k` (`k ≤ 253`; ZoKrates' incomplete comparison, `--field-cmp zokrates`) |
//! | `trunc a to uN` | the low N bits of a scalar's (canonical) value |
//! | `select c, a, b` | `a` if `c` (`u1`) is 1, else `b`; `a`, `b` of one type |
//! | `assert c[, msg]` | fails with the message when `c` is 0 |
//! | `allocate T` | a fresh cell, `&T`, holding the zero value of `T` until a store |
//! | `load p` / `store v at p` | read / write the cell `p` |
//! | `make_array [..] : T` | an array `[T; n]` of the elements |
//! | `array_get a, i` | element `i` (any `uN`); fails when `i >= n` |
//! | `array_set a, i, v` | a new array equal to `a` but element `i` is `v`; fails when `i >= n` |
//! | `to_bits a` | `[u1; N]` bits of a `uN`, most significant first (`field`: 254 bits) |
//! | `from_bits a to T` | the `uN` or `field` whose bits (most significant first) are `a` |
//! | `call fN(args)` | runs `fN` with the arguments as its entry parameters; its returns are the results |
//! | `hint fN(args)` | an unconstrained witness (an `asm` block's `x <-- e`): `fN`'s results on `args`, zeros when `fN` fails; `fN`'s blocks are not traced; the results are recorded in the block's trace entry, and R1CS lowering allocates them as free witnesses (nothing else binds them) |
//! | `hint fN(args) if g` | as `hint fN(args)` when the `u1` `g` is 1; when `g` is 0, `fN` does not run and the results are zeros (block merging guards a hint this way) |
//! | `log "t", args [if g]` | prints the template `t` with one argument per `{}` when the interpreter collects logs; with a guard, only when the `u1` `g` is 1; no results, no constraints |
//! | `jmp b(args)` | continue at `b` with its parameters bound to `args` |
//! | `br c, t(..), e(..)` | to `t` when `c` is 1, else to `e` |
//! | `return vals` | leave the function with these values |
//!
//! Arrays are values (copy semantics); only references (`allocate`) denote mutable state.
//! [`verify`] checks the invariants the passes rely on; [`interp`] is the reference semantics.

pub mod arena;
mod builder;
pub mod compact;
mod dom;
mod entities;
pub mod frames;
mod function;
mod instructions;
pub mod interp;
pub mod lines;
pub mod normalize;
pub mod parse;
pub mod print;
mod results;
mod types;
pub mod verify;

pub use arena::Arena;
pub use builder::FunctionBuilder;
pub use entities::{BlockId, FrameId, FuncId, InstId, PackedLoc, SrcLoc, ValueId};
pub use frames::{InlineFrame, InlineFrames};
pub use function::{
    result_types_typed, reverse_post_order, wrap, BlockData, ConstRef, Function, InstData, Program,
    Results, TypeId, ValueData, ValueDef,
};
pub use instructions::{BinOp, BlockCall, Const, InstInfo, InstKind, Terminator};
pub use lines::{block_spans, LineSpan};
pub use normalize::{normalize_function, normalize_program, same_up_to_value_names};
pub use parse::{parse_program, ParseError};
pub use types::{Type, UINT_WIDTHS};

/// Number of bits `to_bits` gives for a field element (BN254's p has 254 bits).
pub const FIELD_BITS: u32 = 254;

impl Program {
    /// The text of the program with normalized ids: equal for structurally equal programs.
    pub fn normalized_text(&self) -> String {
        normalize_program(self).to_string()
    }
}
