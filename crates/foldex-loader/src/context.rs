//! What an observation's load can read about where it runs: its epoch, its index, a generator
//! of its own, and the worker that loads it ([`ItemContext::current`]).
//!
//! The loader sets the context in a thread-local around each `get` (one `Cell` write before and
//! after), so that any dataset, a `from_fn` closure or a combinator's inner dataset, reads it
//! without a shared counter and without a change to its signature. The same cell tells a
//! panicking load's index to the consumer ([`take_loading`]).

use crate::loadable::LoadContext;
use crate::rng::{rng_for, ItemRng};
use std::cell::Cell;

/// Where the observation being loaded sits: its epoch, its index, the loader's seed and the
/// worker that loads it. Read it inside [`Dataset::get`](crate::Dataset::get) with
/// [`ItemContext::current`].
///
/// ```
/// use foldex_loader::{from_fn, ItemContext, Loader};
/// use rand::RngExt;
///
/// // A random flip per image, the same on every executor and after resumption.
/// let flips = from_fn(100, |_| {
///     let cx = ItemContext::current().expect("loaded by a loader");
///     cx.rng().random_bool(0.5)
/// });
/// let loader = Loader::new(flips).seed(7).unbatched();
/// let first: Vec<bool> = loader.iter().collect();
/// let second: Vec<bool> = loader.iter().collect(); // epoch 1: other draws
/// assert_ne!(first, second);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemContext {
    seed: u64,
    epoch: u64,
    /// The loaded dataset's index; a stream loader's window adds `offset` to it.
    index: usize,
    offset: usize,
    worker: usize,
}

thread_local! {
    /// The observation this thread is loading, if any; left behind by a load that panicked.
    static CURRENT: Cell<Option<ItemContext>> = const { Cell::new(None) };
}

impl ItemContext {
    /// The context of the observation this thread is loading for a loader, or `None` outside a
    /// load (a dataset called directly, or by a fold of your own).
    pub fn current() -> Option<Self> {
        CURRENT.with(Cell::get)
    }

    /// The epoch being loaded (0 for a loader's first iteration; a resumed epoch keeps its
    /// number).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The index the loader asked for: the loaded dataset's own (for a view such as a subset,
    /// the view's index, not the one it maps to); for a [`StreamLoader`](crate::StreamLoader),
    /// the item's position in the epoch's stream.
    pub fn index(&self) -> usize {
        self.index + self.offset
    }

    /// The loader's seed ([`Loader::seed`](crate::Loader::seed)).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The worker loading the observation: a number for each thread that loads in this epoch,
    /// given in the order threads first load (0, 1, 2, …), the same as its place in
    /// [`Stats::workers`](crate::Stats::workers). Which worker loads which observation depends
    /// on timing; use [`ItemContext::rng`], never the worker, for anything that must be
    /// reproducible.
    pub fn worker(&self) -> usize {
        self.worker
    }

    /// This observation's generator, [`rng_for`]`(seed, epoch, index)`: the same draws on
    /// every executor, thread count and resumption. Each call starts the stream afresh.
    pub fn rng(&self) -> ItemRng {
        rng_for(self.seed, self.epoch, self.index())
    }
}

/// Runs `load` for observation `index` with its context set. If it panics, the context stays
/// behind for [`take_loading`] on this thread; if it returns, the one before it is back.
pub(crate) fn loading<R>(cx: &LoadContext<'_>, index: usize, load: impl FnOnce() -> R) -> R {
    let item = ItemContext {
        seed: cx.seed,
        epoch: cx.epoch,
        index,
        offset: cx.offset,
        worker: cx.worker,
    };
    let before = CURRENT.with(|cell| cell.replace(Some(item)));
    let loaded = load();
    CURRENT.with(|cell| cell.set(before));
    loaded
}

/// The index of the observation whose load panicked on this thread in the loaded dataset
/// (without a stream window's offset), if a load panicked (a panic in `collate` leaves none).
pub(crate) fn take_loading() -> Option<usize> {
    CURRENT.with(Cell::take).map(|item| item.index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> LoadContext<'static> {
        LoadContext {
            recorder: None,
            seed: 5,
            epoch: 2,
            offset: 0,
            worker: 1,
        }
    }

    #[test]
    fn a_panicking_load_leaves_its_index_and_a_finished_one_does_not() {
        assert_eq!(loading(&cx(), 3, || 7), 7);
        assert_eq!(take_loading(), None);
        let unwound = std::panic::catch_unwind(|| loading(&cx(), 11, || panic!("boom")));
        assert!(unwound.is_err());
        assert_eq!(take_loading(), Some(11));
        assert_eq!(take_loading(), None, "taken once");
    }

    #[test]
    fn the_context_is_set_during_a_load_and_restored_after_a_nested_one() {
        assert_eq!(ItemContext::current(), None);
        let (outer, inner, after) = loading(&cx(), 4, || {
            let outer = ItemContext::current().unwrap();
            let inner = loading(&cx(), 9, || ItemContext::current().unwrap().index());
            (outer, inner, ItemContext::current().unwrap().index())
        });
        assert_eq!(
            (outer.epoch(), outer.index(), outer.seed(), outer.worker()),
            (2, 4, 5, 1)
        );
        assert_eq!((inner, after), (9, 4));
        assert_eq!(outer.rng(), rng_for(5, 2, 4));
        assert_eq!(ItemContext::current(), None);
    }
}
