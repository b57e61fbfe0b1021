//! [`OnceBits`]: which indices of a buffer have been handed out, so that none is handed out
//! twice.
//!
//! The audited module's element hand-outs ([`MutSlice`](crate::MutSlice),
//! [`OwnedVec`](crate::OwnedVec), [`VecWriter`](crate::exec::VecWriter)) rely on it for soundness:
//! [`OnceBits::take`] succeeds for a range only if no index of it was taken before, and then
//! every index of it counts as taken, for good. Two takes that overlap, on any threads, never
//! both succeed (each word is updated by one atomic read-modify-write, and all updates of a
//! word are totally ordered). It needs no `unsafe`.
#![forbid(unsafe_code)]

use crate::exec::sync::{AtomicU64, Ordering};
use std::ops::Range;

/// One bit per index, set once the index has been taken.
#[derive(Debug)]
pub(crate) struct OnceBits {
    words: Box<[AtomicU64]>,
    len: usize,
}

/// Bit mask of the indices `from..to` of word `word` (indices in the word's 64).
fn mask(word: usize, range: &Range<usize>) -> u64 {
    let first = range.start.max(word * 64) - word * 64;
    let last = range.end.min(word * 64 + 64) - word * 64; // exclusive, 1..=64
    let high = if last == 64 {
        u64::MAX
    } else {
        (1 << last) - 1
    };
    high & !((1u64 << first) - 1)
}

impl OnceBits {
    /// `len` indices, none taken.
    ///
    /// # Panics
    /// If there is no memory for `len` bits (a slice of zero-sized items can be that long),
    /// naming `len`, rather than aborting.
    pub(crate) fn new(len: usize) -> Self {
        let count = len.div_ceil(64);
        let mut words = Vec::new();
        if words.try_reserve_exact(count).is_err() {
            panic!("foldex: no memory to track {len} elements (one bit each)");
        }
        words.extend((0..count).map(|_| AtomicU64::new(0)));
        Self {
            words: words.into_boxed_slice(),
            len,
        }
    }

    /// Takes every index of `range`: `Ok` if none was taken before, and then all are;
    /// otherwise `Err` with the first index found taken, and no index of `range` changes.
    ///
    /// # Panics
    /// If `range` is reversed or ends past `len`, naming both.
    pub(crate) fn take(&self, range: Range<usize>) -> Result<(), usize> {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "foldex: range {range:?} is out of bounds for {} items (executor bug)",
            self.len
        );
        if range.is_empty() {
            return Ok(());
        }
        let words = range.start / 64..(range.end - 1) / 64 + 1;
        for word in words.clone() {
            let bits = mask(word, &range);
            // Relaxed: exclusivity comes from the read-modify-write alone; the elements are
            // handed between threads by whatever moved the buffer's owner there.
            let before = self.words[word].fetch_or(bits, Ordering::Relaxed);
            if before & bits != 0 {
                // Give back what this call took: the bits it set in this word, and the whole
                // mask of every earlier word of the range.
                self.words[word].fetch_and(!(bits & !before), Ordering::Relaxed);
                for earlier in words.start..word {
                    self.words[earlier].fetch_and(!mask(earlier, &range), Ordering::Relaxed);
                }
                let first = word * 64 + (before & bits).trailing_zeros() as usize;
                return Err(first);
            }
        }
        Ok(())
    }

    /// `true` if `index` has been taken. Exact once no other thread takes any more.
    pub(crate) fn is_taken(&self, index: usize) -> bool {
        self.words[index / 64].load(Ordering::Relaxed) & (1 << (index % 64)) != 0
    }

    /// The indices not taken, in order. Exact once no other thread takes any more.
    #[cfg(test)]
    pub(crate) fn untaken(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(|&i| !self.is_taken(i))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::OnceBits;

    #[test]
    fn takes_each_index_once() {
        let bits = OnceBits::new(200);
        assert_eq!(bits.take(10..130), Ok(()));
        assert_eq!(bits.take(0..10), Ok(()));
        assert_eq!(bits.take(129..131), Err(129));
        // The failed take gave back 130.
        assert_eq!(bits.take(130..200), Ok(()));
        assert_eq!(bits.take(5..6), Err(5));
        assert!(bits.untaken().next().is_none());
    }

    #[test]
    fn a_failed_take_changes_nothing() {
        let bits = OnceBits::new(300);
        assert_eq!(bits.take(250..260), Ok(()));
        assert_eq!(bits.take(1..255), Err(250));
        assert_eq!(bits.untaken().count(), 290);
        assert_eq!(bits.take(0..64), Ok(()));
        assert_eq!(bits.take(64..250), Ok(()));
        assert_eq!(bits.take(260..300), Ok(()));
        assert_eq!(bits.take(0..0), Ok(()));
    }

    #[test]
    #[should_panic(expected = "out of bounds for 5 items")]
    fn out_of_bounds_panics() {
        let _ = OnceBits::new(5).take(3..6);
    }
}
