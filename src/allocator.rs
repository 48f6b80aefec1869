//! How the `zkbc` binary and the benches configure their allocator ([`Allocator`]: mimalloc,
//! with blocks of a megabyte or more mapped on their own). Not part of the library (which never
//! sets an allocator): `main.rs` declares this module, and each bench includes the file
//! (`#[path]`).
//!
//! mimalloc keeps memory a program has freed for a while (its *purge delay*: 1 s in mimalloc
//! 3, with arenas purged ten times later still) and commits a whole arena chunk eagerly, so a
//! compiler that builds one large structure after another (the IR, then the unrolled block,
//! then the constraint rows) holds the freed memory of every stage on top of the live one: the
//! Keccak-256 yardstick as one circuit peaked at 81 MiB resident for 27 MB of live heap.
//! [`return_freed_memory_promptly`] purges freed memory at once and commits arena memory on
//! demand: that yardstick then peaks at 30 MiB and verifyEddsa at 30 MiB (from 98 MiB), at a
//! cost of ~0.02–0.05 s on each (numbers and the bench in `docs/performance.md`).

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_arena_eager_commit` of mimalloc 2 and 3 (the crate does not export the
/// constant: its index is only stable per mimalloc version; `Cargo.lock` pins it, and
/// [`return_freed_memory_promptly`] checks that the setting took).
const ARENA_EAGER_COMMIT: mi_option_t = 4;
/// `mi_option_purge_delay` of mimalloc 2 and 3, in milliseconds.
const PURGE_DELAY: mi_option_t = 15;

/// Purge freed memory at once and commit arena memory on demand, unless the user chose
/// otherwise through mimalloc's own environment variables (`MIMALLOC_PURGE_DELAY`,
/// `MIMALLOC_ARENA_EAGER_COMMIT`). Call it first thing in `main`; it changes no result, only
/// when memory goes back to the operating system. Returns whether both settings hold.
pub fn return_freed_memory_promptly() -> bool {
    let settings = [
        (ARENA_EAGER_COMMIT, c"MIMALLOC_ARENA_EAGER_COMMIT"),
        (PURGE_DELAY, c"MIMALLOC_PURGE_DELAY"),
    ];
    let mut held = true;
    for (option, env) in settings {
        // `getenv`, not `std::env`: this may run before anything is allocated (see `main.rs`),
        // and the arena setting only counts if it is made before mimalloc's first arena.
        // SAFETY: `env` is NUL-terminated; nothing modifies the environment concurrently.
        if unsafe { !libc::getenv(env.as_ptr()).is_null() } {
            continue;
        }
        // SAFETY: mimalloc's option setters take any option index and value; an unknown index
        // is ignored (with a warning when mimalloc's verbose output is on).
        unsafe {
            mi_option_set(option, 0);
            held &= mi_option_get(option) == 0;
        }
    }
    held
}

/// Calls [`return_freed_memory_promptly`] from the loader, before `main` and before the Rust
/// runtime allocates anything: mimalloc reads its arena setting when it makes its first arena,
/// so a call in `main` would come too late for it. For the `zkbc` binary and the benches, each
/// of which declares mimalloc its global allocator.
#[macro_export]
macro_rules! configure_allocator_before_main {
    () => {
        #[used]
        #[link_section = ".init_array"]
        static CONFIGURE_ALLOCATOR: extern "C" fn() = {
            extern "C" fn configure_allocator() {
                $crate::allocator::return_freed_memory_promptly();
            }
            configure_allocator
        };
    };
}

/// The binary's global allocator: mimalloc, but for blocks of [`LARGE`] bytes or more, which
/// are mapped from the kernel on their own and grown in place of a copy (Linux's `mremap`).
///
/// Lowering a large block grows a few vectors (the constraint rows, the witness tape, the
/// reduced rows) to tens of megabytes by doubling. Through mimalloc each doubling allocates
/// the new size, copies the old contents into it and frees the old block, which the purge
/// delay of 0 (above) hands back to the kernel at once: every page of every intermediate
/// size is faulted in and copied to once more. `mremap` moves the pages instead (a page-table
/// update, no copy, no new fault for what was there), and a fresh mapping is zeroed by the
/// kernel, so `alloc_zeroed` needs no `memset`. What a large block costs in memory is what
/// it holds, rounded up to a page, and it goes back to the kernel when freed, as mimalloc's
/// own large blocks do under the purge delay of 0.
pub struct Allocator;

/// Blocks of at least this many bytes are mapped on their own (glibc's default threshold is
/// 128 KiB; a mapping costs two system calls, which a block this large amortizes).
pub const LARGE: usize = 1 << 20;

/// Whether a block of `layout` is one of ours: large, and aligned to no more than a page
/// (a mapping starts at a page).
fn mapped(layout: std::alloc::Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= 4096 && cfg!(target_os = "linux")
}

/// A fresh mapping of `size` bytes (zeroed by the kernel), or null.
unsafe fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

// SAFETY: every block is either mimalloc's (its calls, unchanged) or a mapping of its own
// made by `map` or `mremap`; which one is a function of its layout alone ([`mapped`]), which
// the caller passes back unchanged on `dealloc` and `realloc`, so each block is freed by
// whoever made it.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if mapped(layout) {
            unsafe { map(layout.size()) }
        } else {
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if mapped(layout) {
            unsafe { map(layout.size()) }
        } else {
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        if mapped(layout) {
            // SAFETY: `ptr` is a mapping of `layout.size()` bytes made by `map` or `mremap`.
            unsafe { libc::munmap(ptr.cast(), layout.size()) };
        } else {
            unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to the alignment, fits `isize`.
        let new =
            unsafe { std::alloc::Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (mapped(layout), mapped(new)) {
            (false, false) => unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) },
            #[cfg(target_os = "linux")]
            (true, true) => {
                // SAFETY: `ptr` is a mapping of `layout.size()` bytes; the kernel moves its
                // pages to a mapping of `new_size` bytes (or grows it in place).
                let p = unsafe {
                    libc::mremap(ptr.cast(), layout.size(), new_size, libc::MREMAP_MAYMOVE)
                };
                if p == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    p.cast()
                }
            }
            _ => {
                // Across the threshold: a new block of the other kind, and a copy.
                let q = unsafe { self.alloc(new) };
                if !q.is_null() {
                    let n = layout.size().min(new_size);
                    // SAFETY: both blocks hold at least `n` bytes and do not overlap.
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, q, n);
                        self.dealloc(ptr, layout);
                    }
                }
                q
            }
        }
    }
}
