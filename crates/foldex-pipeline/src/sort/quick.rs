//! The unstable parallel sort: a quicksort whose first levels of partitions have their two
//! sides sorted in parallel ([`ExecutorExt::join`]), down to leaves sorted on one thread.
//!
//! Two kinds of element are told apart by [`needs_drop`]: elements that own heap data
//! (`String`, `Vec`, `Box` ...) compare by reading it, so a comparison costs a cache miss and a
//! swap moves 24 bytes or more; plain values (`u64`, tuples of them) compare and swap in a few
//! instructions. For plain values the partitions are Lomuto's, branchless (a swap per
//! element, no branch on the answers) and the leaves are std's unstable sort (ipnsort, which
//! sorts small slices with networks); for owning elements the partitions are the block
//! partition ([`partition::block`](super::partition::block)), which asks once and moves only
//! the misplaced, and the leaves go on with this quicksort down to
//! [`SMALL`] elements, then std's sort. Measured on one thread (docs/benchmarks.md): on
//! 10^6 `String`s ipnsort takes 13 to 22 % more time than rayon's pdqsort, this quicksort
//! about as much as pdqsort; on 10^7 `u64`, ipnsort takes two thirds of this quicksort's time.
//!
//! A slice already sorted, or descending, is noticed in one pass first, and left or reversed.
//!
//! Pivots: the median of a sample of 127 elements on slices of at least 2^17, of 31 from 2^12,
//! else a pseudomedian of 9 (from 64) or a median of 3. As in pdqsort, each slice but the
//! first has a predecessor, the pivot just left of it (no greater than any of its elements);
//! a pivot no greater than it is the least element, and then the elements equal to it are put
//! in place at the front in one partition, so many equal keys cost a pass each.
//!
//! Every move is a swap, so a panicking comparator leaves each element in the slice once. An
//! order that is not total only makes the sides uneven: every step puts at least the pivot in
//! place, the parallel levels are bounded, and the sequential quicksort counts its uneven
//! partitions (either side under an eighth) and hands the slice to std's sort, `O(n log n)`
//! whatever the comparator answers, after about `log2(len)` of them.

use super::{partition, Ties};
use foldex_core::{Executor, ExecutorExt};
use std::mem::needs_drop;

/// Leaves of the unstable sort per worker, before rounding up to a power of two (and down to
/// leaves of at least [`MIN_LEAF`](super::MIN_LEAF)). Many: a level of partitions costs what
/// a level of the leaves' own quicksort would, and small leaves keep every worker busy when
/// one is slow (a thread preempted on a loaded machine), where a few large ones wait for the
/// slowest.
pub(super) const LEAVES_PER_WORKER: usize = 256;
/// Slices shorter than this are sorted whole, not partitioned in parallel.
const MIN_PARTITION: usize = 2 * super::MIN_LEAF;
/// Owning elements' slices of at most this many go to std's sort (insertion sort and small
/// networks there).
const SMALL: usize = 32;
/// The largest sample for the pivot (the sample's median).
const SAMPLE: usize = 127;

/// Sorts `v` by `is_less`: up to `levels` levels of partitions, each side sorted in parallel,
/// then the leaves (on one thread each), `sort_leaf` being std's unstable sort by the same
/// order.
pub(super) fn sort<T, F, L>(ex: &dyn Executor, v: &mut [T], levels: u32, is_less: &F, sort_leaf: &L)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    if !super::in_order_or_reversed(v, is_less, Ties::Unordered) {
        par_sort(ex, v, None, levels, is_less, sort_leaf);
    }
}

/// [`sort`] of a slice whose predecessor is `pred` (see the module).
fn par_sort<T, F, L>(
    ex: &dyn Executor,
    v: &mut [T],
    pred: Option<&mut T>,
    levels: u32,
    is_less: &F,
    sort_leaf: &L,
) where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    if levels == 0 || v.len() < MIN_PARTITION {
        if needs_drop::<T>() {
            let limit = usize::BITS - v.len().leading_zeros();
            seq_sort(v, pred, limit, is_less, sort_leaf);
        } else {
            sort_leaf(v);
        }
        return;
    }
    match step(v, pred.as_deref(), is_less) {
        // A level too, so that a comparator that is not an order cannot make this a loop.
        Step::Equal(rest) => par_sort(ex, rest, pred, levels - 1, is_less, sort_leaf),
        Step::Split(left, pivot, right) => {
            ex.join(
                || par_sort(ex, left, pred, levels - 1, is_less, sort_leaf),
                || par_sort(ex, right, Some(pivot), levels - 1, is_less, sort_leaf),
            );
        }
    }
}

/// The quicksort on one thread (owning elements' leaves): recursion into the shorter side,
/// a loop on the longer; after `limit` uneven partitions, std's sort of what is left.
fn seq_sort<'v, T, F, L>(
    mut v: &'v mut [T],
    mut pred: Option<&'v mut T>,
    mut limit: u32,
    is_less: &F,
    sort_leaf: &L,
) where
    F: Fn(&T, &T) -> bool,
    L: Fn(&mut [T]),
{
    loop {
        let len = v.len();
        if len <= SMALL || limit == 0 {
            sort_leaf(v);
            return;
        }
        match step(v, pred.as_deref(), is_less) {
            Step::Equal(rest) => {
                if rest.len() > len - len / 8 {
                    limit -= 1;
                }
                v = rest;
            }
            Step::Split(left, pivot, right) => {
                if left.len().min(right.len()) < len / 8 {
                    limit -= 1;
                }
                if left.len() < right.len() {
                    seq_sort(left, pred, limit, is_less, sort_leaf);
                    (v, pred) = (right, Some(pivot));
                } else {
                    seq_sort(right, Some(pivot), limit, is_less, sort_leaf);
                    v = left;
                }
            }
        }
    }
}

/// What a partition step leaves to sort.
enum Step<'v, T> {
    /// The pivot was no greater than the predecessor: it and the elements equal to it are in
    /// place at the front, the rest (all greater) is to sort.
    Equal(&'v mut [T]),
    /// The elements less than the pivot, the pivot (in place), and those not less.
    Split(&'v mut [T], &'v mut T, &'v mut [T]),
}

/// Partitions `v` (at least 3 long) around a pivot chosen in it; `pred` is its predecessor.
fn step<'v, T, F>(v: &'v mut [T], pred: Option<&T>, is_less: &F) -> Step<'v, T>
where
    F: Fn(&T, &T) -> bool,
{
    v.swap(0, choose_pivot(v, is_less));
    let (pivot, rest) = v.split_first_mut().expect("partitioned slices are long");
    if pred.is_some_and(|p| !is_less(p, pivot)) {
        let equal = partition_by(rest, |x| !is_less(pivot, x));
        return Step::Equal(&mut v[equal + 1..]);
    }
    let less = partition_by(rest, |x| is_less(x, pivot));
    // `v` is `[pivot, less than it.., the rest..]`: the pivot goes between.
    v.swap(0, less);
    let (left, right) = v.split_at_mut(less);
    let (pivot, right) = right.split_first_mut().expect("the pivot is there");
    Step::Split(left, pivot, right)
}

/// Moves the elements for which `goes_first` holds to the front of `v` and returns how many
/// there are: by [`partition::block`] for owning elements, [`partition::lomuto`] for plain
/// values (see the module).
fn partition_by<T>(v: &mut [T], goes_first: impl Fn(&T) -> bool) -> usize {
    if needs_drop::<T>() {
        partition::block(v, goes_first)
    } else {
        partition::lomuto(v, goes_first)
    }
}

/// The index of the pivot for `v` (at least 3 long): see the module.
fn choose_pivot<T, F>(v: &[T], is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let len = v.len();
    if len >= 1 << 17 {
        return sample_median(v, SAMPLE, is_less);
    }
    if len >= 1 << 12 {
        return sample_median(v, 31, is_less);
    }
    let (a, b, c) = (len / 4, len / 2, len / 4 * 3);
    if len >= 64 {
        let m = |i: usize| median3(v, i - 1, i, i + 1, is_less);
        median3(v, m(a), m(b), m(c), is_less)
    } else {
        median3(v, a, b, c, is_less)
    }
}

/// The index (one of `a`, `b`, `c`) of the median of three elements.
fn median3<T, F>(v: &[T], a: usize, b: usize, c: usize, is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let ab = is_less(&v[a], &v[b]);
    let bc = is_less(&v[b], &v[c]);
    if ab == bc {
        // `a < b < c` or `a >= b >= c`.
        return b;
    }
    // `b` is the greatest or the least: the median is the other extreme of `a` and `c`.
    if is_less(&v[a], &v[c]) == ab {
        c
    } else {
        a
    }
}

/// The index of the median of `n` (odd, at most [`SAMPLE`], at most `v.len()`) elements of
/// `v` spread evenly over it.
fn sample_median<T, F>(v: &[T], n: usize, is_less: &F) -> usize
where
    F: Fn(&T, &T) -> bool,
{
    let step = v.len() / n;
    let mut sample: [usize; SAMPLE] = std::array::from_fn(|k| k * step + step / 2);
    let sample = &mut sample[..n];
    // Insertion sort of the indices: it ends whatever `is_less` answers.
    for i in 1..n {
        let mut j = i;
        while j > 0 && is_less(&v[sample[j]], &v[sample[j - 1]]) {
            sample.swap(j, j - 1);
            j -= 1;
        }
    }
    sample[n / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_are_put_in_place() {
        // Mostly the least key, which is the predecessor's: one step puts those in place.
        let mut v: Vec<String> = (0..10_000)
            .map(|i| if i % 100 == 0 { "b" } else { "a" }.to_owned())
            .collect();
        let pred = String::from("a");
        match step(&mut v, Some(&pred), &String::lt) {
            Step::Equal(rest) => {
                assert_eq!(rest.len(), 100);
                assert!(rest.iter().all(|x| x == "b"));
            }
            Step::Split(..) => panic!("the pivot is the least element"),
        }
        assert!(v[..9_900].iter().all(|x| x == "a"));
    }

    /// The sequential quicksort with answers that are no order: every uneven partition counts,
    /// so it ends (in std's sort), and keeps every element.
    #[test]
    fn no_order_ends() {
        let orig: Vec<Box<u32>> = (0..20_000).map(Box::new).collect();
        type Answer = fn(&Box<u32>, &Box<u32>) -> bool;
        let answers: [Answer; 2] = [|_, _| true, |_, _| false];
        for is_less in answers {
            let mut v = orig.clone();
            let limit = usize::BITS - v.len().leading_zeros();
            // std's sort may notice the order is none and panic; the elements stay.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                seq_sort(&mut v, None, limit, &is_less, &|s: &mut [Box<u32>]| {
                    s.sort_unstable_by(|a, b| {
                        if is_less(a, b) {
                            std::cmp::Ordering::Less
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    })
                })
            }));
            v.sort_unstable();
            assert_eq!(v, orig);
        }
    }
}
