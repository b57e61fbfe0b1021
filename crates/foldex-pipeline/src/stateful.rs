//! Stages whose output depends on the items before: [`Dedup`], [`Unique`], [`SkipWhile`].
//!
//! ## The boundary protocol
//!
//! A piece of a parallel run that does not begin at the run's first item does not know what
//! precedes it, so such a stage holds back the items whose fate depends on it, at the piece's
//! left edge, in its state ([`Transform::start`]; the state lives in the piece's accumulator,
//! beside the reduction's). The piece that begins at the first item starts from
//! [`Transform::front`]: nothing precedes it, so it decides every item as the sequential run
//! does, and holds nothing. When the executor combines two adjacent pieces,
//! [`Transform::merge`] hands the right piece's state to the left one's: each held item is then
//! passed on (into the left accumulator, after the left piece's items and so before the right
//! one's) or dropped, or stays held if the left piece has seen nothing that decides it. Into the
//! front state every held item is decided. So every executor, split and basesize gives what the
//! sequential chain gives, and on one piece (`SequentialEx`) nothing is ever held.
//!
//! A stage that passes items on only at a piece's right edge (`fold_pieces`: the piece's
//! accumulator) passes those of the run's last piece in [`Transform::finish`], when the run
//! ends; `positions` and `intersperse` after a transform join pieces the same way.
//!
//! - `dedup` holds a piece's first item and keeps its last: joined, the right piece's first
//!   item is passed on unless it equals the left piece's last.
//! - `unique` holds a piece's first occurrences, in order, with their set; joined, the right
//!   piece's are added unless the left piece has seen them. A piece right of the front passes
//!   nothing on until it is joined to the front (memory: the distinct items, twice; the
//!   stages after it run as the pieces are joined).
//! - `skip_while` holds a piece's leading items for which the predicate holds; joined after a
//!   piece that stopped skipping, they are passed on; joined to a front that still skips, they
//!   are dropped (memory: each piece's leading run of skipped items).
//!
//! ## What runs ahead of the sequential order
//!
//! A piece right of the front runs the stages after a held item on the items that follow it
//! before the held item is decided, and `skip_while`'s predicate on items the sequential run
//! would never test (it stopped skipping further left). Such calls are speculative: their
//! values reach the result only where the sequential run makes the same calls, and a panic in
//! one is kept, not raised, until the pieces to its left are joined. It is raised only if the
//! sequential run would have made that call first (`skip_while`'s predicate, only while every
//! item before it was skipped); see [`Pipeline::try_fold`](crate::Pipeline::try_fold) for
//! the rule across a whole pipeline.
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

use crate::stage::{Route, Transform};
use foldex_core::exec::PanicPayload;
use foldex_core::StopProbe;
use std::collections::HashSet;
use std::hash::Hash;
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};

/// `dedup`: drops each item equal to the one before it, as `Vec::dedup`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dedup;

/// The state of [`Dedup`] for one piece.
#[derive(Debug)]
pub struct DedupState<T> {
    /// The piece begins at the run's first item: its first item is passed on at once.
    front: bool,
    /// The piece's first item, held until the piece to its left is known.
    held: Option<T>,
    /// The piece's last item (`None`: it has seen none).
    last: Option<T>,
}

impl<T> DedupState<T> {
    fn new(front: bool) -> Self {
        Self {
            front,
            held: None,
            last: None,
        }
    }
}

impl<In: Clone + PartialEq + Send> Transform<In> for Dedup {
    type Out = In;
    type State = DedupState<In>;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.merging()
    }

    fn start(&self) -> DedupState<In> {
        DedupState::new(false)
    }

    fn front(&self) -> DedupState<In> {
        DedupState::new(true)
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
            None if !state.front => {
                state.last = Some(item.clone());
                state.held = Some(item);
                ControlFlow::Continue(acc)
            }
            Some(last) if *last == item => ControlFlow::Continue(acc),
            _ => {
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
        let repeated = left.last.is_some() && right.held == left.last;
        if left.last.is_none() && !left.front {
            // Nothing on the left decides the held item: it stays held.
            left.held = right.held;
            left.last = right.last;
            return ControlFlow::Continue(acc);
        }
        left.last = right.last;
        match right.held {
            Some(first) if !repeated => sink(acc, first),
            _ => ControlFlow::Continue(acc),
        }
    }
}

/// `unique`: keeps the first occurrence of each item, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unique;

/// The state of [`Unique`] for one piece: its first occurrences, in order, and their set.
#[derive(Debug)]
pub struct UniqueState<T> {
    /// The piece begins at the run's first item: first occurrences are passed on at once.
    front: bool,
    /// The first occurrences held back (none in a front state).
    order: Vec<T>,
    seen: HashSet<T>,
}

impl<T> UniqueState<T> {
    fn new(front: bool) -> Self {
        Self {
            front,
            order: Vec::new(),
            seen: HashSet::new(),
        }
    }
}

impl<In: Clone + Eq + Hash + Send> Transform<In> for Unique {
    type Out = In;
    type State = UniqueState<In>;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.merging()
    }

    fn start(&self) -> UniqueState<In> {
        UniqueState::new(false)
    }

    fn front(&self) -> UniqueState<In> {
        UniqueState::new(true)
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut UniqueState<In>,
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        if !state.seen.insert(item.clone()) {
            return ControlFlow::Continue(acc);
        }
        if state.front {
            return sink(acc, item);
        }
        state.order.push(item);
        ControlFlow::Continue(acc)
    }

    fn merge<A, K>(
        &self,
        left: &mut UniqueState<In>,
        right: UniqueState<In>,
        mut acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        for item in right.order {
            if !left.seen.insert(item.clone()) {
                continue;
            }
            if left.front {
                acc = sink(acc, item)?;
            } else {
                left.order.push(item);
            }
        }
        ControlFlow::Continue(acc)
    }
}

/// `skip_while`: drops items while the predicate holds, then passes on every item, as
/// `Iterator::skip_while` (Transducers.jl's `DropWhile`).
#[derive(Clone, Copy)]
pub struct SkipWhile<P>(pub(crate) P);

/// The stage's name, without its closure.
impl<P> std::fmt::Debug for SkipWhile<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkipWhile").finish_non_exhaustive()
    }
}

/// The state of [`SkipWhile`] for one piece.
pub struct SkipWhileState<T> {
    /// The piece begins at the run's first item: skipped items are dropped at once.
    front: bool,
    /// `true` while every item of the piece so far satisfied the predicate.
    skipping: bool,
    /// Those items, held until the piece to the left decides them (none in a front state).
    held: Vec<T>,
    /// A panic of the predicate on the item after `held`: raised only if the run is still
    /// skipping there; else the predicate was never called on it, and the item passed on.
    pending: Option<PanicPayload>,
}

impl<T> SkipWhileState<T> {
    fn new(front: bool) -> Self {
        Self {
            front,
            skipping: true,
            held: Vec::new(),
            pending: None,
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for SkipWhileState<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkipWhileState")
            .field("front", &self.front)
            .field("skipping", &self.skipping)
            .field("held", &self.held)
            .field("pending", &self.pending.is_some())
            .finish()
    }
}

impl<In: Send, P: Fn(&In) -> bool + Sync> Transform<In> for SkipWhile<P> {
    type Out = In;
    type State = SkipWhileState<In>;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.merging()
    }

    fn start(&self) -> SkipWhileState<In> {
        SkipWhileState::new(false)
    }

    fn front(&self) -> SkipWhileState<In> {
        SkipWhileState::new(true)
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
            if state.front {
                if (self.0)(&item) {
                    return ControlFlow::Continue(acc);
                }
            } else {
                // Speculative: the sequential run calls the predicate here only if it skipped
                // every item to the left.
                match panic::catch_unwind(AssertUnwindSafe(|| (self.0)(&item))) {
                    Ok(true) => {
                        state.held.push(item);
                        return ControlFlow::Continue(acc);
                    }
                    Ok(false) => {}
                    Err(payload) => state.pending = Some(payload),
                }
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
        if !left.skipping {
            // The predicate is never called right of here: what the right piece held passes
            // on, and a panic of its predicate never happened.
            return right.held.into_iter().try_fold(acc, sink);
        }
        left.skipping = right.skipping;
        if left.front {
            // Every item so far was skipped: the right piece's held items are skipped too, and
            // the predicate's call after them is the sequential run's.
            drop(right.held);
            if let Some(payload) = right.pending {
                panic::resume_unwind(payload);
            }
        } else {
            left.held.extend(right.held);
            left.pending = right.pending;
        }
        ControlFlow::Continue(acc)
    }
}
