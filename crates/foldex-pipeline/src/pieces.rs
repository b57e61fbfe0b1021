//! `fold_pieces` and its forms: rayon's `fold`, `fold_with`, `try_fold` and `try_fold_with`
//! adapters, which fold the items of each piece of the run into one accumulator and pass the
//! accumulators on to the stages and reduction after them.
//!
//! foldex's `fold` and `try_fold` are reductions (they take the executor and return a value);
//! the adapters are named for what they make, one fold per piece, so that no name means two
//! things.
//!
//! ## How
//!
//! The stage holds its piece's accumulator at the piece's right edge, and passes it on when
//! the piece is joined to the next (into the left piece's reduction, after its items) or, for
//! the run's last piece, when the run ends ([`Transform::finish`]): the boundary protocol of
//! [`crate::stateful`]. The stages and reduction after it therefore run as pieces are joined.
//! A stage that stops the run (`take_while`, `map_while`, `while_some`) may come after it,
//! not before it: a stopped piece is joined no further, and its accumulator would be lost.
//! Where nothing after it may stop the run either, the run is the plain fold with the joins
//! passing accumulators on (`Route::joining`), without the per-item guards that a stop after
//! it needs.

use crate::fallible::Outcome;
use crate::pipeline::Pipeline;
use crate::stage::{Append, Route, Transform};
use crate::streamed::PipeSource;
use crate::with::{CloneOf, MakeValue};
use foldex_core::StopProbe;
use std::ops::ControlFlow;

/// `fold_pieces`: the items of each piece folded with `op` from `identity`, one accumulator
/// passed on per piece ([`crate::Pipeline::fold_pieces`]).
///
/// # What it passes on
///
/// A piece is a run of consecutive items that the executor folds without a join; the pieces
/// partition the items, in order. `fold_pieces(identity, op)` passes on, in order, one
/// accumulator per piece in which at least one item reached it: `op` folded over the piece's
/// items from `identity()`; if no item reached it at all, one accumulator, `identity()`. So how many
/// accumulators come out depends on how the executor split the run (one on `SequentialEx`,
/// several on a parallel executor); what does not depend on it is their order and that, joined
/// end to end, they cover every item once.
///
/// Hence the guarantee: where the reduction after `fold_pieces` joins accumulators as `op`
/// continues them (`combine(fold(a), fold(b)) == fold(a ++ b)`: a sum after a sum, a
/// concatenation after pushes, a max after a max), every executor gives the value of one
/// sequential fold, the one `SequentialEx` gives. A reduction that counts the accumulators,
/// or collects them as they are, sees the split.
#[derive(Debug, Clone, Copy)]
pub struct FoldPieces<I, F> {
    identity: I,
    op: F,
}

impl<In, T, I, F> Transform<In> for FoldPieces<I, F>
where
    I: MakeValue<Value = T> + Sync,
    F: Fn(T, In) -> T + Sync,
    T: Send,
{
    type Out = T;
    /// The piece's accumulator, from its first item on.
    type State = Option<T>;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.joining()
    }

    fn start(&self) -> Option<T> {
        None
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut Option<T>,
        acc: A,
        item: In,
        _: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        let folded = state.take().unwrap_or_else(|| self.identity.make());
        *state = Some((self.op)(folded, item));
        ControlFlow::Continue(acc)
    }

    fn merge<A, K>(
        &self,
        left: &mut Option<T>,
        right: Option<T>,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        pass_left(left, right, acc, sink)
    }

    fn finish<A, K>(&self, state: Option<T>, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        sink(acc, state.unwrap_or_else(|| self.identity.make()))
    }
}

/// Joins two pieces' held accumulators: the left one is passed on (it is complete: the right
/// piece's items follow it), and the right one is held in its place; a piece that holds none
/// passes nothing.
fn pass_left<T, A, K>(
    left: &mut Option<T>,
    right: Option<T>,
    acc: A,
    sink: &mut K,
) -> ControlFlow<A, A>
where
    K: FnMut(A, T) -> ControlFlow<A, A>,
{
    let Some(right) = right else {
        return ControlFlow::Continue(acc);
    };
    match left.replace(right) {
        Some(done) => sink(acc, done),
        None => ControlFlow::Continue(acc),
    }
}

/// `try_fold_pieces`: as [`FoldPieces`], with an `op` that may fail; a piece's fold stops at
/// its first failure, which is what the piece passes on
/// ([`crate::Pipeline::try_fold_pieces`]).
#[derive(Debug, Clone, Copy)]
pub struct TryFoldPieces<I, F> {
    identity: I,
    op: F,
}

impl<In, T, R, I, F> Transform<In> for TryFoldPieces<I, F>
where
    I: MakeValue<Value = T> + Sync,
    F: Fn(T, In) -> R + Sync,
    R: Outcome<Value = T> + Send,
    T: Send,
{
    type Out = R;
    /// The piece's fold so far: a value, or the failure that ended it.
    type State = Option<ControlFlow<R, T>>;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.joining()
    }

    fn start(&self) -> Self::State {
        None
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut Self::State,
        acc: A,
        item: In,
        _: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, R) -> ControlFlow<A, A>,
    {
        let folded = match state.take() {
            None => self.identity.make(),
            Some(ControlFlow::Continue(value)) => value,
            Some(failed) => {
                // The piece's fold ended at its first failure: later items are read, not folded.
                *state = Some(failed);
                return ControlFlow::Continue(acc);
            }
        };
        *state = Some((self.op)(folded, item).branch());
        ControlFlow::Continue(acc)
    }

    fn merge<A, K>(
        &self,
        left: &mut Self::State,
        right: Self::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, R) -> ControlFlow<A, A>,
    {
        pass_left(left, right, acc, &mut |acc, done| sink(acc, outcome(done)))
    }

    fn finish<A, K>(&self, state: Self::State, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, R) -> ControlFlow<A, A>,
    {
        let done = state.unwrap_or_else(|| ControlFlow::Continue(self.identity.make()));
        sink(acc, outcome(done))
    }
}

/// A piece's fold as the outcome it passes on.
fn outcome<R: Outcome>(done: ControlFlow<R, R::Value>) -> R {
    match done {
        ControlFlow::Continue(value) => R::success(value),
        ControlFlow::Break(failure) => failure,
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Refuses a stage that holds a piece's accumulator after one that may stop the run.
    #[track_caller]
    fn no_stop_before(&self, name: &str) {
        assert!(
            !self.transform.breaks(),
            "foldex: {name} cannot follow take_while, map_while or while_some (a stage that \
             stops the run would lose the accumulator of the piece it stops); put {name} first"
        );
    }

    /// rayon's `fold` adapter: the items of each piece of the run folded with `op` from
    /// `identity()`, one accumulator passed on per piece, to the stages and reduction after
    /// it. How many there are depends on the executor's split; a reduction after it that
    /// joins them as `op` continues them gives every executor the same value
    /// ([`FoldPieces`](crate::transform::FoldPieces) says exactly what is passed on).
    ///
    /// # Panics
    /// If a stage before it may stop the run (`take_while`, `map_while`, `while_some`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// let total: u64 = (1..=1000u64).pipe().fold_pieces(|| 0, |a, x| a + x).sum(&ex);
    /// assert_eq!(total, 500_500);
    /// // Each piece's items in one Vec, the Vecs in order:
    /// let rows: Vec<Vec<u32>> = (0..100u32).pipe().fold_pieces(Vec::new, |mut v, x| { v.push(x); v }).collect(&ex);
    /// assert_eq!(rows.concat(), (0..100).collect::<Vec<_>>());
    /// ```
    #[track_caller]
    pub fn fold_pieces<T, I, F>(self, identity: I, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Send,
        I: Fn() -> T + Sync,
        F: Fn(T, X::Out) -> T + Sync,
        X: Append<FoldPieces<I, F>>,
    {
        self.no_stop_before("fold_pieces");
        self.then(FoldPieces { identity, op })
    }

    /// rayon's `fold_with` adapter: [`fold_pieces`](Pipeline::fold_pieces) from a clone of
    /// `init` (which need only be `Clone + Send`) for each piece.
    ///
    /// # Panics
    /// If a stage before it may stop the run (`take_while`, `map_while`, `while_some`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let longest = ["a", "abc", "ab"].pipe().fold_pieces_with(0, |m, w| m.max(w.len())).max(&ThreadedEx::new());
    /// assert_eq!(longest, Some(3));
    /// ```
    #[track_caller]
    pub fn fold_pieces_with<T, F>(self, init: T, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Clone + Send,
        F: Fn(T, X::Out) -> T + Sync,
        X: Append<FoldPieces<CloneOf<T>, F>>,
    {
        self.no_stop_before("fold_pieces_with");
        self.then(FoldPieces {
            identity: CloneOf::new(init),
            op,
        })
    }

    /// rayon's `try_fold` adapter: [`fold_pieces`](Pipeline::fold_pieces) with an `op` that
    /// returns a `Result` or an `Option`; each piece passes on its fold's value as a success,
    /// or its first failure (the piece's later items are then not folded). A `try_reduce` or
    /// a `collect` into `Result` after it gives the failure of the first item (by index) whose
    /// `op` failed, on every executor (unless the reduction's own `op` fails first).
    ///
    /// # Panics
    /// If a stage before it may stop the run (`take_while`, `map_while`, `while_some`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// let sums = (0..100u8).pipe().try_fold_pieces(|| 0u8, |a, x| a.checked_add(x));
    /// assert_eq!(sums.try_reduce(&ex, || 0, |a, b| a.checked_add(b)), None);
    /// let small = (0..10u8).pipe().try_fold_pieces(|| 0u8, |a, x| a.checked_add(x));
    /// assert_eq!(small.try_reduce(&ex, || 0, |a, b| a.checked_add(b)), Some(45));
    /// ```
    #[track_caller]
    pub fn try_fold_pieces<T, R, I, F>(self, identity: I, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Send,
        R: Outcome<Value = T> + Send,
        I: Fn() -> T + Sync,
        F: Fn(T, X::Out) -> R + Sync,
        X: Append<TryFoldPieces<I, F>>,
    {
        self.no_stop_before("try_fold_pieces");
        self.then(TryFoldPieces { identity, op })
    }

    /// rayon's `try_fold_with` adapter: [`try_fold_pieces`](Pipeline::try_fold_pieces) from
    /// a clone of `init` for each piece.
    ///
    /// # Panics
    /// If a stage before it may stop the run (`take_while`, `map_while`, `while_some`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let parsed: Result<Vec<u32>, _> = ["1", "2", "x"]
    ///     .pipe()
    ///     .try_fold_pieces_with(0u32, |a, s| s.parse::<u32>().map(|n| a + n))
    ///     .collect(&SequentialEx);
    /// assert!(parsed.is_err());
    /// ```
    #[track_caller]
    pub fn try_fold_pieces_with<T, R, F>(self, init: T, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Clone + Send,
        R: Outcome<Value = T> + Send,
        F: Fn(T, X::Out) -> R + Sync,
        X: Append<TryFoldPieces<CloneOf<T>, F>>,
    {
        self.no_stop_before("try_fold_pieces_with");
        self.then(TryFoldPieces {
            identity: CloneOf::new(init),
            op,
        })
    }
}
