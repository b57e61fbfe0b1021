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
//! A stage that stops the run (`take_while`, `map_while`, `while_some`) may come before it:
//! the piece in which the stop falls holds the accumulator of its items before the stop, the
//! pieces right of it are dropped by the fold's rule, and the run's end passes that
//! accumulator on ([`Then`](crate::transform::Then) records which stage stopped, so that only
//! the stages after it end). So `take_while(p).fold_pieces(..)` passes on accumulators that
//! cover, in order, exactly the items `std`'s `take_while(p)` gives, on every executor. A stage
//! that stops may come after it too: it sees the accumulators as they are passed on.
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
#[derive(Clone, Copy)]
pub struct FoldPieces<I, F> {
    identity: I,
    op: F,
}

/// The stage's name, without its closures.
impl<I, F> std::fmt::Debug for FoldPieces<I, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FoldPieces").finish_non_exhaustive()
    }
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
#[derive(Clone, Copy)]
pub struct TryFoldPieces<I, F> {
    identity: I,
    op: F,
}

/// The stage's name, without its closures.
impl<I, F> std::fmt::Debug for TryFoldPieces<I, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TryFoldPieces").finish_non_exhaustive()
    }
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
    /// rayon's `fold` adapter: the items of each piece of the run folded with `op` from
    /// `identity()`, one accumulator passed on per piece, to the stages and reduction after
    /// it. How many there are depends on the executor's split; a reduction after it that
    /// joins them as `op` continues them gives every executor the same value
    /// ([`FoldPieces`](crate::transform::FoldPieces) says exactly what is passed on). After a
    /// stage that stops the run (`take_while`, `map_while`, `while_some`), the accumulators
    /// cover the items before the stop.
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
    /// // After a stop: the items before it, and nothing after.
    /// let before: u32 = (0..100u32).pipe().take_while(|&x| x < 10).fold_pieces(|| 0, |a, x| a + x).sum(&ex);
    /// assert_eq!(before, 45);
    /// ```
    pub fn fold_pieces<T, I, F>(self, identity: I, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Send,
        I: Fn() -> T + Sync,
        F: Fn(T, X::Out) -> T + Sync,
        X: Append<FoldPieces<I, F>>,
    {
        self.then(FoldPieces { identity, op })
    }

    /// rayon's `fold_with` adapter: [`fold_pieces`](Pipeline::fold_pieces) from a clone of
    /// `init` (which need only be `Clone + Send`) for each piece.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let longest = ["a", "abc", "ab"].pipe().fold_pieces_with(0, |m, w| m.max(w.len())).max(&ThreadedEx::new());
    /// assert_eq!(longest, Some(3));
    /// ```
    pub fn fold_pieces_with<T, F>(self, init: T, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Clone + Send,
        F: Fn(T, X::Out) -> T + Sync,
        X: Append<FoldPieces<CloneOf<T>, F>>,
    {
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
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// let sums = (0..100u8).pipe().try_fold_pieces(|| 0u8, |a, x| a.checked_add(x));
    /// assert_eq!(sums.try_reduce(&ex, || 0, |a, b| a.checked_add(b)), None);
    /// let small = (0..10u8).pipe().try_fold_pieces(|| 0u8, |a, x| a.checked_add(x));
    /// assert_eq!(small.try_reduce(&ex, || 0, |a, b| a.checked_add(b)), Some(45));
    /// ```
    pub fn try_fold_pieces<T, R, I, F>(self, identity: I, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Send,
        R: Outcome<Value = T> + Send,
        I: Fn() -> T + Sync,
        F: Fn(T, X::Out) -> R + Sync,
        X: Append<TryFoldPieces<I, F>>,
    {
        self.then(TryFoldPieces { identity, op })
    }

    /// rayon's `try_fold_with` adapter: [`try_fold_pieces`](Pipeline::try_fold_pieces) from
    /// a clone of `init` for each piece.
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
    pub fn try_fold_pieces_with<T, R, F>(self, init: T, op: F) -> Pipeline<S, X::Output, K>
    where
        T: Clone + Send,
        R: Outcome<Value = T> + Send,
        F: Fn(T, X::Out) -> R + Sync,
        X: Append<TryFoldPieces<CloneOf<T>, F>>,
    {
        self.then(TryFoldPieces {
            identity: CloneOf::new(init),
            op,
        })
    }
}
