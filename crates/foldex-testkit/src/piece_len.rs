//! [`check_piece_len`]: the pieces a fold runs in stay within the bounds it sets on their
//! lengths ([`Job::piece_len`](foldex_core::Job::piece_len)).

use crate::{basesizes, run_property};
use foldex_core::exec::PieceLen;
use foldex_core::{Basesize, Executor, ExecutorExt, Source};
use proptest::prelude::*;
use std::num::NonZeroUsize;
use std::ops::Range;

/// `0..len` with bounds on the pieces a fold over it runs in.
struct Bounded {
    len: usize,
    bounds: PieceLen,
}

impl Source for Bounded {
    type Item = usize;
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> usize {
        index
    }
    fn piece_len(&self) -> PieceLen {
        self.bounds
    }
}

/// The pieces a fold over `0..len` with `bounds` ran in, in index order, as a fold sees them:
/// one `init` per piece, then the piece's items in order.
fn observed_pieces(ex: &dyn Executor, len: usize, bounds: PieceLen) -> Vec<Range<usize>> {
    ex.fold(
        Bounded { len, bounds },
        Vec::new,
        |mut pieces: Vec<Range<usize>>, i| {
            match pieces.last_mut() {
                Some(last) if last.end == i => last.end += 1,
                _ => pieces.push(i..i + 1),
            }
            pieces
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    )
}

/// Piece lengths: for random lengths, basesizes and bounds (`min` and `max` alone, both, and
/// both in conflict), every item is folded once, in order, and every piece a fold observes
/// (one `init`, then its items) is no shorter than `min` (unless it is the whole input) and no
/// longer than `max`, or than `2 × min − 1` where `min` wins a conflict (rayon's bound). The
/// rule is [`PieceLen`]'s.
pub fn check_piece_len<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_piece_len_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_piece_len`] through `&dyn Executor`, compiled once.
fn check_piece_len_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let bound = prop_oneof![Just(None), (1usize..=64).prop_map(Some)];
    let cases = (0usize..=1500, basesizes(), bound.clone(), bound);
    run_property("piece_len", cases, |(len, bs, min, max)| {
        let ex = make(bs);
        let mut bounds = PieceLen::ANY;
        if let Some(min) = min.and_then(NonZeroUsize::new) {
            bounds = bounds.at_least(min);
        }
        if let Some(max) = max.and_then(NonZeroUsize::new) {
            bounds = bounds.at_most(max);
        }
        // Twice: an executor that learns from a fold's length sees the length again.
        for _ in 0..2 {
            let pieces = observed_pieces(&*ex, len, bounds);
            let items: Vec<usize> = pieces.iter().flat_map(Clone::clone).collect();
            prop_assert_eq!(&items, &(0..len).collect::<Vec<_>>(), "{:?}", pieces);
            let min = bounds.min();
            let max = bounds.max().max(2 * min - 1);
            for piece in &pieces {
                prop_assert!(
                    pieces.len() == 1 || ExactSizeIterator::len(piece) >= min,
                    "piece {:?} shorter than min {} (of {}): {:?}",
                    piece,
                    min,
                    len,
                    pieces
                );
                prop_assert!(
                    ExactSizeIterator::len(piece) <= max,
                    "piece {:?} longer than max {} (of {}): {:?}",
                    piece,
                    max,
                    len,
                    pieces
                );
            }
        }
        Ok(())
    });
}
