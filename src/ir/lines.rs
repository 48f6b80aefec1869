//! Which source lines a block came from: the lines its instructions are located at, per file.
//!
//! A block of the front end's IR holds the instructions of the statements it lowers; passes move
//! instructions (with their locations) between blocks, clone them (unrolling, inlining) and join
//! blocks (merging), so the lines of a block are read off its instructions (and its terminator's
//! location, for a block that only jumps), never stored beside it: a merged block spans the lines
//! of everything merged into it.

use super::entities::{BlockId, FuncId};
use super::function::{Function, Program};

/// The first and last line of a block's instructions in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpan {
    /// An index into [`Program::files`].
    pub file: u32,
    /// The first line, 1-based.
    pub first: u32,
    /// The last line (at least `first`).
    pub last: u32,
}

/// The line spans of block `b`'s located instructions and terminator, one per file, by file index
/// (the compiled file first); empty when none is located.
pub fn block_spans(func: &Function, b: BlockId) -> Vec<LineSpan> {
    let data = func.block(b);
    let mut spans: Vec<LineSpan> = Vec::new();
    let locs = data.insts.iter().filter_map(|i| func.inst(*i).loc());
    for loc in locs.chain(data.term_loc) {
        match spans.iter_mut().find(|s| s.file == loc.file) {
            Some(s) => {
                s.first = s.first.min(loc.line);
                s.last = s.last.max(loc.line);
            }
            None => spans.push(LineSpan {
                file: loc.file,
                first: loc.line,
                last: loc.line,
            }),
        }
    }
    spans.sort_by_key(|s| s.file);
    spans
}

impl Program {
    /// The short name of file `file`: the last component of its path (`bubble_sort.zok`), or
    /// `line` when the program does not know its files (IR text).
    pub fn file_short_name(&self, file: u32) -> &str {
        match self.files.get(file as usize) {
            Some(name) => name.rsplit(['/', '\\']).next().unwrap_or(name),
            None => "line",
        }
    }

    /// Where block `b` of `func` comes from, as `bubble_sort.zok:6-9` (one line: `:6`; several
    /// files joined by `, `), or `None` when none of its instructions is located.
    pub fn block_source(&self, func: FuncId, b: BlockId) -> Option<String> {
        let spans = block_spans(self.func(func), b);
        if spans.is_empty() {
            return None;
        }
        let text: Vec<String> = spans
            .iter()
            .map(|s| {
                let name = self.file_short_name(s.file);
                if s.first == s.last {
                    format!("{name}:{}", s.first)
                } else {
                    format!("{name}:{}-{}", s.first, s.last)
                }
            })
            .collect();
        Some(text.join(", "))
    }
}
