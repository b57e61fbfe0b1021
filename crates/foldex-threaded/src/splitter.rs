//! When a range is split further: the basesize floor, and for the automatic basesize a budget
//! of halvings that a theft renews (rayon's adaptive splitter).

use crate::registry::Share;
use foldex_core::exec::PieceLen;
use foldex_core::Basesize;
use std::ops::Range;

/// The automatic basesize never splits below `len / (FINEST × threads)`, however often pieces
/// are stolen: leaves stay large next to the cost of a fork.
const FINEST: usize = 64;

/// How a range may still be split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Splitter {
    /// Ranges no longer than this are leaves.
    floor: usize,
    /// Halvings left on this path; `u32::MAX` for a fixed basesize (no budget).
    halvings: u32,
    /// What a stolen range's budget is raised to.
    on_steal: u32,
    /// The job's bounds on piece lengths: a range longer than `max` splits whatever the budget
    /// says, and no range splits into a half shorter than `min`.
    bounds: PieceLen,
    /// When this fold's forks are handed to other threads.
    pub(crate) share: Share,
}

impl Splitter {
    /// A fixed basesize splits every range longer than it. [`Basesize::Auto`] halves `0..len`
    /// into about `PIECES_PER_WORKER × threads` leaves (`len / (4 × threads)` each); a range
    /// another worker steals gets enough halvings for `2 × threads` pieces again (down to
    /// `len / (64 × threads)`), so that work that turns out uneven, or a worker that loses its
    /// core for a while, is balanced by the workers that are free, not by a finer split for
    /// everyone.
    pub(crate) fn new(basesize: Basesize, len: usize, threads: usize, bounds: PieceLen) -> Self {
        match basesize {
            Basesize::Fixed(n) => Self {
                floor: n.get(),
                halvings: u32::MAX,
                on_steal: u32::MAX,
                bounds,
                share: Share::Always,
            },
            Basesize::Auto => Self {
                floor: (len / (FINEST * threads.max(1))).max(1),
                halvings: ceil_log2(Basesize::PIECES_PER_WORKER * threads),
                on_steal: ceil_log2(2 * threads),
                bounds,
                share: Share::Always,
            },
        }
    }

    /// The splitter of a fold that starts on a worker while no thread wants work (a fold
    /// nested in a step of a fold that keeps every worker busy): its forks stay pending until a
    /// thread wants work ([`Share::WhenWanted`]), and the automatic basesize splits it once, so
    /// that a thread that wants work later takes half of it, and a half that is taken splits
    /// again as any stolen range does. The other half costs a pending fork and one `combine`,
    /// not a tree of them. A fixed basesize splits as always.
    pub(crate) fn on_busy_pool(self) -> Self {
        let halvings = match self.halvings {
            u32::MAX => u32::MAX,
            halvings => halvings.min(1),
        };
        Self {
            halvings,
            share: Share::WhenWanted,
            ..self
        }
    }

    /// The two halves of `range` and the splitter for each, or `None` for a leaf.
    pub(crate) fn split(self, range: Range<usize>) -> Option<(Range<usize>, Range<usize>, Self)> {
        // A spent budget still splits a range longer than the job's `max`.
        let floor = if self.halvings == 0 {
            usize::MAX
        } else {
            self.floor
        };
        let (left, right) = self.bounds.split(range, floor)?;
        let halvings = if self.halvings == u32::MAX {
            u32::MAX
        } else {
            self.halvings.saturating_sub(1)
        };
        Some((left, right, Self { halvings, ..self }))
    }

    /// The splitter of a range that a worker other than the one that forked it runs.
    pub(crate) fn stolen(self) -> Self {
        Self {
            halvings: self.halvings.max(self.on_steal),
            ..self
        }
    }
}

fn ceil_log2(n: usize) -> u32 {
    n.max(1).next_power_of_two().trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    fn leaves(s: Splitter, range: Range<usize>) -> Vec<Range<usize>> {
        match s.split(range.clone()) {
            None => vec![range],
            Some((l, r, s)) => [leaves(s, l), leaves(s, r)].concat(),
        }
    }

    #[test]
    fn auto_gives_four_leaves_per_worker() {
        assert_eq!(
            leaves(
                Splitter::new(Basesize::Auto, 1000, 2, PieceLen::ANY),
                0..1000
            )
            .len(),
            8
        );
        assert_eq!(
            leaves(
                Splitter::new(Basesize::Auto, 1000, 3, PieceLen::ANY),
                0..1000
            )
            .len(),
            16
        );
    }

    #[test]
    fn a_stolen_auto_range_splits_again_down_to_the_floor() {
        let len = 1 << 20;
        let root = Splitter::new(Basesize::Auto, len, 2, PieceLen::ANY);
        // A leaf of the first split: a range of len / 8, with no halvings left.
        let mut leaf = root;
        for _ in 0..3 {
            leaf = leaf.split(0..len).unwrap().2;
        }
        assert_eq!(leaves(leaf, 0..len / 8).len(), 1);
        assert_eq!(
            leaves(leaf.stolen(), 0..len / 8).len(),
            4,
            "2 × threads pieces"
        );
        let tiny = leaves(root.stolen(), 0..len / 256);
        assert_eq!(tiny.len(), 1, "never below len / (64 × threads)");
    }

    #[test]
    fn auto_on_a_busy_pool_splits_once_until_stolen() {
        let busy = Splitter::new(Basesize::Auto, 1000, 4, PieceLen::ANY).on_busy_pool();
        assert_eq!(leaves(busy, 0..1000).len(), 2);
        let (_, _, half) = busy.split(0..1000).unwrap();
        assert_eq!(leaves(half.stolen(), 0..500).len(), 8, "2 × threads pieces");
        let fixed = Splitter::new(
            Basesize::Fixed(NonZeroUsize::new(10).unwrap()),
            100,
            2,
            PieceLen::ANY,
        );
        assert_eq!(leaves(fixed.on_busy_pool(), 0..100), leaves(fixed, 0..100));
    }

    #[test]
    fn max_splits_past_a_spent_budget_and_min_stops_the_split() {
        let max = PieceLen::ANY.at_most(NonZeroUsize::new(3).unwrap());
        let busy = Splitter::new(Basesize::Auto, 100, 4, max).on_busy_pool();
        let got = leaves(busy, 0..100);
        assert!(got.iter().all(|r| r.len() <= 3), "{got:?}");
        let min = PieceLen::ANY.at_least(NonZeroUsize::new(30).unwrap());
        let fixed = Splitter::new(Basesize::Fixed(NonZeroUsize::new(1).unwrap()), 100, 4, min);
        assert_eq!(leaves(fixed, 0..100).len(), 2, "halves of 50, not of 25");
    }

    #[test]
    fn fixed_splits_down_to_basesize_whatever_happens() {
        let fixed = Splitter::new(
            Basesize::Fixed(NonZeroUsize::new(10).unwrap()),
            100,
            2,
            PieceLen::ANY,
        );
        let got = leaves(fixed, 0..100);
        assert!(got.iter().all(|r| r.len() <= 10 && r.len() > 5), "{got:?}");
        assert_eq!(leaves(fixed.stolen(), 0..100), got);
    }
}
