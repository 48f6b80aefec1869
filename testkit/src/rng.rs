//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
//! the one small deterministic generator of the testkit's random programs, graphs and synthetic
//! workloads, so that a seed names the same case everywhere and on every machine, with the draws
//! they make. Not for anything that needs unpredictability.
//!
//! Every draw is a function of [`Rng::next_u64`] alone, so the generators that shared this
//! algorithm before the testkit existed (each had its own wrapper) draw the same cases from the
//! same seeds.

use ark_ff::PrimeField;
use zkbc::field::Fr;

/// The generator: a 64-bit state advanced by the golden-ratio increment and mixed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; `n = 0` panics: a generator bug).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "bug: Rng::below(0)");
        self.next_u64() % n
    }

    /// An index in `0..n` (`n > 0`), as [`Rng::below`] draws it.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty), cloned.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())].clone()
    }

    /// A uniformly random field element (up to negligible bias).
    pub fn field(&mut self) -> Fr {
        let mut bytes = [0u8; 48];
        for chunk in bytes.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        Fr::from_le_bytes_mod_order(&bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// The reference sequence for seed 0 (the first outputs of the published algorithm).
    #[test]
    fn the_sequence_is_splitmix64s() {
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
