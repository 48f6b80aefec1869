//! Inline frames: through which inlined calls an instruction came, as a side table of the
//! program, so that an instruction's location can name its call stack without growing
//! [`crate::ir::InstData`].
//!
//! An instruction's [`SrcLoc`] holds a [`FrameId`] (17 bits of its 8-byte [`crate::ir::PackedLoc`]).
//! [`FrameId::ROOT`] is the function's own code. Any other frame is one entry of the program's
//! [`InlineFrames`]: `(parent frame, callee, call site)`, interned, so that a frame is the same
//! id wherever the same chain of calls was inlined. The stack of an instruction is its frame's
//! chain of parents up to the root, read outermost first ([`InlineFrames::stack`]).
//!
//! Inlining (`opt::inline`) is the only pass that makes frames: it copies the callee's blocks
//! into the caller at a call site at location `s` in frame `p`, and every copied location in
//! the callee's frame `g` moves to [`InlineFrames::rebase`]`(g, n)` where
//! `n = intern(p, callee, s)`: the callee's root becomes `n`, and each frame above it is
//! interned again with its rebased parent. Every other pass copies locations whole, frame
//! included (unrolling, predication and merging copy instructions with their `SrcLoc`), so the
//! stack survives them; a location made without one (a parsed program) is in the root frame.
//!
//! ```text
//! fn sq(x) { return x * x }      main: v3 = mul v0, v0   @3:12 in fr1
//! fn main(a) { return sq(a) }    fr1 = (fr0, sq, main.zok:2:20)
//! ```
//!
//! The table grows by one entry per distinct inlined call chain (not per copy: an unrolled
//! loop's copies share their frames); a program with more than [`PackedLoc::MAX_FRAME`]
//! such chains attributes the deeper ones to the last frame that fits
//! ([`InlineFrames::intern`] returns the parent then).

use crate::fxhash::HashMap;

use super::entities::{FrameId, PackedLoc, SrcLoc};
use super::function::Function;

/// A function's name as a frame shows it: its name, except for the `main` of an imported
/// module (named `main`, or `main_N` when the front end made names unique), which is shown by
/// its module's file stem (`512bitPacked`), read off the location of one of its instructions
/// in `files` (for an instruction inlined into it, the location of the outermost call).
pub fn function_label(func: &Function, files: &[String], frames: &InlineFrames) -> String {
    let is_main = func.name == "main"
        || func
            .name
            .strip_prefix("main_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !is_main {
        return func.name.clone();
    }
    let file = func
        .layout
        .iter()
        .flat_map(|&b| func.block(b).insts.iter())
        .filter_map(|&i| func.inst(i).loc())
        .find_map(|l| match l.frame {
            FrameId::ROOT => Some(l),
            f => {
                let outer = frames.stack(f).first().copied()?;
                frames.get(outer)?.call_site
            }
        })
        .and_then(|l| files.get(l.file as usize));
    match file.and_then(|f| std::path::Path::new(f).file_stem()) {
        Some(stem) => stem.to_string_lossy().into_owned(),
        None => func.name.clone(),
    }
}

/// One inline frame: the call of `callee` at `call_site`, inlined into code of `parent`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InlineFrame {
    /// The frame of the code that called (`FrameId::ROOT`: the function itself).
    pub parent: FrameId,
    /// The called function's name, an index into `InlineFrames::names`.
    pub callee: u32,
    /// Where the call was, if known (its `frame` is `parent`).
    pub call_site: Option<SrcLoc>,
}

/// The interned inline frames of a program. Entry 0 is the root frame (no call).
#[derive(Clone, Debug)]
pub struct InlineFrames {
    frames: Vec<InlineFrame>,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    index: HashMap<InlineFrame, FrameId>,
}

impl Default for InlineFrames {
    fn default() -> Self {
        InlineFrames {
            frames: vec![InlineFrame {
                parent: FrameId::ROOT,
                callee: u32::MAX,
                call_site: None,
            }],
            names: Vec::new(),
            name_ids: HashMap::default(),
            index: HashMap::default(),
        }
    }
}

/// Equal as tables: the same frames with the same names, in the same order.
impl PartialEq for InlineFrames {
    fn eq(&self, other: &Self) -> bool {
        self.frames.len() == other.frames.len()
            && self.frames.iter().zip(&other.frames).all(|(a, b)| {
                a.parent == b.parent
                    && a.call_site == b.call_site
                    && self.name(a.callee) == other.name(b.callee)
            })
    }
}

impl Eq for InlineFrames {}

impl InlineFrames {
    /// How many frames there are, the root included.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the table holds the root frame only.
    pub fn is_empty(&self) -> bool {
        self.frames.len() <= 1
    }

    /// Frame `id`, or `None` for the root or an id the table does not hold.
    pub fn get(&self, id: FrameId) -> Option<&InlineFrame> {
        match id {
            FrameId::ROOT => None,
            _ => self.frames.get(id.index()),
        }
    }

    /// The name with index `id` (empty for an unknown index).
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }

    /// The frame of a call of `callee` at `call_site` inlined into code of `parent`, made when
    /// new. When the table is full ([`PackedLoc::MAX_FRAME`]), `parent`: the call is
    /// attributed to its caller.
    pub fn intern(&mut self, parent: FrameId, callee: &str, call_site: Option<SrcLoc>) -> FrameId {
        let callee = match self.name_ids.get(callee) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(callee.to_string());
                self.name_ids.insert(callee.to_string(), id);
                id
            }
        };
        let frame = InlineFrame {
            parent,
            callee,
            call_site,
        };
        if let Some(&id) = self.index.get(&frame) {
            return id;
        }
        if self.frames.len() > PackedLoc::MAX_FRAME as usize {
            return parent;
        }
        let id = FrameId::new(self.frames.len());
        self.frames.push(frame.clone());
        self.index.insert(frame, id);
        id
    }

    /// Frame `frame` of a callee's code moved under `onto` (the frame of the call site being
    /// inlined): the root becomes `onto`, every other frame is interned again with its parent
    /// rebased. `memo` keeps what one inlined call rebased already.
    pub fn rebase(
        &mut self,
        frame: FrameId,
        onto: FrameId,
        memo: &mut HashMap<FrameId, FrameId>,
    ) -> FrameId {
        if frame == FrameId::ROOT {
            return onto;
        }
        if let Some(&f) = memo.get(&frame) {
            return f;
        }
        // Iteratively: the chain of parents up to the first frame already rebased.
        let mut chain = vec![frame];
        loop {
            let top = *chain.last().expect("the chain is never empty");
            let Some(entry) = self.get(top) else {
                break;
            };
            let parent = entry.parent;
            if parent == FrameId::ROOT || memo.contains_key(&parent) {
                break;
            }
            chain.push(parent);
        }
        let mut out = onto;
        for f in chain.into_iter().rev() {
            let Some(entry) = self.get(f).cloned() else {
                // An id the table does not hold: kept on the call site's frame.
                memo.insert(f, onto);
                out = onto;
                continue;
            };
            let parent = match entry.parent {
                FrameId::ROOT => onto,
                p => memo.get(&p).copied().unwrap_or(onto),
            };
            let site = entry.call_site.map(|s| SrcLoc { frame: parent, ..s });
            let name = self.name(entry.callee).to_string();
            out = self.intern(parent, &name, site);
            memo.insert(f, out);
        }
        out
    }

    /// The frames from the outermost call down to `frame` (empty for the root).
    pub fn stack(&self, frame: FrameId) -> Vec<FrameId> {
        let mut out = Vec::new();
        let mut f = frame;
        while let Some(entry) = self.get(f) {
            out.push(f);
            if out.len() > self.frames.len() {
                break; // a cycle cannot be built by `intern`; never loop on one
            }
            f = entry.parent;
        }
        out.reverse();
        out
    }

    /// The callee names of [`InlineFrames::stack`], outermost first.
    pub fn callee_names(&self, frame: FrameId) -> Vec<&str> {
        self.stack(frame)
            .into_iter()
            .filter_map(|f| self.get(f).map(|e| self.name(e.callee)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, frame: FrameId) -> Option<SrcLoc> {
        Some(SrcLoc {
            line,
            col: 1,
            file: 0,
            frame,
        })
    }

    #[test]
    fn interning_gives_one_id_per_call_chain() {
        let mut t = InlineFrames::default();
        let a = t.intern(FrameId::ROOT, "f", at(3, FrameId::ROOT));
        let b = t.intern(FrameId::ROOT, "f", at(3, FrameId::ROOT));
        let c = t.intern(FrameId::ROOT, "f", at(4, FrameId::ROOT));
        let d = t.intern(a, "g", at(9, a));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(t.callee_names(d), ["f", "g"]);
        assert_eq!(t.stack(FrameId::ROOT), []);
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn rebasing_moves_a_callee_chain_under_the_call_site() {
        let mut t = InlineFrames::default();
        // In `h`'s code: a call of `g` at line 5 that called `k` at line 8.
        let g = t.intern(FrameId::ROOT, "g", at(5, FrameId::ROOT));
        let k = t.intern(g, "k", at(8, g));
        // `h` inlined into main at line 2.
        let h = t.intern(FrameId::ROOT, "h", at(2, FrameId::ROOT));
        let mut memo = HashMap::default();
        let k2 = t.rebase(k, h, &mut memo);
        assert_eq!(t.callee_names(k2), ["h", "g", "k"]);
        assert_eq!(t.rebase(FrameId::ROOT, h, &mut memo), h);
        let g2 = t.rebase(g, h, &mut memo);
        assert_eq!(t.get(k2).map(|e| e.parent), Some(g2));
        assert_eq!(
            t.get(k2).and_then(|e| e.call_site).map(|s| s.frame),
            Some(g2)
        );
    }
}
