//! The unstable parallel sort: levels of quicksort partitions, whose two sides are sorted
//! in parallel ([`ExecutorExt::join`]), and std's unstable sort on the leaves.
//!
//! Every move is a swap, so a panicking comparator leaves each element in the slice once, and
//! an order that is not total only makes the sides uneven. The levels are bounded (the log of
//! the number of leaves), so uneven sides cost parallelism and at most that many passes, never
//! more: the leaves' sort is std's, `O(n log n)` whatever the input.

use foldex_core::{Executor, ExecutorExt};

/// Leaves of the unstable sort per worker, before rounding up to a power of two (and down to
/// leaves of at least [`MIN_LEAF`](super::MIN_LEAF)). Many: a level of partitions costs what
/// a level of the leaves' own quicksort would, and small leaves keep every worker busy when
/// one is slow (a thread preempted on a loaded machine), where a few large ones wait for the
/// slowest.
pub(super) const LEAVES_PER_WORKER: usize = 256;
/// Slices shorter than this are sorted whole, not partitioned.
const MIN_PARTITION: usize = 2 * super::MIN_LEAF;
/// Elements sampled for the pivot (the sample's median).
const SAMPLE: usize = 127;

/// Sorts `v` by `is_less`: up to `levels` levels of partitions, then `sort_leaf`.
pub(super) fn sort<T, F, L>(ex: &dyn Executor, v: &mut [T], levels: u32, is_less: &F, sort_leaf: &L)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    if levels == 0 || v.len() < MIN_PARTITION {
        sort_leaf(v);
        return;
    }
    let (left, right) = partition(v, is_less);
    ex.join(
        || sort(ex, left, levels - 1, is_less, sort_leaf),
        || sort(ex, right, levels - 1, is_less, sort_leaf),
    );
}

/// Partitions `v` (at least [`SAMPLE`] long) around the median of a sample, and returns what
/// is left to sort on either side: the elements less than the pivot, and those greater (with
/// those equal to the pivot too, unless they were put in place beside it).
fn partition<'v, T, F>(v: &'v mut [T], is_less: &F) -> (&'v mut [T], &'v mut [T])
where
    F: Fn(&T, &T) -> bool,
{
    let len = v.len();
    v.swap(0, sample_median(v, is_less));
    let (pivot, rest) = v.split_first_mut().expect("partitioned slices are long");
    let less = partition_by(rest, |x| is_less(x, pivot));
    // `v` is `[pivot, less than it.., the rest..]`: the pivot goes between.
    v.swap(0, less);
    let (left, right) = v.split_at_mut(less);
    let (pivot, mut right) = right.split_first_mut().expect("the pivot is there");
    if left.len() < len / 16 {
        // The pivot is among the least: the rest may hold many elements equal to it (a few
        // distinct keys). Those are in place beside it, and need no more sorting.
        let equal = partition_by(right, |x| !is_less(pivot, x));
        right = &mut right[equal..];
    }
    (left, right)
}

/// Moves the elements for which `goes_first` holds to the front, by swaps, and returns how
/// many there are (Lomuto's partition, without a branch on the answer).
fn partition_by<T>(v: &mut [T], goes_first: impl Fn(&T) -> bool) -> usize {
    let mut first = 0;
    for i in 0..v.len() {
        let yes = goes_first(&v[i]);
        // `v[..first]` go first, `v[first..i]` do not: `v[i]` joins one or the other.
        v.swap(first, i);
        first += usize::from(yes);
    }
    first
}

/// The index of the median of [`SAMPLE`] elements of `v` spread evenly over it.
fn sample_median<T, F>(v: &[T], is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let step = v.len() / SAMPLE;
    let mut sample: [usize; SAMPLE] = std::array::from_fn(|k| k * step + step / 2);
    // Insertion sort of the indices: it ends whatever `is_less` answers.
    for i in 1..SAMPLE {
        let mut j = i;
        while j > 0 && is_less(&v[sample[j]], &v[sample[j - 1]]) {
            sample.swap(j, j - 1);
            j -= 1;
        }
    }
    sample[SAMPLE / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_by_keeps_every_element() {
        let mut v: Vec<u32> = (0..1000).map(|i| i * 7919 % 1009).collect();
        let first = partition_by(&mut v, |&x| x % 3 == 0);
        assert!(v[..first].iter().all(|x| x % 3 == 0));
        assert!(v[first..].iter().all(|x| x % 3 != 0));
        v.sort_unstable();
        let mut want: Vec<u32> = (0..1000).map(|i| i * 7919 % 1009).collect();
        want.sort_unstable();
        assert_eq!(v, want);
    }

    #[test]
    fn equal_keys_are_put_in_place() {
        // Mostly the least key: the pivot is it, and the rest need no sorting.
        let mut v: Vec<u32> = (0..10_000).map(|i| u32::from(i % 100 == 0)).collect();
        let (left, right) = partition(&mut v, &|a: &u32, b: &u32| a < b);
        assert!(left.is_empty());
        assert!(right.iter().all(|&x| x == 1));
        assert_eq!(right.len(), 100);
    }
}
