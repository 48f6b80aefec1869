//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
//! the one small deterministic generator of zkbc's random programs, graphs and synthetic
//! workloads, so that a seed names the same case everywhere and on every machine. Not for
//! anything that needs unpredictability.

/// The generator: a 64-bit state advanced by the golden-ratio increment and mixed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    /// The reference sequence for seed 0 (the first outputs of the published algorithm).
    #[test]
    fn the_sequence_is_splitmix64s() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
