//! Sources that cannot be indexed by item, cut into blocks of positions (bytes of a text,
//! elements of a slice) instead: block `i` yields the items that START in its positions, found
//! by looking at the neighbouring positions, so no pass over the input comes before the fold,
//! and however an executor splits the blocks, the items and their order are the sequential
//! ones. The pipeline flattens the blocks' items ([`Pieces`]): an item that starts in a block
//! and ends in a later one is read whole by the block it starts in.

use super::from_source;
use crate::pipeline::Pipeline;
use crate::stage::Xf;
use crate::stages::FlatMap;
use foldex_core::Source;
use std::ops::Range;

/// How an input is cut into items: the items that start in a range of positions.
pub trait Cut: Sync {
    /// The items starting in one range of positions, in order.
    type Block: Iterator;

    /// The number of positions (`0..positions()` can hold the start of an item).
    fn positions(&self) -> usize;

    /// The items that start in `range` (a range of positions), in order.
    fn starting_in(&self, range: Range<usize>) -> Self::Block;
}

/// The blocks of a [`Cut`] as a [`Source`]: item `i` is the iterator of the items that start in
/// block `i`, of about `max(1, min(positions / 4096, 1024))` positions (so a small input
/// still has a block per position, and a block of a large one is long enough that finding its
/// first item costs next to nothing).
#[derive(Debug, Clone)]
pub struct Blocks<C> {
    cut: C,
    positions: usize,
    block: usize,
}

impl<C: Cut> Source for Blocks<C> {
    type Item = C::Block;
    #[inline]
    fn len(&self) -> usize {
        self.positions.div_ceil(self.block)
    }
    #[inline]
    fn get(&self, index: usize) -> C::Block {
        let start = index * self.block;
        assert!(
            start < self.positions,
            "block {index} out of {} blocks",
            self.len()
        );
        let end = (start + self.block).min(self.positions);
        self.cut.starting_in(start..end)
    }
}

/// A pipeline over the items of a [`Cut`]: its [`Blocks`], flattened. Not indexable (a
/// transform follows the source); every transform and reduction works on it.
pub type Pieces<C> = Pipeline<Blocks<C>, Xf<FlatMap<Flatten<<C as Cut>::Block>>>>;

/// The function that flattens a block: a block is already the iterator of its items.
pub type Flatten<B> = fn(B) -> B;

fn same<B>(block: B) -> B {
    block
}

/// The pipeline over the items of `cut`.
pub(crate) fn pieces<C: Cut>(cut: C) -> Pieces<C> {
    let positions = cut.positions();
    let block = (positions / 4096).clamp(1, 1024);
    from_source(Blocks {
        cut,
        positions,
        block,
    })
    .flat_map(same as Flatten<C::Block>)
}
