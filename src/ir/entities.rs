//! Typed entity ids. Each is a `u32` newtype whose `Display` is exactly what the text format
//! writes (`f0`, `b3`, `v12`), as in Cranelift's `ir/entities.rs`.

use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub u32);

        impl $name {
            /// The id's position in its arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }
            /// The id at position `index` of its arena.
            pub fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect("entity arena exceeds u32::MAX entries"))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A function of a [`crate::ir::Program`].
    FuncId,
    "f"
);
entity!(
    /// A basic block of a [`crate::ir::Function`].
    BlockId,
    "b"
);
entity!(
    /// An SSA value: a block parameter, an instruction result or a constant.
    ValueId,
    "v"
);
entity!(
    /// An instruction of a [`crate::ir::Function`].
    InstId,
    "i"
);

/// A position in the source program: the file (an index into [`crate::ir::Program::files`]; 0 is
/// the file compiled, the others modules it imports) and the 1-based line and column in it.
/// Instructions lowered from source carry one, so that a failure points at the user's code and a
/// block can say which lines it came from. The text format writes `@line:col` and only on
/// instructions that can fail; a location parsed from text is in file 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SrcLoc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
    /// The file: an index into [`crate::ir::Program::files`].
    pub file: u32,
}

impl fmt::Display for SrcLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}
