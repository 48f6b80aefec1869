//! A growable arena addressed by index, stored in chunks of [`CHUNK`] entries.
//!
//! A `Vec` that doubles copies everything it holds at each growth, and with the allocator the
//! binary uses (mimalloc, which reallocates a huge block by allocating a new one) the old and
//! the new block are both resident while it does: the instruction arena of an unrolled loop of
//! 10^7 iterations (1.1 GB) briefly took 1.8 GB. An arena of chunks grows by adding a chunk;
//! only the last chunk grows, and its copies are bounded by a chunk's size.
//!
//! A consumer that owns an arena and is done with a range of it can give that memory back
//! ([`Arena::release_chunk`]): R1CS lowering of a huge block frees the instructions it has
//! lowered as it goes. A released chunk's entries are gone: [`Arena::get`] returns `None` for
//! them and indexing them panics; [`Arena::len`] still counts them, so indices stay stable.

use std::fmt;
use std::ops::{Index, IndexMut};

/// log2 of [`CHUNK`].
const CHUNK_BITS: u32 = 16;
/// Entries per chunk (65,536: 3.7 MB of instructions, 1 MB of values).
pub const CHUNK: usize = 1 << CHUNK_BITS;
const MASK: usize = CHUNK - 1;

/// The chunk holding entry `i` of an arena.
#[inline]
pub fn chunk_of(i: usize) -> usize {
    i >> CHUNK_BITS
}

/// A growable arena of `T` in chunks of [`CHUNK`] entries (see the module doc).
#[derive(Clone)]
pub struct Arena<T> {
    /// Every chunk but the last holds exactly [`CHUNK`] entries (a released one none).
    chunks: Vec<Vec<T>>,
    len: usize,
    /// How many chunks were released.
    released: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            chunks: Vec::new(),
            len: 0,
            released: 0,
        }
    }
}

impl<T> Arena<T> {
    /// An empty arena (it allocates on the first push).
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of entries pushed (released ones included).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was pushed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `x` at index [`Arena::len`].
    #[inline]
    pub fn push(&mut self, x: T) {
        if self.len & MASK == 0 {
            self.chunks.push(Vec::new());
        }
        let last = self.chunks.last_mut().expect("a chunk for the entry");
        debug_assert_eq!(
            last.len(),
            self.len & MASK,
            "bug: pushing into a released chunk"
        );
        last.push(x);
        self.len += 1;
    }

    /// Entry `i`, or `None` past the end or in a released chunk.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i >> CHUNK_BITS)?.get(i & MASK)
    }

    /// Entry `i` to change, as [`Arena::get`].
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks.get_mut(i >> CHUNK_BITS)?.get_mut(i & MASK)
    }

    /// The entries in index order. Not for an arena with released chunks (their entries would
    /// be skipped); debug builds check.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        debug_assert_eq!(self.released, 0, "bug: iterating a partly released arena");
        self.chunks.iter().flatten()
    }

    /// The entries in index order, to change (as [`Arena::iter`]).
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut T> + '_ {
        debug_assert_eq!(self.released, 0, "bug: iterating a partly released arena");
        self.chunks.iter_mut().flatten()
    }

    /// Frees chunk `k` (entries `k * CHUNK ..`): its entries are dropped and their memory
    /// returned; later reads of them find nothing.
    pub fn release_chunk(&mut self, k: usize) {
        if let Some(c) = self.chunks.get_mut(k) {
            if c.capacity() != 0 {
                *c = Vec::new();
                self.released += 1;
            }
        }
    }
}

#[cold]
#[inline(never)]
fn missing(i: usize, len: usize) -> ! {
    panic!("arena index {i} out of bounds or released (len {len})")
}

impl<T> Index<usize> for Arena<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(x) => x,
            None => missing(i, self.len),
        }
    }
}

impl<T> IndexMut<usize> for Arena<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(i) {
            Some(x) => x,
            None => missing(i, len),
        }
    }
}

impl<T: PartialEq> PartialEq for Arena<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Eq> Eq for Arena<T> {}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.chunks.iter().flatten())
            .finish()
    }
}

impl<T> FromIterator<T> for Arena<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut a = Arena::new();
        a.extend(iter);
        a
    }
}

impl<T> Extend<T> for Arena<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for x in iter {
            self.push(x);
        }
    }
}

impl<'a, T> IntoIterator for &'a Arena<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Vec<T>>>;

    fn into_iter(self) -> Self::IntoIter {
        debug_assert_eq!(self.released, 0, "bug: iterating a partly released arena");
        self.chunks.iter().flatten()
    }
}

impl<'a, T> IntoIterator for &'a mut Arena<T> {
    type Item = &'a mut T;
    type IntoIter = std::iter::Flatten<std::slice::IterMut<'a, Vec<T>>>;

    fn into_iter(self) -> Self::IntoIter {
        debug_assert_eq!(self.released, 0, "bug: iterating a partly released arena");
        self.chunks.iter_mut().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_survive_growth_across_chunks_and_release() {
        let n = 2 * CHUNK + 7;
        let mut a: Arena<u32> = (0..n as u32).collect();
        assert_eq!(a.len(), n);
        assert_eq!(a[CHUNK - 1], CHUNK as u32 - 1);
        assert_eq!(a[CHUNK], CHUNK as u32);
        assert_eq!(a[n - 1], n as u32 - 1);
        assert_eq!(a.get(n), None);
        assert!(a.iter().copied().eq(0..n as u32));
        a[5] = 99;
        assert_eq!(a.get(5), Some(&99));
        a.release_chunk(0);
        assert_eq!(a.get(5), None);
        assert_eq!(a.get(CHUNK + 3), Some(&(CHUNK as u32 + 3)));
        assert_eq!(a.len(), n, "released entries keep their indices");
        a.push(7);
        assert_eq!(a[n], 7);
    }

    #[test]
    #[should_panic(expected = "released")]
    fn reading_a_released_entry_panics() {
        let mut a: Arena<u8> = (0..10).collect();
        a.release_chunk(0);
        let _ = a[3];
    }

    #[test]
    fn equality_is_by_entries() {
        let a: Arena<u8> = (0..5).collect();
        let b: Arena<u8> = (0..5).collect();
        let c: Arena<u8> = (0..4).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
