//! The binary's allocator (`src/allocator.rs`), called directly: a block of a megabyte or more is
//! a mapping of its own, grown and shrunk by `mremap` and moved across the threshold by a copy;
//! each keeps its contents, and a zeroed one is zero.

use std::alloc::{GlobalAlloc, Layout};

#[path = "../src/allocator.rs"]
#[allow(dead_code, unused_macros)]
mod allocator;

use allocator::{Allocator, LARGE};

/// Fills `n` bytes at `p` with a pattern of `seed`.
fn fill(p: *mut u8, n: usize, seed: u8) {
    for i in 0..n {
        // SAFETY: the caller's block holds `n` bytes.
        unsafe { *p.add(i) = seed.wrapping_add((i % 251) as u8) };
    }
}

/// Whether the first `n` bytes at `p` hold `fill`'s pattern of `seed`.
fn holds(p: *const u8, n: usize, seed: u8) -> bool {
    // SAFETY: the caller's block holds `n` bytes.
    (0..n).all(|i| unsafe { *p.add(i) } == seed.wrapping_add((i % 251) as u8))
}

#[test]
fn large_blocks_keep_their_contents_through_every_resize() {
    let a = Allocator;
    let small = LARGE / 4;
    let layout = Layout::from_size_align(small, 8).expect("layout");
    // SAFETY: every block is used within its size and freed with the layout it has.
    unsafe {
        let p = a.alloc(layout);
        assert!(!p.is_null());
        fill(p, small, 7);
        // Across the threshold up (a copy into a mapping), within mappings up (`mremap`),
        // within mappings down, across the threshold down (a copy back).
        let mut size = small;
        let mut p = p;
        for next in [2 * LARGE, 8 * LARGE + 123, LARGE + 1, small / 2] {
            let q = a.realloc(p, Layout::from_size_align(size, 8).expect("layout"), next);
            assert!(!q.is_null(), "realloc to {next} bytes");
            let kept = size.min(next);
            assert!(
                holds(q, kept, 7),
                "contents kept from {size} to {next} bytes"
            );
            // The whole block holds the pattern for the next step.
            fill(q, next, 7);
            (p, size) = (q, next);
        }
        a.dealloc(p, Layout::from_size_align(size, 8).expect("layout"));
    }
}

#[test]
fn a_large_zeroed_block_is_zero_and_page_aligned() {
    let a = Allocator;
    let layout = Layout::from_size_align(3 * LARGE + 5, 4096).expect("layout");
    // SAFETY: the block is read within its size and freed with its layout.
    unsafe {
        let p = a.alloc_zeroed(layout);
        assert!(!p.is_null());
        assert_eq!(p as usize % 4096, 0);
        assert!((0..layout.size()).step_by(997).all(|i| *p.add(i) == 0));
        assert_eq!(*p.add(layout.size() - 1), 0);
        a.dealloc(p, layout);
    }
}
