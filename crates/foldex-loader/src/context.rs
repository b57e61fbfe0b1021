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
    /// The generator's key when it is not the index (a draw of a sampler's list).
    key: Option<usize>,
    worker: usize,
}

thread_local! {
    /// The observation this thread is loading, if any.
    static CURRENT: Cell<Option<ItemContext>> = const { Cell::new(None) };
    /// The index of the innermost load that a panic unwound through, until taken.
    static PANICKED: Cell<Option<usize>> = const { Cell::new(None) };
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
    /// every executor, thread count and resumption. Each call starts the stream afresh. Under
    /// a sampler that lists the epoch's indices ([`Weighted`](crate::Weighted),
    /// [`ByLength`](crate::ByLength), your own), which may draw an index more than once, the
    /// key is the draw's position in the epoch's order instead of the index, so that each draw
    /// gets its own augmentation.
    pub fn rng(&self) -> ItemRng {
        rng_for(
            self.seed,
            self.epoch,
            self.key.unwrap_or_else(|| self.index()),
        )
    }
}

/// Runs `load` for observation `index` with its context set, and puts the context it found
/// back however `load` ends (a load may run another loader's batches on this thread, whose
/// loads nest inside it). If `load` panics, its index stays behind for [`take_loading`].
pub(crate) fn loading<R>(
    cx: &LoadContext<'_>,
    index: usize,
    key: Option<usize>,
    load: impl FnOnce() -> R,
) -> R {
    struct Restore {
        before: Option<ItemContext>,
        index: usize,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            if std::thread::panicking() {
                // The innermost load the panic left is the one to blame.
                PANICKED.with(|p| {
                    if p.get().is_none() {
                        p.set(Some(self.index));
                    }
                });
            }
            CURRENT.with(|cell| cell.set(self.before));
        }
    }
    let item = ItemContext {
        seed: cx.seed,
        epoch: cx.epoch,
        index,
        offset: cx.offset,
        key,
        worker: cx.worker,
    };
    let _restore = Restore {
        before: CURRENT.with(|cell| cell.replace(Some(item))),
        index,
    };
    load()
}

/// Forgets any index a panic left behind: called before a batch is made, so that a panic
/// caught elsewhere (inside a dataset) is never blamed on a later batch.
pub(crate) fn clear_loading() {
    PANICKED.with(|p| p.set(None));
}

/// The index of the observation whose load panicked on this thread in the loaded dataset
/// (without a stream window's offset), if a load panicked (a panic in `collate` leaves none).
pub(crate) fn take_loading() -> Option<usize> {
    PANICKED.with(Cell::take)
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
        assert_eq!(loading(&cx(), 3, None, || 7), 7);
        assert_eq!(take_loading(), None);
        let unwound = std::panic::catch_unwind(|| loading(&cx(), 11, None, || panic!("boom")));
        assert!(unwound.is_err());
        assert_eq!(take_loading(), Some(11));
        assert_eq!(take_loading(), None, "taken once");
    }

    #[test]
    fn a_nested_load_that_panics_leaves_the_outer_context_and_its_own_index() {
        let (outer, blamed) = loading(&cx(), 4, None, || {
            let caught = std::panic::catch_unwind(|| loading(&cx(), 9, None, || panic!("inner")));
            assert!(caught.is_err());
            (ItemContext::current().map(|c| c.index()), take_loading())
        });
        assert_eq!((outer, blamed), (Some(4), Some(9)));
        assert_eq!(ItemContext::current(), None);
        assert_eq!(take_loading(), None);
    }

    #[test]
    fn the_context_is_set_during_a_load_and_restored_after_a_nested_one() {
        assert_eq!(ItemContext::current(), None);
        let (outer, inner, after) = loading(&cx(), 4, None, || {
            let outer = ItemContext::current().unwrap();
            let inner = loading(&cx(), 9, None, || ItemContext::current().unwrap().index());
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
