//! A fast hasher for the small integer ids the lowering and the optimizer key their maps with
//! (the Fx hash of rustc); SipHash dominated the lowering's profile, and merging's.

use std::collections::{HashMap as StdMap, HashSet as StdSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash: rotate, xor, multiply.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The hasher of [`FxMap`] and [`FxSet`]: `BuildHasherDefault<FxHasher>`.
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
/// A hash map with [`FxHasher`]: the one the compiler uses everywhere (std's default SipHash
/// was a fifth of all the work a compile did, hashing small integer ids).
pub type FxMap<K, V> = StdMap<K, V, FxBuildHasher>;
/// A hash set with [`FxHasher`].
pub type FxSet<K> = StdSet<K, FxBuildHasher>;
pub use FxMap as HashMap;
pub use FxSet as HashSet;

/// A well-mixed 64-bit hash of `x`: the Fx hash finished with MurmurHash3's finalizer, so that
/// its low bits depend on all of `x` (a map keyed by the hash hashes it again with Fx, whose low
/// bits depend only on the key's low bits).
pub(crate) fn hash64<T: std::hash::Hash + ?Sized>(x: &T) -> u64 {
    let mut h = FxHasher::default();
    x.hash(&mut h);
    let mut h = h.finish();
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}
