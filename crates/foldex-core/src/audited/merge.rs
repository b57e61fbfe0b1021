//! A stable parallel merge sort of a `&mut [T]` on any executor: [`merge_sort`].
//!
//! The slice is cut in `2^levels` leaves of (nearly) equal length, which the caller's
//! `sort_leaf` sorts in place, in parallel; then adjacent runs are merged pairwise, level by
//! level, each merge itself cut in pieces that run in parallel (`ExecutorExt::join` on the
//! caller's executor, through [`Join`]). Merging moves elements without `Clone`, bitwise, between the slice and a
//! scratch buffer of the same length: level by level the runs go from one to the other and
//! back (as rayon's `par_mergesort` does), so that the only copies besides the merges are those
//! of the leaves when the number of levels is odd.
//!
//! ## Why no element is ever lost or doubled
//!
//! Every element is, at any moment, in exactly one of its two slots: index `i` of the slice or
//! index `i` of the scratch buffer. A [`Node`] of the tree (a range `lo..hi` and the side,
//! slice or scratch, where its sorted elements must end: its *target*) keeps one promise,
//! however it ends (returning, unwinding, or dropped without being run): **when it is done,
//! every element of `lo..hi` is in its target side.**
//!
//! - A node not run (an executor that never ran a half of a join: `join` then drops the
//!   closure, and with it the node, before it returns or unwinds) has not touched its range,
//!   whose elements are all still in the slice; its `Drop` copies them to its target.
//! - A leaf sorts `lo..hi` of the slice in place through `&mut [T]` (safe code: returning or
//!   unwinding, it leaves the range whole), then copies the range to the scratch buffer if
//!   that is its target, on return and on unwind alike (`CopyOnDrop`).
//! - An inner node joins its two children, whose target is the other side (`src`). If the join
//!   unwinds, both children are done, so every element of `lo..hi` is in `src`, and a guard
//!   copies the whole range to the target. Otherwise it merges the two runs of `src` into the
//!   target with a [`Merge`].
//! - A [`Merge`] reads two runs of `src` and writes a range of the target of exactly their
//!   total length, in order. Its `Drop` copies what is left of the left run, then of the
//!   right, to where its output stops: that ends a merge that used up one run, a merge cut
//!   short by a panicking `is_less`, and a merge dropped unrun alike, so that every element of
//!   its runs is written exactly once. A merge that splits in two moves its runs into the two
//!   halves (each a `Merge` of its own, in a closure of the join) and keeps nothing itself.
//!
//! The root is a node whose target is the slice, so when `merge_sort` returns or unwinds, every
//! element is in the slice once; the scratch buffer (a `Vec` of length 0) is then freed without
//! dropping anything.
//!
//! The user's code reached from here is `is_less`, `sort_leaf` and the executor. `is_less`
//! gets shared references to elements in their current slot only, and the slot it saw is the
//! one copied next (interior mutability inside an element is carried along); its answer only
//! steers the merge, whose every step moves one element and advances, so an order that is not
//! total gives some permutation, never a lost element or an endless loop. `sort_leaf` gets a
//! `&mut [T]` of its leaf alone. The executor only decides where the halves of
//! `ExecutorExt::join` ([`Join`]) run: `join` runs each closure at most once and drops the ones it did
//! not run, and a half cannot run after `join_halves` has returned (it borrows the join's
//! frame), so whatever the executor does, each node and merge runs or is dropped exactly once,
//! and no two of them reach the same slot at once (the ranges of the nodes, and of the merges,
//! that run at the same time are disjoint).

use std::mem::{self, ManuallyDrop};
use std::ptr;

/// Runs two closures, perhaps at once, and returns once both have run: `ExecutorExt::join` on
/// the caller's executor (`crate::merge` implements it so; only this crate can). What the sort
/// rests on: each closure runs at most once, and each one not run is dropped, before `join`
/// returns or unwinds (and a half cannot run after that: it borrows `join`'s frame).
pub(crate) trait Join: Sync {
    /// Runs `a` and `b`, perhaps at once; re-raises a panic of either once both are done.
    fn join<A: FnOnce() + Send, B: FnOnce() + Send>(&self, a: A, b: B);
}

/// Merges whose two runs are together at most this long are not split.
const MIN_MERGE: usize = 4096;

/// Sorts `v` stably by `is_less`: `2^levels` leaves (fewer when `v` is shorter) sorted in
/// place by `sort_leaf`, then merged pairwise in parallel on `ex`.
///
/// `sort_leaf` must sort its slice by the same order as `is_less` for the result to be sorted
/// (std's `sort_by` with the comparator `is_less` answers for makes the whole sort equal to
/// `v.sort_by(..)`); whatever it and `is_less` do, `v` ends holding each of its elements once,
/// also when either panics (the panic is then re-raised here, as
/// `ExecutorExt::join` re-raises it).
///
/// With `levels == 0`, a slice shorter than 2 or zero-sized elements, `sort_leaf` gets all of
/// `v` and nothing is allocated; otherwise a scratch buffer of `v.len()` elements is.
///
/// Public as `foldex_core::merge::merge_sort`, which passes the executor's `join`.
pub(crate) fn merge_sort<T, E, F, L>(ex: &E, v: &mut [T], levels: u32, is_less: &F, sort_leaf: &L)
where
    T: Send,
    E: Join + ?Sized,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    let len = v.len();
    // No more leaves than elements.
    let levels = levels.min(len.checked_ilog2().unwrap_or(0));
    if levels == 0 || mem::size_of::<T>() == 0 {
        sort_leaf(v);
        return;
    }
    // Length 0: its slots are scratch space for copies of `v`'s elements, never dropped.
    let mut scratch = Vec::<T>::with_capacity(len);
    let bufs = Bufs {
        slice: v.as_mut_ptr(),
        scratch: scratch.as_mut_ptr(),
    };
    let sort = Sort {
        ex,
        is_less,
        sort_leaf,
        merge_grain: MIN_MERGE.max(len >> (levels + 1)),
    };
    let root = Node {
        bufs,
        lo: 0,
        hi: len,
        levels,
        target: Side::Slice,
    };
    root.run(&sort);
    // Every element is back in `v` (the root's promise): `scratch` frees its buffer only.
    drop(scratch);
}

/// What every node of one sort shares.
struct Sort<'s, E: ?Sized, F, L> {
    ex: &'s E,
    is_less: &'s F,
    sort_leaf: &'s L,
    /// Merges of at most this many elements run whole.
    merge_grain: usize,
}

/// Where a range's elements are: in the caller's slice or in the scratch buffer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Slice,
    Scratch,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Slice => Side::Scratch,
            Side::Scratch => Side::Slice,
        }
    }
}

/// The slice and the scratch buffer, both `len` slots long.
struct Bufs<T> {
    slice: *mut T,
    scratch: *mut T,
}

impl<T> Clone for Bufs<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Bufs<T> {}

impl<T> Bufs<T> {
    /// Slot `i` of `side`.
    ///
    /// # Safety
    /// `i <= len` (one past the end included).
    unsafe fn at(self, side: Side, i: usize) -> *mut T {
        let base = match side {
            Side::Slice => self.slice,
            Side::Scratch => self.scratch,
        };
        // SAFETY: both buffers hold `len` slots; `i <= len` by the caller's guarantee.
        unsafe { base.add(i) }
    }
}

/// Copies the elements of `lo..hi` from side `from` to side `to` when dropped.
struct CopyOnDrop<T> {
    bufs: Bufs<T>,
    lo: usize,
    hi: usize,
    from: Side,
    to: Side,
}

impl<T> Drop for CopyOnDrop<T> {
    fn drop(&mut self) {
        if self.from != self.to {
            // SAFETY: made only where the elements of `lo..hi` (in bounds) are all in `from`
            // and nothing else reaches the range; after the copy they are in `to`, and the
            // slots of `from` are stale copies that nothing drops.
            unsafe {
                ptr::copy_nonoverlapping(
                    self.bufs.at(self.from, self.lo),
                    self.bufs.at(self.to, self.lo),
                    self.hi - self.lo,
                )
            }
        }
    }
}

/// A range of the sort's tree whose elements, all in the slice (nothing of the range has been
/// touched yet), end sorted in `target`. Run by [`Node::run`]; dropped unrun, it moves them to
/// `target` as they are.
struct Node<T> {
    bufs: Bufs<T>,
    lo: usize,
    hi: usize,
    /// Levels of merges below this node: 0 for a leaf.
    levels: u32,
    target: Side,
}

// SAFETY: a `Node` stands for the elements of its range, which it moves (bitwise) and lends as
// `&mut [T]` on the thread that runs it; no other node reaches them. Sending it moves `T`s
// between threads: `T: Send`.
unsafe impl<T: Send> Send for Node<T> {}

impl<T> Drop for Node<T> {
    fn drop(&mut self) {
        // Not run: the elements are untouched, in the slice.
        drop(CopyOnDrop {
            bufs: self.bufs,
            lo: self.lo,
            hi: self.hi,
            from: Side::Slice,
            to: self.target,
        });
    }
}

impl<T: Send> Node<T> {
    /// Sorts the range into `target`; on return or unwind every element of it is there.
    fn run<E, F, L>(self, sort: &Sort<'_, E, F, L>)
    where
        E: Join + ?Sized,
        F: Fn(&T, &T) -> bool + Sync,
        L: Fn(&mut [T]) + Sync,
    {
        // Run now: `Drop` (for a node never run) must not copy.
        let node = ManuallyDrop::new(self);
        let (bufs, lo, hi, target) = (node.bufs, node.lo, node.hi, node.target);
        if node.levels == 0 {
            // On return and on unwind alike, the sorted (or, after a panic, whole) leaf goes
            // to its target.
            let _to_target = CopyOnDrop {
                bufs,
                lo,
                hi,
                from: Side::Slice,
                to: target,
            };
            // SAFETY: the range's elements are in the slice, untouched, and no other node or
            // merge reaches `lo..hi` while this one runs; the borrow ends before `_to_target`
            // copies them.
            let leaf = unsafe { std::slice::from_raw_parts_mut(bufs.at(Side::Slice, lo), hi - lo) };
            (sort.sort_leaf)(leaf);
            return;
        }
        let src = target.other();
        let mid = lo + (hi - lo) / 2;
        let half = |lo, hi| Node {
            bufs,
            lo,
            hi,
            levels: node.levels - 1,
            target: src,
        };
        let (left, right) = (half(lo, mid), half(mid, hi));
        // If the join unwinds, both children are done: all of `lo..hi` is in `src`.
        let to_target = CopyOnDrop {
            bufs,
            lo,
            hi,
            from: src,
            to: target,
        };
        sort.ex
            .join(move || left.run(sort), move || right.run(sort));
        mem::forget(to_target);
        // SAFETY: `lo <= mid <= hi <= len`.
        let merge = unsafe {
            Merge {
                left: bufs.at(src, lo),
                left_end: bufs.at(src, mid),
                right: bufs.at(src, mid),
                right_end: bufs.at(src, hi),
                dest: bufs.at(target, lo),
            }
        };
        merge.run(sort);
    }
}

/// A merge of the sorted runs `left..left_end` and `right..right_end` (the elements are there)
/// into `dest`, as many slots as the two runs hold (free: their elements are elsewhere).
/// Dropped, it copies what is left of `left`, then of `right`, to `dest`.
struct Merge<T> {
    left: *const T,
    left_end: *const T,
    right: *const T,
    right_end: *const T,
    dest: *mut T,
}

// SAFETY: a `Merge` stands for the elements of its runs and the slots it writes; no other
// merge reaches them. Sending it moves `T`s between threads: `T: Send`.
unsafe impl<T: Send> Send for Merge<T> {}

impl<T> Merge<T> {
    fn left_len(&self) -> usize {
        // SAFETY: both point into one run, `left <= left_end`.
        unsafe { self.left_end.offset_from(self.left) as usize }
    }

    fn right_len(&self) -> usize {
        // SAFETY: both point into one run, `right <= right_end`.
        unsafe { self.right_end.offset_from(self.right) as usize }
    }
}

impl<T> Drop for Merge<T> {
    fn drop(&mut self) {
        let (l, r) = (self.left_len(), self.right_len());
        // SAFETY: the elements left in the runs are there, and `dest` has room for exactly
        // `l + r` of them (every element taken from a run took one slot); the runs and `dest`
        // are in different buffers. After this, the run slots are stale copies.
        unsafe {
            ptr::copy_nonoverlapping(self.left, self.dest, l);
            ptr::copy_nonoverlapping(self.right, self.dest.add(l), r);
        }
    }
}

impl<T: Send> Merge<T> {
    /// Merges the runs into `dest`; on return or unwind every element of them is there.
    fn run<E, F, L>(mut self, sort: &Sort<'_, E, F, L>)
    where
        E: Join + ?Sized,
        F: Fn(&T, &T) -> bool + Sync,
        L: Fn(&mut [T]) + Sync,
    {
        let (left_len, right_len) = (self.left_len(), self.right_len());
        if left_len == 0 || right_len == 0 || left_len + right_len <= sort.merge_grain {
            self.sequential(sort.is_less);
            // `Drop` copies the rest of the run not used up.
            return;
        }
        // SAFETY: the runs hold their elements, and nothing else reaches them while `self`
        // lives; the borrows end before any element moves. (If `is_less` panics here, `self`
        // drops and copies both runs whole.)
        let (a, b) = unsafe {
            split_for_merge(
                std::slice::from_raw_parts(self.left, left_len),
                std::slice::from_raw_parts(self.right, right_len),
                sort.is_less,
            )
        };
        // SAFETY: `a <= left_len` and `b <= right_len`, so every pointer is in its run or one
        // past its end, and `dest + a + b` in (or one past) the output.
        let (first, second) = unsafe {
            (
                Merge {
                    left: self.left,
                    left_end: self.left.add(a),
                    right: self.right,
                    right_end: self.right.add(b),
                    dest: self.dest,
                },
                Merge {
                    left: self.left.add(a),
                    left_end: self.left_end,
                    right: self.right.add(b),
                    right_end: self.right_end,
                    dest: self.dest.add(a + b),
                },
            )
        };
        // The halves own every element now: this merge keeps none.
        self.left = self.left_end;
        self.right = self.right_end;
        sort.ex
            .join(move || first.run(sort), move || second.run(sort));
    }

    /// Moves the lesser head of the runs to `dest` until one run is used up; on a tie the left
    /// one, so that the merge is stable.
    fn sequential<F: Fn(&T, &T) -> bool>(&mut self, is_less: &F) {
        while self.left != self.left_end && self.right != self.right_end {
            // SAFETY: both heads are elements in their runs; `dest` has a free slot for one of
            // them (one per element left). The state advances after the copy, so a panic in
            // `is_less` leaves it describing every element once.
            unsafe {
                let take_right = is_less(&*self.right, &*self.left);
                let from = if take_right { self.right } else { self.left };
                ptr::copy_nonoverlapping(from, self.dest, 1);
                self.dest = self.dest.add(1);
                self.right = self.right.add(usize::from(take_right));
                self.left = self.left.add(usize::from(!take_right));
            }
        }
    }
}

/// Where to cut two sorted runs so that `left[..a]` and `right[..b]` all come (stably) before
/// `left[a..]` and `right[b..]`: the middle of the longer run, and its place in the other found
/// by binary search (rayon's `split_for_merge`).
fn split_for_merge<T, F: Fn(&T, &T) -> bool>(
    left: &[T],
    right: &[T],
    is_less: &F,
) -> (usize, usize) {
    if left.len() >= right.len() {
        let a = left.len() / 2;
        // Elements of `right` strictly less than `left[a]` go first.
        (a, right.partition_point(|r| is_less(r, &left[a])))
    } else {
        let b = right.len() / 2;
        // Elements of `left` not greater than `right[b]` go first (ties: left first).
        (left.partition_point(|l| !is_less(&right[b], l)), b)
    }
}
