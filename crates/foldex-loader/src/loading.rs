//! The load in progress on this thread: its [`ItemContext`], which the dataset reads, and the
//! index a panicking load leaves for the consumer ([`take_loading`]).

use crate::loadable::LoadContext;
use foldex_dataset::ItemContext;
use std::cell::Cell;

thread_local! {
    /// The index of the innermost load that a panic unwound through, until taken.
    static PANICKED: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `load` for observation `index` with its [`ItemContext`] set (see
/// [`ItemContext::enter`]). If `load` panics, its index stays behind for [`take_loading`].
#[inline]
pub(crate) fn loading<R>(
    cx: &LoadContext<'_>,
    index: usize,
    key: Option<usize>,
    load: impl FnOnce() -> R,
) -> R {
    /// Blames `index` for a panic that unwinds through it, unless a nested load took the
    /// blame first.
    struct Blame(usize);
    impl Drop for Blame {
        #[inline]
        fn drop(&mut self) {
            if std::thread::panicking() {
                blame(self.0);
            }
        }
    }
    let _blame = Blame(index);
    let _noted = cx
        .watch
        .map(|(in_flight, named)| in_flight.note(named(index + cx.offset), cx.epoch));
    ItemContext::new(cx.seed, cx.epoch, index + cx.offset, cx.worker)
        .keyed(key)
        .enter(load)
}

/// Notes `index` as the load a panic unwinds through, unless a nested load was noted first.
#[cold]
#[inline(never)]
fn blame(index: usize) {
    PANICKED.with(|p| {
        if p.get().is_none() {
            p.set(Some(index));
        }
    });
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
            watch: None,
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
    fn a_load_sees_its_context_with_the_window_offset_and_key() {
        let windowed = LoadContext {
            offset: 100,
            ..cx()
        };
        let seen = loading(&windowed, 4, Some(7), || ItemContext::current().unwrap());
        assert_eq!(
            (seen.epoch(), seen.index(), seen.seed(), seen.worker()),
            (2, 104, 5, 1)
        );
        assert_eq!(seen.rng(), foldex_dataset::rng_for(5, 2, 7));
    }
}
