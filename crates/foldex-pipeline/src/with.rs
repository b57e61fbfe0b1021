//! rayon's `_with` forms: a value given once, cloned for each piece of the fold (`map_with`,
//! `for_each_with`, `try_for_each_with`, `fold_pieces_with`), and `try_for_each_init`.
//!
//! A piece's value is made where the piece begins, as `map_init`'s `init` makes it: so
//! `map_with(v, f)` is `map_init(|| v.clone(), f)` for a `v` that need not be `Sync` (rayon's
//! bound: `Clone + Send`). The value is kept behind a lock, taken once per piece to clone it.

use crate::fallible::Outcome;
pub use crate::make_value::{CloneOf, MakeValue};
use crate::pipeline::Pipeline;
use crate::run::into_inner;
use crate::stage::{Append, Transform};
use crate::stages::MapInit;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::ops::ControlFlow;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Maps each item with `map`, which borrows a clone of `init` made once per piece of the
    /// fold, as rayon's `map_with` (a sender, a buffer): [`map_init`](Pipeline::map_init) with
    /// `|| init.clone()`, for an `init` that need only be `Clone + Send`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// let n = (0..100u32).pipe().map_with(tx, |tx, x| tx.send(x).unwrap()).count(&ThreadedEx::new());
    /// let mut got: Vec<u32> = rx.iter().collect();
    /// got.sort();
    /// assert_eq!((n, got), (100, (0..100).collect::<Vec<_>>()));
    /// ```
    pub fn map_with<T, R, F>(self, init: T, map: F) -> Pipeline<S, X::Output, K>
    where
        T: Clone + Send,
        F: Fn(&mut T, X::Out) -> R + Sync,
        X: Append<MapInit<CloneOf<T>, F>>,
    {
        self.then(MapInit {
            init: CloneOf::new(init),
            map,
        })
    }

    /// Calls `f` on every item with a clone of `init` made once per piece (rayon's
    /// `for_each_with`): [`for_each_init`](Pipeline::for_each_init) with `|| init.clone()`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// (1..=100u64).pipe().for_each_with(&ThreadedEx::new(), tx, |tx, x| tx.send(x).unwrap());
    /// assert_eq!(rx.iter().sum::<u64>(), 5050);
    /// ```
    pub fn for_each_with<E, T, F>(&self, ex: &E, init: T, f: F)
    where
        E: Executor + ?Sized,
        T: Clone + Send,
        F: Fn(&mut T, X::Out) + Sync,
        K: Codec<T>,
    {
        let init = CloneOf::new(init);
        self.for_each_init(ex, || init.make(), f);
    }

    /// Calls `f` on each item with a scratch value made by `init` once per piece, until one
    /// fails (rayon's `try_for_each_init`): the failure of the first item (by index) that
    /// fails, or success, as [`try_for_each`](Pipeline::try_for_each).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let r = (0..1000u32).pipe().try_for_each_init(&ThreadedEx::new(), String::new, |buf, x| {
    ///     buf.clear();
    ///     buf.push_str(&x.to_string());
    ///     if buf.len() < 3 { Ok(()) } else { Err(x) }
    /// });
    /// assert_eq!(r, Err(100));
    /// ```
    pub fn try_for_each_init<E, T, R, I, F>(&self, ex: &E, init: I, f: F) -> R
    where
        E: Executor + ?Sized,
        T: Send,
        R: Outcome<Value = ()> + Send,
        I: Fn() -> T + Sync,
        F: Fn(&mut T, X::Out) -> R + Sync,
        K: Codec<(T, R)>,
    {
        let step = |(mut scratch, _): (T, R), item| match f(&mut scratch, item).branch() {
            ControlFlow::Continue(()) => ControlFlow::Continue((scratch, R::success(()))),
            ControlFlow::Break(failure) => ControlFlow::Break((scratch, failure)),
        };
        let keep_first = |(scratch, left): (T, R), (_, right): (T, R)| match left.branch() {
            ControlFlow::Continue(()) => (scratch, right),
            ControlFlow::Break(failure) => (scratch, failure),
        };
        into_inner(self.try_fold(ex, || (init(), R::success(())), step, keep_first)).1
    }

    /// Calls `f` on each item with a clone of `init` made once per piece, until one fails
    /// (rayon's `try_for_each_with`): [`try_for_each_init`](Pipeline::try_for_each_init) with
    /// `|| init.clone()`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let limit = 10u32;
    /// let r = (0..100u32).pipe().try_for_each_with(&SequentialEx, limit, |limit, x| {
    ///     if x < *limit { Ok(()) } else { Err(x) }
    /// });
    /// assert_eq!(r, Err(10));
    /// ```
    pub fn try_for_each_with<E, T, R, F>(&self, ex: &E, init: T, f: F) -> R
    where
        E: Executor + ?Sized,
        T: Clone + Send,
        R: Outcome<Value = ()> + Send,
        F: Fn(&mut T, X::Out) -> R + Sync,
        K: Codec<(T, R)>,
    {
        let init = CloneOf::new(init);
        self.try_for_each_init(ex, || init.make(), f)
    }
}
