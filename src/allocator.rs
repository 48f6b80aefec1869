//! How the `zkbc` binary and the benches configure their allocator (mimalloc, the global
//! allocator of both). Not part of the library (which never sets an allocator): `main.rs`
//! declares this module, and each bench includes the file (`#[path]`).
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
