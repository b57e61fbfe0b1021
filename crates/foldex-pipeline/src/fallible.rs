//! `try_for_each` and `try_reduce`: reductions over `Result` and `Option` that stop at the first
//! failure by index and return it, as `Iterator::try_for_each` does.

use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::ops::ControlFlow;

/// `Result<T, E>` or `Option<T>`: an outcome that is a value or a failure (the `?`-able types
/// that `try_for_each` and `try_reduce` accept).
pub trait Outcome: Sized {
    /// The value of a success.
    type Value;
    /// The value, or the failure itself.
    fn branch(self) -> ControlFlow<Self, Self::Value>;
    /// A success of `value`.
    fn success(value: Self::Value) -> Self;
}

impl<T, E> Outcome for Result<T, E> {
    type Value = T;
    fn branch(self) -> ControlFlow<Self, T> {
        match self {
            Ok(value) => ControlFlow::Continue(value),
            Err(error) => ControlFlow::Break(Err(error)),
        }
    }
    fn success(value: T) -> Self {
        Ok(value)
    }
}

impl<T> Outcome for Option<T> {
    type Value = T;
    fn branch(self) -> ControlFlow<Self, T> {
        match self {
            Some(value) => ControlFlow::Continue(value),
            None => ControlFlow::Break(None),
        }
    }
    fn success(value: T) -> Self {
        Some(value)
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Calls `f` on each item until one fails; returns the failure of the first item (by index)
    /// that fails, or success. Items after it never run once it is known.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let checked = (0..10_000usize).pipe().try_for_each(&ThreadedEx::new(), |i| {
    ///     if i % 1000 == 999 { Err(i) } else { Ok(()) }
    /// });
    /// assert_eq!(checked, Err(999));
    /// ```
    pub fn try_for_each<E, R, F>(&self, ex: &E, f: F) -> R
    where
        E: Executor + ?Sized,
        R: Outcome<Value = ()> + Send,
        F: Fn(X::Out) -> R + Sync,
        K: Codec<R>,
    {
        let step = |_: R, item| match f(item).branch() {
            ControlFlow::Continue(()) => ControlFlow::Continue(R::success(())),
            ControlFlow::Break(failure) => ControlFlow::Break(failure),
        };
        let keep_first = |left: R, right: R| match left.branch() {
            ControlFlow::Continue(()) => right,
            ControlFlow::Break(failure) => failure,
        };
        match self.try_fold(ex, || R::success(()), step, keep_first) {
            ControlFlow::Continue(outcome) | ControlFlow::Break(outcome) => outcome,
        }
    }

    /// Reduces items that are outcomes (`Result<T, E>`, `Option<T>`) with `op` from
    /// `identity()`, stopping at the first failure by index (an item, or `op`'s result) and
    /// returning it, as rayon's `try_reduce`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let total = ["1", "2", "x"].pipe().map(|s| s.parse::<u32>()).try_reduce(&SequentialEx, || 0, |a, b| Ok(a + b));
    /// assert!(total.is_err());
    /// let small = (1..5usize).pipe().map(|x| Some(x)).try_reduce(&SequentialEx, || 0, |a, b| Some(a + b));
    /// assert_eq!(small, Some(10));
    /// ```
    pub fn try_reduce<E, T, I, F>(&self, ex: &E, identity: I, op: F) -> X::Out
    where
        E: Executor + ?Sized,
        X::Out: Outcome<Value = T> + Send,
        I: Fn() -> T + Sync,
        F: Fn(T, T) -> X::Out + Sync,
        K: Codec<X::Out>,
    {
        let join = |left: X::Out, right: X::Out| match (left.branch(), right.branch()) {
            (ControlFlow::Continue(a), ControlFlow::Continue(b)) => op(a, b),
            (ControlFlow::Break(failure), _) | (_, ControlFlow::Break(failure)) => failure,
        };
        let step = |acc: X::Out, item: X::Out| {
            let joined = join(acc, item);
            match joined.branch() {
                ControlFlow::Continue(value) => ControlFlow::Continue(Outcome::success(value)),
                ControlFlow::Break(failure) => ControlFlow::Break(failure),
            }
        };
        match self.try_fold(ex, || Outcome::success(identity()), step, join) {
            ControlFlow::Continue(outcome) | ControlFlow::Break(outcome) => outcome,
        }
    }
}
