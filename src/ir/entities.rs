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
/// An inline frame of a [`crate::ir::Program`] ([`crate::ir::InlineFrames`]): the chain of
/// calls, inlined into the function that holds an instruction, that the instruction was
/// copied through. `fr0` ([`FrameId::ROOT`]) is the function's own code.
///
/// Stored as the index plus one, so that an `Option<SrcLoc>` has a niche and stays 16 bytes
/// (the interpreter's `Failure` holds one).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct FrameId(std::num::NonZeroU32);

impl FrameId {
    /// The function's own code: no inlined call above it.
    pub const ROOT: FrameId = FrameId(std::num::NonZeroU32::MIN);

    /// The id's position in its table.
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// The id at position `index` of its table.
    pub fn new(index: usize) -> Self {
        u32::try_from(index)
            .ok()
            .and_then(|i| i.checked_add(1))
            .and_then(std::num::NonZeroU32::new)
            .map(FrameId)
            .expect("inline frame table exceeds u32::MAX entries")
    }
}

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fr{}", self.index())
    }
}

impl Default for FrameId {
    fn default() -> Self {
        FrameId::ROOT
    }
}

/// A position in the source program: the file (an index into [`crate::ir::Program::files`]; 0 is
/// the file compiled, the others modules it imports) and the 1-based line and column in it.
/// Instructions lowered from source carry one, so that a failure points at the user's code and a
/// block can say which lines it came from. The text format writes `@line:col` and only on
/// instructions that can fail; a location parsed from text is in file 0, frame 0.
///
/// `frame` says through which inlined calls the instruction came ([`crate::ir::InlineFrames`]):
/// inlining rebases the callee's frames onto a frame of the call site, so every pass that
/// copies a location (`InstData::new(.., data.loc())`) keeps the call stack with it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SrcLoc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
    /// The file: an index into [`crate::ir::Program::files`].
    pub file: u32,
    /// The inline frame: an index into [`crate::ir::Program::frames`], [`FrameId::ROOT`] for
    /// code that was not inlined.
    pub frame: FrameId,
}

// An instruction's location is in its `PackedLoc`; an `Option<SrcLoc>` (terminators,
// failures) keeps the size it had before the frame (the frame's niche holds `None`).
const _: () = assert!(std::mem::size_of::<Option<SrcLoc>>() == 16);

impl fmt::Display for SrcLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// An instruction's optional [`SrcLoc`] and its `nuw` flag ([`crate::ir::InstData::no_wrap`])
/// packed in 8 bytes (an `Option<SrcLoc>` and a `bool` took 20 with padding; merged blocks hold
/// millions of instructions). The 64 bits, from the lowest: 1 bit "a location is present",
/// 1 bit `nuw`, 21 bits line, 12 bits column, 12 bits file, 17 bits inline frame.
///
/// A line past 2,097,151 ([`PackedLoc::MAX_LINE`]) or a column past 4,095
/// ([`PackedLoc::MAX_COL`]) is recorded as that maximum, so the location stays near the truth;
/// real sources are far below both, and for them a location round-trips exactly. A frame past
/// 131,071 ([`PackedLoc::MAX_FRAME`]) cannot be stored: [`crate::ir::InlineFrames::intern`]
/// never makes one (a call stack deeper into a program with more distinct inlined call sites
/// than that is attributed to the last frame that fits). A file index past 4,095
/// ([`PackedLoc::MAX_FILE`]) panics instead: a wrong file would point at unrelated code, and
/// the front end reads at most a few hundred files. An absent location has all its bits zero,
/// so that equal `(location, nuw)` pairs are equal `PackedLoc`s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PackedLoc(u64);

impl PackedLoc {
    /// The largest line recorded exactly (21 bits); larger ones saturate to it.
    pub const MAX_LINE: u32 = (1 << LINE_BITS) - 1;
    /// The largest column recorded exactly (12 bits); larger ones saturate to it.
    pub const MAX_COL: u32 = (1 << COL_BITS) - 1;
    /// The largest file index (12 bits); a larger one panics.
    pub const MAX_FILE: u32 = (1 << FILE_BITS) - 1;
    /// The largest inline frame (17 bits); a larger one saturates to it (and is never made).
    pub const MAX_FRAME: u32 = (1 << FRAME_BITS) - 1;

    /// `loc` and the `nuw` flag packed.
    pub fn new(loc: Option<SrcLoc>, no_wrap: bool) -> Self {
        let mut p = PackedLoc::default();
        p.set_loc(loc);
        p.set_no_wrap(no_wrap);
        p
    }

    /// The location, if present (saturated as the type doc says).
    pub fn loc(self) -> Option<SrcLoc> {
        if self.0 & PRESENT == 0 {
            return None;
        }
        let field = |shift: u32, bits: u32| ((self.0 >> shift) & ((1 << bits) - 1)) as u32;
        Some(SrcLoc {
            line: field(LINE_SHIFT, LINE_BITS),
            col: field(COL_SHIFT, COL_BITS),
            file: field(FILE_SHIFT, FILE_BITS),
            frame: FrameId::new(field(FRAME_SHIFT, FRAME_BITS) as usize),
        })
    }

    /// Replaces the location, keeping the `nuw` flag. Lines and columns past their maxima
    /// saturate.
    ///
    /// # Panics
    /// If `loc.file` exceeds [`PackedLoc::MAX_FILE`].
    pub fn set_loc(&mut self, loc: Option<SrcLoc>) {
        self.0 &= NO_WRAP;
        if let Some(l) = loc {
            assert!(
                l.file <= Self::MAX_FILE,
                "source file index {} exceeds the {} an instruction's location can hold",
                l.file,
                Self::MAX_FILE
            );
            self.0 |= PRESENT
                | u64::from(l.line.min(Self::MAX_LINE)) << LINE_SHIFT
                | u64::from(l.col.min(Self::MAX_COL)) << COL_SHIFT
                | u64::from(l.file) << FILE_SHIFT
                | u64::from((l.frame.index() as u32).min(Self::MAX_FRAME)) << FRAME_SHIFT;
        }
    }

    /// The `nuw` flag.
    pub fn no_wrap(self) -> bool {
        self.0 & NO_WRAP != 0
    }

    /// Sets or clears the `nuw` flag, keeping the location.
    pub fn set_no_wrap(&mut self, no_wrap: bool) {
        if no_wrap {
            self.0 |= NO_WRAP;
        } else {
            self.0 &= !NO_WRAP;
        }
    }
}

impl fmt::Debug for PackedLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedLoc")
            .field("loc", &self.loc())
            .field("no_wrap", &self.no_wrap())
            .finish()
    }
}

const PRESENT: u64 = 1;
const NO_WRAP: u64 = 1 << 1;
const LINE_SHIFT: u32 = 2;
const LINE_BITS: u32 = 21;
const COL_SHIFT: u32 = LINE_SHIFT + LINE_BITS;
const COL_BITS: u32 = 12;
const FILE_SHIFT: u32 = COL_SHIFT + COL_BITS;
const FILE_BITS: u32 = 12;
const FRAME_SHIFT: u32 = FILE_SHIFT + FILE_BITS;
const FRAME_BITS: u32 = 17;
const _: () = assert!(FRAME_SHIFT + FRAME_BITS == 64);

#[cfg(test)]
mod tests {
    use super::{FrameId, PackedLoc, SrcLoc};

    fn loc(line: u32, col: u32, file: u32) -> Option<SrcLoc> {
        Some(SrcLoc {
            line,
            col,
            file,
            frame: FrameId::ROOT,
        })
    }

    fn framed(line: u32, frame: u32) -> Option<SrcLoc> {
        Some(SrcLoc {
            line,
            col: 1,
            file: 0,
            frame: FrameId::new(frame as usize),
        })
    }

    #[test]
    fn a_location_and_the_nuw_flag_round_trip() {
        let max = (PackedLoc::MAX_LINE, PackedLoc::MAX_COL, PackedLoc::MAX_FILE);
        let cases = [
            None,
            loc(0, 0, 0),
            loc(1, 1, 0),
            loc(17, 5, 0),
            loc(1234, 80, 3),
            loc(99_999, 4_000, 4095),
            framed(7, 1),
            framed(7, PackedLoc::MAX_FRAME),
            loc(max.0, 1, 0),
            loc(1, max.1, 0),
            loc(1, 1, max.2),
            loc(max.0, max.1, max.2),
        ];
        for l in cases {
            for nuw in [false, true] {
                let mut p = PackedLoc::new(l, nuw);
                assert_eq!((p.loc(), p.no_wrap()), (l, nuw), "{l:?} {nuw}");
                p.set_no_wrap(!nuw);
                assert_eq!((p.loc(), p.no_wrap()), (l, !nuw), "{l:?} {nuw}");
                p.set_loc(loc(2, 3, 1));
                assert_eq!((p.loc(), p.no_wrap()), (loc(2, 3, 1), !nuw));
                p.set_loc(l);
                assert_eq!((p.loc(), p.no_wrap()), (l, !nuw));
                assert_eq!(p, PackedLoc::new(l, !nuw), "the packing is canonical");
            }
        }
        assert_eq!(PackedLoc::default(), PackedLoc::new(None, false));
        assert_eq!(std::mem::size_of::<PackedLoc>(), 8);
    }

    #[test]
    fn lines_and_columns_past_their_maxima_saturate() {
        let (ml, mc) = (PackedLoc::MAX_LINE, PackedLoc::MAX_COL);
        assert_eq!((ml, mc), (2_097_151, 4_095));
        let cases = [
            (loc(ml + 1, 7, 2), loc(ml, 7, 2)),
            (loc(u32::MAX, 7, 2), loc(ml, 7, 2)),
            (loc(9, mc + 1, 2), loc(9, mc, 2)),
            (loc(9, u32::MAX, 2), loc(9, mc, 2)),
            (loc(u32::MAX, u32::MAX, 0), loc(ml, mc, 0)),
            (framed(3, u32::MAX - 1), framed(3, PackedLoc::MAX_FRAME)),
        ];
        for (given, stored) in cases {
            for nuw in [false, true] {
                let p = PackedLoc::new(given, nuw);
                assert_eq!((p.loc(), p.no_wrap()), (stored, nuw), "{given:?}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "source file index 4096 exceeds the 4095")]
    fn a_file_index_past_the_maximum_panics() {
        PackedLoc::new(loc(1, 1, PackedLoc::MAX_FILE + 1), false);
    }
}
