//! A stable parallel merge sort of a `&mut [T]` on any executor, panic-safe: the stable
//! parallel sorts (`foldex_pipeline::sort`) are built on it. The sort itself, which moves
//! elements without `Clone`, is in the audited module; this gives it the executor's `join`.

use crate::audited::Join;
use crate::executor::Executor;
use crate::fold::ExecutorExt;

/// `ExecutorExt::join` on `E`: each closure runs at most once, and one not run (an executor
/// that never ran a half) is dropped, before `join` returns or unwinds, as the audited sort
/// needs.
struct OnExecutor<'e, E: ?Sized>(&'e E);

impl<E: Executor + ?Sized> Join for OnExecutor<'_, E> {
    fn join<A: FnOnce() + Send, B: FnOnce() + Send>(&self, a: A, b: B) {
        self.0.join(a, b);
    }
}

/// Sorts `v` stably by `is_less`: `2^levels` leaves (fewer when `v` is shorter) sorted in
/// place by `sort_leaf`, then merged pairwise in parallel on `ex`, each merge cut in parallel
/// pieces; elements move between `v` and a scratch buffer without `Clone`.
///
/// `sort_leaf` must sort its slice by the same order as `is_less` for the result to be sorted
/// (std's `sort_by` with the comparator `is_less` answers for makes the whole sort equal to
/// `v.sort_by(..)`); whatever it and `is_less` do, `v` ends holding each of its elements once,
/// also when either panics (the panic is then re-raised here, as
/// [`ExecutorExt::join`] re-raises it), and whatever the executor does.
///
/// With `levels == 0`, a slice shorter than 2 or zero-sized elements, `sort_leaf` gets all of
/// `v` and nothing is allocated; otherwise a scratch buffer of `v.len()` elements is.
///
/// ```
/// use foldex_core::merge::merge_sort;
/// use foldex_seq::SequentialEx;
/// let mut v: Vec<(u8, usize)> = (0..100).map(|i| ((i * 7 % 5) as u8, i)).collect();
/// merge_sort(&SequentialEx, &mut v, 3, &|a, b| a.0 < b.0, &|leaf| leaf.sort_by_key(|p| p.0));
/// let mut want: Vec<(u8, usize)> = (0..100).map(|i| ((i * 7 % 5) as u8, i)).collect();
/// want.sort_by_key(|p| p.0);
/// assert_eq!(v, want);
/// ```
pub fn merge_sort<T, E, F, L>(ex: &E, v: &mut [T], levels: u32, is_less: &F, sort_leaf: &L)
where
    T: Send,
    E: Executor + ?Sized,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    crate::audited::merge_sort(&OnExecutor(ex), v, levels, is_less, sort_leaf);
}
