//! [`ChoiceTable`]: what an executor chose for folds of each length, recalled with a few loads
//! and a store, no lock, no allocation and no clock.
//!
//! An executor that decides per fold how to run it (inline on the caller, on a pool, ...) and
//! measures to decide, can remember the decision for folds of the same length, so that the
//! next one of that length runs at once. For folds that run inline, that memory is most of
//! what the executor costs over the loop itself: it must cost a few nanoseconds.
//!
//! The table holds [`ChoiceTable::LENGTHS`] lengths, in [`ChoiceTable::GROUPS`] groups of
//! [`ChoiceTable::WAYS`] by a hash of the length; a group is one cache line. Each length has
//! one word: the length, the choice (a `u8` code of the executor's own) and the folds of that
//! length since it was learned. [`ChoiceTable::recall`] counts a fold and answers
//! [`Recalled::Remembered`] until `measure_every` folds of that length have been counted since
//! it was learned, and [`Recalled::MeasureAgain`] from then on, until the executor learns the
//! length again ([`ChoiceTable::learn`]); a length too long to be held (2^48 and more) is
//! never remembered. A length learned into a full group takes the place of another one there.
//!
//! The count is kept with a plain load and store, not a read-modify-write: on one thread the
//! table counts exactly; two threads folding the same length at once may lose a count, or a
//! choice learned at that moment, which only moves that length's next measurement. What it
//! answers is always a code that was learned for that length (the word holds both). The
//! memory is a hint, so that no fold pays for a locked instruction, or waits for another.
//!
//! ```
//! use foldex_core::exec::{ChoiceTable, Recalled};
//!
//! const INLINE: u8 = 1;
//! let table = ChoiceTable::new(4);
//! assert_eq!(table.recall(16), Recalled::Unknown);
//! table.learn(16, INLINE);
//! let folds: Vec<Recalled> = (0..5).map(|_| table.recall(16)).collect();
//! assert_eq!(folds[..3], [Recalled::Remembered(INLINE); 3]);
//! assert_eq!(folds[3..], [Recalled::MeasureAgain(INLINE); 2]);
//! table.learn(16, INLINE);
//! assert_eq!(table.recall(16), Recalled::Remembered(INLINE));
//! ```

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// What [`ChoiceTable::recall`] knows of a length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recalled {
    /// The code learned for this length, which stands without measuring.
    Remembered(u8),
    /// The code learned for this length, whose turn to be measured again has come.
    MeasureAgain(u8),
    /// Nothing learned for this length (or it gave its place to another).
    Unknown,
}

/// Eight words on one cache line: the lengths of one group.
#[repr(align(64))]
struct Group([AtomicU64; ChoiceTable::WAYS]);

/// What an executor chose for folds of each length; see the module docs.
pub struct ChoiceTable {
    groups: [Group; ChoiceTable::GROUPS],
    /// Folds of a length counted before it is measured again.
    measure_every: u8,
    /// Turns of the ways that learning into a full group replaces.
    evictions: AtomicUsize,
}

/// A word: the length plus one in bits 16..64 (never zero in a held word), the code in bits
/// 8..16, the folds counted since it was learned in bits 0..8.
const LEN_SHIFT: u32 = 16;
const CODE_SHIFT: u32 = 8;
const COUNT_MASK: u64 = 0xff;

impl ChoiceTable {
    /// Lengths in a group: eight words, one cache line.
    pub const WAYS: usize = 8;
    /// Groups of lengths.
    pub const GROUPS: usize = 8;
    /// The most lengths the table holds at once.
    pub const LENGTHS: usize = Self::WAYS * Self::GROUPS;
    /// The longest length the table holds (`2^48 - 2`).
    pub const MAX_LEN: usize = (1 << (64 - LEN_SHIFT)) - 2;

    /// An empty table whose lengths are measured again every `measure_every` folds (at least
    /// 1: every fold measures; at most 255).
    ///
    /// # Panics
    /// If `measure_every` is 0.
    pub const fn new(measure_every: u8) -> Self {
        assert!(measure_every >= 1, "measure_every: at least 1");
        Self {
            groups: [const { Group([const { AtomicU64::new(0) }; Self::WAYS]) }; Self::GROUPS],
            measure_every,
            evictions: AtomicUsize::new(0),
        }
    }

    /// The words that may hold `len`.
    fn group(&self, len: usize) -> &[AtomicU64; Self::WAYS] {
        // Fibonacci hashing: the top bits of the product spread nearby lengths.
        let hash = (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.groups[(hash >> (64 - Self::GROUPS.trailing_zeros())) as usize].0
    }

    /// The key of `len` in a word (its bits 16..64); `None` for a length too long to hold.
    fn key(len: usize) -> Option<u64> {
        (len <= Self::MAX_LEN).then(|| (len as u64 + 1) << LEN_SHIFT)
    }

    /// What was learned for folds of `len`, counting this fold: see [`Recalled`].
    #[inline]
    pub fn recall(&self, len: usize) -> Recalled {
        self.recall_if(len, |_| true)
    }

    /// What [`recall`](Self::recall) answers, but counting this fold only when the answer is
    /// [`Recalled::Remembered(code)`](Recalled::Remembered): an executor asked ahead whether a
    /// fold runs one way ([`Executor::runs_inline`](crate::Executor::runs_inline)) answers
    /// with it, counting the folds that run that way, and recalls the others (uncounted so
    /// far) as it runs them, so that each fold is counted once. A
    /// [`Recalled::MeasureAgain(code)`](Recalled::MeasureAgain) is the fold that checks that
    /// way (counted by nothing: it is answered so until the length is learned again).
    ///
    /// ```
    /// use foldex_core::exec::{ChoiceTable, Recalled};
    ///
    /// const INLINE: u8 = 1;
    /// const POOL: u8 = 2;
    /// let table = ChoiceTable::new(3);
    /// table.learn(16, INLINE);
    /// table.learn(1000, POOL);
    /// assert_eq!(table.recall_as(16, INLINE), Recalled::Remembered(INLINE));
    /// assert_eq!(table.recall_as(1000, INLINE), Recalled::Remembered(POOL), "not counted");
    /// assert_eq!(table.recall(1000), Recalled::Remembered(POOL));
    /// assert_eq!(table.recall(1000), Recalled::Remembered(POOL));
    /// assert_eq!(table.recall(1000), Recalled::MeasureAgain(POOL));
    /// assert_eq!(table.recall_as(16, INLINE), Recalled::Remembered(INLINE));
    /// assert_eq!(table.recall_as(16, INLINE), Recalled::MeasureAgain(INLINE));
    /// assert_eq!(table.recall_as(16, INLINE), Recalled::MeasureAgain(INLINE));
    /// table.learn(16, INLINE);
    /// assert_eq!(table.recall_as(16, INLINE), Recalled::Remembered(INLINE));
    /// assert_eq!(table.recall_as(17, INLINE), Recalled::Unknown);
    /// ```
    #[inline]
    pub fn recall_as(&self, len: usize, code: u8) -> Recalled {
        self.recall_if(len, |held| held == code)
    }

    /// What was learned for folds of `len`, counting this fold if `count` accepts its code.
    #[inline]
    fn recall_if(&self, len: usize, count: impl Fn(u8) -> bool) -> Recalled {
        let Some(key) = Self::key(len) else {
            return Recalled::Unknown;
        };
        for word in self.group(len) {
            let held = word.load(Ordering::Relaxed);
            if held >> LEN_SHIFT != key >> LEN_SHIFT {
                continue;
            }
            let code = (held >> CODE_SHIFT) as u8;
            let counted = held & COUNT_MASK;
            if counted + 1 >= u64::from(self.measure_every) {
                return Recalled::MeasureAgain(code);
            }
            if count(code) {
                word.store(held + 1, Ordering::Relaxed);
            }
            return Recalled::Remembered(code);
        }
        Recalled::Unknown
    }

    /// Remembers `code` for folds of `len`, with no fold counted yet; in the place of another
    /// length if `len`'s group is full.
    pub fn learn(&self, len: usize, code: u8) {
        let Some(key) = Self::key(len) else {
            return;
        };
        let word = key | u64::from(code) << CODE_SHIFT;
        let group = self.group(len);
        let held = |w: &AtomicU64| w.load(Ordering::Relaxed);
        let place = group
            .iter()
            .find(|w| held(w) >> LEN_SHIFT == key >> LEN_SHIFT)
            .or_else(|| group.iter().find(|w| held(w) == 0))
            .unwrap_or_else(|| &group[self.evictions.fetch_add(1, Ordering::Relaxed) % Self::WAYS]);
        place.store(word, Ordering::Relaxed);
    }

    /// Forgets what was learned for folds of `len`: the next one is [`Recalled::Unknown`].
    pub fn forget(&self, len: usize) {
        let Some(key) = Self::key(len) else {
            return;
        };
        for word in self.group(len) {
            let held = word.load(Ordering::Relaxed);
            if held >> LEN_SHIFT == key >> LEN_SHIFT {
                // Unless it was learned anew meanwhile.
                let _ = word.compare_exchange(held, 0, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
    }
}

impl Default for ChoiceTable {
    /// An empty table whose lengths are measured again every 16 folds.
    fn default() -> Self {
        Self::new(16)
    }
}

impl fmt::Debug for ChoiceTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = self
            .groups
            .iter()
            .flat_map(|g| &g.0)
            .filter(|w| w.load(Ordering::Relaxed) != 0)
            .count();
        f.debug_struct("ChoiceTable")
            .field("lengths", &held)
            .field("measure_every", &self.measure_every)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_is_remembered_until_its_turn_to_measure_again() {
        let table = ChoiceTable::new(16);
        assert_eq!(table.recall(16), Recalled::Unknown);
        table.learn(16, 7);
        for _ in 0..15 {
            assert_eq!(table.recall(16), Recalled::Remembered(7));
        }
        // Until it is learned again, every fold measures.
        for _ in 0..3 {
            assert_eq!(table.recall(16), Recalled::MeasureAgain(7));
        }
        table.learn(16, 2);
        assert_eq!(table.recall(16), Recalled::Remembered(2));
        assert_eq!(table.recall(17), Recalled::Unknown, "another length");
    }

    #[test]
    fn asking_as_one_code_counts_only_that_code() {
        let table = ChoiceTable::new(4);
        table.learn(8, 1);
        table.learn(9, 2);
        // Another code, asked for many times, is never counted.
        for _ in 0..10 {
            assert_eq!(table.recall_as(9, 1), Recalled::Remembered(2));
        }
        for _ in 0..3 {
            assert_eq!(
                table.recall_as(8, 2),
                Recalled::Remembered(1),
                "not counted"
            );
            assert_eq!(table.recall_as(8, 1), Recalled::Remembered(1));
        }
        // Both ways of recalling count into one tally.
        assert_eq!(table.recall_as(8, 1), Recalled::MeasureAgain(1));
        assert_eq!(table.recall(8), Recalled::MeasureAgain(1));
        assert_eq!(table.recall(9), Recalled::Remembered(2));
        assert_eq!(table.recall(9), Recalled::Remembered(2));
        assert_eq!(table.recall(9), Recalled::Remembered(2));
        assert_eq!(table.recall_as(9, 2), Recalled::MeasureAgain(2));
    }

    #[test]
    fn measuring_every_fold_never_remembers() {
        let table = ChoiceTable::new(1);
        table.learn(3, 1);
        assert_eq!(table.recall(3), Recalled::MeasureAgain(1));
        assert_eq!(table.recall(3), Recalled::MeasureAgain(1));
    }

    #[test]
    fn codes_and_lengths_keep_their_bits() {
        let table = ChoiceTable::new(255);
        for (len, code) in [
            (0, 0),
            (1, 255),
            (ChoiceTable::MAX_LEN, 128),
            (usize::from(u16::MAX) + 1, 1),
        ] {
            table.learn(len, code);
            assert_eq!(table.recall(len), Recalled::Remembered(code), "{len}");
        }
        // Folds counted up to the last one before measuring again do not spill into the code.
        table.learn(5, 3);
        for _ in 0..253 {
            assert_eq!(table.recall(5), Recalled::Remembered(3));
        }
        assert_eq!(table.recall(5), Recalled::Remembered(3));
        assert_eq!(table.recall(5), Recalled::MeasureAgain(3));
    }

    #[test]
    fn too_long_a_length_is_never_remembered() {
        let table = ChoiceTable::new(16);
        for len in [ChoiceTable::MAX_LEN + 1, usize::MAX] {
            table.learn(len, 1);
            assert_eq!(table.recall(len), Recalled::Unknown);
            table.forget(len);
        }
    }

    #[test]
    fn forgetting_a_length_leaves_the_others() {
        let table = ChoiceTable::new(16);
        table.learn(10, 1);
        table.learn(11, 2);
        table.forget(10);
        assert_eq!(table.recall(10), Recalled::Unknown);
        assert_eq!(table.recall(11), Recalled::Remembered(2));
    }

    #[test]
    fn every_group_holds_its_ways_and_a_full_one_gives_a_place_up() {
        let table = ChoiceTable::new(16);
        // Lengths that fall in one group.
        let group = |len: usize| std::ptr::from_ref(table.group(len));
        let same: Vec<usize> = (0..)
            .filter(|&len| group(len) == group(0))
            .take(ChoiceTable::WAYS + 1)
            .collect();
        for (i, &len) in same[..ChoiceTable::WAYS].iter().enumerate() {
            table.learn(len, i as u8);
        }
        for (i, &len) in same[..ChoiceTable::WAYS].iter().enumerate() {
            assert_eq!(table.recall(len), Recalled::Remembered(i as u8));
        }
        let newcomer = same[ChoiceTable::WAYS];
        table.learn(newcomer, 99);
        assert_eq!(table.recall(newcomer), Recalled::Remembered(99));
        let still = same[..ChoiceTable::WAYS]
            .iter()
            .filter(|&&len| table.recall(len) != Recalled::Unknown)
            .count();
        assert_eq!(still, ChoiceTable::WAYS - 1, "one gave its place up");
    }

    #[test]
    fn the_table_holds_as_many_lengths_as_it_says() {
        // Lengths spread over the groups fill every way.
        let table = ChoiceTable::new(16);
        let mut learned = 0;
        for len in 0.. {
            if learned == ChoiceTable::LENGTHS {
                break;
            }
            if table
                .group(len)
                .iter()
                .any(|w| w.load(Ordering::Relaxed) == 0)
            {
                table.learn(len, 1);
                learned += 1;
            }
        }
        let held = table
            .groups
            .iter()
            .flat_map(|g| &g.0)
            .filter(|w| w.load(Ordering::Relaxed) != 0)
            .count();
        assert_eq!(held, ChoiceTable::LENGTHS);
        assert!(format!("{table:?}").contains("lengths: 64"));
    }

    #[test]
    fn threads_counting_at_once_only_ever_see_learned_codes() {
        let table = ChoiceTable::new(4);
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..10_000usize {
                        let len = i % 3;
                        match table.recall(len) {
                            Recalled::Remembered(code) | Recalled::MeasureAgain(code) => {
                                assert_eq!(usize::from(code) % 3, len);
                            }
                            Recalled::Unknown => {}
                        }
                        if i % 7 == 0 {
                            table.learn(len, (len + 3 * usize::from(t)) as u8);
                        }
                    }
                });
            }
        });
    }
}
