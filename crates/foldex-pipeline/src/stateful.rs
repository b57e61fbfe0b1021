//! Stages whose output depends on the items before: [`Dedup`], [`Unique`], [`SkipWhile`].
//!
//! ## The boundary protocol
//!
//! A piece of a parallel run does not know what precedes it, so such a stage holds back the
//! items whose fate depends on it, at the piece's left edge, in its state (which lives in the
//! piece's accumulator, beside the reduction's). When the executor combines two adjacent
//! pieces, [`Transform::merge`] hands the right piece's state to the left one's: each held item
//! is then passed on (into the left accumulator, after the left piece's items and so before
//! the right one's) or dropped, or stays held if the left piece has seen nothing that decides
//! it. Once the run is done, [`Transform::release`] passes on what the whole run still holds:
//! the items at the very start, which nothing precedes. So every executor, split and basesize
//! gives what the sequential chain gives.
//!
//! - `dedup` holds a piece's first item and keeps its last: joined, the right piece's first
//!   item is passed on unless it equals the left piece's last.
//! - `unique` holds a piece's first occurrences, in order, with their set; joined, the right
//!   piece's are added unless the left piece has seen them. Every item is held until the run
//!   ends (memory: two copies of the distinct items; the stages after it run on one thread).
//! - `skip_while` holds a piece's leading items for which the predicate holds; joined after a
//!   piece that stopped skipping, they are passed on; at the start of the run, they are
//!   dropped (memory: each piece's leading run of skipped items).
//!
//! A stateful stage that cannot be joined this way is not offered on a pipeline that is not
//! indexable, so it cannot be written where it would be wrong: `scan` is a reduction of
//! indexable pipelines only (two passes, [`Pipeline::scan`](crate::Pipeline::scan)), and every
//! closure a pipeline takes is `Fn + Sync`, so a closure with hidden mutable state (a counter
//! standing in for `enumerate`) is refused at compile time:
//!
//! ```compile_fail
//! use foldex_pipeline::IntoPipeline;
//! use foldex_seq::SequentialEx;
//! let mut seen = 0;
//! // error: `map` takes `Fn`, not `FnMut`.
//! let v: Vec<usize> = (0..10).pipe().filter(|x| x % 2 == 0).map(|x| { seen += 1; x * seen }).collect(&SequentialEx);
//! ```
//!
//! ```compile_fail
//! use foldex_pipeline::IntoPipeline;
//! use foldex_seq::SequentialEx;
//! // error: a prefix scan needs each item's index, which `filter` has lost.
//! let v = (0..10u64).pipe().filter(|x| x % 2 == 0).scan(&SequentialEx, 0, |a, b| a + b);
//! ```

use crate::transform::Transform;
use foldex_core::StopProbe;
use std::collections::HashSet;
use std::hash::Hash;
use std::ops::ControlFlow;

/// `dedup`: drops each item equal to the one before it, as `Vec::dedup`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dedup;

/// The state of [`Dedup`] for one piece.
#[derive(Debug)]
pub struct DedupState<T> {
    /// The piece's first item, held until the piece to its left is known.
    held: Option<T>,
    /// The piece's last item (`None`: it has seen none).
    last: Option<T>,
}

impl<In: Clone + PartialEq + Send> Transform<In> for Dedup {
    type Out = In;
    type State = DedupState<In>;
    const BREAKS: bool = false;
    const MERGES: bool = true;

    fn start(&self) -> DedupState<In> {
        DedupState {
            held: None,
            last: None,
        }
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut DedupState<In>,
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        match &state.last {
            None => {
                state.last = Some(item.clone());
                state.held = Some(item);
                ControlFlow::Continue(acc)
            }
            Some(last) if *last == item => ControlFlow::Continue(acc),
            Some(_) => {
                state.last = Some(item.clone());
                sink(acc, item)
            }
        }
    }

    fn merge<A, K>(
        &self,
        left: &mut DedupState<In>,
        right: DedupState<In>,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        if right.last.is_none() {
            return ControlFlow::Continue(acc);
        }
        if left.last.is_none() {
            *left = right;
            return ControlFlow::Continue(acc);
        }
        let repeated = right.held == left.last;
        left.last = right.last;
        match right.held {
            Some(first) if !repeated => sink(acc, first),
            _ => ControlFlow::Continue(acc),
        }
    }

    fn release<A, K>(&self, state: &mut DedupState<In>, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        match state.held.take() {
            Some(first) => sink(acc, first),
            None => ControlFlow::Continue(acc),
        }
    }
}

/// `unique`: keeps the first occurrence of each item, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unique;

/// The state of [`Unique`] for one piece: its first occurrences, in order, and their set.
#[derive(Debug)]
pub struct UniqueState<T> {
    order: Vec<T>,
    seen: HashSet<T>,
}

impl<In: Clone + Eq + Hash + Send> Transform<In> for Unique {
    type Out = In;
    type State = UniqueState<In>;
    const BREAKS: bool = false;
    const MERGES: bool = true;

    fn start(&self) -> UniqueState<In> {
        UniqueState {
            order: Vec::new(),
            seen: HashSet::new(),
        }
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut UniqueState<In>,
        acc: A,
        item: In,
        _: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        if state.seen.insert(item.clone()) {
            state.order.push(item);
        }
        ControlFlow::Continue(acc)
    }

    fn merge<A, K>(
        &self,
        left: &mut UniqueState<In>,
        right: UniqueState<In>,
        acc: A,
        _: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        for item in right.order {
            if left.seen.insert(item.clone()) {
                left.order.push(item);
            }
        }
        ControlFlow::Continue(acc)
    }

    fn release<A, K>(&self, state: &mut UniqueState<In>, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        state.seen = HashSet::new();
        std::mem::take(&mut state.order)
            .into_iter()
            .try_fold(acc, sink)
    }
}

/// `skip_while`: drops items while the predicate holds, then passes on every item, as
/// `Iterator::skip_while` (Transducers.jl's `DropWhile`).
#[derive(Debug, Clone, Copy)]
pub struct SkipWhile<P>(pub(crate) P);

/// The state of [`SkipWhile`] for one piece.
#[derive(Debug)]
pub struct SkipWhileState<T> {
    /// `true` while every item of the piece so far satisfied the predicate.
    skipping: bool,
    /// Those items, held until the piece to the left decides them.
    held: Vec<T>,
}

impl<In: Send, P: Fn(&In) -> bool + Sync> Transform<In> for SkipWhile<P> {
    type Out = In;
    type State = SkipWhileState<In>;
    const BREAKS: bool = false;
    const MERGES: bool = true;

    fn start(&self) -> SkipWhileState<In> {
        SkipWhileState {
            skipping: true,
            held: Vec::new(),
        }
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut SkipWhileState<In>,
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        if state.skipping {
            if (self.0)(&item) {
                state.held.push(item);
                return ControlFlow::Continue(acc);
            }
            state.skipping = false;
        }
        sink(acc, item)
    }

    fn merge<A, K>(
        &self,
        left: &mut SkipWhileState<In>,
        right: SkipWhileState<In>,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        if left.skipping {
            left.held.extend(right.held);
            left.skipping = right.skipping;
            return ControlFlow::Continue(acc);
        }
        right.held.into_iter().try_fold(acc, sink)
    }

    fn release<A, K>(&self, state: &mut SkipWhileState<In>, acc: A, _: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        // Nothing precedes these: they are the run's leading items that satisfy the predicate.
        state.held.clear();
        ControlFlow::Continue(acc)
    }
}
