//! [`Results`]: the values an instruction defines, in 16 bytes.
//!
//! Nearly every instruction defines one value, `assert`, `store` and `log` none, and only
//! `call`, `hint` and a few others more. Up to three are stored inline; more take one heap
//! block (a [`ThinVec`], one pointer). A `SmallVec` holding four inline took 24 bytes, and an
//! unrolled loop makes millions of instructions: this keeps an
//! [`InstData`](super::InstData) at 56 bytes.

use super::entities::ValueId;
use thin_vec::ThinVec;

/// An instruction's result values; read and written as a slice (`results[0]`, `.iter()`,
/// `.iter_mut()`, `.len()`).
#[derive(Clone)]
pub enum Results {
    /// Up to three values (`Few(n, ids)`: the first `n` of `ids`).
    Few(u8, [ValueId; 3]),
    /// Four or more.
    Many(ThinVec<ValueId>),
}

const _: () = assert!(std::mem::size_of::<Results>() == 16);

impl Results {
    /// No results.
    pub fn new() -> Results {
        Results::Few(0, [ValueId(0); 3])
    }
}

impl Default for Results {
    fn default() -> Results {
        Results::new()
    }
}

impl std::ops::Deref for Results {
    type Target = [ValueId];

    fn deref(&self) -> &[ValueId] {
        match self {
            Results::Few(n, ids) => &ids[..*n as usize],
            Results::Many(ids) => ids,
        }
    }
}

impl std::ops::DerefMut for Results {
    fn deref_mut(&mut self) -> &mut [ValueId] {
        match self {
            Results::Few(n, ids) => &mut ids[..*n as usize],
            Results::Many(ids) => ids,
        }
    }
}

impl FromIterator<ValueId> for Results {
    fn from_iter<I: IntoIterator<Item = ValueId>>(iter: I) -> Results {
        let mut ids = [ValueId(0); 3];
        let mut iter = iter.into_iter();
        for n in 0..3 {
            match iter.next() {
                Some(v) => ids[n] = v,
                None => return Results::Few(n as u8, ids),
            }
        }
        match iter.next() {
            None => Results::Few(3, ids),
            Some(fourth) => {
                let mut many: ThinVec<ValueId> = ids.into_iter().collect();
                many.push(fourth);
                many.extend(iter);
                Results::Many(many)
            }
        }
    }
}

impl From<Vec<ValueId>> for Results {
    fn from(ids: Vec<ValueId>) -> Results {
        ids.into_iter().collect()
    }
}

impl IntoIterator for Results {
    type Item = ValueId;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        match self {
            Results::Few(n, ids) => IntoIter::Few(ids.into_iter().take(n as usize)),
            Results::Many(ids) => IntoIter::Many(ids.into_iter()),
        }
    }
}

/// The values of [`Results`], by value.
pub enum IntoIter {
    /// Of [`Results::Few`].
    Few(std::iter::Take<std::array::IntoIter<ValueId, 3>>),
    /// Of [`Results::Many`].
    Many(thin_vec::IntoIter<ValueId>),
}

impl Iterator for IntoIter {
    type Item = ValueId;

    fn next(&mut self) -> Option<ValueId> {
        match self {
            IntoIter::Few(it) => it.next(),
            IntoIter::Many(it) => it.next(),
        }
    }
}

impl<'a> IntoIterator for &'a Results {
    type Item = &'a ValueId;
    type IntoIter = std::slice::Iter<'a, ValueId>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Equal as lists of values, however stored.
impl PartialEq for Results {
    fn eq(&self, other: &Results) -> bool {
        **self == **other
    }
}

impl Eq for Results {}

impl std::hash::Hash for Results {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

/// As a list, like the slice it reads as.
impl std::fmt::Debug for Results {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: u32) -> Vec<ValueId> {
        (0..n).map(|k| ValueId(10 + k)).collect()
    }

    #[test]
    fn every_length_reads_back_as_written() {
        for n in 0..8 {
            let written = ids(n);
            let results: Results = written.clone().into();
            assert_eq!(&*results, &written[..]);
            assert_eq!(results.len(), n as usize);
            assert_eq!(matches!(results, Results::Many(_)), n > 3);
            assert_eq!(results.iter().copied().collect::<Vec<_>>(), written);
            assert_eq!(results.clone().into_iter().collect::<Vec<_>>(), written);
            assert_eq!(format!("{results:?}"), format!("{written:?}"));
        }
    }

    #[test]
    fn values_are_rewritten_in_place_and_compare_as_lists() {
        for n in [1, 3, 5] {
            let mut results: Results = ids(n).into();
            results.iter_mut().for_each(|v| v.0 += 100);
            let expected: Results = (0..n).map(|k| ValueId(110 + k)).collect();
            assert_eq!(results, expected);
            assert_ne!(results, Results::new());
        }
        assert_eq!(Results::new(), Results::default());
        assert!(Results::new().is_empty());
    }
}
