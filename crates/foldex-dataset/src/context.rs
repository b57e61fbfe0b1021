//! What an observation's load can read about where it runs: its epoch, its index, a generator
//! of its own, and the worker that loads it ([`ItemContext::current`]).
//!
//! Whoever loads (the loader, or a fold of your own) sets the context in a thread-local around
//! each `get` ([`ItemContext::enter`]), so that any dataset, a `from_fn` closure or a
//! combinator's inner dataset, reads it without a shared counter and without a change to its
//! signature. The thread-local keeps the context and, apart, whether it is set: a load that no
//! other load encloses (every load but a nested one) writes the context and the flag before
//! `get` and clears the flag after, and reads nothing; a nested load saves the context it
//! replaces and puts it back.

use crate::rng::{rng_for, ItemRng};
use std::cell::Cell;

/// Where the observation being loaded sits: its epoch, its index, the loader's seed and the
/// worker that loads it. Read it inside [`Dataset::get`](crate::Dataset::get) with
/// [`ItemContext::current`].
///
/// ```
/// use foldex_dataset::{from_fn, ItemContext};
/// use foldex_loader::Loader;
/// use rand::RngExt;
/// use foldex_threaded::ThreadedEx;
///
/// // A random flip per image, the same on every executor and after resumption.
/// let flips = from_fn(100, |_| {
///     let cx = ItemContext::current().expect("loaded by a loader");
///     cx.rng().random_bool(0.5)
/// });
/// let loader = Loader::new(flips, ThreadedEx::new().basesize(1)).seed(7).unbatched();
/// let first: Vec<bool> = loader.iter().collect();
/// let second: Vec<bool> = loader.iter().collect(); // epoch 1: other draws
/// assert_ne!(first, second);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemContext {
    seed: u64,
    epoch: u64,
    index: usize,
    /// The generator's key when it is not the index (a draw of a sampler's list).
    key: Option<usize>,
    worker: usize,
}

/// The observation this thread is loading: `context`, while `set`.
struct Current {
    set: Cell<bool>,
    context: Cell<ItemContext>,
}

thread_local! {
    static CURRENT: Current = const {
        Current {
            set: Cell::new(false),
            context: Cell::new(ItemContext::new(0, 0, 0, 0)),
        }
    };
}

impl ItemContext {
    /// The context of observation `index` of `epoch`, loaded by `worker` for a loader seeded
    /// with `seed`; its generator's key is the index unless [`keyed`](Self::keyed) sets one.
    #[inline]
    pub const fn new(seed: u64, epoch: u64, index: usize, worker: usize) -> Self {
        Self {
            seed,
            epoch,
            index,
            key: None,
            worker,
        }
    }

    /// The same context with `key` in place of the index as its generator's key: a draw's
    /// position in an epoch whose order may visit an index more than once.
    #[inline]
    pub fn keyed(self, key: Option<usize>) -> Self {
        Self { key, ..self }
    }

    /// Runs `load` with this context as [`current`](Self::current) on this thread, and puts
    /// the context it found back however `load` ends (a load may run another load on this
    /// thread, which nests inside it).
    #[inline]
    pub fn enter<R>(self, load: impl FnOnce() -> R) -> R {
        /// The context an enclosing load had set, put back however `load` ends; `None` when
        /// none was set, and then only the flag is cleared.
        struct Restore(Option<ItemContext>);
        impl Drop for Restore {
            #[inline]
            fn drop(&mut self) {
                CURRENT.with(|current| match self.0 {
                    None => current.set.set(false),
                    Some(enclosing) => current.context.set(enclosing),
                });
            }
        }
        let _restore = Restore(CURRENT.with(|current| {
            let enclosing = current.set.replace(true).then(|| current.context.get());
            current.context.set(self);
            enclosing
        }));
        load()
    }

    /// The context of the observation this thread is loading for a loader, or `None` outside a
    /// load (a dataset called directly, or by a fold of your own).
    #[inline]
    pub fn current() -> Option<Self> {
        CURRENT.with(|current| current.set.get().then(|| current.context.get()))
    }

    /// The epoch being loaded (0 for a loader's first iteration; a resumed epoch keeps its
    /// number).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The index the loader asked for: the loaded dataset's own (for a view such as a subset,
    /// the view's index, not the one it maps to); for a stream loader (`StreamLoader`),
    /// the item's position in the epoch's stream.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The loader's seed (`Loader::seed`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The worker loading the observation: a number for each thread that loads in this epoch,
    /// given in the order threads first load (0, 1, 2, …), the same as its place in
    /// `Stats::workers`. Which worker loads which observation depends
    /// on timing; use [`ItemContext::rng`], never the worker, for anything that must be
    /// reproducible.
    pub fn worker(&self) -> usize {
        self.worker
    }

    /// This observation's generator, [`rng_for`]`(seed, epoch, index)`: the same draws on
    /// every executor, thread count and resumption. Each call starts the stream afresh. Under
    /// a sampler that lists the epoch's indices ([`Weighted`](crate::sampler::Weighted),
    /// [`ByLength`](crate::sampler::ByLength), your own), which may draw an index more than once, the
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_set_during_a_load_and_restored_after_a_nested_one() {
        assert_eq!(ItemContext::current(), None);
        let (outer, inner, after) = ItemContext::new(5, 2, 4, 1).enter(|| {
            let outer = ItemContext::current().unwrap();
            let inner =
                ItemContext::new(5, 2, 9, 1).enter(|| ItemContext::current().unwrap().index());
            (outer, inner, ItemContext::current().unwrap().index())
        });
        assert_eq!(
            (outer.epoch(), outer.index(), outer.seed(), outer.worker()),
            (2, 4, 5, 1)
        );
        assert_eq!((inner, after), (9, 4));
        assert_eq!(outer.rng(), rng_for(5, 2, 4));
        assert_eq!(outer.keyed(Some(7)).rng(), rng_for(5, 2, 7));
        assert_eq!(ItemContext::current(), None);
    }

    #[test]
    fn a_nested_load_that_panics_leaves_every_enclosing_context_in_place() {
        let seen = ItemContext::new(1, 0, 10, 0).enter(|| {
            let middle = ItemContext::new(1, 0, 20, 0).enter(|| {
                let unwound = std::panic::catch_unwind(|| {
                    ItemContext::new(1, 0, 30, 0).enter(|| panic!("inner"))
                });
                assert!(unwound.is_err());
                ItemContext::current().map(|c| c.index())
            });
            (middle, ItemContext::current().map(|c| c.index()))
        });
        assert_eq!(seen, (Some(20), Some(10)));
        assert_eq!(ItemContext::current(), None);
        // A load after them starts from no context and leaves none.
        let after = ItemContext::new(2, 1, 5, 3).enter(ItemContext::current);
        assert_eq!(after, Some(ItemContext::new(2, 1, 5, 3)));
        assert_eq!(ItemContext::current(), None);
    }

    #[test]
    fn a_panicking_load_puts_the_context_back() {
        let unwound = std::panic::catch_unwind(|| ItemContext::new(0, 0, 3, 0).enter(|| panic!()));
        assert!(unwound.is_err());
        assert_eq!(ItemContext::current(), None);
    }
}
